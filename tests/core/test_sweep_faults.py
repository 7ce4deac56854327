"""The fault matrix of a sweep: Ctrl-C and kill -9 of the sweep, kill -9 of a worker (real CLI
processes, killed), a point that raises (the CLI in this process); serial and processes. After each,
a rerun computes exactly the points that were not stored, and the final table equals the one of an
uninterrupted sweep. (It replaces test_runner's serial-only kill test.)"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from core_paths import FIRST_PARTY, FIXTURES

import toolkit
from toolkit.store import RunStore

psutil = pytest.importorskip("psutil")

N_POINTS = 12
DELAY_S = 0.2


def _env(store: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(FIXTURES / "site_example"), env.get("PYTHONPATH", "")])
    env["TOOLKIT_DISABLE_PLUGINS"] = ",".join(FIRST_PARTY)
    env["TOOLKIT_STORE"] = str(store)
    return env


def _params(log: Path, flag: Path | None = None) -> dict:
    params = {"delay_s": DELAY_S, "log_path": str(log)}
    if flag is not None:
        params.update(fail_at=[3.0, 7.0], fail_flag=str(flag))
    return params


def _cmd(executor: str, log: Path, flag: Path | None = None, *extra: str) -> list[str]:
    xs = ",".join(str(i) for i in range(N_POINTS))
    cmd = [
        sys.executable,
        "-m",
        "toolkit.cli",
        "sweep",
        "example.slow_square",
        "--grid",
        f"x={xs}",
        "--seeds",
        "0",
        "--no-progress",
        "--executor",
        executor,
        *extra,
    ]
    for key, value in _params(log, flag).items():
        cmd += ["-p", f"{key}={value}"]
    if executor in ("processes", "dask"):
        cmd += ["--workers", "2"]
    return cmd


def _start(cmd: list[str], store: Path) -> subprocess.Popen:
    # a shell's background job inherits SIGINT ignored; restore the default so Python raises KeyboardInterrupt
    return subprocess.Popen(
        cmd,
        env=_env(store),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _wait_for_points(store: Path, at_least: int, proc: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if store.exists():
            try:
                if RunStore(store, timeout=1).count() >= at_least:
                    return
            except Exception:
                pass
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.03)
    raise AssertionError("the sweep made no progress")


def _logged(log: Path) -> list[float]:
    return [float(line.split(",")[0]) for line in log.read_text().splitlines()] if log.exists() else []


def _stored_xs(store: Path) -> set[float]:
    return {r.params["x"] for r in RunStore(store).iter_runs("example.slow_square")}


def _grid() -> dict:
    return {"x": [float(i) for i in range(N_POINTS)]}


def _rerun_and_compare(
    tmp_path: Path,
    store: Path,
    log: Path,
    executor: str,
    registry,
    flag: Path | None = None,
    address: str | None = None,
) -> None:
    """The rerun computes exactly the points not stored, and its table equals an uninterrupted sweep's."""
    stored = _stored_xs(store)
    assert len(stored) < N_POINTS
    before = len(_logged(log))
    again = toolkit.sweep(
        "example.slow_square",
        _grid(),
        seeds=[0],
        params=_params(log, flag),
        executor=executor,
        address=address,
        max_workers=2,
        store=store,
        registry=registry,
    )
    assert (again.n_computed, again.n_cached) == (N_POINTS - len(stored), len(stored))
    recomputed = _logged(log)[before:]
    assert sorted(recomputed) == sorted(set(map(float, range(N_POINTS))) - stored), (
        "a stored point was computed again"
    )
    final = toolkit.load(again.sweep_id, store=store, registry=registry).table
    reference = toolkit.sweep(
        "example.slow_square",
        _grid(),
        seeds=[0],
        params=_params(tmp_path / "ref.log", flag),
        store=tmp_path / "reference.sqlite",
        registry=registry,
    )
    pd.testing.assert_frame_equal(
        final.drop(columns=["log_path"]), reference.table.drop(columns=["log_path"])
    )


def _cli(store: Path, *args: str) -> tuple[int, str, str]:
    """The CLI in this process (a subprocess is needed only where the test kills it)."""
    from toolkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(["--store", str(store), *args])
        except SystemExit as exc:
            code = exc.code or 0
    return code, out.getvalue(), err.getvalue()


def _workers(proc: subprocess.Popen, n: int, timeout: float = 30) -> list:
    deadline = time.time() + timeout
    while time.time() < deadline:
        kids = [k for k in psutil.Process(proc.pid).children(recursive=True) if "python" in k.name().lower()]
        if len(kids) >= n:
            return kids
        time.sleep(0.05)
    raise AssertionError("the pool's workers did not start")


@pytest.fixture(scope="module")
def dask_address():
    """A Dask cluster in this process (threads, reached over TCP): fast to start, and a sweep run as a
    CLI process talks to it as to any remote cluster."""
    distributed = pytest.importorskip("distributed")
    sys.path.insert(0, str(FIXTURES / "site_example"))  # its worker threads import the example plugin
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, protocol="tcp://", dashboard_address=None
    )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def _address(executor: str, request) -> list[str]:
    return ["--address", request.getfixturevalue("dask_address")] if executor == "dask" else []


@pytest.mark.parametrize("executor", ["serial", "processes", "dask"])
def test_ctrl_c_stores_every_finished_point_and_the_rerun_completes(tmp_path, executor, registry, request):
    store, log = tmp_path / "runs.sqlite", tmp_path / "computed.log"
    address = _address(executor, request)
    proc = _start(_cmd(executor, log, None, *address), store)
    _wait_for_points(store, 3, proc)
    finished = set(_logged(log))
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "run the same sweep again to resume" in err and "Traceback" not in err
    stored = _stored_xs(store)
    # every point whose result was computed (logged) before the interrupt is stored, and the points
    # that were running then finish and are stored too
    assert finished <= stored and stored <= set(_logged(log)), (sorted(finished), sorted(stored))
    if executor != "dask":  # a Dask task can end between the scheduler's answer and the cancel
        assert set(_logged(log)) == stored, (sorted(_logged(log)), sorted(stored))
    assert f"{len(stored)} of {N_POINTS} points are stored" in err
    if len(stored) == N_POINTS:  # every point had finished by the time the interrupt was handled
        pytest.skip("the sweep ended before the interrupt took effect (a loaded machine): nothing to resume")
    _rerun_and_compare(tmp_path, store, log, executor, registry, address=address[1] if address else None)


def test_ctrl_c_to_the_process_group_on_a_local_dask_cluster_keeps_finished_points(tmp_path, registry):
    """SIGINT reaches the sweep and the LocalCluster's workers at once (a terminal's Ctrl-C)."""
    pytest.importorskip("distributed")
    store, log = tmp_path / "runs.sqlite", tmp_path / "computed.log"
    env = _env(store)
    proc = subprocess.Popen(
        _cmd("dask", log),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        _wait_for_points(store, 3, proc, timeout=120)
        finished = set(_logged(log))
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=90)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err
    stored = _stored_xs(store)
    assert finished <= stored and stored <= set(_logged(log)), (sorted(finished), sorted(stored))
    assert f"{len(stored)} of {N_POINTS} points are stored" in err and "run the same sweep again" in err
    assert "Traceback" not in err, err


# dask's local cluster takes ~30 s to start and stop under load: its case runs with -m slow
@pytest.mark.parametrize("executor", ["serial", "processes", pytest.param("dask", marks=pytest.mark.slow)])
def test_kill_9_of_the_sweep_keeps_finished_points_and_leaves_no_worker(tmp_path, executor, registry):
    if executor == "dask":
        pytest.importorskip("distributed")
    store, log = tmp_path / "runs.sqlite", tmp_path / "computed.log"
    proc = _start(_cmd(executor, log), store)
    _wait_for_points(store, 3, proc)
    # a local Dask cluster's nannies live in the sweep's process, its workers are child processes
    workers = _workers(proc, 0 if executor == "serial" else 2)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    deadline = time.time() + 15
    while time.time() < deadline and any(
        w.is_running() and w.status() != psutil.STATUS_ZOMBIE for w in workers
    ):
        time.sleep(0.1)
    alive = [w.pid for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
    for pid in alive:  # do not leave them behind even when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not alive, f"workers {alive} survived their parent's kill -9"
    _rerun_and_compare(tmp_path, store, log, executor, registry)


def test_kill_9_of_a_worker_stores_what_finished_and_says_so(tmp_path, registry):
    store, log = tmp_path / "runs.sqlite", tmp_path / "computed.log"
    proc = _start(_cmd("processes", log), store)
    _wait_for_points(store, 3, proc)
    victim = _workers(proc, 2)[0]
    victim.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 1, (out, err)
    assert "Traceback" not in err and "BrokenProcessPool" in err
    stored = _stored_xs(store)
    assert f"{len(stored)} of {N_POINTS} points are stored" in " ".join(err.split())
    assert "run the same sweep again to resume" in " ".join(err.split())
    _rerun_and_compare(tmp_path, store, log, "processes", registry)


@pytest.mark.parametrize("executor", ["serial", "processes", "dask"])
def test_raising_points_are_recorded_others_go_on_and_the_rerun_retries_them(
    tmp_path, executor, registry, request
):
    store, log, flag = tmp_path / "runs.sqlite", tmp_path / "computed.log", tmp_path / "fail.flag"
    flag.write_text("x in fail_at raises while this file exists")
    address = _address(executor, request)
    code, out, raw_err = _cli(store, *_cmd(executor, log, flag, *address)[3:])
    assert code == 1, raw_err
    err = " ".join(raw_err.split())
    assert f"2 of {N_POINTS} points failed: ValueError: x = 3.0 is in fail_at (x=3.0, seed 0)" in err
    assert "Traceback" in raw_err and "in slow_square" in raw_err  # the first failure's own traceback
    assert _stored_xs(store) == set(map(float, range(N_POINTS))) - {3.0, 7.0}  # every other point ran
    sid = out.split("sweep ")[1].split(":")[0]
    failures = RunStore(store).get_failures(RunStore(store).get_sweep(sid)["keys"])
    assert sorted(f.params["x"] for f in failures.values()) == [3.0, 7.0]
    assert all("ValueError" in f.traceback for f in failures.values())
    code, out, err = _cli(store, "export", sid, "--out", str(tmp_path / "t.csv"))
    assert code == 0, err
    table = pd.read_csv(tmp_path / "t.csv")
    assert dict(table["status"].value_counts()) == {"ok": N_POINTS - 2, "failed": 2}
    assert table.loc[table["status"] == "failed", "error"].str.contains("is in fail_at").all()
    flag.unlink()
    _rerun_and_compare(tmp_path, store, log, executor, registry, flag, address[1] if address else None)
    assert not RunStore(store).get_failures(RunStore(store).get_sweep(sid)["keys"])


@pytest.mark.parametrize("executor", ["serial", "processes", "dask"])
def test_fail_fast_stops_at_the_first_failure_keeping_what_finished(tmp_path, executor, registry, request):
    store, log, flag = tmp_path / "runs.sqlite", tmp_path / "computed.log", tmp_path / "fail.flag"
    flag.write_text("x")
    address = _address(executor, request)
    code, out, err = _cli(store, *_cmd(executor, log, flag, "-x", *address)[3:])
    assert code == 1, err
    assert "--fail-fast" in err
    stored = _stored_xs(store)
    assert 7.0 not in stored and stored <= set(_logged(log))
    if executor != "dask":  # a Dask task can start between the scheduler's answer and the cancel
        assert set(_logged(log)) == stored  # stopped at x=3: whatever finished is stored
    flag.unlink()
    _rerun_and_compare(tmp_path, store, log, executor, registry, flag, address[1] if address else None)


def test_second_ctrl_c_stops_the_running_points_at_once(tmp_path, registry):
    """Ctrl-C waits for the running points; a second Ctrl-C kills them: nothing half-done is stored, no
    worker survives, and the rerun computes every point."""
    import threading

    store, log, started = tmp_path / "runs.sqlite", tmp_path / "computed.log", tmp_path / "started.log"
    long = 10.0  # seconds per point (the most the example allows): a point can only end early by being killed
    cmd = [
        sys.executable,
        "-m",
        "toolkit.cli",
        "sweep",
        "example.slow_square",
        "--grid",
        "x=0,1",
        "--seeds",
        "0",
        "--no-progress",
        "--executor",
        "processes",
        "--workers",
        "2",
        "-p",
        f"delay_s={long}",
        "-p",
        f"log_path={log}",
        "-p",
        f"started_path={started}",
    ]
    proc = _start(cmd, store)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
    reader.start()
    workers = _workers(proc, 2)
    deadline = time.time() + 90
    while time.time() < deadline and len(_logged(started)) < 2:  # both points are running
        assert proc.poll() is None, "".join(lines)
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    deadline = time.time() + 30
    while time.time() < deadline and not any("Ctrl-C again" in line for line in lines):
        assert proc.poll() is None, "".join(lines)
        time.sleep(0.05)
    assert any("storing the 2 running points as they finish" in line for line in lines), "".join(lines)
    proc.send_signal(signal.SIGINT)
    proc.wait(timeout=long / 2)  # did not wait for the points
    reader.join(timeout=5)
    err = "".join(lines)
    assert proc.returncode == 130, err
    assert "0 of 2 points are stored" in err and "run the same sweep again to resume" in err, err
    assert "Traceback" not in err, err
    deadline = time.time() + 15
    while time.time() < deadline and any(
        w.is_running() and w.status() != psutil.STATUS_ZOMBIE for w in workers
    ):
        time.sleep(0.1)
    alive = [w.pid for w in workers if w.is_running() and w.status() != psutil.STATUS_ZOMBIE]
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    assert not alive, f"workers {alive} survived the second Ctrl-C"
    assert not _logged(log) and (not store.exists() or RunStore(store).count() == 0)
    again = toolkit.sweep(
        "example.slow_square",
        {"x": [0.0, 1.0]},
        seeds=[0],
        params={"delay_s": 0.0},
        store=store,
        registry=registry,
    )
    assert again.n_computed == 2 and list(again.table["square"]) == [0.0, 1.0]


def test_a_single_run_that_raises_is_recorded_and_retried(tmp_path, registry):
    """``toolkit.run`` records a raising point as a sweep does; the next run retries it and clears it."""
    store, flag = tmp_path / "runs.sqlite", tmp_path / "fail.flag"
    flag.touch()
    params = {"x": 3.0, "fail_at": [3.0], "fail_flag": str(flag)}
    with pytest.raises(ValueError, match="x = 3.0 is in fail_at") as info:
        toolkit.run("example.slow_square", params, seed=1, store=store, registry=registry)
    assert any("recorded as failed point" in note for note in getattr(info.value, "__notes__", [""]))
    st = RunStore(store)
    assert st.count() == 0 and st.count_failures() == 1
    (failure,) = st._execute("SELECT key, error, traceback FROM failures").fetchall()
    assert failure[1] == "ValueError: x = 3.0 is in fail_at" and "Traceback" in failure[2]
    code, out, _ = _cli(store, "runs")
    assert code == 0 and "1 failed points recorded" in out
    flag.unlink()
    again = toolkit.run("example.slow_square", params, seed=1, store=store, registry=registry)
    assert failure[0].startswith(again.run_id) and not again.from_cache and again.summary["square"] == 9.0
    assert RunStore(store).count_failures() == 0
