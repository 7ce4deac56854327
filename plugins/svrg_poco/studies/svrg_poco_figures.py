"""Figures of svrg_poco: suboptimality per gradient evaluation (G1, G3) and the digits MLP (G4).

    python plugins/svrg_poco/studies/svrg_poco_figures.py [--out docs/plugins/svrg_poco/figures] [--mlp-epochs 40]
        [--store runs.sqlite]

Writes convergence_ls.png (SGD, SVRG option I/II, isotropic PoCo, VON-PoCo on least squares
kappa_H = 10 and 1e3), convergence_lr.png (SVRG vs VON-PoCo on digits and breast_cancer) and
mlp.png (train loss against steps and against gradient evaluations, Adam vs IVON vs IVON-PoCo), seed 0.
Every curve is a run of ``svrg_poco.convergence`` or ``svrg_poco.mlp`` kept in the run store (--store,
default TOOLKIT_STORE): redrawing reads the finished runs back.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

import toolkit
from toolkit.argtypes import add_run_options, open_run_store

STORE: Any = None  # the run store of this call (main sets it)
COMPUTED: list[bool] = []  # per run of the last call: whether it was computed (False: read from the store)


def _run(simulation: str, values: dict) -> pd.DataFrame:
    """The rows of ``simulation`` at ``values``, seed 0, through the run store."""
    res = toolkit.run(simulation, values, 0, store=STORE, check=False)
    COMPUTED.append(not res.from_cache)
    return pd.DataFrame(res.records)


def curve(**kw):
    return _run("svrg_poco.convergence", kw)


def convergence_figure(path: Path, methods: list, panels: list) -> None:
    """One panel per (title, problem settings), one curve per (label, method settings), over 100 epochs."""
    fig, axes = plt.subplots(1, len(panels), figsize=(10, 4), sharey=True)
    for ax, (title, problem) in zip(axes, panels):
        for label, kw in methods:
            t = curve(n_epochs=100.0, **problem, **kw)
            ax.semilogy(t.epoch, t.rel_suboptimality.clip(lower=1e-16), label=label)
        ax.set_title(title)
        ax.set_xlabel("gradient evaluations / N")
    axes[0].set_ylabel("(P - P*) / (P(0) - P*)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/plugins/svrg_poco/figures")
    parser.add_argument("--mlp-epochs", type=int, default=40)
    add_run_options(parser, executors=("serial",))
    args = parser.parse_args(argv)
    if args.mlp_epochs < 1:
        parser.error(f"--mlp-epochs must be >= 1, got {args.mlp_epochs}")

    global STORE
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    COMPUTED.clear()
    STORE = open_run_store(args.store)
    try:
        _figures(out, args.mlp_epochs)
    finally:
        STORE.close()
        STORE = None
    print(f"figures in {out}")
    print(
        f"{len(COMPUTED)} runs: {sum(COMPUTED)} computed, {len(COMPUTED) - sum(COMPUTED)} from the store",
        file=sys.stderr,
    )
    return 0


def _figures(out: Path, mlp_epochs: int) -> None:

    least_squares = [
        ("SGD (0.1/L)", dict(method="sgd", step=0.1)),
        ("SVRG option II (0.25/L, m = 2N)", dict(method="svrg", step=0.25)),
        ("SVRG option I", dict(method="svrg", step=0.25, option="I")),
        ("PoCo N(m, I) (= SVRG, step N eta)", dict(method="poco_iso", step=0.25)),
        ("VON-PoCo (eta = 1, m = N/10)", dict(method="von_poco", step=1.0, inner=0.1)),
    ]
    convergence_figure(
        out / "convergence_ls.png",
        least_squares,
        [(f"least squares, kappa_H = {k:g}", dict(problem="least_squares", kappa=k)) for k in (10.0, 1000.0)],
    )
    logistic = [
        ("SVRG option II (0.25/L, m = 2N)", dict(method="svrg", step=0.25)),
        ("SVRG option I", dict(method="svrg", step=0.25, option="I")),
        ("VON-PoCo (eta = 1, m = N/5)", dict(method="von_poco", step=1.0, inner=0.2)),
    ]
    convergence_figure(
        out / "convergence_lr.png",
        logistic,
        [(f"logistic regression, {p}", dict(problem=p)) for p in ("digits", "breast_cancer")],
    )

    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for label, method, lr, alpha, epochs in [
        ("Adam 1e-3", "adam", 1e-3, None, 3 * mlp_epochs),
        ("IVON 0.05", "ivon", 0.05, None, mlp_epochs),
        ("IVON-PoCo 0.05, alpha = 0.5", "ivon_poco", 0.05, 0.5, mlp_epochs),
    ]:
        # (alpha is read by ivon_poco only)
        t = _run("svrg_poco.mlp", {"method": method, "lr": lr, "epochs": epochs, "alpha": alpha or 0.5})
        axes[0].semilogy(t.steps, t.train_loss, label=label)
        axes[1].semilogy(t.evals / 1438, t.train_loss, label=label)
    axes[0].set_xlabel("steps")
    axes[1].set_xlabel("gradient evaluations / N")
    axes[0].set_ylabel("train loss (at the mean)")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "mlp.png", dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
