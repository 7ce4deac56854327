"""What costs GraphP-FL accuracy on clean graphs whose structure carries the label: one knob at a time.

    python plugins/graphpfl/studies/clean_graph_gap.py --seeds 210:215 --noise 0,0.3 --n-rounds 50 \\
        --configs default,beta0,no_structure --out results/graphpfl/clean_gap

Every configuration (``--configs``, names from :data:`CONFIGS`) runs ``graphpfl.noise_robustness`` on the
same seeds and noise levels as FedAvg and as GraphP-FL at its defaults (paired design: the same partition,
noise draw, split and initial model per seed), with the same budget for all (every run trains all
``--n-rounds`` rounds and is read at its lowest pooled validation loss). Per (p, configuration): mean
pooled test accuracy, the paired difference to FedAvg and to default GraphP-FL (points, 95% Student-t
interval), the share of the FedAvg gap it closes, the per-seed differences and the seeds that went
against. Runs go through ``toolkit.sweep`` and the run store, so a rerun computes only missing runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from toolkit_graphpfl.study_args import seed_selection  # light: argparse and the core

from toolkit.argtypes import add_run_options, comma_list  # light: argparse only
from toolkit.export import markdown_table

FAIR = {"patience": 0, "selection": "val_loss"}

# name -> parameters changed from GraphP-FL's defaults (sl_beta 0.5, sl_topk 8, structure learner on)
CONFIGS: dict[str, dict] = {
    "default": {},
    "beta0": {"sl_beta": 0.0},
    "beta0.125": {"sl_beta": 0.125},
    "beta0.9": {"sl_beta": 0.9},
    "topk2": {"sl_topk": 2},
    "topk32": {"sl_topk": 32},
    "no_structure": {"use_structure": False},
    "fedavg_sl": {"algorithm": "fedavg_sl"},
}


def gap_table(runs, configs):
    """Per (noise p, configuration): accuracy, paired differences to FedAvg and to default GraphP-FL."""
    import pandas as pd
    from toolkit_graphpfl.stats import paired_ci

    rows = []
    for p, g in runs.groupby("noise_p", sort=True):
        acc = {c: 100 * g[g.config == c].set_index("seed")["test_acc_pooled"] for c in ["fedavg", *configs]}
        base, dflt = acc["fedavg"], acc["default"]
        seeds = sorted(set.intersection(*(set(v.index) for v in acc.values())))
        gap = float((base.loc[seeds] - dflt.loc[seeds]).mean())
        for c in configs:
            vs_fedavg = (acc[c].loc[seeds] - base.loc[seeds]).to_numpy()
            vs_default = (acc[c].loc[seeds] - dflt.loc[seeds]).to_numpy()
            m1, lo1, hi1 = paired_ci(vs_fedavg)
            m2, lo2, hi2 = paired_ci(vs_default)
            rows.append(
                {
                    "noise_p": p,
                    "config": c,
                    "n_seeds": len(seeds),
                    "acc": float(acc[c].loc[seeds].mean()),
                    "fedavg": float(base.loc[seeds].mean()),
                    "vs_fedavg": m1,
                    "vs_fedavg_lo": lo1,
                    "vs_fedavg_hi": hi1,
                    "vs_default": m2,
                    "vs_default_lo": lo2,
                    "vs_default_hi": hi2,
                    "gap_closed": m2 / gap if gap > 0 else float("nan"),
                    "per_seed_vs_default": " ".join(f"{d:+.1f}" for d in vs_default),
                    "against": int((vs_default < 0).sum()),
                }
            )
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    ap.add_argument("--dataset", default="planted", help="graphpfl.noise_robustness dataset")
    ap.add_argument("--seeds", type=seed_selection, default="210:215", help="seeds (a:b or comma list)")
    ap.add_argument("--noise", type=comma_list(float), default="0,0.3", help="topology noise levels p")
    ap.add_argument(
        "--configs",
        type=comma_list(str, choices=CONFIGS),
        default=",".join(CONFIGS),
        help=f"configurations of GraphP-FL, from: {', '.join(CONFIGS)} ('default' is always run)",
    )
    ap.add_argument("--n-rounds", type=int, default=50, help="rounds every run trains (the budget)")
    ap.add_argument("--n-clients", type=int, default=5, help="clients per run")
    ap.add_argument("--subsample", type=int, default=None, help="graphs kept (stratified; default all)")
    add_run_options(ap, executors=("serial", "processes"))
    ap.add_argument("--out", default="results/graphpfl/clean_gap", help="output folder (runs.csv, table.md)")
    a = ap.parse_args(argv)
    if a.n_rounds < 1:
        ap.error(f"argument --n-rounds: at least 1, got {a.n_rounds}")
    configs = ["default", *(c for c in a.configs if c != "default")]

    import pandas as pd

    import toolkit

    fixed = {"dataset": a.dataset, "n_rounds": a.n_rounds, "n_clients": a.n_clients, **FAIR}
    if a.subsample is not None:
        fixed["subsample"] = a.subsample
    parts = []
    for name, change in [("fedavg", {"algorithm": "fedavg"}), *((c, CONFIGS[c]) for c in configs)]:
        point = {"algorithm": "graphpfl", **change}
        res = toolkit.sweep(
            "graphpfl.noise_robustness",
            grid={"noise_p": a.noise},
            seeds=a.seeds,
            params={**fixed, **point},
            store=a.store,
            executor=a.executor,
        )
        t = res.summary_table
        t["config"] = name
        parts.append(t)
        print(f"{name}: {res.n_computed} computed, {res.n_cached} from the store", flush=True)
    runs = pd.concat(parts, ignore_index=True)
    table = gap_table(runs, configs)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    (out / "table.md").write_text(markdown_table(table, ".1f"))
    print(f"{a.dataset}, {a.n_clients} clients, {a.n_rounds} rounds, seeds {','.join(map(str, a.seeds))}")
    print(table.round(2).to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
