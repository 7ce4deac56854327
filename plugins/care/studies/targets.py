"""The runs behind docs/plugins/care/results.md, through toolkit.sweep and the store.

    python plugins/care/studies/targets.py g1      # asset, seeds 2024, 42, 7, every method
    python plugins/care/studies/targets.py g5      # synthetic, seeds 0-4
    python plugins/care/studies/targets.py rank    # rank of L at N = 2000, seeds 0-9
    python plugins/care/studies/targets.py g4      # asset: both CARE-SVD modes at every gamma
    python plugins/care/studies/targets.py g2      # civilcomments, lam_L = 1e-3 sub-grid, seeds 42, 2024, 7

Each prints its table as CSV on stdout (wall-clock columns included).
"""

from __future__ import annotations

import sys

import pandas as pd

import toolkit


def g1() -> pd.DataFrame:
    res = toolkit.sweep("care.benchmark", {"dataset": ["asset"]}, seeds=[2024, 42, 7])
    return res.table


def g5() -> pd.DataFrame:
    frames = []
    for task, J in (("continuous", 10), ("binary", 20), ("pairwise", 20)):
        res = toolkit.sweep(
            "care.synthetic",
            {"strength": [0.0, 1.0]},
            seeds=range(5),
            params={
                "n_items": 1000,
                "n_judges": J,
                "task": task,
                "methods": ("mean", "one_factor", "care_svd"),
            },
        )
        frames.append(res.table)
    return pd.concat(frames, ignore_index=True)


def rank() -> pd.DataFrame:
    res = toolkit.sweep(
        "care.synthetic",
        {"strength": [1.0]},
        seeds=range(10),
        params={"n_items": 2000, "n_judges": 10, "methods": ("care_svd",)},
    )
    return res.table


def g4() -> pd.DataFrame:
    from toolkit_care.evaluate import asset_gamma_path

    return pd.DataFrame(asset_gamma_path(toolkit.get_registry().dataset("care.asset").load()))


def g2(seeds=(42, 2024, 7)) -> pd.DataFrame:
    res = toolkit.sweep("care.benchmark", {"dataset": ["civilcomments"]}, seeds=list(seeds))
    return res.table


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "g1"
    if which == "g2" and len(sys.argv) > 2:  # one seed at a time: python targets.py g2 42
        table = g2([int(sys.argv[2])])
    else:
        table = {"g1": g1, "g5": g5, "rank": rank, "g4": g4, "g2": g2}[which]()
    table.to_csv(sys.stdout, index=False)
