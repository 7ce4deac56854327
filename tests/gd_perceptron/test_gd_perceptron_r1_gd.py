"""Linear GD on R1 at finite gamma: the batched engine against the independent 2-D recursion (float64 and
60-digit), GD's gamma -> oo limit (d + 4, tie weight 1/2) and why the gamma = 1e4 slope over
d = 256..4096 is 1.22 (README, "Why gamma = 1e4 misses")."""

import math

import numpy as np
import pytest
from toolkit_gd_perceptron import data, engine, measures, models, r1_exact
from toolkit_gd_perceptron.simulation import R1_D_VALUES, run_sweep

LIN = models.linear()


def _engine(d, gamma=None, max_iter=None, **kw):
    B, y = data.r1(d)
    W0, a0 = models.init_weights(LIN, d, [0])
    return engine.run_batch(
        B,
        y,
        LIN,
        [1.0 if gamma is None else gamma],
        W0,
        a0,
        max_iter=10 * d + 10 if max_iter is None else max_iter,
        **kw,
    )


@pytest.mark.parametrize("d", [4, 5, 7, 16, 64, 256, 1024, 4096])
def test_gd_limit_on_r1_is_d_plus_4_not_2d_plus_4(d):
    limit = int(_engine(d, mode="perceptron", tie_weight=0.5).iterations[0])
    assert limit == r1_exact.half_tie_iterations(d) == (d + 4 if d % 2 == 0 else d + 3)
    # GD at a step far beyond 4 d^2 (the limit's near-tie margin is -1/(4 d^2)) takes exactly the same steps
    assert int(_engine(d, 1e12).iterations[0]) == limit == r1_exact.gd_iterations(d, 1e12)
    assert limit < data.r1_batch_perceptron_iterations(
        d
    )  # the classical Batch Perceptron counts ties as mistakes


def test_limit_near_tie_margin_is_minus_one_over_4d_squared():
    d = 64
    res = _engine(d, mode="perceptron", tie_weight=0.5, record=True, max_iter=d + 4)
    m = res.trajectory["margins"][:, 0]
    assert m[1, 0] == 0.0  # the exact tie at t = 1 (weight 1/2)
    assert np.all(m[2 : d + 5 : 2, 0] == 0.25) and np.all(m[3 : d + 4 : 2, 0] == -0.25)
    assert np.all(m[2 : d + 3 : 2, 1] < 0)
    assert m[d + 2, 1] == pytest.approx(-1 / (4 * d * d), rel=1e-9)
    assert m[d + 4, 1] > 0 and res.iterations[0] == d + 4


@pytest.mark.parametrize("d, gamma", [(16, 1e2), (256, 1e4), (1024, 1e4), (4096, 1e3), (256, 1e6)])
def test_first_sample_coordinate_after_the_tie_is_tanh(d, gamma):
    res = _engine(d, gamma, record=True, record_states=True, max_iter=2)
    u2 = res.trajectory["states"][2, 0, 0]  # W / gamma
    assert u2[0] == pytest.approx(r1_exact.first_amplitude(d, gamma), rel=1e-12, abs=1e-16)
    assert r1_exact.gd_path(d, gamma, max_iter=2, stop_at_separation=False)[1][2][0] == pytest.approx(
        u2[0], rel=1e-12
    )


def test_engine_counts_equal_the_60_digit_recursion_at_gamma_1e4():
    # cells whose count is the same at 20..320 digits (d = 1024 is not: it needs > 160 digits, see README)
    ds = [256, 512, 2048, 4096]
    rows = run_sweep([data.r1(d) for d in ds], LIN, "gd", [1e4], [0])
    got = [r["iterations"] for r in sorted(rows, key=lambda r: r["dataset_index"])]
    assert got == [r1_exact.gd_iterations(d, 1e4, dps=60) for d in ds] == [258, 849, 4088, 8171]


def test_gamma_1e4_switches_branch_between_d_256_and_1024():
    """The documented reason for the slope 1.22: T ~ d (the limit's branch) at d = 256 but T ~ 2d from d = 1024."""
    T = {d: r1_exact.gd_iterations(d, 1e4) for d in R1_D_VALUES if d >= 256}
    assert T[256] == 258 == r1_exact.half_tie_iterations(256) - 2
    assert all(1.95 <= T[d] / d <= 2.0 for d in (1024, 2048, 4096))
    assert measures.loglog_slope(list(T), list(T.values())) > 1.1  # the Must-show miss is real
    big = [d for d in T if d >= 1024]
    assert 0.99 <= measures.loglog_slope(big, [T[d] for d in big]) <= 1.01  # and each branch has slope 1


def test_one_slope_common_to_the_three_steps_is_1_071():
    """README: read as one slope for gamma in {1e2, 1e3, 1e4} together (per-gamma intercepts), the target holds."""
    ds = [d for d in R1_D_VALUES if d >= 256]
    rows = run_sweep([data.r1(d) for d in ds], LIN, "gd", [1e2, 1e3, 1e4], [0], max_iter=100_000)
    slopes = [
        measures.loglog_slope(
            ds, [r["iterations"] for r in sorted(rows, key=lambda r: r["dataset_index"]) if r["gamma"] == g]
        )
        for g in (1e2, 1e3, 1e4)
    ]
    assert [round(s, 3) for s in slopes] == [0.994, 0.995, 1.224]
    assert round(float(np.mean(slopes)), 3) == 1.071 and 0.9 <= np.mean(slopes) <= 1.1


def test_ratchet_branch_keeps_sample_two_just_misclassified():
    # d = 1024, gamma = 1e4: the even-step margin of sample 2 stays in (-5e-3, 0) while a_t climbs to ~1/2
    T, path = r1_exact.gd_path(1024, 1e4)
    a = np.array([p[0] for p in path])
    m2 = -(a + np.array([p[1] for p in path]))
    assert 1.95 * 1024 <= T <= 2 * 1024 + 4
    window = slice(1000, T - 40, 2)
    assert np.all((m2[window] < 0) & (m2[window] > -5e-3))
    assert a[2] == pytest.approx(r1_exact.first_amplitude(1024, 1e4)) and a[T - 1] > 0.49


def test_r1_exact_rejects_bad_parameters():
    with pytest.raises(ValueError, match="d must be"):
        r1_exact.gd_iterations(1, 1e4)
    with pytest.raises(ValueError, match="gamma must be"):
        r1_exact.gd_iterations(16, math.inf)
    with pytest.raises(ValueError, match="dps must be"):
        r1_exact.gd_iterations(16, 1e4, dps=5)
    with pytest.raises(ValueError, match="d must be"):
        r1_exact.half_tie_iterations(2)
