"""plugins/pace/studies/pace_g2_step_share.py and pace_g4_ledger.py: the numbers the README's G2/G4 analysis rests on."""

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
    spec = importlib.util.spec_from_file_location(name, ROOT / "plugins" / "pace" / "studies" / f"{name}.py")
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


def _trace(model: PACE, scores: np.ndarray) -> dict[str, np.ndarray]:
    """The method's miscoverage and its signals and steps after each update, one array per name."""
    rows: dict[str, list[float]] = {"err": [], "shift": [], "gap": [], "smooth": [], "gamma": []}
    for s in scores:
        rows["err"].append(float(s > model.threshold()))
        model.update(s)
        rows["shift"].append(model.shift_signal)
        rows["gap"].append(model.gap_signal)
        rows["smooth"].append(model.gamma_smooth)
        rows["gamma"].append(model.gamma_t)
    return {name: np.array(values) for name, values in rows.items()}


def test_smoothing_matches_the_method_and_exact_gamma0_ends_at_the_first_signal():
    g2 = _script("pace_g2_step_share")
    x = synthetic("exchangeable", 1500, 7).scores
    trace = _trace(PACE(0.1, 0.005, x[:100], 500), x[100:])
    shift, gap, smooth, gamma = trace["shift"], trace["gap"], trace["smooth"], trace["gamma"]
    target = np.minimum(0.128, 0.005 + 0.1 * shift + 0.1 * gap)
    np.testing.assert_array_equal(g2.smoothed(target, 0.005), smooth)
    np.testing.assert_array_equal(pace(x, 0.1, 0.005, 500, 100).gamma_t, gamma)
    first = int(np.flatnonzero(target > 0.005)[0])
    assert np.all(gamma[:first] == 0.005) and np.all(smooth[first:] > 0.005)


def test_scripts_run_small(capsys, tmp_path):
    _script("pace_g2_step_share").main(
        ["--seeds", "1", "--iid-rounds", "3900", "--store", str(tmp_path / "g2.sqlite")]
    )
    _script("pace_g4_ledger").main(
        ["--seeds", "1", "--first-seed", "200", "--store", str(tmp_path / "runs.sqlite")]
    )
    out = capsys.readouterr().out
    assert "of 3900 rounds" in out and "llm_factuality | 0.01 |" in out


def test_g4_ledger_runs_come_from_the_store_and_a_rerun_computes_nothing(capsys, tmp_path):
    g4 = _script("pace_g4_ledger")
    argv = ["--seeds", "1", "--first-seed", "200", "--store", str(tmp_path / "runs.sqlite")]
    g4.main(argv)
    first = capsys.readouterr()
    assert "24 runs: 24 computed, 0 from the store" in first.err
    g4.main(argv)
    second = capsys.readouterr()
    assert "24 runs: 0 computed, 24 from the store" in second.err

    def rows(text: str) -> list[str]:
        return [line for line in text.splitlines() if " | " in line]

    assert len(rows(first.out)) == 7 and rows(second.out) == rows(first.out)
    # the ledger-free counterfactual never reaches the largest cap pace.stream takes
    assert "Phi = 10 reached" not in first.out


def test_g4_window_readings_forward_lag_is_the_gate_metric():
    from toolkit_pace.metrics import post_shift_deviation

    g4 = _script("pace_g4_ledger")
    err = (np.random.default_rng(5).random(2000) < 0.15).astype(float)
    cps = [400, 1200]
    assert g4.windowed_deviation(err, cps, 0) == pytest.approx(post_shift_deviation(err, 0.1, cps), abs=1e-15)
    # trailing windows at tau = 400 reach back to round 301; an error-free past lowers their deviation there
    shifted = err.copy()
    shifted[:400] = 0.1 > np.random.default_rng(6).random(400)
    assert g4.windowed_deviation(shifted, [400], 99) != g4.windowed_deviation(shifted, [400], 0)
    assert g4.block_deviation(err, cps) == pytest.approx(
        np.mean([abs(err[c : c + 300].mean() - 0.1) for c in cps])
    )


def test_oracle_case_uses_the_methods_whole_rule():
    """pace_g2_step_share's oracle case rebuilds the spec's signals and step rule outside the method: on a
    stream where the ledger binds (a small Phi), they must give the method's own shift signal and gamma_t."""
    g2 = _script("pace_g2_step_share")
    x = synthetic("abrupt_variance", 2500, 3).scores
    trace = _trace(PACE(0.1, 0.005, x[:100], 500, phi_cap=0.05), x[100:])
    shift, gap, err, gamma, smooth = (
        trace["shift"],
        trace["gap"],
        trace["err"],
        trace["gamma"],
        trace["smooth"],
    )
    assert np.sum(gamma < smooth) > 50  # the ledger binds
    np.testing.assert_array_equal(g2.shift_signal(x)[100:], shift)
    np.testing.assert_array_equal(g2.reactive_signal(err), gap)
    steps = g2.full_rule_steps(shift, gap, err, 0.005, phi_cap=0.05)
    np.testing.assert_allclose(steps, gamma, rtol=0, atol=1e-15)


def test_g2_runs_come_from_the_store_and_a_rerun_computes_nothing(capsys, tmp_path):
    g2 = _script("pace_g2_step_share")
    argv = ["--seeds", "2", "--iid-rounds", "3900", "--store", str(tmp_path / "runs.sqlite")]
    g2.main(argv)
    first = capsys.readouterr()
    assert "6 runs: 6 computed, 0 from the store" in first.err
    assert "seeds 100..101: ACI " in first.out and "of 7800 rounds" in first.out
    g2.main(argv)
    second = capsys.readouterr()
    assert "6 runs: 0 computed, 6 from the store" in second.err

    def numbers(text: str) -> list[str]:  # the output without its CPU time
        return [line for line in text.splitlines() if not line.startswith("CPU")]

    assert numbers(second.out) == numbers(first.out)


def test_pace_stream_reports_the_step_rules_signals_as_the_method_computes_them():
    import toolkit

    x = synthetic("abrupt_variance", 1500, 7).scores
    trace = _trace(PACE(0.1, 0.005, x[:100], 500), x[100:])
    for engine in ("numba", "numpy"):
        out = pace(x, 0.1, 0.005, 500, 100, engine=engine)
        np.testing.assert_array_equal(out.extra["shift_signal"], trace["shift"])
        np.testing.assert_array_equal(out.extra["gap_signal"], trace["gap"])
        np.testing.assert_array_equal(out.extra["gamma_smooth"], trace["smooth"])
    values = {"stream": "abrupt_variance", "T": 1500, "method": "pace"}
    table = toolkit.run("pace.stream", values, 7, cache=False).table
    np.testing.assert_array_equal(table["gamma_smooth"].to_numpy(), trace["smooth"])
    aci = toolkit.run("pace.stream", {**values, "method": "aci"}, 7, cache=False).table
    assert aci[["shift_signal", "gap_signal", "gamma_smooth"]].isna().all().all()
