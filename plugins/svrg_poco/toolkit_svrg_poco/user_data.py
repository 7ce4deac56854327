"""A user's own data as a finite-sum problem: a table file or a registered dataset's (X, y).

Reads ``.csv`` (a header row; the response is the ``target`` column, the last one by default), ``.npz``
(arrays ``X`` and ``y``) and turns (X, y) into a :class:`~toolkit_svrg_poco.problems.Logistic` (two
label values) or :class:`~toolkit_svrg_poco.problems.LeastSquares` problem, on raw or standardised
features, with or without a bias column. Errors name the file (and the line or column) and the
allowed values.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from toolkit_svrg_poco.problems import FiniteSum, LeastSquares, Logistic

TABLE_SUFFIXES = (".csv", ".npz")
LOSSES = ("auto", "logistic", "least_squares")


class TableError(ValueError):
    """A table file that cannot be read as (X, y)."""


def read_table(path: str | Path, target: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) from a ``.csv`` file (header row; ``target`` column or the last) or a ``.npz`` (``X``, ``y``)."""
    path = Path(path).expanduser()
    suffix = path.suffix.lower()
    if suffix not in TABLE_SUFFIXES:
        raise TableError(f"{path}: a table is a .csv or .npz file, got suffix {suffix or '(none)'!r}")
    if not path.is_file():
        raise TableError(f"{path}: no such file")
    if suffix == ".npz":
        if target is not None:
            raise TableError(f"{path}: target= names a CSV column; a .npz file holds arrays X and y")
        with np.load(path, allow_pickle=False) as data:
            missing = [k for k in ("X", "y") if k not in data.files]
            if missing:
                raise TableError(f"{path}: needs arrays X and y, has {', '.join(data.files) or 'none'}")
            return np.asarray(data["X"], dtype=np.float64), np.asarray(data["y"], dtype=np.float64)
    import pandas as pd

    try:
        frame = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise TableError(f"{path}: not a readable CSV table ({exc})") from None
    columns = [str(c) for c in frame.columns]
    if len(columns) < 2:
        raise TableError(f"{path}: needs at least two columns (features and a response), has {columns}")
    target = columns[-1] if target is None else target
    if target not in columns:
        raise TableError(f"{path}: no column {target!r}; its columns are {', '.join(columns)}")
    for column in columns:
        values = pd.to_numeric(frame[column], errors="coerce")
        bad = np.flatnonzero(values.isna().to_numpy())
        if bad.size:
            line = int(bad[0]) + 2  # one header line, lines counted from 1
            raise TableError(
                f"{path}, line {line}: column {column!r} holds {frame[column].iloc[bad[0]]!r}; "
                "every cell must be a finite number"
            )
    y = frame[target].to_numpy(dtype=np.float64)
    X = frame.drop(columns=[frame.columns[columns.index(target)]]).to_numpy(dtype=np.float64)
    return X, y


def problem_from_arrays(
    X,
    y,
    *,
    loss: str = "auto",
    lam: float | None = None,
    standardize: bool = False,
    bias: bool = True,
    name: str = "user",
) -> FiniteSum:
    """A logistic (two label values, mapped to -1/+1 in sorted order) or least-squares problem on (X, y).

    ``lam``: L2 strength; None gives 1/N for logistic regression (scikit-learn's C = 1) and 0 for least
    squares. ``standardize`` centres and scales every feature to sd 1 (constant features are left at 0);
    ``bias`` appends a column of ones (not regularised apart from the common L2 term).
    """
    if loss not in LOSSES:
        raise ValueError(f"loss must be one of {', '.join(LOSSES)}; got {loss!r}")
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64).ravel()
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2 or len(X) != len(y):
        raise ValueError(f"{name}: X must be (n, d) and y (n,), got shapes {X.shape} and {y.shape}")
    if not (np.isfinite(X).all() and np.isfinite(y).all()):
        raise ValueError(f"{name}: X and y must be finite (found NaN or inf)")
    labels = np.unique(y)
    if loss == "auto":
        loss = "logistic" if len(labels) == 2 else "least_squares"
    if loss == "logistic" and len(labels) != 2:
        raise ValueError(f"{name}: loss='logistic' needs exactly two label values, got {len(labels)}")
    if standardize:
        sd = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    if bias:
        X = np.hstack([X, np.ones((len(X), 1))])
    if loss == "logistic":
        signs = np.where(y == labels[1], 1.0, -1.0)
        return Logistic(X, signs, 1.0 / len(y) if lam is None else lam, name=name)
    return LeastSquares(X, y, 0.0 if lam is None else lam, name=name)


def load_registered(name: str, params: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(X, y) from a dataset registered by any plugin (its loader returns a pair, or an object with X, y)."""
    import toolkit

    registry = toolkit.get_registry()
    if name not in registry.datasets:
        raise ValueError(
            f"parameter 'dataset': no registered dataset {name!r} (registered: "
            f"{', '.join(sorted(registry.datasets)) or 'none'})"
        )
    loaded = registry.dataset(name).load(**dict(params or {}))
    if hasattr(loaded, "X") and hasattr(loaded, "y"):
        return np.asarray(loaded.X), np.asarray(loaded.y)
    try:
        X, y = loaded
    except (TypeError, ValueError):
        raise ValueError(
            f"parameter 'dataset': {name!r} must load a pair (X (n, d), y (n,)) or an object with X and y"
        ) from None
    return np.asarray(X), np.asarray(y)
