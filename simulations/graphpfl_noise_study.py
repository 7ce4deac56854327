"""Paired noise study of federated graph learning: every method on the same partitions, noise draws and seeds.

    python simulations/graphpfl_noise_study.py --dataset MUTAG --n-clients 5 --noise 0,0.3,0.5 \\
        --algorithms fedavg,graphpfl,fedavg_sl,frpa,local --seeds 0:10 --n-rounds 50
    python simulations/graphpfl_noise_study.py --dataset PROTEINS --n-clients 10 --noise 0,0.3 --seeds 0:5 --n-rounds 30
    python simulations/graphpfl_noise_study.py --set sl_beta=0.8 --set lambda_fisher=0.1 ...
    python simulations/graphpfl_noise_study.py --dataset PTC_MR --set patience=10 --replay-patience 5 ...

Runs ``graphpfl.noise_robustness`` as a toolkit sweep (cached in the run store; an interrupted study
resumes) and writes to --out (default results/graphpfl/<dataset>/):
  runs.csv      one row per (noise p, algorithm, seed): accuracies at the best validation round, costs
  paired.csv    per (noise p, algorithm): mean ± sd (points) and the paired 95% CI of method − FedAvg
  drops.csv     per algorithm: paired accuracy drop from p = 0 to each p > 0
  accuracy_vs_noise.png
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def stored_runs(store: str | None, fixed: dict, noise: list[float], algorithms: list[str], seeds: list[int]):
    """Summaries of the finished ``noise_robustness`` runs in ``store`` that match ``fixed`` and ``seeds``."""
    import pandas as pd

    from toolkit_graphpfl.simulation import NoiseRobustnessParams
    from toolkit.settings import get_settings
    from toolkit.store import RunStore

    want = NoiseRobustnessParams(**fixed).model_dump(mode="json")
    rows = []
    for run in RunStore(store or get_settings().store_path).iter_runs("graphpfl.noise_robustness"):
        params = dict(run.params)
        if params.get("noise_p") not in noise or params.get("algorithm") not in algorithms or run.seed not in seeds:
            continue
        if any(params.get(k) != v for k, v in want.items() if k not in ("noise_p", "algorithm")):
            continue
        rows.append({**params, "seed": run.seed, **run.summary, "_records": run.records})
    return pd.DataFrame(rows)


def replayed(runs, patience: int):
    """``runs`` (with their ``_records``) as runs with the stopping rule's ``patience`` would report them: a
    run with patience 0 or a larger patience holds every round a smaller patience runs (rows_under_patience)."""
    from toolkit_graphpfl.federation import replay_patience

    bad = runs[(runs["patience"] != 0) & (runs["patience"] < patience)]
    if len(bad):
        raise SystemExit(f"--replay-patience {patience}: {len(bad)} runs were made with a smaller patience "
                         f"({sorted(set(bad['patience']))}); rerun them with patience 0 or >= {patience}")
    out = runs.copy()
    for i, run in runs.iterrows():
        for k, v in replay_patience(run["_records"], patience, int(run["n_rounds"]), run["selection"]).items():
            out.at[i, k] = v
    out["patience"] = patience
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", default="MUTAG", help="planted, a TU name under TOOLKIT_DATA_DIR, or A+B")
    parser.add_argument("--n-clients", type=int, default=5)
    parser.add_argument("--noise", default="0,0.3,0.5", help="comma-separated noise levels p")
    parser.add_argument("--algorithms", default="fedavg,graphpfl,fedavg_sl,frpa,local")
    parser.add_argument("--baseline", default="fedavg", help="the method every other is paired against")
    parser.add_argument("--seeds", default="0:10", help="seeds: a:b range or comma list")
    parser.add_argument("--n-rounds", type=int, default=50)
    parser.add_argument("--partition", default="random", choices=["random", "dirichlet", "topology"])
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="any other noise_robustness parameter (repeatable), e.g. sl_beta=0.8")
    parser.add_argument("--executor", default="serial", choices=["serial", "processes", "dask"])
    parser.add_argument("--max-workers", type=int, default=None)
    parser.add_argument("--store", default=None, help="run store (default: TOOLKIT_STORE)")
    parser.add_argument("--stored-only", action="store_true",
                        help="compute nothing: build the tables from the matching runs already in --store "
                             "(e.g. while a long study is still running); seeds missing for a method drop out of its pairs")
    parser.add_argument("--out", default=None, help="output folder (default results/graphpfl/<dataset>)")
    parser.add_argument("--replay-patience", type=int, default=None,
                        help="report the runs as the stopping rule with this patience would have (read off their "
                             "rounds; the runs must have patience 0 or a larger one)")
    args = parser.parse_args(argv)

    import matplotlib
    import pandas as pd

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import toolkit
    from toolkit_graphpfl.stats import drop_table, paired_table

    fixed = {"dataset": args.dataset, "n_clients": args.n_clients, "n_rounds": args.n_rounds, "partition": args.partition}
    for item in args.set:
        name, _, text = item.partition("=")
        fixed[name.strip()] = _value(text.strip())
    noise = [float(p) for p in args.noise.split(",")]
    algorithms = args.algorithms.split(",")
    if args.baseline not in algorithms:
        algorithms.insert(0, args.baseline)
    if args.stored_only:
        from toolkit.config import parse_seeds

        runs = stored_runs(args.store, fixed, noise, algorithms, parse_seeds(args.seeds))
        status = f"{len(runs)} runs read from {args.store} (nothing computed)"
    else:
        sw = toolkit.sweep("graphpfl.noise_robustness", grid={"noise_p": noise, "algorithm": algorithms}, seeds=args.seeds,
                           params=fixed, executor=args.executor, max_workers=args.max_workers, store=args.store)
        runs = pd.DataFrame([{**r.params, "seed": r.seed, **r.summary, "_records": r.records} for r in sw.runs])
        status = f"{sw.n_computed} runs computed, {sw.n_cached} from the store"
    if args.replay_patience is not None:
        runs = replayed(runs, args.replay_patience)
        status += f"; reported with patience {args.replay_patience} (replayed)"
    runs = runs.drop(columns=["_records"])
    out = Path(args.out or Path("results") / "graphpfl" / args.dataset.replace("+", "_"))
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    paired = paired_table(runs, baseline=args.baseline)
    paired.to_csv(out / "paired.csv", index=False)
    drops = [drop_table(runs, min(noise), p) for p in noise if p != min(noise)]
    drops = pd.concat(drops) if drops else pd.DataFrame()
    drops.to_csv(out / "drops.csv", index=False)

    fig, ax = plt.subplots(figsize=(6, 4))
    for alg, g in runs.groupby("algorithm"):
        m = g.groupby("noise_p")["test_acc_pooled"].agg(["mean", "std"])
        ax.errorbar(m.index, 100 * m["mean"], yerr=100 * m["std"].fillna(0), marker="o", capsize=3, label=alg)
    ax.set_xlabel("topology noise p")
    ax.set_ylabel("pooled test accuracy at best val round (%)")
    ax.set_title(f"{args.dataset}, {args.n_clients} clients, {args.n_rounds} rounds, {runs.seed.nunique()} seeds")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "accuracy_vs_noise.png", dpi=120)

    cols = ["noise_p", "algorithm", "n_seeds", "mean", "sd", "diff_vs_baseline", "ci_low", "ci_high"]
    print(paired[cols].round(1).to_string(index=False))
    if len(drops):
        print(drops[["algorithm", "p_from", "p_to", "n_seeds", "drop", "ci_low", "ci_high"]].round(1).to_string(index=False))
    print(f"{status}; wrote {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
