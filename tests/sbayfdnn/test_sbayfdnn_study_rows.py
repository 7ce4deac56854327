"""Study rows are written as they are made and a rerun resumes (issue 19: stopped studies lost their rows)."""

import json

import numpy as np
import pytest
from toolkit_sbayfdnn.study_rows import RowLog


def test_units_are_appended_at_once_and_a_new_log_resumes_them(tmp_path):
    path = tmp_path / "study" / "rows.jsonl"
    log = RowLog(path, key=("dataset", "seed"))
    assert not log.done(dataset="tecator", seed=5)
    log.append(
        [{"method": "flm", "rmse": np.float64(2.5)}, {"method": "sbayfdnn", "rmse": float("nan")}],
        dataset="tecator",
        seed=5,
    )
    assert len(path.read_text().splitlines()) == 1  # one line per unit: wholly written or not at all
    resumed = RowLog(path, key=("dataset", "seed"))  # a rerun after a stop
    assert resumed.done(dataset="tecator", seed=5) and not resumed.done(dataset="tecator", seed=6)
    assert resumed.rows == [
        {"dataset": "tecator", "seed": 5, "method": "flm", "rmse": 2.5},
        {"dataset": "tecator", "seed": 5, "method": "sbayfdnn", "rmse": None},
    ]
    assert list(resumed.to_frame().columns) == ["dataset", "seed", "method", "rmse"]


def test_a_line_cut_by_a_kill_is_dropped_and_its_unit_redone(tmp_path):
    path = tmp_path / "rows.jsonl"
    log = RowLog(path, key=("seed",))
    log.append([{"rmse": 1.0}], seed=0)
    with path.open("a") as handle:
        handle.write('{"key": {"seed": 1}, "rows": [{"rm')  # killed mid-write
    resumed = RowLog(path, key=("seed",))
    assert resumed.done(seed=0) and not resumed.done(seed=1)
    assert [json.loads(line)["key"] for line in path.read_text().splitlines()] == [{"seed": 0}]


def test_a_corrupt_line_inside_the_log_is_named(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text('not json\n{"key": {"seed": 0}, "rows": []}\n')
    with pytest.raises(ValueError, match=r"rows.jsonl:1: not a JSON line"):
        RowLog(path, key=("seed",))


def test_a_unit_missing_a_key_field_is_refused(tmp_path):
    log = RowLog(tmp_path / "rows.jsonl", key=("dataset", "seed"))
    with pytest.raises(ValueError, match=r"lacks the key fields \['seed'\]"):
        log.append([{"rmse": 1.0}], dataset="tecator")
