"""Relational data layer mirroring RelBench's ``Table`` / ``Database`` / entity-task semantics.

No toolkit imports: pandas + numpy (+ networkx for the schema graph, SQLAlchemy for loading).

Times are stored internally as ``int64``: a numeric time column (e.g. a year) is used as is, a
datetime column as nanoseconds since the epoch. Rows of a table without a time column are always
visible (their time is :data:`ALWAYS`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

ALWAYS = np.iinfo(np.int64).min  # time of rows in tables without a time column: visible at any time


class SchemaError(ValueError):
    """A relational schema that cannot be used as given (the message says what and how many)."""


class SchemaWarning(UserWarning):
    """A schema oddity that is tolerated (dangling keys, cycles); the message gives counts."""


# ----------------------------------------------------------------------------------------- time
def time_to_int(value: Any) -> int:
    """A timestamp (number, ``pd.Timestamp``, datetime string) -> the internal int64 time."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not float(value).is_integer():
            raise SchemaError(f"time {value!r} is not an integer; use integer times or datetimes")
        return int(value)
    return int(pd.Timestamp(value).value)


def delta_to_int(value: Any) -> int:
    """A time difference (number or ``pd.Timedelta``/string like ``'7D'``) -> int64 units."""
    if isinstance(value, (int, np.integer)):
        return int(value)
    return int(pd.Timedelta(value).value)


def parse_time_column(table_name: str, series: pd.Series) -> np.ndarray:
    """The int64 times of a column; raises :class:`SchemaError` with the count of bad values."""
    if pd.api.types.is_bool_dtype(series):
        raise SchemaError(f"table {table_name!r}: time column {series.name!r} is boolean, not a time")
    if pd.api.types.is_numeric_dtype(series):
        values = pd.to_numeric(series, errors="coerce")
        bad = values.isna() & series.notna()
        n_missing = int(series.isna().sum())
        if n_missing:
            raise SchemaError(
                f"table {table_name!r}: time column {series.name!r} has {n_missing} missing values "
                f"(of {len(series)}); fill or drop those rows")
        frac = values.to_numpy(dtype=float) % 1
        if bad.any() or np.any(frac != 0):
            raise SchemaError(
                f"table {table_name!r}: time column {series.name!r} has {int((frac != 0).sum())} "
                f"non-integer numeric values; use integer times (e.g. years) or datetimes")
        return values.to_numpy(dtype=np.int64)
    if pd.api.types.is_datetime64_any_dtype(series):
        parsed = series
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed = pd.to_datetime(series, errors="coerce")
    bad = parsed.isna() & series.notna()
    if bad.any():
        examples = ", ".join(repr(v) for v in series[bad].head(3).tolist())
        raise SchemaError(
            f"table {table_name!r}: time column {series.name!r} has {int(bad.sum())} of "
            f"{len(series)} values that do not parse as times (e.g. {examples})")
    if parsed.isna().any():
        raise SchemaError(
            f"table {table_name!r}: time column {series.name!r} has {int(parsed.isna().sum())} "
            f"missing values (of {len(series)}); fill or drop those rows")
    if getattr(parsed.dt, "tz", None) is not None:
        parsed = parsed.dt.tz_convert("UTC").dt.tz_localize(None)
    return parsed.astype("datetime64[ns]").to_numpy().astype(np.int64)


# --------------------------------------------------------------------------------------- tables
@dataclass
class Table:
    """One table: a DataFrame, its primary key, foreign keys (column -> referenced table), time column.

    Mirrors ``relbench.base.Table``. ``pkey_col`` may be ``None`` (e.g. a pure link table).
    """

    df: pd.DataFrame
    fkey_col_to_pkey_table: dict[str, str] = field(default_factory=dict)
    pkey_col: str | None = None
    time_col: str | None = None

    def __len__(self) -> int:
        return len(self.df)

    @property
    def key_cols(self) -> list[str]:
        return ([self.pkey_col] if self.pkey_col else []) + list(self.fkey_col_to_pkey_table)

    @property
    def feature_cols(self) -> list[str]:
        """Columns that are neither keys nor the time column (what the row encoders see)."""
        skip = set(self.key_cols) | ({self.time_col} if self.time_col else set())
        return [c for c in self.df.columns if c not in skip]


@dataclass
class ResolvedTable:
    """A table after validation: times as int64 and foreign keys as row indices (-1 = missing)."""

    name: str
    table: Table
    time: np.ndarray  # int64, ALWAYS where the table has no time column
    fkeys: dict[str, np.ndarray]  # fkey column -> int64 row index into the referenced table, -1 missing
    n_dangling: dict[str, int]  # fkey column -> non-null values that reference no row

    @property
    def n_rows(self) -> int:
        return len(self.time)


def _kind(series: pd.Series) -> str:
    if pd.api.types.is_bool_dtype(series):
        return "bool"
    if pd.api.types.is_integer_dtype(series):
        return "integer"
    if pd.api.types.is_float_dtype(series):
        nonnull = series.dropna()
        return "integer" if len(nonnull) == 0 or bool(np.all(nonnull.to_numpy() % 1 == 0)) else "float"
    if pd.api.types.is_datetime64_any_dtype(series):
        return "datetime"
    nonnull = series.dropna()
    if len(nonnull) and all(isinstance(v, (int, np.integer)) for v in nonnull.head(100)):
        return "integer"
    return "string"


class Database:
    """A set of named tables with keys; validated on construction.

    Errors (:class:`SchemaError`): a key or time column that does not exist, a foreign key to an
    unknown table or to a table without a primary key, duplicate or missing primary keys, a
    foreign key whose type differs from the primary key's, a time column that does not parse.
    Warnings (:class:`SchemaWarning`, with counts): dangling foreign keys (kept as missing, the
    rows are never dropped) and cycles in the schema graph.
    """

    def __init__(self, table_dict: Mapping[str, Table], *, warn: bool = True):
        if not table_dict:
            raise SchemaError("a Database needs at least one table")
        self.table_dict: dict[str, Table] = dict(table_dict)
        self._warn = warn
        self._check_columns()
        self.resolved: dict[str, ResolvedTable] = self._resolve()
        if warn:
            self._warn_cycles()

    # ---------------------------------------------------------------- validation
    def _check_columns(self) -> None:
        for name, table in self.table_dict.items():
            if not isinstance(table, Table):
                raise SchemaError(f"table {name!r}: expected a Table, got {type(table).__name__}")
            cols = set(table.df.columns)
            for role, col in [("primary key", table.pkey_col), ("time", table.time_col)]:
                if col is not None and col not in cols:
                    raise SchemaError(f"table {name!r}: {role} column {col!r} is not a column "
                                      f"(columns: {', '.join(map(str, table.df.columns))})")
            for fk, target in table.fkey_col_to_pkey_table.items():
                if fk not in cols:
                    raise SchemaError(f"table {name!r}: foreign key column {fk!r} is not a column "
                                      f"(columns: {', '.join(map(str, table.df.columns))})")
                if target not in self.table_dict:
                    raise SchemaError(f"table {name!r}: foreign key {fk!r} references unknown table "
                                      f"{target!r} (tables: {', '.join(self.table_dict)})")
                if self.table_dict[target].pkey_col is None:
                    raise SchemaError(f"table {name!r}: foreign key {fk!r} references table {target!r}, "
                                      f"which has no primary key")
            if table.pkey_col is not None:
                pk = table.df[table.pkey_col]
                n_null = int(pk.isna().sum())
                if n_null:
                    raise SchemaError(f"table {name!r}: primary key {table.pkey_col!r} has {n_null} "
                                      f"missing values (of {len(pk)})")
                n_dup = int(pk.duplicated().sum())
                if n_dup:
                    raise SchemaError(f"table {name!r}: primary key {table.pkey_col!r} has {n_dup} "
                                      f"duplicated values (of {len(pk)})")
        for name, table in self.table_dict.items():
            for fk, target in table.fkey_col_to_pkey_table.items():
                tt = self.table_dict[target]
                fk_kind, pk_kind = _kind(table.df[fk]), _kind(tt.df[tt.pkey_col])
                if len(table.df[fk].dropna()) and fk_kind != pk_kind:
                    raise SchemaError(
                        f"table {name!r}: foreign key {fk!r} has {fk_kind} values "
                        f"({int(table.df[fk].notna().sum())} non-null) but {target!r}.{tt.pkey_col} is "
                        f"{pk_kind}; cast one of them")

    def _resolve(self) -> dict[str, ResolvedTable]:
        out: dict[str, ResolvedTable] = {}
        index = {name: pd.Index(t.df[t.pkey_col]) for name, t in self.table_dict.items() if t.pkey_col}
        for name, table in self.table_dict.items():
            if table.time_col is not None:
                time = parse_time_column(name, table.df[table.time_col])
            else:
                time = np.full(len(table.df), ALWAYS, dtype=np.int64)
            fkeys, dangling = {}, {}
            for fk, target in table.fkey_col_to_pkey_table.items():
                values = table.df[fk]
                idx = index[target].get_indexer(values).astype(np.int64)
                n_dangling = int(((idx < 0) & values.notna().to_numpy()).sum())
                fkeys[fk], dangling[fk] = idx, n_dangling
                if n_dangling and self._warn:
                    warnings.warn(
                        f"table {name!r}: {n_dangling} of {len(values)} values of foreign key {fk!r} "
                        f"reference no row of {target!r}; kept as missing (no rows dropped)",
                        SchemaWarning, stacklevel=3)
            out[name] = ResolvedTable(name, table, time, fkeys, dangling)
        return out

    def schema_graph(self):
        """networkx MultiDiGraph: an edge table -> referenced table per foreign key (key = column)."""
        import networkx as nx

        g = nx.MultiDiGraph()
        g.add_nodes_from(self.table_dict)
        for name, table in self.table_dict.items():
            for fk, target in table.fkey_col_to_pkey_table.items():
                g.add_edge(name, target, key=fk)
        return g

    def cycles(self) -> list[list[str]]:
        """Cycles of the schema graph (self-references included), as lists of table names."""
        import networkx as nx

        return [list(c) for c in nx.simple_cycles(nx.DiGraph(self.schema_graph()))]

    def _warn_cycles(self) -> None:
        cycles = self.cycles()
        if cycles:
            shown = "; ".join(" -> ".join(c + [c[0]]) for c in cycles[:5])
            warnings.warn(f"schema has {len(cycles)} foreign-key cycle(s): {shown}. Supported, but "
                          f"check that this is intended", SchemaWarning, stacklevel=3)

    # ---------------------------------------------------------------- queries
    def __getitem__(self, name: str) -> Table:
        return self.table_dict[name]

    def __repr__(self) -> str:
        parts = ", ".join(f"{n}[{len(t)}]" for n, t in self.table_dict.items())
        return f"Database({parts})"

    @property
    def n_rows(self) -> int:
        return sum(len(t) for t in self.table_dict.values())

    def _times(self) -> np.ndarray:
        ts = [r.time for r in self.resolved.values() if r.table.time_col is not None and r.n_rows]
        return np.concatenate(ts) if ts else np.array([], dtype=np.int64)

    @property
    def min_timestamp(self) -> int:
        ts = self._times()
        if not len(ts):
            raise SchemaError("database has no time columns")
        return int(ts.min())

    @property
    def max_timestamp(self) -> int:
        ts = self._times()
        if not len(ts):
            raise SchemaError("database has no time columns")
        return int(ts.max())

    def upto(self, timestamp: Any) -> Database:
        """The database of rows with time <= timestamp (tables without time are kept whole)."""
        t = time_to_int(timestamp)
        tables = {}
        for name, r in self.resolved.items():
            keep = r.time <= t
            df = r.table.df if keep.all() else r.table.df.loc[keep].reset_index(drop=True)
            tables[name] = Table(df, dict(r.table.fkey_col_to_pkey_table), r.table.pkey_col, r.table.time_col)
        return Database(tables, warn=False)

    def reindex_pkeys_and_fkeys(self) -> Database:
        """A copy with primary keys replaced by 0..n-1 and foreign keys by those row indices.

        Dangling foreign keys become missing (``<NA>``); no row is dropped.
        """
        tables = {}
        for name, r in self.resolved.items():
            df = r.table.df.copy()
            if r.table.pkey_col:
                df[r.table.pkey_col] = np.arange(len(df), dtype=np.int64)
            for fk, idx in r.fkeys.items():
                df[fk] = pd.array(np.where(idx >= 0, idx, 0), dtype="Int64")
                df.loc[idx < 0, fk] = pd.NA
            tables[name] = Table(df, dict(r.table.fkey_col_to_pkey_table), r.table.pkey_col, r.table.time_col)
        return Database(tables, warn=False)

    # ---------------------------------------------------------------- constructors
    @classmethod
    def from_dataframes(cls, frames: Mapping[str, pd.DataFrame], *,
                        pkeys: Mapping[str, str | None] | None = None,
                        fkeys: Mapping[str, Mapping[str, str]] | None = None,
                        time_cols: Mapping[str, str | None] | None = None, warn: bool = True) -> Database:
        """Tables from DataFrames with keys and time columns given per table name."""
        pkeys, fkeys, time_cols = dict(pkeys or {}), dict(fkeys or {}), dict(time_cols or {})
        unknown = (set(pkeys) | set(fkeys) | set(time_cols)) - set(frames)
        if unknown:
            raise SchemaError(f"keys given for unknown table(s) {sorted(unknown)}; tables: {sorted(frames)}")
        return cls({name: Table(df, dict(fkeys.get(name, {})), pkeys.get(name), time_cols.get(name))
                    for name, df in frames.items()}, warn=warn)

    @classmethod
    def from_sql(cls, url_or_engine: Any, *, tables: Sequence[str] | None = None,
                 pkeys: Mapping[str, str | None] | None = None,
                 fkeys: Mapping[str, Mapping[str, str]] | None = None,
                 time_cols: Mapping[str, str | None] | None = None, warn: bool = True) -> Database:
        """Read every table (or ``tables``) through SQLAlchemy; keys from the schema unless given.

        ``url_or_engine``: any SQLAlchemy URL (``sqlite:///file.db``, ``postgresql://...``) or Engine.
        Keys the user passes override the reflected ones table by table; a composite primary key is
        not a usable node id and is ignored (with a warning) unless the user names one column.
        """
        import sqlalchemy as sa

        engine = sa.create_engine(url_or_engine) if isinstance(url_or_engine, str) else url_or_engine
        inspector = sa.inspect(engine)
        names = list(tables) if tables is not None else inspector.get_table_names()
        missing = set(names) - set(inspector.get_table_names())
        if missing:
            raise SchemaError(f"tables {sorted(missing)} are not in the database "
                              f"(it has: {', '.join(inspector.get_table_names())})")
        pkeys, fkeys, time_cols = dict(pkeys or {}), dict(fkeys or {}), dict(time_cols or {})
        frames, pk_map, fk_map = {}, {}, {}
        with engine.connect() as conn:
            for name in names:
                frames[name] = pd.read_sql_table(name, conn)
                if name in pkeys:
                    pk_map[name] = pkeys[name]
                else:
                    cols = inspector.get_pk_constraint(name).get("constrained_columns") or []
                    if len(cols) > 1 and warn:
                        warnings.warn(f"table {name!r}: composite primary key {cols} ignored; pass "
                                      f"pkeys={{{name!r}: ...}} to choose one column", SchemaWarning, stacklevel=2)
                    pk_map[name] = cols[0] if len(cols) == 1 else None
                if name in fkeys:
                    fk_map[name] = dict(fkeys[name])
                else:
                    fk_map[name] = {}
                    for fk in inspector.get_foreign_keys(name):
                        cols, ref = fk["constrained_columns"], fk["referred_table"]
                        if len(cols) == 1 and ref in names:
                            fk_map[name][cols[0]] = ref
        return cls.from_dataframes(frames, pkeys=pk_map, fkeys=fk_map,
                                   time_cols={n: time_cols.get(n) for n in names}, warn=warn)

    @classmethod
    def from_sqlite(cls, path: str, **kwargs: Any) -> Database:
        """Read a SQLite file (see :meth:`from_sql`)."""
        from pathlib import Path

        if not Path(path).exists():
            raise SchemaError(f"SQLite file {str(path)!r} does not exist")
        return cls.from_sql(f"sqlite:///{path}", **kwargs)


# ------------------------------------------------------------------------------------ entity tasks
@dataclass
class EntityTask:
    """A RelBench-style entity task on a database.

    :param label_fn: ``label_fn(db, timestamps) -> DataFrame`` with columns ``entity_col``
        (primary-key values of ``entity_table``), ``time_col`` and ``target_col``: for each
        timestamp t the entities to predict for and their labels, computed only from events in
        (t, t + timedelta].
    Splits by time: train timestamps t with t + timedelta <= val_timestamp (one every ``step``
    going back from there, at most ``n_train_timestamps``), val at ``val_timestamp``, test at
    ``test_timestamp``. The database used for training is ``db.upto(test_timestamp)``; test labels
    are masked unless asked for.
    """

    db: Database
    entity_table: str
    entity_col: str
    time_col: str
    target_col: str
    timedelta: Any
    task_type: Literal["binary_classification", "regression"]
    label_fn: Callable[[Database, np.ndarray], pd.DataFrame]
    val_timestamp: Any
    test_timestamp: Any
    train_start: Any = None
    step: Any = None
    metrics: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.entity_table not in self.db.table_dict:
            raise SchemaError(f"entity table {self.entity_table!r} is not in the database "
                              f"(tables: {', '.join(self.db.table_dict)})")
        if self.task_type not in ("binary_classification", "regression"):
            raise SchemaError(f"task_type must be 'binary_classification' or 'regression', got {self.task_type!r}")
        self.delta = delta_to_int(self.timedelta)
        self.val_t, self.test_t = time_to_int(self.val_timestamp), time_to_int(self.test_timestamp)
        if self.delta <= 0:
            raise SchemaError(f"timedelta must be positive, got {self.timedelta!r}")
        if self.val_t + self.delta > self.test_t:
            raise SchemaError("val labels would use events after the test timestamp: need "
                              f"val_timestamp + timedelta <= test_timestamp ({self.val_t}+{self.delta} > {self.test_t})")
        if not self.metrics:
            self.metrics = ("auroc",) if self.task_type == "binary_classification" else ("mae",)
        self._cache: dict[str, pd.DataFrame] = {}

    def split_timestamps(self, split: str) -> np.ndarray:
        if split == "val":
            return np.array([self.val_t], dtype=np.int64)
        if split == "test":
            return np.array([self.test_t], dtype=np.int64)
        if split != "train":
            raise SchemaError(f"split must be 'train', 'val' or 'test', got {split!r}")
        step = delta_to_int(self.step) if self.step is not None else self.delta
        start = time_to_int(self.train_start) if self.train_start is not None else self.db.min_timestamp
        last = self.val_t - self.delta
        ts = np.arange(last, start - 1, -step, dtype=np.int64)[::-1]
        if not len(ts):
            raise SchemaError("no training timestamps: train_start is after val_timestamp - timedelta")
        return ts

    def get_table(self, split: str, mask_input_cols: bool | None = None) -> pd.DataFrame:
        """Seed table (entity, time, label) of a split; test labels masked unless asked for."""
        if split not in self._cache:
            ts = self.split_timestamps(split)
            # labels of train/val are computed on the database cut at test time: no test events leak
            db = self.db if split == "test" else self.db.upto(self.test_t)
            df = self.label_fn(db, ts)
            missing = {self.entity_col, self.time_col, self.target_col} - set(df.columns)
            if missing:
                raise SchemaError(f"label_fn returned no column(s) {sorted(missing)}")
            self._cache[split] = df.reset_index(drop=True)
        df = self._cache[split]
        if mask_input_cols is None:
            mask_input_cols = split == "test"
        return df.drop(columns=[self.target_col]) if mask_input_cols else df.copy()

    def training_database(self) -> Database:
        """What a model may see: the database cut at the test timestamp."""
        return self.db.upto(self.test_t)


def events_label_fn(entity_col: str, time_col: str, target_col: str, event_table: str,
                    event_fkey: str, kind: Literal["any", "count", "sum"] = "any",
                    value_col: str | None = None, active_table: str | None = None,
                    active_fkey: str | None = None, active_window: Any = None,
                    event_filter: Callable[[pd.DataFrame], pd.Series] | None = None):
    """Label function: aggregate ``event_table`` rows in (t, t+Δ] per entity (via ``event_fkey``).

    Entities at timestamp t: those with a row in ``active_table`` (via ``active_fkey``) in
    (t - active_window, t]; label ``any`` (0/1), ``count`` or ``sum`` of ``value_col``; entities
    without events get 0. Returns the closure ``label_fn(db, timestamps, delta)``.
    """

    def label_fn(db: Database, timestamps: np.ndarray, delta: int) -> pd.DataFrame:
        act = db.resolved[active_table]
        ev = db.resolved[event_table]
        entity_table = act.table.fkey_col_to_pkey_table[active_fkey]
        et = db.table_dict[entity_table]
        pkey_values = et.df[et.pkey_col].to_numpy()  # labels name entities by primary-key value
        window = delta_to_int(active_window) if active_window is not None else delta
        rows = []
        ev_mask_base = ev.fkeys[event_fkey] >= 0
        if event_filter is not None:
            ev_mask_base &= event_filter(ev.table.df).to_numpy(dtype=bool)
        for t in timestamps:
            a_mask = (act.time > t - window) & (act.time <= t) & (act.fkeys[active_fkey] >= 0)
            entities = np.unique(act.fkeys[active_fkey][a_mask])
            e_mask = ev_mask_base & (ev.time > t) & (ev.time <= t + delta)
            ids = ev.fkeys[event_fkey][e_mask]
            if kind == "sum":
                w = ev.table.df[value_col].to_numpy(dtype=float)[e_mask]
                agg = pd.Series(w).groupby(ids).sum()
            else:
                agg = pd.Series(np.ones(len(ids))).groupby(ids).sum()
            lab = agg.reindex(entities, fill_value=0.0).to_numpy()
            if kind == "any":
                lab = (lab > 0).astype(np.int64)
            rows.append(pd.DataFrame({entity_col: pkey_values[entities],
                                      time_col: np.full(len(entities), t), target_col: lab}))
        return pd.concat(rows, ignore_index=True)

    return label_fn
