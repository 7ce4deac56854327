"""The two sampler engines (numpy, numba) and the model's layer trimming (issue 20, fact tables at speed)."""

import numpy as np
import pytest
import torch
from toolkit_frog import graph as graph_mod
from toolkit_frog.features import encode_database
from toolkit_frog.graph import TemporalSampler, leaked_rows
from toolkit_frog.models import RDLModel, Roles, make_batch
from toolkit_frog.planted import make_planted_database
from toolkit_frog.relational import SchemaError
from toolkit_frog.train import build_graph


@pytest.fixture(scope="module")
def planted():
    db = make_planted_database("edge_easy", 1.0, 300, 30, seed=0)
    return db, encode_database(db)


def _graph(db, kind):
    return build_graph(db, kind, ["review"] if kind != "row2node" else [])


def _same(a, b) -> bool:
    return (
        a.nodes.keys() == b.nodes.keys()
        and all(np.array_equal(a.nodes[n], b.nodes[n]) for n in a.nodes)
        and a.relations.keys() == b.relations.keys()
        and a.hop_nodes == b.hop_nodes
        and all(
            np.array_equal(getattr(a.relations[k], f), getattr(b.relations[k], f))
            for k in a.relations
            for f in ("src_local", "dst_local", "edge_time")
        )
        and all(a.relations[k].hop_edges == b.relations[k].hop_edges for k in a.relations)
    )


@pytest.mark.parametrize("kind", ["row2node", "row2edge", "frog"])
@pytest.mark.parametrize("fanout", [(3, 3), (-1, 2), (40, 40)])
def test_engines_give_identical_subgraphs_with_last(planted, kind, fanout):
    db, _ = planted
    g = _graph(db, kind)
    t = int(db.max_timestamp * 0.7)
    subs = [
        TemporalSampler(g, fanout, "last", e).sample("customer", np.arange(0, 300, 7), t)
        for e in ("numpy", "numba")
    ]
    assert sum(len(r.src_local) for r in subs[0].relations.values()) > 0
    assert _same(*subs)


@pytest.mark.parametrize("kind", ["row2node", "frog"])
def test_numba_uniform_is_seeded_bounded_and_leak_free(planted, kind):
    db, _ = planted
    g = _graph(db, kind)
    s = TemporalSampler(g, (4, 4), "uniform", "numba")
    t = int(db.max_timestamp * 0.6)
    a = s.sample("customer", np.arange(50), t, np.random.default_rng(5))
    b = s.sample("customer", np.arange(50), t, np.random.default_rng(5))
    c = s.sample("customer", np.arange(50), t, np.random.default_rng(6))
    assert _same(a, b) and not _same(a, c)
    assert all(v == 0 for v in leaked_rows(a, g, db).values())
    for key, r in a.relations.items():
        assert np.bincount(r.dst_local).max(initial=0) <= 4
        # an edge is its edge row (Row2Edge) or its (dst, src) pair (a key relation): none is drawn twice
        ids = r.edge_row if r.edge_row is not None else a.nodes[key[0]][r.src_local]
        assert len(set(zip(r.dst_local.tolist(), ids.tolist()))) == len(r.dst_local)


@pytest.mark.parametrize("k", [3, 40])  # Floyd's algorithm (k <= 32) and selection sampling
def test_numba_uniform_draws_every_visible_edge_equally_often(k):
    from toolkit_frog.sampling_kernels import csr_by_dst_time, sample_relation

    n_vis = 8 if k == 3 else 100
    time = np.concatenate([np.arange(n_vis), np.full(5, 10**6)])  # 5 edges in the future
    rng = np.random.default_rng(0)
    dst = np.zeros(len(time), dtype=np.int64)
    perm = rng.permutation(len(time))
    order, indptr = csr_by_dst_time(dst, time[perm], 1)
    t_sorted = time[perm][order]
    counts = np.zeros(len(time))
    draws = 3000
    for seed in range(draws):
        pos, rep = sample_relation(indptr, t_sorted, np.zeros(1, np.int64), 10**5, k, True, seed)
        assert len(pos) == k and len(set(pos.tolist())) == k and (t_sorted[pos] <= 10**5).all()
        counts[pos] += 1
    p = k / n_vis
    expected, sd = draws * p, np.sqrt(draws * p * (1 - p))
    assert (np.abs(counts[:n_vis] - expected) < 5 * sd).all() and counts[n_vis:].sum() == 0


def test_numba_csr_is_a_stable_sort_by_dst_then_time():
    from toolkit_frog.sampling_kernels import csr_by_dst_time

    rng = np.random.default_rng(2)
    dst = np.concatenate(
        [rng.integers(0, 30, 500), np.full(200, 7)]
    )  # one long segment (> 16: mergesort path)
    time = rng.integers(-3, 6, len(dst))
    time[:50] = np.iinfo(np.int64).min  # static rows
    order, indptr = csr_by_dst_time(dst, time, 31)
    assert np.array_equal(order, np.lexsort((time, dst)))  # lexsort is stable: ties in edge order
    assert np.array_equal(indptr, np.concatenate([[0], np.cumsum(np.bincount(dst, minlength=31))]))


def test_engine_is_validated_and_auto_chooses_by_graph_size(planted, monkeypatch):
    db, _ = planted
    g = _graph(db, "row2node")
    with pytest.raises(SchemaError, match="engine must be one of auto, numba, numpy, got 'gpu'"):
        TemporalSampler(g, (2,), engine="gpu")
    assert TemporalSampler(g, (2,)).engine == "numpy"  # small graph
    monkeypatch.setattr(graph_mod, "AUTO_NUMBA_MIN_EDGES", g.num_edges)
    assert TemporalSampler(g, (2,)).engine == "numba"


@pytest.mark.parametrize("kind", ["row2node", "row2edge", "frog"])
def test_layer_trimming_leaves_the_seed_outputs_unchanged(planted, kind):
    """The model computes layer l only for nodes within L-1-l hops; the seeds' outputs must equal the
    untrimmed computation (hop_nodes=None) on the same batch."""
    db, feats = planted
    g = _graph(db, kind)
    sub = TemporalSampler(g, (5, 5, 5), "uniform").sample(
        "customer", np.arange(0, 300, 3), int(db.max_timestamp * 0.8), np.random.default_rng(1)
    )
    b = make_batch(sub, g, feats, np.zeros(100), 1.0)
    assert b.hop_nodes is not None and all(len(v) == 4 for v in b.hop_nodes.values())
    torch.manual_seed(0)
    roles = Roles(["review"], channels=16) if kind == "frog" else None
    model = RDLModel(g, feats, "customer", 16, 3, 1, roles).eval()
    if roles is not None:
        roles.fixed = torch.full((1,), 0.3)
    trimmed = model(b)
    b.hop_nodes = None
    full = model(b)
    assert torch.allclose(trimmed, full, atol=1e-5)


def test_mean_of_edge_encodings_equals_the_encoder_of_mean_inputs(planted):
    """RowEncoder.mean_forward (affine parts applied to averaged inputs) == averaging every row's encoding."""
    from toolkit_frog.models import RowEncoder, mean_aggregate

    db, feats = planted
    f = feats["review"]
    assert f.numeric.shape[1] and f.has_time
    torch.manual_seed(0)
    enc = RowEncoder(f, 16)
    rng = np.random.default_rng(0)
    rows = rng.integers(0, f.n_rows, 500)
    dst = torch.from_numpy(rng.integers(0, 60, 500))  # some of the 80 dst rows receive nothing
    num, cat = torch.from_numpy(f.numeric[rows]), torch.from_numpy(f.categorical[rows])
    rel_time = torch.from_numpy(rng.normal(size=500).astype(np.float32))
    expected = mean_aggregate(enc(num, cat, rel_time), dst, 80)
    assert torch.allclose(enc.mean_forward(num, cat, rel_time, dst, 80), expected, atol=1e-5)
    assert torch.count_nonzero(expected[60:]) == 0
