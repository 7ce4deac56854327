"""Loss oscillations and reduction fidelity: f/gamma against the perceptron loss along GD with a
large step (R1, Thm 4.1, Thm 5.1 data), the mistake-set period, the relative error of u_t = v_t/gamma
to the perceptron limit for several gamma (linear and fixed-outer ReLU), and the alignment of GD with
the cvxpy max-margin SVM.

    python plugins/gd_perceptron/studies/gd_perceptron_oscillations.py [--quick] [--out results/gd_perceptron]

Writes oscillations.png/.csv, reduction.png/.csv (+ _comparisons.md) and margins.png/.csv. Every run of
``gd_perceptron.dynamics`` and ``gd_perceptron.reduction`` is kept in the run store (--store, default
TOOLKIT_STORE): a rerun reads the finished runs back.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from toolkit.argtypes import add_run_options, open_run_store

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="shorter trajectories")
    ap.add_argument("--gamma", type=float, default=1e4, help="step size of the oscillation runs")
    ap.add_argument("--out", default="results/gd_perceptron", help="output folder")
    add_run_options(ap, executors=("serial",))
    args = ap.parse_args(argv)
    from toolkit_gd_perceptron import experiments as E

    E.STORE, E.FROM_CACHE[:] = open_run_store(args.store), []
    try:
        _study(args)
    finally:
        E.STORE.close()
        E.STORE = None
    cached = sum(E.FROM_CACHE)
    print(
        f"{len(E.FROM_CACHE)} runs: {len(E.FROM_CACHE) - cached} computed, {cached} from the store",
        file=sys.stderr,
    )


def _study(args: argparse.Namespace) -> None:

    import matplotlib

    matplotlib.use("Agg")
    import pandas as pd
    from matplotlib.figure import Figure
    from toolkit_gd_perceptron.experiments import _sim, run_margins, run_reduction
    from toolkit_gd_perceptron.reporting import comparisons_markdown, write_outcome

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cases = [
        ("R1 d=16", dict(dataset="r1", d=16, T=60)),
        ("Thm 4.1", dict(dataset="thm41", T=10)),
        ("Thm 5.1 n=1000", dict(dataset="thm51", n=1000, T=120 if args.quick else 400)),
    ]
    fig = Figure(figsize=(12, 6), layout="constrained")
    axes = fig.subplots(2, len(cases), sharex="col")
    tables = []
    for k, (label, kw) in enumerate(cases):
        res = _sim("gd_perceptron.dynamics", dict(model="linear", gamma=args.gamma, **kw))
        t = pd.DataFrame(res.records)
        t.insert(0, "case", label)
        tables.append(t)
        ax = axes[0, k]
        ax.plot(t["t"], t["loss_over_gamma"], label="f(v_t)/gamma")
        ax.plot(t["t"], t["perceptron_loss"], "--", label="perceptron loss")
        ax.set_title(
            f"{label}, gamma={args.gamma:g}: {res.summary['non_monotone_steps']} non-monotone steps, "
            f"period {res.summary['mistake_period']}",
            fontsize=8,
        )
        ax.legend(fontsize=7)
        axes[1, k].step(t["t"], t["n_mistakes"], where="post")
        axes[1, k].set_xlabel("t")
        axes[1, k].set_ylabel("mistakes |S_t|")
        print(f"{label}: {res.summary}")
    fig.savefig(out / "oscillations.png", dpi=120)
    pd.concat(tables, ignore_index=True).to_csv(out / "oscillations.csv", index=False)
    for name, fn in (("reduction", run_reduction), ("margins", run_margins)):
        outcome = fn(args.quick)
        write_outcome(outcome, out, name, figsize=(12, 4))
        print(f"\n## {name}\n")
        print(comparisons_markdown(outcome.comparisons))
    print(f"written to {out}/")


if __name__ == "__main__":
    main()
