"""Plots (matplotlib, headless) and the reproduction report (Markdown or HTML with figures)."""

from __future__ import annotations

import html
import time
import traceback
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from toolkit.manager import get_plugin_manager
from toolkit.proving import prove_bounds, summary_line
from toolkit.registry import Registry
from toolkit.specs import Comparison, Dataset, Experiment, ExperimentOutcome, Simulation


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
        ax.set_xlabel(x)
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


@dataclass
class ExperimentReport:
    """What one experiment produced, as written into the report (picklable: no figures or closures)."""

    name: str
    description: str
    seconds: float
    comparisons: list[Comparison] = field(default_factory=list)
    notes: str = ""
    n_rows: int = 0
    figure: str = ""
    csv: str = ""
    error: str = ""
    skipped: str = ""  # why it did not run (its data is missing), with the command that fetches the data

    @property
    def failed(self) -> bool:
        return bool(self.error) and not self.csv and not self.skipped


def _markdown_table(df: pd.DataFrame, max_rows: int = 30) -> str:
    if df.empty:
        return "(empty)\n"
    shown = df.head(max_rows)
    cols = [str(c) for c in shown.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in shown.itertuples(index=False):
        cells = [f"{v:.4g}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    if len(df) > max_rows:
        lines.append(f"\n({len(df) - max_rows} more rows in the CSV)")
    return "\n".join(lines) + "\n"


def execute_experiment(
    exp: Experiment, quick: bool, out_dir: Path, datasets: Mapping[str, Dataset] | None = None
) -> ExperimentReport:
    """Run one experiment; save its table (CSV) and figure (PNG); never raises.

    An experiment whose data is missing (a :class:`~toolkit.errors.DatasetMissingError` anywhere in
    the exception's chain) is reported as skipped, with the command that fetches the data.
    """
    from toolkit.data import missing_dataset, skip_reason

    start = time.perf_counter()
    try:
        outcome = exp.run(quick)
        if not isinstance(outcome, ExperimentOutcome):
            raise TypeError(f"experiment {exp.name} returned {type(outcome).__name__}, not ExperimentOutcome")
    except Exception as exc:
        missing = missing_dataset(exc)
        if missing is not None:
            return ExperimentReport(
                exp.name, exp.description, time.perf_counter() - start, skipped=skip_reason(missing, datasets)
            )
        return ExperimentReport(
            exp.name, exp.description, time.perf_counter() - start, error=traceback.format_exc()
        )
    seconds = time.perf_counter() - start
    stem = exp.name.replace("/", "_")
    rep = ExperimentReport(
        exp.name, exp.description, seconds, list(outcome.comparisons), outcome.notes, len(outcome.table)
    )
    outcome.table.to_csv(out_dir / f"{stem}.csv", index=False)
    rep.csv = f"{stem}.csv"
    if outcome.plot is not None:
        try:
            fig = new_figure()
            outcome.plot(fig)
            fig.savefig(out_dir / f"{stem}.png", dpi=110)
            rep.figure = f"{stem}.png"
        except Exception:
            rep.error = "figure failed:\n" + traceback.format_exc()
    return rep


def _execute_by_name(name: str, quick: bool, out_dir: Path, disable: tuple[str, ...]) -> ExperimentReport:
    """Worker side of parallel reproduction: rebuild the registry, run the experiment by name."""
    from toolkit.backend import set_threads

    set_threads(1)
    registry = Registry.from_manager(get_plugin_manager(disable=disable))
    return execute_experiment(registry.experiment(name), quick, out_dir, registry.datasets)


def _prove_all(disable: tuple[str, ...], plugins: tuple[str, ...] = ()) -> pd.DataFrame:
    """Worker side: the verdicts of every registered bound (or of ``plugins``' bounds)."""
    return prove_bounds(Registry.from_manager(get_plugin_manager(disable=disable)), plugins=plugins)


def _dedupe_tables(reports: Sequence[ExperimentReport], out_dir: Path) -> None:
    """Keep one CSV of a table several experiments returned; the others point to it."""
    import hashlib

    first: dict[str, str] = {}
    for rep in reports:
        if not rep.csv or not (out_dir / rep.csv).is_file():
            continue
        digest = hashlib.sha256((out_dir / rep.csv).read_bytes()).hexdigest()
        if digest in first:
            (out_dir / rep.csv).unlink()
            rep.csv = first[digest]
        else:
            first[digest] = rep.csv


def run_experiments(
    experiments: Sequence[Experiment],
    *,
    quick: bool,
    out_dir: Path,
    echo: Any = print,
    jobs: int = 1,
    disable: Sequence[str] = (),
    prove: bool = False,
    registry: Registry | None = None,
    prove_plugins: Sequence[str] = (),
) -> tuple[list[ExperimentReport], pd.DataFrame | None]:
    """Run each experiment (``jobs`` at a time), saving tables and figures under ``out_dir``.

    A failing experiment is reported (with its traceback) and the others still run. With ``prove``
    the verdicts of all bounds (or of ``prove_plugins``' bounds) are computed too (alongside the
    experiments when ``jobs > 1``) and returned second; otherwise None. A table that several
    experiments return is saved once.
    """
    out_dir.mkdir(parents=True, exist_ok=True)

    datasets = registry.datasets if registry is not None else None

    def done(rep: ExperimentReport) -> ExperimentReport:
        if rep.skipped:
            echo(f"[reproduce] {rep.name} SKIPPED: {rep.skipped}")
        elif rep.failed:
            echo(f"[reproduce] {rep.name} FAILED after {rep.seconds:.1f} s")
        else:
            judged = [c for c in rep.comparisons if c.ok is not None]
            echo(
                f"[reproduce] {rep.name} done in {rep.seconds:.1f} s: {sum(1 for c in judged if c.ok)}/{len(judged)} claims met"
            )
        return rep

    if jobs <= 1:
        reports = []
        for exp in experiments:
            echo(f"[reproduce] {exp.name} ({'quick' if quick else 'full'}) ...")
            reports.append(done(execute_experiment(exp, quick, out_dir, datasets)))
        verdicts = None
        if prove:
            echo("[reproduce] proving bounds ...")
            verdicts = (
                prove_bounds(registry, plugins=tuple(prove_plugins))
                if registry is not None
                else _prove_all(tuple(disable), tuple(prove_plugins))
            )
        _dedupe_tables(reports, out_dir)
        return reports, verdicts
    import concurrent.futures as cf
    import multiprocessing

    echo(
        f"[reproduce] {len(experiments)} experiments ({'quick' if quick else 'full'})"
        f"{' and the bounds' if prove else ''} on {jobs} processes ..."
    )
    by_name: dict[str, ExperimentReport] = {}
    ctx = multiprocessing.get_context("forkserver")
    with cf.ProcessPoolExecutor(jobs, mp_context=ctx) as pool:
        proof = (
            pool.submit(_prove_all, tuple(disable), tuple(prove_plugins)) if prove else None
        )  # the longest task goes first
        futures = {
            pool.submit(_execute_by_name, e.name, quick, out_dir, tuple(disable)): e for e in experiments
        }
        for fut in cf.as_completed(futures):
            exp = futures[fut]
            try:
                by_name[exp.name] = done(fut.result())
            except Exception:
                by_name[exp.name] = done(
                    ExperimentReport(exp.name, exp.description, 0.0, error=traceback.format_exc())
                )
        verdicts = proof.result() if proof is not None else None
        if proof is not None:
            echo("[reproduce] bounds proved")
    reports = [by_name[e.name] for e in experiments]
    _dedupe_tables(reports, out_dir)
    return reports, verdicts


def outcome_counts(reports: Sequence[ExperimentReport]) -> str:
    """``"7 experiments: 5 ran, 2 skipped (data missing), 0 failed; claims: 40 met, 3 missed (2 documented,
    1 unexpected)"``."""
    skipped = sum(1 for r in reports if r.skipped)
    failed = sum(1 for r in reports if r.failed)
    judged = [c for r in reports for c in r.comparisons if c.ok is not None]
    missed = [c for c in judged if not c.ok]
    documented = sum(1 for c in missed if c.documented)
    return (
        f"{len(reports)} experiments: {len(reports) - skipped - failed} ran, {skipped} skipped (data missing), "
        f"{failed} failed; claims: {len(judged) - len(missed)} met, {len(missed)} missed "
        f"({documented} documented, {len(missed) - documented} unexpected)"
    )


def missed_claims(reports: Sequence[ExperimentReport]) -> list[str]:
    """One line per missed claim: the experiment, the claim, and ``documented: <reason>`` or ``unexpected``."""
    return [
        f"{r.name}: {c.claim} (paper {c.paper}, measured {c.measured}): "
        + (f"documented: {c.documented}" if c.documented else "unexpected")
        for r in reports
        for c in r.comparisons
        if c.ok is False
    ]


def _comparisons_frame(comparisons: Sequence[Comparison]) -> pd.DataFrame:
    rows = [
        {
            "claim": c.claim,
            "paper": c.paper,
            "measured": c.measured,
            "met": "yes" if c.ok else ("no" if c.ok is False else "n/a"),
            "miss": ("documented: " + c.documented if c.documented else "unexpected")
            if c.ok is False
            else "",
        }
        for c in comparisons
    ]
    return pd.DataFrame(rows, columns=["claim", "paper", "measured", "met", "miss"])


def write_report(
    reports: Sequence[ExperimentReport],
    verdicts: pd.DataFrame,
    *,
    quick: bool,
    out_dir: Path,
    fmt: str = "md",
    plugins: Sequence[str] = (),
) -> Path:
    """Write ``report.md`` (or ``report.html``) into ``out_dir`` and return its path."""
    total = sum(r.seconds for r in reports)
    lines = [
        "# Reproduction report",
        "",
        f"Setting: {'quick' if quick else 'full'}; {outcome_counts(reports)}; {total:.1f} s; "
        f"plugins: {', '.join(plugins) or 'none'}; written {time.strftime('%Y-%m-%d %H:%M:%S')}.",
        "",
    ]
    if not reports:
        lines += ["No experiments are registered (install or enable a plugin that registers some).", ""]
    lines += ["## Summary", "", "| experiment | seconds | claims met | status |", "|---|---|---|---|"]
    for r in reports:
        if r.skipped:
            lines.append(f"| {r.name} | {r.seconds:.1f} | - | skipped (data missing) |")
            continue
        if r.failed:
            lines.append(f"| {r.name} | {r.seconds:.1f} | - | FAILED |")
            continue
        judged = [c for c in r.comparisons if c.ok is not None]
        met = sum(1 for c in judged if c.ok)
        missed = [c for c in judged if not c.ok]
        status = "ok"
        if missed:
            unexpected = sum(1 for c in missed if not c.documented)
            status = f"{len(missed)} missed ({len(missed) - unexpected} documented, {unexpected} unexpected)"
        lines.append(f"| {r.name} | {r.seconds:.1f} | {met}/{len(judged)} | {status} |")
    lines.append("")
    for r in reports:
        lines += [f"## {r.name}", "", r.description, ""]
        if r.skipped:
            lines += [f"**Skipped:** {r.skipped}", ""]
            continue
        if r.failed:
            lines += ["**Failed:**", "", "```", r.error.strip(), "```", ""]
            continue
        lines += ["### Paper vs measured", "", _markdown_table(_comparisons_frame(r.comparisons)), ""]
        if r.figure:
            lines += [f"![{r.name}]({r.figure})", ""]
        if r.notes:
            lines += [r.notes, ""]
        lines += [f"Table: [{r.csv}]({r.csv}) ({r.n_rows} rows).", ""]
        if r.error:
            lines += ["```", r.error.strip(), "```", ""]
    lines += ["## Verdicts of all bounds", ""]
    if len(verdicts):
        lines += [
            summary_line(verdicts) + ". `expected` is the verdict the claim's author expects: a claim "
            "stated to show that something fails is expected `refuted`.",
            "",
        ]
        shown = verdicts.drop(
            columns=[
                c for c in ("as_expected", "n_points", "description", "timed_out") if c in verdicts.columns
            ]
        )
        lines += [_markdown_table(shown, max_rows=500)]
        if "description" in verdicts.columns:
            meant = verdicts[verdicts["expected"] != "proved"]
            if len(meant):
                lines += ["Claims not expected to be proved, in their authors' words:", ""]
                lines += [
                    f"- `{r.bound}` / `{r.claim}` (expected {r.expected}): {r.description or '(no description)'}"
                    for r in meant.itertuples()
                ]
                lines.append("")
    else:
        lines += ["(no claims registered)\n"]
    text = "\n".join(lines)
    out_dir.mkdir(parents=True, exist_ok=True)
    if fmt == "md":
        path = out_dir / "report.md"
        path.write_text(text)
        return path
    path = out_dir / "report.html"
    path.write_text(markdown_to_html(text))
    return path


def markdown_to_html(text: str) -> str:
    """The small Markdown subset the report uses (headings, tables, images, code) as HTML."""
    import re

    out = [
        "<!doctype html><html><head><meta charset='utf-8'><title>Reproduction report</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:3px 6px;font-size:90%}img{max-width:100%}</style></head><body>",
    ]
    in_code = False
    table: list[list[str]] = []

    def flush() -> None:
        if table:
            out.append("<table><tr>" + "".join(f"<th>{c}</th>" for c in table[0]) + "</tr>")
            out.extend("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in table[1:])
            out.append("</table>")
            table.clear()

    for line in text.splitlines():
        if line.startswith("```"):
            flush()
            out.append("</pre>" if in_code else "<pre>")
            in_code = not in_code
            continue
        if in_code:
            out.append(html.escape(line))
            continue
        if line.startswith("|"):
            cells = [html.escape(c.strip()) for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= {"-"} for c in cells):
                table.append(cells)
            continue
        flush()
        if m := re.match(r"^(#+) (.*)", line):
            level = len(m.group(1))
            out.append(f"<h{level}>{html.escape(m.group(2))}</h{level}>")
        elif m := re.match(r"^!\[(.*)\]\((.*)\)$", line):
            out.append(f"<p><img alt='{html.escape(m.group(1))}' src='{html.escape(m.group(2))}'></p>")
        elif line.strip():
            line = re.sub(
                r"\[([^\]]+)\]\(([^)]+)\)",
                lambda mm: f"<a href='{mm.group(2)}'>{mm.group(1)}</a>",
                html.escape(line),
            )
            out.append(f"<p>{line}</p>")
    flush()
    out.append("</body></html>")
    return "\n".join(out)


def reproduce(
    registry: Registry,
    *,
    quick: bool = True,
    out_dir: str | Path = "reproduction",
    fmt: str = "md",
    only: Sequence[str] = (),
    echo: Any = print,
    jobs: int = 1,
    disable: Sequence[str] = (),
) -> tuple[Path, list[ExperimentReport]]:
    """Run all (or ``only`` the named) experiments and write the report; returns its path.

    With ``only``, the bounds proved are those of the named experiments' plugins.
    """
    if fmt not in ("md", "html"):
        from toolkit.errors import ParameterError

        raise ParameterError(f"--format must be 'md' or 'html', got {fmt!r}")
    out = Path(out_dir)
    experiments = [registry.experiment(n) for n in only] if only else list(registry.experiments.values())
    # --only: the bounds of the named experiments' plugins, not every bound of every plugin
    prove_plugins = sorted({e.plugin or e.name.split(".", 1)[0] for e in experiments}) if only else []
    reports, verdicts = run_experiments(
        experiments,
        quick=quick,
        out_dir=out,
        echo=echo,
        jobs=jobs,
        disable=disable,
        prove=True,
        registry=registry,
        prove_plugins=prove_plugins,
    )
    plugins = [p for p, i in registry.manager.plugin_infos.items() if i.status == "loaded"]
    return write_report(reports, verdicts, quick=quick, out_dir=out, fmt=fmt, plugins=plugins), reports
