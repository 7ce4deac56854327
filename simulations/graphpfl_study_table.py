"""One table of the multi-dataset study from the ``runs.csv`` files of ``graphpfl_noise_study.py``.

    python simulations/graphpfl_study_table.py results/graphpfl/PTC_MR/runs.csv results/graphpfl/BZR/runs.csv \\
        results/graphpfl/COX2/runs.csv results/graphpfl/NCI1/runs.csv --out results/graphpfl/study

Per (dataset, noise p, method): seeds, mean pooled test accuracy, the paired difference to FedAvg with its
95% Student-t interval, the verdict of the pre-registered rule (helps: lower end > 0; harms: upper end < 0;
else no evidence), the per-seed differences and the stop rounds. Then, per p and method, the differences of
all datasets pooled into one interval, and each method's paired drop from the lowest p to each other p.
Writes ``study.csv``, ``pooled.csv``, ``drops.csv`` and ``study.md`` (the tables as markdown) to --out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def verdict(low: float, high: float) -> str:
    """The pre-registered reading of a paired interval."""
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
            base = runs[(runs.dataset == ds) & (runs.noise_p == p) & (runs.algorithm == baseline)].set_index("seed")
            v = g.set_index("seed")
            common = sorted(v.index.intersection(base.index))
            row = {"dataset": ds, "noise_p": p, "algorithm": alg, "n_seeds": len(v), "mean": 100 * v[metric].mean(),
                   "stop_rounds": " ".join(str(int(r)) for r in v.sort_index()["stop_round"])}
            if alg != baseline and common:
                diffs = 100 * (v.loc[common, metric] - base.loc[common, metric]).to_numpy()
                m, lo, hi = paired_ci(diffs)
                all_diffs += list(diffs)
                row.update(n_paired=len(common), diff=m, ci_low=lo, ci_high=hi, verdict=verdict(lo, hi),
                           seed_diffs=" ".join(f"{s}:{d:+.1f}" for s, d in zip(common, diffs)),
                           seeds_against=" ".join(str(s) for s, d in zip(common, diffs) if d < 0))
            rows.append(row)
        if alg != baseline and all_diffs:
            m, lo, hi = paired_ci(all_diffs)
            pooled_rows.append({"noise_p": p, "algorithm": alg, "n_pairs": len(all_diffs),
                                "datasets": ",".join(grp.dataset.unique()), "diff": m, "ci_low": lo, "ci_high": hi,
                                "verdict": verdict(lo, hi), "n_against": int(sum(d < 0 for d in all_diffs))})
    ps = sorted(runs.noise_p.unique())
    drops = [drop_table(runs, ps[0], p, metric=metric) for p in ps[1:]]
    drops = pd.concat(drops) if drops else pd.DataFrame()
    table = pd.DataFrame(rows)
    if "n_paired" in table:
        table["n_paired"] = table["n_paired"].astype("Int64")  # counts stay integers beside the baseline's empty cells
    return table, pd.DataFrame(pooled_rows), drops


def _markdown(table) -> str:
    import pandas as pd

    if table.empty:
        return "(none)\n"
    cols = list(table.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for _, r in table.iterrows():
        cells = [f"{v:.1f}" if isinstance(v, float) else ("" if v is None or v is pd.NA else str(v)) for v in r]
        lines.append("| " + " | ".join("" if c in ("nan", "<NA>") else c for c in cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", help="runs.csv files written by graphpfl_noise_study.py")
    parser.add_argument("--baseline", default="fedavg")
    parser.add_argument("--out", default="results/graphpfl/study")
    args = parser.parse_args(argv)

    import pandas as pd

    frames = []
    for path in args.runs:
        if not Path(path).is_file():
            parser.error(f"runs file {path!r} does not exist (run graphpfl_noise_study.py for that dataset first)")
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
    text = ("## per dataset\n" + _markdown(table) + "\n## pooled over datasets\n" + _markdown(pooled)
            + "\n## drops\n" + _markdown(drops))
    (out / "study.md").write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
