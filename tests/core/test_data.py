"""`toolkit data list/fetch` against a real HTTP server on 127.0.0.1, and skips for missing data."""

from __future__ import annotations

import functools
import hashlib
import http.server
import io
import json
import socket
import subprocess
import sys
import tarfile
import textwrap
import threading
from pathlib import Path

import pytest
from core_paths import FIRST_PARTY, FIXTURES

from toolkit.cli import main

VALUES = b"1\n2\n3\n"


@pytest.fixture
def data_root(tmp_path, monkeypatch):
    root = tmp_path / "data"
    monkeypatch.setenv("TOOLKIT_DATA_DIR", str(root))
    return root


@pytest.fixture
def data_site(monkeypatch, data_root):
    """The datafix fixture plugin installed, first-party plugins off, an empty data root."""
    monkeypatch.syspath_prepend(str(FIXTURES / "site_data"))
    monkeypatch.setenv("TOOLKIT_DISABLE_PLUGINS", ",".join(FIRST_PARTY))
    yield
    for mod in [m for m in sys.modules if m.startswith("toolkit_datafix")]:
        del sys.modules[mod]


def _tar_gz(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for name, payload in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(payload)
            tf.addfile(info, io.BytesIO(payload))
    return buf.getvalue()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # no request lines on stderr
        pass


@pytest.fixture
def serve(tmp_path, monkeypatch):
    """serve(name, payload) -> URL of ``payload`` on an HTTP server on 127.0.0.1 (stopped after the test)."""
    folder = tmp_path / "www"
    folder.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def _serve(name: str, payload: bytes, *, declare_sha: bool = True, sha: str | None = None) -> str:
        (folder / name).write_bytes(payload)
        url = f"http://127.0.0.1:{server.server_address[1]}/{name}"
        monkeypatch.setenv("DATAFIX_URL", url)
        monkeypatch.setenv(
            "DATAFIX_SHA256", (sha or hashlib.sha256(payload).hexdigest()) if declare_sha else "none"
        )
        return url

    yield _serve
    server.shutdown()
    server.server_close()


@pytest.fixture
def invoke(capsys, tmp_path):
    def _invoke(*args: str) -> tuple[int, str, str]:
        code = 0
        try:
            main(["--store", str(tmp_path / "runs.sqlite"), *args])
        except SystemExit as exc:
            code = exc.code or 0
        out, err = capsys.readouterr()
        return code, out, err

    return _invoke


def test_list_then_fetch_then_list(data_site, data_root, serve, invoke):
    url = serve(
        "walks-1.0.tar.gz", _tar_gz({"walks-1.0/values.txt": VALUES, "walks-1.0/README": b"three values\n"})
    )
    code, out, _ = invoke("data", "list")
    assert code == 0
    assert f"data root: {data_root} (from TOOLKIT_DATA_DIR)" in out
    line = next(line for line in out.splitlines() if line.strip().startswith("datafix.walks"))
    assert "missing" in line and str(data_root / "datafix" / "walks") in line
    assert "CC0-1.0" in line and url in line and "200 B (download)" in line
    assert "toolkit data fetch datafix.walks" in out

    code, out, _ = invoke("show", "datafix.walks")
    assert code == 0 and f"source: {url} (licence: CC0-1.0 (test fixture)" in out
    assert (
        f"location: {data_root / 'datafix' / 'walks'} (missing); get it with `toolkit data fetch datafix.walks`"
        in out
    )

    code, out, err = invoke("data", "fetch", "datafix.walks")
    assert code == 0, err
    assert "sha256 verified" in out and "fetched datafix.walks: 2 file(s)" in out
    target = data_root / "datafix" / "walks"
    assert (target / "values.txt").read_bytes() == VALUES and (
        target / "README"
    ).is_file()  # one component stripped
    provenance = json.loads((target / ".toolkit-fetch.json").read_text())
    assert provenance["verified"] is True and provenance["url"] == url
    assert [p.name for p in data_root.joinpath("datafix").iterdir()] == ["walks"]  # no temporary folder left

    from toolkit_datafix import load_walks

    assert load_walks() == [1, 2, 3]
    code, out, _ = invoke("data", "list")
    line = next(line for line in out.splitlines() if line.strip().startswith("datafix.walks"))
    assert "present" in line and "19 B" in line  # 6 + 13 bytes on disk, the provenance record not counted
    code, out, _ = invoke("data", "fetch", "datafix.walks")
    assert code == 0 and "already present" in out


def test_fetch_refuses_a_checksum_mismatch_and_writes_nothing(data_site, data_root, serve, invoke):
    serve("walks.tar.gz", _tar_gz({"w/values.txt": VALUES}), sha="ab" * 32)
    code, out, err = invoke("data", "fetch", "datafix.walks")
    assert code == 1
    assert err.count("\n") == 1 and "checksum mismatch" in err and "expected " + "ab" * 32 in err
    assert not (data_root / "datafix" / "walks").exists()
    assert list((data_root / "datafix").iterdir()) == []  # the partial download was removed


def test_fetch_without_an_official_checksum_records_the_one_computed(data_site, data_root, serve, invoke):
    payload = _tar_gz({"w/values.txt": VALUES})
    serve("walks.tar.gz", payload, declare_sha=False)
    code, out, _ = invoke("data", "fetch", "datafix.walks")
    digest = hashlib.sha256(payload).hexdigest()
    assert (
        code == 0
        and f"no official checksum is published for datafix.walks; sha256 of this download (unverified): {digest}"
        in out
    )
    provenance = json.loads((data_root / "datafix" / "walks" / ".toolkit-fetch.json").read_text())
    assert provenance["verified"] is False and provenance["sha256"] == digest


def test_offline_fetch_says_so_in_one_line(data_site, data_root, invoke, monkeypatch):
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("DATAFIX_URL", f"http://127.0.0.1:{port}/walks.tar.gz")
    code, out, err = invoke("data", "fetch", "datafix.walks", "--timeout", "5")
    assert code == 1
    assert err.count("\n") == 1 and "unreachable" in err and "offline?" in err and "Traceback" not in err
    assert not (data_root / "datafix" / "walks").exists()


def test_fetch_refuses_archive_members_outside_the_target(data_site, data_root, serve, invoke):
    serve("evil.tar.gz", _tar_gz({"w/../../escaped.txt": b"x"}))
    code, _, err = invoke("data", "fetch", "datafix.walks")
    assert code == 1 and "points outside the target" in err
    assert not (data_root.parent / "escaped.txt").exists() and not (data_root / "escaped.txt").exists()


def test_fetch_of_an_unknown_or_generated_dataset_exits_2(data_site, example_site, invoke):
    code, _, err = invoke("data", "fetch", "datafix.walkz")
    assert code == 2 and "Did you mean: datafix.walks" in err
    code, _, err = invoke("data", "fetch", "example.steps")
    assert code == 2 and "declares no download source" in err and "nothing to fetch" in err
    code, out, _ = invoke("data", "list")
    assert "no source" in next(line for line in out.splitlines() if line.strip().startswith("example.steps"))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_reproduce_skips_an_experiment_whose_data_is_missing(data_site, invoke, tmp_path, jobs):
    out_dir = tmp_path / "rep"
    code, out, err = invoke(
        "reproduce",
        "--quick",
        "--jobs",
        jobs,
        "--only",
        "datafix.mean",
        "--only",
        "datafix.wrapped",
        "--out",
        str(out_dir),
    )
    assert code == 0, err
    skipped = [line for line in out.splitlines() if "SKIPPED" in line]
    assert len(skipped) == 2 and all(
        "fetch it with `toolkit data fetch datafix.walks`" in line for line in skipped
    )
    assert "2 experiments: 0 ran, 2 skipped (data missing), 0 failed;" in out.strip().splitlines()[-1]
    report = (out_dir / "report.md").read_text()
    assert "Traceback" not in report and "Traceback" not in out + err
    assert "| datafix.mean |" in report and "skipped (data missing)" in report
    assert (
        report.count(
            "**Skipped:** dataset datafix.walks missing; fetch it with `toolkit data fetch datafix.walks`"
        )
        == 2
    )


def test_reproduce_runs_the_experiment_once_fetched(data_site, serve, invoke, tmp_path):
    serve("walks.tar.gz", _tar_gz({"w/values.txt": VALUES}))
    assert invoke("data", "fetch", "datafix.walks")[0] == 0
    code, out, _ = invoke("reproduce", "--quick", "--only", "datafix.mean", "--out", str(tmp_path / "rep"))
    assert code == 0 and out.strip().splitlines()[-1].endswith(
        "1 experiments: 1 ran, 0 skipped (data missing), 0 failed; claims: 1 met, 0 missed (0 documented, 0 unexpected)"
    )


# -- missing data in tests: skip with the reason, or fail under TOOLKIT_REQUIRE_DATA=1 -------------------


_TESTS = """
import pytest
from toolkit.errors import DatasetMissingError, ParameterError

def test_in_body():
    raise DatasetMissingError("x not found", dataset="p.x")

@pytest.fixture
def data():
    raise DatasetMissingError("y not found", dataset="p.y")

def test_in_fixture(data):
    pass

def test_wrapped():
    try:
        raise DatasetMissingError("z not found", dataset="p.z")
    except DatasetMissingError:
        raise ParameterError("bad dataset") from None

def test_other_errors_still_fail():
    raise FileNotFoundError("not a dataset")
"""

_AT_COLLECTION = """
from toolkit.errors import DatasetMissingError
raise DatasetMissingError("w not found", dataset="p.w")

def test_never_collected():
    pass
"""


def _pytest_in(folder: Path, require: str | None) -> subprocess.CompletedProcess:
    import os

    env = {k: v for k, v in os.environ.items() if k != "TOOLKIT_REQUIRE_DATA"}
    env["TOOLKIT_DISABLE_PLUGINS"] = ",".join(FIRST_PARTY)  # faster: the skip reason looks the dataset up
    if require is not None:
        env["TOOLKIT_REQUIRE_DATA"] = require
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(folder)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_missing_data_skips_with_the_fetch_command_or_fails_when_required(tmp_path):
    (tmp_path / "conftest.py").write_text("from toolkit.testing.missing_data import *  # noqa\n")
    (tmp_path / "test_data_needed.py").write_text(textwrap.dedent(_TESTS))
    (tmp_path / "test_data_at_collection.py").write_text(textwrap.dedent(_AT_COLLECTION))
    lenient = _pytest_in(tmp_path, None)
    assert "1 failed, 4 skipped" in lenient.stdout, lenient.stdout
    for name in ("p.x", "p.y", "p.z", "p.w"):
        assert f"dataset {name} missing; fetch it with `toolkit data fetch {name}`" in lenient.stdout
    assert "test_other_errors_still_fail" in lenient.stdout and "FileNotFoundError" in lenient.stdout
    strict = _pytest_in(tmp_path, "1")
    assert (
        strict.returncode != 0 and "skipped" not in strict.stdout and "DatasetMissingError" in strict.stdout
    )
    (tmp_path / "test_data_at_collection.py").unlink()
    strict = _pytest_in(tmp_path, "1")
    assert (
        "3 failed, 1 error" in strict.stdout and "skipped" not in strict.stdout
    )  # the fixture's is an error


def test_this_suite_uses_the_missing_data_hooks(request):
    conftest = Path(__file__).resolve().parents[1] / "conftest.py"
    plugins = [
        p for p in request.config.pluginmanager.get_plugins() if getattr(p, "__file__", None) == str(conftest)
    ]
    assert plugins and all(
        hasattr(plugins[0], h)
        for h in ("pytest_runtest_call", "pytest_runtest_setup", "pytest_make_collect_report")
    )


def test_ci_requires_the_data():
    ci = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text()
    assert "export TOOLKIT_REQUIRE_DATA=1" in ci


def test_fetch_of_a_multi_file_source_verifies_every_file_and_shares_the_target(serve, data_root):
    from toolkit.data import DataFetchError, dataset_status, fetch, is_present
    from toolkit.specs import Dataset, DataSource

    a, b = b"x,y\n1,2\n", b"judge\n3\n"
    url = serve("a.csv", a).rsplit("/", 1)[0]
    www = data_root.parent / "www"
    (www / "sub").mkdir()
    (www / "sub" / "b.csv").write_bytes(b)
    digest = lambda payload: hashlib.sha256(payload).hexdigest()  # noqa: E731
    one = Dataset(
        "fix.one",
        "two files",
        lambda: None,
        source=DataSource(url, None, "shared", files=(("a.csv", digest(a)), ("sub/b.csv", digest(b)))),
    )
    assert not is_present(one)
    fetch(one, echo=lambda _: None)
    assert (data_root / "shared" / "sub" / "b.csv").read_bytes() == b and is_present(one)
    assert dataset_status(one).size_bytes == len(a) + len(b)
    # a second dataset in the same folder: a bad checksum writes nothing and keeps the first one's files
    bad = Dataset(
        "fix.bad", "bad", lambda: None, source=DataSource(url, None, "shared", files=(("c.csv", "0" * 64),))
    )
    (www / "c.csv").write_bytes(b"z\n")
    with pytest.raises(DataFetchError, match="checksum mismatch for c.csv"):
        fetch(bad, echo=lambda _: None)
    assert not (data_root / "shared" / "c.csv").exists() and is_present(one)
    assert sorted(p.name for p in (data_root / "shared").iterdir()) == ["a.csv", "sub"]
