"""Graph sets, seeded topology/feature noise and federated partitioners (numpy only, no toolkit).

A graph is node features ``x`` (n × F, float32), an undirected edge list ``edges`` (m × 2, each pair
stored once with i < j, no self loops) and an integer label ``y``. A :class:`GraphSet` is a list of
graphs with the number of classes and features.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Graph:
    x: np.ndarray  # (n, F) float32 node features
    edges: np.ndarray  # (m, 2) int64, undirected, i < j, unique, no self loops
    y: int

    @property
    def n_nodes(self) -> int:
        return int(self.x.shape[0])

    @property
    def n_edges(self) -> int:
        return int(self.edges.shape[0])

    @property
    def mean_degree(self) -> float:
        return 2.0 * self.n_edges / max(self.n_nodes, 1)


@dataclass(frozen=True)
class GraphSet:
    name: str
    graphs: tuple[Graph, ...]
    n_classes: int
    n_features: int
    meta: dict = field(default_factory=dict, compare=False)
    continuous: tuple[
        int, ...
    ] = ()  # feature columns holding continuous attributes (standardised per client)

    def __len__(self) -> int:
        return len(self.graphs)

    def labels(self) -> np.ndarray:
        return np.array([g.y for g in self.graphs], dtype=np.int64)

    def subset(self, index: Sequence[int], name: str | None = None) -> GraphSet:
        return GraphSet(
            name or self.name,
            tuple(self.graphs[i] for i in index),
            self.n_classes,
            self.n_features,
            self.meta,
            self.continuous,
        )


def canonical_edges(pairs: np.ndarray) -> np.ndarray:
    """Undirected unique edges with i < j and no self loops, sorted, from any (m, 2) pair array."""
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    lo, hi = np.minimum(pairs[:, 0], pairs[:, 1]), np.maximum(pairs[:, 0], pairs[:, 1])
    keep = lo != hi
    if not keep.any():
        return np.zeros((0, 2), dtype=np.int64)
    uniq = np.unique(np.stack([lo[keep], hi[keep]], axis=1), axis=0)
    return uniq.astype(np.int64)


# -- noise ------------------------------------------------------------------------------------------


def topology_noise(graph: Graph, p: float, rng: np.random.Generator) -> Graph:
    """OpenFGL-style random topology noise on one graph.

    Keeps exactly ``round((1 - p) |E|)`` of the undirected edges (uniformly, without replacement) and
    adds ``round(p |E|)`` new edges drawn uniformly from the node pairs that are not edges of the
    original graph (fewer when the graph has fewer non-edges). The result stays symmetric (edges are
    stored once, i < j) and has no self loops. ``p = 0`` returns the graph object itself, untouched.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"noise p must be in [0, 1], got {p}")
    if p == 0.0:
        return graph
    n, m = graph.n_nodes, graph.n_edges
    n_keep = int(round((1.0 - p) * m))
    n_add = int(round(p * m))
    kept = (
        graph.edges[np.sort(rng.choice(m, size=n_keep, replace=False))]
        if n_keep
        else np.zeros((0, 2), np.int64)
    )
    # candidate pairs i < j that are not original edges
    iu, ju = np.triu_indices(n, k=1)
    existing = graph.edges[:, 0] * n + graph.edges[:, 1]
    free = np.flatnonzero(~np.isin(iu * n + ju, existing))
    n_add = min(n_add, free.size)
    if n_add:
        pick = free[rng.choice(free.size, size=n_add, replace=False)]
        added = np.stack([iu[pick], ju[pick]], axis=1).astype(np.int64)
    else:
        added = np.zeros((0, 2), np.int64)
    edges = canonical_edges(np.concatenate([kept, added], axis=0))
    return Graph(graph.x, edges, graph.y)


def feature_noise(graph: Graph, sigma: float, rng: np.random.Generator) -> Graph:
    """Add i.i.d. N(0, sigma²) noise to the node features (``sigma = 0`` returns the graph untouched)."""
    if sigma < 0:
        raise ValueError(f"feature noise sigma must be >= 0, got {sigma}")
    if sigma == 0:
        return graph
    x = graph.x + rng.normal(0.0, sigma, size=graph.x.shape).astype(np.float32)
    return Graph(x.astype(np.float32), graph.edges, graph.y)


def noisy_copy(gs: GraphSet, p: float, seed: int, sigma: float = 0.0) -> GraphSet:
    """Apply topology noise ``p`` (and feature noise ``sigma``) to every graph, from one seed."""
    rng = np.random.default_rng(seed)
    out = []
    for g in gs.graphs:
        g = topology_noise(g, p, rng)
        g = feature_noise(g, sigma, rng)
        out.append(g)
    return GraphSet(gs.name, tuple(out), gs.n_classes, gs.n_features, gs.meta, gs.continuous)


# -- partitioners ---------------------------------------------------------------------------------


def stratified_subsample(labels: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Sorted indices of ``n`` items drawn without replacement, each class's count proportional to its
    share (largest remainders), so the class balance of the subsample is the data's to within one item."""
    labels = np.asarray(labels)
    if not 1 <= n <= len(labels):
        raise ValueError(f"subsample of {n} items from {len(labels)}: must be between 1 and {len(labels)}")
    classes, counts = np.unique(labels, return_counts=True)
    exact = counts * n / len(labels)
    take = np.floor(exact).astype(int)
    order = np.argsort(-(exact - take), kind="stable")
    take[order[: n - take.sum()]] += 1
    picked = [rng.choice(np.flatnonzero(labels == c), size=k, replace=False) for c, k in zip(classes, take)]
    return np.sort(np.concatenate(picked))


def partition_random(n_items: int, n_clients: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Random (almost) equal chunks of a seeded permutation."""
    _check_clients(n_items, n_clients)
    return [np.sort(c) for c in np.array_split(rng.permutation(n_items), n_clients)]


def partition_dirichlet(
    labels: np.ndarray,
    n_clients: int,
    alpha: float,
    rng: np.random.Generator,
    min_per_client: int = 10,
    max_tries: int = 1000,
) -> list[np.ndarray]:
    """Label skew: for each class, client shares drawn from Dirichlet(alpha · 1).

    Redraws (up to ``max_tries`` times) until every client holds at least ``min_per_client`` items.
    Large alpha gives near-uniform label histograms; small alpha gives few classes per client.
    """
    labels = np.asarray(labels)
    _check_clients(len(labels), n_clients)
    if alpha <= 0:
        raise ValueError(f"Dirichlet alpha must be > 0, got {alpha}")
    if n_clients * min_per_client > len(labels):
        raise ValueError(f"cannot give {n_clients} clients at least {min_per_client} of {len(labels)} items")
    for _ in range(max_tries):
        parts: list[list[int]] = [[] for _ in range(n_clients)]
        for c in np.unique(labels):
            idx = rng.permutation(np.flatnonzero(labels == c))
            shares = rng.dirichlet(np.full(n_clients, alpha))
            cuts = (np.cumsum(shares) * len(idx)).round().astype(int)[:-1]
            for k, chunk in enumerate(np.split(idx, cuts)):
                parts[k].extend(chunk.tolist())
        if min(len(p) for p in parts) >= min_per_client:
            return [np.sort(np.array(p, dtype=np.int64)) for p in parts]
    raise ValueError(
        f"no Dirichlet(alpha={alpha}) partition gave every client >= {min_per_client} items "
        f"in {max_tries} tries; raise alpha or lower min_per_client"
    )


def partition_topology(
    mean_degrees: np.ndarray, n_clients: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Topology skew: sort graphs by mean degree (ties broken at random) and cut into equal chunks."""
    mean_degrees = np.asarray(mean_degrees, dtype=float)
    _check_clients(len(mean_degrees), n_clients)
    order = np.lexsort((rng.random(len(mean_degrees)), mean_degrees))
    return [np.sort(c) for c in np.array_split(order, n_clients)]


def _check_clients(n_items: int, n_clients: int) -> None:
    if n_clients < 1:
        raise ValueError(f"n_clients must be >= 1, got {n_clients}")
    if n_clients > n_items:
        raise ValueError(f"n_clients={n_clients} exceeds the number of graphs ({n_items})")


def split_train_val_test(
    n_items: int, rng: np.random.Generator, val: float = 0.1, test: float = 0.1
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A client's seeded train/val/test split; val and test get at least one item each (n >= 3)."""
    if n_items < 3:
        raise ValueError(f"a client needs >= 3 graphs for train/val/test, got {n_items}")
    perm = rng.permutation(n_items)
    n_test = max(1, int(round(test * n_items)))
    n_val = max(1, int(round(val * n_items)))
    return np.sort(perm[n_test + n_val :]), np.sort(perm[n_test : n_test + n_val]), np.sort(perm[:n_test])


def align_features(sets: Sequence[GraphSet]) -> list[GraphSet]:
    """Cross-domain federation: one feature width and one label space for several sets.

    Each set's features go in its own block of columns (zeros elsewhere), and each set's classes get
    their own block of labels: set k's class c becomes ``c + sum(n_classes of the sets before k)``,
    so class 0 of one dataset never collides with class 0 of another under the shared head. The
    original labels stay in ``meta["label_offset"]`` (the block's first label).
    """
    widths = [s.n_features for s in sets]
    total = sum(widths)
    offsets = np.cumsum([0, *widths[:-1]])
    label_offsets = np.cumsum([0, *[s.n_classes for s in sets[:-1]]])
    n_classes = sum(s.n_classes for s in sets)
    out = []
    for s, off, loff in zip(sets, offsets, label_offsets):
        graphs = []
        for g in s.graphs:
            x = np.zeros((g.n_nodes, total), dtype=np.float32)
            x[:, off : off + s.n_features] = g.x
            graphs.append(Graph(x, g.edges, int(g.y) + int(loff)))
        meta = {**s.meta, "label_offset": int(loff)}
        out.append(
            GraphSet(s.name, tuple(graphs), n_classes, total, meta, tuple(int(off) + c for c in s.continuous))
        )
    return out
