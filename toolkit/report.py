"""``toolkit reproduce``: run every headline experiment (one after the other, or on the sweeps' process
pool with ``jobs``), prove the bounds, and write the report.

The figures are drawn by :mod:`toolkit.report_figures` and the page written by
:mod:`toolkit.report_document`; their names stay importable from here.
"""

from __future__ import annotations

import concurrent.futures as cf
import time
import traceback
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from toolkit.manager import get_plugin_manager
from toolkit.proving import prove_bounds
from toolkit.registry import Registry
from toolkit.report_document import (
    ExperimentReport,
    markdown_to_html,
    missed_claims,
    outcome_counts,
    write_report,
)
from toolkit.report_figures import MAX_LINES, MAX_PANELS, line_columns, new_figure, outcome_figure, plot_table
from toolkit.specs import Dataset, Experiment, ExperimentOutcome


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
        # warnings go into the report, counted, instead of interleaving with the console's progress lines
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
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
    rep.warnings = distinct_warnings(caught)
    outcome.table.to_csv(out_dir / f"{stem}.csv", index=False)
    rep.csv = f"{stem}.csv"
    if outcome.plot is not None:
        try:
            fig = outcome_figure(exp.name, outcome.plot)
            fig.savefig(out_dir / f"{stem}.png", dpi=110)
            rep.figure = f"{stem}.png"
        except Exception:
            rep.error = "figure failed:\n" + traceback.format_exc()
    return rep


def distinct_warnings(caught: Sequence[warnings.WarningMessage]) -> list[str]:
    """One line per distinct warning (its category and the message's first line), with its count."""
    counts: dict[str, int] = {}
    for w in caught:
        first = str(w.message).strip().splitlines()[0] if str(w.message).strip() else ""
        key = f"{w.category.__name__}: {first}"
        counts[key] = counts.get(key, 0) + 1
    return [key if n == 1 else f"{key} (x{n})" for key, n in counts.items()]


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
                + (f" ({len(rep.warnings)} distinct warnings, listed in the report)" if rep.warnings else "")
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
    echo(
        f"[reproduce] {len(experiments)} experiments ({'quick' if quick else 'full'})"
        f"{' and the bounds' if prove else ''} on {jobs} processes ..."
    )
    reports, verdicts = _run_on_pool(
        experiments, quick, out_dir, jobs, tuple(disable), prove, prove_plugins, done, echo
    )
    _dedupe_tables(reports, out_dir)
    return reports, verdicts


def _run_on_pool(
    experiments: Sequence[Experiment],
    quick: bool,
    out_dir: Path,
    jobs: int,
    disable: tuple[str, ...],
    prove: bool,
    prove_plugins: Sequence[str],
    done: Any,
    echo: Any,
) -> tuple[list[ExperimentReport], pd.DataFrame | None]:
    """The experiments (and the proofs) on the sweeps' process pool (:func:`toolkit.executors.process_pool`:
    its start method, one BLAS thread per worker, workers that ignore Ctrl-C and die with this process).
    Ctrl-C stops the running experiments at once: nothing of a half-run experiment is kept."""
    from toolkit.executors import FuturesExecutor, process_pool

    ex = FuturesExecutor(process_pool(jobs), owned=True, name="processes")
    by_name: dict[str, ExperimentReport] = {}
    try:
        proof = ex.submit(_prove_all, disable, tuple(prove_plugins)) if prove else None  # the longest first
        futures = {ex.submit(_execute_by_name, e.name, quick, out_dir, disable): e for e in experiments}
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
    except BaseException:
        ex.terminate()  # Ctrl-C or a broken pool: stop the workers now instead of waiting for them
        raise
    finally:
        ex.close()
    return [by_name[e.name] for e in experiments], verdicts


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


__all__ = [
    "MAX_LINES",
    "MAX_PANELS",
    "ExperimentReport",
    "execute_experiment",
    "line_columns",
    "markdown_to_html",
    "missed_claims",
    "new_figure",
    "outcome_counts",
    "outcome_figure",
    "plot_table",
    "reproduce",
    "run_experiments",
    "write_report",
]
