"""Baselines on the same projections: each does what it says on a design where the answer is known."""

import numpy as np
import pytest
from toolkit_sbayfdnn import basis
from toolkit_sbayfdnn.baselines import (
    METHODS,
    AdaFNN,
    DenseNetwork,
    FPCARegression,
    FunctionalLinearModel,
    GroupLassoFLM,
    compare_methods,
)
from toolkit_sbayfdnn.designs import simulate


@pytest.fixture(scope="module")
def easy():
    return simulate("two_region", "linear", 20.0, 300, 300, 60, seed=2)


def _ratio(model, d):
    return np.sqrt(np.mean((model.predict(d.X_test) - d.y_test) ** 2)) / d.oracle_rmse


def test_flm_is_near_oracle_on_a_linear_truth_and_recovers_beta_shape(easy):
    model = FunctionalLinearModel().fit(easy.X, easy.y, easy.grid)
    assert _ratio(model, easy) < 1.1
    assert np.corrcoef(model.beta_, easy.beta)[0, 1] > 0.9


def test_flm_with_ols_reproduces_least_squares():
    rng = np.random.default_rng(0)
    grid = np.linspace(0, 1, 30)
    X = rng.normal(size=(80, 30))
    y = rng.normal(size=80)
    model = FunctionalLinearModel(n_basis=6, alphas=(0.0,)).fit(X, y, grid)
    Z = np.column_stack([np.ones(80), X @ basis.projection_matrix(grid, 6, 3)])
    coef, *_ = np.linalg.lstsq(Z, y, rcond=None)
    np.testing.assert_allclose(model.coef_, coef[1:], rtol=1e-8, atol=1e-10)


def test_group_lasso_drops_groups_outside_the_region():
    d = simulate("one_region", "linear", 20.0, 300, 100, 60, seed=0)
    model = GroupLassoFLM(lambdas=(3e-2,)).fit(d.X, d.y, d.grid)
    assert 0 < len(model.selected_) < 24
    truth = basis.region_mask(d.grid, d.true_regions)
    metrics = basis.region_metrics(basis.region_mask(d.grid, model.selected_regions_), truth)
    assert metrics["tpr"] == 1.0 and metrics["fpr"] < 0.8


def test_fpca_scores_are_orthonormal_projections(easy):
    model = FPCARegression().fit(easy.X, easy.y, easy.grid)
    w = basis.quadrature_weights(basis.to_unit(easy.grid))
    gram = (model.eigenfunctions_ * w) @ model.eigenfunctions_.T
    np.testing.assert_allclose(gram, np.eye(model.n_components_), atol=1e-10)
    assert _ratio(model, easy) < 1.2


def test_networks_beat_the_mean_predictor(easy):
    sd = np.std(easy.y_test)
    for model in (
        DenseNetwork(epochs=200, widths=(16, 8)),
        AdaFNN(epochs=100),
        DenseNetwork(epochs=200, widths=(16, 8), early_stopping=False, weight_decay_var=float("inf")),
    ):
        model.fit(easy.X, easy.y, easy.grid)
        assert np.sqrt(np.mean((model.predict(easy.X_test) - easy.y_test) ** 2)) < 0.7 * sd


def test_dense_without_early_stopping_runs_every_epoch(easy):
    model = DenseNetwork(epochs=40, widths=(8, 4), early_stopping=False).fit(easy.X, easy.y, easy.grid)
    assert model.best_epoch_ == 40
    stopped = DenseNetwork(epochs=40, widths=(8, 4)).fit(easy.X, easy.y, easy.grid)
    assert stopped.best_epoch_ in (25,)  # validation is checked every 25 epochs


def test_compare_methods_returns_one_record_per_method():
    d = simulate("two_region", "square", 5.0, 80, 50, 30, seed=0)
    records = compare_methods(
        d,
        METHODS,
        epochs=60,
        n_basis=8,
        sbay_kwargs=dict(widths=(8, 4), anneal_epochs=20, finetune_epochs=10, n_restarts=1),
    )
    assert [r["method"] for r in records] == list(METHODS)
    for r in records:
        assert np.isfinite(r["rmse"]) and r["rmse_ratio"] > 0.5
    by = {r["method"]: r for r in records}
    assert by["select_all"]["fpr"] == 1.0 and by["select_all"]["tpr"] == 1.0
    assert 0.0 <= by["sbayfdnn"]["coverage"] <= 1.0
    with pytest.raises(ValueError, match="methods"):
        compare_methods(d, ("ridge",))


def test_group_lasso_with_one_penalty_uses_it_and_bad_penalties_are_named(monkeypatch):
    d = simulate("one_region", "linear", 20.0, 60, 10, 30, seed=0)
    solved = []
    original = GroupLassoFLM._solve
    monkeypatch.setattr(
        GroupLassoFLM, "_solve", lambda self, Z, y, lam: solved.append(lam) or original(self, Z, y, lam)
    )
    model = GroupLassoFLM(n_basis=8, lambdas=(3e-2,)).fit(d.X, d.y, d.grid)
    assert model.lambda_ == 3e-2 and solved == [3e-2]  # no validation solves when there is nothing to choose
    for bad in ((), (0.0,), (1e-2, -1.0)):
        with pytest.raises(ValueError, match="lambdas: must be a non-empty sequence of penalties > 0"):
            GroupLassoFLM(n_basis=8, lambdas=bad).fit(d.X, d.y, d.grid)
