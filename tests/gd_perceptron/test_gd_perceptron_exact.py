"""Exact reference values: predecessor Table 1 and Thm 4.1, R1's 2d + 4."""

import numpy as np
import pytest
from toolkit_gd_perceptron import data, engine, measures, models

LIN = models.linear()


def _iterations(B, y, gamma=1.0, **kw):
    W0, a0 = models.init_weights(LIN, B.shape[1], [0])
    return int(engine.run_batch(B, y, LIN, [gamma], W0, a0, max_iter=100_000, **kw).iterations[0])


def test_table1_batch_perceptron_301_and_lr_gd_308():
    B, y = data.thm51(1000)
    assert _iterations(B, y, mode="perceptron", tie_weight=1.0) == 301
    assert _iterations(B, y, gamma=100.0) == 308


@pytest.mark.parametrize("gamma, expected", [(100.0, 2), (10.0, 2), (1.0, 16), (0.1, 157)])
def test_table1_normalized_lr_gd(gamma, expected):
    B, y = data.thm51(1000)
    assert _iterations(B, y, gamma=gamma, normalized=True) == expected


@pytest.mark.parametrize("n", [10, 100, 500])
def test_thm51_batch_perceptron_is_three_tenths_n_plus_one(n):
    B, y = data.thm51(n)
    assert _iterations(B, y, mode="perceptron", tie_weight=1.0) == 3 * n // 10 + 1


def test_thm41_first_iterate_loss_and_separation_at_two():
    B, y = data.thm41()
    gammas = [1e2, 1e4, 1e8]
    W0, a0 = models.init_weights(LIN, 2, [0] * 3)
    res = engine.run_batch(B, y, LIN, gammas, W0, a0, max_iter=3, record=True, record_states=True)
    np.testing.assert_array_equal(res.trajectory["states"][1, :, 0], [[0.5, 0.75]] * 3)
    f1 = [measures.logistic_loss_over_gamma(res.trajectory["margins"][1, r], g) for r, g in enumerate(gammas)]
    assert all(0 <= f - 0.125 <= np.log(2) / g for f, g in zip(f1, gammas))
    assert abs(f1[-1] - 0.125) < 1e-12
    assert list(res.iterations) == [2, 2, 2]
    assert _iterations(B, y, mode="perceptron") == 2


@pytest.mark.parametrize("d", [4, 5, 7, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096])
def test_r1_batch_perceptron_takes_exactly_2d_plus_4(d):
    B, y = data.r1(d)
    assert (
        _iterations(B, y, mode="perceptron", tie_weight=1.0)
        == data.r1_batch_perceptron_iterations(d)
        == 2 * d + 4
    )


def test_r1_mistake_sets_alternate_with_period_two_and_ties_on_odd_steps():
    d = 16
    B, y = data.r1(d)
    W0, a0 = models.init_weights(LIN, d, [0])
    res = engine.run_batch(
        B, y, LIN, [1.0], W0, a0, mode="perceptron", tie_weight=1.0, max_iter=2 * d + 3, record=True
    )
    m = res.trajectory["margins"][:, 0]
    assert np.all(m[1::2, 0] == 0.0)  # sample 1 sits exactly on the hyperplane at odd steps
    mistakes = m[1:] <= 0
    assert measures.sequence_period(mistakes) == 2
    np.testing.assert_array_equal(mistakes[0], [True, False])
    np.testing.assert_array_equal(mistakes[1], [False, True])


def test_r1_margin_closed_form_matches_cvxpy():
    for d in (16, 256):
        B, y = data.r1(d)
        _, mu = measures.max_margin_svm(B, y)
        assert mu * mu == pytest.approx(data.r1_margin_squared(d), rel=1e-6)
        assert measures.radius_squared(B) == pytest.approx(data.r1_radius_squared(d))


def test_large_step_gd_on_thm51_data_takes_the_batch_perceptron_count():
    B, y = data.thm51(1000)
    assert _iterations(B, y, gamma=1e4) == 301
