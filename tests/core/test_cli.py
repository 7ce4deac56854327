"""The command line, in-process: discovery, run/sweep with caching, export, check, prove, errors."""

from __future__ import annotations

import pandas as pd
import pytest

from toolkit.cli import main


@pytest.fixture
def invoke(example_site, capsys, store_path):
    def _invoke(*args: str) -> tuple[int, str, str]:
        code = 0
        try:
            main(["--store", str(store_path), *args])
        except SystemExit as exc:
            code = exc.code or 0
        out, err = capsys.readouterr()
        return code, out, err

    return _invoke


def test_plugins_lists_distribution_and_version(invoke):
    code, out, _ = invoke("plugins")
    assert code == 0
    line = next(line for line in out.splitlines() if line.strip().startswith("example"))
    assert "toolkit-example" in line and "0.3.0" in line and "loaded" in line
    assert "disabled" in out  # the first-party plugins are switched off by the fixture


def test_list_and_show(invoke):
    code, out, _ = invoke("list")
    assert code == 0 and "example.random_walk" in out and "simple random walk positions and range" in out
    assert "example.walk_range" in out and "example.steps" in out and "example.drift" in out
    code, out, _ = invoke("show", "example.random_walk")
    assert code == 0
    assert "n_steps" in out and ">= 1, <= 10000000" in out and "number of +-1 steps" in out
    assert "checked against: example.walk_range" in out and "S_t = X_1 + ... + X_t" in out
    code, out, _ = invoke("show", "example.walk_range")
    assert "max_abs <= step" in out and "mean of S_n" in out


def test_run_then_cached_then_no_cache(invoke, tmp_path):
    args = ("run", "example.random_walk", "-p", "n_steps=40", "-p", "p=0.3", "--seed", "5")
    code, out, _ = invoke(*args, "--out", str(tmp_path / "r.csv"))
    assert code == 0 and "computed in" in out and "example.walk_range: 4/4 rows hold" in out
    table = pd.read_csv(tmp_path / "r.csv")
    assert (table["seed"] == 5).all() and (table["p"] == 0.3).all()
    code, out, _ = invoke(*args)
    assert "served from the run store" in out
    code, out, _ = invoke(*args, "--no-cache")
    assert "computed in" in out


def test_cli_and_api_give_the_same_table(invoke, tmp_path, registry, store_path):
    import toolkit

    invoke(
        "run", "example.random_walk", "-p", "n_steps=30", "--seed", "2", "--out", str(tmp_path / "cli.csv")
    )
    api = toolkit.run(
        "example.random_walk", {"n_steps": 30}, seed=2, store=tmp_path / "other.sqlite", registry=registry
    )
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "cli.csv"), api.table, check_dtype=False)


def test_sweep_export_check_report(invoke, tmp_path):
    code, out, _ = invoke(
        "sweep",
        "example.random_walk",
        "--grid",
        "n_steps=10,20",
        "--grid",
        "p=0.1,0.9",
        "--seeds",
        "0:3",
        "--no-progress",
    )
    assert code == 0 and "12 points, 12 computed, 0 served" in out
    sweep_id = out.split("sweep ")[1].split(":")[0]
    code, out, _ = invoke(
        "sweep",
        "example.random_walk",
        "--grid",
        "n_steps=10,20",
        "--grid",
        "p=0.1,0.9",
        "--seeds",
        "0:3",
        "--no-progress",
    )
    assert "0 computed, 12 served from the run store" in out
    for ext in ("csv", "parquet"):
        code, out, _ = invoke("export", sweep_id, "--out", str(tmp_path / f"t.{ext}"))
        assert code == 0
    csv, parquet = pd.read_csv(tmp_path / "t.csv"), pd.read_parquet(tmp_path / "t.parquet")
    assert len(csv) == len(parquet) and set(csv["seed"]) == {0, 1, 2}
    code, out, _ = invoke("check", sweep_id[:6], "--against", "example.walk_range")
    assert code == 0 and "rows hold" in out and "margin" in out
    code, out, _ = invoke(
        "report", sweep_id, "--y", "max_abs", "--x", "step", "--out", str(tmp_path / "f.png")
    )
    assert code == 0 and (tmp_path / "f.png").stat().st_size > 1000


def test_check_reports_violations_with_exit_1(invoke, registry, store_path, monkeypatch):
    import dataclasses

    import toolkit

    res = toolkit.run("example.random_walk", {"n_steps": 50}, seed=0, store=store_path, registry=registry)
    import toolkit_example
    from toolkit_example import bounds as example_bounds

    tight = dataclasses.replace(
        example_bounds.WALK_RANGE, name="example.walk_range", expression=example_bounds.step / 100
    )
    monkeypatch.setattr(toolkit_example, "toolkit_register_bounds", toolkit.hookimpl(lambda: [tight]))
    code, out, _ = invoke("check", res.run_id, "--against", "example.walk_range")
    assert code == 1 and "VIOLATED" in out


def test_prove(invoke):
    code, out, _ = invoke("prove", "--all")
    assert code == 0 and "mean of S_n" in out and "3 proved, 0 refuted, 0 unknown" in out
    code, out, err = invoke("prove")
    assert code == 2 and "--all" in err


def test_plugin_commands(invoke):
    code, out, _ = invoke("example-hello", "--name", "ada")
    assert code == 0 and "hello ada from the example plugin" in out


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ("run", "example.random_wlk"),
            "unknown simulation 'example.random_wlk'. Did you mean: example.random_walk?",
        ),
        (("run", "example.random_walk", "-p", "n_stepz=3"), "unknown parameter 'n_stepz'"),
        (("run", "example.random_walk", "-p", "n_steps=0"), "parameter 'n_steps'"),
        (("run", "example.random_walk", "-p", "n_steps"), "expects key=value"),
        (("sweep", "example.random_walk", "--seeds", "x"), "--seeds expects"),
        (("show", "example.nothing"), "unknown name"),
        (("export", "zzzz", "--out", "x.csv"), "no run or sweep with id"),
        (("-p", "example", "list"), "expected no:NAME"),
    ],
)
def test_user_errors_exit_2_with_a_message_not_a_traceback(invoke, args, message):
    code, out, err = invoke(*args)
    assert code == 2, (out, err)
    assert message in " ".join(err.split()) and "Traceback" not in err


def test_disable_option(invoke):
    code, out, err = invoke("-p", "no:example", "run", "example.random_walk")
    assert code == 2 and "unknown simulation" in err


def test_corrupt_store_is_a_user_error(example_site, capsys, tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"garbage" * 1000)
    with pytest.raises(SystemExit) as info:
        main(["--store", str(bad), "run", "example.random_walk"])
    assert info.value.code == 2 and "corrupt" in capsys.readouterr().err
    assert bad.read_bytes() == b"garbage" * 1000


def test_reproduce_writes_report(invoke, tmp_path):
    code, out, _ = invoke("reproduce", "--quick", "--out", str(tmp_path / "rep"))
    assert code == 0, out
    text = (tmp_path / "rep" / "report.md").read_text()
    assert (
        "example.drift" in text and "2p - 1 = 0.4" in text and "![example.drift](example.drift.png)" in text
    )
    assert "Verdicts of all bounds" in text and "mean of S_n" in text
    assert (tmp_path / "rep" / "example.drift.png").stat().st_size > 1000
    code, out, _ = invoke("reproduce", "--quick", "--format", "html", "--out", str(tmp_path / "html"))
    html = (tmp_path / "html" / "report.html").read_text()
    assert "<img" in html and "<table>" in html


def test_help_lists_commands(invoke):
    code, out, _ = invoke("--help")
    for cmd in ("plugins", "list", "show", "run", "sweep", "prove", "check", "export", "report", "reproduce"):
        assert cmd in out


def test_reproduce_in_parallel_processes(invoke, tmp_path):
    code, out, _ = invoke("reproduce", "--quick", "--jobs", "2", "--out", str(tmp_path / "par"))
    assert code == 0, out
    assert "on 2 processes" in out and "example.drift done" in out
    assert "example.drift" in (tmp_path / "par" / "report.md").read_text()
    code, out, err = invoke("reproduce", "--jobs", "0")
    assert code == 2 and "--jobs must be >= 1" in err
