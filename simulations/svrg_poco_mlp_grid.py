"""G4 with the spec's learning-rate grid, by a rule fixed before the runs (see the plugin README).

Phase 1 (choice, seeds 0-1): for Adam (1e-3), IVON (0.05) and IVON-PoCo (0.05, alpha = 0.5), the
learning rates x {1/3, 1, 3}; each method keeps the one with the lowest mean final train loss after
40 epochs. Test accuracy plays no part in the choice.
Phase 2 (confirmation, fresh seeds 2-3): IVON-PoCo at its chosen lr for 40 epochs, Adam at its chosen
lr long enough to match IVON-PoCo's gradient evaluations; the G4 comparisons at equal steps and at
equal evaluations.

    python simulations/svrg_poco_mlp_grid.py [--epochs 40] [--out results/svrg_poco]
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import pandas as pd

from toolkit_svrg_poco.mlp import train_mlp

CENTRES = {"adam": 1e-3, "ivon": 0.05, "ivon_poco": 0.05}
FACTORS = (1 / 3, 1.0, 3.0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--out", default="results/svrg_poco")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    for method, centre in CENTRES.items():
        for factor in FACTORS:
            for seed in (0, 1):
                curve = train_mlp(method, centre * factor, seed, epochs=args.epochs, alpha=0.5 if method == "ivon_poco" else None)
                rows.append({"method": method, "lr": centre * factor, "seed": seed, **curve[-1]})
                print(rows[-1], flush=True)
    grid = pd.DataFrame(rows)
    grid.to_csv(out / "mlp_grid.csv", index=False)
    means = grid.groupby(["method", "lr"]).train_loss.mean().reset_index()
    chosen = {m: float(g.sort_values("train_loss").lr.iloc[0]) for m, g in means.groupby("method")}
    print(means.to_string(index=False))
    print("chosen:", chosen)

    confirm = []
    for seed in (2, 3):
        poco = pd.DataFrame(train_mlp("ivon_poco", chosen["ivon_poco"], seed, epochs=args.epochs, alpha=0.5))
        adam = pd.DataFrame(train_mlp("adam", chosen["adam"], seed, epochs=int(math.ceil(poco.evals.iloc[-1] / 1438)) + 1))
        steps = adam[adam.steps <= poco.steps.iloc[-1]].iloc[-1]
        evals = adam[adam.evals <= poco.evals.iloc[-1]].iloc[-1]
        confirm.append({"seed": seed, "poco_train_loss": poco.train_loss.iloc[-1], "poco_test_accuracy": poco.test_accuracy.iloc[-1],
                        "adam_loss_equal_steps": steps.train_loss, "adam_loss_equal_evals": evals.train_loss,
                        "adam_accuracy_equal_steps": steps.test_accuracy, "adam_accuracy_equal_evals": evals.test_accuracy})
    table = pd.DataFrame(confirm)
    table.to_csv(out / "mlp_confirm.csv", index=False)
    print(table.to_string(index=False))
    m = table.mean()
    print(f"equal steps: IVON-PoCo {m.poco_train_loss:.4f} vs Adam {m.adam_loss_equal_steps:.4f} "
          f"({'ok' if m.poco_train_loss <= m.adam_loss_equal_steps else 'MISS'})")
    print(f"equal evaluations: loss {m.poco_train_loss:.4f} vs 2 x {m.adam_loss_equal_evals:.4f} "
          f"({'ok' if m.poco_train_loss <= 2 * m.adam_loss_equal_evals else 'MISS'}); accuracy {m.poco_test_accuracy:.3f} "
          f"vs {m.adam_accuracy_equal_evals:.3f} - 0.02 ({'ok' if m.poco_test_accuracy >= m.adam_accuracy_equal_evals - 0.02 else 'MISS'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
