"""Headline experiments of care for ``toolkit reproduce``.

quick: seconds to a minute (one seed, fewer methods); full: the numbers on the results page.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit import Comparison, Experiment, ExperimentOutcome

ASSET_SEEDS = (2024, 42, 7)
# the authors' code measured on this machine (mean absolute error on asset)
PUBLISHED_ASSET = {"care_svd_faithful": 27.643, "avg": 33.663, "mv": 31.153, "ws": 29.230, "uws": 33.928}
ASSET_TOLERANCE = {"ws": 0.5}
G5_SEEDS = (0, 1, 2, 3, 4)


def g1_asset(quick: bool) -> ExperimentOutcome:
    import toolkit

    seeds = ASSET_SEEDS[:1] if quick else ASSET_SEEDS
    methods = ("mv", "avg", "uws", "care_svd_faithful") if quick else None
    sim = toolkit.get_registry().simulation("care.benchmark")
    frames = [
        sim.func(sim.params(dataset="asset", methods=methods), seed).assign(seed=seed) for seed in seeds
    ]
    table = pd.concat(frames, ignore_index=True)
    comparisons = []
    for method, ref in PUBLISHED_ASSET.items():
        got = table.loc[table["method"] == method, "mae"]
        if got.empty:
            continue
        tol = ASSET_TOLERANCE.get(method, 0.05)
        comparisons.append(
            Comparison(
                f"asset MAE of {method} within {tol} of the authors' code",
                f"{ref:.3f}",
                ", ".join(f"{v:.3f}" for v in got),
                bool(np.all(np.abs(got.to_numpy() - ref) <= tol)),
            )
        )
    return ExperimentOutcome(table, comparisons)


def g5_synthetic(quick: bool) -> ExperimentOutcome:
    from toolkit_care.evaluate import synthetic

    seeds = G5_SEEDS[:1] if quick else G5_SEEDS
    cells = (
        [("continuous", 10, 1.0)]
        if quick
        else [
            (task, J, s)
            for task in ("continuous", "binary", "pairwise")
            for J in (10, 20)
            for s in (0.0, 1.0, 2.0)
        ]
    )
    rows = []
    for task, J, s in cells:
        for seed in seeds:
            for r in synthetic(1000, J, 1, s, 2, 0.0, task, seed, methods=("mean", "one_factor", "care_svd")):
                rows.append({"task": task, "n_judges": J, "strength": s, "seed": seed, **r})
    table = pd.DataFrame(rows)
    comparisons = []
    for (task, J, s), g in table.groupby(["task", "n_judges", "strength"]):
        m = g.groupby("method")["error"].mean()
        base = min(m["mean"], m["one_factor"])
        cut = 1 - m["care_svd"] / base
        if s >= 1:
            need = 0.25 if task == "continuous" else 0.15
            claim, ok = (
                f"{task} J={J} strength {s}: CARE cuts the better baseline's error by >= {need:.0%}",
                cut >= need,
            )
        else:
            claim, ok = f"{task} J={J} strength 0: CARE loses at most 2%", cut >= -0.02
        comparisons.append(
            Comparison(claim, "target", f"{cut:+.1%} ({m['care_svd']:.3f} vs {base:.3f})", bool(ok))
        )
    return ExperimentOutcome(table, comparisons)


EXPERIMENTS = [
    Experiment(
        "care.g1_asset",
        "G1: faithful CARE-SVD and the baselines on asset (MAE, Kendall tau), seeds 2024, 42, 7",
        g1_asset,
    ),
    Experiment(
        "care.g5_synthetic",
        "G5: principled CARE-SVD vs the mean and the one-factor model on simulated judges",
        g5_synthetic,
    ),
]
