"""The calibration window of online conformal methods and the conformal quantile rule.

Pure Python/numpy, no toolkit imports. The window holds the last ``W`` scores both in arrival order
(for forecasters and ranges) and sorted (bisect), so the k-th smallest score is an index lookup.
"""

from __future__ import annotations

import bisect
import math
from collections import deque
from collections.abc import Iterable

import numpy as np


def quantile_index(alpha_t: float, n: int) -> int:
    """k = ceil((1 - alpha_t)(n + 1)), computed in float64 exactly as written (no rounding guard)."""
    return math.ceil((1.0 - alpha_t) * (n + 1))


def conformal_quantile(sorted_scores, alpha_t: float) -> float:
    """The reference threshold q_t = Q_{1 - alpha_t} of the calibration scores.

    With n scores sorted ascending: ``+inf`` when ``alpha_t <= 0`` or k > n, ``-inf`` (the empty set:
    every score is an error) when ``alpha_t >= 1``, else the k-th smallest score with
    k = ceil((1 - alpha_t)(n + 1)) (1-based).
    """
    n = len(sorted_scores)
    if alpha_t >= 1.0:
        return -math.inf
    if alpha_t <= 0.0:
        return math.inf
    k = quantile_index(alpha_t, n)
    if k > n:
        return math.inf
    return float(sorted_scores[k - 1])


class CalibrationWindow:
    """The last ``size`` scores: arrival order and sorted order, updated in O(size) per score."""

    def __init__(self, size: int, initial: Iterable[float] = ()):
        if size < 1:
            raise ValueError(f"calibration_window must be >= 1, got {size}")
        self.size = int(size)
        self.recent: deque[float] = deque()
        self.sorted: list[float] = []
        for s in initial:
            self.add(float(s))

    def __len__(self) -> int:
        return len(self.recent)

    def add(self, score: float) -> None:
        if len(self.recent) == self.size:
            old = self.recent.popleft()
            del self.sorted[bisect.bisect_left(self.sorted, old)]
        self.recent.append(score)
        bisect.insort(self.sorted, score)

    def quantile(self, alpha_t: float) -> float:
        return conformal_quantile(self.sorted, alpha_t)

    def beta(self, score: float) -> float:
        """The fraction of window scores >= ``score`` (DtACI's beta_t); 1 for an empty window."""
        n = len(self.sorted)
        return 1.0 if n == 0 else (n - bisect.bisect_left(self.sorted, score)) / n

    def range(self) -> float:
        return (self.sorted[-1] - self.sorted[0]) if self.sorted else 0.0

    def max(self) -> float:
        return self.sorted[-1] if self.sorted else 0.0

    def min(self) -> float:
        return self.sorted[0] if self.sorted else 0.0

    def as_array(self) -> np.ndarray:
        """The scores in arrival order."""
        return np.fromiter(self.recent, float, len(self.recent))


def ks_statistic(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sample Kolmogorov-Smirnov statistic sup_x |F_a(x) - F_b(x)| (ties handled exactly)."""
    a, b = np.sort(a), np.sort(b)
    grid = np.concatenate([a, b])
    fa = np.searchsorted(a, grid, side="right") / a.size
    fb = np.searchsorted(b, grid, side="right") / b.size
    return float(np.max(np.abs(fa - fb)))
