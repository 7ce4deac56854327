"""Lahman baseball tasks: Row2Node / Row2Edge / FROG GNNs against LightGBM (player table / joined aggregates).

Writes summary.csv (one row per task x model x seed), history.csv (per epoch), comparisons.md and
pi_over_training.png (FROG's role per link table per epoch) to --out.

    python plugins/frog/studies/frog_lahman.py                  # full: 3 seeds, allstar + games
    python plugins/frog/studies/frog_lahman.py --quick          # 1 seed, 4 training seasons, 32 channels, fan-out 10

Each task x model x seed is a point of ``frog.lahman`` in the run store (``--store``, default
``TOOLKIT_STORE``), stored as it finishes: a rerun serves the finished points from the store.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

from toolkit_frog.lahman import LAHMAN_TASKS

from toolkit.argtypes import add_run_options, comma_list

MODELS = ("row2node", "row2edge", "frog", "lgbm_entity", "lgbm_joined")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--tasks",
        type=comma_list(choices=LAHMAN_TASKS),
        default=list(LAHMAN_TASKS),
        help="comma-separated: " + ",".join(LAHMAN_TASKS),
    )
    ap.add_argument(
        "--models",
        type=comma_list(choices=MODELS),
        default=list(MODELS),
        help="comma-separated: " + ",".join(MODELS),
    )
    ap.add_argument("--seeds", type=int, default=3, help="number of seeds (0..n-1)")
    ap.add_argument("--quick", action="store_true", help="few seasons and epochs")
    ap.add_argument("--epochs", type=int, default=None, help="override the number of epochs")
    ap.add_argument("--out", default="results/frog/lahman", help="output folder")
    add_run_options(ap, executors=("serial", "processes"))
    args = ap.parse_args(argv)

    import matplotlib
    import pandas as pd
    import torch

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from toolkit_frog.experiments import LAHMAN_FULL, LAHMAN_QUICK, lahman_comparisons, plot_lahman_roles

    import toolkit

    torch.set_num_threads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    overrides = dict(LAHMAN_QUICK if args.quick else LAHMAN_FULL)
    if args.epochs:
        overrides["epochs"] = args.epochs
    parts, history = [], []
    for task in args.tasks:
        result = toolkit.sweep(
            "frog.lahman",
            {"model": list(args.models)},
            seeds=list(range(args.seeds)),
            params={**overrides, "task": task},
            store=args.store,
            executor=args.executor,
            progress=False,
        )
        print(f"frog.lahman {task}: {len(result.runs)} points, {result.n_cached} from the store", flush=True)
        rows = []
        for run in result.runs:
            model, seed = run.params["model"], run.seed
            rows.append({"task": task, "model": model, "seed": seed, **run.summary})
            history += [{"task": task, "model": model, "seed": seed, **r} for r in run.records]
        parts.append(pd.DataFrame(rows))
        pd.concat(parts).to_csv(out / "summary.csv", index=False)
        pd.DataFrame(history).to_csv(out / "history.csv", index=False)
    summary = pd.concat(parts)
    hist = pd.DataFrame(history)
    if (hist.model == "frog").any():
        fig = plt.figure(figsize=(5 * hist[hist.model == "frog"].task.nunique(), 3.5))
        plot_lahman_roles(hist)(fig)
        fig.tight_layout()
        fig.savefig(out / "pi_over_training.png", dpi=120)
    metric_cols = [c for c in summary.columns if c.startswith("test_") or c.startswith("pi_")]
    agg = summary.groupby(["task", "model"])[metric_cols].agg(["mean", "std"]).round(3)
    lines = ["| claim | paper | measured | ok |", "|---|---|---|---|"]
    if (summary.task == "allstar").any():
        lines += [
            f"| {c.claim} | {c.paper} | {c.measured} | {c.ok} |"
            for c in lahman_comparisons(summary, args.quick)
        ]
    (out / "comparisons.md").write_text("```\n" + agg.to_string() + "\n```\n\n" + "\n".join(lines) + "\n")
    print(agg.to_string())
    print("\n".join(lines))


if __name__ == "__main__":
    main()
