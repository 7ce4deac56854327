"""Exact reference values: predecessor Table 1 (Thm 5.1 data, n = 1000: Batch Perceptron 301, LR+GD
308, Normalized LR+GD 2, 2, 16, 157), Thm 4.1 (separation at t = 2, f(theta_1)/gamma -> 1/8) and R1's
Batch Perceptron count 2d + 4 for d = 16..4096.

    python plugins/gd_perceptron/studies/gd_perceptron_table1.py [--out results/gd_perceptron]

Writes table1.csv and table1_comparisons.md.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="results/gd_perceptron", help="output folder")
    args = ap.parse_args()

    from toolkit_gd_perceptron.experiments import run_exact
    from toolkit_gd_perceptron.reporting import comparisons_markdown, write_outcome

    outcome = run_exact(False)
    write_outcome(outcome, Path(args.out), "table1")
    print(outcome.table.to_string(index=False))
    print()
    print(comparisons_markdown(outcome.comparisons))


if __name__ == "__main__":
    main()
