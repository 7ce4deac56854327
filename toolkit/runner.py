"""``run`` and ``sweep``: validation, seeding, caching in the run store, timing and provenance.

A finished point is committed to the store as soon as its result reaches this process, so an
interrupted sweep loses nothing and a rerun computes only the points that are missing.

Failure policy (pytest's): a point whose simulation raises is recorded in the store with its error
and traceback, the sweep goes on with the other points, and at the end :class:`SweepFailed` says
how many failed (the CLI exits 1). ``fail_fast=True`` (``-x/--fail-fast``) stops at the first failure,
keeping what finished. Failed points are retried by the next run of the sweep. Everything the user
gives is checked before any work: a bad value is a :class:`~toolkit.errors.ParameterError`.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import platform
import socket
import sys
import time
import traceback
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit import __version__, backend
from toolkit.config import MAX_SWEEP_POINTS, SEED_MAX, Params, canonical_params, parse_seeds, validate_params
from toolkit.errors import (
    ParameterError,
    ResultColumnError,
    StoreError,
    SweepAborted,
    SweepInterrupted,
    ToolkitError,
    UserError,
)  # the CLI catches these cheaply
from toolkit.executors import SerialExecutor, open_executor
from toolkit.registry import Registry, RegistryHandle, running_with
from toolkit.specs import Simulation, SimulationOutput
from toolkit.store import RunStore, run_key, sweep_id

TOOLKIT_VERSION = __version__


class SweepFailed(ToolkitError):
    """Some points raised; ``result`` holds the sweep (its ``failures`` say which, with tracebacks)."""

    def __init__(self, message: str, result: SweepResult) -> None:
        super().__init__(message)
        self.result = result


# -- results -----------------------------------------------------------------------------------------


def _cell(value: Any) -> Any:
    """Non-scalar parameters become JSON text so that tables stay flat."""
    if isinstance(value, (list, dict, tuple)):
        return json.dumps(value, sort_keys=True)
    return value


def records_table(
    records: Sequence[Mapping[str, Any]], params: Mapping[str, Any], seed: int, simulation: str
) -> list[dict[str, Any]]:
    """Rows with the run's parameters and seed as columns in front (a record may repeat a parameter's
    value or one item of a list-valued one; the runner refuses any other value, :func:`clashing_columns`)."""
    front = {"simulation": simulation, **{k: _cell(v) for k, v in params.items()}, "seed": seed}
    return [{**front, **rec} for rec in records] if records else [dict(front)]


@dataclass
class RunResult:
    """One run: its tidy rows, summary, provenance, and whether it came from the store."""

    simulation: str
    params: dict[str, Any]
    seed: int
    key: str
    records: list[dict[str, Any]]
    summary: dict[str, Any]
    provenance: dict[str, Any]
    from_cache: bool = False
    checks: Any = None  # pandas.DataFrame of bound checks, when the simulation names bounds

    @property
    def rows(self) -> list[dict[str, Any]]:
        return records_table(self.records, self.params, self.seed, self.simulation)

    @property
    def table(self) -> Any:
        """The tidy table (pandas): one row per record, parameters and seed as columns."""
        import pandas as pd

        return pd.DataFrame(self.rows)

    @property
    def run_id(self) -> str:
        return self.key[:12]

    def __repr__(self) -> str:
        src = "store" if self.from_cache else "computed"
        return f"RunResult({self.simulation}, seed={self.seed}, id={self.run_id}, {len(self.records)} rows, {src})"


@dataclass
class PointFailure:
    """A point whose simulation raised: the error line and the full traceback."""

    simulation: str
    params: dict[str, Any]
    seed: int
    key: str
    error: str
    traceback: str

    def varying(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        """The swept parameters of this point (what tells it apart in a summary)."""
        return {k: self.params[k] for k in (spec.get("grid") or {}) if k in self.params}


@dataclass
class MissingPoint:
    """A point of a stored sweep that has neither a result nor a recorded failure (never finished)."""

    params: dict[str, Any]
    seed: int
    key: str


@dataclass
class SweepResult:
    """A sweep: every point's result, one table, and how many points were served from the store."""

    simulation: str
    sweep_id: str
    runs: list[RunResult]
    n_cached: int
    n_computed: int
    wall_time: float
    checks: Any = None
    spec: dict[str, Any] = field(default_factory=dict)
    failures: list[PointFailure] = field(default_factory=list)
    missing: list[MissingPoint] = field(default_factory=list)
    n_points: int = 0

    @property
    def table(self) -> Any:
        """Every record of every point that finished (failed and missing points have no rows here)."""
        import pandas as pd

        return pd.DataFrame([row for r in self.runs for row in r.rows])

    def status_table(self, *, summary: bool = False) -> Any:
        """The table plus a ``status`` column (``ok``, ``failed``, ``missing``): one row per record of a
        finished point (or per point with ``summary=True``), one per failed or missing point (with ``error``).
        A record that has its own ``status`` (``capped``, ``stalled``...: :mod:`toolkit.censoring`) keeps it."""
        import pandas as pd

        rows: list[dict[str, Any]] = []
        for r in self.runs:
            if summary:
                rows.append(
                    {
                        "simulation": r.simulation,
                        **{k: _cell(v) for k, v in r.params.items()},
                        "seed": r.seed,
                        "status": "ok",
                        **r.summary,
                    }
                )
            else:
                # a record's own status (capped, stalled... see toolkit.censoring) is kept
                rows += [{**row, "status": row.get("status", "ok")} for row in r.rows]
        for f in self.failures:
            rows.append(
                {
                    "simulation": f.simulation,
                    **{k: _cell(v) for k, v in f.params.items()},
                    "seed": f.seed,
                    "status": "failed",
                    "error": f.error,
                }
            )
        for m in self.missing:
            rows.append(
                {
                    "simulation": self.simulation,
                    **{k: _cell(v) for k, v in m.params.items()},
                    "seed": m.seed,
                    "status": "missing",
                }
            )
        table = pd.DataFrame(rows)
        if "status" in table.columns:  # status right after the parameters and seed
            front = [c for c in table.columns if c != "status"]
            at = front.index("seed") + 1 if "seed" in front else len(front)
            table = table[front[:at] + ["status"] + front[at:]]
        return table

    def failure_summary(self, shown: int = 3) -> str:
        """``"3 of 120 points failed: ValueError: ... (x=2, seed 0); ..."`` (empty when none failed)."""
        if not self.failures:
            return ""
        parts = []
        for f in self.failures[:shown]:
            where = ", ".join([f"{k}={v}" for k, v in f.varying(self.spec).items()] + [f"seed {f.seed}"])
            parts.append(f"{f.error} ({where})")
        more = f"; ... {len(self.failures) - shown} more" if len(self.failures) > shown else ""
        return (
            f"{len(self.failures)} of {self.n_points or len(self.runs) + len(self.failures)} points failed: "
            + "; ".join(parts)
            + more
        )

    @property
    def summary_table(self) -> Any:
        """One row per run: parameters, seed and the run's summary."""
        import pandas as pd

        return pd.DataFrame(
            [{**{k: _cell(v) for k, v in r.params.items()}, "seed": r.seed, **r.summary} for r in self.runs]
        )


# -- executing one point (module level so that it pickles for processes and Dask) -------------------


def _normalize(output: Any) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    summary = None
    if isinstance(output, SimulationOutput):
        output, summary = output.records, (dict(output.summary) if output.summary is not None else None)
    if output is None:
        return [], summary
    if isinstance(output, Mapping):
        return [dict(output)], summary
    if hasattr(output, "to_dict") and hasattr(output, "columns"):  # a DataFrame
        return output.to_dict("records"), summary
    records = list(output)
    if not all(isinstance(r, Mapping) for r in records):
        raise TypeError("a simulation must return a SimulationOutput, a DataFrame, a dict or a list of dicts")
    return [dict(r) for r in records], summary


def _default_summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    if not records:
        return {}
    last = records[-1]
    return {k: v for k, v in last.items() if isinstance(v, (int, float, bool)) and not isinstance(v, complex)}


def _agrees(value: Any, param: Any) -> bool:
    """A row's value under a parameter's name is that parameter (or, for a list, one of its items)."""
    candidates = list(param) if isinstance(param, (list, tuple)) else [param]
    for c in candidates:
        try:
            if value == c or (
                isinstance(value, float) and isinstance(c, float) and math.isnan(value) and math.isnan(c)
            ):
                return True
        except Exception:  # values that do not compare (arrays): not the parameter
            continue
    return False


def clashing_columns(
    records: Iterable[Mapping[str, Any]], params: Mapping[str, Any], seed: int
) -> dict[str, Any]:
    """Result columns named like a parameter (or ``seed``) whose value is not that parameter's:
    name -> the first such value. A row may repeat a parameter's value, one item of a list, or give a
    list or dict parameter a short text form (such as ``"<1000 scores, sha256 ...>"``)."""
    expected = {**params, "seed": seed}
    clash: dict[str, Any] = {}
    for record in records:
        for name in set(map(str, record)) & set(expected):
            value, param = record[name], expected[name]
            if isinstance(param, (list, tuple, dict)) and isinstance(value, str):
                continue  # the parameter shortened for the table, not another quantity
            if name not in clash and not _agrees(value, param):
                clash[name] = value
    return clash


def _short(value: Any, width: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _refuse_clashing_columns(
    simulation: str, records: list[dict[str, Any]], summary: Mapping[str, Any], params: Params, seed: int
) -> None:
    # tables put the parameters beside the results (the summary table beside the summary), and a
    # result would win: a mislabelled sweep
    values = params.model_dump()
    clash = clashing_columns([*records, summary], values, seed)
    if not clash:
        return
    names = sorted(clash)
    expected = {**values, "seed": seed}
    shown = ", ".join(f"{n}={_short(clash[n])} where the parameter is {_short(expected[n])}" for n in names)
    raise ResultColumnError(
        f"simulation {simulation or type(params).__name__} returned result column(s) or summary key(s) "
        f"{', '.join(repr(n) for n in names)} named like its parameters but with other values ({shown}); "
        "a table would show them as the parameters. Rename these result columns in the simulation's "
        f"code (for example {names[0] + '_used'!r})."
    )


def execute_point(
    func: Any, params: Params, seed: int, simulation: str = ""
) -> tuple[list[dict[str, Any]], dict[str, Any], float, str]:
    """Seed, call ``func(params, seed)``, time it; returns (records, summary, wall seconds, device).

    :raises ResultColumnError: a result column is named like a parameter (or ``seed``) but holds
        another value (``simulation`` names the simulation in the message).
    """
    backend.seed_everything(seed)
    start = time.perf_counter()
    output = func(params, seed)
    wall = time.perf_counter() - start
    records, given = _normalize(output)
    # a default summary is the last row, already checked among the records
    _refuse_clashing_columns(simulation, records, given or {}, params, seed)
    summary = given if given is not None else _default_summary(records)
    return records, summary, wall, backend.device_description()


def execute_point_in(
    handle: RegistryHandle, func: Any, params: Params, seed: int, simulation: str = ""
) -> tuple[list[dict[str, Any]], dict[str, Any], float, str]:
    """:func:`execute_point` with the call's registry as the one ``toolkit.get_registry()`` returns
    (the handle pickles to worker processes as a recipe and is rebuilt there)."""
    with running_with(handle.registry):
        return execute_point(func, params, seed, simulation)


def execute_point_safely(
    handle: RegistryHandle, func: Any, params: Params, seed: int, simulation: str = ""
) -> tuple[str, Any]:
    """:func:`execute_point_in`, with an exception returned as ``("failed", (error line, traceback))``.

    Run in the worker, so that a failure travels back the same way on every executor (nothing to
    unpickle but two strings) and the other points go on.
    """
    try:
        return "ok", execute_point_in(handle, func, params, seed, simulation)
    except Exception as exc:
        return "failed", (f"{type(exc).__name__}: {exc}".strip(), traceback.format_exc())


# -- orchestration --------------------------------------------------------------------------------------


def _open_store(store: RunStore | str | Path | None, registry: Registry) -> RunStore:
    if isinstance(store, RunStore):
        return store
    return RunStore(store if store is not None else registry.manager.settings.store_path)


def _resolve(name: str | Simulation, registry: Registry | None) -> tuple[Simulation, Registry]:
    registry = registry or Registry.from_manager()
    if isinstance(name, Simulation):
        return name, registry
    if not isinstance(name, str):
        from toolkit.errors import UnknownNameError

        raise UnknownNameError("simulation", repr(name), registry.simulations)
    return registry.simulation(name), registry


def _version(sim: Simulation, registry: Registry) -> str:
    """The version that keys the store: the plugin's, plus a hash of its source when it is developed in place,
    plus the installed versions of the simulation's ``keyed_packages``."""
    from toolkit.fingerprint import package_versions, source_fingerprint

    version = sim.version or registry.manager.plugin_version(sim.plugin)
    info = registry.manager.plugin_infos.get(sim.plugin)
    module = info.module if info is not None else getattr(sim.func, "__module__", "") or ""
    source = source_fingerprint(module, info.distribution if info is not None else "")
    if source:
        version = f"{version}+src.{source}"
    if sim.keyed_packages:
        version = f"{version}+{package_versions(sim.keyed_packages)}"
    return version


def _key(sim: Simulation, model: Params, values: Mapping[str, Any], seed: int, version: str) -> str:
    """The point's store key: parameters (with the content of the files they name), seed and version."""
    from toolkit.fingerprint import content_fingerprints, keyed_params

    return run_key(sim.name, keyed_params(values, content_fingerprints(model)), seed, version)


_HOST = {"python": platform.python_version(), "host": socket.gethostname(), "platform": sys.platform}


def _provenance(sim: Simulation, version: str, wall: float, device: str, executor: str) -> dict[str, Any]:
    return {
        "toolkit_version": TOOLKIT_VERSION,
        "plugin": sim.plugin,
        "plugin_version": version,
        "wall_time": wall,
        "device": device,
        "executor": executor,
        "finished": time.time(),
        **_HOST,
    }


def _attach_checks(sim: Simulation, registry: Registry, table: Any) -> Any:
    if not sim.bounds:
        return None
    import pandas as pd

    from toolkit.checks import check_table

    return pd.concat([check_table(table, registry.bound(b)) for b in sim.bounds], ignore_index=True)


def memory_limit() -> float:
    """Bytes one point may need: this machine's physical memory (``TOOLKIT_POINT_MEMORY`` overrides)."""
    override = os.environ.get("TOOLKIT_POINT_MEMORY")
    if override:
        try:
            return float(override)
        except ValueError:
            raise ParameterError(
                f"TOOLKIT_POINT_MEMORY must be a number of bytes, got {override!r}"
            ) from None
    try:
        return float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover  (no sysconf: nothing to check against)
        return math.inf


def _gib(n: float) -> str:
    return f"{n / 2**30:.3g} GiB"


def check_point_cost(sim: Simulation, model: Params, limit: float | None = None) -> None:
    """Refuse a point whose declared memory (``Simulation.cost``) exceeds this machine's, naming the parameters."""
    if sim.cost is None:
        return
    limit = memory_limit() if limit is None else limit
    try:
        need = float(sim.cost.memory_bytes(model))
    except OverflowError:
        need = math.inf
    if need <= limit:
        return
    drivers = ", ".join(f"{k}={getattr(model, k)!r}" for k in sim.cost.parameters if hasattr(model, k))
    hint = f"; lower {' or '.join(sim.cost.parameters)}" if sim.cost.parameters else ""
    raise ParameterError(
        f"{sim.name}: one point{f' with {drivers}' if drivers else ''} needs about {_gib(need)} of memory, more than "
        f"this machine has ({_gib(limit)}){hint}."
    )


def _reject_keywords(sim: Simulation, function: str, keywords: Mapping[str, Any]) -> None:
    """``toolkit.run(name, n=3)``: simulation parameters go in ``params``; say so, with the allowed ones."""
    if not keywords:
        return
    given = ", ".join(f"{k}={v!r}" for k, v in keywords.items())
    allowed = ", ".join(sim.params.model_fields) or "(none)"
    raise ParameterError(
        f"{function}() got unexpected keyword argument(s) {given}: parameters of {sim.name} go in "
        f"params, e.g. toolkit.{function}({sim.name!r}, {dict(keywords)!r}); its parameters: {allowed}"
    )


def _validate_point(sim: Simulation, values: Mapping[str, Any] | Params | None) -> Params:
    model = validate_params(sim.params, values, owner=sim.name)
    check_point_cost(sim, model)
    return model


def run(
    name: str | Simulation,
    params: Mapping[str, Any] | Params | None = None,
    seed: int = 0,
    *,
    cache: bool = True,
    store: RunStore | str | Path | None = None,
    registry: Registry | None = None,
    check: bool = True,
    **unexpected: Any,
) -> RunResult:
    """Run one simulation point (or serve it from the store).

    :param name: a registered simulation name (or a :class:`Simulation` object).
    :param params: parameter values; missing ones take their defaults.
    :param seed: the seed (an integer from 0 to 2**63 - 1); the same seed gives the same result.
    :param cache: serve a stored result when there is one (``False`` recomputes and overwrites).
    :param store: a :class:`RunStore` or a path (default: ``TOOLKIT_STORE``).
    :param check: check the rows against the bounds the simulation names.
    :raises: what the simulation raises, after recording the point as failed in the store (as a sweep
        does: ``toolkit runs`` counts it, the next run retries it); a :class:`UserError` it raises is
        bad input and is not recorded.
    """
    sim, registry = _resolve(name, registry)
    _reject_keywords(sim, "run", unexpected)
    seed = _check_seed(seed)
    model = _validate_point(sim, params)
    values = canonical_params(model)
    version = _version(sim, registry)
    key = _key(sim, model, values, seed, version)
    st = _open_store(store, registry)
    try:
        stored = st.get(key) if cache else None
        if stored is not None:
            result = RunResult(
                sim.name, values, seed, key, stored.records, stored.summary, stored.provenance, True
            )
        else:
            try:
                records, summary, wall, device = execute_point_in(
                    RegistryHandle(registry), sim.func, model, seed, sim.name
                )
            except UserError:
                raise  # bad input found by the simulation itself: an error to fix, not a point to retry
            except Exception as exc:
                _record_failure(st, exc, key, sim.name, values, seed, version)
                raise
            prov = _provenance(sim, version, wall, device, "serial")
            st.put(key, sim.name, values, seed, version, records, summary, prov)
            result = RunResult(sim.name, values, seed, key, records, summary, prov, False)
    finally:
        if st is not store:
            st.close()
    if check and sim.bounds:  # (result.table imports pandas: not for a simulation without bounds)
        result.checks = _attach_checks(sim, registry, result.table)
    registry.manager.hook.toolkit_run_finished(result=result)
    return result


def _record_failure(
    st: RunStore,
    exc: Exception,
    key: str,
    simulation: str,
    values: Mapping[str, Any],
    seed: int,
    version: str,
) -> None:
    """Record a raising point as a sweep does (kept until it is computed) and say so on the exception."""
    try:
        st.put_failure(
            key,
            simulation,
            values,
            seed,
            version,
            f"{type(exc).__name__}: {exc}".strip(),
            traceback.format_exc(),
        )
    except StoreError as store_exc:
        note = f"(the failure could not be recorded in the run store: {store_exc})"
    else:
        note = (
            f"(recorded as failed point {key[:12]} in the run store {st.path}; running it again retries it)"
        )
    if hasattr(exc, "add_note"):  # Python >= 3.11
        exc.add_note(note)


def _check_seed(seed: Any) -> int:
    import numbers
    import operator

    if (
        isinstance(seed, bool)
        or not isinstance(seed, numbers.Integral)
        or not 0 <= operator.index(seed) <= SEED_MAX
    ):
        raise ParameterError(f"seed must be a non-negative integer (at most 2**63 - 1), got {seed!r}")
    return operator.index(seed)


def grid_points(
    grid: Mapping[str, Sequence[Any]] | None, base: Mapping[str, Any] | None = None
) -> list[dict[str, Any]]:
    """The product of the grid's values, each merged over ``base`` (grid order: first key slowest)."""
    grid = _check_grid(grid)
    for key, values in grid.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise ParameterError(f"grid values for {key!r} must be a list, got {values!r}")
        grid[key] = list(values)
        if not grid[key]:
            raise ParameterError(f"grid for {key!r} is empty")
    keys = list(grid)
    return [
        {**(base or {}), **dict(zip(keys, combo))} for combo in itertools.product(*(grid[k] for k in keys))
    ]


def _check_grid(grid: Any) -> dict[str, list[Any]]:
    if grid is None:
        return {}
    if not isinstance(grid, Mapping):
        raise ParameterError(
            f"grid must be a mapping of parameter name -> list of values, got {type(grid).__name__}"
        )
    out = {}
    for key, values in grid.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise ParameterError(f"grid values for {key!r} must be a list, got {values!r}")
        out[key] = list(values)
        if not out[key]:
            raise ParameterError(f"grid for {key!r} is empty")
    return out


def _check_base(params: Any) -> dict[str, Any]:
    if params is None:
        return {}
    if isinstance(params, Params):
        return dict(params)
    if not isinstance(params, Mapping):
        raise ParameterError(f"params must be a mapping of parameter name -> value, got {params!r}")
    return dict(params)


CONFIRM_POINTS = 10_000
"""The CLI asks for ``--yes`` before a sweep of more points than this."""


def count_points(grid: Mapping[str, Sequence[Any]] | None, seeds: Any) -> int:
    """Points of the sweep ``grid`` x ``seeds``, counted before anything is built (raises on bad seeds)."""
    grid = _check_grid(grid)
    return math.prod(len(v) for v in grid.values()) * len(parse_seeds(seeds))


class _Progress:
    def __init__(self, total: int, initial: int, desc: str, enabled: bool | None) -> None:
        if enabled is None:
            enabled = sys.stderr.isatty()
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(
                total=total,
                initial=initial,
                desc=desc,
                unit="pt",
                mininterval=0.25,
                dynamic_ncols=True,
                file=sys.stderr,
            )

    def update(self) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def sweep(
    name: str | Simulation,
    grid: Mapping[str, Sequence[Any]] | None = None,
    seeds: Any = (0,),
    *,
    params: Mapping[str, Any] | None = None,
    executor: Any = "serial",
    address: str | None = None,
    max_workers: int | None = None,
    cache: bool = True,
    store: RunStore | str | Path | None = None,
    registry: Registry | None = None,
    progress: bool | None = None,
    check: bool = True,
    fail_fast: bool = False,
    max_points: int | None = None,
    **unexpected: Any,
) -> SweepResult:
    """Run the product grid x seeds; finished points are stored at once and never recomputed.

    :param grid: parameter name -> list of values; the sweep is their product.
    :param seeds: seeds for every grid point: a list or numpy array of ints, an int, or ``"0:10"``.
    :param params: fixed parameter values under the grid.
    :param executor: ``"serial"``, ``"processes"``, ``"dask"`` or a ``concurrent.futures.Executor``.
    :param address: the Dask scheduler address (``tcp://host:8786``); none starts a LocalCluster.
    :param progress: show a progress bar (default: when stderr is a terminal).
    :param fail_fast: stop at the first point that raises (default: run every point, then raise
        :class:`SweepFailed` when any failed; failed points are recorded and retried by the next run).
    :param max_points: refuse a sweep of more points than this (the CLI gives 10,000 unless ``--yes``);
        no sweep may exceed :data:`toolkit.config.MAX_SWEEP_POINTS`.
    :raises SweepFailed: some points raised (``.result`` holds the sweep with its ``failures``).
    :raises SweepInterrupted: Ctrl-C; :raises SweepAborted: the executor broke. Both after storing what finished.

    Three steps: plan (:func:`_plan_sweep`), execute (:func:`_execute_sweep`), assemble (:func:`_assemble_sweep`).
    """
    start = time.perf_counter()
    sim, registry = _resolve(name, registry)
    _reject_keywords(sim, "sweep", unexpected)
    plan = _plan_sweep(sim, registry, grid, seeds, params, max_points, store, cache)
    try:
        failures, stopped = _execute_sweep(plan, executor, max_workers, address, progress, fail_fast)
    finally:
        if plan.store is not store:
            plan.store.close()
    return _assemble_sweep(plan, failures, stopped, start, check)


@dataclass
class _SweepPlan:
    """What a sweep will do: its points in grid order, what the store already holds, what to compute."""

    sim: Simulation
    registry: Registry
    spec: dict[str, Any]
    points: list[tuple[Params, dict[str, Any], int, str]]  # (model, values, seed, key)
    version: str
    sid: str
    store: RunStore
    results: dict[str, RunResult]  # key -> result; the stored ones at first, then each one computed
    todo: list[tuple[Params, dict[str, Any], int, str]]  # a point listed twice runs once

    @property
    def n_unique(self) -> int:
        return len({p[3] for p in self.points})


def _plan_sweep(
    sim: Simulation,
    registry: Registry,
    grid: Mapping[str, Sequence[Any]] | None,
    seeds: Any,
    params: Mapping[str, Any] | None,
    max_points: int | None,
    store: RunStore | str | Path | None,
    cache: bool,
) -> _SweepPlan:
    """Plan: validate everything the user gave, expand grid x seeds, look up the store, decide what to compute.

    Nothing is written: a sweep that fails here leaves no trace in the store.
    """
    grid = _check_grid(grid)
    base = _check_base(params)
    seed_list = parse_seeds(seeds)
    n_points = math.prod(len(v) for v in grid.values()) * len(seed_list)
    limit = min(max_points, MAX_SWEEP_POINTS) if max_points is not None else MAX_SWEEP_POINTS
    if n_points > limit:
        raise ParameterError(
            f"this sweep has {n_points} points (grid x seeds), more than {limit}"
            + (
                f"; confirm with --yes (up to {MAX_SWEEP_POINTS})"
                if limit < MAX_SWEEP_POINTS and n_points <= MAX_SWEEP_POINTS
                else "; split it into several sweeps"
            )
        )
    points = []
    version = _version(sim, registry)
    for values in grid_points(grid, base):
        model = _validate_point(sim, values)
        canon = canonical_params(model)
        for s in seed_list:
            points.append((model, canon, s, _key(sim, model, canon, s, version)))
    keys = [p[3] for p in points]
    st = _open_store(store, registry)
    stored = st.get_many(keys) if cache else {}
    results: dict[str, RunResult] = {}
    for model, canon, s, key in points:
        if key in stored:
            sr = stored[key]
            results[key] = RunResult(sim.name, canon, s, key, sr.records, sr.summary, sr.provenance, True)
    todo = list({p[3]: p for p in points if p[3] not in results}.values())
    spec = {"grid": grid, "seeds": seed_list, "params": base}
    return _SweepPlan(sim, registry, spec, points, version, sweep_id(sim.name, keys), st, results, todo)


class _SweepExecution:
    """Execute: submit the plan's points to the executor and store each outcome as it reaches this
    process (a result, or a failure with its traceback); on Ctrl-C or a broken executor keep what finished."""

    def __init__(self, plan: _SweepPlan, ex: Any, executor: Any, progress: bool | None) -> None:
        self.plan, self.ex = plan, ex
        self.name = getattr(ex, "name", str(executor))
        self.failures: dict[str, PointFailure] = {}
        self.futures: dict[Any, tuple] = {}
        self.hook = plan.registry.manager.hook.toolkit_run_finished
        self.bar = _Progress(plan.n_unique, plan.n_unique - len(plan.todo), plan.sim.name, progress)

    def record(self, p: tuple, outcome: tuple[str, Any]) -> bool:
        """Store one point's outcome; True when it failed."""
        plan, sim, (_, canon, s, key), (status, payload) = self.plan, self.plan.sim, p, outcome
        if status == "failed":
            error, tb = payload
            plan.store.put_failure(key, sim.name, canon, s, plan.version, error, tb)
            self.failures[key] = PointFailure(sim.name, canon, s, key, error, tb)
            self.bar.update()
            return True
        records, summary, wall, device = payload
        prov = _provenance(sim, plan.version, wall, device, self.name)
        plan.store.put(key, sim.name, canon, s, plan.version, records, summary, prov)
        plan.results[key] = r = RunResult(sim.name, canon, s, key, records, summary, prov, False)
        self.hook(result=r)
        self.bar.update()
        return False

    def salvage(self) -> None:
        """Store every result that reached this process but was not handed over yet."""
        if self.ex is None:
            return
        for fut, outcome in self.ex.done(list(self.futures)):
            self.record(self.futures.pop(fut), outcome)

    def kept(self) -> str:
        return f"{len(self.plan.results)} of {self.plan.n_unique} points are stored" + (
            f" ({len(self.failures)} failed)" if self.failures else ""
        )

    def run(self, fail_fast: bool) -> bool:
        """Every point to be computed, each stored as it finishes; True when ``fail_fast`` stopped it."""
        ex, plan = self.ex, self.plan
        if ex is None:
            return False
        handle = RegistryHandle(plan.registry)
        for p in plan.todo:
            self.futures[
                ex.submit(execute_point_safely, handle, plan.sim.func, p[0], p[2], plan.sim.name)
            ] = p
        stopped = False
        for fut, outcome in ex.as_completed(list(self.futures)):
            if self.record(self.futures.pop(fut), outcome) and fail_fast:
                stopped = True
                break
        if stopped:
            ex.cancel(list(self.futures))
            for fut, outcome in ex.finish(list(self.futures)):  # the running points finish and are stored
                self.record(self.futures.pop(fut), outcome)
        return stopped

    def interrupted(self) -> SweepInterrupted:
        """Ctrl-C: cancel what is pending, store the running points as they finish (a second Ctrl-C stops them)."""
        ex = self.ex
        if ex is not None:
            try:
                self.salvage()  # first: cancelling a Dask future drops the result it holds
                ex.cancel(list(self.futures))
                self.salvage()
                running = [f for f in self.futures if not _is_cancelled(f)]
                if running and not isinstance(ex, SerialExecutor):
                    print(
                        f"\ninterrupted: storing the {len(running)} running points as they finish "
                        "(Ctrl-C again to stop them now)",
                        file=sys.stderr,
                        flush=True,
                    )
                    for fut, outcome in ex.finish(list(self.futures)):
                        self.record(self.futures.pop(fut), outcome)
            except KeyboardInterrupt:
                self.salvage()
                ex.terminate()
        return SweepInterrupted(
            f"sweep {self.plan.sid} interrupted: {self.kept()}; run the same sweep again to resume."
        )

    def broken(self, exc: Exception) -> SweepAborted:
        """The executor broke (a worker killed, out of memory, a lost cluster): keep what reached us."""
        ex, sid = self.ex, self.plan.sid
        try:
            self.salvage()
        except Exception:
            pass
        ex.cancel(list(self.futures))
        ex.terminate()
        explained = getattr(ex, "explain", lambda e: None)(exc)
        if explained:
            return SweepAborted(
                f"sweep {sid} stopped: {explained}. {self.kept()}; run the same sweep again to resume."
            )
        cause = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
        return SweepAborted(
            f"sweep {sid} stopped because the {self.name} executor failed ({cause}); a worker may "
            f"have been killed or run out of memory. {self.kept()}; run the same sweep again to resume."
        )

    def close(self, interrupted: bool) -> None:
        self.bar.close()
        ex = self.ex
        if ex is None:
            return
        try:
            if interrupted and getattr(ex, "cluster", None) is not None:  # a LocalCluster takes seconds
                print(
                    f"\ninterrupted: {self.kept()}; stopping the local cluster (Ctrl-C again to stop at once)",
                    file=sys.stderr,
                    flush=True,
                )
            ex.close()
        except KeyboardInterrupt:  # a second Ctrl-C while a cluster shuts down: stop now
            ex.terminate()
            if not interrupted:
                raise


def _register_sweep(plan: _SweepPlan, ex: Any) -> None:
    """Record the sweep's points in the store, once every read and check passed (a failing sweep writes nothing)."""
    st = plan.store
    try:
        if not st.has_sweep(plan.sid):
            st.put_sweep(plan.sid, plan.sim.name, plan.spec, [p[3] for p in plan.points])
    except StoreError:
        if plan.todo or not st.read_only:
            if ex is not None:
                ex.close()
            raise
        # a read-only store serving a fully cached sweep: nothing to write


def _execute_sweep(
    plan: _SweepPlan,
    executor: Any,
    max_workers: int | None,
    address: str | None,
    progress: bool | None,
    fail_fast: bool,
) -> tuple[dict[str, PointFailure], bool]:
    """Execute the plan: (the failures by key, whether ``fail_fast`` stopped it); results go to ``plan.results``.

    :raises SweepInterrupted: Ctrl-C; :raises SweepAborted: the executor broke. Both after storing what finished.
    """
    ex = open_executor(executor, max_workers=max_workers, address=address) if plan.todo else None
    _register_sweep(plan, ex)
    run = _SweepExecution(plan, ex, executor, progress)
    for r in plan.results.values():
        run.hook(result=r)
    interrupted = False
    try:
        stopped = run.run(fail_fast)
    except KeyboardInterrupt:
        interrupted = True
        raise run.interrupted() from None
    except (StoreError, SweepInterrupted):
        raise
    except Exception as exc:
        if ex is None:
            raise
        raise run.broken(exc) from None
    finally:
        run.close(interrupted)
    return run.failures, stopped


def _assemble_sweep(
    plan: _SweepPlan, failures: Mapping[str, PointFailure], stopped: bool, start: float, check: bool
) -> SweepResult:
    """Assemble: the SweepResult in grid order (finished, failed and missing points) and its checks.

    :raises SweepFailed: some points failed (``.result`` holds the sweep).
    """
    seen = set()
    ordered, failed, missing = [], [], []
    for model, canon, s, key in plan.points:
        if key in seen:
            continue
        seen.add(key)
        if key in plan.results:
            ordered.append(plan.results[key])
        elif key in failures:
            failed.append(failures[key])
        else:
            missing.append(MissingPoint(canon, s, key))
    out = SweepResult(
        plan.sim.name,
        plan.sid,
        ordered,
        n_cached=len(plan.points) - len(plan.todo),
        n_computed=len(plan.todo) - len(missing) - len(failed),
        wall_time=time.perf_counter() - start,
        spec=plan.spec,
        failures=failed,
        missing=missing,
        n_points=plan.n_unique,
    )
    if check and plan.sim.bounds and ordered:
        out.checks = _attach_checks(plan.sim, plan.registry, out.table)
    if failed:
        stop = (
            f"stopped at the first failure (--fail-fast), {len(missing)} points not run; " if stopped else ""
        )
        raise SweepFailed(
            f"sweep {plan.sid}: {out.failure_summary()}. {stop}The failures are stored with their "
            "tracebacks; run the same sweep again to retry them.",
            out,
        )
    return out


def _is_cancelled(fut: Any) -> bool:
    cancelled = getattr(fut, "cancelled", False)
    return bool(cancelled() if callable(cancelled) else cancelled)


def _declaration_order(params: Mapping[str, Any], sim: Simulation | None) -> dict[str, Any]:
    """Parameters in the order the simulation declares them (stores made before kept them sorted)."""
    if sim is None:
        return dict(params)
    order = list(sim.params.model_fields)
    return {
        **{k: params[k] for k in order if k in params},
        **{k: v for k, v in params.items() if k not in order},
    }


def load(
    run_or_sweep_id: str, *, store: RunStore | str | Path | None = None, registry: Registry | None = None
) -> RunResult | SweepResult:
    """A stored run or sweep by (a unique prefix of) its id.

    A sweep's ``failures`` and ``missing`` list its points that failed or never finished
    (``status_table()`` marks them); parameters come in the simulation's declaration order.
    """
    st = store if isinstance(store, RunStore) else RunStore(store) if store is not None else None
    if st is None:
        from toolkit.settings import get_settings

        st = RunStore(registry.manager.settings.store_path if registry else get_settings().store_path)
    kind, full = st.resolve(run_or_sweep_id)

    def spec_of(simulation: str) -> Simulation | None:
        try:
            return (registry or Registry.from_manager()).simulations.get(simulation)
        except ToolkitError:
            return None

    if kind == "run":
        r = st.get(full)
        assert r is not None
        sim = spec_of(r.simulation)
        return RunResult(
            r.simulation,
            _declaration_order(r.params, sim),
            r.seed,
            r.key,
            r.records,
            r.summary,
            r.provenance,
            True,
        )
    sw = st.get_sweep(full)
    assert sw is not None
    sim = spec_of(sw["simulation"])
    keys = list(dict.fromkeys(sw["keys"]))
    stored = st.get_many(keys)
    failed = st.get_failures(k for k in keys if k not in stored)
    runs, failures, missing = [], [], []
    planned = _planned_points(sw, sim)
    for k in keys:
        if (s := stored.get(k)) is not None:
            runs.append(
                RunResult(
                    s.simulation,
                    _declaration_order(s.params, sim),
                    s.seed,
                    s.key,
                    s.records,
                    s.summary,
                    s.provenance,
                    True,
                )
            )
        elif (f := failed.get(k)) is not None:
            failures.append(
                PointFailure(f.simulation, _declaration_order(f.params, sim), f.seed, k, f.error, f.traceback)
            )
        else:
            values, seed = planned.get(k, ({}, -1))
            missing.append(MissingPoint(values, seed, k))
    res = SweepResult(
        sw["simulation"],
        full,
        runs,
        n_cached=len(runs),
        n_computed=0,
        wall_time=0.0,
        spec=sw["spec"],
        failures=failures,
        missing=missing,
        n_points=len(keys),
    )
    res.spec["missing_points"] = len(missing)
    return res


def _planned_points(sw: Mapping[str, Any], sim: Simulation | None) -> dict[str, tuple[dict[str, Any], int]]:
    """key -> (parameters, seed) of a stored sweep's points, rebuilt from its spec (the keys follow the grid order)."""
    spec = sw["spec"]
    try:
        seeds = list(spec.get("seeds") or [])
        combos = grid_points(spec.get("grid") or {}, spec.get("params") or {})
    except (ParameterError, TypeError, AttributeError):
        return {}
    if not seeds or len(combos) * len(seeds) != len(sw["keys"]):
        return {}
    out: dict[str, tuple[dict[str, Any], int]] = {}
    for i, key in enumerate(sw["keys"]):
        values = combos[i // len(seeds)]
        if sim is not None:
            try:
                values = canonical_params(validate_params(sim.params, values, owner=sim.name))
            except ParameterError:
                pass
        out.setdefault(key, (dict(values), seeds[i % len(seeds)]))
    return out


__all__ = [
    "CONFIRM_POINTS",
    "MissingPoint",
    "PointFailure",
    "RunResult",
    "SweepAborted",
    "SweepFailed",
    "SweepInterrupted",
    "SweepResult",
    "check_point_cost",
    "clashing_columns",
    "count_points",
    "execute_point",
    "execute_point_safely",
    "grid_points",
    "load",
    "memory_limit",
    "run",
    "sweep",
]
