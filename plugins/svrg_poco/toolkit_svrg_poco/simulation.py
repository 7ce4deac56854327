"""Registered simulations of svrg_poco: convergence per gradient evaluation, estimator variance, MLP.

Parameter models and run functions only; the maths is in problems/optimizers/minibatch/mlp.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import model_validator

from toolkit import Simulation, SimulationOutput
from toolkit.config import ContentPath, Field, HashContent, Params
from toolkit.errors import ParameterError

PROBLEMS = Literal["least_squares", "breast_cancer", "digits", "user"]


class ProblemParams(Params):
    problem: PROBLEMS = Field(
        "least_squares",
        description="least squares with a controlled condition number, "
        "L2-regularised logistic regression on scikit-learn's breast_cancer / binarised digits, "
        "or user: your own (X, y) from table= or dataset= (chosen by giving either)",
    )
    kappa: float = Field(10.0, ge=1.0, le=1e8, description="condition number of the least-squares Hessian")
    lam: float = Field(
        0.0,
        ge=0.0,
        le=10.0,
        description="L2 strength lambda "
        "(0 = the default: 1e-2 for breast_cancer, 1e-3 for digits, 1/N for a user's logistic problem; "
        "least squares uses 0)",
    )
    n: int = Field(1000, ge=10, le=200_000, description="samples of the least-squares design")
    problem_seed: int = Field(
        0, ge=0, description="seed of the least-squares design (fixed across run seeds)"
    )
    table: ContentPath | None = Field(
        None,
        description="problem=user: path to a .csv file (header row; the response in column target, "
        "else the last column) or a .npz file with arrays X and y; the run store keys it by its content",
    )
    target: str | None = Field(None, description="with a CSV table: the response column (default: the last)")
    dataset: str | None = Field(
        None, description="problem=user: a registered dataset whose loader returns (X, y)"
    )
    dataset_params: Annotated[dict[str, Any], HashContent()] = Field(
        default_factory=dict,
        description="keyword arguments of the registered dataset (a file one names keys the store by its content)",
    )
    loss: Literal["auto", "logistic", "least_squares"] = Field(
        "auto",
        description="problem=user: logistic (y has two values, the larger one +1), least squares, "
        "or auto (logistic when y has two values)",
    )
    standardize: bool = Field(
        False, description="problem=user: centre and scale every feature to sd 1 (else raw features)"
    )
    bias: bool = Field(True, description="problem=user: append a column of ones (an intercept)")

    @model_validator(mode="before")
    @classmethod
    def _user_problem(cls, values):
        # giving table= or dataset= chooses problem=user; naming a built-in problem too is a contradiction
        if not isinstance(values, dict):
            return values
        given = [k for k in ("table", "dataset") if values.get(k) is not None]
        problem = values.get("problem")
        if len(given) == 2:
            raise ValueError("give one of table= (a file) and dataset= (a registered dataset), not both")
        if given and problem in (None, "user"):
            return {**values, "problem": "user"}
        if given:
            raise ValueError(
                f"{given[0]}= is read only with problem=user (or no problem); problem is {problem!r}"
            )
        if problem == "user":
            raise ValueError(
                "problem=user needs table= (a .csv or .npz file) or dataset= (a registered dataset)"
            )
        return values

    @model_validator(mode="after")
    def _check_table(self):
        if self.table is not None:
            from toolkit_svrg_poco.user_data import TABLE_SUFFIXES

            path = Path(self.table).expanduser()
            if path.suffix.lower() not in TABLE_SUFFIXES:
                raise ValueError(f"table: a .csv or .npz file, got {self.table!r}")
            if not path.is_file():
                raise ValueError(f"table: file {self.table!r} does not exist")
        user_only = {"target": None, "loss": "auto", "standardize": False, "bias": True}
        if self.problem != "user":
            for name, default in user_only.items():
                if getattr(self, name) != default:
                    raise ValueError(f"{name}= is read only with problem=user (table= or dataset=)")
        return self


class ConvergenceParams(ProblemParams):
    method: Literal["sgd", "svrg", "alpha_svrg", "poco_iso", "von_poco"] = Field(
        "svrg",
        description="sgd; svrg (alpha = 1); alpha_svrg; poco_iso (posterior correction, q = N(m, I)); "
        "von_poco (Newton-like posterior correction, q = N(m, S^-1))",
    )
    step: float = Field(
        0.25,
        gt=0.0,
        le=100.0,
        description="step: eta = step / L for sgd, svrg, alpha_svrg; "
        "eta = step / (L N) for poco_iso (= SVRG at the same step); eta = step for von_poco",
    )
    inner: float = Field(
        2.0, gt=0.0, le=1000.0, description="inner-loop length m as a multiple of inner_unit"
    )
    inner_unit: Literal["N", "L/gamma"] = Field(
        "N",
        description="unit of inner: N samples, or the condition "
        "number L/gamma (Johnson-Zhang's m = k L/gamma)",
    )
    alpha: float = Field(
        1.0, ge=0.0, le=1.0, description="correction weight alpha (alpha_svrg, poco_iso, von_poco)"
    )
    option: Literal["I", "II"] = Field(
        "II", description="SVRG snapshot: I = last inner iterate, II = a random one"
    )
    n_epochs: float = Field(100.0, gt=0.0, le=10_000.0, description="budget in gradient evaluations / N")
    tol: float = Field(1e-13, gt=0.0, lt=1.0, description="stop once (P - P*)/(P(0) - P*) <= tol")
    step_rule: Literal["auto", "fixed", "adaptive"] = Field(
        "auto",
        description="svrg's step: fixed (step / L throughout), adaptive (option I loops; the first at "
        "step / L; a loop is kept when it lowers the objective, then the step grows x1.5, else it is undone "
        "and the step shrinks x0.25), or auto: adaptive for problem=user, fixed for the built-in problems",
    )
    engine: Literal["auto", "numba", "numpy"] = Field(
        "auto",
        description="inner loops (every method; von_poco's closed form): compiled (numba) or plain numpy",
    )

    @model_validator(mode="after")
    def _check_step_rule(self):
        if self.step_rule == "adaptive" and self.method != "svrg":
            raise ValueError(f"step_rule='adaptive' applies to method=svrg only, got method={self.method!r}")
        return self

    @property
    def adaptive(self) -> bool:
        """Whether svrg runs with the adaptive step (step_rule, resolved)."""
        if self.method != "svrg":
            return False
        return self.step_rule == "adaptive" or (self.step_rule == "auto" and self.problem == "user")


def _problem(params: ProblemParams):
    from toolkit_svrg_poco.runs import cached_problem, user_problem

    if params.problem == "user":
        try:
            return user_problem(
                table=params.table,
                target=params.target,
                dataset=params.dataset,
                dataset_params=params.dataset_params,
                loss=params.loss,
                lam=params.lam or None,
                standardize=params.standardize,
                bias=params.bias,
            )
        except ValueError as exc:
            where = "table" if params.table is not None else "dataset"
            raise ParameterError(f"parameter {where!r}: {exc}") from None
    lam = None if params.problem == "least_squares" or params.lam == 0 else params.lam
    return cached_problem(params.problem, params.kappa, lam, params.n, params.problem_seed)


def _eta(params: ConvergenceParams, problem) -> float:
    if params.method == "von_poco":
        return params.step
    if params.method == "poco_iso":
        return params.step / (problem.smoothness * problem.n)
    return params.step / problem.smoothness


def convergence(params: ConvergenceParams, seed: int) -> SimulationOutput:
    """Relative suboptimality (P - P*)/(P(0) - P*) against gradient evaluations / N, one row per record.

    The problem is a built-in one or the user's own (X, y) (``table=`` or ``dataset=``). With the adaptive
    step rule (the default for a user's problem) every row carries its loop's step (``loop_step``) and
    whether the loop was undone (``rejected``); its ``rate_alpha`` is inf (the rate needs a fixed step).

    Every per-sample gradient or Hessian counts one evaluation; snapshots cost N (2N with Hessians).
    Each row carries SVRG's rate constant ``rate_alpha`` for (eta, m, L, gamma), so the rows at the
    end of an inner loop can be held against E[P(w_s) - P*] <= alpha^s (P(w_0) - P*).
    """
    from toolkit_svrg_poco.runs import epochs_to, log_slope, method_iterator, suboptimality_curve, svrg_rate

    problem, w_star, p_star = _problem(params)
    eta = _eta(params, problem)
    unit = problem.n if params.inner_unit == "N" else problem.smoothness / problem.strong_convexity
    m = max(1, int(round(params.inner * unit)))
    if params.adaptive:
        from toolkit_svrg_poco.optimizers import svrg_adaptive

        iterator = svrg_adaptive(problem, m, seed, step0=eta, engine=params.engine)
    else:
        iterator = method_iterator(
            problem,
            params.method,
            step=eta,
            m=m,
            seed=seed,
            alpha=params.alpha,
            option=params.option,
            engine=params.engine,
        )
    rows = suboptimality_curve(
        problem, p_star, iterator, max_epochs=params.n_epochs, tol=params.tol, w_star=w_star
    )
    L, gamma = problem.smoothness, problem.strong_convexity
    svrg_eta = eta * problem.n if params.method == "poco_iso" else eta
    fixed = params.method == "poco_iso" or (params.method == "svrg" and not params.adaptive)
    rate = svrg_rate(svrg_eta, m, L, gamma) if fixed else math.inf  # the theorem needs a fixed step
    for row in rows:
        row.update({"eta": eta, "m": m, "L": L, "gamma": gamma, "rate_alpha": rate})
    summary = {
        "epochs_to_1e-6": epochs_to(rows, 1e-6),
        "epochs_to_1e-10": epochs_to(rows, 1e-10),
        "log10_slope_per_epoch": log_slope(rows),
        "final_rel_suboptimality": rows[-1]["rel_suboptimality"],
        "epochs_run": rows[-1]["epoch"],
        "p_star": p_star,
        "rate_alpha": rate,
        "step_rule_used": "adaptive" if params.adaptive else "fixed",
    }
    if params.adaptive:
        summary["final_step_times_L"] = rows[-1]["loop_step"] * L
        summary["rejected_loops"] = sum(bool(r.get("rejected")) for r in rows)
    return SimulationOutput(rows, summary)


class VarianceParams(ProblemParams):
    step: float = Field(0.25, gt=0.0, lt=0.5, description="SVRG step eta = step / L")
    inner: float = Field(2.0, gt=0.0, le=100.0, description="inner-loop length m as a multiple of N")
    option: Literal["I", "II"] = Field("II", description="SVRG snapshot option")
    n_epochs: float = Field(60.0, gt=0.0, le=10_000.0, description="budget in gradient evaluations / N")


def variance(params: VarianceParams, seed: int) -> SimulationOutput:
    """Along an SVRG path: the estimator's variance, SGD's at the same point, and the lemma's ratio
    (1/N) sum |v_i|^2 / (4 L [P(w) - P* + P(w~) - P*]) (<= 1 by Johnson-Zhang's lemma), one row per record."""
    from toolkit_svrg_poco.optimizers import svrg
    from toolkit_svrg_poco.runs import variance_along_path

    problem, _, p_star = _problem(params)
    m = max(1, int(round(params.inner * problem.n)))
    iterator = svrg(problem, params.step / problem.smoothness, m, seed, option=params.option)
    rows = [
        r
        for r in variance_along_path(problem, p_star, iterator, max_epochs=params.n_epochs)
        if r["rel_suboptimality"] > 1e-10
    ]  # below, P - P* is at rounding level
    # "near the optimum": relative suboptimality <= 1e-8, where the SVRG estimator's variance (~ |w - w~|^2)
    # has fallen far below SGD's noise floor; at 1e-4 the two are still comparable (reported too)
    near = [r for r in rows if r["rel_suboptimality"] <= 1e-8] or rows[-1:]
    moderate = [r for r in rows if r["rel_suboptimality"] <= 1e-4] or rows[-1:]
    summary = {
        "max_lemma_ratio": max(r["lemma_ratio"] for r in rows),
        "variance_ratio_near_optimum": max(r["variance_ratio"] for r in near),
        "variance_ratio_below_1e-4": max(r["variance_ratio"] for r in moderate),
        "rows_near_optimum": len(near),
    }
    return SimulationOutput(rows, summary)


class MLPParams(Params):
    method: Literal["sgd", "adam", "svrg", "ivon", "ivon_poco"] = Field("ivon_poco", description="optimizer")
    lr: float = Field(0.05, gt=0.0, le=1000.0, description="learning rate")
    alpha: float = Field(0.5, ge=0.0, le=1.0, description="correction weight (svrg, ivon_poco)")
    epochs: int = Field(40, ge=1, le=1000, description="passes of mini-batch steps")
    batch_size: int = Field(32, ge=1, le=1437, description="mini-batch size B")
    device: Literal["cpu", "cuda", "auto"] = Field("cpu", description="torch device")
    gradient: Literal["mini-batch", "exact", "deterministic"] = Field(
        "mini-batch",
        description="what a step sees: mini-batches of batch_size; exact: the full-batch gradient (as many "
        "steps per epoch); deterministic: exact, and IVON-type methods sample no weight noise (the "
        "zero-variance limit any posterior correction can at best reach)",
    )
    beta2: float | None = Field(
        None,
        gt=0.0,
        lt=1.0,
        description="adam, ivon, ivon_poco: the second-moment (Hessian) averaging beta2 (None: the "
        "optimizer's own, 0.999 for Adam and 0.99999 for IVON)",
    )

    @model_validator(mode="after")
    def _beta2_for_its_methods(self) -> MLPParams:
        if self.beta2 is not None and self.method not in ("adam", "ivon", "ivon_poco"):
            raise ValueError(f"beta2 is read only by adam, ivon and ivon_poco (method is {self.method!r})")
        return self


def mlp(params: MLPParams, seed: int) -> SimulationOutput:
    """A 64-64 tanh-10 MLP on digits (80/20 split): train loss (at the posterior mean for IVON-based
    methods), test loss and accuracy per epoch, with steps and gradient evaluations spent. The summary
    adds the range of IVON's Hessian estimate at the end (``h_min``, ``h_max``; nan for other methods)."""
    from toolkit.backend import resolve_device
    from toolkit_svrg_poco.minibatch import make_optimizer
    from toolkit_svrg_poco.mlp import digits_oracle, fit_mlp

    alpha = params.alpha if params.method in ("svrg", "ivon_poco") else None
    oracle = digits_oracle(
        seed, params.gradient, batch_size=params.batch_size, device=resolve_device(params.device)
    )
    options = {} if params.beta2 is None else {"beta2": params.beta2}
    optimizer = make_optimizer(params.method, oracle, params.lr, alpha, **options)
    rows = fit_mlp(oracle, optimizer, seed, params.epochs)
    last = rows[-1]
    h = getattr(optimizer, "h", None)
    summary = {k: last[k] for k in ("train_loss", "test_loss", "test_accuracy", "steps", "evals")}
    summary["h_min"] = float(h.min()) if h is not None else math.nan
    summary["h_max"] = float(h.max()) if h is not None else math.nan
    return SimulationOutput(rows, summary)


def _plot_convergence(table, fig):
    # one line per combination of the varying parameters (seeds pooled: median, band from min to max)
    ax = fig.add_subplot(111)
    keys = [c for c in ConvergenceParams.model_fields if c in table.columns and table[c].nunique() > 1]
    seeds = table["seed"].nunique() if "seed" in table.columns else 1
    groups = table.groupby(keys) if keys else [((), table)]
    for key, g in groups:
        values = key if isinstance(key, tuple) else (key,)
        label = ", ".join(f"{k}={v}" for k, v in zip(keys, values)) or "all runs"
        y = g["rel_suboptimality"].clip(lower=1e-16).groupby(g["epoch"])
        (line,) = ax.semilogy(y.median().index, y.median().values, label=label)
        if seeds > 1:
            ax.fill_between(y.min().index, y.min().values, y.max().values, color=line.get_color(), alpha=0.2)
    ax.set_xlabel("gradient evaluations / N")
    spread = f"\nmedian; band: range over {seeds} seeds" if seeds > 1 else ""
    ax.set_ylabel("(P - P*) / (P(0) - P*)" + spread)
    ax.legend(fontsize=7)


SIMULATIONS = [
    Simulation(
        "svrg_poco.convergence",
        convergence,
        ConvergenceParams,
        "suboptimality per gradient evaluation: SGD, SVRG, alpha-SVRG, PoCo (isotropic, Newton-like)",
        bounds=("svrg_poco.svrg_rate",),
        quick={"n": 200, "n_epochs": 15.0},
        plot=_plot_convergence,
    ),
    Simulation(
        "svrg_poco.variance",
        variance,
        VarianceParams,
        "SVRG estimator variance along the path vs SGD's, and Johnson-Zhang's variance lemma",
        bounds=("svrg_poco.variance_lemma",),
        quick={"n": 200, "n_epochs": 10.0},
    ),
    Simulation(
        "svrg_poco.mlp",
        mlp,
        MLPParams,
        "digits MLP: train loss and test accuracy per step and per gradient evaluation (torch)",
        quick={"epochs": 1},
    ),
]
