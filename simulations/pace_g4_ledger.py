"""What holds PACE's post-shift deviation (G4) back: how often the ledger binds after a change point.

    .venv/bin/python simulations/pace_g4_ledger.py [--seeds 10]

A diagnosis, not a gate and not a tuning: seeds 200.. (not the gate seeds 100..119), T = 4000, the spec's
constants. For abrupt variance, multi-block and LLM factuality at gamma_0 in {.005, .01} it prints the mean
post-shift deviation (the gate's metric, toolkit_pace.metrics) of ACI and PACE, the share of the 300
post-shift rounds in which PACE's ledger binds (gamma_t below the smoothed step, |phi| at Phi), and, as a
counterfactual only, PACE with the ledger switched off (Phi = 1e9): the smoothed step unchecked, which
loses T3's guarantee. If the counterfactual reaches 0.75 x ACI where PACE does not, the ledger's budget
Phi = 0.5 is what stops G4; if not, the step the signals produce is (its post-shift max and mean are printed;
the cap gamma_max is 0.128).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from toolkit_pace.methods import aci, pace
from toolkit_pace.metrics import POST_SHIFT_ROUNDS, post_shift_deviation
from toolkit_pace.streams import llm_factuality, synthetic

ALPHA, T, W, BURN_IN, PHI = 0.1, 4000, 500, 100, 0.5


def _stream(name: str, seed: int):
    return llm_factuality(T, seed) if name == "llm_factuality" else synthetic(name, T, seed)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10, help="seeds 200.. (default 10)")
    args = ap.parse_args(argv)
    if args.seeds < 1:
        ap.error("--seeds must be >= 1")
    start = time.process_time()
    print(f"seeds 200..{199 + args.seeds}, T = {T}; means over seeds "
          "(post-shift deviation: PACE/ACI ratio in brackets)")
    print("stream | gamma_0 | ACI | PACE | ledger binds (post-shift share) | max |phi| | post-shift max gamma_t, mean "
          "gamma_t | PACE without ledger (counterfactual)")
    for name in ("abrupt_variance", "multi_block", "llm_factuality"):
        for g0 in (0.005, 0.01):
            dev_aci, dev_pace, dev_free, binds, phi_max, g_max, g_mean = [], [], [], [], [], [], []
            for seed in range(200, 200 + args.seeds):
                s = _stream(name, seed)
                side = s.side if s.side is not None else None
                cps = [c - BURN_IN for c in s.change_points if c >= BURN_IN]
                a = aci(s.scores, ALPHA, g0, W, BURN_IN)
                p = pace(s.scores, ALPHA, g0, W, BURN_IN, side=side)
                free = pace(s.scores, ALPHA, g0, W, BURN_IN, side=side, phi_cap=1e9)
                dev_aci.append(post_shift_deviation(a.err, ALPHA, cps))
                dev_pace.append(post_shift_deviation(p.err, ALPHA, cps))
                dev_free.append(post_shift_deviation(free.err, ALPHA, cps))
                bound = np.abs(p.phi) >= PHI * (1 - 1e-9)
                binds.append(np.mean([bound[c:c + POST_SHIFT_ROUNDS].mean() for c in cps]))
                phi_max.append(np.abs(p.phi).max())
                post = np.concatenate([p.gamma_t[c:c + POST_SHIFT_ROUNDS] for c in cps])
                g_max.append(post.max())
                g_mean.append(post.mean())
            da, dp, df = np.mean(dev_aci), np.mean(dev_pace), np.mean(dev_free)
            print(f"{name} | {g0} | {da:.4f} | {dp:.4f} ({dp / da:.2f}) | {np.mean(binds):.3f} | "
                  f"{np.max(phi_max):.2f} | "
                  f"{np.mean(g_max):.3f}, {np.mean(g_mean):.4f} | {df:.4f} ({df / da:.2f})")
    print(f"\nCPU {time.process_time() - start:.1f} s")


if __name__ == "__main__":
    main()
