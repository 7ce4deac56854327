"""sbayfdnn declares what a fit costs: the core refuses a network whose Laplace Hessian cannot fit, before any work."""

from __future__ import annotations

import pytest

from toolkit.cli import main
from toolkit.config import validate_params
from toolkit.registry import get_registry

GIB = 2**30


@pytest.mark.parametrize(
    "args, driver",
    [
        (["-p", "first_layer_width=20000"], "first_layer_width=20000"),
        (["-p", "n_train=100000000"], "n_train=100000000"),
    ],
)
def test_a_fit_too_big_is_refused_with_exit_2_naming_it(args, driver, monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("TOOLKIT_POINT_MEMORY", str(16 * GIB))
    with pytest.raises(SystemExit) as info:
        main(["--store", str(tmp_path / "runs.sqlite"), "run", "sbayfdnn.two_region", *args])
    err = " ".join(capsys.readouterr().err.split())
    assert info.value.code == 2, err
    assert (
        "sbayfdnn.two_region: one point with" in err
        and driver in err
        and "more than this machine has (16 GiB)" in err
    )
    assert "Traceback" not in err and not (tmp_path / "runs.sqlite").exists()


def test_defaults_and_quick_settings_fit_in_a_gigabyte():
    from toolkit.runner import check_point_cost

    for sim in get_registry().by_plugin("sbayfdnn")["simulations"]:
        assert sim.cost is not None, sim.name
        for values in ({}, dict(sim.quick)):
            check_point_cost(sim, validate_params(sim.params, values), limit=1 * GIB)
