"""The harness's newer checks, each shown catching a planted mistake: a result column named like a
parameter, randomness from the global generators, a branch only a second quick setting reaches, a
column that differs between executors, private core imports and heavy imports at registration; and
``expected_failed_checks``."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest
from core_paths import FIXTURES

import toolkit
from toolkit import Simulation
from toolkit.config import Params
from toolkit.registry import get_registry
from toolkit.testing import check_executors, check_plugin, plugin_checks


class GammaParams(Params):
    gamma: float = 1.0
    mode: str = "a"


def _clobbers_gamma(params: GammaParams, seed: int) -> dict:
    return {"gamma": -1.0, "loss": params.gamma * 2}  # planted: a result named like a parameter


def _global_numpy(params: GammaParams, seed: int) -> dict:
    return {"draw": float(np.random.rand())}  # planted: the global generator, not one made from seed


def _seeded(params: GammaParams, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    if params.mode == "b":
        raise ValueError("the b branch is broken")  # planted: only a second quick setting reaches it
    return {"draw": float(rng.random())}


def _plugin(*sims: Simulation) -> types.ModuleType:
    mod = types.ModuleType("planted")
    mod.toolkit_register_simulations = toolkit.hookimpl(lambda: list(sims))
    return mod


def _failures(*sims: Simulation, **kwargs) -> dict[str, str]:
    reg = get_registry(plugins=[_plugin(*sims)], load_entrypoints=False)
    checks = [c for c in plugin_checks("planted", registry=reg, **kwargs) if not c.id.endswith(":executors")]
    failures = {}
    for check in checks:
        try:
            check()
        except AssertionError as exc:
            failures[check.id] = str(exc)
    return failures


def test_a_result_column_named_like_a_parameter_is_caught():
    failures = _failures(Simulation("planted.sim", _clobbers_gamma, GammaParams, "clobbers gamma"))
    assert "result column(s) gamma have a parameter's name" in failures["planted.sim:column_names"]


def test_randomness_from_the_global_generators_is_caught():
    failures = _failures(Simulation("planted.sim", _global_numpy, GammaParams, "global numpy"))
    assert "planted.sim:deterministic" not in failures  # the runner's global seeding hides it there
    text = failures["planted.sim:global_random"]
    assert "different global random states" in text and "column(s) draw" in text


def test_every_quick_setting_runs():
    one = Simulation("planted.sim", _seeded, GammaParams, "two branches", quick={"mode": "a"})
    assert _failures(one) == {}
    both = Simulation(
        "planted.sim", _seeded, GammaParams, "two branches", quick=[{"mode": "a"}, {"mode": "b"}]
    )
    assert both.quick == {"mode": "a"} and len(both.quick_settings) == 2  # quick reads as the first
    text = _failures(both)["planted.sim:quick_run"]
    assert "quick setting 1 {'mode': 'b'}" in text and "the b branch is broken" in text


def test_quick_must_be_a_dict_or_a_list_of_dicts():
    with pytest.raises(TypeError, match="quick must be a dict of parameter overrides or a non-empty list"):
        Simulation("planted.sim", _seeded, GammaParams, "x", quick=[])


def test_a_column_that_differs_between_executors_is_named(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURES / "site_sloppy"))
    import toolkit_byprocess

    reg = get_registry(plugins=[toolkit_byprocess], load_entrypoints=False)
    with pytest.raises(AssertionError, match=r"different table than serial .* in column\(s\) worker"):
        check_executors(reg.simulation("byprocess.value"), reg)


def test_expected_failed_checks_report_expected_failures_and_fail_once_fixed():
    bad = Simulation("planted.sim", _clobbers_gamma, GammaParams, "clobbers gamma")
    reg = get_registry(plugins=[_plugin(bad)], load_entrypoints=False)
    expected = {"planted.sim:column_names": "renaming gamma breaks stored tables"}
    (check,) = [
        c
        for c in plugin_checks("planted", registry=reg, expected_failed_checks=expected)
        if c.id == "planted.sim:column_names"
    ]
    with pytest.raises(pytest.xfail.Exception, match="expected failure"):
        check()
    good = Simulation("planted.sim", _seeded, GammaParams, "fine")
    reg = get_registry(plugins=[_plugin(good)], load_entrypoints=False)
    (check,) = [
        c
        for c in plugin_checks("planted", registry=reg, expected_failed_checks=expected)
        if c.id == "planted.sim:column_names"
    ]
    with pytest.raises(AssertionError, match="passes but is listed in expected_failed_checks"):
        check()
    with pytest.raises(LookupError, match="expected_failed_checks names no check"):
        plugin_checks("planted", registry=reg, expected_failed_checks={"planted.nope:quick_run": "x"})


def test_private_core_imports_and_heavy_registration_are_caught(monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURES / "site_sloppy"))
    import toolkit_sloppy

    try:
        reg = get_registry(plugins=[toolkit_sloppy], load_entrypoints=False)
        failures = dict(check_plugin("sloppy", registry=reg))
    finally:
        sys.modules.pop("toolkit_sloppy", None)
    assert "imports toolkit.runner, a private toolkit module" in failures["sloppy:public_api"]
    assert "registering the plugin imports pandas" in failures["sloppy:light_registration"]
    assert set(failures) == {"sloppy:public_api", "sloppy:light_registration"}


def test_the_example_plugin_passes_the_hygiene_checks(registry):
    ids = {c.id for c in plugin_checks("example", registry=registry)}
    assert {"example:public_api", "example:light_registration"} <= ids


def _needs_data(params: GammaParams, seed: int) -> dict:
    from toolkit.errors import DatasetMissingError

    raise DatasetMissingError(
        "dataset planted.rows: rows.csv missing; get it with `toolkit data fetch planted.rows`"
    )


def test_an_executors_check_whose_quick_point_lacks_its_data_raises_the_missing_dataset():
    # the sweep keeps only the error's text; the check raises the error again so that the missing-data
    # hooks skip it with the fetch command (on a fresh clone without data) instead of failing
    from toolkit.errors import DatasetMissingError

    sim = Simulation("planted.needs_data", _needs_data, GammaParams, "needs data", quick={"gamma": 1.0})
    reg = get_registry(plugins=[_plugin(sim)], load_entrypoints=False)
    with pytest.raises(DatasetMissingError, match=r"planted\.needs_data: dataset planted\.rows") as info:
        check_executors(reg.simulation("planted.needs_data"), reg)
    assert info.value.dataset == "planted.rows"
