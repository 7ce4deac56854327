"""The targets' readings: G4 with trailing windows, G2 without its step share."""

import numpy as np
import pytest
from toolkit_pace import experiments as ex
from toolkit_pace.metrics import trailing_post_shift_deviation


def test_trailing_post_shift_deviation_looks_back():
    err = np.r_[np.zeros(200), np.ones(200)]
    # windows ending at t = 200..219 hold 1..20 ones of the last 100 rounds (clipped to what exists)
    got = trailing_post_shift_deviation(err, 0.1, [200], rounds=20, window=100)
    expected = np.mean([abs(k / 100 - 0.1) for k in range(1, 21)])
    assert got == pytest.approx(expected)
    assert np.isnan(trailing_post_shift_deviation(err, 0.1, []))


def _runs(forward, trailing):
    runs = []
    for stream in ("exchangeable", *ex.SHIFT_STREAMS):
        for method, gammas in (("aci", ex.GAMMA0S), ("pace", ex.GAMMA0S), ("dtaci", (0.005,))):
            for g0 in gammas:
                runs.append(
                    {
                        "method": method,
                        "stream": stream,
                        "gamma0": g0,
                        "seed": 0,
                        "recovery_total": 100.0 if method == "aci" else 40.0,
                        "post_shift_deviation": forward[method],
                        "post_shift_deviation_trailing": trailing[method],
                        "violation_rate": 0.2,
                        "mean_width": 1.0,
                        "gamma0_within_1pct": 0.5,
                        "gamma0_fraction": 0.1,
                    }
                )
    return runs


def test_g4_is_read_with_trailing_windows():
    runs = _runs(
        forward={"aci": 0.1, "pace": 0.09, "dtaci": 0.1}, trailing={"aci": 0.1, "pace": 0.05, "dtaci": 0.1}
    )
    g4 = [c for c in ex.g3_g4_shift(False, runs).comparisons if c.claim.startswith("G4")]
    assert g4 and all(c.ok for c in g4)
    assert all("trailing windows" in c.claim and "forward windows" in c.measured for c in g4)


def test_g2_step_share_is_reported_not_held():
    runs = _runs(
        forward={"aci": 0.1, "pace": 0.1, "dtaci": 0.1}, trailing={"aci": 0.1, "pace": 0.1, "dtaci": 0.1}
    )
    comps = ex.g2_exchangeable(False, runs).comparisons
    share = [c for c in comps if "share of rounds" in c.claim]
    assert share and all(c.ok is None for c in share)
    assert all(c.ok for c in comps if c not in share)  # width and violation rate stand
