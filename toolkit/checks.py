"""Holding results against theory: evaluate a bound at each row's parameters and compare.

The bound's value comes from its sympy ``expression`` (symbols named like the table's columns, or
renamed through ``Bound.columns``) or from a callable of the row.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd

from toolkit.errors import UserError
from toolkit.specs import Bound


def bound_function(bound: Bound) -> Callable[[Mapping[str, Any]], float]:
    """``f(row) -> float``: the bound's value at a row (a mapping of column -> value)."""
    expr = bound.expression
    if expr is None:
        raise UserError(f"bound {bound.name!r} is symbolic only (no expression to hold results against)")
    if callable(expr) and not hasattr(expr, "free_symbols"):
        return lambda row: float(expr(row))
    import sympy

    symbols = sorted(expr.free_symbols, key=lambda s: s.name)
    names = [bound.columns.get(s.name, s.name) for s in symbols]
    numeric = sympy.lambdify(symbols, expr, modules="math")
    precise = None  # built on first overflow: mpmath gives the huge value, float() turns it into +-inf

    def value(row: Mapping[str, Any]) -> float:
        missing = [n for n in names if n not in row]
        if missing:
            raise UserError(
                f"bound {bound.name!r} needs column(s) {', '.join(missing)} that the results do not have "
                f"(columns: {', '.join(map(str, row.keys()))})"
            )
        args = [float(row[n]) for n in names]
        try:
            return float(numeric(*args))
        except OverflowError:
            nonlocal precise
            if precise is None:
                precise = sympy.lambdify(symbols, expr, modules="mpmath")
            return float(precise(*args))

    return value


def check_table(table: pd.DataFrame, bound: Bound) -> pd.DataFrame:
    """One row per result row: the metric, the bound's value, the margin and whether it holds.

    ``margin`` is positive when the bound holds (bound - metric for an upper bound). Rows the bound
    does not apply to (``Bound.applies``) or with a missing metric are marked ``skipped``.
    """
    if bound.metric not in table.columns:
        raise UserError(
            f"bound {bound.name!r} constrains column {bound.metric!r}, which the results do not have "
            f"(columns: {', '.join(map(str, table.columns))})"
        )
    value_of = bound_function(bound)
    rows = []
    for index, row in zip(table.index, table.to_dict("records")):
        metric = row[bound.metric]
        skipped = (
            (bound.applies is not None and not bound.applies(row))
            or metric is None
            or (isinstance(metric, float) and math.isnan(metric))
        )
        if skipped:
            rows.append(
                {
                    "row": index,
                    "bound": bound.name,
                    "metric": bound.metric,
                    "measured": metric,
                    "bound_value": math.nan,
                    "margin": math.nan,
                    "holds": None,
                    "skipped": True,
                }
            )
            continue
        limit = value_of(row)
        margin = (limit - metric) if bound.sense == "upper" else (metric - limit)
        rows.append(
            {
                "row": index,
                "bound": bound.name,
                "metric": bound.metric,
                "measured": metric,
                "bound_value": limit,
                "margin": margin,
                "holds": bool(margin >= -bound.slack),
                "skipped": False,
            }
        )
    return pd.DataFrame(
        rows, columns=["row", "bound", "metric", "measured", "bound_value", "margin", "holds", "skipped"]
    )


def summarize_checks(checks: pd.DataFrame) -> str:
    """``"gd.novikoff: 20/20 rows hold (min margin 3.5)"`` per bound."""
    lines = []
    for name, group in checks.groupby("bound", sort=False):
        active = group[~group["skipped"].astype(bool)]
        held = int(active["holds"].astype(bool).sum())
        if len(active):
            lines.append(
                f"{name}: {held}/{len(active)} rows hold (min margin {active['margin'].min():.4g})"
                + ("" if held == len(active) else "  <-- VIOLATED")
            )
        else:
            lines.append(f"{name}: no applicable rows")
    return "\n".join(lines)
