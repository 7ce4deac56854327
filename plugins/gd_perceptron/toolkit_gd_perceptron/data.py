"""Datasets of the paper and its predecessor, plus planted-margin synthetic data.

Every loader returns ``(B, y)``: features ``B`` of shape ``(n, d)`` (float64) and labels ``y`` in
{-1, +1} of shape ``(n,)``. Pure numpy; no toolkit imports.
"""

from __future__ import annotations

import numpy as np


def _check_labels(B: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    B = np.asarray(B, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    if B.ndim != 2:
        raise ValueError(f"features must be a 2-D array (n, d), got shape {B.shape}")
    if B.shape[0] != y.shape[0]:
        raise ValueError(f"features have {B.shape[0]} rows but labels have {y.shape[0]} entries")
    if not np.all(np.isin(y, (-1.0, 1.0))):
        raise ValueError("labels must be -1 or +1")
    if not (np.all(np.isfinite(B))):
        raise ValueError("features must be finite")
    return B, y


def as_dataset(B, y) -> tuple[np.ndarray, np.ndarray]:
    """Validate a user dataset: (n, d) finite features and +-1 labels."""
    return _check_labels(B, y)


def thm41() -> tuple[np.ndarray, np.ndarray]:
    """Predecessor Thm 4.1 ("the loss is unreliable"): (1, -1) label +1 and (-1, -4) label -1."""
    return np.array([[1.0, -1.0], [-1.0, -4.0]]), np.array([1.0, -1.0])


def thm51(n: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    """Predecessor Thm 5.1 (Batch Perceptron needs Omega(n) steps): one sample (0.5, -1) with label
    +1 and ``n - 1`` samples (-0.5, -1) with label -1."""
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    B = np.tile(np.array([-0.5, -1.0]), (n, 1))
    B[0] = (0.5, -1.0)
    y = -np.ones(n)
    y[0] = 1.0
    return B, y


def r1(d: int) -> tuple[np.ndarray, np.ndarray]:
    """The linear-hard example R1 (our reconstruction): b_1 = e_1 (label +1) and
    b_2 = e_1 + (1/d) sum_{k>=2} e_k (label -1)."""
    if d < 2:
        raise ValueError(f"d must be >= 2, got {d}")
    B = np.zeros((2, d))
    B[0, 0] = 1.0
    B[1, 0] = 1.0
    B[1, 1:] = 1.0 / d
    return B, np.array([1.0, -1.0])


def r1_margin_squared(d: int) -> float:
    """mu^2 of R1 in closed form: (d - 1) / (4 d^2 + d - 1)."""
    return (d - 1) / (4 * d * d + d - 1)


def r1_radius_squared(d: int) -> float:
    """R^2 = max ||b_i||^2 of R1: 1 + (d - 1) / d^2."""
    return 1.0 + (d - 1) / (d * d)


def r1_batch_perceptron_iterations(d: int) -> int:
    """Exact Batch Perceptron iteration count on R1 (ties counted as mistakes): 2d + 4 for d >= 4."""
    if d < 4:
        raise ValueError(f"the closed form 2d + 4 holds for d >= 4, got d = {d}")
    return 2 * d + 4


def staircase(d: int) -> tuple[np.ndarray, np.ndarray]:
    """A sparse "staircase" (our construction, 2 non-zeros per row): y_i b_i = z_i with z_1 = e_1 and
    z_k = e_k - e_{k-1} (k = 2..d), labels alternating +1, -1, ... The max-margin direction is
    (1, 2, ..., d), so mu^2 = 6 / (d (d+1) (2d+1)) ~ 3/d^3 and R^2 = 2: the Batch Perceptron (ties
    counted as mistakes) needs exactly d^2 iterations (measured for every d tested, up to 512)."""
    if d < 2:
        raise ValueError(f"d must be >= 2, got {d}")
    Z = np.eye(d)
    Z[np.arange(1, d), np.arange(d - 1)] = -1.0
    y = np.where(np.arange(d) % 2 == 0, 1.0, -1.0)
    return Z * y[:, None], y


def staircase_margin_squared(d: int) -> float:
    """mu^2 of the staircase: 1 / sum_k k^2 = 6 / (d (d+1) (2d+1))."""
    return 6.0 / (d * (d + 1) * (2 * d + 1))


def planted(
    n: int, d: int, margin: float, seed: int, *, noise_scale: float = 1.0
) -> tuple[np.ndarray, np.ndarray]:
    """Random separable data with a planted margin.

    A unit direction ``w*`` is drawn, points are Gaussian; labels are ``sign(<w*, b>)`` and every point
    is pushed away from the hyperplane so that ``|<w*, b>| >= margin``. The max-margin of the result
    is therefore at least ``margin`` (its ``mu`` with respect to ``w*``).
    """
    if n < 2 or d < 1:
        raise ValueError(f"need n >= 2 and d >= 1, got n = {n}, d = {d}")
    if margin < 0:
        raise ValueError(f"margin must be >= 0, got {margin}")
    rng = np.random.default_rng(seed)
    w_star = rng.standard_normal(d)
    w_star /= np.linalg.norm(w_star)
    B = noise_scale * rng.standard_normal((n, d))
    y = np.where(rng.random(n) < 0.5, 1.0, -1.0)
    # set the component along w* to y * (margin + |gaussian|): labels agree with w*, margin >= margin
    along = B @ w_star
    B += np.outer(y * (margin + np.abs(along)) - along, w_star)
    return B, y
