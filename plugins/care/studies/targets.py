"""The runs behind docs/plugins/care/results.md, through toolkit.sweep and the store.

    python plugins/care/studies/targets.py g1      # asset, seeds 2024, 42, 7, every method
    python plugins/care/studies/targets.py g5      # synthetic, seeds 0-4
    python plugins/care/studies/targets.py rank    # rank of L at N = 2000, seeds 0-9
    python plugins/care/studies/targets.py g4      # asset: both CARE-SVD modes at every gamma
    python plugins/care/studies/targets.py g4scale # asset, gamma = 1: principled weights on correlation/covariance
    python plugins/care/studies/targets.py g2      # civilcomments, lam_L = 1e-3 sub-grid, seeds 42, 2024, 7
    python plugins/care/studies/targets.py solvers # G5's settings, seeds 400-409, principled CARE-SVD with SCS
                                                   # and with Clarabel

Each prints its table as CSV on stdout (wall-clock columns included). ``--store`` and ``--executor``
choose the run store and how the points run; g4 and g4scale compute in the process (one pass over the
gamma grid on asset).
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd

import toolkit
from toolkit.argtypes import add_run_options, open_run_store


def g1(**run) -> pd.DataFrame:
    res = toolkit.sweep("care.benchmark", {"dataset": ["asset"]}, seeds=[2024, 42, 7], **run)
    return res.table


def g5(seeds=range(5), grid=None, **run) -> pd.DataFrame:
    frames = []
    for task, J in (("continuous", 10), ("binary", 20), ("pairwise", 20)):
        res = toolkit.sweep(
            "care.synthetic",
            {"strength": [0.0, 1.0], **(grid or {})},
            seeds=seeds,
            params={
                "n_items": 1000,
                "n_judges": J,
                "task": task,
                "methods": ("mean", "one_factor", "care_svd"),
            },
            **run,
        )
        frames.append(res.table)
    return pd.concat(frames, ignore_index=True)


def solvers(**run) -> pd.DataFrame:
    return g5(seeds=range(400, 410), grid={"solver": ["scs", "clarabel"]}, **run)


def rank(**run) -> pd.DataFrame:
    res = toolkit.sweep(
        "care.synthetic",
        {"strength": [1.0]},
        seeds=range(10),
        params={"n_items": 2000, "n_judges": 10, "methods": ("care_svd",)},
        **run,
    )
    return res.table


def g4(**run) -> pd.DataFrame:  # one pass in the process: no store
    from toolkit_care.evaluate import asset_gamma_path

    return pd.DataFrame(asset_gamma_path(toolkit.get_registry().dataset("care.asset").load()))


def g4scale(**run) -> pd.DataFrame:  # likewise
    from toolkit_care.evaluate import asset_weight_scale

    return pd.DataFrame(asset_weight_scale(toolkit.get_registry().dataset("care.asset").load(), gamma=1.0))


def g2(seeds=(42, 2024, 7), **run) -> pd.DataFrame:
    res = toolkit.sweep("care.benchmark", {"dataset": ["civilcomments"]}, seeds=list(seeds), **run)
    return res.table


TABLES = {"g1": g1, "g5": g5, "rank": rank, "g4": g4, "g4scale": g4scale, "g2": g2, "solvers": solvers}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "table", nargs="?", default="g1", choices=sorted(TABLES), help="which table (default: g1)"
    )
    parser.add_argument("seed", nargs="?", type=int, help="g2 only: one seed instead of 42, 2024, 7")
    add_run_options(parser)
    args = parser.parse_args(argv)
    if args.seed is not None and args.table != "g2":
        parser.error(f"a seed is taken by g2 only, not by {args.table}")
    run = {"store": open_run_store(args.store).path, "executor": args.executor}
    table = g2([args.seed], **run) if args.seed is not None else TABLES[args.table](**run)
    table.to_csv(sys.stdout, index=False)


if __name__ == "__main__":
    main()
