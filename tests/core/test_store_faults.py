"""Faults of the run store's file system: a store path that is a directory, a full disk, a new store on a
read-only file system. Each says what is wrong in one message (exit 2), and a full disk keeps the store."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from core_paths import FIRST_PARTY, FIXTURES
from test_sweep_faults import _cli

from toolkit.errors import StoreError
from toolkit.store import RunStore


def test_a_store_path_that_is_a_directory_says_so(tmp_path):
    with pytest.raises(StoreError, match="is a directory, not a file") as info:
        RunStore(tmp_path).count()
    assert "corrupt" not in str(info.value) and str(tmp_path / "runs.sqlite") in str(info.value)
    code, _, err = _cli(tmp_path, "runs")
    assert code == 2 and "is a directory" in err and "Traceback" not in err


def _fill(st: RunStore, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        st.put(f"{i:064d}", "a.sim", {"i": i}, 0, "1", [{"v": "x" * 3000}], {"v": 1}, {})


def test_a_full_disk_says_so_and_keeps_the_store(tmp_path):
    path = tmp_path / "runs.sqlite"
    st = RunStore(path)
    _fill(st, 5)
    pages = st.conn.execute("PRAGMA page_count").fetchone()[0]
    st.conn.execute(f"PRAGMA max_page_count={pages}")  # SQLite then fails as on a full disk (SQLITE_FULL)
    with pytest.raises(StoreError) as info:
        _fill(st, 50, start=5)
    text = str(info.value)
    assert "disk that holds the run store" in text and "is full" in text and "intact" in text
    assert "corrupt" not in text and "move it aside" not in text
    st.close()
    again = RunStore(path)
    assert again.count() >= 5 and again.get(f"{0:064d}").records == [{"v": "x" * 3000}]


def _unshare_ok() -> bool:
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k none /mnt"], capture_output=True
    )
    return probe.returncode == 0


needs_mounts = pytest.mark.skipif(not _unshare_ok(), reason="needs user namespaces (unshare -rm) to mount")


def _in_namespace(script: str, tmp_path) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(FIXTURES / "site_example"), env.get("PYTHONPATH", "")])
    env["TOOLKIT_DISABLE_PLUGINS"] = ",".join(FIRST_PARTY)
    env["PY"] = sys.executable
    env["MNT"] = str(tmp_path / "mnt")
    (tmp_path / "mnt").mkdir()
    return subprocess.run(
        ["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, env=env, timeout=300
    )


@needs_mounts
def test_a_new_store_on_a_read_only_file_system(tmp_path):
    out = _in_namespace(
        'mount -t tmpfs -o size=1m none "$MNT" && mkdir "$MNT/sub" && mount -o remount,ro "$MNT" && '
        '"$PY" -m toolkit.cli --store "$MNT/sub/runs.sqlite" run example.random_walk',
        tmp_path,
    )
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and "read-only" in out.stderr
    assert "cannot create the run store" in " ".join(out.stderr.split())


@needs_mounts
def test_a_sweep_that_fills_the_disk_keeps_the_store(tmp_path):
    out = _in_namespace(
        'mount -t tmpfs -o size=400k none "$MNT" && '
        '"$PY" -m toolkit.cli --store "$MNT/runs.sqlite" sweep example.random_walk --grid n_steps=2000 '
        "--seeds 0:200 --no-progress; echo exit=$?; "
        '"$PY" -m toolkit.cli --store "$MNT/runs.sqlite" runs',
        tmp_path,
    )
    err = " ".join(out.stderr.split())
    assert "exit=2" in out.stdout and "Traceback" not in out.stderr, out.stderr
    assert "is full" in err and "intact" in err and "move it aside" not in err and "corrupt" not in err
    stored = int(out.stdout.split(" runs stored in ")[0].split()[-1])
    assert stored > 0  # the store still opens and serves what was stored before the disk filled
