"""The R1 scaling sweep, batched vs a plain per-run numpy loop of the same updates.

Sweep: d in 16..4096 (9 values) x 20 seeds x {linear GD at gamma = 1e2, 1e3, 1e4; quadratic two-layer
(fixed outer layer, m = 20) in perceptron form}. The linear model starts at v_0 = 0, so its 20 seeds
repeat the same run (as a seed sweep would).
Batched = ``simulation.run_sweep``, the path of ``gd_perceptron.scaling``: Gram form (n = 2 < d); the
linear part runs all d, gamma and seeds in one batch (R1 zero-padded to the largest d), the two-layer
part one batch of 20 seeds per d (padding its dense initial weights would cost more than it saves).
Baseline: one ``engine.reference_run`` per run, a plain loop in the (m, d) weights. Also timed: one
batch per d in the plain (m, d) form, which separates the gain of batching from that of the Gram form.
Target: batched >= 10x faster. Iteration counts of both must agree.

    python plugins/gd_perceptron/benchmarks/gd_perceptron_sweep.py                 # full sweep
    python plugins/gd_perceptron/benchmarks/gd_perceptron_sweep.py --d-max 512 --seeds 5
"""

from __future__ import annotations

import argparse
import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--d-max", type=int, default=4096, help="largest d (powers of two from 16)")
    ap.add_argument("--seeds", type=int, default=20, help="seeds per d")
    ap.add_argument("--skip-primal", action="store_true", help="do not time the batched primal variant")
    args = ap.parse_args()

    import math

    import numpy as np
    from toolkit_gd_perceptron import data, engine, models
    from toolkit_gd_perceptron import simulation as sims

    d_values = [d for d in (16, 32, 64, 128, 256, 512, 1024, 2048, 4096) if d <= args.d_max]
    gammas = [1e2, 1e3, 1e4]
    seeds = list(range(args.seeds))
    parts = {
        "linear": (models.linear(), "gd", gammas),
        "quadratic": (models.two_layer("quadratic", 20), "perceptron", [1.0]),
    }

    def batched_sweep():
        # the path of gd_perceptron.scaling (simulation.run_sweep), Gram form
        counts, times = {}, {}
        for name, (model, mode, gs) in parts.items():
            datasets = [data.r1(d) for d in d_values]
            start = time.perf_counter()
            rows = sims.run_sweep(
                datasets, model, "gd", gs if mode == "gd" else [math.inf], seeds, max_iter=100_000
            )
            times[name] = time.perf_counter() - start
            order = {
                (k, g, s): r["iterations"]
                for r in rows
                for k, g, s in [(r["dataset_index"], r["gamma"], r["run_seed"])]
            }
            counts[name] = [
                order[(k, (g if mode == "gd" else math.inf), s)]
                for k in range(len(d_values))
                for g in gs
                for s in seeds
            ]
        return counts, times

    def batched_primal_per_d():
        # batching alone: one batch per d in the plain (m, d) weights
        times = {}
        for name, (model, mode, gs) in parts.items():
            start = time.perf_counter()
            for d in d_values:
                B, y = data.r1(d)
                W0, a0 = models.init_weights(model, d, seeds)
                engine.run_batch(
                    B,
                    y,
                    model,
                    np.repeat(gs, len(seeds)),
                    np.tile(W0, (len(gs), 1, 1)),
                    np.tile(a0, (len(gs), 1)),
                    mode=mode,
                    max_iter=100_000,
                    representation="primal",
                    keep_weights=False,
                )
            times[name] = time.perf_counter() - start
        return times

    def per_run():
        counts, times = {}, {}
        for name, (model, mode, gs) in parts.items():
            start = time.perf_counter()
            out = []
            for d in d_values:
                B, y = data.r1(d)
                W0, a0 = models.init_weights(model, d, seeds)
                for g in gs:
                    for s in range(len(seeds)):
                        out.append(
                            engine.reference_run(B, y, model, g, W0[s], a0[s], mode=mode, max_iter=100_000)
                        )
            # same order as batched_sweep: d, gamma, seed
            times[name] = time.perf_counter() - start
            counts[name] = out
        return counts, times

    c_b, t_b = batched_sweep()
    print(f"batched sweep (scaling path):     {sum(t_b.values()):.2f} s  {t_b}", flush=True)
    result = {"d_values": d_values, "seeds": len(seeds), "batched_s": t_b}
    if not args.skip_primal:
        t_p = batched_primal_per_d()
        print(f"batched per d, (m, d) form:      {sum(t_p.values()):.2f} s  {t_p}", flush=True)
        result["batched_primal_s"] = t_p
    c_r, t_r = per_run()
    print(f"per-run loop:                     {sum(t_r.values()):.2f} s  {t_r}", flush=True)
    result["per_run_s"] = t_r
    for name in parts:
        diff = [(a, b) for a, b in zip(c_b[name], c_r[name]) if a != b]
        result[f"{name}_runs"] = len(c_r[name])
        result[f"{name}_count_mismatches"] = len(diff)
        result[f"{name}_max_abs_count_difference"] = max((abs(a - b) for a, b in diff), default=0)
    result["speedup_total"] = sum(t_r.values()) / sum(t_b.values())
    result["speedup_by_part"] = {k: t_r[k] / t_b[k] for k in parts}
    if not args.skip_primal:
        result["speedup_total_primal_batched"] = sum(t_r.values()) / sum(t_p.values())
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
