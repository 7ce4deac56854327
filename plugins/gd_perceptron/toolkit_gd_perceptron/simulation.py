"""Registered simulations of gd_perceptron: parameter models and run functions returning tidy rows.

* ``gd_perceptron.scaling``: iterations to zero training error over d x gamma x seeds, all runs of one
  d advanced together (batched); fitted log-log slope and the speed-up over the linear Batch Perceptron.
* ``gd_perceptron.reduction``: fidelity of GD with step gamma to its perceptron limit over t.
* ``gd_perceptron.dynamics``: loss / loss-over-gamma / perceptron-loss oscillations, normalised
  margin, alignment with the cvxpy max-margin solution, activation-pattern changes.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from toolkit import Simulation, SimulationOutput
from toolkit.config import Field, Params
from toolkit.errors import ParameterError

from toolkit_gd_perceptron import data, engine, measures, models

R1_D_VALUES = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
ModelKind = Literal["linear", "two_layer"]
ActivationName = Literal["linear", "relu", "leaky_relu", "quadratic"]
Algorithm = Literal["gd", "normalized_gd", "batch_perceptron", "normalized_batch_perceptron", "perceptron"]


class DataParams(Params):
    """Dataset selection shared by the simulations."""

    dataset: str = Field("r1", description="r1 | thm41 | thm51 | planted | a dataset registered by any plugin "
                                           "(its loader returns (B, y); arguments from dataset_params)")
    n: int = Field(1000, ge=2, description="samples of thm51 / planted")
    margin: float = Field(0.5, ge=0, description="planted margin of the 'planted' dataset")
    data_seed: int = Field(0, ge=0, description="seed of the 'planted' dataset")
    dataset_params: dict[str, Any] = Field(default_factory=dict, description="keyword arguments of a registered dataset")


class ModelParams(Params):
    model: ModelKind = Field("linear", description="linear g = b^T v, or two-layer sum_j a_j phi(w_j^T b)")
    activation: ActivationName = Field("quadratic", description="phi of the two-layer model")
    width: int = Field(20, ge=1, description="hidden units m of the two-layer model")
    train_outer: bool = Field(False, description="train the outer layer too (else fixed balanced +-1/sqrt(m))")
    init_scale: float = Field(1.0, gt=0, description="inner weights start N(0, init_scale^2/d)")


def build_model(p: ModelParams) -> models.Model:
    if p.model == "linear":
        return models.linear()
    return models.two_layer(p.activation, p.width, train_outer=p.train_outer, init_scale=p.init_scale)


def load_dataset(p: DataParams, d: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(B, y) of the dataset named in ``p`` (``d`` for the datasets that have a dimension)."""
    name = p.dataset
    if name == "r1":
        return data.r1(d if d is not None else 16)
    if name == "thm41":
        return data.thm41()
    if name == "thm51":
        return data.thm51(p.n)
    if name == "planted":
        return data.planted(p.n, d if d is not None else 20, p.margin, p.data_seed)
    import toolkit

    registry = toolkit.get_registry()
    if name not in registry.datasets:
        raise ParameterError(f"parameter 'dataset': must be r1, thm41, thm51, planted or a registered dataset "
                             f"({', '.join(sorted(registry.datasets)) or 'none registered'}), got {name!r}")
    kwargs = dict(p.dataset_params)
    if d is not None and "d" not in kwargs:
        kwargs["d"] = d
    loaded = registry.datasets[name].load(**kwargs)
    try:
        B, y = loaded
    except (TypeError, ValueError):
        raise ParameterError(f"dataset {name!r} must load as a pair (features (n, d), labels +-1)") from None
    return data.as_dataset(B, y)


def geometry(B, y, dataset: str) -> tuple[float, float]:
    """(R^2, mu^2): closed form on R1, otherwise the cvxpy hard-margin SVM."""
    if dataset == "r1":
        d = B.shape[1]
        return data.r1_radius_squared(d), data.r1_margin_squared(d)
    _, mu = measures.max_margin_svm(B, y)
    return measures.radius_squared(B), mu * mu


def algorithm_options(algorithm: str, gamma: float) -> dict[str, Any]:
    """run_batch keyword arguments of an algorithm; gamma = inf turns GD into its perceptron limit."""
    if algorithm in ("gd", "normalized_gd"):
        return {"mode": "perceptron" if math.isinf(gamma) else "gd", "normalized": algorithm == "normalized_gd",
                "tie_weight": 0.5}
    if algorithm in ("batch_perceptron", "normalized_batch_perceptron"):
        return {"mode": "perceptron", "normalized": algorithm == "normalized_batch_perceptron", "tie_weight": 1.0}
    raise ParameterError(f"parameter 'algorithm': {algorithm!r} has no batched form")


def _perceptron_step(gamma: float) -> float:
    # the perceptron form of a degree > 1 model uses gamma as its step on the unit sphere (gamma = inf -> 1)
    return 1.0 if math.isinf(gamma) else gamma


STACK_LIMIT = 4_000_000


def run_sweep(datasets, model: models.Model, algorithm: str, gammas, seeds, *, loss: str = "logistic",
              max_iter: int = 100_000, backend: str = "numpy", device: str = "cpu") -> list[dict[str, Any]]:
    """Iterations to separation for every (dataset, gamma, seed), one row each (``dataset_index``).

    numpy: all runs of one mode (GD or perceptron form) on all datasets advance together as one
    array computation (datasets of different d are zero-padded, which changes no inner product);
    one batch per dataset instead when the datasets differ in n or when padding the random initial
    weights of a two-layer model would exceed ``STACK_LIMIT`` entries. torch: one batch per dataset.
    Each dataset's initial weights come from ``init_weights(model, d_k, seeds)``, so a run does not
    depend on what it was batched with.
    """
    if algorithm == "perceptron":
        if model.kind != "linear":
            raise ParameterError("parameter 'algorithm': the classical perceptron is defined for the linear model only")
        rows = []
        for k, (B, y) in enumerate(datasets):
            it, _ = engine.classical_perceptron(B, y, max_updates=max_iter)
            rows += [{"dataset_index": k, "gamma": math.inf, "run_seed": s, "iterations": it} for s in seeds]
        return rows
    same_n = len({B.shape[0] for B, _ in datasets}) == 1
    d_max = max(B.shape[1] for B, _ in datasets)
    width = 1 if model.kind == "linear" else model.width
    # padding dense initial weights to the largest d costs more than it saves beyond a few million entries
    small = model.kind == "linear" or len(datasets) * len(seeds) * width * d_max <= STACK_LIMIT
    stack = backend == "numpy" and same_n and small
    groups = [list(range(len(datasets)))] if stack else [[k] for k in range(len(datasets))]
    by_mode: dict[str, list[float]] = {}
    for g in gammas:
        by_mode.setdefault(algorithm_options(algorithm, g)["mode"], []).append(g)
    rows = []
    for group in groups:
        if len(group) == 1:
            B, y = datasets[group[0]]
            d_max = B.shape[1]
            inits = [models.init_weights(model, d_max, seeds)]
            W0, a0 = inits[0]
        else:
            B_stack, y_stack, _ = engine.stack_datasets([datasets[k] for k in group])
            d_max = B_stack.shape[2]
            inits = [models.init_weights(model, datasets[k][0].shape[1], seeds) for k in group]
            W0 = np.concatenate([engine.pad_weights(w, d_max) for w, _ in inits])  # (K*S, m, d_max)
            a0 = np.concatenate([a for _, a in inits])
        labels = [(k, s) for k in group for s in seeds]
        for mode, gs in by_mode.items():
            opts = algorithm_options(algorithm, gs[0])
            step = np.repeat([(_perceptron_step(g) if mode == "perceptron" else g) for g in gs], len(labels))
            W, A = np.tile(W0, (len(gs), 1, 1)), np.tile(a0, (len(gs), 1))
            if len(group) > 1:
                run_index = np.tile(np.repeat(np.arange(len(group)), len(seeds)), len(gs))
                B, y = B_stack[run_index], y_stack[run_index]
            if backend == "torch":
                from toolkit_gd_perceptron.engine_torch import run_batch_torch

                iterations = run_batch_torch(B, y, model, step, W, A, loss=loss, max_iter=max_iter, device=device, **opts)
            else:
                iterations = engine.run_batch(B, y, model, step, W, A, loss=loss, max_iter=max_iter,
                                              keep_weights=False, **opts).iterations
            for r, it in enumerate(iterations):
                k, s = labels[r % len(labels)]
                rows.append({"dataset_index": k, "gamma": float(gs[r // len(labels)]), "run_seed": int(s),
                             "iterations": int(it)})
    return rows


# -- gd_perceptron.scaling -----------------------------------------------------------------------------

class ScalingParams(DataParams, ModelParams):
    """Iterations to zero training error over d x gamma x seeds."""

    algorithm: Algorithm = Field("gd", description="gd | normalized_gd (Normalized LR+GD) | batch_perceptron | "
                                                   "normalized_batch_perceptron | perceptron (classical)")
    loss: Literal["logistic", "exponential"] = Field("logistic", description="loss of GD")
    d_values: list[int] = Field(default_factory=lambda: list(R1_D_VALUES), min_length=1,
                                description="feature dimensions d")
    gammas: list[float] = Field(default_factory=lambda: [1e2, 1e3, 1e4], min_length=1,
                                description="step sizes; inf = the perceptron limit (perceptron form)")
    n_seeds: int = Field(1, ge=1, description="initialisations per (d, gamma); run seeds are seed, seed+1, ...")
    max_iter: int = Field(100_000, ge=1, description="iteration cap; a run reaching it has iterations = -1")
    backend: Literal["numpy", "torch"] = Field("numpy", description="array library of the batched runs "
                                               "(torch: on TOOLKIT_DEVICE, CUDA when available; same counts)")


def scaling(params: ScalingParams, seed: int) -> SimulationOutput:
    """Iterations to zero training error over d x gamma x seeds; runs advance together as one array
    computation (every d, gamma and seed at once, or per d for wide two-layer models: see :func:`run_sweep`). Rows: one per (d, gamma, run_seed) with
    ``iterations`` (-1 at the cap, -2 diverged), ``n``,
    ``R2``, ``mu2`` (for the Novikoff checks) and ``speedup`` = linear Batch Perceptron iterations /
    iterations. Summary, per gamma: log-log slope of median iterations vs d, median and IQR of the
    iterations at the largest d, the fraction of runs at the cap, and the speed-up at the largest d."""
    if any(d < 2 for d in params.d_values):
        raise ParameterError(f"parameter 'd_values': every d must be >= 2, got {params.d_values}")
    if any(not g > 0 for g in params.gammas):
        raise ParameterError(f"parameter 'gammas': step sizes must be > 0 (inf allowed), got {params.gammas}")
    model = build_model(params)
    seeds = [seed + k for k in range(params.n_seeds)]
    device = "cpu"
    if params.backend == "torch":
        from toolkit.backend import resolve_device
        from toolkit_gd_perceptron.engine_torch import import_torch

        import_torch()  # before any work: names the missing optional extra
        device = resolve_device(None)
    datasets = [load_dataset(params, d) for d in sorted(set(params.d_values))]
    geometries = [geometry(B, y, params.dataset) for B, y in datasets]
    # the linear Batch Perceptron on the same data: the reference of the speed-up
    bp = {r["dataset_index"]: r["iterations"] for r in
          run_sweep(datasets, models.linear(), "batch_perceptron", [math.inf], [0], max_iter=params.max_iter)}
    rows = []
    for row in run_sweep(datasets, model, params.algorithm, params.gammas, seeds, loss=params.loss,
                         max_iter=params.max_iter, backend=params.backend, device=device):
        k = row.pop("dataset_index")
        B, _ = datasets[k]
        it = row["iterations"]
        rows.append({"d": B.shape[1], **row, "capped": it == -1, "diverged": it == -2, "n": B.shape[0],
                     "R2": geometries[k][0], "mu2": geometries[k][1], "linear_bp_iterations": bp[k],
                     "speedup": (bp[k] / it) if (it > 0 and bp[k] > 0) else math.nan})
    rows.sort(key=lambda r: (r["d"], r["gamma"], r["run_seed"]))
    summary: dict[str, Any] = {"runs": len(rows), "capped": int(sum(r["capped"] for r in rows))}
    ds = sorted({r["d"] for r in rows})
    for g in params.gammas:
        sel = [r for r in rows if r["gamma"] == g or (math.isinf(g) and math.isinf(r["gamma"]))]
        meds = [np.median([r["iterations"] for r in sel if r["d"] == d]) for d in ds]
        key = "inf" if math.isinf(g) else f"{g:g}"
        if len(ds) >= 2 and all(m > 0 for m in meds):
            summary[f"slope_gamma_{key}"] = measures.loglog_slope(ds, meds)
        top = [r for r in sel if r["d"] == ds[-1]]
        its_top = [r["iterations"] for r in top]
        med_top = float(np.median(its_top))
        q1, q3 = np.quantile(its_top, [0.25, 0.75])
        summary[f"median_iterations_dmax_gamma_{key}"] = med_top
        summary[f"iqr_iterations_dmax_gamma_{key}"] = float(q3 - q1)
        summary[f"cap_fraction_gamma_{key}"] = float(np.mean([r["capped"] for r in sel]))
        summary[f"speedup_dmax_gamma_{key}"] = top[0]["linear_bp_iterations"] / med_top if med_top > 0 else math.nan
    return SimulationOutput(records=rows, summary=summary)


def plot_scaling(table, fig) -> None:
    ax = fig.add_subplot(1, 1, 1)
    t = table[table["iterations"] > 0]
    for g, grp in t.groupby("gamma"):
        med = grp.groupby("d")["iterations"].median()
        ax.loglog(med.index, med.values, "o-", label=f"gamma={g:g}")
    bp = table.groupby("d")["linear_bp_iterations"].first()
    ax.loglog(bp.index, bp.values, "k--", label="linear Batch Perceptron")
    ax.set_xlabel("d")
    ax.set_ylabel("iterations to separation (median)")
    ax.legend()


# -- gd_perceptron.reduction ---------------------------------------------------------------------------

class ReductionParams(DataParams, ModelParams):
    """Fidelity of GD with step gamma to its gamma -> infinity perceptron limit."""

    dataset: str = Field("thm51", description="r1 | thm41 | thm51 | planted | a registered dataset")
    activation: ActivationName = Field("relu", description="phi of the two-layer model (degree 1: linear, relu, leaky_relu)")
    d: int = Field(20, ge=2, description="dimension of the datasets that have one (r1, planted)")
    gammas: list[float] = Field(default_factory=lambda: [1e1, 1e2, 1e3, 1e4], min_length=1,
                                description="finite step sizes compared with the limit")
    T: int = Field(60, ge=1, description="steps compared")


def reduction(params: ReductionParams, seed: int) -> SimulationOutput:
    """GD with step gamma (u_t = W_t/gamma) against its perceptron limit theta_hat_t for t <= T. Rows, per
    (gamma, t): ``rel_error`` ||u_t - theta_hat_t|| / ||theta_hat_t||, ``mistakes_differ``, ``loss_over_gamma``
    f/gamma, ``perceptron_loss_limit`` (at theta_hat_t), ``loss_gap`` = |f/gamma - perceptron loss at u_t|
    (<= log 2/gamma always) and ``loss_gap_limit`` (against theta_hat_t). Degree-1 models only (the exact
    reduction); the limit starts with lambda = sigma(-y g(b; W_0))."""
    model = build_model(params)
    if model.degree != 1.0 and params.model != "linear":
        raise ParameterError(f"parameter 'activation': the exact reduction needs a degree-1 model "
                             f"(linear, relu, leaky_relu), got {params.activation!r}")
    if any(not (g > 0 and math.isfinite(g)) for g in params.gammas):
        raise ParameterError(f"parameter 'gammas': must be finite and > 0, got {params.gammas}")
    B, y = load_dataset(params, params.d)
    gs = sorted(params.gammas)
    W0, a0 = models.init_weights(model, B.shape[1], [seed])
    limit = engine.run_batch(B, y, model, [1.0], W0, a0, mode="perceptron", first_step="limit",
                             max_iter=params.T, record=True, record_states=True)
    gd = engine.run_batch(B, y, model, gs, np.repeat(W0, len(gs), 0), np.repeat(a0, len(gs), 0),
                          max_iter=params.T, record=True, record_states=True)
    ref = limit.trajectory["states"][:, 0]
    ref_m = limit.trajectory["margins"][:, 0]
    ref_norm = np.linalg.norm(ref.reshape(ref.shape[0], -1), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        min_norm_margin = float(np.min(np.abs(ref_m[1:]).min(axis=1) / ref_norm[1:] ** 1.0))
    rows = []
    summary: dict[str, Any] = {"min_normalized_abs_margin_limit": min_norm_margin,
                               "limit_iterations": int(limit.iterations[0])}
    max_errors = []
    for r, g in enumerate(gs):
        st = gd.trajectory["states"][:, r]
        m = gd.trajectory["margins"][:, r]
        err = measures.relative_error(st[1:], ref[1:])
        f_over_g = measures.logistic_loss_over_gamma(m, g)
        pl_u = measures.perceptron_loss(m)
        pl_limit = measures.perceptron_loss(ref_m)
        differ = np.any((m <= 0) != (ref_m <= 0), axis=1)
        for t in range(1, params.T + 1):
            rows.append({"gamma": g, "t": t, "rel_error": float(err[t - 1]), "mistakes_differ": bool(differ[t]),
                         "n_mistakes": int(np.sum(m[t] <= 0)), "loss_over_gamma": float(f_over_g[t]),
                         "perceptron_loss_limit": float(pl_limit[t]),
                         "loss_gap": float(abs(f_over_g[t] - pl_u[t])),
                         "loss_gap_limit": float(abs(f_over_g[t] - pl_limit[t])),
                         "n": B.shape[0], "d_features": B.shape[1]})
        key = f"{g:g}"
        max_errors.append(float(err.max()))
        summary[f"max_rel_error_gamma_{key}"] = max_errors[-1]
        first = np.flatnonzero(differ[1:])
        summary[f"first_mistake_difference_gamma_{key}"] = int(first[0] + 1) if first.size else -1
    # decreasing in gamma, up to the double-precision floor
    summary["error_decreasing_in_gamma"] = bool(all(b <= a or b < 1e-14 for a, b in zip(max_errors, max_errors[1:])))
    return SimulationOutput(records=rows, summary=summary)


def plot_reduction(table, fig) -> None:
    ax = fig.add_subplot(1, 1, 1)
    for g, grp in table.groupby("gamma"):
        ax.semilogy(grp["t"], np.maximum(grp["rel_error"], 1e-17), label=f"gamma={g:g}")
    ax.set_xlabel("t")
    ax.set_ylabel("||u_t - theta_hat_t|| / ||theta_hat_t||")
    ax.legend()


# -- gd_perceptron.dynamics ----------------------------------------------------------------------------

class DynamicsParams(DataParams, ModelParams):
    """Loss, margin and alignment trajectories of one run."""

    d: int = Field(16, ge=2, description="dimension of the datasets that have one (r1, planted)")
    algorithm: Literal["gd", "normalized_gd"] = Field("gd", description="GD or Normalized LR+GD")
    gamma: float = Field(1e4, gt=0, description="step size (inf = the perceptron limit)")
    T: int = Field(200, ge=1, description="steps recorded")


def dynamics(params: DynamicsParams, seed: int) -> SimulationOutput:
    """One run for T steps. Rows per t: ``loss_over_gamma`` (f/gamma for degree-1 models, f for other
    models, the perceptron loss itself for gamma = inf),
    ``perceptron_loss``, ``n_mistakes``, ``normalized_margin`` min_i y_i g_i / ||theta||^L,
    ``alignment`` 1 - cos(v_t, v_SVM) with the cvxpy hard-margin SVM (linear model) and
    ``activation_changes`` (gate flips w_j^T b_i > 0 since the previous step). Summary: non-monotone loss
    steps, the period of the mistake-set sequence before separation (0: none found), final alignment and
    normalised margin."""
    model = build_model(params)
    B, y = load_dataset(params, params.d)
    W0, a0 = models.init_weights(model, B.shape[1], [seed])
    opts = algorithm_options(params.algorithm, params.gamma)
    step = _perceptron_step(params.gamma) if opts["mode"] == "perceptron" else params.gamma
    res = engine.run_batch(B, y, model, [step], W0, a0, max_iter=params.T, record=True,
                           record_states=True, **opts)
    tr = res.trajectory
    m = tr["margins"][:, 0]
    states = tr["states"][:, 0]
    outer = tr["outer"][:, 0]
    degree = res.degree if res.degree is not None else 1.0
    if res.degree == 1.0 and opts["mode"] == "gd":
        loss = measures.logistic_loss_over_gamma(m, params.gamma)
    elif opts["mode"] == "gd" and res.degree is not None:
        true = m * np.exp(np.minimum(degree * tr["log_scale"][:, 0], engine.EXP_CLIP))[:, None]
        loss = np.mean(np.logaddexp(0.0, -true), axis=1)
    else:
        loss = measures.perceptron_loss(m)
    svm = None
    if params.model == "linear":
        try:
            svm, mu = measures.max_margin_svm(B, y)
        except ValueError:
            svm, mu = None, math.nan
    mistakes = m <= 0
    active = tr["active"][:, 0]
    rows = []
    for t in range(params.T + 1):
        # ||theta|| over all trained parameters (the outer layer too when it is trained)
        norm = float(np.sqrt(np.sum(states[t] ** 2) + (np.sum(outer[t] ** 2) if params.train_outer else 0.0)))
        rows.append({
            "t": t, "loss_over_gamma": float(loss[t]), "perceptron_loss": float(measures.perceptron_loss(m[t])),
            "n_mistakes": int(mistakes[t].sum()),
            "normalized_margin": measures.normalized_margin(m[t], norm, degree) if norm > 0 else math.nan,
            "alignment": measures.cosine_gap(states[t], svm) if svm is not None else math.nan,
            "activation_changes": int(np.sum(active[t] != active[t - 1])) if (t > 0 and params.model != "linear") else 0,
        })
    summary = {
        "iterations": int(res.iterations[0]),
        "non_monotone_steps": measures.non_monotone_steps(loss),
        # period of the mistake sets S_1, S_2, ... before separation (after it S_t is empty)
        "mistake_period": measures.sequence_period(mistakes[1:(res.iterations[0] if res.iterations[0] > 0 else params.T + 1)]),
        "final_alignment": rows[-1]["alignment"],
        "final_normalized_margin": rows[-1]["normalized_margin"],
        "svm_margin": mu if params.model == "linear" else math.nan,
    }
    return SimulationOutput(records=rows, summary=summary)


def plot_dynamics(table, fig) -> None:
    ax1, ax2 = fig.subplots(2, 1, sharex=True)
    ax1.plot(table["t"], table["loss_over_gamma"], label="f/gamma")
    ax1.plot(table["t"], table["perceptron_loss"], "--", label="perceptron loss")
    ax1.set_yscale("log")
    ax1.legend()
    ax2.plot(table["t"], table["n_mistakes"], label="mistakes")
    ax2.set_xlabel("t")
    ax2.legend()


SIMULATIONS = [
    Simulation(
        name="gd_perceptron.scaling", func=scaling, params=ScalingParams,
        description="iterations to separation over model x dataset x d x gamma x seed (batched), slope and speed-up",
        bounds=("gd_perceptron.novikoff_batch", "gd_perceptron.novikoff_normalized", "gd_perceptron.normalized_lr_gd",
                "gd_perceptron.r1_exact_upper", "gd_perceptron.r1_exact_lower"),
        quick={"d_values": [16, 32, 64], "gammas": [100.0, 1000.0]},
        plot=plot_scaling,
    ),
    Simulation(
        name="gd_perceptron.reduction", func=reduction, params=ReductionParams,
        description="GD with step gamma vs its perceptron limit: relative error, mistake sets, f/gamma vs perceptron loss",
        bounds=("gd_perceptron.reduction_loss_gap",),
        quick={"n": 100, "T": 20},
        plot=plot_reduction,
    ),
    Simulation(
        name="gd_perceptron.dynamics", func=dynamics, params=DynamicsParams,
        description="loss and mistake-set oscillations, normalised margin, max-margin alignment, activation changes",
        quick={"T": 30},
        plot=plot_dynamics,
    ),
]
