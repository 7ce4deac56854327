"""care's simulations: ``care.synthetic`` (judges with planted confounders, every aggregator against the truth
and the Bayes floor) and ``care.benchmark`` (every aggregator on a released judge table against its labels)."""

from __future__ import annotations

from typing import Literal

import pandas as pd
from pydantic import model_validator

from toolkit import Simulation
from toolkit.config import Field, Params
from toolkit_care.method_names import ASSET_METHODS, BENCHMARK_METHODS, CIVIL_METHODS, SYNTHETIC_METHODS

BOUND_NAMES = ("care.bayes_floor",)
SOLVER_HELP = (
    "CARE-SVD's solver: 'auto' = SCS for the faithful mode (as published), Clarabel for the principled mode "
    "(interior point, about 1e-8); 'scs' or 'clarabel' for both"
)


class SyntheticParams(Params):
    n_items: int = Field(1000, ge=20, le=1_000_000, description="items (pairs for the pairwise task)")
    n_judges: int = Field(10, ge=3, le=500, description="judges J")
    n_confounders: int = Field(1, ge=0, le=10, description="shared confounders K")
    strength: float = Field(1.0, ge=0, le=10, description="confounder strength (scale of B)")
    n_anchors: int = Field(2, ge=0, le=500, description="anchor judges (the first ones; no confounder load)")
    anchor_leak: float = Field(0.0, ge=0, le=1, description="share of the confounder load anchors keep")
    task: Literal["continuous", "binary", "pairwise"] = Field(
        "continuous", description="what the judges report"
    )
    methods: tuple[Literal[SYNTHETIC_METHODS], ...] | None = Field(  # type: ignore[valid-type]
        None, description="a subset of the methods (default: all)"
    )
    solver: Literal["auto", "scs", "clarabel"] = Field("auto", description=SOLVER_HELP)


def synthetic(params: SyntheticParams, seed: int) -> pd.DataFrame:
    """Error of every aggregator on one simulated table (continuous: 1 - corr^2 with Q; binary and pairwise:
    error rate) beside the Bayes floor. ``care_svd`` is CARE-SVD's principled mode given the anchor judges."""
    from toolkit_care.evaluate import synthetic as run

    if params.n_anchors > params.n_judges:
        raise ValueError(f"n_anchors={params.n_anchors} must be <= n_judges={params.n_judges}")
    rows = run(
        params.n_items,
        params.n_judges,
        params.n_confounders,
        params.strength,
        params.n_anchors,
        params.anchor_leak,
        params.task,
        seed,
        **({"methods": tuple(params.methods)} if params.methods else {}),
        solver=params.solver,
    )
    return pd.DataFrame(rows)


class BenchmarkParams(Params):
    dataset: Literal["asset", "civilcomments"] = Field("asset", description="the released judge table")
    methods: tuple[Literal[BENCHMARK_METHODS], ...] | None = Field(  # type: ignore[valid-type]
        None,
        description="a subset of the dataset's methods (default: all); asset: "
        + ", ".join(ASSET_METHODS)
        + "; civilcomments: "
        + ", ".join(CIVIL_METHODS),
    )
    lam_L_grid: Literal["sub", "full"] = Field(
        "sub",
        description="CARE-Tensor's lam_L grid on civilcomments: 'sub' = 1e-3 only, 'full' = all 5 values",
    )
    restarts: int = Field(1000, ge=10, le=100_000, description="random starts of the tensor power method")
    solver: Literal["auto", "scs", "clarabel"] = Field("auto", description=SOLVER_HELP)

    @model_validator(mode="after")
    def _known_methods(self):
        allowed = ASSET_METHODS if self.dataset == "asset" else CIVIL_METHODS
        unknown = [m for m in self.methods or () if m not in allowed]
        if unknown:
            raise ValueError(
                f"methods: {', '.join(map(repr, unknown))} not a method of dataset {self.dataset!r}; "
                f"allowed: {', '.join(allowed)}"
            )
        return self


def benchmark(params: BenchmarkParams, seed: int) -> pd.DataFrame:
    """Every aggregator on a released table: asset (MAE and Kendall tau vs the human rating), civilcomments
    (accuracy on the 85% test split). ``seed`` sets the validation split and the tensor method's starts."""
    from toolkit_care import data
    from toolkit_care.care_tensor import LAM_GRID
    from toolkit_care.evaluate import asset_rows, civil_rows

    methods = list(params.methods) if params.methods else None
    if params.dataset == "asset":
        rows = asset_rows(data.load_asset(), seed, methods, solver=params.solver)
    else:
        grid = (1e-3,) if params.lam_L_grid == "sub" else LAM_GRID
        rows = civil_rows(
            data.load_civilcomments(),
            seed,
            methods,
            lam_L_grid=grid,
            restarts=params.restarts,
            solver=params.solver,
        )
    return pd.DataFrame(rows).assign(dataset=params.dataset)


def _plot_synthetic(table: pd.DataFrame, fig) -> None:
    ax = fig.add_subplot(1, 1, 1)
    means = table.groupby("method")["error"].mean().sort_values()
    ax.barh(means.index, means.values, color="tab:blue")
    if "bayes_floor" in table:
        ax.axvline(table["bayes_floor"].mean(), color="k", ls="--", label="Bayes floor")
        ax.legend()
    ax.set_xlabel("error")


# SCS stops at a loose tolerance where the objective is flat, and where it stops moves between its releases (on
# civilcomments CARE-SVD faithful gives 0.718 with SCS 3.2.11 and 0.774 with 3.3.1): its version keys the store
SOLVER_PACKAGES = ("scs", "clarabel", "cvxpy")

SIMULATIONS = [
    Simulation(
        "care.synthetic",
        synthetic,
        SyntheticParams,
        "judges with planted confounders: every aggregator's error vs the truth and the Bayes floor",
        bounds=BOUND_NAMES,
        # 6 judges: each CARE-SVD fit is a semidefinite program, about 2.5x cheaper than at 10
        quick={"n_items": 300, "n_judges": 6},
        plot=_plot_synthetic,
        keyed_packages=SOLVER_PACKAGES,
    ),
    Simulation(
        "care.benchmark",
        benchmark,
        BenchmarkParams,
        "every aggregator on a released judge table (asset: MAE, Kendall tau; civilcomments: test accuracy)",
        quick={"methods": ("mv", "avg", "uws")},
        keyed_packages=SOLVER_PACKAGES,
    ),
]
