"""Comparison table (methods x links, mean +/- sd over seeds) on the two-region design at SNR 5, the
simulation targets, and the null design. Writes CSVs and a figure to --out.

    python plugins/sbayfdnn/studies/sbayfdnn_compare.py                      # full: 4 links x 3 seeds, n = 500
    python plugins/sbayfdnn/studies/sbayfdnn_compare.py --quick              # the quick setting of toolkit reproduce
    python plugins/sbayfdnn/studies/sbayfdnn_compare.py --seeds 5 --first-seed 5   # fresh seeds 5-9

Every (link, seed) and every null-design seed (``sbayfdnn.null``) is a point of the run store (``--store``,
default ``TOOLKIT_STORE``), stored as soon as it is fitted; a rerun serves those from the store (a
stopped run keeps its rows).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Literal

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from study_points import plain_rows, study_simulation
from study_points import sweep as study_sweep

from toolkit.argtypes import add_run_options, comma_list
from toolkit.config import Field, Params


class ComparePoint(Params):
    """One (link, seed) of the comparison on the two-region design at SNR 5."""

    link: Literal["linear", "sin", "square", "exp"] = Field("linear", description="link g")
    methods: list[str] = Field(["sbayfdnn", "flm"], description="methods compared")
    settings: dict[str, int] = Field({}, description="n_train, n_test, epochs, anneal, finetune, restarts")


def compare_point(params: ComparePoint, seed: int) -> list[dict]:
    """Every method on one two-region split (one row per method)."""
    from toolkit_sbayfdnn.experiments import run_gates

    part = run_gates([params.link], [seed], dict(params.settings), tuple(params.methods))
    print(part[["link", "seed", "method", "rmse", "rmse_ratio"]].to_string(index=False), flush=True)
    return plain_rows(part.to_dict("records"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    from toolkit_sbayfdnn.baselines import EXTRA_METHODS, METHODS
    from toolkit_sbayfdnn.experiments import LINKS

    parser.add_argument(
        "--links",
        type=comma_list(choices=LINKS),
        default=list(LINKS),
        help=f"comma-separated, from {', '.join(LINKS)}",
    )
    parser.add_argument("--seeds", type=int, default=3, help="number of seeds (first-seed .. first-seed+N-1)")
    parser.add_argument("--first-seed", type=int, default=0, help="first seed (fresh-seed confirmations: 5)")
    parser.add_argument("--null-seeds", type=int, default=5, help="seeds of the null design (0 to skip)")
    parser.add_argument(
        "--methods",
        type=comma_list(choices=METHODS + EXTRA_METHODS),
        default=["sbayfdnn", "flm", "select_all", "group_lasso", "fpca", "dense", "adafnn"],
        help=f"comma-separated, from {', '.join(METHODS + EXTRA_METHODS)}",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the quick two_region_targets setting (1000 epochs, 2 restarts, 1000 test curves)",
    )
    parser.add_argument("--out", default="results/sbayfdnn", help="output folder")
    add_run_options(parser, executors=("serial", "processes"))
    args = parser.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
    import torch
    from toolkit_sbayfdnn.experiments import QUICK_GATE_SETTINGS, _fit_settings, gate_comparisons

    torch.set_num_threads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    settings = QUICK_GATE_SETTINGS if args.quick else _fit_settings(False)
    links, methods = args.links, tuple(args.methods)
    start = time.perf_counter()
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    sim = study_simulation("compare", compare_point, ComparePoint, __file__)
    fixed = {"methods": list(methods), "settings": dict(settings)}
    result = study_sweep(sim, {"link": list(links)}, seeds, args, fixed)
    table = result.table.drop(columns=["simulation", "methods", "settings"])
    table.to_csv(out / "compare.csv", index=False)
    cols = ["rmse_ratio", "tpr", "fpr", "f1", "n_selected", "coverage", "wall_time"]
    agg = table.groupby(["link", "method"])[[c for c in cols if c in table]].agg(["mean", "std"])
    pretty = pd.DataFrame(index=agg.index)
    for c in [c for c in cols if c in table]:
        pretty[c] = [
            f"{m:.3f} ± {s:.3f}" if m == m else ""
            for m, s in zip(agg[(c, "mean")], agg[(c, "std")].fillna(0))
        ]
    pretty.to_csv(out / "compare_summary.csv")
    print(pretty.to_string())
    comps = gate_comparisons(table, "quick check: " if args.quick else "")
    if args.null_seeds:
        import toolkit

        null = toolkit.sweep(
            "sbayfdnn.null",
            params=settings,
            seeds=list(range(args.null_seeds)),
            store=args.store,
            executor=args.executor,
            progress=False,
        )
        print(f"sbayfdnn.null: {args.null_seeds} points, {null.n_cached} from the store", flush=True)
        null = null.table.drop(columns="simulation")
        null.to_csv(out / "null.csv", index=False)
        from toolkit import Comparison

        mean_sel = float(null["n_selected"].mean())
        comps.append(
            Comparison(
                "null design: basis functions selected",
                "on average at most one",
                f"mean {mean_sel:.2f} over {len(null)} seeds",
                mean_sel <= 1.0,
            )
        )
    gates = pd.DataFrame([c.__dict__ for c in comps], columns=["claim", "paper", "measured", "ok"])
    gates.to_csv(out / "targets.csv", index=False)
    print(gates.to_string())
    fig, ax = plt.subplots(figsize=(8, 4))
    table[table["method"] != "select_all"].groupby(["link", "method"])[
        "rmse_ratio"
    ].mean().unstack().plot.bar(ax=ax)
    ax.axhline(1.0, color="k", lw=0.8)
    ax.set_ylabel("test RMSE / oracle")
    fig.tight_layout()
    fig.savefig(out / "compare_rmse.png", dpi=120)
    plt.close(fig)
    print(
        f"wrote {out}/compare.csv, compare_summary.csv, targets.csv, compare_rmse.png "
        f"in {time.perf_counter() - start:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
