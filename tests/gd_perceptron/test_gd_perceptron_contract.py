import pytest

from toolkit.testing import plugin_checks


@pytest.mark.parametrize("check", plugin_checks("gd_perceptron"), ids=str)
def test_plugin_contract(check):
    check()
