"""The batched engine against the plain per-run loop, representations, ties, overflow, errors."""

import warnings

import numpy as np
import pytest
from toolkit_gd_perceptron import data, engine, measures, models

CASES = [
    ("linear gd", models.linear(), dict(mode="gd"), [1.0, 100.0, 1e4]),
    ("linear normalized gd", models.linear(), dict(mode="gd", normalized=True), [0.1, 10.0]),
    ("linear exponential", models.linear(), dict(mode="gd", loss="exponential"), [0.5, 5.0, 50.0]),
    ("linear batch perceptron", models.linear(), dict(mode="perceptron", tie_weight=1.0), [1.0]),
    (
        "linear normalized batch perceptron",
        models.linear(),
        dict(mode="perceptron", tie_weight=1.0, normalized=True),
        [1.0],
    ),
    ("quadratic perceptron form", models.two_layer("quadratic", 6), dict(mode="perceptron"), [1.0, 0.3]),
    ("quadratic gd", models.two_layer("quadratic", 6), dict(mode="gd"), [1.0, 1e3]),
    (
        "quadratic trained outer",
        models.two_layer("quadratic", 6, train_outer=True),
        dict(mode="perceptron"),
        [1.0],
    ),
    ("relu gd", models.two_layer("relu", 6), dict(mode="gd"), [10.0, 1e4]),
    ("relu limit", models.two_layer("relu", 6), dict(mode="perceptron", first_step="limit"), [1.0]),
    (
        "leaky relu trained outer gd",
        models.two_layer("leaky_relu", 6, train_outer=True),
        dict(mode="gd"),
        [3.0],
    ),
]


@pytest.mark.parametrize("label, model, opts, gammas", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("dataset", ["planted", "r1"])
def test_batched_engine_matches_per_run_loop(label, model, opts, gammas, dataset):
    B, y = data.planted(30, 12, 0.05, seed=3) if dataset == "planted" else data.r1(32)
    seeds = [0, 1]
    W0, a0 = models.init_weights(model, B.shape[1], seeds)
    G = np.repeat(gammas, len(seeds))
    res = engine.run_batch(
        B, y, model, G, np.tile(W0, (len(gammas), 1, 1)), np.tile(a0, (len(gammas), 1)), max_iter=3000, **opts
    )
    expected = [
        engine.reference_run(B, y, model, g, W0[s], a0[s], max_iter=3000, **opts)
        for g in gammas
        for s in range(len(seeds))
    ]
    assert list(res.iterations) == expected


@pytest.mark.parametrize(
    "model", [models.linear(), models.two_layer("quadratic", 5), models.two_layer("relu", 5)]
)
def test_dual_and_primal_representations_agree(model):
    B, y = data.planted(8, 40, 0.1, seed=1)  # n < d: auto picks the dual form
    W0, a0 = models.init_weights(model, 40, [0, 1, 2])
    kw = dict(mode="gd", max_iter=50, record=True, record_states=True)
    dual = engine.run_batch(B, y, model, [5.0, 5.0, 5.0], W0, a0, representation="dual", **kw)
    primal = engine.run_batch(B, y, model, [5.0, 5.0, 5.0], W0, a0, representation="primal", **kw)
    np.testing.assert_allclose(dual.trajectory["states"], primal.trajectory["states"], rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(dual.iterations, primal.iterations)


def test_linear_gd_state_is_v_over_gamma():
    # plain GD on the logistic loss in the original weights v, compared with the rescaled state u = v/gamma
    B, y = data.planted(20, 5, 0.1, seed=0)
    gamma = 3.0
    v = np.zeros(5)
    for _ in range(7):
        m = y * (B @ v)
        v = v + gamma * np.mean((1 / (1 + np.exp(m)))[:, None] * (y[:, None] * B), axis=0)
    res = engine.run_batch(
        B,
        y,
        models.linear(),
        [gamma],
        np.zeros((1, 1, 5)),
        np.ones((1, 1)),
        max_iter=7,
        record=True,
        record_states=True,
    )
    np.testing.assert_allclose(res.trajectory["states"][7, 0, 0] * gamma, v, rtol=1e-12)


def test_huge_steps_do_not_overflow():
    B, y = data.r1(64)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="raise", invalid="raise", divide="raise"):
            for model, kw in [
                (models.two_layer("quadratic", 10), {}),
                (models.two_layer("quadratic", 10, train_outer=True), {}),
                (models.linear(), {"loss": "exponential"}),
                (models.two_layer("relu", 10), {}),
            ]:
                W0, a0 = models.init_weights(model, 64, [0])
                res = engine.run_batch(
                    B, y, model, [1e12], W0, a0, max_iter=300, record=True, record_states=True, **kw
                )
                assert np.all(np.isfinite(res.trajectory["states"]))
                assert np.all(np.isfinite(res.trajectory["margins"]))
                if kw:  # exponential loss with gamma = 1e12 blows up: reported, not a crash
                    assert res.diverged[0]


def test_user_activation_without_known_degree_runs_unscaled():
    act = models.Activation("softplus", lambda s: np.logaddexp(0, s), lambda s: 1 / (1 + np.exp(-s)), None)
    model = models.Model("two_layer", act, 4)
    B, y = data.planted(20, 6, 0.5, seed=2)
    W0, a0 = models.init_weights(model, 6, [0])
    res = engine.run_batch(B, y, model, [0.5], W0, a0, max_iter=2000)
    assert res.degree is None
    assert res.iterations[0] == engine.reference_run(B, y, model, 0.5, W0[0], a0[0], max_iter=2000)


def test_classical_perceptron_separates_within_novikoff():
    for seed in range(5):
        B, y = data.planted(50, 10, 0.05, seed=seed)
        updates, theta = engine.classical_perceptron(B, y)
        _, mu = measures.max_margin_svm(B, y)
        assert 0 <= updates <= measures.novikoff_normalized(measures.radius_squared(B), mu * mu)
        assert np.all(y * (B @ theta) > 0)


def test_capped_runs_report_minus_one():
    B, y = data.r1(256)
    W0, a0 = models.init_weights(models.linear(), 256, [0])
    res = engine.run_batch(
        B, y, models.linear(), [1.0], W0, a0, mode="perceptron", tie_weight=1.0, max_iter=10
    )
    assert res.iterations[0] == -1 and res.capped[0]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(mode="bogus"), "mode"),
        (dict(loss="hinge"), "loss"),
        (dict(tie_weight=2.0), "tie_weight"),
        (dict(first_step="x"), "first_step"),
        (dict(representation="x"), "representation"),
    ],
)
def test_bad_options_raise_clear_errors(kwargs, message):
    B, y = data.r1(8)
    W0, a0 = models.init_weights(models.linear(), 8, [0])
    with pytest.raises(ValueError, match=message):
        engine.run_batch(B, y, models.linear(), [1.0], W0, a0, **kwargs)


def test_bad_data_and_models_raise():
    with pytest.raises(ValueError, match="labels"):
        data.as_dataset(np.eye(2), [1, 0])
    with pytest.raises(ValueError, match="rows"):
        data.as_dataset(np.eye(2), [1, -1, 1])
    with pytest.raises(ValueError, match="activation"):
        models.two_layer("tanh")
    with pytest.raises(ValueError, match="gamma"):
        B, y = data.r1(8)
        W0, a0 = models.init_weights(models.linear(), 8, [0])
        engine.run_batch(B, y, models.linear(), [np.inf], W0, a0, mode="gd")
    with pytest.raises(ValueError, match="zero"):
        B, y = data.r1(8)
        model = models.two_layer("quadratic", 2)
        engine.run_batch(B, y, model, [1.0], np.zeros((1, 2, 8)), np.ones((1, 2)))


def test_planted_data_has_the_planted_margin():
    B, y = data.planted(200, 15, 0.3, seed=4)
    _, mu = measures.max_margin_svm(B, y)
    assert mu >= 0.3 - 1e-6


TORCH_CASES = [
    c
    for c in CASES
    if c[0]
    in (
        "linear gd",
        "linear batch perceptron",
        "quadratic perceptron form",
        "quadratic trained outer",
        "relu limit",
        "linear normalized gd",
        "leaky relu trained outer gd",
        "linear exponential",
    )
]


@pytest.mark.parametrize("label, model, opts, gammas", TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
def test_torch_engine_gives_the_same_counts(label, model, opts, gammas):
    pytest.importorskip("torch")
    from toolkit_gd_perceptron.engine_torch import run_batch_torch

    for B, y in (data.planted(30, 12, 0.05, seed=3), data.r1(64)):
        W0, a0 = models.init_weights(model, B.shape[1], [0, 1])
        args = (
            B,
            y,
            model,
            np.repeat(gammas, 2),
            np.tile(W0, (len(gammas), 1, 1)),
            np.tile(a0, (len(gammas), 1)),
        )
        expected = engine.run_batch(*args, max_iter=3000, **opts).iterations
        np.testing.assert_array_equal(run_batch_torch(*args, max_iter=3000, device="cpu", **opts), expected)


def test_torch_backend_of_the_scaling_simulation(monkeypatch):
    pytest.importorskip("torch")
    from toolkit_gd_perceptron import simulation as sims

    monkeypatch.setenv("TOOLKIT_DEVICE", "cpu")
    p = dict(
        model="two_layer", activation="quadratic", width=10, gammas=[np.inf], d_values=[32, 64], n_seeds=3
    )
    a = sims.scaling(sims.ScalingParams(**p), seed=0).records
    b = sims.scaling(sims.ScalingParams(backend="torch", **p), seed=0).records
    assert [r["iterations"] for r in a] == [r["iterations"] for r in b]


@pytest.mark.parametrize(
    "model, opts",
    [
        (models.linear(), dict(mode="gd")),
        (models.two_layer("quadratic", 5), dict(mode="perceptron")),
        (models.two_layer("relu", 5), dict(mode="gd")),
    ],
)
@pytest.mark.parametrize("representation", ["dual", "primal"])
def test_runs_on_stacked_datasets_of_different_d_equal_separate_runs(model, opts, representation):
    dims = [8, 16, 32]
    sets = [data.r1(d) for d in dims]
    B, y, got_dims = engine.stack_datasets(sets)
    assert list(got_dims) == dims and B.shape == (3, 2, 32)
    W0 = [models.init_weights(model, d, [d])[0] for d in dims]
    a0 = np.concatenate([models.init_weights(model, d, [d])[1] for d in dims])
    W0_padded = np.concatenate([engine.pad_weights(w, 32) for w in W0])
    together = engine.run_batch(
        B, y, model, [50.0] * 3, W0_padded, a0, max_iter=3000, representation=representation, **opts
    )
    alone = [
        engine.run_batch(*sets[k], model, [50.0], W0[k], a0[k : k + 1], max_iter=3000, **opts).iterations[0]
        for k in range(3)
    ]
    np.testing.assert_array_equal(together.iterations, alone)
    with pytest.raises(ValueError, match="same number of samples"):
        engine.stack_datasets([data.r1(4), data.thm51(5)])
