"""Fact tables at speed: sampling and epoch time of Row2Node, Row2Edge and FROG on a synthetic
fact table with four foreign keys (issue 20, section 6), side by side in one process.

    python benchmarks/frog_fact_table.py                       # 1M fact rows (the README numbers)
    python benchmarks/frog_fact_table.py --rows 100000         # smaller smoke run

Schema: ``d0 .. d3`` dimension tables (``--dim-rows`` rows each, static), ``fact`` (``--rows``
rows, a time, one numeric column, keys to d0..d3); entity ``d0``. Row2Edge and FROG use ``fact``
as the edge table (4 keys: 12 directed clique relations). Seeds: ``--seed-times`` times x
``--seeds-per-time`` d0 rows, batch 1024 (the subgraphs a training epoch uses); 2 layers, fan-out
``--fanout``. Sampling time: building all subgraphs (``make_batches``: sampling + feature gather),
the median of ``--repeats``. Epoch time: the mean over ``--epochs`` epochs of forward + backward
over those batches (after one untimed warm-up epoch). Targets: Row2Edge and FROG sampling within
2x of Row2Node's, a FROG epoch within 2x of Row2Node's. Writes results.csv to --out.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")


def fact_database(n_rows: int, dim_rows: int, seed: int = 0):
    import numpy as np
    import pandas as pd

    from toolkit_frog.relational import Database, Table

    rng = np.random.default_rng(seed)
    tables = {f"d{i}": Table(pd.DataFrame({"id": np.arange(dim_rows), "x": rng.normal(size=dim_rows)}), {}, "id", None)
              for i in range(4)}
    fact = pd.DataFrame({"fid": np.arange(n_rows), **{f"k{i}": rng.integers(0, dim_rows, n_rows) for i in range(4)},
                         "t": rng.integers(0, 1000, n_rows), "v": rng.normal(size=n_rows)})
    tables["fact"] = Table(fact, {f"k{i}": f"d{i}" for i in range(4)}, "fid", "t")
    return Database(tables, warn=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--dim-rows", type=int, default=20_000)
    ap.add_argument("--seed-times", type=int, default=11)
    ap.add_argument("--seeds-per-time", type=int, default=3000)
    ap.add_argument("--fanout", type=int, default=10)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--out", default="results/frog/bench_fact")
    a = ap.parse_args()

    import numpy as np
    import pandas as pd
    import torch

    from toolkit_frog.features import encode_database
    from toolkit_frog.models import RDLModel, Roles
    from toolkit_frog.train import SeedSplit, TrainConfig, build_graph, make_batches

    torch.set_num_threads(1)
    t0 = time.perf_counter()
    db = fact_database(a.rows, a.dim_rows)
    feats = encode_database(db)
    print(f"database: {db} built and encoded in {time.perf_counter() - t0:.1f} s")
    rng = np.random.default_rng(1)
    times = np.repeat(np.linspace(500, 999, a.seed_times).astype(np.int64), a.seeds_per_time)
    ent = rng.integers(0, a.dim_rows, len(times))
    split = SeedSplit(ent, times, rng.integers(0, 2, len(times)).astype(float))
    cfg = TrainConfig(channels=a.channels, num_layers=2, num_neighbors=(a.fanout, a.fanout), batch_size=1024,
                      strategy="uniform")
    rows = []
    for kind in ("row2node", "row2edge", "frog"):
        edge = ["fact"] if kind != "row2node" else []
        tb = time.perf_counter()
        graph = build_graph(db, kind, edge, "d0")
        build_s = time.perf_counter() - tb
        samples = []
        for r in range(a.repeats):
            ts = time.perf_counter()
            batches = make_batches(graph, feats, "d0", split, cfg, 1.0, seed=r)
            samples.append(time.perf_counter() - ts)
        roles = Roles(edge, channels=a.channels) if kind == "frog" else None
        model = RDLModel(graph, feats, "d0", a.channels, 2, 1, roles)
        opt = torch.optim.Adam(model.parameters(), lr=0.005)

        def epoch():
            for b in batches:
                opt.zero_grad()
                loss = torch.nn.functional.binary_cross_entropy_with_logits(model(b).squeeze(-1), b.y)
                loss.backward()
                opt.step()

        epoch_s = float("nan")
        if a.epochs > 0:  # --epochs 0: sampling only
            epoch()  # warm-up
            te = time.perf_counter()
            for _ in range(a.epochs):
                epoch()
            epoch_s = (time.perf_counter() - te) / a.epochs
        n_nodes = int(np.mean([sum(b.n_nodes.values()) for b in batches]))
        n_edges = int(np.mean([sum(len(r.src) for r in b.rels.values()) for b in batches]))
        rows.append({"model": kind, "fact_rows": a.rows, "n_batches": len(batches), "graph_build_s": build_s,
                     "sample_s": float(np.median(samples)), "epoch_s": epoch_s,
                     "nodes_per_batch": n_nodes, "edges_per_batch": n_edges})
        print(rows[-1], flush=True)
    t = pd.DataFrame(rows).set_index("model")
    t["sample_ratio_vs_row2node"] = t.sample_s / t.loc["row2node", "sample_s"]
    t["epoch_ratio_vs_row2node"] = t.epoch_s / t.loc["row2node", "epoch_s"]
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    t.to_csv(out / "results.csv")
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(t.round(3))
    ok_s = (t.loc[["row2edge", "frog"], "sample_ratio_vs_row2node"] <= 2).all()
    ok_e = bool(t.loc["frog", "epoch_ratio_vs_row2node"] <= 2)
    print(f"targets: sampling within 2x of Row2Node: {'met' if ok_s else 'NOT met'}; "
          f"FROG epoch within 2x: {'met' if ok_e else 'NOT met'}")


if __name__ == "__main__":
    main()
