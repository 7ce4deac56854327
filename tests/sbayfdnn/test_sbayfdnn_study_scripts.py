"""The study scripts: bad comma lists are refused with exit 2 before any work (toolkit.argtypes), and the
calibration and dense-gap studies append each unit as it is done and resume without recomputing it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(
        f"sbayfdnn_script_{name}", REPO / "plugins" / "sbayfdnn" / "studies" / f"{name}.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "script, args, named",
    [
        ("sbayfdnn_real", ["--seeds", "0,x"], "--seeds"),
        ("sbayfdnn_real", ["--datasets", "tecator,ucr"], "--datasets"),
        ("sbayfdnn_offset", ["--cases", "toy40,offset_cubic"], "--cases"),
        ("sbayfdnn_calibration", ["--links", "linear,cubic"], "--links"),
        ("sbayfdnn_dense_gap", ["--evidence-pruning", "square:x"], "--evidence-pruning"),
    ],
)
def test_a_bad_list_exits_2_naming_the_option_before_any_work(
    script, args, named, monkeypatch, capsys, tmp_path
):
    module = _script(script)
    for work in ("run", "run_case", "fit_rows", "dense_rows"):  # the scripts' units of work must not start
        if hasattr(module, work):
            monkeypatch.setattr(
                module, work, lambda *a, **k: pytest.fail("work started before the bad list was refused")
            )
    with pytest.raises(SystemExit) as info:
        module.main([*args, "--out", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    assert info.value.code == 2 and f"argument {named}" in err, err
    assert not any(tmp_path.iterdir())  # nothing written


def test_the_offset_script_makes_every_case_it_offers_and_names_them_all_for_an_unknown_one():
    module = _script("sbayfdnn_offset")
    for case in module.CASES:
        data = module.make_case(case, seed=0)
        assert len(data.y) == len(data.X) > 0, case
    with pytest.raises(ValueError) as info:
        module.make_case("offset_cubic", seed=0)
    message = str(info.value)
    assert message.startswith("case: unknown case 'offset_cubic'")
    assert all(case in message for case in module.CASES), message


class _Interrupt(Exception):
    pass


def _flaky(rows_for, stop_after: int):
    """A stand-in for a script's unit of work that records its calls and is "killed" after ``stop_after``."""
    calls = []

    def unit(*args, **kwargs):
        if len(calls) == stop_after:
            raise _Interrupt
        calls.append(args[:2])
        return rows_for(*args[:2])

    return unit, calls


def test_calibration_resumes_an_interrupted_run_without_refitting(tmp_path, monkeypatch):
    from toolkit_sbayfdnn.study_rows import RowLog

    calibration = _script("sbayfdnn_calibration")

    def rows_for(link, seed):
        return [
            dict(
                link=link,
                seed=seed,
                candidate=0,
                chosen=True,
                column=j,
                pip=float(j % 2),
                averaged_pip=0.5,
                truly_in=j < 2,
                mass_in_region=0.5,
                mostly_in=j < 2,
                laplace_pip=float("nan"),
                log_evidence=-1.0,
            )
            for j in range(4)
        ]

    unit, calls = _flaky(rows_for, stop_after=2)
    monkeypatch.setattr(calibration, "fit_rows", unit)
    path = tmp_path / "rows.jsonl"
    key = ("link", "seed", "setting", "laplace_pips")
    with pytest.raises(_Interrupt):  # killed during the third fit
        calibration.run(["linear", "square"], [0, 1], {}, log=RowLog(path, key=key))
    assert calls == [("linear", 0), ("linear", 1)]
    unit, calls = _flaky(rows_for, stop_after=10)
    monkeypatch.setattr(calibration, "fit_rows", unit)
    table = calibration.run(["linear", "square"], [0, 1], {}, log=RowLog(path, key=key))
    assert calls == [("square", 0), ("square", 1)]  # the two finished fits are read back, not refitted
    assert len(table) == 16 and table["laplace_pip"].isna().all()
    assert sorted(set(zip(table["link"], table["seed"]))) == [
        ("linear", 0),
        ("linear", 1),
        ("square", 0),
        ("square", 1),
    ]


def test_dense_gap_resumes_an_interrupted_run_without_refitting(tmp_path, monkeypatch):
    import toolkit_sbayfdnn.designs as designs

    dense_gap = _script("sbayfdnn_dense_gap")

    def rows_for(data, seed):
        rows = [
            {
                "lr": 2e-3,
                "widths": "(64, 32)",
                "weight_decay_var": wd,
                "best_epoch": 100,
                "val_rmse": 1.0 + wd / 10,
                "test_ratio": 1.05 + seed / 100,
                "default": wd == 1.0,
            }
            for wd in (1.0, float("inf"))
        ]
        return rows, 1.04

    unit, calls = _flaky(rows_for, stop_after=1)
    monkeypatch.setattr(dense_gap, "dense_rows", unit)
    monkeypatch.setattr(designs, "simulate", lambda *a, **k: f"data {a[1]} {a[-1]}")
    out = tmp_path / "gap"
    argv = ["--links", "linear", "--seeds", "2", "--no-sparse", "--out", str(out)]
    with pytest.raises(_Interrupt):
        dense_gap.main(argv)
    assert len(calls) == 1 and (out / "rows.jsonl").read_text().count("\n") == 1
    unit, calls = _flaky(rows_for, stop_after=10)
    monkeypatch.setattr(dense_gap, "dense_rows", unit)
    assert dense_gap.main(argv) == 0
    assert calls == [("data linear 1", 1)]  # seed 0 came from the log
    import pandas as pd

    summary = pd.read_csv(out / "summary.csv")
    assert list(summary["seed"]) == [0, 1] and list(summary["dense_default"]) == [1.05, 1.06]
    grid = pd.read_csv(out / "dense_grid.csv")
    assert sorted(grid["weight_decay_var"].astype(float)) == [1.0, 1.0, float("inf"), float("inf")]
