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

Roles (RECON): pi_T = sigmoid(theta_T / tau) with free logits, or theta_T from an MLP on a
table-level embedding (``conditioning="table"``); ``soft`` uses pi_T, ``gumbel`` a straight-through
Bernoulli sample (hard at evaluation). No toolkit imports.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import torch
from torch import Tensor, nn

from toolkit_frog.features import TableFeatures
from toolkit_frog.graph import HeteroGraph, RelKey, Subgraph


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

    def fused_mean_forward(self, num: Tensor, cat: Tensor, rel_time: Tensor, dst: Tensor, n_dst: int) -> Tensor:
        """``mean_forward`` with one scatter and one matrix product for the affine part. With x̄ the
        mean of a destination's inputs [num | sinusoidal | 1] (all 0 without input: the last column
        is then the 0/1 flag ``has``),

            has * (table + W_num x̄_num + b_num + W_t x̄_t + b_t) = x̄ @ [W_num | W_t | table + b_num + b_t]^T;

        the embeddings' sum is averaged by a second scatter. Equal up to float summation order (test)."""
        inputs, weights, const = [], [], self.table
        for lin, x in ((self.num, num), (self.time, None)):
            if lin is not None:
                inputs.append(x if x is not None else sinusoidal(rel_time, self.n_freq))
                weights.append(lin.weight)
                const = const + lin.bias
        inputs.append(torch.ones(len(dst), 1, dtype=num.dtype, device=num.device))
        count = torch.bincount(dst, minlength=n_dst).clamp_(min=1).to(num.dtype)[:, None]

        def mean(x: Tensor) -> Tensor:
            return torch.zeros(n_dst, x.shape[1], dtype=x.dtype, device=x.device).index_add_(0, dst, x) / count

        x = torch.cat(inputs, 1) if len(inputs) > 1 else inputs[0]
        out = mean(x) @ torch.cat(weights + [const[:, None]], 1).t()
        if len(self.cats):
            out = out + mean(sum(emb(cat[:, i]) for i, emb in enumerate(self.cats)))
        return out


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
    hop_nodes: dict[str, tuple[int, ...]] | None = None  # [h]: nodes within h hops (a prefix); None: no trimming

    def to(self, device: torch.device) -> Batch:
        mv = lambda d: {k: v.to(device) for k, v in d.items()}  # noqa: E731
        rels = {k: RelBatch(*(x.to(device) if x is not None else None for x in
                              (r.src, r.dst, r.edge_num, r.edge_cat, r.edge_time)), r.hop_edges)
                for k, r in self.rels.items()}
        return Batch(self.n_nodes, mv(self.num), mv(self.cat), mv(self.rel_time), rels,
                     self.seed_local.to(device), self.y.to(device), self.seed_time, self.hop_nodes)


@dataclass(frozen=True)
class SeedMask:
    """Feature positions of the entity table's columns not known at the seed time."""

    node_type: str
    numeric: list[int]
    missing: list[int]
    categorical: list[int]


def make_batch(sub: Subgraph, graph: HeteroGraph, features: Mapping[str, TableFeatures],
               y: np.ndarray, time_unit: float, mask: SeedMask | None = None) -> Batch:
    """Gather the features of a subgraph's rows (and edge rows) and their times relative to the seed.

    ``mask``: those columns read as missing in the seed rows and in rows of the seed's table whose
    time is not before the seed time (kept for rows in the past).
    """
    def rel_t(times: np.ndarray) -> Tensor:
        r = np.where(times == np.iinfo(np.int64).min, 0.0, (sub.seed_time - times.astype(np.float64)) / time_unit)
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
    return Batch(n_nodes, num, cat, rt, rels, torch.from_numpy(sub.seed_local),
                 torch.as_tensor(np.asarray(y), dtype=torch.float32), sub.seed_time, sub.hop_nodes or None)


def mean_aggregate(msg: Tensor, dst: Tensor, n_dst: int) -> Tensor:
    out = torch.zeros(n_dst, msg.shape[1], dtype=msg.dtype, device=msg.device).index_add_(0, dst, msg)
    count = torch.bincount(dst, minlength=n_dst).clamp_(min=1).to(msg.dtype)
    return out / count[:, None]


class Roles(nn.Module):
    """Learnable role pi_T in [0, 1] per candidate table (0 = nodes, 1 = edges)."""

    def __init__(self, tables: Sequence[str], mode: Literal["soft", "gumbel"] = "soft",
                 conditioning: Literal["free", "table"] = "free", channels: int = 64,
                 init_logit: float = 0.0, tau: float = 1.0):
        super().__init__()
        if mode not in ("soft", "gumbel"):
            raise ValueError(f"role mode must be 'soft' or 'gumbel', got {mode!r}")
        if conditioning not in ("free", "table"):
            raise ValueError(f"role conditioning must be 'free' or 'table', got {conditioning!r}")
        self.tables, self.mode, self.conditioning, self.tau = list(tables), mode, conditioning, tau
        self.logits = nn.Parameter(torch.full((len(self.tables),), float(init_logit)))
        self.mlp = (nn.Sequential(nn.Linear(channels + 1, channels), nn.ReLU(), nn.Linear(channels, 1))
                    if conditioning == "table" else None)
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
        u = torch.rand(logit.shape, generator=self.generator, device="cpu").to(logit.device).clamp(1e-6, 1 - 1e-6)
        soft = torch.sigmoid((logit + torch.log(u) - torch.log1p(-u)) / self.tau)
        return (soft > 0.5).to(soft.dtype) - soft.detach() + soft

    def entropy(self, table_emb: Tensor | None = None) -> Tensor:
        p = self.pi(table_emb).clamp(1e-6, 1 - 1e-6)
        return -(p * p.log() + (1 - p) * (1 - p).log()).sum()


class RDLModel(nn.Module):
    """HeteroGraphSAGE on any of the three graphs; FROG when ``roles`` is given (FROG graph)."""

    def __init__(self, graph: HeteroGraph, features: Mapping[str, TableFeatures], entity_type: str,
                 channels: int = 64, num_layers: int = 2, out_dim: int = 1, roles: Roles | None = None,
                 message_passing: Literal["per_destination", "per_relation"] = "per_destination"):
        super().__init__()
        if message_passing not in ("per_destination", "per_relation"):
            raise ValueError(f"message_passing must be 'per_destination' or 'per_relation', got {message_passing!r}")
        self.entity_type, self.num_layers, self.channels = entity_type, num_layers, channels
        self.message_passing = message_passing
        self.rel_keys = list(graph.relations)
        self.rels_into = {nt: [k for k in self.rel_keys if k[2] == nt] for nt in graph.num_nodes}
        self.rel_meta = {k: (r.role, r.role_table, r.edge_table) for k, r in graph.relations.items()}
        tables = set(graph.num_nodes) | {r.edge_table for r in graph.relations.values() if r.edge_table}
        self.encoders = nn.ModuleDict({t: RowEncoder(features[t], channels) for t in sorted(tables)})
        node_types = sorted(graph.num_nodes)
        self.layers = nn.ModuleList()
        for _ in range(num_layers):
            layer = nn.Module()
            layer.self_lin = nn.ModuleDict({nt: nn.Linear(channels, channels) for nt in node_types})
            layer.norm = nn.ModuleDict({nt: nn.LayerNorm(channels) for nt in node_types})
            layer.rel_lin = nn.ModuleDict({
                rel_name(k): nn.Linear(2 * channels if r.edge_table else channels, channels, bias=False)
                for k, r in graph.relations.items()})
            self.layers.append(layer)
        self.head = nn.Sequential(nn.Linear(channels, channels), nn.ReLU(), nn.Linear(channels, out_dim))
        self.roles = roles
        if roles is not None:
            missing = set(roles.tables) - set(graph.edge_tables)
            if missing:
                raise ValueError(f"role tables {sorted(missing)} have no edge relations in this graph")
        self.last_pi: Tensor | None = None
        self.last_aux: dict[str, Tensor] = {}

    # ------------------------------------------------------------------ forward
    def encode(self, batch: Batch) -> dict[str, Tensor]:
        return {nt: self.encoders[nt](batch.num[nt], batch.cat[nt], batch.rel_time[nt]) for nt in batch.n_nodes}

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
        # layer l only needs the states of nodes within L-1-l hops of the seeds (the last layer: the seeds);
        # nodes and edges are stored in hop order, so those are prefixes (exact, as PyG's trim_to_layer).
        # The FD losses read every node's final state: no trimming then.
        trim = batch.hop_nodes is not None and not fd and all(
            len(batch.hop_nodes[nt]) > self.num_layers - 1 for nt in batch.n_nodes) and all(
            len(rb.hop_edges) >= self.num_layers for rb in batch.rels.values())
        edge_emb, edge_mean = self.edge_means(batch, fd, self.num_layers - 1 if trim else None)
        h = x
        layer_fn = self._layer_per_destination if self.message_passing == "per_destination" \
            else self._layer_per_relation
        for li, layer in enumerate(self.layers):
            depth = self.num_layers - 1 - li
            keep = {nt: batch.hop_nodes[nt][depth] if trim else batch.n_nodes[nt] for nt in h}
            out = layer_fn(layer, h, batch, keep, depth if trim else None, edge_mean, pi, role_index)
            h = {nt: torch.relu(layer.norm[nt](v)) for nt, v in out.items()}
        if fd:
            self.last_aux = self.fd_losses(h, edge_emb, batch, pi)
        return self.head(h[self.entity_type][batch.seed_local])

    def edge_means(self, batch: Batch, fd: bool = False, hop: int | None = None
                   ) -> tuple[dict[RelKey, Tensor], dict[RelKey, Tensor]]:
        """Per Row2Edge relation, the mean edge-row encoding at each destination (the e_row half of
        mean [h_src || e_row], the same in every layer) and, with ``fd``, every edge row's encoding.

        ``per_destination``: the relations of one edge table are encoded in one call (their rows
        concatenated, destinations offset per relation), then split; with ``hop`` (trimming) only
        for the destinations within ``hop`` hops, the only ones a layer reads (their edges are the
        prefix ``hop_edges[hop]``). ``per_relation``: one call per relation, every destination."""
        groups: dict[str, list[tuple[RelKey, RelBatch]]] = {}
        for key, rb in batch.rels.items():
            et = self.rel_meta[key][2]
            if et is not None:
                groups.setdefault(et, []).append((key, rb))
        if self.message_passing == "per_relation":
            groups, hop = {f"{et}#{i}": [kr] for et, krs in groups.items() for i, kr in enumerate(krs)}, None
        edge_emb, edge_mean = {}, {}
        for group, rels in groups.items():
            enc = self.encoders[group.split("#")[0]]
            sizes = [batch.n_nodes[key[2]] if hop is None else batch.hop_nodes[key[2]][hop] for key, _ in rels]
            n_e = [len(rb.dst) if hop is None else rb.hop_edges[hop] for _, rb in rels]
            cat = (lambda xs: xs[0]) if len(rels) == 1 else (lambda xs: torch.cat(xs, 0))
            num, cats, t = (cat([getattr(rb, a)[:n] for (_, rb), n in zip(rels, n_e)])
                            for a in ("edge_num", "edge_cat", "edge_time"))
            offsets = np.cumsum([0] + sizes[:-1]).tolist()
            dst = cat([rb.dst[:n] + off if off else rb.dst[:n] for (_, rb), n, off in zip(rels, n_e, offsets)])
            if fd:  # the FD losses need each edge row's encoding
                emb = enc(num, cats, t)
                means = mean_aggregate(emb, dst, sum(sizes))
                for (key, _), part in zip(rels, emb.split(n_e)):
                    edge_emb[key] = part
            elif self.message_passing == "per_relation":
                means = enc.mean_forward(num, cats, t, dst, sum(sizes))
            else:
                means = enc.fused_mean_forward(num, cats, t, dst, sum(sizes))
            for (key, _), part in zip(rels, means.split(sizes)):
                edge_mean[key] = part
        return edge_emb, edge_mean

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
        out = {nt: layer.self_lin[nt](h[nt][:keep[nt]]) for nt in h if keep[nt]}
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
                agg = torch.cat([agg, edge_mean[key][:keep[dst]]], 1)
            m = layer.rel_lin[rel_name(key)](agg)
            w = self._role_weight(key, pi, role_index)
            out[dst] = out[dst] + (m if w is None else m * w)
        return out

    def _layer_per_destination(self, layer, h, batch, keep, hop, edge_mean, pi, role_index):
        """The same layer with one scatter and one matrix product per destination type: the R
        relations into U scatter into one (n_U * R, C) buffer (row v * R + r), its per-(v, r) means
        are laid side by side with h_v and the edge-row means, and

            W_self h_v + b + sum_r w_r W_r agg_r = [h_v | agg_1 .. agg_R | e_1 ..] @ [W_self | w_1 W_1 .. ]^T + b

        (w_r scales the small weight, not the messages). Equal to ``_layer_per_relation`` up to
        float summation order (test)."""
        c = self.channels
        out = {}
        for nt in h:
            k = keep[nt]
            if not k:
                continue
            lin = layer.self_lin[nt]
            rels = [(key, rb, n_e) for key in self.rels_into[nt]
                    if (rb := batch.rels.get(key)) is not None
                    and (n_e := len(rb.dst) if hop is None else rb.hop_edges[hop])]
            if not rels:
                out[nt] = lin(h[nt][:k])
                continue
            n_rel = len(rels)
            summed = h[nt].new_zeros(k * n_rel, c)
            counts = []
            for r, (key, rb, n_e) in enumerate(rels):
                dst = rb.dst[:n_e]
                summed.index_add_(0, dst * n_rel + r, h[key[0]][rb.src[:n_e]])
                counts.append(torch.bincount(dst, minlength=k))
            count = torch.stack(counts, 1).clamp_(min=1).to(summed.dtype)  # (k, R); no input -> mean 0
            xs = [h[nt][:k], (summed.view(k, n_rel, c) / count[:, :, None]).view(k, n_rel * c)]
            ws, edge_ws = [lin.weight], []
            for key, _, _ in rels:
                wt = layer.rel_lin[rel_name(key)].weight
                w = self._role_weight(key, pi, role_index)
                wt = wt if w is None else wt * w
                ws.append(wt[:, :c])
                if key in edge_mean:
                    xs.append(edge_mean[key][:k])
                    edge_ws.append(wt[:, c:])
            out[nt] = torch.addmm(lin.bias, torch.cat(xs, 1), torch.cat(ws + edge_ws, 1).t())
        return out

    # ------------------------------------------------------------------ FD constraints (RECON)
    def fd_losses(self, h: dict[str, Tensor], edge_emb: dict, batch: Batch, pi: Tensor | None) -> dict[str, Tensor]:
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
        return {"fd_entity": torch.stack(ent).mean() if ent else zero,
                "fd_table": torch.stack(tab).mean() if tab else zero}


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
