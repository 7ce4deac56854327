"""plugins/graphpfl/studies/graphpfl_study_table.py: per-dataset paired intervals, verdicts by the pre-registered rule, pooling."""

from __future__ import annotations

import pandas as pd
import pytest


def _runs():
    rows = []
    gains = {"A": [0.10, 0.12, 0.08], "B": [-0.05, 0.05, 0.0]}  # A: GraphP-FL +10 points every seed; B: mixed
    for ds, g in gains.items():
        for seed, gain in enumerate(g):
            for alg, acc in (("fedavg", 0.6 + 0.01 * seed), ("graphpfl", 0.6 + 0.01 * seed + gain)):
                rows.append(
                    {
                        "dataset": ds,
                        "noise_p": 0.3,
                        "algorithm": alg,
                        "seed": seed,
                        "test_acc_pooled": acc,
                        "stop_round": 10 + seed,
                    }
                )
    return pd.DataFrame(rows)


def test_study_table_pairs_seeds_applies_the_rule_and_names_runs_against(tmp_path, load_script):
    script = load_script("plugins/graphpfl/studies/graphpfl_study_table.py")
    table, pooled, _ = script.study_tables(_runs())
    g = table[table.algorithm == "graphpfl"].set_index("dataset")
    assert g.loc["A", "diff"] == pytest.approx(10.0) and g.loc["A", "verdict"] == "helps"
    assert g.loc["B", "diff"] == pytest.approx(0.0, abs=1e-9) and g.loc["B", "verdict"] == "no evidence"
    assert g.loc["B", "seeds_against"] == "0" and g.loc["A", "seeds_against"] == ""
    assert g.loc["A", "stop_rounds"] == "10 11 12" and g.loc["B", "seed_diffs"] == "0:-5.0 1:+5.0 2:+0.0"
    row = pooled.iloc[0]
    assert row["n_pairs"] == 6 and row["diff"] == pytest.approx(5.0) and row["n_against"] == 1
    assert (
        script.verdict(-3.0, -1.0) == "harms"
        and script.verdict(float("nan"), float("nan")) == "too few seeds"
    )
    path = tmp_path / "runs.csv"
    _runs().to_csv(path, index=False)
    assert script.main([str(path), "--out", str(tmp_path / "out")]) == 0
    assert "helps" in (tmp_path / "out" / "study.md").read_text()
    with pytest.raises(SystemExit):
        script.main([str(tmp_path / "absent.csv")])


def test_study_table_reports_stop_rounds_median_max_and_runs_at_the_maximum(tmp_path, load_script):
    script = load_script("plugins/graphpfl/studies/graphpfl_study_table.py")
    runs = _runs().assign(n_rounds=100, stopped_early=lambda d: d.seed != 2)  # seed 2 reached the maximum
    table, pooled, drops = script.study_tables(runs)
    g = table[table.algorithm == "graphpfl"].set_index("dataset")
    assert g.loc["A", "stop_median"] == 11 and g.loc["A", "stop_max"] == 12
    assert g.loc["A", "max_rounds"] == "100" and g.loc["A", "n_reached_max"] == 1
    text = script.readme_markdown(table, pooled, drops)
    assert "| A | 0.3 | GraphP-FL | 3 | 71.0 | +10.0 [" in text and "| 10 11 12 | 11 / 12 (100) |" in text
    assert "\u22125.0" in text  # seed 0 of B, with the README's minus sign
