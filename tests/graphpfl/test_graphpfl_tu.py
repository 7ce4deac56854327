"""TU datasets: the validated reader (one test per corruption), discovery, the catalogue of sources, list/show."""

from __future__ import annotations

import numpy as np
import pytest
from toolkit_graphpfl.data import load_tu
from toolkit_graphpfl.tu import KNOWN_TU, TUFormatError, present_tu_names, tu_source

# three graphs of three nodes (1-3, 4-6, 7-9), paths 1-2-3, 4-5-6, 7-8-9, each edge listed both ways
TOY = {
    "A": "1, 2\n2, 1\n2, 3\n3, 2\n4, 5\n5, 4\n5, 6\n6, 5\n7, 8\n8, 7\n8, 9\n9, 8\n",
    "graph_indicator": "1\n1\n1\n2\n2\n2\n3\n3\n3\n",
    "graph_labels": "1\n-1\n1\n",
    "node_labels": "0\n1\n0\n2\n0\n1\n0\n0\n1\n",
    "node_attributes": "".join(f"{i}.5, {10 * i}\n" for i in range(9)),
}


def write_toy(root, name="TOY", **changes):
    raw = root / "TUDataset" / name / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for part, text in {**TOY, **changes}.items():
        (raw / f"{name}_{part}.txt").write_text(text)
    return raw


def replace_line(text: str, line: int, new: str) -> str:
    lines = text.splitlines()
    lines[line - 1] = new
    return "\n".join(lines) + "\n"


def test_the_toy_set_loads_exactly(tmp_path):
    write_toy(tmp_path)
    gs = load_tu("TOY", root=tmp_path)
    assert len(gs) == 3 and gs.n_classes == 2 and gs.labels().tolist() == [1, 0, 1]
    assert all(g.edges.tolist() == [[0, 1], [1, 2]] for g in gs.graphs)
    assert gs.n_features == 3 + 2 and gs.continuous == (3, 4)  # one-hot labels, then the raw attributes
    assert np.allclose(gs.graphs[1].x[:, 3:], [[3.5, 30], [4.5, 40], [5.5, 50]])


CORRUPTIONS = {
    "non-integer in _A.txt": (
        dict(A=replace_line(TOY["A"], 3, "2, x")),
        "TOY_A.txt",
        3,
        "expected integers, got 'x'",
    ),
    "one-column line in _A.txt": (
        dict(A=replace_line(TOY["A"], 5, "4")),
        "TOY_A.txt",
        5,
        "expected 2 comma-separated integers per line, got 1",
    ),
    "node id beyond the indicator": (
        dict(A=replace_line(TOY["A"], 12, "9, 10")),
        "TOY_A.txt",
        12,
        "node ids run from 1 to 9",
    ),
    "graph labels one line short": (
        dict(graph_labels="1\n-1\n"),
        "TOY_graph_labels.txt",
        3,
        "one label per graph: 3 graphs",
    ),
    "node labels one line short": (
        dict(node_labels="0\n1\n0\n2\n0\n1\n0\n0\n"),
        "TOY_node_labels.txt",
        9,
        "one line per node: 9 nodes",
    ),
    "edge joining two graphs far apart": (
        dict(A=TOY["A"] + "1, 9\n"),
        "TOY_A.txt",
        13,
        "joins graph 1 and graph 3",
    ),
    "edge joining two adjacent graphs": (
        dict(A=TOY["A"] + "3, 4\n"),
        "TOY_A.txt",
        13,
        "joins graph 1 and graph 2",
    ),
    "indicator not grouped": (
        dict(graph_indicator="1\n1\n1\n2\n2\n2\n3\n3\n1\n"),
        "TOY_graph_indicator.txt",
        9,
        "grouped by graph",
    ),
    "non-number attribute": (
        dict(node_attributes=replace_line(TOY["node_attributes"], 4, "3.5, abc")),
        "TOY_node_attributes.txt",
        4,
        "expected numbers, got 'abc'",
    ),
}


@pytest.mark.parametrize("case", list(CORRUPTIONS))
def test_each_corruption_names_file_line_and_rule(tmp_path, case):
    changes, fname, line, rule = CORRUPTIONS[case]
    write_toy(tmp_path, **changes)
    with pytest.raises(TUFormatError) as err:
        load_tu("TOY", root=tmp_path)
    msg = str(err.value)
    assert fname in msg and f"line {line}:" in msg and rule in msg, msg
    assert err.value.line == line and err.value.path.name == fname


def test_a_corrupt_file_stops_the_simulation_before_training(tmp_path, monkeypatch):
    import toolkit_graphpfl.federation as federation
    from toolkit_graphpfl.simulation import NoiseRobustnessParams, noise_robustness

    write_toy(tmp_path, A=TOY["A"] + "3, 4\n")
    monkeypatch.setenv("TOOLKIT_DATA_DIR", str(tmp_path))
    monkeypatch.setattr(federation, "run_federation", lambda *a, **k: pytest.fail("training started"))
    with pytest.raises(TUFormatError, match=r"TOY_A.txt, line 13: .*joins graph 1 and graph 2"):
        noise_robustness(NoiseRobustnessParams(dataset="TOY", n_clients=1), 0)


def test_cli_exits_2_naming_the_file_and_line(tmp_path, monkeypatch, capsys):
    from toolkit.cli import main

    write_toy(tmp_path, A=replace_line(TOY["A"], 5, "4"))
    monkeypatch.setenv("TOOLKIT_DATA_DIR", str(tmp_path))
    with pytest.raises(SystemExit) as exc:
        main(
            [
                "--store",
                str(tmp_path / "s.sqlite"),
                "run",
                "graphpfl.noise_robustness",
                "-p",
                "dataset=toy",
                "-p",
                "n_clients=1",
                "-p",
                "n_rounds=1",
            ]
        )
    assert exc.value.code == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "TOY_A.txt, line 5" in err and "expected 2 comma-separated integers" in err


def test_names_are_case_insensitive_and_discovery_is_a_listing(tmp_path):
    write_toy(tmp_path, name="Toy_Set")
    (tmp_path / "TUDataset" / "empty").mkdir()  # no raw files: not a dataset
    assert present_tu_names(tmp_path) == ["Toy_Set"]
    assert len(load_tu("toy_set", root=tmp_path)) == len(load_tu("TOY_SET", root=tmp_path)) == 3


def test_missing_dataset_says_how_to_fetch_it(tmp_path):
    from toolkit.errors import DatasetMissingError

    with pytest.raises(DatasetMissingError) as err:
        load_tu("COX2", root=tmp_path)
    assert "toolkit data fetch graphpfl.cox2" in str(err.value) and err.value.dataset == "graphpfl.cox2"


def test_every_catalogued_dataset_declares_its_official_source():
    for name in KNOWN_TU:
        src = tu_source(name)
        assert src.url == f"https://www.chrsmrrs.com/graphkerneldatasets/{name}.zip"
        assert src.target == f"TUDataset/{name}/raw" and src.unpack == "zip" and src.strip_components == 1
        assert src.sha256 is None or (len(src.sha256) == 64 and int(src.sha256, 16) >= 0)
        assert "research" in src.license


def test_registration_imports_no_heavy_library():
    import subprocess
    import sys

    code = (
        "import sys, toolkit_graphpfl.datasets as d; "
        "print(len(d.DATASETS), [m for m in ('numpy', 'pandas', 'torch') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("[]"), out


def test_list_and_show_every_tu_dataset_under_the_data_root(graphpfl_registry, tmp_path, monkeypatch, capsys):
    """Every TU folder under the data root is registered, and `toolkit show` prints its statistics."""
    import importlib

    import toolkit_graphpfl as gp
    import toolkit_graphpfl.datasets as datasets

    import toolkit
    from toolkit.cli import _show_spec
    from toolkit.registry import Registry

    write_toy(tmp_path, name="MyGraphs")
    monkeypatch.setenv("TOOLKIT_DATA_DIR", str(tmp_path))
    fresh = importlib.reload(datasets)  # registration reads the data root
    try:
        reg = Registry.from_manager(toolkit.get_plugin_manager(load_entrypoints=False, plugins=[gp]))
        names = set(reg.datasets)
        assert {f"graphpfl.{n.lower()}" for n in KNOWN_TU} | {"graphpfl.mygraphs"} <= names
        kind, spec = reg.find("graphpfl.MyGraphs", "dataset")  # any case
        assert spec.source is None  # the user's own data set: nothing to fetch
        _show_spec(kind, spec)
        out = capsys.readouterr().out
        for text in (
            "graphs        3",
            "classes       2 (label -1: 1 (33.3%), label 1: 2 (66.7%))",
            "mean nodes    3.00",
            "mean edges    2.00",
            "node-label one-hot (3 columns)",
            "attributes columns [0, 1]",
        ):
            assert text in out, out
        assert len(fresh.DATASETS) == len(names & {d.name for d in fresh.DATASETS})
    finally:
        monkeypatch.undo()
        importlib.reload(datasets)


def test_features_are_the_users_choice(tmp_path):
    write_toy(tmp_path)
    labels = load_tu("TOY", root=tmp_path, features="labels")
    attrs = load_tu("TOY", root=tmp_path, features="attributes", attribute_columns=[1])
    assert labels.n_features == 3 and labels.continuous == ()
    assert attrs.n_features == 1 and attrs.continuous == (0,)
    assert np.allclose(attrs.graphs[0].x[:, 0], [0, 10, 20])
    with pytest.raises(ValueError, match=r"attribute_columns must be distinct column indices in 0..1"):
        load_tu("TOY", root=tmp_path, attribute_columns=[2])
    with pytest.raises(ValueError, match="features must be one of"):
        load_tu("TOY", root=tmp_path, features="coords")
    (tmp_path / "TUDataset" / "TOY" / "raw" / "TOY_node_attributes.txt").unlink()
    with pytest.raises(ValueError, match="has no TOY_node_attributes.txt"):
        load_tu("TOY", root=tmp_path, features="attributes")


def test_registered_tu_dataset_loads_the_data_root(graphpfl_registry):
    gs = graphpfl_registry.dataset("graphpfl.mutag").load(features="labels")
    assert len(gs) == 188 and gs.n_features == 7
