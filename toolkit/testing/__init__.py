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
  LocalCluster, of two workers each, serve every check of a pytest run;
* ``claims``: every claim of a bound (with the bound's ``domain``) gives its expected verdict and
  agrees with its spot-check; a claim that is ``unknown (timed out)`` skips, it never fails;
* ``bound_expression``: a bound's expression is a real number (or +-inf) inside the bound's domain;
* ``column_names``: no result column is named like a parameter with another value (the table would show
  the result under the parameter's name, and a sweep would be mislabelled; the runner refuses such a point);
* ``global_random``: calling the simulation's function directly twice with the same seed, under
  different states of the global generators (``random``, ``numpy.random``, ``torch``), gives the same
  table: all randomness must come from ``seed`` (the runner seeds the global generators, which would hide it);
* ``quick_run`` runs every quick setting a simulation declares (``quick=[{...}, {...}]``), so that each
  branch they select is exercised;
* ``public_api`` and ``light_registration`` (one each per plugin, with ``hygiene=True``): the plugin imports only
  the toolkit's public modules, and registering it imports no heavy library (see
  :mod:`toolkit.testing.hygiene`);
* ``catalogue`` (one per plugin that defers): what its ``Deferred`` groups list (names, descriptions) is what
  they build.
* ``well_formed`` (every headline experiment): it has a description and ``run(quick)`` takes one argument;
* ``quick_run`` (the experiments chosen by ``experiments=``: none by default in ``plugin_checks``,
  all by default in ``experiment_checks``): ``run(True)`` returns an ExperimentOutcome with a
  non-empty table, valid comparisons and a plot that draws. Run the cheapest in the default tests
  (``experiments=["myplugin.cheap"]``) and all of them under a slow mark.

A check that a plugin fails for a known reason can be listed in ``expected_failed_checks={check id:
reason}`` (as in scikit-learn): it still runs, is reported as an expected failure (pytest's xfail), and
fails when it starts passing, so that the entry is removed.

A check whose dataset is missing raises :class:`~toolkit.errors.DatasetMissingError`; with the hooks
of :mod:`toolkit.testing.missing_data` in the ``conftest.py``, pytest skips it with the fetch command.
"""

from __future__ import annotations

import atexit
import concurrent.futures as cf
import json
import math
import re
import sys
import tempfile
import unittest
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from toolkit.config import canonical_params, validate_params
from toolkit.errors import DatasetMissingError, ResultColumnError, SpotCheckDisagreement
from toolkit.registry import Registry
from toolkit.specs import Bound, Experiment, Simulation


def _call(func: Callable[[], None]) -> None:
    """Run a check; the runner's refusal of a result column named like a parameter is a failed check."""
    try:
        func()
    except ResultColumnError as exc:
        raise AssertionError(str(exc)) from exc


@dataclass(frozen=True)
class PluginCheck:
    """One named check; call it to run (raises AssertionError on failure).

    With ``expected_failure`` (a reason) a failure is reported as expected (``pytest.xfail`` under
    pytest, else :class:`unittest.SkipTest`) and a pass raises AssertionError.
    """

    id: str
    func: Callable[[], None]
    expected_failure: str | None = None

    def __call__(self) -> None:
        if self.expected_failure is None:
            _call(self.func)
            return
        try:
            _call(self.func)
        except AssertionError as exc:
            reason = f"expected failure ({self.expected_failure}): {exc}"
            if "pytest" in sys.modules:
                sys.modules["pytest"].xfail(reason)
            raise unittest.SkipTest(reason) from None
        raise AssertionError(
            f"{self.id} passes but is listed in expected_failed_checks ({self.expected_failure}): "
            "remove it from the list"
        )

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


def quick_settings(sim: Simulation) -> list[dict[str, Any]]:
    """Every quick setting of ``sim`` (one unless it declares a list)."""
    return [dict(q) for q in getattr(sim, "quick_settings", ()) or (sim.quick,)]


def check_quick_run(sim: Simulation, registry: Registry) -> None:
    settings = quick_settings(sim)
    for i, quick in enumerate(settings):
        try:
            _check_quick_run(sim, registry, quick)
        except AssertionError as exc:
            if len(settings) == 1:
                raise
            raise AssertionError(f"quick setting {i} {quick}: {exc}") from None
        except Exception as exc:
            if len(settings) == 1:
                raise
            raise AssertionError(
                f"{sim.name}: quick setting {i} {quick} raised {type(exc).__name__}: {exc}"
            ) from exc


def _check_quick_run(sim: Simulation, registry: Registry, quick: dict[str, Any]) -> None:
    from toolkit.runner import run

    with tempfile.TemporaryDirectory() as tmp:
        result = run(sim, quick, seed=0, store=_store(Path(tmp)), registry=registry, cache=False)
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


def _direct_records(sim: Simulation, quick: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """What ``sim.func`` returns for ``quick`` and ``seed``, called directly (no runner, no seeding)."""
    from toolkit.runner import _normalize

    model = validate_params(sim.params, quick, owner=sim.name)
    records, _ = _normalize(sim.func(model, seed))
    return records


def check_column_names(sim: Simulation) -> None:
    """No result column named like a parameter holds something else (the runner's table puts the
    parameters beside the results, so the result would be shown under the parameter's name).

    A row may repeat a parameter's value, or one item of a list-valued parameter (a row per item).
    """
    from toolkit.runner import clashing_columns

    quick = dict(sim.quick)
    model = validate_params(sim.params, quick, owner=sim.name)
    clash = clashing_columns(_direct_records(sim, quick, 0), model.model_dump(), 0)
    assert not clash, (
        f"{sim.name}: result column(s) {', '.join(sorted(clash))} have a parameter's name but other values; "
        "rename them (e.g. '{0}_hat' or 'final_{0}'): the table holds the parameters beside the results".format(
            sorted(clash)[0]
        )
    )


def _scramble_global_generators(state: int) -> None:
    import random

    random.seed(state)
    try:
        import numpy as np

        np.random.seed(state)
    except ImportError:  # pragma: no cover
        pass
    if "torch" in sys.modules:
        sys.modules["torch"].manual_seed(state)


def check_global_random(sim: Simulation) -> None:
    """Same seed, two different global generator states, called directly: the same table."""
    import pandas as pd

    tables = []
    for state in (12345, 54321):
        _scramble_global_generators(state)
        tables.append(pd.DataFrame(_direct_records(sim, dict(sim.quick), 3)))
    volatile = wall_clock_columns(tables[0].columns)
    a, b = (t.drop(columns=[c for c in volatile if c in t.columns]) for t in tables)
    differ = _differing_columns(a, b)
    assert _tables_equal(a, b), (
        f"{sim.name}: called with the same seed under two different global random states, it gives different "
        f"results{' in column(s) ' + ', '.join(differ) if differ else ''}: it draws from the global generators "
        "(random, numpy.random or torch). Draw everything from a generator made from seed, e.g. "
        "numpy.random.default_rng(seed)"
    )


def _differing_columns(a: Any, b: Any) -> list[str]:
    """Columns whose values differ between two tables of the same shape (all of them otherwise)."""
    import pandas as pd

    if list(a.columns) != list(b.columns) or len(a) != len(b):
        return []
    out = []
    for col in a.columns:
        try:
            pd.testing.assert_series_equal(
                a[col].reset_index(drop=True), b[col].reset_index(drop=True), check_dtype=False
            )
        except AssertionError:
            out.append(str(col))
    return out


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


def _raise_if_data_missing(simulation: str, error: str) -> None:
    """A point that failed for want of its dataset raises DatasetMissingError again (the sweep keeps only its
    message), so that under pytest the check is skipped with the fetch command, as the other checks are."""
    kind, _, message = error.partition(": ")
    if kind == DatasetMissingError.__name__:
        named = re.match(r"dataset ([\w.-]+)", message)
        raise DatasetMissingError(f"{simulation}: {message}", dataset=named.group(1) if named else "")


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
                _raise_if_data_missing(sim.name, first.error)
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
        differ = _differing_columns(tables["serial"], table)
        assert _tables_equal(tables["serial"], table), (
            f"{sim.name}: the {name} executor gives a different table than serial for the same seeds"
            + (f" in column(s) {', '.join(differ)}" if differ else "")
            + " (wall-clock columns ignored)"
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

    from toolkit.report_figures import new_figure
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
        checks.append(PluginCheck(f"{exp.name}:well_formed", partial(check_experiment_well_formed, exp)))
        if quick is True or (not isinstance(quick, bool) and exp.name in quick):
            checks.append(PluginCheck(f"{exp.name}:quick_run", partial(check_experiment_quick_run, exp)))
    return checks


def plugin_checks(
    plugin: str,
    *,
    registry: Registry | None = None,
    experiments: bool | Sequence[str] = False,
    expected_failed_checks: Mapping[str, str] | None = None,
    hygiene: bool = True,
) -> list[PluginCheck]:
    """Every check for every simulation, bound and headline experiment registered by ``plugin`` (pytest parameters).

    :param experiments: which headline experiments also run in quick mode: False (the default:
        quick runs of real experiments take seconds to minutes each, which a default test run
        should not pay for every plugin), True for all, or a list of names (the cheapest ones).
        Every experiment gets its ``:well_formed`` check regardless.
    :param expected_failed_checks: ``{check id: reason}`` for checks known to fail: they are reported
        as expected failures, and fail once they pass.
    :param hygiene: add the plugin's ``public_api`` and ``light_registration`` checks (the latter
        starts a fresh interpreter: about a second).
    """
    checks = _plugin_checks(plugin, registry=registry, experiments=experiments, hygiene=hygiene)
    expected = dict(expected_failed_checks or {})
    unknown = sorted(set(expected) - {c.id for c in checks})
    if unknown:
        raise LookupError(
            f"expected_failed_checks names no check of plugin {plugin!r}: {', '.join(unknown)}; "
            f"its checks are: {', '.join(c.id for c in checks)}"
        )
    return [PluginCheck(c.id, c.func, expected[c.id]) if c.id in expected else c for c in checks]


def _plugin_checks(
    plugin: str, *, registry: Registry | None, experiments: bool | Sequence[str], hygiene: bool
) -> list[PluginCheck]:
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
            PluginCheck(f"{sim.name}:defaults", partial(check_defaults, sim)),
            PluginCheck(f"{sim.name}:quick_run", partial(check_quick_run, sim, registry)),
            PluginCheck(f"{sim.name}:column_names", partial(check_column_names, sim)),
            PluginCheck(f"{sim.name}:deterministic", partial(check_deterministic, sim, registry)),
            PluginCheck(f"{sim.name}:global_random", partial(check_global_random, sim)),
            PluginCheck(f"{sim.name}:store_roundtrip", partial(check_store_roundtrip, sim, registry)),
            PluginCheck(f"{sim.name}:executors", partial(check_executors, sim, registry)),
        ]
    for bound in owned["bounds"]:
        if bound.claims:
            checks.append(PluginCheck(f"{bound.name}:claims", partial(check_claims, bound)))
        if bound.expression is not None:
            checks.append(
                PluginCheck(f"{bound.name}:bound_expression", partial(check_bound_expression, bound))
            )
    if owned["experiments"]:
        checks += experiment_checks(plugin, registry=registry, quick=experiments)
    if registry.defers(plugin):
        checks.append(PluginCheck(f"{plugin}:catalogue", lambda: check_catalogue(registry, plugin)))
    on_disk = info is not None and getattr(sys.modules.get(info.module), "__file__", None)
    if hygiene and info is not None and on_disk:  # a module built in memory has no files to read
        from toolkit.testing.hygiene import check_light_registration, check_public_api

        module = info.module
        checks += [
            PluginCheck(f"{plugin}:public_api", lambda: check_public_api(module, plugin)),
            PluginCheck(f"{plugin}:light_registration", lambda: check_light_registration(module, plugin)),
        ]
    return checks


def check_plugin(
    plugin: str,
    *,
    registry: Registry | None = None,
    experiments: bool | Sequence[str] = False,
    expected_failed_checks: Mapping[str, str] | None = None,
    hygiene: bool = True,
) -> list[tuple[str, str]]:
    """Run every check of ``plugin``; returns ``[(check id, failure message), ...]`` (empty: all pass;
    an expected failure is not listed, an expected failure that passes is)."""
    failures = []
    for check in plugin_checks(
        plugin,
        registry=registry,
        experiments=experiments,
        expected_failed_checks=expected_failed_checks,
        hygiene=hygiene,
    ):
        try:
            _call(check.func)
        except AssertionError as exc:
            if check.expected_failure is None:
                failures.append((check.id, str(exc)))
            continue
        except unittest.SkipTest:  # e.g. a claim that timed out: not a failure of the plugin
            continue
        if check.expected_failure is not None:
            failures.append(
                (check.id, f"passes but is listed in expected_failed_checks ({check.expected_failure})")
            )
    return failures


__all__ = [
    "EXECUTOR_SEEDS",
    "PluginCheck",
    "check_catalogue",
    "check_column_names",
    "check_executors",
    "check_global_random",
    "check_plugin",
    "experiment_checks",
    "plugin_checks",
    "quick_settings",
    "wall_clock_columns",
]
