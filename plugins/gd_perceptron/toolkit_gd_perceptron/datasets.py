"""The plugin's datasets as toolkit ``Dataset`` records (loaders return (B, y))."""

from __future__ import annotations

from toolkit import Dataset
from toolkit.config import Field, Params
from toolkit_gd_perceptron import data


class R1Params(Params):
    d: int = Field(16, ge=2, description="number of features")


class Thm51Params(Params):
    n: int = Field(1000, ge=2, description="number of samples")


class PlantedParams(Params):
    n: int = Field(100, ge=2, description="number of samples")
    d: int = Field(20, ge=1, description="number of features")
    margin: float = Field(0.5, ge=0, description="planted margin along the hidden unit direction")
    seed: int = Field(0, ge=0, description="random seed")


DATASETS = [
    Dataset(
        "gd_perceptron.r1",
        "R1 (reconstruction): e_1 (+1) and e_1 + (1/d) sum_{k>=2} e_k (-1); "
        "Batch Perceptron needs exactly 2d + 4 steps",
        data.r1,
        R1Params,
    ),
    Dataset("gd_perceptron.thm41", "predecessor Thm 4.1: (1, -1) label +1 and (-1, -4) label -1", data.thm41),
    Dataset(
        "gd_perceptron.thm51",
        "predecessor Thm 5.1: (0.5, -1) label +1 and n - 1 copies of (-0.5, -1) label -1",
        data.thm51,
        Thm51Params,
    ),
    Dataset(
        "gd_perceptron.staircase",
        "sparse staircase z_1 = e_1, z_k = e_k - e_{k-1}: Batch Perceptron needs exactly d^2 steps",
        data.staircase,
        R1Params,
    ),
    Dataset(
        "gd_perceptron.planted",
        "Gaussian points labelled by a hidden direction, pushed to a planted margin",
        data.planted,
        PlantedParams,
    ),
]
