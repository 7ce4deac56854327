"""PIP calibration on the simulation study: binned plug-in inclusion probabilities
against the frequency with which that basis function truly lies in a region (its support overlaps
the true region), over links and seeds of the two-region design (its quick settings by default).

    python plugins/sbayfdnn/studies/sbayfdnn_calibration.py --seeds 0,1 --out results/sbayfdnn/calibration

Every (link, seed) is a point of the run store (``--store``, default ``TOOLKIT_STORE``), stored as soon
as it is fitted; a rerun serves those from the store (a stopped run keeps its fits and resumes). Writes
``pips.csv`` (one row per fit x candidate x column: pip, truly_in, chosen, log evidence) and
``calibration.png`` (reliability diagram of the chosen restarts' PIPs, and of the evidence-weighted
average over restarts, a candidate fix); prints the binned table.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from study_points import plain_rows, study_simulation
from study_points import sweep as study_sweep

from toolkit.argtypes import add_run_options, comma_list
from toolkit.argtypes import seeds as seeds_arg
from toolkit.config import Field, Params

if TYPE_CHECKING:
    import pandas as pd

BINS = np.array([0.0, 0.01, 0.1, 0.5, 0.9, 0.99, 1.0])


def truly_in(n_basis: int, degree: int, regions) -> np.ndarray:
    from toolkit_sbayfdnn import basis

    supports = basis.basis_supports(n_basis, degree)
    return np.array([any(lo < b and a < hi for a, b in regions) for lo, hi in supports])


def mass_in_regions(n_basis: int, degree: int, regions) -> np.ndarray:
    """Share of each B-spline's integral that lies inside the true regions (unit domain)."""
    from toolkit_sbayfdnn import basis

    u = np.linspace(0.0, 1.0, 20001)
    design = basis.bspline_design(u, n_basis, degree)
    inside = np.zeros_like(u, dtype=bool)
    for lo, hi in regions:
        inside |= (u >= lo) & (u <= hi)
    return design[inside].sum(axis=0) / design.sum(axis=0)


def fit_rows(link: str, seed: int, settings: dict, laplace_pips: bool = False) -> list[dict]:
    """One fit of the two-region design: a row per candidate x column (one unit of the study)."""
    from toolkit_sbayfdnn.designs import simulate
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    fit = {k: settings[k] for k in ("epochs", "anneal_epochs", "finetune_epochs", "n_restarts")}
    d = simulate("two_region", link, 5.0, settings["n_train"], 200, 100, seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = SparseBayesianFDNN(random_state=seed, **fit).fit(d.X, d.y, d.grid)
    truth = truly_in(model.n_basis, model.degree, d.true_regions)
    mass = mass_in_regions(model.n_basis, model.degree, d.true_regions)
    laplace = model.laplace_inclusion_probabilities() if laplace_pips else np.full(model.n_basis, np.nan)
    ev = model.log_evidences_
    weights = np.exp(ev - ev.max())
    weights /= weights.sum()
    averaged = weights @ model.all_inclusion_probabilities_
    rows = []
    for r, pips in enumerate(model.all_inclusion_probabilities_):
        for j, q in enumerate(pips):
            rows.append(
                dict(
                    link=link,
                    seed=seed,
                    candidate=r,
                    chosen=r == model.best_restart_,
                    column=j,
                    pip=float(q),
                    averaged_pip=float(averaged[j]),
                    truly_in=bool(truth[j]),
                    mass_in_region=float(mass[j]),
                    mostly_in=bool(mass[j] >= 0.5),
                    laplace_pip=float(laplace[j]) if r == model.best_restart_ else float("nan"),
                    log_evidence=float(ev[r]),
                )
            )
    print(link, seed, "chosen", model.best_restart_, "selected", list(model.selected_), flush=True)
    return rows


class CalibrationPoint(Params):
    """One fit of the two-region design (SNR 5, 200 test curves)."""

    link: Literal["linear", "sin", "square", "exp"] = Field("linear", description="link g")
    settings: dict[str, int] = Field({}, description="n_train, epochs, anneal, finetune, restarts")
    laplace_pips: bool = Field(False, description="also the Savage-Dickey PIPs of the Laplace posterior")


def calibration_point(params: CalibrationPoint, seed: int) -> list[dict]:
    """A row per candidate x column of one fit."""
    return plain_rows(fit_rows(params.link, seed, dict(params.settings), params.laplace_pips))


def run(links, seeds, settings: dict, laplace_pips: bool = False, args=None) -> pd.DataFrame:
    """The study's table; each (link, seed) is a point of the run store (``args.store``, ``args.executor``;
    default: ``TOOLKIT_STORE``, serial), so a finished fit is not refitted."""
    import pandas as pd

    args = args or argparse.Namespace(store=None, executor="serial")
    sim = study_simulation("calibration", calibration_point, CalibrationPoint, __file__)
    fixed = {"settings": dict(settings), "laplace_pips": bool(laplace_pips)}
    result = study_sweep(sim, {"link": list(links)}, seeds, args, fixed)
    return pd.DataFrame([row for run in result.runs for row in run.records])


def binned(table, column: str, truth: str = "truly_in"):
    import pandas as pd

    cut = pd.cut(table[column], BINS, include_lowest=True)
    return (
        table.groupby(cut, observed=True)[truth]
        .agg(["mean", "count"])
        .rename(columns={"mean": f"frequency_{truth}"})
    )


def calibration_scores(table, column: str, truth: str) -> dict:
    """Brier score and expected calibration error (bins ``BINS``) of probabilities ``column``
    against the 0/1 labels ``truth``."""
    import pandas as pd

    p, t = table[column].to_numpy(float), table[truth].to_numpy(float)
    cut = pd.cut(table[column], BINS, include_lowest=True)
    groups = table.assign(_t=t).groupby(cut, observed=True)
    ece = float(sum(len(g) * abs(g[column].mean() - g["_t"].mean()) for _, g in groups) / len(table))
    return {
        "pip": column,
        "truth": truth,
        "brier": float(np.mean((p - t) ** 2)),
        "ece": ece,
        "columns": len(table),
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    from toolkit_sbayfdnn.experiments import LINKS

    parser.add_argument(
        "--links",
        type=comma_list(choices=LINKS),
        default=list(LINKS),
        help=f"comma-separated, from {', '.join(LINKS)}",
    )
    parser.add_argument("--seeds", type=seeds_arg, default=[0, 1], help="comma-separated seeds")
    parser.add_argument(
        "--full",
        action="store_true",
        help="the full settings of the two-region targets (3000 epochs, 3 restarts)",
    )
    parser.add_argument(
        "--laplace-pips",
        action="store_true",
        help="also the Savage-Dickey PIPs of the Laplace posterior (laplace_inclusion_probabilities)",
    )
    parser.add_argument("--out", default="results/sbayfdnn/calibration")
    add_run_options(parser, executors=("serial", "processes"))
    args = parser.parse_args(argv)
    from toolkit_sbayfdnn.experiments import QUICK_GATE_SETTINGS, _fit_settings

    settings = _fit_settings(False) if args.full else QUICK_GATE_SETTINGS
    seeds = args.seeds
    start = time.perf_counter()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    table = run(args.links, seeds, settings, laplace_pips=args.laplace_pips, args=args)
    table.to_csv(out / "pips.csv", index=False)
    chosen = table[table["chosen"]]
    per_fit = chosen.drop_duplicates(["link", "seed", "column"])
    print("chosen restart's PIPs:\n", binned(per_fit, "pip").to_string())
    print("evidence-weighted average over candidates:\n", binned(per_fit, "averaged_pip").to_string())
    import pandas as pd

    columns = ["pip", "averaged_pip"] + (["laplace_pip"] if args.laplace_pips else [])
    scores = pd.DataFrame(
        [calibration_scores(per_fit, c, truth) for truth in ("mostly_in", "truly_in") for c in columns]
    )
    scores.to_csv(out / "calibration_scores.csv", index=False)
    print(scores.to_string())
    if args.laplace_pips:
        print(
            "Laplace (Savage-Dickey) PIPs vs mostly_in:\n",
            binned(per_fit, "laplace_pip", "mostly_in").to_string(),
        )
    exact = float(np.mean((per_fit["pip"] < 1e-6) | (per_fit["pip"] > 1 - 1e-6)))
    print(f"share of chosen PIPs within 1e-6 of 0 or 1: {exact:.3f}; {time.perf_counter() - start:.0f} s")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 4.5))
    for column, label in (("pip", "chosen restart"), ("averaged_pip", "evidence-weighted over candidates")):
        b = binned(per_fit, column)
        centres = per_fit.groupby(pd_cut(per_fit[column]), observed=True)[column].mean()
        ax.plot(centres.to_numpy(), b["frequency_truly_in"].to_numpy(), "o-", label=label)
    ax.plot([0, 1], [0, 1], "k--", lw=0.8, label="calibrated")
    ax.set_xlabel("inclusion probability (bin mean)")
    ax.set_ylabel("frequency the column is truly in a region")
    ax.set_title(f"PIP calibration, two-region design, {len(per_fit) // 24} fits")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out / "calibration.png", dpi=110)
    plt.close(fig)


def pd_cut(values):
    import pandas as pd

    return pd.cut(values, BINS, include_lowest=True)


if __name__ == "__main__":
    main()
