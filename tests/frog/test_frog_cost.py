"""frog.graph_sizes declares what a point costs: the core refuses a link table that cannot fit, before any work."""

from __future__ import annotations

import pytest

from toolkit.cli import main
from toolkit.config import validate_params
from toolkit.registry import get_registry

GIB = 2**30


def test_a_huge_link_table_is_refused_with_exit_2_naming_it(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("TOOLKIT_POINT_MEMORY", str(16 * GIB))
    with pytest.raises(SystemExit) as info:
        main(
            ["--store", str(tmp_path / "runs.sqlite"), "run", "frog.graph_sizes", "-p", "n_rows=100000000000"]
        )
    err = " ".join(capsys.readouterr().err.split())
    assert info.value.code == 2, err
    assert (
        "frog.graph_sizes: one point with n_rows=100000000000" in err
        and "more than this machine has (16 GiB)" in err
    )
    assert "Traceback" not in err and not (tmp_path / "runs.sqlite").exists()


def test_a_huge_planted_database_is_refused_with_exit_2_naming_it(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("TOOLKIT_POINT_MEMORY", str(16 * GIB))
    with pytest.raises(SystemExit) as info:
        main(["--store", str(tmp_path / "runs.sqlite"), "run", "frog.planted", "-p", "n_customers=10000000"])
    err = " ".join(capsys.readouterr().err.split())
    assert info.value.code == 2, err
    assert (
        "frog.planted: one point with n_customers=10000000" in err
        and "more than this machine has (16 GiB)" in err
    )


def test_default_planted_fits_in_two_gigabytes():
    from toolkit.runner import check_point_cost

    sim = get_registry().simulation("frog.planted")
    for values in ({}, dict(sim.quick)):
        check_point_cost(sim, validate_params(sim.params, values), limit=2 * GIB)


def test_default_and_quick_graph_sizes_fit_in_a_gigabyte():
    from toolkit.runner import check_point_cost

    sim = get_registry().simulation("frog.graph_sizes")
    for values in ({}, dict(sim.quick), {"n_rows": 100_000, "n_keys": 6}):
        check_point_cost(sim, validate_params(sim.params, values), limit=1 * GIB)
