"""plugins/frog/studies/count_table.py through the frog.counts simulation and the store; customer_task."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pandas as pd

SCRIPT = Path(__file__).resolve().parents[2] / "plugins" / "frog" / "studies" / "count_table.py"


def _load():
    spec = importlib.util.spec_from_file_location("count_table_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_count_table_runs_from_the_store_and_a_rerun_computes_nothing(tmp_path, capsys):
    script = _load()
    argv = ["--seeds", "3", "--n-customers", "60", "--epochs", "1", "--channels", "8", "--fanout", "3"]
    argv += ["--store", str(tmp_path / "runs.sqlite"), "--out", str(tmp_path / "out")]
    assert script.main(argv) == 0
    assert "7 runs computed, 0 from the store" in capsys.readouterr().out
    runs = pd.read_csv(tmp_path / "out" / "runs.csv")
    assert list(runs.model) == ["lgbm_joined", *(["row2node", "row2edge", "frog"] * 2)]
    assert list(runs.aggregation) == ["-", *["mean"] * 3, *["mean_count"] * 3]
    assert runs.test_auroc.between(0, 1).all()
    table = (tmp_path / "out" / "table.md").read_text()
    assert script.main(argv) == 0
    assert "0 runs computed, 7 from the store" in capsys.readouterr().out
    assert (tmp_path / "out" / "table.md").read_text() == table


def test_count_and_planted_tasks_are_one_customer_task_with_their_label():
    from toolkit_frog.counts import count_label_fn, count_task, make_count_database
    from toolkit_frog.planted import customer_task, make_planted_database, planted_task, purchase_label_fn

    for db, make, label_fn in [
        (make_count_database(30, seed=0), count_task, count_label_fn),
        (make_planted_database("edge_easy", 1.0, 40, 8, seed=0), planted_task, purchase_label_fn),
    ]:
        task, shared = make(db), customer_task(db, label_fn)
        assert task.label_fn is label_fn
        for field in ("entity_table", "timedelta", "val_timestamp", "test_timestamp", "train_start"):
            assert getattr(task, field) == getattr(shared, field)
