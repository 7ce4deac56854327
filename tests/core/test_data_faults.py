"""Faults of `toolkit data fetch` against servers on 127.0.0.1: a download cut short, an archive bomb,
the folder of a killed fetch, and a fetch from a mirror or a local copy."""

from __future__ import annotations

import hashlib
import io
import socket
import subprocess
import sys
import tarfile
import threading

import pytest
import test_data
from test_data import VALUES, _tar_gz

# the fixtures of test_data, shared
data_root, data_site, invoke, serve = (
    test_data.data_root,
    test_data.data_site,
    test_data.invoke,
    test_data.serve,
)


def _truncating_server(announced: int, sent: int) -> tuple[str, socket.socket]:
    """An HTTP server that announces ``announced`` bytes, sends ``sent`` and closes the connection."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)

    def answer() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                head = f"HTTP/1.1 200 OK\r\nContent-Length: {announced}\r\nConnection: close\r\n\r\n"
                conn.sendall(head.encode() + b"\0" * sent)

    threading.Thread(target=answer, daemon=True).start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}/walks.tar.gz", listener


def test_a_download_cut_short_without_a_checksum_is_refused(data_site, data_root, invoke, monkeypatch):
    url, listener = _truncating_server(1_000_000, 300_000)
    try:
        monkeypatch.setenv("DATAFIX_URL", url)
        monkeypatch.setenv("DATAFIX_SHA256", "none")
        code, out, err = invoke("data", "fetch", "datafix.walks", "--timeout", "10")
    finally:
        listener.close()
    assert code == 1, (out, err)
    assert "cut short (300000 of the 1000000 bytes announced)" in err and "Traceback" not in err
    assert not (data_root / "datafix" / "walks").exists()
    assert list((data_root / "datafix").iterdir()) == []  # the partial file is not kept anywhere


def _bomb(n_bytes: int) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        info = tarfile.TarInfo("w/values.txt")
        info.size = n_bytes
        tf.addfile(info, io.BytesIO(b"0" * n_bytes))
    return buf.getvalue()


def test_unpacking_stops_at_the_cap_and_the_cap_can_be_raised(
    data_site, data_root, serve, invoke, monkeypatch
):
    payload = _bomb(3 << 20)
    assert len(payload) < 50_000  # a small download that unpacks to 3 MiB
    serve("walks.tar.gz", payload)
    monkeypatch.setenv("TOOLKIT_DATA_MAX_UNPACKED", "1M")
    code, _, err = invoke("data", "fetch", "datafix.walks")
    assert code == 1 and "unpacks to more than 1.0 MB (the cap)" in err and "--max-unpacked" in err
    assert list((data_root / "datafix").iterdir()) == []
    code, out, err = invoke("data", "fetch", "datafix.walks", "--max-unpacked", "4M")
    assert code == 0, err
    assert (data_root / "datafix" / "walks" / "values.txt").stat().st_size == 3 << 20


@pytest.mark.parametrize("size", ["lots", "0", "-5G"])
def test_a_bad_cap_is_a_parameter_error(data_site, invoke, size):
    code, _, err = invoke("data", "fetch", "datafix.walks", "--max-unpacked", size)
    assert code == 2 and "--max-unpacked must be a positive size" in err and repr(size) in err


def test_the_default_cap_is_two_gib():
    from toolkit.data import DEFAULT_MAX_UNPACKED, max_unpacked

    assert DEFAULT_MAX_UNPACKED == 2 * 1024**3 and max_unpacked("8G") == 8 * 1024**3


def test_a_killed_fetch_leaves_a_folder_that_the_next_fetch_removes(data_site, data_root, serve, invoke):
    parent = data_root / "datafix"
    parent.mkdir(parents=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True)
    stale = parent / ".fetch-walks-killed"
    (stale / "download").mkdir(parents=True)
    (stale / "owner.pid").write_text(dead.stdout.decode().strip())
    (stale / "download" / "walks.tar.gz").write_bytes(b"half")
    live = parent / ".fetch-walks-running"  # another fetch still at work: left alone
    live.mkdir()
    (live / "owner.pid").write_text(str(__import__("os").getppid()))
    serve("walks.tar.gz", _tar_gz({"w/values.txt": VALUES}))
    code, out, err = invoke("data", "fetch", "datafix.walks")
    assert code == 0, err
    assert f"removed {stale}, left by a fetch that was stopped" in out
    assert sorted(p.name for p in parent.iterdir()) == [".fetch-walks-running", "walks"]


def test_fetch_from_a_local_copy_or_a_mirror(data_site, data_root, serve, invoke, monkeypatch, tmp_path):
    payload = _tar_gz({"w/values.txt": VALUES})
    serve("walks.tar.gz", payload)
    monkeypatch.setenv("DATAFIX_URL", "http://127.0.0.1:9/walks.tar.gz")  # the official address is down
    copy = tmp_path / "copy.tar.gz"
    copy.write_bytes(payload)
    code, out, err = invoke("data", "fetch", "datafix.walks", "--from", str(copy))
    assert code == 0, err
    assert "sha256 verified" in out  # the declared checksum still holds
    assert (data_root / "datafix" / "walks" / "values.txt").read_bytes() == VALUES

    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "walks.tar.gz").write_bytes(payload)
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", str(mirror))
    code, out, err = invoke("data", "fetch", "datafix.walks", "--force")
    assert code == 0 and f"from {mirror / 'walks.tar.gz'}" in out, err

    tampered = tmp_path / "bad.tar.gz"
    tampered.write_bytes(_tar_gz({"w/values.txt": b"9\n"}))
    code, _, err = invoke("data", "fetch", "datafix.walks", "--force", "--from", str(tampered))
    assert code == 1 and "checksum mismatch" in err
    assert (data_root / "datafix" / "walks" / "values.txt").read_bytes() == VALUES  # the good copy stays


def test_fetch_from_a_mirror_url(data_site, data_root, serve, invoke, monkeypatch):
    payload = _tar_gz({"w/values.txt": VALUES})
    url = serve("walks.tar.gz", payload)
    sha = hashlib.sha256(payload).hexdigest()
    monkeypatch.setenv("DATAFIX_URL", "http://127.0.0.1:9/walks.tar.gz")
    monkeypatch.setenv("DATAFIX_SHA256", sha)
    monkeypatch.setenv("TOOLKIT_DATA_MIRROR", url.rsplit("/", 1)[0])
    code, out, err = invoke("data", "fetch", "datafix.walks")
    assert code == 0 and f"from {url}" in out, err


def test_from_needs_exactly_one_dataset(data_site, invoke, tmp_path):
    code, _, err = invoke("data", "fetch", "datafix.walks", "datafix.walks", "--from", str(tmp_path))
    assert code == 2 and "exactly one NAME" in err
