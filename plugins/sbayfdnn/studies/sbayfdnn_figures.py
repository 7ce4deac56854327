"""Figures of one fit on the two-region design: true vs estimated beta with the selected regions
shaded, inclusion probabilities per basis function (with the 1/2 line), and Laplace predictive
intervals on test curves. Also a CSV of the PIPs and the intervals.

    python plugins/sbayfdnn/studies/sbayfdnn_figures.py --link square --seed 0 --out results/sbayfdnn
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--link", default="linear", choices=["linear", "sin", "square", "exp"])
    parser.add_argument("--design", default="two_region", choices=["two_region", "one_region", "null"])
    parser.add_argument("--snr", type=float, default=5.0)
    parser.add_argument("--n-train", type=int, default=500)
    parser.add_argument("--epochs", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="results/sbayfdnn")
    args = parser.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd
    import torch
    from toolkit_sbayfdnn.baselines import FunctionalLinearModel
    from toolkit_sbayfdnn.designs import simulate
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    torch.set_num_threads(1)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    d = simulate(args.design, args.link, args.snr, args.n_train, 500, 100, args.seed)
    model = SparseBayesianFDNN(epochs=args.epochs, random_state=args.seed).fit(d.X, d.y, d.grid)
    flm = FunctionalLinearModel().fit(d.X, d.y, d.grid)
    tag = f"{args.design}_{args.link}_seed{args.seed}"

    fig, ax = plt.subplots(figsize=(7, 3.5))
    for lo, hi in model.selected_regions_:
        ax.axvspan(lo, hi, color="tab:orange", alpha=0.2)
    for lo, hi in d.true_regions:
        ax.axvspan(lo, hi, ymin=0, ymax=0.05, color="k")
    eff = model.effective_weight_function(d.X)

    def unit(v):
        return v / (np.max(np.abs(v)) or 1.0)

    ax.plot(d.grid, unit(d.beta), "k", label="true beta (scaled)")
    ax.plot(d.grid, unit(eff), "tab:orange", label="sbayfdnn: mean d f / d X(t) (scaled)")
    ax.plot(d.grid, unit(flm.beta_), "tab:blue", ls="--", label="FLM beta (scaled)")
    ax.set_xlabel("t")
    ax.set_title(f"{args.design}, link {args.link}: selected regions shaded, true region marked below")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / f"beta_{tag}.png", dpi=120)

    fig, ax = plt.subplots(figsize=(7, 3))
    ax.bar(np.arange(model.n_basis), model.inclusion_probabilities_)
    ax.axhline(0.5, color="r", ls="--")
    ax.set_xlabel("basis function j")
    ax.set_ylabel("inclusion probability q_j")
    fig.tight_layout()
    fig.savefig(out / f"pip_{tag}.png", dpi=120)

    lo, hi = model.predict_interval(d.X_test)
    pred = model.predict(d.X_test)
    order = np.argsort(pred)[::10]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.fill_between(np.arange(len(order)), lo[order], hi[order], alpha=0.3, label="Laplace 95% interval")
    ax.plot(pred[order], "k", lw=1, label="prediction")
    ax.plot(d.y_test[order], ".", ms=3, label="test response")
    coverage = np.mean((d.y_test >= lo) & (d.y_test <= hi))
    ax.set_title(f"coverage {coverage:.3f} on {len(d.y_test)} test curves")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / f"intervals_{tag}.png", dpi=120)

    pd.DataFrame(
        {
            "basis": np.arange(model.n_basis),
            "pip": model.inclusion_probabilities_,
            "norm_sq": model.column_norms_sq_,
        }
    ).to_csv(out / f"pip_{tag}.csv", index=False)
    pd.DataFrame({"y": d.y_test, "pred": pred, "lower": lo, "upper": hi}).to_csv(
        out / f"intervals_{tag}.csv", index=False
    )
    print(
        f"selected regions {model.selected_regions_} (region PIPs "
        f"{np.round(model.region_inclusion_probabilities_, 3).tolist()}); coverage {coverage:.3f}; "
        f"figures in {out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
