"""simulations/graphpfl_noise_study.py: a study, and tables rebuilt from its store for a subset of seeds."""

from __future__ import annotations

import pandas as pd


def test_stored_only_tables_keep_only_the_requested_seeds(tmp_path, load_script):
    study = load_script("simulations/graphpfl_noise_study.py")
    common = ["--dataset", "planted", "--n-clients", "2", "--noise", "0,0.3", "--algorithms", "fedavg,fedprox",
              "--n-rounds", "2", "--set", "n_graphs=40", "--store", str(tmp_path / "store.sqlite")]
    assert study.main([*common, "--seeds", "0:3", "--out", str(tmp_path / "all")]) == 0
    full = pd.read_csv(tmp_path / "all" / "runs.csv")
    assert set(full["seed"]) == {0, 1, 2} and len(full) == 12
    assert study.main([*common, "--seeds", "1:3", "--stored-only", "--out", str(tmp_path / "part")]) == 0
    part = pd.read_csv(tmp_path / "part" / "runs.csv")
    assert set(part["seed"]) == {1, 2} and len(part) == 8
    paired = pd.read_csv(tmp_path / "part" / "paired.csv")
    assert (paired["n_seeds"] == 2).all()
    # the stored rows are the computed ones
    key = ["noise_p", "algorithm", "seed"]
    merged = part.merge(full, on=key, suffixes=("", "_full"))
    assert (merged["test_acc_pooled"] == merged["test_acc_pooled_full"]).all()


def test_replayed_patience_reports_what_runs_with_that_patience_report(tmp_path, load_script):
    import pytest

    study = load_script("simulations/graphpfl_noise_study.py")
    common = ["--dataset", "planted", "--n-clients", "2", "--noise", "0.3", "--algorithms", "fedavg", "--seeds", "0:3",
              "--n-rounds", "6", "--set", "n_graphs=40", "--set", "lr=0.05", "--store", str(tmp_path / "store.sqlite")]
    assert study.main([*common, "--set", "patience=1", "--out", str(tmp_path / "direct")]) == 0
    assert study.main([*common, "--set", "patience=3", "--replay-patience", "1", "--out", str(tmp_path / "replay")]) == 0
    direct, replay = (pd.read_csv(tmp_path / d / "runs.csv").set_index("seed") for d in ("direct", "replay"))
    cols = ["best_round", "stop_round", "stopped_early", "test_acc_pooled", "val_acc_pooled", "patience"]
    assert direct[cols].equals(replay[cols])
    with pytest.raises(SystemExit, match="smaller patience"):  # patience-1 runs cannot show what patience 3 does
        study.main([*common, "--set", "patience=1", "--replay-patience", "3", "--out", str(tmp_path / "bad")])
