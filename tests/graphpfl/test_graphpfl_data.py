"""Raw TU loading from the data root, the synthetic planted-motif sets and the partitioners."""

from __future__ import annotations

import numpy as np
import pytest
from toolkit_graphpfl.data import DatasetMissingError, load_tu, make_planted_motifs
from toolkit_graphpfl.graphs import align_features, partition_random, partition_topology, split_train_val_test


def test_mutag_from_raw_files():
    gs = load_tu("MUTAG")
    assert len(gs) == 188 and gs.n_classes == 2 and gs.n_features == 7
    assert np.bincount(gs.labels()).tolist() == [63, 125]  # labels -1/1 mapped to 0/1
    assert sum(g.n_nodes for g in gs.graphs) == 3371
    assert sum(g.n_edges for g in gs.graphs) == 7442 // 2  # each undirected edge listed twice in MUTAG_A.txt
    g = gs.graphs[0]
    assert np.allclose(g.x.sum(1), 1.0)  # one-hot atom types
    assert (g.edges[:, 0] < g.edges[:, 1]).all() and g.edges.max() < g.n_nodes


def test_proteins_has_node_attributes_and_two_classes():
    gs = load_tu("PROTEINS")
    assert len(gs) == 1113 and gs.n_classes == 2 and gs.n_features == 3 + 1


def test_loader_reads_the_configured_root_and_supports_many_classes(tmp_path, monkeypatch):
    raw = tmp_path / "TUDataset" / "TOY" / "raw"
    raw.mkdir(parents=True)
    (raw / "TOY_A.txt").write_text("1, 2\n2, 1\n3, 4\n4, 3\n5, 6\n6, 5\n")
    (raw / "TOY_graph_indicator.txt").write_text("1\n1\n2\n2\n3\n3\n")
    (raw / "TOY_graph_labels.txt").write_text("7\n3\n5\n")
    monkeypatch.setenv("TOOLKIT_DATA_DIR", str(tmp_path))
    gs = load_tu("TOY")
    assert gs.n_classes == 3 and gs.labels().tolist() == [2, 0, 1] and gs.n_features == 1
    assert all(g.n_edges == 1 for g in gs.graphs)


def test_missing_dataset_names_the_expected_files(tmp_path):
    with pytest.raises(DatasetMissingError) as err:
        load_tu("NCI1", root=tmp_path)
    msg = str(err.value)
    for f in ("NCI1_A.txt", "NCI1_graph_indicator.txt", "NCI1_graph_labels.txt", "TOOLKIT_DATA_DIR"):
        assert f in msg
    assert str(tmp_path / "TUDataset" / "NCI1" / "raw") in msg


def test_planted_motifs_are_seeded_balanced_and_structural():
    a, b = make_planted_motifs(n_graphs=40, seed=1), make_planted_motifs(n_graphs=40, seed=1)
    assert all(np.array_equal(x.edges, y.edges) and x.y == y.y for x, y in zip(a.graphs, b.graphs))
    assert np.bincount(a.labels()).tolist() == [20, 20]
    c = make_planted_motifs(n_graphs=40, n_classes=4, seed=1)
    assert c.n_classes == 4 and np.bincount(c.labels()).tolist() == [10] * 4
    # node features carry no label information: type frequencies are alike across classes
    freq = [np.mean([g.x.mean(0) for g in a.graphs if g.y == k], axis=0) for k in (0, 1)]
    assert np.abs(freq[0] - freq[1]).max() < 0.1


def test_random_and_topology_partitions_cover_everything():
    rng = np.random.default_rng(0)
    parts = partition_random(103, 5, rng)
    assert sorted(np.concatenate(parts).tolist()) == list(range(103))
    assert {len(p) for p in parts} <= {20, 21}
    deg = rng.random(50)
    tparts = partition_topology(deg, 5, rng)
    assert max(deg[tparts[0]]) <= min(deg[tparts[1]])  # sorted by mean degree
    with pytest.raises(ValueError, match="exceeds"):
        partition_random(3, 5, rng)


def test_splits_and_cross_domain_alignment():
    tr, va, te = split_train_val_test(38, np.random.default_rng(0))
    assert len(va) >= 1 and len(te) >= 1 and len(tr) + len(va) + len(te) == 38
    assert not set(tr) & set(te)
    a = make_planted_motifs(n_graphs=20, seed=0)
    m = load_tu("MUTAG")
    aa, mm = align_features([a, m])
    assert aa.n_features == mm.n_features == a.n_features + m.n_features
    assert np.allclose(aa.graphs[0].x[:, a.n_features :], 0) and np.allclose(
        mm.graphs[0].x[:, : a.n_features], 0
    )


def test_random_batches_mix_sizes_and_labels_and_leave_the_splits_alone():
    """Bucketed batches are sorted by size, which on MUTAG nearly sorts them by label; random ones are not."""
    from toolkit_graphpfl.federation import build_clients

    gs = load_tu("MUTAG")
    parts = partition_random(len(gs), 2, np.random.default_rng(0))
    kinds = {b: build_clients(gs, parts, batch_size=16, seed=5, batching=b) for b in ("random", "bucketed")}

    def graph_ids(batches):  # a batch's graphs, identified by (size, label, feature sum)
        return sorted(
            (int(m.sum()), int(y), round(float(x[: int(m.sum())].sum()), 3))
            for b in batches
            for x, m, y in zip(b.x, b.mask, b.y)
        )

    for rnd, bkt in zip(kinds["random"], kinds["bucketed"]):
        assert graph_ids(rnd.train) == graph_ids(bkt.train)  # same training graphs
        assert graph_ids(rnd.test) == graph_ids(bkt.test) and graph_ids(rnd.val) == graph_ids(bkt.val)

    # label purity of a batch (share of its majority class), averaged over training batches
    def purity(batches):
        return float(
            np.mean([max(float(b.y.float().mean()), 1 - float(b.y.float().mean())) for b in batches])
        )

    train = {k: [b for c in v for b in c.train] for k, v in kinds.items()}
    assert purity(train["bucketed"]) > purity(train["random"]) + 0.1
    sizes = [int(b.mask.sum(1).max()) for b in kinds["bucketed"][0].train]
    assert sizes == sorted(sizes)
    with pytest.raises(ValueError, match="batching must be 'random' or 'bucketed'"):
        build_clients(gs, parts, batch_size=16, seed=5, batching="sorted")


# -- subsampling a large dataset (the NCI1 study) ----------------------------------------------------


def test_stratified_subsample_keeps_the_class_balance_and_is_seeded():
    from toolkit_graphpfl.graphs import stratified_subsample

    labels = np.array([0] * 700 + [1] * 250 + [2] * 50)
    idx = stratified_subsample(labels, 101, np.random.default_rng(5))
    assert len(idx) == 101 == len(set(idx.tolist())) and (np.diff(idx) > 0).all()
    counts = np.bincount(labels[idx], minlength=3)
    assert np.all(np.abs(counts - 101 * np.array([0.7, 0.25, 0.05])) < 1)  # within one graph of the shares
    assert (stratified_subsample(labels, 101, np.random.default_rng(5)) == idx).all()
    assert not (stratified_subsample(labels, 101, np.random.default_rng(6)) == idx).all()
    with pytest.raises(ValueError, match="between 1 and 1000"):
        stratified_subsample(labels, 1001, np.random.default_rng(0))


def test_subsample_parameter_shrinks_the_federation_pairs_algorithms_and_names_a_bad_value():
    from toolkit_graphpfl.simulation import NoiseRobustnessParams, build_federation

    from toolkit.errors import ParameterError

    def federation(**kw):
        return build_federation(NoiseRobustnessParams(n_graphs=60, n_clients=2, **kw), seed=3)

    gs, clients = federation(subsample=30, algorithm="fedavg")
    assert len(gs) == 30 and sum(c.n_train + c.n_val + c.n_test for c in clients) == 30
    gs2, _ = federation(subsample=30, algorithm="graphpfl")
    assert [g.edges.tolist() for g in gs.graphs] == [g.edges.tolist() for g in gs2.graphs]
    full, _ = federation()
    assert len(full) == 60
    assert np.all(np.abs(np.bincount(gs.labels()) - np.bincount(full.labels()) / 2) < 1)  # stratified
    with pytest.raises(ParameterError, match="parameter 'subsample'.*has 60"):
        federation(subsample=61)


def _write_tu_paths(root, name: str, n_graphs: int) -> None:
    """A TU dataset of ``n_graphs`` paths of 3-6 nodes, three classes, node labels and one attribute column."""
    raw = root / "TUDataset" / name / "raw"
    raw.mkdir(parents=True)
    edges, indicator, node_labels, attrs, first = [], [], [], [], 1
    for gi in range(n_graphs):
        n = 3 + gi % 4
        for a in range(first, first + n - 1):
            edges += [f"{a}, {a + 1}", f"{a + 1}, {a}"]
        indicator += [str(gi + 1)] * n
        node_labels += [str((gi + k) % 3) for k in range(n)]
        attrs += [f"{gi + 0.1 * k}" for k in range(n)]
        first += n
    for part, lines in {
        "A": edges,
        "graph_indicator": indicator,
        "node_labels": node_labels,
        "node_attributes": attrs,
        "graph_labels": [str(gi % 3 - 1) for gi in range(n_graphs)],
    }.items():
        (raw / f"{name}_{part}.txt").write_text("\n".join(lines) + "\n")


def _same_graphs(a, b) -> bool:
    return (
        len(a) == len(b)
        and a.name == b.name
        and (a.n_classes, a.n_features, a.continuous, a.meta)
        == (b.n_classes, b.n_features, b.continuous, b.meta)
        and all(
            np.array_equal(g.x, h.x) and np.array_equal(g.edges, h.edges) and g.y == h.y
            for g, h in zip(a.graphs, b.graphs)
        )
    )


def test_a_subsampled_tu_run_builds_only_its_graphs_reads_once_and_keeps_the_same_graphs(
    tmp_path, monkeypatch
):
    """NCI1 with subsample=1000 used to build all 4,110 graphs for every run before keeping 1,000."""
    import toolkit_graphpfl.data as data
    from toolkit_graphpfl.simulation import NoiseRobustnessParams, _subsample, build_federation

    _write_tu_paths(tmp_path, "PATHS", 60)
    monkeypatch.setenv("TOOLKIT_DATA_DIR", str(tmp_path))
    reads, built, graph, read = [], [], data.Graph, data.read_tu_raw
    monkeypatch.setattr(data, "read_tu_raw", lambda *a, **k: (reads.append(a[0]), read(*a, **k))[1])
    monkeypatch.setattr(data, "Graph", lambda *a, **k: (built.append(1), graph(*a, **k))[1])
    params = NoiseRobustnessParams(dataset="paths", n_clients=2, subsample=15, noise_p=0.3)
    first, clients = build_federation(params, seed=3)
    assert (
        len(first) == 15
        and first.name == "PATHS[15 of 60]"
        and sum(c.n_train + c.n_val + c.n_test for c in clients) == 15
    )
    assert len(built) == 15  # only the kept graphs are built (the old code built all 60)
    other_seed, _ = build_federation(params, seed=4)
    assert reads == ["PATHS"] and len(built) <= 30  # the files are parsed once per process
    full = data.load_tu("paths")
    for seed, got in ((3, first), (4, other_seed)):  # the graphs the old path (full set, then subset) kept
        assert _same_graphs(got, _subsample(full, 15, seed, 0))
    idx = [7, 2, 59, 2]
    assert _same_graphs(data.load_tu("paths", graphs=idx), full.subset(idx))
    with pytest.raises(ValueError, match=r"graphs: indices \[60\] out of range 0..59"):
        data.load_tu("paths", graphs=[0, 60])
