"""The headline experiments' judging, on synthetic study tables (no training: paired_study is replaced)."""

import pandas as pd
from toolkit_graphpfl import experiments


def _fake_study(gap_points: float):
    """A paired_study stand-in: every method ``gap_points`` below FedAvg at every seed, for the asked runs."""

    def study(dataset, noise_ps, algorithms, seeds, **overrides):
        rows = [
            {
                "dataset": dataset,
                "noise_p": p,
                "algorithm": a,
                "seed": s,
                "test_acc_pooled": 0.7 - (0 if a == "fedavg" else gap_points / 100),
            }
            for p in noise_ps
            for s in seeds
            for a in algorithms
        ]
        return pd.DataFrame(rows)

    return study


def test_proteins_quick_reports_its_differences_unjudged(monkeypatch):
    # 2 rounds are far from trained: the quick run says what it measured but claims nothing (README "Quick setting")
    monkeypatch.setattr(experiments, "paired_study", _fake_study(5.0))
    out = experiments.run_proteins_no_harm(quick=True)
    assert len(out.comparisons) == 3
    assert all(c.ok is None for c in out.comparisons)
    assert all("not judged" in c.claim and "-5.0" in c.measured for c in out.comparisons)


def test_proteins_full_still_judges_the_no_harm_gate(monkeypatch):
    monkeypatch.setattr(experiments, "paired_study", _fake_study(5.0))
    assert [c.ok for c in experiments.run_proteins_no_harm(quick=False).comparisons] == [False] * 6
    monkeypatch.setattr(experiments, "paired_study", _fake_study(0.5))
    # -0.5 meets GraphP-FL's and FRPA's >= -2 and FedAvg + SL's >= -1
    assert all(c.ok for c in experiments.run_proteins_no_harm(quick=False).comparisons)


def test_mutag_quick_runs_the_quick_size(monkeypatch):
    seen = {}

    def study(dataset, noise_ps, algorithms, seeds, **overrides):
        seen.update(seeds=list(seeds), **overrides)
        return _fake_study(-3.0)(dataset, noise_ps, algorithms, seeds)

    monkeypatch.setattr(experiments, "paired_study", study)
    out = experiments.run_mutag_noise(quick=True)
    assert seen["seeds"] == list(range(experiments.QUICK_MUTAG["seeds"]))
    assert seen["n_rounds"] == experiments.QUICK_MUTAG["n_rounds"]
    assert f"{experiments.QUICK_MUTAG['n_rounds']} rounds" in out.comparisons[0].claim
