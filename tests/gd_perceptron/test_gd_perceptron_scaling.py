"""Scaling on R1: linear Omega(d) vs quadratic two-layer; bounds checked through toolkit.run."""

import math

import numpy as np
import pytest
from toolkit_gd_perceptron import measures
from toolkit_gd_perceptron import simulation as sims

import toolkit
from toolkit.errors import ParameterError

INF = math.inf


def test_linear_gd_iterations_grow_linearly_with_d_small_grid():
    out = sims.scaling(sims.ScalingParams(d_values=[64, 128, 256, 512], gammas=[100.0]), seed=0)
    assert 0.85 <= out.summary["slope_gamma_100"] <= 1.15
    # small steps separate R1 in 2 iterations whatever d: Omega(d) is a large-step phenomenon
    small = sims.scaling(sims.ScalingParams(d_values=sims.R1_D_VALUES, gammas=[1.0, 3.0]), seed=0)
    assert {r["iterations"] for r in small.records} == {2}


def test_quadratic_two_layer_is_faster_than_linear_on_r1():
    out = sims.scaling(
        sims.ScalingParams(
            model="two_layer",
            activation="quadratic",
            width=20,
            gammas=[INF],
            d_values=[64, 256, 1024],
            n_seeds=8,
        ),
        seed=0,
    )
    rows = out.records
    assert not any(r["capped"] for r in rows)
    assert out.summary["slope_gamma_inf"] < 0.8
    assert out.summary["speedup_dmax_gamma_inf"] > 5


def test_batched_sweep_matches_per_seed_runs():
    p = dict(model="two_layer", activation="quadratic", width=10, gammas=[INF], d_values=[32])
    together = sims.scaling(sims.ScalingParams(n_seeds=4, **p), seed=3).records
    alone = [sims.scaling(sims.ScalingParams(n_seeds=1, **p), seed=3 + k).records[0] for k in range(4)]
    assert [r["iterations"] for r in together] == [r["iterations"] for r in alone]


@pytest.mark.parametrize(
    "algorithm, gammas",
    [
        ("batch_perceptron", [INF]),
        ("normalized_batch_perceptron", [INF]),
        ("perceptron", [INF]),
        ("normalized_gd", [0.1, 1.0, 100.0]),
    ],
)
def test_perceptron_type_runs_respect_their_bounds_through_the_runner(tmp_path, algorithm, gammas):
    res = toolkit.run(
        "gd_perceptron.scaling",
        {"algorithm": algorithm, "gammas": gammas, "d_values": [16, 64, 256]},
        seed=0,
        store=tmp_path / "s.sqlite",
    )
    checks = res.checks
    active = checks[~checks["skipped"].astype(bool)]
    assert len(active) > 0
    assert active["holds"].astype(bool).all()
    if algorithm == "batch_perceptron":
        assert set(active["bound"]) >= {
            "gd_perceptron.novikoff_batch",
            "gd_perceptron.r1_exact_upper",
            "gd_perceptron.r1_exact_lower",
        }


def test_bound_check_catches_a_violation():
    import pandas as pd
    from toolkit_gd_perceptron.bounds import BOUNDS

    from toolkit.checks import check_table

    bound = next(b for b in BOUNDS if b.name == "gd_perceptron.r1_exact_lower")
    table = pd.DataFrame(
        [{"algorithm": "batch_perceptron", "dataset": "r1", "model": "linear", "d": 16, "iterations": 35}]
    )
    assert not check_table(table, bound)["holds"].iloc[0]


def test_novikoff_on_random_planted_data():
    for seed in range(4):
        out = sims.scaling(
            sims.ScalingParams(
                dataset="planted",
                n=60,
                margin=0.05,
                data_seed=seed,
                d_values=[10],
                algorithm="batch_perceptron",
                gammas=[INF],
            ),
            seed=0,
        )
        r = out.records[0]
        assert 0 <= r["iterations"] <= measures.novikoff_batch(r["n_points"], r["R2"], r["mu2"])


def test_user_dataset_from_a_third_party_plugin(tmp_path):
    """A dataset registered by another plugin is used like the built-in ones (the registry given to run
    reaches the simulation's own lookup: no monkeypatch)."""
    import types

    from toolkit import Dataset, hookimpl
    from toolkit.manager import get_plugin_manager
    from toolkit.registry import Registry

    third_party = types.ModuleType("thirdparty")  # registered directly: the plugin is named "thirdparty"
    third_party.toolkit_register_datasets = hookimpl(
        lambda: [
            Dataset(
                "thirdparty.two_points",
                "two separable points",
                lambda d=3: (np.eye(2, d), np.array([1.0, -1.0])),
            )
        ]
    )

    registry = Registry.from_manager(get_plugin_manager(plugins=[third_party]))
    out = toolkit.run(
        "gd_perceptron.scaling",
        {"dataset": "thirdparty.two_points", "d_values": [5], "gammas": [10.0]},
        registry=registry,
        store=tmp_path / "s.sqlite",
    )
    assert out.records[0]["iterations"] == 1
    assert out.records[0]["d"] == 5
    with pytest.raises(ParameterError, match="dataset"):
        sims.scaling(sims.ScalingParams(dataset="nope.missing", d_values=[5]), seed=0)


def test_classical_perceptron_rejects_two_layer_models():
    with pytest.raises(ParameterError, match="algorithm"):
        sims.scaling(sims.ScalingParams(model="two_layer", algorithm="perceptron", d_values=[8]), seed=0)


@pytest.mark.slow
def test_full_r1_scaling_reproduction():
    """The issue's 'Must show' scaling numbers (full grid, 20 seeds)."""
    lin = sims.scaling(sims.ScalingParams(gammas=[1e2, 1e3, 1e4]), seed=0)
    for g in (1e2, 1e3):
        rows = sorted((r for r in lin.records if r["gamma"] == g and r["d"] >= 256), key=lambda r: r["d"])
        assert 0.9 <= measures.loglog_slope([r["d"] for r in rows], [r["iterations"] for r in rows]) <= 1.1
    quad = sims.scaling(
        sims.ScalingParams(model="two_layer", activation="quadratic", width=20, gammas=[INF], n_seeds=20),
        seed=0,
    )
    assert quad.summary["capped"] == 0
    assert quad.summary["slope_gamma_inf"] <= 0.6
    assert quad.summary["speedup_dmax_gamma_inf"] >= 20
    assert all(r["linear_bp_iterations"] == 2 * r["d"] + 4 for r in quad.records)


def test_readme_python_snippet_runs_on_arrays():
    from toolkit_gd_perceptron import data, models
    from toolkit_gd_perceptron.simulation import run_sweep

    B, y = data.planted(n=200, d=50, margin=0.05, seed=0)
    rows = run_sweep(
        [(B, y)],
        models.two_layer("quadratic", width=16),
        "gd",
        gammas=[1.0, math.inf],
        seeds=range(10),
        max_iter=2000,
    )
    assert len(rows) == 20
    assert {r["gamma"] for r in rows} == {1.0, math.inf}
    assert all(0 < r["iterations"] < 100 for r in rows)
