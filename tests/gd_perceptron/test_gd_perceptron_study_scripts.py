"""The gd_perceptron study scripts compute through the run store: a second call computes nothing new."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _script(name: str):
    path = ROOT / "plugins" / "gd_perceptron" / "studies" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_scaling_script_quick_through_the_store(tmp_path, capsys):
    from toolkit_gd_perceptron import experiments as E

    script = _script("gd_perceptron_scaling")
    argv = ["--quick", "--out", str(tmp_path / "out"), "--store", str(tmp_path / "runs.sqlite")]
    script.main(argv)
    first = capsys.readouterr()
    assert "## scaling" in first.out and "## novikoff" in first.out
    assert "| batch_perceptron: iterations <= its Novikoff-type bound | never violated |" in first.out
    assert "22 runs: 22 computed, 0 from the store" in first.err
    assert E.STORE is None
    tables = {name: (tmp_path / "out" / name).read_text() for name in ("scaling.csv", "novikoff.csv")}
    script.main(argv)
    second = capsys.readouterr()
    assert "22 runs: 0 computed, 22 from the store" in second.err
    assert {name: (tmp_path / "out" / name).read_text() for name in tables} == tables


def test_limits_script_quick_through_the_store(tmp_path, capsys):
    script = _script("gd_perceptron_limits")
    argv = ["--quick", "--out", str(tmp_path / "out"), "--store", str(tmp_path / "runs.sqlite")]
    script.main(argv)
    first = capsys.readouterr()
    assert "## Regime sweep (5 seeds," in first.out and "limit = from_init" in first.out
    assert "3 runs: 3 computed, 0 from the store" in first.err
    report = (tmp_path / "out" / "limits.md").read_text()
    script.main(argv)
    assert "3 runs: 0 computed, 3 from the store" in capsys.readouterr().err

    def numbers(text: str) -> list[str]:  # limits.md without its wall times
        return [line for line in text.splitlines() if not line.startswith("## ")]

    assert numbers((tmp_path / "out" / "limits.md").read_text()) == numbers(report)


def test_oscillations_script_quick_through_the_store(tmp_path, capsys):
    script = _script("gd_perceptron_oscillations")
    argv = ["--quick", "--out", str(tmp_path / "out"), "--store", str(tmp_path / "runs.sqlite")]
    script.main(argv)
    first = capsys.readouterr()
    assert "R1 d=16: {" in first.out and "## reduction" in first.out and "## margins" in first.out
    # margins runs R1 d=16 at gamma 1e4 for 60 steps as the oscillation panel does: read back, not rerun
    assert "11 runs: 10 computed, 1 from the store" in first.err
    csvs = {p.name: p.read_text() for p in (tmp_path / "out").glob("*.csv")}
    assert {"oscillations.csv", "reduction.csv", "margins.csv"} <= set(csvs)
    script.main(argv)
    second = capsys.readouterr()
    assert "11 runs: 0 computed, 11 from the store" in second.err
    assert second.out == first.out
    assert {p.name: p.read_text() for p in (tmp_path / "out").glob("*.csv")} == csvs


def test_r1_gd_script_small_through_the_store(tmp_path, capsys):
    script = _script("gd_perceptron_r1_gd")
    argv = ["--d-max", "64", "--out", str(tmp_path / "out"), "--store", str(tmp_path / "runs.sqlite")]
    script.main(argv)
    first = capsys.readouterr()
    # the engine (scaling path) and the exact recursion agree at every precision on these cells
    assert "| 100 | 16 | 32 | 32 | 32 | 32 | 2.00 |" in first.out
    assert "| 10000 | 64 | 114 | 114 | 114 | 114 | 1.78 |" in first.out
    assert (
        "28 runs: 28 computed, 0 from the store" in first.err
    )  # 1 scaling run + 3 d x 3 gamma x 3 precisions
    table = (tmp_path / "out" / "r1_gd.csv").read_text()
    script.main(argv)
    second = capsys.readouterr()
    assert "28 runs: 0 computed, 28 from the store" in second.err
    assert second.out == first.out and (tmp_path / "out" / "r1_gd.csv").read_text() == table


def test_r1_exact_simulation_counts_and_marks_the_cap(tmp_path):
    import math

    from toolkit_gd_perceptron import r1_exact

    import toolkit

    store = tmp_path / "runs.sqlite"
    run = toolkit.run("gd_perceptron.r1_exact", {"d": 1024, "gamma": 1e4, "digits": 60}, store=store)
    row = run.records[0]
    assert row["iterations"] == r1_exact.gd_iterations(1024, 1e4, dps=60) and row["status"] == "ok"
    assert (row["limit_half_tie"], row["batch_perceptron"]) == (1028, 2052)
    capped = toolkit.run("gd_perceptron.r1_exact", {"d": 1024, "gamma": 1e4, "max_iter": 10}, store=store)
    assert capped.records[0]["status"] == "capped" and math.isnan(capped.records[0]["iterations"])


def test_table1_script_through_the_store(tmp_path, capsys):
    script = _script("gd_perceptron_table1")
    argv = ["--out", str(tmp_path / "out"), "--store", str(tmp_path / "runs.sqlite")]
    script.main(argv)
    first = capsys.readouterr()
    assert "| Table 1: Batch Perceptron | 301 | 301 | yes |" in first.out
    assert "| Thm 4.1: theta_1/gamma | (1/2, 3/4) | (0.5, 0.75) | yes |" in first.out
    assert "| no |" not in first.out
    assert "9 runs: 9 computed, 0 from the store" in first.err
    table = (tmp_path / "out" / "table1.csv").read_text()
    script.main(argv)
    second = capsys.readouterr()
    assert "9 runs: 0 computed, 9 from the store" in second.err and second.out == first.out
    assert (tmp_path / "out" / "table1.csv").read_text() == table


def test_dynamics_records_the_rescaled_weights_on_request():
    import toolkit

    values = {"dataset": "thm41", "model": "linear", "gamma": 100.0, "T": 2}
    plain = toolkit.run("gd_perceptron.dynamics", values, cache=False)
    assert "weights" not in plain.records[1]
    rec = toolkit.run("gd_perceptron.dynamics", {**values, "record_weights": True}, cache=False).records
    assert rec[0]["weights"] == [0.0, 0.0] and rec[1]["weights"] == [0.5, 0.75]  # Thm 4.1: theta_1/gamma
