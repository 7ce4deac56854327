"""Simple random walks: the maths of the example plugin (numpy only, no toolkit imports)."""

from __future__ import annotations

import numpy as np


def walk_steps(n_steps: int, p: float, rng: np.random.Generator) -> np.ndarray:
    """``n_steps`` independent steps, +1 with probability ``p`` and -1 otherwise."""
    return np.where(rng.random(n_steps) < p, 1, -1)


def positions_and_range(steps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions S_t and the running maximum of |S_t|."""
    path = np.cumsum(steps)
    return path, np.maximum.accumulate(np.abs(path))
