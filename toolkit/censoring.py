"""Censored and failed measurements: a status column, NaN values, and summaries that say what happened.

A measurement that did not finish normally (a run stopped at its iteration cap, a run that stalled,
diverged or raised, a prediction set that is infinite) is never a number in a mean. The convention:

- the row keeps its place in the table, its value is NaN, and a ``status`` column says why
  (:data:`OK`, :data:`CAPPED`, :data:`STALLED`, :data:`DIVERGED`, :data:`INFINITE`, :data:`FAILED`);
  a capped row also records the cap it hit, so that a summary can say "at least the cap";
- a summary (:func:`summarize`) takes the median and mean over the ``ok`` rows only, counts the
  others by status with their share, and, when some rows are capped, gives lower bounds: replacing
  each capped value by its cap can only lower an order statistic or a mean, so the true median is at
  least the median computed that way.

::

    from toolkit.censoring import CAPPED, OK, summarize

    s = summarize([120, 150, None], status=[OK, OK, CAPPED], cap=1000)
    s.text()   # 'median >= 150 (2 of 3 ok; 1 capped (33%) at 1000)'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CAPPED",
    "CENSORED",
    "DIVERGED",
    "FAILED",
    "INFINITE",
    "MISSING",
    "OK",
    "STALLED",
    "STATUSES",
    "STATUS_COLUMN",
    "CensoredSummary",
    "censor",
    "from_codes",
    "summarize",
    "summarize_table",
]

STATUS_COLUMN = "status"
"""The column that says how each row's measurement ended."""

OK = "ok"
"""The measurement finished normally: its value is a number that may enter a mean."""
CAPPED = "capped"
"""Stopped at a budget (iterations, time, samples) before it finished: the true value is at least the cap."""
STALLED = "stalled"
"""Stopped changing without finishing (it would never finish): no value."""
DIVERGED = "diverged"
"""Blew up (overflow, infinite loss): no value."""
INFINITE = "infinite"
"""The measured quantity is infinite (an unbounded prediction set): left out of a mean, counted beside it."""
FAILED = "failed"
"""The computation raised: no value."""
MISSING = "missing"
"""Never ran (a sweep point not in the store)."""

STATUSES: tuple[str, ...] = (OK, CAPPED, STALLED, DIVERGED, INFINITE, FAILED, MISSING)
CENSORED: tuple[str, ...] = STATUSES[1:]
"""Every status but :data:`OK`."""


def _check_status(value: Any, where: str) -> str:
    if value not in STATUSES:
        raise ValueError(f"{where}: status {value!r} is not one of {', '.join(STATUSES)}")
    return str(value)


def _float(value: Any) -> float:
    if value is None:
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def from_codes(
    values: Iterable[Any], codes: Mapping[Any, str], *, ok: str = OK
) -> tuple[list[float], list[str]]:
    """Turn sentinel codes into NaN values and a status list.

    ``from_codes([12, -1, 30, -3], {-1: CAPPED, -3: STALLED})`` gives
    ``([12.0, nan, 30.0, nan], ['ok', 'capped', 'ok', 'stalled'])``.
    """
    for code, status in codes.items():
        _check_status(status, f"codes[{code!r}]")
    out_values: list[float] = []
    out_status: list[str] = []
    for v in values:
        key = v.item() if hasattr(v, "item") else v
        if key in codes:
            out_values.append(math.nan)
            out_status.append(codes[key])
        else:
            out_values.append(_float(v))
            out_status.append(ok)
    return out_values, out_status


def censor(values: Iterable[Any], status: Iterable[Any]) -> list[float]:
    """The values with NaN wherever the status is not :data:`OK` (what a table's column should hold)."""
    vals, stats = list(values), list(status)
    if len(vals) != len(stats):
        raise ValueError(f"values ({len(vals)}) and status ({len(stats)}) differ in length")
    return [
        _float(v) if _check_status(s, f"row {i}") == OK else math.nan
        for i, (v, s) in enumerate(zip(vals, stats))
    ]


def _median(xs: Sequence[float]) -> float:
    if not xs:
        return math.nan
    s = sorted(xs)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def _fmt(x: float) -> str:
    return f"{x:.4g}"


@dataclass(frozen=True)
class CensoredSummary:
    """An honest summary of one column: statistics over the ok rows, the others counted by status.

    ``median`` and ``mean`` are over the ok rows only (NaN when there are none).
    ``median_at_least`` and ``mean_at_least`` are set when some rows are capped and their caps are
    known: lower bounds on the median and mean of all ok-or-capped rows (each capped row counted at
    its cap). ``exact`` is True when every row is ok.
    """

    n: int
    n_ok: int
    counts: dict[str, int] = field(default_factory=dict)
    median: float = math.nan
    mean: float = math.nan
    median_at_least: float | None = None
    mean_at_least: float | None = None
    cap: float | None = None

    @property
    def n_censored(self) -> int:
        return self.n - self.n_ok

    @property
    def share_censored(self) -> float:
        return self.n_censored / self.n if self.n else math.nan

    @property
    def exact(self) -> bool:
        return self.n_censored == 0

    def share(self, status: str) -> float:
        """The share of rows with this status (0 when none)."""
        return self.counts.get(status, 0) / self.n if self.n else math.nan

    def text(self, stat: str = "median") -> str:
        """One line for a report: the statistic, a lower bound when capped, and what was left out.

        ``'median 135 (20 of 20 ok)'``; ``'median >= 150 (2 of 3 ok; 1 capped (33%) at 1000)'``;
        ``'median 135 over 18 of 20 ok; left out: 2 stalled (10%)'``.
        """
        if stat not in ("median", "mean"):
            raise ValueError(f"stat must be 'median' or 'mean', not {stat!r}")
        value = self.median if stat == "median" else self.mean
        bound = self.median_at_least if stat == "median" else self.mean_at_least
        parts = []
        for status in CENSORED:
            k = self.counts.get(status, 0)
            if k:
                at = f" at {_fmt(self.cap)}" if status == CAPPED and self.cap is not None else ""
                parts.append(f"{k} {status} ({100 * k / self.n:.0f}%){at}")
        if self.n == 0:
            return f"{stat}: no rows"
        if self.exact:
            return f"{stat} {_fmt(value)} ({self.n_ok} of {self.n} ok)"
        if bound is not None:
            return f"{stat} >= {_fmt(bound)} ({self.n_ok} of {self.n} ok; {'; '.join(parts)})"
        if self.n_ok == 0:
            return f"{stat}: none of {self.n} ok ({'; '.join(parts)})"
        if self.counts.get(CAPPED):  # capped, but the cap is unknown: no bound, say so
            return f"{stat} of ok rows {_fmt(value)}, not a bound ({self.n_ok} of {self.n} ok; {'; '.join(parts)})"
        return f"{stat} {_fmt(value)} over {self.n_ok} of {self.n} ok; left out: {'; '.join(parts)}"

    def as_dict(self, prefix: str = "") -> dict[str, Any]:
        """Flat summary fields for a run's summary or a table: ``<prefix>median``, ``<prefix>n_ok``..."""
        out: dict[str, Any] = {
            f"{prefix}median": self.median,
            f"{prefix}mean": self.mean,
            f"{prefix}n": self.n,
            f"{prefix}n_ok": self.n_ok,
            f"{prefix}n_censored": self.n_censored,
            f"{prefix}share_censored": self.share_censored,
        }
        for status in CENSORED:
            if self.counts.get(status):
                out[f"{prefix}n_{status}"] = self.counts[status]
        if self.median_at_least is not None:
            out[f"{prefix}median_at_least"] = self.median_at_least
            out[f"{prefix}mean_at_least"] = self.mean_at_least
        return out


def summarize(
    values: Iterable[Any],
    status: Iterable[Any] | None = None,
    *,
    cap: float | Iterable[Any] | None = None,
) -> CensoredSummary:
    """Summarise a column honestly.

    :param values: the measurements (NaN, None or anything for the rows that are not ok).
    :param status: one of :data:`STATUSES` per value. Without it, finite values are ok, infinite
        values :data:`INFINITE` and NaN or None :data:`FAILED`.
    :param cap: the cap of the capped rows, one number or one per row; with it the summary gives
        lower bounds (``median_at_least``, ``mean_at_least``).
    :raises ValueError: a status outside :data:`STATUSES`, lengths that differ, or an ok row whose
        value is not a finite number.
    """
    vals = [_float(v) for v in values]
    if status is None:
        stats = [OK if math.isfinite(v) else (INFINITE if math.isinf(v) else FAILED) for v in vals]
    else:
        stats = [_check_status(s, f"row {i}") for i, s in enumerate(status)]
    if len(stats) != len(vals):
        raise ValueError(f"values ({len(vals)}) and status ({len(stats)}) differ in length")
    if cap is None or isinstance(cap, (int, float)):
        caps = [None if cap is None else float(cap)] * len(vals)
    else:
        caps = [None if c is None or not math.isfinite(_float(c)) else _float(c) for c in cap]
        if len(caps) != len(vals):
            raise ValueError(f"values ({len(vals)}) and cap ({len(caps)}) differ in length")
    ok = []
    for i, (v, s) in enumerate(zip(vals, stats)):
        if s == OK:
            if not math.isfinite(v):
                raise ValueError(f"row {i}: status ok but value {v} is not a finite number")
            ok.append(v)
    counts: dict[str, int] = {}
    for s in stats:
        counts[s] = counts.get(s, 0) + 1
    capped_caps = [c for s, c in zip(stats, caps) if s == CAPPED]
    median_lb = mean_lb = None
    shown_cap = None
    if capped_caps and all(c is not None for c in capped_caps):
        floor = ok + [float(c) for c in capped_caps if c is not None]
        median_lb, mean_lb = _median(floor), sum(floor) / len(floor)
        distinct = {c for c in capped_caps}
        shown_cap = capped_caps[0] if len(distinct) == 1 else None
    return CensoredSummary(
        n=len(vals),
        n_ok=len(ok),
        counts=counts,
        median=_median(ok),
        mean=sum(ok) / len(ok) if ok else math.nan,
        median_at_least=median_lb,
        mean_at_least=mean_lb,
        cap=shown_cap,
    )


def summarize_table(
    table: Any,
    column: str,
    *,
    by: Sequence[str] = (),
    status: str = STATUS_COLUMN,
    cap: float | str | None = None,
) -> Any:
    """One row per group of ``by``: the :meth:`CensoredSummary.as_dict` fields of ``column`` and a ``summary`` text.

    ``status`` names the status column (a table without it is summarised as in :func:`summarize`);
    ``cap`` is a number or the name of a column holding each row's cap.
    """
    import pandas as pd

    for name in [column, *by] + ([cap] if isinstance(cap, str) else []):
        if name not in table.columns:
            raise ValueError(f"no column {name!r} (columns: {', '.join(map(str, table.columns))})")
    groups = table.groupby(list(by), dropna=False, sort=True) if by else [((), table)]
    rows = []
    for key, group in groups:
        s = summarize(
            group[column].tolist(),
            group[status].tolist() if status in group.columns else None,
            cap=group[cap].tolist() if isinstance(cap, str) else cap,
        )
        keys = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(by, keys)), **s.as_dict(f"{column}_"), "summary": s.text()})
    return pd.DataFrame(rows)
