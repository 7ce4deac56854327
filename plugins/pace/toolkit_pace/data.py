"""The plugin's score streams as registered datasets: ``toolkit data``/``Registry.dataset(...)`` load them, and
any plugin's dataset returning a 1-D score array can feed ``pace.stream`` (stream=user, dataset=NAME)."""

from __future__ import annotations

from typing import Literal

import numpy as np

from toolkit import Dataset
from toolkit.config import Field, Params


class SyntheticParams(Params):
    scenario: Literal["exchangeable", "drift", "abrupt_variance", "mean_jump", "multi_block", "computo"] = (
        Field("abrupt_variance", description="the shift scenario")
    )
    T: int = Field(4000, ge=2, le=1_000_000, description="stream length")
    seed: int = Field(0, ge=0, description="seed of the Gaussian draws")


def load_synthetic(scenario: str = "abrupt_variance", T: int = 4000, seed: int = 0) -> np.ndarray:
    from toolkit_pace.streams import synthetic

    return synthetic(scenario, T, seed).scores


class RealParams(Params):
    series: Literal["co2", "elnino", "sunspots", "inflation", "nile"] = Field(
        "co2", description="statsmodels series"
    )


def load_real(series: str = "co2") -> np.ndarray:
    from toolkit_pace.streams import real

    return real(series).scores


class LLMParams(Params):
    T: int = Field(4000, ge=4, le=1_000_000, description="rounds (topic switches at T/4, T/2, 3T/4)")
    seed: int = Field(0, ge=0, description="seed")


def load_llm(T: int = 4000, seed: int = 0) -> np.ndarray:
    from toolkit_pace.streams import llm_factuality

    return llm_factuality(T, seed).scores


DATASETS = [
    Dataset(
        "pace.synthetic",
        "synthetic score streams |mu_t + sigma_t Z| with planted shifts (1-D array)",
        load_synthetic,
        SyntheticParams,
    ),
    Dataset(
        "pace.statsmodels",
        "statsmodels series (co2, elnino, sunspots, inflation, nile) as |y - rolling AR(3) "
        "forecast| (1-D array)",
        load_real,
        RealParams,
    ),
    Dataset(
        "pace.llm_factuality",
        "simulated LLM factuality scores: the largest confidence of a false claim per round (1-D array)",
        load_llm,
        LLMParams,
    ),
]
