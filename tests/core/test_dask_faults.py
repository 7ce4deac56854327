"""Dask faults: a wrong ``--address`` (a web server, a service that never answers), and a real
``dask scheduler`` with two ``dask worker`` processes on 127.0.0.1 losing a worker, then the scheduler,
mid-sweep."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from core_paths import FIXTURES
from test_sweep_faults import (
    N_POINTS,
    _cli,
    _cmd,
    _env,
    _logged,
    _rerun_and_compare,
    _start,
    _stored_xs,
    _wait_for_points,
)

distributed = pytest.importorskip("distributed")


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def http_address(tmp_path):
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(_Quiet, directory=str(tmp_path))
    )
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"tcp://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def silent_address():
    """A TCP service that accepts connections and never says a word."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(listener.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield f"tcp://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()
    for conn in held:
        conn.close()


def _sweep_at(address: str, tmp_path: Path, timeout_s: str = "3") -> subprocess.CompletedProcess:
    env = _env(tmp_path / "runs.sqlite")
    env["TOOLKIT_DASK_TIMEOUT"] = timeout_s
    cmd = _cmd("dask", tmp_path / "log", None, "--address", address)
    # a hang is what failed here before: the subprocess's timeout turns it into a failure
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("service", ["http_address", "silent_address"])
def test_an_address_that_is_no_dask_scheduler_is_a_clear_error(service, tmp_path, request):
    address = request.getfixturevalue(service)
    out = _sweep_at(address, tmp_path)
    assert out.returncode == 2, out.stderr
    err = " ".join(out.stderr.split())
    assert "Traceback" not in out.stderr and address in err, err
    assert "no Dask scheduler answered" in err and "within 3 s (TOOLKIT_DASK_TIMEOUT)" in err
    assert not (tmp_path / "log").exists()  # nothing ran


def test_a_refused_address_is_a_clear_error(tmp_path, registry):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    code, _, err = _cli(
        tmp_path / "runs.sqlite",
        *_cmd("dask", tmp_path / "log", None)[3:],
        "--address",
        f"tcp://127.0.0.1:{port}",
    )
    assert code == 2 and f"cannot reach the Dask scheduler at --address 'tcp://127.0.0.1:{port}'" in err


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _dask_cli() -> list[str]:
    exe = Path(sys.executable).with_name("dask")
    return [str(exe)] if exe.exists() else [shutil.which("dask") or "dask"]


def _wait_workers(address: str, n: int, timeout: float = 60) -> None:
    deadline = time.time() + timeout
    with distributed.Client(address, timeout="30s") as client:
        while time.time() < deadline:
            if len(client.scheduler_info()["workers"]) >= n:
                return
            time.sleep(0.2)
    raise AssertionError(f"{n} workers did not join the scheduler at {address}")


def test_real_scheduler_and_workers_lose_a_worker_then_the_scheduler(tmp_path, registry):
    """A worker killed mid-sweep costs nothing (Dask reruns its tasks elsewhere); the scheduler killed
    stops the sweep with one message that names it; the rerun computes exactly the missing points and
    the table equals serial's."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(FIXTURES / "site_example"), env.get("PYTHONPATH", "")])
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "env": env}
    started: list[subprocess.Popen] = []
    try:
        scheduler = subprocess.Popen(
            [
                *_dask_cli(),
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--dashboard-address",
                ":0",
            ],
            **quiet,
        )
        started.append(scheduler)
        workers = [
            subprocess.Popen(
                [
                    *_dask_cli(),
                    "worker",
                    address,
                    "--nthreads",
                    "1",
                    "--no-nanny",
                    "--host",
                    "127.0.0.1",
                    "--no-dashboard",
                ],
                **quiet,
            )
            for _ in range(2)
        ]
        started += workers
        _wait_workers(address, 2)
        store, log = tmp_path / "runs.sqlite", tmp_path / "computed.log"
        os.environ["TOOLKIT_DASK_TIMEOUT"] = "5"  # how long the client tries to reconnect
        try:
            proc = _start(_cmd("dask", log, None, "--address", address), store)
        finally:
            del os.environ["TOOLKIT_DASK_TIMEOUT"]
        started.append(proc)
        _wait_for_points(store, 3, proc)
        workers[0].send_signal(signal.SIGKILL)
        _wait_for_points(store, 5, proc)  # the sweep goes on with the other worker
        scheduler.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=90)
    finally:
        for p in started:
            if p.poll() is None:
                p.kill()
                p.wait(timeout=30)
    assert proc.returncode == 1, err
    text = " ".join(err.split())
    assert "Traceback" not in err and len(err.strip().splitlines()) <= 4, err
    assert f"the connection to the Dask scheduler at {address} was lost" in text and "worker" not in text
    stored = _stored_xs(store)
    assert 5 <= len(stored) < N_POINTS
    assert f"{len(stored)} of {N_POINTS} points are stored" in text and "run the same sweep again" in text
    _rerun_and_compare(tmp_path, store, log, "serial", registry)


def test_second_ctrl_c_on_a_local_dask_cluster_exits_at_once_saying_what_was_kept(tmp_path):
    """The first Ctrl-C waits for the running points; the second stops them and the cluster now, and the
    message says what was kept and how to resume."""
    store, log, started = tmp_path / "runs.sqlite", tmp_path / "computed.log", tmp_path / "started.log"
    long = 10.0  # seconds per point: a point can only end early by being stopped
    cmd = [sys.executable, "-m", "toolkit.cli", "sweep", "example.slow_square", "--grid", "x=0,1"]
    cmd += ["--seeds", "0", "--no-progress", "--executor", "dask", "--workers", "2"]
    cmd += ["-p", f"delay_s={long}", "-p", f"log_path={log}", "-p", f"started_path={started}"]
    proc = _start(cmd, store)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
    reader.start()
    try:
        deadline = time.time() + 120
        while time.time() < deadline and len(_logged(started)) < 2:  # both points are running
            assert proc.poll() is None, "".join(lines)
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        deadline = time.time() + 30
        while time.time() < deadline and not any("Ctrl-C again" in line for line in lines):
            assert proc.poll() is None, "".join(lines)
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=long / 2)  # did not wait for the points
    finally:
        if proc.poll() is None:
            proc.kill()
    reader.join(timeout=5)
    err = "".join(lines)
    assert proc.returncode == 130, err
    assert "storing the 2 running points as they finish" in err, err
    assert "0 of 2 points are stored" in err and "run the same sweep again to resume" in err, err
    assert "Traceback" not in err and "aborted" not in err, err
    assert not _logged(log)
