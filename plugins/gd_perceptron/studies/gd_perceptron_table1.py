"""Exact reference values: predecessor Table 1 (Thm 5.1 data, n = 1000: Batch Perceptron 301, LR+GD
308, Normalized LR+GD 2, 2, 16, 157), Thm 4.1 (separation at t = 2, f(theta_1)/gamma -> 1/8) and R1's
Batch Perceptron count 2d + 4 for d = 16..4096.

    python plugins/gd_perceptron/studies/gd_perceptron_table1.py [--out results/gd_perceptron] [--store PATH]

Writes table1.csv and table1_comparisons.md. The counts come from runs of ``gd_perceptron.scaling`` and
``gd_perceptron.dynamics`` kept in the run store (--store, default TOOLKIT_STORE): a rerun reads them back.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main(argv=None) -> None:
    from toolkit.argtypes import add_run_options, open_run_store

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="results/gd_perceptron", help="output folder")
    add_run_options(ap, executors=("serial",))  # the runs go one at a time through the experiment
    args = ap.parse_args(argv)

    from toolkit_gd_perceptron import experiments as E
    from toolkit_gd_perceptron.reporting import comparisons_markdown, write_outcome

    E.STORE, E.FROM_CACHE[:] = open_run_store(args.store), []
    try:
        outcome = E.run_exact(False)
    finally:
        E.STORE.close()
        E.STORE = None
    write_outcome(outcome, Path(args.out), "table1")
    print(outcome.table.to_string(index=False))
    print()
    print(comparisons_markdown(outcome.comparisons))
    cached = sum(E.FROM_CACHE)
    print(
        f"{len(E.FROM_CACHE)} runs: {len(E.FROM_CACHE) - cached} computed, {cached} from the store",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
