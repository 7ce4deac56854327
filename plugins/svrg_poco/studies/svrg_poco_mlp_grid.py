"""G4 with the paper's learning-rate grid, by a rule fixed before the runs (see the plugin README).

Phase 1 (choice, seeds 0-1): for Adam (1e-3), IVON (0.05) and IVON-PoCo (0.05, alpha = 0.5), the
learning rates x {1/3, 1, 3}; each method keeps the one with the lowest mean final train loss after
40 epochs. Test accuracy plays no part in the choice.
Phase 2 (confirmation, fresh seeds 2-3; 2-4 since 2026-12-02, as the G4 target asks for >= 3): IVON-PoCo at its
chosen lr for 40 epochs, Adam at its chosen lr long enough to match IVON-PoCo's gradient evaluations;
the G4 comparisons at equal steps and at equal evaluations, on the mean over the confirmation seeds.

Every training run is a ``svrg_poco.mlp`` run kept in the run store (--store, default TOOLKIT_STORE): an
interrupted or repeated call reads the finished runs back instead of training them again. The tables are
also written to mlp_grid.csv / mlp_confirm.csv under --out.

    python plugins/svrg_poco/studies/svrg_poco_mlp_grid.py [--epochs 40] [--confirm-seeds 2,3,4] [--out results/svrg_poco]
        [--store runs.sqlite] [--executor processes]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from toolkit.argtypes import add_run_options, comma_list, open_run_store

CENTRES = {"adam": 1e-3, "ivon": 0.05, "ivon_poco": 0.05}
FACTORS = (1 / 3, 1.0, 3.0)
N_TRAIN = 1438  # digits: the 80% training split of 1,797 images
COMPUTED: list[bool] = []  # per run of the last call: whether it was computed (False: read from the store)


def _mlp_sweep(values: dict, lrs: list[float], seeds: list[int], store, executor: str):
    """``svrg_poco.mlp`` at ``values`` for each lr and seed; its runs, in grid order."""
    import toolkit

    res = toolkit.sweep(
        "svrg_poco.mlp", {"lr": lrs}, seeds, params=values, store=store, executor=executor, check=False
    )
    COMPUTED.extend(not r.from_cache for r in res.runs)
    return res.runs


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
    add_run_options(parser)
    args = parser.parse_args(argv)
    if args.epochs < 1:
        parser.error(f"--epochs must be >= 1, got {args.epochs}")
    import pandas as pd

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    COMPUTED.clear()
    store = open_run_store(args.store)
    try:
        rows = []
        for method, centre in CENTRES.items():
            values = {"method": method, "epochs": args.epochs, "alpha": 0.5}
            for r in _mlp_sweep(values, [centre * f for f in FACTORS], [0, 1], store, args.executor):
                rows.append({"method": method, "lr": r.params["lr"], "seed": r.seed, **r.records[-1]})
                if not r.from_cache:
                    print(rows[-1], flush=True)
        grid = pd.DataFrame(rows)
        grid.to_csv(out / "mlp_grid.csv", index=False)
        means = grid.groupby(["method", "lr"]).train_loss.mean().reset_index()
        chosen = {m: float(g.sort_values("train_loss").lr.iloc[0]) for m, g in means.groupby("method")}
        print(means.to_string(index=False))
        print("chosen:", chosen)

        poco_runs = _mlp_sweep(
            {"method": "ivon_poco", "epochs": args.epochs, "alpha": 0.5},
            [chosen["ivon_poco"]],
            args.confirm_seeds,
            store,
            args.executor,
        )
        rows = []
        for run in poco_runs:
            poco = pd.DataFrame(run.records)
            adam_epochs = int(math.ceil(poco.evals.iloc[-1] / N_TRAIN)) + 1
            (adam_run,) = _mlp_sweep(
                {"method": "adam", "epochs": adam_epochs}, [chosen["adam"]], [run.seed], store, "serial"
            )
            adam = pd.DataFrame(adam_run.records)
            steps = adam[adam.steps <= poco.steps.iloc[-1]].iloc[-1]
            evals = adam[adam.evals <= poco.evals.iloc[-1]].iloc[-1]
            rows.append(
                {
                    "seed": run.seed,
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
            )
            if not (run.from_cache and adam_run.from_cache):
                print(rows[-1], flush=True)
    finally:
        store.close()
    confirm = pd.DataFrame(rows)
    confirm.to_csv(out / "mlp_confirm.csv", index=False)
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
    print(
        f"{len(COMPUTED)} runs: {sum(COMPUTED)} computed, {len(COMPUTED) - sum(COMPUTED)} from the store",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
