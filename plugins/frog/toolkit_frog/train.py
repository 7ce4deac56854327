"""Training of the three models on an entity task: temporal batches, Adam, best-validation model
selection, per-epoch role reporting. No toolkit imports (the device string comes from the caller).
"""

from __future__ import annotations

import time as _time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
import torch

from toolkit_frog.features import TableFeatures
from toolkit_frog.graph import (HeteroGraph, TemporalSampler, group_seeds_by_time, make_frog_graph,
                                make_pkey_fkey_graph, make_row2edge_graph)
from toolkit_frog.models import Batch, RDLModel, Roles, make_batch
from toolkit_frog.relational import Database

ModelKind = Literal["row2node", "row2edge", "frog"]
MODEL_KINDS: tuple[str, ...] = ("row2node", "row2edge", "frog")


@dataclass(frozen=True)
class TrainConfig:
    """RelBench defaults where they apply (lr 0.005, 2 layers); 64 channels for CPU speed."""

    channels: int = 64
    num_layers: int = 2
    epochs: int = 30
    lr: float = 0.005
    role_lr: float = 0.05
    num_neighbors: tuple[int, ...] = (20, 20)
    strategy: Literal["last", "uniform"] = "last"
    batch_size: int | None = 1024
    role_mode: Literal["soft", "gumbel"] = "soft"
    conditioning: Literal["free", "table"] = "free"
    anneal: bool = False  # tau from tau_start to tau_end over the epochs
    tau_start: float = 1.0
    tau_end: float = 0.1
    lam_ent: float = 0.0  # FD entity-level constraint weight
    lam_tab: float = 0.0  # FD table-level constraint weight
    lam_entropy: float = 0.0  # role entropy weight (> 0 pushes roles to 0 or 1)
    device: str = "cpu"


@dataclass
class SeedSplit:
    entity: np.ndarray  # entity row indices
    time: np.ndarray  # int64 seed times
    y: np.ndarray


@dataclass
class FitResult:
    history: pd.DataFrame  # one row per epoch: loss, val/test metric, pi per table
    best_epoch: int
    val: float
    test: float
    pi: dict[str, float] = field(default_factory=dict)  # roles at the best epoch
    seconds: float = 0.0
    epoch_seconds: float = 0.0


def build_graph(db: Database, kind: str, edge_tables: Sequence[str]) -> HeteroGraph:
    if kind == "row2node":
        return make_pkey_fkey_graph(db)
    if kind == "row2edge":
        return make_row2edge_graph(db, edge_tables)
    if kind == "frog":
        return make_frog_graph(db, edge_tables)
    raise ValueError(f"model must be one of {', '.join(MODEL_KINDS)}, got {kind!r}")


def make_batches(graph: HeteroGraph, features: Mapping[str, TableFeatures], entity_type: str,
                 split: SeedSplit, cfg: TrainConfig, time_unit: float, seed: int) -> list[Batch]:
    """One sampled subgraph per (seed time, chunk of batch_size seeds)."""
    sampler = TemporalSampler(graph, cfg.num_neighbors[: cfg.num_layers], cfg.strategy)
    rng = np.random.default_rng(seed)
    batches = []
    for pos in group_seeds_by_time(split.time, cfg.batch_size):
        sub = sampler.sample(entity_type, split.entity[pos], int(split.time[pos[0]]), rng)
        batches.append(make_batch(sub, graph, features, split.y[pos], time_unit))
    return batches


def metric(task_type: str, y: np.ndarray, pred: np.ndarray) -> float:
    if task_type == "binary_classification":
        from sklearn.metrics import roc_auc_score

        if len(np.unique(y)) < 2:
            return float("nan")
        return float(roc_auc_score(y, pred))
    return float(np.mean(np.abs(y - pred)))


def _predict(model: RDLModel, batches: list[Batch], task_type: str, y_mu: float, y_sd: float):
    model.eval()
    ys, ps = [], []
    with torch.no_grad():
        for b in batches:
            out = model(b).squeeze(-1)
            ps.append((torch.sigmoid(out) if task_type == "binary_classification" else out * y_sd + y_mu).cpu().numpy())
            ys.append(b.y.cpu().numpy())
    return np.concatenate(ys), np.concatenate(ps)


def fit(graph: HeteroGraph, features: Mapping[str, TableFeatures], entity_type: str,
        splits: Mapping[str, SeedSplit], task_type: str, kind: str, cfg: TrainConfig, seed: int,
        time_unit: float = 1.0, edge_tables: Sequence[str] = (),
        batches: Mapping[str, list[Batch]] | None = None) -> FitResult:
    """Train ``kind`` on ``graph`` (built for that kind) and test at the best validation epoch."""
    t0 = _time.perf_counter()
    torch.manual_seed(seed)
    device = torch.device(cfg.device)
    if batches is None:
        batches = {s: make_batches(graph, features, entity_type, splits[s], cfg, time_unit, seed + i)
                   for i, s in enumerate(("train", "val", "test"))}
    batches = {s: [b.to(device) for b in bs] for s, bs in batches.items()}
    roles = None
    if kind == "frog":
        roles = Roles(edge_tables, cfg.role_mode, cfg.conditioning, cfg.channels,
                      tau=cfg.tau_start if cfg.anneal else 1.0)
        roles.generator = torch.Generator().manual_seed(seed)
    model = RDLModel(graph, features, entity_type, cfg.channels, cfg.num_layers, 1, roles).to(device)
    role_params = [p for n, p in model.named_parameters() if n.startswith("roles.")]
    other = [p for n, p in model.named_parameters() if not n.startswith("roles.")]
    groups = [{"params": other, "lr": cfg.lr}]
    if role_params:
        groups.append({"params": role_params, "lr": cfg.role_lr})
    opt = torch.optim.Adam(groups)
    y_train = splits["train"].y.astype(np.float64)
    y_mu, y_sd = (float(y_train.mean()), float(y_train.std() or 1.0)) if task_type == "regression" else (0.0, 1.0)
    higher_better = task_type == "binary_classification"
    gen = np.random.default_rng(seed)
    rows, best = [], None
    use_fd = roles is not None and (cfg.lam_ent > 0 or cfg.lam_tab > 0)
    t_epochs = 0.0
    for epoch in range(cfg.epochs):
        te = _time.perf_counter()
        if roles is not None and cfg.anneal:
            frac = epoch / max(cfg.epochs - 1, 1)
            roles.tau = cfg.tau_start * (cfg.tau_end / cfg.tau_start) ** frac
        model.train()
        losses = []
        for i in gen.permutation(len(batches["train"])):
            b = batches["train"][i]
            opt.zero_grad()
            out = model(b, fd=use_fd).squeeze(-1)
            if task_type == "binary_classification":
                loss = torch.nn.functional.binary_cross_entropy_with_logits(out, b.y)
            else:
                loss = torch.nn.functional.l1_loss(out, (b.y - y_mu) / y_sd)
            total = loss
            if use_fd:
                total = total + cfg.lam_ent * model.last_aux["fd_entity"] + cfg.lam_tab * model.last_aux["fd_table"]
            if roles is not None and cfg.lam_entropy > 0:
                total = total + cfg.lam_entropy * roles.entropy()
            total.backward()
            opt.step()
            losses.append(float(loss.detach()))
        t_epochs += _time.perf_counter() - te
        row = {"epoch": epoch, "train_loss": float(np.mean(losses))}
        for s in ("val", "test"):
            y, p = _predict(model, batches[s], task_type, y_mu, y_sd)
            row[s] = metric(task_type, y, p)
        if roles is not None:
            with torch.no_grad():
                pis = roles.pi(model.table_embeddings(model.encode(batches["train"][0]), batches["train"][0]))
            for t, v in zip(roles.tables, pis.cpu().numpy()):
                row[f"pi_{t}"] = float(v)
        rows.append(row)
        v = row["val"]
        if best is None or (not np.isnan(v) and (v > best["val"] if higher_better else v < best["val"])) \
                or np.isnan(best["val"]):
            best = row
    hist = pd.DataFrame(rows)
    pi = {k[3:]: v for k, v in best.items() if k.startswith("pi_")}
    return FitResult(hist, int(best["epoch"]), float(best["val"]), float(best["test"]), pi,
                     _time.perf_counter() - t0, t_epochs / max(cfg.epochs, 1))


def task_splits(task, splits: Sequence[str] = ("train", "val", "test")) -> dict[str, SeedSplit]:
    """Seed arrays (entity row index, time, label) of a task's splits (test labels unmasked)."""
    et = task.db.table_dict[task.entity_table]
    index = pd.Index(et.df[et.pkey_col])
    out = {}
    for s in splits:
        df = task.get_table(s, mask_input_cols=False)
        ent = index.get_indexer(df[task.entity_col])
        if (ent < 0).any():
            raise ValueError(f"{int((ent < 0).sum())} seeds of split {s!r} name no row of {task.entity_table!r}")
        out[s] = SeedSplit(ent.astype(np.int64), df[task.time_col].to_numpy(dtype=np.int64),
                           df[task.target_col].to_numpy(dtype=np.float64))
    return out


def run_models(task, kinds: Sequence[str], edge_tables: Sequence[str], cfg: TrainConfig, seed: int,
               features: Mapping[str, TableFeatures] | None = None,
               exclude: Mapping[str, Sequence[str]] | None = None,
               time_unit: float | None = None) -> dict[str, FitResult]:
    """Train each model kind on the task's database; returns {kind: FitResult}."""
    from toolkit_frog.features import encode_database

    features = features if features is not None else encode_database(task.db, exclude)
    splits = task_splits(task)
    unit = float(time_unit if time_unit is not None else task.delta)
    out = {}
    for kind in kinds:
        graph = build_graph(task.db, kind, edge_tables)
        out[kind] = fit(graph, features, task.entity_table, splits, task.task_type, kind, cfg, seed,
                        unit, edge_tables)
    return out
