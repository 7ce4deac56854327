"""Users' own problems: gamma-free algorithms with finite gammas, loaders without d, data that cannot be
separated, and the warning about the gamma = inf form of degree > 1 models."""

import math

import gd_perceptron_user_datasets as user_plugin
from click.testing import CliRunner
from toolkit_gd_perceptron import simulation as sims

import toolkit
from toolkit.cli import cli
from toolkit.manager import get_plugin_manager
from toolkit.registry import Registry


def _user_registry():
    return Registry.from_manager(get_plugin_manager(plugins=[user_plugin]))


def test_classical_perceptron_with_finite_gammas_runs_once_labelled_inf():
    out = sims.scaling(
        sims.ScalingParams(algorithm="perceptron", d_values=[8, 16], gammas=[100.0, 1000.0]), 0
    )
    assert [(r["d"], r["gamma"]) for r in out.records] == [(8, math.inf), (16, math.inf)]
    assert out.summary["median_iterations_dmax_gamma_inf"] > 0
    assert "does not use gamma" in out.summary["note"]


def test_batch_perceptron_with_finite_gammas_gives_one_row_per_d_and_seed():
    p = sims.ScalingParams(algorithm="batch_perceptron", d_values=[8, 16], gammas=[10.0, 100.0], n_seeds=2)
    out = sims.scaling(p, 0)
    assert len(out.records) == 4  # 2 d x 2 seeds, not repeated per gamma
    assert {r["gamma"] for r in out.records} == {math.inf}
    assert [r["iterations"] for r in out.records] == [20, 20, 36, 36]  # R1: 2d + 4


def test_registered_loader_without_d(tmp_path):
    params = {"dataset": "mydata.fixed", "algorithm": "batch_perceptron", "d_values": [8, 16]}
    res = toolkit.run("gd_perceptron.scaling", params, registry=_user_registry(), store=tmp_path / "s.sqlite")
    assert len(res.records) == 1 and res.records[0]["d"] == 2 and res.records[0]["iterations"] > 0
    assert "has no parameter d" in res.summary["note"]


def test_not_separable_runs_and_says_so(tmp_path):
    for algorithm in ("batch_perceptron", "gd"):
        params = {"dataset": "mydata.overlapping", "algorithm": algorithm, "max_iter": 500}
        res = toolkit.run(
            "gd_perceptron.scaling", params, registry=_user_registry(), store=tmp_path / "s.sqlite"
        )
        assert res.summary["separable"] is False
        assert "not linearly separable" in res.summary["cap_note"]
        assert all(r["status"] in ("capped", "stalled") for r in res.records)
        assert res.checks is None or res.checks["skipped"].astype(bool).all()


def test_show_warns_about_the_inf_form_of_degree_two_models():
    out = CliRunner().invoke(cli, ["show", "gd_perceptron.scaling"], terminal_width=200)
    assert out.exit_code == 0, out.output
    assert "not the large-gamma behaviour of GD" in " ".join(out.output.split())


def test_summary_warns_about_the_inf_form_of_degree_two_models():
    p = sims.ScalingParams(model="two_layer", activation="quadratic", d_values=[8], gammas=[math.inf])
    assert "not GD at large gamma" in sims.scaling(p, 0).summary["note"]


def test_capped_runs_never_enter_medians_or_speedups():
    p = sims.ScalingParams(
        model="two_layer", activation="quadratic", d_values=[64], gammas=[math.inf], n_seeds=9, max_iter=18
    )
    out = sims.scaling(p, 0)
    capped = [r for r in out.records if r["status"] == "capped"]
    assert capped and all(math.isnan(r["iterations"]) for r in capped)
    assert all(r["iterations"] > 0 for r in out.records if r["status"] == "ok")
    assert math.isnan(out.summary["median_iterations_dmax_gamma_inf"])  # not a median of the ok runs only
    assert out.summary["median_iterations_dmax_gamma_inf_at_least"] == 18
    assert out.summary["iterations_dmax_gamma_inf"].startswith("median >= 18 (")
    assert "reached max_iter = 18" in out.summary["cap_note"]
    assert not any(r["speedup"] < 0 for r in out.records)


def test_capped_baseline_gives_a_lower_bound_on_the_speedup_and_says_so():
    p = sims.ScalingParams(dataset="staircase", d_values=[8, 16], gammas=[1.0], max_iter=200)
    out = sims.scaling(p, 0)
    top = out.records[-1]
    assert top["linear_bp_status"] == "capped" and math.isnan(top["linear_bp_iterations"])
    assert math.isnan(out.summary["speedup_dmax_gamma_1"])
    assert out.summary["speedup_dmax_gamma_1_at_least"] == 200 / top["iterations"]
    assert "did not separate within max_iter = 200" in out.summary["cap_note"]
