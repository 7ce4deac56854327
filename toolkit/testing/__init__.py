"""The public harness for plugin authors: check every simulation and bound a plugin registers.

In a plugin's test suite::

    import pytest
    from toolkit.testing import plugin_checks

    @pytest.mark.parametrize("check", plugin_checks("myplugin"), ids=str)
    def test_plugin_contract(check):
        check()

or, outside pytest, ``check_plugin("myplugin")`` returns the list of failures (empty when all pass).

The checks, one per simulation or bound (sklearn's ``check_estimator`` style):

* ``defaults``: the default parameters validate and round-trip through JSON;
* ``quick_run``: a quick run (``Simulation.quick`` overrides) returns a non-empty tidy table with
  the parameters and seed as columns, and respects the bounds the simulation names;
* ``deterministic``: the same seed gives the same table (wall-clock columns, those whose name
  contains ``time`` or ends in ``_s``, are left out of the comparison: name timings that way);
* ``store_roundtrip``: a result written to the run store reads back equal and is served from it;
* ``executors``: a sweep of the quick parameters over seeds 0 and 1 gives the same table (wall-clock
  columns aside) on the ``serial``, ``processes`` and ``dask`` executors (so the simulation's function
  and parameters must pickle: define them at module level). One process pool and one Dask
  LocalCluster, of two workers each, serve every check of a test session;
* ``claims``: every claim of a bound gives its expected verdict and agrees with its spot-check;
* ``bound_expression``: a bound's expression evaluates to a finite number;
* ``catalogue`` (one per plugin that defers): what its ``Deferred`` groups list (names, descriptions) is what
  they build.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import json
import math
import sys
import tempfile
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.config import canonical_params, validate_params
from toolkit.errors import SpotCheckDisagreement
from toolkit.registry import Registry
from toolkit.specs import Bound, Simulation


@dataclass(frozen=True)
class PluginCheck:
    """One named check; call it to run (raises AssertionError on failure)."""

    id: str
    func: Callable[[], None]

    def __call__(self) -> None:
        self.func()

    def __str__(self) -> str:
        return self.id


def _tables_equal(a: Any, b: Any) -> bool:
    import pandas as pd

    try:
        pd.testing.assert_frame_equal(a.reset_index(drop=True), b.reset_index(drop=True), check_dtype=False)
        return True
    except AssertionError:
        return False


def _store(tmp: Path) -> Path:
    return tmp / "harness.sqlite"


def check_defaults(sim: Simulation) -> None:
    model = validate_params(sim.params, {}, owner=sim.name)
    dumped = json.dumps(canonical_params(model))
    again = validate_params(sim.params, json.loads(dumped), owner=sim.name)
    assert again == model, f"{sim.name}: parameters do not round-trip through JSON: {model!r} -> {again!r}"
    quick = validate_params(sim.params, dict(sim.quick), owner=sim.name)
    assert quick is not None


def check_quick_run(sim: Simulation, registry: Registry) -> None:
    from toolkit.runner import run

    with tempfile.TemporaryDirectory() as tmp:
        result = run(sim, dict(sim.quick), seed=0, store=_store(Path(tmp)), registry=registry, cache=False)
        table = result.table
        assert len(table) > 0, f"{sim.name}: the quick run returned no rows"
        assert "seed" in table.columns and (table["seed"] == 0).all(), f"{sim.name}: the table lacks the seed column"
        for name in sim.params.model_fields:
            assert name in table.columns, f"{sim.name}: parameter {name!r} is not a column of the table"
        if result.checks is not None and len(result.checks):
            active = result.checks[~result.checks["skipped"].astype(bool)]
            bad = active[~active["holds"].astype(bool)]
            assert bad.empty, f"{sim.name}: quick run violates its bounds:\n{bad.to_string()}"


def wall_clock_columns(columns: Any) -> list[str]:
    """The columns the determinism check ignores: names containing ``time`` or ending in ``_s``."""
    return [c for c in columns if "time" in str(c).lower() or str(c).lower().endswith("_s")]


def check_deterministic(sim: Simulation, registry: Registry) -> None:
    from toolkit.runner import run

    with tempfile.TemporaryDirectory() as tmp:
        a = run(sim, dict(sim.quick), seed=1, store=_store(Path(tmp)), registry=registry, cache=False, check=False)
        b = run(sim, dict(sim.quick), seed=1, store=_store(Path(tmp)), registry=registry, cache=False, check=False)
    volatile = wall_clock_columns(a.table.columns)
    ta, tb = a.table.drop(columns=volatile), b.table.drop(columns=volatile)
    assert _tables_equal(ta, tb), f"{sim.name}: the same seed gave different results (wall-time columns ignored)"


def check_store_roundtrip(sim: Simulation, registry: Registry) -> None:
    from toolkit.runner import run

    with tempfile.TemporaryDirectory() as tmp:
        path = _store(Path(tmp))
        first = run(sim, dict(sim.quick), seed=2, store=path, registry=registry, check=False)
        again = run(sim, dict(sim.quick), seed=2, store=path, registry=registry, check=False)
    assert not first.from_cache and again.from_cache, f"{sim.name}: the second run was not served from the store"
    assert _tables_equal(first.table, again.table), f"{sim.name}: the stored table differs from the computed one"


EXECUTOR_SEEDS = (0, 1)
"""Seeds of the executors check: two points, so that the parallel executors really run in parallel."""

_SHARED: dict[str, Any] = {}


def _with_sys_path(path: tuple[str, ...], fn: Callable[..., Any], *args: Any) -> Any:
    """Run ``fn`` with the caller's ``sys.path`` (a pool started earlier may miss a plugin added since)."""
    for entry in reversed(path):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    return fn(*args)


def _noop() -> None:
    return None


class _PathSyncing(cf.Executor):
    """An executor handing each task the submitter's ``sys.path``; shutting it down leaves the shared pool up."""

    def __init__(self, inner: Any, name: str) -> None:
        self.inner, self.name = inner, name

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        return self.inner.submit(_with_sys_path, tuple(sys.path), fn, *args)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        pass


def _shared_pool() -> cf.ProcessPoolExecutor:
    from toolkit.executors import process_pool

    pool = _SHARED.get("processes")
    if pool is None or getattr(pool, "_broken", False):
        # forkserver: the test session has threads (Dask's among them), which fork does not carry safely
        pool = _SHARED["processes"] = process_pool(2, method="forkserver")
        atexit.register(pool.shutdown, wait=False, cancel_futures=True)
    return pool


def _shared_dask_client() -> Any:
    """A client of a two-worker LocalCluster started on first use, or None when distributed is not installed."""
    if "dask" not in _SHARED:
        try:
            import distributed
        except ImportError:
            _SHARED["dask"] = None
            return None
        from toolkit.executors import _init_worker

        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = distributed.Client(cluster)
        client.run(_init_worker)
        _SHARED["dask"] = client

        def close() -> None:
            client.close()
            cluster.close()

        atexit.register(close)
    return _SHARED["dask"]


def check_executors(sim: Simulation, registry: Registry) -> None:
    from toolkit.runner import SweepAborted, SweepFailed, sweep

    legs: list[tuple[str, Any]] = [("serial", "serial"), ("processes", _PathSyncing(_shared_pool(), "processes"))]
    client = _shared_dask_client()
    if client is None:
        warnings.warn("distributed is not installed: the executors check compares serial and processes only",
                      stacklevel=2)
    else:
        legs.append(("dask", client))
    tables = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, executor in legs:
            if name == "dask":
                client.run(_with_sys_path, tuple(sys.path), _noop)
            try:
                res = sweep(sim, None, list(EXECUTOR_SEEDS), params=dict(sim.quick), executor=executor,
                            store=Path(tmp) / f"{name}.sqlite", registry=registry, cache=False, check=False,
                            progress=False)
            except SweepFailed as exc:
                first = exc.result.failures[0]
                raise AssertionError(f"{sim.name}: on the {name} executor a quick point raised {first.error}\n"
                                     f"{first.traceback}") from None
            except SweepAborted as exc:
                raise AssertionError(f"{sim.name}: the {name} executor could not run it ({exc}); its function and "
                                     "parameters must pickle (define them at module level)") from None
            table = res.table
            tables[name] = table.drop(columns=wall_clock_columns(table.columns))
    for name, table in tables.items():
        if name == "serial":
            continue
        assert list(table.columns) == list(tables["serial"].columns), (
            f"{sim.name}: the {name} executor gives columns {list(table.columns)}, serial {list(tables['serial'].columns)}")
        assert _tables_equal(tables["serial"], table), (
            f"{sim.name}: the {name} executor gives a different table than serial for the same seeds "
            "(wall-clock columns ignored)")


def check_claims(bound: Bound) -> None:
    for claim in bound.claims:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SpotCheckDisagreement)
            verdict = claim.check(seed=0)
        disagreements = [w for w in caught if issubclass(w.category, SpotCheckDisagreement)]
        assert not disagreements, f"{bound.name}/{claim.name}: {disagreements[0].message}"
        assert verdict.status == claim.expect, (
            f"{bound.name}/{claim.name}: verdict {verdict.status!r} ({verdict.method}; {verdict.detail}), "
            f"expected {claim.expect!r}")


def check_bound_expression(bound: Bound) -> None:
    if bound.expression is None or not hasattr(bound.expression, "free_symbols"):
        return
    from toolkit.checks import bound_function
    from toolkit.symbolic import point_as_dict, sample_points

    value = bound_function(bound)
    symbols = sorted(bound.expression.free_symbols, key=lambda s: s.name)
    domain = {}
    for claim in bound.claims:
        domain.update(claim.domain)
    for point in sample_points(symbols, domain, 5, seed=0):
        row = {bound.columns.get(k, k): v for k, v in point_as_dict(point).items()}
        number = value(row)
        assert math.isfinite(number) or math.isinf(number), f"{bound.name}: expression is not a number at {row}"


def check_catalogue(registry: Registry, plugin: str) -> None:
    """The names and descriptions a plugin's ``Deferred`` groups list are those of the specs they build."""
    problems = registry.catalogue_mismatches(plugin)
    assert not problems, "\n".join(problems)


def plugin_checks(plugin: str, *, registry: Registry | None = None) -> list[PluginCheck]:
    """Every check for every simulation and bound registered by ``plugin`` (pytest parameters)."""
    registry = registry or Registry.from_manager()
    owned = registry.by_plugin(plugin)
    if not any(owned.values()):
        known = ", ".join(sorted(registry.plugins())) or "none"
        raise LookupError(f"plugin {plugin!r} registers nothing (loaded plugins: {known}); is it installed and enabled?")
    checks: list[PluginCheck] = []
    for sim in owned["simulations"]:
        checks += [
            PluginCheck(f"{sim.name}:defaults", lambda s=sim: check_defaults(s)),
            PluginCheck(f"{sim.name}:quick_run", lambda s=sim: check_quick_run(s, registry)),
            PluginCheck(f"{sim.name}:deterministic", lambda s=sim: check_deterministic(s, registry)),
            PluginCheck(f"{sim.name}:store_roundtrip", lambda s=sim: check_store_roundtrip(s, registry)),
            PluginCheck(f"{sim.name}:executors", lambda s=sim: check_executors(s, registry)),
        ]
    for bound in owned["bounds"]:
        if bound.claims:
            checks.append(PluginCheck(f"{bound.name}:claims", lambda b=bound: check_claims(b)))
        if bound.expression is not None:
            checks.append(PluginCheck(f"{bound.name}:bound_expression", lambda b=bound: check_bound_expression(b)))
    if registry.defers(plugin):
        checks.append(PluginCheck(f"{plugin}:catalogue", lambda: check_catalogue(registry, plugin)))
    return checks


def check_plugin(plugin: str, *, registry: Registry | None = None) -> list[tuple[str, str]]:
    """Run every check of ``plugin``; returns ``[(check id, failure message), ...]`` (empty: all pass)."""
    failures = []
    for check in plugin_checks(plugin, registry=registry):
        try:
            check()
        except AssertionError as exc:
            failures.append((check.id, str(exc)))
    return failures


__all__ = ["EXECUTOR_SEEDS", "PluginCheck", "check_catalogue", "check_executors", "check_plugin", "plugin_checks",
           "wall_clock_columns"]
