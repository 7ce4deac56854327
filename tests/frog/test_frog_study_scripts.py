"""The frog study scripts refuse an unknown name in a comma list with exit 2, before any work."""

import subprocess
import sys
from pathlib import Path

import pytest

STUDIES = Path(__file__).resolve().parents[2] / "plugins" / "frog" / "studies"


@pytest.mark.parametrize(
    "script, argv, allowed",
    [
        ("frog_planted.py", ["--models", "row2node,gat"], "allowed: row2node, row2edge, frog, frog_annealed"),
        ("frog_lahman.py", ["--tasks", "allstar,salary"], "allowed: allstar, games"),
    ],
)
def test_study_scripts_refuse_unknown_names_with_status_2(script, argv, allowed, tmp_path):
    done = subprocess.run(
        [sys.executable, str(STUDIES / script), *argv, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert allowed in done.stderr
    assert not any(tmp_path.iterdir())  # refused before any work


def _script(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"frog_study_{name}", STUDIES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _twice(main, argv, capsys):
    """Run a study twice on one store: (first output, second output)."""
    main(argv)
    first = capsys.readouterr().out
    main(argv)
    return first, capsys.readouterr().out


def test_planted_and_lahman_studies_run_through_the_store_and_a_rerun_trains_nothing(
    tmp_path, monkeypatch, capsys
):
    import toolkit_frog.experiments as experiments

    monkeypatch.setattr(
        experiments, "PLANTED_QUICK", {"n_customers": 60, "n_products": 8, "epochs": 1, "channels": 8}
    )
    store = ["--store", str(tmp_path / "runs.sqlite")]
    argv = [
        "--quick",
        "--kinds",
        "edge_easy",
        "--models",
        "row2node,frog",
        "--seeds",
        "2",
        "--out",
        str(tmp_path / "p"),
    ]
    first, second = _twice(_script("frog_planted").main, [*argv, *store], capsys)
    assert "row2node: 2 points, 0 from the store" in first and "frog: 2 points, 2 from the store" in second
    assert first.split("\n", 2)[2] == second.split("\n", 2)[2]  # the same table and claims, from the store
    import pandas as pd

    summary = pd.read_csv(tmp_path / "p" / "summary.csv")
    assert list(zip(summary["model"], summary["seed"])) == [
        ("row2node", 0),
        ("row2node", 1),
        ("frog", 0),
        ("frog", 1),
    ]

    monkeypatch.setattr(
        experiments, "LAHMAN_QUICK", {"train_start": 2014, "epochs": 1, "channels": 8, "fanout": 2}
    )
    argv = [
        "--quick",
        "--tasks",
        "allstar",
        "--models",
        "row2node,lgbm_entity",
        "--seeds",
        "1",
        "--out",
        str(tmp_path / "l"),
    ]
    first, second = _twice(_script("frog_lahman").main, [*argv, *store], capsys)
    assert "allstar: 2 points, 0 from the store" in first and "allstar: 2 points, 2 from the store" in second
    assert first.split("\n", 1)[1] == second.split("\n", 1)[1]
    assert pd.read_csv(tmp_path / "l" / "summary.csv")["model"].tolist() == ["row2node", "lgbm_entity"]


def test_database_study_serves_a_rerun_from_the_store(tmp_path, capsys):
    argv = ["--quick", "--out", str(tmp_path / "db"), "--store", str(tmp_path / "runs.sqlite")]
    first, second = _twice(_script("frog_database").main, argv, capsys)
    assert "frog.database: 1 points, 0 from the store" in first and "1 points, 1 from the store" in second
    assert (
        first.split("frog.database:")[1].split("\n", 1)[1]
        == second.split("frog.database:")[1].split("\n", 1)[1]
    )
