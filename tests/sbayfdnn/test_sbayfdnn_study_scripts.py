"""The study scripts: bad comma lists are refused with exit 2 before any work (toolkit.argtypes), and every
study runs its units of work as points of the run store: a rerun computes nothing it finished, and a
stopped run keeps what it finished. The units of work are replaced by quick stand-ins (real fits take
minutes); the scripts' equality with direct calls was checked at their smallest settings."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
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


def _flaky(rows_for, stop_after: int = 10**6):
    """A stand-in for a script's unit of work that records its calls and fails after ``stop_after``."""
    calls = []

    def unit(*args, **kwargs):
        if len(calls) == stop_after:
            raise _Interrupt
        calls.append(args[:2])
        return rows_for(*args, **kwargs)

    return unit, calls


def _store_args(tmp_path):
    return ["--store", str(tmp_path / "runs.sqlite")]


def test_calibration_resumes_an_interrupted_run_without_refitting(tmp_path, monkeypatch):
    import argparse

    from toolkit.runner import SweepFailed

    calibration = _script("sbayfdnn_calibration")

    def rows_for(link, seed, settings, laplace_pips):
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

    store = argparse.Namespace(store=str(tmp_path / "runs.sqlite"), executor="serial")
    unit, calls = _flaky(rows_for, stop_after=2)
    monkeypatch.setattr(calibration, "fit_rows", unit)
    with pytest.raises(SweepFailed):  # the third and fourth fits fail; the first two are stored
        calibration.run(["linear", "square"], [0, 1], {}, args=store)
    assert calls == [("linear", 0), ("linear", 1)]
    unit, calls = _flaky(rows_for)
    monkeypatch.setattr(calibration, "fit_rows", unit)
    table = calibration.run(["linear", "square"], [0, 1], {}, args=store)
    assert calls == [("square", 0), ("square", 1)]  # the two finished fits are read back, not refitted
    assert len(table) == 16 and table["laplace_pip"].isna().all()
    assert sorted(set(zip(table["link"], table["seed"]))) == [
        ("linear", 0),
        ("linear", 1),
        ("square", 0),
        ("square", 1),
    ]
    unit, calls = _flaky(rows_for)
    monkeypatch.setattr(calibration, "fit_rows", unit)
    again = calibration.run(["linear", "square"], [0, 1], {}, args=store)
    assert calls == [] and again.equals(table)


def test_calibration_script_writes_its_tables_and_a_rerun_fits_nothing(tmp_path, monkeypatch, capsys):
    calibration = _script("sbayfdnn_calibration")

    def rows_for(link, seed, settings, laplace_pips):
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
            for j in range(24)
        ]

    argv = ["--links", "linear", "--seeds", "0", "--out", str(tmp_path / "cal"), *_store_args(tmp_path)]
    unit, calls = _flaky(rows_for)
    monkeypatch.setattr(calibration, "fit_rows", unit)
    calibration.main(argv)
    first = capsys.readouterr().out
    assert calls == [("linear", 0)] and "1 points, 0 from the store" in first
    calibration.main(argv)
    second = capsys.readouterr().out
    assert calls == [("linear", 0)] and "1 points, 1 from the store" in second
    assert first.split("\n", 1)[1].rsplit(";", 1)[0] == second.split("\n", 1)[1].rsplit(";", 1)[0]


def test_dense_gap_resumes_an_interrupted_run_without_refitting(tmp_path, monkeypatch):
    import toolkit_sbayfdnn.designs as designs

    from toolkit.runner import SweepFailed

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
    argv = ["--links", "linear", "--seeds", "2", "--no-sparse", "--out", str(out), *_store_args(tmp_path)]
    with pytest.raises(SweepFailed):
        dense_gap.main(argv)
    assert len(calls) == 1
    unit, calls = _flaky(rows_for)
    monkeypatch.setattr(dense_gap, "dense_rows", unit)
    assert dense_gap.main(argv) == 0
    assert calls == [("data linear 1", 1)]  # seed 0 came from the store
    import pandas as pd

    summary = pd.read_csv(out / "summary.csv")
    assert list(summary["seed"]) == [0, 1] and list(summary["dense_default"]) == [1.05, 1.06]
    grid = pd.read_csv(out / "dense_grid.csv")
    assert sorted(grid["weight_decay_var"].astype(float)) == [1.0, 1.0, float("inf"), float("inf")]
    assert dense_gap.main(argv) == 0 and calls == [("data linear 1", 1)]  # a third run fits nothing


def test_real_data_study_serves_a_rerun_from_the_store(tmp_path, monkeypatch, capsys):
    import toolkit_sbayfdnn.baselines as baselines
    from toolkit_sbayfdnn.designs import FunctionalData

    real = _script("sbayfdnn_real")
    tiny = np.zeros((4, 3))
    monkeypatch.setattr(
        real,
        "load",
        lambda name: FunctionalData(
            X=tiny,
            y=np.zeros(4),
            grid=np.arange(3.0),
            X_test=tiny,
            y_test=np.arange(4.0),
            true_regions=None,
            description=name,
        ),
    )

    def rows_for(data, methods, **kwargs):
        return [
            {"method": m, "rmse": 1.0 + kwargs["seed"] + i, "wall_time": 0.1, "model": None}
            for i, m in enumerate(methods)
        ]

    unit, calls = _flaky(rows_for)
    monkeypatch.setattr(baselines, "compare_methods", unit)
    out = tmp_path / "real.csv"
    argv = [
        "--datasets",
        "covid,elnino",
        "--seeds",
        "0,1",
        "--methods",
        "flm,fpca",
        "--out",
        str(out),
        *_store_args(tmp_path),
    ]
    real.main(argv)
    first = capsys.readouterr().out
    assert len(calls) == 4 and "4 points, 0 from the store" in first
    table = pd_read(out)
    assert list(zip(table["dataset"], table["seed"], table["method"]))[:3] == [
        ("covid", 0, "flm"),
        ("covid", 0, "fpca"),
        ("covid", 1, "flm"),
    ]
    real.main(argv)
    second = capsys.readouterr().out
    assert len(calls) == 4 and "4 points, 4 from the store" in second
    summary = lambda text: text[text.index("  dataset") : text.index("total")]  # noqa: E731
    assert summary(first) == summary(second) and "ratio_to_flm_mean" in summary(first)


def pd_read(path):
    import pandas as pd

    return pd.read_csv(path)


def test_offset_and_tecator_studies_serve_a_rerun_from_the_store(tmp_path, monkeypatch, capsys):
    offset = _script("sbayfdnn_offset")
    unit, calls = _flaky(
        lambda case, seed, **settings: {"case": case, "seed": seed, "default_rmse": seed / 10}
    )
    monkeypatch.setattr(offset, "run_case", unit)
    argv = [
        "--cases",
        "toy40,null",
        "--seeds",
        "100,101",
        "--out",
        str(tmp_path / "off.csv"),
        *_store_args(tmp_path),
    ]
    offset.main(argv)
    assert len(calls) == 4 and pd_read(tmp_path / "off.csv")["default_rmse"].tolist() == [
        10.0,
        10.0,
        10.1,
        10.1,
    ]
    offset.main(argv)
    assert len(calls) == 4  # every fit from the store

    tecator = _script("sbayfdnn_tecator")
    unit, calls = _flaky(
        lambda name, split, fit_seed: {"config": name, "split": split, "val_rmse": 2.0 + split}
    )
    monkeypatch.setattr(tecator, "config_row", unit)
    argv = [
        "--configs",
        "default,basis12",
        "--splits",
        "0,1",
        "--out",
        str(tmp_path / "tec.csv"),
        *_store_args(tmp_path),
    ]
    tecator.main(argv)
    tecator.main(argv)
    assert calls == [("default", 0), ("basis12", 0), ("default", 1), ("basis12", 1)]
    assert pd_read(tmp_path / "tec.csv")["val_rmse"].tolist() == [2.0, 2.0, 3.0, 3.0]
    unit, calls = _flaky(
        lambda case, case_seed, fit_seed: {"case": f"{case}{case_seed}", "default_rmse": 1.0}
    )
    monkeypatch.setattr(tecator, "candidate_row", unit)
    argv = [
        "--candidate",
        "--splits",
        "1",
        "--pilot-seeds",
        "100",
        "--out",
        str(tmp_path / "cand.csv"),
        *_store_args(tmp_path),
    ]
    tecator.main(argv)
    tecator.main(argv)
    assert calls == [("tecator", 1), ("toy40", 100), ("offset_linear", 100)]
    assert pd_read(tmp_path / "cand.csv")["case"].tolist() == ["tecator1", "toy40100", "offset_linear100"]


def test_small_n_cv_and_compare_serve_a_rerun_from_the_store(tmp_path, monkeypatch, capsys):
    small = _script("sbayfdnn_small_n_cv")

    def seed_rows(seed, folds):
        return [
            dict(
                case="toy40",
                seed=seed,
                folds=k,
                candidate=c,
                cv_mse=1.0 + (c == "linear"),
                test_rmse=1.0,
                test_vs_flm=1.0,
                committee_test_vs_flm=1.0,
                sq_errors="[1.0, 1.0]",
                seed_wall_time=0.1,
            )
            for k in folds
            for c in small.CANDIDATES
        ]

    unit, calls = _flaky(seed_rows)
    monkeypatch.setattr(small, "run_seed", unit)
    argv = ["--seeds", "100,101", "--folds", "3", "--out", str(tmp_path / "cv.csv"), *_store_args(tmp_path)]
    small.main(argv)
    first = capsys.readouterr().out
    small.main(argv)
    second = capsys.readouterr().out
    assert calls == [(100, [3]), (101, [3])] and "seed 101 K=3: CV MSE" in second
    assert first.split("\n", 1)[1] == second.split("\n", 1)[1]  # the same picks, from the store

    import toolkit_sbayfdnn.experiments as experiments

    compare = _script("sbayfdnn_compare")

    def gate_rows(links, seeds, settings, methods):
        import pandas as pd

        return pd.DataFrame(
            [
                {
                    "link": links[0],
                    "seed": seeds[0],
                    "method": m,
                    "rmse": 1.0,
                    "rmse_ratio": 1.0 + i / 10,
                    "tpr": 1.0,
                    "fpr": 0.0,
                    "f1": 1.0,
                    "n_selected": 4,
                    "coverage": 0.95,
                    "wall_time": 0.1,
                }
                for i, m in enumerate(methods)
            ]
        )

    unit, calls = _flaky(gate_rows)
    monkeypatch.setattr(experiments, "run_gates", unit)
    argv = [
        "--links",
        "linear",
        "--seeds",
        "2",
        "--null-seeds",
        "0",
        "--methods",
        "sbayfdnn,flm,dense",
        "--out",
        str(tmp_path / "cmp"),
        *_store_args(tmp_path),
    ]
    assert compare.main(argv) == 0 and compare.main(argv) == 0
    assert calls == [(["linear"], [0]), (["linear"], [1])]
    table = pd_read(tmp_path / "cmp" / "compare.csv")
    assert list(table.columns[:3]) == ["link", "seed", "method"] and len(table) == 6


def test_figures_draw_from_the_stored_fit_on_a_rerun(tmp_path, monkeypatch, capsys):
    figures = _script("sbayfdnn_figures")

    def fit(params, seed):
        rows = [
            {
                "part": "fit",
                "selected_regions": "[[0.1, 0.3]]",
                "true_regions": "[[0.1, 0.3]]",
                "region_pips": "[0.97]",
            }
        ]
        rows += [{"part": "grid", "t": t / 10, "beta": t, "effective": t, "flm_beta": -t} for t in range(11)]
        rows += [{"part": "basis", "basis": j, "pip": j / 8, "norm_sq": 1.0} for j in range(8)]
        rows += [{"part": "test", "y": y, "pred": y, "lower": y - 1, "upper": y + 1} for y in range(30)]
        return rows

    unit, calls = _flaky(fit)
    monkeypatch.setattr(figures, "figure_point", unit)
    argv = ["--out", str(tmp_path / "fig"), "--epochs", "10", *_store_args(tmp_path)]
    assert figures.main(argv) == 0 and figures.main(argv) == 0 and len(calls) == 1
    out = capsys.readouterr().out
    assert out.count("selected regions [(0.1, 0.3)] (region PIPs [0.97]); coverage 1.000") == 2
    tag = "two_region_linear_seed0"
    assert pd_read(tmp_path / "fig" / f"pip_{tag}.csv")["basis"].tolist() == list(range(8))
    assert len(pd_read(tmp_path / "fig" / f"intervals_{tag}.csv")) == 30
    assert (tmp_path / "fig" / f"beta_{tag}.png").exists()


def test_early_stop_choices_print_the_stored_fits_on_a_rerun(tmp_path, monkeypatch, capsys):
    choices = _script("early_stop_choices")

    def fit(params, seed):
        return {
            "choice": "FLM",
            "inner_cv_reason": "",
            "inner_cv_folds_run": 1 + params.cv_early_stop,
            "inner_cv_folds": 3,
            "test_rmse": 2.5 + seed,
            "cpu_s": 1.0,
            "wall_s": 2.0,
        }

    unit, calls = _flaky(fit)
    monkeypatch.setattr(choices, "choice_point", unit)
    argv = ["--seeds", "0,1", "--datasets", "elnino", "--full", *_store_args(tmp_path)]
    assert choices.main(argv) == 0
    first = [line for line in capsys.readouterr().out.splitlines() if line.startswith("elnino")]
    assert choices.main(argv) == 0 and len(calls) == 4
    second = [line for line in capsys.readouterr().out.splitlines() if line.startswith("elnino")]
    assert first == second and len(first) == 4
    assert first[1] == (
        "elnino seed 0 every fold: FLM (inner CV not run, 1 of 3 folds), test RMSE 2.5, 1.0 CPU-s, 2.0 s wall"
    )


def test_dense_gap_evidence_pruning_and_sparse_trace_come_from_the_store_on_a_rerun(tmp_path, monkeypatch):
    import toolkit_sbayfdnn.designs as designs

    dense_gap = _script("sbayfdnn_dense_gap")
    monkeypatch.setattr(designs, "simulate", lambda *a, **k: f"data {a[1]} {a[-1]}")
    dense, _ = _flaky(
        lambda data, seed: (
            [
                {
                    "lr": 2e-3,
                    "widths": "(64, 32)",
                    "weight_decay_var": 1.0,
                    "best_epoch": 9,
                    "val_rmse": 1.0,
                    "test_ratio": 1.1,
                    "default": True,
                }
            ],
            1.2,
        )
    )
    sparse, sparse_calls = _flaky(
        lambda data, seed: [{"restart": 0, "stage": "map", "finetune_epochs": 0, "test_ratio": 1.3}]
    )
    pruning, pruning_calls = _flaky(
        lambda data, seed: [{"dropped": "none", "log_evidence": -5.0, "evidence_gain": 0.0}]
    )
    monkeypatch.setattr(dense_gap, "dense_rows", dense)
    monkeypatch.setattr(dense_gap, "sparse_rows", sparse)
    monkeypatch.setattr(dense_gap, "evidence_pruning", pruning)
    out = tmp_path / "gap"
    argv = [
        "--links",
        "square",
        "--seeds",
        "1",
        "--evidence-pruning",
        "square:3",
        "--out",
        str(out),
        *_store_args(tmp_path),
    ]
    assert dense_gap.main(argv) == 0 and dense_gap.main(argv) == 0
    assert sparse_calls == [("data square 0", 0)] and pruning_calls == [("data square 3", 3)]
    import pandas as pd

    rows = pd.read_csv(out / "evidence_pruning.csv")
    assert rows[["part", "link", "seed", "dropped"]].values.tolist() == [["pruning", "square", 3, "none"]]
    assert pd.read_csv(out / "sparse_finetune.csv")["test_ratio"].tolist() == [1.3]
