"""Graph-classification data: TU datasets from the data root, planted-motif synthetic sets, PyG data.

TU files are read and validated by :mod:`toolkit_graphpfl.tu`; here they become a :class:`GraphSet`
with the node features the user chooses (``features``): the one-hot node labels, the continuous
node attributes (all columns, or the ``attribute_columns`` given), or both. Attributes are kept raw
here: they are standardised per client on its training graphs (``federation.build_clients``), so
no statistic of a validation or test graph reaches training. The data root is ``TOOLKIT_DATA_DIR``
(``toolkit.settings.get_settings().data_dir``) unless a ``root`` is given.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from toolkit.errors import DatasetMissingError  # noqa: F401  re-exported: the core's public type
from toolkit_graphpfl.graphs import Graph, GraphSet, canonical_edges
from toolkit_graphpfl.tu import (  # noqa: F401  re-exported
    KNOWN_TU,
    TU_OPTIONAL,
    TU_REQUIRED,
    TUFormatError,
    data_root,
    present_tu_names,
    read_tu_raw,
    require_files,
    resolve_tu_name,
    tu_raw_dir,
)

FEATURES = ("labels+attributes", "labels", "attributes")


def load_tu(
    name: str,
    root: str | Path | None = None,
    features: str = "labels+attributes",
    attribute_columns: Sequence[int] | None = None,
    graphs: Sequence[int] | None = None,
    set_name: str | None = None,
) -> GraphSet:
    """Load TU dataset ``name`` (any case) from raw files; graph labels mapped to 0..C-1.

    ``features``: ``"labels+attributes"`` (whatever of the two the dataset has; a constant 1 when it has
    neither), ``"labels"`` (one-hot node labels only) or ``"attributes"`` (continuous attributes only);
    ``attribute_columns``: the 0-based attribute columns to keep (default all). Asking for a part the
    dataset lacks is an error naming the missing file. ``graphs``: build only these graphs (0-based, in this
    order; ``set_name`` names the result): the same graphs as ``load_tu(name).subset(graphs)`` without
    building the others. The parsed files are kept per process, so a second call reads nothing.
    """
    table = _table(name, root, features, attribute_columns)
    if graphs is None:
        return table.full()
    return table.graphset(graphs, set_name)


def tu_graph_labels(
    name: str,
    root: str | Path | None = None,
    features: str = "labels+attributes",
    attribute_columns: Sequence[int] | None = None,
) -> np.ndarray:
    """The graph labels of TU dataset ``name`` as ``load_tu`` maps them (0..C-1), without building any graph
    (the other arguments as ``load_tu``'s, so that both use one parsed table)."""
    return _table(name, root, features, attribute_columns).y


def _table(
    name: str, root: str | Path | None, features: str, attribute_columns: Sequence[int] | None
) -> _TUTable:
    if features not in FEATURES:
        raise ValueError(f"features must be one of {', '.join(FEATURES)}, got {features!r}")
    name = resolve_tu_name(name, root)
    raw = tu_raw_dir(name, root).resolve()
    require_files(name, raw)
    cols = None if attribute_columns is None else tuple(int(c) for c in attribute_columns)
    return _table_cached(name, str(raw), features, cols, _signature(name, raw))


def _signature(name: str, raw: Path) -> tuple:
    """(part, size, mtime) of each file: a file edited, added or removed is read again, not served from the cache."""
    sig = []
    for part in (*TU_REQUIRED, *TU_OPTIONAL):
        p = raw / f"{name}_{part}.txt"
        st = p.stat() if p.is_file() else None
        sig.append((part, st.st_size if st else -1, st.st_mtime_ns if st else -1))
    return tuple(sig)


@functools.lru_cache(maxsize=4)
def _read_cached(name: str, raw: str, signature: tuple):
    tu = read_tu_raw(name, Path(raw))
    if tu.edge_parts:  # said once per dataset and process: the parse is cached
        import warnings

        from toolkit_graphpfl.tu import EdgeFeaturesIgnoredWarning

        warnings.warn(
            f"TU dataset {name}: {' and '.join(f'{name}_{p}.txt' for p in tu.edge_parts)} read and checked, "
            f"but not used: the models read node features and the adjacency only",
            EdgeFeaturesIgnoredWarning,
            stacklevel=2,
        )
    return tu


class _TUTable:
    """A TU dataset as node-feature and edge arrays grouped by graph; graphs are built on demand, each once."""

    def __init__(
        self,
        name: str,
        x_all: np.ndarray,
        y: np.ndarray,
        starts: np.ndarray,
        edges: np.ndarray,
        edge_starts: np.ndarray,
        n_classes: int,
        meta: dict,
        continuous: tuple[int, ...],
    ) -> None:
        self.name, self.x_all, self.y, self.starts = name, x_all, y, starts
        self.edges, self.edge_starts, self.n_classes, self.meta, self.continuous = (
            edges,
            edge_starts,
            n_classes,
            meta,
            continuous,
        )
        self._graphs: dict[int, Graph] = {}
        self._full: GraphSet | None = None

    def __len__(self) -> int:
        return len(self.y)

    def graph(self, gi: int) -> Graph:
        if gi not in self._graphs:
            lo, hi = self.starts[gi], self.starts[gi + 1]
            e = self.edges[self.edge_starts[gi] : self.edge_starts[gi + 1]] - lo
            self._graphs[gi] = Graph(self.x_all[lo:hi].copy(), canonical_edges(e), int(self.y[gi]))
        return self._graphs[gi]

    def graphset(self, index: Sequence[int], name: str | None = None) -> GraphSet:
        index = [int(i) for i in index]
        bad = [i for i in index if not 0 <= i < len(self)]
        if bad:
            raise ValueError(
                f"graphs: indices {bad[:5]} out of range 0..{len(self) - 1} of TU dataset {self.name}"
            )
        return GraphSet(
            name or self.name,
            tuple(self.graph(i) for i in index),
            self.n_classes,
            self.x_all.shape[1],
            self.meta,
            self.continuous,
        )

    def full(self) -> GraphSet:
        if self._full is None:
            self._full = self.graphset(range(len(self)))
        return self._full


@functools.lru_cache(maxsize=8)
def _table_cached(
    name: str, raw: str, features: str, attribute_columns: tuple[int, ...] | None, signature: tuple
) -> _TUTable:
    tu = _read_cached(name, raw, signature)
    classes, y = np.unique(tu.graph_labels, return_inverse=True)
    n_nodes = len(tu.indicator)
    want_labels = features in ("labels+attributes", "labels")
    want_attrs = features in ("labels+attributes", "attributes")
    for wanted, present, part in (
        (features == "labels", tu.node_labels is not None, "node_labels"),
        (features == "attributes", tu.node_attributes is not None, "node_attributes"),
    ):
        if wanted and not present:
            raise ValueError(f"features={features!r}: TU dataset {name} has no {name}_{part}.txt in {raw}")
    if attribute_columns is not None:
        if tu.node_attributes is None:
            raise ValueError(
                f"attribute_columns: TU dataset {name} has no node attributes ({name}_node_attributes.txt)"
            )
        width = tu.node_attributes.shape[1]
        bad = [c for c in attribute_columns if not 0 <= c < width]
        if bad or not attribute_columns or len(set(attribute_columns)) != len(attribute_columns):
            raise ValueError(
                f"attribute_columns must be distinct column indices in 0..{width - 1} of "
                f"{name}_node_attributes.txt, got {list(attribute_columns)}"
            )
    blocks, layout, continuous = [], [], []
    if want_labels and tu.node_labels is not None:
        for j in range(tu.node_labels.shape[1]):  # one one-hot block per label component
            values, codes = np.unique(tu.node_labels[:, j], return_inverse=True)
            onehot = np.zeros((n_nodes, len(values)), dtype=np.float32)
            onehot[np.arange(n_nodes), codes] = 1.0
            blocks.append(onehot)
            comp = f" component {j}" if tu.node_labels.shape[1] > 1 else ""
            layout.append(f"node-label{comp} one-hot ({len(values)} columns)")
    if want_attrs and tu.node_attributes is not None:
        cols = (
            list(range(tu.node_attributes.shape[1])) if attribute_columns is None else list(attribute_columns)
        )
        start = sum(b.shape[1] for b in blocks)
        blocks.append(tu.node_attributes[:, cols].astype(np.float32))
        continuous = list(range(start, start + len(cols)))
        layout.append(f"attributes columns {cols} (raw; standardised per client on its training graphs)")
    if not blocks:
        blocks.append(np.ones((n_nodes, 1), dtype=np.float32))  # no node features: a constant
        layout.append("constant 1 (no node labels or attributes)")
    x_all = np.concatenate(blocks, axis=1)
    n_graphs = int(tu.indicator[-1]) + 1
    starts = np.searchsorted(tu.indicator, np.arange(n_graphs + 1))  # nodes are grouped by graph (validated)
    edges = tu.edges
    edge_graph = tu.indicator[edges[:, 0]]
    order = np.argsort(edge_graph, kind="stable")
    edges, edge_graph = edges[order], edge_graph[order]
    edge_starts = np.searchsorted(edge_graph, np.arange(n_graphs + 1))
    meta = {
        "source": raw,
        "original_labels": classes.tolist(),
        "features": features,
        "feature_layout": layout,
    }
    y = y.astype(np.int64)
    y.setflags(write=False)
    return _TUTable(name, x_all, y, starts, edges, edge_starts, len(classes), meta, tuple(continuous))


def describe(gs: GraphSet) -> dict:
    """Statistics of a graph set: graphs, classes, class balance, mean nodes and edges, feature layout."""
    labels = gs.labels()
    counts = np.bincount(labels, minlength=gs.n_classes)
    original = gs.meta.get("original_labels", list(range(gs.n_classes)))
    return {
        "graphs": len(gs),
        "classes": gs.n_classes,
        "class_balance": {str(o): f"{int(c)} ({100 * c / len(gs):.1f}%)" for o, c in zip(original, counts)},
        "mean_nodes": float(np.mean([g.n_nodes for g in gs.graphs])),
        "mean_edges": float(np.mean([g.n_edges for g in gs.graphs])),
        "features": gs.n_features,
        "feature_layout": gs.meta.get("feature_layout", []),
    }


# -- synthetic planted motifs -------------------------------------------------------------------------

MOTIFS = ("cycle6", "house", "star5", "clique4")


def _motif_edges(kind: str) -> tuple[int, list[tuple[int, int]]]:
    import networkx as nx

    if kind == "cycle6":
        g = nx.cycle_graph(6)
    elif kind == "house":
        g = nx.house_graph()
    elif kind == "star5":
        g = nx.star_graph(5)
    elif kind == "clique4":
        g = nx.complete_graph(4)
    else:
        raise ValueError(f"motif must be one of {MOTIFS}, got {kind!r}")
    return g.number_of_nodes(), list(g.edges())


def make_planted_motifs(
    n_graphs: int = 200,
    n_classes: int = 2,
    n_nodes: tuple[int, int] = (12, 24),
    edge_prob: float = 0.12,
    n_feature_types: int = 3,
    seed: int = 0,
) -> GraphSet:
    """Synthetic graph set whose label is the motif planted in it (ground truth is structural).

    Each graph is an Erdős–Rényi background G(n, edge_prob) with ``n`` uniform in ``n_nodes``, plus
    one planted motif (class c gets ``MOTIFS[c]``) attached to a random background node. Node
    features are one-hot random types, independent of the label, so only structure is informative.
    """
    import networkx as nx

    if not 2 <= n_classes <= len(MOTIFS):
        raise ValueError(f"n_classes must be in 2..{len(MOTIFS)}, got {n_classes}")
    rng = np.random.default_rng(seed)
    graphs = []
    for i in range(n_graphs):
        y = i % n_classes
        n_bg = int(rng.integers(n_nodes[0], n_nodes[1] + 1))
        bg = nx.gnp_random_graph(n_bg, edge_prob, seed=int(rng.integers(2**31)))
        m_nodes, m_edges = _motif_edges(MOTIFS[y])
        pairs = [(a, b) for a, b in bg.edges()]
        pairs += [(n_bg + a, n_bg + b) for a, b in m_edges]
        pairs.append((int(rng.integers(n_bg)), n_bg))  # attach the motif to the background
        n = n_bg + m_nodes
        types = rng.integers(n_feature_types, size=n)
        x = np.zeros((n, n_feature_types), dtype=np.float32)
        x[np.arange(n), types] = 1.0
        graphs.append(Graph(x, canonical_edges(np.array(pairs)), y))
    order = rng.permutation(n_graphs)
    return GraphSet(
        "planted",
        tuple(graphs[i] for i in order),
        n_classes,
        n_feature_types,
        {"motifs": list(MOTIFS[:n_classes]), "seed": seed},
    )


def load_dataset(name: str, root: str | Path | None = None, seed: int = 0, **tu_options) -> GraphSet:
    """``"planted"`` (synthetic, seeded) or a TU dataset name (any case) read from the data root."""
    if name == "planted":
        return make_planted_motifs(seed=seed)
    return load_tu(name, root, **tu_options)
