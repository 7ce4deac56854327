"""Every method on the real scalar-on-function data sets shipped inside packages:
Tecator (sktime; standard split 172 / 43), Covid3Month (sktime; 140 / 61) and El Nino
(statsmodels; years 1-45 / 46-60). Test RMSE per method and seed, plus the sparse model's number of
selected basis functions and what the earlier rule (no linear guard) would have predicted.

    python plugins/sbayfdnn/studies/sbayfdnn_real.py --seeds 0,1 --out results/sbayfdnn/real.csv
    python plugins/sbayfdnn/studies/sbayfdnn_real.py --quick          # 600 epochs, one seed (the headline check)

Every (dataset, seed) is a point of the run store (``--store``, default ``TOOLKIT_STORE``), stored as
soon as it is done: a rerun serves the finished ones from the store (a stopped run keeps its rows and
resumes). ``--out X.csv`` writes the table and ``X_summary.csv``.

The seed moves the networks' initialisation and the validation splits of the dense network, AdaFNN
and the group lasso; the FLM and FPCA do not depend on it (their sd is 0).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import Literal

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from study_points import plain_rows, study_simulation
from study_points import sweep as study_sweep

from toolkit.argtypes import add_run_options, comma_list
from toolkit.argtypes import seeds as seeds_arg
from toolkit.config import Field, Params

DATASETS = ("tecator", "covid", "elnino")
METHODS = ("sbayfdnn", "flm", "group_lasso", "fpca", "dense", "adafnn")


def load(name: str):
    from toolkit_sbayfdnn import designs

    if name == "elnino":
        d = designs.elnino_curves()
        split = 45
        return designs.FunctionalData(
            X=d.X[:split],
            y=d.y[:split],
            grid=d.grid,
            X_test=d.X[split:],
            y_test=d.y[split:],
            true_regions=None,
            description=d.description,
        )
    return {"tecator": designs.tecator_curves, "covid": designs.covid_curves}[name]()


def n_basis_for(data) -> int:
    """24 basis functions, or fewer on short grids (El Nino: 12 months -> 8)."""
    return min(24, max(4, (2 * data.X.shape[1]) // 3))


class RealPoint(Params):
    """One (dataset, seed) of the study: every method fitted on the dataset's split."""

    dataset: Literal["tecator", "covid", "elnino"] = Field("tecator", description="real data set")
    methods: list[str] = Field(list(METHODS), description="methods compared")
    epochs: int = Field(3000, ge=1, description="epoch budget of the dense and AdaFNN baselines")
    fit: dict[str, int | float] = Field({}, description="SparseBayesianFDNN settings over its defaults")


def real_point(params: RealPoint, seed: int) -> list[dict]:
    """Every method on one real data set and seed, with the sparse model's choice diagnostics."""
    from toolkit_sbayfdnn.baselines import compare_methods

    name = params.dataset
    data = load(name)
    J = n_basis_for(data)
    unit = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = compare_methods(
            data,
            params.methods,
            sbay_kwargs=dict(params.fit),
            epochs=params.epochs,
            n_basis=J,
            seed=seed,
            keep_models=True,
        )
    for rec in records:
        model = rec.pop("model", None)
        rec.update(
            dataset=name,
            seed=seed,
            n_basis=J,
            n_train=len(data.y),
            n_test=len(data.y_test),
            sd_y_test=float(np.std(data.y_test)),
        )
        if rec["method"] == "sbayfdnn":
            rec["inner_cv_ran"] = bool(getattr(model, "inner_cv_ran_", False))
            rec["inner_cv_choice"] = getattr(model, "inner_cv_choice_", "")
            rec["inner_cv_mse"] = str(getattr(model, "inner_cv_mse_", {}))
            rec["network_train_rmse"] = getattr(model, "network_train_rmse_", float("nan"))
            rec["linear_loo_rmse"] = getattr(model, "linear_loo_rmse_", float("nan"))
            rec["guard_overrode"] = bool(model.guard_overrode_)
            rec["guard_refit"] = bool(getattr(model, "guard_refit_", False))
            rec["linear_loo_r2"] = model.linear_loo_r2_
            old = int(np.argmax(model.log_evidences_))  # the earlier rule: full evidence, no guard
            pred = model._network_output(data.X_test, candidate=old)
            rec["rmse_without_guard"] = float(np.sqrt(np.mean((pred - data.y_test) ** 2)))
            rec["n_selected_without_guard"] = int(model.all_masks_[old].sum())
            rec["warnings"] = " | ".join(sorted({type(w.message).__name__ for w in caught}))
        unit.append(rec)
        print({k: rec[k] for k in ("dataset", "seed", "method", "rmse", "wall_time")}, flush=True)
    return plain_rows(unit)


def run(datasets, seeds, methods, epochs: int, fit: dict, args) -> list[dict]:
    """Rows of every (dataset, seed), each a point of the store: finished ones are not refitted."""
    sim = study_simulation("real", real_point, RealPoint, __file__)
    result = study_sweep(
        sim,
        {"dataset": list(datasets)},
        seeds,
        args,
        {"methods": list(methods), "epochs": epochs, "fit": fit},
    )
    return [
        {k: v for k, v in row.items() if k not in ("simulation", "methods", "epochs", "fit")}
        for row in result.table.to_dict("records")
    ]


def t_interval(values, level: float = 0.95) -> tuple[float, float]:
    """Student-t interval of the mean (nan with fewer than two values)."""
    from scipy.stats import t

    values = np.asarray(values, dtype=float)
    if len(values) < 2:
        return float("nan"), float("nan")
    half = float(t.ppf(0.5 + level / 2, len(values) - 1)) * values.std(ddof=1) / np.sqrt(len(values))
    return float(values.mean() - half), float(values.mean() + half)


def summarise(table):
    """Per dataset and method: test RMSE mean, sd, 95% t-interval over seeds, and the same for the
    per-seed ratio to the FLM's RMSE (the target: at most 1.05)."""
    import pandas as pd

    flm = table[table["method"] == "flm"].set_index(["dataset", "seed"])["rmse"]
    rows = []
    for (dataset, method), part in table.groupby(["dataset", "method"], sort=False):
        ratio = part["rmse"].to_numpy() / flm.loc[list(zip(part["dataset"], part["seed"]))].to_numpy()
        lo, hi = t_interval(part["rmse"])
        rlo, rhi = t_interval(ratio)
        rows.append(
            dict(
                dataset=dataset,
                method=method,
                seeds=len(part),
                rmse_mean=part["rmse"].mean(),
                rmse_sd=part["rmse"].std(ddof=1),
                rmse_ci_low=lo,
                rmse_ci_high=hi,
                ratio_to_flm_mean=ratio.mean(),
                ratio_ci_low=rlo,
                ratio_ci_high=rhi,
                ratio_to_flm_max=ratio.max(),
            )
        )
    return pd.DataFrame(rows).round(4)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=seeds_arg, default=[0, 1], help="comma-separated seeds (default 0,1)")
    parser.add_argument(
        "--datasets",
        type=comma_list(choices=DATASETS),
        default=list(DATASETS),
        help=f"comma-separated, from {', '.join(DATASETS)}",
    )
    parser.add_argument(
        "--methods",
        type=comma_list(choices=METHODS),
        default=list(METHODS),
        help=f"comma-separated, from {', '.join(METHODS)}",
    )
    parser.add_argument("--quick", action="store_true", help="600 epochs, 2 restarts, seed 0")
    parser.add_argument(
        "--guard-refit-slab",
        type=float,
        default=None,
        help="SparseBayesianFDNN(guard_refit_slab=...) (candidate A of the README's Tecator section)",
    )
    parser.add_argument("--out", default=None)
    add_run_options(parser, executors=("serial", "processes"))
    args = parser.parse_args(argv)
    datasets, seeds = args.datasets, args.seeds
    if args.quick:
        seeds, epochs, fit = [0], 600, dict(epochs=600, anneal_epochs=150, finetune_epochs=100, n_restarts=2)
    else:
        epochs, fit = 3000, {}
    if args.guard_refit_slab is not None:
        fit = {**fit, "guard_refit_slab": args.guard_refit_slab}
    start = time.perf_counter()
    rows = run(datasets, seeds, args.methods, epochs, fit, args)
    import pandas as pd

    table = pd.DataFrame(rows)
    if args.out:
        table.to_csv(args.out, index=False)
    print(summarise(table).to_string())
    print(f"total {time.perf_counter() - start:.0f} s")
    if args.out:
        summarise(table).to_csv(args.out.replace(".csv", "_summary.csv"), index=False)


if __name__ == "__main__":
    main()
