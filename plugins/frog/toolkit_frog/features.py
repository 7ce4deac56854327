"""Column encoding of a database's tables into numeric / categorical arrays (no toolkit imports).

Numerical columns are standardised (missing -> 0 plus a missing indicator), categorical columns
(strings, categories, booleans) become integer codes (0 = missing or unseen). Keys and the time
column are never features; datetime columns are dropped. Statistics (means, standard deviations,
the category list) are fitted on the rows visible at ``fit_time`` (the last training timestamp),
not the whole table, so no later row shapes the encoding of earlier ones.

Dates stored as ISO text (``"1996-03-13"``, ``"1996-03-13 08:00"``) and datetime columns other than
the row's time column are numeric features: days since 1970-01-01, standardised like any number.
ID-like string columns (one distinct value per row, e.g. e-mail, phone) in tables of at least
``ID_LIKE_MIN_ROWS`` rows, and string columns with more than ``max_categories`` values, would be
memorised, not learned from: they are dropped with a :class:`FeatureWarning` (a small dimension
table, say 25 nations, has a distinct name per row by nature: kept). ``column_types`` ({table:
{column: "numeric" | "categorical" | "date" | "ignore"}}) declares a column's type and overrides
every guess; ``"date"`` parses any format pandas reads.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from toolkit_frog.relational import Database, SchemaError, warn_user

COLUMN_TYPES = ("numeric", "categorical", "date", "ignore")
ID_LIKE_MIN_ROWS = 50  # fewer rows (a dimension table): a distinct value per row is no identity leak
ISO_DATE = r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$"


class FeatureWarning(UserWarning):
    """A column that is dropped or encoded differently from what its type suggests."""


@dataclass
class TableFeatures:
    numeric: np.ndarray  # float32, n x d_num
    categorical: np.ndarray  # int64, n x d_cat, 0 = missing
    cardinalities: list[int]  # number of codes per categorical column (including 0)
    numeric_cols: list[str] = field(default_factory=list)
    categorical_cols: list[str] = field(default_factory=list)
    has_time: bool = False

    @property
    def n_rows(self) -> int:
        return len(self.numeric)

    def column_positions(self, columns: Sequence[str]) -> tuple[list[int], list[int], list[int]]:
        """(numeric value positions, their missing-indicator positions, categorical positions) of
        the source ``columns`` (a masked column reads as missing)."""
        cols = set(columns)
        num = [i for i, c in enumerate(self.numeric_cols) if c in cols]
        miss = [i for i, c in enumerate(self.numeric_cols) if c.endswith("__missing") and c[:-9] in cols]
        cat = [i for i, c in enumerate(self.categorical_cols) if c in cols]
        return num, miss, cat


def _declared(table: str, column_types: Mapping[str, Mapping[str, str]]) -> dict[str, str]:
    out = dict(column_types.get(table, {}))
    bad = {c: v for c, v in out.items() if v not in COLUMN_TYPES}
    if bad:
        raise SchemaError(
            f"column_types[{table!r}]: types must be one of {', '.join(COLUMN_TYPES)}, got {bad}"
        )
    return out


def encode_table(
    df: pd.DataFrame,
    cols: Sequence[str],
    has_time: bool,
    max_categories: int = 1000,
    fit_rows: np.ndarray | None = None,
    declared: Mapping[str, str] | None = None,
    table: str = "table",
    always_missing: Sequence[str] = (),
) -> TableFeatures:
    """Encode ``cols`` of ``df``; statistics from the rows ``fit_rows`` (bool mask; default all).

    ``always_missing``: numeric columns that get a missing indicator even without missing values
    (columns masked for some rows later).
    """
    declared = dict(declared or {})
    unknown = set(declared) - set(df.columns)
    if unknown:
        raise SchemaError(
            f"column_types[{table!r}] names column(s) {sorted(unknown)} that the table does not "
            f"have (columns: {', '.join(map(str, df.columns))})"
        )
    fit = np.ones(len(df), dtype=bool) if fit_rows is None else np.asarray(fit_rows, dtype=bool)
    num_blocks, num_names, cat_blocks, cat_names, cards = [], [], [], [], []
    n = len(df)
    for c in cols:
        s = df[c]
        kind = declared.get(c)
        if kind == "ignore":
            continue
        if kind is None and (pd.api.types.is_datetime64_any_dtype(s) or _is_iso_date_text(s)):
            kind = "date"
        if kind == "date":
            s = _days_since_epoch(s, table, c)
            kind = "numeric"
        if kind is None:
            kind = (
                "categorical"
                if pd.api.types.is_bool_dtype(s) or not pd.api.types.is_numeric_dtype(s)
                else "numeric"
            )
            if kind == "categorical":
                nonnull = s[fit].dropna()
                n_unique = nonnull.nunique()
                if len(nonnull) >= ID_LIKE_MIN_ROWS and n_unique >= 0.9 * len(nonnull):
                    warn_user(
                        f"table {table!r}: column {c!r} has {n_unique} distinct values in {len(nonnull)} "
                        f"rows (ID-like, e.g. an e-mail or phone number): a model would memorise it, so "
                        f"it is dropped; declare its type with column_types={{{table!r}: {{{c!r}: "
                        f"'categorical' | 'numeric' | 'ignore'}}}}",
                        FeatureWarning,
                    )
                    continue
                if n_unique > max_categories:
                    warn_user(
                        f"table {table!r}: column {c!r} has {n_unique} distinct values (> max_categories="
                        f"{max_categories}); dropped; declare its type with column_types",
                        FeatureWarning,
                    )
                    continue
        if kind == "categorical":
            obj = s.astype("object")
            _, uniques = pd.factorize(obj[fit], use_na_sentinel=True)
            if len(uniques) == 0:
                continue
            codes = pd.Index(uniques).get_indexer(obj)  # unseen at fit time and missing -> -1 -> 0
            cat_blocks.append((codes + 1).astype(np.int64))
            cat_names.append(c)
            cards.append(len(uniques) + 1)
            continue
        num = pd.to_numeric(s, errors="coerce")
        n_bad = int((num.isna() & s.notna()).sum())
        if n_bad and declared.get(c) == "numeric":
            raise SchemaError(
                f"table {table!r}: column {c!r} is declared numeric but {n_bad} of {n} values are "
                f"not numbers (e.g. {s[num.isna() & s.notna()].head(3).tolist()})"
            )
        x = num.astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)
        miss = np.isnan(x)
        if miss.all():
            continue
        xf = x[fit & ~miss]
        mu, sd = (float(xf.mean()), float(xf.std())) if len(xf) else (0.0, 1.0)
        z = (x - mu) / (sd if sd > 0 else 1.0)
        z = np.clip(np.where(miss, 0.0, z), -10, 10)
        num_blocks.append(z)
        num_names.append(c)
        if miss.any() or c in always_missing:
            num_blocks.append(miss.astype(np.float64))
            num_names.append(f"{c}__missing")
    numeric = np.stack(num_blocks, 1).astype(np.float32) if num_blocks else np.zeros((n, 0), np.float32)
    categorical = np.stack(cat_blocks, 1) if cat_blocks else np.zeros((n, 0), np.int64)
    return TableFeatures(numeric, categorical, cards, num_names, cat_names, has_time)


def _is_iso_date_text(s: pd.Series) -> bool:
    if pd.api.types.is_numeric_dtype(s) or pd.api.types.is_bool_dtype(s):
        return False
    text = s.dropna()
    return len(text) > 0 and bool(text.astype(str).str.fullmatch(ISO_DATE).all())


def _days_since_epoch(s: pd.Series, table: str, col: str) -> pd.Series:
    """A date column (datetime or text) as float days since 1970-01-01; an unparsable value is an error."""
    if pd.api.types.is_datetime64_any_dtype(s):
        parsed = s
    else:
        with warnings.catch_warnings():  # "could not infer format": each value parsed alone, as wanted
            warnings.simplefilter("ignore", UserWarning)
            parsed = pd.to_datetime(s, errors="coerce", format="ISO8601" if _is_iso_date_text(s) else None)
    bad = parsed.isna() & s.notna()
    if bad.any():
        raise SchemaError(
            f"table {table!r}: column {col!r} is read as a date but {int(bad.sum())} values do not parse "
            f"(e.g. {s[bad].head(3).tolist()}); declare column_types={{{table!r}: {{{col!r}: 'categorical' | "
            f"'ignore'}}}}"
        )
    if getattr(parsed.dt, "tz", None) is not None:
        parsed = parsed.dt.tz_convert(None)
    days = (parsed - pd.Timestamp("1970-01-01")) / pd.Timedelta(days=1)
    return days.astype("float64")


def encode_database(
    db: Database,
    exclude: Mapping[str, Sequence[str]] | None = None,
    max_categories: int = 1000,
    fit_time: int | None = None,
    column_types: Mapping[str, Mapping[str, str]] | None = None,
    always_missing: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, TableFeatures]:
    """Features of every table; ``exclude`` names columns per table that must not be features.

    ``fit_time`` (internal int64 time): statistics from the rows visible then (own or inherited
    time <= fit_time); None: every row.
    """
    exclude, column_types = dict(exclude or {}), dict(column_types or {})
    for param, mapping in (("exclude", exclude), ("column_types", column_types)):
        unknown = set(mapping) - set(db.table_dict)
        if unknown:
            raise SchemaError(
                f"{param} names table(s) {sorted(unknown)} that are not in the database "
                f"(tables: {', '.join(db.table_dict)})"
            )
    out = {}
    for name, table in db.table_dict.items():
        r = db.resolved[name]
        cols = [c for c in table.feature_cols if c not in set(exclude.get(name, ()))]
        fit_rows = None if fit_time is None else r.time <= fit_time
        out[name] = encode_table(
            table.df,
            cols,
            r.timed,
            max_categories,
            fit_rows,
            _declared(name, column_types),
            name,
            (always_missing or {}).get(name, ()),
        )
    return out
