"""Why G2's step share (gamma_t = gamma_0 on >= 90% of exchangeable rounds) is out of reach of the paper's PACE.

    .venv/bin/python plugins/pace/studies/pace_g2_step_share.py [--seeds 20] [--iid-rounds 200000] \\
        [--store PATH] [--executor processes]

Three parts, none of which changes the method (the paper's constants throughout):

1. Arithmetic of the rule. The smoothed step falls by 1/20 of its gap per round and only rises at once, so
   after the first round with gamma* > gamma_0 it stays above gamma_0 for good (in float64 it stalls a few
   ulps above it): "exactly gamma_0" is only possible before the first signal or where the ledger binds.
   The reactive signal is discrete (the count of errors in 50 rounds); its smallest non-zero value gives
   gamma* - gamma_0 = 0.1 (|k/50 - alpha| - 2 sqrt(alpha(1 - alpha)/50))/max(alpha, 1 - alpha), and every
   trigger then keeps gamma~ above (1 + 1%) gamma_0 for L rounds, printed below.
2. The ideal case: errors iid Bernoulli(alpha) (what exact coverage gives on exchangeable data), the
   reactive term alone (no KS term, no ledger): the per-round trigger probability (exact binomial) and the
   share of rounds with gamma~ <= 1.01 gamma_0 (Monte Carlo, its own seed 300). Then the oracle case with
   the paper's whole rule: scores iid |N(0, 1)| (the exchangeable stream), the threshold the true quantile
   (so the errors are exactly iid Bernoulli(alpha)), the KS term on those scores, the gap term, the
   smoothing, the cap and the ledger (seed 301).
3. The measured runs (exchangeable stream, the target seeds 100.. and T = 4000, as plugins/pace/studies/pace_gates.py):
   the share with gamma_t <= 1.01 gamma_0, and the same smoothing recursion re-run on the run's reactive
   signal alone and on its proactive (KS) signal alone. gamma~ is monotone in the targets, so the share of
   the full method is at most the smaller of the two one-signal shares (the ledger can only lower gamma_t;
   the rounds where it binds are counted). Also printed: the share of rounds with no signal at all (gamma* = gamma_0),
   which is not what G2 measures (gamma_t, the step used).
4. The exchangeable violation rate of PACE against ACI at gamma_0 = 0.01 over the same seeds.

The runs of parts 3 and 4 are ``pace.stream`` runs (PACE's per-round shift_signal, gap_signal and
gamma_smooth columns) kept in the run store (--store, default TOOLKIT_STORE): a rerun reads them back.
Parts 1 and 2 stay outside the store on purpose: they rebuild the rule from its definition, apart from
the method, with fixed seeds, in seconds.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np
from scipy import stats
from toolkit_pace.methods import ledger_step, pace_kappa
from toolkit_pace.window import ks_statistic

from toolkit.argtypes import add_run_options, open_run_store

ALPHA, GAP_WINDOW, GAIN, DECAY, TOLERANCE = 0.1, 50, 0.1, 20.0, 0.01
T, CALIBRATION_WINDOW, BURN_IN = 4000, 500, 100
SHIFT_WINDOW, REFERENCE_WINDOW, DELTA, GAMMA_CAP, PHI_CAP = 50, 200, 0.01, 0.128, 0.5


def smoothed(target: np.ndarray, gamma0: float) -> np.ndarray:
    """The paper's smoothing: gamma~ = gamma* when it rises, else gamma~ + (gamma* - gamma~)/20; gamma~_0 = gamma_0."""
    out = np.empty(target.size)
    g = gamma0
    for i, t in enumerate(target):
        g = t if t >= g else g + (t - g) / DECAY
        out[i] = g
    return out


def reactive_signal(err: np.ndarray) -> np.ndarray:
    """R_t of the paper from an error sequence (0 until 50 rounds)."""
    margin = 2 * math.sqrt(ALPHA * (1 - ALPHA) / GAP_WINDOW)
    c = np.concatenate([[0], np.cumsum(err)])
    mean = np.full(err.size, np.nan)
    mean[GAP_WINDOW - 1 :] = (c[GAP_WINDOW:] - c[:-GAP_WINDOW]) / GAP_WINDOW
    r = np.maximum(0.0, np.abs(mean - ALPHA) - margin) / max(ALPHA, 1 - ALPHA)
    return np.nan_to_num(r, nan=0.0)


def rounds_above_after_trigger(jump: float, gamma0: float) -> int:
    """Rounds (the trigger round included) with gamma~ > (1 + TOLERANCE) gamma_0 after one jump, no new signal."""
    return math.floor(math.log(TOLERANCE * gamma0 / jump) / math.log(1 - 1 / DECAY)) + 1


def arithmetic() -> float:
    margin = 2 * math.sqrt(ALPHA * (1 - ALPHA) / GAP_WINDOW)
    counts = np.arange(GAP_WINDOW + 1)
    excess = np.abs(counts / GAP_WINDOW - ALPHA) - margin
    smallest = float(np.min(excess[excess > 0])) / max(ALPHA, 1 - ALPHA)
    jump = GAIN * smallest
    binom = stats.binom(GAP_WINDOW, ALPHA)
    fires = counts[excess > 0]
    p_fire = float(binom.pmf(fires).sum())
    print("1. arithmetic of the rule (the paper's constants)")
    print(
        f"   reactive margin 2 sqrt(a(1-a)/50) = {margin:.4f}: fires when the error count in 50 rounds is "
        f"<= {int(fires[fires < ALPHA * GAP_WINDOW].max())} or >= {int(fires[fires > ALPHA * GAP_WINDOW].min())}"
    )
    print(f"   smallest non-zero R_t = {smallest:.5f}, so gamma* - gamma_0 >= {jump:.3g}")
    for g0 in (0.005, 0.01):
        print(
            f"   gamma_0 = {g0}: one trigger keeps gamma~ > 1.01 gamma_0 for >= "
            f"{rounds_above_after_trigger(jump, g0)} rounds; float64 stalls gamma~ - gamma_0 at "
            f"{_stall(g0):.2g} (never 0)"
        )
    print(f"   P(R_t > 0) per round under iid Bernoulli({ALPHA}) errors: {p_fire:.4f} (exact binomial)")
    return jump


def _stall(gamma0: float) -> float:
    g = gamma0 + 1e-3
    for _ in range(100_000):
        nxt = g + (gamma0 - g) / DECAY
        if nxt == g:
            break
        g = nxt
    return g - gamma0


def iid_case(rounds: int) -> None:
    rng = np.random.default_rng(300)
    err = (rng.random(rounds) < ALPHA).astype(float)
    r = reactive_signal(err)
    print(f"\n2. iid Bernoulli({ALPHA}) errors, reactive term only, {rounds} rounds (seed 300)")
    print(f"   share of rounds with R_t > 0: {np.mean(r > 0):.4f}")
    for g0 in (0.005, 0.01):
        g = smoothed(np.minimum(0.128, g0 + GAIN * r), g0)
        blocks = (g[: rounds // 3900 * 3900] <= (1 + TOLERANCE) * g0).reshape(-1, 3900).mean(axis=1)
        print(
            f"   gamma_0 = {g0}: share gamma~ <= 1.01 gamma_0 = {np.mean(g <= (1 + TOLERANCE) * g0):.3f} "
            f"(per 3900-round block: 10th-90th pct {np.percentile(blocks, 10):.3f}..{np.percentile(blocks, 90):.3f}, "
            f"max {blocks.max():.3f}); exactly gamma_0: {np.mean(g == g0):.4f}"
        )


def shift_signal(scores: np.ndarray) -> np.ndarray:
    """P_t of the paper: KS(last 50 scores, the 200 before) past kappa, scaled (0 until 250 scores)."""
    kappa = pace_kappa(SHIFT_WINDOW, REFERENCE_WINDOW, DELTA)
    span = SHIFT_WINDOW + REFERENCE_WINDOW
    out = np.zeros(scores.size)
    for t in range(span - 1, scores.size):
        window = scores[t + 1 - span : t + 1]
        d = ks_statistic(window[REFERENCE_WINDOW:], window[:REFERENCE_WINDOW])
        out[t] = max(0.0, d - kappa) / (1 - kappa)
    return out


def full_rule_steps(
    shift: np.ndarray, gap: np.ndarray, err: np.ndarray, gamma0: float, phi_cap: float = PHI_CAP
) -> np.ndarray:
    """gamma_t of the paper's whole rule (cap, smoothing, ledger) from given signals and errors."""
    out = np.empty(err.size)
    smooth, phi = gamma0, 0.0
    for i in range(err.size):
        target = min(GAMMA_CAP, gamma0 + GAIN * shift[i] + GAIN * gap[i])
        smooth = target if target >= smooth else smooth + (target - smooth) / DECAY
        d = ALPHA - err[i]
        gamma = ledger_step(smooth, gamma0, phi, d, phi_cap)
        phi = max(-phi_cap, min(phi_cap, phi + (gamma - gamma0) * d))
        out[i] = gamma
    return out


def oracle_case(rounds: int) -> None:
    rng = np.random.default_rng(301)
    scores = np.abs(rng.standard_normal(rounds))
    err = (scores > stats.norm.ppf(1 - ALPHA / 2)).astype(float)  # the true quantile: iid Bernoulli(alpha)
    shift, gap = shift_signal(scores), reactive_signal(err)
    print(
        f"\n   oracle threshold, the paper's whole rule (KS + gap + cap + smoothing + ledger), {rounds} rounds "
        f"(seed 301): error rate {err.mean():.4f}; rounds with R_t > 0: {np.mean(gap > 0):.4f}, KS > 0: "
        f"{np.mean(shift > 0):.4f}"
    )
    for g0 in (0.005, 0.01):
        g = full_rule_steps(shift, gap, err, g0)
        blocks = (g[: rounds // 3900 * 3900] <= (1 + TOLERANCE) * g0).reshape(-1, 3900).mean(axis=1)
        print(
            f"   gamma_0 = {g0}: share gamma_t <= 1.01 gamma_0 = {np.mean(g <= (1 + TOLERANCE) * g0):.3f} "
            f"(per 3900-round block: 10th-90th pct {np.percentile(blocks, 10):.3f}..{np.percentile(blocks, 90):.3f}, "
            f"max {blocks.max():.3f})"
        )


def stored_runs(seeds: range, store, executor: str) -> tuple[dict, int, int]:
    """(method, gamma_0, seed) -> the run's per-round table (PACE at gamma_0 = .005 and .01, ACI at .01) on
    the exchangeable stream, from ``pace.stream`` through the run store; and the counts computed, stored."""
    import toolkit

    base = {"stream": "exchangeable", "T": T, "alpha": ALPHA, "calibration_window": CALIBRATION_WINDOW}
    base["burn_in"] = BURN_IN
    runs, computed, cached = {}, 0, 0
    for method, gammas in (("pace", [0.005, 0.01]), ("aci", [0.01])):
        res = toolkit.sweep(
            "pace.stream",
            {"gamma0": gammas},
            list(seeds),
            params={**base, "method": method},
            store=store,
            executor=executor,
            check=False,
        )
        computed, cached = computed + res.n_computed, cached + res.n_cached
        for r in res.runs:
            runs[(method, r.params["gamma0"], r.seed)] = r
    return runs, computed, cached


def measured(seeds: range, runs: dict) -> None:
    print(
        f"\n3. PACE on the exchangeable stream, T = {T}, seeds {seeds.start}..{seeds.stop - 1} (means over seeds)"
    )
    print(
        "   gamma_0 | share gamma_t <= 1.01 g0 | exactly g0 | ledger binds | first signal (median round) | "
        "reactive alone | KS alone | rounds with R>0 / KS>0 | no signal (gamma* = g0) | burn-in counted | "
        "tolerance for 0.9"
    )
    for g0 in (0.005, 0.01):
        rows, ratios = [], []
        for seed in seeds:
            table = runs[("pace", g0, seed)].table
            shift, gap = table["shift_signal"].to_numpy(), table["gap_signal"].to_numpy()
            smooth, gamma = table["gamma_smooth"].to_numpy(), table["gamma_t"].to_numpy()
            n = T - BURN_IN
            signal = np.flatnonzero((shift > 0) | (gap > 0))
            limit = (1 + TOLERANCE) * g0
            rows.append(
                (
                    np.mean(gamma <= limit),
                    np.mean(gamma == g0),
                    np.mean(gamma < smooth),
                    signal[0] if signal.size else n,
                    np.mean(smoothed(np.minimum(0.128, g0 + GAIN * gap), g0) <= limit),
                    np.mean(smoothed(np.minimum(0.128, g0 + GAIN * shift), g0) <= limit),
                    np.mean(gap > 0),
                    np.mean(shift > 0),
                    np.mean((gap == 0) & (shift == 0)),
                    (signal[0] if signal.size else n) / n,
                )
            )
            ratios.append(gamma / g0 - 1)
        a = np.array(rows, dtype=float)
        needed = float(np.quantile(np.concatenate(ratios), 0.9))
        m = a.mean(axis=0)
        print(
            f"   {g0:<7} | {m[0]:.3f} (seeds {a[:, 0].min():.3f}..{a[:, 0].max():.3f}) | {m[1]:.3f} | "
            f"{round(a[:, 2].sum() * (T - BURN_IN))} of {len(seeds) * (T - BURN_IN)} rounds | "
            f"{np.median(a[:, 3]):.0f} (share of rounds before it: {m[9]:.3f}) | {m[4]:.3f} | {m[5]:.3f} | "
            f"{m[6]:.4f} / {m[7]:.4f} | {m[8]:.3f} | {(m[0] * n + BURN_IN) / T:.3f} | "
            f"gamma_t <= {1 + needed:.2f} gamma_0"
        )


def violation_ratio(seeds: range, runs: dict, gamma0: float = 0.01) -> None:
    r = np.array(
        [[runs[(m, gamma0, seed)].summary["violation_rate"] for m in ("aci", "pace")] for seed in seeds]
    )
    rng = np.random.default_rng(302)
    picks = rng.integers(0, len(r), size=(2000, len(r)))
    boot = r[picks, 1].mean(axis=1) / r[picks, 0].mean(axis=1)
    lo, hi = np.percentile(boot, [2.5, 97.5])
    print(
        f"\n4. exchangeable violation rate, gamma_0 = {gamma0}, seeds {seeds.start}..{seeds.stop - 1}: ACI "
        f"{r[:, 0].mean():.4f}, PACE {r[:, 1].mean():.4f}, ratio {r[:, 1].mean() / r[:, 0].mean():.3f} "
        f"[95% seed bootstrap {lo:.3f}, {hi:.3f}] (target: within [0.9, 1.1]); PACE lower in "
        f"{int(np.sum(r[:, 1] < r[:, 0]))}/{len(r)} seeds"
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20, help="exchangeable runs, seeds 100.. (default 20)")
    ap.add_argument("--iid-rounds", type=int, default=390_000, help="rounds of the iid Bernoulli case")
    add_run_options(ap)
    args = ap.parse_args(argv)
    if args.seeds < 1 or args.iid_rounds < 3900:
        ap.error("--seeds must be >= 1 and --iid-rounds >= 3900")
    start = time.process_time()
    arithmetic()
    iid_case(args.iid_rounds)
    oracle_case(args.iid_rounds)
    seeds = range(100, 100 + args.seeds)
    store = open_run_store(args.store)
    try:
        runs, computed, cached = stored_runs(seeds, store, args.executor)
    finally:
        store.close()
    measured(seeds, runs)
    violation_ratio(seeds, runs)
    print(f"\nCPU {time.process_time() - start:.1f} s")
    print(f"{computed + cached} runs: {computed} computed, {cached} from the store", file=sys.stderr)


if __name__ == "__main__":
    main()
