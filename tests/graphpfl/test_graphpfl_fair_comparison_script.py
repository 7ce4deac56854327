"""plugins/graphpfl/studies/fair_comparison.py: runs through the store, a rerun computes nothing new."""

from __future__ import annotations

import pandas as pd


def test_fair_comparison_builds_its_table_from_the_store_and_resumes(tmp_path, capsys, load_script):
    fair = load_script("plugins/graphpfl/studies/fair_comparison.py")
    argv = [
        "--datasets",
        "planted",
        "--noise",
        "0.3",
        "--seeds",
        "0,1",
        "--n-rounds",
        "1",
        "--n-clients",
        "2",
        "--subsample",
        "40",
        "--store",
        str(tmp_path / "runs.sqlite"),
        "--out",
        str(tmp_path / "out"),
    ]
    assert fair.main(argv) == 0
    first = capsys.readouterr().out
    assert "seed 0: 2 runs computed, 0 from the store" in first
    runs = pd.read_csv(tmp_path / "out" / "runs.csv")
    assert len(runs) == 4 and set(runs.algorithm) == {"fedavg", "graphpfl"} and (runs.stop_round == 1).all()
    table = (tmp_path / "out" / "table.md").read_text()
    assert table.count("| planted |") == 1 and "too few seeds" not in table

    assert fair.main(argv) == 0
    second = capsys.readouterr().out
    assert "seed 0: 0 runs computed, 2 from the store" in second
    assert "seed 1: 0 runs computed, 2 from the store" in second
    assert (tmp_path / "out" / "table.md").read_text() == table
