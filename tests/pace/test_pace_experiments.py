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


def test_g2_marks_a_miss_in_the_safe_direction_documented_and_a_wider_miss_unexpected():
    from toolkit_pace.experiments import g2_exchangeable

    def run(method, g0, violation):
        return {
            "method": method,
            "stream": "exchangeable",
            "gamma0": g0,
            "violation_rate": violation,
            "mean_width": 1.0,
            "gamma0_within_1pct": 0.8,
            "gamma0_fraction": 0.5,
        }

    runs = [
        run("aci", 0.005, 0.04),
        run("pace", 0.005, 0.03),
        run("aci", 0.01, 0.02),
        run("pace", 0.01, 0.03),
    ]
    comps = {c.claim: c for c in g2_exchangeable(True, runs).comparisons}
    fewer = comps["exchangeable, gamma0=0.005: PACE violation rate within 10% of ACI's"]
    more = comps["exchangeable, gamma0=0.01: PACE violation rate within 10% of ACI's"]
    assert fewer.ok is False and "less often" in fewer.documented
    assert more.ok is False and more.documented == ""
