"""Loss/mistake oscillations, normalised margin, SVM alignment and activation changes."""

import math

import numpy as np
from toolkit_gd_perceptron import simulation as sims


def test_r1_large_step_loss_oscillates_with_period_two():
    out = sims.dynamics(sims.DynamicsParams(dataset="r1", d=16, model="linear", gamma=1e4, T=60), seed=0)
    s = out.summary
    assert s["iterations"] == 20
    assert s["non_monotone_steps"] >= 5
    assert s["mistake_period"] == 2
    rows = out.records
    # f/gamma tracks the perceptron loss within log 2/gamma at every step
    assert all(0 <= r["loss_over_gamma"] - r["perceptron_loss"] <= math.log(2) / 1e4 + 1e-12 for r in rows)


def test_gd_normalised_margin_stays_below_the_svm_margin_and_aligns():
    out = sims.dynamics(
        sims.DynamicsParams(dataset="planted", n=60, d=10, margin=0.05, model="linear", gamma=1.0, T=3000),
        seed=0,
    )
    rows = out.records
    mu = out.summary["svm_margin"]
    assert all(r["normalized_margin"] <= mu + 1e-9 for r in rows if not math.isnan(r["normalized_margin"]))
    assert rows[-1]["alignment"] < rows[10]["alignment"]
    assert rows[-1]["normalized_margin"] > 0


def test_relu_network_reports_activation_changes():
    out = sims.dynamics(
        sims.DynamicsParams(
            dataset="planted",
            n=50,
            d=10,
            margin=0.05,
            model="two_layer",
            activation="relu",
            width=8,
            gamma=1.0,
            T=40,
        ),
        seed=1,
    )
    changes = [r["activation_changes"] for r in out.records]
    assert changes[0] == 0 and sum(changes) > 0
    assert all(math.isnan(r["alignment"]) for r in out.records)


def test_thm41_loss_is_unreliable():
    """Predecessor Thm 4.1: the loss after one large step is about gamma/8 although t = 2 separates."""
    out = sims.dynamics(sims.DynamicsParams(dataset="thm41", model="linear", gamma=1e6, T=4), seed=0)
    rows = out.records
    assert abs(rows[1]["loss_over_gamma"] - 0.125) < 1e-6
    assert out.summary["iterations"] == 2
    assert np.isclose(rows[1]["perceptron_loss"], 0.125)
