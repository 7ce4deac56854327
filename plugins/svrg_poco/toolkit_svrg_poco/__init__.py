"""svrg_poco: SVRG as posterior correction (Daheim, Möllenhoff, Ang, Khan; ICML 2026, arXiv 2512.01930).

Hook implementations only: each list of specs is imported the first time one of its names is used.
"""

from __future__ import annotations

from toolkit import defer

toolkit_register_simulations = defer(
    "toolkit_svrg_poco.simulation:SIMULATIONS",
    {
        "svrg_poco.convergence": "suboptimality per gradient evaluation: SGD, SVRG, alpha-SVRG, PoCo (isotropic, Newton-like)",
        "svrg_poco.variance": "SVRG estimator variance along the path vs SGD's, and Johnson-Zhang's variance lemma",
        "svrg_poco.mlp": "digits MLP: train loss and test accuracy per step and per gradient evaluation (torch)",
    },
)

toolkit_register_bounds = defer(
    "toolkit_svrg_poco.bounds:BOUNDS",
    {
        "svrg_poco.svrg_rate": "Johnson-Zhang Thm 1: E[P(w~_s) - P*] <= alpha^s (P(w~_0) - P*) for option II with alpha < 1 (held run by run at the end of every inner loop)",
        "svrg_poco.variance_lemma": "Johnson-Zhang's lemma: (1/N) sum_i |v_i|^2 <= 4 L [P(w) - P* + P(w~) - P*] for the SVRG estimator v_i",
        "svrg_poco.reductions": "the posterior-correction step is (alpha-)SVRG for q = N(m, I) (Thm 1-2); at alpha = 0 it is SGD (BLR)",
        "svrg_poco.newton_like": "VON-PoCo (Thm 3): closed form = natural-parameter form; on quadratics zero variance and one-step convergence at eta = 1",
    },
)

toolkit_register_datasets = defer(
    "toolkit_svrg_poco.data:DATASETS",
    {
        "svrg_poco.affairs": "statsmodels' Fair affairs survey (6,366 x 8 raw features, binary: any affair); "
        "ill-conditioned on raw features",
    },
)

toolkit_register_experiments = defer(
    "toolkit_svrg_poco.experiments:EXPERIMENTS",
    {
        "svrg_poco.g1_svrg_vs_sgd": "G1: SVRG's linear rate vs SGD on least squares (kappa_H = 10)",
        "svrg_poco.g2_variance": "G2: SVRG's variance lemma and variance vs SGD's near the optimum",
        "svrg_poco.g3_newton_like": "G3: Newton-like VON-PoCo epochs to 1e-6 on LS and logistic regression",
        "svrg_poco.g4_mlp": "G4: IVON-PoCo vs Adam on a digits MLP (per step and per gradient evaluation)",
    },
)
