"""One long linear run, side by side: the compiled loop (numba, CSR) vs today's engine vs a plain numpy loop.

The run: the Batch Perceptron on the sparse staircase (``data.staircase``, 2 non-zeros per row) at
d = 512 (n = 512): exactly d^2 = 262,144 iterations. Three implementations of the same run, timed in
one process one after the other, best of ``--repeat``:

* numba: ``engine_numba.linear_run`` (O(nnz) per step; compile time excluded: one warm-up call first,
  and reported separately; ``cache=True`` keeps it on disk for later processes);
* engine: ``engine.run_batch`` with one run (the batched engine: (1, 1, d) weights, dense BLAS);
* numpy loop: ``engine.reference_run`` (the plain per-run loop the engine is tested against).

Target: numba >= 5x faster than the engine on this run. The counts of all three must agree.
``--engine-iters K`` times the two numpy implementations on the first K iterations only (a cap; the
per-iteration ratio is then reported; the full run is the default).

    python plugins/gd_perceptron/benchmarks/gd_perceptron_numba.py                    # d = 512, full runs
    python plugins/gd_perceptron/benchmarks/gd_perceptron_numba.py --d 128 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--d", type=int, default=512, help="staircase dimension (n = d; d^2 iterations)")
    ap.add_argument("--repeat", type=int, default=1, help="timings per implementation (best is kept)")
    ap.add_argument(
        "--engine-iters", type=int, default=0, help="cap the numpy implementations at K iterations"
    )
    args = ap.parse_args()
    if args.d < 2 or args.repeat < 1 or args.engine_iters < 0:
        ap.error("need --d >= 2, --repeat >= 1, --engine-iters >= 0")

    import numpy as np
    from toolkit_gd_perceptron import data, engine, models

    d = args.d
    B, y = data.staircase(d)
    lin = models.linear()
    W0, a0 = models.init_weights(lin, d, [0])
    full = 10 * d * d
    capped = args.engine_iters or full
    opts = dict(mode="perceptron", tie_weight=1.0)

    start = time.perf_counter()
    from toolkit_gd_perceptron.engine_numba import linear_run

    linear_run(*data.staircase(4), **opts)
    compile_s = time.perf_counter() - start

    def best(fn):
        times, out = [], None
        for _ in range(args.repeat):
            t = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t)
        return min(times), out

    t_numba, (it_numba, _) = best(lambda: linear_run(B, y, max_iter=full, **opts))
    print(f"numba:      {t_numba:8.3f} s  iterations {it_numba}", flush=True)
    t_engine, res = best(
        lambda: engine.run_batch(B, y, lin, [1.0], W0, a0, max_iter=capped, keep_weights=False, **opts)
    )
    it_engine = int(res.iterations[0])
    print(f"engine:     {t_engine:8.3f} s  iterations {it_engine}", flush=True)
    t_loop, it_loop = best(
        lambda: engine.reference_run(B, y, lin, 1.0, W0[0], a0[0], max_iter=capped, **opts)
    )
    print(f"numpy loop: {t_loop:8.3f} s  iterations {it_loop}", flush=True)

    steps = it_numba if not args.engine_iters else min(args.engine_iters, it_numba)
    per_step = {
        "numba": t_numba / it_numba,
        "engine": t_engine / max(steps, 1),
        "numpy_loop": t_loop / max(steps, 1),
    }
    result = {
        "d": d,
        "n": d,
        "expected_iterations": d * d,
        "iterations": {"numba": it_numba, "engine": it_engine, "numpy_loop": int(it_loop)},
        "counts_agree": (it_numba == it_engine == it_loop) if not args.engine_iters else None,
        "numba_compile_s": compile_s,
        "seconds": {"numba": t_numba, "engine": t_engine, "numpy_loop": t_loop},
        "engine_iterations_timed": steps,
        "speedup_vs_engine": per_step["engine"] / per_step["numba"],
        "speedup_vs_numpy_loop": per_step["numpy_loop"] / per_step["numba"],
        "target_5x_met": per_step["engine"] / per_step["numba"] >= 5,
        "nnz_per_row": float(np.count_nonzero(B) / d),
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
