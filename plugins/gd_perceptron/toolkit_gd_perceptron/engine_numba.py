"""Compiled one-run loops (numba) for what does not batch: one long run, sparse data.

The linear model g = b^T v from v_0 = 0 in the exact rescaled form u = v / gamma of :mod:`engine`
(GD on the logistic or exponential loss), or its perceptron limit (indicator weights, ``tie_weight``
on zero margins, 1/2 on the first step), plain or normalised. The data enter as the rows
z_i = y_i b_i in CSR form (``scipy.sparse``), so a step costs O(nnz) instead of O(n d): on the
staircase (2 non-zeros per row) the d = 512 Batch Perceptron's 262,144 steps take a fraction of a
second. Stalls are detected as in :class:`engine.StallWatch` (a step that changes nothing stops the
run at once; a recurring state within twice its period and tail).

numba is imported here only; the plugin imports this module when a run asks for it. ``cache=True``
keeps the compiled code on disk, so only the first run on a machine pays the compile time.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from toolkit_gd_perceptron.engine import BLOWN, CAPPED, DIVERGED, EXP_CLIP, STALLED


@nb.njit(cache=True)
def _sigmoid(x):
    if x >= 0:
        e = np.exp(-x)
        return 1.0 / (1.0 + e)
    e = np.exp(x)
    return e / (1.0 + e)


@nb.njit(cache=True)
def _linear_run(
    indptr,
    indices,
    values,
    n,
    d,
    perceptron,
    gamma,
    normalized,
    tie_weight,
    logistic,
    max_iter,
    stalled_points,
):
    u = np.zeros(d)
    snap = np.zeros(d)
    snap_t = 0
    m = np.zeros(n)
    lam = np.zeros(n)
    stuck = False
    for t in range(max_iter + 1):
        separated = True
        for i in range(n):
            s = 0.0
            for k in range(indptr[i], indptr[i + 1]):
                s += values[k] * u[indices[k]]
            m[i] = s
            if not abs(s) < DIVERGED:
                return BLOWN
            if s <= 0.0:
                separated = False
        if separated:
            return t
        if stuck:
            for i in range(n):
                stalled_points[i] = m[i] <= 0.0
            return STALLED
        if t == max_iter:
            return CAPPED
        total = 0.0
        for i in range(n):
            if perceptron:
                if m[i] < 0.0:
                    w = 1.0
                elif m[i] == 0.0:
                    w = 0.5 if t == 0 else tie_weight
                else:
                    w = 0.0
            elif logistic:
                w = _sigmoid(-gamma * m[i])
            else:
                w = np.exp(min(-gamma * m[i], EXP_CLIP))
            lam[i] = w
            total += w
        denom = total if normalized else float(n)
        if denom <= 0.0:
            denom = 1.0
        changed = False
        for i in range(n):
            c = lam[i] / denom
            if c != 0.0:
                for k in range(indptr[i], indptr[i + 1]):
                    j = indices[k]
                    new = u[j] + c * values[k]
                    if new != u[j]:
                        changed = True
                    u[j] = new
        # a state seen at the last snapshot (steps 1, 2, 4, ...) again: a cycle
        same = True
        for j in range(d):
            if u[j] != snap[j]:
                same = False
                break
        stuck = (not changed) or same
        if snap_t == 0 or t + 1 >= 2 * snap_t:
            snap[:] = u
            snap_t = t + 1
    return CAPPED


def as_csr_rows(B, y):
    """The rows z_i = y_i b_i of (B, y) as a CSR matrix (B dense or ``scipy.sparse``)."""
    import scipy.sparse as sp

    y = np.asarray(y, dtype=np.float64).reshape(-1)
    Z = sp.csr_matrix(B, dtype=np.float64)
    Z = sp.csr_matrix(Z.multiply(y[:, None]))
    Z.sort_indices()
    return Z


def linear_run(
    B,
    y,
    gamma: float = 1.0,
    *,
    mode: str = "gd",
    loss: str = "logistic",
    normalized: bool = False,
    tie_weight: float = 0.5,
    max_iter: int = 10_000,
) -> tuple[int, np.ndarray]:
    """One linear run from v_0 = 0 (the same maths and iteration codes as :func:`engine.run_batch`).

    :param B, y: features (n, d), dense or ``scipy.sparse``, and labels +-1.
    :param gamma: GD's step size (``mode='gd'``); unused in ``mode='perceptron'`` (the gamma -> inf limit).
    :returns: (iterations, stalled_points): iterations to separation, -1 at the cap, -2 diverged,
        -3 stalled; ``stalled_points`` (n,) marks the points with margin <= 0 at a stall.
    """
    if mode not in ("gd", "perceptron"):
        raise ValueError(f"mode must be 'gd' or 'perceptron', got {mode!r}")
    if loss not in ("logistic", "exponential"):
        raise ValueError(f"loss must be 'logistic' or 'exponential', got {loss!r}")
    if not 0.0 <= tie_weight <= 1.0:
        raise ValueError(f"tie_weight must be in [0, 1], got {tie_weight}")
    if mode == "gd" and not (gamma > 0 and np.isfinite(gamma)):
        raise ValueError(f"gamma must be finite and > 0 for mode='gd', got {gamma}")
    if max_iter < 0:
        raise ValueError(f"max_iter must be >= 0, got {max_iter}")
    Z = as_csr_rows(B, y)
    n, d = Z.shape
    stalled = np.zeros(n, dtype=np.bool_)
    it = _linear_run(
        Z.indptr.astype(np.int64),
        Z.indices.astype(np.int64),
        Z.data,
        n,
        d,
        mode == "perceptron",
        float(gamma),
        bool(normalized),
        float(tie_weight),
        loss == "logistic",
        int(max_iter),
        stalled,
    )
    return int(it), stalled
