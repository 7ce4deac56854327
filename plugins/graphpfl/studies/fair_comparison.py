"""FedAvg against GraphP-FL with the same budget and the same checkpoint rule for both.

    python plugins/graphpfl/studies/fair_comparison.py --datasets ENZYMES,Cuneiform --noise 0,0.3 \\
        --seeds 30,31,32,33,34 --n-rounds 10 --out results/graphpfl/fair

Every run trains all ``--n-rounds`` rounds (patience 0: no stopping rule, so neither algorithm gets more
rounds than the other) and reports the round with the lowest pooled validation loss (the same rule for
both). Per (dataset, p): the paired test-accuracy difference GraphP-FL - FedAvg over the seeds with its 95%
Student-t interval, the per-seed differences, and the verdict (helps: lower end > 0; harms: upper end < 0;
else no evidence). Runs go through ``toolkit.sweep`` and the run store (``--store``, default
``TOOLKIT_STORE``): a stopped study keeps what it ran and a rerun computes only the missing runs. Writes
runs.csv (one row per run, from the store) and table.md to --out.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolkit_graphpfl.study_args import check_strategies, seed_selection  # light: argparse and the core

from toolkit.argtypes import add_run_options, comma_list  # light: argparse only
from toolkit.export import markdown_table

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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    ap.add_argument("--datasets", default="ENZYMES,Cuneiform", help="comma-separated TU dataset names")
    ap.add_argument(
        "--noise", type=comma_list(float), default="0,0.3", help="comma-separated topology noise levels p"
    )
    ap.add_argument(
        "--seeds", type=seed_selection, default="30,31,32,33,34", help="seeds (comma list or a:b)"
    )
    ap.add_argument("--algorithms", default="fedavg,graphpfl", help="baseline first, then the compared one")
    ap.add_argument("--n-rounds", type=int, default=10, help="rounds every run trains (the budget)")
    ap.add_argument("--n-clients", type=int, default=5, help="clients per run")
    ap.add_argument(
        "--subsample", type=int, default=None, help="graphs kept per dataset (stratified; default all)"
    )
    add_run_options(ap, executors=("serial", "processes"))
    ap.add_argument("--out", default="results/graphpfl/fair", help="output folder (runs.csv, table.md)")
    a = ap.parse_args(argv)
    algs = [x for x in a.algorithms.split(",") if x]
    if len(algs) != 2:
        ap.error(f"--algorithms: two names, the baseline first, got {a.algorithms!r}")
    check_strategies(ap, "--algorithms", algs)
    datasets = [x for x in a.datasets.split(",") if x]
    if not datasets:
        ap.error("--datasets: at least one dataset name")
    import pandas as pd

    import toolkit

    fixed = {"n_rounds": a.n_rounds, "n_clients": a.n_clients, "subsample": a.subsample, **FAIR}
    grid = {"dataset": datasets, "noise_p": a.noise, "algorithm": algs}
    parts = []
    for seed in a.seeds:  # one sweep per seed: a stopped study has every cell for the seeds it finished
        res = toolkit.sweep(
            "graphpfl.noise_robustness", grid, seeds=[seed], params=fixed, store=a.store, executor=a.executor
        )
        parts.append(res.summary_table)
        print(f"seed {seed}: {res.n_computed} runs computed, {res.n_cached} from the store", flush=True)
    t = pd.concat(parts, ignore_index=True)
    runs = t[["dataset", "noise_p", "algorithm", "seed", "n_rounds"]].copy()
    for k in ("test_acc_pooled", "val_acc_pooled", "best_round", "stop_round"):
        runs[k] = t[k]
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    table = fair_table(runs, algs[0], algs[1])
    (out / "table.md").write_text(markdown_table(table, ".1f"))
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
