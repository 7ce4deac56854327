"""SVRG's adaptive step rule against scikit-learn's SAGA on a real ill-conditioned logistic problem,
raw and standardised features side by side.

The problem is statsmodels' Fair affairs survey (``svrg_poco.affairs``: 6,366 x 8 features and an
intercept, y = any affair, lambda = 1/N), or a user's own table (--table). For each feature scaling:
epochs (gradient evaluations / N) and CPU seconds to relative suboptimality 1e-6 of SAGA (scikit-learn,
its own step 1/(3L); the smallest epoch budget reaching 1e-6, found by doubling then bisection), SVRG
with the adaptive step rule (the default for a user's problem: m = 2N, first step 0.25/L) on every
--seeds seed, and SVRG at the fixed step 0.25/L, m = 2N, option II. Runs stop at --max-epochs (inf:
not reached).

    python plugins/svrg_poco/benchmarks/step_rule.py [--seeds 0,1,2] [--max-epochs 3000]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def saga_row(problem, p_star, max_epochs):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression

    scale = problem.value(np.zeros(problem.dim)) - p_star

    def fit(epochs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            clf = LogisticRegression(
                solver="saga",
                C=1.0 / (problem.n * problem.lam),
                fit_intercept=False,
                tol=0.0,
                max_iter=epochs,
                random_state=0,
            ).fit(problem.X, problem.y)
        return (problem.value(clf.coef_.ravel()) - p_star) / scale

    lo, hi = 0, 1
    while fit(hi) > 1e-6 and hi < max_epochs:
        lo, hi = hi, min(2 * hi, max_epochs)
    if fit(hi) > 1e-6:
        return {"method": "sklearn SAGA", "seed": 0, "epochs_to_1e-6": np.inf, "cpu_s_to_1e-6": np.inf}
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if fit(mid) > 1e-6 else (lo, mid)
    start = time.process_time()
    fit(hi)
    return {
        "method": "sklearn SAGA",
        "seed": 0,
        "epochs_to_1e-6": hi,
        "cpu_s_to_1e-6": time.process_time() - start,
    }


def svrg_rows(problem, p_star, seeds, max_epochs):
    from toolkit_svrg_poco.optimizers import svrg, svrg_adaptive

    scale = problem.value(np.zeros(problem.dim)) - p_star
    L, m = problem.smoothness, 2 * problem.n

    def run(iterator):
        start = time.process_time()
        for evals, w, info in iterator:
            if info.get("end_of_loop") and (problem.value(w) - p_star) / scale <= 1e-6:
                return evals / problem.n, time.process_time() - start
            if evals > max_epochs * problem.n:
                return np.inf, np.inf

    run(svrg_adaptive(problem, 10, 0))  # compile the inner loop (cached on disk)
    rows = []
    for seed in seeds:
        for method, make in (
            ("SVRG adaptive step (default)", lambda s: svrg_adaptive(problem, m, s, step0=0.25 / L)),
            ("SVRG fixed 0.25/L, option II", lambda s: svrg(problem, 0.25 / L, m, s, option="II")),
        ):
            epochs, cpu = run(make(seed))
            rows.append({"method": method, "seed": seed, "epochs_to_1e-6": epochs, "cpu_s_to_1e-6": cpu})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2", help="comma-separated SVRG seeds")
    parser.add_argument("--max-epochs", type=int, default=3000)
    parser.add_argument("--table", help="a user's .csv or .npz table instead of svrg_poco.affairs")
    args = parser.parse_args(argv)
    try:
        seeds = [int(s) for s in args.seeds.split(",")]
    except ValueError:
        parser.error(f"--seeds: comma-separated integers, got {args.seeds!r}")
    if args.max_epochs < 1:
        parser.error(f"--max-epochs must be >= 1, got {args.max_epochs}")
    import pandas as pd
    from toolkit_svrg_poco.runs import user_problem

    source = {"table": args.table} if args.table else {"dataset": "svrg_poco.affairs"}
    rows = []
    for standardize in (False, True):
        try:
            problem, _, p_star = user_problem(**source, loss="logistic", standardize=standardize)
        except (ValueError, OSError) as exc:
            parser.error(f"--table: {exc}")
        info = {
            "problem": problem.name,
            "L/gamma": problem.smoothness / problem.strong_convexity,
        }
        for row in [
            saga_row(problem, p_star, args.max_epochs),
            *svrg_rows(problem, p_star, seeds, args.max_epochs),
        ]:
            rows.append(info | row)
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    pd.set_option("display.width", 200)
    print(table.to_string(index=False))
    summary = table.groupby(["problem", "method"], sort=False)[["epochs_to_1e-6", "cpu_s_to_1e-6"]].agg(
        ["median", "min", "max"]
    )
    print(summary.to_string())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
