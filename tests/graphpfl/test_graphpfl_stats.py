import numpy as np
import pandas as pd
from scipy import stats
from toolkit_graphpfl.stats import drop_table, paired_ci, paired_table


def test_paired_ci_matches_scipy_paired_t():
    rng = np.random.default_rng(0)
    a, b = rng.normal(0.8, 0.1, 12), rng.normal(0.7, 0.1, 12)
    m, lo, hi = paired_ci(a - b)
    res = stats.ttest_rel(a, b)
    ci = res.confidence_interval(0.95)
    assert np.isclose(m, (a - b).mean()) and np.isclose(lo, ci.low) and np.isclose(hi, ci.high)


def test_paired_table_and_drop_pair_on_the_seed():
    rows = []
    for seed in range(4):
        for p, base in ((0.0, 0.8), (0.3, 0.7)):
            rows.append(
                {
                    "dataset": "X",
                    "noise_p": p,
                    "algorithm": "fedavg",
                    "seed": seed,
                    "test_acc_pooled": base + 0.01 * seed,
                }
            )
            rows.append(
                {
                    "dataset": "X",
                    "noise_p": p,
                    "algorithm": "new",
                    "seed": seed,
                    "test_acc_pooled": base + 0.01 * seed + 0.05,
                }
            )
    df = pd.DataFrame(rows)
    t = paired_table(df)
    new = t[(t.algorithm == "new") & (t.noise_p == 0.3)].iloc[0]
    assert np.isclose(new.diff_vs_baseline, 5.0) and np.isclose(new.ci_low, 5.0) and new.n_seeds == 4
    d = drop_table(df, 0.0, 0.3)
    assert np.allclose(d["drop"], 10.0)
