import numpy as np
import pytest
from toolkit_care.care_tensor import CareTensor
from toolkit_care.tensor import decompose_views, three_groups


def test_three_groups_keep_dependent_judges_together():
    S = np.eye(6)
    for i, j in ((0, 3), (1, 4), (2, 5)):
        S[i, j] = S[j, i] = 0.9
    g1, g2, g3, t = three_groups(S)
    groups = [set(g) for g in (g1, g2, g3)]
    assert sorted(len(g) for g in groups) == [2, 2, 2] and t == 0.0
    assert {frozenset(g) for g in groups} == {frozenset({0, 3}), frozenset({1, 4}), frozenset({2, 5})}


def test_tensor_method_recovers_two_planted_components():
    rng = np.random.default_rng(0)
    n, k = 20000, 2
    means = rng.uniform(-2, 2, size=(9, k)) + np.array([[3.0, -3.0]])
    z = rng.random(n) < 0.4
    X = np.where(z[:, None], means[:, 0], means[:, 1]) + 0.5 * rng.standard_normal((n, 9))
    mix = decompose_views(X[:, :3], X[:, 3:6], X[:, 6:], k, seed=0, repeats=2, restarts=200)
    rec = np.vstack(mix.means)
    # each planted mean is matched by a recovered one (component order is arbitrary)
    for c in range(k):
        assert min(np.abs(rec[:, r] - means[:, c]).max() for r in range(k)) < 0.3
    assert sorted(np.round(mix.weights, 1)) == [0.4, 0.6]


def test_oracle_prior_needs_a_rate():
    with pytest.raises(ValueError, match="positive_rate"):
        CareTensor(prior="oracle")
