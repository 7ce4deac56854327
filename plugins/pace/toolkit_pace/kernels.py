"""numba kernels of ACI and PACE: the same arithmetic as the classes of :mod:`toolkit_pace.methods`, in the
same order, so both engines give identical arrays (tests/pace checks it); a sorted window makes the
conformal quantile an index lookup.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit


@njit(cache=True)
def _insert(buf, n, value):
    pos = np.searchsorted(buf[:n], value, side="right")
    buf[pos + 1:n + 1] = buf[pos:n].copy()
    buf[pos] = value


@njit(cache=True)
def _remove(buf, n, value):
    pos = np.searchsorted(buf[:n], value, side="left")
    buf[pos:n - 1] = buf[pos + 1:n].copy()


@njit(cache=True)
def _quantile(buf, n, alpha_t):
    if alpha_t >= 1.0:
        return -np.inf
    if alpha_t <= 0.0:
        return np.inf
    k = math.ceil((1.0 - alpha_t) * (n + 1))
    if k > n:
        return np.inf
    return buf[k - 1]


@njit(cache=True)
def _window_add(buf, n, x, t, size):
    """Add x[t] to the sorted window of the scores x[t - n .. t - 1]; returns the new count."""
    if n == size:
        _remove(buf, n, x[t - size])
        n -= 1
    _insert(buf, n, x[t])
    return n + 1


@njit(cache=True)
def _fill(x, burn_in, size):
    buf = np.empty(size + 1)
    n = 0
    for t in range(burn_in):
        n = _window_add(buf, n, x, t, size)
    return buf, n


@njit(cache=True)
def aci_kernel(x, alpha, gamma, size, burn_in, alpha_1):
    buf, n = _fill(x, burn_in, size)
    m = x.size - burn_in
    q = np.empty(m)
    err = np.empty(m, np.int64)
    a = np.empty(m)
    alpha_t = alpha_1
    for i in range(m):
        t = burn_in + i
        q[i] = _quantile(buf, n, alpha_t)
        a[i] = alpha_t
        e = 1 if x[t] > q[i] else 0
        err[i] = e
        alpha_t = alpha_t + gamma * (alpha - e)
        n = _window_add(buf, n, x, t, size)
    return q, err, a


@njit(cache=True)
def _ks(x, t, w, w_ref, kappa):
    """PACE's proactive term on x[t - w - w_ref + 1 .. t] (recent w against the w_ref before them)."""
    if t + 1 < w + w_ref:
        return 0.0
    recent = np.sort(x[t - w + 1:t + 1])
    ref = np.sort(x[t - w - w_ref + 1:t - w + 1])
    grid = np.concatenate((recent, ref))
    fa = np.searchsorted(recent, grid, side="right") / recent.size
    fb = np.searchsorted(ref, grid, side="right") / ref.size
    d = np.max(np.abs(fa - fb))
    return max(0.0, d - kappa) / (1.0 - kappa)


@njit(cache=True)
def pace_kernel(x, u, use_side, alpha, gamma0, size, burn_in, gamma_cap, phi_cap, w, w_ref, kappa, gap_window,
                shift_gain, gap_gain, decay):
    buf, n = _fill(x, burn_in, size)
    m = x.size - burn_in
    q = np.empty(m)
    err = np.empty(m, np.int64)
    a = np.empty(m)
    g = np.empty(m)
    ph = np.empty(m)
    alpha_t, smooth, phi = alpha, gamma0, 0.0
    margin = 2 * math.sqrt(alpha * (1 - alpha) / gap_window)
    err_sum = 0
    for i in range(m):
        t = burn_in + i
        q[i] = _quantile(buf, n, alpha_t)
        a[i] = alpha_t
        e = 1 if x[t] > q[i] else 0
        err[i] = e
        err_sum += e
        if i >= gap_window:
            err_sum -= err[i - gap_window]
        shift = _ks(x, t, w, w_ref, kappa)
        if use_side:
            shift = max(shift, _ks(u, t, w, w_ref, kappa))
        gap = 0.0
        if i + 1 >= gap_window:
            gap = max(0.0, abs(err_sum / gap_window - alpha) - margin) / max(alpha, 1 - alpha)
        target = min(gamma_cap, gamma0 + shift_gain * shift + gap_gain * gap)
        if target >= smooth:
            smooth = target
        else:
            smooth = smooth + (target - smooth) / decay
        d = alpha - e
        gamma = smooth
        if d > 0:
            gamma = min(gamma, gamma0 + (phi_cap - phi) / d)
        elif d < 0:
            gamma = min(gamma, gamma0 + (phi_cap + phi) / (-d))
        gamma = max(gamma, gamma0)
        phi_next = phi + (gamma - gamma0) * d
        if abs(phi_next) > phi_cap:
            phi_next = phi_cap if phi_next > 0 else -phi_cap
        phi = phi_next
        g[i] = gamma
        ph[i] = phi
        alpha_t = alpha_t + gamma * d
        n = _window_add(buf, n, x, t, size)
    return q, err, a, g, ph
