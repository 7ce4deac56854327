import itertools

import numpy as np
import pytest
from toolkit_care import aggregators as ag
from toolkit_care.care_svd import CareSVD, anchored_weights, published_weights
from toolkit_care.model import error, make_model, simulate


def test_uws_closed_form_equals_the_triplet_average():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 5)) + rng.normal(size=(50, 1))
    J = X.shape[1]
    diff = []
    for i in range(J):
        others = [j for j in range(J) if j != i]
        vals = []
        for j, k in itertools.combinations(others, 2):
            d = lambda u, v: np.sum((X[:, u] - X[:, v]) ** 2)  # noqa: E731
            vals.append(0.5 * (d(i, j) + d(i, k) - d(j, k)))
        diff.append(np.mean(vals))
    theta = 1 / (2 * np.array(diff))
    assert np.allclose(ag.UWS().fit(X).weights_, theta / theta.sum())


def test_majority_vote_breaks_ties_to_the_smallest_value():
    X = np.array([[1, 2, 2, 1], [3, 3, 5, 5], [4, 4, 4, 9]], dtype=float)
    assert ag.MajorityVote().fit_predict(X).tolist() == [1, 3, 4]


def test_label_free_binary_aggregators_recover_planted_labels():
    m = make_model(15, 0, 0.0, 0, 0.0, seed=0)
    s = simulate(m, 2000, "binary", seed=0)
    for agg in (ag.DawidSkene(), ag.LabelModel(task="binary"), ag.Mean(task="binary")):
        assert error("binary", agg.fit_predict(s.votes), s.truth) < 0.15


def test_published_rule_subtracts_every_further_factor():
    v1, v2 = np.array([1, 1, 0, 0]) / np.sqrt(2), np.array([0, 0, 1, 1]) / np.sqrt(2)
    L = 4 * np.outer(v1, v1) + 1 * np.outer(v2, v2)
    w = published_weights(L)
    assert np.allclose(np.abs(w), np.abs(2 * v1 - v2)) or np.allclose(np.abs(w), np.abs(2 * v1 + v2))


def test_anchored_weights_from_the_population_L_are_the_optimal_weights():
    # L = D^-1 A (I + A'D^-1 A)^-1 A'D^-1 of the model: the anchors' shared direction gives Sigma^-1 a
    m = make_model(8, 1, 1.5, 2, 0.0, seed=4)
    A = np.column_stack([m.a, m.B])
    Dinv = np.diag(1 / m.d)
    L = Dinv @ A @ np.linalg.inv(np.eye(2) + A.T @ Dinv @ A) @ A.T @ Dinv
    w = anchored_weights(L, 2, anchors=(0, 1))
    opt = np.linalg.solve(m.covariance(), m.a)
    assert abs(w @ opt) / (np.linalg.norm(w) * np.linalg.norm(opt)) == pytest.approx(1, abs=1e-10)


def test_principled_care_svd_beats_the_mean_under_a_confounder_and_finds_its_rank():
    m = make_model(10, 1, 1.0, 2, 0.0, seed=0)
    s = simulate(m, 2000, "continuous", seed=0)
    agg = CareSVD("principled", anchors=(0, 1), gamma_grid=(1, 10)).fit(s.votes)
    assert agg.rank_ == 2 and agg.fallback_ is None
    assert error("continuous", agg.predict(s.votes), s.Q) < 0.75 * error("continuous", s.votes.mean(1), s.Q)


def test_principled_care_svd_on_votes_picks_an_inner_penalty_level_and_the_planted_rank():
    from toolkit_care.care_svd import SCALE_GRID

    m = make_model(16, 1, 1.0, 2, 0.0, seed=0)
    s = simulate(m, 1000, "binary", seed=0)
    base = min(
        error("binary", ag.Mean(task=ag.BINARY).fit_predict(s.votes), s.truth),
        error("binary", ag.FactorAggregator(1, task=ag.BINARY, seed=0).fit_predict(s.votes), s.truth),
    )
    kw = dict(anchors=(0, 1), task=ag.BINARY, gamma_grid=(1, 10), max_iters=2000)
    # gamma alone at the published level: the edge of the grid, and the rank read as 1 (the one-factor model)
    old = CareSVD("principled", scale_grid=(1,), rank_by="eigengap", **kw).fit(s.votes)
    assert old.gamma_ == 10 and old.rank_ == 1
    new = CareSVD("principled", **kw).fit(
        s.votes
    )  # the default: penalty level and rank by held-out likelihood
    best = new.loglik_[(new.gamma_, new.scale_)]
    assert min(SCALE_GRID) < new.scale_ < max(SCALE_GRID)
    assert all(v < best for (g, c), v in new.loglik_.items() if g == new.gamma_ and c != new.scale_)
    assert new.rank_ == 2
    assert error("binary", new.predict(s.votes), s.truth) < 0.85 * base


def test_bad_inputs_name_the_problem():
    with pytest.raises(ValueError, match="mode must be one of"):
        CareSVD(mode="fast")
    with pytest.raises(ValueError, match="scale_grid must be"):
        CareSVD(scale_grid=(0,))
    with pytest.raises(ValueError, match="rank_by must be one of"):
        CareSVD(rank_by="gap")
    with pytest.raises(ValueError, match="non-finite"):
        ag.Mean().fit_predict(np.array([[1.0, np.nan], [2.0, 3.0]]))
    with pytest.raises(ValueError, match="0/1 votes"):
        ag.DawidSkene().fit(np.array([[0.0, 2.0], [1.0, 0.0]]))


def test_tetrachoric_correlation_recovers_the_latent_correlation_at_any_threshold():
    from toolkit_care.tetrachoric import tetrachoric

    rng = np.random.default_rng(0)
    C = np.array([[1, 0.6, -0.3], [0.6, 1, 0.2], [-0.3, 0.2, 1]])
    Z = rng.multivariate_normal(np.zeros(3), C, size=100_000)
    V = (Z > np.array([0.0, 0.5, -1.0])).astype(float)
    assert np.allclose(tetrachoric(V), C, atol=0.02)
    pearson = np.corrcoef(V, rowvar=False)
    assert abs(pearson[0, 1] - 0.6) > 0.1  # the attenuation it corrects
    with pytest.raises(ValueError, match="0/1 votes"):
        tetrachoric(Z)
    with pytest.raises(ValueError, match="corr must be one of"):
        CareSVD(corr="spearman")
