"""Can the graph models learn a count? Every model on the count database, mean vs count-aware aggregation.

    python plugins/frog/studies/count_table.py --seeds 10,11,12 --out results/frog/counts

The database (``toolkit_frog.counts``): customers, stores and orders; a third of the customers order twice
as often; the label is 1 when a customer has placed more orders up to t than the median customer, so
only the number of related rows carries it. Models: Row2Node, Row2Edge and FROG (``orders`` as the edge
table) with ``aggregation=mean`` (the mean alone) and ``mean_count`` (the default), and LightGBM on the
customer row plus joined aggregates (counts included). Each run is a point of the ``frog.counts``
simulation, run through ``toolkit.sweep`` and the run store (``--store``, default ``TOOLKIT_STORE``),
so a rerun computes only what is missing. Writes runs.csv (one row per model, aggregation and seed)
and table.md (mean, 95% Student-t interval, per-seed values) to --out.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from pathlib import Path

from toolkit.argtypes import add_run_options
from toolkit.export import markdown_table

os.environ.setdefault("OMP_NUM_THREADS", "1")

GRAPH_MODELS = ("row2node", "row2edge", "frog")


def summarise(runs):
    import numpy as np
    import pandas as pd
    from scipy import stats

    rows = []
    for (model, agg), g in runs.groupby(["model", "aggregation"], sort=False):
        v = g.sort_values("seed").test_auroc.to_numpy()
        half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else np.nan
        rows.append(
            {
                "model": model,
                "aggregation": agg,
                "n_seeds": len(v),
                "test_auroc": v.mean(),
                "ci_low": v.mean() - half,
                "ci_high": v.mean() + half,
                "per_seed": " ".join(f"{x:.3f}" for x in v),
            }
        )
    return pd.DataFrame(rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    ap.add_argument(
        "--seeds", default="10,11,12", help="comma-separated seeds (database, sampling, training)"
    )
    ap.add_argument("--n-customers", type=int, default=1000, help="customers in the database (rows)")
    ap.add_argument(
        "--epochs", type=int, default=20, help="training epochs (test at the best validation epoch)"
    )
    ap.add_argument("--channels", type=int, default=32, help="hidden channels")
    ap.add_argument("--fanout", type=int, default=20, help="neighbours sampled per node, relation and hop")
    add_run_options(ap, executors=("serial", "processes"))
    ap.add_argument("--out", default="results/frog/counts", help="output folder")
    a = ap.parse_args(argv)
    try:
        seeds = [int(s) for s in a.seeds.split(",") if s.strip()]
    except ValueError:
        ap.error(f"argument --seeds: comma-separated integers, got {a.seeds!r}")
    if not seeds:
        ap.error("argument --seeds: at least one seed")
    import pandas as pd

    import toolkit

    fixed = {"n_customers": a.n_customers, "epochs": a.epochs, "channels": a.channels, "fanout": a.fanout}
    common = {"seeds": seeds, "store": a.store, "executor": a.executor}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lgbm = toolkit.sweep("frog.counts", {"model": ["lgbm_joined"]}, params=fixed, **common)
        graph = toolkit.sweep(
            "frog.counts",
            {"aggregation": ["mean", "mean_count"], "model": list(GRAPH_MODELS)},
            params=fixed,
            **common,
        )
    n_new = lgbm.n_computed + graph.n_computed
    print(f"{n_new} runs computed, {lgbm.n_cached + graph.n_cached} from the store", flush=True)
    got = {("lgbm_joined", "-", r.seed): r.summary for r in lgbm.runs}
    got.update({(r.params["model"], r.params["aggregation"], r.seed): r.summary for r in graph.runs})
    rows = []
    for seed in seeds:  # the order of the table: per seed, LightGBM, then each aggregation's models
        s = got[("lgbm_joined", "-", seed)]
        rows.append({"model": "lgbm_joined", "aggregation": "-", "seed": seed, "test_auroc": s["test_auroc"]})
        for agg in ("mean", "mean_count"):
            for m in GRAPH_MODELS:
                s = got[(m, agg, seed)]
                rows.append(
                    {
                        "model": m,
                        "aggregation": agg,
                        "seed": seed,
                        "test_auroc": s["test_auroc"],
                        "val_auroc": s["val_auroc"],
                    }
                )
    runs = pd.DataFrame(rows)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    table = summarise(runs)
    (out / "table.md").write_text(markdown_table(table, ".3f"))
    print(table.to_string(index=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
