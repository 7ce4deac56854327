"""Registered simulations of the frog plugin: parameters and run functions returning tidy records."""

from __future__ import annotations

from typing import Literal

import numpy as np

from toolkit import PointCost, Simulation, SimulationOutput
from toolkit.backend import resolve_device, set_threads
from toolkit.config import ContentPath, Field, Params

Model = Literal["row2node", "row2edge", "frog"]


class TrainingParams(Params):
    epochs: int = Field(25, ge=1, le=500, description="training epochs (test at the best validation epoch)")
    channels: int = Field(64, ge=4, le=512, description="hidden channels")
    num_layers: int = Field(2, ge=1, le=4, description="message-passing layers")
    lr: float = Field(0.005, gt=0, description="Adam learning rate of the network")
    role_lr: float = Field(0.05, gt=0, description="Adam learning rate of the role logits")
    fanout: int = Field(20, ge=-1, description="neighbours sampled per node, relation and hop (-1 = all)")
    role_mode: Literal["soft", "gumbel"] = Field(
        "soft", description="soft mixture or straight-through Gumbel"
    )
    conditioning: Literal["free", "table"] = Field(
        "free", description="free role logits or from a table embedding"
    )
    anneal: bool = Field(False, description="anneal the role temperature from 1 to 0.1")
    lam_ent: float = Field(0.0, ge=0, description="weight of the entity-level FD constraint")
    lam_tab: float = Field(0.0, ge=0, description="weight of the table-level FD constraint")
    lam_entropy: float = Field(0.0, ge=0, description="weight of the role entropy (pushes roles to 0/1)")
    device: Literal["cpu", "cuda", "auto"] = Field("cpu", description="torch device")
    aggregation: Literal["mean", "mean_count"] = Field(
        "mean_count",
        description="mean_count: mean of the neighbours plus log(1 + number of related rows) per relation "
        "(every visible row, past the fan-out); mean: the mean alone, which cannot see a count",
    )

    def train_config(self, strategy: str = "last"):
        from toolkit_frog.train import TrainConfig

        return TrainConfig(
            channels=self.channels,
            num_layers=self.num_layers,
            epochs=self.epochs,
            lr=self.lr,
            role_lr=self.role_lr,
            num_neighbors=(self.fanout,) * self.num_layers,
            strategy=strategy,
            role_mode=self.role_mode,
            conditioning=self.conditioning,
            anneal=self.anneal,
            lam_ent=self.lam_ent,
            lam_tab=self.lam_tab,
            lam_entropy=self.lam_entropy,
            device=resolve_device(self.device),
            aggregation=self.aggregation,
        )


class PlantedParams(TrainingParams):
    kind: Literal["edge_easy", "edge_hard", "node", "mixed", "none"] = Field(
        "edge_easy",
        description="planted signal: through the bridge (edge_*), in rows on the bridge rows (node)",
    )
    strength: float = Field(1.0, ge=0, le=1, description="strength of the planted effect")
    model: Model = Field("frog", description="graph/model: Row2Node baseline, Row2Edge GNN or FROG")
    n_customers: int = Field(3000, ge=20, description="customers (entities)")
    n_products: int = Field(200, ge=4, description="products")


def _records(fit, model: str, role_tables: list[str], metric_name: str) -> list[dict]:
    rows = []
    for r in fit.history.to_dict("records"):
        row = {
            "epoch": int(r["epoch"]),
            "train_loss": r["train_loss"],
            f"val_{metric_name}": r["val"],
            f"test_{metric_name}": r["test"],
            "best": int(r["epoch"]) == fit.best_epoch,
        }
        for t in role_tables:
            row[f"pi_{t}"] = r.get(f"pi_{t}", np.nan)
        rows.append(row)
    return rows


def planted(params: PlantedParams, seed: int) -> SimulationOutput:
    """Train one model on a planted database (data and training seeded by ``seed``).

    One row per epoch: training loss, validation and test AUROC, the learned role pi_review
    (FROG; NaN for the fixed graphs) and whether it is the best validation epoch.
    """
    import torch

    from toolkit_frog.planted import make_planted_database, planted_task
    from toolkit_frog.train import run_models

    set_threads(1)
    torch.set_num_threads(1)
    db = make_planted_database(params.kind, params.strength, params.n_customers, params.n_products, seed)
    task = planted_task(db)
    fit = run_models(task, [params.model], ["review"], params.train_config(), seed)[params.model]
    rows = _records(fit, params.model, ["review"], "auroc")
    summary = {
        "best_epoch": fit.best_epoch,
        "val_auroc": fit.val,
        "test_auroc": fit.test,
        "pi_review": fit.pi.get("review", float("nan")),
        "wall_s": fit.seconds,
    }
    return SimulationOutput(rows, summary)


class CountParams(TrainingParams):
    model: Literal["row2node", "row2edge", "frog", "lgbm_joined"] = Field(
        "frog", description="GNN on a graph (orders as the edge table), or LightGBM on joined aggregates"
    )
    n_customers: int = Field(1000, ge=10, description="customers (entities)")
    orders_per_step: float = Field(
        1.0, gt=0, description="mean orders per customer and time step (twice that for a third of them)"
    )
    n_stores: int = Field(25, ge=1, description="stores (the other end of each order)")
    epochs: int = Field(20, ge=1, le=500, description="training epochs (test at the best validation epoch)")
    channels: int = Field(32, ge=4, le=512, description="hidden channels")


def counts(params: CountParams, seed: int) -> SimulationOutput:
    """One model on the count database, whose label is only the number of a customer's past orders.

    A third of the customers order twice as often; the label at t is 1 when the customer placed more
    orders up to t than the median customer. A mean over the orders cannot see this, a count can
    (``aggregation``). One row per epoch (one row for LightGBM): training loss, validation and test
    AUROC, the learned role ``pi_orders`` (FROG; NaN otherwise), and whether it is the best epoch.
    """
    import torch

    from toolkit_frog.counts import count_task, make_count_database
    from toolkit_frog.tabular import lightgbm_baseline
    from toolkit_frog.train import run_models, task_splits

    set_threads(1)
    torch.set_num_threads(1)
    db = make_count_database(params.n_customers, params.orders_per_step, params.n_stores, seed)
    task = count_task(db)
    if params.model == "lgbm_joined":
        res = lightgbm_baseline(db, "customer", task_splits(task), task.task_type, seed=seed)
        row = {"epoch": 0, "train_loss": np.nan, "val_auroc": res["val"], "test_auroc": res["test"]}
        row.update({"best": True, "pi_orders": np.nan})
        return SimulationOutput([row], {"val_auroc": res["val"], "test_auroc": res["test"]})
    fit = run_models(task, [params.model], ["orders"], params.train_config("uniform"), seed)[params.model]
    summary = {
        "best_epoch": fit.best_epoch,
        "val_auroc": fit.val,
        "test_auroc": fit.test,
        "pi_orders": fit.pi.get("orders", float("nan")),
        "wall_s": fit.seconds,
    }
    return SimulationOutput(_records(fit, params.model, ["orders"], "auroc"), summary)


class LahmanParams(TrainingParams):
    task: Literal["allstar", "games"] = Field(
        "allstar", description="All-Star next season (AUROC) or games next season (MAE)"
    )
    model: Literal["row2node", "row2edge", "frog", "lgbm_entity", "lgbm_joined"] = Field(
        "row2node", description="GNN on a graph, or LightGBM on the player table / joined aggregates"
    )
    train_start: int = Field(2004, ge=1986, le=2014, description="first training season")
    val_year: int = Field(2016, ge=1990, le=2021, description="validation seed season")
    test_year: int = Field(2018, ge=1992, le=2023, description="test seed season")
    epochs: int = Field(10, ge=1, le=500, description="training epochs")
    fanout: int = Field(30, ge=-1, description="neighbours sampled per node, relation and hop (-1 = all)")


def lahman(params: LahmanParams, seed: int) -> SimulationOutput:
    """One model on a Lahman task with a temporal split; one row per epoch (one row for LightGBM).

    Metric columns are ``val_auroc``/``test_auroc`` (allstar) or ``val_mae``/``test_mae`` (games);
    ``pi_<table>`` are the learned roles of the four player <-> team-season link tables (FROG).
    """
    import torch

    from toolkit.errors import ParameterError
    from toolkit_frog.lahman import LINK_TABLES, lahman_task, load_lahman
    from toolkit_frog.tabular import lightgbm_baseline
    from toolkit_frog.train import run_models, task_splits

    if not (params.train_start < params.val_year < params.test_year):
        raise ParameterError(
            "parameters train_start, val_year, test_year must increase (train_start < val_year "
            f"< test_year), got {params.train_start}, {params.val_year}, {params.test_year}"
        )
    set_threads(1)
    torch.set_num_threads(1)
    db = load_lahman()
    task = lahman_task(params.task, params.train_start, params.val_year, params.test_year, db=db)
    name = "auroc" if params.task == "allstar" else "mae"
    if params.model.startswith("lgbm"):
        res = lightgbm_baseline(
            db, "people", task_splits(task), task.task_type, mode=params.model.split("_")[1], seed=seed
        )
        row = {
            "epoch": 0,
            "train_loss": np.nan,
            f"val_{name}": res["val"],
            f"test_{name}": res["test"],
            "best": True,
        }
        row.update({f"pi_{t}": np.nan for t in LINK_TABLES})
        return SimulationOutput([row], {f"val_{name}": res["val"], f"test_{name}": res["test"]})
    fit = run_models(task, [params.model], list(LINK_TABLES), params.train_config("uniform"), seed)[
        params.model
    ]
    rows = _records(fit, params.model, list(LINK_TABLES), name)
    summary = {
        "best_epoch": fit.best_epoch,
        f"val_{name}": fit.val,
        f"test_{name}": fit.test,
        **{f"pi_{t}": fit.pi.get(t, float("nan")) for t in LINK_TABLES},
        "wall_s": fit.seconds,
    }
    return SimulationOutput(rows, summary)


class GraphSizeParams(Params):
    n_rows: int = Field(1000, ge=1, description="rows of the link table")
    n_keys: int = Field(3, ge=2, le=6, description="foreign keys of the link table (>= 3: hyperedge)")
    n_entities: int = Field(100, ge=1, description="rows of each referenced table")
    missing: float = Field(0.0, ge=0, lt=1, description="probability that a key is missing")


def graph_sizes(params: GraphSizeParams, seed: int) -> dict:
    """Build Row2Node and Row2Edge graphs of a random link table; count edges and lost rows.

    Row2Node: 2 edges per present key; Row2Edge (clique expansion): m(m-1) per row with m present keys.
    """
    import warnings

    import pandas as pd

    from toolkit_frog.graph import check_full_resolution, make_pkey_fkey_graph, make_row2edge_graph
    from toolkit_frog.relational import Database, Table

    rng = np.random.default_rng(seed)
    tables = {}
    link = {"link_id": np.arange(params.n_rows)}
    fks = {}
    for i in range(params.n_keys):
        ent = pd.DataFrame({"id": np.arange(params.n_entities)})
        tables[f"entity{i}"] = Table(ent, {}, "id", None)
        keys = rng.integers(0, params.n_entities, params.n_rows).astype(float)
        keys[rng.random(params.n_rows) < params.missing] = np.nan
        link[f"k{i}"] = pd.array(np.where(np.isnan(keys), 0, keys).astype(int), dtype="Int64")
        link[f"k{i}"][np.isnan(keys)] = pd.NA
        fks[f"k{i}"] = f"entity{i}"
    tables["link"] = Table(pd.DataFrame(link), fks, "link_id", None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        db = Database(tables)
    r2n, r2e = make_pkey_fkey_graph(db), make_row2edge_graph(db, ["link"])
    rep = check_full_resolution(db, ["link"], r2e)["link"]
    return {
        "n_row2node_edges": r2n.num_edges,
        "n_row2edge_edges": r2e.num_edges,
        "expected_row2edge_edges": rep.expected_edges,
        "rows_lost": rep.rows_lost,
        "full_resolution": rep.full_resolution,
    }


def planted_memory(params: PlantedParams) -> float:
    """About the most bytes of a planted point (errs high, ~3x what was measured: peak RSS 487 MB at 300 customers,
    512 MB at 4,800, with channels = 8): torch and the libraries, then ~16 KB per customer and per 8 channels."""
    per_entity = 16_384.0 * max(1.0, params.channels / 8)
    return 512 * 2**20 + per_entity * (params.n_customers + params.n_products)


def graph_sizes_memory(params: GraphSizeParams) -> float:
    """About the most bytes of a graph_sizes point (errs high): the link table's keys, Row2Node's 2 edges per key
    and Row2Edge's m (m - 1) per row, as int64 pairs, four times over for pandas' and torch's temporaries."""
    m = params.n_keys
    per_row = m + 2 * (2 * m) + 2 * m * (m - 1)
    return 4 * 8.0 * (params.n_rows * per_row + params.n_entities * m)


MODEL_CHOICES = ("row2node", "row2edge", "frog", "lgbm")


class DatabaseParams(TrainingParams):
    url: ContentPath = Field(
        "",
        description="SQLAlchemy URL (sqlite:///shop.db, postgresql://...) or SQLite file path; "
        "empty: the built-in retail demo, written to a temporary SQLite file",
    )
    task: ContentPath = Field(
        "",
        description="task spec: path to a JSON file or inline JSON (see the README, 'Bring your "
        "own database'); empty: the demo's spec (only with the demo database)",
    )
    models: str = Field(
        "row2node,row2edge,frog,lgbm",
        description="comma-separated models to train: " + ", ".join(MODEL_CHOICES),
    )
    demo_customers: int = Field(
        600, ge=20, le=100_000, description="customers of the demo database (url empty)"
    )
    epochs: int = Field(10, ge=1, le=500, description="training epochs (test at the best validation epoch)")


def _open_database(params: DatabaseParams):
    """(spec, database) of the parameters; bad parameters raise ParameterError naming them."""
    import tempfile
    from pathlib import Path

    from toolkit.errors import ParameterError
    from toolkit_frog.demo import DEMO_SPEC, write_demo_sqlite
    from toolkit_frog.relational import SchemaError
    from toolkit_frog.spec import load_database, read_spec

    if params.url and not params.task:
        raise ParameterError("parameter task: a task spec (JSON file or inline JSON) is required with url=")
    try:
        spec = read_spec(params.task or DEMO_SPEC, "parameter task")
    except SchemaError as e:
        raise ParameterError(f"parameter task: {e}") from None
    if not params.url:
        with tempfile.TemporaryDirectory() as tmp:
            path = write_demo_sqlite(Path(tmp) / "retail.db", params.demo_customers, seed=0)
            return spec, load_database(str(path), spec)
    if "://" not in params.url and not Path(params.url).exists():
        raise ParameterError(
            f"parameter url: SQLite file {params.url!r} does not exist (or give a SQLAlchemy URL "
            f"such as sqlite:///shop.db)"
        )
    try:
        return spec, load_database(params.url, spec)
    except SchemaError as e:
        raise ParameterError(f"parameter url={params.url!r} with the spec's keys: {e}") from None


def _warning_origin(params: DatabaseParams) -> str:
    """Where a command-line run's data warnings point: the task file, else the database, else the demo."""
    from pathlib import Path

    if params.task and not params.task.lstrip().startswith("{") and Path(params.task).exists():
        return str(Path(params.task).resolve())
    if params.url:
        return params.url
    return "<frog.database demo>"


def database(params: DatabaseParams, seed: int) -> SimulationOutput:
    """Row2Node, Row2Edge, FROG and LightGBM on a database and a task spec (see :func:`_database`);
    every data warning points at the task file (or the database) and is said once per run."""
    from toolkit_frog.relational import warn_origin

    with warn_origin(_warning_origin(params)):
        return _database(params, seed)


def _database(params: DatabaseParams, seed: int) -> SimulationOutput:
    """Row2Node, Row2Edge, FROG and LightGBM on a database and a declarative task spec.

    One row per model: validation and test metric (AUROC for a binary label, MAE otherwise) at
    the best validation epoch, and per candidate edge table its learned role ``pi_<table>``
    (FROG; NaN elsewhere) with ``role_<table>``: the value, or "not reached (k hops > L layers)"
    when the table is outside the receptive field (then kept out of the summary).
    """
    import torch

    from toolkit.errors import ParameterError
    from toolkit_frog.graph import edge_candidates
    from toolkit_frog.relational import SchemaError
    from toolkit_frog.tabular import lightgbm_baseline
    from toolkit_frog.train import build_graph, fit, task_features, task_splits, warn_single_feature_leaks

    models = [m.strip() for m in params.models.split(",") if m.strip()]
    bad = [m for m in models if m not in MODEL_CHOICES]
    if bad or not models:
        raise ParameterError(
            f"parameter models: unknown model(s) {bad}; choose from {', '.join(MODEL_CHOICES)}"
        )
    spec, db = _open_database(params)
    try:
        task = spec.task(db)
        edge_tables = (
            spec.edge_tables
            if spec.edge_tables is not None
            else [t for t in edge_candidates(db, "multi_key") if t != task.entity_table]
        )
        unknown = [t for t in edge_tables if t not in db.table_dict]
        if unknown:
            raise SchemaError(f"edge_tables names table(s) {unknown} that are not loaded")
        if task.entity_table in edge_tables and ("row2edge" in models or "frog" in models):
            raise SchemaError(
                f"edge_tables includes the entity table {task.entity_table!r}: its rows are the "
                f"seeds and must stay nodes"
            )
        features = task_features(task, spec.exclude, spec.column_types)
        splits = task_splits(task)
    except SchemaError as e:
        raise ParameterError(f"parameter task: {e}") from None
    if not edge_tables and ("row2edge" in models or "frog" in models):
        raise ParameterError(
            "parameter task: no edge table (no table with >= 2 foreign keys); name one in "
            '"edge_tables" or train models=row2node,lgbm'
        )
    set_threads(1)
    torch.set_num_threads(1)
    warn_single_feature_leaks(task, features, splits["train"])
    metric_name = "auroc" if task.task_type == "binary_classification" else "mae"
    cfg = params.train_config("uniform")
    rows, summary = [], {}
    for model in models:
        row = {"model": model, "metric": metric_name, "n_train_seeds": len(splits["train"].y)}
        if model == "lgbm":
            res = lightgbm_baseline(
                db,
                task.entity_table,
                splits,
                task.task_type,
                "joined",
                task.timedelta,
                seed,
                features,
                task.unknown_at_seed,
            )
            row.update(
                {f"val_{metric_name}": res["val"], f"test_{metric_name}": res["test"], "best_epoch": -1}
            )
            roles, moved = {}, {}
        else:
            graph = build_graph(db, model, edge_tables, task.entity_table)
            res = fit(
                graph,
                features,
                task.entity_table,
                splits,
                task.task_type,
                model,
                cfg,
                seed,
                float(task.delta),
                edge_tables,
                unknown_at_seed=task.unknown_at_seed,
            )
            row.update(
                {f"val_{metric_name}": res.val, f"test_{metric_name}": res.test, "best_epoch": res.best_epoch}
            )
            roles = {t: res.role(t) for t in edge_tables} if model == "frog" else {}
            moved = {t: res.role_moved(t) for t in edge_tables} if model == "frog" else {}
        for t in edge_tables:
            r = roles.get(t)
            row[f"pi_{t}"] = r if isinstance(r, float) else np.nan
            row[f"pi_shift_{t}"] = res.role_shift(t) if model == "frog" else np.nan
            row[f"role_{t}"] = (
                "nodes"
                if model == "row2node"
                else "edges"
                if model == "row2edge"
                else "aggregates"
                if model == "lgbm"
                else res.role_note(t)
            )
        rows.append(row)
        summary[f"test_{metric_name}_{model}"] = row[f"test_{metric_name}"]
        # a role that did not move from its start is no finding: kept out of the summary
        summary.update({f"pi_{t}": v for t, v in roles.items() if isinstance(v, float) and moved.get(t)})
    return SimulationOutput(rows, summary)


def _plot_database(table, fig) -> None:
    metric = [c for c in table.columns if c.startswith("test_")]
    ax = fig.add_subplot(1, 1, 1)
    if metric:
        g = table.groupby("model")[metric[0]].mean()
        ax.bar(g.index, g.to_numpy())
        ax.set_ylabel(metric[0])


def _plot_roles(table, fig) -> None:
    ax = fig.add_subplot(1, 1, 1)
    pis = [c for c in table.columns if c.startswith("pi_")]
    for (seed, model), grp in table.groupby(["seed", "model"]):
        for c in pis:
            if grp[c].notna().any():
                ax.plot(grp["epoch"], grp[c], label=f"{c} seed {seed}")
    ax.set_xlabel("epoch")
    ax.set_ylabel("role pi (0 = nodes, 1 = edges)")
    ax.set_ylim(0, 1)
    if ax.lines:
        ax.legend(fontsize=6)


SIMULATIONS = [
    Simulation(
        name="frog.planted",
        func=planted,
        params=PlantedParams,
        description="planted relational signal: Row2Node vs Row2Edge vs FROG (learned roles), AUROC + pi",
        quick={"n_customers": 200, "n_products": 20, "epochs": 2, "channels": 8, "fanout": 5},
        plot=_plot_roles,
        cost=PointCost(planted_memory, ("n_customers", "n_products", "channels")),
    ),
    Simulation(
        name="frog.counts",
        func=counts,
        params=CountParams,
        description="a label that only the number of related rows carries: GNNs (mean vs count-aware "
        "aggregation) vs LightGBM, AUROC",
        quick={"n_customers": 100, "epochs": 2, "channels": 8, "fanout": 5},
    ),
    Simulation(
        name="frog.lahman",
        func=lahman,
        params=LahmanParams,
        description="Lahman baseball tasks (All-Star / games next season): GNNs vs LightGBM",
        quick={"train_start": 2014, "epochs": 1, "channels": 8, "fanout": 3, "model": "row2node"},
        plot=_plot_roles,
    ),
    Simulation(
        name="frog.database",
        func=database,
        params=DatabaseParams,
        description="your database (SQLAlchemy URL / SQLite) + a JSON task spec: Row2Node vs Row2Edge vs FROG "
        "vs LightGBM, and the learned roles",
        quick={"demo_customers": 120, "epochs": 2, "channels": 8, "fanout": 5},
        plot=_plot_database,
    ),
    Simulation(
        name="frog.graph_sizes",
        func=graph_sizes,
        params=GraphSizeParams,
        description="edge counts of Row2Node / Row2Edge graphs of a link table (full-resolution counting)",
        bounds=("frog.row2edge_edge_count",),
        quick={"n_rows": 200},
        cost=PointCost(graph_sizes_memory, ("n_rows", "n_keys", "n_entities")),
    ),
]
