"""FedAvg against GraphP-FL with the same budget and the same checkpoint rule for both.

    python plugins/graphpfl/studies/fair_comparison.py --datasets ENZYMES,Cuneiform --noise 0,0.3 \\
        --seeds 30,31,32,33,34 --n-rounds 10 --out results/graphpfl/fair

Every run trains all ``--n-rounds`` rounds (patience 0: no stopping rule, so neither algorithm gets more
rounds than the other) and reports the round with the lowest pooled validation loss (the same rule for
both). Per (dataset, p): the paired test-accuracy difference GraphP-FL - FedAvg over the seeds with its 95%
Student-t interval, the per-seed differences, and the verdict (helps: lower end > 0; harms: upper end < 0;
else no evidence). Writes runs.csv (one row per run, appended as runs finish, so a stopped study keeps what
it ran) and table.md to --out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

FAIR = {"patience": 0, "selection": "val_loss"}


def fair_table(runs, baseline: str = "fedavg", other: str = "graphpfl"):
    """Per (dataset, noise p): paired differences other - baseline (points) with the interval and verdict."""
    import pandas as pd
    from toolkit_graphpfl.stats import paired_ci

    rows = []
    for (ds, p), g in runs.groupby(["dataset", "noise_p"], sort=True):
        a = g[g.algorithm == baseline].set_index("seed")["test_acc_pooled"]
        b = g[g.algorithm == other].set_index("seed")["test_acc_pooled"]
        common = sorted(a.index.intersection(b.index))
        diffs = 100 * (b.loc[common] - a.loc[common]).to_numpy()
        m, lo, hi = paired_ci(diffs) if len(diffs) else (float("nan"),) * 3
        verdict = "too few seeds" if lo != lo else "helps" if lo > 0 else "harms" if hi < 0 else "no evidence"
        rows.append(
            {
                "dataset": ds,
                "noise_p": p,
                "n_seeds": len(common),
                f"{baseline}_mean": 100 * a.loc[common].mean(),
                f"{other}_mean": 100 * b.loc[common].mean(),
                "diff_mean": m,
                "ci_low": lo,
                "ci_high": hi,
                "verdict": verdict,
                "per_seed_diffs": " ".join(f"{d:+.1f}" for d in diffs),
                "seeds_against": int((diffs < 0).sum()),
                "rounds": " ".join(sorted({str(int(r)) for r in g.stop_round})),
            }
        )
    return pd.DataFrame(rows)


def markdown(table, floatfmt: str) -> str:
    """A DataFrame as a Markdown table (floats with ``floatfmt``)."""
    cell = lambda v: format(v, floatfmt) if isinstance(v, float) else str(v)
    lines = ["| " + " | ".join(map(str, table.columns)) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in table.itertuples(index=False)]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    ap.add_argument("--datasets", default="ENZYMES,Cuneiform", help="comma-separated TU dataset names")
    ap.add_argument("--noise", default="0,0.3", help="comma-separated topology noise levels p")
    ap.add_argument("--seeds", default="30,31,32,33,34", help="comma-separated seeds")
    ap.add_argument("--algorithms", default="fedavg,graphpfl", help="baseline first, then the compared one")
    ap.add_argument("--n-rounds", type=int, default=10, help="rounds every run trains (the budget)")
    ap.add_argument("--n-clients", type=int, default=5, help="clients per run")
    ap.add_argument(
        "--subsample", type=int, default=None, help="graphs kept per dataset (stratified; default all)"
    )
    ap.add_argument("--out", default="results/graphpfl/fair", help="output folder")
    a = ap.parse_args(argv)
    import pandas as pd
    from toolkit_graphpfl.simulation import NoiseRobustnessParams, noise_robustness

    algs = [x for x in a.algorithms.split(",") if x]
    if len(algs) != 2:
        ap.error(f"--algorithms: two names, the baseline first, got {a.algorithms!r}")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "runs.csv"
    done = pd.read_csv(path) if path.exists() else pd.DataFrame()
    have = set(map(tuple, done[["dataset", "noise_p", "algorithm", "seed"]].values)) if len(done) else set()
    cells = [(ds, float(p)) for ds in a.datasets.split(",") for p in a.noise.split(",")]
    for seed in (int(x) for x in a.seeds.split(",")):  # seeds outermost: a stopped study has every cell
        for ds, p in cells:
            for alg in algs:
                if (ds, p, alg, seed) in have:
                    continue
                params = NoiseRobustnessParams(
                    dataset=ds,
                    noise_p=p,
                    algorithm=alg,
                    n_rounds=a.n_rounds,
                    n_clients=a.n_clients,
                    subsample=a.subsample,
                    **FAIR,
                )
                s = noise_robustness(params, seed).summary
                row = {
                    "dataset": ds,
                    "noise_p": p,
                    "algorithm": alg,
                    "seed": seed,
                    "n_rounds": a.n_rounds,
                }
                row.update(
                    {k: s[k] for k in ("test_acc_pooled", "val_acc_pooled", "best_round", "stop_round")}
                )
                pd.DataFrame([row]).to_csv(path, mode="a", header=not path.exists(), index=False)
                print(row, flush=True)
    table = fair_table(pd.read_csv(path), algs[0], algs[1])
    (out / "table.md").write_text(markdown(table, ".1f"))
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
