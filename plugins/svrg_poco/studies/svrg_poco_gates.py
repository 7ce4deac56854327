"""Run svrg_poco's target experiments G1-G4 in their full setting and print the claim-by-claim table.

    python plugins/svrg_poco/studies/svrg_poco_gates.py [--quick] [--only g1,g3] [--seeds 3,4,5] [--out results/svrg_poco]
        [--store runs.sqlite]

``--seeds`` replaces each target's seeds (0-2 in the full setting): fresh seeds for a confirmation run.
Every run is a run of ``svrg_poco.convergence``, ``svrg_poco.variance`` or ``svrg_poco.mlp`` kept in the
run store (``--store``, default TOOLKIT_STORE): a rerun reads the finished runs back instead of recomputing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import toolkit
from toolkit.argtypes import add_run_options, comma_list, open_run_store, seeds

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
        help="comma-separated seeds replacing each target's own (default: 0-2; 0 with --quick)",
    )
    parser.add_argument("--out", default="results/svrg_poco", help="folder for the tables (CSV)")
    add_run_options(parser, executors=("serial",))
    args = parser.parse_args(argv)
    from toolkit_svrg_poco import experiments as E

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    E.STORE, E.FROM_CACHE[:] = open_run_store(args.store), []
    try:
        failed = _gates(args, out)
    finally:
        E.STORE.close()
        E.STORE = None
    cached = sum(E.FROM_CACHE)
    print(
        f"{len(E.FROM_CACHE)} runs: {len(E.FROM_CACHE) - cached} computed, {cached} from the store",
        file=sys.stderr,
    )
    return 1 if failed else 0


def _gates(args: argparse.Namespace, out: Path) -> int:
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
                f"  [{'ok' if comp.ok else 'MISS'}] {comp.claim}: paper {comp.paper}; measured {comp.measured}"
            )
    return failed


if __name__ == "__main__":
    raise SystemExit(main())
