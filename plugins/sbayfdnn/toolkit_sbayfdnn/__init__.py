"""sbayfdnn: sparse Bayesian functional deep network with structured region selection.

Zhu, Li, Ma, Wu, ICML 2026 (arXiv:2602.20651). Hook implementations only; the maths lives in
``basis``, ``prior``, ``network``, ``estimator``, ``baselines`` and ``designs``.
"""

from __future__ import annotations

from toolkit import defer

toolkit_register_simulations = defer(
    "toolkit_sbayfdnn.simulation:SIMULATIONS",
    {
        "sbayfdnn.two_region": "sparse Bayesian functional network on the two-region design (link, SNR, n)",
        "sbayfdnn.one_region": "sparse Bayesian functional network on the one-region design",
        "sbayfdnn.null": "null design (beta = 0): number of basis functions selected from noise",
        "sbayfdnn.compare": "sbayfdnn vs FLM, group lasso, FPCA, dense net, AdaFNN on one two-region split",
        "sbayfdnn.offset": "hard design: large common offset, random baselines, collinear curves; vs the FLM",
        "sbayfdnn.ecg": "semi-synthetic ECG (neurokit2 beats; the QRS window is the true region)",
    },
)

toolkit_register_bounds = defer(
    "toolkit_sbayfdnn.bounds:BOUNDS",
    {
        "sbayfdnn.pip_threshold": "every selected first-layer column has ||w_j||^2 above the closed-form threshold (q_j > 1/2)",
        "sbayfdnn.pip_threshold_excluded": "every excluded first-layer column has ||w_j||^2 at or below the closed-form threshold (q_j <= 1/2)",
        "sbayfdnn.approximation_rate": "approximation error of order H_n^(-2 alpha_1) + J_n^(-alpha_beta alpha_1), alpha_1 = min(alpha_g, 1); holds for a single-index truth g(integral X beta) with beta alpha_beta-smooth, g alpha_g-Hoelder, H_n, J_n -> infinity, AND the network's weight bound E_n growing fast enough (an audit found Thm 5.4 false without a lower bound on E_n); symbolic only",
    },
)

toolkit_register_datasets = defer(
    "toolkit_sbayfdnn.data:DATASETS",
    {
        "sbayfdnn.synthetic": "functional regression with planted regions (the paper's designs)",
        "sbayfdnn.elnino": "statsmodels El Nino SST curves (60 years x 12 months), next-year Jan-Mar mean as response",
        "sbayfdnn.ecg": "neurokit2-simulated ECG beats on a common grid, response on the QRS window",
        "sbayfdnn.offset": "hard synthetic curves: large common offset, random baselines, strong collinearity, two planted regions",
        "sbayfdnn.tecator": "Tecator NIR meat spectra (sktime, shipped), fat %, standard split 172 train / 43 test",
        "sbayfdnn.covid": "Covid3Month (sktime, shipped): daily cases over 84 days -> death rate, standard split 140 train / 61 test",
    },
)

toolkit_register_experiments = defer(
    "toolkit_sbayfdnn.experiments:EXPERIMENTS",
    {
        "sbayfdnn.pip_closed_form": "plug-in inclusion probability vs its closed-form threshold",
        "sbayfdnn.laplace_toy": "Laplace log evidence vs brute-force integration (1-D toy)",
        "sbayfdnn.two_region_targets": "two-region design, SNR 5: RMSE/oracle, region TPR/FPR/F1, coverage, vs FLM and dense net",
        "sbayfdnn.null_design": "null design: basis functions selected from pure noise",
        "sbayfdnn.real_data": "ECG (neurokit2, planted QRS region) and El Nino (statsmodels)",
    },
)
