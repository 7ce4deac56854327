"""CPU seconds of one default ``SparseBayesianFDNN`` fit on 400 NIR-like spectra x 600 wavelengths (Tecator
mixtures, ``designs.tecator_mixtures``), inner-CV model choice included. The fit runs torch on one thread
(``torch_threads=1``, the default; --threads 0: torch's own setting, one thread per core).

Reports CPU seconds (this process and its worker processes), wall seconds, the model chosen and the inner-CV
folds fitted. ``--no-early-stop`` fits every inner-CV fold (``cv_early_stop=False``); ``--n-jobs`` runs the
inner CV's networks side by side. Target: at most 120 CPU-s.

    python plugins/sbayfdnn/benchmarks/nir_fit_cost.py [--seed 0] [--n-jobs 1] [--no-early-stop] [--verbose]
"""

from __future__ import annotations

import argparse
import resource
import time


def _cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=0, help="fit seed (random_state)")
    parser.add_argument("--data-seed", type=int, default=0, help="seed of the Tecator mixtures")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--no-early-stop", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="the fit's progress lines on stderr")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch threads (0: torch's default, one per core)"
    )
    args = parser.parse_args(argv)
    if args.n_jobs == 0:
        parser.error("--n-jobs must be a positive integer or -1, got 0")
    if args.threads < 0:
        parser.error(f"--threads must be >= 0, got {args.threads}")
    import warnings

    import numpy as np
    import torch
    from toolkit_sbayfdnn.designs import tecator_mixtures
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    data = tecator_mixtures(400, 600, seed=args.data_seed)
    SparseBayesianFDNN(epochs=5, anneal_epochs=2, finetune_epochs=2, n_restarts=1, cv_folds=0).fit(
        data.X[:50], data.y[:50], data.grid
    )  # warm-up: torch's lazy imports are not the fit's cost
    cpu, wall = _cpu_seconds(), time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = SparseBayesianFDNN(
            random_state=args.seed,
            n_jobs=args.n_jobs,
            cv_early_stop=not args.no_early_stop,
            verbose=int(args.verbose),
            torch_threads=args.threads or None,
        ).fit(data.X, data.y, data.grid)
    cpu, wall = _cpu_seconds() - cpu, time.perf_counter() - wall
    rmse = float(np.sqrt(np.mean((model.predict(data.X_test) - data.y_test) ** 2)))
    print(
        f"n = {data.X.shape[0]}, m = {data.X.shape[1]}, seed {args.seed}, n_jobs {args.n_jobs}, "
        f"torch threads {args.threads or torch.get_num_threads()}, "
        f"early stop {not args.no_early_stop}: {cpu:.1f} CPU-s, {wall:.1f} s wall; "
        f"chose {model.prediction_model_} (inner CV: {model.inner_cv_reason_ or 'not run'}, "
        f"{model.inner_cv_folds_run_} of {model.inner_cv_folds_} folds fitted, MSE {model.inner_cv_mse_}); "
        f"test RMSE {rmse:.3f} (sd of test y {data.y_test.std():.2f})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
