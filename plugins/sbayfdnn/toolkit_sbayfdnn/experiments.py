"""Headline experiments for ``toolkit reproduce``: the paper's claim beside our measured number.

Quick settings (all together well under a minute on one CPU thread) use fewer epochs, links and
seeds; the full settings produce the statistics quoted in the plugin README (SNR 5, n = 500,
3 seeds, every link).
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pandas as pd

from toolkit import Comparison, Experiment, ExperimentOutcome

LINKS = ("linear", "sin", "square", "exp")
NONLINEAR = ("sin", "square", "exp")


def pip_closed_form(quick: bool) -> ExperimentOutcome:
    from toolkit_sbayfdnn.prior import (
        inclusion_probability,
        inclusion_probability_from_densities,
        pip_threshold,
    )

    H, lam, s0, s1 = 64, 1e-5, 1e-5, 2e-3
    norms = np.linspace(0.0, 0.012, 1201)
    closed = inclusion_probability(norms, H, lam, s0, s1)
    direct = inclusion_probability_from_densities(norms, H, lam, s0, s1)
    gap = float(np.max(np.abs(closed - direct)))
    threshold = pip_threshold(H, lam, s0, s1)
    at_threshold = float(inclusion_probability(threshold, H, lam, s0, s1))
    table = pd.DataFrame({"norm_sq": norms, "pip_closed_form": closed, "pip_from_densities": direct})
    comparisons = [
        Comparison(
            "PIP closed form = definition on ||w||^2 in [0, 0.012]",
            "matches the released code to 7e-15",
            f"max |gap| = {gap:.2e}",
            gap <= 1e-12,
        ),
        Comparison(
            "threshold ||w||^2 at q = 1/2 (lam=1e-5, s0^2=1e-5, s1^2=2e-3, H=64)",
            "3.6394e-3",
            f"{threshold:.4e}",
            abs(threshold - 3.6394e-3) < 5e-8,
        ),
        Comparison("q at the threshold", "1/2", f"{at_threshold:.15f}", abs(at_threshold - 0.5) < 1e-12),
    ]

    def plot(fig):
        ax = fig.subplots()
        ax.plot(norms, closed)
        ax.axvline(threshold, color="r", ls="--", label="threshold")
        ax.set_xlabel("||w_j||^2")
        ax.set_ylabel("inclusion probability q_j")
        ax.legend()

    return ExperimentOutcome(table=table, comparisons=comparisons, plot=plot)


def laplace_toy(quick: bool) -> ExperimentOutcome:
    from toolkit_sbayfdnn.network import one_column_toy_evidence

    seeds = range(2) if quick else range(10)
    rows = [{"seed": s, **one_column_toy_evidence(seed=s)} for s in seeds]
    table = pd.DataFrame(rows)
    worst = float(table["relative_gap"].max())
    return ExperimentOutcome(
        table=table,
        comparisons=[
            Comparison(
                "Laplace log evidence vs brute-force 1-D integral (one-column toy)",
                "within 5%",
                f"worst relative gap {worst:.2%} over {len(rows)} seeds",
                worst <= 0.05,
            )
        ],
    )


def _fit_settings(quick: bool) -> dict:
    if quick:
        return dict(n_train=250, n_test=400, epochs=800, anneal_epochs=200, finetune_epochs=150, n_restarts=2)
    return dict(n_train=500, n_test=2000, epochs=3000, anneal_epochs=500, finetune_epochs=500, n_restarts=3)


QUICK_GATE_SETTINGS = dict(
    n_train=500, n_test=1000, epochs=1000, anneal_epochs=300, finetune_epochs=200, n_restarts=2
)
"""The quick two_region_targets setting: the paper's n = 500 and SNR 5, a third of the epochs, 2 restarts,
1000 test curves, links linear and u^2, seeds 0 and 1 (~20 s on an idle core)."""
QUICK_GATE_SEEDS = (0, 1)

ELNINO_QUICK_FIT = dict(epochs=400, anneal_epochs=100, finetune_epochs=75, n_restarts=1, small_n_cv_folds=3)
"""El Nino in the quick ``real_data``: its 45 training curves run the inner-CV model choice, whose 7
network fits (3 folds) at the full run's 800 epochs and 2 restarts took ~50 CPU-s; these take ~1/4 of that.
The default's 10 folds below n = 100 (21 fits; estimated ~90 s here from the 7 fits' ~30 s) would break
the quick minute, so the quick check keeps 3 folds and says so; the full run uses the default."""


def run_gates(
    links, seeds, settings: dict, methods=("sbayfdnn", "flm", "select_all", "dense")
) -> pd.DataFrame:
    """The comparison table (rows: link x seed x method) on the two-region design at SNR 5."""
    from toolkit_sbayfdnn.baselines import compare_methods
    from toolkit_sbayfdnn.designs import simulate

    fit = {k: settings[k] for k in ("anneal_epochs", "finetune_epochs", "n_restarts", "epochs")}
    rows = []
    for link in links:
        for seed in seeds:
            data = simulate("two_region", link, 5.0, settings["n_train"], settings["n_test"], 100, seed)
            for rec in compare_methods(data, methods, sbay_kwargs=fit, epochs=settings["epochs"], seed=seed):
                rows.append({"link": link, "seed": seed, **rec})
    return pd.DataFrame(rows)


def gate_comparisons(table: pd.DataFrame, label: str = "") -> list[Comparison]:
    """The two-region simulation targets, each as the paper's claim or reference target vs the measured mean over seeds.

    ``label`` prefixes every claim (the quick setting says there that it is the quick check).
    The dense-network comparison also reports the true regression function's own RMSE as a multiple
    of the dense network's: when that is above 0.9 no method can meet the target.
    """
    mean = table.groupby(["link", "method"]).mean(numeric_only=True)
    out = []
    proto = {
        "linear": (1.020, 1.00, 0.17, 0.886),
        "sin": (1.069, 0.99, 0.20, 0.869),
        "square": (1.075, 1.00, 0.29, 0.820),
    }
    for link in table["link"].unique():
        if (link, "sbayfdnn") not in mean.index:
            continue
        s = mean.loc[(link, "sbayfdnn")]
        p = proto.get(link)
        paper = (
            f"reference run {p[1]:.2f}/{p[2]:.2f}/{p[3]:.3f}; target TPR>=0.90, FPR<=0.35, F1>=0.75"
            if p
            else "target TPR>=0.90, FPR<=0.35, F1>=0.75"
        )
        out.append(
            Comparison(
                f"{link}: region TPR/FPR/F1",
                paper,
                f"{s['tpr']:.2f}/{s['fpr']:.2f}/{s['f1']:.3f}",
                bool(s["tpr"] >= 0.90 and s["fpr"] <= 0.35 and s["f1"] >= 0.75),
            )
        )
        if (link, "select_all") in mean.index:
            f1_all = mean.loc[(link, "select_all"), "f1"]
            out.append(
                Comparison(
                    f"{link}: F1 over select-all",
                    "select-all F1 = 0.571; target F1 >= select-all + 0.15",
                    f"{s['f1']:.3f} vs {f1_all:.3f}",
                    bool(s["f1"] >= f1_all + 0.15),
                )
            )
        limit = 1.06 if link == "linear" else 1.15
        out.append(
            Comparison(
                f"{link}: RMSE / oracle",
                (f"reference run {p[0]:.3f}; " if p else "") + f"target <= {limit}",
                f"{s['rmse_ratio']:.3f}",
                bool(s["rmse_ratio"] <= limit),
            )
        )
        if (link, "flm") in mean.index and link in ("linear", "square"):
            ratio = s["rmse"] / mean.loc[(link, "flm"), "rmse"]
            limit = 1.05 if link == "linear" else 0.6
            out.append(
                Comparison(
                    f"{link}: RMSE vs FLM",
                    f"target <= {limit} x FLM",
                    f"{ratio:.3f} x FLM",
                    bool(ratio <= limit),
                )
            )
        if (link, "dense") in mean.index:
            dense = mean.loc[(link, "dense"), "rmse"]
            ratio = s["rmse"] / dense
            rows = table[(table["link"] == link) & (table["method"] == "sbayfdnn")]
            oracle = float((rows["rmse"] / rows["rmse_ratio"]).mean())
            out.append(
                Comparison(
                    f"{link}: RMSE vs early-stopped dense network",
                    "target <= 0.9 x dense (calibrated on the reference run's dense net, 1.42-1.45 x oracle)",
                    f"{ratio:.3f} x dense; dense = {dense / oracle:.3f} x oracle, so the true f "
                    f"itself is {oracle / dense:.3f} x dense",
                    bool(ratio <= 0.9),
                    documented=(
                        "the true f itself is above 0.9 x the dense network's RMSE here, so no method can "
                        "meet this target"
                        if oracle / dense > 0.9
                        else ""
                    ),
                )
            )
        if link == "linear":
            out.append(
                Comparison(
                    "linear: Laplace 95% interval coverage",
                    "between 90% and 99%",
                    f"{s['coverage']:.3f}",
                    bool(0.90 <= s["coverage"] <= 0.99),
                )
            )
    if label:
        out = [dataclasses.replace(c, claim=f"{label}{c.claim}") for c in out]
    return out


def two_region_targets(quick: bool) -> ExperimentOutcome:
    settings = QUICK_GATE_SETTINGS if quick else _fit_settings(False)
    links = ("linear", "square") if quick else LINKS
    seeds = QUICK_GATE_SEEDS if quick else (0, 1, 2)
    methods = ("sbayfdnn", "flm", "select_all", "dense")
    table = run_gates(links, seeds, settings, methods)
    label = "quick check (1000 epochs, 2 seeds): " if quick else ""
    note = (
        (
            "quick check: n = 500, SNR 5, 1000 epochs (full: 3000), 2 restarts, seeds 0-1, links linear and u^2, "
            "1000 test curves; the full targets (3000 epochs, 3 seeds, four links, 2000 test curves) are checked by "
            "`pytest tests/sbayfdnn -m slow` and `python plugins/sbayfdnn/studies/sbayfdnn_compare.py` (README). The quick "
            "setting's region FPR on u^2 varies by seed (0.28-0.53 over seeds 0-5, mean 0.36)."
        )
        if quick
        else ""
    )

    def plot(fig):
        ax = fig.subplots()
        by = table[table["method"] != "select_all"].groupby(["link", "method"])["rmse_ratio"]
        seeds = table["seed"].nunique()
        # error bars: sd over seeds (none with one seed)
        by.mean().unstack().plot.bar(ax=ax, yerr=by.std().unstack() if seeds > 1 else None, capsize=3, rot=0)
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_ylabel("test RMSE / oracle" + (f" (mean ± sd, {seeds} seeds)" if seeds > 1 else ""))

    return ExperimentOutcome(table=table, comparisons=gate_comparisons(table, label), plot=plot, notes=note)


def null_design(quick: bool) -> ExperimentOutcome:
    from toolkit_sbayfdnn.designs import simulate
    from toolkit_sbayfdnn.simulation import NullParams, fit_and_score

    settings = _fit_settings(quick)
    params = NullParams(**settings)
    seeds = (0,) if quick else (0, 1, 2, 3, 4)
    rows = [
        {
            "seed": s,
            **fit_and_score(
                simulate("null", "linear", 5.0, settings["n_train"], settings["n_test"], 100, s), params, s
            ),
        }
        for s in seeds
    ]
    table = pd.DataFrame(rows)
    mean_sel = float(table["n_selected"].mean())
    return ExperimentOutcome(
        table=table,
        comparisons=[
            Comparison(
                "null design (beta = 0): basis functions selected",
                "on average at most one",
                f"mean {mean_sel:.2f} over {len(rows)} seeds",
                mean_sel <= 1.0,
            )
        ],
    )


def real_data(quick: bool) -> ExperimentOutcome:
    """ECG (planted QRS region) and El Nino (no truth): the sparse model beside the FLM."""
    from toolkit_sbayfdnn import basis
    from toolkit_sbayfdnn.baselines import FunctionalLinearModel
    from toolkit_sbayfdnn.designs import ecg_beats, elnino_curves
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    settings = _fit_settings(True)
    fit = dict(
        epochs=settings["epochs"],
        anneal_epochs=settings["anneal_epochs"],
        finetune_epochs=settings["finetune_epochs"],
        n_restarts=settings["n_restarts"],
    )
    rows = []
    ecg = ecg_beats(n_train=150 if quick else 400, n_test=150 if quick else 400, seed=0)
    model = SparseBayesianFDNN(n_basis=24, **fit).fit(ecg.X, ecg.y, ecg.grid)
    metrics = basis.region_metrics(
        basis.region_mask(ecg.grid, model.selected_regions_), basis.region_mask(ecg.grid, ecg.true_regions)
    )
    flm = FunctionalLinearModel(24).fit(ecg.X, ecg.y, ecg.grid)
    rows.append(
        {
            "data": "ecg",
            "rmse": float(np.sqrt(np.mean((model.predict(ecg.X_test) - ecg.y_test) ** 2))),
            "flm_rmse": float(np.sqrt(np.mean((flm.predict(ecg.X_test) - ecg.y_test) ** 2))),
            "oracle_rmse": ecg.oracle_rmse,
            "n_selected": len(model.selected_),
            "regions": str(model.selected_regions_),
            **metrics,
        }
    )
    nino = elnino_curves()
    split = 45
    # El Nino runs the inner-CV model choice (full: 1 + 10 folds x 2 slab factors = 21 network fits); the quick
    # check keeps every candidate and the cv_margin_se rule, with 3 folds and cheaper network fits
    nino_fit = ELNINO_QUICK_FIT if quick else fit
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the inner CV's choice is reported in the row below
        model = SparseBayesianFDNN(n_basis=8, degree=3, **nino_fit).fit(
            nino.X[:split], nino.y[:split], nino.grid
        )
    flm = FunctionalLinearModel(8).fit(nino.X[:split], nino.y[:split], nino.grid)
    rows.append(
        {
            "data": "elnino",
            "rmse": float(np.sqrt(np.mean((model.predict(nino.X[split:]) - nino.y[split:]) ** 2))),
            "flm_rmse": float(np.sqrt(np.mean((flm.predict(nino.X[split:]) - nino.y[split:]) ** 2))),
            "oracle_rmse": float("nan"),
            "n_selected": len(model.selected_),
            "regions": str(model.selected_regions_),
            "inner_cv_choice": model.inner_cv_choice_,
            "inner_cv_mse": ", ".join(f"{k} {v:.3f}" for k, v in model.inner_cv_mse_.items()),
        }
    )
    table = pd.DataFrame(rows)
    e = table.iloc[0]
    n = table.iloc[1]
    nino_ratio = n["rmse"] / n["flm_rmse"]
    nino_label = "quick check (400 epochs, 1 restart, 3 inner-CV folds): " if quick else ""
    return ExperimentOutcome(
        table=table,
        comparisons=[
            Comparison(
                "ECG (semi-synthetic): QRS window recovered",
                "paper: ECG regions selected (no numbers here)",
                f"TPR {e['tpr']:.2f}, FPR {e['fpr']:.2f}, F1 {e['f1']:.2f}; RMSE {e['rmse']:.3f} vs FLM {e['flm_rmse']:.3f}",
                None,
            ),
            Comparison(
                f"{nino_label}El Nino: next-year Jan-Mar SST from this year's curve, default vs FLM",
                "target: test RMSE <= 1.05 x the FLM's",
                f"RMSE {n['rmse']:.3f} vs FLM {n['flm_rmse']:.3f} ({nino_ratio:.3f} x); {int(n['n_selected'])} of 8 "
                f"basis functions; inner CV: "
                + (
                    f"{n['inner_cv_choice']} (CV MSE {n['inner_cv_mse']})"
                    if n["inner_cv_choice"]
                    else "did not run"
                ),
                bool(nino_ratio <= 1.05),
            ),
        ],
        notes="Real-data rows are demonstrations; the paper's ECG numbers are not available to compare."
        + (
            " quick check: El Nino's network fits (the default and the 6 inner-CV fits of 3 folds) use 400 epochs and "
            "1 restart (800 and 2, and the default's 10 folds below n = 100, in the full run)."
            if quick
            else ""
        ),
    )


EXPERIMENTS = [
    Experiment(
        name="sbayfdnn.pip_closed_form",
        description="plug-in inclusion probability vs its closed-form threshold",
        run=pip_closed_form,
    ),
    Experiment(
        name="sbayfdnn.laplace_toy",
        description="Laplace log evidence vs brute-force integration (1-D toy)",
        run=laplace_toy,
    ),
    Experiment(
        name="sbayfdnn.two_region_targets",
        description="two-region design, SNR 5: RMSE/oracle, region TPR/FPR/F1, coverage, vs FLM and dense net",
        run=two_region_targets,
    ),
    Experiment(
        name="sbayfdnn.null_design",
        description="null design: basis functions selected from pure noise",
        run=null_design,
    ),
    Experiment(
        name="sbayfdnn.real_data",
        description="ECG (neurokit2, planted QRS region) and El Nino (statsmodels)",
        run=real_data,
    ),
]
