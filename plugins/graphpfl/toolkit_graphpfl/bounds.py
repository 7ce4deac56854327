"""The FRPA identities and the simulator's exact counts as toolkit Bounds (sympy claims)."""

from __future__ import annotations

import sympy as sp

from toolkit.specs import Bound
from toolkit.symbolic import Identity, Inequality, Limit

# two coordinates stand for the sum over all parameters (each term has the same form)
theta = sp.symbols("theta1:3", real=True)
glob = sp.symbols("g1:3", real=True)
local = sp.symbols("l1:3", real=True)
fis = sp.symbols("F1:3", nonnegative=True)
lam, mu = sp.symbols("lambda_F mu", positive=True)
unit = {f: (0, 1) for f in fis}


def frpa(anchor, weight, lam_):
    return lam_ / 2 * sum(w * (t - a) ** 2 for t, a, w in zip(theta, anchor, weight))


def fedprox(mu_):
    return mu_ / 2 * sum((t - g) ** 2 for t, g in zip(theta, glob))


ones = (1, 1)
form_a_start = [f * l + (1 - f) * g for f, l, g in zip(fis, local, glob)]

CLAIMS = (
    Identity(
        "frpa_w1_anchor_global_is_fedprox",
        frpa(glob, ones, mu),
        fedprox(mu),
        description="FRPA with F = 1 and anchor theta_global is FedProx's proximal term",
    ),
    Identity(
        "frpa_w1_anchor_global_gradient_is_fedprox",
        sp.diff(frpa(glob, ones, mu), theta[0]),
        sp.diff(fedprox(mu), theta[0]),
        description="... and so is its gradient, mu (theta - theta_global)",
    ),
    Identity(
        "frpa_lambda0_is_zero",
        frpa(local, fis, 0),
        sp.Integer(0),
        domain=unit,
        description="lambda_F = 0: no penalty, so the local update is FedAvg's",
    ),
    Identity(
        "form_b_fisher0_is_fedprox",
        frpa(glob, [1 - f for f in fis], mu).subs({f: 0 for f in fis}),
        fedprox(mu),
        description="form B with F-hat = 0 everywhere (no parameter matters locally) is FedProx",
    ),
    Identity(
        "form_a_start_fisher0_is_global",
        form_a_start[0].subs(fis[0], 0),
        glob[0],
        description="form A starts at theta_global where F-hat = 0",
    ),
    Identity(
        "form_a_start_fisher1_is_local",
        form_a_start[0].subs(fis[0], 1),
        local[0],
        description="form A starts at theta_local where F-hat = 1",
    ),
    Identity(
        "form_a_gradient",
        sp.diff(frpa(local, fis, lam), theta[1]),
        lam * fis[1] * (theta[1] - local[1]),
        domain=unit,
        description="form A pulls coordinate j to theta_local with stiffness lambda_F F_j",
    ),
    Inequality(
        "frpa_term_nonnegative",
        lam / 2 * fis[0] * (theta[0] - local[0]) ** 2,
        sp.Integer(0),
        relation=">=",
        domain=unit,
        description="each FRPA term is never negative (F >= 0, lambda_F > 0)",
    ),
    Identity(
        "form_a_start_between",
        (form_a_start[0] - glob[0]) * (form_a_start[0] - local[0]),
        -fis[0] * (1 - fis[0]) * (local[0] - glob[0]) ** 2,
        domain=unit,
        description="form A's start lies between theta_global and theta_local: this product is -F(1-F)(l-g)^2 <= 0",
    ),
    Limit(
        "frpa_stiff_limit",
        lam / (1 + lam),
        lam,
        sp.oo,
        1,
        description="with unit curvature, the step towards the anchor lambda_F/(1+lambda_F) tends to 1 as lambda_F grows",
    ),
)

# logistic regression, one example with label y in {0, 1}: loss = softplus(w x) - y w x
w, x = sp.symbols("w x", real=True)
y = sp.Symbol("y", nonnegative=True)
logistic_loss = sp.log(1 + sp.exp(w * x)) - y * w * x
FISHER_CLAIMS = (
    Identity(
        "logistic_fisher_y1",
        sp.diff(logistic_loss, w).subs(y, 1) ** 2,
        (x / (1 + sp.exp(w * x))) ** 2,
        description="squared gradient of the logistic loss (y=1) is x^2 sigma(-w x)^2",
    ),
    Identity(
        "logistic_fisher_y0",
        sp.diff(logistic_loss, w).subs(y, 0) ** 2,
        (x * sp.exp(w * x) / (1 + sp.exp(w * x))) ** 2,
        description="squared gradient of the logistic loss (y=0) is x^2 sigma(w x)^2",
    ),
)

n_clients_round, n_shared_params = sp.symbols("n_clients_round n_shared_params", positive=True, integer=True)


def _kept(row) -> float:
    return float(int(round((1.0 - float(row["noise_p"])) * int(row["n_edges"]))))


BOUNDS = [
    Bound(
        name="graphpfl.frpa",
        description="FRPA (reconstructed) identities: FedProx and FedAvg as special cases",
        claims=CLAIMS,
    ),
    Bound(
        name="graphpfl.fisher_logistic",
        description="empirical Fisher of logistic regression in closed form",
        claims=FISHER_CLAIMS,
    ),
    Bound(
        name="graphpfl.communication",
        description="bytes uploaded per round <= 4 bytes x clients x (shared parameters + their Fisher)",
        expression=8 * n_clients_round * n_shared_params,
        metric="bytes_up",
        sense="upper",
    ),
    Bound(
        name="graphpfl.kept_edges_exact_upper",
        description="topology noise keeps at most round((1-p)|E|) edges",
        expression=_kept,
        metric="kept_edges",
        sense="upper",
    ),
    Bound(
        name="graphpfl.kept_edges_exact_lower",
        description="topology noise keeps at least round((1-p)|E|) edges",
        expression=_kept,
        metric="kept_edges",
        sense="lower",
    ),
]
