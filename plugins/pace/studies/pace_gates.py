"""The targets G1-G5 (our reading of the paper) over 20 fresh seeds (100..119), every run held against its bounds.

    .venv/bin/python plugins/pace/studies/pace_gates.py --out pace_gates.md [--store runs.sqlite] [--quick]

The rule (written in plugins/pace/README.md before this ran): G1 every run of ACI, PACE, quantile
tracking and decaying steps within T1/T2/T3 at every prefix (zero tolerance); G2 on the exchangeable
stream PACE's violation rate and mean width within 10% of ACI's (means over seeds) and gamma_t <= 1.01
gamma_0 on >= 90% of rounds; G3 PACE's mean total recovery <= 0.5 x ACI's (abrupt, multi-block, LLM;
gamma_0 in {.005, .01}); G4 PACE's mean post-shift deviation <= 0.75 x ACI's; G5 PACE's worst long-run
deviation <= 0.015, worst abstention <= 5%, mean LLM retained fraction >= ACI's - 0.02.
Seed-to-seed spread: the 10th-90th percentile of the per-seed ratio is printed beside each mean.

Every run is a ``pace.stream`` run kept in the run store (--store, default TOOLKIT_STORE): a rerun reads
the finished runs back instead of recomputing them. --quick holds G1 to three streams at T = 1000 (as
``toolkit reproduce pace --quick``), for a check of the script in seconds.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import pandas as pd
from toolkit_pace import experiments as E

from toolkit.argtypes import add_run_options, open_run_store


def _ratio_spread(table: pd.DataFrame, column: str, stream: str, gamma0: float) -> str:
    a = table[(table.method == "aci") & (table.stream == stream) & (table.gamma0 == gamma0)].set_index(
        "seed"
    )[column]
    p = table[(table.method == "pace") & (table.stream == stream) & (table.gamma0 == gamma0)].set_index(
        "seed"
    )[column]
    r = (p / a).dropna()
    return (
        f"per-seed PACE/ACI {np.percentile(r, 10):.2f}..{np.percentile(r, 90):.2f}, worse than target in "
        f"{int((r > (0.5 if column == 'recovery_total' else 0.75)).sum())}/{r.size} seeds"
    )


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20, help="number of seeds, from 100 (default 20)")
    ap.add_argument("--out", default=None, help="write the Markdown report here too")
    add_run_options(ap, executors=("serial",))
    ap.add_argument("--quick", action="store_true", help="G1 on three streams at T = 1000 only")
    args = ap.parse_args(argv)
    if args.seeds < 1:
        ap.error(f"--seeds must be >= 1, got {args.seeds}")

    seeds = tuple(range(100, 100 + args.seeds))
    E.PROGRESS = True
    E._RUNS.clear()  # every run of this call is read from (or written to) the store
    E.STORE = open_run_store(args.store)
    try:
        text = _report(seeds, args.quick)
    finally:
        E.STORE.close()
        E.STORE = None
    print(text)
    runs = list(E._RUNS.values())
    cached = sum(bool(r["_from_cache"]) for r in runs)
    print(f"{len(runs)} runs: {len(runs) - cached} computed, {cached} from the store", file=sys.stderr)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")


def _report(seeds: tuple[int, ...], quick: bool) -> str:
    start = time.time()
    lines = [f"# pace targets, seeds {seeds[0]}..{seeds[-1]}", ""]
    outcomes = {"G1": E.g1_bounds(quick, seeds=seeds)}
    runs = E.shift_runs(seeds)
    outcomes["G2"] = E.g2_exchangeable(False, runs)
    outcomes["G3-G4"] = E.g3_g4_shift(False, runs)
    outcomes["G5"] = E.g5_long_run(False, runs)
    lines += ["| target | claim | reference | measured | ok |", "|---|---|---|---|---|"]
    for gate, outcome in outcomes.items():
        for c in outcome.comparisons:
            lines.append(f"| {gate} | {c.claim} | {c.paper} | {c.measured} | {'yes' if c.ok else 'NO'} |")
    table = outcomes["G3-G4"].table
    lines += ["", "Seed spread of the G3/G4 ratios:", ""]
    for g0 in E.GAMMA0S:
        for stream in E.SHIFT_STREAMS:
            lines.append(
                f"- {stream}, gamma0={g0}: recovery {_ratio_spread(table, 'recovery_total', stream, g0)}; "
                f"post-shift {_ratio_spread(table, 'post_shift_deviation', stream, g0)}"
            )
    dt = (
        table[table.method == "dtaci"]
        .groupby("stream")[["recovery_total", "post_shift_deviation", "long_run_deviation", "violation_rate"]]
        .mean()
    )
    pace = (
        table[(table.method == "pace") & (table.gamma0 == 0.005)]
        .groupby("stream")[["recovery_total", "post_shift_deviation", "long_run_deviation", "violation_rate"]]
        .mean()
    )
    lines += [
        "",
        "DtACI vs PACE (gamma0 = .005), means over seeds:",
        "",
        "```",
        pace.add_prefix("pace_").join(dt.add_prefix("dtaci_")).round(4).to_string(),
        "```",
    ]
    g1 = outcomes["G1"].table
    lines += [
        "",
        f"G1 runs per method: {g1.groupby('method').size().to_dict()}; min margin per method: "
        f"{g1.groupby('method').min_margin.min().round(4).to_dict()}",
        "",
        f"wall time {time.time() - start:.0f} s",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
