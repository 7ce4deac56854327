import pytest

from toolkit.testing import plugin_checks


# the harness on every simulation (defaults, quick run with its bounds, determinism, store, all executors),
# every bound, the catalogue; the cheapest headline experiment also runs quick (the others: test_pace_experiments)
@pytest.mark.parametrize("check", plugin_checks("pace", experiments=["pace.g1_bounds"]), ids=str)
def test_plugin_contract(check):
    check()
