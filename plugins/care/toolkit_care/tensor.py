"""CARE-Tensor: a multi-view Gaussian mixture fitted by the method of moments.

Judges are split into three groups (views) that are as close to conditionally independent as S allows; the
third-order cross moment E[x1 (x) x2 (x) x3] of a k-component mixture is a rank-k tensor whose factors are the
component means (Anandkumar, Ge, Hsu, Kakade, Telgarsky 2014: multi-view reduction, whitening, robust tensor
power iteration with deflation). Posteriors of the components give P(Q = 1) from the components whose means
load most on the top eigenvector of L. Pure numpy/scipy.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np


def three_groups(S: np.ndarray) -> tuple[list[int], list[int], list[int], float]:
    """Three groups of sizes (n//3, n//3, rest) minimising the largest cross-group |S_ij|.

    For a threshold t the judges joined by |S_ij| > t must share a group: feasible when the connected components
    can be packed into the three sizes exactly (a subset-sum). The least feasible t is found by bisection."""
    n = S.shape[0]
    if n < 3:
        raise ValueError("CARE-Tensor needs at least 3 judges to form three views")
    A = np.maximum(np.abs(S), np.abs(S.T))
    np.fill_diagonal(A, 0.0)
    sizes = (n // 3, n // 3, n - 2 * (n // 3))
    cands = np.unique(A[np.triu_indices(n, 1)])

    def components(t):
        seen, comps = np.zeros(n, bool), []
        for s in range(n):
            if seen[s]:
                continue
            stack, comp = [s], []
            seen[s] = True
            while stack:
                i = stack.pop()
                comp.append(i)
                for j in np.flatnonzero(A[i] > t):
                    if not seen[j]:
                        seen[j] = True
                        stack.append(j)
            comps.append(sorted(comp))
        return comps

    def pack(comps):
        # states: (filled of group 1, filled of group 2) -> assignment of the components so far
        states = {(0, 0): []}
        for c in comps:
            k, new = len(c), {}
            for (f1, f2), assign in states.items():
                f3 = sum(len(comps[i]) for i, g in enumerate(assign) if g == 2)
                for g, ok in ((0, f1 + k <= sizes[0]), (1, f2 + k <= sizes[1]), (2, f3 + k <= sizes[2])):
                    if ok:
                        key = (f1 + k * (g == 0), f2 + k * (g == 1))
                        new.setdefault(key, assign + [g])
            states = new
        assign = states.get((sizes[0], sizes[1]))
        if assign is None:
            return None
        groups = ([], [], [])
        for comp, g in zip(comps, assign):
            groups[g].extend(comp)
        return tuple(sorted(g) for g in groups)

    lo, hi = -1, len(cands) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if pack(components(cands[mid])) is not None:
            hi = mid
        else:
            lo = mid
    g = pack(components(cands[hi]))
    assert g is not None
    return g[0], g[1], g[2], float(cands[hi])


def _lowrank(M: np.ndarray, k: int) -> np.ndarray:
    U, s, Vt = np.linalg.svd(M, full_matrices=False)
    return (U[:, :k] * s[:k]) @ Vt[:k]


def _power(T: np.ndarray, comps: int, M2: np.ndarray, rng, restarts: int, iters: int):
    """Robust tensor power method with deflation; returns means (d x comps) and weights (comps,)."""
    d = M2.shape[0]
    mus, ws = np.zeros((d, comps)), np.zeros(comps)
    M2, T = M2.copy(), T.copy()
    for b in range(comps):
        lam, v = np.linalg.eigh(0.5 * (M2 + M2.T))
        order = np.argsort(lam)[::-1]
        lam, v = lam[order], v[:, order]
        m = int(np.sum(lam > 1e-2))
        if m == 0:
            break
        W = v[:, :m] / np.sqrt(lam[:m])
        Bm = v[:, :m] * np.sqrt(lam[:m])
        Tw = np.einsum("abc,ai,bj,ck->ijk", T, W, W, W)
        U = rng.standard_normal((m, restarts))
        U /= np.linalg.norm(U, axis=0)
        for _ in range(iters):
            U = np.einsum("ijk,jr,kr->ir", Tw, U, U)
            U /= np.maximum(np.linalg.norm(U, axis=0), 1e-300)
        tau = np.einsum("ijk,ir,jr,kr->r", Tw, U, U, U)
        u = U[:, int(np.argmax(tau))]
        for _ in range(iters):
            u = np.einsum("ijk,j,k->i", Tw, u, u)
            u /= max(np.linalg.norm(u), 1e-300)
        lamb = float(np.einsum("ijk,i,j,k->", Tw, u, u, u))
        if abs(lamb) < 1e-12:
            break
        mus[:, b] = lamb * Bm @ u
        ws[b] = 1.0 / lamb**2
        M2 -= ws[b] * np.outer(mus[:, b], mus[:, b])
        T -= ws[b] * np.einsum("i,j,k->ijk", mus[:, b], mus[:, b], mus[:, b])
    return mus, ws


def _view_means(xa, xb, xc, k, rng, restarts, iters):
    """Means of view c (and weights) from views a, b transformed onto c (multi-view symmetrisation)."""
    n = xa.shape[1]
    E = lambda u, v: u @ v.T / n  # noqa: E731
    ta = _lowrank(E(xc, xb), k) @ np.linalg.pinv(_lowrank(E(xa, xb), k)) @ xa
    tb = _lowrank(E(xc, xa), k) @ np.linalg.pinv(_lowrank(E(xb, xa), k)) @ xb
    M2 = E(ta, tb)
    M3 = np.einsum("in,jn,kn->ijk", ta, tb, xc) / n
    return _power(M3, k, M2, rng, restarts, iters)


def _mse_perm(T, That):
    errs = [
        np.mean((T - That.transpose(p)) ** 2)
        for p in itertools.permutations(range(3))
        if tuple(That.shape[i] for i in p) == T.shape
    ]
    return float(min(errs))


@dataclass
class Mixture:
    rank: int
    weights: np.ndarray
    means: tuple  # three (d_v x rank) arrays
    error: float


def decompose_views(X1, X2, X3, k, *, seed=0, repeats=6, restarts=1000, iters=10) -> Mixture:
    """The best of ``repeats`` decompositions (least error on the empirical third moment); every view's means
    from its own reduction, weights averaged over the three (components aligned by extraction order)."""
    rng = np.random.default_rng([seed, 11])
    x1, x2, x3 = X1.T, X2.T, X3.T
    n = x1.shape[1]
    T = np.einsum("in,jn,kn->ijk", x1, x2, x3) / n
    best = None
    for _ in range(repeats):
        m3, w1 = _view_means(x1, x2, x3, k, rng, restarts, iters)
        m2, w2 = _view_means(x1, x3, x2, k, rng, restarts, iters)
        m1, w3 = _view_means(x2, x3, x1, k, rng, restarts, iters)
        w = np.mean([w1, w2, w3], axis=0)
        That = np.einsum("r,ir,jr,kr->ijk", w, m1, m2, m3)
        err = _mse_perm(T, That)
        if best is None or err < best.error:
            best = Mixture(k, w, (m1, m2, m3), err)
    assert best is not None
    return best


def posteriors(mix: Mixture, views, ridge: float = 1e-6) -> np.ndarray:
    """P(component | item): one Gaussian per view with the view's covariance, the component's mean."""
    from scipy.special import logsumexp
    from scipy.stats import multivariate_normal

    ll = np.tile(np.log(np.maximum(mix.weights, 1e-12))[:, None], (1, views[0].shape[0]))
    for Xv, mv in zip(views, mix.means):
        cov = np.atleast_2d(np.cov(Xv, rowvar=False)) + ridge * np.eye(Xv.shape[1])
        for r in range(mix.rank):
            ll[r] += multivariate_normal.logpdf(Xv, mean=mv[:, r], cov=cov, allow_singular=True)
    return np.exp(ll - logsumexp(ll, axis=0, keepdims=True))
