"""The methods against tiny hand-computed cases, the quantile rule, unclipped alpha_t, the ledger, engines."""

import math

import numpy as np
import pytest
from toolkit_pace import methods as M
from toolkit_pace.streams import synthetic
from toolkit_pace.window import CalibrationWindow, conformal_quantile, ks_statistic


def test_quantile_rule_hand_cases():
    s = [1.0, 2.0, 3.0, 4.0]
    assert conformal_quantile(s, 0.5) == 3.0  # k = ceil(0.5 * 5) = 3
    assert conformal_quantile(s, 0.4) == 3.0  # k = ceil(0.6 * 5) = 3
    assert conformal_quantile(s, 0.3) == 4.0  # k = ceil(3.5) = 4
    assert conformal_quantile(s, 0.1) == math.inf  # k = ceil(4.5) = 5 > n
    assert conformal_quantile(s, 0.0) == math.inf and conformal_quantile(s, -0.2) == math.inf
    assert conformal_quantile(s, 1.0) == -math.inf and conformal_quantile(s, 1.3) == -math.inf
    assert conformal_quantile([], 0.5) == math.inf


def test_window_keeps_the_last_scores_sorted():
    w = CalibrationWindow(3, [5.0, 1.0, 3.0])
    w.add(2.0)  # evicts 5
    assert w.sorted == [1.0, 2.0, 3.0] and list(w.recent) == [1.0, 3.0, 2.0]
    assert w.beta(2.0) == pytest.approx(2 / 3) and w.range() == 2.0


@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_aci_hand_computed(engine):
    # W = 3, alpha = 0.5, gamma = 0.1; rounds 3, 4, 5 worked out by hand
    scores = [1.0, 2.0, 3.0, 10.0, 0.5, 10.0]
    threshold, err, alpha_t = M.aci(
        scores, alpha=0.5, gamma=0.1, calibration_window=3, burn_in=3, engine=engine
    )
    np.testing.assert_array_equal(threshold, [2.0, 10.0, 3.0])
    np.testing.assert_array_equal(err, [1, 0, 1])
    np.testing.assert_allclose(alpha_t, [0.5, 0.45, 0.5], rtol=0, atol=1e-15)


def test_alpha_t_is_never_clipped_and_the_rule_handles_both_ends():
    s = synthetic("abrupt_variance", 1500, 3).scores
    tr = M.aci(s, alpha=0.1, gamma=0.5, calibration_window=200, burn_in=50, engine="numpy")
    assert tr.alpha_t.min() < 0  # below 0: q = +inf, no error
    low = tr.alpha_t <= 0
    assert np.all(np.isinf(tr.threshold[low])) and np.all(tr.err[low] == 0)
    high = M.aci(s, alpha=0.1, gamma=0.5, calibration_window=200, burn_in=50, alpha_1=1.2, engine="numpy")
    assert high.alpha_t[0] > 1 and high.threshold[0] == -math.inf and high.err[0] == 1  # the empty set
    assert high.alpha_t[1] == pytest.approx(1.2 + 0.5 * (0.1 - 1))  # kept as it is, not clipped to 1
    # the telescoping identity that clipping would break
    alpha_next = tr.alpha_t[-1] + 0.5 * (0.1 - tr.err[-1])
    assert np.sum(0.1 - tr.err) == pytest.approx((alpha_next - 0.1) / 0.5, abs=1e-9)


def test_quantile_tracking_hand_computed():
    tr = M.quantile_tracking(
        [1.0, 2.0, 3.0, 4.0, 10.0, 0.0], alpha=0.5, lr=0.1, calibration_window=4, burn_in=4
    )
    np.testing.assert_allclose(tr.threshold, [3.0, 3.15])  # q_1 = 3; + 0.3 * (1 - 0.5)
    np.testing.assert_allclose(tr.gamma_t, [0.3, 0.8])  # eta = 0.1 * range(1..4), 0.1 * range(2, 3, 4, 10)
    np.testing.assert_array_equal(tr.err, [1, 0])
    assert np.isnan(tr.alpha_t).all()


def test_decaying_step_hand_computed():
    tr = M.decaying([1.0, 2.0, 3.0, 4.0, 10.0, 0.0], alpha=0.5, calibration_window=4, burn_in=4)
    np.testing.assert_allclose(tr.gamma_t, [3.0 * 1**-0.51, 8.0 * 2**-0.51])


def test_sfogd_hand_computed():
    # D = 2; warm-up on s = 2 from q = 0: g = -0.5, q = 0 - 2/0.5 * (-0.5) = 2; then s = 1 < q: g = 0.5
    tr = M.sfogd([2.0, 1.0, 5.0], alpha=0.5, burn_in=1)
    np.testing.assert_allclose(tr.threshold, [2.0, 2.0 - 2.0 / math.sqrt(0.5) * 0.5])
    np.testing.assert_array_equal(tr.err, [0, 1])


def _saocp_transcribed(scores, alpha, burn_in, g=8):
    """salesforce online-conformal 1.0.2's SAOCP (``saocp.py``), transcribed: a dict of experts keyed by
    birth time, Python scalars and Python's left-to-right ``sum``; the radius before each round after burn-in."""

    def pinball(y, yhat, q):
        return max(q * (y - yhat), (1 - q) * (yhat - y))

    def grad(y, yhat, q):
        return -q * (y > yhat) + (1 - q) * (y < yhat)

    coverage = 1 - alpha
    scale = max(abs(s) for s in scores[:burn_in]) * math.sqrt(3)
    experts, clock, out = {}, 1, []

    def w(e):
        return 0 if e["s"] == 0 else e["z"] / e["s"] * (1 + e["wz"])

    def predict():
        prior = {t: 1 / (t**2 * (1 + math.floor(math.log2(t)))) for t in experts}
        z = sum(prior.values())
        prior = {t: v / z for t, v in prior.items()}
        p = {t: prior[t] * max(0, w(e)) for t, e in experts.items()}
        total = sum(p.values())
        p = {t: v / total for t, v in p.items()} if total > 0 else prior
        return sum(p[t] * e["yhat"] for t, e in experts.items())

    for i, s in enumerate(scores):
        if i >= burn_in:
            out.append(predict())
        s_hat = predict()
        for t in [t for t, e in experts.items() if e["s"] > e["life"]]:
            experts.pop(t)
        t, u = clock, 0
        while t % 2 == 0:
            t, u = t // 2, u + 1
        experts[clock] = dict(yhat=s_hat, gn=0.0, z=0.0, wz=0.0, s=0, life=g * 2**u)
        meta = pinball(s, predict(), coverage)
        for e in experts.values():
            we = w(e)
            gap = (meta - pinball(s, e["yhat"], 1 - alpha)) / scale / max(alpha, 1 - alpha)
            gt = min(1.0, max(-1.0 * (we > 0), gap))
            e["z"] += gt
            e["wz"] += gt * we
            e["s"] += 1
            gr = grad(s, e["yhat"], 1 - alpha)
            e["gn"] += gr**2
            if e["gn"] != 0:
                e["yhat"] = max(0, e["yhat"] - scale / math.sqrt(3) / math.sqrt(e["gn"]) * gr)
        clock += 1
    return np.array(out)


def test_saocp_equals_salesforces_rule_transcribed():
    # Before the sums ran left to right, numpy's pairwise sum / dot left a newborn expert's meta-loss gap at
    # ~1e-17 instead of 0; w > 0 then let its clip reach -1 and q drifted from salesforce's by O(1) (0.5 here).
    x = synthetic("abrupt_variance", 600, 3).scores
    ours = M.saocp(x, alpha=0.1, burn_in=100).threshold
    np.testing.assert_allclose(ours, _saocp_transcribed(x, 0.1, 100), rtol=0, atol=1e-12)


def test_saocp_equals_salesforce_when_installed():
    pytest.importorskip(
        "online_conformal.saocp",
        reason="optional anchor: pip install --no-deps online-conformal==1.0.2 "
        "salesforce-merlion==2.0.4 dill plotly",
    )
    import pandas as pd
    from online_conformal.saocp import SAOCP
    from online_conformal.utils import Residuals

    x = synthetic("multi_block", 400, 5).scores
    residuals = Residuals(1)
    residuals.horizon2residuals[1] = [float(v) for v in x[:100]]
    model = SAOCP(model=None, train_data=None, coverage=0.9, calib_residuals=residuals)
    theirs = []
    for s in x[100:]:
        theirs.append(float(model.predict(1)[1]))
        model.update(pd.Series([s]), pd.Series([0.0]), 1)
    np.testing.assert_allclose(M.saocp(x, alpha=0.1, burn_in=100).threshold, theirs, rtol=0, atol=1e-12)


def test_pid_saturation_and_scorecaster():
    assert M.pid_saturation(3.0, 1, 2.0, 0.5) == 0.0
    assert M.pid_saturation(1.0, 10, 2.0, 1.0) == pytest.approx(2.0 * math.tan(math.log(10) / 10))
    assert (
        M.pid_saturation(100.0, 10, 2.0, 0.1) == math.inf
        and M.pid_saturation(-100.0, 10, 2.0, 0.1) == -math.inf
    )
    x = np.empty(60)
    x[0] = 1.0
    for i in range(1, 60):
        x[i] = 0.5 + 0.8 * x[i - 1]  # an exact AR(1): the OLS AR(3) fit forecasts it exactly
    assert M.ar_forecast(x, 3) == pytest.approx(0.5 + 0.8 * x[-1], rel=1e-8)


def test_dtaci_reference_eta_and_weights():
    assert M.dtaci_eta(0.2, 8, 100) == pytest.approx(
        3.19, abs=0.01
    )  # the Computo paper's value at 80% coverage
    m = M.DtACI(0.1, calibration=np.linspace(0, 1, 50), calibration_window=50)
    for s in synthetic("exchangeable", 300, 0).scores:
        m.update(s)
        assert m.p.sum() == pytest.approx(1.0) and m.p.min() >= m.sigma / m.p.size - 1e-15


def test_pace_kappa_and_ledger_step():
    assert M.pace_kappa(50, 200, 0.01) == pytest.approx(
        math.sqrt(-0.5 * math.log(0.005)) * math.sqrt(250 / 10000)
    )
    assert M.ledger_step(0.1, 0.01, 0.45, 0.9, 0.5) == pytest.approx(0.01 + 0.05 / 0.9)  # the cap binds
    # d < 0, phi = -0.45: room (0.5 + phi)/(-d) = 0.5, so gamma <= 0.51 and the smoothed step 0.1 wins
    assert M.ledger_step(0.1, 0.01, -0.45, -0.1, 0.5) == 0.1
    # d < 0, phi = +0.45: room (0.5 + 0.45)/0.1 = 9.5; d > 0, phi = 0.45: room 0.05/0.9
    assert M.ledger_step(0.1, 0.01, 0.45, -0.1, 0.5) == 0.1
    assert M.ledger_step(0.02, 0.01, 0.5, 0.9, 0.5) == 0.01  # no room left: back to gamma0


def test_ks_statistic_hand_case():
    assert ks_statistic(np.array([1.0, 2.0]), np.array([3.0, 4.0])) == 1.0
    assert ks_statistic(np.array([1.0, 3.0]), np.array([2.0, 4.0])) == 0.5


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("phi_cap", [0.5, 0.05])
def test_pace_ledger_stays_inside_and_the_identity_holds(seed, phi_cap):
    s = synthetic(["abrupt_variance", "multi_block", "mean_jump"][seed], 2000, seed).scores
    tr = M.pace(
        s, alpha=0.1, gamma0=0.005, calibration_window=300, burn_in=100, phi_cap=phi_cap, engine="numpy"
    )
    assert np.all(np.abs(tr.phi) <= phi_cap)
    assert tr.gamma_t.min() >= 0.005 and tr.gamma_t.max() <= 0.128
    assert tr.gamma_t.max() > 0.005  # the shifts do raise the step
    alpha_next = tr.alpha_t[-1] + tr.gamma_t[-1] * (0.1 - tr.err[-1])
    # alpha_{T+1} - alpha_1 = gamma0 sum (alpha - err) + phi_{T+1}
    assert alpha_next - 0.1 == pytest.approx(0.005 * np.sum(0.1 - tr.err) + tr.phi[-1], abs=1e-9)


def test_pace_with_no_ledger_room_is_aci():
    s = synthetic("abrupt_variance", 1500, 5).scores
    a = M.aci(s, 0.1, 0.005, 300, 100, engine="numpy")
    p = M.pace(s, 0.1, 0.005, 300, 100, phi_cap=0.0, engine="numpy")
    np.testing.assert_array_equal(a.threshold, p.threshold)
    np.testing.assert_array_equal(a.alpha_t, p.alpha_t)


@pytest.mark.parametrize("with_side", [False, True])
def test_numba_and_numpy_engines_give_identical_arrays(with_side):
    s = synthetic("multi_block", 1200, 7).scores
    side = synthetic("drift", 1200, 8).scores if with_side else None
    a = M.pace(s, 0.1, 0.01, 200, 100, side=side, engine="numpy")
    b = M.pace(s, 0.1, 0.01, 200, 100, side=side, engine="numba")
    for x, y in zip(
        (a.threshold, a.err, a.alpha_t, a.gamma_t, a.phi), (b.threshold, b.err, b.alpha_t, b.gamma_t, b.phi)
    ):
        np.testing.assert_array_equal(x, y)
    c = M.aci(s, 0.1, 0.01, 200, 100, engine="numpy")
    d = M.aci(s, 0.1, 0.01, 200, 100, engine="numba")
    np.testing.assert_array_equal(c.threshold, d.threshold)
    np.testing.assert_array_equal(c.alpha_t, d.alpha_t)


@pytest.mark.parametrize("method", M.METHOD_NAMES)
def test_every_method_covers_an_exchangeable_stream(method):
    s = synthetic("exchangeable", 1500, 11).scores
    tr = M.run_method(method, s, 0.1, 0.005, 300, 100, engine="numpy")
    assert tr.err.size == 1400 and abs(tr.err.mean() - 0.1) < 0.04
    assert set(np.unique(tr.err)) <= {0, 1}


def test_online_interface_matches_the_batch_function():
    s = synthetic("drift", 600, 2).scores
    m = M.PACE(0.1, 0.005, s[:100], 300)
    q, err = [], []
    for x in s[100:]:
        q.append(m.threshold())
        err.append(m.update(x))
    tr = M.pace(s, 0.1, 0.005, 300, 100, engine="numpy")
    np.testing.assert_array_equal(q, tr.threshold)
    np.testing.assert_array_equal(err, tr.err)


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="alpha"):
        M.aci([1.0, 2.0], alpha=1.5, burn_in=1)
    with pytest.raises(ValueError, match="burn_in"):
        M.aci([1.0, 2.0], burn_in=5)
    with pytest.raises(ValueError, match=r"scores\[1\]"):
        M.aci([1.0, float("nan"), 2.0], burn_in=1)
    with pytest.raises(ValueError, match="engine"):
        M.aci([1.0, 2.0, 3.0], burn_in=1, engine="cuda")
    with pytest.raises(ValueError, match="gamma"):
        M.aci([1.0, 2.0, 3.0], gamma=0.0, burn_in=1, engine="numba")
