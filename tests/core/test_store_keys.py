"""No stale results: the store key follows the content of named files and the source of a plugin in development."""

from __future__ import annotations

import importlib
import sqlite3
import sys

import pytest

import toolkit
from toolkit.fingerprint import content_fields, path_fingerprint, source_fingerprint

PLUGIN = '''
"""A plugin developed in place: its simulation sums the numbers of a file."""
from pathlib import Path

import toolkit
from toolkit import Simulation
from toolkit.config import ContentPath, Field, Params

toolkit_plugin_name = "{name}"


class ReadParams(Params):
    path: ContentPath = Field("", description="a file of numbers, one a line")
    inline: list[float] | ContentPath | None = Field(None, description="numbers, or a file of them")


def read(p: ReadParams, seed: int) -> dict:
    total = sum(float(x) for x in Path(p.path).read_text().split())
    return {{"total": total, "tag": "{tag}"}}


@toolkit.hookimpl
def toolkit_register_simulations():
    return [Simulation("{name}.read", read, ReadParams, "sum of a file")]
'''


def _plugin(tmp_path, monkeypatch, name: str, tag: str = "v1"):
    pkg = tmp_path / "site" / f"toolkit_{name}"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(PLUGIN.format(name=name, tag=tag))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    module = importlib.import_module(f"toolkit_{name}")
    pm = toolkit.get_plugin_manager(plugins=[module], load_entrypoints=False)
    return toolkit.Registry.from_manager(pm), pkg


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    registry, pkg = _plugin(tmp_path, monkeypatch, "fpdemo")
    yield registry, pkg
    sys.modules.pop("toolkit_fpdemo", None)


def test_editing_a_named_file_recomputes(plugin, tmp_path):
    registry, _ = plugin
    data, store = tmp_path / "scores.txt", tmp_path / "runs.sqlite"
    data.write_text("1\n2\n3\n")
    first = toolkit.run("fpdemo.read", {"path": str(data)}, store=store, registry=registry)
    again = toolkit.run("fpdemo.read", {"path": str(data)}, store=store, registry=registry)
    assert (first.from_cache, again.from_cache) == (False, True)
    data.write_text("5\n10\n15\n")  # every number times 5: before, the old total came from the store
    edited = toolkit.run("fpdemo.read", {"path": str(data)}, store=store, registry=registry)
    assert not edited.from_cache and edited.records[0]["total"] == 30
    assert edited.params == {"path": str(data), "inline": None}  # the table shows the path, not a hash
    # a sweep keys its points the same way
    sw = toolkit.sweep("fpdemo.read", grid={"path": [str(data)]}, store=store, registry=registry)
    assert sw.n_cached == 1


def test_a_path_inside_a_union_is_content_keyed(plugin):
    registry, _ = plugin
    assert content_fields(registry.simulation("fpdemo.read").params) == ["path", "inline"]


def test_path_fingerprint_of_files_directories_and_sqlite(tmp_path):
    f = tmp_path / "a.txt"
    f.write_text("x")
    before = path_fingerprint(str(f))
    f.write_text("y")
    assert path_fingerprint(str(f)) != before
    d = tmp_path / "dir"
    (d / "sub").mkdir(parents=True)
    (d / "sub" / "b.txt").write_text("1")
    before = path_fingerprint(str(d))
    (d / "sub" / "b.txt").write_text("2")
    assert path_fingerprint(str(d)) != before
    db = tmp_path / "shop.db"
    with sqlite3.connect(db) as con:
        con.execute("create table t (x)")
        con.execute("insert into t values (1)")
    url = f"sqlite:///{db}"
    before = path_fingerprint(url)
    assert before == path_fingerprint(str(db))
    with sqlite3.connect(db) as con:
        con.execute("insert into t values (2)")
    assert path_fingerprint(url) != before
    # text that names nothing on disk is keyed by the text alone
    assert path_fingerprint('{"inline": "json"}') is None
    assert path_fingerprint("postgresql://host/db") is None
    assert path_fingerprint(str(tmp_path / "absent.csv")) is None


def test_editing_a_plugin_in_development_recomputes(plugin, tmp_path):
    registry, pkg = plugin
    data, store = tmp_path / "n.txt", tmp_path / "runs.sqlite"
    data.write_text("1")
    first = toolkit.run("fpdemo.read", {"path": str(data)}, store=store, registry=registry)
    assert first.provenance["plugin_version"].startswith("0+src.")
    assert toolkit.run("fpdemo.read", {"path": str(data)}, store=store, registry=registry).from_cache
    init = pkg / "__init__.py"
    init.write_text(init.read_text().replace('"tag": "v1"', '"tag": "v2"'))
    # before: the plugin's version alone keyed the store, so the old points came back
    assert not toolkit.run("fpdemo.read", {"path": str(data)}, store=store, registry=registry).from_cache


def test_an_ordinary_install_is_keyed_by_its_version_only():
    # pluggy's distribution is an ordinary (not editable) install
    assert source_fingerprint("pluggy", "pluggy") == ""


def test_first_party_file_parameters_are_content_keyed():
    reg = toolkit.get_registry()
    expected = {"pace.stream": ["scores"], "frog.database": ["url", "task"]}
    for name, fields in expected.items():
        if name.split(".")[0] not in reg.manager.plugin_infos:
            pytest.skip(f"plugin of {name} not installed")
        assert content_fields(reg.simulation(name).params) == fields, name


def test_pace_user_scores_file_edited_gives_new_widths(tmp_path):
    pytest.importorskip("toolkit_pace")
    scores = tmp_path / "scores.txt"
    scores.write_text("\n".join(str(0.01 * (i % 37)) for i in range(400)))
    store = tmp_path / "runs.sqlite"
    params = {"stream": "user", "scores": str(scores), "T": 400}
    a = toolkit.run("pace.stream", params, store=store)
    scores.write_text("\n".join(str(0.05 * (i % 37)) for i in range(400)))
    b = toolkit.run("pace.stream", params, store=store)
    assert not b.from_cache
    assert b.summary != a.summary


def test_store_keys_page_exists():
    from core_paths import REPO

    text = (REPO / "docs" / "guide" / "run-store-keys.md").read_text()
    assert text.startswith("# ")
    assert "ContentPath" in text and "editable" in text


class _NoParams(toolkit.config.Params):
    pass


def _solver_answer(params, seed: int) -> dict:
    return {"answer": 1.0}


def test_upgrading_a_keyed_package_recomputes(tmp_path, monkeypatch):
    import importlib.metadata

    sim = toolkit.Simulation(
        "keyed.solve",
        _solver_answer,
        _NoParams,
        "a solver's answer",
        keyed_packages=("pluggy", "no-such-dist"),
    )
    store = tmp_path / "runs.sqlite"
    first = toolkit.run(sim, {}, store=store)
    assert f"pluggy={importlib.metadata.version('pluggy')}" in first.provenance["plugin_version"]
    assert "no-such-dist=absent" in first.provenance["plugin_version"]
    assert toolkit.run(sim, {}, store=store).from_cache
    real = importlib.metadata.version
    monkeypatch.setattr(
        importlib.metadata, "version", lambda name: "99.0" if name == "pluggy" else real(name)
    )
    # before: the plugin's version alone keyed the store, and the older release's answer came back
    assert not toolkit.run(sim, {}, store=store).from_cache


def test_keyed_packages_must_be_names():
    with pytest.raises(TypeError, match="keyed_packages must be a tuple of distribution names"):
        toolkit.Simulation("keyed.bad", _solver_answer, _NoParams, "d", keyed_packages="scs")
