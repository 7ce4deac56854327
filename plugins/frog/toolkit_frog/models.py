"""Models: the RelBench RDL baseline, the Row2Edge GNN and FROG (reconstructed), in plain torch.

One layer, at node v of type U (SAGE with mean aggregation, summed over relations, as in
RelBench's ``HeteroGraphSAGE``):

    h_v <- ReLU(LN_U(W_self^U h_v + sum_r w_r(pi) * W_r mean_{u in N_r(v)} m_r(u)))

with m_r(u) = h_u for node relations and m_r(u) = [h_u || e_row] for Row2Edge relations (the edge
carries its row's encoding e_row). w_r = 1 for ``fixed`` relations, (1 - pi_T) for ``node``
relations (T's rows -> the entity they reference: the two-hop path through T) and pi_T for ``edge``
relations of candidate table T. On the Row2Node graph (no edge relations) this is the RDL
baseline; on the Row2Edge graph the Row2Edge GNN; on the FROG graph pi = 0 gives the baseline's
outputs and pi = 1 the Row2Edge GNN's (the weights are shared by relation name).

Counts: mean aggregation cannot tell one related row from twenty. With ``aggregation="mean_count"``
(the default) each node's row encoding also gets sum_r w_r(pi) log(1 + deg_r(v)) c_r, deg_r(v) being
the rows of relation r into v visible at the seed time (all of them, not only the sampled fan-out)
and c_r a learned vector; ``"mean"`` is the plain RelBench aggregation.

Roles (RECON): pi_T = sigmoid(theta_T / tau) with free logits, or theta_T from an MLP on a
table-level embedding (``conditioning="table"``); ``soft`` uses pi_T, ``gumbel`` a straight-through
Bernoulli sample (hard at evaluation). No toolkit imports.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import torch
from torch import Tensor, nn

from toolkit_frog.features import TableFeatures
from toolkit_frog.graph import HeteroGraph, RelKey, Subgraph
from toolkit_frog.plans import edge_plans, layer_plan

AGGREGATIONS: tuple[str, ...] = ("mean", "mean_count")


def rel_name(key: RelKey) -> str:
    return "__".join(key)


def sinusoidal(rel_time: Tensor, n_freq: int) -> Tensor:
    """[sin(f t), cos(f t)] for n_freq frequencies from 1 to 1/100 per time unit."""
    freqs = torch.exp(torch.linspace(0.0, math.log(1e-2), n_freq, device=rel_time.device))
    arg = rel_time[:, None] * freqs[None, :]
    return torch.cat([torch.sin(arg), torch.cos(arg)], 1)


class RowEncoder(nn.Module):
    """Linear on numerical columns + one embedding per categorical column + a table vector,
    plus a linear map of the sinusoidal encoding of (seed time - row time) for timed tables."""

    def __init__(self, features: TableFeatures, channels: int, n_freq: int = 8):
        super().__init__()
        d_num = features.numeric.shape[1]
        self.num = nn.Linear(d_num, channels) if d_num else None
        self.cats = nn.ModuleList(nn.Embedding(c, channels) for c in features.cardinalities)
        self.table = nn.Parameter(torch.randn(channels) * 0.1)
        self.n_freq = n_freq
        self.time = nn.Linear(2 * n_freq, channels) if features.has_time else None

    def forward(self, num: Tensor, cat: Tensor, rel_time: Tensor) -> Tensor:
        out = self.table.expand(num.shape[0], -1)
        if self.num is not None:
            out = out + self.num(num)
        for i, emb in enumerate(self.cats):
            out = out + emb(cat[:, i])
        if self.time is not None:
            out = out + self.time(sinusoidal(rel_time, self.n_freq))
        return out

    def mean_forward(self, num: Tensor, cat: Tensor, rel_time: Tensor, dst: Tensor, n_dst: int) -> Tensor:
        """``mean_aggregate(self(num, cat, rel_time), dst, n_dst)`` without encoding every row: the
        linear parts are affine, so the mean of their outputs is their map of the mean input (rows
        with no input get 0, as in ``mean_aggregate``); only the embeddings are averaged row-wise."""
        count = torch.bincount(dst, minlength=n_dst)
        has = (count > 0).to(num.dtype)[:, None]
        inv = 1.0 / count.clamp(min=1).to(num.dtype)[:, None]

        def mean(x: Tensor) -> Tensor:
            return torch.zeros(n_dst, x.shape[1], dtype=x.dtype, device=x.device).index_add_(0, dst, x) * inv

        affine = self.table.expand(n_dst, -1)
        if self.num is not None:
            affine = affine + self.num(mean(num))
        if self.time is not None:
            affine = affine + self.time(mean(sinusoidal(rel_time, self.n_freq)))
        out = affine * has
        for i, emb in enumerate(self.cats):
            out = out + mean(emb(cat[:, i]))
        return out

    def mean_inputs(self, num: Tensor, rel_time: Tensor, dst: Tensor, count: Tensor) -> Tensor:
        """Parameter-free: per destination the mean of its rows' [num | sinusoidal(rel_time) | 1] (the
        parts this encoder has), 0 where no row arrives (``count``: rows per destination, clamped to 1)."""
        inputs = ([num] if self.num is not None else []) + (
            [sinusoidal(rel_time, self.n_freq)] if self.time is not None else []
        )
        inputs.append(torch.ones(len(dst), 1, dtype=count.dtype, device=count.device))
        x = torch.cat(inputs, 1) if len(inputs) > 1 else inputs[0]
        return (
            torch.zeros(len(count), x.shape[1], dtype=x.dtype, device=x.device).index_add_(0, dst, x) / count
        )

    def affine_of_mean(self, x_mean: Tensor) -> Tensor:
        """The affine part of the mean encoding from ``mean_inputs``: with x̄ = [x̄_num | x̄_t | has],

            has * (table + W_num x̄_num + b_num + W_t x̄_t + b_t) = x̄ @ [W_num | W_t | table + b_num + b_t]^T

        (x̄ is 0 where has is 0)."""
        weights, const = [], self.table
        for lin in (self.num, self.time):
            if lin is not None:
                weights.append(lin.weight)
                const = const + lin.bias
        return x_mean @ torch.cat(weights + [const[:, None]], 1).t()

    def fused_mean_forward(
        self, num: Tensor, cat: Tensor, rel_time: Tensor, dst: Tensor, n_dst: int
    ) -> Tensor:
        """``mean_forward`` as one scatter of the inputs and one matrix product (``mean_inputs``,
        ``affine_of_mean``); the embeddings' sum is averaged by a second scatter. Equal up to float
        summation order (test)."""
        count = torch.bincount(dst, minlength=n_dst).clamp_(min=1).to(num.dtype)[:, None]
        out = self.affine_of_mean(self.mean_inputs(num, rel_time, dst, count))
        if len(self.cats):
            out = out + self.embedding_mean(cat, dst, count)
        return out

    def embedding_mean(self, cat: Tensor, dst: Tensor, count: Tensor) -> Tensor:
        emb = sum(e(cat[:, i]) for i, e in enumerate(self.cats))
        return (
            torch.zeros(len(count), emb.shape[1], dtype=emb.dtype, device=emb.device).index_add_(0, dst, emb)
            / count
        )


@dataclass
class RelBatch:
    src: Tensor
    dst: Tensor
    edge_num: Tensor | None = None
    edge_cat: Tensor | None = None
    edge_time: Tensor | None = None
    hop_edges: tuple[int, ...] = ()  # [h]: edges whose dst is within h hops of the seeds (a prefix)


@dataclass
class Batch:
    """A sampled subgraph turned into tensors, with the seeds' labels."""

    n_nodes: dict[str, int]
    num: dict[str, Tensor]
    cat: dict[str, Tensor]
    rel_time: dict[str, Tensor]
    rels: dict[RelKey, RelBatch]
    seed_local: Tensor
    y: Tensor
    seed_time: int
    hop_nodes: dict[str, tuple[int, ...]] | None = (
        None  # [h]: nodes within h hops (a prefix); None: no trimming
    )
    # relation -> log(1 + rows of that relation visible at the seed time) per dst node (not capped by fan-out)
    degree: dict[RelKey, Tensor] = field(default_factory=dict)
    # parameter-free index plans and averaged inputs a model derives from this batch (toolkit_frog.plans),
    # filled on first use and reused in every epoch; ``to`` starts an empty one
    cache: dict = field(default_factory=dict, repr=False, compare=False)

    def to(self, device: torch.device) -> Batch:
        mv = lambda d: {k: v.to(device) for k, v in d.items()}
        rels = {
            k: RelBatch(
                *(
                    x.to(device) if x is not None else None
                    for x in (r.src, r.dst, r.edge_num, r.edge_cat, r.edge_time)
                ),
                r.hop_edges,
            )
            for k, r in self.rels.items()
        }
        return Batch(
            self.n_nodes,
            mv(self.num),
            mv(self.cat),
            mv(self.rel_time),
            rels,
            self.seed_local.to(device),
            self.y.to(device),
            self.seed_time,
            self.hop_nodes,
            mv(self.degree),
        )


@dataclass(frozen=True)
class SeedMask:
    """Feature positions of the entity table's columns not known at the seed time."""

    node_type: str
    numeric: list[int]
    missing: list[int]
    categorical: list[int]


def make_batch(
    sub: Subgraph,
    graph: HeteroGraph,
    features: Mapping[str, TableFeatures],
    y: np.ndarray,
    time_unit: float,
    mask: SeedMask | None = None,
) -> Batch:
    """Gather the features of a subgraph's rows (and edge rows) and their times relative to the seed.

    ``mask``: those columns read as missing in the seed rows and in rows of the seed's table whose
    time is not before the seed time (kept for rows in the past).
    """

    def rel_t(times: np.ndarray) -> Tensor:
        r = np.where(
            times == np.iinfo(np.int64).min, 0.0, (sub.seed_time - times.astype(np.float64)) / time_unit
        )
        return torch.from_numpy(r.astype(np.float32))

    num, cat, rt, n_nodes = {}, {}, {}, {}
    for nt, ids in sub.nodes.items():
        f = features[nt]
        x_num, x_cat = f.numeric[ids], f.categorical[ids]
        if mask is not None and nt == mask.node_type:
            hide = graph.node_time[nt][ids] >= sub.seed_time
            hide[sub.seed_local] = True
            x_num, x_cat = x_num.copy(), x_cat.copy()
            rows = np.flatnonzero(hide)[:, None]
            x_num[rows, mask.numeric] = 0.0
            x_num[rows, mask.missing] = 1.0
            x_cat[rows, mask.categorical] = 0
        num[nt] = torch.from_numpy(x_num)
        cat[nt] = torch.from_numpy(x_cat)
        rt[nt] = rel_t(graph.node_time[nt][ids])
        n_nodes[nt] = len(ids)
    rels = {}
    for key, s in sub.relations.items():
        rel = graph.relations[key]
        rb = RelBatch(torch.from_numpy(s.src_local), torch.from_numpy(s.dst_local), hop_edges=s.hop_edges)
        if rel.edge_table is not None:
            f = features[rel.edge_table]
            rb.edge_num = torch.from_numpy(f.numeric[s.edge_row])
            rb.edge_cat = torch.from_numpy(f.categorical[s.edge_row])
            rb.edge_time = rel_t(s.edge_time)
        rels[key] = rb
    return Batch(
        n_nodes,
        num,
        cat,
        rt,
        rels,
        torch.from_numpy(sub.seed_local),
        torch.as_tensor(np.asarray(y), dtype=torch.float32),
        sub.seed_time,
        sub.hop_nodes or None,
        {k: torch.from_numpy(np.log1p(d).astype(np.float32)) for k, d in sub.degree.items()},
    )


def mean_aggregate(msg: Tensor, dst: Tensor, n_dst: int) -> Tensor:
    out = torch.zeros(n_dst, msg.shape[1], dtype=msg.dtype, device=msg.device).index_add_(0, dst, msg)
    count = torch.bincount(dst, minlength=n_dst).clamp_(min=1).to(msg.dtype)
    return out / count[:, None]


class Roles(nn.Module):
    """Learnable role pi_T in [0, 1] per candidate table (0 = nodes, 1 = edges)."""

    def __init__(
        self,
        tables: Sequence[str],
        mode: Literal["soft", "gumbel"] = "soft",
        conditioning: Literal["free", "table"] = "free",
        channels: int = 64,
        init_logit: float = 0.0,
        tau: float = 1.0,
    ):
        super().__init__()
        if mode not in ("soft", "gumbel"):
            raise ValueError(f"role mode must be 'soft' or 'gumbel', got {mode!r}")
        if conditioning not in ("free", "table"):
            raise ValueError(f"role conditioning must be 'free' or 'table', got {conditioning!r}")
        self.tables, self.mode, self.conditioning, self.tau = list(tables), mode, conditioning, tau
        self.logits = nn.Parameter(torch.full((len(self.tables),), float(init_logit)))
        self.mlp = (
            nn.Sequential(nn.Linear(channels + 1, channels), nn.ReLU(), nn.Linear(channels, 1))
            if conditioning == "table"
            else None
        )
        self.fixed: Tensor | None = None  # set to force pi (identity tests, ablations)
        self.generator: torch.Generator | None = None

    def logit(self, table_emb: Tensor | None) -> Tensor:
        if self.mlp is None or table_emb is None:
            return self.logits
        return self.logits + self.mlp(table_emb).squeeze(-1)

    def pi(self, table_emb: Tensor | None = None) -> Tensor:
        if self.fixed is not None:
            return self.fixed
        return torch.sigmoid(self.logit(table_emb) / self.tau)

    def weights(self, table_emb: Tensor | None = None) -> Tensor:
        """The pi used in message passing: soft value, or a straight-through Gumbel sample."""
        if self.fixed is not None:
            return self.fixed
        logit = self.logit(table_emb)
        if self.mode == "soft":
            return torch.sigmoid(logit / self.tau)
        if not self.training:
            return (logit > 0).to(logit.dtype)
        u = (
            torch.rand(logit.shape, generator=self.generator, device="cpu")
            .to(logit.device)
            .clamp(1e-6, 1 - 1e-6)
        )
        soft = torch.sigmoid((logit + torch.log(u) - torch.log1p(-u)) / self.tau)
        return (soft > 0.5).to(soft.dtype) - soft.detach() + soft

    def entropy(self, table_emb: Tensor | None = None) -> Tensor:
        p = self.pi(table_emb).clamp(1e-6, 1 - 1e-6)
        return -(p * p.log() + (1 - p) * (1 - p).log()).sum()


class RDLModel(nn.Module):
    """HeteroGraphSAGE on any of the three graphs; FROG when ``roles`` is given (FROG graph)."""

    def __init__(
        self,
        graph: HeteroGraph,
        features: Mapping[str, TableFeatures],
        entity_type: str,
        channels: int = 64,
        num_layers: int = 2,
        out_dim: int = 1,
        roles: Roles | None = None,
        message_passing: Literal["per_destination", "per_relation"] = "per_destination",
        aggregation: Literal["mean", "mean_count"] = "mean_count",
    ):
        super().__init__()
        if aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation must be one of {', '.join(AGGREGATIONS)}, got {aggregation!r}")
        if message_passing not in ("per_destination", "per_relation"):
            raise ValueError(
                f"message_passing must be 'per_destination' or 'per_relation', got {message_passing!r}"
            )
        self.entity_type, self.num_layers, self.channels = entity_type, num_layers, channels
        self.message_passing = message_passing
        self.rel_keys = list(graph.relations)
        self.rels_into = {nt: [k for k in self.rel_keys if k[2] == nt] for nt in graph.num_nodes}
        self._plan_tag = (tuple(self.rel_keys), num_layers)  # plans in Batch.cache are per relation order
        self._layouts: dict = {}  # (relations, edge relations, device, roles) -> weight column layout
        self.rel_meta = {k: (r.role, r.role_table, r.edge_table) for k, r in graph.relations.items()}
        tables = set(graph.num_nodes) | {r.edge_table for r in graph.relations.values() if r.edge_table}
        self.encoders = nn.ModuleDict({t: RowEncoder(features[t], channels) for t in sorted(tables)})
        node_types = sorted(graph.num_nodes)
        self.layers = nn.ModuleList()
        for _ in range(num_layers):
            layer = nn.Module()
            layer.self_lin = nn.ModuleDict({nt: nn.Linear(channels, channels) for nt in node_types})
            layer.norm = nn.ModuleDict({nt: nn.LayerNorm(channels) for nt in node_types})
            layer.rel_lin = nn.ModuleDict(
                {
                    rel_name(k): nn.Linear(2 * channels if r.edge_table else channels, channels, bias=False)
                    for k, r in graph.relations.items()
                }
            )
            self.layers.append(layer)
        self.head = nn.Sequential(nn.Linear(channels, channels), nn.ReLU(), nn.Linear(channels, out_dim))
        # mean aggregation cannot see how many rows a node has: "mean_count" adds, per relation r into
        # a node v, log(1 + deg_r(v)) * c_r to v's row encoding (deg_r: every visible row, past the fan-out)
        self.aggregation = aggregation
        self.count_emb = (
            nn.ParameterDict(
                {rel_name(k): nn.Parameter(torch.randn(channels) * 0.1) for k in graph.relations}
            )
            if aggregation == "mean_count"
            else None
        )
        self.roles = roles
        if roles is not None:
            missing = set(roles.tables) - set(graph.edge_tables)
            if missing:
                raise ValueError(f"role tables {sorted(missing)} have no edge relations in this graph")
        self.last_pi: Tensor | None = None
        self.last_aux: dict[str, Tensor] = {}

    # ------------------------------------------------------------------ forward
    def encode(self, batch: Batch) -> dict[str, Tensor]:
        return {
            nt: self.encoders[nt](batch.num[nt], batch.cat[nt], batch.rel_time[nt]) for nt in batch.n_nodes
        }

    def add_counts(
        self, x: dict[str, Tensor], batch: Batch, pi: Tensor | None, role_index: dict[str, int]
    ) -> dict[str, Tensor]:
        """x_v + sum_r w_r(pi) log(1 + deg_r(v)) c_r over the relations r into v's type (the role
        weight as in message passing, so pi = 0 / 1 still give the baseline / Row2Edge outputs)."""
        out = dict(x)
        for key in self.rel_keys:
            deg = batch.degree.get(key)
            if deg is None or key[2] not in out:
                continue
            term = deg[:, None] * self.count_emb[rel_name(key)][None, :]
            w = self._role_weight(key, pi, role_index)
            out[key[2]] = out[key[2]] + (term if w is None else term * w)
        return out

    def table_embeddings(self, x: dict[str, Tensor], batch: Batch) -> Tensor | None:
        if self.roles is None or self.roles.mlp is None:
            return None
        rows = []
        device = self.roles.logits.device
        for t in self.roles.tables:
            if t in x and len(x[t]):
                size = torch.log1p(torch.tensor([float(len(x[t]))], device=device))
                rows.append(torch.cat([x[t].mean(0), size]))
            else:
                rows.append(torch.zeros(self.channels + 1, device=device))
        return torch.stack(rows)

    def forward(self, batch: Batch, fd: bool = False) -> Tensor:
        x = self.encode(batch)
        pi = None
        if self.roles is not None:
            pi = self.roles.weights(self.table_embeddings(x, batch))
            self.last_pi = self.roles.pi(self.table_embeddings(x, batch)).detach()
        role_index = {t: i for i, t in enumerate(self.roles.tables)} if self.roles is not None else {}
        if self.count_emb is not None:
            x = self.add_counts(x, batch, pi, role_index)
        # layer l only needs the states of nodes within L-1-l hops of the seeds (the last layer: the seeds);
        # nodes and edges are stored in hop order, so those are prefixes (exact, as PyG's trim_to_layer).
        # The FD losses read every node's final state: no trimming then.
        trim = (
            batch.hop_nodes is not None
            and not fd
            and all(len(batch.hop_nodes[nt]) > self.num_layers - 1 for nt in batch.n_nodes)
            and all(len(rb.hop_edges) >= self.num_layers for rb in batch.rels.values())
        )
        h = x
        if self.message_passing == "per_relation":
            edge_emb, edge_mean = self._edge_means_per_relation(batch, fd)
        else:
            edge_emb, edge_blocks = self._edge_blocks(batch, fd, self.num_layers - 1 if trim else None)
        for li, layer in enumerate(self.layers):
            depth = self.num_layers - 1 - li
            keep = {nt: batch.hop_nodes[nt][depth] if trim else batch.n_nodes[nt] for nt in h}
            hop = depth if trim else None
            if self.message_passing == "per_relation":
                out = self._layer_per_relation(layer, h, batch, keep, hop, edge_mean, pi, role_index)
            else:
                out = self._layer_per_destination(layer, li, h, batch, keep, hop, edge_blocks, pi, role_index)
            h = {nt: torch.relu(layer.norm[nt](v)) for nt, v in out.items()}
        if fd:
            self.last_aux = self.fd_losses(h, edge_emb, batch, pi)
        return self.head(h[self.entity_type][batch.seed_local])

    def _edge_means_per_relation(
        self, batch: Batch, fd: bool
    ) -> tuple[dict[RelKey, Tensor], dict[RelKey, Tensor]]:
        """Per Row2Edge relation, the mean edge-row encoding at each destination (the e_row half of
        mean [h_src || e_row], the same in every layer) and, with ``fd``, every edge row's encoding."""
        edge_emb, edge_mean = {}, {}
        for key, rb in batch.rels.items():
            et = self.rel_meta[key][2]
            if et is None:
                continue
            if fd:  # the FD losses need each edge row's encoding
                edge_emb[key] = self.encoders[et](rb.edge_num, rb.edge_cat, rb.edge_time)
                edge_mean[key] = mean_aggregate(edge_emb[key], rb.dst, batch.n_nodes[key[2]])
            else:
                edge_mean[key] = self.encoders[et].mean_forward(
                    rb.edge_num, rb.edge_cat, rb.edge_time, rb.dst, batch.n_nodes[key[2]]
                )
        return edge_emb, edge_mean

    def _edge_blocks(self, batch: Batch, fd: bool, hop: int | None):
        """The same means, per edge table in one pass (``plans.edge_plans``): for each destination
        type U, a (k_U, R * C) block of its R edge relations' means side by side (with ``hop``, only
        the destinations within ``hop`` hops: the only ones a layer reads). The averaged inputs are
        parameter-free and kept in ``batch.cache``; each forward applies the affine map to them."""
        key = ("edge_plans", self._plan_tag, hop)
        plans = batch.cache.get(key)
        if plans is None:
            n_dst = {
                nt: batch.n_nodes[nt] if hop is None else batch.hop_nodes[nt][hop] for nt in batch.n_nodes
            }
            plans = batch.cache[key] = edge_plans(
                batch.rels, {k: m[2] for k, m in self.rel_meta.items()}, self.rels_into, n_dst, hop
            )
        edge_emb, blocks = {}, {}
        for table, plan in plans.items():
            enc = self.encoders[table]
            rows = [batch.rels[k] for k in plan.keys]

            def joined(attr: str) -> Tensor:
                return torch.cat([getattr(rb, attr)[:n] for rb, n in zip(rows, plan.n_edges)])

            if fd:  # the FD losses need each edge row's encoding
                emb = enc(joined("edge_num"), joined("edge_cat"), joined("edge_time"))
                means = emb.new_zeros(len(plan.count), emb.shape[1]).index_add_(0, plan.dst, emb) / plan.count
                edge_emb.update(zip(plan.keys, emb.split(list(plan.n_edges))))
            else:
                ikey = ("edge_inputs", self._plan_tag, hop, table)
                if ikey not in batch.cache:
                    batch.cache[ikey] = (
                        enc.mean_inputs(joined("edge_num"), joined("edge_time"), plan.dst, plan.count),
                        joined("edge_cat") if len(enc.cats) else None,
                    )
                x_mean, codes = batch.cache[ikey]
                means = enc.affine_of_mean(x_mean)
                if codes is not None:
                    means = means + enc.embedding_mean(codes, plan.dst, plan.count)
            for nt, st in plan.dests.items():
                block = means[st.offset : st.offset + st.k * len(st.keys)].view(st.k, -1)
                blocks.setdefault(nt, []).append((st.keys, block))
        if fd:  # relations without edges: empty encodings, as the reference gives
            for key, rb in batch.rels.items():
                et = self.rel_meta[key][2]
                if et is not None and key not in edge_emb:
                    edge_emb[key] = self.encoders[et](rb.edge_num, rb.edge_cat, rb.edge_time)
        return edge_emb, blocks

    def _role_weight(self, key: RelKey, pi: Tensor | None, role_index: dict[str, int]) -> Tensor | None:
        """w_r(pi): pi_T for edge relations of T, 1 - pi_T for its node relations, None (1) otherwise."""
        role, role_table, _ = self.rel_meta[key]
        if pi is None or role_table not in role_index:
            return None
        p = pi[role_index[role_table]]
        return p if role == "edge" else 1 - p

    def _layer_per_relation(self, layer, h, batch, keep, hop, edge_mean, pi, role_index):
        """One layer as written in the module docstring: one aggregation and one linear per relation
        (the reference for ``_layer_per_destination``)."""
        out = {nt: layer.self_lin[nt](h[nt][: keep[nt]]) for nt in h if keep[nt]}
        for key in self.rel_keys:  # fixed order: identical sums across graphs
            rb = batch.rels.get(key)
            if rb is None:
                continue
            src, _, dst = key
            n_e = len(rb.dst) if hop is None else rb.hop_edges[hop]
            if not n_e:
                continue
            agg = mean_aggregate(h[src][rb.src[:n_e]], rb.dst[:n_e], keep[dst])
            if key in edge_mean:
                agg = torch.cat([agg, edge_mean[key][: keep[dst]]], 1)
            m = layer.rel_lin[rel_name(key)](agg)
            w = self._role_weight(key, pi, role_index)
            out[dst] = out[dst] + (m if w is None else m * w)
        return out

    def _layer_per_destination(self, layer, li, h, batch, keep, hop, edge_blocks, pi, role_index):
        """The same layer, batched over relations (``plans.layer_plan``): one gather of the stacked
        source states, one scatter into the stacked (destination, relation) sums, one division;
        then per destination type U one matrix product,

            W_self h_v + b + sum_r w_r W_r [agg_r | e_r] = [h_v | agg_1 .. agg_R | e_..] @ [W_self | w_1 W_1 .. ]^T + b

        (w_r scales the small weight, not the messages). Equal to ``_layer_per_relation`` up to
        float summation order (test); relations without edges in the layer are left out of both,
        so their weights get no gradient in either."""
        pkey = ("layer_plan", self._plan_tag, hop is not None, li)
        plan = batch.cache.get(pkey)
        if plan is None:
            plan = batch.cache[pkey] = layer_plan(
                batch.rels, self.rels_into, {nt: len(v) for nt, v in h.items()}, keep, hop
            )
        c = self.channels
        if len(plan.src):
            stacked = h[plan.order[0]] if len(plan.order) == 1 else torch.cat([h[nt] for nt in plan.order])
            summed = (
                stacked.new_zeros(len(plan.count), c).index_add_(0, plan.dst, stacked[plan.src]) / plan.count
            )
        pi_ext = None if pi is None else torch.cat([pi, 1 - pi, pi.new_ones(1)])  # role weight by _role_slot
        out = {}
        for nt, st in plan.dests.items():
            lin = layer.self_lin[nt]
            xs, edge_keys = [h[nt][: st.k]], []
            if st.keys:
                xs.append(summed[st.offset : st.offset + st.k * len(st.keys)].view(st.k, -1))
            is_edge = {key for key in st.keys if self.rel_meta[key][2] is not None}
            for keys, block in edge_blocks.get(nt, ()) if is_edge else ():
                used = [i for i, key in enumerate(keys) if key in is_edge]
                if not used:
                    continue
                part = block[: st.k]
                if len(used) < len(keys):  # an edge relation with edges at hop L-1 but none in this layer
                    part = part.reshape(st.k, len(keys), c)[:, used].reshape(st.k, -1)
                xs.append(part)
                edge_keys += [keys[i] for i in used]
            if len(xs) == 1:
                out[nt] = lin(xs[0])
                continue
            perm, slots = self._weight_layout(
                st.keys, tuple(edge_keys), lin.weight.device, pi_ext is not None
            )
            w = torch.cat([lin.weight] + [layer.rel_lin[rel_name(key)].weight for key in st.keys], 1)
            if perm is not None:
                w = w.index_select(1, perm)
            if slots is not None:
                w = w * pi_ext[slots]
            out[nt] = torch.addmm(lin.bias, torch.cat(xs, 1), w.t())
        return out

    def _weight_layout(self, keys: tuple[RelKey, ...], edge_keys: tuple[RelKey, ...], device, roles: bool):
        """For X = [h | agg_r for r in keys | e_r for r in edge_keys] and W = [W_self | W_r for r in
        keys] (W_r = [agg half | edge-row half]): the columns of W in X's order (None: already) and
        each column's role weight slot in [pi, 1 - pi, 1] (None: no roles). Cached per relation set."""
        tag = (keys, edge_keys, str(device), roles)
        if tag not in self._layouts:
            c = self.channels
            start, o = {}, c
            for key in keys:
                start[key], o = o, o + (2 * c if self.rel_meta[key][2] is not None else c)
            cols = (
                list(range(c))
                + [start[k] + j for k in keys for j in range(c)]
                + [start[k] + c + j for k in edge_keys for j in range(c)]
            )
            slot = (
                [self._role_slot(None)] * c
                + [self._role_slot(k) for k in keys for _ in range(c)]
                + [self._role_slot(k) for k in edge_keys for _ in range(c)]
            )
            perm = None if cols == list(range(len(cols))) else torch.tensor(cols, device=device)
            slots = torch.tensor(slot, device=device) if roles else None
            self._layouts[tag] = (perm, slots)
        return self._layouts[tag]

    def _role_slot(self, key: RelKey | None) -> int:
        """Index of w_r in [pi_0 .. pi_n-1, 1 - pi_0 .. 1 - pi_n-1, 1] (see ``_role_weight``)."""
        n = len(self.roles.tables) if self.roles is not None else 0
        if key is None or self.roles is None:
            return 2 * n
        role, role_table, _ = self.rel_meta[key]
        if role_table not in self.roles.tables:
            return 2 * n
        i = self.roles.tables.index(role_table)
        return i if role == "edge" else n + i

    # ------------------------------------------------------------------ FD constraints (RECON)
    def fd_losses(
        self, h: dict[str, Tensor], edge_emb: dict, batch: Batch, pi: Tensor | None
    ) -> dict[str, Tensor]:
        """Entity level: each candidate row's representation (node state for the node role, its
        edge encoding for the edge role, mixed by pi) matches the entity it references (MSE to a
        stopped gradient). Table level: the pooled row representation matches the pooled
        referenced entities (squared distance of means)."""
        if self.roles is None:
            return {}
        ent, tab = [], []
        for i, t in enumerate(self.roles.tables):
            p = pi[i]
            for key, rb in batch.rels.items():
                role, role_table, edge_table = self.rel_meta[key]
                if role_table != t:
                    continue
                if role == "node":  # T row (src) -> entity (dst)
                    z = (1 - p) * h[t][rb.src]
                    target = h[key[2]][rb.dst].detach()
                else:  # edge row between entities; aligned with its destination entity
                    z = p * edge_emb[key]
                    target = h[key[2]][rb.dst].detach()
                if len(z):
                    ent.append(((z - target) ** 2).sum(1).mean())
                    tab.append(((z.mean(0) - target.mean(0)) ** 2).sum())
        zero = torch.zeros((), device=self.roles.logits.device)
        return {
            "fd_entity": torch.stack(ent).mean() if ent else zero,
            "fd_table": torch.stack(tab).mean() if tab else zero,
        }


def share_weights(target: nn.Module, source: nn.Module) -> list[str]:
    """Copy every parameter of ``source`` whose name exists in ``target``; return the names."""
    tgt = target.state_dict()
    copied = []
    for name, value in source.state_dict().items():
        if name in tgt and tgt[name].shape == value.shape:
            tgt[name] = value.clone()
            copied.append(name)
    target.load_state_dict(tgt)
    return copied
