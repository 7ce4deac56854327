"""The paper's bounds and identities as toolkit ``Bound`` objects with sympy claims.

Symbols are named like the result columns of this plugin's simulations (``iterations``, ``R2`` = R^2,
``mu2`` = mu^2, ``gamma``, ``d``; ``n`` reads the column ``n_points``, the dataset's size), so
``toolkit check`` holds every perceptron-type run against its bound.
"""

from __future__ import annotations

import sympy as sp

from toolkit import Bound
from toolkit.symbolic import Asymptotic, Identity, Inequality, Limit

# symbols named like result columns
n = sp.Symbol("n", positive=True, integer=True)
d = sp.Symbol("d", positive=True, integer=True)
R2 = sp.Symbol("R2", positive=True)
mu2 = sp.Symbol("mu2", positive=True)
gamma = sp.Symbol("gamma", positive=True)

# symbols of the derivations
v, y, b, u, s = sp.symbols("v y b u s", real=True)
Kp, mup, Rp, cp, np_ = sp.symbols("K mu R c n", positive=True)
p = sp.Symbol("p", positive=True)  # |margin| > 0


def sigma(x):
    return 1 / (1 + sp.exp(-x))


# -- the reduction (predecessor Thm 3.2) -------------------------------------------------------------
GRADIENT = Identity(
    "logistic_gradient",
    lhs=sp.diff(sp.log(1 + sp.exp(-y * b * v)), v),
    rhs=-sigma(-y * b * v) * y * b,
    description="d/dv log(1 + e^{-y b v}) = -sigma(-y b v) y b (one coordinate of the gradient)",
)
RESCALED_GD = Identity(
    "rescaled_gd",
    lhs=(gamma * u + gamma * sigma(-y * b * gamma * u) * y * b / n) / gamma,
    rhs=u + sigma(-gamma * y * b * u) * y * b / n,
    description="v_{t+1}/gamma with v_t = gamma u_t equals u_t + (1/n) sigma(-gamma y b^T u_t) y b (one sample)",
)
SIGMA_NEGATIVE = Limit(
    "sigma_limit_negative_margin",
    expr=sigma(gamma * p),
    var=gamma,
    point=sp.oo,
    value=1,
    description="sigma(-gamma m) -> 1 for m = -p < 0",
)
SIGMA_POSITIVE = Limit(
    "sigma_limit_positive_margin",
    expr=sigma(-gamma * p),
    var=gamma,
    point=sp.oo,
    value=0,
    description="sigma(-gamma m) -> 0 for m = p > 0",
)
SIGMA_TIE = Identity(
    "sigma_at_tie",
    lhs=sigma(-gamma * 0),
    rhs=sp.Rational(1, 2),
    description="sigma(-gamma * 0) = 1/2 for every gamma (the tie weight of the limit)",
)
LOSS_NEGATIVE = Limit(
    "loss_over_gamma_negative_margin",
    expr=sp.log(1 + sp.exp(gamma * p)) / gamma - p,
    var=gamma,
    point=sp.oo,
    value=0,
    description="log(1 + e^{-gamma m})/gamma - max(0, -m) -> 0 for m = -p < 0",
)
LOSS_POSITIVE = Limit(
    "loss_over_gamma_positive_margin",
    expr=sp.log(1 + sp.exp(-gamma * p)) / gamma,
    var=gamma,
    point=sp.oo,
    value=0,
    description="log(1 + e^{-gamma m})/gamma -> max(0, -m) = 0 for m = p > 0",
)
x = sp.Symbol("x", positive=True)  # gamma |m|
LOSS_GAP = Inequality(
    "loss_gap_at_most_log2_over_gamma",
    lhs=sp.log(1 + sp.exp(-x)),
    rhs=sp.log(2),
    relation="<=",
    description="log(1 + e^{-gamma m})/gamma - max(0, -m) = log(1 + e^{-gamma|m|})/gamma <= log 2/gamma "
    "(x = gamma|m| >= 0; equality at a tie): |f/gamma - perceptron loss| <= log 2/gamma",
)

# -- homogeneity (the gated generalized perceptron) -------------------------------------------------
RELU_HOMOGENEOUS = Identity(
    "relu_positively_homogeneous",
    lhs=sp.Max(0, cp * s),
    rhs=cp * sp.Max(0, s),
    description="ReLU(c s) = c ReLU(s) for c > 0",
)
GATE_INVARIANT = Identity(
    "gate_scale_invariant",
    lhs=sp.Heaviside(cp * s, 0),
    rhs=sp.Heaviside(s, 0),
    description="1[c s > 0] = 1[s > 0] for c > 0 (activation indicators ignore the scale)",
)

# -- Novikoff ------------------------------------------------------------------------------------------
NOVIKOFF_ALGEBRA = Identity(
    "novikoff_algebra",
    lhs=(Kp * mup / np_) ** 2 / (Kp * Rp**2 / np_),
    rhs=Kp / (np_ * Rp**2 / mup**2),
    description="(K mu/n)^2 <= ||theta_K||^2 <= K R^2/n  <=>  K <= n R^2/mu^2: the ratio of the two sides is K/(nR^2/mu^2)",
)
NOVIKOFF_NORMALIZED_ALGEBRA = Identity(
    "novikoff_algebra_normalized",
    lhs=(Kp * mup) ** 2 / (Kp * Rp**2),
    rhs=Kp / (Rp**2 / mup**2),
    description="with unit-weight updates (classical; normalized batch): (K mu)^2 <= ||theta_K||^2 <= K R^2  <=>  K <= R^2/mu^2",
)
excess = sp.Symbol("e", nonnegative=True)  # R^2 - mu^2 >= 0 (mu <= R)
NOVIKOFF_AT_LEAST_N = Inequality(
    "batch_bound_at_least_n",
    lhs=n * (mu2 + excess) / mu2,
    rhs=n,
    relation=">=",
    description="n R^2/mu^2 >= n since R^2 = mu^2 + e with e >= 0",
)
NORMALIZED_LR_GD_EXCESS = Limit(
    "normalized_lr_gd_bound_tends_to_novikoff",
    expr=2 * sp.log(2 * n - 1) / (gamma * mu2),
    var=gamma,
    point=sp.oo,
    value=0,
    description="the excess 2 log(2n-1)/(gamma mu^2) of the Normalized LR+GD bound over R^2/mu^2 -> 0 as gamma -> oo",
)

# -- R1 (our reconstruction) ---------------------------------------------------------------------------
q = (d - 1) / d**2
R1_STOP_RULE = Identity(
    "r1_stop_rule",
    lhs=2 / q,
    rhs=2 * d + 2 + 2 / (d - 1),
    domain={d: (2, None)},
    description="2/q = 2d + 2 + 2/(d-1) with q = (d-1)/d^2",
)
R1_FRACTION = Inequality(
    "r1_fraction_below_one",
    lhs=2 / (d - 1),
    rhs=1,
    relation="<",
    domain={d: (4, None)},
    description="0 < 2/(d-1) < 1 for d >= 4, so the first odd 2k-1 > 2/q is 2d+3 and T = 2d+4",
)
R1_ODD_STEP = Identity(
    "r1_first_odd_above_stop",
    lhs=(2 * d + 3 + 1),
    rhs=2 * d + 4,
    description="T = (2k - 1) + 1 with 2k - 1 = 2d + 3",
)
R1_MARGIN = Asymptotic(
    "r1_margin_squared",
    f=(d - 1) / (4 * d**2 + d - 1),
    g=1 / (4 * d),
    var=d,
    order="~",
    description="mu^2 = (d-1)/(4d^2+d-1) ~ 1/(4d)",
)
R1_NOVIKOFF = Asymptotic(
    "r1_novikoff_linear_in_d",
    f=2 * (1 + (d - 1) / d**2) * (4 * d**2 + d - 1) / (d - 1),
    g=8 * d,
    var=d,
    order="~",
    description="the Batch Perceptron bound n R^2/mu^2 on R1 ~ 8d",
)

# R1 under GD's own gamma -> oo limit (weight 1/2 on ties): see r1_exact.py and README.md
R1_HALF_STOP = Identity(
    "r1_half_tie_stop_rule",
    lhs=1 / q,
    rhs=d + 1 + 1 / (d - 1),
    domain={d: (3, None)},
    description="1/q = d + 1 + 1/(d-1): with a = +-1/4 the limit separates at the first odd "
    "2k+1 > 1/q, i.e. T = d + 4 for even d",
)
R1_HALF_NEAR_TIE = Identity(
    "r1_half_tie_near_tie_margin",
    lhs=((d + 1) * q - 1) / 4,
    rhs=-1 / (4 * d**2),
    domain={d: (3, None)},
    description="the limit's last non-separating step t = d + 2 (even d) has margin "
    "m_2 = 1/4 (2k+1) q - 1/4 with 2k+1 = d+1: exactly -1/(4 d^2), a near-tie",
)
xa = sp.Symbol("x", positive=True)  # gamma q / 4
R1_FIRST_AMPLITUDE = Identity(
    "r1_gd_first_amplitude",
    lhs=(sp.Rational(1, 2) - sigma(-xa)) / 2,
    rhs=(sp.exp(xa) - 1) / (sp.exp(xa) + 1) / 4,
    description="u_1 = (0, -1/4) has m_1 = 0 and m_2 = q/4, so GD's a_2 = (1/2 - sigma(-gamma q/4))/2 "
    "= (e^x - 1)/(4(e^x + 1)) = tanh(gamma q/8)/4 (x = gamma q/4)",
)

# -- the two perceptron limits of a 1-homogeneous two-layer model (one unit, one sample, one coordinate) --
# U = W/step: GD from W_0 with step gamma and the perceptron from W_0 with step eta are one recursion in U
# from U_0 = W_0/step (norm 1/rho, rho = step/||W_0||); only the loss weights differ (sigma(-gamma m) vs 1[m < 0]).
qp, bp_, rhop = sp.symbols("q b rho", positive=True)  # an active unit: q b > 0
bn = sp.Symbol("b", negative=True)  # an inactive one: q b < 0
ya = sp.Symbol("ya", real=True)  # y_i a_j
lam = sp.Symbol("lambda", nonnegative=True)  # a scale-invariant perceptron weight 1[m < 0]


def _relu(x):
    return sp.Max(0, x)


def _relu_grad(x):
    return sp.Heaviside(x, 0)


def _leaky(x):
    return sp.Max(x, x / 10)


def _leaky_grad(x):
    return sp.Piecewise((1, x > 0), (sp.Rational(1, 10), True))


def _gd_step_rescaled(phi, dphi, b_):
    """(lhs, rhs): GD's step from W = gamma q, divided by gamma; the rescaled step from q."""
    W = gamma * qp
    lhs = (W + gamma * sigma(-ya * phi(W * b_)) * ya * dphi(W * b_) * b_) / gamma
    rhs = qp + sigma(-gamma * ya * phi(qp * b_)) * ya * dphi(qp * b_) * b_
    return lhs, rhs


LIMITS_GD_ACTIVE = Identity(
    "limits_gd_rescaled_active_relu",
    *_gd_step_rescaled(_relu, _relu_grad, bp_),
    description="active ReLU unit: (W + gamma sigma(-y a relu(W b)) y a relu'(W b) b)/gamma at W = gamma q equals "
    "q + sigma(-gamma y a relu(q b)) y a relu'(q b) b: GD from W_0 with step gamma is the rescaled "
    "recursion from U_0 = W_0/gamma",
)
LIMITS_GD_INACTIVE_LEAKY = Identity(
    "limits_gd_rescaled_inactive_leaky",
    *_gd_step_rescaled(_leaky, _leaky_grad, bn),
    description="the same on the negative side of a leaky-ReLU unit (slope 1/10)",
)
LIMITS_PERCEPTRON = Identity(
    "limits_perceptron_rescaled",
    lhs=(rhop * qp + rhop * lam * ya * _relu_grad(rhop * qp * bp_) * bp_) / rhop,
    rhs=qp + lam * ya * _relu_grad(qp * bp_) * bp_,
    description="the perceptron from W_0 = eta q with step eta, divided by eta, is the unit-step perceptron from "
    "q = W_0/eta: only eta/||W_0|| matters (here eta = rho)",
)
LIMITS_START_VANISHES = Limit(
    "limits_start_vanishes",
    expr=1 / rhop,
    var=rhop,
    point=sp.oo,
    value=0,
    description="the rescaled start U_0 = W_0/step has norm 1/rho -> 0: as rho -> inf the perceptron from W_0 "
    "becomes the vanishing-initialisation limit (with sigma(-gamma m) -> 1[m < 0], the limit of GD)",
)


# -- predecessor Thm 4.1 and Thm 5.1 ------------------------------------------------------------------
THM41_LOSS = Limit(
    "thm41_loss_over_gamma",
    expr=(sp.log(1 + sp.exp(gamma / 4)) + sp.log(1 + sp.exp(-7 * gamma / 2))) / (2 * gamma),
    var=gamma,
    point=sp.oo,
    value=sp.Rational(1, 8),
    description="theta_1/gamma = (1/2, 3/4) has margins -1/4 and 7/2, so f(theta_1)/gamma -> 1/8",
)
THM41_ITERATE_1 = Identity(
    "thm41_first_iterate_coordinate_1",
    lhs=(sp.Integer(1) + 1) / 4,
    rhs=sp.Rational(1, 2),
    description="theta_1/gamma = (1/2n) sum y_i b_i with y b = (1, -1), (1, 4): first coordinate 1/2",
)
THM41_ITERATE_2 = Identity(
    "thm41_first_iterate_coordinate_2",
    lhs=(sp.Integer(-1) + 4) / 4,
    rhs=sp.Rational(3, 4),
    description="second coordinate 3/4",
)
THM51_STEPS = Identity(
    "thm51_batch_perceptron_steps",
    lhs=(sp.Rational(3, 8) * n - 1) / sp.Rational(5, 4),
    rhs=3 * n / 10 - sp.Rational(4, 5),
    description="the mistaken sample's margin -3/8 + 1/n + 5k/(4n) turns positive for k > 3n/10 - 4/5: "
    "k = 3n/10 further steps for n divisible by 10, T = 0.3n + 1",
)


def _algorithm_is(*names):
    def applies(row):
        return row.get("algorithm") in names and row.get("iterations", -1) >= 0

    return applies


def _r1_batch(row):
    return (
        row.get("algorithm") == "batch_perceptron"
        and row.get("dataset") == "r1"
        and row.get("model") == "linear"
        and row.get("d", 0) >= 4
    )


BOUNDS = [
    Bound(
        "gd_perceptron.novikoff_batch",
        "Batch Perceptron needs at most n R^2 / mu^2 iterations (Novikoff / Duda-Hart-Stork)",
        claims=(NOVIKOFF_ALGEBRA, NOVIKOFF_AT_LEAST_N),
        expression=n * R2 / mu2,
        columns={"n": "n_points"},
        metric="iterations",
        sense="upper",
        applies=lambda row: _algorithm_is("batch_perceptron")(row) and row.get("model") == "linear",
    ),
    Bound(
        "gd_perceptron.novikoff_normalized",
        "classical and Normalized Batch Perceptron need at most R^2 / mu^2 iterations",
        claims=(NOVIKOFF_NORMALIZED_ALGEBRA,),
        expression=R2 / mu2,
        metric="iterations",
        sense="upper",
        applies=lambda row: (
            _algorithm_is("normalized_batch_perceptron", "perceptron")(row) and row.get("model") == "linear"
        ),
    ),
    Bound(
        "gd_perceptron.normalized_lr_gd",
        "Normalized LR+GD needs at most R^2/mu^2 + 2 log(2n-1)/(gamma mu^2) iterations",
        claims=(NORMALIZED_LR_GD_EXCESS,),
        expression=R2 / mu2 + 2 * sp.log(2 * n - 1) / (gamma * mu2),
        columns={"n": "n_points"},
        metric="iterations",
        sense="upper",
        applies=lambda row: (
            _algorithm_is("normalized_gd")(row)
            and row.get("model") == "linear"
            and row.get("loss", "logistic") == "logistic"
        ),
    ),
    Bound(
        "gd_perceptron.r1_exact_upper",
        "R1 (reconstruction): Batch Perceptron takes exactly 2d + 4 iterations for d >= 4 (upper side)",
        claims=(R1_STOP_RULE, R1_FRACTION, R1_ODD_STEP, R1_MARGIN, R1_NOVIKOFF),
        expression=2 * d + 4,
        metric="iterations",
        sense="upper",
        applies=_r1_batch,
    ),
    Bound(
        "gd_perceptron.r1_exact_lower",
        "R1 (reconstruction): Batch Perceptron takes exactly 2d + 4 iterations for d >= 4 (lower side)",
        expression=2 * d + 4,
        metric="iterations",
        sense="lower",
        applies=_r1_batch,
    ),
    Bound(
        "gd_perceptron.r1_gd_limit",
        "R1 (reconstruction): GD's gamma -> oo limit (tie weight 1/2) separates at t = d + 4 for even d, its last "
        "non-separating margin is -1/(4d^2), and GD's first sample-1 coordinate is tanh(gamma q/8)/4",
        claims=(R1_HALF_STOP, R1_HALF_NEAR_TIE, R1_FIRST_AMPLITUDE),
    ),
    Bound(
        "gd_perceptron.limits_scaling",
        "1-homogeneous two-layer models: GD from W_0 with step gamma, the perceptron from W_0 with step eta and "
        "the vanishing-initialisation limit are one rescaled recursion from U_0 = W_0/step (norm 1/rho)",
        claims=(LIMITS_GD_ACTIVE, LIMITS_GD_INACTIVE_LEAKY, LIMITS_PERCEPTRON, LIMITS_START_VANISHES),
    ),
    Bound(
        "gd_perceptron.reduction_loss_gap",
        "exact linear reduction: GD with step gamma is u_t = v_t/gamma; sigma(-gamma m) -> 1[m<0] (1/2 at 0) and "
        "|f(v_t)/gamma - perceptron loss(u_t)| <= log 2/gamma",
        claims=(
            GRADIENT,
            RESCALED_GD,
            SIGMA_NEGATIVE,
            SIGMA_POSITIVE,
            SIGMA_TIE,
            LOSS_NEGATIVE,
            LOSS_POSITIVE,
            LOSS_GAP,
        ),
        expression=sp.log(2) / gamma,
        metric="loss_gap",
        sense="upper",
        slack=1e-9,
        applies=lambda row: row.get("model") == "linear" and row.get("loss_gap") is not None,
    ),
    Bound(
        "gd_perceptron.homogeneity",
        "positively 1-homogeneous units: ReLU(cs) = c ReLU(s) and 1[cs > 0] = 1[s > 0] for c > 0 "
        "(so GD on a fixed-outer ReLU network reduces to a gated generalized perceptron)",
        claims=(RELU_HOMOGENEOUS, GATE_INVARIANT),
    ),
    Bound(
        "gd_perceptron.predecessor_theorems",
        "predecessor Thm 4.1 (f(theta_1)/gamma -> 1/8, separation at t = 2) and Thm 5.1 (Batch Perceptron: 0.3n + 1)",
        claims=(THM41_ITERATE_1, THM41_ITERATE_2, THM41_LOSS, THM51_STEPS),
    ),
]

ALL_CLAIMS = [c for bound in BOUNDS for c in bound.claims]
