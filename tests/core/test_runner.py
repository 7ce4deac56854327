"""run / sweep: tidy tables, seeding, caching, resuming interrupted sweeps, executors."""

from __future__ import annotations

import pandas as pd
import pytest

import toolkit
from toolkit.errors import ParameterError
from toolkit.store import RunStore


def test_run_returns_tidy_table_with_params_and_seed(registry, store_path):
    res = toolkit.run(
        "example.random_walk", {"n_steps": 50, "record_every": 5}, seed=7, store=store_path, registry=registry
    )
    table = res.table
    assert len(table) == 10
    assert {"simulation", "n_steps", "p", "record_every", "seed", "step", "position", "max_abs"} <= set(
        table.columns
    )
    assert (table["seed"] == 7).all() and (table["n_steps"] == 50).all()
    assert set(res.summary) == {"final", "max_abs", "drift"}
    assert res.provenance["plugin"] == "example" and res.provenance["plugin_version"] == "0.3.0"
    assert res.provenance["wall_time"] >= 0 and "python" in res.provenance


def test_same_seed_same_result_and_different_seed_differs(registry, tmp_path):
    a = toolkit.run(
        "example.random_walk", {"n_steps": 500}, seed=1, store=tmp_path / "a.sqlite", registry=registry
    )
    b = toolkit.run(
        "example.random_walk", {"n_steps": 500}, seed=1, store=tmp_path / "b.sqlite", registry=registry
    )
    c = toolkit.run(
        "example.random_walk", {"n_steps": 500}, seed=2, store=tmp_path / "b.sqlite", registry=registry
    )
    pd.testing.assert_frame_equal(a.table, b.table)
    assert not a.table["position"].equals(c.table["position"])


def test_second_run_is_served_from_store_and_no_cache_recomputes(registry, store_path):
    first = toolkit.run("example.random_walk", {"n_steps": 30}, seed=0, store=store_path, registry=registry)
    again = toolkit.run("example.random_walk", {"n_steps": 30}, seed=0, store=store_path, registry=registry)
    fresh = toolkit.run(
        "example.random_walk", {"n_steps": 30}, seed=0, store=store_path, registry=registry, cache=False
    )
    assert (first.from_cache, again.from_cache, fresh.from_cache) == (False, True, False)
    pd.testing.assert_frame_equal(first.table, again.table)
    assert first.key == again.key == fresh.key


def test_defaults_and_explicit_defaults_share_a_key(registry, store_path):
    a = toolkit.run("example.random_walk", {}, seed=0, store=store_path, registry=registry)
    b = toolkit.run(
        "example.random_walk", {"n_steps": 100, "p": 0.5}, seed=0, store=store_path, registry=registry
    )
    assert a.key == b.key and b.from_cache


def test_bounds_named_by_a_simulation_are_checked(registry, store_path):
    res = toolkit.run("example.random_walk", {"n_steps": 100}, seed=0, store=store_path, registry=registry)
    assert set(res.checks["bound"]) == {"example.walk_range"}
    assert res.checks["holds"].all() and (res.checks["margin"] >= 0).all()


def test_bad_params_and_seed(registry, store_path):
    with pytest.raises(ParameterError, match="n_steps"):
        toolkit.run("example.random_walk", {"n_steps": 0}, store=store_path, registry=registry)
    with pytest.raises(ParameterError, match="seed must be a non-negative integer"):
        toolkit.run("example.random_walk", {}, seed=-1, store=store_path, registry=registry)


def test_sweep_product_and_resume(registry, store_path):
    grid = {"n_steps": [10, 20], "p": [0.2, 0.8]}
    first = toolkit.sweep("example.random_walk", grid, seeds="0:3", store=store_path, registry=registry)
    assert (first.n_computed, first.n_cached) == (12, 0)
    summary = first.summary_table
    assert len(summary) == 12 and set(summary["seed"]) == {0, 1, 2}
    again = toolkit.sweep("example.random_walk", grid, seeds="0:3", store=store_path, registry=registry)
    assert (again.n_computed, again.n_cached) == (0, 12)
    pd.testing.assert_frame_equal(first.table, again.table)
    bigger = toolkit.sweep(
        "example.random_walk",
        {**grid, "n_steps": [10, 20, 40]},
        seeds="0:3",
        store=store_path,
        registry=registry,
    )
    assert (bigger.n_computed, bigger.n_cached) == (6, 12)
    assert bigger.checks["holds"].all()


def test_sweep_validates_every_point_before_running(registry, store_path):
    with pytest.raises(ParameterError, match="parameter 'p'"):
        toolkit.sweep(
            "example.random_walk", {"p": [0.5, 1.5]}, seeds=[0], store=store_path, registry=registry
        )
    assert RunStore(store_path).count() == 0


def test_processes_executor_equals_serial(registry, tmp_path):
    grid = {"n_steps": [50, 60, 70]}
    serial = toolkit.sweep(
        "example.random_walk", grid, seeds="0:2", store=tmp_path / "s.sqlite", registry=registry
    )
    procs = toolkit.sweep(
        "example.random_walk",
        grid,
        seeds="0:2",
        store=tmp_path / "p.sqlite",
        registry=registry,
        executor="processes",
        max_workers=2,
    )
    assert procs.n_computed == 6
    pd.testing.assert_frame_equal(serial.table, procs.table)
    assert {r.provenance["executor"] for r in procs.runs} == {"processes"}


def test_any_concurrent_futures_executor(registry, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        res = toolkit.sweep(
            "example.random_walk",
            {"n_steps": [5, 6]},
            seeds=[0],
            store=tmp_path / "t.sqlite",
            registry=registry,
            executor=pool,
        )
    assert res.n_computed == 2


def test_unknown_executor(registry, store_path):
    with pytest.raises(ParameterError, match="executor must be one of serial, processes, dask"):
        toolkit.sweep(
            "example.random_walk", {"n_steps": [5]}, executor="threads", store=store_path, registry=registry
        )


def test_load_by_id_prefix(registry, store_path):
    res = toolkit.sweep(
        "example.random_walk", {"n_steps": [5, 6]}, seeds=[0, 1], store=store_path, registry=registry
    )
    loaded = toolkit.load(res.sweep_id[:8], store=store_path)
    pd.testing.assert_frame_equal(loaded.table, res.table)
    one = toolkit.load(res.runs[0].key[:10], store=store_path)
    pd.testing.assert_frame_equal(one.table, res.runs[0].table)


# Interruption, kills and failing points: test_sweep_faults.py (the fault matrix, serial and processes).
