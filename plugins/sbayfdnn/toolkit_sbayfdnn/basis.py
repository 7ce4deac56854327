"""B-spline projection of curves, region mapping and grid-level region metrics (pure numpy/scipy).

Curves ``X`` (n x m) are observed on a common, strictly increasing grid ``t_1 < ... < t_m``. The grid
is mapped affinely onto [0, 1] (``u = (t - t_1) / (t_m - t_1)``) and each curve is projected on a
clamped uniform B-spline basis ``B_1..B_J`` of degree ``degree`` with knots
``zeros(degree) ++ linspace(0, 1, J - degree + 1) ++ ones(degree)``:

    z_ij = integral_0^1 X_i(u) B_j(u) du      (trapezoid rule on the grid)

Because the B-splines sum to one, ``X == 1`` gives ``sum_j z_j == 1`` (partition of unity).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
from scipy.interpolate import BSpline


class FunctionalInputError(ValueError):
    """Curves, grid or basis settings that cannot be used; the message names the problem."""


def validate_curves(
    X, grid=None, y=None, numeric_y: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Check and convert curves (n x m), a grid (m,) and an optional response (n,).

    ``X`` may be a scikit-fda ``FDataGrid`` (its grid is used when ``grid`` is None).
    Raises :class:`FunctionalInputError` for ragged curves, NaN/inf values, a grid that is not
    strictly increasing, or mismatched lengths.
    """
    if hasattr(X, "data_matrix") and hasattr(X, "grid_points"):  # scikit-fda FDataGrid
        if grid is None:
            grid = np.asarray(X.grid_points[0], dtype=float)
        X = np.asarray(X.data_matrix, dtype=float)[..., 0]
    if isinstance(X, (list, tuple)):
        lengths = {len(np.atleast_1d(row)) for row in X}
        if len(lengths) > 1:
            raise FunctionalInputError(
                f"X: ragged curves (lengths {sorted(lengths)}); all curves must be observed on the same grid "
                "(interpolate them onto a common grid first)"
            )
    try:
        X = np.asarray(X, dtype=float)
    except (ValueError, TypeError) as exc:
        raise FunctionalInputError(f"X: could not be read as an n x m array of numbers ({exc})") from None
    if X.ndim != 2:
        raise FunctionalInputError(f"X: must be a 2-D array (n curves x m grid points), got shape {X.shape}")
    n, m = X.shape
    if n < 1 or m < 2:
        raise FunctionalInputError(f"X: needs at least one curve and two grid points, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        bad = int(np.sum(~np.isfinite(X)))
        raise FunctionalInputError(f"X: contains {bad} NaN or infinite value(s); impute or drop them first")
    if grid is None:
        grid = np.linspace(0.0, 1.0, m)
    grid = np.asarray(grid, dtype=float)
    if grid.ndim != 1 or grid.shape[0] != m:
        raise FunctionalInputError(
            f"grid: must have one point per column of X (m = {m}), got shape {grid.shape}"
        )
    if not np.all(np.isfinite(grid)):
        raise FunctionalInputError("grid: contains NaN or infinite values")
    if not np.all(np.diff(grid) > 0):
        raise FunctionalInputError("grid: must be strictly increasing (sorted, no repeated points)")
    if y is not None:
        y = np.asarray(y).reshape(-1)
        if y.shape[0] != n:
            raise FunctionalInputError(f"y: has {y.shape[0]} values but X has n = {n} curves (mismatched n)")
        if numeric_y:
            try:
                y = y.astype(float)
            except (ValueError, TypeError):
                raise FunctionalInputError("y: must be numeric for regression") from None
        if numeric_y and not np.all(np.isfinite(y)):
            raise FunctionalInputError("y: contains NaN or infinite values")
    return X, grid, y


def to_unit(grid: np.ndarray) -> np.ndarray:
    """The grid mapped affinely onto [0, 1]."""
    grid = np.asarray(grid, dtype=float)
    return (grid - grid[0]) / (grid[-1] - grid[0])


def from_unit(u, grid: np.ndarray):
    """Points of [0, 1] mapped back to the grid's units."""
    return grid[0] + np.asarray(u, dtype=float) * (grid[-1] - grid[0])


def check_basis_size(n_basis: int, degree: int) -> None:
    if degree < 0:
        raise FunctionalInputError(f"degree: must be >= 0, got {degree}")
    if n_basis < degree + 1:
        raise FunctionalInputError(
            f"n_basis: J = {n_basis} is too small for degree {degree}; a clamped B-spline basis of "
            f"degree {degree} needs J >= degree + 1 = {degree + 1}"
        )


def bspline_knots(n_basis: int, degree: int) -> np.ndarray:
    """Clamped uniform knots on [0, 1]: ``zeros(degree) ++ linspace(0, 1, J-degree+1) ++ ones(degree)``."""
    check_basis_size(n_basis, degree)
    return np.concatenate([np.zeros(degree), np.linspace(0.0, 1.0, n_basis - degree + 1), np.ones(degree)])


def bspline_design(u: np.ndarray, n_basis: int, degree: int) -> np.ndarray:
    """The m x J matrix ``B_j(u_i)`` for points ``u`` in [0, 1] (dense)."""
    knots = bspline_knots(n_basis, degree)
    u = np.clip(np.asarray(u, dtype=float), 0.0, 1.0)
    return BSpline.design_matrix(u, knots, degree).toarray()


def quadrature_weights(u: np.ndarray) -> np.ndarray:
    """Trapezoid weights ``w`` with ``sum_i w_i f(u_i) == numpy.trapezoid(f(u), u)``."""
    u = np.asarray(u, dtype=float)
    w = np.zeros_like(u)
    du = np.diff(u)
    w[:-1] += du / 2
    w[1:] += du / 2
    return w


def projection_matrix(grid: np.ndarray, n_basis: int, degree: int) -> np.ndarray:
    """m x J matrix P with ``z = X @ P`` the B-spline scores ``integral X(u) B_j(u) du``."""
    u = to_unit(grid)
    return quadrature_weights(u)[:, None] * bspline_design(u, n_basis, degree)


def project(X: np.ndarray, grid: np.ndarray, n_basis: int, degree: int) -> np.ndarray:
    """B-spline scores z (n x J) of curves X (n x m) on ``grid``."""
    X, grid, _ = validate_curves(X, grid)
    return X @ projection_matrix(grid, n_basis, degree)


def basis_supports(n_basis: int, degree: int) -> np.ndarray:
    """J x 2 array of supports ``[kappa_j, kappa_{j+degree+1}]`` in [0, 1]."""
    knots = bspline_knots(n_basis, degree)
    j = np.arange(n_basis)
    return np.stack([knots[j], knots[j + degree + 1]], axis=1)


def merge_intervals(intervals: Iterable[Sequence[float]]) -> list[tuple[float, float]]:
    """Union of closed intervals as sorted, disjoint intervals (touching ones are merged)."""
    out: list[list[float]] = []
    for lo, hi in sorted((float(a), float(b)) for a, b in intervals):
        if out and lo <= out[-1][1] + 1e-12:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return [(lo, hi) for lo, hi in out]


def selected_regions(selected: Iterable[int], n_basis: int, degree: int) -> list[tuple[float, float]]:
    """Merged union of the supports of the selected basis functions, in [0, 1].

    Example (the reference): J = 24, degree 4, selected {0,1,2,17,18,19} -> [(0, 0.15), (0.65, 1.0)].
    """
    supports = basis_supports(n_basis, degree)
    idx = sorted(set(int(j) for j in selected))
    for j in idx:
        if not 0 <= j < n_basis:
            raise FunctionalInputError(f"selected: basis index {j} is outside 0..{n_basis - 1}")
    return [(round(lo, 12), round(hi, 12)) for lo, hi in merge_intervals(supports[idx])]


def region_inclusion(
    regions: Sequence[tuple[float, float]], pip: np.ndarray, n_basis: int, degree: int
) -> np.ndarray:
    """Region-level inclusion probability: P(at least one basis function inside the region is in).

    Treats the columns' inclusion indicators as independent given the plug-in probabilities
    ``pip``, so ``P = 1 - prod_{j in region} (1 - q_j)`` over basis functions whose support lies in it.
    """
    supports = basis_supports(n_basis, degree)
    out = []
    for lo, hi in regions:
        inside = (supports[:, 0] >= lo - 1e-12) & (supports[:, 1] <= hi + 1e-12)
        out.append(1.0 - float(np.prod(1.0 - np.asarray(pip)[inside])))
    return np.asarray(out)


def region_mask(u: np.ndarray, regions: Sequence[tuple[float, float]]) -> np.ndarray:
    """Boolean mask of the points ``u`` lying in any of ``regions`` (closed intervals)."""
    u = np.asarray(u, dtype=float)
    mask = np.zeros(u.shape, dtype=bool)
    for lo, hi in regions:
        mask |= (u >= lo - 1e-12) & (u <= hi + 1e-12)
    return mask


def region_metrics(selected_mask: np.ndarray, true_mask: np.ndarray) -> dict[str, float]:
    """TPR, FPR and F1 of a selected region against the true region, counted on grid points."""
    sel = np.asarray(selected_mask, dtype=bool)
    true = np.asarray(true_mask, dtype=bool)
    tp = int(np.sum(sel & true))
    fp = int(np.sum(sel & ~true))
    fn = int(np.sum(~sel & true))
    tn = int(np.sum(~sel & ~true))
    tpr = tp / (tp + fn) if tp + fn else float("nan")
    fpr = fp / (fp + tn) if fp + tn else float("nan")
    f1 = 2 * tp / (2 * tp + fp + fn) if (2 * tp + fp + fn) else float("nan")
    return {"tpr": tpr, "fpr": fpr, "f1": f1}
