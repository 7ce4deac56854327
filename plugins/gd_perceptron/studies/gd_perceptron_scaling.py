"""Iterations to separation vs d on R1: linear GD (gamma = 1e2, 1e3, 1e4) against two-layer models in
perceptron form, with fitted log-log slopes (bootstrap intervals) and the speed-up over the linear
Batch Perceptron; every perceptron-type run held against its Novikoff-type bound.

    python plugins/gd_perceptron/studies/gd_perceptron_scaling.py            # full: d = 16..4096, 20 seeds
    python plugins/gd_perceptron/studies/gd_perceptron_scaling.py --quick    # d <= 512, 5 seeds

Writes scaling.csv, scaling.png (log-log with slopes), scaling_comparisons.md, novikoff.csv and
novikoff_comparisons.md to --out (default results/gd_perceptron/).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small grid and 5 seeds")
    ap.add_argument("--out", default="results/gd_perceptron", help="output folder")
    args = ap.parse_args()

    from toolkit_gd_perceptron.experiments import run_novikoff, run_scaling
    from toolkit_gd_perceptron.reporting import comparisons_markdown, write_outcome

    out = Path(args.out)
    for name, fn in (("scaling", run_scaling), ("novikoff", run_novikoff)):
        start = time.perf_counter()
        outcome = fn(args.quick)
        seconds = time.perf_counter() - start
        write_outcome(outcome, out, name)
        print(f"## {name} ({seconds:.1f} s)\n")
        print(comparisons_markdown(outcome.comparisons))
    print(f"written to {out}/")


if __name__ == "__main__":
    main()
