"""Every headline experiment in quick mode (slow: the default run keeps pace.g1_bounds, in the contract test)."""

import pytest

from toolkit.testing import experiment_checks


@pytest.mark.slow
@pytest.mark.parametrize("check", experiment_checks("pace"), ids=str)
def test_experiment_quick_runs(check):
    check()


@pytest.mark.slow
def test_quick_gates_shift_runs_are_held_against_their_bounds():
    from toolkit_pace import experiments as E

    outcome = E.g3_g4_shift(True)
    table = outcome.table
    assert table[table.method.isin(["aci", "pace"])].bounds_hold.all()
    assert set(table.method) == {"aci", "pace", "dtaci"}
