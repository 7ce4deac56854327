"""All pairs of DFA_4 languages (57,000 infinite ones: 1.6e9 pairs): the largest finite |L_i ∩ L_j|,
a certified lower bound on C(DFA_4) with the pair as its certificate, compiled (numba) scan in
blocks of rows, time-bounded, JSON summary after every block.

    OMP_NUM_THREADS=1 nice -n 10 python plugins/langgen/studies/langgen_dfa4_pairs.py --time-limit 1800 \\
        --out results/langgen/dfa4_pairs.json [--resume] [--store runs.sqlite]

Each block of rows is a ``langgen.pair_scan`` run kept in the run store (--store, default TOOLKIT_STORE):
a later call reads the finished blocks back and goes on from the first missing one (--resume is kept for
old command lines; the store always resumes). --time-limit bounds the computing time of all blocks,
stored ones included (``seconds`` in the JSON).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
from pathlib import Path

from toolkit.argtypes import add_run_options, open_run_store


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--block", type=int, default=500, help="rows per block (one stored run each)")
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--out", default="results/langgen/dfa4_pairs.json")
    ap.add_argument(
        "--resume", action="store_true", help="(always on: finished blocks are read from the store)"
    )
    add_run_options(ap, executors=("serial",))
    args = ap.parse_args(argv)
    if not 1 <= args.n <= 4:
        ap.error(f"--n must be 1..4, got {args.n}")
    if args.block < 1:
        ap.error(f"--block must be >= 1, got {args.block}")
    import toolkit

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    store = open_run_store(args.store)
    state: dict = {}
    computed = cached = 0
    try:
        rows_done, seconds = 0, 0.0
        while True:
            values = {"n": args.n, "row_start": rows_done, "row_stop": rows_done + args.block}
            res = toolkit.run("langgen.pair_scan", values, 0, store=store)
            computed, cached = computed + (not res.from_cache), cached + res.from_cache
            row = res.records[0]
            N = row["languages"]
            if not state:
                state = {
                    "n": args.n,
                    "languages": N,
                    "pairs_total": N * (N - 1) // 2,
                    "rows_done": 0,
                    "pairs_scanned": 0,
                    "finite_pairs": 0,
                    "best": -1,
                    "pair": None,
                    "seconds": 0.0,
                }
            rows_done += row["rows"]
            seconds += res.provenance["wall_time"]
            state["rows_done"], state["pairs_scanned"] = (
                rows_done,
                state["pairs_scanned"] + row["pairs_scanned"],
            )
            state["finite_pairs"] += row["finite_pairs"]
            if row["best"] > state["best"]:
                state["best"], state["pair"] = row["best"], [row["i"], row["j"]]
                state["witness_words"] = row["witness_words"]
            state["seconds"] = round(seconds, 1)
            state["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
            state["complete"] = rows_done == N
            out.write_text(json.dumps(state, indent=1))
            print(
                f"rows {rows_done}/{N}  pairs {state['pairs_scanned']:,}  best {state['best']}  {state['seconds']} s",
                flush=True,
            )
            if rows_done >= N or seconds >= args.time_limit:
                break
    finally:
        store.close()
    print(f"{computed + cached} blocks: {computed} computed, {cached} from the store", file=sys.stderr)


if __name__ == "__main__":
    main()
