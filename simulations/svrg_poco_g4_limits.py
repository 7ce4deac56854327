"""G4 diagnostic (no gate): IVON's zero-variance limit on the digits MLP, beside Adam, at equal steps.

A posterior correction can at best remove the mini-batch noise of IVON's gradient. So the best any
correction can do is IVON driven by the exact full-batch gradient at its sampled weights ("exact"),
for the same number of steps. With the weight noise off as well (eps = 0) it is the deterministic limit
("deterministic"). Both limits run beside mini-batch IVON, IVON-PoCo (alpha = 0.5) and Adam, 40 epochs
(1,800 steps of batch 32) each, on the same seeds and initial weights. The reading was fixed in the
plugin README before the first run. The range of IVON's Hessian estimate h at the end is printed. Last
come IVON and IVON-PoCo at lr 0.05 with beta2 = 0.999 instead of the spec's .99999.

    python simulations/svrg_poco_g4_limits.py [--seeds 0,1,2] [--epochs 40] [--out results/svrg_poco]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np
import pandas as pd

from toolkit_svrg_poco.minibatch import make_optimizer
from toolkit_svrg_poco.mlp import DigitsMLP, fit_mlp

IVON_LRS = (0.05, 0.15, 0.45)
ADAM_LRS = (1e-3, 3e-3)


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
    optimizer = make_optimizer(method, oracle, lr, 0.5 if method == "ivon_poco" else None, **options)
    final = fit_mlp(oracle, optimizer, seed, epochs)[-1]
    h = getattr(optimizer, "h", None)
    return {"variant": variant, "method": method, "lr": lr, "seed": seed, **options, **final,
            "h_min": float(h.min()) if h is not None else math.nan, "h_max": float(h.max()) if h is not None else math.nan}


def _seeds(text: str) -> list[int]:
    try:
        seeds = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--seeds must be comma-separated integers, got {text!r}") from None
    if not seeds or min(seeds) < 0:
        raise argparse.ArgumentTypeError(f"--seeds must be non-negative integers, got {text!r}")
    return seeds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=_seeds, default=[0, 1, 2])
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--out", default="results/svrg_poco")
    args = parser.parse_args(argv)
    if args.epochs < 1:
        parser.error(f"--epochs must be >= 1, got {args.epochs}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "g4_limits.csv"
    plan = [("mini-batch", "adam", lr, {}) for lr in ADAM_LRS]
    plan += [(variant, "ivon", lr, {}) for lr in IVON_LRS for variant in ("mini-batch", "exact", "deterministic")]
    plan += [("mini-batch", "ivon_poco", lr, {}) for lr in IVON_LRS]
    plan += [("mini-batch", method, 0.05, {"beta2": 0.999}) for method in ("ivon", "ivon_poco")]
    rows = []
    for variant, method, lr, options in plan:
        for seed in args.seeds:
            rows.append(run(variant, method, lr, seed, args.epochs, **options))
            print(rows[-1], flush=True)
            pd.DataFrame(rows).to_csv(path, index=False)  # kept as it grows: a stopped run keeps its rows
    table = pd.DataFrame(rows)
    if "beta2" not in table:
        table["beta2"] = math.nan
    table["beta2"] = table["beta2"].fillna(0.99999).where(table.method != "adam")
    summary = (table.groupby(["method", "variant", "lr", "beta2"], dropna=False)
               .agg(train_loss_mean=("train_loss", "mean"), train_loss_min=("train_loss", "min"),
                    train_loss_max=("train_loss", "max"), test_accuracy=("test_accuracy", "mean"),
                    h_min=("h_min", "min"), h_max=("h_max", "max"), seeds=("seed", "count"))
               .reset_index())
    pd.set_option("display.width", 200)
    print(summary.to_string(index=False))
    adam = summary[summary.method == "adam"].set_index("lr").train_loss_mean
    limits = summary[(summary.method == "ivon") & summary.variant.isin(["exact", "deterministic"])
                     & (summary.beta2 == 0.99999)]
    for ivon_lr, adam_lr, reading in ((0.05, 1e-3, "spec's rates"), (0.15, 3e-3, "tuned rates")):
        best = limits[np.isclose(limits.lr, ivon_lr)].train_loss_min.min()
        print(f"{reading}: best zero-variance IVON (lr {ivon_lr:g}, lowest seed) {best:.4f} vs Adam (lr {adam_lr:g}, mean) "
              f"{adam[adam_lr]:.4f}: {'blocked (the limit is above Adam)' if best > adam[adam_lr] else 'not blocked'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
