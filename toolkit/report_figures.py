"""Figures of the report and of ``toolkit report``: a run or sweep's default plot (mean over seeds with a
band of one standard deviation, one line per varying parameter, panels past a few lines) and an
experiment's own figure, titled. Matplotlib is imported only to draw."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import pandas as pd

from toolkit.specs import Simulation


def new_figure(width: float = 6.4, height: float = 4.2) -> Any:
    """A matplotlib Figure not tied to pyplot's global state (safe headless and in threads)."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _numeric_columns(table: pd.DataFrame, exclude: Iterable[str]) -> list[str]:
    skip = set(exclude)
    return [
        c
        for c in table.columns
        if c not in skip
        and pd.api.types.is_numeric_dtype(table[c])
        and not pd.api.types.is_bool_dtype(table[c])
    ]


MAX_LINES = 8  # lines one panel can show legibly; more are split into panels, or refused with a message
MAX_PANELS = 12


def _n_distinct(column: pd.Series) -> int | None:
    """Distinct values of a column; None when its cells are unhashable (lists, dicts)."""
    try:
        return int(column.nunique(dropna=False))
    except TypeError:
        return None


def _is_categorical(column: pd.Series) -> bool:
    return not pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column)


def _same_in_every_run(table: pd.DataFrame, column: str, run_columns: Sequence[str]) -> bool:
    """Whether every run (same parameters and seed) has the same set of values of ``column``: a design
    column such as ``method`` (GD / SGD / SVRG in each run), not an outcome such as a witness word."""
    keys = [c for c in run_columns if c in table.columns and _n_distinct(table[c]) is not None]
    if not keys:
        return True
    sets = {frozenset(map(str, g[column].unique())) for _, g in table.groupby(keys, dropna=False, sort=False)}
    return len(sets) == 1


def line_columns(table: pd.DataFrame, *, params: Sequence[str], x: str, y: str) -> list[str]:
    """The columns the default plot draws one line per value of.

    Every other parameter that varies, and every categorical result column (strings, booleans,
    categories) with 2 to ``MAX_LINES`` values that every run has in full (a ``method`` column of
    GD / SGD / SVRG in each run); outcomes that differ between runs (a witness word) are not lines.
    The seed is averaged over.
    """
    out = []
    for c in table.columns:
        if c in (x, y, "seed", "simulation"):
            continue
        n = _n_distinct(table[c])
        if n is None or n < 2:
            continue
        if c in params:
            out.append(c)
        elif _is_categorical(table[c]) and n <= MAX_LINES and _same_in_every_run(table, c, [*params, "seed"]):
            out.append(c)
    return out


def _panels(table: pd.DataFrame, others: list[str]) -> tuple[str | None, list[str]]:
    """(the column to split into panels or None, the columns left for lines in each panel)."""
    n_lines = len(table.groupby(others, dropna=False)) if others else 1
    if n_lines <= MAX_LINES:
        return None, others
    for c in others:
        rest = [o for o in others if o != c]
        per_panel = max(
            (len(g.groupby(rest, dropna=False)) if rest else 1 for _, g in table.groupby(c, dropna=False)),
            default=1,
        )
        if (_n_distinct(table[c]) or 0) <= MAX_PANELS and per_panel <= MAX_LINES:
            return c, rest
    raise ValueError(
        f"the plot would draw {n_lines} lines (one per combination of {', '.join(others)}), too many to read; "
        f"fix some of these parameters in the sweep, or choose the axes with --x/--y"
    )


def plot_table(
    table: pd.DataFrame,
    *,
    sim: Simulation | None = None,
    x: str | None = None,
    y: str | None = None,
    logx: bool = False,
    logy: bool = False,
) -> Any:
    """Plot a run or sweep: the simulation's own ``plot`` when it has one, else ``y`` vs ``x``.

    The default plot shows the mean over seeds with a band of one standard deviation, one line per
    combination of the values of the other varying parameters and of the design columns (see
    :func:`line_columns`); past ``MAX_LINES`` lines it draws one panel per value of one of them.
    """
    fig = new_figure()
    if sim is not None and sim.plot is not None and x is None and y is None:
        sim.plot(table, fig)
        if not fig.get_suptitle():  # a figure says what it shows
            fig.suptitle(sim.name, fontsize="medium")
        return fig
    params = list(sim.params.model_fields) if sim is not None else []
    varying = [p for p in params if p in table.columns and (_n_distinct(table[p]) or 0) > 1]
    x = x or (varying[0] if varying else ("step" if "step" in table.columns else None))
    if x is None or x not in table.columns:
        raise ValueError(f"choose an x column to plot (columns: {', '.join(map(str, table.columns))})")
    candidates = _numeric_columns(table, [*params, "seed", x])
    y = y or (candidates[0] if candidates else None)
    if y is None or y not in table.columns:
        raise ValueError(f"choose a y column to plot (numeric columns: {', '.join(candidates)})")
    table, left_out = _drop_censored(table)
    others = line_columns(table, params=params, x=x, y=y)
    facet, others = _panels(table, others)
    panels = list(table.groupby(facet, dropna=False, sort=True)) if facet else [(None, table)]
    ncols = min(3, len(panels))
    nrows = -(-len(panels) // ncols)
    if facet:
        fig.set_size_inches(4.2 * ncols, 3.2 * nrows)
    axes = fig.subplots(nrows, ncols, squeeze=False, sharex=True, sharey=True)
    seeds = "seed" in table.columns and table["seed"].nunique() > 1
    for k, (value, part) in enumerate(panels):
        ax = axes[k // ncols][k % ncols]
        _draw_lines(ax, part, others, x, y)
        if facet:
            ax.set_title(f"{facet}={value}", fontsize="small")
        if k // ncols == nrows - 1 or k + ncols >= len(panels):  # labels on the outer panels only
            ax.set_xlabel(x)
            ax.xaxis.set_tick_params(labelbottom=True)  # no panel below to show the shared ticks
        if k % ncols == 0:
            ax.set_ylabel(y + (" (mean ± sd over seeds)" if seeds else ""))
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        if others or not facet:
            ax.legend(fontsize="x-small")
    for k in range(len(panels), nrows * ncols):
        axes[k // ncols][k % ncols].set_visible(False)
    if sim is not None:
        fig.suptitle(sim.name)
    if left_out:
        fig.text(0.01, 0.005, left_out, fontsize="x-small", ha="left", va="bottom")
    return fig


def _draw_lines(ax: Any, table: pd.DataFrame, others: list[str], x: str, y: str) -> None:
    groups = table.groupby(others, dropna=False, sort=True) if others else [((), table)]
    for key, group in groups:
        stats = group.groupby(x)[y].agg(["mean", "std"]).reset_index().sort_values(x)
        label = ", ".join(f"{k}={v}" for k, v in zip(others, key if isinstance(key, tuple) else (key,))) or y
        ax.plot(stats[x], stats["mean"], marker="o", label=label)
        if stats["std"].notna().any():
            ax.fill_between(
                stats[x],
                stats["mean"] - stats["std"].fillna(0),
                stats["mean"] + stats["std"].fillna(0),
                alpha=0.2,
            )


def _drop_censored(table: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The rows a mean may use, and a note saying how many censored rows were left out, by status."""
    from toolkit.censoring import CENSORED, STATUS_COLUMN

    if STATUS_COLUMN not in table.columns:
        return table, ""
    censored = table[STATUS_COLUMN].isin(CENSORED)
    if not censored.any():
        return table, ""
    counts = table.loc[censored, STATUS_COLUMN].value_counts()
    parts = ", ".join(f"{k} {s}" for s, k in counts.items())
    return table[~censored], f"left out: {parts} of {len(table)} rows (not in the means)"


def outcome_figure(name: str, plot: Any) -> Any:
    """An experiment's figure: its own ``plot``, with the experiment's name above it when the plot gave
    the figure no title (a figure in a report must say what it shows)."""
    fig = new_figure()
    plot(fig)
    if not fig.get_suptitle():
        fig.suptitle(name, fontsize="medium")
    return fig


__all__ = ["MAX_LINES", "MAX_PANELS", "line_columns", "new_figure", "outcome_figure", "plot_table"]
