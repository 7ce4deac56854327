"""care: confounder-aware aggregation of LLM judges (CARE-SVD, CARE-Tensor, ICML 2026) and the aggregators it
is compared with (mean, majority vote, label model, UWS, Dawid-Skene, factor analysis).

Hook implementations only: each list of specs is imported the first time one of its names is used.
"""

from __future__ import annotations

from toolkit import defer

toolkit_register_simulations = defer(
    "toolkit_care.simulation:SIMULATIONS",
    {
        "care.synthetic": "judges with planted confounders: every aggregator's error vs the truth and the Bayes floor",
        "care.benchmark": "every aggregator on a released judge table (asset: MAE, Kendall tau; civilcomments: "
        "test accuracy)",
    },
)

toolkit_register_bounds = defer(
    "toolkit_care.bounds:BOUNDS",
    {
        "care.bayes_floor": "no aggregator beats the Gaussian posterior: error >= Bayes floor - 4/sqrt(N), every "
        "simulated row",
        "care.theory": "Woodbury structure (rank 1 + K), optimal weights in L's span, omitted-confounder bias with "
        "equality, the mean's leakage, the one-factor limit, non-identifiability without anchors (symbolic)",
    },
)

toolkit_register_datasets = defer(
    "toolkit_care.data:DATASETS",
    {
        "care.asset": "ASSET: 11 LLM judges' 0-100 ratings of 4,500 simplifications beside the human rating "
        "(continuous)",
        "care.civilcomments": "CivilComments: 24 LLM judges' 0-9 toxicity scores of 5,000 comments beside the 0/1 "
        "label (binary)",
        "care.table": "your own judge table (CSV or parquet: items x judges, optional label column), validated",
    },
)

toolkit_register_experiments = defer(
    "toolkit_care.experiments:EXPERIMENTS",
    {
        "care.g1_asset": "G1: faithful CARE-SVD and the baselines on asset (MAE, Kendall tau), seeds 2024, 42, 7",
        "care.g5_synthetic": "G5: principled CARE-SVD vs the mean and the one-factor model on simulated judges",
    },
)
