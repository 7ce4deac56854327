"""The two perceptron limits of a two-layer leaky-ReLU model, and GD at finite gamma between them.

1. Regime sweep (``gd_perceptron.limits``): planted data (n = 100, d = 20, margin 0.1), leaky-ReLU, m = 20,
   20 initialisations, rho = step/||W_0|| from 1e-2 to 1e8: the perceptron from W_0, GD from a fixed W_0
   (step gamma = rho ||W_0||), GD at gamma = 1e8 from W_0 rescaled to norm 1e8/rho, against the
   vanishing-initialisation form and GD's own gamma -> inf limit (rho = inf).
2. Both curves vs d (``gd_perceptron.scaling``): the staircase, d = 8..512, same model, 20 seeds, gamma = inf
   under limit=vanishing_init and limit=from_init (eta = 1), with the linear Batch Perceptron (d^2); the
   wall time of each sweep is printed (an earlier measurement, under another load and on another staircase,
   gave 207 s for such a sweep).

    python plugins/gd_perceptron/studies/gd_perceptron_limits.py            # full
    python plugins/gd_perceptron/studies/gd_perceptron_limits.py --quick    # fewer seeds, d <= 128

Writes limits_regimes.{csv,png}, limits_scaling.{csv,png} and limits.md to --out (default results/gd_perceptron/).
Every run is kept in the run store (--store, default TOOLKIT_STORE): a rerun reads the finished runs back
(its printed wall times are then the reading's).
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

from toolkit.argtypes import add_run_options, open_run_store

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="5 seeds, d <= 128")
    ap.add_argument("--out", default="results/gd_perceptron", help="output folder")
    add_run_options(ap, executors=("serial",))
    args = ap.parse_args(argv)

    store = open_run_store(args.store)
    try:
        computed = _study(args.quick, Path(args.out), store)
    finally:
        store.close()
    print(f"3 runs: {computed} computed, {3 - computed} from the store", file=sys.stderr)


def _study(quick: bool, out: Path, store) -> int:
    """The study's tables, figures and limits.md; how many of its 3 runs were computed."""
    import matplotlib.pyplot as plt
    import pandas as pd
    from toolkit_gd_perceptron import measures
    from toolkit_gd_perceptron import simulation as sims

    import toolkit

    computed = 0
    out.mkdir(parents=True, exist_ok=True)
    seeds = 5 if quick else 20
    lines = ["# gd_perceptron: the two perceptron limits", ""]

    start = time.perf_counter()
    ratios = [1e-2, 1e-1, 1.0, 10.0, 1e2, 1e3, 1e4, 1e6, 1e8]
    reg = toolkit.run(
        "gd_perceptron.limits", {"n_seeds": seeds, "ratios": ratios}, 0, store=store, check=False
    )
    computed += not reg.from_cache
    t_reg = time.perf_counter() - start
    table = pd.DataFrame(reg.records)
    table.to_csv(out / "limits_regimes.csv", index=False)
    fig = plt.figure(figsize=(6.4, 4.4))
    sims.plot_limits(table, fig)
    fig.tight_layout()
    fig.savefig(out / "limits_regimes.png", dpi=120)
    s = reg.summary
    lines += [
        f"## Regime sweep ({seeds} seeds, {t_reg:.1f} s): median iterations",
        "",
        "| rho | " + " | ".join(f"{r:g}" for r in ratios) + " |",
        "|---|" + "---|" * len(ratios),
    ]
    for form in sims.LIMIT_FORMS[2:]:
        lines.append(f"| {form} | " + " | ".join(f"{s[f'median_{form}_rho_{r:g}']:g}" for r in ratios) + " |")
    lines += [
        "",
        f"vanishing_init (rho = inf): {s['vanishing_init_median']:g}; gd_limit (rho = inf): "
        f"{s['gd_limit_median']:g}; meet_ratio: {s['meet_ratio']:g}; gd_scaled_init = from_init on "
        f"{100 * s['gd_scaled_equals_from_init_fraction']:.0f}% of (rho, seed); capped {s['capped']}, "
        f"stalled {s['stalled']}",
        "",
    ]
    print("\n".join(lines), flush=True)

    d_values = [8, 16, 32, 64, 128] if quick else [8, 16, 32, 64, 128, 256, 512]
    frames, curves = [], {}
    for limit in ("vanishing_init", "from_init"):
        start = time.perf_counter()
        values = dict(
            dataset="staircase",
            model="two_layer",
            activation="leaky_relu",
            width=20,
            gammas=[math.inf],
            n_seeds=seeds,
            d_values=d_values,
            limit=limit,
            eta=1.0,
        )
        res = toolkit.run("gd_perceptron.scaling", values, 0, store=store, check=False)
        computed += not res.from_cache
        wall = time.perf_counter() - start
        t = pd.DataFrame(res.records).assign(limit=limit)
        frames.append(t)
        med = t.groupby("d")["iterations"].median()
        slope = measures.loglog_slope(list(med.index), list(med.values)) if (med > 0).all() else math.nan
        curves[limit] = (med, slope)
        lines.append(f"## staircase, leaky-ReLU m = 20, limit = {limit}: {wall:.1f} s")
        lines.append("")
        lines.append(
            "d: "
            + ", ".join(str(d) for d in med.index)
            + "; median iterations: "
            + ", ".join(f"{v:g}" for v in med.values)
            + f"; slope {slope:.3f}; capped "
            f"{res.summary['capped']}, stalled {res.summary['stalled']}"
        )
        lines.append(
            f"linear Batch Perceptron: {', '.join(str(int(v)) for v in t.groupby('d')['linear_bp_iterations'].first())}"
        )
        lines.append("")
        print("\n".join(lines[-5:]), flush=True)
    pd.concat(frames).to_csv(out / "limits_scaling.csv", index=False)
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for limit, (med, slope) in curves.items():
        ax.loglog(med.index, med.values, "o-", label=f"{limit} (slope {slope:.2f})")
    bp = frames[0].groupby("d")["linear_bp_iterations"].first()
    ax.loglog(bp.index, bp.values, "k--", label="linear Batch Perceptron (d^2)")
    ax.set_xlabel("d")
    ax.set_ylabel("iterations to separation (median)")
    ax.set_title("staircase, leaky-ReLU two-layer, m = 20")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "limits_scaling.png", dpi=120)
    (out / "limits.md").write_text("\n".join(lines) + "\n")
    print(f"written to {out}/")
    return computed


if __name__ == "__main__":
    main()
