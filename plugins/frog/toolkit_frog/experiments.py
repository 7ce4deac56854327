"""Headline experiments for ``toolkit reproduce``: planted roles, Lahman All-Star, no leakage.

Each takes ``quick``: the quick setting is small (seconds, 1 seed); the full setting is the one
whose numbers the README quotes (3 seeds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from toolkit import Comparison, Experiment, ExperimentOutcome

if TYPE_CHECKING:
    import pandas as pd

PLANTED_FULL = {"n_customers": 3000, "n_products": 200, "epochs": 25}
PLANTED_QUICK = {"n_customers": 1200, "n_products": 100, "epochs": 10}
# model label -> parameter overrides ("frog_annealed": tau 1 -> 0.1)
MODEL_VARIANTS = {
    "row2node": {"model": "row2node"},
    "row2edge": {"model": "row2edge"},
    "frog": {"model": "frog"},
    "frog_annealed": {"model": "frog", "anneal": True},
}


def _fmt(values: Sequence[float]) -> str:
    v = np.asarray(values, dtype=float)
    if len(v) == 0:
        return "n/a (no runs)"
    return f"{v.mean():.3f} ± {v.std(ddof=1):.3f}" if len(v) > 1 else f"{v.mean():.3f}"


def planted_runs(
    kinds: Sequence[str], variants: Sequence[str], seeds: Sequence[int], overrides: dict | None = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(summary: one row per kind x model x seed, history: one row per epoch)."""
    import pandas as pd

    from toolkit_frog.simulation import PlantedParams, planted

    summaries, history = [], []
    for kind in kinds:
        for label in variants:
            for seed in seeds:
                params = PlantedParams(**{**(overrides or {}), **MODEL_VARIANTS[label], "kind": kind})
                out = planted(params, seed)
                summaries.append({"kind": kind, "model": label, "seed": seed, **out.summary})
                history += [{"kind": kind, "model": label, "seed": seed, **r} for r in out.records]
    return pd.DataFrame(summaries), pd.DataFrame(history)


def _judged(cond, *arrays: np.ndarray) -> bool | None:
    """``cond()`` as a verdict, or None (not judged) when one of the models it compares was not run."""
    return None if any(len(a) == 0 for a in arrays) else bool(cond())


def _gap(f: np.ndarray, n: np.ndarray) -> str:
    return _fmt(f - n) if len(f) == len(n) else "n/a (a model was not run)"


def planted_comparisons(summary: pd.DataFrame) -> list[Comparison]:
    def col(kind: str, model: str, c: str = "test_auroc") -> np.ndarray:
        return summary[(summary.kind == kind) & (summary.model == model)].sort_values("seed")[c].to_numpy()

    out = []
    kinds = set(summary.kind)
    if "edge_easy" in kinds:
        f, n, e, p = (
            col("edge_easy", "frog"),
            col("edge_easy", "row2node"),
            col("edge_easy", "row2edge"),
            col("edge_easy", "frog", "pi_review"),
        )
        out += [
            Comparison(
                "edge-needed easy: FROG test AUROC >= 0.95",
                "reference run 0.999 (R2N 0.79, R2E 1.00)",
                f"FROG {_fmt(f)} (R2N {_fmt(n)}, R2E {_fmt(e)})",
                _judged(lambda: f.mean() >= 0.95, f),
            ),
            Comparison(
                "edge-needed easy: FROG >= Row2Node + 0.10",
                "0.999 vs 0.79",
                f"gap {_gap(f, n)}",
                _judged(lambda: (f - n).mean() >= 0.10, f, n),
            ),
            Comparison(
                "edge-needed easy: pi_review >= 0.6 in every seed",
                "pi_review ≈ 0.75",
                f"pi_review per seed {np.round(p, 3).tolist()}",
                _judged(lambda: (p >= 0.6).all(), p),
                documented="pi is read at the best validation epoch, which on easy data comes while pi is "
                "still rising; seeds 0-4 give 0.575-0.752 (frog page 'The learned role on easy planted data')",
            ),
        ]
    if "edge_hard" in kinds:
        n, e = col("edge_hard", "row2node"), col("edge_hard", "row2edge")
        for label in ("frog", "frog_annealed"):
            f = col("edge_hard", label)
            if not len(f):
                continue
            out += [
                Comparison(
                    f"edge-needed hard ({label}): FROG >= Row2Node + 0.08",
                    "0.79 (annealed) vs 0.66",
                    f"FROG {_fmt(f)} vs R2N {_fmt(n)}: gap {_gap(f, n)}",
                    _judged(lambda: (f - n).mean() >= 0.08, f, n),
                ),
                Comparison(
                    f"edge-needed hard ({label}): FROG within 0.03 of Row2Edge",
                    "0.79 vs 0.81",
                    f"FROG {_fmt(f)} vs R2E {_fmt(e)}",
                    _judged(lambda: f.mean() >= e.mean() - 0.03, f, e),
                ),
            ]
    if "node" in kinds:
        f, n, e, p = (
            col("node", "frog"),
            col("node", "row2node"),
            col("node", "row2edge"),
            col("node", "frog", "pi_review"),
        )
        out += [
            Comparison(
                "node-needed: pi_review <= 0.4 in every seed",
                "pi_review ≈ 0.28",
                f"pi_review per seed {np.round(p, 3).tolist()}",
                _judged(lambda: (p <= 0.4).all(), p),
            ),
            Comparison(
                "node-needed: FROG >= Row2Node - 0.01",
                "1.00 / 0.51 / 1.00 (R2N / R2E / FROG)",
                f"{_fmt(n)} / {_fmt(e)} / {_fmt(f)}",
                _judged(lambda: f.mean() >= n.mean() - 0.01, f, n),
            ),
        ]
    return out


def _plot_pi(history: pd.DataFrame):
    def plot(fig) -> None:
        kinds = sorted(history.kind.unique())
        for i, kind in enumerate(kinds):
            ax = fig.add_subplot(1, len(kinds), i + 1)
            h = history[(history.kind == kind) & history.pi_review.notna()]
            for (model, seed), g in h.groupby(["model", "seed"]):
                ax.plot(g.epoch, g.pi_review, label=f"{model} s{seed}")
            ax.set_title(kind)
            ax.set_ylim(0, 1)
            ax.set_xlabel("epoch")
            if i == 0:
                ax.set_ylabel("pi_review (1 = edges)")
                ax.legend(fontsize=6)

    return plot


def run_planted(quick: bool) -> ExperimentOutcome:
    import pandas as pd

    if quick:
        summary, history = planted_runs(
            ["edge_easy", "node"], ["row2node", "row2edge", "frog"], [0], PLANTED_QUICK
        )
    else:
        summary, history = planted_runs(
            ["edge_easy", "node"], ["row2node", "row2edge", "frog"], [0, 1, 2], PLANTED_FULL
        )
        s2, h2 = planted_runs(
            ["edge_hard"], ["row2node", "row2edge", "frog", "frog_annealed"], [0, 1, 2], PLANTED_FULL
        )
        summary, history = pd.concat([summary, s2]), pd.concat([history, h2])
    return ExperimentOutcome(
        summary,
        planted_comparisons(summary),
        _plot_pi(history),
        notes="quick: 1 seed, 1200 customers, 10 epochs; full: 3 seeds, 3000 customers, 25 epochs",
    )


# --------------------------------------------------------------------------------- Lahman
# quick: 4 training seasons, 32 channels, fan-out 10, 10 epochs (Row2Node 0.796-0.814 test AUROC over seeds 0-4)
LAHMAN_QUICK = {"train_start": 2012, "epochs": 10, "channels": 32, "fanout": 10}
# the quick setting's FROG check: one seed, and the single-seed FROG - Row2Node gap has sd ~ 0.008 (quick
# setting, seeds 0-4), so the full gate (-0.005 on the mean of 3 seeds) is replaced by -0.02 (~2.5 sd)
QUICK_FROG_TOLERANCE = 0.02
LAHMAN_FULL = {"train_start": 2004, "epochs": 10, "channels": 64, "fanout": 30}


def lahman_runs(
    tasks: Sequence[str],
    models: Sequence[str],
    seeds: Sequence[int],
    overrides: dict,
    history: list | None = None,
) -> pd.DataFrame:
    """One summary row per task x model x seed; per-epoch rows are appended to ``history`` if given."""
    import pandas as pd

    from toolkit_frog.simulation import LahmanParams, lahman

    rows = []
    for task in tasks:
        for model in models:
            for seed in seeds:
                out = lahman(LahmanParams(**{**overrides, "task": task, "model": model}), seed)
                rows.append({"task": task, "model": model, "seed": seed, **out.summary})
                if history is not None:
                    history += [{"task": task, "model": model, "seed": seed, **r} for r in out.records]
    return pd.DataFrame(rows)


def plot_lahman_roles(history: pd.DataFrame):
    """fig -> pi per link table over the epochs of the FROG runs (one panel per task)."""

    def plot(fig) -> None:
        h = history[history.model == "frog"]
        tasks = sorted(h.task.unique())
        for i, task in enumerate(tasks):
            ax = fig.add_subplot(1, len(tasks), i + 1)
            for c in [c for c in h.columns if c.startswith("pi_")]:
                for seed, g in h[h.task == task].groupby("seed"):
                    ax.plot(
                        g.epoch,
                        g[c],
                        color=f"C{list(h.columns).index(c) % 10}",
                        label=c[3:] if seed == g.seed.min() and seed == h.seed.min() else None,
                    )
            ax.set_title(f"Lahman {task}: FROG roles")
            ax.set_ylim(0, 1)
            ax.set_xlabel("epoch")
            ax.set_ylabel("pi (1 = edges)")
            ax.legend(fontsize=7)

    return plot


def lahman_comparisons(summary: pd.DataFrame, quick: bool = False) -> list[Comparison]:
    """Paper claims and reference targets vs measured. ``quick``: the FROG check is the quick setting's looser one
    (FROG >= Row2Node - QUICK_FROG_TOLERANCE, one seed), labelled as such in its claim text."""
    s = summary[summary.task == "allstar"]
    col = lambda m: s[s.model == m].sort_values("seed")["test_auroc"].to_numpy()
    n, f, ent, joined = col("row2node"), col("frog"), col("lgbm_entity"), col("lgbm_joined")

    def ok(cond, *arrays):  # None (not judged) when a model was not run
        return None if any(len(a) == 0 for a in arrays) else bool(cond())

    out = [
        Comparison(
            "Lahman All-Star: Row2Node GNN test AUROC >= 0.76",
            ">= 0.76",
            _fmt(n) if len(n) else "not run",
            ok(lambda: n.mean() >= 0.76, n),
        ),
        Comparison(
            f"Lahman All-Star, quick setting's check (1 seed): FROG >= Row2Node - {QUICK_FROG_TOLERANCE} "
            "(single-seed gap sd ≈ 0.008; the target -0.005 over 3 seeds is the full setting's)"
            if quick
            else "Lahman All-Star: FROG >= Row2Node - 0.005",
            "FROG ≈ RDL baseline (paper: small margins)",
            f"FROG {_fmt(f) if len(f) else 'not run'} vs R2N {_fmt(n) if len(n) else 'not run'}",
            ok(lambda: f.mean() >= n.mean() - (QUICK_FROG_TOLERANCE if quick else 0.005), f, n),
        ),
        Comparison(
            "Lahman All-Star: both GNNs above LightGBM on the player table",
            "LightGBM player table 0.66 here",
            f"LightGBM player table {_fmt(ent) if len(ent) else 'not run'}",
            ok(lambda: min(n.mean(), f.mean()) > ent.mean(), n, f, ent),
        ),
        Comparison(
            "Lahman All-Star: LightGBM on joined season aggregates (reference)",
            "0.86 here (hand-joined season statistics)",
            _fmt(joined) if len(joined) else "not run",
            None,
        ),
    ]
    g = summary[summary.task == "games"]
    if len(g):
        txt = ", ".join(f"{m} {_fmt(g[g.model == m]['test_mae'])}" for m in g.model.unique())
        out.append(
            Comparison(
                "Lahman games next season: test MAE (lower is better)", "no target in the paper", txt, None
            )
        )
    return out


def run_lahman(quick: bool) -> ExperimentOutcome:
    import pandas as pd

    if quick:
        # the joined-aggregate LightGBM is a reference without a check: full setting only
        summary = lahman_runs(["allstar"], ["row2node", "frog", "lgbm_entity"], [0], LAHMAN_QUICK)
    else:
        summary = pd.concat(
            [
                lahman_runs(
                    ["allstar"],
                    ["row2node", "row2edge", "frog", "lgbm_entity", "lgbm_joined"],
                    [0, 1, 2],
                    LAHMAN_FULL,
                ),
                lahman_runs(
                    ["games"], ["row2node", "frog", "lgbm_entity", "lgbm_joined"], [0, 1, 2], LAHMAN_FULL
                ),
            ]
        )
    return ExperimentOutcome(
        summary,
        lahman_comparisons(summary, quick),
        notes="temporal split: train seasons from train_start to 2015, val 2016, test 2018; "
        "quick: 1 seed, train seasons 2012-2015, 32 channels, fan-out 10, 10 epochs, "
        "no joined-aggregate LightGBM (a reference); "
        "full: 3 seeds, 2004-2015, 64 channels, fan-out 30, 10 epochs",
    )


# --------------------------------------------------------------------------------- leakage
def leakage_auroc(seed: int = 0, leak: bool = False, n_customers: int = 1200, epochs: int = 8) -> float:
    """Test AUROC of Row2Node on a database whose only signal is the label's own future row.

    ``leak=True`` is the control: the sampler is given a time after every row, so the future
    purchase (which holds the label) becomes visible; the honest sampler must give chance level.
    """
    import torch

    from toolkit_frog.features import encode_database
    from toolkit_frog.planted import make_planted_database, planted_task
    from toolkit_frog.train import SeedSplit, TrainConfig, build_graph, fit, make_batches, task_splits

    torch.set_num_threads(1)
    db = make_planted_database("none", 1.0, n_customers, 50, seed)
    task = planted_task(db)
    feats = encode_database(db)
    graph = build_graph(db, "row2node", [])
    cfg = TrainConfig(epochs=epochs, channels=32, num_neighbors=(10, 10))
    splits = task_splits(task)
    batches = {}
    for i, (name, sp) in enumerate(splits.items()):
        times = np.full_like(sp.time, db.max_timestamp + 1) if leak else sp.time
        batches[name] = make_batches(
            graph, feats, "customer", SeedSplit(sp.entity, times, sp.y), cfg, 1.0, seed + i
        )
    return fit(graph, feats, "customer", splits, task.task_type, "row2node", cfg, seed, batches=batches).test


def untimed_link_auroc(
    seed: int = 0, static: bool = False, hops: int = 2, n_customers: int = 600, epochs: int = 6
) -> float:
    """Test AUROC of Row2Node (``hops`` layers, all neighbours) when the label sits only in line rows
    of a future invoice and the line table has no time column. ``static=True`` is the control that
    declares the line table always visible (the behaviour before time inheritance)."""
    import warnings

    import torch

    from toolkit_frog.planted import make_untimed_link_database, untimed_link_task
    from toolkit_frog.train import TrainConfig, run_models

    torch.set_num_threads(1)
    db = make_untimed_link_database(hops, n_customers, seed, static_link=static)
    cfg = TrainConfig(epochs=epochs, channels=16, num_layers=hops, num_neighbors=(-1,) * hops)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the control's leak warning is the point of the control
        return run_models(untimed_link_task(db), ["row2node"], [], cfg, seed)["row2node"].test


def run_leakage(quick: bool) -> ExperimentOutcome:
    import pandas as pd

    seeds = [0] if quick else [0, 1, 2]
    rows = [
        {"seed": s, "sampler": name, "test_auroc": leakage_auroc(s, leak, 1200 if quick else 3000)}
        for s in seeds
        for name, leak in (("temporal (ours)", False), ("leaky control", True))
    ]
    rows += [
        {"seed": s, "sampler": name, "test_auroc": untimed_link_auroc(s, static, 2, 600 if quick else 1500)}
        for s in seeds
        for name, static in (
            ("untimed link: inherited time (ours)", False),
            ("untimed link: static control", True),
        )
    ]
    t = pd.DataFrame(rows)
    col = lambda name: t[t.sampler == name].test_auroc.to_numpy()
    honest, leaky = col("temporal (ours)"), col("leaky control")
    inh, static = col("untimed link: inherited time (ours)"), col("untimed link: static control")
    return ExperimentOutcome(
        t,
        [
            Comparison(
                "no leakage: label planted only in a future row -> chance AUROC",
                "chance level (0.5)",
                _fmt(honest),
                bool(abs(honest.mean() - 0.5) < 0.08),
            ),
            Comparison(
                "control: a sampler that sees the future row finds the label",
                "(sanity check, not in the paper)",
                _fmt(leaky),
                bool(leaky.mean() > 0.9),
            ),
            Comparison(
                "no leakage through an untimed link table (label in line rows of a future invoice, 2 hops)",
                "chance level (0.5)",
                _fmt(inh),
                bool(abs(inh.mean() - 0.5) < 0.1),
            ),
            Comparison(
                "control: the same table declared static (the old behaviour) leaks the label",
                "(sanity check: the leak itself is measured on a retail database)",
                _fmt(static),
                bool(static.mean() > 0.9),
            ),
        ],
    )


EXPERIMENTS = [
    Experiment(
        "frog.planted_roles",
        "planted signals: Row2Node / Row2Edge / FROG AUROC and learned pi_review",
        run_planted,
    ),
    Experiment(
        "frog.lahman_allstar",
        "Lahman All-Star next season (+ games regression): GNNs vs LightGBM",
        run_lahman,
    ),
    Experiment(
        "frog.no_leakage",
        "label only in a future row (or in an untimed link table): chance AUROC",
        run_leakage,
    ),
]
