"""TU files beyond the basic layout: several node-label columns, edge labels and attributes (ignored with
one warning), PyG edge_attr, and a user's dataset with a file missing."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from test_graphpfl_tu import TOY, write_toy
from toolkit_graphpfl.data import load_tu
from toolkit_graphpfl.tu import EdgeFeaturesIgnoredWarning

from toolkit.errors import DatasetMissingError

TWO_COLUMN_LABELS = "".join(f"{i % 4}, {i % 3}\n" for i in range(9))


def test_several_node_label_columns_are_one_hot_each(tmp_path):
    write_toy(tmp_path, node_labels=TWO_COLUMN_LABELS)
    gs = load_tu("TOY", root=tmp_path, features="labels")
    assert gs.n_features == 4 + 3
    x = np.concatenate([g.x for g in gs.graphs])
    assert np.array_equal(x[:, :4].argmax(1), np.arange(9) % 4)
    assert np.array_equal(x[:, 4:].argmax(1), np.arange(9) % 3)
    assert gs.meta["feature_layout"] == [
        "node-label component 0 one-hot (4 columns)",
        "node-label component 1 one-hot (3 columns)",
    ]


def test_edge_files_are_checked_and_said_to_be_ignored_once(tmp_path):
    n_edges = len(TOY["A"].splitlines())
    write_toy(
        tmp_path,
        name="EDGY",
        edge_labels="0\n" * n_edges,
        edge_attributes="0.5, 1.0\n" * n_edges,
    )
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        load_tu("EDGY", root=tmp_path, features="labels")
        load_tu("EDGY", root=tmp_path, features="attributes")
    ignored = [w for w in seen if issubclass(w.category, EdgeFeaturesIgnoredWarning)]
    assert len(ignored) == 1
    assert "EDGY_edge_labels.txt and EDGY_edge_attributes.txt" in str(ignored[0].message)
    write_toy(tmp_path, name="SHORT", edge_labels="0\n" * (n_edges - 1))
    with pytest.raises(ValueError, match=rf"SHORT_edge_labels.txt, line {n_edges}: one line per edge"):
        load_tu("SHORT", root=tmp_path)


def test_cuneiform_loads_from_its_raw_files_with_their_counts():
    from toolkit_graphpfl.tu import data_root

    raw = data_root() / "TUDataset" / "Cuneiform" / "raw"
    if not (raw / "Cuneiform_A.txt").is_file():
        pytest.skip(
            f"Cuneiform is not under the data root: put the Cuneiform_*.txt files of "
            f"https://www.chrsmrrs.com/graphkerneldatasets/Cuneiform.zip in {raw} (or set TOOLKIT_DATA_DIR)"
        )
    n_graphs = len((raw / "Cuneiform_graph_labels.txt").read_text().split())
    n_nodes = sum(
        1 for line in (raw / "Cuneiform_graph_indicator.txt").read_text().splitlines() if line.strip()
    )
    pairs = np.loadtxt(raw / "Cuneiform_A.txt", delimiter=",", dtype=np.int64)
    undirected = {(min(a, b), max(a, b)) for a, b in pairs.tolist() if a != b}
    from toolkit_graphpfl import data

    data._read_cached.cache_clear()  # the warning comes with the (cached) parse
    data._table_cached.cache_clear()
    with pytest.warns(EdgeFeaturesIgnoredWarning, match="Cuneiform_edge_labels.txt"):
        gs = load_tu("Cuneiform")
    assert len(gs) == n_graphs == 267
    assert sum(g.n_nodes for g in gs.graphs) == n_nodes
    assert sum(g.n_edges for g in gs.graphs) == len(undirected)
    labels = np.loadtxt(raw / "Cuneiform_node_labels.txt", delimiter=",", dtype=np.int64)
    attrs = np.loadtxt(raw / "Cuneiform_node_attributes.txt", delimiter=",")
    widths = [len(np.unique(labels[:, j])) for j in range(labels.shape[1])]
    assert gs.n_features == sum(widths) + attrs.shape[1]


def test_a_users_dataset_with_a_file_missing_names_it_and_offers_no_fetch(tmp_path):
    raw = write_toy(tmp_path, name="MyGraphs")
    (raw / "MyGraphs_graph_labels.txt").unlink()
    with pytest.raises(DatasetMissingError) as err:
        load_tu("MyGraphs", root=tmp_path)
    msg = str(err.value)
    assert "missing MyGraphs_graph_labels.txt" in msg
    assert "toolkit data fetch" not in msg and "chrsmrrs" not in msg


def test_from_pyg_says_edge_attr_is_ignored():
    torch = pytest.importorskip("torch")
    pyg = pytest.importorskip("torch_geometric.data")
    from toolkit_graphpfl.pyg import from_pyg

    ei = torch.tensor([[0, 1], [1, 0]])
    items = [
        pyg.Data(x=torch.ones(2, 1), edge_index=ei, edge_attr=torch.ones(2, 3), y=torch.tensor([i % 2]))
        for i in range(4)
    ]
    with pytest.warns(EdgeFeaturesIgnoredWarning, match="edge_attr"):
        gs = from_pyg(items, name="withattr")
    assert len(gs) == 4
