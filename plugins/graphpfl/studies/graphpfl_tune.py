"""Choose GraphP-FL (reconstructed) hyper-parameters on *validation* accuracy, on pilot seeds.

    python plugins/graphpfl/studies/graphpfl_tune.py --dataset MUTAG --n-clients 5 --noise 0.3 --n-rounds 50 \\
        --seeds 100:105 --grid sl_beta=0.2,0.5,0.8 --grid frpa_form=A,B
    python plugins/graphpfl/studies/graphpfl_tune.py --dataset PROTEINS --n-clients 10 --noise 0 --n-rounds 15 \\
        --seeds 100:102 --algorithm fedavg_sl --grid sl_beta=0.2,0.5,0.8

The procedure (kept apart from the reported numbers):
- pilot seeds (default 100-104) are disjoint from the seeds of the reported studies (0-19), so the
  partitions, noise draws, splits and initial models differ from those the statistics are read on;
- every configuration of ``--grid`` (their product) runs ``--algorithm`` on the same seeds as one
  FedAvg run per seed (paired design);
- the score of a configuration is the paired mean gain over FedAvg in *pooled validation accuracy
  at the best-validation round*; test accuracy is written to ``runs.csv`` but never printed here
  and never used for the choice.

Writes ``runs.csv`` and ``scores.csv`` to --out (default results/graphpfl/tune/<dataset>/) and
prints the scores, best first.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from pathlib import Path

from toolkit_graphpfl.study_args import check_strategies, seed_selection  # light: argparse and the core

from toolkit.argtypes import add_run_options, comma_list  # light: argparse only


def _value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", default="MUTAG")
    parser.add_argument("--n-clients", type=int, default=5)
    parser.add_argument("--noise", type=float, default=0.3, help="one noise level p")
    parser.add_argument("--n-rounds", type=int, default=50)
    parser.add_argument(
        "--seeds",
        type=seed_selection,
        default="100:105",
        help="pilot seeds (a:b or comma list), disjoint from the study's",
    )
    parser.add_argument("--algorithm", default="graphpfl")
    parser.add_argument(
        "--grid",
        action="append",
        default=[],
        metavar="NAME=V1,V2",
        help="a noise_robustness parameter and its candidate values (repeatable; product)",
    )
    parser.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="fixed parameter (repeatable)"
    )
    add_run_options(parser)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    if not args.grid:
        parser.error("--grid: give at least one NAME=V1,V2")
    check_strategies(parser, "--algorithm", [args.algorithm])
    grid = {}
    for item in args.grid:
        name, _, text = item.partition("=")
        try:
            grid[name.strip()] = comma_list(_value)(text)
        except argparse.ArgumentTypeError as exc:
            parser.error(f"argument --grid {name.strip()}: {exc}")

    import pandas as pd
    from toolkit_graphpfl.stats import paired_ci

    import toolkit

    fixed = {
        "dataset": args.dataset,
        "n_clients": args.n_clients,
        "n_rounds": args.n_rounds,
        "noise_p": args.noise,
    }
    for item in args.set:
        name, _, text = item.partition("=")
        fixed[name.strip()] = _value(text.strip())

    base = toolkit.sweep(
        "graphpfl.noise_robustness",
        grid={"algorithm": ["fedavg"]},
        seeds=args.seeds,
        params=fixed,
        store=args.store,
        executor=args.executor,
    ).summary_table
    base = base.set_index("seed")["val_acc_pooled"]
    runs = toolkit.sweep(
        "graphpfl.noise_robustness",
        grid={"algorithm": [args.algorithm], **grid},
        seeds=args.seeds,
        params=fixed,
        store=args.store,
        executor=args.executor,
    ).summary_table
    rows = []
    names = list(grid)
    for combo in itertools.product(*grid.values()):
        sel = runs
        for k, v in zip(names, combo):
            sel = sel[sel[k] == v]
        v = sel.set_index("seed")["val_acc_pooled"]
        common = v.index.intersection(base.index)
        m, lo, hi = paired_ci(100 * (v.loc[common] - base.loc[common]).to_numpy())
        rows.append(
            {
                **dict(zip(names, combo)),
                "n_seeds": len(common),
                "val_mean": 100 * v.mean(),
                "val_gain_vs_fedavg": m,
                "ci_low": lo,
                "ci_high": hi,
            }
        )
    scores = pd.DataFrame(rows).sort_values("val_gain_vs_fedavg", ascending=False)
    out = Path(args.out or Path("results") / "graphpfl" / "tune" / args.dataset)
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    scores.to_csv(out / "scores.csv", index=False)
    print(
        f"{args.algorithm} on {args.dataset}, p = {args.noise}, {args.n_rounds} rounds, pilot seeds {','.join(map(str, args.seeds))}; "
        f"FedAvg validation {100 * base.mean():.1f}"
    )
    metrics = ["val_mean", "val_gain_vs_fedavg", "ci_low", "ci_high"]
    print(scores.round({m: 1 for m in metrics}).to_string(index=False))  # grid values (e.g. lr) unrounded
    return 0


if __name__ == "__main__":
    sys.exit(main())
