"""plugins/graphpfl/studies/clean_graph_gap.py: paired differences per configuration, from the store."""

from __future__ import annotations

import pandas as pd


def test_clean_gap_pairs_each_configuration_with_fedavg_and_default(tmp_path, capsys, load_script):
    gap = load_script("plugins/graphpfl/studies/clean_graph_gap.py")
    argv = ["--seeds", "0,1", "--noise", "0", "--n-rounds", "1", "--n-clients", "2", "--subsample", "40"]
    argv += ["--configs", "no_structure", "--store", str(tmp_path / "runs.sqlite"), "--out", str(tmp_path)]
    assert gap.main(argv) == 0
    assert "no_structure: 2 computed, 0 from the store" in capsys.readouterr().out
    table = pd.read_csv(tmp_path / "runs.csv")
    assert sorted(set(table.config)) == ["default", "fedavg", "no_structure"] and len(table) == 6
    assert not table[table.config == "no_structure"].use_structure.any()
    md = (tmp_path / "table.md").read_text()
    assert "| 0.0 | default | 2 |" in md and "| 0.0 | no_structure | 2 |" in md
    assert gap.main(argv) == 0
    assert "no_structure: 0 computed, 2 from the store" in capsys.readouterr().out
