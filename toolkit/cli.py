"""The ``toolkit`` command line: plugins, list, show, run, sweep, prove, check, export, report, reproduce.

User errors (unknown names, bad parameters, a corrupt store) exit with status 2 and a one-paragraph
message, before any work; Ctrl-C during a sweep exits with 130 after saying what was kept; a sweep
with failed points, or whose executor broke, exits with 1 after storing what finished.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from toolkit import __version__
from toolkit.errors import ToolkitError, UserError

if TYPE_CHECKING:  # the registry imports pydantic: not for --help and list
    from toolkit.registry import Registry

_ROWS_SHOWN = 20
_INSTALL_PLUGINS = (
    "Plugins are distributions of their own: install one with `pip install theory-toolkit-langgen` "
    "(from a checkout: `pip install ./plugins/langgen`); `toolkit plugins` lists what is found."
)


class _State:
    """What the group's options resolved to, shared with every sub-command."""

    def __init__(self, disable: tuple[str, ...], store: str | None) -> None:
        self.disable = disable
        self.store = store
        self._registry: Registry | None = None

    @property
    def registry(self) -> Any:
        if self._registry is None:
            import warnings

            from toolkit.manager import get_plugin_manager
            from toolkit.registry import Registry

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                pm = get_plugin_manager(disable=self.disable)
            for w in caught:
                click.echo(f"warning: {w.message}", err=True)
            self._registry = Registry.from_manager(pm)
        return self._registry

    def store_path(self) -> Path:
        return Path(self.store) if self.store else self.registry.manager.settings.store_path


def _disabled(values: tuple[str, ...]) -> tuple[str, ...]:
    out = []
    for v in values:
        if not v.startswith("no:"):
            raise click.BadParameter(f"expected no:NAME to disable plugin NAME, got {v!r}", param_hint="-p")
        out.append(v[3:])
    return tuple(out)


class ToolkitGroup(click.Group):
    """A group that adds plugin commands (``toolkit_register_commands``) when they are asked for."""

    def _plugin_commands(self, ctx: click.Context) -> click.Group:
        holder = click.Group("plugin-commands")
        if ctx.obj is None:
            ctx.obj = _State(
                _disabled(ctx.params.get("plugin_opts", ())) + tuple(ctx.params.get("disable", ())),
                ctx.params.get("store"),
            )
        try:
            ctx.obj.registry.manager.hook.toolkit_register_commands(cli=holder)
        except ToolkitError:
            pass
        return holder

    def list_commands(self, ctx: click.Context) -> list[str]:
        # the built-in commands only: listing the plugins' would load every plugin for `--help`;
        # `toolkit plugins --commands` lists those (and `toolkit NAME` runs one)
        return sorted(super().list_commands(ctx))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        cmd = super().get_command(ctx, name)
        if cmd is not None:
            return cmd
        return self._plugin_commands(ctx).commands.get(name)


@click.group(
    cls=ToolkitGroup,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
    epilog="Commands added by plugins are not listed here: see `toolkit plugins --commands`.",
)
@click.option(
    "-p",
    "plugin_opts",
    multiple=True,
    metavar="no:NAME",
    help="Disable plugin NAME (repeatable); TOOLKIT_DISABLE_PLUGINS=a,b does the same.",
)
@click.option("--disable", multiple=True, metavar="NAME", help="Disable plugin NAME (repeatable).")
@click.option(
    "--store",
    type=click.Path(dir_okay=False),
    default=None,
    help="Run store file (default: TOOLKIT_STORE or ~/.cache/theory-toolkit/runs.sqlite).",
)
@click.version_option(__version__, prog_name="theory-toolkit")
@click.pass_context
def cli(
    ctx: click.Context, plugin_opts: tuple[str, ...], disable: tuple[str, ...], store: str | None
) -> None:
    """Seeded, cached, sweepable simulations and sympy-checked bounds from plugins."""
    if ctx.obj is None:
        ctx.obj = _State(_disabled(plugin_opts) + disable, store)


def _echo_table(df: Any, rows: int = _ROWS_SHOWN) -> None:
    import pandas as pd

    with pd.option_context("display.width", _terminal_width(), "display.max_columns", 30):
        click.echo(df.head(rows).to_string(index=False))
    if len(df) > rows:
        click.echo(f"... {len(df) - rows} more rows (use --out FILE to save all)")


_CELL_CHARS = 40  # a longer cell (a parameter holding a whole JSON document) is cut on screen; --out keeps it


def _full_text(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _cell_text(value: Any) -> str:
    text = _full_text(value)
    return text if len(text) <= _CELL_CHARS else text[: _CELL_CHARS - 3] + "..."


def _terminal_width() -> int:
    import shutil

    return max(40, shutil.get_terminal_size((100, 24)).columns)


def _echo_wrapped(text: str, indent: int, width: int | None = None) -> None:
    """``text`` (whose first ``indent`` characters are a left column) wrapped to the terminal's width."""
    width = width or _terminal_width()
    if len(text) <= width:
        click.echo(text)
        return
    if indent >= width - 20:  # a narrow terminal: the right column goes under the left one
        click.echo(text[:indent].rstrip())
        text, indent = " " * 6 + text[indent:].lstrip(), 6
    lines = textwrap.wrap(text[indent:], width=width - indent, break_on_hyphens=False) or [""]
    click.echo(text[:indent] + lines[0])
    for line in lines[1:]:
        click.echo(" " * indent + line)


def _echo_paragraphs(text: str) -> None:
    """Docs wrapped to the terminal's width, keeping their line breaks and indented blocks."""
    width = _terminal_width()
    for line in (text or "").splitlines():
        body = line.lstrip()
        _echo_wrapped(line, len(line) - len(body), width)


def _echo_rows(rows: list[dict[str, Any]], limit: int | None = None, whole_last: bool = False) -> None:
    """Dicts as an aligned text table, without pandas (its import would dominate `show` and a cached `run`).

    The last column wraps to the terminal's width. Cells are cut to a cell's width, except, with ``whole_last``,
    those of the last column (a description, shown whole)."""
    if not rows:
        return
    shown = rows if limit is None else rows[:limit]
    columns = list(dict.fromkeys(c for row in shown for c in row))
    cells = [[_cell_text(row.get(c, "")) for c in columns] for row in shown]
    if whole_last:
        for line, row in zip(cells, shown, strict=True):
            line[-1] = _full_text(row.get(columns[-1], ""))
    widths = [max(len(c), *(len(line[i]) for line in cells)) for i, c in enumerate(columns)]
    indent = sum(w + 2 for w in widths[:-1])
    for line in [columns, *cells]:
        _echo_wrapped("  ".join(v.ljust(w) for v, w in zip(line, widths)).rstrip(), indent)
    if len(rows) > len(shown):
        click.echo(f"... {len(rows) - len(shown)} more rows (use --out FILE to save all)")


def _save(df: Any, out: str | None) -> None:
    if not out:
        return
    from toolkit.export import export_table

    path = export_table(df, out)
    click.echo(f"wrote {path}")


def _check_out(out: str | None) -> None:
    """An unusable --out fails before any work, not after the sweep ran."""
    if out:
        from toolkit.export import check_output_path

        check_output_path(out)


def _format_summary(summary: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in summary.items())


# -- discovery ---------------------------------------------------------------------------------------


@cli.command("plugins")
@click.option("--commands", "commands", is_flag=True, help="List the commands the plugins add instead.")
@click.pass_context
def plugins_cmd(ctx: click.Context, commands: bool) -> None:
    """List plugins found in the toolkit.plugins entry-point group."""
    state: _State = ctx.obj
    if commands:
        group = ctx.parent.command if ctx.parent else None
        added = (
            group._plugin_commands(ctx.parent).commands
            if isinstance(group, ToolkitGroup) and ctx.parent
            else {}
        )
        for name, cmd in sorted(added.items()):
            click.echo(f"  {name:24s} {cmd.get_short_help_str(80)}")
        if not added:
            click.echo("no plugin adds a command")
        return
    infos = state.registry.manager.plugin_infos.values()
    counts: dict[str, int] = {}
    for summary in state.registry.summaries():  # builds nothing: no plugin module is imported
        counts[summary.plugin] = counts.get(summary.plugin, 0) + 1
    rows = [
        {
            "plugin": i.name,
            "distribution": i.distribution,
            "version": i.version,
            "status": i.status,
            "registered": counts.get(i.name, 0),
            "module": i.module,
        }
        for i in infos
    ]
    if not rows:
        click.echo("no plugins found in entry-point group toolkit.plugins. " + _INSTALL_PLUGINS)
        return
    _echo_rows(rows)
    for i in infos:
        if i.status == "failed":
            click.echo(f"\n{i.name} failed to import: {i.error}")


@cli.command("list")
@click.option(
    "--kind",
    type=click.Choice(["simulations", "bounds", "datasets", "experiments"]),
    default=None,
    help="Only this kind.",
)
@click.pass_obj
def list_cmd(state: _State, kind: str | None) -> None:
    """List registered simulations, bounds, datasets and experiments."""
    reg = state.registry
    summaries = reg.summaries()  # names and descriptions only: no plugin module is imported
    if not summaries and not kind:
        click.echo("nothing registered: no plugin is installed (or all are disabled). " + _INSTALL_PLUGINS)
        return
    for name in ("simulations", "bounds", "datasets", "experiments"):
        if kind and kind != name:
            continue
        shown = [s for s in summaries if s.kind + "s" == name]
        click.echo(f"{name} ({len(shown)}):")
        for spec in shown:
            _echo_wrapped(f"  {spec.name:40s} {spec.description}", 43)


@cli.command("show")
@click.argument("name")
@click.option(
    "--kind",
    type=click.Choice(["simulation", "bound", "dataset", "experiment"]),
    default=None,
    help="Only this kind (a plugin may give a dataset and a simulation the same name).",
)
@click.pass_obj
def show_cmd(state: _State, name: str, kind: str | None) -> None:
    """Show parameters (type, default, allowed range) and docs of a simulation, bound, dataset or experiment."""
    found = [state.registry.find(name, kind)] if kind else state.registry.find_all(name)
    for i, (found_kind, spec) in enumerate(found):
        if i:
            click.echo("\n" + "-" * 60 + "\n")
        _show_spec(found_kind, spec)


def _show_spec(kind: str, spec: Any) -> None:
    from toolkit.config import describe_params

    click.echo(f"{spec.name}  ({kind}, plugin {spec.plugin})\n")
    params = getattr(spec, "params", None)
    if params is not None:
        rows = [
            {
                "parameter": p.name,
                "type": p.type,
                "default": p.default,
                "allowed": p.allowed,
                "description": p.description,
            }
            for p in describe_params(params)
        ]
        click.echo("parameters:")
        _echo_rows(rows, whole_last=True)
        click.echo("")
    if kind == "simulation":
        if spec.bounds:
            click.echo("checked against: " + ", ".join(spec.bounds) + "\n")
        if spec.quick:
            click.echo("quick setting: " + ", ".join(f"{k}={v}" for k, v in spec.quick.items()) + "\n")
        _echo_paragraphs(spec.docs)
    elif kind == "bound":
        click.echo(spec.description)
        if spec.expression is not None:
            op = "<=" if spec.sense == "upper" else ">="
            click.echo(f"\nholds results to: {spec.metric} {op} {spec.expression}")
        for claim in spec.claims:
            click.echo(
                f"  claim {claim}" + ("" if claim.expect == "proved" else f"  (expected: {claim.expect})")
            )
    elif kind == "dataset":
        import inspect

        from toolkit.data import dataset_status, fetch_command

        click.echo(inspect.getdoc(spec.loader) or spec.description)
        if spec.source is not None:
            status = dataset_status(spec)
            click.echo(
                f"\nsource: {spec.source.url} (licence: {spec.source.license or 'not stated'}; sha256: "
                f"{spec.source.sha256 or 'none published'})"
            )
            click.echo(
                f"location: {status.location} ({status.state})"
                + ("" if status.state == "present" else f"; get it with `{fetch_command(spec.name)}`")
            )
    else:
        import inspect

        click.echo(spec.description)
        doc = inspect.getdoc(spec.run)
        if doc:
            click.echo("\n" + doc)


# -- running -----------------------------------------------------------------------------------------


def _report_checks(checks: Any) -> None:
    if checks is None or not len(checks):
        return
    from toolkit.checks import summarize_checks

    click.echo("bound checks:\n" + textwrap.indent(summarize_checks(checks), "  "))


@cli.command("run")
@click.argument("name")
@click.option("-p", "--param", "params", multiple=True, metavar="KEY=VALUE", help="A parameter (repeatable).")
@click.option("--seed", default="0", show_default=True, help="Seed (an integer from 0 to 2**63 - 1).")
@click.option("--no-cache", is_flag=True, help="Recompute even if the run store has this point.")
@click.option("--out", type=click.Path(dir_okay=False), help="Save the table (.csv or .parquet).")
@click.pass_obj
def run_cmd(
    state: _State, name: str, params: tuple[str, ...], seed: str, no_cache: bool, out: str | None
) -> None:
    """Run one simulation point; the result goes to the run store."""
    from toolkit.config import parse_assignments
    from toolkit.runner import run

    _check_out(out)
    seed_value = _parse_one_seed(seed)
    sim = state.registry.simulation(name)
    values = parse_assignments(params, model=sim.params)
    result = run(
        sim, values, seed=seed_value, cache=not no_cache, store=state.store_path(), registry=state.registry
    )
    _echo_rows(result.rows, limit=_ROWS_SHOWN)
    click.echo("summary: " + _format_summary(result.summary))
    if result.from_cache:
        click.echo(
            f"run {result.run_id}: served from the run store {state.store_path()} (use --no-cache to recompute)"
        )
    else:
        click.echo(
            f"run {result.run_id}: computed in {result.provenance.get('wall_time', 0):.3g} s, stored in {state.store_path()}"
        )
    _report_checks(result.checks)
    if out:
        _save(result.table, out)


def _parse_one_seed(text: str) -> int:
    from toolkit.config import SEED_MAX
    from toolkit.errors import ParameterError

    try:
        seed = int(text)
    except ValueError:
        raise ParameterError(
            f"--seed expects one integer from 0 to {SEED_MAX} (2**63 - 1), got {text!r}"
        ) from None
    if not 0 <= seed <= SEED_MAX:
        raise ParameterError(f"--seed expects one integer from 0 to {SEED_MAX} (2**63 - 1), got {text!r}")
    return seed


@cli.command("sweep")
@click.argument("name")
@click.option(
    "--grid", "grid", multiple=True, metavar="KEY=V1,V2,...", help="A swept parameter (repeatable)."
)
@click.option(
    "-p", "--param", "params", multiple=True, metavar="KEY=VALUE", help="A fixed parameter (repeatable)."
)
@click.option(
    "--seeds", default="0", show_default=True, help="Seeds: START:STOP, a comma list, or one integer."
)
@click.option(
    "--executor", type=click.Choice(["serial", "processes", "dask"]), default="serial", show_default=True
)
@click.option(
    "--address", default=None, help="Dask scheduler address (tcp://host:8786); none starts a LocalCluster."
)
@click.option("--workers", type=int, default=None, help="Worker processes (processes / local Dask).")
@click.option("--no-cache", is_flag=True, help="Recompute points already in the run store.")
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@click.option("--out", type=click.Path(dir_okay=False), help="Save the table (.csv or .parquet).")
@click.option(
    "-x", "--fail-fast", is_flag=True, help="Stop at the first point that raises (default: run every point)."
)
@click.option("--yes", is_flag=True, help="Run a sweep of more than 10,000 points without asking.")
@click.pass_obj
def sweep_cmd(
    state: _State,
    name: str,
    grid: tuple[str, ...],
    params: tuple[str, ...],
    seeds: str,
    executor: str,
    address: str | None,
    workers: int | None,
    no_cache: bool,
    no_progress: bool,
    out: str | None,
    fail_fast: bool,
    yes: bool,
) -> None:
    """Run the product of the grid x seeds; interrupted sweeps resume where they stopped.

    A point that raises is recorded (error and traceback) and the sweep goes on; the summary says how
    many failed, the exit status is 1, and the next run retries them. -x stops at the first failure.
    """
    from toolkit.config import parse_assignments, parse_grid
    from toolkit.errors import ParameterError
    from toolkit.runner import CONFIRM_POINTS, SweepFailed, count_points, sweep

    _check_out(out)
    sim = state.registry.simulation(name)
    grid_values = parse_grid(grid, model=sim.params)
    fixed = parse_assignments(params, model=sim.params)
    both = sorted(set(grid_values) & set(fixed))
    if both:
        raise ParameterError(f"{', '.join(both)} given both as -p and as --grid; give each parameter once")
    n_points = count_points(grid_values, seeds)
    limit = None
    if n_points > CONFIRM_POINTS and not yes:
        if sys.stdin.isatty() and sys.stderr.isatty():
            click.confirm(f"this sweep has {n_points} points; run them all?", abort=True, err=True)
        else:
            limit = CONFIRM_POINTS
    try:
        result = sweep(
            sim,
            grid_values,
            seeds,
            params=fixed,
            executor=executor,
            address=address,
            max_workers=workers,
            cache=not no_cache,
            store=state.store_path(),
            registry=state.registry,
            progress=not no_progress,
            fail_fast=fail_fast,
            max_points=limit,
        )
        failed = None
    except SweepFailed as exc:
        result, failed = exc.result, exc
    if result.runs:
        _echo_table(result.summary_table)
    failed_text = f"{len(result.failures)} failed, " if result.failures else ""
    missing_text = f"{len(result.missing)} not run, " if result.missing else ""
    click.echo(
        f"sweep {result.sweep_id}: {result.n_points} points, {result.n_computed} computed, {failed_text}"
        f"{missing_text}{result.n_cached} served from the run store, {result.wall_time:.2f} s"
    )
    _report_checks(result.checks)
    _save(result.status_table() if failed else result.table, out)
    if failed is not None:
        first = result.failures[0]
        click.echo(f"\nfirst failure, {first.error}:\n{first.traceback.rstrip()}\n", err=True)
        click.echo(f"FAILED: {failed}", err=True)
        sys.exit(1)


def _describe_values(values: list[Any], width: int = 40) -> str:
    """A grid axis for `toolkit runs`: its values when short, else their count and range."""
    import json

    text = json.dumps(values, default=str)
    if len(text) <= width:
        return text
    try:
        lo, hi = min(values), max(values)
        return f"{len(values)} values in [{lo}, {hi}]"
    except TypeError:
        return f"{len(values)} values"


_SINGLE_RUNS_SHOWN = 20


@cli.command("runs")
@click.option("--simulation", default=None, help="Only this simulation.")
@click.pass_obj
def runs_cmd(state: _State, simulation: str | None) -> None:
    """List stored sweeps (points stored, failed; their grids summarised) and single runs, with their ids."""
    from toolkit.errors import StoreError
    from toolkit.store import RunStore

    with RunStore(state.store_path()) as st:
        unreadable: list[StoreError] = []
        sweeps = [
            s for s in st.list_sweeps(errors=unreadable) if not simulation or s["simulation"] == simulation
        ]
        n_failed = st.count_failures()
        click.echo(  # one line: scripts and users search it for the counts
            f"{st.count()} runs stored in {st.path}"
            + (f"; {n_failed} failed points recorded" if n_failed else "")
        )
        for s in sweeps:
            keys = list(dict.fromkeys(s["keys"]))
            done = len(st.existing(keys))
            failed = len(st.get_failures(keys)) if n_failed else 0
            grid = s["spec"].get("grid") or {}
            axes = (
                "  ".join(f"{k}={_describe_values(list(v))}" for k, v in grid.items())
                if isinstance(grid, dict)
                else ""
            )
            seeds = s["spec"].get("seeds") or []
            state_text = f"{done}/{len(keys)} stored" + (f", {failed} failed" if failed else "")
            click.echo(  # one line per sweep: users and scripts search it
                f"  sweep {s['sweep_id']}  {s['simulation']:32s} {len(keys)} points ({state_text})  "
                f"seeds={_describe_values(list(seeds), 24)}  {axes}".rstrip()
            )
        in_sweeps = {k for s in st.list_sweeps(errors=[]) for k in s["keys"]}  # unreadable rows: said above
        single = [r for r in st.iter_runs(simulation) if r.key not in in_sweeps]
        if single:
            click.echo(f"  {len(single)} single runs (not part of a sweep), newest last:")
            for r in single[-_SINGLE_RUNS_SHOWN:]:
                params = " ".join(f"{k}={_cell_text(v)}" for k, v in r.params.items())
                _echo_wrapped(f"  run {r.key[:12]}  {r.simulation:32s} seed={r.seed}  {params}".rstrip(), 4)
            if len(single) > _SINGLE_RUNS_SHOWN:
                click.echo(f"  ... {len(single) - _SINGLE_RUNS_SHOWN} older single runs not shown")
        for exc in unreadable:
            click.echo(f"  unreadable: {exc}", err=True)


def _load(state: _State, ident: str) -> Any:
    from toolkit.runner import load

    return load(ident, store=state.store_path(), registry=state.registry)


@cli.command("export")
@click.argument("ident", metavar="RUN_OR_SWEEP_ID")
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="Output file: .csv or .parquet.")
@click.option(
    "--summary", is_flag=True, help="One row per run (parameters, seed, summary) instead of every record."
)
@click.pass_obj
def export_cmd(state: _State, ident: str, out: str, summary: bool) -> None:
    """Write a stored run or sweep as CSV or Parquet.

    A sweep's table has a status column (ok, failed, missing); a sweep with points not stored says
    how many, and its missing points are rows with status missing.
    """
    _check_out(out)
    res = _load(state, ident)
    if hasattr(res, "status_table"):
        table = res.status_table(summary=summary)
        short = len(res.failures) + len(res.missing)
        if short:
            click.echo(
                f"warning: sweep {res.sweep_id}: {len(res.runs)} of {res.n_points} points stored "
                f"({len(res.failures)} failed, {len(res.missing)} missing: rows with status failed / missing); "
                "run the sweep again to complete it.",
                err=True,
            )
    else:
        table = res.table
    _save(table, out)


@cli.command("check")
@click.argument("ident", metavar="RUN_OR_SWEEP_ID")
@click.option(
    "--against",
    "bounds",
    multiple=True,
    required=True,
    metavar="BOUND",
    help="A registered bound (repeatable).",
)
@click.option("--out", type=click.Path(dir_okay=False), help="Save the row-by-row checks.")
@click.pass_obj
def check_cmd(state: _State, ident: str, bounds: tuple[str, ...], out: str | None) -> None:
    """Hold a stored run or sweep against bounds, row by row (exit 1 when a row violates one)."""
    import pandas as pd

    from toolkit.checks import check_table

    res = _load(state, ident)
    table = res.table
    checks = pd.concat([check_table(table, state.registry.bound(b)) for b in bounds], ignore_index=True)
    _echo_table(checks, rows=50)
    _report_checks(checks)
    _save(checks, out)
    active = checks[~checks["skipped"].astype(bool)]
    if not active["holds"].astype(bool).all():
        sys.exit(1)


@cli.command("prove")
@click.argument("names", nargs=-1)
@click.option("--all", "all_", is_flag=True, help="Every registered bound.")
@click.option(
    "--plugin", "plugins", multiple=True, metavar="PLUGIN", help="Every bound of this plugin (repeatable)."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the numeric spot-checks.")
@click.option(
    "--strict", is_flag=True, help="Exit 1 when a verdict is not the expected one or a spot-check disagrees."
)
@click.option("--out", type=click.Path(dir_okay=False), help="Save the verdict table.")
@click.pass_obj
def prove_cmd(
    state: _State,
    names: tuple[str, ...],
    all_: bool,
    plugins: tuple[str, ...],
    seed: int,
    strict: bool,
    out: str | None,
) -> None:
    """Check the symbolic claims of bounds: proved / refuted (with counterexample) / unknown."""
    from toolkit.proving import SHOWN_COLUMNS, prove_bounds, summary_line, unexpected

    if sum(map(bool, (names, all_, plugins))) != 1:
        raise UserError(
            "name one or more bounds, or use --plugin NAME, or --all (see `toolkit list --kind bounds`)"
        )
    table = prove_bounds(state.registry, list(names) or None, plugins=plugins, seed=seed)
    if table.empty:
        click.echo("no claims to check")
        return
    _echo_table(table[SHOWN_COLUMNS], rows=1000)
    click.echo(summary_line(table))
    disagree = int((table["numeric"] == "disagree").sum())
    if disagree:
        click.echo(
            f"WARNING: {disagree} symbolic verdict(s) DISAGREE with their numeric spot-checks", err=True
        )
    _save(table, out)
    if strict and not unexpected(table).empty:
        sys.exit(1)


@cli.command("report")
@click.argument("ident", metavar="RUN_OR_SWEEP_ID")
@click.option("--x", default=None, help="Column on the x axis (default: the first swept parameter).")
@click.option("--y", default=None, help="Column on the y axis (default: the first numeric result).")
@click.option("--logx", is_flag=True)
@click.option("--logy", is_flag=True)
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="Figure file (.png, .pdf, .svg).")
@click.pass_obj
def report_cmd(
    state: _State, ident: str, x: str | None, y: str | None, logx: bool, logy: bool, out: str
) -> None:
    """Plot a stored run or sweep (mean ± sd over seeds).

    One line per combination of the other swept parameters (never per value of a result such as a
    witness word); past eight lines, one panel per value of one parameter. --y may name a column of
    the table or of the per-run summary that `toolkit sweep` prints.
    """
    from toolkit.report_figures import plot_table

    res = _load(state, ident)
    sim = state.registry.simulations.get(res.simulation)
    table = res.table
    summary = getattr(res, "summary_table", None)
    wanted = [c for c in (x, y) if c]
    if summary is not None and any(c not in table.columns for c in wanted):
        if all(c in summary.columns for c in wanted):
            table = summary  # a summary column: one row per run
        else:
            missing = [c for c in wanted if c not in table.columns and c not in summary.columns]
            raise UserError(
                f"no column {', '.join(map(repr, missing))} in the table or the summary of {ident} "
                f"(table: {', '.join(map(str, res.table.columns))}; summary: {', '.join(map(str, summary.columns))})"
            )
    try:
        fig = plot_table(table, sim=sim, x=x, y=y, logx=logx, logy=logy)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    fig.savefig(out, dpi=110)
    click.echo(f"wrote {out}")


# -- data ----------------------------------------------------------------------------------------------


@cli.group("data")
def data_group() -> None:
    """Registered datasets: where each is expected, whether it is there; fetch them from their source."""


@data_group.command("list")
@click.pass_obj
def data_list_cmd(state: _State) -> None:
    """Every registered dataset: status (present / missing / no source), size, location, licence, source."""
    import pandas as pd

    from toolkit.data import status_table

    settings = state.registry.manager.settings
    origin = (
        "from TOOLKIT_DATA_DIR"
        if os.environ.get("TOOLKIT_DATA_DIR")
        else "the default; set TOOLKIT_DATA_DIR to change it"
    )
    click.echo(f"data root: {settings.data_dir} ({origin})")
    statuses = status_table(state.registry.datasets.values(), settings)
    if not statuses:
        click.echo("no datasets are registered")
        return
    with pd.option_context("display.max_colwidth", 80):
        _echo_table(pd.DataFrame([s.row() for s in statuses]), rows=1000)
    if any(s.state == "no source" for s in statuses):
        click.echo(
            "no source: the dataset declares no DataSource (generated by its plugin or shipped in a package; "
            "otherwise see its plugin's README)"
        )
    missing = [s.name for s in statuses if s.state == "missing"]
    if missing:
        click.echo(
            f"{len(missing)} missing; fetch with: " + "; ".join(f"toolkit data fetch {n}" for n in missing)
        )


@data_group.command("fetch")
@click.argument("names", nargs=-1, required=True, metavar="NAME...")
@click.option("--force", is_flag=True, help="Download again even when the dataset is present.")
@click.option(
    "--timeout", type=float, default=60.0, show_default=True, help="Seconds to wait for the server."
)
@click.option(
    "--from",
    "origin",
    default=None,
    metavar="URL|PATH",
    help="Read the file from a mirror URL or a local copy instead of the official address (one NAME); "
    "TOOLKIT_DATA_MIRROR sets a mirror for every dataset.",
)
@click.option(
    "--max-unpacked",
    default=None,
    metavar="SIZE",
    help="Refuse an archive that unpacks to more than SIZE (e.g. 8G; default TOOLKIT_DATA_MAX_UNPACKED or 2G).",
)
@click.pass_obj
def data_fetch_cmd(
    state: _State,
    names: tuple[str, ...],
    force: bool,
    timeout: float,
    origin: str | None,
    max_unpacked: str | None,
) -> None:
    """Download datasets from their official source into the data root, verify the checksum, unpack.

    Exit status 1 when a download fails (offline, server error, checksum mismatch, a download cut
    short): one line says why.
    """
    from toolkit.data import DataFetchError, fetch
    from toolkit.data import max_unpacked as cap

    if origin is not None and len(names) != 1:
        raise UserError(f"--from names the file of one dataset; give exactly one NAME, got {len(names)}")
    limit = cap(max_unpacked)  # a bad size: exit 2 before any download
    datasets = [state.registry.dataset(n) for n in names]  # unknown names: exit 2 before any download
    for ds in datasets:
        try:
            fetch(
                ds,
                state.registry.manager.settings,
                force=force,
                echo=click.echo,
                timeout=timeout,
                origin=origin,
                max_unpacked_bytes=limit,
            )
        except DataFetchError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(1)


@cli.command("reproduce")
@click.option(
    "--quick",
    is_flag=True,
    help="The quick setting: smaller sizes and fewer seeds. Most experiments then take seconds, some a "
    "few minutes on a laptop CPU; the report gives each one's time.",
)
@click.option("--out", "out_dir", default="reproduction", show_default=True, type=click.Path(file_okay=False))
@click.option("--format", "fmt", type=click.Choice(["md", "html"]), default="md", show_default=True)
@click.option("--only", multiple=True, metavar="EXPERIMENT", help="Only these experiments (repeatable).")
@click.option("--jobs", type=int, default=1, show_default=True, help="Experiments run in parallel processes.")
@click.pass_obj
def reproduce_cmd(
    state: _State, quick: bool, out_dir: str, fmt: str, only: tuple[str, ...], jobs: int
) -> None:
    """Run every plugin's headline experiments and write a report with figures and verdicts.

    The last line counts the experiments that ran, were skipped or failed, and the claims met and
    missed; each missed claim is listed as documented (with the reason) or unexpected. With --only,
    only the bounds of those experiments' plugins are proved.
    """
    from toolkit.report import reproduce

    if jobs < 1:
        raise UserError(f"--jobs must be >= 1, got {jobs}")
    path, reports = reproduce(
        state.registry,
        quick=quick,
        out_dir=out_dir,
        fmt=fmt,
        only=only,
        echo=click.echo,
        jobs=jobs,
        disable=state.disable,
    )
    from toolkit.report import missed_claims, outcome_counts

    for line in missed_claims(reports):
        click.echo("missed: " + line)
    failed = [r.name for r in reports if r.failed]
    if failed:
        click.echo("FAILED: " + ", ".join(failed), err=True)
    click.echo(f"report: {path}; {outcome_counts(reports)}")
    if failed:
        sys.exit(1)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``toolkit`` console script."""
    from toolkit.errors import (  # not toolkit.runner: --help and list need no pydantic
        ResultColumnError,
        SweepAborted,
        SweepInterrupted,
    )

    try:
        cli.main(args=argv, prog_name="toolkit", standalone_mode=False)
    except SweepInterrupted as exc:
        click.echo(f"\n{exc}", err=True)
        sys.exit(130)
    except (SweepAborted, ResultColumnError) as exc:  # the plugin's code to fix: exit 1, no traceback
        notes = "".join("\n" + n for n in getattr(exc, "__notes__", ()))
        click.echo("error: " + textwrap.fill(str(exc), width=100, subsequent_indent="  ") + notes, err=True)
        sys.exit(1)
    except click.exceptions.Abort as exc:  # click turns KeyboardInterrupt into Abort
        cause = exc.__cause__ or exc.__context__
        click.echo(str(cause) if isinstance(cause, SweepInterrupted) else "aborted", err=True)
        sys.exit(130)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except UserError as exc:
        click.echo("error: " + textwrap.fill(str(exc), width=100, subsequent_indent="  "), err=True)
        sys.exit(2)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)


if __name__ == "__main__":  # pragma: no cover
    main()
