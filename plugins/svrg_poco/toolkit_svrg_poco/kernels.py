"""numba-compiled inner loops of SGD, (alpha-)SVRG, isotropic PoCo and VON-PoCo for the array problems.

SVRG's inner loop is sequential (each step needs the previous iterate), so it cannot be batched
with numpy; compiled, one step of a d = 31 logistic problem costs ~0.1 us instead of ~15 us of
Python and numpy overhead. The sample indices come from the caller's numpy generator, so the
compiled and the plain paths see the same samples and agree to rounding (tested).
Imported only when a run uses ``engine="numba"``.
"""

from __future__ import annotations

import math

import numpy as np
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


@njit(cache=True)
def poco_iso_inner(kind, X, y, lam, mean, m_out, site_out, eta, alpha, N, idx):
    """len(idx) isotropic posterior-correction steps, in place, in the plain loop's order of operations:
    m <- m - eta alpha site_out - eta N [g_i(m) - alpha g_i(m_out)],  site_out = sum_j g_j(m_out)."""
    d = mean.shape[0]
    for t in range(idx.shape[0]):
        i = idx[t]
        x = X[i]
        s_in = _scalar_grad(kind, x, y[i], mean)
        s_out = _scalar_grad(kind, x, y[i], m_out)
        for k in range(d):
            g_in = s_in * x[k] + lam * mean[k]
            g_out = s_out * x[k] + lam * m_out[k]
            mean[k] = mean[k] - eta * alpha * site_out[k] - eta * N * (g_in - alpha * g_out)


@njit(cache=True)
def _curvature(kind, x, w):
    """c with H_i(w) = c x x^T + lam I (least squares: 1; logistic: p (1 - p))."""
    if kind == 0:
        return 1.0
    z = 0.0
    for k in range(x.shape[0]):
        z += x[k] * w[k]
    p = _sigmoid(z)
    return p * (1.0 - p)


@njit(cache=True)
def von_poco_inner(kind, X, y, lam, mean, S, m_out, G_hat, S_hat, eta, alpha, N, safeguard, idx):
    """len(idx) VON-PoCo closed-form steps (optimizers.von_closed_step), in place on ``mean`` and ``S``;
    the per-sample Hessians are rank one plus lam I, so no d x d Hessian is formed per sample."""
    d = mean.shape[0]
    target = np.empty((d, d))
    direction = np.empty(d)
    for t in range(idx.shape[0]):
        i = idx[t]
        x = X[i]
        c_in = _curvature(kind, x, mean)
        c_out = _curvature(kind, x, m_out)
        s_in = _scalar_grad(kind, x, y[i], mean)
        s_out = _scalar_grad(kind, x, y[i], m_out)
        # target = N (H_in + alpha Hbar), Hbar = S_hat / N - H_out; the lam I terms: N lam (1 - alpha) I
        for a in range(d):
            for b in range(d):
                target[a, b] = N * (c_in - alpha * c_out) * x[a] * x[b] + alpha * S_hat[a, b]
            target[a, a] += N * lam * (1.0 - alpha)
        delta = target - S
        S_new = S + eta * delta
        if safeguard:
            S_new = S_new + 0.5 * eta * eta * (delta @ np.linalg.solve(S, delta))
        S_new = 0.5 * (S_new + S_new.T)
        # direction = N (g_in - alpha g_out) + alpha G_hat + alpha N Hbar (m - m_out)
        diff = mean - m_out
        hbar_diff = S_hat @ diff / N
        xd = 0.0
        for k in range(d):
            xd += x[k] * diff[k]
        for k in range(d):
            g_in = s_in * x[k] + lam * mean[k]
            g_out = s_out * x[k] + lam * m_out[k]
            h_out_diff = c_out * xd * x[k] + lam * diff[k]
            direction[k] = (
                N * (g_in - alpha * g_out) + alpha * G_hat[k] + alpha * N * (hbar_diff[k] - h_out_diff)
            )
        step = np.linalg.solve(S_new, direction)
        for k in range(d):
            mean[k] -= eta * step[k]
        S[:, :] = S_new
