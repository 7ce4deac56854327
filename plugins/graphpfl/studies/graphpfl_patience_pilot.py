"""Choose the stopping rule's patience on *validation* data of pilot seeds (never the study's seeds).

    python plugins/graphpfl/studies/graphpfl_patience_pilot.py --datasets PTC_MR,BZR --noise 0.3 \\
        --algorithms fedavg,graphpfl --seeds 100:103 --n-rounds 40 --candidates 3,5,10,20

Each (dataset, algorithm, pilot seed) runs once for ``--n-rounds`` rounds without stopping
(``patience=0``, cached in the run store). Training is seeded per (seed, round, client) and the rule
only ends the loop, so the run a patience P would have made is a prefix of that run
(``rows_under_patience``, tested against real runs); every candidate is read off the same runs. Per
candidate: the pooled validation accuracy at the round the rule reports (lowest validation loss among
the rounds run), the stop round, and the share of runs that reached the maximum. ``--also-max R1,R2`` also
scores every candidate as if the maximum were R1 (R2, ...) rounds. Test accuracy is never read.

Writes ``runs.csv`` (one row per run and candidate) and ``scores.csv`` to --out (default
results/graphpfl/patience_pilot/) and prints the scores.
"""

from __future__ import annotations

import argparse
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


def candidate_rows(records: list[dict], candidates: list[int], max_rounds: int) -> list[dict]:
    """Per candidate patience: what a run with that patience and at most ``max_rounds`` would report."""
    from toolkit_graphpfl.federation import best_round, rows_under_patience

    records = [r for r in records if r["round"] <= max_rounds]
    out = []
    for patience in candidates:
        rows = rows_under_patience(records, patience)
        best = best_round(rows, selection="val_loss")
        out.append(
            {
                "patience": patience,
                "max_rounds": max_rounds,
                "stop_round": rows[-1]["round"],
                "reached_max": rows[-1]["round"] == max_rounds,
                "best_round": best["round"],
                "val_acc_pooled": best["val_acc_pooled"],
                "val_loss": best["val_loss"],
            }
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--datasets", type=comma_list(str), default=["PTC_MR", "BZR"], help="comma-separated dataset names"
    )
    parser.add_argument("--n-clients", type=int, default=5)
    parser.add_argument("--noise", type=float, default=0.3, help="one topology noise level p")
    parser.add_argument(
        "--algorithms",
        type=comma_list(str),
        default=["fedavg", "graphpfl"],
        help="comma-separated strategy names",
    )
    parser.add_argument(
        "--seeds",
        type=seed_selection,
        default="100:103",
        help="pilot seeds (a:b or comma list), disjoint from the study's",
    )
    parser.add_argument("--n-rounds", type=int, default=40, help="rounds of each pilot run (no stopping)")
    parser.add_argument(
        "--candidates",
        type=comma_list(int, minimum=1),
        default=[3, 5, 10, 20],
        help="candidate patiences (each >= 1)",
    )
    parser.add_argument(
        "--also-max",
        type=comma_list(int, minimum=1),
        default=[],
        help="comma-separated maxima: also score each candidate as if the "
        "runs had stopped at that many rounds (replayed)",
    )
    parser.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="fixed parameter (repeatable)"
    )
    add_run_options(parser)
    parser.add_argument("--max-workers", type=int, default=None)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    candidates = args.candidates
    maxima = [args.n_rounds] + [m for m in args.also_max if m < args.n_rounds]
    check_strategies(parser, "--algorithms", args.algorithms)

    import pandas as pd

    import toolkit

    fixed = {"n_clients": args.n_clients, "n_rounds": args.n_rounds, "noise_p": args.noise, "patience": 0}
    for item in args.set:
        name, _, text = item.partition("=")
        fixed[name.strip()] = _value(text.strip())
    sw = toolkit.sweep(
        "graphpfl.noise_robustness",
        grid={"dataset": args.datasets, "algorithm": args.algorithms},
        seeds=args.seeds,
        params=fixed,
        executor=args.executor,
        max_workers=args.max_workers,
        store=args.store,
    )
    rows = []
    for run in sw.runs:
        for max_rounds in maxima:
            for row in candidate_rows(run.records, candidates, max_rounds):
                rows.append(
                    {
                        "dataset": run.params["dataset"],
                        "algorithm": run.params["algorithm"],
                        "noise_p": args.noise,
                        "seed": run.seed,
                        **row,
                    }
                )
    runs = pd.DataFrame(rows)
    scores = (
        runs.groupby(["max_rounds", "patience"])
        .agg(
            n_runs=("seed", "size"),
            val_acc=("val_acc_pooled", "mean"),
            mean_stop_round=("stop_round", "mean"),
            share_reached_max=("reached_max", "mean"),
        )
        .reset_index()
    )
    scores["val_acc"] *= 100
    by_alg = (
        runs.groupby(["max_rounds", "patience", "dataset", "algorithm"])["val_acc_pooled"]
        .mean()
        .mul(100)
        .unstack([2, 3])
    )
    out = Path(args.out or Path("results") / "graphpfl" / "patience_pilot")
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    scores.to_csv(out / "scores.csv", index=False)
    print(
        f"patience pilot: {','.join(args.datasets)}, p = {args.noise}, {','.join(args.algorithms)}, "
        f"pilot seeds {','.join(map(str, args.seeds))}, "
        f"{sw.n_computed} runs computed, {sw.n_cached} from the store; pooled validation accuracy (%) at the "
        f"reported round"
    )
    print(scores.round(2).to_string(index=False))
    print(by_alg.round(1).to_string())
    return 0


if __name__ == "__main__":
    sys.exit(main())
