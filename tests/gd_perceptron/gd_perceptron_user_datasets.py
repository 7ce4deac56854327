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


@hookimpl
def toolkit_register_datasets():
    return [Dataset("mydata.staircase", "my sparse staircase", my_staircase, StaircaseParams)]
