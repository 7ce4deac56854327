"""A user's in-process plugin (the README's example): registers a dataset that no installed plugin has.

Imported by test_gd_perceptron_user_data.py; a module (not a test) so that worker processes import it too.
"""

import numpy as np

from toolkit import Dataset, hookimpl
from toolkit.config import Field, Params

toolkit_plugin_name = "mydata"  # registered directly, the plugin takes this name: its names are mydata.*


class StaircaseParams(Params):
    d: int = Field(16, ge=2, description="number of features")


def my_staircase(d: int = 16):
    """z_1 = e_1, z_k = e_k - e_{k-1}, all labels +1 (the Batch Perceptron needs d^2 steps)."""
    B = np.eye(d)
    B[np.arange(1, d), np.arange(d - 1)] = -1.0
    return B, np.ones(d)


def my_fixed():
    """A dataset with no dimension parameter: three points in the plane, separable through the origin."""
    return np.array([[1.0, 0.5], [0.5, 1.0], [-1.0, -0.2]]), np.array([1.0, 1.0, -1.0])


def my_overlapping():
    """Not separable through the origin: the same point with both labels."""
    return np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]]), np.array([1.0, -1.0, 1.0])


class FileParams(Params):
    path: str = Field(description="a .npz file with arrays B and y")


def my_file(path: str):
    """A dataset read from a file the user names (keyed by its content through dataset_params)."""
    with np.load(path) as f:
        return f["B"], f["y"]


DATASETS_WITHOUT_D = [
    Dataset("mydata.fixed", "three fixed points (no d)", my_fixed),
    Dataset("mydata.overlapping", "one point with both labels (not separable)", my_overlapping),
    Dataset("mydata.file", "(B, y) from a .npz file", my_file, FileParams),
]


@hookimpl
def toolkit_register_datasets():
    return [
        Dataset("mydata.staircase", "my sparse staircase", my_staircase, StaircaseParams),
        *DATASETS_WITHOUT_D,
    ]
