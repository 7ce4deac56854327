"""CARE-Tensor's hot loop, numpy against numba: the robust tensor power iterations on civilcomments' sizes.

    python plugins/care/benchmarks/tensor_engines.py [--repeats 5]

The loop: ``restarts`` random unit starts, ``iters`` power iterations u <- T(I, u, u) / |T(I, u, u)| on a
whitened m x m x m tensor, then tau = T(u, u, u) per start. The numpy engine is ``toolkit_care.tensor``'s (all
starts at once through einsum); the numba engine is a compiled loop over starts written here for the comparison
(compiled once before timing, that time printed). Sizes: civilcomments' 24 judges give views of 8 judges, and the
whitened dimension m is at most the rank k in 4..7; 1,000 starts and 10 iterations as in the faithful mode.
A whole ``decompose_views`` call (6 repeats x 3 views x k deflation steps) is timed beside it, and the share of
it that the loop takes. Prints one CSV row per (m, engine): the median of ``--repeats`` timings in CPU seconds.
Needs numba (``pip install numba``).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def numpy_loop(Tw, U, iters):
    for _ in range(iters):
        U = np.einsum("ijk,jr,kr->ir", Tw, U, U)
        U /= np.maximum(np.linalg.norm(U, axis=0), 1e-300)
    return U, np.einsum("ijk,ir,jr,kr->r", Tw, U, U, U)


def _numba_loop():
    import numba

    @numba.njit(cache=False)
    def loop(Tw, U0, iters):
        m, r = U0.shape
        U = U0.copy()
        tau = np.empty(r)
        u = np.empty(m)
        v = np.empty(m)
        for c in range(r):
            for i in range(m):
                u[i] = U[i, c]
            for _ in range(iters):
                s = 0.0
                for i in range(m):
                    acc = 0.0
                    for j in range(m):
                        for k in range(m):
                            acc += Tw[i, j, k] * u[j] * u[k]
                    v[i] = acc
                    s += acc * acc
                s = max(np.sqrt(s), 1e-300)
                for i in range(m):
                    u[i] = v[i] / s
            t = 0.0
            for i in range(m):
                for j in range(m):
                    for k in range(m):
                        t += Tw[i, j, k] * u[i] * u[j] * u[k]
            tau[c] = t
            for i in range(m):
                U[i, c] = u[i]
        return U, tau

    return loop


def _cpu(fn, repeats):
    out, times = None, []
    for _ in range(repeats):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return float(np.median(times)), out


def main(argv=None):
    import pandas as pd

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--restarts", type=int, default=1000)
    ap.add_argument("--iters", type=int, default=10)
    args = ap.parse_args(argv)
    t0 = time.process_time()
    loop = _numba_loop()
    rng = np.random.default_rng(0)
    T0 = rng.standard_normal((4, 4, 4))
    loop(T0, rng.standard_normal((4, 3)), 2)
    print(f"numba compile: {time.process_time() - t0:.2f} s CPU", file=sys.stderr)
    rows = []
    for m in (4, 5, 6, 7):
        Tw = rng.standard_normal((m, m, m))
        Tw = (Tw + Tw.transpose(1, 0, 2) + Tw.transpose(2, 1, 0) + Tw.transpose(0, 2, 1)) / 4
        U = rng.standard_normal((m, args.restarts))
        U /= np.linalg.norm(U, axis=0)
        t_np, (U_np, tau_np) = _cpu(lambda: numpy_loop(Tw, U.copy(), args.iters), args.repeats)
        t_nb, (U_nb, tau_nb) = _cpu(lambda: loop(Tw, U, args.iters), args.repeats)
        same = bool(np.allclose(tau_np, tau_nb, rtol=1e-9, atol=1e-12))
        rows += [
            {"m": m, "engine": "numpy", "cpu_s": t_np, "speedup": 1.0, "same_result": True},
            {"m": m, "engine": "numba", "cpu_s": t_nb, "speedup": t_np / t_nb, "same_result": same},
        ]
    # a whole decompose_views call on civilcomments-sized views, and the loop's share of it
    from toolkit_care import tensor

    X = rng.standard_normal((5000, 24)) + rng.integers(0, 2, (5000, 1)) * rng.standard_normal(24)
    calls = {"n": 0, "s": 0.0}
    orig = tensor.np.einsum

    def counting(*a, **k):
        if a and a[0] == "ijk,jr,kr->ir":
            t = time.process_time()
            r = orig(*a, **k)
            calls["s"] += time.process_time() - t
            calls["n"] += 1
            return r
        return orig(*a, **k)

    tensor.np.einsum = counting
    try:
        t_full, _ = _cpu(lambda: tensor.decompose_views(X[:, :8], X[:, 8:16], X[:, 16:], 6, seed=0), 1)
    finally:
        tensor.np.einsum = orig
    rows.append(
        {
            "m": 6,
            "engine": "numpy: decompose_views k=6",
            "cpu_s": t_full,
            "speedup": np.nan,
            "same_result": True,
            "loop_share": calls["s"] / t_full,
        }
    )
    return pd.DataFrame(rows)


if __name__ == "__main__":
    main().to_csv(sys.stdout, index=False, float_format="%.4g")
