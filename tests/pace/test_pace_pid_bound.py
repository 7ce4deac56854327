"""Conformal PID runs are held against the integrator's saturation bound at every prefix."""

import numpy as np
import pytest
from toolkit_pace import methods

import toolkit


@pytest.mark.parametrize("stream", ["abrupt_variance", "llm_factuality"])
def test_pid_runs_are_held_against_a_bound(tmp_path, stream):
    res = toolkit.run(
        "pace.stream",
        {"method": "pid", "stream": stream, "T": 800, "calibration_window": 200},
        store=tmp_path / "s.sqlite",
    )
    active = res.checks[~res.checks["skipped"].astype(bool)]
    assert set(active["bound"]) == {"pace.pid_integrator"}
    assert len(active) == len(res.records) and active["holds"].astype(bool).all()


def test_pid_bound_holds_on_an_adversarial_sequence():
    # scores that always land just above the last threshold push the integrator as far as it can go
    alpha, T = 0.1, 600
    model = methods.PID(alpha, calibration=np.linspace(0, 1, 50), calibration_window=50, horizon=T)
    s = 0.0
    for n in range(1, T + 1):
        q = model.threshold()
        score = q + 1.0 if np.isfinite(q) else 0.0
        s += model.update(score) - alpha
        assert abs(s) / n <= methods.pid_integrator_bound(n, alpha, model.c_sat) + 1e-12
