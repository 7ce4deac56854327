"""Dataset registrations: the synthetic designs (the reference and the offset design), El Nino (statsmodels),
ECG beats (neurokit2), and two real scalar-on-function regression sets shipped inside sktime: Tecator
(NIR spectra) and Covid3Month, each with its standard (Monash TSER) train/test split."""

from __future__ import annotations

from typing import Literal

from toolkit import Dataset
from toolkit.config import Field, Params


class SyntheticParams(Params):
    design: Literal["two_region", "one_region", "null"] = Field(
        "two_region", description="where beta is non-zero"
    )
    link: Literal["linear", "sin", "square", "exp"] = Field("linear", description="link g")
    snr: float = Field(5.0, gt=0, description="var g / sigma^2")
    n_train: int = Field(500, ge=2, description="training curves")
    n_test: int = Field(2000, ge=1, description="test curves")
    m: int = Field(100, ge=4, description="grid points")
    seed: int = Field(0, ge=0, description="random seed")


class EcgDataParams(Params):
    n_train: int = Field(300, ge=2, description="training beats")
    n_test: int = Field(300, ge=1, description="test beats")
    m: int = Field(100, ge=8, description="grid points per beat")
    qrs_halfwidth_s: float = Field(0.05, gt=0, le=0.15, description="half-width of the QRS window (s)")
    snr: float = Field(5.0, gt=0, description="signal-to-noise ratio")
    seed: int = Field(0, ge=0, description="random seed")


class OffsetDataParams(Params):
    link: Literal["linear", "sin", "square", "exp"] = Field("linear", description="link g")
    snr: float = Field(5.0, gt=0, description="var g / sigma^2")
    n_train: int = Field(200, ge=2, description="training curves")
    n_test: int = Field(1000, ge=1, description="test curves")
    m: int = Field(100, ge=4, description="grid points")
    offset_sd: float = Field(10.0, ge=0, description="sd of the common offset a_i")
    baseline_sd: float = Field(3.0, ge=0, description="sd of the random baseline slope b_i")
    smoothness: float = Field(2.0, gt=0, description="decay k^-s of the signal's cosine coefficients")
    seed: int = Field(0, ge=0, description="random seed")


def _offset(**kwargs):
    from toolkit_sbayfdnn.designs import simulate_offset

    return simulate_offset(**kwargs)


def _tecator():
    from toolkit_sbayfdnn.designs import tecator_curves

    return tecator_curves()


def _covid():
    from toolkit_sbayfdnn.designs import covid_curves

    return covid_curves()


def _synthetic(**kwargs):
    from toolkit_sbayfdnn.designs import simulate

    return simulate(**kwargs)


def _elnino():
    from toolkit_sbayfdnn.designs import elnino_curves

    return elnino_curves()


def _ecg(**kwargs):
    from toolkit_sbayfdnn.designs import ecg_beats

    return ecg_beats(**kwargs)


DATASETS = [
    Dataset(
        name="sbayfdnn.synthetic",
        description="functional regression with planted regions (the paper's designs)",
        loader=_synthetic,
        params=SyntheticParams,
    ),
    Dataset(
        name="sbayfdnn.elnino",
        description="statsmodels El Nino SST curves (60 years x 12 months), next-year "
        "Jan-Mar mean as response",
        loader=_elnino,
    ),
    Dataset(
        name="sbayfdnn.ecg",
        description="neurokit2-simulated ECG beats on a common grid, response on the QRS window",
        loader=_ecg,
        params=EcgDataParams,
    ),
    Dataset(
        name="sbayfdnn.offset",
        description="hard synthetic curves: large common offset, random baselines, "
        "strong collinearity, two planted regions",
        loader=_offset,
        params=OffsetDataParams,
    ),
    Dataset(
        name="sbayfdnn.tecator",
        description="Tecator NIR meat spectra (sktime, shipped), fat %, standard split 172 train / 43 test",
        loader=_tecator,
    ),
    Dataset(
        name="sbayfdnn.covid",
        description="Covid3Month (sktime, shipped): daily cases over 84 days -> death "
        "rate, standard split 140 train / 61 test",
        loader=_covid,
    ),
]
