"""The registered simulations end to end: rows held against the bounds they name, the MLP."""

import math

import pytest

import toolkit


def test_svrg_runs_in_the_theorems_region_are_held_against_the_rate():
    # eta = 0.1/L and m = 50 L/gamma give alpha = 1/2: every snapshot row must sit below 2^-s
    res = toolkit.run(
        "svrg_poco.convergence",
        {"n": 200, "step": 0.1, "inner": 50.0, "inner_unit": "L/gamma", "n_epochs": 700.0, "tol": 1e-12},
        seed=0,
        cache=False,
    )
    assert abs(res.table.rate_alpha.iloc[0] - 0.5) < 1e-4  # m is rounded to an integer
    checked = res.checks[~res.checks.skipped]
    assert len(checked) >= 2 and checked.holds.all()


def test_the_rate_bound_applies_only_where_the_theorem_does():
    res = toolkit.run("svrg_poco.convergence", {"n": 200, "n_epochs": 15.0}, seed=0, cache=False)
    assert res.table.rate_alpha.iloc[0] >= 1  # eta = 1/(4L): alpha >= 1, nothing to hold
    assert res.checks.skipped.all()


def test_variance_rows_respect_the_lemma():
    res = toolkit.run("svrg_poco.variance", {"n": 200, "n_epochs": 20.0}, seed=1, cache=False)
    assert (res.table.lemma_ratio <= 1).all()
    assert res.checks[~res.checks.skipped].holds.all()
    assert res.summary["max_lemma_ratio"] <= 1


def test_mlp_counts_steps_and_evaluations():
    pytest.importorskip("torch")
    res = toolkit.run("svrg_poco.mlp", {"method": "ivon_poco", "epochs": 2}, seed=0, cache=False)
    t = res.table
    assert list(t.epoch) == [0, 1, 2]
    n_train, steps_per_epoch = 1438, math.ceil(1438 / 32)
    assert t.steps.iloc[-1] == 2 * steps_per_epoch
    # per epoch: one snapshot pass (N) + two mini-batch gradients per step (2N)
    assert t.evals.iloc[-1] == 2 * 3 * n_train
    assert t.train_loss.iloc[-1] < t.train_loss.iloc[0]


def test_mlp_zero_variance_limits_and_beta2(tmp_path):
    store = tmp_path / "runs.sqlite"
    runs = {
        gradient: toolkit.run(
            "svrg_poco.mlp", {"method": "ivon", "epochs": 1, "gradient": gradient}, seed=0, store=store
        )
        for gradient in ("mini-batch", "exact", "deterministic")
    }
    losses = {g: r.summary["train_loss"] for g, r in runs.items()}
    assert len(set(losses.values())) == 3  # three different runs, same steps
    assert {r.summary["steps"] for r in runs.values()} == {45}
    assert all(0 < r.summary["h_min"] <= r.summary["h_max"] for r in runs.values())
    adam = toolkit.run("svrg_poco.mlp", {"method": "adam", "lr": 1e-3, "epochs": 1}, seed=0, store=store)
    assert math.isnan(adam.summary["h_min"])
    other = toolkit.run("svrg_poco.mlp", {"method": "ivon", "epochs": 1, "beta2": 0.999}, seed=0, store=store)
    assert other.summary["train_loss"] != losses["mini-batch"]
    with pytest.raises(toolkit.ParameterError, match="beta2 is read only by adam, ivon and ivon_poco"):
        toolkit.run("svrg_poco.mlp", {"method": "sgd", "beta2": 0.9}, seed=0, store=store)
