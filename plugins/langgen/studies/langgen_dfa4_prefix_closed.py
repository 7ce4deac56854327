"""Exhaustive search over all families of at most 3 prefix-closed (safety) DFA_n languages: the
largest finite intersection, exact for that subclass and a lower bound on C(DFA_n) (all three
members of the 108-word DFA_4 certificate are prefix-closed). ``--subclass prefix-or-suffix``
takes the prefix-closed and the suffix-closed languages together (mixed triples included). Writes
a JSON that ``langgen_dfa4_certificate.py`` checks. The search is the registered simulation
``langgen.closed_family_bound``, kept in the run store (--store, default TOOLKIT_STORE): a rerun reads it
back (``seconds_search`` is then the stored run's computing time).

    OMP_NUM_THREADS=1 nice -n 10 python plugins/langgen/studies/langgen_dfa4_prefix_closed.py \\
        [--subclass prefix|prefix-or-suffix] --out results/langgen/dfa4_prefix_closed.json [--store runs.sqlite]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from toolkit.argtypes import add_run_options


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument(
        "--subclass",
        choices=("prefix", "prefix-or-suffix"),
        default="prefix",
        help="members: prefix-closed languages, or prefix- and suffix-closed ones together",
    )
    ap.add_argument("--out", default="results/langgen/dfa4_prefix_closed.json")
    add_run_options(ap, executors=("serial",))
    args = ap.parse_args(argv)
    if not 1 <= args.n <= 4:
        ap.error(f"--n must be 1..4, got {args.n}")
    import toolkit

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    res = toolkit.run(
        "langgen.closed_family_bound", {"n": args.n, "subclass": args.subclass}, 0, store=args.store
    )
    row = res.records[0]
    doc = {
        "n": args.n,
        "languages": row["languages"],
        "subclass": args.subclass,
        "candidates": row["candidates"],
        "lower_bound": row["lower_bound"],
        "method": f"exhaustive over all families of <= 3 {args.subclass}-closed languages",
        "finite_intersections": row["finite_intersections"],
        "witness_words": row["witness_words"],
        "witness_family": row["witness_family"],
        "members": row["members"],
        "seconds_search": round(res.provenance["wall_time"], 1),
        "seconds": round(time.perf_counter() - t0, 1),
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    out.write_text(json.dumps(doc, indent=1))
    print(json.dumps({k: v for k, v in doc.items() if k not in ("witness_words", "members")}, indent=1))
    print(f"1 run: {'read from the store' if res.from_cache else 'computed'}", file=sys.stderr)


if __name__ == "__main__":
    main()
