"""Figures of one fit on the two-region design: true vs estimated beta with the selected regions
shaded, inclusion probabilities per basis function (with the 1/2 line), and Laplace predictive
intervals on test curves. Also a CSV of the PIPs and the intervals.

    python plugins/sbayfdnn/studies/sbayfdnn_figures.py --link square --seed 0 --out results/sbayfdnn

The fit is a point of the run store (``--store``, default ``TOOLKIT_STORE``): a rerun draws the figures
from the stored curves without refitting.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Literal

os.environ.setdefault("OMP_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from study_points import plain_rows, study_simulation
from study_points import sweep as study_sweep

from toolkit.argtypes import add_run_options
from toolkit.config import Field, Params


class FigurePoint(Params):
    """One fit of a design, with what its figures draw."""

    design: Literal["two_region", "one_region", "null"] = Field("two_region", description="design")
    link: Literal["linear", "sin", "square", "exp"] = Field("linear", description="link g")
    snr: float = Field(5.0, gt=0, description="signal-to-noise ratio")
    n_train: int = Field(500, ge=10, description="training curves (500 test curves)")
    epochs: int = Field(3000, ge=1, description="MAP epochs")


def figure_point(params: FigurePoint, seed: int) -> list[dict]:
    """Rows by ``part``: ``grid`` (t, true beta, the network's effective weight, the FLM's beta), ``basis``
    (PIP and squared column norm per basis function), ``test`` (response, prediction, interval) and one
    ``fit`` row (selected and true regions, region PIPs as JSON)."""
    import numpy as np
    import torch
    from toolkit_sbayfdnn.baselines import FunctionalLinearModel
    from toolkit_sbayfdnn.designs import simulate
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    torch.set_num_threads(1)
    d = simulate(params.design, params.link, params.snr, params.n_train, 500, 100, seed)
    model = SparseBayesianFDNN(epochs=params.epochs, random_state=seed).fit(d.X, d.y, d.grid)
    flm = FunctionalLinearModel().fit(d.X, d.y, d.grid)
    eff = model.effective_weight_function(d.X)
    lo, hi = model.predict_interval(d.X_test)
    pred = model.predict(d.X_test)
    regions = [[float(a), float(b)] for a, b in model.selected_regions_]
    rows = [
        {
            "part": "fit",
            "selected_regions": json.dumps(regions),
            "true_regions": json.dumps([[float(a), float(b)] for a, b in d.true_regions]),
            "region_pips": json.dumps(np.asarray(model.region_inclusion_probabilities_, float).tolist()),
        }
    ]
    rows += [
        {"part": "grid", "t": t, "beta": b, "effective": e, "flm_beta": f}
        for t, b, e, f in zip(d.grid, d.beta, eff, flm.beta_)
    ]
    rows += [
        {"part": "basis", "basis": j, "pip": q, "norm_sq": n}
        for j, (q, n) in enumerate(zip(model.inclusion_probabilities_, model.column_norms_sq_))
    ]
    rows += [
        {"part": "test", "y": y, "pred": p, "lower": a, "upper": b}
        for y, p, a, b in zip(d.y_test, pred, lo, hi)
    ]
    return plain_rows(rows)


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
    add_run_options(parser, executors=("serial", "processes"))
    args = parser.parse_args(argv)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sim = study_simulation("figures", figure_point, FigurePoint, __file__)
    fixed = dict(design=args.design, link=args.link, snr=args.snr, n_train=args.n_train, epochs=args.epochs)
    rows = pd.DataFrame(study_sweep(sim, {}, [args.seed], args, fixed).runs[0].records)
    fit = rows[rows["part"] == "fit"].iloc[0]
    grid, basis, test = (rows[rows["part"] == part] for part in ("grid", "basis", "test"))
    selected_regions = [tuple(r) for r in json.loads(fit["selected_regions"])]
    true_regions = json.loads(fit["true_regions"])
    region_pips = np.asarray(json.loads(fit["region_pips"]), float)
    tag = f"{args.design}_{args.link}_seed{args.seed}"

    fig, ax = plt.subplots(figsize=(7, 3.5))
    for lo, hi in selected_regions:
        ax.axvspan(lo, hi, color="tab:orange", alpha=0.2)
    for lo, hi in true_regions:
        ax.axvspan(lo, hi, ymin=0, ymax=0.05, color="k")
    t = grid["t"].to_numpy(float)

    def unit(v):
        return v / (np.max(np.abs(v)) or 1.0)

    ax.plot(t, unit(grid["beta"].to_numpy(float)), "k", label="true beta (scaled)")
    ax.plot(
        t, unit(grid["effective"].to_numpy(float)), "tab:orange", label="sbayfdnn: mean d f / d X(t) (scaled)"
    )
    ax.plot(t, unit(grid["flm_beta"].to_numpy(float)), "tab:blue", ls="--", label="FLM beta (scaled)")
    ax.set_xlabel("t")
    ax.set_title(f"{args.design}, link {args.link}: selected regions shaded, true region marked below")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / f"beta_{tag}.png", dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 3))
    ax.bar(np.arange(len(basis)), basis["pip"].to_numpy(float))
    ax.axhline(0.5, color="r", ls="--")
    ax.set_xlabel("basis function j")
    ax.set_ylabel("inclusion probability q_j")
    fig.tight_layout()
    fig.savefig(out / f"pip_{tag}.png", dpi=120)
    plt.close(fig)

    lo, hi = test["lower"].to_numpy(float), test["upper"].to_numpy(float)
    pred, y_test = test["pred"].to_numpy(float), test["y"].to_numpy(float)
    order = np.argsort(pred)[::10]
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.fill_between(np.arange(len(order)), lo[order], hi[order], alpha=0.3, label="Laplace 95% interval")
    ax.plot(pred[order], "k", lw=1, label="prediction")
    ax.plot(y_test[order], ".", ms=3, label="test response")
    coverage = np.mean((y_test >= lo) & (y_test <= hi))
    ax.set_title(f"coverage {coverage:.3f} on {len(y_test)} test curves")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / f"intervals_{tag}.png", dpi=120)
    plt.close(fig)

    basis[["basis", "pip", "norm_sq"]].astype({"basis": int}).to_csv(out / f"pip_{tag}.csv", index=False)
    test[["y", "pred", "lower", "upper"]].to_csv(out / f"intervals_{tag}.csv", index=False)
    print(
        f"selected regions {selected_regions} (region PIPs "
        f"{np.round(region_pips, 3).tolist()}); coverage {coverage:.3f}; "
        f"figures in {out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
