"""A user's in-process plugin that registers a score-stream generator (imported by test_pace_simulations)."""

import numpy as np

from toolkit import Dataset, hookimpl
from toolkit.config import Field, Params

toolkit_plugin_name = "mystreams"


class WalkParams(Params):
    T: int = Field(500, ge=2, description="length")
    seed: int = Field(0, ge=0, description="seed")


def heavy_tailed(T: int = 500, seed: int = 0):
    """|Student-t(3)| scores whose scale doubles half-way."""
    rng = np.random.default_rng(seed)
    x = np.abs(rng.standard_t(3, T))
    x[T // 2 :] *= 2
    return x


@hookimpl
def toolkit_register_datasets():
    return [Dataset("mystreams.heavy", "heavy-tailed scores with a scale jump", heavy_tailed, WalkParams)]
