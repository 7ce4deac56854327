"""Paired comparisons of methods run on the same seeds, partitions and noise draws (numpy/scipy)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats


def paired_ci(diff: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """Mean of the paired differences and its two-sided Student-t confidence interval."""
    diff = np.asarray(diff, dtype=float)
    n = len(diff)
    mean = float(diff.mean())
    if n < 2:
        return mean, float("nan"), float("nan")
    half = float(stats.t.ppf(0.5 + level / 2, n - 1) * diff.std(ddof=1) / np.sqrt(n))
    return mean, mean - half, mean + half


def paired_table(
    results: pd.DataFrame,
    metric: str = "test_acc_pooled",
    baseline: str = "fedavg",
    by: tuple[str, ...] = ("dataset", "noise_p"),
    level: float = 0.95,
) -> pd.DataFrame:
    """Per (by..., algorithm): mean ± sd of ``metric`` (in points) and the paired CI of method − baseline.

    ``results`` has one row per (by..., algorithm, seed); methods are paired on the seed.
    """
    rows = []
    for key, grp in results.groupby(list(by)):
        key = key if isinstance(key, tuple) else (key,)
        base = grp[grp["algorithm"] == baseline].set_index("seed")[metric]
        for alg, g in grp.groupby("algorithm", sort=False):
            v = g.set_index("seed")[metric]
            row = dict(zip(by, key))
            row.update(
                algorithm=alg,
                n_seeds=len(v),
                mean=100 * v.mean(),
                sd=100 * v.std(ddof=1) if len(v) > 1 else float("nan"),
            )
            common = v.index.intersection(base.index)
            if len(common) and alg != baseline:
                m, lo, hi = paired_ci(100 * (v.loc[common] - base.loc[common]).to_numpy(), level)
                row.update(diff_vs_baseline=m, ci_low=lo, ci_high=hi)
            else:
                row.update(
                    diff_vs_baseline=0.0 if alg == baseline else float("nan"),
                    ci_low=float("nan"),
                    ci_high=float("nan"),
                )
            rows.append(row)
    return pd.DataFrame(rows)


def drop_table(
    results: pd.DataFrame,
    p_from: float,
    p_to: float,
    metric: str = "test_acc_pooled",
    by: tuple[str, ...] = ("dataset",),
    level: float = 0.95,
) -> pd.DataFrame:
    """Per algorithm: the paired accuracy drop (points) from noise ``p_from`` to ``p_to`` (same seeds)."""
    rows = []
    for key, grp in results.groupby(list(by) + ["algorithm"], sort=False):
        a = grp[grp["noise_p"] == p_from].set_index("seed")[metric]
        b = grp[grp["noise_p"] == p_to].set_index("seed")[metric]
        common = a.index.intersection(b.index)
        if not len(common):
            continue
        m, lo, hi = paired_ci(100 * (a.loc[common] - b.loc[common]).to_numpy(), level)
        rows.append(
            {
                **dict(zip([*by, "algorithm"], key)),
                "p_from": p_from,
                "p_to": p_to,
                "n_seeds": len(common),
                "drop": m,
                "ci_low": lo,
                "ci_high": hi,
            }
        )
    return pd.DataFrame(rows)
