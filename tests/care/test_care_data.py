import functools
import hashlib
import http.server
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from toolkit_care import data
from toolkit_care.tables import TableError, read_user_table

import toolkit
from toolkit.data import fetch, is_present
from toolkit.errors import UserError

RELEASE = Path("/work/shared/data/care")


def test_declared_checksums_are_the_release_files_and_urls_are_pinned():
    for name in ("care.asset", "care.civilcomments"):
        src = data.SOURCES[name]
        assert src.url.endswith(data.COMMIT) and "raw.githubusercontent.com/SprocketLab/CARE" in src.url
        assert len(src.files) == {"care.asset": 12, "care.civilcomments": 25}[name]
    root = data.release_root()
    for rel, sha in data.SOURCES["care.asset"].files[:2]:
        path = root / rel
        if not path.is_file():
            pytest.skip("toolkit data fetch care.asset")
        assert hashlib.sha256(path.read_bytes()).hexdigest() == sha


def test_fetch_gets_every_file_of_the_release_from_a_local_server(tmp_path, monkeypatch):
    www = tmp_path / "www"
    payloads = {}
    for rel, _ in data.SOURCES["care.asset"].files:
        payloads[rel] = f"file {rel}\n".encode()
        (www / rel).parent.mkdir(parents=True, exist_ok=True)
        (www / rel).write_bytes(payloads[rel])
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(www))
    handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        files = tuple((rel, hashlib.sha256(p).hexdigest()) for rel, p in payloads.items())
        src = data.SOURCES["care.asset"].__class__(url, None, data.TARGET, files=files)
        ds = toolkit.Dataset("care.asset", "test", data.load_asset, source=src)
        monkeypatch.setenv("TOOLKIT_DATA_DIR", str(tmp_path / "root"))
        assert not is_present(ds)
        fetch(ds, echo=lambda _: None)
        assert is_present(ds)
        for rel, p in payloads.items():
            assert (tmp_path / "root" / "care" / rel).read_bytes() == p
    finally:
        server.shutdown()
        server.server_close()


def test_missing_release_names_the_fetch_command(tmp_path, monkeypatch):
    monkeypatch.setenv("TOOLKIT_DATA_DIR", str(tmp_path))
    with pytest.raises(toolkit.errors.DatasetMissingError, match="toolkit data fetch care.asset"):
        data.load_asset()


def test_released_tables_load_with_their_published_shapes():
    asset = toolkit.get_registry().dataset("care.asset").load()
    assert asset.X.shape == (4500, 11) and asset.task == "continuous"
    civil = toolkit.get_registry().dataset("care.civilcomments").load()
    assert civil.X.shape[1] == 24 and set(np.unique(civil.labels)) == {0, 1} and civil.threshold == 4.5


def test_published_baselines_on_asset():
    from toolkit_care import aggregators as ag
    from toolkit_care.care_svd import CareSVD

    t = toolkit.get_registry().dataset("care.asset").load()
    X, y = t.X, t.labels
    mae = lambda p: float(np.mean(np.abs(p - y)))  # noqa: E731
    assert mae(ag.Mean().fit_predict(X)) == pytest.approx(33.663, abs=0.05)
    assert mae(ag.MajorityVote().fit_predict(X)) == pytest.approx(31.153, abs=0.05)
    assert mae(ag.UWS().fit_predict(X)) == pytest.approx(33.928, abs=0.05)
    assert mae(CareSVD("faithful", gamma=1.0).fit_predict(X)) == pytest.approx(27.643, abs=0.05)


def _write(tmp_path, df, name="t.csv"):
    path = tmp_path / name
    df.to_parquet(path) if name.endswith(".parquet") else df.to_csv(path, index=False)
    return path


GOOD = pd.DataFrame({"j1": [1, 2, 3, 4], "j2": [2, 2, 3, 5], "j3": [1, 3, 3, 4], "y": [0, 0, 1, 1]})


@pytest.mark.parametrize("name", ["t.csv", "t.parquet"])
def test_a_user_table_loads_through_the_registered_dataset(tmp_path, name):
    path = _write(tmp_path, GOOD, name)
    t = toolkit.get_registry().dataset("care.table").load(path=str(path), label="y", task="binary")
    assert t.X.shape == (4, 3) and t.labels.tolist() == [0, 0, 1, 1]


@pytest.mark.parametrize(
    ("change", "kwargs", "match"),
    [
        (lambda d: d.assign(j2=np.nan), {}, "judge column 'j2' has no scores"),
        (lambda d: d.assign(j3=7), {}, "judge column 'j3' is constant"),
        (
            lambda d: d.assign(y=[0, 2, 1, 1]),
            {"label": "y", "task": "binary"},
            "label column 'y' must hold 0 or 1",
        ),
        (lambda d: d.assign(y=[0, 200, 1, 1]), {"label": "y", "label_range": (0, 100)}, "outside 0..100"),
        (
            lambda d: d.assign(j1=["1", "x", "3", "4"]),
            {},
            r"judge column 'j1' has a non-numeric value 'x' \(line 3\)",
        ),
        (lambda d: d, {"label": "z"}, "no label column 'z'"),
    ],
)
def test_bad_user_tables_are_refused_naming_the_column(tmp_path, change, kwargs, match):
    path = _write(tmp_path, change(GOOD.copy()))
    kwargs = {"label": "y", **kwargs} if "label" not in kwargs else kwargs
    with pytest.raises(TableError, match=match):
        read_user_table(path, **kwargs)


def test_the_registered_user_table_raises_a_user_error(tmp_path):
    path = _write(tmp_path, GOOD.assign(j3=7))
    with pytest.raises(UserError, match="'j3' is constant"):
        toolkit.get_registry().dataset("care.table").load(path=str(path), label="y")
