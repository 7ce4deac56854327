"""``run`` and ``sweep``: validation, seeding, caching in the run store, timing and provenance.

A finished point is committed to the store as soon as it completes, so an interrupted sweep loses
nothing and a rerun computes only the points that are missing.
"""

from __future__ import annotations

import itertools
import json
import platform
import socket
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit import backend
from toolkit.config import Params, canonical_params, parse_seeds, validate_params
from toolkit.errors import ParameterError, SweepInterrupted  # SweepInterrupted lives there: the CLI catches it cheaply
from toolkit.executors import open_executor
from toolkit.registry import Registry
from toolkit.specs import Simulation, SimulationOutput
from toolkit.store import RunStore, run_key, sweep_id

TOOLKIT_VERSION = "0.1.0"


# -- results -----------------------------------------------------------------------------------------


def _cell(value: Any) -> Any:
    """Non-scalar parameters become JSON text so that tables stay flat."""
    if isinstance(value, (list, dict, tuple)):
        return json.dumps(value, sort_keys=True)
    return value


def records_table(records: Sequence[Mapping[str, Any]], params: Mapping[str, Any], seed: int, simulation: str) -> list[dict[str, Any]]:
    """Rows with the run's parameters and seed as columns in front (a record's own value wins)."""
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

    @property
    def table(self) -> Any:
        import pandas as pd

        return pd.DataFrame([row for r in self.runs for row in r.rows])

    @property
    def summary_table(self) -> Any:
        """One row per run: parameters, seed and the run's summary."""
        import pandas as pd

        return pd.DataFrame([{**{k: _cell(v) for k, v in r.params.items()}, "seed": r.seed, **r.summary} for r in self.runs])


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


def execute_point(func: Any, params: Params, seed: int) -> tuple[list[dict[str, Any]], dict[str, Any], float, str]:
    """Seed, call ``func(params, seed)``, time it; returns (records, summary, wall seconds, device)."""
    backend.seed_everything(seed)
    start = time.perf_counter()
    output = func(params, seed)
    wall = time.perf_counter() - start
    records, summary = _normalize(output)
    if summary is None:
        summary = _default_summary(records)
    return records, summary, wall, backend.device_description()


# -- orchestration --------------------------------------------------------------------------------------


def _open_store(store: RunStore | str | Path | None, registry: Registry) -> RunStore:
    if isinstance(store, RunStore):
        return store
    return RunStore(store if store is not None else registry.manager.settings.store_path)


def _resolve(name: str | Simulation, registry: Registry | None) -> tuple[Simulation, Registry]:
    registry = registry or Registry.from_manager()
    if isinstance(name, Simulation):
        return name, registry
    return registry.simulation(name), registry


def _version(sim: Simulation, registry: Registry) -> str:
    return sim.version or registry.manager.plugin_version(sim.plugin)


_HOST = {"python": platform.python_version(), "host": socket.gethostname(), "platform": sys.platform}


def _provenance(sim: Simulation, version: str, wall: float, device: str, executor: str) -> dict[str, Any]:
    return {"toolkit_version": TOOLKIT_VERSION, "plugin": sim.plugin, "plugin_version": version,
            "wall_time": wall, "device": device, "executor": executor, "finished": time.time(), **_HOST}


def _attach_checks(sim: Simulation, registry: Registry, table: Any) -> Any:
    if not sim.bounds:
        return None
    import pandas as pd

    from toolkit.checks import check_table

    return pd.concat([check_table(table, registry.bound(b)) for b in sim.bounds], ignore_index=True)


def run(name: str | Simulation, params: Mapping[str, Any] | Params | None = None, seed: int = 0, *,
        cache: bool = True, store: RunStore | str | Path | None = None, registry: Registry | None = None,
        check: bool = True) -> RunResult:
    """Run one simulation point (or serve it from the store).

    :param name: a registered simulation name (or a :class:`Simulation` object).
    :param params: parameter values; missing ones take their defaults.
    :param seed: the seed; the same seed gives the same result.
    :param cache: serve a stored result when there is one (``False`` recomputes and overwrites).
    :param store: a :class:`RunStore` or a path (default: ``TOOLKIT_STORE``).
    :param check: check the rows against the bounds the simulation names.
    """
    sim, registry = _resolve(name, registry)
    _check_seed(seed)
    model = validate_params(sim.params, params, owner=sim.name)
    values = canonical_params(model)
    version = _version(sim, registry)
    key = run_key(sim.name, values, seed, version)
    st = _open_store(store, registry)
    stored = st.get(key) if cache else None
    if stored is not None:
        result = RunResult(sim.name, values, seed, key, stored.records, stored.summary, stored.provenance, True)
    else:
        records, summary, wall, device = execute_point(sim.func, model, seed)
        prov = _provenance(sim, version, wall, device, "serial")
        st.put(key, sim.name, values, seed, version, records, summary, prov)
        result = RunResult(sim.name, values, seed, key, records, summary, prov, False)
    if check and sim.bounds:  # (result.table imports pandas: not for a simulation without bounds)
        result.checks = _attach_checks(sim, registry, result.table)
    registry.manager.hook.toolkit_run_finished(result=result)
    return result


def _check_seed(seed: Any) -> None:
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")


def grid_points(grid: Mapping[str, Sequence[Any]] | None, base: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """The product of the grid's values, each merged over ``base`` (grid order: first key slowest)."""
    grid = dict(grid or {})
    for key, values in grid.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise ParameterError(f"grid values for {key!r} must be a list, got {values!r}")
        grid[key] = list(values)
        if not grid[key]:
            raise ParameterError(f"grid for {key!r} is empty")
    keys = list(grid)
    return [{**(base or {}), **dict(zip(keys, combo))} for combo in itertools.product(*(grid[k] for k in keys))]


class _Progress:
    def __init__(self, total: int, initial: int, desc: str, enabled: bool | None) -> None:
        if enabled is None:
            enabled = sys.stderr.isatty()
        self.bar = None
        if enabled:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, initial=initial, desc=desc, unit="pt", mininterval=0.25,
                            dynamic_ncols=True, file=sys.stderr)

    def update(self) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def sweep(name: str | Simulation, grid: Mapping[str, Sequence[Any]] | None = None, seeds: Any = (0,), *,
          params: Mapping[str, Any] | None = None, executor: Any = "serial", address: str | None = None,
          max_workers: int | None = None, cache: bool = True, store: RunStore | str | Path | None = None,
          registry: Registry | None = None, progress: bool | None = None, check: bool = True) -> SweepResult:
    """Run the product grid x seeds; finished points are stored at once and never recomputed.

    :param grid: parameter name -> list of values; the sweep is their product.
    :param seeds: seeds for every grid point: a list, an int, or ``"0:10"``.
    :param params: fixed parameter values under the grid.
    :param executor: ``"serial"``, ``"processes"``, ``"dask"`` or a ``concurrent.futures.Executor``.
    :param address: the Dask scheduler address (``tcp://host:8786``); none starts a LocalCluster.
    :param progress: show a progress bar (default: when stderr is a terminal).
    """
    start = time.perf_counter()
    sim, registry = _resolve(name, registry)
    seed_list = parse_seeds(seeds)
    for s in seed_list:
        _check_seed(s)
    points = []  # (model, values, seed, key)
    version = _version(sim, registry)
    for values in grid_points(grid, params):
        model = validate_params(sim.params, values, owner=sim.name)
        canon = canonical_params(model)
        for s in seed_list:
            points.append((model, canon, s, run_key(sim.name, canon, s, version)))
    keys = [p[3] for p in points]
    sid = sweep_id(sim.name, keys)
    st = _open_store(store, registry)
    spec = {"grid": {k: list(v) for k, v in (grid or {}).items()}, "seeds": seed_list, "params": dict(params or {})}
    st.put_sweep(sid, sim.name, spec, keys)
    stored = st.get_many(keys) if cache else {}
    results: dict[str, RunResult] = {}
    for model, canon, s, key in points:
        if key in stored:
            sr = stored[key]
            results[key] = RunResult(sim.name, canon, s, key, sr.records, sr.summary, sr.provenance, True)
    todo = [p for p in points if p[3] not in results]
    todo = list({p[3]: p for p in todo}.values())  # a point listed twice runs once
    bar = _Progress(len(keys), len(keys) - len(todo), sim.name, progress)
    hook = registry.manager.hook.toolkit_run_finished
    for r in results.values():
        hook(result=r)
    ex = open_executor(executor, max_workers=max_workers, address=address) if todo else None
    futures: dict[Any, tuple] = {}
    try:
        if ex is not None:
            for p in todo:
                futures[ex.submit(execute_point, sim.func, p[0], p[2])] = p
            for fut, (records, summary, wall, device) in ex.as_completed(list(futures)):
                model, canon, s, key = futures.pop(fut)
                prov = _provenance(sim, version, wall, device, getattr(ex, "name", str(executor)))
                st.put(key, sim.name, canon, s, version, records, summary, prov)
                results[key] = r = RunResult(sim.name, canon, s, key, records, summary, prov, False)
                hook(result=r)
                bar.update()
    except KeyboardInterrupt:
        if ex is not None:
            ex.cancel(list(futures))
        done = len(results)
        raise SweepInterrupted(
            f"sweep {sid} interrupted: {done} of {len(set(keys))} points are stored; run the same sweep again to resume."
        ) from None
    finally:
        bar.close()
        if ex is not None:
            ex.close()
    ordered = [results[k] for k in dict.fromkeys(keys)]
    out = SweepResult(sim.name, sid, ordered, n_cached=len(keys) - len(todo), n_computed=len(todo),
                      wall_time=time.perf_counter() - start, spec=spec)
    if check and sim.bounds:
        out.checks = _attach_checks(sim, registry, out.table)
    return out


def load(run_or_sweep_id: str, *, store: RunStore | str | Path | None = None,
         registry: Registry | None = None) -> RunResult | SweepResult:
    """A stored run or sweep by (a unique prefix of) its id."""
    st = store if isinstance(store, RunStore) else RunStore(store) if store is not None else None
    if st is None:
        from toolkit.settings import get_settings

        st = RunStore(registry.manager.settings.store_path if registry else get_settings().store_path)
    kind, full = st.resolve(run_or_sweep_id)
    if kind == "run":
        r = st.get(full)
        assert r is not None
        return RunResult(r.simulation, r.params, r.seed, r.key, r.records, r.summary, r.provenance, True)
    sw = st.get_sweep(full)
    assert sw is not None
    stored = st.get_many(sw["keys"])
    runs = [RunResult(s.simulation, s.params, s.seed, s.key, s.records, s.summary, s.provenance, True)
            for k in dict.fromkeys(sw["keys"]) if (s := stored.get(k)) is not None]
    missing = len(set(sw["keys"])) - len(runs)
    res = SweepResult(sw["simulation"], full, runs, n_cached=len(runs), n_computed=0, wall_time=0.0, spec=sw["spec"])
    res.spec["missing_points"] = missing
    return res


__all__ = ["RunResult", "SweepInterrupted", "SweepResult", "execute_point", "grid_points", "load", "run", "sweep"]
