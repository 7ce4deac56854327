"""Relational data layer mirroring RelBench's ``Table`` / ``Database`` / entity-task semantics.

No toolkit imports: pandas + numpy (+ networkx for the schema graph, SQLAlchemy for loading).

Times are stored internally as ``int64``: a numeric time column (e.g. a year) is used as is, a
datetime column as nanoseconds since the epoch; one database has one kind of time (integer or
datetime), never both. A table without a time column that references timed rows inherits, row by
row, the latest time of the rows it references (transitively): a line item is visible when its
invoice is. Only tables that reference no timed table, or that the user declares static
(``static_tables``), are always visible (their time is :data:`ALWAYS`).
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

ALWAYS = np.iinfo(np.int64).min  # time of rows in tables without a time column: visible at any time
NEVER = np.iinfo(np.int64).max  # rows of ``unknown_time_tables``: events of unknown time, never visible


class SchemaError(ValueError):
    """A relational schema that cannot be used as given (the message says what and how many)."""


class SchemaWarning(UserWarning):
    """A schema oddity that is tolerated (dangling keys, cycles); the message gives counts."""


# ----------------------------------------------------------------------------------------- time
TimeKind = Literal["integer", "datetime"]


_ORIGIN: contextvars.ContextVar[tuple[str, set] | None] = contextvars.ContextVar(
    "frog_warn_origin", default=None
)


@contextlib.contextmanager
def warn_origin(where: str):
    """Inside this block every :func:`warn_user` warning points at ``where`` (e.g. the task file a
    command-line run reads, line 1) and each distinct message is issued once."""
    token = _ORIGIN.set((str(where), set()))
    try:
        yield
    finally:
        _ORIGIN.reset(token)


def _is_library_frame(frame) -> bool:
    name = frame.f_globals.get("__name__", "")
    return name.startswith("toolkit_frog") or name == "toolkit" or name.startswith("toolkit.")


def warn_user(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` pointing at the user: the :func:`warn_origin` in force (each message once),
    else the first caller outside this plugin and the toolkit core (the user's line)."""
    import sys

    origin = _ORIGIN.get()
    if origin is not None:
        where, seen = origin
        if (category, message) in seen:
            return
        seen.add((category, message))
        warnings.warn_explicit(message, category, where, 1, module="frog", registry={})
        return
    frame, level = sys._getframe(0), 1
    while frame is not None and _is_library_frame(frame):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


def _is_bare_number(value: Any) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
        value, (bool, np.bool_)
    )


def time_to_int(value: Any, kind: TimeKind | None = None, name: str = "timestamp") -> int:
    """A timestamp (number, ``pd.Timestamp``, datetime string) -> the internal int64 time.

    ``kind`` is the database's kind of time: a bare number on a datetime database (it would mean
    nanoseconds since 1970) and a date on an integer-time database are refused.
    """
    if kind == "datetime" and _is_bare_number(value):
        raise SchemaError(
            f"{name}={value!r} is a bare number, but the database's times are datetimes; "
            f"give a date such as '2020-01-31' or a pandas.Timestamp"
        )
    if kind == "integer" and not _is_bare_number(value):
        raise SchemaError(
            f"{name}={value!r} is not a number, but the database's times are integers "
            f"(e.g. years); give an integer"
        )
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not float(value).is_integer():
            raise SchemaError(f"{name}={value!r} is not an integer; use integer times or datetimes")
        return int(value)
    try:
        return int(pd.Timestamp(value).value)
    except (ValueError, TypeError) as e:
        raise SchemaError(f"{name}={value!r} does not parse as a time ({e})") from None


def delta_to_int(value: Any, kind: TimeKind | None = None, name: str = "timedelta") -> int:
    """A time difference -> int64 units: an integer on an integer-time database, a
    ``pd.Timedelta`` or a string like ``'90D'`` on a datetime database (a bare integer there would
    mean nanoseconds and is refused)."""
    if kind == "datetime" and _is_bare_number(value):
        raise SchemaError(
            f"{name}={value!r} is a bare number, but the database's times are datetimes "
            f"(it would mean {value!r} nanoseconds); give a pandas.Timedelta or a string "
            f"like '90D' or '12h'"
        )
    if kind == "integer" and not _is_bare_number(value):
        raise SchemaError(
            f"{name}={value!r} is not a number, but the database's times are integers "
            f"(e.g. years); give an integer number of time units"
        )
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    try:
        return int(pd.Timedelta(value).value)
    except (ValueError, TypeError) as e:
        raise SchemaError(
            f"{name}={value!r} does not parse as a time difference ({e}); "
            f"examples: '90D', '12h', pandas.Timedelta(days=7)"
        ) from None


_DAY_FIRST = r"^\s*(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{2,4})"


def _day_first_hint(values: pd.Series) -> str:
    """A hint when unparsed values look like day-first dates (31/01/2020)."""
    m = values.astype(str).str.extract(_DAY_FIRST)
    if m.isna().all(axis=None):
        return ""
    first = pd.to_numeric(m[0], errors="coerce")
    if (first > 12).any():
        return (
            ". They look day-first (day > 12 in the first field): pass time_formats={table: "
            "'%d/%m/%Y'} (or convert with pandas.to_datetime(..., format='%d/%m/%Y'))"
        )
    return ""


def time_kind_of(series: pd.Series) -> TimeKind:
    """``integer`` for a numeric time column, ``datetime`` otherwise."""
    if pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series):
        return "integer"
    return "datetime"


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
                f"(of {len(series)}); fill or drop those rows"
            )
        frac = values.to_numpy(dtype=float) % 1
        if bad.any() or np.any(frac != 0):
            raise SchemaError(
                f"table {table_name!r}: time column {series.name!r} has {int((frac != 0).sum())} "
                f"non-integer numeric values; use integer times (e.g. years) or datetimes"
            )
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
        hint = _day_first_hint(series[bad]).replace("table", repr(table_name), 1)
        raise SchemaError(
            f"table {table_name!r}: time column {series.name!r} has {int(bad.sum())} of "
            f"{len(series)} values that do not parse as times (e.g. {examples}){hint}"
        )
    if parsed.isna().any():
        raise SchemaError(
            f"table {table_name!r}: time column {series.name!r} has {int(parsed.isna().sum())} "
            f"missing values (of {len(series)}); fill or drop those rows"
        )
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
    time: np.ndarray  # int64: own time, else inherited from the referenced rows, else ALWAYS
    fkeys: dict[str, np.ndarray]  # fkey column -> int64 row index into the referenced table, -1 missing
    n_dangling: dict[str, int]  # fkey column -> non-null values that reference no row

    inherited_from: tuple[str, ...] = ()  # fkey columns whose rows' times this untimed table inherits

    @property
    def n_rows(self) -> int:
        return len(self.time)

    @property
    def timed(self) -> bool:
        """Own or inherited time: its rows are not all visible at every time."""
        return self.table.time_col is not None or bool(self.inherited_from)


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
    foreign key whose type differs from the primary key's, a time column that does not parse,
    integer and datetime time columns mixed in one database, rows of an untimed table whose time
    cannot be inherited (they reference no timed row).
    Warnings (:class:`SchemaWarning`, with counts): dangling foreign keys (kept as missing, the
    rows are never dropped) and cycles in the schema graph.

    :param static_tables: untimed tables whose rows are known at every time although they
        reference timed tables (they then do not inherit a time). Use with care: a static row
        that describes a future event leaks it.
    :param unknown_time_tables: untimed tables whose rows are events of unknown time: they are
        never visible (no model, aggregate or feature statistic sees them). An untimed table that
        references only untimed tables and that no table references (event-like rows, e.g. a copy
        of all orders without their dates) gets a :class:`SchemaWarning` unless it is declared
        here, in ``static_tables``, or given a time column.
    """

    def __init__(
        self,
        table_dict: Mapping[str, Table],
        *,
        warn: bool = True,
        static_tables: Sequence[str] = (),
        unknown_time_tables: Sequence[str] = (),
    ):
        if not table_dict:
            raise SchemaError("a Database needs at least one table")
        self.table_dict: dict[str, Table] = dict(table_dict)
        self.static_tables: tuple[str, ...] = tuple(static_tables)
        self.unknown_time_tables: tuple[str, ...] = tuple(unknown_time_tables)
        for param, names in (
            ("static_tables", self.static_tables),
            ("unknown_time_tables", self.unknown_time_tables),
        ):
            unknown = set(names) - set(self.table_dict)
            if unknown:
                raise SchemaError(
                    f"{param} names unknown table(s) {sorted(unknown)} (tables: {', '.join(self.table_dict)})"
                )
            timed = [n for n in names if self.table_dict[n].time_col is not None]
            if timed:
                raise SchemaError(
                    f"{param} {timed} have a time column; only untimed tables can be declared there"
                )
        both = set(self.static_tables) & set(self.unknown_time_tables)
        if both:
            raise SchemaError(
                f"tables {sorted(both)} are declared both static_tables and unknown_time_tables"
            )
        self._warn = warn
        self._check_columns()
        self.time_kind: TimeKind | None = self._check_time_kinds()
        self.resolved: dict[str, ResolvedTable] = self._resolve()
        self._inherit_times()
        for n in self.unknown_time_tables:
            self.resolved[n].time = np.full(self.resolved[n].n_rows, NEVER, dtype=np.int64)
        if warn:
            self._warn_cycles()
            self._warn_untimed_events()

    def _warn_untimed_events(self) -> None:
        """Untimed tables that reference only untimed tables and that nothing references look like
        events with their dates removed; always visible, they could reveal the future."""
        if self.time_kind is None:
            return
        referenced = {t for table in self.table_dict.values() for t in table.fkey_col_to_pkey_table.values()}
        for n, r in self.resolved.items():
            fks = r.table.fkey_col_to_pkey_table
            declared = n in self.static_tables or n in self.unknown_time_tables
            if r.table.time_col is not None or declared or r.inherited_from or not fks or n in referenced:
                continue
            warn_user(
                f"table {n!r} has no time column and references only untimed tables "
                f"({', '.join(sorted(set(fks.values())))}), so its {r.n_rows} rows count as known at every "
                f"time; if they are events (orders, visits), future ones leak. Give it a time column "
                f"(time_cols={{{n!r}: column}}), declare its rows events of unknown time "
                f"(unknown_time_tables=[{n!r}]: never visible), or, if they are known at all times, "
                f"static_tables=[{n!r}]",
                SchemaWarning,
            )

    # ---------------------------------------------------------------- validation
    def _check_columns(self) -> None:
        for name, table in self.table_dict.items():
            if not isinstance(table, Table):
                raise SchemaError(f"table {name!r}: expected a Table, got {type(table).__name__}")
            cols = set(table.df.columns)
            for role, col in [("primary key", table.pkey_col), ("time", table.time_col)]:
                if col is not None and col not in cols:
                    raise SchemaError(
                        f"table {name!r}: {role} column {col!r} is not a column "
                        f"(columns: {', '.join(map(str, table.df.columns))})"
                    )
            for fk, target in table.fkey_col_to_pkey_table.items():
                if fk not in cols:
                    raise SchemaError(
                        f"table {name!r}: foreign key column {fk!r} is not a column "
                        f"(columns: {', '.join(map(str, table.df.columns))})"
                    )
                if target not in self.table_dict:
                    raise SchemaError(
                        f"table {name!r}: foreign key {fk!r} references unknown table "
                        f"{target!r} (tables: {', '.join(self.table_dict)})"
                    )
                if self.table_dict[target].pkey_col is None:
                    raise SchemaError(
                        f"table {name!r}: foreign key {fk!r} references table {target!r}, "
                        f"which has no primary key"
                    )
            if table.pkey_col is not None:
                pk = table.df[table.pkey_col]
                n_null = int(pk.isna().sum())
                if n_null:
                    raise SchemaError(
                        f"table {name!r}: primary key {table.pkey_col!r} has {n_null} "
                        f"missing values (of {len(pk)})"
                    )
                n_dup = int(pk.duplicated().sum())
                if n_dup:
                    raise SchemaError(
                        f"table {name!r}: primary key {table.pkey_col!r} has {n_dup} "
                        f"duplicated values (of {len(pk)})"
                    )
        for name, table in self.table_dict.items():
            for fk, target in table.fkey_col_to_pkey_table.items():
                tt = self.table_dict[target]
                fk_kind, pk_kind = _kind(table.df[fk]), _kind(tt.df[tt.pkey_col])
                if len(table.df[fk].dropna()) and fk_kind != pk_kind:
                    raise SchemaError(
                        f"table {name!r}: foreign key {fk!r} has {fk_kind} values "
                        f"({int(table.df[fk].notna().sum())} non-null) but {target!r}.{tt.pkey_col} is "
                        f"{pk_kind}; cast one of them"
                    )

    def _check_time_kinds(self) -> TimeKind | None:
        kinds = {name: time_kind_of(t.df[t.time_col]) for name, t in self.table_dict.items() if t.time_col}
        if len(set(kinds.values())) > 1:
            ints = [f"{n}.{self.table_dict[n].time_col}" for n, k in kinds.items() if k == "integer"]
            dts = [f"{n}.{self.table_dict[n].time_col}" for n, k in kinds.items() if k == "datetime"]
            raise SchemaError(
                f"time columns mix integers ({', '.join(ints)}) and datetimes ({', '.join(dts)}); one "
                f"database needs one kind of time: convert the integer ones (e.g. years with "
                f"pandas.to_datetime(df[col].astype(str), format='%Y')) or the datetimes"
            )
        return next(iter(kinds.values()), None)

    def _inherit_times(self) -> None:
        """Untimed tables take, per row, the latest time of the rows they reference (transitively).

        Rows of such a table that reference no timed row (all those keys missing or dangling) have
        no time to inherit: refused with the count, unless the table is in ``static_tables``.
        """
        untimed = [
            n for n, t in self.table_dict.items() if t.time_col is None and n not in self.static_tables
        ]
        depends: dict[str, list[str]] = {}
        timed = {n for n, t in self.table_dict.items() if t.time_col is not None}
        changed = True
        while changed:  # which untimed tables reach a timed table through foreign keys
            changed = False
            for n in untimed:
                fks = [fk for fk, tgt in self.table_dict[n].fkey_col_to_pkey_table.items() if tgt in timed]
                if fks and fks != depends.get(n):
                    depends[n] = fks
                    if n not in timed:
                        timed.add(n)
                    changed = True
        if not depends:
            return
        for _ in range(len(self.table_dict) + 1):  # fixed point of row-wise max (cycles converge)
            moved = False
            for n, fks in depends.items():
                r = self.resolved[n]
                t = np.full(r.n_rows, ALWAYS, dtype=np.int64)
                for fk in fks:
                    idx = r.fkeys[fk]
                    target = self.resolved[r.table.fkey_col_to_pkey_table[fk]].time
                    t = np.maximum(t, np.where(idx >= 0, target[np.maximum(idx, 0)], ALWAYS))
                if not np.array_equal(t, r.time):
                    r.time, moved = t, True
                r.inherited_from = tuple(fks)
            if not moved:
                break
        bad = {n: int((self.resolved[n].time == ALWAYS).sum()) for n in depends}
        bad = {n: k for n, k in bad.items() if k}
        if bad:
            parts = "; ".join(
                f"table {n!r}: {k} of {self.resolved[n].n_rows} rows (keys "
                f"{', '.join(depends[n])} missing or dangling)"
                for n, k in bad.items()
            )
            raise SchemaError(
                f"rows without a time of their own reference no timed row, so when they become known "
                f"is unknown: {parts}. Declare a time column (time_cols={{table: column}}), drop those "
                f"rows, or, if the table's rows are known at all times, pass static_tables=[table]"
            )

    @property
    def inherited_times(self) -> dict[str, tuple[str, ...]]:
        """Untimed tables whose rows inherit their time, with the foreign keys it comes through."""
        return {n: r.inherited_from for n, r in self.resolved.items() if r.inherited_from}

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
                    warn_user(
                        f"table {name!r}: {n_dangling} of {len(values)} values of foreign key {fk!r} "
                        f"reference no row of {target!r}; kept as missing (no rows dropped)",
                        SchemaWarning,
                    )
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
            warn_user(
                f"schema has {len(cycles)} foreign-key cycle(s): {shown}. Supported, but "
                f"check that this is intended",
                SchemaWarning,
            )

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
        """The database of rows with time <= timestamp, own or inherited (static tables kept whole)."""
        return self._upto_int(time_to_int(timestamp, self.time_kind))

    def _upto_int(self, t: int) -> Database:
        """:meth:`upto` for an internal int64 time."""
        tables = {}
        for name, r in self.resolved.items():
            keep = r.time <= t
            df = r.table.df if keep.all() else r.table.df.loc[keep].reset_index(drop=True)
            tables[name] = Table(df, dict(r.table.fkey_col_to_pkey_table), r.table.pkey_col, r.table.time_col)
        return Database(
            tables, warn=False, static_tables=self.static_tables, unknown_time_tables=self.unknown_time_tables
        )

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
        return Database(
            tables, warn=False, static_tables=self.static_tables, unknown_time_tables=self.unknown_time_tables
        )

    # ---------------------------------------------------------------- constructors
    @classmethod
    def from_dataframes(
        cls,
        frames: Mapping[str, pd.DataFrame],
        *,
        pkeys: Mapping[str, str | None] | None = None,
        fkeys: Mapping[str, Mapping[str, str]] | None = None,
        time_cols: Mapping[str, str | None] | None = None,
        warn: bool = True,
        static_tables: Sequence[str] = (),
        time_formats: Mapping[str, str] | None = None,
        unknown_time_tables: Sequence[str] = (),
    ) -> Database:
        """Tables from DataFrames with keys and time columns given per table name.

        ``time_formats`` (table -> ``strftime`` format, e.g. ``'%d/%m/%Y'``) parses that table's
        time column with the format (day-first dates).
        """
        pkeys, fkeys, time_cols = dict(pkeys or {}), dict(fkeys or {}), dict(time_cols or {})
        time_formats = dict(time_formats or {})
        _check_named_tables(
            frames,
            pkeys=pkeys,
            fkeys=fkeys,
            time_cols=time_cols,
            time_formats=time_formats,
            static_tables=dict.fromkeys(static_tables),
            unknown_time_tables=dict.fromkeys(unknown_time_tables),
        )
        frames = dict(frames)
        for name, fmt in time_formats.items():
            col = time_cols.get(name)
            if col is None:
                raise SchemaError(f"time_formats names table {name!r}, which has no time column in time_cols")
            parsed = pd.to_datetime(frames[name][col], format=fmt, errors="coerce")
            bad = parsed.isna() & frames[name][col].notna()
            if bad.any():
                examples = ", ".join(repr(v) for v in frames[name][col][bad].head(3).tolist())
                raise SchemaError(
                    f"table {name!r}: time column {col!r} has {int(bad.sum())} values that "
                    f"do not match time_formats[{name!r}]={fmt!r} (e.g. {examples})"
                )
            frames[name] = frames[name].assign(**{col: parsed})
        return cls(
            {
                name: Table(df, dict(fkeys.get(name, {})), pkeys.get(name), time_cols.get(name))
                for name, df in frames.items()
            },
            warn=warn,
            static_tables=static_tables,
            unknown_time_tables=unknown_time_tables,
        )

    @classmethod
    def from_sql(
        cls,
        url_or_engine: Any,
        *,
        tables: Sequence[str] | None = None,
        pkeys: Mapping[str, str | None] | None = None,
        fkeys: Mapping[str, Mapping[str, str]] | None = None,
        time_cols: Mapping[str, str | None] | None = None,
        warn: bool = True,
        static_tables: Sequence[str] = (),
        time_formats: Mapping[str, str] | None = None,
        unknown_time_tables: Sequence[str] = (),
    ) -> Database:
        """Read every table (or ``tables``) through SQLAlchemy; keys from the schema unless given.

        ``url_or_engine``: any SQLAlchemy URL (``sqlite:///file.db``, ``postgresql://...``) or Engine.
        Keys the user passes override the reflected ones table by table; a composite primary key is
        not a usable node id and is ignored (with a warning) unless the user names one column; a
        composite foreign key, or one to a table that is not loaded, is dropped with a warning
        (add a single-column surrogate key to keep the link). ``pkeys``/``fkeys``/``time_cols``
        naming a table that is not loaded are an error.
        """
        import sqlalchemy as sa

        try:
            engine = sa.create_engine(url_or_engine) if isinstance(url_or_engine, str) else url_or_engine
            inspector = sa.inspect(engine)
            available = inspector.get_table_names()
        except (sa.exc.ArgumentError, sa.exc.OperationalError, sa.exc.NoSuchModuleError) as e:
            raise SchemaError(f"cannot open database {url_or_engine!r}: {e}") from None
        names = list(tables) if tables is not None else available
        missing = set(names) - set(available)
        if missing:
            raise SchemaError(
                f"tables {sorted(missing)} are not in the database (it has: {', '.join(available)})"
            )
        pkeys, fkeys, time_cols = dict(pkeys or {}), dict(fkeys or {}), dict(time_cols or {})
        _check_named_tables(
            dict.fromkeys(names),
            pkeys=pkeys,
            fkeys=fkeys,
            time_cols=time_cols,
            time_formats=dict(time_formats or {}),
            static_tables=dict.fromkeys(static_tables),
            unknown_time_tables=dict.fromkeys(unknown_time_tables),
        )
        frames, pk_map, fk_map = {}, {}, {}
        with engine.connect() as conn:
            for name in names:
                frames[name] = pd.read_sql_table(name, conn)
                if name in pkeys:
                    pk_map[name] = pkeys[name]
                else:
                    cols = inspector.get_pk_constraint(name).get("constrained_columns") or []
                    if len(cols) > 1 and warn:
                        warn_user(
                            f"table {name!r}: composite primary key {cols} ignored; pass "
                            f"pkeys={{{name!r}: ...}} to choose one column",
                            SchemaWarning,
                        )
                    pk_map[name] = cols[0] if len(cols) == 1 else None
                if name in fkeys:
                    fk_map[name] = dict(fkeys[name])
                else:
                    fk_map[name] = {}
                    for fk in inspector.get_foreign_keys(name):
                        cols, ref = fk["constrained_columns"], fk["referred_table"]
                        if len(cols) == 1 and ref in names:
                            fk_map[name][cols[0]] = ref
                        elif len(cols) > 1:
                            warn_user(
                                f"table {name!r}: composite foreign key ({', '.join(cols)}) -> {ref!r}"
                                f"({', '.join(fk.get('referred_columns') or [])}) is not supported (one "
                                f"column per key) and is dropped: this link is not in the graph. Add a "
                                f"single-column surrogate key to both tables and pass fkeys="
                                f"{{{name!r}: {{column: {ref!r}}}}}",
                                SchemaWarning,
                            )
                        else:
                            warn_user(
                                f"table {name!r}: foreign key {cols[0]!r} -> {ref!r} is dropped because "
                                f"{ref!r} is not loaded (tables={names})",
                                SchemaWarning,
                            )
        return cls.from_dataframes(
            frames,
            pkeys=pk_map,
            fkeys=fk_map,
            time_cols={n: time_cols.get(n) for n in names},
            warn=warn,
            static_tables=static_tables,
            time_formats=time_formats,
            unknown_time_tables=unknown_time_tables,
        )

    @classmethod
    def from_sqlite(cls, path: str, **kwargs: Any) -> Database:
        """Read a SQLite file (see :meth:`from_sql`)."""
        from pathlib import Path

        if not Path(path).exists():
            raise SchemaError(f"SQLite file {str(path)!r} does not exist")
        return cls.from_sql(f"sqlite:///{path}", **kwargs)


def _check_named_tables(tables: Mapping[str, Any], **named: Mapping[str, Any]) -> None:
    """Every table named in a keyword (``pkeys=``, ``time_cols=`` ...) must be loaded."""
    for param, mapping in named.items():
        unknown = set(mapping) - set(tables)
        if unknown:
            raise SchemaError(
                f"{param} names table(s) {sorted(unknown)} that are not loaded "
                f"(tables: {', '.join(map(str, tables))})"
            )


# ------------------------------------------------------------------------------------ entity tasks
def _as_list(value: Any) -> list:
    if isinstance(value, (list, tuple, np.ndarray, pd.Series, pd.Index)):
        return list(value)
    return [value]


def _n_positional(fn: Callable) -> int | None:
    """How many positional arguments ``fn`` takes (None: any number)."""
    import inspect

    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return None
    return sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


@dataclass
class EntityTask:
    """A RelBench-style entity task on a database.

    :param label_fn: ``label_fn(db, timestamps)`` or ``label_fn(db, timestamps, delta)`` (``delta``
        the window in internal int64 units; :func:`events_label_fn` returns this form) ->
        DataFrame with columns ``entity_col`` (primary-key values of ``entity_table``), ``time_col``
        and ``target_col``: for each timestamp t the entities to predict for and their labels,
        computed only from events in (t, t + timedelta].
    :param timedelta: the label window: an integer on an integer-time database, a
        ``pandas.Timedelta`` or a string such as ``"90D"`` on a datetime database (a bare integer
        there is refused: it would mean nanoseconds). ``step`` likewise.
    :param val_timestamp, test_timestamp: one timestamp or a list of them (small databases need
        several); every validation window must end by the first test timestamp.
    :param unknown_at_seed: columns of ``entity_table`` that are not known at the seed time (a
        post-event column such as a delay): masked in the seed's own row (and in rows of the same
        time) but kept for rows in the past.
    Splits by time: train timestamps t with t + timedelta <= the first validation timestamp (one
    every ``step`` going back from there, at most from ``train_start``). The database used for
    training is ``db.upto(first test timestamp)``; test labels are masked unless asked for.
    """

    db: Database
    entity_table: str
    entity_col: str
    time_col: str
    target_col: str
    timedelta: Any
    task_type: Literal["binary_classification", "regression"]
    label_fn: Callable[..., pd.DataFrame]
    val_timestamp: Any
    test_timestamp: Any
    train_start: Any = None
    step: Any = None
    metrics: tuple[str, ...] = ()
    unknown_at_seed: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.entity_table not in self.db.table_dict:
            raise SchemaError(
                f"entity table {self.entity_table!r} is not in the database "
                f"(tables: {', '.join(self.db.table_dict)})"
            )
        et = self.db.table_dict[self.entity_table]
        if et.pkey_col is None:
            raise SchemaError(
                f"entity table {self.entity_table!r} has no primary key, so its rows cannot be "
                f"seeds; give it one (pkeys={{{self.entity_table!r}: column}}) or choose the "
                f"table it references as the entity"
            )
        if self.task_type not in ("binary_classification", "regression"):
            raise SchemaError(
                f"task_type must be 'binary_classification' or 'regression', got {self.task_type!r}"
            )
        kind = self.db.time_kind
        self.delta = delta_to_int(self.timedelta, kind, "timedelta")
        if self.delta <= 0:
            raise SchemaError(f"timedelta must be positive, got {self.timedelta!r}")
        self.val_ts = np.sort(
            np.array(
                [time_to_int(v, kind, "val_timestamp") for v in _as_list(self.val_timestamp)], dtype=np.int64
            )
        )
        self.test_ts = np.sort(
            np.array(
                [time_to_int(v, kind, "test_timestamp") for v in _as_list(self.test_timestamp)],
                dtype=np.int64,
            )
        )
        if not len(self.val_ts) or not len(self.test_ts):
            raise SchemaError("val_timestamp and test_timestamp need at least one timestamp each")
        self.val_t, self.test_t = int(self.val_ts[0]), int(self.test_ts[0])
        if self.val_ts[-1] + self.delta > self.test_t:
            raise SchemaError(
                "val labels would use events after the test timestamp: need "
                f"val_timestamp + timedelta <= test_timestamp ({int(self.val_ts[-1])}+{self.delta} "
                f"> {self.test_t})"
            )
        self.unknown_at_seed = tuple(self.unknown_at_seed)
        bad = [c for c in self.unknown_at_seed if c not in et.df.columns]
        if bad:
            raise SchemaError(
                f"unknown_at_seed names column(s) {bad} that {self.entity_table!r} does not have "
                f"(columns: {', '.join(map(str, et.df.columns))})"
            )
        n_args = _n_positional(self.label_fn)
        if n_args is not None and n_args not in (2, 3):
            raise SchemaError(
                f"label_fn must take (db, timestamps) or (db, timestamps, delta); it takes {n_args} "
                f"positional argument(s)"
            )
        self._pass_delta = n_args == 3
        if not self.metrics:
            self.metrics = ("auroc",) if self.task_type == "binary_classification" else ("mae",)
        self._cache: dict[str, pd.DataFrame] = {}

    def split_timestamps(self, split: str) -> np.ndarray:
        if split == "val":
            return self.val_ts.copy()
        if split == "test":
            return self.test_ts.copy()
        if split != "train":
            raise SchemaError(f"split must be 'train', 'val' or 'test', got {split!r}")
        kind = self.db.time_kind
        step = delta_to_int(self.step, kind, "step") if self.step is not None else self.delta
        if step <= 0:
            raise SchemaError(f"step must be positive, got {self.step!r}")
        start = (
            time_to_int(self.train_start, kind, "train_start")
            if self.train_start is not None
            else self.db.min_timestamp
        )
        last = self.val_t - self.delta
        ts = np.arange(last, start - 1, -step, dtype=np.int64)[::-1]
        if not len(ts):
            raise SchemaError("no training timestamps: train_start is after val_timestamp - timedelta")
        return ts

    def _labels(self, db: Database, ts: np.ndarray) -> pd.DataFrame:
        return self.label_fn(db, ts, self.delta) if self._pass_delta else self.label_fn(db, ts)

    def get_table(self, split: str, mask_input_cols: bool | None = None) -> pd.DataFrame:
        """Seed table (entity, time, label) of a split; test labels masked unless asked for."""
        if split not in self._cache:
            ts = self.split_timestamps(split)
            # labels of train/val are computed on the database cut at test time: no test events leak
            db = self.db if split == "test" else self.db._upto_int(self.test_t)
            df = self._labels(db, ts)
            missing = {self.entity_col, self.time_col, self.target_col} - set(df.columns)
            if missing:
                raise SchemaError(f"label_fn returned no column(s) {sorted(missing)}")
            self._cache[split] = df.reset_index(drop=True)
        df = self._cache[split]
        if mask_input_cols is None:
            mask_input_cols = split == "test"
        return df.drop(columns=[self.target_col]) if mask_input_cols else df.copy()

    def training_database(self) -> Database:
        """What a model may see: the database cut at the (first) test timestamp."""
        return self.db._upto_int(self.test_t)


LabelKind = Literal["any", "count", "sum", "mean", "last"]
LABEL_KINDS: tuple[str, ...] = ("any", "count", "sum", "mean", "last")


def events_label_fn(
    entity_col: str,
    time_col: str,
    target_col: str,
    event_table: str,
    event_fkey: str | None,
    kind: LabelKind = "any",
    value_col: str | None = None,
    active_table: str | None = None,
    active_fkey: str | None = None,
    active_window: Any = None,
    event_filter: Callable[[pd.DataFrame], pd.Series] | None = None,
    entity_table: str | None = None,
):
    """Label function: aggregate ``event_table`` rows in (t, t+Δ] per entity (via ``event_fkey``).

    ``kind``: ``any`` (0/1), ``count``, ``sum`` or ``mean`` of ``value_col``, or ``last`` (the
    value of ``value_col`` in the entity's latest row in the window: a column of its own future
    row). ``event_fkey=None``: the event table is the entity table itself (its rows with time in
    the window are the seeds; label = their ``value_col``).
    Entities at timestamp t: with ``active_table``, those with a row there (via ``active_fkey``)
    in (t - active_window, t] (``active_window=None``: ever before t); without, every entity row
    visible at t. ``any``/``count``/``sum`` give 0 to entities without events; ``mean`` and
    ``last`` drop them (no label). Returns the closure ``label_fn(db, timestamps, delta)``.
    """
    if kind not in LABEL_KINDS:
        raise SchemaError(f"label kind must be one of {', '.join(LABEL_KINDS)}, got {kind!r}")
    if kind in ("sum", "mean", "last") and value_col is None:
        raise SchemaError(f'label kind {kind!r} needs a value column (value_col / "column")')

    def label_fn(db: Database, timestamps: np.ndarray, delta: int) -> pd.DataFrame:
        ev = db.resolved[event_table]
        if event_fkey is None:
            ent_name = event_table
        elif event_fkey not in ev.fkeys:
            raise SchemaError(
                f"table {event_table!r} has no foreign key {event_fkey!r} "
                f"(foreign keys: {', '.join(ev.fkeys) or 'none'})"
            )
        else:
            ent_name = ev.table.fkey_col_to_pkey_table[event_fkey]
        if entity_table is not None and ent_name != entity_table:
            raise SchemaError(
                f"{event_table}.{event_fkey} references {ent_name!r}, not the entity table {entity_table!r}"
            )
        ent = db.resolved[ent_name]
        pkey_values = ent.table.df[ent.table.pkey_col].to_numpy()  # labels name entities by primary-key value
        ev_ids = ev.fkeys[event_fkey] if event_fkey is not None else np.arange(ev.n_rows, dtype=np.int64)
        ev_mask_base = ev_ids >= 0
        if event_filter is not None:
            ev_mask_base &= event_filter(ev.table.df).to_numpy(dtype=bool)
        values = None
        if value_col is not None:
            if value_col not in ev.table.df.columns:
                raise SchemaError(f"table {event_table!r} has no column {value_col!r}")
            values = pd.to_numeric(ev.table.df[value_col], errors="coerce").to_numpy(dtype=float)
            ev_mask_base &= ~np.isnan(values)
        if active_table is not None:
            act = db.resolved[active_table]
            window = (
                delta_to_int(active_window, db.time_kind, "active window")
                if active_window is not None
                else None
            )
        rows = []
        for t in timestamps:
            e_mask = ev_mask_base & (ev.time > t) & (ev.time <= t + delta)
            ids = ev_ids[e_mask]
            if event_fkey is None or kind in ("mean", "last"):
                entities = np.unique(ids)
            elif active_table is not None:
                a_mask = (act.time <= t) & (act.fkeys[active_fkey] >= 0)
                if window is not None:
                    a_mask &= act.time > t - window
                entities = np.unique(act.fkeys[active_fkey][a_mask])
            else:
                entities = np.flatnonzero(ent.time <= t)
            if kind in ("any", "count"):
                agg = pd.Series(np.ones(len(ids))).groupby(ids).sum()
            elif kind == "sum":
                agg = pd.Series(values[e_mask]).groupby(ids).sum()
            elif kind == "mean":
                agg = pd.Series(values[e_mask]).groupby(ids).mean()
            else:  # last: the latest row's value (ties: the last in table order)
                order = np.lexsort((np.flatnonzero(e_mask), ev.time[e_mask]))
                agg = pd.Series(values[e_mask][order]).groupby(ids[order]).last()
            lab = agg.reindex(entities, fill_value=0.0).to_numpy()
            if kind == "any":
                lab = (lab > 0).astype(np.int64)
            rows.append(
                pd.DataFrame(
                    {
                        entity_col: pkey_values[entities],
                        time_col: np.full(len(entities), t, dtype=np.int64),
                        target_col: lab,
                    }
                )
            )
        return pd.concat(rows, ignore_index=True)

    return label_fn
