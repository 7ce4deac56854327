"""The model the default ``SparseBayesianFDNN`` chooses on the plugin's real data sets (Tecator, Covid3Month,
El Nino), with the inner CV's early stop (the default) and, with --full, without it (every fold fitted), on
the same fit seeds: whether the choice, and the test RMSE, are the same, and the CPU seconds of each fit.

    python plugins/sbayfdnn/studies/early_stop_choices.py [--seeds 0,1,2,3,4] [--datasets tecator,covid,elnino] [--full]

Each fit is a point of the run store (``--store``, default ``TOOLKIT_STORE``): a rerun prints the stored
fits (with the CPU seconds they took when they ran) without refitting.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from pathlib import Path
from typing import Literal

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from study_points import plain_rows, study_simulation
from study_points import sweep as study_sweep

from toolkit.argtypes import add_run_options
from toolkit.config import Field, Params

DATASETS = ("tecator", "covid", "elnino")


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _choice(model) -> str:
    if getattr(model, "prediction_model_", "network") == "linear":
        return "FLM"
    return "empty model" if model.empty_model_selected_ else "network"


def _load(name: str):
    from toolkit_sbayfdnn import designs

    if name == "elnino":  # years 1-45 train, 46-60 test, as in the plugin's real-data study
        d = designs.elnino_curves()
        return designs.FunctionalData(X=d.X[:45], y=d.y[:45], grid=d.grid, X_test=d.X[45:], y_test=d.y[45:])
    return {"tecator": designs.tecator_curves, "covid": designs.covid_curves}[name]()


class ChoicePoint(Params):
    """One default fit on a real data set, with or without the inner CV's early stop."""

    dataset: Literal["tecator", "covid", "elnino"] = Field("tecator", description="real data set")
    cv_early_stop: bool = Field(True, description="SparseBayesianFDNN(cv_early_stop=...)")


def choice_point(params: ChoicePoint, seed: int) -> dict:
    """The model the default fit chose, its inner CV, test RMSE, and the CPU and wall seconds of the fit."""
    import warnings

    import numpy as np
    import torch
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    torch.set_num_threads(1)
    data = _load(params.dataset)
    cpu, wall = _cpu_seconds(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SparseBayesianFDNN(random_state=seed, cv_early_stop=params.cv_early_stop).fit(
            data.X, data.y, data.grid
        )
    cpu, wall = _cpu_seconds() - cpu, time.perf_counter() - wall
    rmse = float(np.sqrt(np.mean((model.predict(data.X_test) - data.y_test) ** 2)))
    row = dict(
        choice=_choice(model),
        inner_cv_reason=model.inner_cv_reason_ or "",
        inner_cv_folds_run=model.inner_cv_folds_run_,
        inner_cv_folds=model.inner_cv_folds_,
        test_rmse=rmse,
        cpu_s=cpu,
        wall_s=wall,
    )
    return plain_rows([row])[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--full", action="store_true", help="also fit with cv_early_stop=False")
    add_run_options(parser, executors=("serial", "processes"))
    args = parser.parse_args(argv)
    try:
        seeds = [int(s) for s in args.seeds.split(",")]
    except ValueError:
        parser.error(f"--seeds: comma-separated integers, got {args.seeds!r}")
    names = args.datasets.split(",")
    bad = [n for n in names if n not in DATASETS]
    if bad:
        parser.error(f"--datasets: unknown {', '.join(bad)}; allowed: {', '.join(DATASETS)}")
    sim = study_simulation("early_stop_choices", choice_point, ChoicePoint, __file__)
    variants = [("early stop", True)] + ([("every fold", False)] if args.full else [])
    for name in names:
        for seed in seeds:
            for label, early in variants:
                result = study_sweep(sim, {}, [seed], args, {"dataset": name, "cv_early_stop": early})
                r = result.runs[0].records[0]
                print(
                    f"{name} seed {seed} {label}: {r['choice']} (inner CV {r['inner_cv_reason'] or 'not run'}, "
                    f"{r['inner_cv_folds_run']} of {r['inner_cv_folds']} folds), test RMSE {r['test_rmse']:.5g}, "
                    f"{r['cpu_s']:.1f} CPU-s, {r['wall_s']:.1f} s wall",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
