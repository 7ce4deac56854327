"""plugins/graphpfl/studies/graphpfl_tune.py: validation-only scores per grid point, grid values printed unrounded."""

from __future__ import annotations

import pandas as pd
import pytest


# processes: the script hands --executor to both of its sweeps (same seeds, same scores)
@pytest.mark.parametrize("executor", ["serial", "processes"])
def test_tune_script_scores_every_grid_point_on_validation(tmp_path, capsys, load_script, executor):
    tune = load_script("plugins/graphpfl/studies/graphpfl_tune.py")
    out = tmp_path / "out"
    rc = tune.main(
        [
            "--dataset",
            "planted",
            "--n-clients",
            "3",
            "--noise",
            "0.3",
            "--n-rounds",
            "2",
            "--seeds",
            "100:102",
            "--algorithm",
            "fedavg",
            "--grid",
            "lr=0.001,0.003",
            "--set",
            "n_graphs=60",
            "--store",
            str(tmp_path / "store"),
            "--out",
            str(out),
            "--executor",
            executor,
        ]
    )
    assert rc == 0
    scores = pd.read_csv(out / "scores.csv")
    assert sorted(scores["lr"]) == [0.001, 0.003] and (scores["n_seeds"] == 2).all()
    # lr = 0.003 is the default FedAvg runs with, so that grid point's paired gain over FedAvg is exactly zero
    assert scores.set_index("lr").loc[0.003, "val_gain_vs_fedavg"] == 0.0
    printed = capsys.readouterr().out
    assert "0.003" in printed and "test" not in printed.lower()
    runs = pd.read_csv(out / "runs.csv")
    assert set(runs["seed"]) == {100, 101}
    from toolkit.store import RunStore

    store = RunStore(tmp_path / "store")
    try:
        assert {r.provenance["executor"] for r in store.iter_runs("graphpfl.noise_robustness")} == {executor}
    finally:
        store.close()
