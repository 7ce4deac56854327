"""numba-compiled inner loops of SGD and (alpha-)SVRG for the built-in array problems.

SVRG's inner loop is sequential (each step needs the previous iterate), so it cannot be batched
with numpy; compiled, one step of a d = 31 logistic problem costs ~0.1 us instead of ~15 us of
Python and numpy overhead. The sample indices come from the caller's numpy generator, so the
compiled and the plain paths see the same samples and agree to rounding (tested).
Imported only when a run uses ``engine="numba"``.
"""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True)
def _sigmoid(z):
    return 0.5 * (1.0 + math.tanh(0.5 * z))


@njit(cache=True)
def _scalar_grad(kind, x, yi, w):
    """The data part of grad psi_i(w) is s * x_i; returns s (kind 0: least squares, 1: logistic)."""
    z = 0.0
    for k in range(x.shape[0]):
        z += x[k] * w[k]
    if kind == 0:
        return z - yi
    return -yi * _sigmoid(-yi * z)


@njit(cache=True)
def svrg_inner(kind, X, y, lam, w, w_snap, mu, step, alpha, idx, save_at, w_save):
    """m = len(idx) inner steps w <- w - step (grad_i(w) - alpha (grad_i(w_snap) - mu)), in place.

    ``w_save`` receives the iterate before step ``save_at`` (option II's random snapshot);
    ``save_at < 0`` saves nothing.
    """
    d = w.shape[0]
    for t in range(idx.shape[0]):
        if t == save_at:
            for k in range(d):
                w_save[k] = w[k]
        i = idx[t]
        x = X[i]
        s = _scalar_grad(kind, x, y[i], w)
        s_snap = _scalar_grad(kind, x, y[i], w_snap)
        c = s - alpha * s_snap
        for k in range(d):
            w[k] -= step * (c * x[k] + lam * (w[k] - alpha * w_snap[k]) + alpha * mu[k])


@njit(cache=True)
def sgd_inner(kind, X, y, lam, w, step, idx):
    d = w.shape[0]
    for t in range(idx.shape[0]):
        i = idx[t]
        x = X[i]
        s = _scalar_grad(kind, x, y[i], w)
        for k in range(d):
            w[k] -= step * (s * x[k] + lam * w[k])
