"""Graph-construction throughput on a ~1M-row synthetic database, against plain pandas merges,
and the time of one training epoch on it: Row2Node on our graph, Row2Node on the pandas-built
graph (the same edges), and FROG.

    python plugins/frog/benchmarks/frog_graph_build.py                 # ~1M rows
    python plugins/frog/benchmarks/frog_graph_build.py --customers 5000 --no-train   # small smoke run

Keys are shuffled 64-bit ids (not 0..n-1), so both builders really look keys up. Build times are
the median of --repeats runs; epoch times are the mean over --epochs epochs, after
an untimed warm-up on a few batches.
Writes results.csv to --out (default results/frog/bench).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")


def scramble_keys(db, seed: int):
    """The same database with every primary key replaced by a random unique 64-bit id."""
    import numpy as np
    from toolkit_frog.relational import Database, Table

    rng = np.random.default_rng(seed)
    maps = {}
    for name, t in db.table_dict.items():
        if t.pkey_col:
            ids = rng.choice(2**62, size=len(t.df), replace=False).astype(np.int64)
            maps[name] = ids  # position -> new id (old keys are 0..n-1)
    frames = {}
    for name, t in db.table_dict.items():
        df = t.df.copy()
        if t.pkey_col:
            df[t.pkey_col] = maps[name][df[t.pkey_col].to_numpy()]
        for fk, target in t.fkey_col_to_pkey_table.items():
            df[fk] = maps[target][df[fk].to_numpy()]
        frames[name] = df
    return (
        frames,
        {
            n: Table(frames[n], dict(t.fkey_col_to_pkey_table), t.pkey_col, t.time_col)
            for n, t in db.table_dict.items()
        },
        Database,
    )


def pandas_row2node(frames, schema):
    """The Row2Node edge lists with plain pandas: one merge per foreign key (row -> referenced row)."""

    edges = {}
    for name, (pk, fks) in schema.items():
        left = frames[name][list(fks)].reset_index(names="_src")
        for fk, target in fks.items():
            tpk = schema[target][0]
            right = frames[target][[tpk]].reset_index(names="_dst")
            m = left[["_src", fk]].merge(right, left_on=fk, right_on=tpk, how="inner")
            edges[(name, f"f2p_{fk}", target)] = (m["_src"].to_numpy(), m["_dst"].to_numpy())
            edges[(target, f"rev_f2p_{fk}", name)] = (m["_dst"].to_numpy(), m["_src"].to_numpy())
    return edges


def pandas_hetero_graph(frames, schema, time_cols):
    """The Row2Node graph from plain pandas merges, as a ``HeteroGraph`` (edge times included).

    Node times are read straight from the time columns (integers here; no parsing or checks);
    an edge carries its sender's time: the referencing row's (f2p), the referenced row's (rev_f2p), as ours do.
    """
    import numpy as np
    from toolkit_frog.graph import HeteroGraph, Relation
    from toolkit_frog.relational import ALWAYS

    node_time = {
        n: (
            df[time_cols[n]].to_numpy(dtype=np.int64)
            if time_cols[n]
            else np.full(len(df), ALWAYS, dtype=np.int64)
        )
        for n, df in frames.items()
    }
    g = HeteroGraph({n: len(df) for n, df in frames.items()}, node_time)
    for (src_t, name, dst_t), (src, dst) in pandas_row2node(frames, schema).items():
        g.add(Relation(src_t, name, dst_t, src, dst, node_time[src_t][src]))  # both: the sender's time
    return g


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--customers", type=int, default=55_500, help="customers; rows ~ 18 x customers")
    ap.add_argument("--no-train", action="store_true", help="skip the training-epoch timing")
    ap.add_argument("--repeats", type=int, default=3, help="build timings: median of this many runs")
    ap.add_argument("--epochs", type=int, default=3, help="training epochs timed per model (mean epoch time)")
    ap.add_argument("--out", default="results/frog/bench", help="output folder")
    args = ap.parse_args()

    import numpy as np
    import pandas as pd
    import torch
    from toolkit_frog.features import encode_database
    from toolkit_frog.graph import make_frog_graph, make_pkey_fkey_graph
    from toolkit_frog.planted import make_planted_database, planted_task
    from toolkit_frog.train import TrainConfig, fit, make_batches, task_splits

    torch.set_num_threads(1)
    base = make_planted_database("edge_easy", 1.0, args.customers, 2000, seed=0)
    frames, tables, Database = scramble_keys(base, 0)
    n_rows = sum(len(df) for df in frames.values())
    schema = {n: (t.pkey_col, dict(t.fkey_col_to_pkey_table)) for n, t in tables.items()}

    def timed(fn):
        times, out = [], None
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
        return out, float(np.median(times))

    db, t_db = timed(lambda: Database(tables))
    graph, t_graph = timed(lambda: make_pkey_fkey_graph(db))
    _, t_pandas = timed(lambda: pandas_row2node(frames, schema))
    time_cols = {n: t.time_col for n, t in tables.items()}
    pgraph, t_pandas_graph = timed(lambda: pandas_hetero_graph(frames, schema, time_cols))
    assert set(pgraph.relations) == set(graph.relations)
    for key, rel in graph.relations.items():  # the same graph: edges, edge times, node times
        p = pgraph.relations[key]
        a = np.lexsort((rel.dst_index, rel.src_index))
        b = np.lexsort((p.dst_index, p.src_index))
        assert np.array_equal(rel.src_index[a], p.src_index[b]) and np.array_equal(
            rel.dst_index[a], p.dst_index[b]
        ), key
        assert np.array_equal(rel.time[a], p.time[b]), key
    for n in graph.node_time:
        assert np.array_equal(graph.node_time[n], pgraph.node_time[n]), n
    ours = t_db + t_graph
    rows = [
        {"measure": "rows", "value": n_rows},
        {"measure": "edges_row2node", "value": graph.num_edges},
        {"measure": "database_validate_resolve_s", "value": t_db},
        {"measure": "row2node_build_s", "value": t_graph},
        {"measure": "ours_total_s", "value": ours},
        {"measure": "ours_rows_per_s", "value": n_rows / ours},
        {"measure": "pandas_merge_s", "value": t_pandas},
        {"measure": "pandas_rows_per_s", "value": n_rows / t_pandas},
        {"measure": "speedup_vs_pandas", "value": t_pandas / ours},
        {"measure": "pandas_graph_with_times_s", "value": t_pandas_graph},
        {"measure": "speedup_vs_pandas_graph_with_times", "value": t_pandas_graph / ours},
    ]
    frog_graph, t_frog = timed(lambda: make_frog_graph(db, ["review"]))
    rows.append({"measure": "frog_graph_build_s", "value": t_frog})
    if not args.no_train:
        task = planted_task(db)
        feats = encode_database(db)
        splits = task_splits(task)
        cfg = TrainConfig(epochs=args.epochs, channels=64, num_neighbors=(10, 10), batch_size=1024)
        timing, warm = {}, False
        for label, kind, g in (
            ("row2node", "row2node", graph),
            ("row2node_pandas_graph", "row2node", pgraph),
            ("frog", "frog", frog_graph),
        ):
            t0 = time.perf_counter()
            batches = {
                s: make_batches(g, feats, "customer", splits[s], cfg, 1.0, i)
                for i, s in enumerate(("train", "val", "test"))
            }
            t_sample = time.perf_counter() - t0
            if not warm:  # warm-up (torch allocations, first-call costs) on a few batches, not timed
                fit(
                    g,
                    feats,
                    "customer",
                    splits,
                    task.task_type,
                    kind,
                    dataclasses.replace(cfg, epochs=1),
                    0,
                    edge_tables=["review"],
                    batches={k: v[:2] for k, v in batches.items()},
                )
                warm = True
            res = fit(
                g,
                feats,
                "customer",
                splits,
                task.task_type,
                kind,
                cfg,
                0,
                edge_tables=["review"],
                batches=batches,
            )
            timing[label] = (t_sample, res.epoch_seconds)
            rows += [
                {"measure": f"{label}_sampling_s", "value": t_sample},
                {"measure": f"{label}_epoch_s", "value": res.epoch_seconds},
                {"measure": f"{label}_train_seeds", "value": len(splits["train"].entity)},
            ]
        (ps, pe), (os_, oe) = timing["row2node_pandas_graph"], timing["row2node"]
        rows += [
            {"measure": "epoch_ratio_pandas_graph_vs_ours", "value": pe / oe},
            {
                "measure": "end_to_end_ratio_pandas_vs_ours (build + sampling + 1 epoch)",
                "value": (t_pandas_graph + ps + pe) / (ours + os_ + oe),
            },
        ]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table = pd.DataFrame(rows)
    table.to_csv(out / "results.csv", index=False)
    print(table.to_string(index=False))


if __name__ == "__main__":
    main()
