"""Planted-signal comparison: Row2Node / Row2Edge / FROG (reconstructed) test AUROC and learned roles.

Writes summary.csv (one row per kind x model x seed), history.csv (per epoch, with pi_review),
comparisons.md (claim vs measured) and pi_over_training.png to --out.

    python plugins/frog/studies/frog_planted.py                 # full: 3 seeds, edge_easy/edge_hard/node
    python plugins/frog/studies/frog_planted.py --quick         # 1 seed, small databases

Each kind x model x seed is a point of ``frog.planted`` in the run store (``--store``, default
``TOOLKIT_STORE``): a rerun serves the finished points from the store.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

from toolkit_frog.planted import SIGNAL_KINDS

from toolkit.argtypes import add_run_options, comma_list

MODELS = ("row2node", "row2edge", "frog", "frog_annealed")


def planted_sweeps(args, overrides: dict):
    """(summary: one row per kind x model x seed, history: one row per epoch), from ``frog.planted`` points."""
    import pandas as pd
    from toolkit_frog.experiments import MODEL_VARIANTS

    import toolkit

    runs = {}
    for label in args.models:
        result = toolkit.sweep(
            "frog.planted",
            {"kind": list(args.kinds)},
            seeds=list(range(args.seeds)),
            params={**overrides, **MODEL_VARIANTS[label]},
            store=args.store,
            executor=args.executor,
            progress=False,
        )
        print(
            f"frog.planted {label}: {len(result.runs)} points, {result.n_cached} from the store", flush=True
        )
        runs.update({(run.params["kind"], label, run.seed): run for run in result.runs})
    summaries, history = [], []
    for kind in args.kinds:  # the order of the tables: kind, model, seed
        for label in args.models:
            for seed in range(args.seeds):
                run = runs[(kind, label, seed)]
                summaries.append({"kind": kind, "model": label, "seed": seed, **run.summary})
                history += [{"kind": kind, "model": label, "seed": seed, **r} for r in run.records]
    return pd.DataFrame(summaries), pd.DataFrame(history)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--kinds",
        type=comma_list(choices=SIGNAL_KINDS),
        default=["edge_easy", "edge_hard", "node"],
        help="comma-separated signal kinds: " + ",".join(SIGNAL_KINDS),
    )
    ap.add_argument(
        "--models",
        type=comma_list(choices=MODELS),
        default=list(MODELS),
        help="comma-separated: " + ",".join(MODELS),
    )
    ap.add_argument("--seeds", type=int, default=3, help="number of seeds (0..n-1)")
    ap.add_argument("--quick", action="store_true", help="small databases and few epochs")
    ap.add_argument("--strength", type=float, default=1.0, help="planted signal strength in [0, 1]")
    ap.add_argument("--out", default="results/frog/planted", help="output folder")
    add_run_options(ap, executors=("serial", "processes"))
    args = ap.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import torch
    from toolkit_frog.experiments import PLANTED_FULL, PLANTED_QUICK, _plot_pi, planted_comparisons

    torch.set_num_threads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    overrides = {**(PLANTED_QUICK if args.quick else PLANTED_FULL), "strength": args.strength}
    summary, history = planted_sweeps(args, overrides)
    summary.to_csv(out / "summary.csv", index=False)
    history.to_csv(out / "history.csv", index=False)
    agg = summary.groupby(["kind", "model"])[["test_auroc", "pi_review"]].agg(["mean", "std"]).round(3)
    lines = ["| claim | paper | measured | ok |", "|---|---|---|---|"]
    lines += [f"| {c.claim} | {c.paper} | {c.measured} | {c.ok} |" for c in planted_comparisons(summary)]
    (out / "comparisons.md").write_text("```\n" + agg.to_string() + "\n```\n\n" + "\n".join(lines) + "\n")
    fig = plt.figure(figsize=(4 * summary.kind.nunique(), 3.5))
    _plot_pi(history)(fig)
    fig.tight_layout()
    fig.savefig(out / "pi_over_training.png", dpi=120)
    print(agg.to_string())
    print("\n".join(lines))


if __name__ == "__main__":
    main()
