import pytest

from toolkit.testing import experiment_checks, plugin_checks


# the harness on every simulation (defaults, quick run with its bounds, determinism, store, all executors),
# every bound, the catalogue and every experiment's well-formedness
@pytest.mark.parametrize("check", plugin_checks("care"), ids=str)
def test_plugin_contract(check):
    check()


# the synthetic headline experiment's quick run fits 1000 items: outside the default run
@pytest.mark.slow
@pytest.mark.parametrize(
    "check",
    [c for c in experiment_checks("care", quick=["care.g5_synthetic"]) if c.id.endswith(":quick_run")],
    ids=str,
)
def test_quick_headline_experiment(check):
    check()
