"""A user's own stream: declared change points, absolute residuals, and the share of infinite sets."""

import math

import numpy as np
import pytest
from toolkit_pace import simulation as sims

import toolkit
from toolkit.errors import ParameterError


def _jump_scores(T=900, at=450, seed=0):
    rng = np.random.default_rng(seed)
    return np.abs(rng.standard_normal(T) * np.where(np.arange(T) >= at, 3.0, 1.0)).tolist()


def test_user_change_points_give_recovery_and_post_shift_deviation():
    p = sims.StreamParams(
        stream="user", scores=_jump_scores(), change_points=[450], T=900, calibration_window=200, method="aci"
    )
    out = sims.stream_run(p, 0)
    assert math.isfinite(out.summary["post_shift_deviation"])
    assert math.isfinite(out.summary["recovery_total"])
    rec = sims.recovery(sims.RecoveryParams(**p.model_dump()), 0)
    assert [r["tau"] for r in rec.records] == [450]
    assert math.isfinite(rec.records[0]["recovery"])


def test_change_points_replace_a_synthetic_streams_own():
    p = sims.RecoveryParams(stream="mean_jump", T=800, calibration_window=200, change_points=[300, 500])
    assert [r["tau"] for r in sims.recovery(p, 0).records] == [300, 500]


@pytest.mark.parametrize(
    "change_points, match",
    [([0], "strictly increasing"), ([400, 300], "strictly increasing"), ([5000], "must be < 900")],
)
def test_bad_change_points_name_the_parameter(tmp_path, change_points, match):
    params = {"stream": "user", "scores": _jump_scores(), "T": 900, "change_points": change_points}
    with pytest.raises(ParameterError, match=f"change_points.*{match}|{match}.*change_points"):
        toolkit.run("pace.stream", params, store=tmp_path / "s.sqlite")


def test_absolute_residuals_double_the_width():
    base = dict(stream="user", scores=_jump_scores(), T=900, calibration_window=200, method="aci")
    plain = sims.stream_run(sims.StreamParams(**base), 0).records
    residual = sims.stream_run(sims.StreamParams(**base, absolute_residuals=True), 0).records
    np.testing.assert_array_equal(residual["width"], 2 * plain["width"])
    np.testing.assert_array_equal(residual["threshold"], plain["threshold"])


def test_absolute_residuals_is_for_user_streams_only(tmp_path):
    with pytest.raises(ParameterError, match="absolute_residuals"):
        toolkit.run(
            "pace.stream", {"stream": "drift", "absolute_residuals": True}, store=tmp_path / "s.sqlite"
        )


def test_mean_width_reports_the_share_of_infinite_sets():
    # a tiny calibration window at alpha = 0.05: q = +inf (every score kept) on some rounds
    p = sims.StreamParams(stream="drift", T=600, calibration_window=5, burn_in=5, method="aci", alpha=0.05)
    out = sims.stream_run(p, 0)
    share = float(np.mean(out.records["width"] == np.inf))
    assert share > 0
    assert out.summary["infinite_width_fraction"] == pytest.approx(share)
