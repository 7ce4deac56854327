"""The two perceptron limits of a degree-1 two-layer model and GD at finite gamma between them."""

import math

import numpy as np
import pytest
from toolkit_gd_perceptron import simulation as sims

import toolkit
from toolkit.errors import ParameterError

RATIOS = [1e-2, 1e-1, 1.0, 10.0, 1e2, 1e3, 1e4, 1e6]


@pytest.fixture(scope="module")
def sweep():
    out = sims.limits(
        sims.LimitsParams(n_seeds=4, ratios=RATIOS), seed=0
    )  # planted n = 100, d = 20, leaky m = 20
    return out, {(r["form"], r["ratio"], r["run_seed"]): r["iterations"] for r in out.records}


def test_gd_at_finite_gamma_approaches_the_perceptron_from_w0_at_fixed_ratio(sweep):
    out, it = sweep
    # gamma = 1e8 with W_0 rescaled to norm 1e8/rho: the same count as the perceptron from W_0, every seed,
    # wherever the rescaled weights are large (||W_0|| = 1e8/rho >= 1e5; at 1e4 and below GD's weights
    # sigma(-gamma m) are no longer sharp on this data)
    for rho in [r for r in RATIOS if r <= 1e3]:
        for s in range(4):
            assert it[("gd_scaled_init", rho, s)] == it[("from_init", rho, s)], (rho, s)
    assert out.summary["capped"] == 0 and out.summary["stalled"] == 0


def test_the_perceptron_from_w0_approaches_the_vanishing_init_limit_as_rho_grows(sweep):
    out, it = sweep
    for s in range(4):
        assert it[("from_init", 1e6, s)] == it[("vanishing_init", math.inf, s)]
    # small rho is another regime: the perceptron barely leaves W_0 and needs many more steps
    assert out.summary["median_from_init_rho_0.01"] > 10 * out.summary["vanishing_init_median"]
    assert out.summary["meet_ratio"] <= 1e3


def test_gd_from_a_fixed_w0_approaches_its_own_limit_as_gamma_grows(sweep):
    """GD's gamma -> inf limit from a fixed W_0 starts at 0+ W_0 but weighs its first step by sigma(-y g(b; W_0)):
    it is not the vanishing_init form (indicator first step), and the counts show it."""
    _, it = sweep
    for s in range(4):
        assert all(
            it[("gd_fixed_init", rho, s)] == it[("gd_limit", math.inf, s)] for rho in RATIOS if rho >= 1e4
        )
    assert any(it[("gd_limit", math.inf, s)] != it[("vanishing_init", math.inf, s)] for s in range(4))


def test_limit_parameter_of_the_scaling_simulation_reports_the_ratio():
    p = dict(
        dataset="planted",
        n=60,
        margin=0.1,
        model="two_layer",
        activation="leaky_relu",
        width=10,
        d_values=[12],
        gammas=[math.inf],
        n_seeds=3,
    )
    vanish = sims.scaling(sims.ScalingParams(**p), seed=0).records
    far = sims.scaling(sims.ScalingParams(limit="from_init", eta=1e6, **p), seed=0).records
    near = sims.scaling(sims.ScalingParams(limit="from_init", eta=1e-2, **p), seed=0).records
    assert all(math.isinf(r["ratio"]) for r in vanish)
    W0_norms = [1e6 / r["ratio"] for r in far]
    np.testing.assert_allclose([1e-2 / r["ratio"] for r in near], W0_norms)
    assert [r["iterations"] for r in far] == [r["iterations"] for r in vanish]
    assert sum(r["iterations"] for r in near) > sum(r["iterations"] for r in vanish)
    gd = sims.scaling(sims.ScalingParams(**{**p, "gammas": [10.0]}), seed=0).records
    np.testing.assert_allclose([10.0 / r["ratio"] for r in gd], W0_norms)
    with pytest.raises(ParameterError, match="limit"):
        sims.run_sweep(
            [(np.eye(2), np.array([1.0, -1.0]))],
            sims.build_model(sims.ScalingParams(**p)),
            "gd",
            [math.inf],
            [0],
            limit="nope",
        )


def test_limits_simulation_rejects_models_without_two_limits_and_its_claims_are_proved(tmp_path):
    with pytest.raises(ParameterError, match="activation"):
        sims.limits(sims.LimitsParams(activation="quadratic"), seed=0)
    from toolkit_gd_perceptron.bounds import BOUNDS

    bound = next(b for b in BOUNDS if b.name == "gd_perceptron.limits_scaling")
    assert [c.check().status for c in bound.claims] == ["proved"] * 4
    res = toolkit.run(
        "gd_perceptron.limits", {"ratios": [0.1, 1e3], "n_seeds": 2}, store=tmp_path / "s.sqlite"
    )
    assert {r["form"] for r in res.records} == set(sims.LIMIT_FORMS)
