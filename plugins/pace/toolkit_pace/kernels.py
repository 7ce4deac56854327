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
    buf[pos + 1 : n + 1] = buf[pos:n].copy()
    buf[pos] = value


@njit(cache=True)
def _remove(buf, n, value):
    pos = np.searchsorted(buf[:n], value, side="left")
    buf[pos : n - 1] = buf[pos + 1 : n].copy()


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
def _ks_sorted(recent, ref, kappa):
    """sup_x |F_recent(x) - F_ref(x)| by a merge of the two sorted windows, then PACE's proactive term.

    At every distinct value v the counts i = #recent <= v, j = #ref <= v give i/n_a - j/n_b, the values
    numpy's searchsorted form (toolkit_pace.window.ks_statistic) evaluates: the same max, bit for bit.
    """
    na, nb = recent.size, ref.size
    i = j = 0
    d = 0.0
    while i < na or j < nb:
        if j >= nb or (i < na and recent[i] <= ref[j]):
            v = recent[i]
        else:
            v = ref[j]
        while i < na and recent[i] <= v:
            i += 1
        while j < nb and ref[j] <= v:
            j += 1
        diff = abs(i / na - j / nb)
        if diff > d:
            d = diff
    return max(0.0, d - kappa) / (1.0 - kappa)


@njit(cache=True)
def _swap(buf, out_value, in_value):
    """Replace one occurrence of out_value by in_value in the sorted buffer, keeping it sorted."""
    n = buf.size
    _remove(buf, n, out_value)
    _insert(buf, n - 1, in_value)


@njit(cache=True)
def _shift_term(x, t, w, w_ref, kappa, recent, ref, ready):
    """PACE's proactive term at round t. ``recent`` = sorted x[t - w + 1 .. t] and ``ref`` = sorted
    x[t - w - w_ref + 1 .. t - w] are built once full, then updated each round: x[t] enters recent, x[t - w]
    moves from recent to ref, x[t - w - w_ref] leaves ref (memmoves, no sort)."""
    if t + 1 < w + w_ref:
        return 0.0, False
    if not ready:
        recent[:] = np.sort(x[t - w + 1 : t + 1])
        ref[:] = np.sort(x[t - w - w_ref + 1 : t - w + 1])
    else:
        _swap(recent, x[t - w], x[t])  # x[t-w] leaves recent, x[t] enters
        _swap(ref, x[t - w - w_ref], x[t - w])  # x[t-w-w_ref] leaves ref, x[t-w] enters
    return _ks_sorted(recent, ref, kappa), True


@njit(cache=True)
def pace_kernel(
    x,
    u,
    use_side,
    alpha,
    gamma0,
    size,
    burn_in,
    gamma_cap,
    phi_cap,
    w,
    w_ref,
    kappa,
    gap_window,
    shift_gain,
    gap_gain,
    decay,
):
    buf, n = _fill(x, burn_in, size)
    m = x.size - burn_in
    q = np.empty(m)
    err = np.empty(m, np.int64)
    a = np.empty(m)
    g = np.empty(m)
    ph = np.empty(m)
    sh = np.empty(m)  # the signals and the smoothed step, per round (what the step rule saw)
    gp = np.empty(m)
    sm = np.empty(m)
    alpha_t, smooth, phi = alpha, gamma0, 0.0
    margin = 2 * math.sqrt(alpha * (1 - alpha) / gap_window)
    err_sum = 0
    rec_x, ref_x, rec_u, ref_u = np.empty(w + 1), np.empty(w_ref + 1), np.empty(w + 1), np.empty(w_ref + 1)
    ready_x = ready_u = False
    for i in range(m):
        t = burn_in + i
        q[i] = _quantile(buf, n, alpha_t)
        a[i] = alpha_t
        e = 1 if x[t] > q[i] else 0
        err[i] = e
        err_sum += e
        if i >= gap_window:
            err_sum -= err[i - gap_window]
        shift, ready_x = _shift_term(x, t, w, w_ref, kappa, rec_x[:w], ref_x[:w_ref], ready_x)
        if use_side:
            side_shift, ready_u = _shift_term(u, t, w, w_ref, kappa, rec_u[:w], ref_u[:w_ref], ready_u)
            shift = max(shift, side_shift)
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
        sh[i], gp[i], sm[i] = shift, gap, smooth
        alpha_t = alpha_t + gamma * d
        n = _window_add(buf, n, x, t, size)
    return q, err, a, g, ph, sh, gp, sm
