"""Graph-classification data: raw TU datasets from the data root, and planted-motif synthetic sets.

TU raw format (https://chrsmrrs.github.io/datasets/docs/format/), under
``<data root>/TUDataset/<NAME>/raw/``: ``NAME_A.txt`` (1-based ``i, j`` edge lines),
``NAME_graph_indicator.txt`` (graph id of each node), ``NAME_graph_labels.txt`` (one label per graph),
optional ``NAME_node_labels.txt`` (one-hot encoded) and ``NAME_node_attributes.txt`` (appended).
The data root is ``TOOLKIT_DATA_DIR`` (``toolkit.settings.get_settings().data_dir``) unless a
``root`` is given.
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

from toolkit.errors import DatasetMissingError  # re-exported here: the core's public type
from toolkit_graphpfl.graphs import Graph, GraphSet, canonical_edges

TU_REQUIRED = ("A", "graph_indicator", "graph_labels")
TU_OPTIONAL = ("node_labels", "node_attributes")
KNOWN_TU = ("MUTAG", "PROTEINS", "Mutagenicity")




def data_root(root: str | Path | None = None) -> Path:
    if root is not None:
        return Path(root)
    from toolkit.settings import get_settings  # the toolkit owns the data-root setting

    return get_settings().data_dir


def tu_raw_dir(name: str, root: str | Path | None = None) -> Path:
    return data_root(root) / "TUDataset" / name / "raw"


def load_tu(name: str, root: str | Path | None = None) -> GraphSet:
    """Load TU dataset ``name`` from raw files (any number of classes; labels mapped to 0..C-1)."""
    raw = tu_raw_dir(name, root).resolve()
    missing = [f"{name}_{part}.txt" for part in TU_REQUIRED if not (raw / f"{name}_{part}.txt").is_file()]
    if missing:
        raise DatasetMissingError(
            f"TU dataset {name!r} not found: expected the raw files {', '.join(f'{name}_{p}.txt' for p in TU_REQUIRED)} "
            f"(and optionally {', '.join(f'{name}_{p}.txt' for p in TU_OPTIONAL)}) in {raw}; missing: {', '.join(missing)}. "
            "Set TOOLKIT_DATA_DIR to the folder that holds TUDataset/<NAME>/raw/ "
            "(the raw files come from https://chrsmrrs.github.io/datasets/).",
            dataset=f"graphpfl.{name.lower()}" if name in KNOWN_TU else "",
        )
    return _load_tu_cached(name, str(raw))


def _read_ints(path: Path) -> np.ndarray:
    import pandas as pd

    return pd.read_csv(path, header=None, sep=",", skipinitialspace=True, dtype=np.int64).to_numpy()


def _read_floats(path: Path) -> np.ndarray:
    import pandas as pd

    return pd.read_csv(path, header=None, sep=",", skipinitialspace=True, dtype=np.float64).to_numpy()


@functools.lru_cache(maxsize=8)
def _load_tu_cached(name: str, raw: str) -> GraphSet:
    raw_dir = Path(raw)
    f = lambda part: raw_dir / f"{name}_{part}.txt"  # noqa: E731
    edges = _read_ints(f("A")) - 1
    indicator = _read_ints(f("graph_indicator"))[:, 0] - 1
    graph_labels = _read_ints(f("graph_labels"))[:, 0]
    classes, y = np.unique(graph_labels, return_inverse=True)
    n_nodes = len(indicator)
    blocks = []
    if f("node_labels").is_file():
        node_labels = _read_ints(f("node_labels"))[:, 0]
        values, codes = np.unique(node_labels, return_inverse=True)
        onehot = np.zeros((n_nodes, len(values)), dtype=np.float32)
        onehot[np.arange(n_nodes), codes] = 1.0
        blocks.append(onehot)
    if f("node_attributes").is_file():
        attrs = _read_floats(f("node_attributes")).astype(np.float32)
        # standardise so attributes and one-hot labels are on the same scale
        attrs = (attrs - attrs.mean(0)) / (attrs.std(0) + 1e-6)
        blocks.append(attrs)
    if not blocks:
        blocks.append(np.ones((n_nodes, 1), dtype=np.float32))  # no node features: a constant
    x_all = np.concatenate(blocks, axis=1)
    n_graphs = int(indicator.max()) + 1
    starts = np.searchsorted(indicator, np.arange(n_graphs + 1))  # nodes are grouped by graph
    edge_graph = indicator[edges[:, 0]]
    order = np.argsort(edge_graph, kind="stable")
    edges, edge_graph = edges[order], edge_graph[order]
    edge_starts = np.searchsorted(edge_graph, np.arange(n_graphs + 1))
    graphs = []
    for gi in range(n_graphs):
        lo, hi = starts[gi], starts[gi + 1]
        e = edges[edge_starts[gi]:edge_starts[gi + 1]] - lo
        graphs.append(Graph(x_all[lo:hi].copy(), canonical_edges(e), int(y[gi])))
    meta = {"source": str(raw_dir), "original_labels": classes.tolist()}
    return GraphSet(name, tuple(graphs), len(classes), x_all.shape[1], meta)


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


def make_planted_motifs(n_graphs: int = 200, n_classes: int = 2, n_nodes: tuple[int, int] = (12, 24),
                        edge_prob: float = 0.12, n_feature_types: int = 3, seed: int = 0) -> GraphSet:
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
    return GraphSet("planted", tuple(graphs[i] for i in order), n_classes, n_feature_types,
                    {"motifs": list(MOTIFS[:n_classes]), "seed": seed})


def load_dataset(name: str, root: str | Path | None = None, seed: int = 0) -> GraphSet:
    """``"planted"`` (synthetic, seeded) or a TU dataset name read from the data root."""
    if name == "planted":
        return make_planted_motifs(seed=seed)
    return load_tu(name, root)
