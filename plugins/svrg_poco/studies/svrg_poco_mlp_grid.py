"""G4 with the spec's learning-rate grid, by a rule fixed before the runs (see the plugin README).

Phase 1 (choice, seeds 0-1): for Adam (1e-3), IVON (0.05) and IVON-PoCo (0.05, alpha = 0.5), the
learning rates x {1/3, 1, 3}; each method keeps the one with the lowest mean final train loss after
40 epochs. Test accuracy plays no part in the choice.
Phase 2 (confirmation, fresh seeds 2-3; 2-4 since 2026-12-02, the issue asks for >= 3): IVON-PoCo at its
chosen lr for 40 epochs, Adam at its chosen lr long enough to match IVON-PoCo's gradient evaluations;
the G4 comparisons at equal steps and at equal evaluations, on the mean over the confirmation seeds.

Resumable: each finished run is written at once to mlp_grid.csv / mlp_confirm.csv under --out, and a
run already there (same method, lr, seed and epochs) is not run again.

    python plugins/svrg_poco/studies/svrg_poco_mlp_grid.py [--epochs 40] [--confirm-seeds 2,3,4] [--out results/svrg_poco]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd
from toolkit_svrg_poco.mlp import train_mlp

from toolkit.argtypes import comma_list

CENTRES = {"adam": 1e-3, "ivon": 0.05, "ivon_poco": 0.05}
FACTORS = (1 / 3, 1.0, 3.0)


def _resumed(path: Path, columns: list[str]) -> pd.DataFrame:
    """The rows already in ``path`` if it has ``columns`` (an older layout is re-run, not guessed)."""
    if path.exists():
        done = pd.read_csv(path)
        if set(columns) <= set(done.columns):
            return done
        print(
            f"{path}: older layout without {sorted(set(columns) - set(done.columns))}; its runs are re-run",
            flush=True,
        )
    return pd.DataFrame(columns=columns)


def _has(done: pd.DataFrame, **key) -> bool:
    mask = pd.Series(True, index=done.index)
    for column, value in key.items():
        mask &= (
            (done[column] - value).abs() <= 1e-12 * max(1.0, abs(value))
            if column.endswith("lr")
            else done[column] == value
        )
    return bool(mask.any())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument(
        "--confirm-seeds",
        type=comma_list(int, minimum=2),
        default=[2, 3, 4],
        help="fresh seeds for the confirmation, each >= 2 (seeds 0-1 make the choice)",
    )
    parser.add_argument("--out", default="results/svrg_poco")
    args = parser.parse_args(argv)
    if args.epochs < 1:
        parser.error(f"--epochs must be >= 1, got {args.epochs}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    grid_path, confirm_path = out / "mlp_grid.csv", out / "mlp_confirm.csv"
    grid = _resumed(grid_path, ["method", "lr", "seed", "epoch", "train_loss"])
    for method, centre in CENTRES.items():
        for factor in FACTORS:
            for seed in (0, 1):
                if _has(grid, method=method, lr=centre * factor, seed=seed, epoch=args.epochs):
                    continue
                curve = train_mlp(
                    method,
                    centre * factor,
                    seed,
                    epochs=args.epochs,
                    alpha=0.5 if method == "ivon_poco" else None,
                )
                grid = pd.concat(
                    [
                        grid,
                        pd.DataFrame([{"method": method, "lr": centre * factor, "seed": seed, **curve[-1]}]),
                    ],
                    ignore_index=True,
                )
                grid.to_csv(grid_path, index=False)
                print(grid.iloc[-1].to_dict(), flush=True)
    grid = grid[grid.epoch == args.epochs]
    means = grid.groupby(["method", "lr"]).train_loss.mean().reset_index()
    chosen = {m: float(g.sort_values("train_loss").lr.iloc[0]) for m, g in means.groupby("method")}
    print(means.to_string(index=False))
    print("chosen:", chosen)

    confirm = _resumed(confirm_path, ["seed", "epochs", "poco_lr", "adam_lr", "poco_train_loss"])
    for seed in args.confirm_seeds:
        if _has(confirm, seed=seed, epochs=args.epochs, poco_lr=chosen["ivon_poco"], adam_lr=chosen["adam"]):
            continue
        poco = pd.DataFrame(train_mlp("ivon_poco", chosen["ivon_poco"], seed, epochs=args.epochs, alpha=0.5))
        adam = pd.DataFrame(
            train_mlp("adam", chosen["adam"], seed, epochs=int(math.ceil(poco.evals.iloc[-1] / 1438)) + 1)
        )
        steps = adam[adam.steps <= poco.steps.iloc[-1]].iloc[-1]
        evals = adam[adam.evals <= poco.evals.iloc[-1]].iloc[-1]
        row = {
            "seed": seed,
            "epochs": args.epochs,
            "poco_lr": chosen["ivon_poco"],
            "adam_lr": chosen["adam"],
            "poco_train_loss": poco.train_loss.iloc[-1],
            "poco_test_accuracy": poco.test_accuracy.iloc[-1],
            "adam_loss_equal_steps": steps.train_loss,
            "adam_loss_equal_evals": evals.train_loss,
            "adam_accuracy_equal_steps": steps.test_accuracy,
            "adam_accuracy_equal_evals": evals.test_accuracy,
        }
        confirm = pd.concat([confirm, pd.DataFrame([row])], ignore_index=True)
        confirm.to_csv(confirm_path, index=False)
        print(row, flush=True)
    confirm = confirm[
        (confirm.epochs == args.epochs)
        & confirm.seed.isin(args.confirm_seeds)
        & ((confirm.poco_lr - chosen["ivon_poco"]).abs() <= 1e-12)
        & ((confirm.adam_lr - chosen["adam"]).abs() <= 1e-12)
    ]
    table = confirm.astype(float)
    pd.set_option("display.width", 200)
    print(table.to_string(index=False))
    m = table.mean()
    print(
        f"equal steps: IVON-PoCo {m.poco_train_loss:.4f} vs Adam {m.adam_loss_equal_steps:.4f} "
        f"({'ok' if m.poco_train_loss <= m.adam_loss_equal_steps else 'MISS'})"
    )
    print(
        f"equal evaluations: loss {m.poco_train_loss:.4f} vs 2 x {m.adam_loss_equal_evals:.4f} "
        f"({'ok' if m.poco_train_loss <= 2 * m.adam_loss_equal_evals else 'MISS'}); accuracy {m.poco_test_accuracy:.3f} "
        f"vs {m.adam_accuracy_equal_evals:.3f} - 0.02 ({'ok' if m.poco_test_accuracy >= m.adam_accuracy_equal_evals - 0.02 else 'MISS'})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
