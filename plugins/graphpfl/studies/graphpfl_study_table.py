"""One table of the multi-dataset study from the ``runs.csv`` files of ``graphpfl_noise_study.py``.

    python plugins/graphpfl/studies/graphpfl_study_table.py results/graphpfl/PTC_MR/runs.csv results/graphpfl/BZR/runs.csv \\
        results/graphpfl/COX2/runs.csv results/graphpfl/NCI1/runs.csv --out results/graphpfl/study

Per (dataset, noise p, method): seeds, mean pooled test accuracy, the paired difference to FedAvg with its
95% Student-t interval, the verdict of the rule fixed before the runs (helps: lower end > 0; harms: upper end < 0;
else no evidence), the per-seed differences and the stop rounds. Then, per p and method, the differences of
all datasets pooled into one interval, and each method's paired drop from the lowest p to each other p.
Writes ``study.csv``, ``pooled.csv``, ``drops.csv``, ``study.md`` (the tables as markdown) and ``readme.md``
(the same as the plugin README shows them: method names spelled out, stop rounds with median / max) to --out.

It computes no runs: each ``runs.csv`` is the table of a ``graphpfl_noise_study.py`` sweep of
``graphpfl.noise_robustness``, whose runs live in the run store; ``graphpfl_noise_study.py ... --stored-only``
rewrites a ``runs.csv`` from the store without computing anything.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def verdict(low: float, high: float) -> str:
    """The reading of a paired interval, fixed before the runs."""
    if low != low or high != high:  # nan: fewer than two seeds
        return "too few seeds"
    return "helps" if low > 0 else "harms" if high < 0 else "no evidence"


def study_tables(runs, baseline: str = "fedavg", metric: str = "test_acc_pooled"):
    """(per dataset table, pooled-over-datasets table, drops table) from the runs of several datasets."""
    import pandas as pd
    from toolkit_graphpfl.stats import drop_table, paired_ci

    rows, pooled_rows = [], []
    for (p, alg), grp in runs.groupby(["noise_p", "algorithm"], sort=True):
        all_diffs = []
        for ds, g in grp.groupby("dataset", sort=False):
            base = runs[(runs.dataset == ds) & (runs.noise_p == p) & (runs.algorithm == baseline)].set_index(
                "seed"
            )
            v = g.set_index("seed")
            common = sorted(v.index.intersection(base.index))
            stops = v.sort_index()["stop_round"].astype(int)
            row = {
                "dataset": ds,
                "noise_p": p,
                "algorithm": alg,
                "n_seeds": len(v),
                "mean": 100 * v[metric].mean(),
                "stop_rounds": " ".join(str(r) for r in stops),
                "stop_median": float(stops.median()),
                "stop_max": int(stops.max()),
            }
            if "n_rounds" in v:  # the maximum, and how many runs reached it before the rule fired
                row["max_rounds"] = " ".join(str(int(m)) for m in sorted(v["n_rounds"].unique()))
            if "stopped_early" in v:
                row["n_reached_max"] = int((~v["stopped_early"].astype(bool)).sum())
            if alg != baseline and common:
                diffs = 100 * (v.loc[common, metric] - base.loc[common, metric]).to_numpy()
                m, lo, hi = paired_ci(diffs)
                all_diffs += list(diffs)
                row.update(
                    n_paired=len(common),
                    diff=m,
                    ci_low=lo,
                    ci_high=hi,
                    verdict=verdict(lo, hi),
                    seed_diffs=" ".join(f"{s}:{d:+.1f}" for s, d in zip(common, diffs)),
                    seeds_against=" ".join(str(s) for s, d in zip(common, diffs) if d < 0),
                )
            rows.append(row)
        if alg != baseline and all_diffs:
            m, lo, hi = paired_ci(all_diffs)
            pooled_rows.append(
                {
                    "noise_p": p,
                    "algorithm": alg,
                    "n_pairs": len(all_diffs),
                    "datasets": ",".join(grp.dataset.unique()),
                    "diff": m,
                    "ci_low": lo,
                    "ci_high": hi,
                    "verdict": verdict(lo, hi),
                    "n_against": int(sum(d < 0 for d in all_diffs)),
                }
            )
    ps = sorted(runs.noise_p.unique())
    drops = [drop_table(runs, ps[0], p, metric=metric) for p in ps[1:]]
    drops = pd.concat(drops) if drops else pd.DataFrame()
    table = pd.DataFrame(rows)
    if "n_paired" in table:
        table["n_paired"] = table["n_paired"].astype(
            "Int64"
        )  # counts stay integers beside the baseline's empty cells
    return table, pd.DataFrame(pooled_rows), drops


def _markdown(table) -> str:
    import pandas as pd

    if table.empty:
        return "(none)\n"
    cols = list(table.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in table.iterrows():
        cells = [
            f"{v:.1f}" if isinstance(v, float) else ("" if v is None or v is pd.NA else str(v)) for v in r
        ]
        lines.append("| " + " | ".join("" if c in ("nan", "<NA>") else c for c in cells) + " |")
    return "\n".join(lines) + "\n"


METHODS = {
    "fedavg": "FedAvg",
    "graphpfl": "GraphP-FL",
    "fedavg_sl": "topology reconstruction only (Fisher off, `fedavg_sl`)",
    "frpa": "Fisher alignment only (reconstruction off, `frpa`)",
    "fedprox": "FedProx",
    "local": "Local",
}


def _num(x: float, signed: bool = True) -> str:
    return (f"{x:+.1f}" if signed else f"{x:.1f}").replace("-", "\u2212")


def readme_markdown(table, pooled, drops, labels: dict | None = None) -> str:
    """The tables as the plugin README shows them (datasets in the order given, methods in METHODS order)."""
    labels = labels or {}
    order = {a: i for i, a in enumerate(METHODS)}
    datasets = list(dict.fromkeys(table["dataset"]))
    t = table.assign(
        _d=table["dataset"].map(datasets.index), _m=table["algorithm"].map(lambda a: order.get(a, 99))
    )
    lines = [
        "| dataset | p | method | seeds | accuracy (%) | \u0394 vs FedAvg [95% CI] | verdict | \u0394 per seed "
        "(seed: points) | stop rounds | stop round median / max (max allowed) |",
        "|" + "---|" * 10,
    ]
    for _, r in t.sort_values(["_d", "noise_p", "_m"]).iterrows():
        has = isinstance(r.get("verdict"), str)
        diff = f"{_num(r['diff'])} [{_num(r['ci_low'])}, {_num(r['ci_high'])}]" if has else ""
        seeds = r["seed_diffs"].replace("-", "\u2212") if has else ""
        cap = f" ({r['max_rounds']})" if isinstance(r.get("max_rounds"), str) else ""
        lines.append(
            f"| {labels.get(r['dataset'], r['dataset'])} | {r['noise_p']:g} | {METHODS.get(r['algorithm'], r['algorithm'])} "
            f"| {r['n_seeds']} | {r['mean']:.1f} | {diff} | {r['verdict'] if has else ''} | {seeds} "
            f"| {r['stop_rounds']} | {r['stop_median']:g} / {r['stop_max']}{cap} |"
        )
    lines.append("")
    for _, r in pooled.iterrows():
        lines.append(
            f"- pooled p = {r['noise_p']:g}, {METHODS.get(r['algorithm'], r['algorithm'])}: {r['n_pairs']} pairs "
            f"({r['datasets']}): {_num(r['diff'])} [{_num(r['ci_low'])}, {_num(r['ci_high'])}], {r['verdict']}; "
            f"{r['n_against']} against"
        )
    if len(drops):
        lines += ["", "| dataset | method | seeds | p | drop [95% CI] |", "|---|---|---|---|---|"]
        d = drops.assign(
            _d=drops["dataset"].map(lambda x: datasets.index(x) if x in datasets else 99),
            _m=drops["algorithm"].map(lambda a: order.get(a, 99)),
        )
        for _, r in d.sort_values(["_d", "_m"]).iterrows():
            lines.append(
                f"| {labels.get(r['dataset'], r['dataset'])} | {METHODS.get(r['algorithm'], r['algorithm'])} "
                f"| {r['n_seeds']} | {r['p_from']:g} \u2192 {r['p_to']:g} | {_num(r['drop'])} [{_num(r['ci_low'])}, "
                f"{_num(r['ci_high'])}] |"
            )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("runs", nargs="+", help="runs.csv files written by graphpfl_noise_study.py")
    parser.add_argument("--baseline", default="fedavg")
    parser.add_argument("--out", default="results/graphpfl/study")
    args = parser.parse_args(argv)

    import pandas as pd

    frames = []
    for path in args.runs:
        if not Path(path).is_file():
            parser.error(
                f"runs file {path!r} does not exist (run graphpfl_noise_study.py for that dataset first)"
            )
        frames.append(pd.read_csv(path))
    runs = pd.concat(frames, ignore_index=True)
    missing = {"dataset", "noise_p", "algorithm", "seed", "test_acc_pooled", "stop_round"} - set(runs.columns)
    if missing:
        parser.error(f"runs files lack the columns {sorted(missing)}")
    table, pooled, drops = study_tables(runs, baseline=args.baseline)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "study.csv", index=False)
    pooled.to_csv(out / "pooled.csv", index=False)
    drops.to_csv(out / "drops.csv", index=False)
    text = (
        "## per dataset\n"
        + _markdown(table)
        + "\n## pooled over datasets\n"
        + _markdown(pooled)
        + "\n## drops\n"
        + _markdown(drops)
    )
    (out / "study.md").write_text(text)
    (out / "readme.md").write_text(readme_markdown(table, pooled, drops))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
