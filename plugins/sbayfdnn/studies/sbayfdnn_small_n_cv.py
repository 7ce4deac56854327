"""How many inner-CV folds the small-n model choice needs.

The choice it informed: docs/plugins/sbayfdnn/results.md, "How the defaults were chosen".

For each seed of the toy40 design (y = X(0.2) + noise, 40 training curves, 500 test curves) this fits
the three inner-CV candidates (network at sigma1^2 x 1 and x 10, the functional linear model) on every
fold of a K-fold split of the training curves, for each K in ``--folds``, and on all training curves;
it records every held-out curve's squared error, every candidate's test RMSE and the test RMSE of each
candidate's committee (the mean of its K fold models' predictions: the models the CV scored), so a
choice rule can be scored offline on the same fits. It prints, per seed and fold count, the candidate
each rule picks (the lowest CV MSE; a margin of one or of two paired standard errors, the estimator's
default two) and that candidate's test RMSE, and its committee's, over the FLM's. The folds are the estimator's own (``estimator.inner_cv_folds``).

    python plugins/sbayfdnn/studies/sbayfdnn_small_n_cv.py --seeds 100,101,102 --folds 3,10 --out results/sbayfdnn/small_n_cv_pilot.csv

Each seed (with its fold counts) is a point of the run store (``--store``, default ``TOOLKIT_STORE``),
stored when it finishes: a rerun serves the finished seeds from the store.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from study_points import plain_rows, study_simulation
from study_points import sweep as study_sweep

from toolkit.argtypes import add_run_options, comma_list, seeds
from toolkit.config import Field, Params

CANDIDATES = ("network x1", "network x10", "linear")


def _fit(candidate: str, X, y, grid, seed: int):
    from toolkit_sbayfdnn.baselines import FunctionalLinearModel
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    if candidate == "linear":
        return FunctionalLinearModel(24, 3).fit(X, y, grid)
    factor = float(candidate.split("x")[1])
    model = SparseBayesianFDNN(random_state=seed, cv_folds=0)
    model.set_params(sigma1_sq=model.sigma1_sq * factor)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return model.fit(X, y, grid)


def run_seed(seed: int, fold_counts: list[int]) -> list[dict]:
    from sbayfdnn_offset import toy
    from toolkit_sbayfdnn.estimator import inner_cv_folds

    d = toy(40, seed)
    n = len(d.y)
    start = time.perf_counter()

    def test_rmse_of(prediction):
        return float(np.sqrt(np.mean((prediction - d.y_test) ** 2)))

    flm = _fit("linear", d.X, d.y, d.grid, seed)
    flm_rmse = test_rmse_of(flm.predict(d.X_test, d.grid))
    test_rmse = {}
    for c in CANDIDATES:
        model = flm if c == "linear" else _fit(c, d.X, d.y, d.grid, seed)
        test_rmse[c] = test_rmse_of(model.predict(d.X_test, d.grid))
    rows = []
    for k in fold_counts:
        sq_errors = {c: np.zeros(n) for c in CANDIDATES}
        committee = {c: np.zeros(len(d.y_test)) for c in CANDIDATES}  # mean of the k fold models' predictions
        for held in inner_cv_folds(n, k, seed):
            train_rows = np.setdiff1d(np.arange(n), held)
            for c in CANDIDATES:
                model = _fit(c, d.X[train_rows], d.y[train_rows], d.grid, seed)
                sq_errors[c][held] = (model.predict(d.X[held], d.grid) - d.y[held]) ** 2
                committee[c] += model.predict(d.X_test, d.grid) / k
        for c in CANDIDATES:
            rows.append(
                dict(
                    case="toy40",
                    seed=seed,
                    folds=k,
                    candidate=c,
                    cv_mse=float(sq_errors[c].mean()),
                    test_rmse=test_rmse[c],
                    test_vs_flm=test_rmse[c] / flm_rmse,
                    committee_test_vs_flm=test_rmse_of(committee[c]) / flm_rmse,
                    sq_errors=json.dumps(np.round(sq_errors[c], 6).tolist()),
                )
            )
    for r in rows:
        r["seed_wall_time"] = time.perf_counter() - start
    return rows


class FoldsPoint(Params):
    """One toy40 seed, scored under each fold count."""

    folds: list[int] = Field([3, 10], description="fold counts of the inner CV")


def folds_point(params: FoldsPoint, seed: int) -> list[dict]:
    """The rows of one seed: per fold count and candidate, CV MSE, test RMSE and the committee's."""
    return plain_rows(run_seed(seed, list(params.folds)))


RULE_MARGINS = {"argmin": 0.0, "one_se": 1.0, "two_se": 2.0}  # standard errors a network must win by


def choose(rows: list[dict], rule: str) -> str:
    """The candidate a rule picks from one seed's rows of one fold count: ``argmin`` (lowest CV MSE),
    ``one_se`` or ``two_se`` (the estimator's default, ``cv_margin_se = 2``): the best network only if its CV
    MSE is below the FLM's by more than one (two) standard errors of the paired per-curve difference."""
    from toolkit_sbayfdnn.estimator import inner_cv_choice

    by_name = {r["candidate"]: np.asarray(json.loads(r["sq_errors"])) for r in rows}
    return inner_cv_choice({c: by_name[c] for c in CANDIDATES}, margin_se=RULE_MARGINS[rule])[0]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seeds", type=seeds, default=[100, 101, 102], help="toy40 seeds (list or START:STOP)"
    )
    parser.add_argument(
        "--folds",
        type=comma_list(int, minimum=2),
        default=[3, 10],
        help="comma-separated fold counts (2 to 40)",
    )
    parser.add_argument("--out", required=True, help="CSV file for the rows")
    add_run_options(parser, executors=("serial", "processes"))
    args = parser.parse_args(argv)
    if any(k > 40 for k in args.folds):
        parser.error(
            f"--folds: every fold count must be at most 40 (the toy has 40 curves), got {args.folds}"
        )
    import pandas as pd

    sim = study_simulation("small_n_cv", folds_point, FoldsPoint, __file__)
    result = study_sweep(sim, {}, args.seeds, args, {"folds": args.folds})
    all_rows = []
    for run in result.runs:
        rows = run.records
        all_rows += rows
        seed = run.seed
        for k in args.folds:
            of_k = [r for r in rows if r["folds"] == k]
            picks = {rule: choose(of_k, rule) for rule in RULE_MARGINS}
            ratio = {r["candidate"]: r["test_vs_flm"] for r in of_k}
            committee = {r["candidate"]: r["committee_test_vs_flm"] for r in of_k}
            print(
                f"seed {seed} K={k}: CV MSE "
                + ", ".join(f"{r['candidate']} {r['cv_mse']:.3f}" for r in of_k)
                + "; "
                + ", ".join(
                    f"{rule} -> {c} ({ratio[c]:.3f} x FLM, committee {committee[c]:.3f})"
                    for rule, c in picks.items()
                ),
                flush=True,
            )
    pd.DataFrame(all_rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
