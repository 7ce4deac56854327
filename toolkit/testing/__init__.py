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
* ``claims``: every claim of a bound (with the bound's ``domain``) gives its expected verdict and
  agrees with its spot-check; a claim that is ``unknown (timed out)`` skips, it never fails;
* ``bound_expression``: a bound's expression is a real number (or +-inf) inside the bound's domain;
* ``catalogue`` (one per plugin that defers): what its ``Deferred`` groups list (names, descriptions) is what
  they build.
* ``well_formed`` (every headline experiment): it has a description and ``run(quick)`` takes one argument;
* ``quick_run`` (the experiments chosen by ``experiments=``: none by default in ``plugin_checks``,
  all by default in ``experiment_checks``): ``run(True)`` returns an ExperimentOutcome with a
  non-empty table, valid comparisons and a plot that draws. Run the cheapest in the default tests
  (``experiments=["myplugin.cheap"]``) and all of them under a slow mark.

A check whose dataset is missing raises :class:`~toolkit.errors.DatasetMissingError`; with the hooks
of :mod:`toolkit.testing.missing_data` in the ``conftest.py``, pytest skips it with the fetch command.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import json
import math
import sys
import tempfile
import unittest
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.config import canonical_params, validate_params
from toolkit.errors import SpotCheckDisagreement
from toolkit.registry import Registry
from toolkit.specs import Bound, Experiment, Simulation


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
        assert "seed" in table.columns and (table["seed"] == 0).all(), (
            f"{sim.name}: the table lacks the seed column"
        )
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
        a = run(
            sim, dict(sim.quick), seed=1, store=_store(Path(tmp)), registry=registry, cache=False, check=False
        )
        b = run(
            sim, dict(sim.quick), seed=1, store=_store(Path(tmp)), registry=registry, cache=False, check=False
        )
    volatile = wall_clock_columns(a.table.columns)
    ta, tb = a.table.drop(columns=volatile), b.table.drop(columns=volatile)
    assert _tables_equal(ta, tb), (
        f"{sim.name}: the same seed gave different results (wall-time columns ignored)"
    )


def check_store_roundtrip(sim: Simulation, registry: Registry) -> None:
    from toolkit.runner import run

    with tempfile.TemporaryDirectory() as tmp:
        path = _store(Path(tmp))
        first = run(sim, dict(sim.quick), seed=2, store=path, registry=registry, check=False)
        again = run(sim, dict(sim.quick), seed=2, store=path, registry=registry, check=False)
    assert not first.from_cache and again.from_cache, (
        f"{sim.name}: the second run was not served from the store"
    )
    assert _tables_equal(first.table, again.table), (
        f"{sim.name}: the stored table differs from the computed one"
    )


EXECUTOR_SEEDS = (0, 1)
"""Seeds of the executors check: two points, so that the parallel executors really run in parallel."""

_SHARED: dict[str, Any] = {}


def _extend_sys_path(path: tuple[str, ...]) -> None:
    """Put the caller's ``sys.path`` entries first (a worker started earlier may miss a plugin added since)."""
    for entry in reversed(path):
        if entry not in sys.path:
            sys.path.insert(0, entry)


def _call_pickled_with_sys_path(path: tuple[str, ...], call: bytes) -> Any:
    """Set the caller's ``sys.path``, then unpickle and run ``(fn, args)``: unpickling the call before the
    path is set would fail to import a plugin added to ``sys.path`` after the pool started."""
    import pickle

    _extend_sys_path(path)
    fn, args = pickle.loads(call)
    return fn(*args)


class _PathSyncing(cf.Executor):
    """An executor handing each task the submitter's ``sys.path``; shutting it down leaves the shared pool up."""

    def __init__(self, inner: Any, name: str) -> None:
        self.inner, self.name = inner, name

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        import pickle

        return self.inner.submit(_call_pickled_with_sys_path, tuple(sys.path), pickle.dumps((fn, args)))

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

        cluster = distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        )
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

    legs: list[tuple[str, Any]] = [
        ("serial", "serial"),
        ("processes", _PathSyncing(_shared_pool(), "processes")),
    ]
    client = _shared_dask_client()
    if client is None:
        warnings.warn(
            "distributed is not installed: the executors check compares serial and processes only",
            stacklevel=2,
        )
    else:
        legs.append(("dask", client))
    tables = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, executor in legs:
            if name == "dask":
                client.run(_extend_sys_path, tuple(sys.path))
            try:
                res = sweep(
                    sim,
                    None,
                    list(EXECUTOR_SEEDS),
                    params=dict(sim.quick),
                    executor=executor,
                    store=Path(tmp) / f"{name}.sqlite",
                    registry=registry,
                    cache=False,
                    check=False,
                    progress=False,
                )
            except SweepFailed as exc:
                first = exc.result.failures[0]
                raise AssertionError(
                    f"{sim.name}: on the {name} executor a quick point raised {first.error}\n"
                    f"{first.traceback}"
                ) from None
            except SweepAborted as exc:
                raise AssertionError(
                    f"{sim.name}: the {name} executor could not run it ({exc}); its function and "
                    "parameters must pickle (define them at module level)"
                ) from None
            table = res.table
            tables[name] = table.drop(columns=wall_clock_columns(table.columns))
    for name, table in tables.items():
        if name == "serial":
            continue
        assert list(table.columns) == list(tables["serial"].columns), (
            f"{sim.name}: the {name} executor gives columns {list(table.columns)}, serial {list(tables['serial'].columns)}"
        )
        assert _tables_equal(tables["serial"], table), (
            f"{sim.name}: the {name} executor gives a different table than serial for the same seeds "
            "(wall-clock columns ignored)"
        )


def check_claims(bound: Bound) -> None:
    """Each claim (with the bound's domain) gives its expected verdict; a timeout skips, never fails."""
    from toolkit.proving import bound_claims

    timed_out = []
    for claim in bound_claims(bound):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SpotCheckDisagreement)
            verdict = claim.check(seed=0)
        disagreements = [w for w in caught if issubclass(w.category, SpotCheckDisagreement)]
        assert not disagreements, f"{bound.name}/{claim.name}: {disagreements[0].message}"
        if verdict.timed_out:
            timed_out.append(f"{claim.name} ({verdict.detail})")
            continue
        assert verdict.status == claim.expect, (
            f"{bound.name}/{claim.name}: verdict {verdict.status!r} ({verdict.method}; {verdict.detail}), "
            f"expected {claim.expect!r}"
        )
    if timed_out:
        raise unittest.SkipTest(f"{bound.name}: unknown (timed out): {'; '.join(timed_out)}")


def check_bound_expression(bound: Bound) -> None:
    """The expression is a real number (or +-inf) at points sampled inside the bound's domain."""
    if bound.expression is None or not hasattr(bound.expression, "free_symbols"):
        return
    from toolkit.checks import bound_function
    from toolkit.symbolic import domain_by_name, point_as_dict, sample_points

    value = bound_function(bound)
    symbols = sorted(bound.expression.free_symbols, key=lambda s: s.name)
    domain = {}
    for claim in bound.claims:
        domain.update(domain_by_name(symbols, claim.domain))
    domain.update(domain_by_name(symbols, bound.domain))  # the bound's own domain wins
    hint = "" if bound.domain else " (declare where the bound holds with Bound(domain={symbol: (low, high)}))"
    for point in sample_points(symbols, domain, 5, seed=0):
        row = {bound.columns.get(k, k): v for k, v in point_as_dict(point).items()}
        try:
            number = value(row)
        except (ValueError, ArithmeticError, TypeError) as exc:
            raise AssertionError(
                f"{bound.name}: expression is not a real number at {row}: {exc}{hint}"
            ) from None
        assert not math.isnan(number), f"{bound.name}: expression is not a number at {row}{hint}"


def check_catalogue(registry: Registry, plugin: str) -> None:
    """The names and descriptions a plugin's ``Deferred`` groups list are those of the specs they build."""
    problems = registry.catalogue_mismatches(plugin)
    assert not problems, "\n".join(problems)


def check_experiment_well_formed(exp: Experiment) -> None:
    """A headline experiment as ``toolkit reproduce`` needs it, without running it.

    It has a description (the report's first line), and ``run`` is a callable taking ``quick``.
    """
    import inspect

    assert exp.description.strip(), f"{exp.name}: the experiment has no description (the report shows it)"
    assert callable(exp.run), f"{exp.name}: run must be a callable run(quick: bool) -> ExperimentOutcome"
    try:
        inspect.signature(exp.run).bind(True)
    except TypeError as exc:
        raise AssertionError(f"{exp.name}: run(quick) cannot be called with one argument: {exc}") from None
    except ValueError:  # no signature (a builtin): nothing to check
        pass


def check_experiment_quick_run(exp: Experiment) -> None:
    """``run(quick=True)`` returns an ExperimentOutcome that the report can write.

    A non-empty table, Comparison lines whose ``ok`` is True / False / None, and a plot (if any)
    that draws on a figure. Whether the claims are met is the report's business, not a failure
    here (quick settings are small). A missing dataset propagates: under pytest (with
    ``toolkit.testing.missing_data``) the check is skipped with the fetch command.
    """
    import pandas as pd

    from toolkit.report import new_figure
    from toolkit.specs import Comparison, ExperimentOutcome

    outcome = exp.run(True)
    assert isinstance(outcome, ExperimentOutcome), (
        f"{exp.name}: run(True) returned {type(outcome).__name__}, not ExperimentOutcome"
    )
    assert isinstance(outcome.table, pd.DataFrame) and len(outcome.table), (
        f"{exp.name}: the quick run's table is empty"
    )
    for c in outcome.comparisons:
        assert isinstance(c, Comparison), (
            f"{exp.name}: comparisons must be Comparison objects, got {type(c).__name__}"
        )
        assert c.ok in (True, False, None), (
            f"{exp.name}: Comparison {c.claim!r}: ok must be True, False or None"
        )
    if outcome.plot is not None:
        fig = new_figure()
        outcome.plot(fig)
        assert fig.axes, f"{exp.name}: the plot drew no axes"


def experiment_checks(
    plugin: str, *, registry: Registry | None = None, quick: bool | Sequence[str] = True
) -> list[PluginCheck]:
    """Checks of ``plugin``'s headline experiments: ``:well_formed`` for each, ``:quick_run`` as chosen.

    :param quick: True runs every experiment in quick mode, False none, a list of names only those
        (a plugin whose quick runs are long can keep the cheapest in its default tests and mark
        the others slow).
    """
    registry = registry or Registry.from_manager()
    owned = registry.by_plugin(plugin)["experiments"]
    unknown = [] if isinstance(quick, bool) else [n for n in quick if n not in {e.name for e in owned}]
    if unknown:
        raise LookupError(
            f"plugin {plugin!r} has no experiment(s) {', '.join(unknown)}; "
            f"it has: {', '.join(e.name for e in owned) or 'none'}"
        )
    checks = []
    for exp in owned:
        checks.append(PluginCheck(f"{exp.name}:well_formed", lambda e=exp: check_experiment_well_formed(e)))
        if quick is True or (not isinstance(quick, bool) and exp.name in quick):
            checks.append(PluginCheck(f"{exp.name}:quick_run", lambda e=exp: check_experiment_quick_run(e)))
    return checks


def plugin_checks(
    plugin: str, *, registry: Registry | None = None, experiments: bool | Sequence[str] = False
) -> list[PluginCheck]:
    """Every check for every simulation, bound and headline experiment registered by ``plugin`` (pytest parameters).

    :param experiments: which headline experiments also run in quick mode: False (the default:
        quick runs of real experiments take seconds to minutes each, which a default test run
        should not pay for every plugin), True for all, or a list of names (the cheapest ones).
        Every experiment gets its ``:well_formed`` check regardless.
    """
    registry = registry or Registry.from_manager()
    owned = registry.by_plugin(plugin)
    info = registry.manager.plugin_infos.get(plugin)
    if info is not None and info.status == "failed":
        raise LookupError(f"plugin {plugin!r} failed to load: {info.error}")
    if not any(owned.values()):
        known = ", ".join(sorted(registry.plugins())) or "none"
        raise LookupError(
            f"plugin {plugin!r} registers nothing (loaded plugins: {known}); is it installed and enabled?"
        )
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
            checks.append(
                PluginCheck(f"{bound.name}:bound_expression", lambda b=bound: check_bound_expression(b))
            )
    if owned["experiments"]:
        checks += experiment_checks(plugin, registry=registry, quick=experiments)
    if registry.defers(plugin):
        checks.append(PluginCheck(f"{plugin}:catalogue", lambda: check_catalogue(registry, plugin)))
    return checks


def check_plugin(
    plugin: str, *, registry: Registry | None = None, experiments: bool | Sequence[str] = False
) -> list[tuple[str, str]]:
    """Run every check of ``plugin``; returns ``[(check id, failure message), ...]`` (empty: all pass)."""
    failures = []
    for check in plugin_checks(plugin, registry=registry, experiments=experiments):
        try:
            check()
        except AssertionError as exc:
            failures.append((check.id, str(exc)))
        except unittest.SkipTest:  # e.g. a claim that timed out: not a failure of the plugin
            pass
    return failures


__all__ = [
    "EXECUTOR_SEEDS",
    "PluginCheck",
    "check_catalogue",
    "check_executors",
    "check_plugin",
    "experiment_checks",
    "plugin_checks",
    "wall_clock_columns",
]
