"""The run store: content addressing, and corrupt / locked / foreign files reported, never overwritten."""

from __future__ import annotations

import sqlite3

import pytest

from toolkit.errors import StoreError
from toolkit.store import RunStore, run_key


def test_key_depends_on_everything_that_determines_a_run():
    base = run_key("a.sim", {"d": 8}, 0, "1")
    assert base == run_key("a.sim", {"d": 8}, 0, "1")
    assert (
        len(
            {
                base,
                run_key("a.sim", {"d": 9}, 0, "1"),
                run_key("a.sim", {"d": 8}, 1, "1"),
                run_key("a.sim", {"d": 8}, 0, "2"),
                run_key("b.sim", {"d": 8}, 0, "1"),
            }
        )
        == 5
    )


def test_put_get_roundtrip(store_path):
    with RunStore(store_path) as st:
        st.put("k" * 64, "a.sim", {"d": 8}, 3, "1", [{"x": 1.5, "name": "a"}], {"x": 1.5}, {"wall_time": 0.1})
        got = st.get("k" * 64)
        assert got.records == [{"x": 1.5, "name": "a"}] and got.params == {"d": 8} and got.seed == 3
        assert st.existing(["k" * 64, "z" * 64]) == {"k" * 64}
        assert st.resolve("kkkk") == ("run", "k" * 64)


def test_corrupt_file_is_reported_and_left_untouched(tmp_path):
    path = tmp_path / "runs.sqlite"
    garbage = b"this is not an sqlite database at all" * 100
    path.write_bytes(garbage)
    with pytest.raises(StoreError, match="corrupt or not a toolkit store.*left untouched"):
        RunStore(path).count()
    assert path.read_bytes() == garbage


def test_foreign_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "other.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    with pytest.raises(StoreError, match="not a toolkit run store"):
        RunStore(path).count()
    con = sqlite3.connect(path)
    assert con.execute("SELECT name FROM sqlite_master").fetchall() == [("t",)]


def test_truncated_store_is_detected(tmp_path):
    path = tmp_path / "runs.sqlite"
    with RunStore(path) as st:
        for i in range(200):
            st.put(f"{i:064d}", "a.sim", {"i": i}, 0, "1", [{"x": "y" * 500}], {}, {})
        st.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = path.read_bytes()
    path.write_bytes(data[:4096] + b"\x00" * 2000 + data[6096 : len(data) // 2])
    with pytest.raises(StoreError):
        st2 = RunStore(path)
        st2.count()
        list(st2.iter_runs())


def test_locked_store_is_reported(tmp_path):
    path = tmp_path / "runs.sqlite"
    RunStore(path).count()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match="locked by another process"):
            st = RunStore(path, timeout=0.2)
            st.put("a" * 64, "a.sim", {}, 0, "1", [], {}, {})
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_ambiguous_and_unknown_ids(store_path):
    with RunStore(store_path) as st:
        st.put("abcd" + "0" * 60, "a.sim", {}, 0, "1", [], {}, {})
        st.put("abcd" + "1" * 60, "a.sim", {}, 1, "1", [], {}, {})
        with pytest.raises(StoreError, match="ambiguous"):
            st.resolve("abcd")
        with pytest.raises(StoreError, match="at least 4 characters"):
            st.resolve("ab")
        with pytest.raises(StoreError, match="no run or sweep"):
            st.resolve("ffff")
