"""RelBench (PyPI ``relbench``) interop: its ``Database``/``Table`` and entity tasks in, ours out.

* :func:`from_relbench_database` -- a ``relbench.base.Database`` as our :class:`Database`.
* :func:`to_relbench_database` -- ours as a RelBench one: primary keys 0..n-1 in row order and
  foreign keys as those indices (RelBench's key contract), time columns kept; an untimed table
  whose rows inherit a time here gets it as a column ``inherited_time`` (its time column there),
  because RelBench treats untimed tables as always visible.
* :func:`from_relbench_task` -- a ``relbench.base.EntityTask`` as our :class:`EntityTask` (labels
  from its own ``make_table``; val/test timestamps and the window from the task and its dataset).

No toolkit imports; ``relbench`` is imported inside the functions.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from toolkit_frog.relational import ALWAYS, Database, EntityTask, SchemaError, Table

INHERITED_TIME_COL = "inherited_time"


def from_relbench_database(rdb: Any, *, warn: bool = True, static_tables=()) -> Database:
    """Our :class:`Database` of a ``relbench.base.Database`` (frames copied, keys and times as given)."""
    tables = {}
    for name, t in rdb.table_dict.items():
        tables[name] = Table(
            t.df.reset_index(drop=True).copy(), dict(t.fkey_col_to_pkey_table), t.pkey_col, t.time_col
        )
    return Database(tables, warn=warn, static_tables=static_tables)


def _time_values(db: Database, times: np.ndarray):
    if db.time_kind == "datetime":
        return pd.to_datetime(times, unit="ns")
    return times


def to_relbench_database(db: Database):
    """A ``relbench.base.Database`` of ours (keys re-indexed to 0..n-1; see the module docstring)."""
    from relbench.base import Database as RBDatabase
    from relbench.base import Table as RBTable

    re = db.reindex_pkeys_and_fkeys()
    out = {}
    for name, r in re.resolved.items():
        df = r.table.df.copy()
        time_col = r.table.time_col
        inherited = db.resolved[name].inherited_from
        if time_col is None and inherited:
            if INHERITED_TIME_COL in df.columns:
                raise SchemaError(
                    f"table {name!r} already has a column {INHERITED_TIME_COL!r}; rename it to export"
                )
            df[INHERITED_TIME_COL] = _time_values(db, db.resolved[name].time)
            time_col = INHERITED_TIME_COL
        out[name] = RBTable(
            df=df,
            fkey_col_to_pkey_table=dict(r.table.fkey_col_to_pkey_table),
            pkey_col=r.table.pkey_col,
            time_col=time_col,
        )
    return RBDatabase(out)


def from_relbench_task(task: Any, db: Database | None = None) -> EntityTask:
    """Our :class:`EntityTask` of a ``relbench.base.EntityTask`` (binary classification or regression).

    ``db``: ours, if already converted (default: the task's full database, converted).
    """
    task_type = getattr(task.task_type, "value", task.task_type)
    if task_type not in ("binary_classification", "regression"):
        raise SchemaError(
            f"RelBench task type {task_type!r} is not supported (binary_classification, regression)"
        )
    if db is None:
        db = from_relbench_database(task.dataset.get_db(upto_test_timestamp=False), warn=False)

    def label_fn(ours: Database, timestamps: np.ndarray) -> pd.DataFrame:
        ts = pd.Series(_time_values(ours, np.asarray(timestamps)))
        table = task.make_table(to_relbench_database(ours), ts)
        df = table.df[[task.entity_col, task.time_col, task.target_col]].copy()
        et = ours.table_dict[task.entity_table]
        # RelBench names entities by row index: map back to our primary-key values
        df[task.entity_col] = et.df[et.pkey_col].to_numpy()[df[task.entity_col].to_numpy(dtype=np.int64)]
        if ours.time_kind == "datetime":
            df[task.time_col] = pd.to_datetime(df[task.time_col]).astype("datetime64[ns]").astype(np.int64)
        return df

    timedelta = task.timedelta
    if db.time_kind == "integer":
        timedelta = int(timedelta)
    return EntityTask(
        db=db,
        entity_table=task.entity_table,
        entity_col=task.entity_col,
        time_col=task.time_col,
        target_col=task.target_col,
        timedelta=timedelta,
        task_type=task_type,
        label_fn=label_fn,
        val_timestamp=task.dataset.val_timestamp,
        test_timestamp=task.dataset.test_timestamp,
    )


def times_equal(a: Database, b: Database, table: str) -> bool:
    """Same resolved row times (own or inherited), ALWAYS included."""
    ta, tb = a.resolved[table].time, b.resolved[table].time
    return bool(np.array_equal(ta, tb)) and bool(np.array_equal(ta == ALWAYS, tb == ALWAYS))
