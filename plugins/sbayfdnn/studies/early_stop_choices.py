"""The model the default ``SparseBayesianFDNN`` chooses on the plugin's real data sets (Tecator, Covid3Month,
El Nino), with the inner CV's early stop (the default) and, with --full, without it (every fold fitted), on
the same fit seeds: whether the choice, and the test RMSE, are the same, and the CPU seconds of each fit.

    python plugins/sbayfdnn/studies/early_stop_choices.py [--seeds 0,1,2,3,4] [--datasets tecator,covid,elnino] [--full]
"""

from __future__ import annotations

import argparse
import os
import resource
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

DATASETS = ("tecator", "covid", "elnino")


def _cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    return own.ru_utime + own.ru_stime


def _choice(model) -> str:
    if getattr(model, "prediction_model_", "network") == "linear":
        return "FLM"
    return "empty model" if model.empty_model_selected_ else "network"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", default="0,1,2,3,4")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--full", action="store_true", help="also fit with cv_early_stop=False")
    args = parser.parse_args(argv)
    try:
        seeds = [int(s) for s in args.seeds.split(",")]
    except ValueError:
        parser.error(f"--seeds: comma-separated integers, got {args.seeds!r}")
    names = args.datasets.split(",")
    bad = [n for n in names if n not in DATASETS]
    if bad:
        parser.error(f"--datasets: unknown {', '.join(bad)}; allowed: {', '.join(DATASETS)}")
    import warnings

    import numpy as np
    import torch
    from toolkit_sbayfdnn import designs
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    torch.set_num_threads(1)

    def elnino():  # years 1-45 train, 46-60 test, as in the plugin's real-data study
        d = designs.elnino_curves()
        return designs.FunctionalData(X=d.X[:45], y=d.y[:45], grid=d.grid, X_test=d.X[45:], y_test=d.y[45:])

    loaders = {"tecator": designs.tecator_curves, "covid": designs.covid_curves, "elnino": elnino}
    variants = [("early stop", True)] + ([("every fold", False)] if args.full else [])
    for name in names:
        data = loaders[name]()
        for seed in seeds:
            for label, early in variants:
                cpu, wall = _cpu_seconds(), time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = SparseBayesianFDNN(random_state=seed, cv_early_stop=early).fit(
                        data.X, data.y, data.grid
                    )
                cpu, wall = _cpu_seconds() - cpu, time.perf_counter() - wall
                rmse = float(np.sqrt(np.mean((model.predict(data.X_test) - data.y_test) ** 2)))
                print(
                    f"{name} seed {seed} {label}: {_choice(model)} (inner CV {model.inner_cv_reason_ or 'not run'}, "
                    f"{model.inner_cv_folds_run_} of {model.inner_cv_folds_} folds), test RMSE {rmse:.5g}, "
                    f"{cpu:.1f} CPU-s, {wall:.1f} s wall",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
