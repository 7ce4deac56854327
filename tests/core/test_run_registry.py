"""The registry a run/sweep is given is the one its simulation's own get_registry() lookups see."""

import pytest
import run_registry_plugin

import toolkit
from toolkit.errors import UnknownNameError
from toolkit.manager import get_plugin_manager
from toolkit.registry import Registry, running_with


@pytest.fixture
def registry():
    return Registry.from_manager(get_plugin_manager(plugins=[run_registry_plugin], load_entrypoints=False))


def test_run_passes_its_registry_to_the_simulation(registry, tmp_path):
    res = toolkit.run("run_registry_plugin.lookup", registry=registry, store=tmp_path / "s.sqlite")
    assert res.records == [{"total": 6}]
    # outside the run the default registry is back: the in-process plugin is not there
    with pytest.raises(UnknownNameError):
        toolkit.get_registry().dataset("run_registry_plugin.three")


@pytest.mark.parametrize("executor", ["serial", "processes"])
def test_sweep_passes_its_registry_to_every_point(registry, tmp_path, executor):
    out = toolkit.sweep(
        "run_registry_plugin.lookup",
        seeds=[0, 1],
        executor=executor,
        max_workers=2,
        registry=registry,
        store=tmp_path / "s.sqlite",
    )
    assert [r.records for r in out.runs] == [[{"total": 6}], [{"total": 6}]]


def test_running_with_is_scoped_and_keyword_arguments_bypass_it(registry):
    with running_with(registry):
        assert toolkit.get_registry() is registry
        assert "run_registry_plugin.three" not in toolkit.get_registry(load_entrypoints=True).datasets
    assert toolkit.get_registry() is not registry
