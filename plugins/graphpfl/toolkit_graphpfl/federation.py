"""The federated simulator: rounds, client sampling, local updates, aggregation, personalised eval.

Pure orchestration over :mod:`toolkit_graphpfl.strategies` and :mod:`toolkit_graphpfl.model`; no
toolkit imports. Clients of a round can run through any ``map_fn(fn, tasks) -> results`` (serial by
default; the simulation passes the core's process/Dask executors). Every random draw of a client
update comes from a generator seeded by (seed, round, client), so results do not depend on where
or in which order clients run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F

from toolkit_graphpfl.graphs import Graph, GraphSet, split_train_val_test
from toolkit_graphpfl.model import GIN, Batch, ModelConfig, make_batches
from toolkit_graphpfl.strategies import (
    ClientState,
    FisherAccumulator,
    FLConfig,
    Params,
    Strategy,
    empirical_fisher,
    normalise_fisher,
)

BYTES_PER_PARAM = 4  # float32 on the wire


@dataclass
class ClientData:
    """A client's pre-collated batches: train (fixed composition, order shuffled per epoch), val, test."""

    train: list[Batch]
    val: list[Batch]
    test: list[Batch]
    n_train: int
    n_val: int
    n_test: int


def build_clients(
    gs: GraphSet,
    parts: Sequence[np.ndarray],
    batch_size: int,
    seed: int,
    device: str = "cpu",
    eval_batch_size: int = 64,
    batching: str = "random",
    standardize: bool = True,
) -> list[ClientData]:
    """Split each client's graphs into train/val/test (seeded) and pre-collate them once.

    ``batching``: training batches of seeded random graphs (``"random"``) or of graphs of similar size
    (``"bucketed"``: less padding, but nearly one-class batches where size predicts the label).
    Evaluation batches are always size-bucketed (order does not change accuracies). The splits do not
    depend on ``batching``. ``standardize``: the continuous attribute columns (``gs.continuous``) are
    standardised with the mean and standard deviation of the client's own training nodes, applied
    unchanged to its validation and test graphs (no statistic of those reaches training).
    """
    if batching not in ("random", "bucketed"):
        raise ValueError(f"batching must be 'random' or 'bucketed', got {batching!r}")
    rng = np.random.default_rng([seed, 7])
    clients = []
    for idx in parts:
        tr, va, te = split_train_val_test(len(idx), rng)
        graphs = [gs.graphs[i] for i in idx]
        if standardize and gs.continuous:
            graphs = standardise_on(graphs, [graphs[i] for i in tr], gs.continuous)
        pick = lambda ids: [graphs[i] for i in ids]
        clients.append(
            ClientData(
                train=make_batches(pick(tr), batch_size, rng, device, bucket=batching == "bucketed"),
                val=make_batches(pick(va), eval_batch_size, None, device),
                test=make_batches(pick(te), eval_batch_size, None, device),
                n_train=len(tr),
                n_val=len(va),
                n_test=len(te),
            )
        )
    return clients


def standardise_on(graphs: Sequence[Graph], fit: Sequence[Graph], columns: Sequence[int]) -> list[Graph]:
    """``graphs`` with ``columns`` standardised by the node mean and sd over the graphs ``fit`` only
    (an sd below 1e-6, a constant column, divides by 1)."""
    cols = list(columns)
    stacked = np.concatenate([g.x[:, cols] for g in fit], axis=0).astype(np.float64)
    mean = stacked.mean(axis=0)
    sd = stacked.std(axis=0)
    sd = np.where(sd < 1e-6, 1.0, sd)
    out = []
    for g in graphs:
        x = g.x.copy()
        x[:, cols] = ((x[:, cols] - mean) / sd).astype(np.float32)
        out.append(Graph(x, g.edges, g.y))
    return out


def init_params(model_cfg: ModelConfig, seed: int) -> Params:
    """The common initial model of every client, from ``seed``."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = GIN(model_cfg)
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


_MODELS: dict[tuple[ModelConfig, str], GIN] = {}


def _model(model_cfg: ModelConfig, device: str) -> GIN:
    """One reusable module per (config, device) in each process; parameters are loaded per use."""
    key = (model_cfg, device)
    if key not in _MODELS:
        _MODELS[key] = GIN(model_cfg).to(device)
    return _MODELS[key]


@dataclass
class ClientTask:
    strategy: Strategy
    model_cfg: ModelConfig
    state: ClientState
    global_shared: Params
    server_extra: dict[str, Params]
    train: list[Batch]
    seed: tuple[int, int, int]
    device: str


@dataclass
class ClientResult:
    state: ClientState
    loss: float
    seconds: float
    fisher_seconds: float


def local_objective(model: GIN, batch: Batch, cfg: FLConfig, gen: torch.Generator | None) -> torch.Tensor:
    logits, aux = model(batch, gen)
    loss = F.cross_entropy(logits, batch.y)
    if "ssl" in aux and cfg.lambda_ssl:
        loss = loss + cfg.lambda_ssl * aux["ssl"]
    if "kl" in aux and cfg.beta_vib:
        loss = loss + cfg.beta_vib * aux["kl"]
    return loss


def client_update(task: ClientTask) -> ClientResult:
    """One client's local training (module level: it pickles to process and Dask workers)."""
    t0 = time.perf_counter()
    strategy, cfg, state = task.strategy, task.strategy.cfg, task.state
    model = _model(task.model_cfg, task.device)
    start = strategy.start_params(state, task.global_shared)
    model.load_state_dict(start)
    model.train()
    params = dict(model.named_parameters())
    opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    gen = torch.Generator(device=task.device).manual_seed(
        int(np.random.SeedSequence(task.seed).generate_state(1)[0])
    )
    order_rng = np.random.default_rng(task.seed)
    want_fisher = strategy.needs_fisher()
    acc = FisherAccumulator(params) if want_fisher and cfg.fisher_source == "training" else None
    fisher_seconds = 0.0
    losses = []
    for _ in range(cfg.local_epochs):
        for bi in order_rng.permutation(len(task.train)):
            opt.zero_grad(set_to_none=True)
            loss = local_objective(model, task.train[bi], cfg, gen)
            loss.backward()
            if acc is not None:
                tf = time.perf_counter()
                acc.add({k: p.grad for k, p in params.items()})  # before the penalty's gradient is added
                fisher_seconds += time.perf_counter() - tf
            pen = strategy.penalty(params, state, task.global_shared, task.server_extra)
            if pen is not None:
                pen.backward()
                loss = loss + pen.detach()
            opt.step()
            losses.append(float(loss.detach()))
    new_params = {k: v.detach().clone() for k, v in model.state_dict().items()}
    fisher = raw = None
    if want_fisher:
        tf = time.perf_counter()
        if acc is not None:
            raw = acc.value()
        else:
            raw = empirical_fisher(model, task.train, lambda m, b: local_objective(m, b, cfg, gen))
        fisher = normalise_fisher(raw, cfg.fisher_norm)
        fisher_seconds += time.perf_counter() - tf
    new_state = ClientState(
        new_params,
        fisher if fisher is not None else state.fisher,
        raw if raw is not None else state.raw_fisher,
        state.n_train,
    )
    return ClientResult(
        new_state,
        float(np.mean(losses)) if losses else float("nan"),
        time.perf_counter() - t0,
        fisher_seconds,
    )


@torch.no_grad()
def evaluate(model: GIN, batches: Sequence[Batch]) -> tuple[int, int, float]:
    """(correct, total, summed cross-entropy) over ``batches``."""
    model.eval()
    correct = total = 0
    loss = 0.0
    for b in batches:
        logits, _ = model(b)
        correct += int((logits.argmax(-1) == b.y).sum())
        total += b.n_graphs
        loss += float(F.cross_entropy(logits, b.y, reduction="sum"))
    return correct, total, loss


def serial_map(fn: Callable, tasks: Sequence) -> list:
    return [fn(t) for t in tasks]


class PatienceRule:
    """The stopping rule: stop after ``patience`` evaluated rounds in a row without a pooled validation
    loss lower than the best so far (``patience = 0``: never stop)."""

    def __init__(self, patience: int) -> None:
        if patience < 0:
            raise ValueError(f"patience must be >= 0, got {patience}")
        self.patience = patience
        self.best_loss = float("inf")
        self.since_best = 0

    def update(self, val_loss: float) -> bool:
        """Record one evaluated round's validation loss; True when training should stop now."""
        self.since_best = 0 if val_loss < self.best_loss else self.since_best + 1
        self.best_loss = min(self.best_loss, val_loss)
        return bool(self.patience) and self.since_best >= self.patience


def rows_under_patience(rows: Sequence[dict], patience: int) -> list[dict]:
    """The rounds a run with ``patience`` would have run, read off a longer run's rows (``patience=0`` or
    a larger patience, same seed and parameters otherwise): training is seeded per (seed, round, client)
    and the rule only ends the loop, so a shorter run is a prefix of the longer one."""
    rule = PatienceRule(patience)
    for i, row in enumerate(rows):
        if "val_loss" in row and rule.update(row["val_loss"]):
            return list(rows[: i + 1])
    return list(rows)


def stopped_by_rule(rows: Sequence[dict], patience: int, eval_every: int = 1) -> bool:
    """Whether the stopping rule with ``patience`` fires within a run's ``rows`` (its last round included).

    ``n_rounds`` only bounds the training loop (no schedule or anything else reads it), so a run whose
    rule fired is the same, round for round, under any larger ``n_rounds``: it stops where it stopped.
    A run whose rule did not fire reached its maximum and has to be run again under a larger one. With
    ``eval_every > 1`` the cap's own round is evaluated only because it is the cap, so the rule must fire
    at a round that is evaluated anyway (a multiple of ``eval_every``).
    """
    rule = PatienceRule(patience)
    for row in rows:
        if "val_loss" in row and rule.update(row["val_loss"]):
            return row["round"] % eval_every == 0
    return False


def replay_patience(rows: Sequence[dict], patience: int, n_rounds: int, selection: str = "val_loss") -> dict:
    """What a run with ``patience`` (and the same ``n_rounds``) would report, from a run with patience 0 or
    a larger patience: its stop round, whether the rule stopped it, and the metrics at its reported round."""
    kept = rows_under_patience(rows, patience)
    best = best_round(kept, selection=selection)
    return {
        "best_round": best["round"],
        "stop_round": kept[-1]["round"],
        "stopped_early": len(kept) < len(rows) or (kept[-1]["round"] < n_rounds and bool(patience)),
        **{k: best[k] for k in ("test_acc_pooled", "test_acc_client_mean", "val_acc_pooled")},
        "final_test_acc_pooled": kept[-1]["test_acc_pooled"],
    }


@dataclass
class FederationResult:
    rounds: list[dict]  # one row per evaluated round
    best: dict  # the metrics at the best validation round
    global_shared: Params
    states: list[ClientState]
    n_shared_params: int
    n_params: int
    timings: dict = field(default_factory=dict)
    stop_round: int = 0  # the last round run (n_rounds unless the stopping rule stopped it)
    stopped_early: bool = False


def run_federation(
    clients: Sequence[ClientData],
    strategy: Strategy,
    base_cfg: ModelConfig,
    seed: int,
    device: str = "cpu",
    map_fn: Callable[[Callable, Sequence], list] | None = None,
    on_round: Callable[[dict], None] | None = None,
) -> FederationResult:
    """Run up to ``strategy.cfg.n_rounds`` rounds of federated training and evaluate every round.

    Stopping rule (validation data only): after ``cfg.patience`` evaluated rounds in a row without a
    lower pooled validation loss than the best so far, training stops (``patience = 0``: all rounds).
    The reported round is the one ``cfg.selection`` picks among the rounds run (:func:`best_round`).

    Personalised evaluation: each client is evaluated on its own val and test graphs with its own
    model, the global one, or the better of the two on its validation graphs
    (``strategy.evaluation_mode()``); client-mean and pooled accuracies are recorded; the reported test
    accuracies are those of that reported round.
    """
    cfg = strategy.cfg
    map_fn = map_fn or serial_map
    model_cfg = strategy.model_config(base_cfg)
    init = init_params(model_cfg, seed)
    init = {k: v.to(device) for k, v in init.items()}
    names = list(init)
    shared = strategy.shared_names(names)
    global_shared = {k: init[k].clone() for k in shared}
    states = [ClientState({k: v.clone() for k, v in init.items()}, n_train=c.n_train) for c in clients]
    n_params = sum(v.numel() for v in init.values())
    n_shared = sum(init[k].numel() for k in shared)
    rng = np.random.default_rng([seed, 11])
    eval_model = _model(model_cfg, device)
    server_extra: dict[str, Params] = {}
    rows: list[dict] = []
    t_start = time.perf_counter()
    rule, stopped = PatienceRule(cfg.patience), False
    for rnd in range(1, cfg.n_rounds + 1):
        t0, c0 = time.perf_counter(), time.process_time()
        n_pick = max(1, int(round(cfg.client_fraction * len(clients))))
        picked = (
            np.sort(rng.choice(len(clients), size=n_pick, replace=False))
            if n_pick < len(clients)
            else np.arange(len(clients))
        )
        tasks = [
            ClientTask(
                strategy,
                model_cfg,
                states[c],
                global_shared,
                server_extra,
                clients[c].train,
                (seed, rnd, int(c)),
                device,
            )
            for c in picked
        ]
        results = map_fn(client_update, tasks)
        t_train = time.perf_counter() - t0
        for c, res in zip(picked, results):
            states[c] = res.state
        sizes = [clients[c].n_train for c in picked]
        uploads = [{k: states[c].params[k] for k in shared} for c in picked]
        fishers = [states[c].raw_fisher for c in picked]
        extra_down = sum(v.numel() for f in server_extra.values() for v in f.values())
        global_shared = strategy.aggregate(global_shared, uploads, sizes, fishers)
        server_extra = strategy.server_extra(uploads, sizes, fishers)
        n_fisher_up = n_shared if strategy.uploads_fisher else 0
        row = {
            "round": rnd,
            "n_clients_round": len(picked),
            "train_loss": float(np.mean([r.loss for r in results])),
            "bytes_up": BYTES_PER_PARAM * len(picked) * (n_shared + n_fisher_up),
            "bytes_down": BYTES_PER_PARAM * len(picked) * (n_shared + extra_down),
            "client_time_s": float(sum(r.seconds for r in results)),
            "fisher_time_s": float(sum(r.fisher_seconds for r in results)),
            "train_time_s": t_train,
        }
        if rnd % cfg.eval_every == 0 or rnd == cfg.n_rounds:
            te0 = time.perf_counter()
            row.update(_evaluate_all(eval_model, strategy, states, global_shared, clients))
            row["eval_time_s"] = time.perf_counter() - te0
        row["round_time_s"] = time.perf_counter() - t0
        # CPU time of this process: robust to other load (clients in other processes are not counted)
        row["round_cpu_time_s"] = time.process_time() - c0
        rows.append(row)
        if on_round is not None:
            on_round(row)
        if "val_loss" in row and rule.update(row["val_loss"]) and rnd < cfg.n_rounds:
            stopped = True
            break
    best = best_round(rows, selection=cfg.selection)
    timings = {"total_time_s": time.perf_counter() - t_start}
    return FederationResult(
        rows,
        dict(best),
        global_shared,
        states,
        n_shared,
        n_params,
        timings,
        stop_round=rows[-1]["round"],
        stopped_early=stopped,
    )


SELECTIONS = ("val_loss", "val_acc")


def best_round(rows: Sequence[dict], variant: str = "", selection: str = "val_loss") -> dict:
    """The evaluated row that ``selection`` picks: the lowest pooled validation loss (ties: higher
    validation accuracy, then the earlier round), or with ``"val_acc"`` the best pooled validation
    accuracy (ties: lower validation loss, then the earlier round); ``variant`` "personal" / "global"
    reads a select-mode row's columns of that variant."""
    if selection not in SELECTIONS:
        raise ValueError(f"selection must be one of {', '.join(SELECTIONS)}, got {selection!r}")
    sfx = f"_{variant}" if variant else ""
    evaluated = [r for r in rows if f"val_acc_pooled{sfx}" in r]
    if selection == "val_loss":
        return max(evaluated, key=lambda r: (-r[f"val_loss{sfx}"], r[f"val_acc_pooled{sfx}"], -r["round"]))
    return max(evaluated, key=lambda r: (r[f"val_acc_pooled{sfx}"], -r[f"val_loss{sfx}"], -r["round"]))


class ClientScore(NamedTuple):
    """One client's evaluation of one model: validation counts and summed loss, test counts."""

    val_correct: int
    val_n: int
    val_loss: float
    test_correct: int
    test_n: int

    @property
    def val_acc(self) -> float:
        return self.val_correct / self.val_n


def _score(model: GIN, client: ClientData) -> ClientScore:
    val_correct, val_n, val_loss = evaluate(model, client.val)
    test_correct, test_n, _ = evaluate(model, client.test)
    return ClientScore(val_correct, val_n, val_loss, test_correct, test_n)


def _evaluate_all(
    model: GIN,
    strategy: Strategy,
    states: Sequence[ClientState],
    global_shared: Params,
    clients: Sequence[ClientData],
) -> dict:
    """Accuracies of every client's evaluated model, client-mean and pooled.

    Mode "select": each client is scored with both its own and the global model and keeps the one
    with the higher validation accuracy (ties: lower validation loss, then the global one); the row
    then also holds both variants' pooled accuracies and the share of clients that kept their own.
    """
    mode = strategy.evaluation_mode()
    variants = ("personal", "global") if mode == "select" else (mode,)
    scores: dict[str, list[ClientScore]] = {v: [] for v in variants}
    for st, c in zip(states, clients):
        for v in variants:
            model.load_state_dict(strategy.eval_params(st, global_shared, v))
            scores[v].append(_score(model, c))
    if mode == "select":
        chosen = [
            p if (p.val_acc, -p.val_loss) > (g.val_acc, -g.val_loss) else g
            for p, g in zip(scores["personal"], scores["global"])
        ]
        row = _pool(chosen)
        for v in variants:
            pooled = _pool(scores[v])
            row.update({f"{k}_{v}": pooled[k] for k in ("val_acc_pooled", "val_loss", "test_acc_pooled")})
        row["share_personal"] = float(np.mean([c is p for c, p in zip(chosen, scores["personal"])]))
        return row
    return _pool(scores[mode])


def _pool(scores: Sequence[ClientScore]) -> dict:
    """Client-mean and pooled accuracies (and pooled validation loss) over clients."""
    vc, vn, vl, tc, tn = (np.array(column, dtype=float) for column in zip(*scores))
    return {
        "val_acc_pooled": float(vc.sum() / vn.sum()),
        "val_acc_client_mean": float(np.mean(vc / vn)),
        "val_loss": float(vl.sum() / vn.sum()),
        "test_acc_pooled": float(tc.sum() / tn.sum()),
        "test_acc_client_mean": float(np.mean(tc / tn)),
    }
