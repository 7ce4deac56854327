"""Registered, sweepable simulations of the sparse Bayesian functional network.

* ``sbayfdnn.two_region``: the reference two-region design (links linear / sin / square / exp, SNR, n);
* ``sbayfdnn.one_region``: beta non-zero on [0.1, 0.3] only;
* ``sbayfdnn.null``: beta = 0 (y is noise); how many basis functions get selected;
* ``sbayfdnn.compare``: every method (sbayfdnn and the baselines) on one two-region split;
* ``sbayfdnn.ecg``: the semi-synthetic ECG design (true region = the QRS window);
* ``sbayfdnn.offset``: a hard design (large common offset, random baselines, strong
  collinearity, two planted regions), with the functional linear model's test RMSE beside.

One row per fit: test RMSE, oracle RMSE and their ratio, region TPR / FPR / F1 on the grid, number of
selected basis functions, Laplace 95% interval coverage and width, wall time, and the extreme squared
column norms of kept / dropped columns (held against the closed-form threshold by the bounds).
"""

from __future__ import annotations

import time
from typing import Literal

import numpy as np

from toolkit import PointCost, Simulation, SimulationOutput
from toolkit.backend import resolve_device, set_threads
from toolkit.config import Field, Params

LinkName = Literal["linear", "sin", "square", "exp"]


class FitParams(Params):
    """Model and training settings shared by every design."""

    n_train: int = Field(500, ge=10, description="training curves")
    n_test: int = Field(2000, ge=10, description="test curves")
    m: int = Field(100, ge=8, description="grid points per curve")
    n_basis: int = Field(24, ge=2, description="J, B-spline basis functions")
    degree: int = Field(3, ge=0, le=5, description="B-spline degree")
    first_layer_width: int = Field(
        64, ge=1, description="H, width of the first layer (its columns are the groups)"
    )
    hidden_width: int = Field(32, ge=1, description="width of the second hidden layer")
    epochs: int = Field(3000, ge=1, description="MAP epochs (full-batch Adam)")
    anneal_epochs: int = Field(500, ge=0, description="epochs over which the prior weight ramps 0 -> 1")
    finetune_epochs: int = Field(500, ge=0, description="epochs of fine-tuning after masking")
    n_restarts: int = Field(3, ge=1, description="random restarts; the Laplace evidence picks one")
    lam: float = Field(1e-5, gt=0, lt=1, description="prior inclusion probability")
    sigma0_sq: float = Field(1e-5, gt=0, description="spike variance")
    sigma1_sq: float = Field(5e-3, gt=0, description="slab variance (the real sparsity knob)")
    lr: float = Field(2e-3, gt=0, description="Adam learning rate")
    finetune_lr: float | None = Field(
        2e-4, gt=0, description="Adam learning rate of the fine-tuning (none: lr)"
    )
    interval_level: float = Field(0.95, gt=0, lt=1, description="level of the Laplace predictive intervals")
    device: Literal["cpu", "cuda", "auto"] = Field("cpu", description="torch device")
    n_threads: int = Field(1, ge=1, description="torch CPU threads (1 is fastest for this size)")
    inner_cv: bool = Field(
        True,
        description="inner-CV model choice when the network underfits or n < 100; "
        "false: no inner CV (cv_folds = 0)",
    )


class DesignParams(FitParams):
    link: LinkName = Field("linear", description="link g: u, sin 2u + u, u^2, e^(u/2)")
    snr: float = Field(5.0, gt=0, description="signal-to-noise ratio var g / sigma^2")


class NullParams(FitParams):
    pass


class CompareParams(DesignParams):
    baseline_epochs: int = Field(3000, ge=1, description="epoch budget of the dense and AdaFNN baselines")


class OffsetParams(FitParams):
    n_train: int = Field(200, ge=10, description="training curves")
    n_test: int = Field(1000, ge=10, description="test curves")
    link: LinkName = Field("linear", description="link g: u, sin 2u + u, u^2, e^(u/2)")
    snr: float = Field(5.0, gt=0, description="signal-to-noise ratio var g / sigma^2")
    offset_sd: float = Field(10.0, ge=0, description="sd of the common offset")
    baseline_sd: float = Field(3.0, ge=0, description="sd of the random baseline slope")
    smoothness: float = Field(2.0, gt=0, description="decay k^-s of the signal's cosine coefficients")


class EcgParams(FitParams):
    n_train: int = Field(300, ge=10, description="training beats")
    n_test: int = Field(300, ge=10, description="test beats")
    snr: float = Field(5.0, gt=0, description="signal-to-noise ratio")
    qrs_halfwidth_s: float = Field(0.05, gt=0, le=0.15, description="half-width of the QRS window (s)")


QUICK = {
    "n_train": 60,
    "n_test": 60,
    "m": 30,
    "n_basis": 8,
    "first_layer_width": 16,
    "hidden_width": 8,
    "epochs": 100,
    "anneal_epochs": 30,
    "finetune_epochs": 20,
    "n_restarts": 1,
    "inner_cv": False,
}  # speed only: a 100-epoch network always underfits, and the CV would multiply its cost by 7


def _model_settings(params: FitParams) -> dict:
    """The estimator's settings from the simulation parameters (shared by every design and ``compare``)."""
    return dict(
        n_basis=params.n_basis,
        degree=params.degree,
        widths=(params.first_layer_width, params.hidden_width),
        lam=params.lam,
        sigma0_sq=params.sigma0_sq,
        sigma1_sq=params.sigma1_sq,
        epochs=params.epochs,
        anneal_epochs=params.anneal_epochs,
        finetune_epochs=params.finetune_epochs,
        lr=params.lr,
        finetune_lr=params.finetune_lr,
        n_restarts=params.n_restarts,
        cv_folds=3 if params.inner_cv else 0,
    )


def _estimator(params: FitParams, seed: int):
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    set_threads(params.n_threads)
    return SparseBayesianFDNN(
        **_model_settings(params), device=resolve_device(params.device), random_state=seed
    )


def fit_and_score(data, params: FitParams, seed: int) -> dict:
    """Fit the sparse Bayesian model on ``data`` and measure it (one record)."""
    from toolkit_sbayfdnn import basis

    start = time.perf_counter()
    model = _estimator(params, seed).fit(data.X, data.y, data.grid)
    pred = model.predict(data.X_test)
    lo, hi = model.predict_interval(data.X_test, level=params.interval_level)
    rmse = float(np.sqrt(np.mean((pred - data.y_test) ** 2)))
    oracle = data.oracle_rmse if data.f_test is not None else float("nan")
    selected = basis.region_mask(data.grid, model.selected_regions_)
    truth = basis.region_mask(data.grid, data.true_regions)
    metrics = basis.region_metrics(selected, truth)
    norms = model.column_norms_sq_
    chosen = np.zeros(len(norms), dtype=bool)
    chosen[model.network_selected_] = True  # the norms are the network's columns
    return {
        "rmse": rmse,
        "oracle_rmse": oracle,
        "rmse_ratio": rmse / oracle if oracle > 0 else float("nan"),
        "tpr": metrics["tpr"],
        "fpr": metrics["fpr"],
        "f1": metrics["f1"],
        "n_selected": int(len(model.selected_)),
        "coverage": float(np.mean((data.y_test >= lo) & (data.y_test <= hi))),
        "interval_width": float(np.mean(hi - lo)),
        "log_evidence": float(model.log_evidences_[model.best_restart_]),
        "min_selected_norm_sq": float(norms[chosen].min()) if chosen.any() else float("nan"),
        "max_excluded_norm_sq": float(norms[~chosen].max()) if (~chosen).any() else float("nan"),
        "selected_regions": str([(round(a, 4), round(b, 4)) for a, b in model.selected_regions_]),
        "wall_time": time.perf_counter() - start,
    }


def _design(design: str, params: FitParams, seed: int) -> SimulationOutput:
    from toolkit_sbayfdnn.designs import simulate

    link = getattr(params, "link", "linear")
    snr = getattr(params, "snr", 5.0)
    data = simulate(design, link, snr, params.n_train, params.n_test, params.m, seed)
    record = {"design": design, **fit_and_score(data, params, seed)}
    return SimulationOutput(records=[record])


def two_region(params: DesignParams, seed: int) -> SimulationOutput:
    """Two-region design (beta non-zero on [0.1,0.3] and [0.6,0.8]): fit, then test RMSE / oracle,
    region TPR/FPR/F1 on the grid, selected basis functions, interval coverage, wall time."""
    return _design("two_region", params, seed)


def one_region(params: DesignParams, seed: int) -> SimulationOutput:
    """One-region design (beta non-zero on [0.1, 0.3] only); same measurements as two_region."""
    return _design("one_region", params, seed)


def null(params: NullParams, seed: int) -> SimulationOutput:
    """Null design (beta = 0, y pure noise): how many basis functions does the prior let through?"""
    return _design("null", params, seed)


def compare(params: CompareParams, seed: int) -> SimulationOutput:
    """All methods on one two-region split: sbayfdnn, FLM (ridge/OLS), group-lasso FLM, FPCA,
    dense network, AdaFNN-style, and the select-everything region baseline; one row per method."""
    from toolkit_sbayfdnn.baselines import compare_methods
    from toolkit_sbayfdnn.designs import simulate

    set_threads(params.n_threads)
    data = simulate("two_region", params.link, params.snr, params.n_train, params.n_test, params.m, seed)
    records = compare_methods(
        data,
        sbay_kwargs=_model_settings(params),
        epochs=params.baseline_epochs,
        n_basis=params.n_basis,
        degree=params.degree,
        device=resolve_device(params.device),
        seed=seed,
        interval_level=params.interval_level,
    )
    base = {"oracle_rmse": data.oracle_rmse}
    return SimulationOutput(records=[{**base, **r} for r in records])


def offset(params: OffsetParams, seed: int) -> SimulationOutput:
    """Offset design: the sparse model's measurements plus the FLM's test RMSE and the
    ratio (the requirement: at most 1.05), whether the linear guard overrode the empty model."""
    from toolkit_sbayfdnn.baselines import FunctionalLinearModel
    from toolkit_sbayfdnn.designs import simulate_offset

    data = simulate_offset(
        params.link,
        params.snr,
        params.n_train,
        params.n_test,
        params.m,
        params.offset_sd,
        params.baseline_sd,
        params.smoothness,
        seed,
    )
    record = {"design": "offset", **fit_and_score(data, params, seed)}
    flm = FunctionalLinearModel(params.n_basis, params.degree).fit(data.X, data.y, data.grid)
    record["flm_rmse"] = float(np.sqrt(np.mean((flm.predict(data.X_test) - data.y_test) ** 2)))
    record["rmse_vs_flm"] = record["rmse"] / record["flm_rmse"]
    return SimulationOutput(records=[record])


def ecg(params: EcgParams, seed: int) -> SimulationOutput:
    """Semi-synthetic ECG: neurokit2 beats on a common grid, response from the QRS window (the true
    region); same measurements as two_region (oracle = noise-free response)."""
    from toolkit_sbayfdnn.designs import ecg_beats

    data = ecg_beats(
        n_train=params.n_train,
        n_test=params.n_test,
        m=params.m,
        qrs_halfwidth_s=params.qrs_halfwidth_s,
        snr=params.snr,
        seed=seed,
    )
    return SimulationOutput(records=[{"design": "ecg", **fit_and_score(data, params, seed)}])


def _plot_design(table, fig) -> None:
    ax1, ax2 = fig.subplots(1, 2)
    by = "link" if "link" in table.columns else "design"
    summary = table.groupby(by)[["rmse_ratio", "f1", "tpr", "fpr"]].mean()
    summary[["rmse_ratio"]].plot.bar(ax=ax1, legend=False)
    ax1.axhline(1.0, color="k", lw=0.8)
    ax1.set_ylabel("test RMSE / oracle")
    summary[["tpr", "fpr", "f1"]].plot.bar(ax=ax2)
    ax2.set_ylabel("region metric (grid)")
    fig.tight_layout()


def _plot_compare(table, fig) -> None:
    ax = fig.subplots()
    table.groupby("method")["rmse_ratio"].mean().sort_values().plot.barh(ax=ax)
    ax.axvline(1.0, color="k", lw=0.8)
    ax.set_xlabel("test RMSE / oracle")
    fig.tight_layout()


def fit_memory(params: FitParams) -> float:
    """About the most bytes of one fit (errs high): the curves and their basis scores (float64, a few copies), the
    network's Jacobian over the training curves and the Laplace Hessian over all its P weights with its inverse."""
    n = params.n_train + params.n_test
    weights = (
        params.n_basis * params.first_layer_width
        + params.first_layer_width * params.hidden_width
        + params.hidden_width
        + params.first_layer_width
        + 1
    )
    curves = 8.0 * n * (params.m + params.n_basis) * 6
    laplace = 8.0 * (3 * weights**2 + 2 * params.n_train * weights)
    return curves + laplace  # restarts run one after the other


FIT_COST = PointCost(fit_memory, ("first_layer_width", "hidden_width", "n_basis", "n_train", "n_test", "m"))

SIMULATIONS = [
    Simulation(
        name="sbayfdnn.two_region",
        func=two_region,
        params=DesignParams,
        description="sparse Bayesian functional network on the two-region design (link, SNR, n)",
        bounds=("sbayfdnn.pip_threshold", "sbayfdnn.pip_threshold_excluded"),
        quick=QUICK,
        plot=_plot_design,
        cost=FIT_COST,
    ),
    Simulation(
        name="sbayfdnn.one_region",
        func=one_region,
        params=DesignParams,
        description="sparse Bayesian functional network on the one-region design",
        bounds=("sbayfdnn.pip_threshold", "sbayfdnn.pip_threshold_excluded"),
        quick=QUICK,
        plot=_plot_design,
        cost=FIT_COST,
    ),
    Simulation(
        name="sbayfdnn.null",
        func=null,
        params=NullParams,
        description="null design (beta = 0): number of basis functions selected from noise",
        bounds=("sbayfdnn.pip_threshold", "sbayfdnn.pip_threshold_excluded"),
        quick=QUICK,
        plot=_plot_design,
        cost=FIT_COST,
    ),
    Simulation(
        name="sbayfdnn.compare",
        func=compare,
        params=CompareParams,
        description="sbayfdnn vs FLM, group lasso, FPCA, dense net, AdaFNN on one two-region split",
        quick={**QUICK, "n_test": 30, "baseline_epochs": 50},
        plot=_plot_compare,
        cost=FIT_COST,
    ),
    Simulation(
        name="sbayfdnn.offset",
        func=offset,
        params=OffsetParams,
        description="hard design: large common offset, random baselines, collinear curves; vs the FLM",
        bounds=("sbayfdnn.pip_threshold", "sbayfdnn.pip_threshold_excluded"),
        quick=QUICK,
        plot=_plot_design,
        cost=FIT_COST,
    ),
    Simulation(
        name="sbayfdnn.ecg",
        func=ecg,
        params=EcgParams,
        description="semi-synthetic ECG (neurokit2 beats; the QRS window is the true region)",
        bounds=("sbayfdnn.pip_threshold", "sbayfdnn.pip_threshold_excluded"),
        quick={**QUICK, "n_train": 60, "n_test": 40},
        plot=_plot_design,
        cost=FIT_COST,
    ),
]
