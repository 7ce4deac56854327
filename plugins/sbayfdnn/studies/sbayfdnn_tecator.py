"""Why the sparse model loses to the functional linear model on Tecator, measured on an
*inner* split of the standard training set only (the test spectra are never read here).

Each configuration is fitted on the inner-training part (80% of the 172 training spectra, a seeded
permutation) and scored on the inner-validation part (the other 20%); the FLM is fitted on the same
rows. One row per (configuration, split seed): inner-train and inner-validation RMSE, columns kept,
whether the linear guard acted, the FLM's inner-validation RMSE and the ratio.

    python plugins/sbayfdnn/studies/sbayfdnn_tecator.py --configs default,slab10,epochs3x,score_sd1,basis12 --splits 0

Each (configuration, split) and each candidate case is a point of the run store (``--store``, default
``TOOLKIT_STORE``), stored when it finishes: a rerun serves those from the store. ``--out X.csv`` writes
the rows.

``--candidate`` evaluates the fix whose rule was fixed before the runs (docs/plugins/sbayfdnn/results.md,
"How the defaults were chosen"): when the linear guard acts, refit with a 10x wider slab (sigma1^2 = 5e-2).
Cases: Tecator inner splits (``--splits``) and the pilot designs toy40 / offset_linear (``--pilot-seeds``,
their own synthetic test curves):

    python plugins/sbayfdnn/studies/sbayfdnn_tecator.py --candidate --splits 1,2 --pilot-seeds 100
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

from toolkit.argtypes import add_run_options, comma_list, seeds
from toolkit.config import Field, Params

CONFIGS = {
    "default": {},
    "no_inner_cv": {"cv_folds": 0},  # the default before the inner-CV model choice
    "slab10": {"sigma1_sq": 5e-2},  # a 10x wider slab: is the prior's scale the limit?
    "epochs3x": {"epochs": 9000},  # 3x longer MAP: is it the optimiser (ill-conditioned scores)?
    "score_sd1": {"score_sd": 1.0},  # scores at sd 1 instead of 0.172: prior weaker per direction
    "basis12": {"n_basis": 12},  # fewer basis functions for n = 138
}


def inner_split(n: int, seed: int, val_fraction: float = 0.2) -> tuple[np.ndarray, np.ndarray]:
    perm = np.random.default_rng(1000 + seed).permutation(n)
    n_val = int(round(val_fraction * n))
    return perm[n_val:], perm[:n_val]


def rmse(pred, y) -> float:
    return float(np.sqrt(np.mean((pred - y) ** 2)))


class TecatorPoint(Params):
    """One configuration fitted on one inner split of the Tecator training spectra."""

    config: Literal[tuple(CONFIGS)] = Field("default", description="estimator settings")  # type: ignore[valid-type]
    split: int = Field(0, ge=0, description="inner-split seed")


def tecator_point(params: TecatorPoint, seed: int) -> dict:
    """The row of one (configuration, split); ``seed`` is the fit's seed."""
    row = plain_rows([config_row(params.config, params.split, seed)])[0]
    print(row, flush=True)
    return row


def config_row(name: str, split: int, fit_seed: int) -> dict:
    """Fit one configuration on one inner split and score it beside the FLM."""
    from toolkit_sbayfdnn.baselines import FunctionalLinearModel
    from toolkit_sbayfdnn.designs import tecator_curves
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    data = tecator_curves()
    X, y, grid = data.X, data.y, data.grid  # the training spectra only
    tr, va = inner_split(len(y), split)
    settings = CONFIGS[name]
    J = settings.get("n_basis", 24)
    flm = FunctionalLinearModel(n_basis=J).fit(X[tr], y[tr], grid)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SparseBayesianFDNN(random_state=fit_seed, **settings).fit(X[tr], y[tr], grid)
    row = dict(
        config=name,
        split=split,
        fit_seed=fit_seed,
        n_inner_train=len(tr),
        n_inner_val=len(va),
        train_rmse=rmse(model.predict(X[tr]), y[tr]),
        val_rmse=rmse(model.predict(X[va]), y[va]),
        flm_train_rmse=rmse(flm.predict(X[tr]), y[tr]),
        flm_val_rmse=rmse(flm.predict(X[va]), y[va]),
        flm_alpha=flm.alpha_,
        n_selected=int(len(model.selected_)),
        guard_overrode=bool(model.guard_overrode_),
        evidence_gap=model.evidence_gap_,
        wall_time=time.perf_counter() - start,
    )
    row["val_ratio_to_flm"] = row["val_rmse"] / row["flm_val_rmse"]
    row.update(
        inner_cv_ran=bool(model.inner_cv_ran_),
        inner_cv_choice=getattr(model, "inner_cv_choice_", ""),
        inner_cv_mse=str(model.inner_cv_mse_),
    )
    return row


def run(configs, splits, args, fit_seed: int = 0) -> list[dict]:
    """Rows of every (split, configuration), each a point of the run store."""
    sim = study_simulation("tecator", tecator_point, TecatorPoint, __file__)
    result = study_sweep(sim, {"split": list(splits), "config": list(configs)}, [fit_seed], args)
    return [row for run in result.runs for row in run.records]


CANDIDATE_SLAB = 5e-2


class CandidatePoint(Params):
    """One case of the candidate fix: a Tecator inner split or a pilot design's seed."""

    design: Literal["tecator", "toy40", "offset_linear"] = Field("tecator", description="curves")
    case_seed: int = Field(0, ge=0, description="inner-split seed (Tecator) or design seed (pilots)")


def candidate_point(params: CandidatePoint, seed: int) -> dict:
    """Default fit vs the candidate (refit with sigma1^2 = 5e-2 when the linear guard acts) on one case;
    ``seed`` is the fit's seed."""
    row = plain_rows([candidate_row(params.design, params.case_seed, seed)])[0]
    print(row, flush=True)
    return row


def candidate_row(case: str, case_seed: int, fit_seed: int) -> dict:
    from toolkit_sbayfdnn.baselines import FunctionalLinearModel
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    if case == "tecator":
        from toolkit_sbayfdnn.designs import tecator_curves

        data = tecator_curves()
        tr, va = inner_split(len(data.y), case_seed)
        name = f"tecator_inner_split{case_seed}"
        X, y, Xv, yv, grid = data.X[tr], data.y[tr], data.X[va], data.y[va], data.grid
    else:
        from sbayfdnn_offset import make_case

        d = make_case(case, case_seed)
        name = f"{case}_seed{case_seed}"
        X, y, Xv, yv, grid = d.X, d.y, d.X_test, d.y_test, d.grid
    flm = FunctionalLinearModel().fit(X, y, grid)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        default = SparseBayesianFDNN(random_state=fit_seed).fit(X, y, grid)
        refit = (
            SparseBayesianFDNN(random_state=fit_seed, sigma1_sq=CANDIDATE_SLAB).fit(X, y, grid)
            if default.guard_overrode_
            else default
        )
    row = dict(
        case=name,
        fit_seed=fit_seed,
        guard_overrode=bool(default.guard_overrode_),
        flm_rmse=rmse(flm.predict(Xv), yv),
        default_rmse=rmse(default.predict(Xv), yv),
        candidate_rmse=rmse(refit.predict(Xv), yv),
        default_n_selected=int(len(default.selected_)),
        candidate_n_selected=int(len(refit.selected_)),
        wall_time=time.perf_counter() - start,
    )
    row["default_ratio_to_flm"] = row["default_rmse"] / row["flm_rmse"]
    row["candidate_ratio_to_flm"] = row["candidate_rmse"] / row["flm_rmse"]
    return row


def candidate_rows(splits, pilot_seeds, args, fit_seed: int = 0) -> list[dict]:
    """The candidate's rows: Tecator inner splits, then toy40 and offset_linear at the pilot seeds."""
    sim = study_simulation("tecator_candidate", candidate_point, CandidatePoint, __file__)
    cases = [("tecator", split) for split in splits]
    cases += [(case, seed) for case in ("toy40", "offset_linear") for seed in pilot_seeds]
    rows = []
    for case, case_seed in cases:
        result = study_sweep(sim, {}, [fit_seed], args, {"design": case, "case_seed": case_seed})
        rows += [row for run in result.runs for row in run.records]
    return rows


def score_variance_shares(n_basis: int = 24, degree: int = 3) -> np.ndarray:
    """Share of the centred B-spline scores' variance along each principal direction (training spectra)."""
    from toolkit_sbayfdnn import basis
    from toolkit_sbayfdnn.designs import tecator_curves

    data = tecator_curves()
    Z = data.X @ basis.projection_matrix(data.grid, n_basis, degree)
    s = np.linalg.svd(Z - Z.mean(axis=0), compute_uv=False)
    return s**2 / np.sum(s**2)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--configs",
        type=comma_list(choices=CONFIGS),
        default=["default"],
        help=f"comma-separated, from {', '.join(CONFIGS)}",
    )
    parser.add_argument("--splits", type=seeds, default=[0], help="comma-separated inner-split seeds")
    parser.add_argument(
        "--candidate", action="store_true", help="evaluate the fix (its rule fixed before the runs)"
    )
    parser.add_argument(
        "--pcs", action="store_true", help="only print the scores' variance shares per direction"
    )
    parser.add_argument("--pilot-seeds", type=seeds, default=[100], help="comma-separated seeds")
    parser.add_argument("--out", default=None)
    add_run_options(parser, executors=("serial", "processes"))
    args = parser.parse_args(argv)
    configs, splits = args.configs, args.splits
    if args.pcs:
        print("variance share of the scores' principal directions:", np.round(score_variance_shares()[:8], 5))
        return
    if args.candidate:
        rows = candidate_rows(splits, args.pilot_seeds, args)
    else:
        rows = run(configs, splits, args)
    if args.out:
        import pandas as pd

        pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
