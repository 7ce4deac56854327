"""simulations/pace_g2_step_share.py and pace_g4_ledger.py: the numbers the README's G2/G4 analysis rests on."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from toolkit_pace.methods import PACE, pace
from toolkit_pace.streams import synthetic

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "simulations" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_smallest_gap_signal_and_the_rounds_it_keeps_the_step_up():
    g2 = _script("pace_g2_step_share")
    r = g2.reactive_signal(np.zeros(60))  # no error in 50 rounds: the smallest firing count
    assert np.all(r[:49] == 0) and r[49] == pytest.approx((0.1 - 2 * math.sqrt(0.09 / 50)) / 0.9)
    assert r[49] == pytest.approx(0.01683, abs=1e-5)
    assert g2.rounds_above_after_trigger(0.1 * r[49], 0.005) == 69
    assert g2.rounds_above_after_trigger(0.1 * r[49], 0.01) == 56
    # the smoothing with that one jump, then no signal: above 1.01 gamma_0 for exactly 69 rounds, never back at it
    target = np.full(400, 0.005)
    target[0] += 0.1 * r[49]
    g = g2.smoothed(target, 0.005)
    assert int(np.sum(g > 1.01 * 0.005)) == 69 and np.all(g > 0.005)
    assert 0 < g2._stall(0.005) < 1e-16


def test_smoothing_matches_the_method_and_exact_gamma0_ends_at_the_first_signal():
    g2 = _script("pace_g2_step_share")
    x = synthetic("exchangeable", 1500, 7).scores
    model = PACE(0.1, 0.005, x[:100], 500)
    shift, gap, smooth, gamma = [], [], [], []
    for s in x[100:]:
        model.update(s)
        shift.append(model.shift_signal)
        gap.append(model.gap_signal)
        smooth.append(model.gamma_smooth)
        gamma.append(model.gamma_t)
    shift, gap, smooth, gamma = map(np.array, (shift, gap, smooth, gamma))
    target = np.minimum(0.128, 0.005 + 0.1 * shift + 0.1 * gap)
    np.testing.assert_array_equal(g2.smoothed(target, 0.005), smooth)
    np.testing.assert_array_equal(pace(x, 0.1, 0.005, 500, 100).gamma_t, gamma)
    first = int(np.flatnonzero(target > 0.005)[0])
    assert np.all(gamma[:first] == 0.005) and np.all(smooth[first:] > 0.005)


def test_scripts_run_small(capsys):
    _script("pace_g2_step_share").main(["--seeds", "1", "--iid-rounds", "3900"])
    _script("pace_g4_ledger").main(["--seeds", "1"])
    out = capsys.readouterr().out
    assert "of 3900 rounds" in out and "llm_factuality | 0.01 |" in out
