"""Bounds and identities of svrg_poco (sympy), and the bounds its simulations' rows are held against.

T1  Johnson-Zhang's rate constant alpha(eta, m, L, gamma), its value 1/2 at (0.1/L, 50 L/gamma), and
    the region alpha < 1 (eta = c/L, m = k L/gamma: c < 1/4 and k > 1/(c (1 - 4c))).
T2  the isotropic posterior-correction step is the (alpha-)SVRG step with step N eta.
T3  the full-Gaussian (Newton-like) closed form equals the natural-parameter form.
T4  on quadratics the Newton-like estimator is the full gradient for every sample (zero variance) and
    eta = 1 reaches the optimum in one step.
"""

from __future__ import annotations

import math

import sympy as sp

from toolkit import Bound
from toolkit.symbolic import Identity, Inequality

# -- T1: SVRG's rate constant -------------------------------------------------------------------------
eta, m, L, gamma = sp.symbols("eta m L gamma", positive=True)
c, k, t, u, s = sp.symbols("c k t u s", positive=True)


def svrg_alpha(eta_, m_, L_, gamma_):
    return 1 / (gamma_ * eta_ * (1 - 2 * L_ * eta_) * m_) + 2 * L_ * eta_ / (1 - 2 * L_ * eta_)


T1_VALUE = Identity(
    "svrg_rate_half",
    lhs=svrg_alpha(sp.Rational(1, 10) / L, 50 * L / gamma, L, gamma),
    rhs=sp.Rational(1, 2),
    description="alpha(0.1/L, 50 L/gamma) = 1/2 (Johnson & Zhang 2013, Thm 1)",
)
# c = t / (4 (1 + t)) sweeps (0, 1/4); k = (1 + u) / (c (1 - 4c)) sweeps (1/(c(1-4c)), oo)
_c_low = t / (4 * (1 + t))
T1_REGION = Inequality(
    "svrg_rate_below_one_in_region",
    lhs=svrg_alpha(_c_low / L, (1 + u) / (_c_low * (1 - 4 * _c_low)) * L / gamma, L, gamma),
    rhs=1,
    relation="<",
    description="eta = c/L, m = k L/gamma with c < 1/4 and k > 1/(c (1 - 4c)) give alpha < 1 "
    "(c = t/(4(1+t)), k = (1+u)/(c(1-4c)), t, u > 0)",
)
T1_EDGE = Identity(
    "svrg_rate_one_on_boundary",
    lhs=svrg_alpha(_c_low / L, 1 / (_c_low * (1 - 4 * _c_low)) * L / gamma, L, gamma),
    rhs=1,
    description="k = 1/(c (1 - 4c)) exactly gives alpha = 1: the region is sharp in k",
)
# c in [1/4, 1/2): c = 1/4 + s / (4 (1 + s)), s >= 0
_c_high = sp.Rational(1, 4) + s / (4 * (1 + s))
T1_OUTSIDE = Inequality(
    "svrg_rate_not_below_one_for_large_steps",
    lhs=svrg_alpha(_c_high / L, k * L / gamma, L, gamma),
    rhs=1,
    relation=">=",
    description="eta >= 1/(4L) (c in [1/4, 1/2)) gives alpha >= 1 for every m: the theorem says nothing there",
)

# -- T2: isotropic PoCo = (alpha-)SVRG with step N eta -----------------------------------------------------
N = sp.Symbol("N", positive=True, integer=True)
a = sp.Symbol("alpha", nonnegative=True)
w, g_in, g_out, sum_g = sp.symbols("w g_in g_out sum_g_out", real=True)  # one coordinate of each vector
mu_tilde = sum_g / N
poco_step = w - eta * a * sum_g - eta * N * (g_in - a * g_out)
svrg_step = w - (N * eta) * (g_in - a * (g_out - mu_tilde))
T2_ALPHA = Identity(
    "poco_iso_is_alpha_svrg",
    lhs=poco_step,
    rhs=svrg_step,
    description="m - eta alpha sum_j g_j(m_out) - eta N [g_i(m) - alpha g_i(m_out)] = "
    "m - N eta (grad psi_i(m) - alpha (grad psi_i(m_out) - mu~)) (Thm 2, symbolic alpha)",
)
T2_SVRG = Identity(
    "poco_iso_is_svrg",
    lhs=poco_step.subs(a, 1),
    rhs=w - N * eta * (g_in - g_out + mu_tilde),
    description="alpha = 1: the posterior-correction step is SVRG's step with step N eta (Thm 1-2)",
)
T2_BLR = Identity(
    "poco_iso_alpha_zero_is_sgd",
    lhs=poco_step.subs(a, 0),
    rhs=w - N * eta * g_in,
    description="alpha = 0: stochastic BLR, i.e. SGD with step N eta",
)


# -- T3: full-Gaussian closed form = natural-parameter form (2 x 2, every entry symbolic) --------------------
def _sym2(name):
    p, q, r = sp.symbols(f"{name}11 {name}12 {name}22", real=True)
    return sp.Matrix([[p, q], [q, r]])


def _vec2(name):
    return sp.Matrix(sp.symbols(f"{name}1 {name}2", real=True))


S_, S_hat, H_in, H_out = _sym2("S"), _sym2("Shat"), _sym2("Hin"), _sym2("Hout")
mean, m_out, G_hat, gv_in, gv_out = _vec2("m"), _vec2("mout"), _vec2("Ghat"), _vec2("gin"), _vec2("gout")
H_bar = S_hat / N - H_out
S_closed = (1 - eta) * S_ + eta * N * (H_in + a * H_bar)
direction = N * (gv_in - a * gv_out) + a * G_hat + a * N * H_bar * (mean - m_out)
lam1_closed = S_closed * mean - eta * direction  # = S_new m_new of the closed form, without the inverse
# natural parameters (S m, -S/2); expectation-parameter gradients of l under the delta method: (g - H m, H/2)
site1, site2 = -(G_hat - S_hat * m_out), -S_hat / 2
lam1_natural = (
    (1 - eta) * (S_ * mean)
    + eta * a * site1
    - eta * N * ((gv_in - H_in * mean) - a * (gv_out - H_out * m_out))
)
lam2_natural = (1 - eta) * (-S_ / 2) + eta * a * site2 - eta * N * (H_in / 2 - a * H_out / 2)
T3 = [
    Identity(
        f"von_poco_closed_form_mean_{i + 1}",
        lhs=lam1_closed[i],
        rhs=lam1_natural[i],
        description="Thm 3: the closed form's S_new m_new equals the natural-parameter update of lambda_1 "
        f"(coordinate {i + 1}, 2 x 2 symbolic matrices, symbolic alpha)",
    )
    for i in range(2)
]
T3 += [
    Identity(
        f"von_poco_closed_form_precision_{i + 1}{j + 1}",
        lhs=S_closed[i, j],
        rhs=-2 * lam2_natural[i, j],
        description="Thm 3: S <- (1 - eta) S + eta N [H_i(in) + alpha Hbar_out\\i] is the natural-parameter "
        f"update of lambda_2 = -S/2 (entry {i + 1}{j + 1})",
    )
    for i, j in ((0, 0), (0, 1), (1, 1))
]

# -- T4: quadratics --------------------------------------------------------------------------------------
# psi_j(theta) = 1/2 theta^T A_j theta - b_j^T theta; A = sum_j A_j, b = sum_j b_j; the snapshot's sums are
# G_hat = A m_out - b and S_hat = A; sample i's gradients are A_i theta - b_i and its Hessian A_i.
A, A_i = _sym2("A"), _sym2("Ai")
b, b_i = _vec2("b"), _vec2("bi")
quad_direction = (
    N * ((A_i * mean - b_i) - (A_i * m_out - b_i)) + (A * m_out - b) + (A - N * A_i) * (mean - m_out)
)
T4_ZERO_VARIANCE = [
    Identity(
        f"quadratic_estimator_is_full_gradient_{i + 1}",
        lhs=quad_direction[i],
        rhs=(A * mean - b)[i],
        description="on quadratics the Newton-like PoCo estimator equals sum_j grad psi_j(m) for "
        f"every sample i: its variance is 0 (coordinate {i + 1})",
    )
    for i in range(2)
]
a_, b_, m_, e_ = sp.symbols("a b mean eta_q", positive=True)
T4_ONE_STEP = Identity(
    "quadratic_step_contracts_by_one_minus_eta",
    lhs=(m_ - e_ * (a_ * m_ - b_) / a_) - b_ / a_,
    rhs=(1 - e_) * (m_ - b_ / a_),
    description="with S = A: m+ - theta* = (1 - eta)(m - theta*), so eta = 1 reaches theta* in one "
    "inner step at any condition number (one eigen-direction)",
)


# -- bounds that rows are held against -----------------------------------------------------------------------
def rate_after_snapshots(row) -> float:
    """alpha^s (a callable: as a sympy power the harness's random huge points overflow floats)."""
    alpha_, s_ = float(row["rate_alpha"]), int(row["snapshot"])
    if alpha_ <= 0:
        return 0.0
    return math.exp(min(700.0, s_ * math.log(alpha_)))


lemma_rhs = sp.Symbol("lemma_rhs", nonnegative=True)


def _svrg_rate_applies(row) -> bool:
    return (
        row.get("method") == "svrg"
        and row.get("option") == "II"
        and bool(row.get("end_of_loop"))
        and float(row.get("rate_alpha", float("inf"))) < 1
    )


BOUNDS = [
    Bound(
        "svrg_poco.svrg_rate",
        "Johnson-Zhang Thm 1: E[P(w~_s) - P*] <= alpha^s (P(w~_0) - P*) for option II with alpha < 1 "
        "(held run by run at the end of every inner loop)",
        claims=(T1_VALUE, T1_REGION, T1_EDGE, T1_OUTSIDE),
        expression=rate_after_snapshots,
        metric="rel_suboptimality",
        sense="upper",
        applies=_svrg_rate_applies,
    ),
    Bound(
        "svrg_poco.variance_lemma",
        "Johnson-Zhang's lemma: (1/N) sum_i |v_i|^2 <= 4 L [P(w) - P* + P(w~) - P*] for the SVRG estimator v_i",
        expression=lemma_rhs,
        metric="lemma_lhs",
        sense="upper",
    ),
    Bound(
        "svrg_poco.reductions",
        "the posterior-correction step is (alpha-)SVRG for q = N(m, I) (Thm 1-2); at alpha = 0 it is SGD (BLR)",
        claims=(T2_ALPHA, T2_SVRG, T2_BLR),
    ),
    Bound(
        "svrg_poco.newton_like",
        "VON-PoCo (Thm 3): closed form = natural-parameter form; on quadratics zero variance and one-step "
        "convergence at eta = 1",
        claims=(*T3, *T4_ZERO_VARIANCE, T4_ONE_STEP),
    ),
]
