"""Reduction fidelity: GD with step gamma against its perceptron limit."""

import numpy as np
from toolkit_gd_perceptron import simulation as sims


def _errors(summary, gammas):
    return [summary[f"max_rel_error_gamma_{g:g}"] for g in gammas]


def test_linear_reduction_on_thm51_data():
    gammas = [1e1, 1e2, 1e3, 1e4]
    out = sims.reduction(sims.ReductionParams(dataset="thm51", n=1000, gammas=gammas, T=60), seed=0)
    errs = _errors(out.summary, gammas)
    assert errs[-1] <= 1e-6
    assert errs[0] > 1e-2  # small steps are far from the limit
    assert out.summary["error_decreasing_in_gamma"]
    rows = out.records
    assert all(r["loss_gap"] <= np.log(2) / r["gamma"] + 1e-9 for r in rows)
    assert all(r["loss_gap_limit"] <= np.log(2) / r["gamma"] + 1e-9 for r in rows if r["gamma"] == 1e4)


def test_linear_reduction_on_planted_gaussian_data():
    gammas = [1e1, 1e2, 1e3, 1e4]
    out = sims.reduction(
        sims.ReductionParams(dataset="planted", n=100, d=20, margin=0.5, gammas=gammas, T=60), seed=0
    )
    errs = _errors(out.summary, gammas)
    assert errs[-1] <= 1e-6 and out.summary["error_decreasing_in_gamma"]
    assert out.summary["min_normalized_abs_margin_limit"] > 1e-2  # non-degenerate: no near-ties on the path


def test_two_layer_relu_reduction_error_scales_as_one_over_gamma():
    gammas = [1e5, 1e6, 1e8]
    out = sims.reduction(
        sims.ReductionParams(
            dataset="planted",
            n=100,
            d=20,
            model="two_layer",
            activation="relu",
            width=20,
            gammas=gammas,
            T=40,
        ),
        seed=0,
    )
    errs = _errors(out.summary, gammas)
    assert errs[-1] <= 1e-6
    ratios = [errs[0] / errs[1], errs[1] / errs[2]]
    assert 5 < ratios[0] < 20 and 50 < ratios[1] < 200


def test_reduction_rejects_degree_two_models():
    import pytest

    from toolkit.errors import ParameterError

    with pytest.raises(ParameterError, match="activation"):
        sims.reduction(sims.ReductionParams(model="two_layer", activation="quadratic"), seed=0)


def test_reduction_targets_hold_across_seeds():
    """README: planted data seeds 0..7 (linear, gamma = 1e4) and ReLU init seeds 0..7 (gamma = 1e8)."""
    for s in range(8):
        lin = sims.reduction(
            sims.ReductionParams(
                dataset="planted", n=100, d=20, margin=0.5, data_seed=s, gammas=[1e1, 1e2, 1e3, 1e4], T=60
            ),
            seed=0,
        ).summary
        assert lin["max_rel_error_gamma_10000"] <= 1e-15 and lin["error_decreasing_in_gamma"]
        relu = sims.reduction(
            sims.ReductionParams(
                dataset="planted",
                n=100,
                d=20,
                model="two_layer",
                activation="relu",
                width=20,
                gammas=[1e5, 1e6, 1e8],
                T=40,
            ),
            seed=s,
        ).summary
        assert 1e-8 < relu["max_rel_error_gamma_1e+08"] <= 1e-6 and relu["error_decreasing_in_gamma"]
