"""Input checking shared by the estimator and every baseline: curves as scikit-learn input.

Curves are an ``n x m`` array (each row one curve on a common grid) or a scikit-fda ``FDataGrid``.
scikit-learn's ``validate_data`` does the generic checks (complex / sparse / empty input, NaN and
inf, ``n_features_in_``, ``feature_names_in_``, a column-vector y) with its standard messages; on top
come the functional ones (ragged curves, the grid, y of the wrong shape) with messages naming the
parameter. Not on the plugin's registration path, so scikit-learn is imported at the top.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from toolkit_sbayfdnn import basis

FUNCTIONAL_INPUT_TAG_REASON = (
    "the columns of X are the values of one curve on a grid, so the generic check's data (independent "
    "random features) is not functional data and the method need not fit it well"
)
"""Why the estimators set ``regressor_tags.poor_score`` / ``classifier_tags.poor_score``: the
generic accuracy checks (``check_regressors_train``, ``check_classifiers_train``) fit on a few i.i.d.
features; a method built for smooth curves projected on a B-spline basis is not meant to fit those."""


def _unwrap(X, grid):
    if hasattr(X, "data_matrix") and hasattr(X, "grid_points"):  # scikit-fda FDataGrid
        if grid is None:
            grid = np.asarray(X.grid_points[0], dtype=float)
        X = np.asarray(X.data_matrix, dtype=float)[..., 0]
    if isinstance(X, (list, tuple)) and X and all(np.ndim(row) == 1 for row in X):
        lengths = {len(row) for row in X}
        if len(lengths) > 1:
            raise basis.FunctionalInputError(
                f"X: ragged curves (lengths {sorted(lengths)}); all curves must be observed on the same grid "
                "(interpolate them onto a common grid first)"
            )
    if hasattr(X, "toarray") and hasattr(X, "nnz"):
        raise basis.FunctionalInputError(
            "X: sparse input is not supported (curves are dense arrays); pass X.toarray()"
        )
    return X, grid


def resolve_grid(estimator, grid, m: int) -> np.ndarray:
    """The grid of training curves: the ``grid`` passed to fit, else the estimator's ``grid``
    parameter, else ``linspace(0, 1, m)``; both given and different is an error."""
    fixed = getattr(estimator, "grid", None)
    if (
        grid is not None
        and fixed is not None
        and (np.shape(grid) != np.shape(fixed) or not np.allclose(grid, fixed))
    ):
        raise basis.FunctionalInputError(
            "grid: the grid passed to fit differs from the estimator's grid parameter; give one of them"
        )
    grid = fixed if grid is None else grid
    _, grid, _ = basis.validate_curves(np.zeros((1, m)), grid)
    return grid


def check_training_input(estimator, X, y, grid=None, *, classifier: bool = False):
    """Validate training curves and response; sets ``n_features_in_`` (the m grid points).
    Returns ``(X float array (n, m), y (n,), grid (m,))``."""
    X, grid = _unwrap(X, grid)
    if y is not None:
        y_arr = np.asarray(y)
        if y_arr.ndim == 2 and y_arr.shape[1] != 1 or y_arr.ndim > 2:
            raise basis.FunctionalInputError(
                f"y: must hold one response per curve (shape (n,)), got shape {y_arr.shape}; this estimator "
                "has a single output"
            )
        X_arr = np.asarray(X) if not isinstance(X, np.ndarray) else X
        if X_arr.ndim != 2:
            raise basis.FunctionalInputError(
                f"X: must be a 2-D array (n curves x m grid points), got shape {X_arr.shape}"
            )
        n_x = X_arr.shape[0]
        if y_arr.ndim >= 1 and y_arr.shape[0] != n_x:
            raise basis.FunctionalInputError(
                f"y: has {y_arr.shape[0]} values but X has n = {n_x} curves (mismatched n)"
            )
    X, y = validate_data(
        estimator,
        X,
        y,
        y_numeric=not classifier,
        ensure_min_samples=2,
        ensure_min_features=2,
        dtype=np.float64,
    )
    grid = resolve_grid(estimator, grid, X.shape[1])
    return X, y, grid


def check_new_input(estimator, X, grid=None) -> np.ndarray:
    """Validate new curves against the fitted estimator (same number of grid points, same grid)."""
    check_is_fitted(estimator)
    X, grid = _unwrap(X, grid)
    try:
        X = validate_data(estimator, X, reset=False, dtype=np.float64)
    except ValueError as exc:
        if "features" in str(exc) and "expecting" in str(exc):
            raise basis.FunctionalInputError(
                f"{exc} New curves must be observed on the training grid (m = {estimator.n_features_in_} "
                "points); interpolate them onto it first"
            ) from None
        raise
    if grid is not None and (
        np.shape(grid) != estimator.grid_.shape or not np.allclose(grid, estimator.grid_)
    ):
        raise basis.FunctionalInputError(
            "grid: new curves must be observed on the training grid (interpolate them onto it first)"
        )
    return X


def check_basis_against_data(n_basis: int, degree: int, n: int, m: int) -> None:
    """Warn about a basis the data cannot support (the fit still runs)."""
    basis.check_basis_size(n_basis, degree)
    if n_basis > m:
        warnings.warn(
            f"n_basis: J = {n_basis} B-spline basis functions on a grid of m = {m} points; at most "
            f"{m} of the scores are linearly independent; use n_basis <= {m}",
            UserWarning,
            stacklevel=3,
        )
    if n < n_basis:
        warnings.warn(
            f"n_basis: J = {n_basis} basis functions but only n = {n} curves; with fewer curves than "
            f"basis functions the fit is weakly identified; use n_basis <= {max(degree + 1, n // 2)}",
            UserWarning,
            stacklevel=3,
        )


def seed_from(random_state) -> int:
    """An integer seed from ``random_state`` (int: itself; None or a RandomState: one draw from it)."""
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(
                f"random_state: must be a non-negative integer, None or a RandomState, got {random_state}"
            )
        return int(random_state)
    try:
        return int(check_random_state(random_state).randint(2**31 - 1))
    except ValueError:
        raise ValueError(
            f"random_state: must be a non-negative integer, None or a numpy RandomState, got {random_state!r}"
        ) from None
