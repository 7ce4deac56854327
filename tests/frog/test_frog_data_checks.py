"""What the data layer says about a user's database: untimed event tables, dates stored as text,
small dimension tables, where warnings point, and roles that did not move."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from toolkit_frog.features import FeatureWarning, encode_database
from toolkit_frog.relational import NEVER, Database, SchemaError, SchemaWarning, Table, warn_origin, warn_user

REPO = Path(__file__).resolve().parents[2]


def _orders_db(**kwargs) -> Database:
    cust = pd.DataFrame({"cid": range(5), "x": np.arange(5.0)})
    orders = pd.DataFrame({"oid": range(8), "cid": [0, 1, 2, 3, 4, 0, 1, 2], "t": range(8)})
    # every order again, future ones included, without its date
    copy = pd.DataFrame({"lid": range(8), "cid": orders.cid, "qty": np.arange(8.0)})
    return Database(
        {
            "customer": Table(cust, {}, "cid", None),
            "orders": Table(orders, {"cid": "customer"}, "oid", "t"),
            "order_copy": Table(copy, {"cid": "customer"}, "lid", None),
        },
        **kwargs,
    )


def test_an_untimed_event_table_is_named_and_can_be_declared():
    with pytest.warns(
        SchemaWarning, match=r"table 'order_copy' has no time column.*unknown_time_tables"
    ) as rec:
        _orders_db()
    assert sum("order_copy" in str(w.message) for w in rec) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", SchemaWarning)
        hidden = _orders_db(unknown_time_tables=["order_copy"])
        static = _orders_db(static_tables=["order_copy"])
    assert (hidden.resolved["order_copy"].time == NEVER).all()
    assert len(hidden.upto(7)["order_copy"].df) == 0 and len(static.upto(0)["order_copy"].df) == 8
    with pytest.raises(SchemaError, match="unknown_time_tables names unknown table"):
        _orders_db(unknown_time_tables=["nope"])
    with pytest.raises(SchemaError, match="both static_tables and unknown_time_tables"):
        _orders_db(unknown_time_tables=["order_copy"], static_tables=["order_copy"])


def test_iso_text_dates_are_numbers_and_small_tables_keep_their_names():
    n = 200
    days = pd.date_range("1995-01-01", periods=n, freq="D")
    items = pd.DataFrame(
        {"iid": range(n), "nid": np.arange(n) % 25, "l_shipdate": days.strftime("%Y-%m-%d"), "t": range(n)}
    )
    nation = pd.DataFrame({"nid": range(25), "n_name": [f"NATION{i}" for i in range(25)]})
    db = Database(
        {"nation": Table(nation, {}, "nid", None), "item": Table(items, {"nid": "nation"}, "iid", "t")}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", FeatureWarning)
        f = encode_database(db, max_categories=100)
    assert f["item"].numeric_cols == ["l_shipdate"]
    x = f["item"].numeric[:, 0]
    assert np.allclose(np.diff(x), x[1] - x[0]) and x[1] > x[0]  # one day apart, in order
    assert f["nation"].categorical_cols == ["n_name"]
    bad = items.assign(l_shipdate=items.l_shipdate.where(items.iid > 0, "soon"))
    db_bad = Database({"item": Table(bad.drop(columns="nid"), {}, "iid", "t")})
    with pytest.raises(SchemaError, match=r"column 'l_shipdate' is read as a date but 1 values do not parse"):
        encode_database(db_bad, column_types={"item": {"l_shipdate": "date"}})


def test_warnings_point_at_the_origin_once_each():
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with warn_origin("/data/task.json"):
            for _ in range(3):
                warn_user("column 'x' is odd", FeatureWarning)
            warn_user("column 'y' is odd", FeatureWarning)
    assert [(str(w.message), w.filename, w.lineno) for w in rec] == [
        ("column 'x' is odd", "/data/task.json", 1),
        ("column 'y' is odd", "/data/task.json", 1),
    ]


def test_the_database_run_warns_at_the_task_file(tmp_path, monkeypatch):
    import toolkit_frog.simulation as sim

    task = tmp_path / "task.json"
    task.write_text("{}")
    monkeypatch.setattr(sim, "_database", lambda p, s: [warn_user("w", SchemaWarning) for _ in range(2)])
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        sim.database(sim.DatabaseParams(url=str(tmp_path / "shop.db"), task=str(task)), 0)
    assert [(w.filename, w.lineno) for w in rec] == [(str(task.resolve()), 1)]


def test_a_role_that_did_not_move_is_said_so():
    from toolkit_frog.planted import make_planted_database, planted_task
    from toolkit_frog.train import ROLE_MIN_SHIFT, TrainConfig, run_models

    db = make_planted_database("edge_easy", n_customers=120, n_products=20, seed=0)
    cfg = TrainConfig(epochs=1, channels=8, num_neighbors=(5, 5), role_lr=1e-4)
    res = run_models(planted_task(db), ["frog"], ["review"], cfg, 0)["frog"]
    assert res.pi_start["review"] == pytest.approx(0.5)
    assert abs(res.role_shift("review")) < ROLE_MIN_SHIFT and not res.role_moved("review")
    assert res.pi_grad["review"] > 0
    note = res.role_note("review")
    assert "not moved" in note and "after 1 epochs" in note and "train longer" in note


def test_every_benchmark_option_says_its_default_and_unit():
    out = subprocess.run(
        [sys.executable, str(REPO / "plugins" / "frog" / "benchmarks" / "frog_fact_table.py"), "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    body = out.split("options:", 1)[1]
    options = [line.split()[0] for line in body.splitlines() if line.strip().startswith("--")]
    text = " ".join(body.split())
    assert len(options) >= 10
    for opt in options:
        if opt == "--help":
            continue
        after = text.split(opt, 1)[1].split(" --", 1)[0]
        assert "(default:" in after, (opt, after)
