"""Errors instead of silence (issue 20, section 3), and time units."""

import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest
from toolkit_frog.features import FeatureWarning, encode_database
from toolkit_frog.relational import (
    Database,
    EntityTask,
    SchemaError,
    SchemaWarning,
    Table,
    delta_to_int,
    events_label_fn,
    time_to_int,
)


def _sqlite(path, script):
    con = sqlite3.connect(path)
    con.executescript(script)
    con.commit()
    con.close()
    return str(path)


def test_composite_foreign_key_is_not_dropped_silently(tmp_path):
    path = _sqlite(
        tmp_path / "c.db",
        """
        CREATE TABLE shelf (aisle INTEGER, slot INTEGER, label TEXT, PRIMARY KEY (aisle, slot));
        CREATE TABLE item (iid INTEGER PRIMARY KEY, aisle INTEGER, slot INTEGER,
                           FOREIGN KEY (aisle, slot) REFERENCES shelf(aisle, slot));
        INSERT INTO shelf VALUES (1, 1, 'a'); INSERT INTO item VALUES (1, 1, 1);
    """,
    )
    with pytest.warns(
        SchemaWarning, match=r"composite foreign key \(aisle, slot\) -> 'shelf'.*not supported"
    ) as rec:
        db = Database.from_sqlite(path, pkeys={"shelf": None})
    assert db["item"].fkey_col_to_pkey_table == {}
    assert any(w.filename == __file__ for w in rec)  # stacklevel: the warning points at this line


def test_from_sqlite_refuses_keys_for_tables_not_loaded(tmp_path):
    path = _sqlite(
        tmp_path / "s.db", "CREATE TABLE a (id INTEGER PRIMARY KEY, t INTEGER); INSERT INTO a VALUES (1, 2);"
    )
    with pytest.raises(SchemaError, match=r"time_cols names table\(s\) \['b'\] that are not loaded"):
        Database.from_sqlite(path, time_cols={"b": "t"})
    with pytest.raises(SchemaError, match=r"pkeys names table\(s\) \['zz'\]"):
        Database.from_sqlite(path, pkeys={"zz": "id"})
    with pytest.raises(SchemaError, match=r"time_cols names table\(s\) \['a'\] that are not loaded"):
        Database.from_sqlite(path, tables=[], time_cols={"a": "t"})


def test_mixed_integer_and_datetime_time_columns_are_refused():
    a = pd.DataFrame({"id": [1], "year": [2001]})
    b = pd.DataFrame({"id": [1], "when": pd.to_datetime(["2001-05-01"])})
    with pytest.raises(SchemaError, match=r"time columns mix integers \(a.year\) and datetimes \(b.when\)"):
        Database({"a": Table(a, {}, "id", "year"), "b": Table(b, {}, "id", "when")})


def _shop():
    cust = pd.DataFrame({"cid": [1, 2, 3]})
    orders = pd.DataFrame(
        {
            "oid": range(6),
            "cid": [1, 2, 3, 1, 2, 3],
            "t": pd.to_datetime(
                ["2020-01-05", "2020-02-01", "2020-03-01", "2020-04-01", "2020-05-01", "2020-06-01"]
            ),
        }
    )
    return Database(
        {"customer": Table(cust, {}, "cid", None), "orders": Table(orders, {"cid": "customer"}, "oid", "t")}
    )


def test_entity_table_without_primary_key_is_a_clear_error():
    db = Database({"link": Table(pd.DataFrame({"a": [1]}), {}, None, None)})
    with pytest.raises(SchemaError, match="entity table 'link' has no primary key"):
        EntityTask(
            db=db,
            entity_table="link",
            entity_col="a",
            time_col="t",
            target_col="y",
            timedelta=1,
            task_type="regression",
            label_fn=lambda d, ts: None,
            val_timestamp=1,
            test_timestamp=2,
        )


def test_entity_table_as_edge_table_is_a_clear_error():
    from toolkit_frog.train import build_graph

    cust = pd.DataFrame({"cid": [1, 2]})
    prod = pd.DataFrame({"pid": [1, 2]})
    rev = pd.DataFrame({"rid": [1, 2], "cid": [1, 2], "pid": [1, 2]})
    db = Database(
        {
            "customer": Table(cust, {}, "cid", None),
            "product": Table(prod, {}, "pid", None),
            "review": Table(rev, {"cid": "customer", "pid": "product"}, "rid", None),
        }
    )
    with pytest.raises(SchemaError, match="entity table 'review' is among the edge tables"):
        build_graph(db, "row2edge", ["review"], "review")


def test_day_first_dates_get_a_format_hint():
    df = pd.DataFrame({"id": [1, 2, 3], "when": ["01/02/2020", "31/01/2020", "28/02/2020"]})  # read as m/d/Y
    with pytest.raises(SchemaError, match=r"day-first.*time_formats=\{'a': '%d/%m/%Y'\}"):
        Database({"a": Table(df, {}, "id", "when")})
    db = Database.from_dataframes(
        {"a": df}, pkeys={"a": "id"}, time_cols={"a": "when"}, time_formats={"a": "%d/%m/%Y"}
    )
    assert db.min_timestamp == pd.Timestamp("2020-01-31").value


def test_warnings_point_at_the_users_line():
    a = pd.DataFrame({"id": [1, 2], "b": [1, 5]})
    b = pd.DataFrame({"id": [1, 2]})
    with pytest.warns(SchemaWarning, match="reference no row") as rec:
        Database.from_dataframes({"a": a, "b": b}, pkeys={"a": "id", "b": "id"}, fkeys={"a": {"b": "b"}})
    assert rec[0].filename == __file__


def test_id_like_string_columns_warn_and_column_types_override():
    n = 50
    df = pd.DataFrame(
        {
            "id": range(n),
            "email": [f"user{i}@x.org" for i in range(n)],
            "phone": [f"+41 {i:07d}" for i in range(n)],
            "tier": ["a", "b"] * (n // 2),
            "code": [str(i % 7) for i in range(n)],
        }
    )
    db = Database({"u": Table(df, {}, "id", None)})
    with pytest.warns(FeatureWarning, match="ID-like") as rec:
        f = encode_database(db)["u"]
    assert {str(w.message).split("'")[3] for w in rec} == {"email", "phone"}
    assert "column 'email' has 50 distinct values in 50 rows (ID-like" in str(rec[0].message)
    assert f.categorical_cols == ["tier", "code"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", FeatureWarning)
        g = encode_database(
            db, column_types={"u": {"email": "ignore", "phone": "categorical", "code": "numeric"}}
        )["u"]
    assert g.categorical_cols == ["phone", "tier"] and g.numeric_cols == ["code"]
    with pytest.raises(SchemaError, match="types must be one of numeric, categorical, date, ignore"):
        encode_database(db, column_types={"u": {"email": "text"}})
    with pytest.raises(SchemaError, match=r"declared numeric but 50 of 50 values are not numbers"):
        encode_database(db, column_types={"u": {"email": "numeric"}})
    with pytest.raises(SchemaError, match=r"names column\(s\) \['nope'\]"):
        encode_database(db, column_types={"u": {"nope": "numeric"}})


# ------------------------------------------------------------------------------- time units
def test_time_windows_accept_timedelta_strings_and_refuse_bare_integers_on_datetimes():
    assert delta_to_int("90D", "datetime") == pd.Timedelta(days=90).value
    assert delta_to_int(pd.Timedelta(hours=12), "datetime") == pd.Timedelta(hours=12).value
    assert delta_to_int(3, "integer") == 3
    with pytest.raises(SchemaError, match="timedelta=1 is a bare number.*would mean 1 nanoseconds.*'90D'"):
        delta_to_int(1, "datetime")
    with pytest.raises(SchemaError, match="times are integers"):
        delta_to_int("90D", "integer")
    with pytest.raises(SchemaError, match="does not parse as a time difference"):
        delta_to_int("ninety days", "datetime")
    with pytest.raises(SchemaError, match="val_timestamp=2020 is a bare number"):
        time_to_int(2020, "datetime", "val_timestamp")


def _orders_task(db, **kw):
    fn = events_label_fn("cid", "time", "label", event_table="orders", event_fkey="cid", kind="count")
    args = dict(
        db=db,
        entity_table="customer",
        entity_col="cid",
        time_col="time",
        target_col="label",
        timedelta="30D",
        task_type="regression",
        label_fn=fn,
        val_timestamp="2020-03-15",
        test_timestamp="2020-05-15",
        train_start="2020-01-10",
    )
    return EntityTask(**{**args, **kw})


def test_entity_task_on_a_datetime_database():
    db = _shop()
    task = _orders_task(db)  # events_label_fn passed directly, as documented (was a TypeError)
    assert task.delta == pd.Timedelta(days=30).value
    val = task.get_table("val", mask_input_cols=False)  # (03-15, 04-14]: customer 1's order of 04-01
    assert dict(zip(val.cid, val.label)) == {1: 1, 2: 0, 3: 0}
    with pytest.raises(SchemaError, match="timedelta=1 is a bare number"):
        _orders_task(db, timedelta=1)
    with pytest.raises(SchemaError, match="step=7 is a bare number"):
        _orders_task(db, step=7).split_timestamps("train")
    from toolkit_frog.tabular import lightgbm_baseline
    from toolkit_frog.train import task_splits

    with pytest.raises(SchemaError, match="window=1 is a bare number"):
        lightgbm_baseline(db, "customer", task_splits(task), "regression", window=1)
    with pytest.raises(SchemaError, match="window must be given on a datetime database"):
        lightgbm_baseline(db, "customer", task_splits(task), "regression")


def test_several_validation_and_test_timestamps():
    db = _shop()
    task = _orders_task(
        db, val_timestamp=["2020-02-10", "2020-03-10"], test_timestamp=["2020-04-15", "2020-05-15"]
    )
    assert len(task.split_timestamps("val")) == 2 and len(task.split_timestamps("test")) == 2
    assert task.split_timestamps("train")[-1] == pd.Timestamp("2020-01-11").value  # first val - 30 days
    assert len(task.get_table("test", mask_input_cols=False)) == 6
    with pytest.raises(SchemaError, match="val labels would use events after the test timestamp"):
        _orders_task(db, val_timestamp=["2020-02-10", "2020-04-10"], test_timestamp="2020-04-15")


def test_label_fn_signatures():
    db = _shop()
    two = lambda d, ts: pd.DataFrame({"cid": [1] * len(ts), "time": ts, "label": 0.0})
    assert len(_orders_task(db, label_fn=two).get_table("val")) == 1
    with pytest.raises(SchemaError, match="label_fn must take"):
        _orders_task(db, label_fn=lambda d: None)


def test_label_kinds_mean_and_last():
    db = _shop()
    orders = db["orders"].df.assign(amount=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    db = Database({"customer": db["customer"], "orders": Table(orders, {"cid": "customer"}, "oid", "t")})
    t = np.array([pd.Timestamp("2020-01-01").value])
    delta = pd.Timedelta(days=100).value  # (01-01, 04-10]: orders 0..3
    mean = events_label_fn("cid", "time", "y", "orders", "cid", kind="mean", value_col="amount")(db, t, delta)
    assert dict(zip(mean.cid, mean.y)) == {1: 2.5, 2: 2.0, 3: 3.0}
    last = events_label_fn("cid", "time", "y", "orders", "cid", kind="last", value_col="amount")(db, t, delta)
    assert dict(zip(last.cid, last.y)) == {1: 4.0, 2: 2.0, 3: 3.0}
    with pytest.raises(SchemaError, match="label kind must be one of"):
        events_label_fn("cid", "time", "y", "orders", "cid", kind="median")
    with pytest.raises(SchemaError, match="needs a value column"):
        events_label_fn("cid", "time", "y", "orders", "cid", kind="sum")
