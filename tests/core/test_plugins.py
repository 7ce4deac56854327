"""Plugin discovery through the toolkit.plugins entry-point group, as a third party would install one."""

from __future__ import annotations

import warnings

import pytest
from core_paths import FIXTURES

from toolkit.errors import DuplicateNameError, PluginLoadWarning, UnknownNameError
from toolkit.manager import get_plugin_manager
from toolkit.registry import get_registry


def test_example_plugin_is_discovered_with_distribution_and_version(example_site):
    pm = get_plugin_manager()
    info = pm.plugin_infos["example"]
    assert (info.distribution, info.version, info.status) == ("toolkit-example", "0.3.0", "loaded")
    reg = get_registry()
    assert reg.simulation("example.random_walk").plugin == "example"
    assert reg.bound("example.walk_range").plugin == "example"
    assert reg.dataset("example.steps").plugin == "example"
    assert reg.experiment("example.drift").plugin == "example"


def test_first_party_plugins_use_the_same_entry_point_group():
    import importlib.metadata

    names = {ep.name for ep in importlib.metadata.entry_points(group="toolkit.plugins")}
    assert {"gd_perceptron", "langgen", "sbayfdnn", "frog", "graphpfl"} <= names


def test_broken_plugin_warns_and_the_rest_works(example_site, monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURES / "site_broken"))
    with pytest.warns(PluginLoadWarning, match="broken.*failed to import.*a_module_that_does_not_exist"):
        pm = get_plugin_manager()
    assert pm.plugin_infos["broken"].status == "failed"
    assert pm.plugin_infos["example"].status == "loaded"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginLoadWarning)
        assert "example.random_walk" in get_registry().simulations


def test_a_name_in_another_plugins_namespace_is_refused(example_site, monkeypatch):
    # names are namespaced by their plugin, so two plugins cannot register the same name: the
    # plugin 'duplicate' registering 'example.random_walk' is skipped, naming itself and the name
    monkeypatch.syspath_prepend(str(FIXTURES / "site_duplicate"))
    with pytest.warns(
        PluginLoadWarning, match="plugin 'duplicate'.*'example.random_walk' outside its namespace"
    ):
        reg = get_registry()
    assert reg.simulation("example.random_walk").plugin == "example"
    assert reg.manager.plugin_infos["duplicate"].status == "failed"


def test_a_name_registered_twice_is_an_error():
    import types

    import toolkit
    from toolkit import Simulation
    from toolkit.config import Params

    class P(Params):
        pass

    # within a namespace, one plugin can still register a name twice
    mod = types.ModuleType("twice")
    sim = Simulation(name="twice.sim", func=lambda p, s: {"x": s}, params=P, description="twice")
    mod.toolkit_register_simulations = toolkit.hookimpl(lambda: [sim, sim])
    with pytest.raises(
        DuplicateNameError, match="simulation name 'twice.sim' is registered twice by plugin 'twice'"
    ):
        get_registry(plugins=[mod], load_entrypoints=False)


def test_disable_by_argument(example_site):
    pm = get_plugin_manager(disable=["example"])
    assert pm.plugin_infos["example"].status == "disabled"
    assert not pm.has_plugin("example")


def test_disable_by_environment(example_site, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DISABLE_PLUGINS", "example, gd_perceptron,langgen,sbayfdnn,frog,graphpfl")
    reg = get_registry()
    assert "example.random_walk" not in reg.simulations
    assert reg.manager.plugin_infos["example"].status == "disabled"


def test_disabling_resolves_a_duplicate(example_site, monkeypatch):
    monkeypatch.syspath_prepend(str(FIXTURES / "site_duplicate"))
    reg = get_registry(disable=["duplicate"])
    assert reg.simulation("example.random_walk").plugin == "example"


def test_unknown_name_lists_close_matches(registry):
    with pytest.raises(UnknownNameError, match="Did you mean: example.random_walk"):
        registry.simulation("example.random_wlak")
    with pytest.raises(UnknownNameError, match="example.walk_range"):
        registry.find("example.walk_rnge")


def test_fresh_manager_per_call(example_site):
    assert get_plugin_manager() is not get_plugin_manager()


def test_plugin_hookspecs_added_through_addhooks(example_site):
    pm = get_plugin_manager()
    assert hasattr(pm.hook, "toolkit_example_register_step_distributions")


def test_configure_and_run_finished_hooks_are_called(example_site, store_path):
    import toolkit

    reg = get_registry()
    import toolkit_example

    toolkit_example.EVENTS.clear()
    reg2 = get_registry()
    assert any(e.startswith("configured:") for e in toolkit_example.EVENTS)
    toolkit.run("example.random_walk", {"n_steps": 20}, seed=3, store=store_path, registry=reg2)
    assert "finished:example.random_walk:3" in toolkit_example.EVENTS
    del reg


def test_plugins_registered_directly_without_entry_points():
    import types

    import toolkit
    from toolkit import Simulation
    from toolkit.config import Params

    class P(Params):
        pass

    mod = types.ModuleType("inline_plugin")
    mod.toolkit_register_simulations = toolkit.hookimpl(
        lambda: [
            Simulation(name="inline_plugin.sim", func=lambda p, s: {"x": s}, params=P, description="inline")
        ]
    )
    reg = get_registry(plugins=[mod], load_entrypoints=False)
    assert reg.simulation("inline_plugin.sim").plugin == "inline_plugin"


def test_hook_returning_wrong_type_is_a_clear_error():
    import types

    import toolkit

    mod = types.ModuleType("wrong_plugin")
    mod.toolkit_register_bounds = toolkit.hookimpl(lambda: ["not a bound"])
    with pytest.raises(TypeError, match="wrong_plugin.*must return Bound"):
        get_registry(plugins=[mod], load_entrypoints=False)
