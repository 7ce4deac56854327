"""Iterations to separation vs d on R1: linear GD (gamma = 1e2, 1e3, 1e4) against two-layer models in
perceptron form, with fitted log-log slopes (bootstrap intervals) and the speed-up over the linear
Batch Perceptron; every perceptron-type run held against its Novikoff-type bound.

    python plugins/gd_perceptron/studies/gd_perceptron_scaling.py            # full: d = 16..4096, 20 seeds
    python plugins/gd_perceptron/studies/gd_perceptron_scaling.py --quick    # d <= 512, 5 seeds

Writes scaling.csv, scaling.png (log-log with slopes), scaling_comparisons.md, novikoff.csv and
novikoff_comparisons.md to --out (default results/gd_perceptron/). Every run is a ``gd_perceptron.scaling``
run kept in the run store (--store, default TOOLKIT_STORE): a rerun reads the finished runs back.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from toolkit.argtypes import add_run_options, open_run_store

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small grid and 5 seeds")
    ap.add_argument("--out", default="results/gd_perceptron", help="output folder")
    add_run_options(ap, executors=("serial",))
    args = ap.parse_args(argv)

    from toolkit_gd_perceptron import experiments as E
    from toolkit_gd_perceptron.reporting import comparisons_markdown, write_outcome

    out = Path(args.out)
    E.STORE, E.FROM_CACHE[:] = open_run_store(args.store), []
    try:
        for name, fn in (("scaling", E.run_scaling), ("novikoff", E.run_novikoff)):
            start = time.perf_counter()
            outcome = fn(args.quick)
            seconds = time.perf_counter() - start
            write_outcome(outcome, out, name)
            print(f"## {name} ({seconds:.1f} s)\n")
            print(comparisons_markdown(outcome.comparisons))
    finally:
        E.STORE.close()
        E.STORE = None
    print(f"written to {out}/")
    cached = sum(E.FROM_CACHE)
    print(
        f"{len(E.FROM_CACHE)} runs: {len(E.FROM_CACHE) - cached} computed, {cached} from the store",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
