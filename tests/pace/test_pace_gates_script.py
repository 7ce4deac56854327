"""plugins/pace/studies/pace_gates.py: its runs go through the run store, and a second call computes nothing."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script():
    path = ROOT / "plugins" / "pace" / "studies" / "pace_gates.py"
    spec = importlib.util.spec_from_file_location("pace_gates", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gates_table_from_the_store_and_a_rerun_computes_nothing(tmp_path, capsys):
    from toolkit_pace import experiments as E

    gates = _script()
    store, out = tmp_path / "runs.sqlite", tmp_path / "gates.md"
    gates.main(["--seeds", "1", "--quick", "--store", str(store), "--out", str(out)])
    first = capsys.readouterr()
    assert "| target | claim | reference | measured | ok |" in first.out
    assert "| G3-G4 | G3 recovery abrupt_variance, gamma0=0.005" in first.out
    assert "G1 runs per method: {'aci': 6, 'decaying': 3, 'pace': 6, 'quantile_tracking': 3}" in first.out
    assert "38 runs: 38 computed, 0 from the store" in first.err
    assert E.STORE is None  # the module is left as it was
    gates.main(["--seeds", "1", "--quick", "--store", str(store)])
    second = capsys.readouterr()
    assert "38 runs: 0 computed, 38 from the store" in second.err

    def tables(text: str) -> list[str]:
        return [line for line in text.splitlines() if line.startswith("|") or line.startswith("- ")]

    assert tables(second.out) == tables(first.out)
    assert out.read_text().startswith("# pace targets, seeds 100..100")


def test_bad_seed_count_is_refused_before_any_work(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        _script().main(["--seeds", "0", "--store", str(tmp_path / "runs.sqlite")])
    assert exc.value.code == 2 and "--seeds must be >= 1" in capsys.readouterr().err
    assert not (tmp_path / "runs.sqlite").exists()
