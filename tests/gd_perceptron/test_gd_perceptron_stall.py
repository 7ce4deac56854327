"""Stalled runs stop at once with status 'stalled' and their points; ReLU'(0) conventions; caps that say so."""

import math
import time

import numpy as np
import pytest
from toolkit_gd_perceptron import data, engine, models
from toolkit_gd_perceptron import simulation as sims

from toolkit.errors import ParameterError

INF = math.inf


def test_relu_on_the_staircase_returns_stalled_in_seconds_not_at_the_cap():
    start = time.perf_counter()
    out = sims.scaling(
        sims.ScalingParams(
            dataset="staircase",
            model="two_layer",
            activation="relu",
            gammas=[INF],
            d_values=[8, 32, 128],
            n_seeds=5,
        ),
        seed=0,
    )
    took = time.perf_counter() - start
    assert out.summary["max_iter_used"] == 100_000 and out.summary["capped"] == 0
    assert out.summary["stalled"] == 15 and "stalled" in out.summary["cap_note"]
    B = {d: data.staircase(d) for d in (8, 32, 128)}
    for r in out.records:
        assert r["status"] == "stalled" and math.isnan(r["iterations"]) and r["stalled_points"]
    # the stalled points are dead: zero margin, no active unit (checked on one run's recorded path)
    Bd, yd = B[32]
    model = models.two_layer("relu", 20)
    W0, a0 = models.init_weights(model, 32, [0])
    rec = engine.run_batch(Bd, yd, model, [1.0], W0, a0, mode="perceptron", max_iter=50, record=True)
    res = engine.run_batch(Bd, yd, model, [1.0], W0, a0, mode="perceptron", max_iter=100_000)
    t = (
        int(np.argmax(np.all(rec.trajectory["margins"][1:, 0] == rec.trajectory["margins"][:-1, 0], axis=1)))
        + 1
    )
    dead = np.flatnonzero(res.stalled_points[0])
    assert np.all(rec.trajectory["margins"][t, 0, dead] == 0)
    assert not rec.trajectory["active"][t, 0][:, dead].any()
    assert took < 60  # generous for a loaded machine; the cap (100,000 steps) would take minutes


def test_fixed_point_and_cycle_detection_in_every_engine():
    # a fixed point: z_1 = e_1 and z_2 = -e_1 cancel, every step adds nothing
    B, y = np.array([[1.0, 0.0], [1.0, 0.0]]), np.array([1.0, -1.0])
    lin = models.linear()
    W0, a0 = models.init_weights(lin, 2, [0])
    res = engine.run_batch(B, y, lin, [1.0], W0, a0, mode="perceptron", tie_weight=1.0, max_iter=10_000)
    assert res.iterations[0] == engine.STALLED and list(res.stalled_points[0]) == [True, True]
    assert (
        engine.reference_run(B, y, lin, 1.0, W0[0], a0[0], mode="perceptron", tie_weight=1.0)
        == engine.STALLED
    )
    # a cycle of period 2 (entered at step 9): the Batch Perceptron on non-separable points
    Bc, yc = np.array([[0.0, 2.0], [-1.0, 2.0], [1.0, -2.0]]), np.ones(3)
    W0c, a0c = models.init_weights(lin, 2, [0])
    res_c = engine.run_batch(Bc, yc, lin, [1.0], W0c, a0c, mode="perceptron", tie_weight=1.0, max_iter=10_000)
    assert res_c.iterations[0] == engine.STALLED
    rec = engine.run_batch(
        Bc,
        yc,
        lin,
        [1.0],
        W0c,
        a0c,
        mode="perceptron",
        tie_weight=1.0,
        max_iter=40,
        record=True,
        record_states=True,
    )
    states = rec.trajectory["states"][:, 0, 0]
    assert np.array_equal(states[9], states[11]) and not np.array_equal(states[9], states[10])
    assert rec.iterations[0] == engine.STALLED  # record mode marks it too
    assert (
        engine.reference_run(Bc, yc, lin, 1.0, W0c[0], a0c[0], mode="perceptron", tie_weight=1.0)
        == engine.STALLED
    )
    pytest.importorskip("numba")
    from toolkit_gd_perceptron.engine_numba import linear_run

    assert linear_run(B, y, mode="perceptron", tie_weight=1.0)[0] == engine.STALLED
    assert linear_run(Bc, yc, mode="perceptron", tie_weight=1.0)[0] == engine.STALLED


def test_torch_engine_detects_the_stall_too():
    pytest.importorskip("torch")
    from toolkit_gd_perceptron.engine_torch import run_batch_torch

    B, y = data.staircase(16)
    model = models.two_layer("relu", 8)
    W0, a0 = models.init_weights(model, 16, [0, 1])
    expected = engine.run_batch(B, y, model, [1.0, 1.0], W0, a0, mode="perceptron", max_iter=5000).iterations
    assert list(expected) == [engine.STALLED] * 2
    np.testing.assert_array_equal(
        run_batch_torch(B, y, model, [1.0, 1.0], W0, a0, mode="perceptron", max_iter=5000), expected
    )


def test_relu_grad_at_zero_conventions():
    s = np.array([-1.0, 0.0, 2.0])
    for c in (0.0, 0.5, 1.0):
        act = models.two_layer("relu", 4, relu_grad_at_zero=c).activation
        np.testing.assert_array_equal(act.grad(s), [0.0, c, 1.0])
        assert act.grad_at_zero == c
    with pytest.raises(ValueError, match="relu_grad_at_zero"):
        models.two_layer("relu", 4, relu_grad_at_zero=0.3)
    with pytest.raises(ParameterError, match="relu_grad_at_zero"):
        sims.scaling(
            sims.ScalingParams(model="two_layer", activation="relu", relu_grad_at_zero=0.3, d_values=[8]),
            seed=0,
        )
    with pytest.raises(ParameterError, match="relu_grad_at_zero"):
        sims.scaling(
            sims.ScalingParams(
                model="two_layer", activation="quadratic", relu_grad_at_zero=1.0, d_values=[8]
            ),
            seed=0,
        )
    # at 1 a unit exactly on its hinge moves: from W_0 = 0 (all pre-activations 0) the gate-1 model trains
    B, y = data.planted(20, 5, 0.5, seed=0)
    for c, moves in ((0.0, False), (1.0, True)):
        model = models.two_layer("relu", 2, relu_grad_at_zero=c)
        res = engine.run_batch(
            B,
            y,
            model,
            [1.0],
            np.zeros((1, 2, 5)),
            models.init_weights(model, 5, [0])[1],
            mode="perceptron",
            start="init",
            max_iter=5,
            record=True,
            record_states=True,
        )
        assert bool(np.any(res.trajectory["states"][-1] != 0)) == moves


def test_a_cap_below_the_bound_says_so_and_the_default_cap_comes_from_novikoff():
    capped = sims.scaling(
        sims.ScalingParams(
            dataset="staircase", algorithm="batch_perceptron", gammas=[INF], d_values=[32], max_iter=500
        ),
        seed=0,
    )
    r = capped.records[0]
    assert r["status"] == "capped" and r["bound"] > 500
    assert "below their Novikoff-type bound" in capped.summary["cap_note"]
    assert "provably needs more than max_iter = 500 at d = 32 (1024)" in capped.summary["cap_note"]
    derived = sims.scaling(
        sims.ScalingParams(
            dataset="staircase", algorithm="batch_perceptron", gammas=[INF], d_values=[32, 64]
        ),
        seed=0,
    )
    assert [r["iterations"] for r in derived.records] == [32**2, 64**2]
    assert (
        derived.summary["max_iter_used"] == math.floor(max(r["bound"] for r in derived.records)) + 1 > 100_000
    )
    assert derived.summary["cap_note"] == ""
