import pytest

from toolkit.testing import plugin_checks


def _checks():
    import toolkit_graphpfl as gp

    import toolkit
    from toolkit.registry import Registry

    reg = Registry.from_manager(toolkit.get_plugin_manager(load_entrypoints=False, plugins=[gp]))
    return plugin_checks("graphpfl", registry=reg)


@pytest.mark.parametrize("check", _checks(), ids=str)
def test_plugin_contract(check):
    check()


def test_graphpfl_loads_through_its_entry_point():
    import toolkit

    pm = toolkit.get_plugin_manager()
    assert pm.has_plugin("graphpfl")
    assert hasattr(pm.hook, "toolkit_graphpfl_register_strategies")
