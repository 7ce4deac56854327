import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolkit_frog.graph import (
    TemporalSampler,
    check_full_resolution,
    edge_candidates,
    leaked_rows,
    make_frog_graph,
    make_pkey_fkey_graph,
    make_row2edge_graph,
)
from toolkit_frog.relational import Database, SchemaError, Table


def random_database(
    rng: np.random.Generator, n_a: int, n_b: int, n_link: int, n_child: int, a_timed: bool = False
) -> Database:
    """a <- link -> b, child -> link; random integer times; some missing keys."""
    a = pd.DataFrame({"id": np.arange(n_a), "x": rng.normal(size=n_a)})
    if a_timed:
        a["t"] = rng.integers(0, 10, n_a)
    b = pd.DataFrame({"id": np.arange(n_b), "y": rng.normal(size=n_b)})
    ka = rng.integers(0, n_a, n_link).astype(object)
    ka[rng.random(n_link) < 0.1] = None
    link = pd.DataFrame(
        {
            "id": np.arange(n_link),
            "a": pd.array(ka, dtype="Int64"),
            "b": rng.integers(0, n_b, n_link),
            "t": rng.integers(0, 10, n_link),
            "w": rng.normal(size=n_link),
        }
    )
    child = pd.DataFrame(
        {
            "id": np.arange(n_child),
            "link": rng.integers(0, n_link, n_child),
            "t": rng.integers(0, 10, n_child),
        }
    )
    return Database(
        {
            "a": Table(a, {}, "id", "t" if a_timed else None),
            "b": Table(b, {}, "id", None),
            "link": Table(link, {"a": "a", "b": "b"}, "id", "t"),
            "child": Table(child, {"link": "link"}, "id", "t"),
        },
        warn=False,
    )


def test_row2node_relbench_naming_and_counts(shop_db):
    g = make_pkey_fkey_graph(shop_db)
    assert set(g.relations) == {
        ("review", "f2p_cid", "customer"),
        ("customer", "rev_f2p_cid", "review"),
        ("review", "f2p_pid", "product"),
        ("product", "rev_f2p_pid", "review"),
        ("vote", "f2p_rid", "review"),
        ("review", "rev_f2p_rid", "vote"),
    }
    rel = g.relations[("review", "f2p_cid", "customer")]
    assert rel.num_edges == 4  # the dangling key has no edge, the row stays a node
    assert g.num_nodes["review"] == 5
    rev = g.relations[("customer", "rev_f2p_cid", "review")]
    assert np.array_equal(rev.src_index, rel.dst_index) and np.array_equal(rev.dst_index, rel.src_index)


def test_edge_candidate_rules():
    def t(n, fks, pk="id"):
        cols = {"id": range(n)} if pk else {}
        cols.update({c: [0] * n for c in fks})
        return Table(pd.DataFrame(cols), {c: c.rstrip("_") for c in fks}, pk, None)

    db = Database(
        {
            "a": t(2, []),
            "b": t(2, []),
            "c": t(2, []),
            "link_pk": t(3, ["a", "b"]),  # pkey, 2 fks, no incoming: rdb2g yes, 4dbinfer no
            "link_nopk": t(3, ["a", "c"], pk=None),  # both rules
            "tri": t(3, ["a", "b", "c"], pk=None),  # rdb2g yes (3 keys), 4dbinfer no (not exactly 2)
            "pointed": t(3, ["a", "b"]),  # has incoming key: rdb2g no
            "child": t(3, ["pointed"]),
        },
        warn=False,
    )
    assert edge_candidates(db, "rdb2g") == ["link_pk", "link_nopk", "tri"]
    assert edge_candidates(db, "4dbinfer") == ["link_nopk"]
    assert edge_candidates(db, "multi_key") == ["link_pk", "link_nopk", "tri", "pointed"]
    with pytest.raises(SchemaError, match="rule must be"):
        edge_candidates(db, "other")


def test_row2edge_hyperedge_clique_counts_and_edge_rows():
    rng = np.random.default_rng(0)
    n, k = 50, 3
    tables = {f"e{i}": Table(pd.DataFrame({"id": range(10)}), {}, "id", None) for i in range(k)}
    link = pd.DataFrame({f"k{i}": rng.integers(0, 10, n) for i in range(k)})
    tables["link"] = Table(link, {f"k{i}": f"e{i}" for i in range(k)}, None, None)
    db = Database(tables, warn=False)
    g = make_row2edge_graph(db, ["link"])
    assert "link" not in g.num_nodes
    assert len(g.relations) == k * (k - 1)
    assert g.num_edges == n * k * (k - 1)
    rel = g.relations[("e0", "r2e_link_k0_k2", "e2")]
    assert np.array_equal(rel.src_index, link.k0.to_numpy()) and np.array_equal(
        rel.dst_index, link.k2.to_numpy()
    )
    assert np.array_equal(rel.edge_row, np.arange(n))  # each edge carries its row
    rep = check_full_resolution(db, ["link"], g)["link"]
    assert rep.full_resolution and rep.expected_edges == rep.built_edges == n * k * (k - 1)


def test_full_resolution_checker_reports_losses(shop_db):
    rep = check_full_resolution(shop_db, ["review"])["review"]
    assert rep.rows_lost == 1  # the review with a dangling customer has only one key
    assert rep.links_lost == 3  # the votes point at reviews
    assert not rep.full_resolution
    assert rep.expected_edges == rep.built_edges == 8


def test_frog_graph_tags_roles(shop_db):
    g = make_frog_graph(shop_db, ["review"])
    roles = {k: r.role for k, r in g.relations.items()}
    assert roles[("review", "f2p_cid", "customer")] == "node"
    assert roles[("customer", "rev_f2p_cid", "review")] == "fixed"
    assert roles[("customer", "r2e_review_cid_pid", "product")] == "edge"
    assert roles[("vote", "f2p_rid", "review")] == "fixed"


def test_to_pyg(shop_db):
    data = make_pkey_fkey_graph(shop_db).to_pyg()
    assert data["review", "f2p_cid", "customer"].edge_index.shape == (2, 4)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    seed_time=st.integers(-1, 10),
    fanout=st.sampled_from([-1, 1, 3]),
    strategy=st.sampled_from(["last", "uniform"]),
    kind=st.sampled_from(["row2node", "row2edge", "frog"]),
    a_timed=st.booleans(),
    engine=st.sampled_from(["numpy", "numba"]),
)
def test_temporal_sampler_never_leaks(seed, seed_time, fanout, strategy, kind, a_timed, engine):
    rng = np.random.default_rng(seed)
    db = random_database(rng, 8, 5, 40, 30, a_timed)
    g = {
        "row2node": lambda: make_pkey_fkey_graph(db),
        "row2edge": lambda: make_row2edge_graph(db, ["link"]),
        "frog": lambda: make_frog_graph(db, ["link"]),
    }[kind]()
    sampler = TemporalSampler(g, [fanout] * 3, strategy, engine)
    seeds = rng.choice(8, 4, replace=False)
    sub = sampler.sample("a", seeds, seed_time, rng)
    assert all(v == 0 for v in leaked_rows(sub, g, db).values())
    for key, srel in sub.relations.items():  # fanout respected per receiving node
        if fanout > 0:
            assert np.bincount(srel.dst_local).max(initial=0) <= fanout


def test_sampler_all_neighbours_is_exactly_the_visible_past():
    rng = np.random.default_rng(1)
    db = random_database(rng, 6, 4, 60, 10)
    g = make_pkey_fkey_graph(db)
    sub = TemporalSampler(g, [-1]).sample("a", np.array([2]), 5)
    r = db.resolved["link"]
    expected = np.flatnonzero((r.fkeys["a"] == 2) & (r.time <= 5))
    got = sub.nodes["link"][sub.relations[("link", "f2p_a", "a")].src_local]
    assert sorted(got.tolist()) == expected.tolist()


def test_sampler_last_keeps_most_recent():
    a = pd.DataFrame({"id": [0]})
    ev = pd.DataFrame({"id": range(6), "a": [0] * 6, "t": [5, 1, 4, 2, 3, 9]})
    db = Database({"a": Table(a, {}, "id", None), "ev": Table(ev, {"a": "a"}, "id", "t")})
    g = make_pkey_fkey_graph(db)
    sub = TemporalSampler(g, [2], "last").sample("a", np.array([0]), 4)
    assert sorted(db["ev"].df.t.to_numpy()[sub.nodes["ev"]].tolist()) == [3, 4]


def test_graph_sizes_with_missing_keys_counts_sum_m_m_minus_1():
    from toolkit_frog.simulation import GraphSizeParams, graph_sizes

    r = graph_sizes(GraphSizeParams(n_rows=400, n_keys=3, n_entities=20, missing=0.3), seed=0)
    assert r["n_row2edge_edges"] == r["expected_row2edge_edges"] < 400 * 3 * 2
    assert r["rows_lost"] > 0 and not r["full_resolution"]
    assert r["n_row2node_edges"] < 2 * 400 * 3
