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
from toolkit_frog.graph import (
    HeteroGraph,
    TemporalSampler,
    group_seeds_by_time,
    make_frog_graph,
    make_pkey_fkey_graph,
    make_row2edge_graph,
    role_reach,
)
from toolkit_frog.models import Batch, RDLModel, Roles, SeedMask, make_batch
from toolkit_frog.relational import Database, SchemaError, warn_user

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
    sampler_engine: Literal["auto", "numba", "numpy"] = "auto"  # see TemporalSampler
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
    aggregation: Literal["mean", "mean_count"] = "mean_count"  # mean_count: also log(1 + rows) per relation


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
    pi: dict[str, float] = field(default_factory=dict)  # roles at the best epoch (reached tables only)
    seconds: float = 0.0
    epoch_seconds: float = 0.0
    unreached: dict[str, str] = field(default_factory=dict)  # table -> "not reached (k hops > L layers)"
    sample_seconds: float = 0.0  # building the sampled subgraphs (0 when batches were given)
    pi_start: dict[str, float] = field(default_factory=dict)  # roles before training
    pi_grad: dict[str, float] = field(default_factory=dict)  # mean |d loss / d role logit|, last epoch
    epochs: int = 0

    def role(self, table: str) -> float | str:
        """The learned pi of ``table``, or why there is none."""
        return self.unreached.get(table, self.pi.get(table, float("nan")))

    def role_shift(self, table: str) -> float:
        """How far pi moved from its start (at the best epoch); NaN for an unreached table."""
        if table not in self.pi or table not in self.pi_start:
            return float("nan")
        return self.pi[table] - self.pi_start[table]

    def role_moved(self, table: str) -> bool:
        """Whether pi moved at least ``ROLE_MIN_SHIFT`` from its start: below that, it is no finding."""
        return abs(self.role_shift(table)) >= ROLE_MIN_SHIFT

    def role_note(self, table: str) -> str:
        """The role as a user should read it: the value, or why it means nothing yet."""
        r = self.role(table)
        if isinstance(r, str):
            return r
        shift = self.role_shift(table)
        if np.isnan(shift) or self.role_moved(table):
            return f"{r:.3f}"
        return (
            f"{r:.3f}, not moved: {abs(shift):.3f} from its {self.pi_start[table]:.2f} start after "
            f"{self.epochs} epochs (< {ROLE_MIN_SHIFT}; |gradient| {self.pi_grad.get(table, float('nan')):.1e}): "
            f"train longer, or this table carries no signal for the role"
        )


ROLE_MIN_SHIFT = 0.1  # a role that moved less than this from its start is reported as not moved


class LeakageWarning(UserWarning):
    """A feature that alone predicts the training label almost perfectly (a likely leak)."""


def build_graph(
    db: Database, kind: str, edge_tables: Sequence[str], entity_table: str | None = None
) -> HeteroGraph:
    if entity_table is not None and kind == "row2edge" and entity_table in edge_tables:
        raise SchemaError(
            f"entity table {entity_table!r} is among the edge tables {list(edge_tables)}: its rows "
            f"are the seeds, so they must stay nodes; drop it from edge_tables"
        )
    if kind == "row2node":
        return make_pkey_fkey_graph(db)
    if kind == "row2edge":
        return make_row2edge_graph(db, edge_tables)
    if kind == "frog":
        return make_frog_graph(db, edge_tables)
    raise ValueError(f"model must be one of {', '.join(MODEL_KINDS)}, got {kind!r}")


def make_batches(
    graph: HeteroGraph,
    features: Mapping[str, TableFeatures],
    entity_type: str,
    split: SeedSplit,
    cfg: TrainConfig,
    time_unit: float,
    seed: int,
    unknown_at_seed: Sequence[str] = (),
    sampler: TemporalSampler | None = None,
) -> list[Batch]:
    """One sampled subgraph per (seed time, chunk of batch_size seeds).

    ``unknown_at_seed``: entity-table columns masked in the seed rows (and rows of the seed time).
    """
    if entity_type not in graph.num_nodes:
        raise SchemaError(
            f"entity table {entity_type!r} is not a node type of this graph (it is an edge table?); "
            f"node types: {', '.join(graph.num_nodes)}"
        )
    sampler = sampler or TemporalSampler(
        graph, cfg.num_neighbors[: cfg.num_layers], cfg.strategy, cfg.sampler_engine
    )
    rng = np.random.default_rng(seed)
    mask = (
        SeedMask(entity_type, *features[entity_type].column_positions(unknown_at_seed))
        if unknown_at_seed
        else None
    )
    batches = []
    for pos in group_seeds_by_time(split.time, cfg.batch_size):
        sub = sampler.sample(entity_type, split.entity[pos], int(split.time[pos[0]]), rng)
        batches.append(make_batch(sub, graph, features, split.y[pos], time_unit, mask))
    return batches


def seed_features(features: TableFeatures, entity: np.ndarray, unknown_at_seed: Sequence[str] = ()):
    """(numeric, categorical) features of the seed rows with ``unknown_at_seed`` read as missing."""
    num, cat = features.numeric[entity].copy(), features.categorical[entity].copy()
    n_pos, m_pos, c_pos = features.column_positions(unknown_at_seed)
    num[:, n_pos], num[:, m_pos], cat[:, c_pos] = 0.0, 1.0, 0
    return num, cat


def single_feature_leaks(
    features: TableFeatures,
    split: SeedSplit,
    task_type: str,
    unknown_at_seed: Sequence[str] = (),
    threshold: float = 0.99,
) -> dict[str, float]:
    """Seed-row features that alone predict the training label almost perfectly.

    Score: max(AUROC, 1 - AUROC) (binary) or |Spearman correlation| (regression) of the column,
    a categorical column through its per-category mean label (only with <= 50 categories and
    >= 5 rows per category on average). Returns {column: score} for scores >= threshold.
    """
    from scipy.stats import spearmanr
    from sklearn.metrics import roc_auc_score

    y = split.y
    if len(y) < 20 or len(np.unique(y)) < 2:
        return {}
    num, cat = seed_features(features, split.entity, unknown_at_seed)
    cols = [
        (name, num[:, i]) for i, name in enumerate(features.numeric_cols) if not name.endswith("__missing")
    ]
    for i, name in enumerate(features.categorical_cols):
        codes = cat[:, i]
        n_cat = len(np.unique(codes))
        if 1 < n_cat <= 50 and len(codes) >= 5 * n_cat:
            cols.append((name, pd.Series(y).groupby(codes).transform("mean").to_numpy()))
    out = {}
    for name, x in cols:
        if np.ptp(x) == 0:
            continue
        if task_type == "binary_classification":
            a = roc_auc_score(y, x)
            score = max(a, 1 - a)
        else:
            score = abs(spearmanr(x, y).statistic)
        if score >= threshold:
            out[name] = float(score)
    return out


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
            ps.append(
                (torch.sigmoid(out) if task_type == "binary_classification" else out * y_sd + y_mu)
                .cpu()
                .numpy()
            )
            ys.append(b.y.cpu().numpy())
    return np.concatenate(ys), np.concatenate(ps)


def fit(
    graph: HeteroGraph,
    features: Mapping[str, TableFeatures],
    entity_type: str,
    splits: Mapping[str, SeedSplit],
    task_type: str,
    kind: str,
    cfg: TrainConfig,
    seed: int,
    time_unit: float = 1.0,
    edge_tables: Sequence[str] = (),
    batches: Mapping[str, list[Batch]] | None = None,
    unknown_at_seed: Sequence[str] = (),
) -> FitResult:
    """Train ``kind`` on ``graph`` (built for that kind) and test at the best validation epoch.

    FROG roles of candidate tables outside the receptive field (more hops from the entity than
    layers) get no gradient: they are reported in ``unreached`` and left out of ``pi``.
    """
    t0 = _time.perf_counter()
    torch.manual_seed(seed)
    device = torch.device(cfg.device)
    sample_s = 0.0
    if batches is None:
        ts = _time.perf_counter()
        sampler = TemporalSampler(
            graph, cfg.num_neighbors[: cfg.num_layers], cfg.strategy, cfg.sampler_engine
        )
        batches = {
            s: make_batches(
                graph, features, entity_type, splits[s], cfg, time_unit, seed + i, unknown_at_seed, sampler
            )
            for i, s in enumerate(("train", "val", "test"))
        }
        sample_s = _time.perf_counter() - ts
    unreached = {}
    if kind == "frog":
        hops = role_reach(graph, entity_type, edge_tables)
        unreached = {
            t: f"not reached ({'no path' if h is None else f'{h} hops'} > {cfg.num_layers} layers)"
            for t, h in hops.items()
            if h is None or h > cfg.num_layers
        }
    batches = {s: [b.to(device) for b in bs] for s, bs in batches.items()}
    roles = None
    if kind == "frog":
        roles = Roles(
            edge_tables,
            cfg.role_mode,
            cfg.conditioning,
            cfg.channels,
            tau=cfg.tau_start if cfg.anneal else 1.0,
        )
        roles.generator = torch.Generator().manual_seed(seed)
    model = RDLModel(
        graph, features, entity_type, cfg.channels, cfg.num_layers, 1, roles, aggregation=cfg.aggregation
    ).to(device)
    role_params = [p for n, p in model.named_parameters() if n.startswith("roles.")]
    other = [p for n, p in model.named_parameters() if not n.startswith("roles.")]
    groups = [{"params": other, "lr": cfg.lr}]
    if role_params:
        groups.append({"params": role_params, "lr": cfg.role_lr})
    opt = torch.optim.Adam(groups)
    y_train = splits["train"].y.astype(np.float64)
    y_mu, y_sd = (
        (float(y_train.mean()), float(y_train.std() or 1.0)) if task_type == "regression" else (0.0, 1.0)
    )
    higher_better = task_type == "binary_classification"
    gen = np.random.default_rng(seed)
    rows, best = [], None
    use_fd = roles is not None and (cfg.lam_ent > 0 or cfg.lam_tab > 0)
    t_epochs = 0.0
    pi_start = _current_pi(model, roles, batches["train"]) if roles is not None else {}
    grad_abs: list[np.ndarray] = []
    for epoch in range(cfg.epochs):
        te = _time.perf_counter()
        if roles is not None and cfg.anneal:
            frac = epoch / max(cfg.epochs - 1, 1)
            roles.tau = cfg.tau_start * (cfg.tau_end / cfg.tau_start) ** frac
        model.train()
        losses, grad_abs = [], []
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
                total = (
                    total
                    + cfg.lam_ent * model.last_aux["fd_entity"]
                    + cfg.lam_tab * model.last_aux["fd_table"]
                )
            if roles is not None and cfg.lam_entropy > 0:
                total = total + cfg.lam_entropy * roles.entropy()
            total.backward()
            if roles is not None and roles.logits.grad is not None:
                grad_abs.append(roles.logits.grad.detach().abs().cpu().numpy())
            opt.step()
            losses.append(float(loss.detach()))
        t_epochs += _time.perf_counter() - te
        row = {"epoch": epoch, "train_loss": float(np.mean(losses))}
        for s in ("val", "test"):
            y, p = _predict(model, batches[s], task_type, y_mu, y_sd)
            row[s] = metric(task_type, y, p)
        if roles is not None:
            row.update({f"pi_{t}": v for t, v in _current_pi(model, roles, batches["train"]).items()})
        rows.append(row)
        v = row["val"]
        if (
            best is None
            or (not np.isnan(v) and (v > best["val"] if higher_better else v < best["val"]))
            or np.isnan(best["val"])
        ):
            best = row
    hist = pd.DataFrame(rows)
    for t in unreached:  # no gradient reaches these roles: pi stays at its initial value, not learned
        hist[f"pi_{t}"] = np.nan
    pi = {k[3:]: v for k, v in best.items() if k.startswith("pi_") and k[3:] not in unreached}
    return FitResult(
        hist,
        int(best["epoch"]),
        float(best["val"]),
        float(best["test"]),
        pi,
        _time.perf_counter() - t0,
        t_epochs / max(cfg.epochs, 1),
        unreached,
        sample_s,
        {t: v for t, v in pi_start.items() if t not in unreached},
        (
            {t: float(g) for t, g in zip(roles.tables, np.mean(grad_abs, 0)) if t not in unreached}
            if roles is not None and grad_abs
            else {}
        ),
        cfg.epochs,
    )


def _current_pi(model: RDLModel, roles: Roles, train: list[Batch]) -> dict[str, float]:
    with torch.no_grad():  # free logits need no table embedding (and no encoding of a batch)
        b0 = train[0]
        pis = roles.pi(model.table_embeddings(model.encode(b0), b0) if roles.mlp is not None else None)
    return {t: float(v) for t, v in zip(roles.tables, pis.cpu().numpy())}


def task_splits(task, splits: Sequence[str] = ("train", "val", "test")) -> dict[str, SeedSplit]:
    """Seed arrays (entity row index, time, label) of a task's splits (test labels unmasked)."""
    et = task.db.table_dict[task.entity_table]
    index = pd.Index(et.df[et.pkey_col])
    out = {}
    for s in splits:
        df = task.get_table(s, mask_input_cols=False)
        ent = index.get_indexer(df[task.entity_col])
        if (ent < 0).any():
            raise ValueError(
                f"{int((ent < 0).sum())} seeds of split {s!r} name no row of {task.entity_table!r}"
            )
        out[s] = SeedSplit(
            ent.astype(np.int64),
            df[task.time_col].to_numpy(dtype=np.int64),
            df[task.target_col].to_numpy(dtype=np.float64),
        )
    return out


def task_features(
    task,
    exclude: Mapping[str, Sequence[str]] | None = None,
    column_types: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, TableFeatures]:
    """Column encodings fitted on the rows visible at the last training timestamp."""
    from toolkit_frog.features import encode_database

    fit_time = int(task.split_timestamps("train")[-1])
    return encode_database(
        task.db,
        exclude,
        fit_time=fit_time,
        column_types=column_types,
        always_missing={task.entity_table: task.unknown_at_seed},
    )


def warn_single_feature_leaks(
    task, features: Mapping[str, TableFeatures], train: SeedSplit
) -> dict[str, float]:
    leaks = single_feature_leaks(features[task.entity_table], train, task.task_type, task.unknown_at_seed)
    if leaks:
        shown = ", ".join(f"{c} ({v:.3f})" for c, v in leaks.items())
        warn_user(
            f"entity table {task.entity_table!r}: feature(s) {shown} alone predict the training label almost "
            f"perfectly (AUROC / |Spearman| >= 0.99): a post-event column leaks the label? Declare it "
            f"unknown_at_seed (masked for the seed row, kept for past rows) or exclude it",
            LeakageWarning,
        )
    return leaks


def run_models(
    task,
    kinds: Sequence[str],
    edge_tables: Sequence[str],
    cfg: TrainConfig,
    seed: int,
    features: Mapping[str, TableFeatures] | None = None,
    exclude: Mapping[str, Sequence[str]] | None = None,
    time_unit: float | None = None,
    column_types: Mapping[str, Mapping[str, str]] | None = None,
) -> dict[str, FitResult]:
    """Train each model kind on the task's database; returns {kind: FitResult}.

    Features are fitted on rows visible at the last training timestamp; the seed rows' features
    are checked for single-column leaks (:class:`LeakageWarning`).
    """
    features = features if features is not None else task_features(task, exclude, column_types)
    splits = task_splits(task)
    warn_single_feature_leaks(task, features, splits["train"])
    unit = float(time_unit if time_unit is not None else task.delta)
    out = {}
    for kind in kinds:
        graph = build_graph(task.db, kind, edge_tables, task.entity_table)
        out[kind] = fit(
            graph,
            features,
            task.entity_table,
            splits,
            task.task_type,
            kind,
            cfg,
            seed,
            unit,
            edge_tables,
            unknown_at_seed=task.unknown_at_seed,
        )
    return out
