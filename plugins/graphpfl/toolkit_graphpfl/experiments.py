"""Headline experiments of graphpfl for ``toolkit reproduce`` (quick: seconds; full: the statistics of the results page)."""

from __future__ import annotations

import pandas as pd

from toolkit.specs import Comparison, Experiment, ExperimentOutcome
from toolkit_graphpfl.stats import drop_table, paired_table

# The headline experiments were set and met with a fixed number of rounds and best-validation-accuracy
# selection; they keep that protocol (the stopping rule, the simulation's default, came later: README).
FIXED_ROUNDS = {"patience": 0, "selection": "val_acc"}


def paired_study(dataset: str, noise_ps, algorithms, seeds, **overrides) -> pd.DataFrame:
    """One row per (noise p, algorithm, seed): the summary of a ``graphpfl.noise_robustness`` run.

    Every algorithm sees the same data, noise draws, partitions and splits at a seed (paired design).
    Runs use :data:`FIXED_ROUNDS` unless ``overrides`` say otherwise.
    """
    from toolkit_graphpfl.simulation import NoiseRobustnessParams, noise_robustness

    overrides = {**FIXED_ROUNDS, **overrides}
    rows = []
    for p in noise_ps:
        for seed in seeds:
            for alg in algorithms:
                params = NoiseRobustnessParams(dataset=dataset, noise_p=p, algorithm=alg, **overrides)
                out = noise_robustness(params, seed)
                rows.append({"dataset": dataset, "noise_p": p, "algorithm": alg, "seed": seed, **out.summary})
    return pd.DataFrame(rows)


TARGET_EPS = (
    1e-9  # accuracies are ratios of small integers: a target met exactly must not fail on float rounding
)


def _at_least(value: float, target: float) -> bool:
    """``value >= target``, up to float rounding (TARGET_EPS)."""
    return bool(value >= target - TARGET_EPS)


def _get(table: pd.DataFrame, p: float, alg: str, col: str) -> float:
    sel = table[(table["noise_p"] == p) & (table["algorithm"] == alg)]
    return float(sel[col].iloc[0]) if len(sel) else float("nan")


def _accuracy_plot(results: pd.DataFrame):
    def plot(fig):
        ax = fig.add_subplot(1, 1, 1)
        groups = list(results.groupby("algorithm"))
        ps = sorted(results["noise_p"].unique())
        for k, (alg, g) in enumerate(groups):
            m = g.groupby("noise_p")["test_acc_pooled"].agg(["mean", "std"])
            dodge = 0.006 * (k - (len(groups) - 1) / 2)  # side by side: equal means would hide each other
            ax.errorbar(
                m.index + dodge,
                100 * m["mean"],
                yerr=100 * m["std"].fillna(0),
                label=alg,
                capsize=3,
                marker="o",
            )
        ax.set_xticks(ps)
        if len(ps) == 1:
            ax.set_xlim(ps[0] - 0.05, ps[0] + 0.05)
        ax.set_xlabel("topology noise p")
        seeds = results.groupby(["algorithm", "noise_p"]).size().max()
        ax.set_ylabel("pooled test accuracy (%)" + (f", mean ± sd over {seeds} seeds" if seeds > 1 else ""))
        ax.legend(fontsize=7)

    return plot


# Sized by cost alone, before running it (README "Quick setting"): 3 seeds x 50 rounds took 100 s on the
# 2026-12-02 machine; of the settings predicted under 45 s, the one with most rounds (at 15 FedAvg showed no
# noise drop at all).
QUICK_MUTAG = dict(seeds=2, n_rounds=30)
# 2 rounds is what fits in ~40 s; far from trained, so its differences are reported, not judged (README)
QUICK_PROTEINS = dict(seeds=1, n_rounds=2)
QUICK_COST_ROUNDS = 5
PROTEINS_COST_ROUNDS = 3  # the first is warm-up, excluded from the CPU time per round


def _fmt_ci(r) -> str:
    return f"{r.diff_vs_baseline:+.1f} [{r.ci_low:+.1f}, {r.ci_high:+.1f}] over {int(r.n_seeds)} seeds"


def run_mutag_noise(quick: bool) -> ExperimentOutcome:
    if quick:
        results = paired_study(
            "MUTAG",
            [0.0, 0.3],
            ["fedavg", "graphpfl"],
            range(QUICK_MUTAG["seeds"]),
            n_clients=5,
            n_rounds=QUICK_MUTAG["n_rounds"],
        )
    else:
        results = paired_study(
            "MUTAG",
            [0.0, 0.3, 0.5],
            ["fedavg", "graphpfl", "fedavg_sl", "frpa", "local"],
            range(10),
            n_clients=5,
            n_rounds=50,
        )
    table = paired_table(results, by=("dataset", "noise_p"))
    drops = drop_table(results, 0.0, 0.3)
    gain = table[(table.noise_p == 0.3) & (table.algorithm == "graphpfl")].iloc[0]
    clean = table[(table.noise_p == 0.0) & (table.algorithm == "graphpfl")].iloc[0]
    fed_drop = drops[drops.algorithm == "fedavg"].iloc[0]
    gp_drop = drops[drops.algorithm == "graphpfl"].iloc[0]
    if quick:
        # the quick setting is far too small for the targets; it checks their direction only
        q = f"quick setting ({QUICK_MUTAG['seeds']} seeds, {QUICK_MUTAG['n_rounds']} rounds, not the full target): "
        comps = [
            Comparison(
                q + "GraphP-FL - FedAvg on MUTAG at p = 0.3 is > 0 (points, paired 95% CI)",
                "+24.0 (84.8 vs 60.8, authors' table); full target >= +8 with CI low > 0",
                _fmt_ci(gain),
                bool(gain.diff_vs_baseline > 0),
            ),
            Comparison(
                q + "FedAvg loses accuracy from p = 0 to p = 0.3 on MUTAG (drop > 0, points)",
                "reference run 11.0; full target >= 5",
                f"{fed_drop['drop']:.1f} [{fed_drop.ci_low:.1f}, {fed_drop.ci_high:.1f}]",
                bool(fed_drop["drop"] > 0),
            ),
            Comparison(
                q + "GraphP-FL - FedAvg on clean MUTAG >= -4 (points)",
                "-3.5 (authors); target >= -4",
                _fmt_ci(clean),
                _at_least(clean.diff_vs_baseline, -4),
            ),
            Comparison(
                q + "drop p = 0 -> 0.3: GraphP-FL's smaller than FedAvg's (points)",
                "full target (p = 0 -> 0.5): FedAvg's drop larger",
                f"FedAvg {fed_drop['drop']:.1f}, GraphP-FL {gp_drop['drop']:.1f}",
                bool(gp_drop["drop"] < fed_drop["drop"]),
            ),
        ]
    else:
        d5 = drop_table(results, 0.0, 0.5)
        fa, gp = (float(d5[d5.algorithm == a]["drop"].iloc[0]) for a in ("fedavg", "graphpfl"))
        comps = [
            Comparison(
                "GraphP-FL - FedAvg on MUTAG, p = 0.3 (points, paired 95% CI)",
                "+24.0 (84.8 vs 60.8, authors' table); issue target >= +8 with CI low > 0",
                _fmt_ci(gain),
                _at_least(gain.diff_vs_baseline, 8) and bool(gain.ci_low > 0),
            ),
            Comparison(
                "FedAvg's drop from p = 0 to p = 0.3 on MUTAG (points)",
                "reference run 11.0; target >= 5",
                f"{fed_drop['drop']:.1f} [{fed_drop.ci_low:.1f}, {fed_drop.ci_high:.1f}]",
                _at_least(fed_drop["drop"], 5),
            ),
            Comparison(
                "GraphP-FL - FedAvg on clean MUTAG (points)",
                "-3.5 (authors); target >= -4",
                _fmt_ci(clean),
                _at_least(clean.diff_vs_baseline, -4),
            ),
            Comparison(
                "drop p = 0 -> 0.5: FedAvg vs GraphP-FL (points)",
                "FedAvg's drop larger",
                f"FedAvg {fa:.1f}, GraphP-FL {gp:.1f}",
                fa > gp,
            ),
        ]
    notes = (
        f"quick: {QUICK_MUTAG['seeds']} seeds, {QUICK_MUTAG['n_rounds']} rounds (direction checks only); "
        "full: 10 seeds (0-9), 50 rounds, 5 clients, paired by seed"
    )
    return ExperimentOutcome(table=table, comparisons=comps, plot=_accuracy_plot(results), notes=notes)


def run_proteins_no_harm(quick: bool) -> ExperimentOutcome:
    algs = ["fedavg", "graphpfl", "fedavg_sl", "frpa"]
    if quick:
        results = paired_study(
            "PROTEINS",
            [0.3],
            algs,
            range(QUICK_PROTEINS["seeds"]),
            n_clients=10,
            n_rounds=QUICK_PROTEINS["n_rounds"],
        )
    else:
        results = paired_study("PROTEINS", [0.0, 0.3], algs, range(5), n_clients=10, n_rounds=30)
    table = paired_table(results, by=("dataset", "noise_p"))
    q = (
        f"quick setting ({QUICK_PROTEINS['seeds']} seed, {QUICK_PROTEINS['n_rounds']} rounds): reported, not judged "
        "(far from trained, so no evidence on the target; the full setting judges it): "
        if quick
        else ""
    )
    comps = []
    for alg, target in (("graphpfl", -2.0), ("fedavg_sl", -1.0), ("frpa", -2.0)):
        for p in sorted(table.noise_p.unique()):
            row = table[(table.noise_p == p) & (table.algorithm == alg)]
            if not len(row):
                continue
            r = row.iloc[0]
            comps.append(
                Comparison(
                    f"{q}{alg} - FedAvg on PROTEINS, p = {p} (points)",
                    f"does no harm: >= {target:+.0f}",
                    _fmt_ci(r) if r.n_seeds > 1 else f"{r.diff_vs_baseline:+.1f} (1 seed)",
                    None if quick else _at_least(r.diff_vs_baseline, target),
                )
            )
    notes = (
        f"quick: {QUICK_PROTEINS['seeds']} seed, {QUICK_PROTEINS['n_rounds']} rounds at p = 0.3; "
        "full: 5 seeds, 30 rounds, 10 clients, p = 0 and 0.3"
    )
    return ExperimentOutcome(table=table, comparisons=comps, plot=_accuracy_plot(results), notes=notes)


def _add_cost_vs_fedavg(results: pd.DataFrame) -> float:
    """Add each method's CPU seconds per round relative to FedAvg's; return FedAvg's seconds per round.

    CPU seconds (warm-up round excluded): wall clock on a shared machine is too noisy.
    """
    fed = _get(results, 0.0, "fedavg", "mean_round_cpu_time_s")
    results["cost_vs_fedavg"] = results["mean_round_cpu_time_s"] / fed
    return fed


def run_round_cost(quick: bool) -> ExperimentOutcome:
    n_rounds = QUICK_COST_ROUNDS if quick else 30
    results = paired_study(
        "MUTAG",
        [0.0],
        ["fedavg", "graphpfl", "fedprox", "fedcurv"],
        range(1),
        n_clients=10,
        n_rounds=n_rounds,
    )
    fed = _add_cost_vs_fedavg(results)
    gp = results[results.algorithm == "graphpfl"].iloc[0]
    q = f" (quick setting: {n_rounds} rounds)" if quick else f" ({n_rounds} rounds)"
    # PROTEINS (up to 620 nodes per graph) is where the structure learner's cost shows
    proteins = paired_study(
        "PROTEINS", [0.0], ["fedavg", "graphpfl"], range(1), n_clients=10, n_rounds=PROTEINS_COST_ROUNDS
    )
    _add_cost_vs_fedavg(proteins)
    p_gp = float(proteins[proteins.algorithm == "graphpfl"].iloc[0].cost_vs_fedavg)
    results = pd.concat([results, proteins], ignore_index=True)
    comps = [
        Comparison(
            "FedAvg rounds per second of CPU time (MUTAG, 10 clients, GIN 3x64, batch 32, 1 thread)" + q,
            ">= 2",
            f"{1 / fed:.1f}",
            bool(1 / fed >= 2),
        ),
        Comparison(
            "GraphP-FL per-round CPU cost / FedAvg's, MUTAG" + q,
            "1.21x on GPU (paper); reference run 3.0x; target <= 3.5x",
            f"{gp.cost_vs_fedavg:.2f}x",
            bool(gp.cost_vs_fedavg <= 3.5),
        ),
        Comparison(
            f"GraphP-FL per-round CPU cost / FedAvg's, PROTEINS ({PROTEINS_COST_ROUNDS} rounds)",
            "reference run 4.5x; target <= 3.5x",
            f"{p_gp:.2f}x",
            bool(p_gp <= 3.5),
        ),
        Comparison(
            "Fisher step share of a GraphP-FL round" + q,
            "+5% (paper); target <= 10%",
            f"{100 * gp.fisher_share:.1f}%",
            bool(gp.fisher_share <= 0.10),
        ),
    ]
    cols = [
        "dataset",
        "algorithm",
        "mean_round_cpu_time_s",
        "mean_round_time_s",
        "cost_vs_fedavg",
        "fisher_share",
        "bytes_per_round",
        "n_shared_params",
    ]
    return ExperimentOutcome(
        table=results[cols], comparisons=comps, notes=f"{n_rounds} rounds, timings on a shared CPU are noisy"
    )


EXPERIMENTS = [
    Experiment(
        name="graphpfl.mutag_noise",
        description="MUTAG, 5 clients: GraphP-FL vs FedAvg under topology noise (paired)",
        run=run_mutag_noise,
    ),
    Experiment(
        name="graphpfl.proteins_no_harm",
        description="PROTEINS, 10 clients: GraphP-FL and ablations do no harm",
        run=run_proteins_no_harm,
    ),
    Experiment(
        name="graphpfl.round_cost",
        description="per-round cost and bytes of FedAvg, GraphP-FL, FedProx, FedCurv (MUTAG); GraphP-FL/FedAvg on PROTEINS",
        run=run_round_cost,
    ),
]
