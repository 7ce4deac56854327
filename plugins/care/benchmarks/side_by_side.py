"""Side by side on the released tables: our aggregators beside crowd-kit's Dawid-Skene, GLAD and MACE (the
``anchors`` extra) and scikit-learn's FactorAnalysis, with wall time and peak Python memory (tracemalloc).

    python plugins/care/benchmarks/side_by_side.py            # civilcomments (binary votes at 4.5)
    python plugins/care/benchmarks/side_by_side.py asset      # asset (continuous; crowd-kit's methods skipped)

Prints one CSV row per method: dataset, method, metric, value, wall_s, peak_mib.
"""

from __future__ import annotations

import sys
import time
import tracemalloc

import numpy as np
import pandas as pd

import toolkit


def _long(V: np.ndarray) -> pd.DataFrame:
    n, J = V.shape
    return pd.DataFrame(
        {
            "task": np.repeat(np.arange(n), J),
            "worker": np.tile(np.arange(J), n),
            "label": V.astype(int).ravel(),
        }
    )


def measure(fn):
    tracemalloc.start()
    t0 = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return out, wall, peak


def main(dataset: str = "civilcomments") -> pd.DataFrame:
    from sklearn.decomposition import FactorAnalysis
    from toolkit_care import aggregators as ag
    from toolkit_care.care_svd import CareSVD

    t = toolkit.get_registry().dataset(f"care.{dataset}").load()
    X, y = t.X, t.labels
    rows = []
    if dataset == "civilcomments":
        V = (X >= t.threshold).astype(float)
        methods = {
            "ours: majority vote": lambda: (V.mean(1) > 0.5).astype(int),
            "ours: Dawid-Skene": lambda: ag.DawidSkene().fit_predict(V),
            "ours: label model": lambda: ag.LabelModel(task="binary").fit_predict(V),
            "ours: CARE-SVD principled": lambda: CareSVD(
                "principled", task="binary", threshold=t.threshold, gamma_grid=(0.25, 1, 3, 10)
            ).fit_predict(X),
            "scikit-learn FactorAnalysis(1), median split": lambda: _fa(FactorAnalysis, X),
        }
        try:
            from crowdkit.aggregation import GLAD, MACE, DawidSkene

            L = _long(V)
            for name, cls in (("DawidSkene", DawidSkene), ("GLAD", GLAD), ("MACE", MACE)):
                methods[f"crowd-kit {name}"] = lambda cls=cls: (
                    cls().fit_predict(L).sort_index().to_numpy().astype(int)
                )
        except ImportError:
            print("crowd-kit not installed: pip install theory-toolkit-care[anchors]", file=sys.stderr)
        for name, fn in methods.items():
            pred, wall, peak = measure(fn)
            rows.append(
                {
                    "dataset": dataset,
                    "method": name,
                    "metric": "accuracy",
                    "value": float(np.mean(np.asarray(pred) == y)),
                    "wall_s": wall,
                    "peak_mib": peak,
                }
            )
    else:
        methods = {
            "ours: mean": lambda: ag.Mean().fit_predict(X),
            "ours: label model": lambda: ag.LabelModel().fit_predict(X),
            "ours: UWS": lambda: ag.UWS().fit_predict(X),
            "ours: CARE-SVD faithful gamma=1": lambda: CareSVD("faithful", gamma=1.0).fit_predict(X),
        }
        for name, fn in methods.items():
            pred, wall, peak = measure(fn)
            rows.append(
                {
                    "dataset": dataset,
                    "method": name,
                    "metric": "mae",
                    "value": float(np.mean(np.abs(pred - y))),
                    "wall_s": wall,
                    "peak_mib": peak,
                }
            )
    return pd.DataFrame(rows)


def _fa(FactorAnalysis, X):
    Z = (X - X.mean(0)) / X.std(0)
    s = FactorAnalysis(1, random_state=0).fit_transform(Z)[:, 0]
    fa = FactorAnalysis(1, random_state=0).fit(Z)
    s = s if fa.components_.sum() >= 0 else -s
    return (s > np.median(s)).astype(int)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "civilcomments").to_csv(sys.stdout, index=False)
