"""The svrg_poco study scripts refuse a bad comma list with exit status 2 before any work (toolkit.argtypes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "script, argv, message",
    [
        # the gates script used to skip an unknown gate silently and exit 0 having run nothing
        ("svrg_poco_gates.py", ["--only", "g1,g5"], "allowed: g1, g2, g3, g4"),
        ("svrg_poco_gates.py", ["--seeds", "3,x"], "'x' is not one of the comma-separated integers"),
        # a repeated seed used to be run twice and counted twice in the means
        ("svrg_poco_g4_limits.py", ["--seeds", "0,0"], "'0' is listed twice"),
        (
            "svrg_poco_g4_limits.py",
            ["--ivon-lrs", "0.05,fast"],
            "'fast' is not one of the comma-separated numbers",
        ),
        ("svrg_poco_mlp_grid.py", ["--confirm-seeds", "1,2"], "'1' is below the minimum 2"),
    ],
)
def test_study_scripts_refuse_a_bad_list_with_status_2(script, argv, message, tmp_path):
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, str(ROOT / "plugins" / "svrg_poco" / "studies" / script), *argv, "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert f"argument {argv[0]}" in done.stderr and message in done.stderr
    assert not out.exists()  # refused before any work


def test_gate_experiments_take_fresh_seeds():
    from toolkit_svrg_poco.experiments import g2_variance

    assert list(g2_variance(True, seeds=[3, 4]).table.seed) == [3, 4]
    assert list(g2_variance(True).table.seed) == [0]
    with pytest.raises(ValueError, match="distinct non-negative"):
        g2_variance(True, seeds=[3, 3])


def _gates_script():
    import importlib.util

    path = ROOT / "plugins" / "svrg_poco" / "studies" / "svrg_poco_gates.py"
    spec = importlib.util.spec_from_file_location("svrg_poco_gates", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gates_script_runs_through_the_store_and_a_rerun_computes_nothing(tmp_path, capsys):
    from toolkit_svrg_poco import experiments as E

    gates = _gates_script()
    argv = [
        "--quick",
        "--only",
        "g1,g2",
        "--out",
        str(tmp_path / "out"),
        "--store",
        str(tmp_path / "runs.sqlite"),
    ]
    assert gates.main(argv) == 0
    first = capsys.readouterr()
    assert "## svrg_poco.g1_svrg_vs_sgd" in first.out and "## svrg_poco.g2_variance" in first.out
    assert "[ok] lemma ratio, max over the path (target <= 1)" in first.out
    assert "3 runs: 3 computed, 0 from the store" in first.err
    assert E.STORE is None  # the module is left as it was
    table = (tmp_path / "out" / "g1_svrg_vs_sgd.csv").read_text()
    assert gates.main(argv) == 0
    second = capsys.readouterr()
    assert "3 runs: 0 computed, 3 from the store" in second.err
    assert (tmp_path / "out" / "g1_svrg_vs_sgd.csv").read_text() == table


def test_mlp_grid_runs_through_the_store_and_a_rerun_computes_nothing(tmp_path, capsys, monkeypatch):
    import importlib.util

    path = ROOT / "plugins" / "svrg_poco" / "studies" / "svrg_poco_mlp_grid.py"
    spec = importlib.util.spec_from_file_location("svrg_poco_mlp_grid", path)
    grid = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(grid)
    # two methods at their centre lr only: 4 choice runs and 2 confirmation runs of one epoch
    monkeypatch.setattr(grid, "CENTRES", {"adam": 1e-3, "ivon_poco": 0.05})
    monkeypatch.setattr(grid, "FACTORS", (1.0,))
    out, store = tmp_path / "out", tmp_path / "runs.sqlite"
    argv = ["--epochs", "1", "--confirm-seeds", "2", "--out", str(out), "--store", str(store)]
    assert grid.main(argv) == 0
    first = capsys.readouterr()
    assert "chosen: {'adam': 0.001, 'ivon_poco': 0.05}" in first.out
    assert "equal steps: IVON-PoCo 2.0" in first.out
    assert "6 runs: 6 computed, 0 from the store" in first.err
    tables = (out / "mlp_grid.csv").read_text(), (out / "mlp_confirm.csv").read_text()
    assert grid.main(argv) == 0
    second = capsys.readouterr()
    assert "6 runs: 0 computed, 6 from the store" in second.err
    assert second.out == "\n".join(line for line in first.out.splitlines() if not line.startswith("{")) + "\n"
    assert ((out / "mlp_grid.csv").read_text(), (out / "mlp_confirm.csv").read_text()) == tables


def test_figures_come_from_the_store_and_a_rerun_computes_nothing(tmp_path, capsys, monkeypatch):
    import importlib.util

    path = ROOT / "plugins" / "svrg_poco" / "studies" / "svrg_poco_figures.py"
    spec = importlib.util.spec_from_file_location("svrg_poco_figures", path)
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    # 5 epochs instead of 100 per convergence curve: the same runs through the store, in seconds
    monkeypatch.setattr(
        figures, "curve", lambda **kw: figures._run("svrg_poco.convergence", {**kw, "n_epochs": 5.0})
    )
    argv = ["--mlp-epochs", "1", "--out", str(tmp_path / "figures"), "--store", str(tmp_path / "runs.sqlite")]
    assert figures.main(argv) == 0
    assert "19 runs: 19 computed, 0 from the store" in capsys.readouterr().err
    pngs = {p.name: p.read_bytes() for p in (tmp_path / "figures").glob("*.png")}
    assert sorted(pngs) == ["convergence_lr.png", "convergence_ls.png", "mlp.png"]
    assert figures.main(argv) == 0
    assert "19 runs: 0 computed, 19 from the store" in capsys.readouterr().err
    assert figures.STORE is None


def test_g4_limits_runs_through_the_store_and_a_rerun_computes_nothing(tmp_path, capsys):
    import importlib.util

    path = ROOT / "plugins" / "svrg_poco" / "studies" / "svrg_poco_g4_limits.py"
    spec = importlib.util.spec_from_file_location("svrg_poco_g4_limits", path)
    limits = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(limits)
    argv = ["--seeds", "0", "--epochs", "1", "--ivon-lrs", "0.05", "--adam-lrs", "0.001"]
    argv += ["--out", str(tmp_path / "out"), "--store", str(tmp_path / "runs.sqlite")]
    assert limits.main(argv) == 0
    first = capsys.readouterr()
    assert "8 runs: 8 computed, 0 from the store" in first.err
    assert "paper's rates: best zero-variance IVON (lr 0.05, lowest seed)" in first.out
    assert limits.main(argv) == 0
    second = capsys.readouterr()
    assert "8 runs: 0 computed, 8 from the store" in second.err
    assert second.out == "\n".join(line for line in first.out.splitlines() if not line.startswith("{")) + "\n"
