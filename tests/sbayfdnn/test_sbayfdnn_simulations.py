"""Registered simulations: sweepable over links, rows carry the issue's measurements, bounds hold, plots draw."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from toolkit_sbayfdnn.simulation import QUICK

import toolkit

COLUMNS = {"rmse", "oracle_rmse", "rmse_ratio", "tpr", "fpr", "f1", "n_selected", "coverage", "wall_time"}


def test_two_region_sweeps_over_links_and_respects_the_threshold_bounds(tmp_path):
    result = toolkit.sweep(
        "sbayfdnn.two_region",
        grid={"link": ["linear", "square"]},
        seeds="0:1",
        params=QUICK,
        store=tmp_path / "s.sqlite",
    )
    table = result.table
    assert sorted(table["link"]) == ["linear", "square"]
    assert COLUMNS <= set(table.columns)
    assert np.all((table["tpr"] >= 0) & (table["tpr"] <= 1))
    checks = result.checks
    active = checks[~checks["skipped"].astype(bool)]
    assert len(active) > 0 and active["holds"].astype(bool).all()
    fig = plt.figure()
    toolkit.get_registry().simulations["sbayfdnn.two_region"].plot(table, fig)
    assert fig.axes


def test_compare_gives_one_row_per_method_and_plots(tmp_path):
    sim = toolkit.get_registry().simulations["sbayfdnn.compare"]
    result = toolkit.run("sbayfdnn.compare", dict(sim.quick), seed=0, store=tmp_path / "s.sqlite")
    assert set(result.table["method"]) == {
        "sbayfdnn",
        "flm",
        "group_lasso",
        "fpca",
        "dense",
        "adafnn",
        "select_all",
    }
    fig = plt.figure()
    sim.plot(result.table, fig)
    assert fig.axes


def test_simulation_estimator_and_prior_defaults_agree():
    """The defaults live in three places (the simulation parameters must stay torch-free at registration);
    this fails when one is changed without the others."""
    import dataclasses

    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN
    from toolkit_sbayfdnn.network import PriorConfig
    from toolkit_sbayfdnn.simulation import FitParams

    sim = FitParams()
    est = SparseBayesianFDNN().get_params()
    shared = [
        "n_basis",
        "degree",
        "lam",
        "sigma0_sq",
        "sigma1_sq",
        "epochs",
        "anneal_epochs",
        "finetune_epochs",
        "lr",
        "finetune_lr",
        "n_restarts",
    ]
    assert {k: getattr(sim, k) for k in shared} == {k: est[k] for k in shared}
    assert (sim.first_layer_width, sim.hidden_width) == tuple(est["widths"])
    prior = {f.name: f.default for f in dataclasses.fields(PriorConfig)}
    assert prior == {k: est[k] for k in ("lam", "sigma0_sq", "sigma1_sq", "sigma_other_sq")}
