"""The dask executor: a LocalCluster with 2 workers gives exactly the serial results."""

from __future__ import annotations

import os

import pandas as pd
import pytest

import toolkit

distributed = pytest.importorskip("distributed")


def test_local_cluster_two_workers_equals_serial(registry, tmp_path, example_site):
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [example_site, os.environ.get("PYTHONPATH", "")]
    )  # workers import the plugin
    grid = {"n_steps": [40, 80], "p": [0.3, 0.7]}
    serial = toolkit.sweep(
        "example.random_walk", grid, seeds="0:3", store=tmp_path / "serial.sqlite", registry=registry
    )
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    try:
        with distributed.Client(cluster) as client:
            assert len(client.scheduler_info()["workers"]) == 2
            on_dask = toolkit.sweep(
                "example.random_walk",
                grid,
                seeds="0:3",
                store=tmp_path / "dask.sqlite",
                registry=registry,
                executor="dask",
                address=cluster.scheduler_address,
            )
            workers = {w for r in on_dask.runs for w in [r.provenance["executor"]]}
    finally:
        cluster.close()
    assert on_dask.n_computed == 12 and workers == {"dask"}
    pd.testing.assert_frame_equal(serial.table, on_dask.table)


def test_dask_without_address_starts_a_local_cluster(registry, tmp_path, example_site):
    os.environ["PYTHONPATH"] = os.pathsep.join([example_site, os.environ.get("PYTHONPATH", "")])
    res = toolkit.sweep(
        "example.random_walk",
        {"n_steps": [10, 20]},
        seeds=[0],
        store=tmp_path / "d.sqlite",
        registry=registry,
        executor="dask",
        max_workers=2,
    )
    assert res.n_computed == 2


def test_unreachable_scheduler_is_a_clear_error(registry, tmp_path, monkeypatch):
    from toolkit.errors import ParameterError

    monkeypatch.setenv("TOOLKIT_DASK_TIMEOUT", "2")
    with pytest.raises(ParameterError, match="cannot reach the Dask scheduler"):
        toolkit.sweep(
            "example.random_walk",
            {"n_steps": [10]},
            seeds=[0],
            store=tmp_path / "d.sqlite",
            registry=registry,
            executor="dask",
            address="tcp://127.0.0.1:9",
        )
