"""Column encoding of a database's tables into numeric / categorical arrays (no toolkit imports).

Numerical columns are standardised (missing -> 0 plus a missing indicator), categorical columns
(strings, categories, booleans with few values) become integer codes (0 = missing/unseen).
Keys and the time column are never features; string columns with more than ``max_categories``
distinct values (names, ids) and datetime columns are dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from toolkit_frog.relational import Database


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


def encode_table(df: pd.DataFrame, cols: Sequence[str], has_time: bool,
                 max_categories: int = 1000) -> TableFeatures:
    num_blocks, num_names, cat_blocks, cat_names, cards = [], [], [], [], []
    n = len(df)
    for c in cols:
        s = df[c]
        if pd.api.types.is_datetime64_any_dtype(s):
            continue
        if pd.api.types.is_bool_dtype(s) or not pd.api.types.is_numeric_dtype(s):
            codes, uniques = pd.factorize(s.astype("object"), use_na_sentinel=True)
            if len(uniques) > max_categories or len(uniques) == 0:
                continue
            cat_blocks.append((codes + 1).astype(np.int64))
            cat_names.append(c)
            cards.append(len(uniques) + 1)
            continue
        x = pd.to_numeric(s, errors="coerce").astype("Float64").to_numpy(dtype=np.float64, na_value=np.nan)
        miss = np.isnan(x)
        if miss.all():
            continue
        mu, sd = np.nanmean(x), np.nanstd(x)
        z = (x - mu) / (sd if sd > 0 else 1.0)
        z = np.clip(np.where(miss, 0.0, z), -10, 10)
        num_blocks.append(z)
        num_names.append(c)
        if miss.any():
            num_blocks.append(miss.astype(np.float64))
            num_names.append(f"{c}__missing")
    numeric = np.stack(num_blocks, 1).astype(np.float32) if num_blocks else np.zeros((n, 0), np.float32)
    categorical = np.stack(cat_blocks, 1) if cat_blocks else np.zeros((n, 0), np.int64)
    return TableFeatures(numeric, categorical, cards, num_names, cat_names, has_time)


def encode_database(db: Database, exclude: Mapping[str, Sequence[str]] | None = None,
                    max_categories: int = 1000) -> dict[str, TableFeatures]:
    """Features of every table; ``exclude`` names columns per table that must not be features."""
    exclude = dict(exclude or {})
    out = {}
    for name, table in db.table_dict.items():
        cols = [c for c in table.feature_cols if c not in set(exclude.get(name, ()))]
        out[name] = encode_table(table.df, cols, table.time_col is not None, max_categories)
    return out
