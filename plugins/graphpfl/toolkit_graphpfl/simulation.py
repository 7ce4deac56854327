"""Registered simulations of the graphpfl plugin: parameter models and run functions."""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Literal

import numpy as np
from pydantic import ValidationInfo, field_validator

from toolkit.config import Field, Params
from toolkit.errors import ParameterError
from toolkit.specs import PointCost, Simulation, SimulationOutput

ALGORITHM_HELP = (
    "federated strategy: local, fedavg, fedprox, fedper, fedcurv, frpa, fedavg_sl, graphpfl, "
    "or one registered by a plugin through toolkit_graphpfl_register_strategies"
)


class NoiseRobustnessParams(Params):
    dataset: str = Field(
        "planted",
        description="'planted' (synthetic motifs), a TU name under the data root in any case "
        "(MUTAG, proteins, NCI1, ...), a registered dataset 'plugin.name' whose loader returns a "
        "torch_geometric dataset, a list of Data with y, or a GraphSet; or several joined by '+' "
        "(one client group and one label space per dataset)",
    )
    n_graphs: int | None = Field(
        None,
        ge=20,
        description="graphs in the synthetic 'planted' set (default 200; "
        "not applicable, and not recorded, without 'planted')",
    )
    subsample: int | None = Field(
        None,
        ge=2,
        description="keep this many graphs of each dataset: a random subset "
        "seeded by the run's seed, stratified by class (default: all graphs)",
    )
    features: Literal["labels+attributes", "labels", "attributes"] = Field(
        "labels+attributes",
        description="TU node features: one-hot node labels, continuous node attributes, or both "
        "(whatever the dataset has)",
    )
    attribute_columns: list[int] | None = Field(
        None, description="TU attribute columns kept, 0-based (default all)"
    )
    standardize: bool = Field(
        True,
        description="standardise continuous attributes per client with its training "
        "graphs' mean and sd (applied to its val/test graphs)",
    )
    algorithm: str = Field("graphpfl", description=ALGORITHM_HELP)
    noise_p: float = Field(
        0.0, ge=0.0, le=1.0, description="topology noise: fraction of edges replaced at random"
    )
    feature_noise: float = Field(0.0, ge=0.0, description="std of Gaussian noise added to node features")
    partition: Literal["random", "dirichlet", "topology"] = Field(
        "random", description="how graphs go to clients"
    )
    dirichlet_alpha: float | None = Field(
        None,
        gt=0.0,
        description="label-skew concentration (partition='dirichlet'; default 0.5, not applicable otherwise)",
    )
    min_per_client: int | None = Field(
        None,
        ge=3,
        description="minimum graphs per client (partition='dirichlet'; default 10, not applicable otherwise)",
    )
    n_clients: int = Field(5, ge=1, description="number of clients")
    client_fraction: float = Field(1.0, gt=0.0, le=1.0, description="fraction of clients sampled per round")
    n_rounds: int = Field(
        50,
        ge=1,
        description="federated rounds: every algorithm runs all of them (the same budget) unless patience > 0",
    )
    patience: int = Field(
        0,
        ge=0,
        description="stopping rule: stop after this many evaluated rounds without a lower pooled validation "
        "loss (0 = run all n_rounds: the same budget for every algorithm, for comparisons)",
    )
    selection: Literal["val_loss", "val_acc"] = Field(
        "val_loss",
        description="reported round: lowest pooled validation loss, or best pooled validation accuracy",
    )
    local_epochs: int = Field(1, ge=1, description="local epochs per round")
    batch_size: int = Field(32, ge=1, description="graphs per training batch")
    batching: Literal["random", "bucketed"] = Field(
        "random",
        description="training batches: seeded random graphs, or graphs sorted by size (less padding; "
        "nearly one-class batches on PROTEINS and MUTAG, where size predicts the label)",
    )
    lr: float = Field(
        3e-3,
        gt=0.0,
        description="Adam learning rate (3e-3: best validation for FedAvg and GraphP-FL on pilot seeds; the paper uses 1e-3)",
    )
    weight_decay: float = Field(5e-4, ge=0.0, description="Adam weight decay")
    hidden: int = Field(64, ge=1, description="GIN hidden width")
    n_layers: int = Field(3, ge=1, description="GIN layers")
    dropout: float = Field(0.5, ge=0.0, lt=1.0, description="dropout before and inside the head")
    prox_mu: float = Field(0.01, ge=0.0, description="FedProx mu")
    lambda_fisher: float = Field(
        0.1, ge=0.0, description="FRPA / FedCurv penalty strength lambda_F (0 = off)"
    )
    frpa_form: Literal["A", "B"] = Field(
        "A", description="FRPA form: A (anchor local, weight F) or B (anchor global, weight 1-F)"
    )
    fisher_norm: Literal["tensor", "global"] = Field("tensor", description="Fisher normalisation into [0, 1]")
    fisher_source: Literal["training", "pass"] = Field(
        "training", description="Fisher from the local epoch's gradients or an extra pass"
    )
    aggregation: Literal["samples", "fisher"] = Field("samples", description="server weights (frpa/graphpfl)")
    lambda_ssl: float = Field(
        0.1, ge=0.0, description="weight of the self-supervised link-reconstruction loss"
    )
    beta_vib: float = Field(1e-3, ge=0.0, description="VIB KL weight")
    keep_local: Literal["none", "head", "head+structure"] = Field(
        "none", description="graphpfl: parameters kept local"
    )
    sl_topk: int = Field(8, ge=1, description="structure learner: neighbours per node in the learned graph")
    sl_beta: float = Field(0.5, ge=0.0, le=1.0, description="structure learner: weight of the learned graph")
    sl_tau: float = Field(0.2, gt=0.0, description="structure learner: similarity temperature")
    sl_embed: Literal["mlp", "gin"] = Field(
        "mlp", description="structure learner node embedding: MLP(x) or MLP(x + A x)"
    )
    use_structure: bool = Field(True, description="graphpfl ablation: structure learner on")
    use_msff: bool = Field(
        False,
        description="graphpfl: MSFF (all-layer readout) on (off by default: pilot seeds, plugin README)",
    )
    use_vib: bool = Field(False, description="graphpfl: VIB on (off by default: pilot seeds, plugin README)")
    eval_every: int = Field(1, ge=1, description="evaluate every k rounds (and at the last)")
    evaluation: Literal["auto", "personal", "global", "select"] = Field(
        "auto",
        description="model each client is evaluated with: its own (personal), the server's (global), or per "
        "client the better of the two on its validation graphs (select); auto = the strategy's default",
    )
    client_executor: Literal["serial", "processes", "dask"] = Field(
        "serial", description="where a round's clients run"
    )
    n_workers: int = Field(2, ge=1, description="workers for client_executor processes/dask")
    device: Literal["cpu", "cuda", "auto"] = Field("cpu", description="torch device")
    n_threads: int = Field(1, ge=1, description="torch threads (1 is fastest on small CPUs)")

    @field_validator("n_graphs")
    @classmethod
    def _n_graphs_applies(cls, value: int | None, info: ValidationInfo) -> int | None:
        return _applicable("n_graphs", value, _has_planted(info), 200, "the dataset includes 'planted'")

    @field_validator("dirichlet_alpha", "min_per_client")
    @classmethod
    def _dirichlet_applies(cls, value: Any, info: ValidationInfo) -> Any:
        default = {"dirichlet_alpha": 0.5, "min_per_client": 10}[info.field_name]
        return _applicable(
            info.field_name,
            value,
            info.data.get("partition") == "dirichlet",
            default,
            "partition='dirichlet'",
        )


def _has_planted(info: ValidationInfo) -> bool:
    return "planted" in str(info.data.get("dataset", "planted")).split("+")


def _applicable(name: str, value: Any, applies: bool, default: Any, when: str) -> Any:
    """A parameter that does not apply is refused when given and None (not applicable, so not recorded) otherwise."""
    if applies:
        return default if value is None else value
    if value is not None:
        raise ValueError(f"{name} applies only when {when}; remove it")
    return None


FL_FIELDS = (
    "n_rounds",
    "local_epochs",
    "batch_size",
    "lr",
    "weight_decay",
    "client_fraction",
    "prox_mu",
    "lambda_fisher",
    "frpa_form",
    "fisher_norm",
    "fisher_source",
    "aggregation",
    "lambda_ssl",
    "beta_vib",
    "keep_local",
    "sl_topk",
    "sl_beta",
    "sl_tau",
    "sl_embed",
    "use_structure",
    "use_msff",
    "use_vib",
    "eval_every",
    "evaluation",
    "patience",
    "selection",
)


def strategy_classes(pluginmanager: Any = None) -> dict:
    """Built-in strategies plus those registered by plugins (``toolkit_graphpfl_register_strategies``)."""
    from toolkit_graphpfl.strategies import BUILTIN_STRATEGIES, Strategy

    classes = dict(BUILTIN_STRATEGIES)
    if pluginmanager is None:
        import toolkit

        pluginmanager = toolkit.get_plugin_manager()
    hook = getattr(pluginmanager.hook, "toolkit_graphpfl_register_strategies", None)
    if hook is None:
        return classes
    for impl_result in hook():
        for cls in impl_result or ():
            if not (isinstance(cls, type) and issubclass(cls, Strategy)):
                raise TypeError(
                    f"toolkit_graphpfl_register_strategies returned {cls!r}, not a Strategy subclass"
                )
            if cls.name in classes and classes[cls.name] is not cls:
                raise ValueError(
                    f"strategy name {cls.name!r} registered twice: {classes[cls.name].__module__} and {cls.__module__}"
                )
            classes[cls.name] = cls
    return classes


def make_strategy(params: NoiseRobustnessParams, pluginmanager: Any = None):
    from toolkit_graphpfl.strategies import BUILTIN_STRATEGIES, FLConfig

    fl = FLConfig(**{k: getattr(params, k) for k in FL_FIELDS})
    classes = (
        BUILTIN_STRATEGIES
        if params.algorithm in BUILTIN_STRATEGIES and pluginmanager is None
        else strategy_classes(pluginmanager)
    )
    if params.algorithm not in classes:
        raise ParameterError(
            f"parameter 'algorithm' of graphpfl.noise_robustness: unknown strategy "
            f"{params.algorithm!r}; allowed: {', '.join(sorted(classes))}"
        )
    return classes[params.algorithm](fl)


def build_federation(params: NoiseRobustnessParams, seed: int, device: str = "cpu", data: Any = None):
    """Load data, apply noise, partition and pre-collate; identical for every algorithm at a seed.

    ``data``: a graph set given from Python (a torch_geometric dataset, a list of Data with ``y``, or a
    :class:`GraphSet`) used instead of ``params.dataset``. Several datasets ('A+B') get one block of
    feature columns and one block of labels each (``align_features``).
    """
    from toolkit_graphpfl.federation import build_clients
    from toolkit_graphpfl.graphs import (
        align_features,
        noisy_copy,
        partition_dirichlet,
        partition_random,
        partition_topology,
    )

    if data is not None:
        from toolkit_graphpfl.pyg import as_graphset

        sets = [as_graphset(data)]
        if params.subsample is not None:
            sets = [_subsample(sets[0], params.subsample, seed, 0)]
    else:
        sets = [load_named(n, params, seed, gi) for gi, n in enumerate(params.dataset.split("+"))]
    if len(sets) > 1:
        sets = align_features(sets)
        if params.n_clients < len(sets):
            raise ParameterError(
                f"parameter 'n_clients': needs >= {len(sets)} clients for {len(sets)} datasets, got {params.n_clients}"
            )
    rng = np.random.default_rng([seed, 1])
    groups = np.array_split(np.arange(params.n_clients), len(sets))
    clients = []
    for gi, (gs, group) in enumerate(zip(sets, groups)):
        gs = noisy_copy(
            gs,
            params.noise_p,
            seed=int(np.random.SeedSequence([seed, 2, gi]).generate_state(1)[0]),
            sigma=params.feature_noise,
        )
        k = len(group)
        try:
            if params.partition == "random":
                parts = partition_random(len(gs), k, rng)
            elif params.partition == "dirichlet":
                parts = partition_dirichlet(
                    gs.labels(), k, params.dirichlet_alpha, rng, params.min_per_client
                )
            else:
                parts = partition_topology(np.array([g.mean_degree for g in gs.graphs]), k, rng)
        except ValueError as exc:
            raise ParameterError(
                f"partition {params.partition!r} of graphpfl.noise_robustness: {exc}"
            ) from None
        clients += build_clients(
            gs,
            parts,
            params.batch_size,
            int(np.random.SeedSequence([seed, 3, gi]).generate_state(1)[0]),
            device,
            batching=params.batching,
            standardize=params.standardize,
        )
    return sets[0], clients


def _subsample_index(labels: np.ndarray, n: int, seed: int, index: int, name: str) -> np.ndarray:
    """The graphs ``subsample=n`` keeps of dataset number ``index`` of the run (class-stratified, from the seed)."""
    from toolkit_graphpfl.graphs import stratified_subsample

    if n > len(labels):
        raise ParameterError(
            f"parameter 'subsample' of graphpfl.noise_robustness: {n} graphs asked of {name}, "
            f"which has {len(labels)}; give at most {len(labels)} or leave it unset for all"
        )
    return stratified_subsample(labels, n, np.random.default_rng(np.random.SeedSequence([seed, 4, index])))


def _subsample_name(name: str, n: int, of: int) -> str:
    return f"{name}[{n} of {of}]"


def _subsample(gs, n: int, seed: int, index: int):
    keep = _subsample_index(gs.labels(), n, seed, index, gs.name)
    return gs.subset(keep, name=_subsample_name(gs.name, n, len(gs)))


def load_named(name: str, params: NoiseRobustnessParams, seed: int, index: int = 0):
    """Dataset number ``index`` of ``params.dataset``: 'planted', a TU name (any case) or a registered
    'plugin.name'; only the graphs ``params.subsample`` keeps (of a TU dataset, only those are built)."""
    from toolkit_graphpfl.data import load_tu, make_planted_motifs, resolve_tu_name, tu_graph_labels

    tu_name = name[len("graphpfl.") :] if name.lower().startswith("graphpfl.") else name
    if "planted" in (name, tu_name) or "." in tu_name:
        if name == "planted":
            gs = make_planted_motifs(n_graphs=params.n_graphs, seed=seed)
        elif tu_name == "planted":
            gs = make_planted_motifs(n_graphs=params.n_graphs or 200, seed=seed)
        else:
            gs = _registered(name)
        return gs if params.subsample is None else _subsample(gs, params.subsample, seed, index)
    options = {"features": params.features, "attribute_columns": params.attribute_columns}
    if params.subsample is None:
        return _tu_loaded(load_tu, tu_name, options)
    labels = _tu_loaded(tu_graph_labels, tu_name, options)
    keep = _subsample_index(labels, params.subsample, seed, index, resolve_tu_name(tu_name))
    gs = load_tu(tu_name, graphs=keep, **options)  # the same parsed table: nothing read again
    return dataclasses.replace(gs, name=_subsample_name(gs.name, params.subsample, len(labels)))


def _tu_loaded(load, tu_name: str, options: dict):
    """``load(tu_name, **options)`` with a bad feature choice reported as the parameter it came from."""
    from toolkit_graphpfl.data import DatasetMissingError

    try:
        return load(tu_name, **options)
    except DatasetMissingError:
        raise  # the core's type (tests skip on it); its message names `toolkit data fetch`
    except ValueError as exc:
        if hasattr(exc, "path"):  # a TU file broken: file, line and rule, before any training
            raise
        raise ParameterError(
            f"parameter 'features'/'attribute_columns' of graphpfl.noise_robustness: {exc}"
        ) from None


def _registry():
    import toolkit

    return toolkit.get_registry()


def _registered(name: str):
    """A registered dataset's data as a GraphSet (PyG datasets and lists of Data converted)."""
    from toolkit_graphpfl.pyg import as_graphset

    _, spec = _registry().find(name, "dataset")  # unknown names: an error listing close matches
    return as_graphset(spec.load(), name=spec.name)


class _ExecutorMap:
    """``map_fn`` for the simulator over the core's executors, keeping the tasks' order."""

    def __init__(self, kind: str, n_workers: int) -> None:
        from toolkit.executors import open_executor

        self.ex = open_executor(kind, max_workers=n_workers)

    def __call__(self, fn, tasks):
        futures = [self.ex.submit(fn, t) for t in tasks]
        index = {id(f): i for i, f in enumerate(futures)}
        out = [None] * len(futures)
        for fut, res in self.ex.as_completed(futures):
            out[index[id(fut)]] = res
        return out

    def close(self) -> None:
        self.ex.close()


def federate(data: Any, seed: int = 0, **params: Any) -> SimulationOutput:
    """:func:`noise_robustness` on graphs given from Python: a torch_geometric dataset (``InMemoryDataset``,
    e.g. ``TUDataset`` or ``MoleculeNet``), a list of ``Data`` with a graph label ``y``, or a GraphSet.

    ``params`` are those of ``graphpfl.noise_robustness`` (``dataset`` is ignored: the data is ``data``).
    """
    from toolkit.config import validate_params

    p = validate_params(NoiseRobustnessParams, params, owner="graphpfl.federate")
    return noise_robustness(p, seed, data=data)


def noise_robustness(params: NoiseRobustnessParams, seed: int, data: Any = None) -> SimulationOutput:
    """Federated graph classification under topology noise: one algorithm, one noise level, one seed.

    Data, noise draws, partitions and client splits depend only on (dataset, noise, partition,
    seed), never on the algorithm, so runs of different algorithms at a seed are paired. Training
    stops by the rule of ``patience`` (validation loss) or at ``n_rounds``; ``stop_round`` says where.
    Rows: one per round (accuracies, loss, bytes, times). Summary: accuracies at the reported round
    (``selection``; with ``evaluation="select"`` also each variant's, personal and global, at its own).
    """
    import torch

    from toolkit.backend import resolve_device, set_threads
    from toolkit_graphpfl.federation import best_round, run_federation
    from toolkit_graphpfl.model import ModelConfig

    torch.set_num_threads(params.n_threads)
    set_threads(params.n_threads)
    device = resolve_device(params.device)
    strategy = make_strategy(params)
    t0 = time.perf_counter()
    gs, clients = build_federation(params, seed, device, data=data)
    setup_s = time.perf_counter() - t0
    base = ModelConfig(
        n_features=clients[0].train[0].x.shape[-1],
        n_classes=gs.n_classes,
        hidden=params.hidden,
        n_layers=params.n_layers,
        dropout=params.dropout,
    )
    mapper = (
        _ExecutorMap(params.client_executor, params.n_workers) if params.client_executor != "serial" else None
    )
    try:
        res = run_federation(clients, strategy, base, seed, device=device, map_fn=mapper)
    finally:
        if mapper is not None:
            mapper.close()
    rows = [{**r, "n_params": res.n_params, "n_shared_params": res.n_shared_params} for r in res.rounds]
    b = res.best
    summary = {
        "best_round": b["round"],
        "stop_round": res.stop_round,
        "stopped_early": res.stopped_early,
        "test_acc_pooled": b["test_acc_pooled"],
        "test_acc_client_mean": b["test_acc_client_mean"],
        "val_acc_pooled": b["val_acc_pooled"],
        "final_test_acc_pooled": res.rounds[-1]["test_acc_pooled"],
        "mean_round_time_s": float(np.mean([r["round_time_s"] for r in res.rounds])),
        "mean_round_cpu_time_s": float(
            np.mean([r["round_cpu_time_s"] for r in res.rounds[1:] or res.rounds])
        ),
        "fisher_share": float(np.mean([r["fisher_time_s"] / r["round_time_s"] for r in res.rounds])),
        "mean_train_time_s": float(np.mean([r["train_time_s"] for r in res.rounds])),
        "mean_fisher_time_s": float(np.mean([r["fisher_time_s"] for r in res.rounds])),
        "setup_time_s": setup_s,
        "bytes_per_round": float(np.mean([r["bytes_up"] + r["bytes_down"] for r in res.rounds])),
        "n_params": res.n_params,
        "n_shared_params": res.n_shared_params,
        "n_test_graphs": sum(c.n_test for c in clients),
    }
    if "share_personal" in b:  # evaluation "select": each variant at its own best validation round too
        summary["share_personal"] = b["share_personal"]
        for v in ("personal", "global"):
            bv = best_round(res.rounds, v, selection=params.selection)
            summary[f"test_acc_pooled_{v}"] = bv[f"test_acc_pooled_{v}"]
            summary[f"val_acc_pooled_{v}"] = bv[f"val_acc_pooled_{v}"]
    return SimulationOutput(records=rows, summary=summary)


# about the most bytes of one planted graph (nodes, features, edges and their noisy copy), erring high
_BYTES_PER_GRAPH = 16_384


def noise_robustness_memory(params: NoiseRobustnessParams) -> float:
    """About the most bytes of a noise_robustness point (errs high): every client's GIN and the server's, each with
    its gradients, Adam's two moments and a Fisher diagonal, float32; a batch's activations; the graphs."""
    weights = params.n_layers * (2 * params.hidden**2 + 4 * params.hidden) + 64 * params.hidden
    models = 4.0 * weights * 5 * (params.n_clients + 2)
    activations = 4.0 * params.batch_size * 64 * params.hidden * params.n_layers * 4
    graphs = _BYTES_PER_GRAPH * ((params.n_graphs or 200) + (params.subsample or 0))
    return models + activations + graphs


def kept_edges_memory(params: KeptEdgesParams) -> float:
    return float(_BYTES_PER_GRAPH * (params.n_graphs or 200))


class KeptEdgesParams(Params):
    dataset: str = Field("planted", description="'planted' or a TU dataset name under the data root")
    noise_p: float = Field(0.3, ge=0.0, le=1.0, description="topology noise p")
    n_graphs: int | None = Field(
        None,
        ge=20,
        description="graphs in the synthetic 'planted' set (default 200; "
        "not applicable, and not recorded, for a TU dataset)",
    )

    @field_validator("n_graphs")
    @classmethod
    def _n_graphs_applies(cls, value: int | None, info: ValidationInfo) -> int | None:
        return _applicable("n_graphs", value, _has_planted(info), 200, "the dataset is 'planted'")


def kept_edges(params: KeptEdgesParams, seed: int) -> list[dict]:
    """Topology noise per graph: original, kept, added and final edge counts (one row per graph)."""
    from toolkit_graphpfl.data import load_tu, make_planted_motifs
    from toolkit_graphpfl.graphs import noisy_copy

    gs = (
        make_planted_motifs(n_graphs=params.n_graphs, seed=seed)
        if params.dataset == "planted"
        else load_tu(params.dataset)
    )
    noisy = noisy_copy(gs, params.noise_p, seed)
    rows = []
    for i, (g, h) in enumerate(zip(gs.graphs, noisy.graphs)):
        orig = set(map(tuple, g.edges.tolist()))
        new = set(map(tuple, h.edges.tolist()))
        n_pairs = g.n_nodes * (g.n_nodes - 1) // 2
        rows.append(
            {
                "graph": i,
                "n_nodes": g.n_nodes,
                "n_edges": g.n_edges,
                "kept_edges": len(orig & new),
                "added_edges": len(new - orig),
                "n_free_pairs": n_pairs - g.n_edges,
                "symmetric_no_self_loops": bool((h.edges[:, 0] < h.edges[:, 1]).all()) if h.n_edges else True,
            }
        )
    return rows


def _plot_noise(table, fig) -> None:
    ax = fig.add_subplot(1, 1, 1)
    for (alg, p), grp in table.groupby(["algorithm", "noise_p"]):
        g = grp.groupby("round")["test_acc_pooled"].mean()
        ax.plot(g.index, g.values, label=f"{alg}, p={p}")
    ax.set_xlabel("round")
    ax.set_ylabel("pooled test accuracy")
    ax.legend(fontsize=7)


SIMULATIONS = [
    Simulation(
        name="graphpfl.noise_robustness",
        func=noise_robustness,
        params=NoiseRobustnessParams,
        description="federated graph classification under topology noise (dataset x noise p x algorithm x seed x partition)",
        bounds=("graphpfl.communication",),
        quick={"dataset": "planted", "n_graphs": 60, "n_clients": 3, "n_rounds": 3, "hidden": 16},
        plot=_plot_noise,
        cost=PointCost(
            noise_robustness_memory, ("hidden", "n_layers", "n_clients", "batch_size", "n_graphs")
        ),
    ),
    Simulation(
        name="graphpfl.kept_edges",
        func=kept_edges,
        params=KeptEdgesParams,
        description="topology noise keeps exactly round((1-p)|E|) edges of each graph",
        bounds=("graphpfl.kept_edges_exact_upper", "graphpfl.kept_edges_exact_lower"),
        quick={"n_graphs": 40},
        cost=PointCost(kept_edges_memory, ("n_graphs",)),
    ),
]
