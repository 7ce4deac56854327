"""Headline experiments: registration, the exact ones in the default run, the rest behind -m slow."""

import time

import pytest

import toolkit

NAMES = {
    "sbayfdnn.pip_closed_form",
    "sbayfdnn.laplace_toy",
    "sbayfdnn.two_region_targets",
    "sbayfdnn.null_design",
    "sbayfdnn.real_data",
}


def _experiments():
    return {name: e for name, e in toolkit.get_registry().experiments.items() if name.startswith("sbayfdnn.")}


def test_experiments_are_registered():
    assert set(_experiments()) == NAMES


@pytest.mark.parametrize("name", ["sbayfdnn.pip_closed_form", "sbayfdnn.laplace_toy"])
def test_exact_experiments_meet_their_claims(name):
    outcome = _experiments()[name].run(True)
    assert outcome.comparisons and all(c.ok for c in outcome.comparisons), outcome.comparisons
    assert len(outcome.table) > 0


def test_gate_comparisons_label_and_oracle_vs_dense():
    """The gate table on a hand-made result table: quick label on every claim, the gates' arithmetic,
    and the true f's RMSE as a multiple of the dense network's."""
    import pandas as pd
    from toolkit_sbayfdnn.experiments import gate_comparisons

    rows = []
    for seed, (sb, dense) in enumerate([(1.02, 1.04), (1.00, 1.06)]):  # RMSE; oracle RMSE 1.0 on both seeds
        rows += [
            {
                "link": "linear",
                "seed": seed,
                "method": "sbayfdnn",
                "rmse": sb,
                "rmse_ratio": sb,
                "tpr": 1.0,
                "fpr": 0.2,
                "f1": 0.86,
                "coverage": 0.95,
            },
            {"link": "linear", "seed": seed, "method": "dense", "rmse": dense, "rmse_ratio": dense},
            {"link": "linear", "seed": seed, "method": "flm", "rmse": 1.0, "rmse_ratio": 1.0},
            {
                "link": "linear",
                "seed": seed,
                "method": "select_all",
                "rmse": 1.0,
                "rmse_ratio": 1.0,
                "f1": 0.571,
            },
        ]
    comps = {c.claim: c for c in gate_comparisons(pd.DataFrame(rows), label="QUICK: ")}
    assert all(claim.startswith("QUICK: ") for claim in comps)
    assert comps["QUICK: linear: region TPR/FPR/F1"].ok
    assert (
        comps["QUICK: linear: RMSE / oracle"].ok and comps["QUICK: linear: RMSE / oracle"].measured == "1.010"
    )
    assert comps["QUICK: linear: RMSE vs FLM"].ok  # 1.01 <= 1.05
    dense = comps["QUICK: linear: RMSE vs early-stopped dense network"]
    assert not dense.ok  # 1.01 / 1.05 = 0.962 > 0.9
    assert dense.measured.startswith(
        "0.962 x dense; dense = 1.050 x oracle, so the true f itself is 0.952 x dense"
    )
    # the true f is above 0.9 x dense, so the miss is a known one, with or without the quick label
    assert "no method can meet this target" in dense.documented


@pytest.mark.slow
def test_quick_setting_of_all_experiments_runs_within_a_minute():
    start = time.perf_counter()
    outcomes = {name: e.run(True) for name, e in _experiments().items()}
    assert time.perf_counter() - start <= 60
    assert all(len(o.table) for o in outcomes.values())


@pytest.mark.slow
def test_full_simulation_gates():
    """The issue's gates (two-region, SNR 5, n = 500, 3 seeds, 4 links; null design 5 seeds).
    276 s together with the quick-timing test at load ~2 (one thread); the README records what it gave."""
    failed = []
    for name in ("sbayfdnn.two_region_targets", "sbayfdnn.null_design"):
        outcome = _experiments()[name].run(False)
        failed += [c for c in outcome.comparisons if c.ok is False]
    # not met and not meetable: the early-stopped dense net is within 1.11 x oracle, so even the true f is
    # above 0.9 x dense on most links (the claim's measured text says by how much; see the README)
    known = {"RMSE vs early-stopped dense network"}
    unexpected = [c for c in failed if not any(k in c.claim for k in known)]
    assert not unexpected, unexpected
