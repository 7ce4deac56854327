"""Registered simulations of gd_perceptron: parameter models and run functions returning tidy rows.

* ``gd_perceptron.scaling``: iterations to zero training error over d x gamma x seeds, all runs of one
  d advanced together (batched); fitted log-log slope and the speed-up over the linear Batch Perceptron.
* ``gd_perceptron.limits``: GD at finite gamma against its two perceptron limits (vanishing initialisation;
  the perceptron from W_0 with step eta) over rho = step/||W_0||.
* ``gd_perceptron.reduction``: fidelity of GD with step gamma to its perceptron limit over t.
* ``gd_perceptron.dynamics``: loss / loss-over-gamma / perceptron-loss oscillations, normalised
  margin, alignment with the cvxpy max-margin solution, activation-pattern changes.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

import numpy as np

from toolkit import PointCost, Simulation, SimulationOutput, censoring
from toolkit.config import Field, HashContent, Params
from toolkit.errors import ParameterError
from toolkit_gd_perceptron import data, engine, measures, models

R1_D_VALUES = [16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
ModelKind = Literal["linear", "two_layer"]
ActivationName = Literal["linear", "relu", "leaky_relu", "quadratic"]
Algorithm = Literal["gd", "normalized_gd", "batch_perceptron", "normalized_batch_perceptron", "perceptron"]


class DataParams(Params):
    """Dataset selection shared by the simulations."""

    dataset: str = Field(
        "r1",
        description="r1 | staircase | thm41 | thm51 | planted | a dataset registered by any "
        "plugin (its loader returns (B, y); arguments from dataset_params)",
    )
    n: int = Field(1000, ge=2, description="samples of thm51 / planted")
    margin: float = Field(0.5, ge=0, description="planted margin of the 'planted' dataset")
    data_seed: int = Field(0, ge=0, description="seed of the 'planted' dataset")
    dataset_params: Annotated[dict[str, Any], HashContent()] = Field(
        default_factory=dict,
        description="keyword arguments of a registered dataset (a file one names keys the store by its content)",
    )


class ModelParams(Params):
    model: ModelKind = Field("linear", description="linear g = b^T v, or two-layer sum_j a_j phi(w_j^T b)")
    activation: ActivationName = Field("quadratic", description="phi of the two-layer model")
    width: int = Field(20, ge=1, description="hidden units m of the two-layer model")
    train_outer: bool = Field(
        False, description="train the outer layer too (else fixed balanced +-1/sqrt(m))"
    )
    init_scale: float = Field(1.0, gt=0, description="inner weights start N(0, init_scale^2/d)")
    relu_grad_at_zero: float = Field(
        0.0, description="ReLU'(0) of activation=relu: 0 (default: a unit on its hinge is inactive), 0.5 or 1"
    )


def build_model(p: ModelParams) -> models.Model:
    if p.relu_grad_at_zero not in models.RELU_GRAD_AT_ZERO:
        raise ParameterError(f"parameter 'relu_grad_at_zero': must be 0, 0.5 or 1, got {p.relu_grad_at_zero}")
    if p.relu_grad_at_zero != 0.0 and (p.model != "two_layer" or p.activation != "relu"):
        raise ParameterError(
            "parameter 'relu_grad_at_zero': applies to model=two_layer, activation=relu only"
        )
    if p.model == "linear":
        return models.linear()
    return models.two_layer(
        p.activation,
        p.width,
        train_outer=p.train_outer,
        init_scale=p.init_scale,
        relu_grad_at_zero=p.relu_grad_at_zero,
    )


def load_dataset(p: DataParams, d: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(B, y) of the dataset named in ``p`` (``d`` for the datasets that have a dimension)."""
    name = p.dataset
    if name == "r1":
        return data.r1(d if d is not None else 16)
    if name == "staircase":
        return data.staircase(d if d is not None else 16)
    if name == "thm41":
        return data.thm41()
    if name == "thm51":
        return data.thm51(p.n)
    if name == "planted":
        return data.planted(p.n, d if d is not None else 20, p.margin, p.data_seed)
    import toolkit

    registry = toolkit.get_registry()
    if name not in registry.datasets:
        raise ParameterError(
            f"parameter 'dataset': must be r1, staircase, thm41, thm51, planted or a registered dataset "
            f"({', '.join(sorted(registry.datasets)) or 'none registered'}), got {name!r}"
        )
    kwargs = dict(p.dataset_params)
    if d is not None and "d" not in kwargs and _loader_takes_d(registry.datasets[name]):
        kwargs["d"] = d
    loaded = registry.datasets[name].load(**kwargs)
    try:
        B, y = loaded
    except (TypeError, ValueError):
        raise ParameterError(f"dataset {name!r} must load as a pair (features (n, d), labels +-1)") from None
    return data.as_dataset(B, y)


DIMENSIONED = ("r1", "staircase", "planted")  # built-in datasets that take d


def _loader_takes_d(dataset) -> bool:
    """Whether a registered dataset's loader takes ``d`` (its parameter model, else its signature)."""
    if dataset.params is not None:
        return "d" in dataset.params.model_fields
    import inspect

    try:
        parameters = inspect.signature(dataset.loader).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(q.name == "d" or q.kind == q.VAR_KEYWORD for q in parameters)


def takes_d(p: DataParams) -> bool:
    """Whether the dataset named in ``p`` has a dimension ``d`` to sweep (else it is loaded once)."""
    if p.dataset in DIMENSIONED:
        return True
    if p.dataset in ("thm41", "thm51") or "d" in p.dataset_params:
        return False
    import toolkit

    registry = toolkit.get_registry()
    return p.dataset in registry.datasets and _loader_takes_d(registry.datasets[p.dataset])


NOT_SEPARABLE = (
    "the data are not linearly separable through the origin: no run can reach zero training error "
    "(GD runs stop at max_iter, perceptron-type runs cycle), and the Novikoff-type bounds, which need a "
    "positive margin, are skipped"
)


def geometry(B, y, dataset: str) -> tuple[float, float]:
    """(R^2, mu^2): closed form on R1 and the staircase, otherwise the cvxpy hard-margin SVM
    (mu^2 = nan when the data are not linearly separable through the origin)."""
    d = B.shape[1]
    if dataset == "r1":
        return data.r1_radius_squared(d), data.r1_margin_squared(d)
    if dataset == "staircase":
        return 2.0, data.staircase_margin_squared(d)
    try:
        _, mu = measures.max_margin_svm(B, y)
    except ValueError:
        return measures.radius_squared(B), math.nan
    return measures.radius_squared(B), mu * mu


def separable(B, y) -> bool:
    """Whether some v has y_i b_i^T v > 0 for every i (the cvxpy hard-margin SVM is feasible)."""
    try:
        measures.max_margin_svm(B, y)
    except ValueError:
        return False
    return True


BOUNDED = (
    "batch_perceptron",
    "normalized_batch_perceptron",
    "perceptron",
    "normalized_gd",
)  # Novikoff-type bounds


def iteration_bound(algorithm: str, n: int, R2: float, mu2: float, gamma: float) -> float:
    """The Novikoff-type upper bound on the linear model's iterations (nan where there is none)."""
    if algorithm == "batch_perceptron":
        return measures.novikoff_batch(n, R2, mu2)
    if algorithm in ("normalized_batch_perceptron", "perceptron"):
        return measures.novikoff_normalized(R2, mu2)
    if algorithm == "normalized_gd" and math.isfinite(gamma):
        return R2 / mu2 + 2 * math.log(2 * n - 1) / (gamma * mu2)
    return math.nan


def known_iterations(algorithm: str, model: str, dataset: str, d: int) -> int | None:
    """Exact linear Batch Perceptron counts known in closed form: R1 2d + 4 (d >= 4), staircase d^2."""
    if algorithm != "batch_perceptron" or model != "linear":
        return None
    if dataset == "r1" and d >= 4:
        return 2 * d + 4
    if dataset == "staircase":
        return d * d
    return None


def algorithm_options(algorithm: str, gamma: float) -> dict[str, Any]:
    """run_batch keyword arguments of an algorithm; gamma = inf turns GD into its perceptron limit."""
    if algorithm in ("gd", "normalized_gd"):
        return {
            "mode": "perceptron" if math.isinf(gamma) else "gd",
            "normalized": algorithm == "normalized_gd",
            "tie_weight": 0.5,
        }
    if algorithm in ("batch_perceptron", "normalized_batch_perceptron"):
        return {
            "mode": "perceptron",
            "normalized": algorithm == "normalized_batch_perceptron",
            "tie_weight": 1.0,
        }
    raise ParameterError(f"parameter 'algorithm': {algorithm!r} has no batched form")


LIMITS = ("vanishing_init", "from_init")


def _perceptron_step(gamma: float) -> float:
    # the perceptron form of a degree > 1 model uses gamma as its step on the unit sphere (gamma = inf -> 1)
    return 1.0 if math.isinf(gamma) else gamma


def _limit_options(model: models.Model, limit: str, eta: float, gamma: float) -> tuple[float, str]:
    """(step, start) of a perceptron-form run: what gamma = inf means under ``limit``."""
    if limit == "from_init":
        return eta, "init"
    return _perceptron_step(gamma), "vanishing"


STACK_LIMIT = 4_000_000
DEFAULT_MAX_ITER = 100_000


def _numba_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("numba") is not None


def _row(k, g, s, it, stalled_points, ratio) -> dict[str, Any]:
    return {
        "dataset_index": k,
        "gamma": float(g),
        "run_seed": int(s),
        "iterations": int(it),
        "status": engine.status_of(it),
        "stalled_points": [int(i) for i in np.flatnonzero(stalled_points)],
        "ratio": float(ratio),
    }


def _ratios(model: models.Model, W0: np.ndarray, step: float, mode: str, start: str) -> np.ndarray:
    """gamma/||W_0|| (GD) or eta/||W_0|| (perceptron from W_0) per run; inf from a vanishing start."""
    norms = np.sqrt(np.einsum("rmd,rmd->r", W0, W0))
    if model.kind == "linear" or (mode == "perceptron" and start == "vanishing" and model.degree == 1.0):
        return np.full(W0.shape[0], math.inf)
    with np.errstate(divide="ignore"):
        return step / norms


def run_sweep(
    datasets,
    model: models.Model,
    algorithm: str,
    gammas,
    seeds,
    *,
    loss: str = "logistic",
    max_iter: int = DEFAULT_MAX_ITER,
    backend: str = "numpy",
    device: str = "cpu",
    limit: str = "vanishing_init",
    eta: float = 1.0,
) -> list[dict[str, Any]]:
    """Iterations to separation for every (dataset, gamma, seed), one row each: ``dataset_index``,
    ``gamma``, ``run_seed``, ``iterations`` (-1 capped, -2 diverged, -3 stalled), ``status``,
    ``stalled_points`` (indices with margin <= 0 where a run stalled) and ``ratio`` (gamma/||W_0||
    for GD, eta/||W_0|| for the perceptron from W_0, inf from a vanishing initialisation).

    gamma = inf is the perceptron form; ``limit`` says which: ``'vanishing_init'`` (GD's gamma -> inf
    limit from a fixed W_0, which starts at 0+ in W_0's direction) or ``'from_init'`` (the generalized
    perceptron from W_0 itself with step ``eta``). Degree-1 models only differ between the two; for
    degree > 1 models the perceptron form steps on the unit sphere with step 1 (vanishing_init) or eta.

    The linear model starts at v_0 = 0 whatever the seed, so it runs once per (dataset, gamma) (once per
    dataset in perceptron form, which ignores gamma) and the row is repeated for every seed. Its
    perceptron-form runs go through the compiled one-run loop (:mod:`engine_numba`, O(nnz) per step)
    with ``backend='auto'`` when numba is installed, all its runs with ``backend='numba'``.
    numpy: all runs of one mode on all datasets advance together as one array computation (datasets of
    different d are zero-padded, which changes no inner product); one batch per dataset instead when
    the datasets differ in n or when padding the random initial weights of a two-layer model would
    exceed ``STACK_LIMIT`` entries. torch: one batch per dataset. Each dataset's initial weights come
    from ``init_weights(model, d_k, seeds)``, so a run does not depend on what it was batched with.
    """
    if limit not in LIMITS:
        raise ParameterError(f"parameter 'limit': must be one of {', '.join(LIMITS)}, got {limit!r}")
    if not (eta > 0 and math.isfinite(eta)):
        raise ParameterError(f"parameter 'eta': must be finite and > 0, got {eta}")
    if backend not in ("auto", "numpy", "torch", "numba"):
        raise ParameterError(f"parameter 'backend': must be auto, numpy, torch or numba, got {backend!r}")
    seeds = list(seeds)
    if algorithm == "perceptron":
        if model.kind != "linear":
            raise ParameterError(
                "parameter 'algorithm': the classical perceptron is defined for the linear model only"
            )
        rows = []
        for k, (B, y) in enumerate(datasets):
            it, _ = engine.classical_perceptron(B, y, max_updates=max_iter)
            rows += [_row(k, math.inf, s, it, [], math.inf) for s in seeds]
        return rows
    if model.kind == "linear":
        return _linear_sweep(
            datasets, algorithm, gammas, seeds, loss=loss, max_iter=max_iter, backend=backend, device=device
        )
    if backend == "numba":
        raise ParameterError(
            "parameter 'backend': numba runs the linear model only (two-layer runs batch: numpy or torch)"
        )
    return _batched_sweep(
        datasets,
        model,
        algorithm,
        gammas,
        seeds,
        loss=loss,
        max_iter=max_iter,
        backend="torch" if backend == "torch" else "numpy",
        device=device,
        limit=limit,
        eta=eta,
    )


def _linear_sweep(
    datasets, algorithm, gammas, seeds, *, loss, max_iter, backend, device
) -> list[dict[str, Any]]:
    """Linear runs: one per (dataset, gamma), one per dataset in perceptron form; repeated over seeds."""
    compiled = backend == "numba" or (backend == "auto" and _numba_available())
    if backend == "numba" and not _numba_available():
        raise ParameterError("parameter 'backend': numba is not installed (pip install numba)")
    rows = []
    distinct: dict[tuple[str, float], list[float]] = {}  # (mode, run key) -> the gammas it stands for
    for g in gammas:
        mode = algorithm_options(algorithm, g)["mode"]
        distinct.setdefault((mode, math.inf if mode == "perceptron" else float(g)), []).append(g)
    batched = [
        (mode, key)
        for mode, key in distinct
        if not (compiled and (mode == "perceptron" or backend == "numba"))
    ]
    results: dict[tuple[int, str, float], tuple[int, np.ndarray]] = {}
    if batched:
        inner = _batched_sweep(
            datasets,
            models.linear(),
            algorithm,
            [key for _, key in batched],
            seeds[:1],
            loss=loss,
            max_iter=max_iter,
            backend="torch" if backend == "torch" else "numpy",
            device=device,
        )
        for r in inner:
            mode = "perceptron" if math.isinf(r["gamma"]) else "gd"
            results[(r["dataset_index"], mode, r["gamma"])] = (r["iterations"], r["stalled_points"])
    for mode, key in distinct:
        if (mode, key) in batched:
            continue
        from toolkit_gd_perceptron.engine_numba import linear_run

        opts = algorithm_options(algorithm, key)
        for k, (B, y) in enumerate(datasets):
            it, stalled = linear_run(
                B, y, 1.0 if mode == "perceptron" else key, loss=loss, max_iter=max_iter, **opts
            )
            results[(k, mode, key)] = (it, list(np.flatnonzero(stalled)))
    for (mode, key), gs in distinct.items():
        for g in gs:
            for k in range(len(datasets)):
                it, stalled = results[(k, mode, key)]
                rows += [{**_row(k, g, s, it, [], math.inf), "stalled_points": list(stalled)} for s in seeds]
    return rows


def _batched_sweep(
    datasets,
    model,
    algorithm,
    gammas,
    seeds,
    *,
    loss,
    max_iter,
    backend,
    device,
    limit="vanishing_init",
    eta=1.0,
) -> list[dict[str, Any]]:
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
            if mode == "perceptron":
                pairs = [_limit_options(model, limit, eta, g) for g in gs]
                opts["start"] = pairs[0][1]
                step = np.repeat([st for st, _ in pairs], len(labels))
            else:
                step = np.repeat(gs, len(labels))
            W, A = np.tile(W0, (len(gs), 1, 1)), np.tile(a0, (len(gs), 1))
            if len(group) > 1:
                run_index = np.tile(np.repeat(np.arange(len(group)), len(seeds)), len(gs))
                B, y = B_stack[run_index], y_stack[run_index]
            stalled = np.zeros((len(step), B.shape[-2]), dtype=bool)
            if backend == "torch":
                from toolkit_gd_perceptron.engine_torch import run_batch_torch

                iterations = run_batch_torch(
                    B, y, model, step, W, A, loss=loss, max_iter=max_iter, device=device, **opts
                )
            else:
                res = engine.run_batch(
                    B, y, model, step, W, A, loss=loss, max_iter=max_iter, keep_weights=False, **opts
                )
                iterations, stalled = res.iterations, res.stalled_points
            ratio = _ratios(model, W, 1.0, mode, opts.get("start", "vanishing")) * step
            for r, it in enumerate(iterations):
                k, s = labels[r % len(labels)]
                rows.append(_row(k, gs[r // len(labels)], s, it, stalled[r], ratio[r]))
    return rows


# -- gd_perceptron.scaling -----------------------------------------------------------------------------


class ScalingParams(DataParams, ModelParams):
    """Iterations to zero training error over d x gamma x seeds."""

    algorithm: Algorithm = Field(
        "gd",
        description="gd | normalized_gd (Normalized LR+GD) | batch_perceptron | "
        "normalized_batch_perceptron | perceptron (classical)",
    )
    loss: Literal["logistic", "exponential"] = Field("logistic", description="loss of GD")
    d_values: list[int] = Field(
        default_factory=lambda: list(R1_D_VALUES), min_length=1, description="feature dimensions d"
    )
    gammas: list[float] = Field(
        default_factory=lambda: [1e2, 1e3, 1e4],
        min_length=1,
        description="step sizes; inf = the perceptron form: GD's gamma -> inf limit for the linear and "
        "degree-1 models, but NOT what GD does at large gamma for degree > 1 models (quadratic units): on r1 "
        "at d = 16 the form separated in 0-20 steps (20 seeds), while GD at gamma = 1e4 separated only "
        "where the initialisation already did (3 of 20) and otherwise reached the 100,000-step cap, its "
        "loss growing and its mistakes cycling (docs: gd_perceptron, 'GD at large gamma', with the commands)",
    )
    n_seeds: int = Field(
        1, ge=1, description="initialisations per (d, gamma); run seeds are seed, seed+1, ..."
    )
    max_iter: int | None = Field(
        None,
        ge=1,
        description="iteration cap; a run reaching it has status 'capped' "
        "(iterations = -1). None: the Novikoff-type bound + 1 where every dataset's is "
        "computable without a solver (linear perceptron-type runs on r1/staircase, or "
        "where the bound checks need mu anyway), else 100000",
    )
    backend: Literal["auto", "numpy", "torch", "numba"] = Field(
        "auto",
        description="auto: numpy batches, the linear perceptron-form runs compiled (numba, when installed); "
        "numpy | torch (on TOOLKIT_DEVICE, CUDA when available; same counts) | numba (every "
        "linear run compiled)",
    )
    limit: Literal["vanishing_init", "from_init"] = Field(
        "vanishing_init",
        description="what gamma = inf means for a two-layer model: GD's gamma -> inf limit from "
        "a vanishing initialisation (0+ in W_0's direction), or the generalized "
        "perceptron from W_0 with step eta (rows report ratio = eta/||W_0||)",
    )
    eta: float = Field(1.0, gt=0, description="step of the perceptron from W_0 (limit=from_init)")


def scaling(params: ScalingParams, seed: int) -> SimulationOutput:
    """Iterations to zero training error over d x gamma x seeds; runs advance together as one array
    computation (see :func:`run_sweep`). Rows: one per (d, gamma, run_seed) with ``iterations`` (NaN
    where the run did not separate), ``status`` (ok, capped, diverged or stalled), ``stalled_points``,
    ``ratio`` (gamma/||W_0||, inf from a vanishing initialisation), ``n_points`` (the dataset's size), ``R2``,
    ``mu2`` (for the Novikoff checks; nan when no measurement needs them, or when the data are not
    separable), ``bound`` (the run's Novikoff-type bound, nan where there is none), ``max_iter_used`` (the
    cap the runs had: ``max_iter``, or the one derived when it is None), ``linear_bp_iterations`` and
    ``linear_bp_status`` (the linear Batch Perceptron baseline) and ``speedup`` = baseline / iterations (NaN
    unless both separated). Summary, per gamma: the log-log slope of median iterations vs d (only when every
    run separated), the median and IQR at the largest d (NaN when a run there did not; then
    ``..._at_least``, the median with each capped run counted at the cap, and ``iterations_dmax_gamma_*``,
    one line saying how many runs were censored), the fraction of runs at the cap, ``censored_gamma_*``,
    and the speed-up at the largest d (``speedup_dmax_gamma_*_at_least`` when the baseline was capped,
    ``..._at_most`` when the runs were); ``capped``, ``stalled``, ``max_iter_used``, ``separable`` (linear model), a
    ``cap_note`` on every cap reached and a ``note`` on gamma or d values the run could not use.

    Warning: for a model of degree > 1 (activation=quadratic) the gamma = inf rows are the perceptron
    form on the unit sphere (a step of 1, or eta), not the large-gamma behaviour of GD. Measured on r1 at
    d = 16 (20 seeds, model=two_layer activation=quadratic d_values=[16] gammas=[10000,Infinity]
    n_seeds=20): the form separated in 0-20 steps; GD at gamma = 1e4 separated only in the 3 runs whose
    initialisation already did and reached the 100,000-step cap in the other 17 (and the 1,000,000-step
    cap in 5 of 5 runs with max_iter=1000000), its loss exploding and its mistakes cycling. Commands and
    the settings tried: the guide page "GD at large gamma". Compare both by putting a finite gamma and
    inf in ``gammas``."""
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
    dims = sorted(set(params.d_values)) if takes_d(params) else [None]
    datasets = [load_dataset(params, d) for d in dims]
    # the linear model's perceptron-type runs do not use gamma: one set of rows, labelled gamma = inf
    gamma_free = params.algorithm == "perceptron" or (
        params.model == "linear" and params.algorithm in ("batch_perceptron", "normalized_batch_perceptron")
    )
    gammas = [math.inf] if gamma_free else list(params.gammas)
    closed_form = params.dataset in ("r1", "staircase")
    checked = (
        params.model == "linear" and params.algorithm in BOUNDED
    )  # rows held against Novikoff-type bounds
    geometries = [
        geometry(B, y, params.dataset) if (closed_form or checked) else (math.nan, math.nan)
        for B, y in datasets
    ]

    def bound_of(algorithm, k, gamma):
        return iteration_bound(algorithm, datasets[k][0].shape[0], *geometries[k], gamma)

    def auto_cap(algorithm, gammas):
        bounds = [bound_of(algorithm, k, g) for k in range(len(datasets)) for g in gammas]
        if bounds and all(math.isfinite(b) for b in bounds):
            return int(math.floor(max(bounds))) + 1  # every run provably separates within its bound
        return DEFAULT_MAX_ITER

    main_linear = params.model == "linear"
    max_iter = params.max_iter or (auto_cap(params.algorithm, gammas) if main_linear else DEFAULT_MAX_ITER)
    main = run_sweep(
        datasets,
        model,
        params.algorithm,
        gammas,
        seeds,
        loss=params.loss,
        max_iter=max_iter,
        backend=params.backend,
        device=device,
        limit=params.limit,
        eta=params.eta,
    )
    # the linear Batch Perceptron on the same data: the reference of the speed-up (computed once)
    if main_linear and params.algorithm == "batch_perceptron":
        bp_rows = [r for r in main if r["run_seed"] == seeds[0]]
        bp_cap = max_iter
    else:
        bp_cap = params.max_iter or auto_cap("batch_perceptron", [math.inf])
        bp_rows = run_sweep(
            datasets,
            models.linear(),
            "batch_perceptron",
            [math.inf],
            [0],
            max_iter=bp_cap,
            backend="numpy" if params.backend == "torch" else params.backend,
        )
    bp = {r["dataset_index"]: r["iterations"] for r in bp_rows}
    rows, dataset_of = [], []
    for row in main:
        k = row.pop("dataset_index")
        dataset_of.append(k)
        B, _ = datasets[k]
        it = row["iterations"]
        row["iterations"] = float(it) if it >= 0 else math.nan  # censored runs are never a number
        row["status"] = censoring.OK if it >= 0 else engine.status_of(it)
        rows.append(
            {
                "d": B.shape[1],
                **row,
                "capped": it == engine.CAPPED,
                "diverged": it == engine.BLOWN,
                "stalled": it == engine.STALLED,
                "n_points": B.shape[0],
                "R2": geometries[k][0],
                "mu2": geometries[k][1],
                "bound": bound_of(params.algorithm, k, row["gamma"]) if main_linear else math.nan,
                "max_iter_used": max_iter,
                "linear_bp_iterations": float(bp[k]) if bp[k] >= 0 else math.nan,
                "linear_bp_status": censoring.OK if bp[k] >= 0 else engine.status_of(bp[k]),
                "speedup": (bp[k] / it) if (it > 0 and bp[k] > 0) else math.nan,
            }
        )
    unseparated = {k for k, r in zip(dataset_of, rows) if r["capped"] or r["stalled"]}
    dataset_of_d = {r["d"]: k for k, r in zip(dataset_of, rows)}
    rows.sort(key=lambda r: (r["d"], r["gamma"], r["run_seed"]))
    summary: dict[str, Any] = {
        "runs": len(rows),
        "capped": int(sum(r["capped"] for r in rows)),
        "stalled": int(sum(r["stalled"] for r in rows)),
        "max_iter_used": max_iter,
    }
    notes = []
    short = [r for r in rows if r["capped"] and r["bound"] > max_iter]
    if short:
        notes.append(
            f"{len(short)} run(s) reached max_iter = {max_iter} below their Novikoff-type bound "
            f"(up to {max(r['bound'] for r in short):.4g}): raise max_iter, or leave it None to derive it"
        )
    known = [
        (k, known_iterations("batch_perceptron", "linear", params.dataset, datasets[k][0].shape[1]))
        for k in range(len(datasets))
    ]
    under = [
        (datasets[k][0].shape[1], c)
        for k, c in known
        if c is not None and c > bp_cap and bp[k] == engine.CAPPED
    ]
    if under:
        notes.append(
            f"the linear Batch Perceptron baseline provably needs more than max_iter = {bp_cap} at "
            + ", ".join(f"d = {d} ({c})" for d, c in under)
        )
    bp_censored = sorted(datasets[k][0].shape[1] for k in bp if bp[k] < 0)
    if bp_censored:
        notes.append(
            f"the linear Batch Perceptron baseline did not separate within max_iter = {bp_cap} at d = "
            + ", ".join(map(str, bp_censored))
            + ": speed-ups there are lower bounds (speedup_*_at_least) where the baseline was capped"
        )
    if summary["capped"]:
        notes.append(
            f"{summary['capped']} of {len(rows)} run(s) reached max_iter = {max_iter}: their iterations are "
            "NaN (status capped), medians are over the runs that separated, with lower bounds beside them"
        )
    if any(r["stalled"] for r in rows):
        notes.append(
            f"{summary['stalled']} run(s) stalled (state no longer changes or cycles; see stalled_points)"
        )
    if main_linear:  # a linear run that never separated: say plainly when the data cannot be separated
        solved = closed_form or checked
        summary["separable"] = not any(
            math.isnan(geometries[k][1]) if solved else not separable(*datasets[k])
            for k in sorted(unseparated)
        )
        if not summary["separable"]:
            notes.append(NOT_SEPARABLE)
    summary["cap_note"] = "; ".join(notes)
    other = []
    if gamma_free and any(math.isfinite(g) for g in params.gammas):
        other.append(
            f"algorithm={params.algorithm} on the linear model does not use gamma: one run per (d, seed), "
            "labelled gamma = inf"
        )
    if dims == [None] and len(set(params.d_values)) > 1:
        other.append(
            f"dataset {params.dataset!r} has no parameter d: loaded once (d = {datasets[0][0].shape[1]}), "
            "d_values not swept"
        )
    if model.degree is not None and model.degree > 1 and any(math.isinf(g) for g in gammas):
        other.append(
            f"gamma = inf runs the perceptron form of a degree-{model.degree:g} model, not GD at large gamma "
            "(measured on r1, d = 16: the form separates in 0-20 steps, GD at gamma = 1e4 mostly not within "
            "100,000; see the guide page 'GD at large gamma')"
        )
    summary["note"] = "; ".join(other)
    ds = sorted({r["d"] for r in rows})
    for g in gammas:
        sel = [r for r in rows if r["gamma"] == g or (math.isinf(g) and math.isinf(r["gamma"]))]
        key = "inf" if math.isinf(g) else f"{g:g}"
        per_d = [
            censoring.summarize(
                [r["iterations"] for r in sel if r["d"] == d],
                [r["status"] for r in sel if r["d"] == d],
                cap=max_iter,
            )
            for d in ds
        ]
        # a slope only from medians over every run: a censored run would bend it
        if len(ds) >= 2 and all(c.exact for c in per_d):
            summary[f"slope_gamma_{key}"] = measures.loglog_slope(ds, [c.median for c in per_d])
        top = [r for r in sel if r["d"] == ds[-1]]
        at_top = per_d[-1]
        its_ok = [r["iterations"] for r in top if r["status"] == censoring.OK]
        med_top = at_top.median if at_top.exact else math.nan
        q1, q3 = np.quantile(its_ok, [0.25, 0.75]) if at_top.exact else (math.nan, math.nan)
        summary[f"median_iterations_dmax_gamma_{key}"] = med_top
        summary[f"iterations_dmax_gamma_{key}"] = at_top.text()  # e.g. 'median >= 838 (2 of 3 ok; ...)'
        if at_top.median_at_least is not None:
            summary[f"median_iterations_dmax_gamma_{key}_at_least"] = at_top.median_at_least
        summary[f"iqr_iterations_dmax_gamma_{key}"] = float(q3 - q1)
        summary[f"cap_fraction_gamma_{key}"] = float(np.mean([r["capped"] for r in sel]))
        summary[f"censored_gamma_{key}"] = int(sum(r["status"] != censoring.OK for r in sel))
        baseline = bp[dataset_of_d[ds[-1]]]
        speedup = math.nan
        if baseline > 0 and at_top.exact:
            speedup = baseline / med_top
        elif baseline == engine.CAPPED and at_top.exact:  # the baseline needs more than its cap
            summary[f"speedup_dmax_gamma_{key}_at_least"] = bp_cap / med_top
        elif baseline > 0 and at_top.median_at_least is not None:  # the runs need at least their floor
            summary[f"speedup_dmax_gamma_{key}_at_most"] = baseline / at_top.median_at_least
        summary[f"speedup_dmax_gamma_{key}"] = speedup
    return SimulationOutput(records=rows, summary=summary)


def plain_log_ticks(axis, values) -> None:
    """Ticks of a log axis at ``values``, written as plain numbers (the default 3x10^1, 4x10^1 overlap)."""
    from matplotlib.ticker import NullFormatter, ScalarFormatter

    axis.set_ticks(sorted(set(values)))
    axis.set_major_formatter(ScalarFormatter())
    axis.set_minor_formatter(NullFormatter())


def plot_scaling(table, fig) -> None:
    ax = fig.add_subplot(1, 1, 1)
    t = table[table["iterations"] > 0]
    for g, grp in t.groupby("gamma"):
        med = grp.groupby("d")["iterations"].median()
        ax.loglog(med.index, med.values, "o-", label=f"gamma={g:g}")
    bp = table.groupby("d")["linear_bp_iterations"].first()
    ax.loglog(bp.index, bp.values, "k--", label="linear Batch Perceptron")
    plain_log_ticks(ax.xaxis, bp.index)
    ax.set_xlabel("d")
    ax.set_ylabel("iterations to separation (median)")
    ax.legend()


# -- gd_perceptron.limits ------------------------------------------------------------------------------

LIMIT_FORMS = ("vanishing_init", "gd_limit", "from_init", "gd_fixed_init", "gd_scaled_init")


class LimitsParams(DataParams, ModelParams):
    """GD on a degree-1 two-layer model against its two perceptron limits, over rho = step/||W_0||."""

    dataset: str = Field(
        "planted",
        description="r1 | staircase | thm41 | thm51 | planted | a registered dataset "
        "(planted: no exact ties on the path, where the limits are exact)",
    )
    n: int = Field(100, ge=2, description="samples of thm51 / planted")
    margin: float = Field(0.1, ge=0, description="planted margin of the 'planted' dataset")
    model: ModelKind = Field("two_layer", description="two_layer (the limits coincide for the linear model)")
    activation: ActivationName = Field("leaky_relu", description="phi (degree 1: relu, leaky_relu, linear)")
    d: int = Field(20, ge=2, description="dimension of the datasets that have one (r1, staircase, planted)")
    ratios: list[float] = Field(
        default_factory=lambda: [1e-2, 1e-1, 1.0, 10.0, 1e2, 1e3, 1e4],
        min_length=1,
        description="rho = eta/||W_0|| (perceptron) = gamma/||W_0|| (GD)",
    )
    gamma_large: float = Field(
        1e8, gt=0, description="GD's step in the gd_scaled_init form (W_0 rescaled to norm gamma_large/rho)"
    )
    n_seeds: int = Field(10, ge=1, description="initialisations; run seeds are seed, seed+1, ...")
    max_iter: int = Field(20_000, ge=1, description="iteration cap of every run")


def limits(params: LimitsParams, seed: int) -> SimulationOutput:
    """Four forms per (rho, init seed), rows ``form``, ``ratio``, ``run_seed``, ``iterations``, ``status``,
    ``n_points`` and ``d_features`` (the dataset's size and dimension):

    * ``vanishing_init``: the perceptron from 0+ W_0 (rho = inf; the form ``gd_perceptron.scaling`` runs for
      gamma = inf): the rho -> inf limit of ``from_init``;
    * ``gd_limit``: GD's gamma -> inf limit from a fixed W_0: the same, except that its first step weighs the
      samples by sigma(-y g(b; W_0)) (W_0's margins are O(1) at t = 0; rho = inf);
    * ``from_init``: the generalized perceptron from W_0 with step eta = rho ||W_0||;
    * ``gd_fixed_init``: GD from W_0 with step gamma = rho ||W_0|| (the user's knob: the step);
    * ``gd_scaled_init``: GD with step ``gamma_large`` from W_0 rescaled to norm gamma_large/rho.

    For a 1-homogeneous model all four are one recursion U <- U + (1/n) sum lambda_i y_i grad g(b_i; U)
    from U_0 = W_0/step (norm 1/rho), with lambda_i = sigma(-gamma m_i(U)) for GD and 1[m_i(U) < 0] for the
    perceptron (claims ``gd_perceptron.limits_scaling``): at fixed rho, GD tends to ``from_init`` as gamma ->
    inf; ``from_init`` tends to ``vanishing_init`` as rho -> inf. Summary: median iterations per form and
    rho, the fraction of (rho, seed) where ``gd_scaled_init`` equals ``from_init``, and ``meet_ratio``, the
    smallest rho from which ``from_init``'s median is within 10% of ``vanishing_init``'s for every larger
    rho in the grid (nan if none)."""
    model = build_model(params)
    if params.model != "two_layer" or model.degree != 1.0:
        raise ParameterError(
            "parameter 'activation': the two limits differ for degree-1 two-layer models only "
            f"(relu, leaky_relu with a fixed outer layer), got {params.model}/{params.activation}"
            f"{' with train_outer' if params.train_outer else ''}"
        )
    if any(not (r > 0 and math.isfinite(r)) for r in params.ratios):
        raise ParameterError(f"parameter 'ratios': must be finite and > 0, got {params.ratios}")
    B, y = load_dataset(params, params.d)
    seeds = [seed + k for k in range(params.n_seeds)]
    W0, a0 = models.init_weights(model, B.shape[1], seeds)
    norms = np.sqrt(np.einsum("rmd,rmd->r", W0, W0))
    S, rhos = len(seeds), sorted(params.ratios)
    run = dict(max_iter=params.max_iter, keep_weights=False)
    rows = []

    def emit(form, ratio_per_run, iterations):
        for r, it in enumerate(iterations):
            rows.append(
                {
                    "form": form,
                    "ratio": float(ratio_per_run[r]),
                    "run_seed": seeds[r % S],
                    "iterations": float(it) if it >= 0 else math.nan,  # censored runs are never a number
                    "status": censoring.OK if it >= 0 else engine.status_of(it),
                    "n_points": B.shape[0],
                    "d_features": B.shape[1],
                }
            )

    vanish = engine.run_batch(B, y, model, np.ones(S), W0, a0, mode="perceptron", **run).iterations
    emit("vanishing_init", np.full(S, math.inf), vanish)
    gd_limit = engine.run_batch(
        B, y, model, np.ones(S), W0, a0, mode="perceptron", first_step="limit", **run
    ).iterations
    emit("gd_limit", np.full(S, math.inf), gd_limit)
    rho = np.repeat(rhos, S)
    W, A = np.tile(W0, (len(rhos), 1, 1)), np.tile(a0, (len(rhos), 1))
    step = rho * np.tile(norms, len(rhos))
    emit(
        "from_init",
        rho,
        engine.run_batch(B, y, model, step, W, A, mode="perceptron", start="init", **run).iterations,
    )
    emit("gd_fixed_init", rho, engine.run_batch(B, y, model, step, W, A, **run).iterations)
    scale = (params.gamma_large / step)[:, None, None]  # W_0 rescaled to norm gamma_large / rho
    emit(
        "gd_scaled_init",
        rho,
        engine.run_batch(B, y, model, np.full(len(rho), params.gamma_large), W * scale, A, **run).iterations,
    )

    def median_of(form, ratio=None):
        sel = [row for row in rows if row["form"] == form and (ratio is None or row["ratio"] == ratio)]
        c = censoring.summarize(
            [q["iterations"] for q in sel], [q["status"] for q in sel], cap=params.max_iter
        )
        return (c.median if c.exact else math.nan), c

    summary: dict[str, Any] = {"runs": len(rows)}
    for form in LIMIT_FORMS[:2]:
        summary[f"{form}_median"], c = median_of(form)
        if not c.exact:
            summary[f"{form}_iterations"] = c.text()
    medians = {}
    for form in LIMIT_FORMS[2:]:
        for r in rhos:
            medians[(form, r)], c = median_of(form, r)
            summary[f"median_{form}_rho_{r:g}"] = medians[(form, r)]
            if not c.exact:  # NaN above: say what the censored runs allow
                summary[f"iterations_{form}_rho_{r:g}"] = c.text()
    pairs = [
        # same outcome: the same count, or the same censoring (two capped runs agree)
        (
            (a["status"], a["iterations"] if a["status"] == censoring.OK else 0),
            (b["status"], b["iterations"] if b["status"] == censoring.OK else 0),
        )
        for a, b in zip(
            [r for r in rows if r["form"] == "from_init"], [r for r in rows if r["form"] == "gd_scaled_init"]
        )
    ]
    summary["gd_scaled_equals_from_init_fraction"] = float(np.mean([a == b for a, b in pairs]))
    v = summary["vanishing_init_median"]
    meet = math.nan
    for k, r in enumerate(rhos):
        if all(abs(medians[("from_init", q)] - v) <= 0.1 * v for q in rhos[k:]):
            meet = r
            break
    summary["meet_ratio"] = meet
    summary["capped"] = int(sum(row["status"] == "capped" for row in rows))
    summary["stalled"] = int(sum(row["status"] == "stalled" for row in rows))
    return SimulationOutput(records=rows, summary=summary)


def plot_limits(table, fig) -> None:
    ax = fig.add_subplot(1, 1, 1)
    t = table[table["iterations"] > 0]
    for form in LIMIT_FORMS[2:]:
        med = t[t["form"] == form].groupby("ratio")["iterations"].median()
        ax.loglog(med.index, med.values, "o-", label=form)
    for form, style in (("vanishing_init", "k--"), ("gd_limit", "k:")):
        ax.axhline(
            t[t["form"] == form]["iterations"].median(),
            color=style[0],
            ls=style[1:],
            label=f"{form} (rho = inf)",
        )
    ax.set_xlabel("rho = step / ||W_0||")
    ax.set_ylabel("iterations to separation (median)")
    ax.legend()


# -- gd_perceptron.reduction ---------------------------------------------------------------------------


class ReductionParams(DataParams, ModelParams):
    """Fidelity of GD with step gamma to its gamma -> infinity perceptron limit."""

    dataset: str = Field("thm51", description="r1 | thm41 | thm51 | planted | a registered dataset")
    activation: ActivationName = Field(
        "relu", description="phi of the two-layer model (degree 1: linear, relu, leaky_relu)"
    )
    d: int = Field(20, ge=2, description="dimension of the datasets that have one (r1, planted)")
    gammas: list[float] = Field(
        default_factory=lambda: [1e1, 1e2, 1e3, 1e4],
        min_length=1,
        description="finite step sizes compared with the limit",
    )
    T: int = Field(60, ge=1, description="steps compared")


def reduction(params: ReductionParams, seed: int) -> SimulationOutput:
    """GD with step gamma (u_t = W_t/gamma) against its perceptron limit theta_hat_t for t <= T. Rows, per
    (gamma, t): ``rel_error`` ||u_t - theta_hat_t|| / ||theta_hat_t||, ``mistakes_differ``, ``loss_over_gamma``
    f/gamma, ``perceptron_loss_limit`` (at theta_hat_t), ``loss_gap`` = |f/gamma - perceptron loss at u_t|
    (<= log 2/gamma always), ``loss_gap_limit`` (against theta_hat_t), ``n_points`` and ``d_features`` (the
    dataset's size and dimension). Degree-1 models only (the exact
    reduction); the limit starts with lambda = sigma(-y g(b; W_0))."""
    model = build_model(params)
    if model.degree != 1.0 and params.model != "linear":
        raise ParameterError(
            f"parameter 'activation': the exact reduction needs a degree-1 model "
            f"(linear, relu, leaky_relu), got {params.activation!r}"
        )
    if any(not (g > 0 and math.isfinite(g)) for g in params.gammas):
        raise ParameterError(f"parameter 'gammas': must be finite and > 0, got {params.gammas}")
    B, y = load_dataset(params, params.d)
    gs = sorted(params.gammas)
    W0, a0 = models.init_weights(model, B.shape[1], [seed])
    limit = engine.run_batch(
        B,
        y,
        model,
        [1.0],
        W0,
        a0,
        mode="perceptron",
        first_step="limit",
        max_iter=params.T,
        record=True,
        record_states=True,
    )
    gd = engine.run_batch(
        B,
        y,
        model,
        gs,
        np.repeat(W0, len(gs), 0),
        np.repeat(a0, len(gs), 0),
        max_iter=params.T,
        record=True,
        record_states=True,
    )
    ref = limit.trajectory["states"][:, 0]
    ref_m = limit.trajectory["margins"][:, 0]
    ref_norm = np.linalg.norm(ref.reshape(ref.shape[0], -1), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        min_norm_margin = float(np.min(np.abs(ref_m[1:]).min(axis=1) / ref_norm[1:] ** 1.0))
    rows = []
    summary: dict[str, Any] = {
        "min_normalized_abs_margin_limit": min_norm_margin,
        "limit_iterations": int(limit.iterations[0]),
    }
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
            rows.append(
                {
                    "gamma": g,
                    "t": t,
                    "rel_error": float(err[t - 1]),
                    "mistakes_differ": bool(differ[t]),
                    "n_mistakes": int(np.sum(m[t] <= 0)),
                    "loss_over_gamma": float(f_over_g[t]),
                    "perceptron_loss_limit": float(pl_limit[t]),
                    "loss_gap": float(abs(f_over_g[t] - pl_u[t])),
                    "loss_gap_limit": float(abs(f_over_g[t] - pl_limit[t])),
                    "n_points": B.shape[0],
                    "d_features": B.shape[1],
                }
            )
        key = f"{g:g}"
        max_errors.append(float(err.max()))
        summary[f"max_rel_error_gamma_{key}"] = max_errors[-1]
        first = np.flatnonzero(differ[1:])
        summary[f"first_mistake_difference_gamma_{key}"] = int(first[0] + 1) if first.size else -1
    # decreasing in gamma, up to the double-precision floor
    summary["error_decreasing_in_gamma"] = bool(
        all(b <= a or b < 1e-14 for a, b in zip(max_errors, max_errors[1:]))
    )
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
    record_weights: bool = Field(
        False,
        description="also record each step's inner weights in rescaled form, flattened (column "
        "'weights'; for degree-1 GD u_t = W_t/gamma, e.g. the linear model's theta_t/gamma)",
    )


def dynamics(params: DynamicsParams, seed: int) -> SimulationOutput:
    """One run for T steps. Rows per t: ``loss_over_gamma`` (f/gamma for degree-1 models, f for other
    models, the perceptron loss itself for gamma = inf),
    ``perceptron_loss``, ``n_mistakes``, ``normalized_margin`` min_i y_i g_i / ||theta||^L,
    ``alignment`` 1 - cos(v_t, v_SVM) with the cvxpy hard-margin SVM (linear model) and
    ``activation_changes`` (flips of the activation w_j^T b_i > 0 since the previous step), and with
    ``record_weights`` the rescaled inner ``weights`` (a list). Summary: non-monotone loss
    steps, the period of the mistake-set sequence before separation (0: none found), final alignment and
    normalised margin."""
    model = build_model(params)
    B, y = load_dataset(params, params.d)
    W0, a0 = models.init_weights(model, B.shape[1], [seed])
    opts = algorithm_options(params.algorithm, params.gamma)
    step = _perceptron_step(params.gamma) if opts["mode"] == "perceptron" else params.gamma
    res = engine.run_batch(
        B, y, model, [step], W0, a0, max_iter=params.T, record=True, record_states=True, **opts
    )
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
        rows.append(
            {
                "t": t,
                "loss_over_gamma": float(loss[t]),
                "perceptron_loss": float(measures.perceptron_loss(m[t])),
                "n_mistakes": int(mistakes[t].sum()),
                "normalized_margin": measures.normalized_margin(m[t], norm, degree) if norm > 0 else math.nan,
                "alignment": measures.cosine_gap(states[t], svm) if svm is not None else math.nan,
                "activation_changes": int(np.sum(active[t] != active[t - 1]))
                if (t > 0 and params.model != "linear")
                else 0,
            }
        )
        if params.record_weights:
            rows[-1]["weights"] = [float(v) for v in states[t].ravel()]
    summary = {
        "iterations": int(res.iterations[0]),
        "non_monotone_steps": measures.non_monotone_steps(loss),
        # period of the mistake sets S_1, S_2, ... before separation (after it S_t is empty)
        "mistake_period": measures.sequence_period(
            mistakes[1 : (res.iterations[0] if res.iterations[0] > 0 else params.T + 1)]
        ),
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


# -- what a point costs (so that the core refuses -p d=10**9 before allocating) ------------------------

_COPIES = 4  # data, weights, gradients and temporaries each held a few times over: an estimate that errs high


def _rows(p: DataParams) -> int:
    return (
        2 if p.dataset == "r1" else p.n
    )  # thm41 / thm51 are tiny; planted and registered datasets have n rows


def _weights(p: ModelParams, d: int) -> int:
    return d if p.model == "linear" else p.width * (d + 1)


def _point_bytes(p: Any, dims: list[int], n_runs: int) -> float:
    """8-byte floats of the data of every d plus n_runs weight vectors (and their activations) at each d."""
    rows = _rows(p)
    hidden = 1 if p.model == "linear" else p.width
    return 8.0 * _COPIES * sum(rows * d + n_runs * (_weights(p, d) + rows * hidden) for d in dims)


def scaling_memory(p: ScalingParams) -> float:
    return _point_bytes(p, sorted(set(p.d_values)), p.n_seeds * len(p.gammas) + 1)


def reduction_memory(p: ReductionParams) -> float:
    return _point_bytes(p, [p.d], len(p.gammas) + 1)


def limits_memory(p: LimitsParams) -> float:
    return _point_bytes(p, [p.d], p.n_seeds * (5 * len(p.ratios) + 1))  # five forms at every ratio


def dynamics_memory(p: DynamicsParams) -> float:
    return _point_bytes(p, [p.d], 1) + 8.0 * _weights(p, p.d) * (
        p.T + 1
    )  # the recorded weights of every step


class R1ExactParams(Params):
    d: int = Field(16, ge=3, le=1_000_000, description="dimension of R1 (two samples)")
    gamma: float = Field(1e4, gt=0, allow_inf_nan=False, description="GD step size (finite)")
    digits: int | None = Field(
        None, ge=16, le=10_000, description="None: float64; else decimal digits of the arithmetic (mpmath)"
    )
    max_iter: int = Field(100_000, ge=1, le=10_000_000, description="iteration cap")


def r1_exact(params: R1ExactParams, seed: int) -> SimulationOutput:
    """Linear GD on R1 from v_0 = 0 in its two exact coordinates (``toolkit_gd_perceptron.r1_exact``, no code
    shared with the batched engine), in float64 or at ``digits`` decimal digits: an independent check of
    the engine's count and of how rounding moves it. One row: ``iterations`` (NaN with ``status`` capped
    at max_iter), beside ``limit_half_tie`` (GD's gamma -> inf limit, the Batch Perceptron with weight 1/2
    on ties: d + 4 for even d) and ``batch_perceptron`` (2d + 4, ties counted as mistakes).
    Deterministic: the seed is not used."""
    from toolkit_gd_perceptron import r1_exact as exact

    it = exact.gd_iterations(params.d, params.gamma, dps=params.digits, max_iter=params.max_iter)
    row = {
        "iterations": it if it >= 0 else math.nan,
        censoring.STATUS_COLUMN: censoring.OK if it >= 0 else censoring.CAPPED,
        "limit_half_tie": exact.half_tie_iterations(params.d),
        "batch_perceptron": 2 * params.d + 4,
    }
    return SimulationOutput(records=[row], summary={"iterations": row["iterations"]})


def r1_exact_memory(p: R1ExactParams) -> float:
    return 2.0**20  # two coordinates, whatever d: a constant megabyte covers the interpreter's share


SIMULATIONS = [
    Simulation(
        name="gd_perceptron.scaling",
        func=scaling,
        params=ScalingParams,
        description="iterations to separation over model x dataset x d x gamma x seed (batched), slope and speed-up",
        bounds=(
            "gd_perceptron.novikoff_batch",
            "gd_perceptron.novikoff_normalized",
            "gd_perceptron.normalized_lr_gd",
            "gd_perceptron.r1_exact_upper",
            "gd_perceptron.r1_exact_lower",
        ),
        quick={"d_values": [16, 32, 64], "gammas": [100.0, 1000.0]},
        plot=plot_scaling,
        cost=PointCost(scaling_memory, ("d_values", "n", "width", "n_seeds", "gammas")),
    ),
    Simulation(
        name="gd_perceptron.limits",
        func=limits,
        params=LimitsParams,
        description="GD at finite gamma vs its two perceptron limits (vanishing init; from W_0 with step eta) over "
        "rho = step/||W_0||: where the regimes meet",
        quick={"ratios": [0.1, 10.0, 1e3], "n_seeds": 3, "d": 16},
        cost=PointCost(limits_memory, ("d", "n", "width", "n_seeds", "ratios")),
        plot=plot_limits,
    ),
    Simulation(
        name="gd_perceptron.reduction",
        func=reduction,
        params=ReductionParams,
        description="GD with step gamma vs its perceptron limit: relative error, mistake sets, f/gamma vs perceptron loss",
        bounds=("gd_perceptron.reduction_loss_gap",),
        quick={"n": 100, "T": 20},
        plot=plot_reduction,
        cost=PointCost(reduction_memory, ("d", "n", "width")),
    ),
    Simulation(
        name="gd_perceptron.dynamics",
        func=dynamics,
        params=DynamicsParams,
        description="loss and mistake-set oscillations, normalised margin, max-margin alignment, activation changes",
        quick={"T": 30},
        plot=plot_dynamics,
        cost=PointCost(dynamics_memory, ("d", "n", "width", "T")),
    ),
    Simulation(
        name="gd_perceptron.r1_exact",
        func=r1_exact,
        params=R1ExactParams,
        description="linear GD on R1 in its two exact coordinates, float64 or N digits: iterations to separation",
        quick={"d": 16, "gamma": 100.0},
        cost=PointCost(r1_exact_memory, ("digits",)),
    ),
]
