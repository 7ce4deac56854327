import pytest

from toolkit.testing import plugin_checks


# the harness on every simulation (defaults, quick run with its bounds, determinism, store, all executors),
# every bound, the catalogue; the synthetic headline experiment also runs quick
@pytest.mark.parametrize("check", plugin_checks("care", experiments=["care.g5_synthetic"]), ids=str)
def test_plugin_contract(check):
    check()
