"""Graph construction from a :class:`~toolkit_frog.relational.Database` and temporal sampling.

* Row2Node (RelBench ``make_pkey_fkey_graph``): one node type per table; for every foreign key
  ``fk`` of table T referencing U, a relation ``(T, "f2p_<fk>", U)`` (row -> referenced row) and its
  reverse ``(U, "rev_f2p_<fk>", T)``.
* Row2Edge for chosen tables T with keys k_1..k_m: T's rows are not nodes; for every ordered pair
  i != j a relation ``(U_i, "r2e_<T>_<k_i>_<k_j>", U_j)`` with one edge per row whose two keys are
  present; the edge carries the row (``edge_table``/``edge_row``). m >= 3 keys: clique expansion.
* The FROG graph is the union: Row2Node plus the Row2Edge relations of the candidate tables, each
  relation tagged with the role it plays (``fixed``, ``node`` = T's rows -> referenced entity,
  ``edge``).
* :class:`TemporalSampler`: L-hop neighbour sampling where a seed at time t only ever sees rows
  (nodes and edge rows) with time <= t. Written here with numpy CSR (pyg-lib is not available);
  the ``numba`` engine runs the per-relation search and draws in :mod:`toolkit_frog.sampling_kernels`.

No toolkit imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from toolkit_frog.relational import ALWAYS, Database, SchemaError

RelKey = tuple[str, str, str]
SAMPLER_ENGINES = (
    "auto",
    "numba",
    "numpy",
)  # numba: compiled per-segment search and draws (sampling_kernels.py)
# "auto" uses numba from this many edges on: below, numpy's sampling is already fast and the kernels' first
# compilation (~10 s of CPU, then cached on disk) would cost more than it saves
AUTO_NUMBA_MIN_EDGES = 1_000_000


@dataclass
class Relation:
    """Directed edges ``src`` node type -> ``dst`` node type (messages flow src -> dst)."""

    src: str
    name: str
    dst: str
    src_index: np.ndarray
    dst_index: np.ndarray
    time: np.ndarray  # an edge is visible at seed time t iff time <= t (max of sender and edge row time)
    role: Literal["fixed", "node", "edge"] = "fixed"
    role_table: str | None = None  # the candidate table whose role weighs this relation
    edge_table: str | None = None  # Row2Edge: the table whose rows the edges are
    edge_row: np.ndarray | None = None

    @property
    def key(self) -> RelKey:
        return (self.src, self.name, self.dst)

    @property
    def num_edges(self) -> int:
        return len(self.src_index)


@dataclass
class HeteroGraph:
    """Node counts and times per node type, relations keyed by (src, name, dst)."""

    num_nodes: dict[str, int]
    node_time: dict[str, np.ndarray]
    relations: dict[RelKey, Relation] = field(default_factory=dict)
    edge_tables: tuple[str, ...] = ()  # tables represented as edges (Row2Edge) or with both roles (FROG)

    @property
    def num_edges(self) -> int:
        return sum(r.num_edges for r in self.relations.values())

    def add(self, rel: Relation) -> None:
        if rel.key in self.relations:
            raise SchemaError(f"duplicate relation {rel.key}")
        self.relations[rel.key] = rel

    def to_pyg(self):
        """A ``torch_geometric.data.HeteroData`` with ``num_nodes``, ``time`` and ``edge_index``."""
        import torch
        from torch_geometric.data import HeteroData

        data = HeteroData()
        for nt, n in self.num_nodes.items():
            data[nt].num_nodes = n
            # copies: the graph's arrays may be read-only views, which torch cannot wrap safely
            data[nt].time = torch.from_numpy(np.array(self.node_time[nt]))
        for key, rel in self.relations.items():
            data[key].edge_index = torch.from_numpy(np.stack([rel.src_index, rel.dst_index]))
            data[key].time = torch.from_numpy(np.array(rel.time))
        return data


def _row2node(db: Database, skip_tables: Iterable[str] = ()) -> HeteroGraph:
    skip = set(skip_tables)
    g = HeteroGraph(
        {n: r.n_rows for n, r in db.resolved.items() if n not in skip},
        {n: r.time for n, r in db.resolved.items() if n not in skip},
    )
    for name, r in db.resolved.items():
        if name in skip:
            continue
        rows = np.arange(r.n_rows, dtype=np.int64)
        for fk, target in r.table.fkey_col_to_pkey_table.items():
            if target in skip:
                continue  # a link into a table that is now edges: lost (see check_full_resolution)
            idx = r.fkeys[fk]
            ok = idx >= 0
            src, dst = rows[ok], idx[ok]
            g.add(Relation(name, f"f2p_{fk}", target, src, dst, r.time[ok]))
            g.add(Relation(target, f"rev_f2p_{fk}", name, dst, src, db.resolved[target].time[dst]))
    return g


def make_pkey_fkey_graph(db: Database) -> HeteroGraph:
    """The Row2Node graph (RelBench naming ``f2p_<fkey>`` and ``rev_f2p_<fkey>``)."""
    return _row2node(db)


def _edge_relations(db: Database, table: str, role: Literal["fixed", "edge"]) -> list[Relation]:
    r = db.resolved[table]
    fks = list(r.table.fkey_col_to_pkey_table)
    if len(fks) < 2:
        raise SchemaError(f"table {table!r} has {len(fks)} foreign key(s); Row2Edge needs at least 2")
    rels = []
    rows = np.arange(r.n_rows, dtype=np.int64)
    for ki in fks:
        for kj in fks:
            if ki == kj:
                continue
            ui, uj = r.table.fkey_col_to_pkey_table[ki], r.table.fkey_col_to_pkey_table[kj]
            ok = (r.fkeys[ki] >= 0) & (r.fkeys[kj] >= 0)
            src, dst = r.fkeys[ki][ok], r.fkeys[kj][ok]
            time = np.maximum(r.time[ok], db.resolved[ui].time[src])
            rels.append(
                Relation(
                    ui,
                    f"r2e_{table}_{ki}_{kj}",
                    uj,
                    src,
                    dst,
                    time,
                    role=role,
                    role_table=table if role == "edge" else None,
                    edge_table=table,
                    edge_row=rows[ok],
                )
            )
    return rels


def make_row2edge_graph(db: Database, edge_tables: Sequence[str]) -> HeteroGraph:
    """Row2Node graph with ``edge_tables`` turned into (clique-expanded) edges carrying their rows."""
    for t in edge_tables:
        if t not in db.table_dict:
            raise SchemaError(f"edge table {t!r} is not in the database (tables: {', '.join(db.table_dict)})")
    g = _row2node(db, skip_tables=edge_tables)
    for t in edge_tables:
        for rel in _edge_relations(db, t, "fixed"):
            g.add(rel)
    g.edge_tables = tuple(edge_tables)
    return g


def make_frog_graph(db: Database, candidate_tables: Sequence[str]) -> HeteroGraph:
    """Row2Node relations plus Row2Edge relations for every candidate, tagged with their role."""
    g = _row2node(db)
    for t in candidate_tables:
        if t not in db.table_dict:
            raise SchemaError(f"candidate table {t!r} is not in the database")
        for key, rel in list(g.relations.items()):
            if rel.src == t and rel.name.startswith("f2p_"):
                rel.role, rel.role_table = "node", t  # T's rows -> referenced entity: the 2-hop path
        for rel in _edge_relations(db, t, "edge"):
            g.add(rel)
    g.edge_tables = tuple(candidate_tables)
    return g


# ------------------------------------------------------------------------------ edge candidates
def edge_candidates(db: Database, rule: Literal["rdb2g", "4dbinfer", "multi_key"] = "rdb2g") -> list[str]:
    """Tables that may become edges.

    ``rdb2g`` (RDB2G-Bench): >= 2 outgoing foreign keys and no incoming ones; ``4dbinfer``: no
    primary key and exactly 2 foreign keys; ``multi_key``: >= 2 foreign keys (roles are then
    learned; full resolution is not guaranteed, see :func:`check_full_resolution`).
    """
    incoming = {n: 0 for n in db.table_dict}
    for t in db.table_dict.values():
        for target in t.fkey_col_to_pkey_table.values():
            incoming[target] += 1
    out = []
    for name, t in db.table_dict.items():
        n_fk = len(t.fkey_col_to_pkey_table)
        if rule == "rdb2g":
            ok = n_fk >= 2 and incoming[name] == 0
        elif rule == "4dbinfer":
            ok = t.pkey_col is None and n_fk == 2
        elif rule == "multi_key":
            ok = n_fk >= 2
        else:
            raise SchemaError(f"rule must be 'rdb2g', '4dbinfer' or 'multi_key', got {rule!r}")
        if ok:
            out.append(name)
    return out


@dataclass
class ResolutionReport:
    """What turning ``table`` into edges keeps and loses."""

    table: str
    n_rows: int
    n_keys: int
    rows_lost: int  # rows with fewer than 2 present keys: no edge represents them
    links_lost: int  # rows of other tables whose foreign key points into this table
    expected_edges: int  # sum over rows of m(m-1), m = present keys of the row
    built_edges: int

    @property
    def full_resolution(self) -> bool:
        return self.rows_lost == 0 and self.links_lost == 0 and self.expected_edges == self.built_edges


def check_full_resolution(
    db: Database, edge_tables: Sequence[str], graph: HeteroGraph | None = None
) -> dict[str, ResolutionReport]:
    """Per edge table: are all its rows and all links into it kept by the Row2Edge graph?

    Every row with m >= 2 present keys becomes m(m-1) directed edges that carry the row, so the
    row and each of its links survive; rows with m < 2 and foreign keys of other tables pointing
    into the table are lost.
    """
    graph = graph if graph is not None else make_row2edge_graph(db, edge_tables)
    reports = {}
    for t in edge_tables:
        r = db.resolved[t]
        present = np.zeros(r.n_rows, dtype=np.int64)
        for idx in r.fkeys.values():
            present += idx >= 0
        links_lost = 0
        for other in db.resolved.values():
            if other.name in edge_tables:
                continue
            for fk, target in other.table.fkey_col_to_pkey_table.items():
                if target == t:
                    links_lost += int((other.fkeys[fk] >= 0).sum())
        built = sum(rel.num_edges for rel in graph.relations.values() if rel.edge_table == t)
        covered = np.zeros(r.n_rows, dtype=bool)
        for rel in graph.relations.values():
            if rel.edge_table == t:
                covered[rel.edge_row] = True
        reports[t] = ResolutionReport(
            table=t,
            n_rows=r.n_rows,
            n_keys=len(r.fkeys),
            rows_lost=int((~covered).sum()),
            links_lost=links_lost,
            expected_edges=int((present * (present - 1)).sum()),
            built_edges=int(built),
        )
    return reports


# ------------------------------------------------------------------------------ temporal sampler
@dataclass
class SampledRelation:
    key: RelKey
    src_local: np.ndarray
    dst_local: np.ndarray
    edge_row: np.ndarray | None  # global row ids of the edge table (Row2Edge relations)
    edge_time: np.ndarray
    hop_edges: tuple[
        int, ...
    ] = ()  # [h]: edges whose dst was reached within h hops (a prefix: edges are in hop order)


@dataclass
class Subgraph:
    """A sampled computation graph for seeds that share one seed time."""

    seed_time: int
    seed_type: str
    seed_local: np.ndarray  # local index (in node type seed_type) of each seed, in seed order
    nodes: dict[str, np.ndarray]  # node type -> global row ids (local id = position)
    relations: dict[RelKey, SampledRelation]
    hop_nodes: dict[str, tuple[int, ...]] = field(
        default_factory=dict
    )  # [h]: nodes reached within h hops (a prefix)
    # relation -> per local dst node, how many of its edges are visible at the seed time: the full count,
    # not the sampled one (a fan-out caps that), so a model can read "how many rows" past the fan-out
    degree: dict[RelKey, np.ndarray] = field(default_factory=dict)

    @property
    def num_nodes(self) -> int:
        return sum(len(v) for v in self.nodes.values())


class TemporalSampler:
    """L-hop neighbour sampling that respects time: only rows with time <= the seed time.

    :param num_neighbors: per hop, the most neighbours per node and relation (-1 = all).
    :param strategy: ``last`` keeps the most recent ones (deterministic), ``uniform`` draws them.
    :param engine: ``numba`` (compiled kernels, :mod:`toolkit_frog.sampling_kernels`), ``numpy``
        (vectorised) or ``auto`` (numba for graphs with >= ``AUTO_NUMBA_MIN_EDGES`` edges); ``last``
        gives the same subgraphs on both, ``uniform`` draws differently (each engine is
        deterministic given the rng). ``plugins/frog/benchmarks/frog_fact_table.py`` times both.
    Seeds themselves are always included (their own row time is not checked).
    """

    def __init__(
        self,
        graph: HeteroGraph,
        num_neighbors: Sequence[int],
        strategy: Literal["last", "uniform"] = "last",
        engine: Literal["auto", "numba", "numpy"] = "auto",
    ):
        if strategy not in ("last", "uniform"):
            raise SchemaError(f"strategy must be 'last' or 'uniform', got {strategy!r}")
        if engine not in SAMPLER_ENGINES:
            raise SchemaError(f"engine must be one of {', '.join(SAMPLER_ENGINES)}, got {engine!r}")
        if engine == "auto":
            engine = "numba" if graph.num_edges >= AUTO_NUMBA_MIN_EDGES else "numpy"
        self.graph, self.num_neighbors, self.strategy, self.engine = (
            graph,
            list(num_neighbors),
            strategy,
            engine,
        )
        if engine == "numba":
            from toolkit_frog.sampling_kernels import csr_by_dst_time, sample_relation, visible_counts

            self._sample_relation = sample_relation
            self._visible_counts = visible_counts
        self._csr = {}
        # relations with equal (dst, time) arrays share one sort: a fact table's Row2Edge relations into U_j
        # and its Row2Node relation f2p_<k_j> all have dst = the rows' k_j keys and time = the rows' times
        shared: dict[tuple, list] = {}
        for key, rel in graph.relations.items():
            n_dst = graph.num_nodes[rel.dst]
            group = shared.setdefault((rel.dst, rel.num_edges), [])
            hit = next(
                (c for c in group if np.array_equal(c[0], rel.dst_index) and np.array_equal(c[1], rel.time)),
                None,
            )
            if hit is not None:
                order, indptr, vis_key, tvals = hit[2]
            else:
                if engine == "numba":  # vis_key: the edge times in CSR order (binary search per segment)
                    order, indptr = csr_by_dst_time(rel.dst_index, rel.time, n_dst)
                    vis_key, tvals = rel.time[order], None
                else:
                    order, indptr, vis_key, tvals = _time_sorted_csr(rel.dst_index, rel.time, n_dst)
                group.append((rel.dst_index, rel.time, (order, indptr, vis_key, tvals)))
            self._csr[key] = (indptr, rel.src_index[order], order, vis_key, tvals)
        self._incoming: dict[str, list[RelKey]] = {nt: [] for nt in graph.num_nodes}
        for key, rel in graph.relations.items():
            self._incoming[rel.dst].append(key)

    def sample(
        self, seed_type: str, seed_nodes: np.ndarray, seed_time: int, rng: np.random.Generator | None = None
    ) -> Subgraph:
        g = self.graph
        t = int(seed_time)
        rng = rng or np.random.default_rng(0)
        seed_nodes = np.asarray(seed_nodes, dtype=np.int64)
        uniq, seed_local = np.unique(seed_nodes, return_inverse=True)
        nodes: dict[str, list[np.ndarray]] = {nt: [] for nt in g.num_nodes}
        count = {nt: 0 for nt in g.num_nodes}
        lookup: dict[str, np.ndarray] = {}

        def add_nodes(nt: str, ids: np.ndarray) -> np.ndarray:
            """Add unseen ids to node type nt; return the new ones."""
            if nt not in lookup:
                lookup[nt] = np.full(g.num_nodes[nt], -1, dtype=np.int64)
            lk = lookup[nt]
            cand = ids[lk[ids] < 0]
            lk[cand] = np.arange(len(cand))  # dedupe without sorting: the last write per id wins
            new = cand[lk[cand] == np.arange(len(cand))]
            lk[new] = np.arange(count[nt], count[nt] + len(new))
            count[nt] += len(new)
            nodes[nt].append(new)
            return new

        add_nodes(seed_type, uniq)
        hop_counts = [dict(count)]
        frontier = {seed_type: uniq}
        edges: dict[RelKey, list[tuple[int, np.ndarray, np.ndarray, np.ndarray]]] = {}
        for hop, k in enumerate(self.num_neighbors):
            found: dict[str, list[np.ndarray]] = {}
            for dst_type, dst_nodes in frontier.items():
                if not len(dst_nodes):
                    continue
                for key in self._incoming[dst_type]:
                    indptr, src_sorted, order, vis_key, tvals = self._csr[key]
                    if self.engine == "numba":
                        draw_seed = int(rng.integers(2**31)) if self.strategy == "uniform" else 0
                        pos, dst_rep = self._sample_relation(
                            indptr, vis_key, dst_nodes, t, k, self.strategy == "uniform", draw_seed
                        )
                    else:
                        pos, dst_rep = _sample_relation_numpy(
                            indptr, vis_key, tvals, dst_nodes, t, k, self.strategy, rng
                        )
                    if not len(pos):
                        continue
                    src = src_sorted[pos]
                    edges.setdefault(key, []).append((hop, src, dst_rep, order[pos]))
                    found.setdefault(g.relations[key].src, []).append(src)
            frontier = {nt: add_nodes(nt, np.concatenate(v)) for nt, v in found.items()}
            hop_counts.append(dict(count))
        node_arrays = {
            nt: (np.concatenate(v) if v else np.zeros(0, dtype=np.int64)) for nt, v in nodes.items()
        }
        node_arrays = {nt: v for nt, v in node_arrays.items() if len(v)}
        rels = {}
        n_hops = len(self.num_neighbors)
        for key, parts in edges.items():
            rel = g.relations[key]
            src = np.concatenate([p[1] for p in parts])
            dst = np.concatenate([p[2] for p in parts])
            eid = np.concatenate([p[3] for p in parts])
            hop_edges = tuple(sum(len(p[1]) for p in parts if p[0] <= h) for h in range(n_hops))
            rels[key] = SampledRelation(
                key,
                lookup[rel.src][src],
                lookup[rel.dst][dst],
                rel.edge_row[eid] if rel.edge_row is not None else None,
                rel.time[eid],
                hop_edges,
            )
        hop_nodes = {nt: tuple(c[nt] for c in hop_counts) for nt in node_arrays}
        degree = {
            key: self.visible_degree(key, ids, t)
            for nt, ids in node_arrays.items()
            for key in self._incoming[nt]
        }
        return Subgraph(t, seed_type, seed_local.astype(np.int64), node_arrays, rels, hop_nodes, degree)

    def visible_degree(self, key: RelKey, nodes: np.ndarray, t: int) -> np.ndarray:
        """Per node (global ids of the relation's dst type), its edges of relation ``key`` with time <= t."""
        indptr, _, _, vis_key, tvals = self._csr[key]
        nodes = np.asarray(nodes, dtype=np.int64)
        if self.engine == "numba":
            return self._visible_counts(indptr, vis_key, nodes, int(t))
        return _visible_counts(nodes, indptr[nodes], indptr, vis_key, tvals, int(t))


def _sample_relation_numpy(
    indptr, vis_key, tvals, dst_nodes, t: int, k: int, strategy: str, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """The numpy engine's draw for one relation: (positions into the CSR order, dst of each)."""
    start = indptr[dst_nodes]
    # visible edges are a prefix of each dst segment (sorted by time): binary search
    n_vis = _visible_counts(dst_nodes, start, indptr, vis_key, tvals, t)
    if strategy == "last" or k < 0:
        take = n_vis if k < 0 else np.minimum(n_vis, k)
        return _ranges(start + n_vis - take, take), np.repeat(dst_nodes, take)
    return _uniform_without_replacement(start, n_vis, dst_nodes, k, rng)


def _time_sorted_csr(dst: np.ndarray, time: np.ndarray, n_dst: int):
    """Edges sorted by (dst, time): (order, indptr, composite key dst * R + time rank, unique times).

    The composite key makes "edges of dst d visible at t" one ``searchsorted``; where it could
    overflow int64, the key is None and visibility falls back to a per-segment search.
    """
    tvals, rank = np.unique(time, return_inverse=True)
    r = np.int64(len(tvals) + 1)
    if n_dst * int(r) < 2**62:
        vis_key = dst.astype(np.int64) * r + rank.astype(np.int64)
        order = np.argsort(vis_key, kind="stable")
        vis_key = vis_key[order]
    else:  # pragma: no cover - astronomically many (dst, time) pairs
        order, vis_key = np.lexsort((time, dst)), None
    counts = np.bincount(dst, minlength=n_dst)
    indptr = np.zeros(n_dst + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    if vis_key is None:
        vis_key = time[order]
        tvals = None
    return order, indptr, vis_key, tvals


def _visible_counts(dst_nodes, start, indptr, vis_key, tvals, t: int) -> np.ndarray:
    """How many edges of each dst node have time <= t (a prefix of its time-sorted segment)."""
    if tvals is not None:
        r = np.int64(len(tvals) + 1)
        rank_t = np.searchsorted(tvals, t, side="right")  # times <= t have rank < rank_t
        end = np.searchsorted(vis_key, dst_nodes.astype(np.int64) * r + rank_t, side="left")
        return end - start
    out = np.empty(len(dst_nodes), dtype=np.int64)  # pragma: no cover
    for i, (a, b) in enumerate(zip(start, indptr[dst_nodes + 1])):  # pragma: no cover
        out[i] = np.searchsorted(vis_key[a:b], t, side="right")
    return out  # pragma: no cover


def _uniform_without_replacement(
    start: np.ndarray, n_vis: np.ndarray, dst_nodes: np.ndarray, k: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """Per dst node, min(n_vis, k) distinct positions in [start, start + n_vis), drawn uniformly.

    Segments with at most k visible edges are taken whole; larger ones draw k offsets by sorting
    random keys within the segment (only those segments pay for it).
    """
    small = n_vis <= k
    pos_small = _ranges(start[small], n_vis[small])
    dst_small = np.repeat(dst_nodes[small], n_vis[small])
    big = np.flatnonzero(~small)
    if not len(big):
        return pos_small, dst_small
    nb = n_vis[big]
    seg = np.repeat(np.arange(len(big)), nb)
    keys = seg + rng.random(len(seg))  # sort by segment, then randomly within it
    o = np.argsort(keys, kind="stable")
    seg_start = np.zeros(len(big) + 1, dtype=np.int64)
    np.cumsum(nb, out=seg_start[1:])
    rank = np.arange(len(o)) - seg_start[seg]  # o keeps segments contiguous and in order
    chosen = o[rank < k]
    pos_big = np.repeat(start[big], nb)[chosen] + (chosen - seg_start[seg[chosen]])
    dst_big = dst_nodes[big][seg[chosen]]
    return np.concatenate([pos_small, pos_big]), np.concatenate([dst_small, dst_big])


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenation of arange(s, s + l) for each (s, l), vectorised."""
    lengths = np.asarray(lengths, dtype=np.int64)
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(
        np.asarray(starts, dtype=np.int64) - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths
    )
    return np.arange(total, dtype=np.int64) + offsets


def leaked_rows(sub: Subgraph, graph: HeteroGraph, db: Database | None = None) -> dict[str, int]:
    """Count rows in a subgraph that a seed at ``sub.seed_time`` must not see (should be all 0).

    Checks node rows (seeds excepted) and edge rows of Row2Edge relations.
    """
    bad: dict[str, int] = {}
    seeds = set(np.asarray(sub.nodes[sub.seed_type])[np.unique(sub.seed_local)].tolist())
    for nt, ids in sub.nodes.items():
        times = graph.node_time[nt][ids]
        mask = times > sub.seed_time
        if nt == sub.seed_type:
            mask &= ~np.isin(ids, list(seeds))
        bad[nt] = int(mask.sum())
    for key, srel in sub.relations.items():
        rel = graph.relations[key]
        n = int((srel.edge_time > sub.seed_time).sum())
        if rel.edge_table is not None and db is not None:
            n += int((db.resolved[rel.edge_table].time[srel.edge_row] > sub.seed_time).sum())
        bad["edges:" + "/".join(key)] = n
    return bad


def role_reach(graph: HeteroGraph, entity_type: str, tables: Sequence[str]) -> dict[str, int | None]:
    """Per candidate table: the fewest hops from the entity at which a relation weighted by its
    role carries a message towards the seed (None: never). With L layers, a role whose table is
    more than L hops away gets no gradient and stays at its initial value."""
    depth = {entity_type: 0}
    frontier, d = [entity_type], 0
    while frontier:
        nxt = []
        for key, rel in graph.relations.items():
            if rel.dst in frontier and rel.src not in depth:
                depth[rel.src] = d + 1
                nxt.append(rel.src)
        frontier, d = nxt, d + 1
    out: dict[str, int | None] = {}
    for t in tables:
        hops = [
            depth[rel.dst] + 1 for rel in graph.relations.values() if rel.role_table == t and rel.dst in depth
        ]
        out[t] = min(hops) if hops else None
    return out


def group_seeds_by_time(times: np.ndarray, batch_size: int | None = None) -> list[np.ndarray]:
    """Positions of seeds grouped by equal time (then chunked to ``batch_size``)."""
    times = np.asarray(times)
    out = []
    for t in np.unique(times):
        pos = np.flatnonzero(times == t)
        if batch_size:
            out.extend(pos[i : i + batch_size] for i in range(0, len(pos), batch_size))
        else:
            out.append(pos)
    return out


def relation_stats(graph: HeteroGraph) -> Mapping[str, int]:
    return {"/".join(k): r.num_edges for k, r in graph.relations.items()}


__all__ = [
    "ALWAYS",
    "HeteroGraph",
    "Relation",
    "Subgraph",
    "TemporalSampler",
    "check_full_resolution",
    "edge_candidates",
    "group_seeds_by_time",
    "leaked_rows",
    "make_frog_graph",
    "make_pkey_fkey_graph",
    "make_row2edge_graph",
    "role_reach",
]
