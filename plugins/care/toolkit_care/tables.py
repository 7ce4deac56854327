"""Judge tables from files: the released CARE judge outputs (asset, civilcomments) and a user's own table.

A table is items x judges scores plus an optional label column. Pure pandas/numpy: no toolkit imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

_NUMBER = re.compile(r"[-+]?\d*\.?\d+")


@dataclass(frozen=True)
class JudgeTable:
    """``scores``: items x judges (a DataFrame, one column per judge); ``labels``: one per item or None;
    ``task``: 'continuous' or 'binary'; ``threshold``: the score above which a judge votes 1 (binary tasks)."""

    scores: pd.DataFrame
    labels: np.ndarray | None
    task: str
    threshold: float | None = None
    name: str = ""

    @property
    def X(self) -> np.ndarray:
        return self.scores.to_numpy(dtype=float)


def first_number(text, lo: float, hi: float) -> float:
    """The first number in a judge's answer, kept only inside [lo, hi]."""
    m = _NUMBER.search(str(text))
    if not m:
        return np.nan
    v = float(m.group(0))
    return v if lo <= v <= hi else np.nan


def load_asset(root: Path, valid_ratio: float = 0.7) -> JudgeTable:
    """ASSET: 11 judges' 0-100 ratings of simplifications against the human rating (continuous)."""
    labels = pd.to_numeric(pd.read_csv(root / "data/score/asset.csv")["human_rating"], errors="coerce")
    lo, hi = float(labels.min()), float(labels.max())
    cols = {}
    for path in sorted((root / "judge_outputs/fully_gaussian/asset").glob("*.csv")):
        df = pd.read_csv(path)
        s = df["parsed_output"].map(lambda x: first_number(x, lo, hi))
        if len(s) and s.notna().mean() >= valid_ratio:  # a judge answering too rarely is left out
            cols[path.stem] = s.reset_index(drop=True)
    scores = pd.DataFrame(cols)
    n = min(len(scores), len(labels))
    scores, labels = scores.iloc[:n].reset_index(drop=True), labels.iloc[:n].reset_index(drop=True)
    keep = scores.notna().all(axis=1) & labels.notna()
    scores, labels = scores[keep].reset_index(drop=True), labels[keep].reset_index(drop=True)
    scores = scores.loc[:, scores.std() > 0]
    return JudgeTable(scores.astype(float), labels.to_numpy(float), "continuous", None, "asset")


def load_civilcomments(root: Path) -> JudgeTable:
    """CivilComments: 24 judges' 0-9 toxicity scores against the binary label (a judge votes 1 above 4.5)."""
    lo, hi = 0.0, 9.0
    labels = pd.to_numeric(pd.read_csv(root / "data/binary/civilcomments.csv")["label"], errors="coerce")
    cols, n = {}, None
    for path in sorted((root / "judge_outputs/gaussian_mixture/civilcomments").glob("*.csv")):
        df = pd.read_csv(path)
        if n is not None and len(df) != n:
            raise ValueError(f"{path}: {len(df)} rows, the other judges have {n}")
        n = len(df)
        s = pd.to_numeric(df["parsed_output"], errors="coerce")
        if s.isna().any():
            s = df["parsed_output"].map(lambda x: first_number(x, lo, hi)).astype(float)
        cols[path.stem] = s
    scores = pd.DataFrame(cols)
    keep = labels.notna() & scores.ge(lo).all(axis=1) & scores.le(hi).all(axis=1) & scores.notna().all(axis=1)
    scores, labels = scores[keep].reset_index(drop=True), labels[keep].astype(int).reset_index(drop=True)
    return JudgeTable(scores.astype(float), labels.to_numpy(int), "binary", 4.5, "civilcomments")


class TableError(ValueError):
    """A user table that cannot be aggregated; the message names the file and the column."""


def read_user_table(
    path: Path,
    label: str | None = None,
    task: str = "continuous",
    label_range: tuple[float, float] | None = None,
    threshold: float | None = None,
) -> JudgeTable:
    """A user's CSV or parquet table: one row per item, one numeric column per judge, optionally a label
    column. Refused with the column named: a judge with no scores, a constant judge, a non-numeric value,
    labels outside the task's range (binary: 0/1; continuous: ``label_range`` when given)."""
    path = Path(path)
    if task not in ("continuous", "binary"):
        raise TableError(f"task must be 'continuous' or 'binary', got {task!r}")
    if not path.is_file():
        raise TableError(f"{path}: no such file")
    if path.suffix.lower() in (".parquet", ".pq"):
        df = pd.read_parquet(path)
    elif path.suffix.lower() in (".csv", ".txt"):
        df = pd.read_csv(path)
    else:
        raise TableError(f"{path}: expected a .csv or .parquet file, got {path.suffix!r}")
    labels = None
    if label is not None:
        if label not in df.columns:
            raise TableError(
                f"{path}: no label column {label!r} (columns: {', '.join(map(str, df.columns))})"
            )
        lab = pd.to_numeric(df.pop(label), errors="coerce")
        if lab.isna().any():
            row = int(np.flatnonzero(lab.isna().to_numpy())[0]) + 2
            raise TableError(
                f"{path}: label column {label!r} has a missing or non-numeric value (line {row})"
            )
        if task == "binary" and not lab.isin((0, 1)).all():
            raise TableError(f"{path}: label column {label!r} must hold 0 or 1 on a binary task")
        if label_range is not None and not lab.between(*label_range).all():
            raise TableError(
                f"{path}: label column {label!r} has values outside {label_range[0]}..{label_range[1]}"
            )
        labels = lab.to_numpy(int if task == "binary" else float)
    if df.shape[1] < 3:
        raise TableError(f"{path}: need at least 3 judge columns, got {df.shape[1]}")
    for col in df.columns:
        s = pd.to_numeric(df[col], errors="coerce")
        bad = s.isna() & df[col].notna()
        if bad.any():
            row = int(np.flatnonzero(bad.to_numpy())[0]) + 2
            raise TableError(
                f"{path}: judge column {col!r} has a non-numeric value {df[col][bad].iloc[0]!r} (line {row})"
            )
        if s.notna().sum() == 0:
            raise TableError(f"{path}: judge column {col!r} has no scores")
        if s.nunique() < 2:
            raise TableError(f"{path}: judge column {col!r} is constant: it carries no information")
        df[col] = s
    if df.isna().any().any():
        col = df.columns[df.isna().any()][0]
        raise TableError(f"{path}: judge column {col!r} has missing scores: drop those items or impute them")
    return JudgeTable(df.astype(float), labels, task, threshold, path.stem)
