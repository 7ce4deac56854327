"""Run svrg_poco's gate experiments G1-G4 in their full setting and print the claim-by-claim table.

    python plugins/svrg_poco/studies/svrg_poco_gates.py [--quick] [--only g1,g3] [--seeds 3,4,5] [--out results/svrg_poco]

``--seeds`` replaces each gate's seeds (0-2 in the full setting): fresh seeds for a confirmation run.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import toolkit
from toolkit.argtypes import comma_list, seeds

GATES = ("g1", "g2", "g3", "g4")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the quick setting of toolkit reproduce")
    parser.add_argument(
        "--only",
        type=comma_list(choices=GATES),
        default=list(GATES),
        help="comma-separated subset of " + ",".join(GATES),
    )
    parser.add_argument(
        "--seeds",
        type=seeds,
        default=None,
        help="comma-separated seeds replacing each gate's own (default: 0-2; 0 with --quick)",
    )
    parser.add_argument("--out", default="results/svrg_poco", help="folder for the tables (CSV)")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    registry = toolkit.get_registry()
    wanted = args.only
    failed = 0
    for name in sorted(registry.experiments):
        if not name.startswith("svrg_poco.") or name.split(".")[1].split("_")[0] not in wanted:
            continue
        start = time.perf_counter()
        run = registry.experiments[name].run
        outcome = run(args.quick) if args.seeds is None else run(args.quick, seeds=args.seeds)
        seconds = time.perf_counter() - start
        outcome.table.to_csv(out / f"{name.split('.')[1]}.csv", index=False)
        print(f"## {name} ({seconds:.1f} s)")
        print(outcome.table.to_string(index=False))
        for comp in outcome.comparisons:
            failed += comp.ok is False
            print(
                f"  [{'ok' if comp.ok else 'MISS'}] {comp.claim}: paper/spec {comp.paper}; measured {comp.measured}"
            )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
