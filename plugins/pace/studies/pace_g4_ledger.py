"""What holds PACE's post-shift deviation (G4) back: how often the ledger binds after a change point.

    .venv/bin/python plugins/pace/studies/pace_g4_ledger.py [--seeds 10] [--store runs.sqlite] [--executor processes]

A diagnosis, not a target and not a tuning: seeds 200.. (not the target seeds 100..119), T = 4000, the paper's
constants. For abrupt variance, multi-block and LLM factuality at gamma_0 in {.005, .01} it prints the mean
post-shift deviation (the target's metric, toolkit_pace.metrics) of ACI and PACE, the share of the 300
post-shift rounds in which PACE's ledger binds (gamma_t below the smoothed step, |phi| at Phi), and, as a
counterfactual only, PACE with the ledger switched off (Phi = 10, the largest ``pace.stream`` takes: the
unchecked ledger stays below 0.7 on seeds 200..219 and 300..319, so it never binds; a cell where it would
is marked "Phi = 10 reached"): the smoothed step unchecked, which loses T3's guarantee. If the counterfactual reaches 0.75 x ACI where PACE does not, the ledger's budget
Phi = 0.5 is what stops G4; if not, the step the signals produce is (its post-shift max and mean are printed;
the cap gamma_max is 0.128).

The paper says "post-shift mean |local miscoverage - alpha| (300 rounds)" with local windows W = 100 and
does not say which way a window looks; the target (README) uses forward windows, as the paper's recovery
does. Three other readings are printed beside it, each as a PACE/ACI ratio: trailing windows (m_t = mean
err_{t-99..t}, t in [tau, tau + 300)), centred windows (mean err_{t-50..t+49}) and the 300-round block
(|mean err_{tau..tau+299} - alpha|, no local window: not what the paper's words say). Last,
a counterfactual of the step size only: both signal gains 0.3 instead of the paper's 0.1 (ledger on).

Every run is a ``pace.stream`` run (four per stream, gamma_0 and seed: ACI, PACE, PACE without ledger,
PACE with gains 0.3) kept in the run store (--store, default TOOLKIT_STORE): a rerun reads them back.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
from toolkit_pace.metrics import LOCAL_WINDOW, POST_SHIFT_ROUNDS, post_shift_deviation
from toolkit_pace.streams import llm_factuality, synthetic

from toolkit.argtypes import add_run_options, open_run_store

ALPHA, T, W, BURN_IN, PHI = 0.1, 4000, 500, 100, 0.5
STREAMS, GAMMA0S = ("abrupt_variance", "multi_block", "llm_factuality"), (0.005, 0.01)
FREE_PHI = 10.0  # the largest ledger cap pace.stream takes: the counterfactual without ledger
# the four runs per (stream, gamma_0, seed), as pace.stream parameters
VARIANTS = {
    "aci": {"method": "aci"},
    "pace": {"method": "pace"},
    "free": {"method": "pace", "phi_cap": FREE_PHI},
    "strong": {"method": "pace", "shift_gain": 0.3, "gap_gain": 0.3},
}


def stored_runs(seeds: range, store, executor: str) -> tuple[dict, int, int]:
    """(variant, stream, gamma_0, seed) -> the run's per-round table (err, phi, gamma_t), through the store;
    with the number of runs computed and read back."""
    import toolkit

    runs, computed, cached = {}, 0, 0
    for variant, values in VARIANTS.items():
        res = toolkit.sweep(
            "pace.stream",
            {"stream": list(STREAMS), "gamma0": list(GAMMA0S)},
            list(seeds),
            params={"alpha": ALPHA, "T": T, "calibration_window": W, "burn_in": BURN_IN, **values},
            store=store,
            executor=executor,
            check=False,
        )
        computed, cached = computed + res.n_computed, cached + res.n_cached
        for r in res.runs:
            runs[variant, r.params["stream"], r.params["gamma0"], r.seed] = {
                k: np.array([row[k] for row in r.records]) for k in ("err", "phi", "gamma_t")
            }
    return runs, computed, cached


def _stream(name: str, seed: int):
    return llm_factuality(T, seed) if name == "llm_factuality" else synthetic(name, T, seed)


def windowed_deviation(err: np.ndarray, change_points, lag: int) -> float:
    """Mean over change points of mean_{t in [tau, tau + 300)} |mean err_{t-lag..t-lag+99} - alpha|
    (lag 99: trailing windows, 50: centred; windows clipped at the ends of the run)."""
    c = np.concatenate([[0.0], np.cumsum(err, dtype=float)])
    devs = []
    for tau in change_points:
        t = np.arange(tau, min(tau + POST_SHIFT_ROUNDS, err.size))
        start = np.maximum(t - lag, 0)
        stop = np.minimum(t - lag + LOCAL_WINDOW, err.size)
        devs.append(np.mean(np.abs((c[stop] - c[start]) / (stop - start) - ALPHA)))
    return float(np.mean(devs))


def _ratio(pairs) -> str:
    """PACE/ACI ratio of the means over seeds, with a 95% seed-bootstrap interval (paired, seed 400)."""
    r = np.asarray(pairs)
    picks = np.random.default_rng(400).integers(0, len(r), size=(2000, len(r)))
    boot = r[picks, 1].mean(axis=1) / r[picks, 0].mean(axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    return f"({r[:, 1].mean() / r[:, 0].mean():.3f} [{lo:.3f}, {hi:.3f}])"


def block_deviation(err: np.ndarray, change_points) -> float:
    """Mean over change points of |mean err_{tau..tau+299} - alpha|."""
    return float(np.mean([abs(err[tau : tau + POST_SHIFT_ROUNDS].mean() - ALPHA) for tau in change_points]))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10, help="how many seeds (default 10)")
    ap.add_argument(
        "--first-seed", type=int, default=200, help="the first seed (default 200; the target's are 100..119)"
    )
    add_run_options(ap)
    args = ap.parse_args(argv)
    if args.seeds < 1 or args.first_seed < 0:
        ap.error("--seeds must be >= 1 and --first-seed >= 0")

    seeds = range(args.first_seed, args.first_seed + args.seeds)
    start = time.process_time()
    store = open_run_store(args.store)
    try:
        runs, computed, cached = stored_runs(seeds, store, args.executor)
    finally:
        store.close()
    print(
        f"seeds {seeds.start}..{seeds.stop - 1}, T = {T}; means over seeds "
        "(post-shift deviation: PACE/ACI ratio in brackets)"
    )
    print(
        "stream | gamma_0 | ACI | PACE | ledger binds (post-shift share) | max |phi| | post-shift max gamma_t, mean "
        "gamma_t | PACE without ledger (counterfactual) | trailing-window reading [95% seed bootstrap] | centred | "
        "300-round block | "
        "gains 0.3 (counterfactual)"
    )
    for name in STREAMS:
        for g0 in GAMMA0S:
            dev_aci, dev_pace, dev_free, binds, phi_max, g_max, g_mean = [], [], [], [], [], [], []
            forward = []
            trail, centred, block, big = [], [], [], []
            free_binds = False
            for seed in seeds:
                cps = [c - BURN_IN for c in _stream(name, seed).change_points if c >= BURN_IN]
                a, p, free, strong = (runs[v, name, g0, seed] for v in VARIANTS)
                free_binds |= bool(np.abs(free["phi"]).max() >= FREE_PHI * (1 - 1e-9))
                dev_aci.append(post_shift_deviation(a["err"], ALPHA, cps))
                dev_pace.append(post_shift_deviation(p["err"], ALPHA, cps))
                dev_free.append(post_shift_deviation(free["err"], ALPHA, cps))
                forward.append([dev_aci[-1], dev_pace[-1]])
                trail.append([windowed_deviation(a["err"], cps, 99), windowed_deviation(p["err"], cps, 99)])
                centred.append([windowed_deviation(a["err"], cps, 50), windowed_deviation(p["err"], cps, 50)])
                block.append([block_deviation(a["err"], cps), block_deviation(p["err"], cps)])
                big.append(post_shift_deviation(strong["err"], ALPHA, cps))
                bound = np.abs(p["phi"]) >= PHI * (1 - 1e-9)
                binds.append(np.mean([bound[c : c + POST_SHIFT_ROUNDS].mean() for c in cps]))
                phi_max.append(np.abs(p["phi"]).max())
                post = np.concatenate([p["gamma_t"][c : c + POST_SHIFT_ROUNDS] for c in cps])
                g_max.append(post.max())
                g_mean.append(post.mean())
            da, dp, df = np.mean(dev_aci), np.mean(dev_pace), np.mean(dev_free)
            print(
                f"{name} | {g0} | {da:.4f} | {dp:.4f} {_ratio(forward)} | {np.mean(binds):.3f} | "
                f"{np.max(phi_max):.2f} | "
                f"{np.mean(g_max):.3f}, {np.mean(g_mean):.4f} | {df:.4f} ({df / da:.2f})"
                f"{' Phi = 10 reached' if free_binds else ''} | "
                f"{_ratio(trail)} | {_ratio(centred)} | "
                f"({np.mean(block, axis=0)[1] / np.mean(block, axis=0)[0]:.2f}) | "
                f"{np.mean(big):.4f} ({np.mean(big) / da:.2f})"
            )
    print(f"\nCPU {time.process_time() - start:.1f} s")
    print(f"{computed + cached} runs: {computed} computed, {cached} from the store", file=sys.stderr)


if __name__ == "__main__":
    main()
