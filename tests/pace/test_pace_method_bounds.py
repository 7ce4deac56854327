"""DtACI and SF-OGD runs are held against derived bounds at every prefix; AgACI and SAOCP have none, and say so."""

import math

import numpy as np
import pandas as pd
import pytest
from toolkit_pace import methods
from toolkit_pace.simulation import dtaci_columns, sfogd_columns

import toolkit
from toolkit.checks import check_table


def _bound(name):
    return toolkit.get_registry().bound(name)


def _table(cols, alpha, method):
    n = len(next(iter(cols.values())))
    return pd.DataFrame({**cols, "method": method, "alpha_1": alpha, "n_rounds": np.arange(1, n + 1)})


def _adaptive(model, scores_for, T):
    """Run ``model`` for T rounds, each score chosen from the threshold it has just emitted."""
    scores = []
    for _ in range(T):
        q = model.threshold()
        s = scores_for(q, len(scores))
        scores.append(s)
        model.update(s)
    return np.array(scores)


@pytest.mark.parametrize("method", ["dtaci", "sfogd"])
@pytest.mark.parametrize("stream", ["exchangeable", "mean_jump", "drift", "multi_block"])
def test_every_run_is_held_against_its_bound_at_every_prefix(tmp_path, method, stream):
    res = toolkit.run(
        "pace.stream",
        {"method": method, "stream": stream, "T": 900, "calibration_window": 200},
        store=tmp_path / "s.sqlite",
    )
    active = res.checks[~res.checks["skipped"].astype(bool)]
    name = {"dtaci": "pace.dtaci_experts", "sfogd": "pace.sfogd_long_run"}[method]
    assert set(active["bound"]) == {name}
    assert len(active) == len(res.records) and active["holds"].astype(bool).all()


def _sfogd_table(model_cls, scores, alpha=0.1, burn_in=100):
    trace = methods.run_online(model_cls(alpha, scores[:burn_in], 200), scores, burn_in)
    cols = sfogd_columns(trace, scores, burn_in)
    cols["coverage_gap"] = np.abs(np.cumsum(trace.err) / np.arange(1, trace.err.size + 1) - alpha)
    return _table(cols, alpha, "sfogd")


def test_sfogd_bound_holds_against_adversaries_and_at_the_floor():
    rng = np.random.default_rng(3)
    bound = _bound("pace.sfogd_long_run")
    # scores with many exact zeros: ties and the floor at 0 act, and are counted
    zeros = np.where(rng.random(1500) < 0.95, 0.0, np.abs(rng.standard_normal(1500)))
    table = _sfogd_table(methods.SFOGD, zeros)
    assert table["floor_rounds"].iloc[-1] > 0
    assert check_table(table, bound)["holds"].all()
    # an adversary that lands just above every threshold (every round a miss) and one just below (none)
    for offset in (1.0, -1e-9):
        model = methods.SFOGD(0.1, calibration=np.abs(rng.standard_normal(100)), calibration_window=200)
        scores = _adaptive(model, lambda q, _t, o=offset: max(0.0, q + o), 1500)
        full = np.concatenate([np.abs(rng.standard_normal(100)), scores])
        # replay the same scores through a fresh model: the adversary's run, with its columns
        replay = _sfogd_table(methods.SFOGD, full)
        assert check_table(replay, bound)["holds"].all()


class _BrokenSFOGD(methods.SFOGD):
    """SF-OGD whose steps up are halved: it settles near 2 alpha/(1 + alpha) misses instead of alpha."""

    def _step(self, score):
        before = self.q
        floored = super()._step(score)
        if self.q > before:
            self.q = before + (self.q - before) / 2
        return floored


def test_a_broken_sfogd_violates_the_bound():
    scores = np.abs(np.random.default_rng(0).standard_normal(6100))
    checks = check_table(_sfogd_table(_BrokenSFOGD, scores), _bound("pace.sfogd_long_run"))
    assert not checks["holds"].all()
    # the same scores through the real method stay within it
    assert check_table(_sfogd_table(methods.SFOGD, scores), _bound("pace.sfogd_long_run"))["holds"].all()


def _dtaci_table(model, scores, burn_in=100, alpha=0.1):
    trace = methods.run_online(model, scores, burn_in)
    cols = dtaci_columns(trace, alpha)
    cols["gamma_min"] = np.full(trace.err.size, float(np.min(model.gammas)))
    return _table(cols, alpha, "dtaci")


def test_dtaci_bound_holds_against_adversaries():
    rng = np.random.default_rng(5)
    bound = _bound("pace.dtaci_experts")
    calib = np.abs(rng.standard_normal(100))
    for pick in (
        lambda q, t: q + 1.0 if math.isfinite(q) else 1e6,
        lambda q, t: 0.0,
        lambda q, t: 50.0 * (t % 2),
    ):
        model = methods.DtACI(0.1, calibration=calib, calibration_window=200)
        scores = _adaptive(model, pick, 1200)
        table = _dtaci_table(
            methods.DtACI(0.1, calibration=calib, calibration_window=200), np.r_[calib, scores]
        )
        assert check_table(table, bound)["holds"].all()


class _BrokenDtACI(methods.DtACI):
    """DtACI whose experts aim at 2 alpha: their weighted miss drifts to about 2 alpha."""

    def _update(self, score, err, side):
        alpha = self.alpha
        self.alpha = 2 * alpha
        try:
            super()._update(score, err, side)
        finally:
            self.alpha = alpha


def test_a_broken_dtaci_violates_the_bound():
    # experts 0.05..0.2 and slow mixing (I = 1000): here the bound is tight enough to catch a wrong update
    scores = np.abs(np.random.default_rng(0).standard_normal(4100))
    kw = dict(gammas=(0.05, 0.1, 0.2), interval=1000, calibration=scores[:100], calibration_window=200)
    bound = _bound("pace.dtaci_experts")
    assert check_table(_dtaci_table(methods.DtACI(0.1, **kw), scores), bound)["holds"].all()
    assert not check_table(_dtaci_table(_BrokenDtACI(0.1, **kw), scores), bound)["holds"].all()


@pytest.mark.parametrize("method", ["agaci", "saocp"])
def test_methods_without_a_finite_run_bound_say_so(tmp_path, method):
    res = toolkit.run(
        "pace.stream",
        {"method": method, "stream": "mean_jump", "T": 600, "calibration_window": 200},
        store=tmp_path / "s.sqlite",
    )
    assert res.checks["skipped"].astype(bool).all()
    from toolkit_pace.simulation import StreamParams

    text = StreamParams.model_fields["method"].description
    assert f"{method}: no finite-run bound" in text


def test_agaci_experts_leave_the_aci_box():
    # why AgACI has no bound: an infinite threshold counts as the window's largest score, so an expert at
    # alpha <= 0 still misses and keeps falling below -gamma (an ACI expert never does)
    rng = np.random.default_rng(0)
    x = np.abs(rng.standard_normal(3000))
    x[1500:] *= 4
    model = methods.AgACI(0.1, calibration=x[:100], calibration_window=200)
    low = 0.0
    for s in x[100:]:
        model.threshold()
        model.update(s)
        low = min(low, float(model.expert_alphas.min()))
    assert low < -float(np.max(model.gammas))


@pytest.mark.parametrize(
    ("method", "name"),
    [("pid", "pace.pid_integrator"), ("dtaci", "pace.dtaci_experts"), ("sfogd", "pace.sfogd_long_run")],
)
def test_recovery_rows_are_held_against_the_methods_bound(tmp_path, method, name):
    # pace.recovery's rows carry the whole run's bound columns (pid's c_sat was missing: a KeyError)
    res = toolkit.run(
        "pace.recovery",
        {"method": method, "stream": "mean_jump", "T": 800, "calibration_window": 200},
        store=tmp_path / "s.sqlite",
    )
    active = res.checks[~res.checks["skipped"].astype(bool)]
    assert set(active["bound"]) == {name} and active["holds"].astype(bool).all()
