"""Issue 17, sections 1-3 in-process: the serial executor runs list parameters, the store survives
concurrent creation, bad rows and read-only files, and bad input is a clear error before any work."""

from __future__ import annotations

import multiprocessing
import sqlite3
import types

import numpy as np
import pandas as pd
import pytest

import toolkit
from toolkit import Simulation
from toolkit.cli import main
from toolkit.config import Field, Params, parse_assignments, parse_grid, parse_seeds, parse_value
from toolkit.errors import ParameterError, StoreError
from toolkit.registry import get_registry
from toolkit.store import RunStore

SLOW = "example.slow_square"


@pytest.fixture
def invoke(example_site, capsys, store_path):
    def _invoke(*args: str) -> tuple[int, str, str]:
        code = 0
        try:
            main(["--store", str(store_path), *args])
        except SystemExit as exc:
            code = exc.code or 0
        out, err = capsys.readouterr()
        return code, out, " ".join(err.split())

    return _invoke


# -- 1. the default executor runs every simulation ------------------------------------------------------


def test_serial_sweep_of_a_simulation_with_a_list_parameter(registry, store_path):
    res = toolkit.sweep(
        SLOW, {"x": [1.0, 2.0]}, seeds="0:2", params={"fail_at": [99.0]}, store=store_path, registry=registry
    )
    assert res.n_computed == 4 and list(res.table["square"]) == [1.0, 1.0, 4.0, 4.0]


def test_serial_sweep_of_a_list_parameter_on_the_command_line(invoke):
    code, out, err = invoke(
        "sweep", SLOW, "--grid", "x=1,2", "-p", "fail_at=[99]", "--seeds", "0:2", "--no-progress"
    )
    assert code == 0, err
    assert "4 points, 4 computed" in out


def test_harness_has_an_executors_check_and_it_catches_what_differs(registry):
    from toolkit.testing import check_executors, plugin_checks

    assert "example.slow_square:executors" in {c.id for c in plugin_checks("example", registry=registry)}
    check_executors(registry.simulation(SLOW), registry)
    unpicklable = Simulation(
        "faulty.local", lambda p, s: {"v": s}, _Nothing, "a lambda cannot reach a worker"
    )
    with pytest.raises(AssertionError, match="processes executor could not run it.*module level"):
        check_executors(unpicklable, registry)


class _Nothing(Params):
    pass


# -- 2. the store -----------------------------------------------------------------------------------------


def _open_at_once(path: str, barrier, results) -> None:
    barrier.wait()  # every opener starts at the same instant: the race of creating one new store
    try:
        results.put(str(RunStore(path).count()))
    except Exception as exc:
        results.put(f"{type(exc).__name__}: {exc}")


def test_many_processes_creating_one_store_at_once_all_succeed(tmp_path):
    ctx = multiprocessing.get_context("fork")
    outcomes = []
    for round_ in range(10):
        path, barrier, results = (
            str(tmp_path / f"store{round_}" / "runs.sqlite"),
            ctx.Barrier(10),
            ctx.Queue(),
        )
        procs = [ctx.Process(target=_open_at_once, args=(path, barrier, results)) for _ in range(10)]
        for proc in procs:
            proc.start()
        outcomes += [results.get(timeout=120) for _ in procs]
        for proc in procs:
            proc.join(timeout=60)
    failures = [r for r in outcomes if r != "0"]
    assert not failures, f"{len(failures)} of {len(outcomes)} openers failed: {failures[:3]}"


def _two_runs(store_path, registry):
    res = toolkit.sweep(SLOW, {"x": [1.0, 2.0]}, seeds=[0], store=store_path, registry=registry)
    return res, [r.key for r in res.runs]


@pytest.mark.parametrize(
    "column, value", [("params", "{not json"), ("summary", "null"), ("provenance", "[1]")]
)
def test_an_unreadable_run_row_is_named_and_other_rows_stay_readable(registry, store_path, column, value):
    res, (bad, good) = _two_runs(store_path, registry)
    con = sqlite3.connect(store_path)
    con.execute(f"UPDATE runs SET {column} = ? WHERE key = ?", (value, bad))
    con.commit()
    con.close()
    st = RunStore(store_path)
    with pytest.raises(StoreError, match=f"run {bad[:12]} .*unreadable {column} column"):
        st.get(bad)
    assert st.get(good).params["x"] == 2.0
    with pytest.raises(StoreError, match=bad[:12]):
        toolkit.load(res.sweep_id, store=store_path, registry=registry)


@pytest.mark.parametrize("column, value", [("keys", "{oops"), ("spec", "null"), ("keys", "[1, 2]")])
def test_an_unreadable_sweep_row_is_named_by_runs_and_export(
    invoke, registry, store_path, tmp_path, column, value
):
    broken = toolkit.sweep(SLOW, {"x": [1.0]}, seeds=[0], store=store_path, registry=registry)
    fine = toolkit.sweep(SLOW, {"x": [5.0]}, seeds=[0], store=store_path, registry=registry)
    con = sqlite3.connect(store_path)
    con.execute(f"UPDATE sweeps SET {column} = ? WHERE sweep_id = ?", (value, broken.sweep_id))
    con.commit()
    con.close()
    code, out, err = invoke("runs")
    assert code == 0 and fine.sweep_id in out
    assert f"sweep {broken.sweep_id} ({SLOW})" in err and f"unreadable {column} column" in err
    code, out, err = invoke("export", broken.sweep_id, "--out", str(tmp_path / "t.csv"))
    assert code == 2 and f"sweep {broken.sweep_id}" in err and "Traceback" not in err
    code, out, err = invoke("export", fine.sweep_id, "--out", str(tmp_path / "t.csv"))
    assert code == 0, err


def test_a_sweep_that_fails_before_running_writes_no_sweep_row(registry, store_path, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DASK_TIMEOUT", "1")
    pytest.importorskip("distributed")
    with pytest.raises(ParameterError, match="cannot reach the Dask scheduler"):
        toolkit.sweep(
            SLOW,
            {"x": [1.0]},
            seeds=[0],
            store=store_path,
            registry=registry,
            executor="dask",
            address="tcp://127.0.0.1:9",
        )
    assert RunStore(store_path).list_sweeps() == []


def test_a_read_only_store_serves_reads_and_cached_sweeps_and_says_it_cannot_be_written(
    invoke, registry, store_path, tmp_path, monkeypatch
):
    res = toolkit.sweep(SLOW, {"x": [1.0, 2.0]}, seeds=[0], store=store_path, registry=registry)
    import toolkit.store as store_module

    store_path.chmod(0o444)
    store_path.parent.chmod(0o555)
    try:
        if store_module._writable(
            store_path
        ):  # root writes through permissions: see the store as others would
            monkeypatch.setattr(store_module, "_writable", lambda path: False)
        code, out, err = invoke("runs")
        assert code == 0 and res.sweep_id in out
        code, out, err = invoke("export", res.sweep_id, "--out", str(tmp_path / "out" / "t.csv"))
        assert code == 0, err
        code, out, err = invoke("sweep", SLOW, "--grid", "x=1,2", "--no-progress")
        assert code == 0 and "0 computed, 2 served from the run store" in out, err
        code, out, err = invoke("sweep", SLOW, "--grid", "x=3", "--no-progress")
        assert (
            code == 2 and "cannot be written" in err and "corrupt" not in err and "move it aside" not in err
        )
    finally:
        store_path.parent.chmod(0o755)
        store_path.chmod(0o644)


# -- 2. failures through the Python API -----------------------------------------------------------------


def test_api_sweep_keeps_going_records_failures_and_raises_at_the_end(registry, store_path):
    with pytest.raises(
        toolkit.SweepFailed,
        match=r"1 of 3 points failed: ValueError: x = 2.0 is in fail_at \(x=2.0, seed 0\)",
    ) as info:
        toolkit.sweep(
            SLOW,
            {"x": [1.0, 2.0, 3.0]},
            seeds=[0],
            params={"fail_at": [2.0]},
            store=store_path,
            registry=registry,
        )
    result = info.value.result
    assert [r.params["x"] for r in result.runs] == [1.0, 3.0]
    assert "Traceback" in result.failures[0].traceback
    status = result.status_table()
    assert list(status["status"]) == ["ok", "ok", "failed"] and list(status.columns[:3]) == [
        "simulation",
        "x",
        "delay_s",
    ]
    with pytest.raises(toolkit.SweepFailed, match="--fail-fast"):
        toolkit.sweep(
            SLOW,
            {"x": [5.0, 6.0, 7.0]},
            seeds=[0],
            params={"fail_at": [5.0]},
            store=store_path,
            registry=registry,
            fail_fast=True,
        )
    assert RunStore(store_path).count() == 2  # x=6, 7 never ran


# -- 3. bad input: a clear error, exit 2, before any work ----------------------------------------------


@pytest.mark.parametrize(
    "args, message",
    [
        (("sweep", SLOW, "--seeds", "99999999999999999999"), "from 0 to 9223372036854775807"),
        (("run", SLOW, "--seed", "99999999999999999999"), "--seed expects one integer from 0 to"),
        (
            ("sweep", SLOW, "--seeds", "0:100000000"),
            "selects 100000000 seeds, more than a sweep may have (1000000)",
        ),
        (
            ("sweep", SLOW, "--seeds", "0:20000"),
            "this sweep has 20000 points (grid x seeds), more than 10000; confirm with --yes",
        ),
        (("sweep", SLOW, "--grid", "x=0,1", "--grid", "x=5"), "--grid x= is given twice"),
        (("sweep", SLOW, "--grid", "x=0,1", "-p", "x=5"), "x given both as -p and as --grid"),
        (("run", SLOW, "-p", "x=1", "-p", "x=2"), "-p x= is given twice"),
        (("run", SLOW, "-p", "fail_at={}"), "a list is written fail_at=16,32 or fail_at=[16,32]"),
    ],
)
def test_bad_input_exits_2_before_any_work(invoke, store_path, args, message):
    code, out, err = invoke(*args)
    assert code == 2, (out, err)
    assert message in err and "Traceback" not in err
    assert not store_path.exists() or RunStore(store_path).count() == 0


def test_yes_lets_a_big_sweep_run(invoke, monkeypatch):
    import toolkit.runner as runner_module

    monkeypatch.setattr(runner_module, "CONFIRM_POINTS", 3)
    code, out, err = invoke("sweep", SLOW, "--grid", "x=1,2", "--seeds", "0:2", "--no-progress")
    assert code == 2 and "more than 3; confirm with --yes" in err
    code, out, err = invoke("sweep", SLOW, "--grid", "x=1,2", "--seeds", "0:2", "--no-progress", "--yes")
    assert code == 0 and "4 points, 4 computed" in out


def test_unwritable_out_fails_before_the_sweep_runs(invoke, store_path, tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a folder")
    code, out, err = invoke(
        "sweep", SLOW, "--grid", "x=1,2", "--no-progress", "--out", str(blocker / "t.csv")
    )
    assert code == 2 and "cannot be written" in err
    assert not store_path.exists() or RunStore(store_path).count() == 0
    code, out, err = invoke("sweep", SLOW, "--grid", "x=1", "--no-progress", "--out", str(tmp_path / "t.txt"))
    assert code == 2 and "must end in one of .csv" in err


class ListParams(Params):
    sizes: list[int] = Field(default_factory=lambda: [1], description="sizes")
    methods: list[str] = Field(default_factory=lambda: ["sgd"], description="methods")
    caps: list[float] = Field(default_factory=lambda: [1.0], description="caps")


@pytest.mark.parametrize(
    "text, value", [("16", [16]), ("16,32", [16, 32]), ("[16,32]", [16, 32]), ("[16, 32]", [16, 32])]
)
def test_list_parameters_accept_commas_and_brackets(text, value):
    assert parse_assignments([f"sizes={text}"], model=ListParams) == {"sizes": value}


def test_list_of_text_accepts_bare_words():
    assert parse_assignments(["methods=[sgd,svrg]"], model=ListParams) == {"methods": ["sgd", "svrg"]}
    assert parse_assignments(["methods=sgd,svrg"], model=ListParams) == {"methods": ["sgd", "svrg"]}
    assert parse_grid(["methods=[[sgd],[sgd,svrg]]"], model=ListParams) == {
        "methods": [["sgd"], ["sgd", "svrg"]]
    }


def test_one_rule_for_nan_and_inf_alone_and_in_lists():
    for text in ("[1,nan]", "[1,NaN]", "1,nan"):
        value = parse_assignments([f"caps={text}"], model=ListParams)["caps"]
        assert value[0] == 1 and np.isnan(value[1])
    assert parse_assignments(["caps=[1,inf]"], model=ListParams)["caps"] == [1, float("inf")]
    assert (
        np.isnan(parse_value("nan"))
        and np.isnan(parse_value("[nan]")[0])
        and parse_value("[inf]") == [float("inf")]
    )


@pytest.mark.parametrize(
    "seeds, expected",
    [(np.int64(3), [3]), (np.arange(3), [0, 1, 2]), ([np.int32(4), 5], [4, 5]), (range(2), [0, 1])],
)
def test_api_accepts_numpy_seeds(seeds, expected):
    assert parse_seeds(seeds) == expected


@pytest.mark.parametrize(
    "seeds, message",
    [
        ([], "selects no seeds"),
        (3.0, "seeds are START:STOP"),
        ([1.5], "seeds are START:STOP"),
        (True, "seeds are START:STOP"),
        (np.zeros((2, 2), int), "shape"),
        (2**70, "from 0 to"),
        ([-1], "from 0 to"),
    ],
)
def test_api_refuses_other_seeds_with_the_cli_message(registry, store_path, seeds, message):
    with pytest.raises(ParameterError, match=message):
        toolkit.sweep(SLOW, {"x": [1.0]}, seeds=seeds, store=store_path, registry=registry)
    assert not store_path.exists() or RunStore(store_path).count() == 0


def test_api_refuses_params_and_grid_that_are_not_mappings(registry, store_path):
    with pytest.raises(ParameterError, match="params must be a mapping"):
        toolkit.sweep(SLOW, {"x": [1.0]}, params=[1, 2], store=store_path, registry=registry)
    with pytest.raises(ParameterError, match="grid must be a mapping"):
        toolkit.sweep(SLOW, [("x", [1.0])], store=store_path, registry=registry)
    with pytest.raises(ParameterError, match="seed must be a non-negative integer"):
        toolkit.run(SLOW, {}, seed=2**64, store=store_path, registry=registry)
    assert toolkit.run(SLOW, {}, seed=np.int64(2), store=store_path, registry=registry).seed == 2


# memory cost: a simulation declares what a point needs; the core refuses what cannot fit


class WideParams(Params):
    d: int = Field(10, ge=1, description="width")


def wide(params: WideParams, seed: int) -> dict:
    return {"d": params.d}


def _wide_registry():
    from toolkit import PointCost

    sim = Simulation(
        "wide_plugin.sim", wide, WideParams, "needs 8 d bytes", cost=PointCost(lambda p: 8.0 * p.d, ("d",))
    )
    mod = types.ModuleType("wide_plugin")
    mod.toolkit_register_simulations = toolkit.hookimpl(lambda: [sim])
    return get_registry(plugins=[mod], load_entrypoints=False)


def test_a_point_that_cannot_fit_in_memory_is_refused_naming_the_parameter(store_path, monkeypatch, capsys):
    from toolkit import cli as cli_module

    reg = _wide_registry()
    monkeypatch.setenv("TOOLKIT_POINT_MEMORY", str(8 * 1000))
    assert toolkit.run("wide_plugin.sim", {"d": 1000}, store=store_path, registry=reg).summary == {"d": 1000}
    with pytest.raises(
        ParameterError,
        match=r"wide_plugin.sim: one point with d=1001 needs about .* GiB of memory, more than "
        r"this machine has .*; lower d",
    ):
        toolkit.run("wide_plugin.sim", {"d": 1001}, store=store_path, registry=reg)
    with pytest.raises(ParameterError, match="d=5000"):
        toolkit.sweep("wide_plugin.sim", {"d": [10, 5000]}, store=store_path, registry=reg)
    assert RunStore(store_path).count() == 1
    monkeypatch.setattr(cli_module._State, "registry", property(lambda self: reg))
    with pytest.raises(SystemExit) as info:
        main(
            [
                "--store",
                str(store_path),
                "run",
                "wide_plugin.sim",
                "-p",
                "d=10**9".replace("10**9", "1000000000"),
            ]
        )
    assert info.value.code == 2 and "lower d" in capsys.readouterr().err


# export, runs, column order


def test_export_of_an_incomplete_sweep_says_k_of_n_and_marks_the_missing(
    invoke, registry, store_path, tmp_path
):
    res = toolkit.sweep(SLOW, {"x": [1.0, 2.0, 3.0]}, seeds=[0, 1], store=store_path, registry=registry)
    con = sqlite3.connect(store_path)
    con.execute("DELETE FROM runs WHERE key IN (?, ?)", (res.runs[1].key, res.runs[4].key))
    con.commit()
    con.close()
    code, out, err = invoke("export", res.sweep_id, "--out", str(tmp_path / "t.csv"))
    assert code == 0 and "4 of 6 points stored" in err and "2 missing" in err
    table = pd.read_csv(tmp_path / "t.csv")
    missing = table[table["status"] == "missing"]
    assert sorted(zip(missing["x"], missing["seed"])) == [(1.0, 1), (3.0, 0)]
    assert list(table.columns[:5]) == ["simulation", "x", "delay_s", "log_path", "fail_at"]


def test_runs_summarises_a_big_grid(invoke, registry, store_path):
    toolkit.sweep(SLOW, {"x": [float(i) for i in range(300)]}, seeds=[0], store=store_path, registry=registry)
    code, out, err = invoke("runs")
    assert code == 0
    line = next(line for line in out.splitlines() if "sweep" in line)
    assert (
        "300 points (300/300 stored)" in line and "x=300 values in [0.0, 299.0]" in line and len(line) < 200
    )


def test_one_parameter_column_order_for_sweep_load_and_export(invoke, registry, store_path, tmp_path):
    res = toolkit.sweep(
        SLOW, {"fail_flag": ["f"], "x": [2.0]}, seeds=[0], store=store_path, registry=registry
    )
    declared = ["simulation", "x", "delay_s", "log_path", "fail_at", "fail_flag", "started_path", "seed"]
    assert list(res.table.columns[:8]) == declared
    assert list(toolkit.load(res.sweep_id, store=store_path, registry=registry).table.columns[:8]) == declared
    assert (
        list(toolkit.load(res.runs[0].key, store=store_path, registry=registry).table.columns[:8]) == declared
    )
    invoke("export", res.sweep_id, "--out", str(tmp_path / "t.csv"))
    assert list(pd.read_csv(tmp_path / "t.csv").columns[:8]) == declared
