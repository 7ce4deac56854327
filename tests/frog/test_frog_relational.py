import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest
from toolkit_frog.relational import Database, EntityTask, SchemaError, SchemaWarning, Table, events_label_fn


def test_keys_reindexed_and_dangling_kept_as_missing(shop_db):
    r = shop_db.resolved["review"]
    assert r.fkeys["cid"].tolist() == [0, 1, 2, 2, -1]
    assert r.fkeys["pid"].tolist() == [0, 0, 1, 0, 1]
    assert r.n_dangling == {"cid": 1, "pid": 0}
    re = shop_db.reindex_pkeys_and_fkeys()
    df = re["review"].df
    assert len(df) == 5  # no row dropped
    assert df["cid"].isna().tolist() == [False, False, False, False, True]
    assert re["customer"].df["cid"].tolist() == [0, 1, 2]


def test_upto_and_timestamps(shop_db):
    assert (shop_db.min_timestamp, shop_db.max_timestamp) == (1, 6)
    cut = shop_db.upto(3)
    assert len(cut["review"]) == 3 and len(cut["vote"]) == 2
    assert len(cut["customer"]) == 3  # no time column: kept whole
    assert cut.max_timestamp == 3


@pytest.mark.parametrize(
    "tables, match",
    [
        (
            {"a": Table(pd.DataFrame({"id": [1]}), {}, "nope", None)},
            "primary key column 'nope' is not a column",
        ),
        (
            {"a": Table(pd.DataFrame({"id": [1], "b": [1]}), {"b": "zzz"}, "id", None)},
            "references unknown table 'zzz'",
        ),
        ({"a": Table(pd.DataFrame({"id": [1, 1, 2]}), {}, "id", None)}, "1 duplicated values"),
        (
            {"a": Table(pd.DataFrame({"id": [1], "when": ["x"]}), {}, "id", "when")},
            "1 of 1 values that do not parse",
        ),
        (
            {
                "a": Table(pd.DataFrame({"id": [1, 2, 3], "b": [1, 2, 3]}), {"b": "b"}, "id", None),
                "b": Table(pd.DataFrame({"id": ["x", "y"]}), {}, "id", None),
            },
            "integer values \\(3 non-null\\).*is string",
        ),
        (
            {
                "a": Table(pd.DataFrame({"id": [1], "b": [1]}), {"b": "b"}, "id", None),
                "b": Table(pd.DataFrame({"v": [1]}), {}, None, None),
            },
            "which has no primary key",
        ),
    ],
)
def test_schema_errors_name_the_problem(tables, match):
    with pytest.raises(SchemaError, match=match):
        Database(tables)


def test_time_column_parse_errors_count_bad_values():
    df = pd.DataFrame({"id": range(4), "when": ["2020-01-01", "not a date", "2020-02-01", "also bad"]})
    with pytest.raises(SchemaError, match="2 of 4 values that do not parse"):
        Database({"a": Table(df, {}, "id", "when")})
    ok = Database({"a": Table(df.iloc[[0, 2]], {}, "id", "when")})
    assert ok.min_timestamp == pd.Timestamp("2020-01-01").value


def test_cycles_warn():
    a = pd.DataFrame({"id": [1, 2], "b": [1, 2]})
    b = pd.DataFrame({"id": [1, 2], "a": [2, 1]})
    with pytest.warns(SchemaWarning, match="1 foreign-key cycle"):
        Database({"a": Table(a, {"b": "b"}, "id", None), "b": Table(b, {"a": "a"}, "id", None)})


def _make_sqlite(path):
    con = sqlite3.connect(path)
    con.executescript("""
        CREATE TABLE customer (cid INTEGER PRIMARY KEY, age REAL);
        CREATE TABLE product (pid INTEGER PRIMARY KEY, price REAL);
        CREATE TABLE review (rid INTEGER PRIMARY KEY, cid INTEGER REFERENCES customer(cid),
                             pid INTEGER REFERENCES product(pid), t INTEGER, rating REAL);
        INSERT INTO customer VALUES (1, 20.0), (2, 30.0);
        INSERT INTO product VALUES (1, 9.5);
        INSERT INTO review VALUES (1, 1, 1, 5, 4.0), (2, 2, 1, 6, 3.0), (3, 7, 1, 7, 1.0);
    """)
    con.commit()
    con.close()


def test_sqlite_keys_from_schema(tmp_path):
    path = tmp_path / "shop.db"
    _make_sqlite(path)
    with pytest.warns(SchemaWarning, match="1 of 3 values of foreign key 'cid'"):
        db = Database.from_sqlite(str(path), time_cols={"review": "t"})
    assert db["review"].fkey_col_to_pkey_table == {"cid": "customer", "pid": "product"}
    assert db["customer"].pkey_col == "cid"
    assert db.resolved["review"].fkeys["cid"].tolist() == [0, 1, -1]


def test_sqlalchemy_engine_and_user_keys(tmp_path):
    import sqlalchemy as sa

    path = tmp_path / "shop.db"
    _make_sqlite(path)
    engine = sa.create_engine(f"sqlite:///{path}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SchemaWarning)
        db = Database.from_sql(engine, tables=["customer", "review"], fkeys={"review": {"cid": "customer"}})
    assert db["review"].fkey_col_to_pkey_table == {"cid": "customer"}
    with pytest.raises(SchemaError, match="not in the database"):
        Database.from_sql(engine, tables=["nope"])
    with pytest.raises(SchemaError, match="does not exist"):
        Database.from_sqlite(str(tmp_path / "missing.db"))


def _event_task(db, **kw):
    fn = events_label_fn(
        "cid",
        "t",
        "label",
        event_table="review",
        event_fkey="cid",
        kind="count",
        active_table="review",
        active_fkey="cid",
        active_window=10,
    )
    return EntityTask(
        db=db,
        entity_table="customer",
        entity_col="cid",
        time_col="t",
        target_col="label",
        timedelta=2,
        task_type="regression",
        label_fn=lambda d, ts: fn(d, ts, 2),
        val_timestamp=kw.get("val", 2),
        test_timestamp=kw.get("test", 4),
        train_start=0,
    )


def test_task_labels_use_window_after_t_and_mask_test(shop_db):
    task = _event_task(shop_db)
    assert task.split_timestamps("train").tolist() == [0]
    val = task.get_table("val")  # t = 2: events in (2, 4] -> reviews at 3, 4 (customer 12 twice)
    assert dict(zip(val.cid, val.label)) == {10: 0, 11: 0}
    test = task.get_table("test")
    assert "label" not in test.columns  # masked
    test_labels = task.get_table("test", mask_input_cols=False)
    assert dict(zip(test_labels.cid, test_labels.label)) == {10: 0, 11: 0, 12: 0}
    with pytest.raises(SchemaError, match="val labels would use events after the test timestamp"):
        _event_task(shop_db, val=3, test=4)


def test_task_bad_split_name(shop_db):
    with pytest.raises(SchemaError, match="split must be"):
        _event_task(shop_db).get_table("dev")


def test_label_window_is_half_open(shop_db):
    fn = events_label_fn(
        "cid",
        "t",
        "label",
        event_table="review",
        event_fkey="cid",
        kind="count",
        active_table="review",
        active_fkey="cid",
        active_window=10,
    )
    at3 = fn(shop_db, np.array([3]), 2)  # events in (3, 5]: review at 4 (customer 12); at 5 dangling
    assert dict(zip(at3.cid, at3.label)) == {10: 0, 11: 0, 12: 1}
    at2 = fn(shop_db, np.array([2]), 1)  # (2, 3]: the review at 3 counts, the one at 2 does not
    assert dict(zip(at2.cid, at2.label)) == {10: 0, 11: 0}
    at3b = fn(shop_db, np.array([3]), 1)  # (3, 4]
    assert dict(zip(at3b.cid, at3b.label))[12] == 1
