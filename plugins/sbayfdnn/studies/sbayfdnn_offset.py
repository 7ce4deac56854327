"""The empty model on users' curves. One fit per (case, seed) with the estimator's defaults;
the earlier choice (full evidence, no guard: ``old_*``), the first-layer-evidence candidate rule
(``first_layer_*``, not adopted) and the guarded network (full evidence with the linear guard: ``new_*``)
are evaluated on the same fit from its stored candidates, beside the functional linear model;
``default_*`` is the estimator's prediction, after the inner-CV model choice (``inner_cv_choice``;
when it chose a wider slab, the stored candidates are those of that refit); ``new_vs_flm`` is the fitted
network's test RMSE over the FLM's whatever the CV chose, and ``inner_cv_gain`` / ``inner_cv_gain_se`` the
CV gain of the best network over the FLM and its paired standard error.

    python plugins/sbayfdnn/studies/sbayfdnn_offset.py --cases toy40,offset_linear,offset_square,null --seeds 100,101,102
    python plugins/sbayfdnn/studies/sbayfdnn_offset.py --diagnose     # the diagnosis: toy40 and offset_linear, seed 0, J 24 and 8

Cases: ``toy40`` (y = X(0.2) + noise, the toy curves, n = 40), ``offset_linear`` / ``offset_square``
(``designs.simulate_offset``, n = 200, 500 test curves), ``null`` (beta = 0, n = 500). One JSON line
per fit on stdout, and a CSV with ``--out``. Each fit is a point of the run store (``--store``, default
``TOOLKIT_STORE``), stored when it finishes: a rerun serves the finished fits from the store (a stopped
run keeps its rows).
"""

from __future__ import annotations

import argparse
import json
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

CASES = ("toy40", "offset_linear", "offset_sin", "offset_square", "offset_exp", "null")


def toy(n: int, seed: int):
    from toolkit_sbayfdnn.designs import simulate

    d = simulate("two_region", "linear", 5.0, n, 500, 100, seed)
    j = int(np.argmin(np.abs(d.grid - 0.2)))
    rng = np.random.default_rng(seed + 1000)
    noise = 0.4 * float(np.std(d.X[:, j]))
    d.y = d.X[:, j] + noise * rng.standard_normal(n)
    d.y_test = d.X_test[:, j] + noise * rng.standard_normal(len(d.X_test))
    d.f_test, d.true_regions = d.X_test[:, j], None
    return d


def make_case(case: str, seed: int):
    from toolkit_sbayfdnn.designs import simulate, simulate_offset

    if case not in CASES:  # before any branch: "offset_<anything>" would otherwise reach simulate_offset
        raise ValueError(f"case: unknown case {case!r}; choose from {', '.join(CASES)}")
    if case == "toy40":
        return toy(40, seed)
    if case.startswith("offset_"):
        return simulate_offset(case.split("_", 1)[1], n_train=200, n_test=500, seed=seed)
    return simulate("null", "linear", 5.0, 500, 500, 100, seed)


def _r2(y, p) -> float:
    return float(1 - np.mean((y - p) ** 2) / np.var(y))


def _rmse(y, p) -> float:
    return float(np.sqrt(np.mean((y - p) ** 2)))


def run_case(case: str, seed: int, **settings) -> dict:
    from toolkit_sbayfdnn.baselines import FunctionalLinearModel
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    d = make_case(case, seed)
    start = time.perf_counter()
    flm = FunctionalLinearModel().fit(d.X, d.y, d.grid)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SparseBayesianFDNN(random_state=seed, **settings).fit(d.X, d.y, d.grid)
    full, region = model.log_evidences_, model.region_log_evidences_
    best_restart = int(np.argmax(full[:-1]))
    old = int(np.argmax(full))
    first_layer = len(full) - 1 if region[-1] > region[best_restart] else best_restart
    new = int(model.best_restart_)
    ncols = model.all_masks_.sum(dim=1).cpu().numpy().astype(int).tolist()
    pred = {c: model._network_output(d.X_test, candidate=c) for c in {old, new, first_layer}}
    default_pred = model.predict(d.X_test)  # the default's prediction (the FLM's when the inner CV chose it)
    flm_pred = flm.predict(d.X_test)
    flm_rmse = _rmse(d.y_test, flm_pred)
    return dict(
        case=case,
        seed=seed,
        settings=json.dumps(settings),
        flm_r2=_r2(d.y_test, flm_pred),
        flm_rmse=flm_rmse,
        full_evidence=json.dumps(np.round(full, 1).tolist()),
        first_layer_evidence=json.dumps(np.round(region, 1).tolist()),
        columns=json.dumps(ncols),
        linear_loo_r2=model.linear_loo_r2_,
        guard_overrode=bool(model.guard_overrode_),
        first_layer_n_selected=ncols[first_layer],
        first_layer_r2=_r2(d.y_test, pred[first_layer]),
        old_n_selected=ncols[old],
        new_n_selected=ncols[new],
        old_r2=_r2(d.y_test, pred[old]),
        new_r2=_r2(d.y_test, pred[new]),
        old_rmse=_rmse(d.y_test, pred[old]),
        new_rmse=_rmse(d.y_test, pred[new]),
        new_vs_flm=_rmse(d.y_test, pred[new]) / flm_rmse,
        inner_cv_ran=bool(model.inner_cv_ran_),
        inner_cv_choice=getattr(model, "inner_cv_choice_", ""),
        inner_cv_reason=getattr(model, "inner_cv_reason_", ""),
        inner_cv_mse=json.dumps({k: round(v, 4) for k, v in getattr(model, "inner_cv_mse_", {}).items()}),
        inner_cv_gain=model.inner_cv_gain_,
        inner_cv_gain_se=model.inner_cv_gain_se_,
        network_train_rmse=model.network_train_rmse_,
        linear_loo_rmse=model.linear_loo_rmse_,
        default_r2=_r2(d.y_test, default_pred),
        default_rmse=_rmse(d.y_test, default_pred),
        default_vs_flm=_rmse(d.y_test, default_pred) / flm_rmse,
        wall_time=time.perf_counter() - start,
    )


class OffsetPoint(Params):
    """One fit of the study: a case, with estimator settings over the defaults."""

    case: Literal[CASES] = Field("toy40", description="the curves")  # type: ignore[valid-type]
    settings: dict[str, int | float] = Field({}, description="SparseBayesianFDNN settings over its defaults")


def offset_point(params: OffsetPoint, seed: int) -> dict:
    """One fit of a case (its row; also printed as a JSON line when computed)."""
    row = plain_rows([run_case(params.case, seed, **params.settings)])[0]
    print(json.dumps(row), flush=True)
    return row


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cases",
        type=comma_list(choices=CASES),
        default=["toy40", "offset_linear", "offset_square", "null"],
        help=f"comma-separated, from {', '.join(CASES)}",
    )
    parser.add_argument("--seeds", type=seeds, default=[100, 101, 102], help="comma-separated seeds")
    parser.add_argument(
        "--diagnose", action="store_true", help="toy40 and offset_linear, seed 0, n_basis 24 and 8"
    )
    parser.add_argument("--out", default=None, help="CSV file for the rows")
    add_run_options(parser, executors=("serial", "processes"))
    args = parser.parse_args(argv)
    jobs = (
        [(c, 0, {"n_basis": j}) for c in ("toy40", "offset_linear") for j in (24, 8)]
        if args.diagnose
        else [(c, s, {}) for s in args.seeds for c in args.cases]
    )
    sim = study_simulation("offset", offset_point, OffsetPoint, __file__)
    rows = []
    for case, seed, settings in jobs:
        result = study_sweep(sim, {}, [seed], args, {"case": case, "settings": settings})
        rows += [row for run in result.runs for row in run.records]
    if args.out:
        import pandas as pd

        pd.DataFrame(rows).to_csv(args.out, index=False)


if __name__ == "__main__":
    main()
