"""The convergence plot of ``toolkit report``: one line per parameter combination, seeds pooled."""

import pandas as pd

from toolkit.registry import get_registry
from toolkit.report import plot_table


def test_one_line_per_method_with_the_seeds_pooled():
    rows = [
        {"method": m, "kappa": 10.0, "seed": s, "epoch": e, "rel_suboptimality": 0.5**e * (1 + s)}
        for m in ("sgd", "svrg")
        for s in range(3)
        for e in range(4)
    ]
    sim = get_registry().simulation("svrg_poco.convergence")
    ax = plot_table(pd.DataFrame(rows), sim=sim).axes[0]
    # before: one line per (method, seed), labelled with a tuple
    assert [line.get_label() for line in ax.get_lines()] == ["method=sgd", "method=svrg"]
    assert list(ax.get_lines()[0].get_ydata()) == [2.0, 1.0, 0.5, 0.25]  # the median over seeds
    assert "3 seeds" in ax.get_ylabel()
