"""Measurements on runs: margins, Novikoff-type bounds, max-margin SVM (cvxpy), slopes, loss
oscillations and reduction fidelity. Pure maths; no toolkit imports."""

from __future__ import annotations

import math

import numpy as np


def radius_squared(B) -> float:
    """R^2 = max_i ||b_i||^2."""
    B = np.asarray(B, dtype=np.float64)
    return float(np.max(np.einsum("nd,nd->n", B, B)))


def max_margin_svm(B, y) -> tuple[np.ndarray, float]:
    """Hard-margin SVM through the origin with cvxpy: min ||v||^2 s.t. y_i b_i^T v >= 1.

    Returns (v_svm, mu) with mu = 1 / ||v_svm|| the max-margin max_{||theta||=1} min_i y_i b_i^T theta.
    Raises ValueError when the data are not linearly separable through the origin.
    """
    import cvxpy as cp

    B = np.asarray(B, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    v = cp.Variable(B.shape[1])
    problem = cp.Problem(cp.Minimize(cp.sum_squares(v)), [cp.multiply(y, B @ v) >= 1])
    problem.solve(solver=cp.CLARABEL)
    if problem.status not in ("optimal", "optimal_inaccurate") or v.value is None:
        raise ValueError(
            f"the data are not linearly separable through the origin (cvxpy status {problem.status})"
        )
    v_svm = np.asarray(v.value, dtype=np.float64)
    return v_svm, 1.0 / float(np.linalg.norm(v_svm))


def novikoff_batch(n: int, R2: float, mu2: float) -> float:
    """Batch Perceptron: at most n R^2 / mu^2 iterations."""
    return n * R2 / mu2


def novikoff_normalized(R2: float, mu2: float) -> float:
    """Classical and Normalized Batch Perceptron: at most R^2 / mu^2 iterations (updates)."""
    return R2 / mu2


def normalized_lr_gd_bound(n: int, R2: float, mu2: float, gamma: float) -> float:
    """Normalized LR+GD: at most R^2 / mu^2 + 2 log(2n - 1) / (gamma mu^2) iterations."""
    return R2 / mu2 + 2.0 * math.log(2 * n - 1) / (gamma * mu2)


def perceptron_loss(margins) -> np.ndarray:
    """(1/n) sum_i max(0, -m_i) along the last axis."""
    return np.mean(np.maximum(0.0, -np.asarray(margins)), axis=-1)


def logistic_loss_over_gamma(rescaled_margins, gamma: float) -> np.ndarray:
    """f(v)/gamma = (1/n) sum_i log(1 + exp(-gamma m_i)) / gamma along the last axis, for v = gamma u and
    m_i = y_i b_i^T u (computed stably with logaddexp)."""
    m = np.asarray(rescaled_margins, dtype=np.float64)
    return np.mean(np.logaddexp(0.0, -gamma * m), axis=-1) / gamma


def non_monotone_steps(values) -> int:
    """Number of steps t with values[t + 1] > values[t]."""
    v = np.asarray(values, dtype=np.float64)
    return int(np.sum(np.diff(v) > 0))


def sequence_period(sets, tail: int | None = None) -> int:
    """Smallest period P >= 1 with sets[t] == sets[t + P] over the last ``tail`` entries (default: the
    second half); 0 when no period shorter than the tail fits. ``sets``: (T, n) boolean masks."""
    s = np.asarray(sets)
    T = s.shape[0]
    tail = T // 2 if tail is None else tail
    window = s[T - tail :]
    for P in range(1, tail):
        if np.array_equal(window[P:], window[:-P]):
            return P
    return 0


def loglog_slope(d_values, iterations) -> float:
    """Least-squares slope of log max(T, 1) against log d (T = 0, separated at initialisation, counts as 1)."""
    T = np.maximum(np.asarray(iterations, float), 1.0)
    return float(np.polyfit(np.log(np.asarray(d_values, float)), np.log(T), 1)[0])


def median_slope_with_interval(
    d_values, runs_by_d, *, n_boot: int = 1000, seed: int = 0, level: float = 0.95
) -> tuple[float, float, float]:
    """Slope of log(median T) vs log d, with a bootstrap interval resampling runs within each d.

    ``runs_by_d``: a list (one entry per d) of arrays of per-seed iteration counts.
    """
    rng = np.random.default_rng(seed)
    meds = [np.median(r) for r in runs_by_d]
    slope = loglog_slope(d_values, meds)
    boots = np.empty(n_boot)
    for b in range(n_boot):
        boots[b] = loglog_slope(d_values, [np.median(rng.choice(r, size=len(r))) for r in runs_by_d])
    lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2])
    return slope, float(lo), float(hi)


def relative_error(states, reference) -> np.ndarray:
    """||x_t - x_hat_t|| / ||x_hat_t|| for every t (axis 0), norms over all other axes; inf where the
    reference is 0 and x is not."""
    x = np.asarray(states, dtype=np.float64)
    ref = np.asarray(reference, dtype=np.float64)
    num = np.linalg.norm((x - ref).reshape(x.shape[0], -1), axis=1)
    den = np.linalg.norm(ref.reshape(ref.shape[0], -1), axis=1)
    safe = np.where(den > 0, den, 1.0)
    return np.where(den > 0, num / safe, np.where(num > 0, np.inf, 0.0))


def cosine_gap(v, w) -> float:
    """1 - cos(v, w)."""
    v, w = np.ravel(v), np.ravel(w)
    nv, nw = np.linalg.norm(v), np.linalg.norm(w)
    if nv == 0 or nw == 0:
        return 1.0
    return float(1.0 - v @ w / (nv * nw))


def normalized_margin(margins, norm: float, degree: float) -> float:
    """min_i y_i g(b_i) / ||theta||^L with L the homogeneity degree."""
    return float(np.min(margins) / norm**degree) if norm > 0 else 0.0
