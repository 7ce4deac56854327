"""Paired noise study of federated graph learning: every method on the same partitions, noise draws and seeds.

    python plugins/graphpfl/studies/graphpfl_noise_study.py --dataset MUTAG --n-clients 5 --noise 0,0.3,0.5 \\
        --algorithms fedavg,graphpfl,fedavg_sl,frpa,local --seeds 0:10 --n-rounds 50
    python plugins/graphpfl/studies/graphpfl_noise_study.py --dataset PROTEINS --n-clients 10 --noise 0,0.3 --seeds 0:5 --n-rounds 30
    python plugins/graphpfl/studies/graphpfl_noise_study.py --set sl_beta=0.8 --set lambda_fisher=0.1 ...
    python plugins/graphpfl/studies/graphpfl_noise_study.py --dataset PTC_MR --set patience=10 --replay-patience 5 ...
    python plugins/graphpfl/studies/graphpfl_noise_study.py --dataset NCI1 --n-rounds 100 --reuse-from-rounds 20 ...

Runs ``graphpfl.noise_robustness`` as a toolkit sweep (cached in the run store; an interrupted study
resumes) and writes to --out (default results/graphpfl/<dataset>/). An existing runs.csv there is
merged: its rows of other (noise p, algorithm, seed) are kept, those this call computes or reads are
replaced; kept rows of another configuration (n_rounds, n_clients, a --set value...) are refused with
exit status 2 before any work, so one file never mixes two studies.
  runs.csv      one row per (noise p, algorithm, seed): accuracies at the best validation round, costs;
                ``computed_n_rounds`` is the maximum the run was computed with (--reuse-from-rounds)
  paired.csv    per (noise p, algorithm): mean ± sd (points) and the paired 95% CI of method − FedAvg
  drops.csv     per algorithm: paired accuracy drop from p = 0 to each p > 0
  accuracy_vs_noise.png
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from toolkit_graphpfl.study_args import check_strategies, seed_selection  # light: argparse and the core

from toolkit.argtypes import add_run_options, comma_list, open_run_store  # light: argparse only

KEY = ["noise_p", "algorithm", "seed"]  # one row of runs.csv per key


def _value(text: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def stored_runs(store: str | None, fixed: dict, noise: list[float], algorithms: list[str], seeds: list[int]):
    """Summaries of the finished ``noise_robustness`` runs in ``store`` that match ``fixed`` and ``seeds``."""
    import pandas as pd
    from toolkit_graphpfl.simulation import NoiseRobustnessParams

    want = NoiseRobustnessParams(**fixed).model_dump(mode="json")
    rows = []
    for run in open_run_store(store).iter_runs("graphpfl.noise_robustness"):
        params = dict(run.params)
        if (
            params.get("noise_p") not in noise
            or params.get("algorithm") not in algorithms
            or run.seed not in seeds
        ):
            continue
        if any(params.get(k) != v for k, v in want.items() if k not in ("noise_p", "algorithm")):
            continue
        rows.append({**params, "seed": run.seed, **run.summary, "_records": run.records})
    return pd.DataFrame(rows)


def replayed(runs, patience: int):
    """``runs`` (with their ``_records``) as runs with the stopping rule's ``patience`` would report them: a
    run with patience 0 or a larger patience holds every round a smaller patience runs (rows_under_patience)."""
    from toolkit_graphpfl.federation import replay_patience

    bad = runs[(runs["patience"] != 0) & (runs["patience"] < patience)]
    if len(bad):
        raise SystemExit(
            f"--replay-patience {patience}: {len(bad)} runs were made with a smaller patience "
            f"({sorted(set(bad['patience']))}); rerun them with patience 0 or >= {patience}"
        )
    out = runs.copy()
    for i, run in runs.iterrows():
        for k, v in replay_patience(
            run["_records"], patience, int(run["n_rounds"]), run["selection"]
        ).items():
            out.at[i, k] = v
    out["patience"] = patience
    return out


def reusable_runs(
    store: str | None,
    fixed: dict,
    noise: list[float],
    algorithms: list[str],
    seeds: list[int],
    from_rounds: int,
):
    """Runs in ``store`` made with ``n_rounds = from_rounds`` (all else as ``fixed``) that the stopping rule
    stopped: each is the same, round for round, as the run under ``fixed``'s larger ``n_rounds``
    (``federation.stopped_by_rule``; tested), so it is reported as that run. Runs that reached
    ``from_rounds`` without the rule firing are not returned: they must be computed again."""
    from toolkit_graphpfl.federation import stopped_by_rule

    runs = stored_runs(store, {**fixed, "n_rounds": from_rounds}, noise, algorithms, seeds)
    if runs.empty:
        return runs
    fired = [
        stopped_by_rule(rec, int(pat), int(ev))
        for rec, pat, ev in zip(runs["_records"], runs["patience"], runs["eval_every"])
    ]
    runs = runs[fired].copy()
    runs["computed_n_rounds"] = from_rounds
    runs["n_rounds"] = fixed["n_rounds"]
    runs["stopped_early"] = True  # the rule fired before the larger maximum
    return runs


def _normalised(value) -> str:
    """A parameter value as runs.csv gives it back, so a CSV row compares with a configuration."""
    import numbers

    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, (bool,)) or type(value).__name__ == "bool_":
        return str(bool(value))
    if isinstance(value, numbers.Number):
        f = float(value)
        return str(int(f)) if f.is_integer() else repr(f)
    if isinstance(value, (list, tuple)):
        return str(list(value))
    return str(value)


def other_configuration(kept, want: dict) -> list[str]:
    """The parameters on which rows of runs.csv that would be kept differ from the configuration ``want``."""
    names = [k for k in want if k not in ("noise_p", "algorithm") and k in kept.columns]
    return [
        f"{k}: {sorted(set(kept[k].map(_normalised)))} vs {_normalised(want[k])!r}"
        for k in names
        if (kept[k].map(_normalised) != _normalised(want[k])).any()
    ]


def _key_set(frame) -> set[tuple]:
    return {
        (float(p), str(a), int(s)) for p, a, s in zip(frame["noise_p"], frame["algorithm"], frame["seed"])
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--dataset", default="MUTAG", help="planted, a TU name under TOOLKIT_DATA_DIR, or A+B"
    )
    parser.add_argument("--n-clients", type=int, default=5)
    parser.add_argument(
        "--noise",
        type=comma_list(float, minimum=0.0),
        default=[0.0, 0.3, 0.5],
        help="comma-separated noise levels p in [0, 1]",
    )
    parser.add_argument(
        "--algorithms",
        type=comma_list(str),
        default=["fedavg", "graphpfl", "fedavg_sl", "frpa", "local"],
        help="comma-separated strategy names (built-in or registered by a plugin)",
    )
    parser.add_argument("--baseline", default="fedavg", help="the method every other is paired against")
    parser.add_argument("--seeds", type=seed_selection, default="0:10", help="seeds: a:b range or comma list")
    parser.add_argument("--n-rounds", type=int, default=50)
    parser.add_argument("--partition", default="random", choices=["random", "dirichlet", "topology"])
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any other noise_robustness parameter (repeatable), e.g. sl_beta=0.8",
    )
    add_run_options(parser)
    parser.add_argument("--max-workers", type=int, default=None)
    parser.add_argument(
        "--stored-only",
        action="store_true",
        help="compute nothing: build the tables from the matching runs already in --store "
        "(e.g. while a long study is still running); seeds missing for a method drop out of its pairs",
    )
    parser.add_argument("--out", default=None, help="output folder (default results/graphpfl/<dataset>)")
    parser.add_argument(
        "--reuse-from-rounds",
        type=int,
        default=None,
        metavar="M",
        help="report a run stored with n_rounds=M (all else equal) that the stopping rule stopped as "
        "the --n-rounds run (it is the same run); compute only those that reached M",
    )
    parser.add_argument(
        "--replay-patience",
        type=int,
        default=None,
        help="report the runs as the stopping rule with this patience would have (read off their "
        "rounds; the runs must have patience 0 or a larger one)",
    )
    args = parser.parse_args(argv)
    if any(p > 1 for p in args.noise):
        parser.error(f"argument --noise: noise levels are in [0, 1], got {args.noise}")
    algorithms = list(args.algorithms)
    if args.baseline not in algorithms:
        algorithms.insert(0, args.baseline)
    from toolkit_graphpfl.simulation import NoiseRobustnessParams

    from toolkit.config import validate_params
    from toolkit.errors import ParameterError

    check_strategies(parser, "--algorithms/--baseline", algorithms)
    fixed = {
        "dataset": args.dataset,
        "n_clients": args.n_clients,
        "n_rounds": args.n_rounds,
        "partition": args.partition,
    }
    for item in args.set:
        name, _, text = item.partition("=")
        fixed[name.strip()] = _value(text.strip())
    try:
        want = validate_params(NoiseRobustnessParams, fixed, owner="--set / the options").model_dump(
            mode="json"
        )
    except ParameterError as exc:
        parser.error(str(exc))
    if args.reuse_from_rounds is not None and not 1 <= args.reuse_from_rounds < args.n_rounds:
        parser.error(
            f"argument --reuse-from-rounds: {args.reuse_from_rounds} must be in [1, --n-rounds - 1 = "
            f"{args.n_rounds - 1}]: only runs with a smaller maximum can stand for --n-rounds runs"
        )
    noise, seeds = args.noise, args.seeds
    out = Path(args.out or Path("results") / "graphpfl" / args.dataset.replace("+", "_"))
    wanted = {(float(p), a, int(s)) for p in noise for a in algorithms for s in seeds}

    import matplotlib
    import pandas as pd

    existing = pd.read_csv(out / "runs.csv") if (out / "runs.csv").is_file() else None
    if existing is not None:
        kept = existing[
            [
                k not in wanted
                for k in zip(
                    existing["noise_p"].astype(float),
                    existing["algorithm"].astype(str),
                    existing["seed"].astype(int),
                )
            ]
        ]
        differ = other_configuration(kept, want)
        if differ:
            parser.error(
                f"{out / 'runs.csv'} holds {len(kept)} rows of other (noise p, algorithm, seed) made with "
                f"another configuration ({'; '.join(differ)}); they would be kept beside this call's rows. "
                f"Give another --out, or request their keys too so they are replaced"
            )

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from toolkit_graphpfl.stats import drop_table, paired_table

    import toolkit

    reused = pd.DataFrame()
    if args.reuse_from_rounds is not None:
        reused = reusable_runs(args.store, fixed, noise, algorithms, seeds, args.reuse_from_rounds)
    reused_keys = _key_set(reused) if len(reused) else set()
    if args.stored_only:
        exact = stored_runs(args.store, fixed, noise, algorithms, seeds)
        if len(exact) and reused_keys:
            exact = exact[
                [
                    k not in reused_keys
                    for k in zip(
                        exact["noise_p"].astype(float), exact["algorithm"], exact["seed"].astype(int)
                    )
                ]
            ]
        runs = pd.concat([reused, exact], ignore_index=True)
        status = f"{len(runs)} runs read from {open_run_store(args.store).path} (nothing computed)"
    elif args.reuse_from_rounds is None:
        sw = toolkit.sweep(
            "graphpfl.noise_robustness",
            grid={"noise_p": noise, "algorithm": algorithms},
            seeds=seeds,
            params=fixed,
            executor=args.executor,
            max_workers=args.max_workers,
            store=args.store,
        )
        runs = pd.DataFrame(
            [{**r.params, "seed": r.seed, **r.summary, "_records": r.records} for r in sw.runs]
        )
        status = f"{sw.n_computed} runs computed, {sw.n_cached} from the store"
    else:
        computed, n_computed, n_cached = [], 0, 0
        for p in noise:
            for alg in algorithms:
                todo = [s for s in seeds if (float(p), alg, int(s)) not in reused_keys]
                if not todo:
                    continue
                sw = toolkit.sweep(
                    "graphpfl.noise_robustness",
                    grid={"noise_p": [p], "algorithm": [alg]},
                    seeds=todo,
                    params=fixed,
                    executor=args.executor,
                    max_workers=args.max_workers,
                    store=args.store,
                )
                computed += [
                    {**r.params, "seed": r.seed, **r.summary, "_records": r.records} for r in sw.runs
                ]
                n_computed, n_cached = n_computed + sw.n_computed, n_cached + sw.n_cached
        runs = pd.concat([reused, pd.DataFrame(computed)], ignore_index=True)
        status = f"{n_computed} runs computed, {n_cached} from the store"
    if args.reuse_from_rounds is not None:
        status += f", {len(reused)} stopped by the rule within {args.reuse_from_rounds} rounds reused"
    if "computed_n_rounds" not in runs:
        runs["computed_n_rounds"] = runs["n_rounds"] if len(runs) else []
    runs["computed_n_rounds"] = runs["computed_n_rounds"].fillna(runs["n_rounds"]).astype(int)
    if args.replay_patience is not None:
        runs = replayed(runs, args.replay_patience)
        status += f"; reported with patience {args.replay_patience} (replayed)"
    runs = runs.drop(columns=["_records"])
    if existing is not None:
        kept = existing[
            [
                k not in _key_set(runs)
                for k in zip(
                    existing["noise_p"].astype(float),
                    existing["algorithm"].astype(str),
                    existing["seed"].astype(int),
                )
            ]
        ]
        if len(kept):
            runs = pd.concat([kept, runs], ignore_index=True)
        status += f"; merged into {out / 'runs.csv'} ({len(kept)} of its {len(existing)} rows kept)"
    runs = runs.sort_values(KEY, kind="stable").reset_index(drop=True)
    out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(out / "runs.csv", index=False)
    paired = paired_table(runs, baseline=args.baseline)
    paired.to_csv(out / "paired.csv", index=False)
    drops = [drop_table(runs, min(noise), p) for p in noise if p != min(noise)]
    drops = pd.concat(drops) if drops else pd.DataFrame()
    drops.to_csv(out / "drops.csv", index=False)

    fig, ax = plt.subplots(figsize=(6, 4))
    for alg, g in runs.groupby("algorithm"):
        m = g.groupby("noise_p")["test_acc_pooled"].agg(["mean", "std"])
        ax.errorbar(m.index, 100 * m["mean"], yerr=100 * m["std"].fillna(0), marker="o", capsize=3, label=alg)
    ax.set_xlabel("topology noise p")
    ax.set_ylabel("pooled test accuracy at best val round (%)")
    ax.set_title(
        f"{args.dataset}, {args.n_clients} clients, {args.n_rounds} rounds, {runs.seed.nunique()} seeds"
    )
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "accuracy_vs_noise.png", dpi=120)

    cols = ["noise_p", "algorithm", "n_seeds", "mean", "sd", "diff_vs_baseline", "ci_low", "ci_high"]
    print(paired[cols].round(1).to_string(index=False))
    if len(drops):
        print(
            drops[["algorithm", "p_from", "p_to", "n_seeds", "drop", "ci_low", "ci_high"]]
            .round(1)
            .to_string(index=False)
        )
    print(f"{status}; wrote {out}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
