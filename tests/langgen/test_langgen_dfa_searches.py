"""The DFA_n lower-bound searches (langgen.closed_set_climb, langgen.family_search) and the study
scripts behind them: a budget in steps, not seconds, so a run is a stored point a rerun reads back."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import toolkit

STUDIES = Path(__file__).resolve().parents[2] / "plugins" / "langgen" / "studies"


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, STUDIES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_closed_set_climb_budget_and_certificate(tmp_path):
    store = tmp_path / "runs.sqlite"
    values = {"n": 3, "max_length": 6, "pump_length": 6, "start": "random", "restart": 1}
    full = toolkit.run("langgen.closed_set_climb", values, 0, store=store).records[0]
    assert full["local_maximum"] and full["value"] == 6 == len(full["witness_words"])  # C(DFA_3) = 6
    cut = toolkit.run("langgen.closed_set_climb", {**values, "max_closures": 1}, 0, store=store).records[0]
    assert cut["closures_tried"] == 1 and not cut["local_maximum"]
    # the same seed and restart: the same start word and climb, whatever the machine's speed
    again = toolkit.run("langgen.closed_set_climb", values, 0, cache=False, store=store).records[0]
    assert again == full
    with pytest.raises(toolkit.ParameterError, match="not in the ground set"):
        toolkit.run("langgen.closed_set_climb", {**values, "start": "words", "words": ["aaa"]}, store=store)
    with pytest.raises(toolkit.ParameterError, match="words is given exactly when start='words'"):
        toolkit.run("langgen.closed_set_climb", {**values, "words": ["a"]}, store=store)


def test_family_search_kick_budget(tmp_path):
    store = tmp_path / "runs.sqlite"
    row = toolkit.run("langgen.family_search", {"n": 3, "k": 3, "kicks": 10}, 1, store=store).records[0]
    assert row["value"] == len(row["witness_words"]) and len(row["members"]) == 3
    with pytest.raises(toolkit.ParameterError, match="start_family"):
        toolkit.run("langgen.family_search", {"n": 3, "start_family": [10**6]}, store=store)


def test_bounds_script_through_the_store(tmp_path, capsys):
    start = tmp_path / "start.json"
    start.write_text(json.dumps({"words": ["ab"]}))
    out = tmp_path / "b.json"
    argv = ["--n", "3", "--max-length", "6", "--pump-length", "6", "--restarts", "3", "--start", str(start)]
    argv += ["--out", str(out), "--store", str(tmp_path / "runs.sqlite")]
    script = _script("langgen_dfa4_bounds")
    script.main(argv)
    assert "4 climbs: 4 computed, 0 from the store" in capsys.readouterr().err
    first = json.loads(out.read_text())
    assert first["lower_bound"] == 6 and first["status"] == "done" and len(first["runs"]) == 4
    assert first["runs"][0]["start"] == f"words of {start}"
    script.main(argv)
    assert "4 climbs: 0 computed, 4 from the store" in capsys.readouterr().err
    drop = ("seconds", "max_rss_mb")
    assert {k: v for k, v in json.loads(out.read_text()).items() if k not in drop} == {
        k: v for k, v in first.items() if k not in drop
    }
    with pytest.raises(SystemExit) as exc:
        script.main(["--time-limit", "10"])  # replaced by --max-closures
    assert exc.value.code == 2


def test_families_script_through_the_store(tmp_path, capsys):
    out = tmp_path / "f.json"
    argv = ["--n", "3", "--k", "2", "3", "--seeds", "0", "1", "--kicks", "5"]
    argv += ["--out", str(out), "--store", str(tmp_path / "runs.sqlite")]
    script = _script("langgen_dfa4_families")
    script.main(argv)
    assert "4 runs: 4 computed, 0 from the store" in capsys.readouterr().err
    first = json.loads(out.read_text())
    assert [(r["k"], r["seed"]) for r in first["runs"]] == [(2, 0), (2, 1), (3, 0), (3, 1)]
    assert first["lower_bound"] == max(r["value"] for r in first["runs"]) == len(first["witness_words"])
    script.main(argv)
    assert "4 runs: 0 computed, 4 from the store" in capsys.readouterr().err
    assert json.loads(out.read_text())["runs"] == first["runs"]
