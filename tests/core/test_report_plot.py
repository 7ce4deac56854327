"""`toolkit report` on an ordinary sweep: lines per parameter only, panels past eight lines, summary columns."""

from __future__ import annotations

import pandas as pd
import pytest

import toolkit
from toolkit.config import Field, Params
from toolkit.report import plot_table
from toolkit.specs import Simulation


class ABC(Params):
    a: int = Field(0, description="a")
    b: int = Field(0, description="b")
    c: int = Field(0, description="c")


SIM = Simulation("t.abc", lambda p, s: {}, ABC, "abc")


def _table(na: int, nb: int, witness: bool = False) -> pd.DataFrame:
    rows = [
        {"a": a, "b": b, "c": c, "seed": s, "value": a + b * c + s, "witness": f"w{a}{b}{c}{s}"}
        for a in range(na)
        for b in range(nb)
        for c in range(3)
        for s in range(2)
    ]
    table = pd.DataFrame(rows)
    return table if witness else table.drop(columns="witness")


def test_result_strings_are_not_lines():
    # before: one line per witness word (a legend covering the axes)
    fig = plot_table(_table(1, 1, witness=True), sim=SIM, x="c", y="value")
    assert len(fig.axes[0].get_lines()) == 1


def test_more_than_eight_lines_become_panels():
    fig = plot_table(_table(3, 4), sim=SIM, x="c", y="value")  # 12 lines of (a, b)
    visible = [ax for ax in fig.axes if ax.get_visible()]
    assert len(visible) in (3, 4) and all(len(ax.get_lines()) <= 8 for ax in visible)
    assert all(ax.get_title() for ax in visible)


def test_far_too_many_lines_is_a_clear_message():
    with pytest.raises(ValueError, match="too many to read"):
        plot_table(_table(20, 20), sim=SIM, x="c", y="value")


def test_report_plots_a_summary_column(registry, store_path, tmp_path):
    from toolkit.cli import main

    sw = toolkit.sweep(
        "example.random_walk", grid={"n_steps": [10, 20]}, seeds="0:2", store=store_path, registry=registry
    )
    out = tmp_path / "final.png"
    # before: "choose a y column" although `toolkit sweep` prints the summary column `final`
    try:
        main(["--store", str(store_path), "report", sw.sweep_id, "--y", "final", "--out", str(out)])
    except SystemExit as exc:
        assert not exc.code
    assert out.stat().st_size > 1000


def test_a_simulations_own_plot_gets_its_name_as_title_unless_it_has_one():
    def untitled(table, fig):
        fig.add_subplot(1, 1, 1).plot(table["c"], table["value"])

    def titled(table, fig):
        untitled(table, fig)
        fig.suptitle("own title")

    own = Simulation("t.abc", lambda p, s: {}, ABC, "abc", plot=untitled)
    assert plot_table(_table(1, 1), sim=own).get_suptitle() == "t.abc"  # before: no title at all
    own = Simulation("t.abc", lambda p, s: {}, ABC, "abc", plot=titled)
    assert plot_table(_table(1, 1), sim=own).get_suptitle() == "own title"
