import pytest

from toolkit.testing import plugin_checks

# The ECG simulation's executors check imports neurokit2 (~4-10 s each) in the two process-pool and the two
# Dask workers and simulates 4 x 100 beats there: ~30 s of the default run, so it runs with -m slow. The
# ECG simulation's quick_run / deterministic / store_roundtrip checks stay in the default run, and the
# executors check of the five other simulations (same module-level function pattern) does too.
SLOW_CHECKS = {"sbayfdnn.ecg:executors"}


@pytest.mark.parametrize(
    "check",
    [
        pytest.param(c, marks=pytest.mark.slow) if str(c) in SLOW_CHECKS else c
        for c in plugin_checks("sbayfdnn")
    ],
    ids=str,
)
def test_plugin_contract(check):
    check()


def test_the_slow_contract_checks_exist():
    """SLOW_CHECKS names real checks (a renamed check would otherwise silently move back to the default run)."""
    assert SLOW_CHECKS <= {str(c) for c in plugin_checks("sbayfdnn")}
