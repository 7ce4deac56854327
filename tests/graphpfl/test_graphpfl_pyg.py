"""PyG interoperability: PyG's TUDataset against the raw TU loader, conversion both ways, PyG data in federations."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch
from toolkit_graphpfl.data import load_tu
from toolkit_graphpfl.pyg import as_graphset, from_pyg, to_pyg
from toolkit_graphpfl.tu import tu_raw_dir

TINY = dict(n_clients=2, n_rounds=2, hidden=8, patience=0)


def pyg_tudataset(name: str, tmp_path, **kwargs):
    """PyG's own TUDataset over a copy of the raw files (PyG writes processed/ next to raw/)."""
    from torch_geometric.datasets import TUDataset

    load_tu(name)  # DatasetMissingError (a skip, with how to fetch) when the data root lacks it
    shutil.copytree(tu_raw_dir(name), tmp_path / name / "raw")
    return TUDataset(str(tmp_path), name=name, **kwargs)


def assert_same_graphs(a, b, x_equal=True):
    assert len(a) == len(b) and a.n_classes == b.n_classes
    for g, h in zip(a.graphs, b.graphs):
        assert g.y == h.y and g.n_nodes == h.n_nodes
        assert np.array_equal(g.edges, h.edges)
        if x_equal:
            assert np.array_equal(g.x, h.x)


def test_pyg_tudataset_gives_the_raw_loaders_graphs_mutag(tmp_path):
    ours = load_tu("MUTAG")
    theirs = from_pyg(pyg_tudataset("MUTAG", tmp_path), name="MUTAG")
    assert_same_graphs(ours, theirs)  # features too: one-hot atom types in the same column order
    assert theirs.continuous == ()


def test_pyg_tudataset_with_attributes_gives_the_same_graphs_cox2(tmp_path):
    ours = load_tu("COX2")
    theirs = from_pyg(pyg_tudataset("COX2", tmp_path, use_node_attr=True), name="COX2")
    assert_same_graphs(ours, theirs, x_equal=False)
    # PyG puts the 3 attributes first, then the one-hot labels; we put the labels first
    assert theirs.continuous == (0, 1, 2) and ours.continuous == (8, 9, 10)
    for g, h in zip(ours.graphs, theirs.graphs):
        assert np.allclose(g.x[:, 8:], h.x[:, :3], atol=1e-6)
    # PyG one-hot column = label - min label (35 columns, most unused); ours = rank among the 8 labels present
    ours_codes = np.concatenate([g.x[:, :8].argmax(1) for g in ours.graphs])
    pyg_values = np.concatenate([h.x[:, 3:].argmax(1) for h in theirs.graphs])
    assert np.array_equal(ours_codes, np.unique(pyg_values, return_inverse=True)[1])


def test_conversion_both_ways_is_lossless(planted):
    data = to_pyg(planted)
    assert data[0].edge_index.shape[1] == 2 * planted.graphs[0].n_edges  # both directions, as PyG
    back = from_pyg(data, name="planted")
    assert_same_graphs(planted, back)
    assert as_graphset(planted) is planted and as_graphset(data).n_classes == planted.n_classes


def test_bad_pyg_input_is_refused_with_the_reason():
    from torch_geometric.data import Data

    ei = torch.tensor([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="graph 1 has no label y"):
        from_pyg(
            [
                Data(x=torch.ones(2, 1), edge_index=ei, y=torch.tensor([0])),
                Data(x=torch.ones(2, 1), edge_index=ei),
            ]
        )
    with pytest.raises(ValueError, match="graph 0 has 2 values in y"):
        from_pyg([Data(x=torch.ones(2, 1), edge_index=ei, y=torch.tensor([0, 1]))])
    with pytest.raises(TypeError, match="got dict"):
        as_graphset({"x": 1})


def test_a_pyg_dataset_runs_through_the_simulator_like_the_raw_files(tmp_path):
    """The same graphs from PyG and from the raw files give the same federation, run for run."""
    from toolkit_graphpfl.simulation import NoiseRobustnessParams, federate, noise_robustness

    pyg = pyg_tudataset("MUTAG", tmp_path)
    from_pyg_run = federate(pyg, seed=0, algorithm="fedavg", noise_p=0.3, **TINY).summary
    raw_run = noise_robustness(
        NoiseRobustnessParams(dataset="MUTAG", algorithm="fedavg", noise_p=0.3, **TINY), 0
    ).summary
    for key in ("test_acc_pooled", "val_acc_pooled", "best_round", "n_test_graphs"):
        assert from_pyg_run[key] == raw_run[key], key
    listed = federate(list(pyg), seed=0, algorithm="fedavg", noise_p=0.3, **TINY).summary
    assert listed["test_acc_pooled"] == raw_run["test_acc_pooled"]


def test_a_registered_pyg_dataset_is_a_federations_data(monkeypatch, planted):
    """A plugin's dataset whose loader returns PyG data is usable by name (`-p dataset=plugin.name`)."""
    import toolkit_graphpfl as gp
    import toolkit_graphpfl.simulation as sim

    import toolkit
    from toolkit.registry import Registry
    from toolkit.specs import Dataset

    class MoleculesPlugin:
        toolkit_plugin_name = "mine"  # the namespace of the names it registers

        @toolkit.hookimpl
        def toolkit_register_datasets(self):
            return [Dataset(name="mine.molecules", description="PyG graphs", loader=lambda: to_pyg(planted))]

    reg = Registry.from_manager(
        toolkit.get_plugin_manager(load_entrypoints=False, plugins=[gp, MoleculesPlugin()])
    )
    monkeypatch.setattr(sim, "_registry", lambda: reg)
    by_name = sim.noise_robustness(
        sim.NoiseRobustnessParams(dataset="mine.molecules", algorithm="fedavg", **TINY), 0
    )
    direct = sim.federate(planted, seed=0, algorithm="fedavg", **TINY)
    assert by_name.summary["test_acc_pooled"] == direct.summary["test_acc_pooled"]
    from toolkit.errors import UnknownNameError

    with pytest.raises(UnknownNameError, match="mine.molecules"):
        sim.noise_robustness(sim.NoiseRobustnessParams(dataset="mine.molecule", **TINY), 0)
