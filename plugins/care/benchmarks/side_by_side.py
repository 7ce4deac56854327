"""Side by side on the released tables: our aggregators beside crowd-kit's Dawid-Skene, GLAD and MACE (the
``anchors`` extra) and scikit-learn's FactorAnalysis, each with its error, wall and CPU time and peak memory.

    python plugins/care/benchmarks/side_by_side.py civilcomments       # binary votes (score >= the threshold)
    python plugins/care/benchmarks/side_by_side.py asset               # continuous ratings 0-100
    python plugins/care/benchmarks/side_by_side.py civilcomments --full-grid   # CARE-Tensor on all 25 lams

Every method runs as one point of ``toolkit.sweep`` (the store in ``TOOLKIT_STORE``): a rerun serves the
finished points, ``--fresh`` times them again. Each method runs twice: once timed, once under tracemalloc for
its peak of Python-allocated memory (numpy arrays included); the timed run is not traced, since tracing slows
pure-Python code more than numpy code. Errors are measured as in ``care.benchmark``: civilcomments accuracy on
the 85% test split of ``--seed``, asset mean absolute error against the human rating on all 4,500 items.
crowd-kit's methods and the label model treat asset's 38 distinct score values as categories.

Prints one CSV row per method: dataset, method, metric, value, wall_s, cpu_s, peak_mib.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from typing import Literal

import numpy as np
import pandas as pd

import toolkit
from toolkit import Simulation
from toolkit.config import Field, Params

OURS_CIVIL = (
    "mv",
    "avg",
    "ws",
    "uws",
    "ds",
    "care_svd_faithful",
    "care_svd_principled",
    "care_tensor_faithful",
    "care_tensor_principled",
    "factor3_oracle_prior",
)
OURS_ASSET = ("mv", "avg", "ws", "uws", "care_svd_faithful", "care_svd_principled", "one_factor")
ANCHORS = ("crowdkit_dawid_skene", "crowdkit_glad", "crowdkit_mace", "sklearn_factor_analysis")


class PointParams(Params):
    dataset: Literal["asset", "civilcomments"] = Field("civilcomments", description="the released table")
    method: str = Field("mv", description="one method (ours: care.benchmark's names; or one of ANCHORS)")
    measure: Literal["time", "memory"] = Field("time", description="timed run, or tracemalloc's peak")
    full_grid: bool = Field(False, description="CARE-Tensor faithful on all 25 (lam_S, lam_L)")


def _long(V: np.ndarray) -> pd.DataFrame:
    n, J = V.shape
    return pd.DataFrame(
        {"task": np.repeat(np.arange(n), J), "worker": np.tile(np.arange(J), n), "label": V.ravel()}
    )


def _anchor(method: str, X: np.ndarray, V: np.ndarray, seed: int) -> np.ndarray:
    """An anchor library's prediction per item: a label (civilcomments), a score value (asset)."""
    if method == "sklearn_factor_analysis":
        from sklearn.decomposition import FactorAnalysis

        Z = (X - X.mean(0)) / X.std(0)
        fa = FactorAnalysis(1, random_state=seed).fit(Z)
        s = fa.transform(Z)[:, 0] * (1.0 if fa.components_.sum() >= 0 else -1.0)
        return s
    from crowdkit.aggregation import GLAD, MACE, DawidSkene

    cls = {"crowdkit_dawid_skene": DawidSkene, "crowdkit_glad": GLAD, "crowdkit_mace": MACE}[method]
    kwargs = {"random_state": seed} if method == "crowdkit_mace" else {}
    out = cls(**kwargs).fit_predict(_long(V))
    return out.reindex(np.arange(len(V))).to_numpy()


def point(params: PointParams, seed: int) -> pd.DataFrame:
    from toolkit_care import data
    from toolkit_care.care_tensor import LAM_GRID
    from toolkit_care.evaluate import asset_rows, civil_rows, civil_split

    table = data.load_civilcomments() if params.dataset == "civilcomments" else data.load_asset()
    X, y = table.X, table.labels
    civil = params.dataset == "civilcomments"
    V = (X >= table.threshold).astype(int) if civil else np.round(X).astype(int)

    def work():
        if params.method in ANCHORS:
            pred = _anchor(params.method, X, V, seed)
            if civil:
                if params.method == "sklearn_factor_analysis":  # the labels' share of 1s, as CARE-Tensor
                    pred = (pred > np.percentile(pred, 100 * (1 - np.mean(y)))).astype(int)
                _, test = civil_split(y, seed)
                return "accuracy", float(np.mean(pred[test] == y[test])), {}
            if params.method == "sklearn_factor_analysis":  # on the scale of the judges' mean
                m = X.mean(1)
                pred = m.mean() + (pred - pred.mean()) / pred.std() * m.std()
            return "mae", float(np.mean(np.abs(pred - y))), {}
        if civil:
            grid = LAM_GRID if params.full_grid else (1e-3,)
            (row,) = civil_rows(table, seed, [params.method], lam_L_grid=grid)
            extra = {k: row[k] for k in ("lam_L", "lam_S", "gamma", "rank") if k in row}
            return "accuracy", row["accuracy"], extra
        (row,) = asset_rows(table, seed, [params.method])
        extra = {k: row[k] for k in ("gamma", "rank") if k in row}
        return "mae", row["mae"], extra

    # the libraries a method imports on first use are loaded before measuring, so that no method pays for them
    import cvxpy  # noqa: F401
    import scipy.special  # noqa: F401
    import scipy.stats  # noqa: F401
    import sklearn.decomposition  # noqa: F401
    import sklearn.model_selection  # noqa: F401
    from toolkit_care import care_svd, care_tensor, tensor  # noqa: F401

    if params.method.startswith("crowdkit"):
        import crowdkit.aggregation  # noqa: F401
    if params.measure == "memory":
        tracemalloc.start()
        try:
            metric, value, extra = work()
            peak = tracemalloc.get_traced_memory()[1] / 2**20
        finally:
            tracemalloc.stop()
        wall = cpu = np.nan
    else:
        t0, c0 = time.perf_counter(), time.process_time()
        metric, value, extra = work()
        wall, cpu, peak = time.perf_counter() - t0, time.process_time() - c0, np.nan
    row = {"metric": metric, "value": value, "wall_s": wall, "cpu_s": cpu, "peak_mib": peak, **extra}
    return pd.DataFrame([row])


SIDE_BY_SIDE = Simulation(
    "care_bench.side_by_side",
    point,
    PointParams,
    "one method on one released table: its error, time and peak memory",
    version="2",
)


def main(argv=None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dataset", choices=("civilcomments", "asset"))
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--full-grid", action="store_true", help="CARE-Tensor faithful on all 25 lams only")
    ap.add_argument("--no-memory", action="store_true", help="skip the tracemalloc runs")
    ap.add_argument("--fresh", action="store_true", help="recompute stored points")
    ap.add_argument("--methods", help="a comma-separated subset of the methods")
    args = ap.parse_args(argv)
    if args.full_grid:
        if args.dataset != "civilcomments":
            ap.error("--full-grid applies to civilcomments only")
        methods: tuple[str, ...] = ("care_tensor_faithful",)
    else:
        methods = (OURS_CIVIL if args.dataset == "civilcomments" else OURS_ASSET) + ANCHORS
    if args.methods:
        unknown = sorted(set(args.methods.split(",")) - set(methods))
        if unknown:
            ap.error(f"--methods: unknown {', '.join(unknown)}; choose from {', '.join(methods)}")
        methods = tuple(args.methods.split(","))
    measures = ["time"] if args.no_memory else ["time", "memory"]
    res = toolkit.sweep(
        SIDE_BY_SIDE,
        {"method": list(methods), "measure": measures},
        seeds=[args.seed],
        params={"dataset": args.dataset, "full_grid": args.full_grid},
        cache=not args.fresh,
        check=False,
    )
    t = res.table
    timed = t[t["measure"] == "time"].set_index("method")
    out = timed[["metric", "value", "wall_s", "cpu_s"]].copy()
    mem = t[t["measure"] == "memory"].set_index("method")["peak_mib"]
    out["peak_mib"] = mem.reindex(out.index)
    for col in ("gamma", "lam_L", "lam_S", "rank"):
        if col in timed:
            out[col] = timed[col]
    return out.reset_index().assign(dataset=args.dataset, seed=args.seed)


if __name__ == "__main__":
    import sys

    main().to_csv(sys.stdout, index=False, float_format="%.4g")
