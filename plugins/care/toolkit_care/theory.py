"""The symbolic theory of confounded judges (sympy through ``toolkit.symbolic``).

Model X = a Q + B C + e, Var Q = 1, C ~ N(0, I_K), e ~ N(0, D); N = B B' + D is the nuisance covariance.

W1  Woodbury (p = 4, K = 1): Sigma^-1 = D^-1 - L with L = D^-1 A (I + A' D^-1 A)^-1 A' D^-1, A = [a, b]; L has
    rank 1 + K = 2 (its 3 x 3 minors vanish).
W2  With anchor judges the low-rank part gives the optimal weights: Sigma^-1 A = D^-1 A (I + A' D^-1 A)^-1, so
    Sigma^-1 a is in the column span of L and any factor U of L (L = U U') yields it as U u, u the direction
    the anchors' rows share.
B1  Omitted-confounder bias (p = 2, K = 1, reduced by Cauchy-Schwarz): for a linear aggregator w the error
    E[(w'X / w'a - Q)^2] = w'N w / (w'a)^2 is at least 1 / (a' N^-1 a), with equality at w = N^-1 a.
B2  The mean's confounder leakage: cov(1'X / 1'a, C) = 1'B / 1'a (identity).
F1  One-factor limit: the top eigenvector of the 2 x 2 Gram matrix [[alpha, rho], [rho, beta]] of (a, b) puts the
    share 1/2 + (beta - alpha) / (2 sqrt((beta - alpha)^2 + 4 rho^2)) on the confounder: as J -> oo the first
    principal component of a a' + b b' + D is that mixture.
I1  Identifiability fails without anchors: rotating (a, b) by any angle leaves Sigma unchanged (identity), so no
    label-free method can tell quality from confounder; an anchor judge (b_j = 0) pins the rotation.
"""

from __future__ import annotations

import sympy as sp

from toolkit.symbolic import Identity, Inequality

P = 4
a = sp.symbols("a1:5", positive=True)
b = sp.symbols("b1:5", real=True)
d = sp.symbols("d1:5", positive=True)


def _woodbury():
    A = sp.Matrix([[a[i], b[i]] for i in range(P)])
    Dinv = sp.diag(*[1 / x for x in d])
    Sigma = A * A.T + sp.diag(*d)
    M = (sp.eye(2) + A.T * Dinv * A).inv()
    L = Dinv * A * M * A.T * Dinv
    resid = Sigma * (Dinv - L) - sp.eye(P)
    return A, Dinv, Sigma, M, L, resid


def _woodbury_claims():
    A, Dinv, Sigma, M, L, resid = _woodbury()
    first = sp.together(resid[0, 0])
    cross = sp.together(resid[0, 3])
    minor = sp.together(L[:3, :3].det())
    optimal = sp.together(
        (Sigma * Dinv * A * M - A)[1, 0]
    )  # Sigma (D^-1 A M) = A, i.e. Sigma^-1 A = D^-1 A M
    return [
        Identity(
            "care.woodbury_diagonal", lhs=first, rhs=0, description="[Sigma (D^-1 - L)]_11 = 1 (p = 4, K = 1)"
        ),
        Identity(
            "care.woodbury_offdiagonal",
            lhs=cross,
            rhs=0,
            description="[Sigma (D^-1 - L)]_14 = 0 (p = 4, K = 1)",
        ),
        Identity(
            "care.latent_rank", lhs=minor, rhs=0, description="L has rank 1 + K = 2: its 3 x 3 minor vanishes"
        ),
        Identity(
            "care.optimal_in_span_of_L",
            lhs=optimal,
            rhs=0,
            description="Sigma^-1 A = D^-1 A (I + A' D^-1 A)^-1: the optimal weights Sigma^-1 a lie in L's span",
        ),
    ]


n11, n12, n22, a1, a2, w1, w2 = sp.symbols("n11 n12 n22 a1 a2 w1 w2", real=True)
_t = sp.symbols("t", positive=True)


def _bias_claims():
    # N = [[n11, n12], [n12, n22]] positive definite: n11 > 0, det > 0, written n22 = (n12^2 + t) / n11
    n11p = sp.symbols("n11", positive=True)
    N = sp.Matrix([[n11p, n12], [n12, (n12**2 + _t) / n11p]])
    av = sp.Matrix([a1, a2])
    w = sp.Matrix([w1, w2])
    quad = (w.T * N * w)[0]
    floor = (av.T * N.inv() * av)[0]
    wa = (w.T * av)[0]
    opt = N.inv() * av
    err_opt = sp.simplify((opt.T * N * opt)[0] / ((opt.T * av)[0]) ** 2)
    return [
        Inequality(
            "care.omitted_confounder_bias",
            lhs=quad * floor,
            rhs=wa**2,
            relation=">=",
            description="w'N w (a'N^-1 a) >= (w'a)^2: no linear aggregator's error w'Nw/(w'a)^2 beats 1/(a'N^-1 a)",
        ),
        Identity(
            "care.bias_equality",
            lhs=err_opt,
            rhs=sp.simplify(1 / floor),
            description="equality at w = N^-1 a: error 1/(a'N^-1 a)",
        ),
    ]


def _leak_claim():
    q, c = sp.symbols("q c", real=True)
    bs = sp.symbols("bb1:4", real=True)
    as_ = sp.symbols("aa1:4", positive=True)
    mean_score = sum(as_[i] * q + bs[i] * c for i in range(3)) / sum(as_)
    leak = sp.diff(mean_score, c)  # cov with C (Var C = 1, independent of Q)
    return Identity(
        "care.mean_leakage",
        lhs=leak,
        rhs=sum(bs) / sum(as_),
        description="the mean's confounder leakage is 1'B / 1'a",
    )


def _one_factor_claim():
    al, be, rho = sp.symbols("alpha beta rho", positive=True)
    lam = (al + be) / 2 + sp.sqrt((al - be) ** 2 / 4 + rho**2)
    share = (lam - al) ** 2 / (rho**2 + (lam - al) ** 2)
    target = sp.Rational(1, 2) + (be - al) / (2 * sp.sqrt((be - al) ** 2 + 4 * rho**2))
    return Identity(
        "care.one_factor_share",
        lhs=share,
        rhs=target,
        description="confounder share of the first principal component of a a' + b b'",
    )


def _rotation_claim():
    th = sp.symbols("theta", real=True)
    x = sp.symbols("x1:4", real=True)
    y = sp.symbols("y1:4", real=True)
    A = sp.Matrix([[x[i], y[i]] for i in range(3)])
    R = sp.Matrix([[sp.cos(th), -sp.sin(th)], [sp.sin(th), sp.cos(th)]])
    diff = (A * R) * (A * R).T - A * A.T
    return Identity(
        "care.not_identifiable_without_anchors",
        lhs=sp.simplify(sum(diff[i, j] ** 2 for i in range(3) for j in range(3))),
        rhs=0,
        description="(a, b) rotated by theta gives the same Sigma: quality and confounder are not identified",
    )


def claims() -> list:
    return [*_woodbury_claims(), *_bias_claims(), _leak_claim(), _one_factor_claim(), _rotation_claim()]
