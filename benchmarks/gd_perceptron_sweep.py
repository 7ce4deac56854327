"""The R1 scaling sweep, batched vs a plain per-run numpy loop of the same updates.

Sweep: d in 16..4096 (9 values) x 20 seeds x {linear GD at gamma = 1e2, 1e3, 1e4; quadratic two-layer
(fixed outer layer, m = 20) in perceptron form}. The linear model starts at v_0 = 0, so its 20 seeds
repeat the same run (as a seed sweep would). Batched: all runs of one d advance as one array
computation (``engine.run_batch``, Gram/dual form since n = 2 < d); baseline: one
``engine.reference_run`` per run, a plain loop in the (m, d) weights. Also timed: the batched engine
forced to the (m, d) primal form, which separates the gain of batching from that of the Gram form.
Target (issue 3): batched >= 10x faster. Iteration counts of both must agree.

    python benchmarks/gd_perceptron_sweep.py                 # full sweep
    python benchmarks/gd_perceptron_sweep.py --d-max 512 --seeds 5
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

    import numpy as np

    from plugins.gd_perceptron import data, engine, models

    d_values = [d for d in (16, 32, 64, 128, 256, 512, 1024, 2048, 4096) if d <= args.d_max]
    gammas = [1e2, 1e3, 1e4]
    seeds = list(range(args.seeds))
    parts = {"linear": (models.linear(), "gd", gammas), "quadratic": (models.two_layer("quadratic", 20), "perceptron", [1.0])}

    def batched(representation):
        counts, times = {}, {}
        for name, (model, mode, gs) in parts.items():
            start = time.perf_counter()
            out = []
            for d in d_values:
                B, y = data.r1(d)
                W0, a0 = models.init_weights(model, d, seeds)
                res = engine.run_batch(B, y, model, np.repeat(gs, len(seeds)), np.tile(W0, (len(gs), 1, 1)),
                                       np.tile(a0, (len(gs), 1)), mode=mode, max_iter=100_000,
                                       representation=representation)
                out.extend(int(v) for v in res.iterations)
            times[name] = time.perf_counter() - start
            counts[name] = out
        return counts, times

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
                        out.append(engine.reference_run(B, y, model, g, W0[s], a0[s], mode=mode, max_iter=100_000))
            times[name] = time.perf_counter() - start
            counts[name] = out
        return counts, times

    c_b, t_b = batched("auto")
    print(f"batched (auto/dual): {sum(t_b.values()):.2f} s  {t_b}", flush=True)
    result = {"d_values": d_values, "seeds": len(seeds), "batched_s": t_b}
    if not args.skip_primal:
        c_p, t_p = batched("primal")
        print(f"batched (primal):    {sum(t_p.values()):.2f} s  {t_p}", flush=True)
        result["batched_primal_s"] = t_p
    c_r, t_r = per_run()
    print(f"per-run loop:        {sum(t_r.values()):.2f} s  {t_r}", flush=True)
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
