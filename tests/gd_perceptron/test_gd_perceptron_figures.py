"""Figures a reader can read: d on a log axis is labelled with plain numbers."""

import pandas as pd
from toolkit_gd_perceptron import simulation as sims

from toolkit.report import new_figure


def test_scaling_plot_labels_d_with_plain_numbers():
    table = pd.DataFrame(
        [
            {"gamma": g, "d": d, "iterations": 2.0 * d, "linear_bp_iterations": 2.0 * d + 4}
            for g in (100.0, 1000.0)
            for d in (16, 32, 64, 128)
        ]
    )
    fig = new_figure()
    sims.plot_scaling(table, fig)
    fig.canvas.draw()
    ax = fig.axes[0]
    # before: 2x10^1, 3x10^1, 4x10^1... minor labels that overlapped
    assert [t.get_text() for t in ax.get_xticklabels()] == ["16", "32", "64", "128"]
    assert not any(t.get_text() for t in ax.xaxis.get_minorticklabels())
