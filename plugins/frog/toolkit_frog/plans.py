"""Index plans for message passing batched over relations: parameter-free, built once per sampled
batch (and layer) and reused in every epoch. Pure index arithmetic, no learnable state.

A layer's plan stacks the source states of every node type into one tensor and the (destination,
relation) sums of every destination type into another, so that one gather, one scatter and one
division serve all relations of the layer: relation r (of R_U relations into U, in the model's
relation order) adds the message of its edge (u -> v) to stacked row ``offset_U + v * R_U + r``.
The rows of U are then a (k_U, R_U * C) block: destination-major, relation-minor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

RelKey = tuple[str, str, str]


@dataclass(frozen=True)
class Stacked:
    """Rows ``offset .. offset + k * len(keys)`` of a stacked tensor: U's (k, len(keys) * C) block."""

    keys: tuple[RelKey, ...]
    offset: int
    k: int


@dataclass(frozen=True)
class LayerPlan:
    order: tuple[str, ...]  # node types stacked as sources, in this order
    src: Tensor  # (E,) row of the stacked source states
    dst: Tensor  # (E,) stacked (destination, relation) row
    count: Tensor  # (rows, 1) edges per stacked row, at least 1 (a row without edges has mean 0)
    dests: dict[str, Stacked]  # destination type -> its relations (with edges in this layer) and rows


def _edges(rel, hop: int | None) -> int:
    return len(rel.dst) if hop is None else rel.hop_edges[hop]


def _stack(parts: list[tuple[Tensor, Tensor]], n_rows: int) -> tuple[Tensor, Tensor, Tensor]:
    src = torch.cat([s for s, _ in parts]) if parts else torch.zeros(0, dtype=torch.long)
    dst = torch.cat([d for _, d in parts]) if parts else torch.zeros(0, dtype=torch.long)
    count = torch.bincount(dst, minlength=n_rows).clamp_(min=1).to(torch.float32)[:, None]
    return src, dst, count


def layer_plan(
    rels: Mapping[RelKey, object],
    rels_into: Mapping[str, Sequence[RelKey]],
    sizes: Mapping[str, int],
    keep: Mapping[str, int],
    hop: int | None,
) -> LayerPlan:
    """Plan of one layer. ``sizes``: rows of each node type's input states (the stacking order);
    ``keep``: destinations computed per type (a prefix); ``hop``: the edges are the prefix
    ``hop_edges[hop]`` of each relation (None: all)."""
    planned = {
        nt: [key for key in rels_into.get(nt, ()) if key in rels and _edges(rels[key], hop)]
        for nt in sizes
        if keep.get(nt, 0)
    }
    used = {key[0] for keys in planned.values() for key in keys}
    order = tuple(nt for nt in sizes if nt in used)  # only the types that send a message in this layer
    offsets, o = {}, 0
    for nt in order:
        offsets[nt], o = o, o + sizes[nt]
    parts, dests, row = [], {}, 0
    for nt, keys in planned.items():
        k = keep[nt]
        for r, key in enumerate(keys):
            rb, n_e = rels[key], _edges(rels[key], hop)
            parts.append((rb.src[:n_e] + offsets[key[0]], rb.dst[:n_e] * len(keys) + (row + r)))
        dests[nt] = Stacked(tuple(keys), row, k)
        row += k * len(keys)
    src, dst, count = _stack(parts, row)
    return LayerPlan(order, src, dst, count, dests)


@dataclass(frozen=True)
class EdgePlan:
    """The edge rows of one edge table's relations (the prefixes a layer reads), concatenated in
    relation order, with their stacked (destination, relation) rows: U's block holds the mean
    edge-row encoding of each of its edge relations side by side."""

    keys: tuple[RelKey, ...]  # concatenation order
    n_edges: tuple[int, ...]  # rows per relation in the concatenation
    dst: Tensor  # (E,) stacked row
    count: Tensor  # (rows, 1)
    dests: dict[str, Stacked]  # U -> its edge relations of this table and rows (k = destinations)


def edge_plans(
    rels: Mapping[RelKey, object],
    edge_table_of: Mapping[RelKey, str | None],
    rels_into: Mapping[str, Sequence[RelKey]],
    n_dst: Mapping[str, int],
    hop: int | None,
) -> dict[str, EdgePlan]:
    """One plan per edge table. ``n_dst``: destinations needed per node type (``hop_nodes[hop]``
    when trimming, else all); only relations with edges in the prefix are included."""
    out = {}
    tables = []
    for key in rels:
        et = edge_table_of.get(key)
        if et is not None and et not in tables:
            tables.append(et)
    for table in tables:
        parts, keys, n_edges, dests, row = [], [], [], {}, 0
        for nt, k in n_dst.items():
            into = [
                key
                for key in rels_into.get(nt, ())
                if key in rels and edge_table_of.get(key) == table and _edges(rels[key], hop)
            ]
            if not into or not k:
                continue
            for j, key in enumerate(into):
                rb, n_e = rels[key], _edges(rels[key], hop)
                parts.append((torch.zeros(0, dtype=torch.long), rb.dst[:n_e] * len(into) + (row + j)))
                keys.append(key)
                n_edges.append(n_e)
            dests[nt] = Stacked(tuple(into), row, k)
            row += k * len(into)
        _, dst, count = _stack(parts, row)
        out[table] = EdgePlan(tuple(keys), tuple(n_edges), dst, count, dests)
    return out
