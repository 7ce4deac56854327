"""PyTorch Geometric interoperability: any PyG graph-classification dataset as a GraphSet, and back.

PyG (``torch_geometric``) is imported inside the functions that need it; a :class:`GraphSet` is
numpy only. Undirected graphs: PyG lists each edge in both directions, a GraphSet once (i < j).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from toolkit_graphpfl.graphs import Graph, GraphSet, canonical_edges


def _is_pyg_data(obj: Any) -> bool:
    try:
        from torch_geometric.data import Data
    except ImportError:  # pragma: no cover - PyG is a dependency of this plugin
        return False
    return isinstance(obj, Data)


def from_pyg(dataset: Any, name: str = "pyg", continuous: Sequence[int] | None = None) -> GraphSet:
    """A GraphSet from a PyG dataset (``InMemoryDataset`` such as ``TUDataset`` or ``MoleculeNet``) or a
    list of ``Data``, each with one graph label ``y``.

    Labels are mapped to 0..C-1 (sorted original values in ``meta["original_labels"]``); graphs
    without ``x`` get a constant feature. ``continuous``: the feature columns standardised per client
    (default: the columns holding a value other than 0 and 1, i.e. not one-hot or binary flags).
    """
    items = list(dataset)
    if not items:
        raise ValueError(f"{name}: the PyG dataset has no graphs")
    xs, edge_sets, ys = [], [], []
    width = None
    for i, d in enumerate(items):
        if not _is_pyg_data(d):
            raise TypeError(f"{name}: item {i} is a {type(d).__name__}, not a torch_geometric.data.Data")
        if getattr(d, "y", None) is None:
            raise ValueError(f"{name}: graph {i} has no label y (graph classification needs one per graph)")
        y = d.y.reshape(-1)
        if y.numel() != 1:
            raise ValueError(f"{name}: graph {i} has {y.numel()} values in y; expected one graph label")
        n = int(d.num_nodes)
        x = (
            np.ones((n, 1), dtype=np.float32)
            if d.x is None
            else d.x.detach().cpu().numpy().astype(np.float32).reshape(n, -1)
        )
        if width is None:
            width = x.shape[1]
        if x.shape[1] != width:
            raise ValueError(f"{name}: graph {i} has {x.shape[1]} node features, graph 0 has {width}")
        ei = np.zeros((0, 2), np.int64) if d.edge_index is None else d.edge_index.detach().cpu().numpy().T
        if ei.size and (ei.min() < 0 or ei.max() >= n):
            raise ValueError(f"{name}: graph {i} has an edge to node {int(ei.max())} of {n} nodes")
        xs.append(x)
        edge_sets.append(canonical_edges(ei))
        ys.append(float(y.item()))
    if any(getattr(d, "edge_attr", None) is not None for d in items):
        import warnings

        from toolkit_graphpfl.tu import EdgeFeaturesIgnoredWarning

        warnings.warn(
            f"{name}: edge_attr is not used: the models read node features x and the adjacency only",
            EdgeFeaturesIgnoredWarning,
            stacklevel=2,
        )
    raw_y = np.array(ys)
    if not np.all(raw_y == np.round(raw_y)):
        raise ValueError(
            f"{name}: graph labels y must be class ids (integers), got e.g. {raw_y[raw_y != np.round(raw_y)][0]}"
        )
    classes, codes = np.unique(raw_y.astype(np.int64), return_inverse=True)
    if continuous is None:
        stacked = np.concatenate(xs, axis=0)
        continuous = [c for c in range(width) if not np.isin(stacked[:, c], (0.0, 1.0)).all()]
    graphs = tuple(Graph(x, e, int(c)) for x, e, c in zip(xs, edge_sets, codes))
    meta = {
        "source": f"torch_geometric {type(dataset).__name__}",
        "original_labels": classes.tolist(),
        "feature_layout": [f"PyG x ({width} columns; continuous: {list(continuous)})"],
    }
    return GraphSet(name, graphs, len(classes), int(width), meta, tuple(int(c) for c in continuous))


def to_pyg(gs: GraphSet) -> list:
    """The graphs of ``gs`` as PyG ``Data`` (x float32, edge_index both directions sorted, y of shape (1,))."""
    import torch
    from torch_geometric.data import Data
    from torch_geometric.utils import coalesce

    out = []
    for g in gs.graphs:
        e = torch.as_tensor(g.edges, dtype=torch.long).T
        ei = coalesce(torch.cat([e, e.flip(0)], dim=1), num_nodes=g.n_nodes) if g.n_edges else e.reshape(2, 0)
        out.append(Data(x=torch.as_tensor(g.x), edge_index=ei, y=torch.tensor([g.y]), num_nodes=g.n_nodes))
    return out


def as_graphset(obj: Any, name: str | None = None) -> GraphSet:
    """``obj`` as a GraphSet: a GraphSet itself, a PyG dataset, or a list/tuple of PyG ``Data``."""
    if isinstance(obj, GraphSet):
        return obj
    try:
        from torch_geometric.data import Dataset as PyGDataset
    except ImportError:  # pragma: no cover
        PyGDataset = ()
    label = name or getattr(obj, "name", None) or type(obj).__name__
    if isinstance(obj, PyGDataset) or (isinstance(obj, (list, tuple)) and obj and _is_pyg_data(obj[0])):
        return from_pyg(obj, name=str(label))
    raise TypeError(
        f"graph data must be a GraphSet, a torch_geometric dataset or a list of torch_geometric Data "
        f"with y; got {type(obj).__name__}"
    )
