"""G4 diagnostic (no target): IVON's zero-variance limit on the digits MLP, beside Adam, at equal steps.

A posterior correction can at best remove the mini-batch noise of IVON's gradient. So the best any
correction can do is IVON driven by the exact full-batch gradient at its sampled weights ("exact"),
for the same number of steps. With the weight noise off as well (eps = 0) it is the deterministic limit
("deterministic"). Both limits run beside mini-batch IVON, IVON-PoCo (alpha = 0.5 and 1) and Adam, 40
epochs (1,800 steps of batch 32) each, on the same seeds and initial weights, on a learning-rate grid
wide enough that each method's best rate is an interior point (3x steps). The readings were fixed in
the plugin README before the runs. The range of IVON's Hessian estimate h at the end is printed. Last
come IVON and IVON-PoCo at lr 0.05 with beta2 = 0.999 instead of the paper's .99999. Every run is a
``svrg_poco.mlp`` run (``gradient=`` mini-batch, exact or deterministic) kept in the run store (--store,
default TOOLKIT_STORE): an interrupted or repeated call reads the finished runs back. The runs' table is
also written to g4_limits.csv under --out.

    python plugins/svrg_poco/studies/svrg_poco_g4_limits.py [--seeds 0,1,2] [--ivon-lrs 0.05,0.15,...,109.35]
        [--adam-lrs 0.001,0.003,0.009,0.027,0.081] [--epochs 40] [--out results/svrg_poco] [--store runs.sqlite]
        [--executor processes]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit.argtypes import add_run_options, comma_list, open_run_store, seeds

IVON_LRS = (0.05, 0.15, 0.45, 1.35, 4.05, 12.15, 36.45, 109.35)
ADAM_LRS = (1e-3, 3e-3, 9e-3, 2.7e-2, 8.1e-2)
POCO_ALPHAS = (0.5, 1.0)


def plan(ivon_lrs: list[float], adam_lrs: list[float]) -> list[tuple[str, str, list[float], dict]]:
    """(variant, method, learning rates, options) of every group of runs."""
    groups = [("mini-batch", "adam", list(adam_lrs), {})]
    groups += [(variant, "ivon", list(ivon_lrs), {}) for variant in ("mini-batch", "exact", "deterministic")]
    groups += [("mini-batch", "ivon_poco", list(ivon_lrs), {"alpha": alpha}) for alpha in POCO_ALPHAS]
    groups += [("mini-batch", method, [0.05], {"beta2": 0.999}) for method in ("ivon", "ivon_poco")]
    return groups


def stored_runs(args: argparse.Namespace, store) -> tuple[pd.DataFrame, int, int]:
    """One row per run (its last epoch, h_min, h_max), through the store; runs computed and read back."""
    import toolkit

    rows, computed, cached = [], 0, 0
    for variant, method, lrs, options in plan(args.ivon_lrs, args.adam_lrs):
        if method == "ivon_poco":
            options = {"alpha": 0.5, **options}
        res = toolkit.sweep(
            "svrg_poco.mlp",
            {"lr": lrs},
            args.seeds,
            params={"method": method, "gradient": variant, "epochs": args.epochs, **options},
            store=store,
            executor=args.executor,
            check=False,
        )
        computed, cached = computed + res.n_computed, cached + res.n_cached
        for r in res.runs:
            rows.append(
                {
                    "variant": variant,
                    "method": method,
                    "lr": r.params["lr"],
                    "seed": r.seed,
                    "epochs": args.epochs,
                    **options,
                    **r.records[-1],
                    "h_min": r.summary["h_min"],
                    "h_max": r.summary["h_max"],
                }
            )
            if not r.from_cache:
                print(rows[-1], flush=True)
    return pd.DataFrame(rows), computed, cached


def _best_rate(curve: pd.Series, grid: list[float]) -> tuple[float, float, bool]:
    """(best lr by mean loss, its loss, whether it is an interior point of ``grid``)."""
    lr = float(curve.idxmin())
    return lr, float(curve.min()), min(grid) < lr < max(grid)


def wide_grid_reading(summary: pd.DataFrame, ivon_lrs: list[float], adam_lrs: list[float]) -> str:
    """The reading over the whole grid (fixed in the README before the run): every IVON-family run of the
    paper's beta2, at any rate, on its lowest seed, against Adam's mean at Adam's best rate."""
    adam_lr, adam_loss, adam_inside = _best_rate(
        summary[summary.method == "adam"].set_index("lr").train_loss_mean, adam_lrs
    )
    family = summary[summary.method.isin(["ivon", "ivon_poco"]) & (summary.beta2 == 0.99999)]
    lines = [f"Adam: best lr {adam_lr:g} (mean {adam_loss:.4f}; interior of the grid: {adam_inside})"]
    for (method, variant, alpha), g in family.groupby(["method", "variant", "alpha"], dropna=False):
        lr, loss, inside = _best_rate(g.set_index("lr").train_loss_mean, ivon_lrs)
        label = f"{method} {variant}" + ("" if pd.isna(alpha) else f" alpha {alpha:g}")
        lines.append(
            f"{label}: best lr {lr:g} (mean {loss:.4f}, lowest seed {g.train_loss_min.min():.4f}; interior: {inside})"
        )
    lowest = family.loc[family.train_loss_min.idxmin()]
    inside = adam_inside and all(line.endswith("interior: True)") for line in lines[1:])
    verdict = (
        "NOT blocked"
        if lowest.train_loss_min <= adam_loss
        else "blocked (above Adam at every rate)"
        if inside
        else "inconclusive (a best rate is at the edge of the grid: widen it)"
    )
    lines.append(
        f"wide grid: lowest IVON-family loss {lowest.train_loss_min:.4f} ({lowest.method} {lowest.variant}, lr "
        f"{lowest.lr:g}, lowest seed) vs Adam's best mean {adam_loss:.4f}: {verdict}"
    )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=seeds, default=[0, 1, 2])
    parser.add_argument(
        "--ivon-lrs",
        type=comma_list(float, minimum=0),
        default=list(IVON_LRS),
        help="IVON and IVON-PoCo learning rates",
    )
    parser.add_argument(
        "--adam-lrs", type=comma_list(float, minimum=0), default=list(ADAM_LRS), help="Adam learning rates"
    )
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--out", default="results/svrg_poco")
    add_run_options(parser)
    args = parser.parse_args(argv)
    if args.epochs < 1:
        parser.error(f"--epochs must be >= 1, got {args.epochs}")
    for option, rates in (("--ivon-lrs", args.ivon_lrs), ("--adam-lrs", args.adam_lrs)):
        if min(rates) <= 0:
            parser.error(f"{option}: learning rates must be > 0, got {min(rates):g}")

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    store = open_run_store(args.store)
    try:
        table, computed, cached = stored_runs(args, store)
    finally:
        store.close()
    table.to_csv(out / "g4_limits.csv", index=False)
    for column in ("beta2", "alpha"):
        if column not in table:
            table[column] = math.nan
    table["beta2"] = table["beta2"].fillna(0.99999).where(table.method != "adam")
    table["train_loss"] = table.train_loss.where(
        np.isfinite(table.train_loss), np.inf
    )  # diverged: worst, not skipped
    summary = (
        table.groupby(["method", "variant", "alpha", "lr", "beta2"], dropna=False)
        .agg(
            train_loss_mean=("train_loss", "mean"),
            train_loss_min=("train_loss", "min"),
            train_loss_max=("train_loss", "max"),
            test_accuracy=("test_accuracy", "mean"),
            h_min=("h_min", "min"),
            h_max=("h_max", "max"),
            seeds=("seed", "count"),
        )
        .reset_index()
    )
    pd.set_option("display.width", 200)
    print(summary.to_string(index=False))
    adam = summary[summary.method == "adam"].set_index("lr").train_loss_mean
    limits = summary[
        (summary.method == "ivon")
        & summary.variant.isin(["exact", "deterministic"])
        & (summary.beta2 == 0.99999)
    ]
    for ivon_lr, adam_lr, reading in ((0.05, 1e-3, "paper's rates"), (0.15, 3e-3, "tuned rates")):
        if not (np.isclose(limits.lr, ivon_lr).any() and np.isclose(adam.index, adam_lr).any()):
            continue
        best = limits[np.isclose(limits.lr, ivon_lr)].train_loss_min.min()
        print(
            f"{reading}: best zero-variance IVON (lr {ivon_lr:g}, lowest seed) {best:.4f} vs Adam (lr {adam_lr:g}, mean) "
            f"{adam[adam_lr]:.4f}: {'blocked (the limit is above Adam)' if best > adam[adam_lr] else 'not blocked'}"
        )
    print(wide_grid_reading(summary, args.ivon_lrs, args.adam_lrs))
    print(f"{computed + cached} runs: {computed} computed, {cached} from the store", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
