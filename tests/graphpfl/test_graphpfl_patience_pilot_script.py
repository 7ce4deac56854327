"""plugins/graphpfl/studies/graphpfl_patience_pilot.py: every candidate patience read off one unstopped run per seed."""

from __future__ import annotations

import pandas as pd


def test_patience_pilot_replays_each_candidate_and_reads_validation_only(tmp_path, capsys, load_script):
    pilot = load_script("plugins/graphpfl/studies/graphpfl_patience_pilot.py")
    out = tmp_path / "out"
    rc = pilot.main(
        [
            "--datasets",
            "planted",
            "--n-clients",
            "2",
            "--algorithms",
            "fedavg",
            "--seeds",
            "100:102",
            "--n-rounds",
            "5",
            "--candidates",
            "1,50",
            "--also-max",
            "3",
            "--set",
            "n_graphs=40",
            "--set",
            "hidden=8",
            "--set",
            "lr=0.05",
            "--store",
            str(tmp_path / "store"),
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    runs = pd.read_csv(out / "runs.csv")
    assert set(runs["seed"]) == {100, 101} and set(runs["max_rounds"]) == {3, 5}
    long = runs[runs["patience"] == 50]  # never stops: runs to the maximum
    assert (long["stop_round"] == long["max_rounds"]).all() and long["reached_max"].all()
    short = runs[(runs["patience"] == 1) & (runs["max_rounds"] == 5)]
    assert (short["stop_round"] <= 5).all() and (short["best_round"] <= short["stop_round"]).all()
    assert (runs["best_round"] <= runs["max_rounds"]).all()
    scores = pd.read_csv(out / "scores.csv")
    assert len(scores) == 4 and (scores["n_runs"] == 2).all()
    assert "test" not in capsys.readouterr().out.lower() and "test_acc_pooled" not in runs.columns
