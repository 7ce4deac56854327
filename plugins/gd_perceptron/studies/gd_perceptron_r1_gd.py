"""Linear GD on R1 at finite gamma: iterations per d and gamma from the batched engine (the path
``gd_perceptron.scaling`` takes) beside the independent 2-D recursion in float64 and in 60- and 120-digit
arithmetic; T/d; fitted slopes over d = 256..4096, 16..4096 and 1024..4096; cells whose count changes
with the precision get a ladder of 20..320 digits. This is the evidence for README's "Why gamma = 1e4
misses the slope target".

    python plugins/gd_perceptron/studies/gd_perceptron_r1_gd.py                       # gamma = 1e2, 1e3, 1e4 (~1 min)
    python plugins/gd_perceptron/studies/gd_perceptron_r1_gd.py --extra               # also gamma = 3e4, 1e5, 1e6, 1e8, 1e12

Writes r1_gd.csv and r1_gd.md to --out (default results/gd_perceptron/). The engine's counts are a run of
``gd_perceptron.scaling``, the recursion's a sweep of ``gd_perceptron.r1_exact`` (d x gamma x digits), all
kept in the run store (--store, default TOOLKIT_STORE): a rerun reads them back. --d-max keeps the
dimensions up to it (a check of the script in seconds: --d-max 64).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from toolkit.argtypes import add_run_options, open_run_store

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--extra", action="store_true", help="also larger step sizes (branch switches in both directions)"
    )
    ap.add_argument("--out", default="results/gd_perceptron", help="output folder")
    ap.add_argument("--d-max", type=int, default=4096, help="largest d of R1 (16..4096, default 4096)")
    add_run_options(ap)
    args = ap.parse_args(argv)
    if args.d_max < 16:
        ap.error(f"--d-max must be >= 16, got {args.d_max}")

    import numpy as np
    import pandas as pd
    from toolkit_gd_perceptron import measures
    from toolkit_gd_perceptron.simulation import R1_D_VALUES

    import toolkit

    ds = [d for d in R1_D_VALUES if d <= args.d_max]
    gammas = [1e2, 1e3, 1e4] + ([3e4, 1e5, 1e6, 1e8, 1e12] if args.extra else [])
    store = open_run_store(args.store)
    counts = [0, 0]  # runs computed, read back

    def exact_counts(grid: dict) -> dict:
        """(d, gamma, digits) -> iterations of the exact recursion, through the store."""
        res = toolkit.sweep(
            "gd_perceptron.r1_exact", grid, [0], store=store, executor=args.executor, check=False
        )
        counts[0], counts[1] = counts[0] + res.n_computed, counts[1] + res.n_cached
        return {(r.params["d"], r.params["gamma"], r.params["digits"]): r.records[0] for r in res.runs}

    try:
        engine_run = toolkit.run(
            "gd_perceptron.scaling",
            {"model": "linear", "algorithm": "gd", "d_values": ds, "gammas": gammas, "max_iter": 100_000},
            0,
            store=store,
            check=False,
        )
        counts[engine_run.from_cache] += 1
        engine_it = {(r["d"], r["gamma"]): r["iterations"] for r in engine_run.records}
        exact = exact_counts({"d": ds, "gamma": gammas, "digits": [None, 60, 120]})
        records, lines = [], []
        for g in gammas:
            for d in ds:
                it = engine_it[(d, g)]
                rec = {
                    "gamma": g,
                    "d": d,
                    "engine": int(it) if it == it else it,  # NaN: the run did not separate
                    "float64_2d": exact[d, g, None]["iterations"],
                    "digits60": exact[d, g, 60]["iterations"],
                    "digits120": exact[d, g, 120]["iterations"],
                    "limit_half_tie": exact[d, g, None]["limit_half_tie"],
                    "batch_perceptron": exact[d, g, None]["batch_perceptron"],
                }
                rec["T_over_d"] = rec["digits120"] / d
                records.append(rec)
        table = pd.DataFrame(records)
        ladders = {}
        for r in table[table["digits60"] != table["digits120"]].itertuples():
            cells = exact_counts({"d": [r.d], "gamma": [r.gamma], "digits": [20, 40, 80, 160, 320]})
            ladders[r.d, r.gamma] = [cells[r.d, r.gamma, p]["iterations"] for p in (20, 40, 80, 160, 320)]
    finally:
        store.close()
    lines.append("| gamma | d | engine (scaling path) | 2-D float64 | 60 digits | 120 digits | T/d |")
    lines.append("|---|---|---|---|---|---|---|")
    for r in table.itertuples():
        lines.append(
            f"| {r.gamma:g} | {r.d} | {r.engine} | {r.float64_2d} | {r.digits60} | {r.digits120} | {r.T_over_d:.2f} |"
        )
    lines.append("")
    lines.append(
        "| gamma | slope 256..4096 (engine; 120 digits) | slope 16..4096 (engine) | slope 1024..4096 (engine) |"
    )
    lines.append("|---|---|---|---|")
    for g, sub in table.groupby("gamma"):

        def sl(col, lo, hi=4096):
            s = sub[(sub["d"] >= lo) & (sub["d"] <= hi)]
            return measures.loglog_slope(s["d"], s[col]) if len(s) >= 2 else float("nan")  # --d-max

        lines.append(
            f"| {g:g} | {sl('engine', 256):.3f}; {sl('digits120', 256):.3f} | {sl('engine', 16):.3f} | "
            f"{sl('engine', 1024):.3f} |"
        )
    target = table[table["gamma"].isin([1e2, 1e3, 1e4]) & (table["d"] >= 256)]
    if target["gamma"].nunique() == 3:
        # the same d grid for every gamma, so the common slope (per-gamma intercepts) is the mean slope
        common = np.mean([measures.loglog_slope(s["d"], s["engine"]) for _, s in target.groupby("gamma")])
        lines.append(
            f"\nOne slope common to gamma = 1e2, 1e3, 1e4 (per-gamma intercepts), d = 256..4096: {common:.3f}"
        )
    sensitive = table[table["digits60"] != table["digits120"]]
    if len(sensitive):
        lines.append(
            "\nPrecision-sensitive cells (60 and 120 digits disagree): counts at 20, 40, 80, 160, 320 digits"
        )
        for r in sensitive.itertuples():
            lines.append(f"- gamma = {r.gamma:g}, d = {r.d}: {ladders[r.d, r.gamma]}")
    text = "\n".join(lines)
    print(text)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "r1_gd.csv", index=False)
    (out / "r1_gd.md").write_text(text + "\n")
    print(f"\nwritten to {out}/r1_gd.csv, r1_gd.md")
    print(f"{sum(counts)} runs: {counts[0]} computed, {counts[1]} from the store", file=sys.stderr)


if __name__ == "__main__":
    main()
