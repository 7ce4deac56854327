"""CPU seconds of the isotropic PoCo loop and VON-PoCo, compiled (numba) against plain numpy, for the same
epochs and samples, beside SVRG's compiled loop; the two engines' iterates agree (max |difference| shown).

Runs on the raw affairs problem (``svrg_poco.affairs``: N = 6,366, d = 9) and on breast_cancer (N = 569, d = 31).

    python plugins/svrg_poco/benchmarks/poco_engines.py [--epochs 5] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _best(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        start = time.process_time()
        out = fn()
        times.append(time.process_time() - start)
    return min(times), out


def _final(iterator, problem, epochs):
    for evals, w, _ in iterator:
        if evals >= epochs * problem.n:
            return w.copy()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=float, default=5.0, help="gradient evaluations / N per run")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if not args.epochs > 0 or args.repeats < 1:
        parser.error(f"--epochs must be > 0 and --repeats >= 1, got {args.epochs}, {args.repeats}")
    import pandas as pd
    from toolkit_svrg_poco import optimizers as opt
    from toolkit_svrg_poco.runs import cached_problem, user_problem

    problems = [
        user_problem(dataset="svrg_poco.affairs")[0],
        cached_problem("breast_cancer", 10.0, None, 1000, 0)[0],
    ]
    rows = []
    for problem in problems:
        N, L = problem.n, problem.smoothness
        methods = {
            "poco_iso (eta = 0.25/(L N), m = 2N)": lambda e: opt.poco_iso(
                problem, 0.25 / (L * N), 2 * N, 0, engine=e
            ),
            "von_poco (eta = 1, m = N)": lambda e: opt.von_poco(problem, 1.0, N, 0, engine=e),
            "svrg (0.25/L, m = 2N)": lambda e: opt.svrg(problem, 0.25 / L, 2 * N, 0, option="I", engine=e),
        }
        for name, make in methods.items():
            _final(make("numba"), problem, 0.1)  # compile (cached on disk after the first run)
            t_numba, w_numba = _best(lambda: _final(make("numba"), problem, args.epochs), args.repeats)
            t_numpy, w_numpy = _best(lambda: _final(make("numpy"), problem, args.epochs), 1)
            rows.append(
                {
                    "problem": problem.name,
                    "method": name,
                    "epochs": args.epochs,
                    "numpy_cpu_s": t_numpy,
                    "numba_cpu_s": t_numba,
                    "speed_up": t_numpy / t_numba,
                    "max_abs_diff": float(np.max(np.abs(w_numba - w_numpy))),
                }
            )
            print(rows[-1], flush=True)
    pd.set_option("display.width", 200)
    print(pd.DataFrame(rows).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
