"""scikit-learn citizenship: every estimator passes ``parametrize_with_checks`` and works in the tools a
user reaches for (Pipeline, GridSearchCV, cross_val_score, clone, repr); baselines are scale-invariant.

The check instances use tiny networks and few epochs (the checks fit each estimator ~100 times);
the settings change speed, not the code paths. Skipped checks: none. The generic accuracy checks
(``check_regressors_train``, ``check_classifiers_train``) run with the estimators' ``poor_score``
tag, set because those checks fit i.i.d. random features, not curves (``FUNCTIONAL_INPUT_TAG_REASON``).
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import parametrize_with_checks
from toolkit_sbayfdnn.baselines import (
    AdaFNN,
    DenseNetwork,
    FPCARegression,
    FunctionalLinearModel,
    GroupLassoFLM,
)
from toolkit_sbayfdnn.designs import simulate
from toolkit_sbayfdnn.estimator import SparseBayesianFDNN, SparseBayesianFDNNClassifier

# cv_folds=small_n_cv_folds=2, cv_slab_factors=(1.0,): the inner-CV model choice runs (a 12-epoch network underfits)
# with one network candidate and the FLM on two folds, for speed (3 network fits per fit instead of 21 at the
# checks' small n); the wider-slab path and the default folds are tested in test_sbayfdnn_estimator. 12 epochs:
# the checks test the interface, not accuracy
TINY_NET = dict(
    n_basis=4,
    widths=(8, 4),
    epochs=12,
    anneal_epochs=4,
    finetune_epochs=3,
    n_restarts=1,
    cv_folds=2,
    small_n_cv_folds=2,
    cv_slab_factors=(1.0,),
)
CHECKED = [
    SparseBayesianFDNN(**TINY_NET),
    SparseBayesianFDNNClassifier(**TINY_NET),
    FunctionalLinearModel(n_basis=4),
    GroupLassoFLM(n_basis=4, group_size=2, lambdas=(1e-2,)),
    FPCARegression(),
    DenseNetwork(n_basis=4, widths=(8, 4), epochs=30),
    AdaFNN(n_bases=2, epochs=10),
]


@parametrize_with_checks(CHECKED)
def test_sklearn_estimator_checks(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # basis larger than the checks' few "grid points"
        check(estimator)


@pytest.fixture(scope="module")
def curves():
    return simulate("two_region", "linear", 10.0, 120, 200, 40, seed=0)


def test_estimators_work_in_pipeline_grid_search_and_cross_val_score(curves):
    d = curves
    grid = d.grid
    # the tools' plumbing, not accuracy: a 40-epoch network (the inner CV runs inside GridSearchCV's clones)
    model = SparseBayesianFDNN(grid=grid, **{**TINY_NET, "n_basis": 8, "epochs": 40, "anneal_epochs": 10})
    assert is_regressor(model) and is_classifier(SparseBayesianFDNNClassifier())
    pipe = make_pipeline(FunctionTransformer(), model)
    assert np.isfinite(pipe.fit(d.X, d.y).score(d.X_test, d.y_test))
    scores = cross_val_score(FunctionalLinearModel(n_basis=8, grid=grid), d.X, d.y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.5)
    search = GridSearchCV(clone(model), {"sigma1_sq": [2e-3, 5e-3]}, cv=2).fit(d.X, d.y)
    assert search.best_params_["sigma1_sq"] in (2e-3, 5e-3)
    assert search.best_estimator_.n_features_in_ == d.X.shape[1]
    assert "SparseBayesianFDNN(" in repr(model) and "n_basis=8" in repr(model)
    assert model.get_params()["grid"] is grid


def test_grid_fixed_at_construction_or_given_to_fit_is_the_same_fit(curves):
    d = curves
    small = {**TINY_NET, "n_basis": 8}
    a = SparseBayesianFDNN(grid=d.grid * 5, **small).fit(d.X, d.y).predict(d.X_test)
    b = SparseBayesianFDNN(**small).fit(d.X, d.y, grid=d.grid * 5).predict(d.X_test)
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="differs from the estimator's grid"):
        SparseBayesianFDNN(grid=d.grid, **small).fit(d.X, d.y, grid=d.grid * 2)


@pytest.mark.parametrize(
    "factory",
    [
        lambda: FunctionalLinearModel(n_basis=8),
        lambda: GroupLassoFLM(n_basis=8, lambdas=(1e-3, 1e-2)),
        lambda: FPCARegression(),
        lambda: DenseNetwork(n_basis=8, widths=(16, 8), epochs=150),
        lambda: AdaFNN(n_bases=2, epochs=100),
        # cv_folds=0: the network's own predictions (with the inner CV on, this under-trained network hands
        # them to the FLM, which is tested above)
        lambda: SparseBayesianFDNN(
            **{
                **TINY_NET,
                "n_basis": 8,
                "epochs": 150,
                "anneal_epochs": 30,
                "finetune_epochs": 10,
                "cv_folds": 0,
            }
        ),
    ],
    ids=["flm", "group_lasso", "fpca", "dense", "adafnn", "sbayfdnn"],
)
@pytest.mark.parametrize("factor", [1e-3, 1e3])
def test_predictions_do_not_depend_on_the_units_of_the_curves(curves, factory, factor):
    d = curves
    base = factory().fit(d.X, d.y, d.grid).predict(d.X_test)
    scaled = factory().fit(d.X * factor, d.y, d.grid).predict(d.X_test * factor)
    np.testing.assert_allclose(scaled, base, rtol=1e-4, atol=1e-4 * np.std(d.y))


def test_dense_network_fits_small_valued_curves(curves):
    """Before per-column standardisation, X * 1e-3 (derivative-sized curves) gave training R^2 ~ 0."""
    d = curves
    model = DenseNetwork(n_basis=8, widths=(16, 8), epochs=300).fit(d.X * 1e-3, d.y, d.grid)
    assert model.score(d.X * 1e-3, d.y) > 0.6


def test_flm_chooses_real_shrinkage_on_collinear_channels():
    """Tecator's 100 collinear NIR channels: the old GCV over an absolute grid picked alpha = 0 (test
    RMSE 2.79); leave-one-out CV on standardised scores picks a penalty and predicts better."""
    from toolkit_sbayfdnn.designs import tecator_curves

    d = tecator_curves()
    model = FunctionalLinearModel().fit(d.X, d.y, d.grid)
    ols = FunctionalLinearModel(alphas=(0.0,)).fit(d.X, d.y, d.grid)
    assert model.alpha_ > 0
    rmse = lambda m: float(np.sqrt(np.mean((m.predict(d.X_test) - d.y_test) ** 2)))
    assert rmse(model) < 0.97 * rmse(ols)
