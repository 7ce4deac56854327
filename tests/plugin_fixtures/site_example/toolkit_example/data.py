"""The example plugin's datasets: a generator other plugins' users can load."""

from __future__ import annotations

import numpy as np

from toolkit import Dataset, Field, Params
from toolkit_example.walks import walk_steps


class StepsParams(Params):
    n_steps: int = Field(10, ge=1)
    p: float = Field(0.5, ge=0, le=1)
    seed: int = Field(0, ge=0)


def make_steps(n_steps: int = 10, p: float = 0.5, seed: int = 0) -> np.ndarray:
    """The +-1 steps of a walk (a dataset other plugins' users can load)."""
    return walk_steps(n_steps, p, np.random.default_rng(seed))


DATASETS = [
    Dataset(
        name="example.steps", description="+-1 steps of a random walk", loader=make_steps, params=StepsParams
    )
]
