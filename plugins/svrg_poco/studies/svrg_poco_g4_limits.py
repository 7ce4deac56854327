"""G4 diagnostic (no gate): IVON's zero-variance limit on the digits MLP, beside Adam, at equal steps.

A posterior correction can at best remove the mini-batch noise of IVON's gradient. So the best any
correction can do is IVON driven by the exact full-batch gradient at its sampled weights ("exact"),
for the same number of steps. With the weight noise off as well (eps = 0) it is the deterministic limit
("deterministic"). Both limits run beside mini-batch IVON, IVON-PoCo (alpha = 0.5 and 1) and Adam, 40
epochs (1,800 steps of batch 32) each, on the same seeds and initial weights, on a learning-rate grid
wide enough that each method's best rate is an interior point (3x steps). The readings were fixed in
the plugin README before the runs. The range of IVON's Hessian estimate h at the end is printed. Last
come IVON and IVON-PoCo at lr 0.05 with beta2 = 0.999 instead of the spec's .99999. Resumable: each
finished run is written at once to g4_limits.csv under --out, and a run already there is not run again.

    python plugins/svrg_poco/studies/svrg_poco_g4_limits.py [--seeds 0,1,2] [--ivon-lrs 0.05,0.15,...,109.35]
        [--adam-lrs 0.001,0.003,0.009,0.027,0.081] [--epochs 40] [--out results/svrg_poco]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd
from toolkit_svrg_poco.minibatch import make_optimizer
from toolkit_svrg_poco.mlp import DigitsMLP, fit_mlp

from toolkit.argtypes import comma_list, seeds

IVON_LRS = (0.05, 0.15, 0.45, 1.35, 4.05, 12.15, 36.45, 109.35)
ADAM_LRS = (1e-3, 3e-3, 9e-3, 2.7e-2, 8.1e-2)
POCO_ALPHAS = (0.5, 1.0)


class ExactGradients(DigitsMLP):
    """The digits MLP whose every step sees the whole training set (same number of steps per epoch)."""

    def __init__(self, seed: int, *, weight_noise: bool, **kwargs):
        super().__init__(seed, **kwargs)
        self.weight_noise = weight_noise

    def epoch_batches(self):
        return [np.arange(self.n)] * math.ceil(self.n / self.batch_size)

    def normal_like(self, theta):
        return super().normal_like(theta) if self.weight_noise else theta * 0


def run(variant: str, method: str, lr: float, seed: int, epochs: int, **options) -> dict:
    if variant == "mini-batch":
        oracle = DigitsMLP(seed)
    else:
        oracle = ExactGradients(seed, weight_noise=variant == "exact")
    alpha = options.pop("alpha", 0.5) if method == "ivon_poco" else None
    optimizer = make_optimizer(method, oracle, lr, alpha, **options)
    if alpha is not None:
        options["alpha"] = alpha
    final = fit_mlp(oracle, optimizer, seed, epochs)[-1]
    h = getattr(optimizer, "h", None)
    return {
        "variant": variant,
        "method": method,
        "lr": lr,
        "seed": seed,
        "epochs": epochs,
        **options,
        **final,
        "h_min": float(h.min()) if h is not None else math.nan,
        "h_max": float(h.max()) if h is not None else math.nan,
    }


def _same_run(row: dict, key: dict) -> bool:
    """Whether a stored row is the run ``key`` (options it lacks, such as beta2, are the defaults)."""
    for column in ("alpha", "beta2"):
        if column not in key and not pd.isna(row.get(column, math.nan)):
            return False
    return all(
        np.isclose(row.get(c, math.nan), v) if isinstance(v, float) else row.get(c) == v
        for c, v in key.items()
    )


def _best_rate(curve: pd.Series, grid: list[float]) -> tuple[float, float, bool]:
    """(best lr by mean loss, its loss, whether it is an interior point of ``grid``)."""
    lr = float(curve.idxmin())
    return lr, float(curve.min()), min(grid) < lr < max(grid)


def wide_grid_reading(summary: pd.DataFrame, ivon_lrs: list[float], adam_lrs: list[float]) -> str:
    """The reading over the whole grid (fixed in the README before the run): every IVON-family run of the
    spec's beta2, at any rate, on its lowest seed, against Adam's mean at Adam's best rate."""
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
    args = parser.parse_args(argv)
    if args.epochs < 1:
        parser.error(f"--epochs must be >= 1, got {args.epochs}")
    for option, rates in (("--ivon-lrs", args.ivon_lrs), ("--adam-lrs", args.adam_lrs)):
        if min(rates) <= 0:
            parser.error(f"{option}: learning rates must be > 0, got {min(rates):g}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "g4_limits.csv"
    plan = [("mini-batch", "adam", lr, {}) for lr in args.adam_lrs]
    plan += [
        (variant, "ivon", lr, {})
        for lr in args.ivon_lrs
        for variant in ("mini-batch", "exact", "deterministic")
    ]
    plan += [
        ("mini-batch", "ivon_poco", lr, {"alpha": alpha}) for lr in args.ivon_lrs for alpha in POCO_ALPHAS
    ]
    plan += [("mini-batch", method, 0.05, {"beta2": 0.999}) for method in ("ivon", "ivon_poco")]
    done = pd.read_csv(path).to_dict("records") if path.exists() else []
    if done and "epochs" not in done[0]:
        print(f"{path}: older layout without 'epochs'; its runs are re-run", flush=True)
        done = []
    rows = []
    for variant, method, lr, options in plan:
        for seed in args.seeds:
            key = {
                "variant": variant,
                "method": method,
                "lr": lr,
                "seed": seed,
                "epochs": args.epochs,
                **options,
            }
            row = next((r for r in done if _same_run(r, key)), None)
            if row is None:
                row = run(variant, method, lr, seed, args.epochs, **options)
                done.append(row)
                pd.DataFrame(done).to_csv(path, index=False)  # kept as it grows: a stopped run keeps its rows
                print(row, flush=True)
            rows.append(row)
    table = pd.DataFrame(rows)
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
    for ivon_lr, adam_lr, reading in ((0.05, 1e-3, "spec's rates"), (0.15, 3e-3, "tuned rates")):
        if not (np.isclose(limits.lr, ivon_lr).any() and np.isclose(adam.index, adam_lr).any()):
            continue
        best = limits[np.isclose(limits.lr, ivon_lr)].train_loss_min.min()
        print(
            f"{reading}: best zero-variance IVON (lr {ivon_lr:g}, lowest seed) {best:.4f} vs Adam (lr {adam_lr:g}, mean) "
            f"{adam[adam_lr]:.4f}: {'blocked (the limit is above Adam)' if best > adam[adam_lr] else 'not blocked'}"
        )
    print(wide_grid_reading(summary, args.ivon_lrs, args.adam_lrs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
