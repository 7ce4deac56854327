"""gd_perceptron: gradient descent on the logistic loss as a (generalized) perceptron.

A. Tyurin, "Gradient Descent as a Perceptron Algorithm: Understanding Dynamics and Implicit
Acceleration" (ICML 2026, arXiv 2512.11587) and its predecessor "From Logistic Regression to the
Perceptron Algorithm" (arXiv 2412.08424). Hook implementations only; see README.md.
"""

from __future__ import annotations

from toolkit import defer

toolkit_register_simulations = defer(
    "toolkit_gd_perceptron.simulation:SIMULATIONS",
    {
        "gd_perceptron.scaling": "iterations to separation over model x dataset x d x gamma x seed (batched), slope and speed-up",
        "gd_perceptron.limits": "GD at finite gamma vs its two perceptron limits (vanishing init; from W_0 with step eta) over rho = step/||W_0||: where the regimes meet",
        "gd_perceptron.reduction": "GD with step gamma vs its perceptron limit: relative error, mistake sets, f/gamma vs perceptron loss",
        "gd_perceptron.dynamics": "loss and mistake-set oscillations, normalised margin, max-margin alignment, activation changes",
        "gd_perceptron.r1_exact": "linear GD on R1 in its two exact coordinates, float64 or N digits: iterations to separation",
    },
)

toolkit_register_bounds = defer(
    "toolkit_gd_perceptron.bounds:BOUNDS",
    {
        "gd_perceptron.novikoff_batch": "Batch Perceptron needs at most n R^2 / mu^2 iterations (Novikoff / Duda-Hart-Stork)",
        "gd_perceptron.novikoff_normalized": "classical and Normalized Batch Perceptron need at most R^2 / mu^2 iterations",
        "gd_perceptron.normalized_lr_gd": "Normalized LR+GD needs at most R^2/mu^2 + 2 log(2n-1)/(gamma mu^2) iterations",
        "gd_perceptron.r1_exact_upper": "R1 (reconstruction): Batch Perceptron takes exactly 2d + 4 iterations for d >= 4 (upper side)",
        "gd_perceptron.r1_exact_lower": "R1 (reconstruction): Batch Perceptron takes exactly 2d + 4 iterations for d >= 4 (lower side)",
        "gd_perceptron.r1_gd_limit": "R1 (reconstruction): GD's gamma -> oo limit (tie weight 1/2) separates at t = d + 4 for even d, its last non-separating margin is -1/(4d^2), and GD's first sample-1 coordinate is tanh(gamma q/8)/4",
        "gd_perceptron.limits_scaling": "1-homogeneous two-layer models: GD from W_0 with step gamma, the perceptron from W_0 with step eta and the vanishing-initialisation limit are one rescaled recursion from U_0 = W_0/step (norm 1/rho)",
        "gd_perceptron.reduction_loss_gap": "exact linear reduction: GD with step gamma is u_t = v_t/gamma; sigma(-gamma m) -> 1[m<0] (1/2 at 0) and |f(v_t)/gamma - perceptron loss(u_t)| <= log 2/gamma",
        "gd_perceptron.homogeneity": "positively 1-homogeneous units: ReLU(cs) = c ReLU(s) and 1[cs > 0] = 1[s > 0] for c > 0 (so GD on a fixed-outer ReLU network reduces to a gated generalized perceptron)",
        "gd_perceptron.predecessor_theorems": "predecessor Thm 4.1 (f(theta_1)/gamma -> 1/8, separation at t = 2) and Thm 5.1 (Batch Perceptron: 0.3n + 1)",
    },
)

toolkit_register_datasets = defer(
    "toolkit_gd_perceptron.datasets:DATASETS",
    {
        "gd_perceptron.r1": "R1 (reconstruction): e_1 (+1) and e_1 + (1/d) sum_{k>=2} e_k (-1); Batch Perceptron needs exactly 2d + 4 steps",
        "gd_perceptron.thm41": "predecessor Thm 4.1: (1, -1) label +1 and (-1, -4) label -1",
        "gd_perceptron.thm51": "predecessor Thm 5.1: (0.5, -1) label +1 and n - 1 copies of (-0.5, -1) label -1",
        "gd_perceptron.staircase": "sparse staircase z_1 = e_1, z_k = e_k - e_{k-1}: Batch Perceptron needs exactly d^2 steps",
        "gd_perceptron.planted": "Gaussian points labelled by a hidden direction, pushed to a planted margin",
    },
)

toolkit_register_experiments = defer(
    "toolkit_gd_perceptron.experiments:EXPERIMENTS",
    {
        "gd_perceptron.exact": "predecessor Table 1 (301; 308; 2, 2, 16, 157), Thm 4.1, R1 Batch Perceptron = 2d + 4",
        "gd_perceptron.reduction_fidelity": "GD with step gamma vs its perceptron limit: linear (Thm 5.1, planted) and fixed-outer ReLU",
        "gd_perceptron.r1_scaling": "iterations vs d on R1: linear GD (Omega(d)) vs quadratic two-layer (O~(sqrt d))",
        "gd_perceptron.novikoff": "Batch / Normalized / classical Perceptron and Normalized LR+GD against their bounds",
        "gd_perceptron.margins": "max-margin alignment (cvxpy), normalised margin, loss and mistake-set oscillations",
    },
)
