"""Headline experiments of pace for ``toolkit reproduce``: the targets G1-G5.

quick: one seed (seconds); full: the 20 fresh seeds (100..119) that ``plugins/pace/studies/pace_gates.py`` runs and the
plugin README quotes. Every run is held against its method's bounds with the registered Bound specs
(``toolkit.check_table``), zero tolerance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from toolkit import Comparison, Experiment, ExperimentOutcome

FULL_SEEDS = tuple(range(100, 120))
QUICK_SEEDS = (100,)
SHIFT_STREAMS = ("abrupt_variance", "multi_block", "llm_factuality")
GAMMA0S = (0.005, 0.01)
BOUNDED_METHODS = ("aci", "pace", "quantile_tracking", "decaying")
G1_STREAMS = (
    "exchangeable",
    "drift",
    "abrupt_variance",
    "mean_jump",
    "multi_block",
    "computo",
    "llm_factuality",
    "co2",
    "elnino",
    "sunspots",
    "inflation",
    "nile",
)
# the reference run (not a paper result): recovery ACI -> PACE per stream and gamma0
REFERENCE_RECOVERY = {
    ("abrupt_variance", 0.005): (272, 75),
    ("multi_block", 0.005): (885, 261),
    ("llm_factuality", 0.005): (310, 81),
    ("abrupt_variance", 0.01): (174, 56),
    ("multi_block", 0.01): (548, 197),
    ("llm_factuality", 0.01): (185, 56),
}
PROGRESS = False  # plugins/pace/studies/pace_gates.py prints one line per run
# a RunStore (or path): every run then goes through toolkit.run and that store, so a rerun resumes
STORE: Any = None
GAMMA0_TOLERANCE = (
    0.01  # "gamma_t = gamma_0" read as gamma_t <= (1 + 1%) gamma_0 (exact equality reported too)
)


def _stream_params(stream: str, T: int) -> dict:
    """Real series keep their length (nile: 87 scores, so burn_in = 20); Computo is the reference T = 500 study."""
    if stream == "nile":
        return {"burn_in": 20, "calibration_window": 500}
    if stream == "computo":
        return {"T": 500}
    return {"T": T}


CHECK_COLUMNS = ("n_rounds", "coverage_gap", "alpha_1", "gamma_max", "delta_l1", "box_width")
_RUNS: dict[tuple, dict] = {}
_BOUNDS: list = []


def _bounds() -> list:
    """The registered Bound specs the runs are held against (looked up once per process)."""
    import toolkit

    if not _BOUNDS:
        registry = toolkit.get_registry()
        _BOUNDS.extend(registry.bound(n) for n in ("pace.aci_long_run", "pace.step_sequence", "pace.ledger"))
    return _BOUNDS  # per process: g2, g3-g4 and g5 share their runs


def evaluate(method: str, stream: str, gamma0: float, seed: int, T: int = 4000) -> dict:
    """``_evaluate`` once per (method, stream, gamma0, seed, T) in this process."""
    key = (method, stream, gamma0, seed, T)
    if key not in _RUNS:
        _RUNS[key] = _evaluate(method, stream, gamma0, seed, T)
        if PROGRESS:
            r = _RUNS[key]
            print(
                f"{len(_RUNS)} {method} {stream} {gamma0} {seed}: bounds hold {r['bounds_hold']}", flush=True
            )
    return _RUNS[key]


def _evaluate(method: str, stream: str, gamma0: float, seed: int, T: int = 4000, **extra) -> dict:
    """One run of pace.stream, its summary, and its check against every bound that applies (min margin)."""
    import toolkit
    from toolkit_pace.simulation import StreamParams, stream_run

    values = {"method": method, "stream": stream, "gamma0": gamma0, **_stream_params(stream, T), **extra}
    params = StreamParams(**values)
    if STORE is None:
        out = stream_run(params, seed)
        table, summary, cached = out.records, out.summary, False
    else:  # the same run, kept in (or served from) the store; the bounds are checked below
        res = toolkit.run("pace.stream", values, seed, store=STORE, check=False)
        table, summary, cached = pd.DataFrame(res.records), res.summary, res.from_cache
    # the columns the bounds read, with the run's parameters (what the runner's table has)
    needed = table[[c for c in CHECK_COLUMNS if c in table.columns]].assign(
        method=method, gamma0=params.gamma0, phi_cap=params.phi_cap, alpha=params.alpha
    )
    held, rows, margin = True, 0, math.inf
    for bound in _bounds():
        checks = toolkit.check_table(needed, bound)
        active = checks[~checks["skipped"].astype(bool)]
        if len(active):
            rows += len(active)
            held = held and bool(active["holds"].astype(bool).all())
            margin = min(margin, float(active["margin"].min()))
    return {
        "method": method,
        "stream": stream,
        "gamma0": gamma0,
        "seed": seed,
        **summary,
        "gamma0_within_1pct": float(np.mean(table["gamma_t"] <= (1 + GAMMA0_TOLERANCE) * gamma0)),
        "bound_rows": rows,
        "bounds_hold": held,
        "min_margin": margin if rows else math.nan,
        "_err": table["err"].to_numpy(),
        "_t": table["t"].to_numpy(),
        "_from_cache": cached,
    }


def _frame(runs: Sequence[dict]) -> pd.DataFrame:
    return pd.DataFrame([{k: v for k, v in r.items() if not k.startswith("_")} for r in runs])


def g1_bounds(quick: bool, seeds: Sequence[int] | None = None) -> ExperimentOutcome:
    """G1: every run of ACI, PACE (all seeds, both gamma_0), quantile tracking and decaying steps (first 5 seeds)
    on every stream (synthetic, LLM, statsmodels) respects its bounds (T1 for ACI, T2 for all four, T3 for
    PACE) at every prefix."""
    seeds = seeds or (QUICK_SEEDS if quick else FULL_SEEDS)
    streams = ("abrupt_variance", "llm_factuality", "nile") if quick else G1_STREAMS
    T = 1000 if quick else 4000
    runs = []
    for stream in streams:
        stream_seeds = seeds[:1] if stream in ("co2", "elnino", "sunspots", "inflation", "nile") else seeds
        for seed in stream_seeds:
            for method in BOUNDED_METHODS:
                # the score-space methods on the first 5 seeds only (CPU budget); ACI and PACE on all
                if method not in ("aci", "pace") and seed not in stream_seeds[:5]:
                    continue
                for g0 in (0.005,) if method not in ("aci", "pace") else GAMMA0S:
                    runs.append(evaluate(method, stream, g0, seed, T))
    table = _frame(runs)
    ok = bool(table.bounds_hold.all())
    comps = [
        Comparison(
            f"every run within its bounds ({len(table)} runs, {int(table.bound_rows.sum())} prefix rows; "
            "target: all, zero tolerance)",
            "all (reference run)",
            f"{int(table.bounds_hold.sum())}/{len(table)}; min margin {table.min_margin.min():.3g}",
            ok,
        )
    ]
    return ExperimentOutcome(table, comps)


def shift_runs(seeds: Sequence[int], T: int = 4000, methods=("aci", "pace", "dtaci")) -> list[dict]:
    """ACI and PACE at both gamma0, DtACI once, on the shift streams and the exchangeable one."""
    runs = []
    for stream in ("exchangeable", *SHIFT_STREAMS):
        for seed in seeds:
            for method in methods:
                for g0 in GAMMA0S if method in ("aci", "pace") else (0.005,):
                    runs.append(evaluate(method, stream, g0, seed, T))
    return runs


def _mean(table: pd.DataFrame, column: str, **where) -> float:
    mask = np.ones(len(table), bool)
    for k, v in where.items():
        mask &= (table[k] == v).to_numpy()
    return float(table.loc[mask, column].mean())


def g2_exchangeable(quick: bool, runs: Sequence[dict] | None = None) -> ExperimentOutcome:
    """G2: on the exchangeable stream PACE's violation rate and width are within 10% of ACI's; the share of
    rounds PACE spends at gamma_0 (within 1%) is reported beside them, not held to a target."""
    runs = runs if runs is not None else shift_runs(QUICK_SEEDS)
    table = _frame(runs)
    comps = []
    for g0 in GAMMA0S:
        for col, label in (("violation_rate", "violation rate"), ("mean_width", "mean width")):
            a = _mean(table, col, method="aci", stream="exchangeable", gamma0=g0)
            p = _mean(table, col, method="pace", stream="exchangeable", gamma0=g0)
            comps.append(
                Comparison(
                    f"exchangeable, gamma0={g0}: PACE {label} within 10% of ACI's",
                    "passed (reference run)",
                    f"PACE {p:.4f} vs ACI {a:.4f} (ratio {p / a:.3f})",
                    bool(abs(p / a - 1) <= 0.10),
                    documented=(
                        "PACE violates less often than ACI, which this two-sided target counts as a miss "
                        "(ratio 0.847 over seeds 100-119 at gamma0=0.01; pace targets page)"
                        if label == "violation rate" and p < a
                        else ""
                    ),
                )
            )
        share = _mean(table, "gamma0_within_1pct", method="pace", stream="exchangeable", gamma0=g0)
        exact = _mean(table, "gamma0_fraction", method="pace", stream="exchangeable", gamma0=g0)
        comps.append(  # reported, not a target: the width and violation criteria are G2
            Comparison(
                f"exchangeable, gamma0={g0}: share of rounds with gamma_t <= 1.01 gamma_0 (reported only)",
                "passed (reference run)",
                f"{share:.3f} (exactly gamma_0: {exact:.3f})",
                None,
            )
        )
    return ExperimentOutcome(table, comps)


def g3_g4_shift(quick: bool, runs: Sequence[dict] | None = None) -> ExperimentOutcome:
    """G3: PACE's total recovery time <= 0.5 x ACI's on abrupt variance, multi-block and LLM streams at
    gamma_0 in {.005, .01}; G4: its post-shift local deviation <= 0.75 x ACI's, local coverage read with
    trailing windows (the last 100 rounds played; the forward-window reading is reported beside). DtACI
    reported beside."""
    runs = runs if runs is not None else shift_runs(QUICK_SEEDS)
    table = _frame(runs)
    comps = []
    for g0 in GAMMA0S:
        for stream in SHIFT_STREAMS:
            a = _mean(table, "recovery_total", method="aci", stream=stream, gamma0=g0)
            p = _mean(table, "recovery_total", method="pace", stream=stream, gamma0=g0)
            d = _mean(table, "recovery_total", method="dtaci", stream=stream)
            proto = REFERENCE_RECOVERY[(stream, g0)]
            comps.append(
                Comparison(
                    f"G3 recovery {stream}, gamma0={g0}: ACI -> PACE (target PACE <= 0.5 ACI; "
                    "abstract: > 2.5x faster); DtACI",
                    f"reference run {proto[0]} -> {proto[1]}",
                    f"{a:.0f} -> {p:.0f} ({a / p:.2f}x faster); DtACI {d:.0f}",
                    bool(p <= 0.5 * a),
                )
            )
    for g0 in GAMMA0S:
        for stream in SHIFT_STREAMS:
            # G4 reads local coverage with trailing windows (the rounds just played); forward beside it
            col = "post_shift_deviation_trailing"
            a = _mean(table, col, method="aci", stream=stream, gamma0=g0)
            p = _mean(table, col, method="pace", stream=stream, gamma0=g0)
            d = _mean(table, col, method="dtaci", stream=stream)
            fa = _mean(table, "post_shift_deviation", method="aci", stream=stream, gamma0=g0)
            fp = _mean(table, "post_shift_deviation", method="pace", stream=stream, gamma0=g0)
            comps.append(
                Comparison(
                    f"G4 post-shift deviation, trailing windows, {stream}, gamma0={g0} (target PACE <= 0.75 "
                    "ACI; abstract: up to -60%); DtACI",
                    "reference run -37..-51%",
                    f"{a:.4f} -> {p:.4f} ({100 * (p / a - 1):+.0f}%); DtACI {d:.4f}; "
                    f"forward windows {100 * (fp / fa - 1):+.0f}%",
                    bool(p <= 0.75 * a),
                    documented=(
                        "the quick setting runs one seed; over seeds 300-319 every stream meets it "
                        "(pace targets page)"
                        if quick
                        else ""
                    ),
                )
            )
    curves = {
        (r["method"], r["gamma0"]): r
        for r in runs
        if r["stream"] == "abrupt_variance" and r["seed"] == runs[0]["seed"] and r["gamma0"] == 0.005
    }

    def plot(fig):
        from toolkit_pace.metrics import forward_local

        ax = fig.add_subplot(111)
        for (method, _), r in sorted(curves.items()):
            local = forward_local(r["_err"], 100)
            ax.plot(r["_t"][: local.size], local, lw=0.8, label=method)
        ax.axhline(0.1, color="k", ls="--", lw=0.8)
        ax.set_xlabel("round t (abrupt variance: sigma 1 -> 3 at 1500, -> 1 at 2500)")
        ax.set_ylabel("miscoverage over the next 100 rounds")
        ax.legend(fontsize=7)

    return ExperimentOutcome(table, comps, plot if curves else None)


def g5_long_run(quick: bool, runs: Sequence[dict] | None = None) -> ExperimentOutcome:
    """G5: PACE's long-run deviation <= 0.015 and abstention (q = +inf) <= 5% on every run; on the LLM stream
    its retained-claim fraction >= ACI's - 0.02."""
    runs = runs if runs is not None else shift_runs(QUICK_SEEDS)
    table = _frame(runs)
    pace_runs = table[table.method == "pace"]
    worst_dev, worst_abstain = pace_runs.long_run_deviation.max(), pace_runs.abstain_fraction.max()
    aci_dev = table[table.method == "aci"].long_run_deviation.max()
    comps = [
        Comparison(
            "PACE long-run |mean err - alpha|, worst run (target <= 0.015); ACI's worst",
            "reference run <= 0.010 (ACI <= 0.005)",
            f"{worst_dev:.4f}; ACI {aci_dev:.4f}",
            bool(worst_dev <= 0.015),
        ),
        Comparison(
            "PACE abstention q = +inf, worst run (target <= 5%)",
            "reference run <= 3%",
            f"{100 * worst_abstain:.2f}%",
            bool(worst_abstain <= 0.05),
        ),
    ]
    for g0 in GAMMA0S:
        a = _mean(table, "retained_fraction", method="aci", stream="llm_factuality", gamma0=g0)
        p = _mean(table, "retained_fraction", method="pace", stream="llm_factuality", gamma0=g0)
        comps.append(
            Comparison(
                f"LLM retained claims, gamma0={g0}: PACE >= ACI - 0.02",
                "passed (reference run)",
                f"PACE {p:.4f} vs ACI {a:.4f}",
                bool(p >= a - 0.02),
            )
        )
    return ExperimentOutcome(table, comps)


EXPERIMENTS = [
    Experiment(
        "pace.g1_bounds",
        "G1: every run of ACI, PACE, quantile tracking, decaying steps within its bounds "
        "(T1, T2, T3) at every prefix",
        g1_bounds,
    ),
    Experiment(
        "pace.g2_exchangeable",
        "G2: without shift PACE behaves like ACI (violation rate, width, steps at gamma_0)",
        g2_exchangeable,
    ),
    Experiment(
        "pace.g3_g4_shift",
        "G3-G4: recovery time and post-shift deviation of PACE vs ACI (DtACI beside)",
        g3_g4_shift,
    ),
    Experiment(
        "pace.g5_long_run", "G5: PACE's long-run deviation, abstention and retained LLM claims", g5_long_run
    ),
]
