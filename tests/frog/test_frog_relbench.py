"""RelBench interop: its Database/Table and entity tasks in, ours out, round trip (objects built
locally: RelBench's datasets download, which does not work offline)."""

import warnings

import numpy as np
import pandas as pd
import pytest

rb = pytest.importorskip("relbench.base", reason="pip install relbench (a dependency of the frog plugin)")

from toolkit_frog.relational import Database, Table
from toolkit_frog.relbench_interop import (
    INHERITED_TIME_COL,
    from_relbench_database,
    from_relbench_task,
    to_relbench_database,
)


def _relbench_db():
    rng = np.random.default_rng(0)
    n_u, n_o = 40, 300
    users = pd.DataFrame({"user_id": np.arange(n_u), "age": rng.integers(18, 80, n_u).astype(float)})
    days = pd.to_datetime("2021-01-01") + pd.to_timedelta(np.sort(rng.integers(0, 360, n_o)), unit="D")
    orders = pd.DataFrame(
        {
            "order_id": np.arange(n_o),
            "user_id": rng.integers(0, n_u, n_o),
            "date": days,
            "amount": rng.gamma(2.0, 10.0, n_o),
        }
    )
    return rb.Database(
        {
            "users": rb.Table(users, {}, "user_id", None),
            "orders": rb.Table(orders, {"user_id": "users"}, "order_id", "date"),
        }
    )


class _Dataset(rb.Dataset):
    val_timestamp = pd.Timestamp("2021-09-01")
    test_timestamp = pd.Timestamp("2021-11-01")

    def make_db(self):
        return _relbench_db()


class _ChurnTask(rb.EntityTask):
    """Will the user order in the next 30 days (users with an order in the last 90)."""

    task_type = rb.TaskType.BINARY_CLASSIFICATION
    entity_col, entity_table, time_col, target_col = "user_id", "users", "timestamp", "churn"
    timedelta = pd.Timedelta(days=30)
    metrics = []

    def make_table(self, db, timestamps):
        orders = db.table_dict["orders"].df
        rows = []
        for t in timestamps:
            past = orders[(orders.date > t - pd.Timedelta(days=90)) & (orders.date <= t)].user_id.unique()
            fut = set(orders[(orders.date > t) & (orders.date <= t + self.timedelta)].user_id)
            rows += [{"timestamp": t, "user_id": u, "churn": int(u not in fut)} for u in past]
        return rb.Table(pd.DataFrame(rows), {"user_id": "users"}, None, "timestamp")


def test_relbench_database_in_and_out_round_trip():
    rdb = _relbench_db()
    db = from_relbench_database(rdb)
    assert set(db.table_dict) == {"users", "orders"} and db.time_kind == "datetime"
    back = to_relbench_database(db)
    assert isinstance(back, rb.Database)
    for name, t in rdb.table_dict.items():
        b = back.table_dict[name]
        assert (b.pkey_col, b.time_col, b.fkey_col_to_pkey_table) == (
            t.pkey_col,
            t.time_col,
            t.fkey_col_to_pkey_table,
        )
        pd.testing.assert_frame_equal(
            b.df.reset_index(drop=True), t.df.reset_index(drop=True), check_dtype=False
        )
    assert back.upto(pd.Timestamp("2021-03-01")).table_dict["orders"].df.date.max() <= pd.Timestamp(
        "2021-03-01"
    )


def test_export_reindexes_keys_and_materialises_inherited_times():
    cust = pd.DataFrame({"cid": [70, 50]})
    inv = pd.DataFrame({"iid": [9, 8], "cid": [50, 70], "t": pd.to_datetime(["2021-01-05", "2021-02-01"])})
    line = pd.DataFrame({"lid": [3, 4, 5], "iid": [8, 9, 9]})
    ours = Database(
        {
            "customer": Table(cust, {}, "cid", None),
            "invoice": Table(inv, {"cid": "customer"}, "iid", "t"),
            "line": Table(line, {"iid": "invoice"}, "lid", None),
        }
    )
    out = to_relbench_database(ours)
    assert out.table_dict["invoice"].df.cid.tolist() == [1, 0]  # RelBench key contract: row indices
    line_rb = out.table_dict["line"]
    assert line_rb.time_col == INHERITED_TIME_COL
    assert line_rb.df[INHERITED_TIME_COL].tolist() == list(
        pd.to_datetime(["2021-02-01", "2021-01-05", "2021-01-05"])
    )
    assert len(out.upto(pd.Timestamp("2021-01-10")).table_dict["line"].df) == 2  # RelBench now cuts them too
    again = from_relbench_database(out)
    assert np.array_equal(again.resolved["line"].time, ours.resolved["line"].time)


def test_relbench_entity_task_runs_through_frog():
    from toolkit_frog.train import TrainConfig, run_models

    task_rb = _ChurnTask(_Dataset())
    task = from_relbench_task(task_rb)
    assert task.task_type == "binary_classification" and task.delta == pd.Timedelta(days=30).value
    val = task.get_table("val", mask_input_cols=False)
    expected = task_rb.make_table(_relbench_db(), pd.Series([pd.Timestamp("2021-09-01")])).df
    assert sorted(zip(val.user_id, val.churn)) == sorted(zip(expected.user_id, expected.churn))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = run_models(task, ["row2node"], [], TrainConfig(epochs=1, channels=8, num_neighbors=(5, 5)), 0)
    assert 0 <= res["row2node"].test <= 1
