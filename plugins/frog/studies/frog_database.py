"""Bring your own database, end to end on a database this script builds offline: a SQLite file
(the retail demo: customer, product, invoice, and a line-item table with no date of its own),
a JSON task spec, then Row2Node, Row2Edge, FROG and LightGBM on it -- the same code path as
``toolkit run frog.database -p url=<file> -p task=<task.json>``.

    python plugins/frog/studies/frog_database.py --out results/frog/database            # 3 seeds, 600 customers
    python plugins/frog/studies/frog_database.py --quick --out /tmp/frog_db              # 1 seed, small, seconds

Writes ``retail.db``, ``task.json`` and ``results.csv`` (one row per model x seed) to --out and
prints the comparison (mean ± sd over seeds) and FROG's learned role of ``line_item``. Each seed is a
point of ``frog.database`` in the run store (``--store``, default ``TOOLKIT_STORE``), keyed by the
database's and the task's content: a rerun serves it from the store.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from toolkit.argtypes import add_run_options

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="results/frog/database")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--customers", type=int, default=600)
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="1 seed, 150 customers, 2 epochs, 8 channels")
    add_run_options(ap, executors=("serial", "processes"))
    a = ap.parse_args(argv)

    import pandas as pd
    from toolkit_frog.demo import DEMO_SPEC, write_demo_sqlite

    import toolkit

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    n, seeds, extra = a.customers, range(a.seeds), {"epochs": a.epochs}
    if a.quick:
        n, seeds, extra = 150, range(1), {"epochs": 2, "channels": 8, "fanout": 5}
    # 1. your database: here a SQLite file written offline (any SQLAlchemy URL works the same way)
    db_path = write_demo_sqlite(out / "retail.db", n_customers=n, seed=0)
    # 2. your task, declared in JSON: "will the customer place an invoice in the next 60 days?"
    spec_path = out / "task.json"
    spec_path.write_text(json.dumps(DEMO_SPEC, indent=2))
    print(f"database {db_path}, task {spec_path}:\n{spec_path.read_text()}")
    # 3. train and compare: the registered simulation frog.database, one point per seed
    result = toolkit.sweep(
        "frog.database",
        seeds=list(seeds),
        params={"url": str(db_path), "task": str(spec_path), **extra},
        store=a.store,
        executor=a.executor,
        progress=False,
    )
    print(f"frog.database: {len(result.runs)} points, {result.n_cached} from the store", flush=True)
    table = pd.DataFrame([{"seed": run.seed, **r} for run in result.runs for r in run.records])
    table.to_csv(out / "results.csv", index=False)
    metric = next(c for c in table.columns if c.startswith("test_"))
    summary = table.groupby("model", sort=False).agg(
        test_mean=(metric, "mean"),
        test_sd=(metric, "std"),
        val_mean=(metric.replace("test_", "val_"), "mean"),
        pi_line_item=("pi_line_item", "mean"),
    )
    with pd.option_context("display.width", 160):
        print(summary.round(3))
    frog = table[table.model == "frog"]
    print("FROG role of line_item per seed:", frog.role_line_item.tolist())


if __name__ == "__main__":
    main()
