"""Microseconds per step of every pace method on one stream, numba and numpy engines side by side.

    .venv/bin/python plugins/pace/benchmarks/pace_methods.py            # T = 4000, abrupt variance, seed 0, best of 3

ACI and PACE have a compiled kernel (numba) and the Python classes (numpy engine); both give identical arrays
(tests/pace), so the ratio is the price of the interpreter. The other methods run their classes. The compile
time of the kernels is excluded (a warm-up call first); timings under a loaded machine: compare ratios.
"""

from __future__ import annotations

import argparse
import time

from toolkit_pace import methods as M
from toolkit_pace.streams import synthetic

from toolkit.argtypes import comma_list


def best_of(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--T", type=int, default=4000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument(
        "--methods",
        type=comma_list(str, choices=M.METHOD_NAMES),
        default=list(M.METHOD_NAMES),
        help=f"comma-separated, of {','.join(M.METHOD_NAMES)} (default all)",
    )
    args = ap.parse_args(argv)
    scores = synthetic("abrupt_variance", args.T, 0).scores
    steps = args.T - 100
    print(f"T = {args.T}, W_cal = 500, burn-in 100, abrupt variance seed 0; best of {args.repeat}")
    print(f"{'method':<18} {'engine':<7} {'us/step':>9}")
    for name in args.methods:
        engines = ("numba", "numpy") if name in ("aci", "pace") else ("numpy",)
        row = {}
        for engine in engines:

            def call(engine=engine):
                return M.run_method(name, scores, 0.1, 0.005, 500, 100, engine=engine)

            if engine == "numba":
                call()  # compile (or load the cache) outside the timing
            row[engine] = best_of(call, args.repeat) / steps * 1e6
            print(f"{name:<18} {engine:<7} {row[engine]:9.2f}")
        if len(row) == 2:
            print(f"{'':<18} {'ratio':<7} {row['numpy'] / row['numba']:9.1f}x (numpy / numba)")


if __name__ == "__main__":
    main()
