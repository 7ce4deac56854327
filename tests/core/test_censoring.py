"""Censored and failed measurements: status column, NaN values, honest summaries (toolkit.censoring)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

import toolkit
from toolkit.censoring import (
    CAPPED,
    FAILED,
    INFINITE,
    OK,
    STALLED,
    censor,
    from_codes,
    summarize,
    summarize_table,
)


def test_codes_become_nan_and_a_status():
    values, status = from_codes([12, -1, 30, -3], {-1: CAPPED, -3: STALLED})
    assert status == [OK, CAPPED, OK, STALLED]
    assert values[0] == 12 and values[2] == 30
    assert math.isnan(values[1]) and math.isnan(values[3])


def test_sentinels_never_enter_the_median_or_mean():
    # the old way: -1 (capped) and -3 (stalled) averaged in as numbers
    values, status = from_codes([100, 200, -1, -3], {-1: CAPPED, -3: STALLED})
    s = summarize(values, status)
    assert s.median == 150 and s.mean == 150
    assert s.n == 4 and s.n_ok == 2 and s.n_censored == 2
    assert s.counts == {OK: 2, CAPPED: 1, STALLED: 1}
    assert s.share_censored == 0.5 and s.share(STALLED) == 0.25
    assert not s.exact


def test_capped_rows_give_a_lower_bound():
    s = summarize([120, 150, None], status=[OK, OK, CAPPED], cap=1000)
    assert s.median == 135  # over ok rows only
    assert s.median_at_least == 150 and s.mean_at_least == pytest.approx((120 + 150 + 1000) / 3)
    assert s.text() == "median >= 150 (2 of 3 ok; 1 capped (33%) at 1000)"
    # per-row caps
    s = summarize([1.0, None, None], status=[OK, CAPPED, CAPPED], cap=[10, 20, 40])
    assert s.median_at_least == 20 and s.cap is None


def test_text_says_what_was_left_out():
    assert summarize([1, 2, 3]).text() == "median 2 (3 of 3 ok)"
    s = summarize([1, 2, 3, math.nan], status=[OK, OK, OK, STALLED])
    assert s.text() == "median 2 over 3 of 4 ok; left out: 1 stalled (25%)"
    assert "not a bound" in summarize([1, None], status=[OK, CAPPED]).text()
    assert summarize([None], status=[FAILED]).text() == "median: none of 1 ok (1 failed (100%))"


def test_infinite_values_are_counted_beside_the_mean():
    s = summarize([1.0, 3.0, math.inf, math.nan])
    assert s.mean == 2.0 and s.counts == {OK: 2, INFINITE: 1, FAILED: 1}
    assert s.as_dict("width_")["width_n_infinite"] == 1


def test_bad_status_and_numbers_in_censored_rows_are_refused():
    with pytest.raises(ValueError, match="not one of ok, capped"):
        summarize([1], status=["done"])
    with pytest.raises(ValueError, match="status ok but value"):
        summarize([math.nan], status=[OK])
    with pytest.raises(ValueError, match="differ in length"):
        summarize([1, 2], status=[OK])
    assert math.isnan(censor([5, -1], [OK, CAPPED])[1])


def test_summarize_table_groups_and_counts():
    table = pd.DataFrame(
        {
            "d": [8, 8, 8, 16, 16],
            "iterations": [10.0, 20.0, math.nan, 40.0, math.nan],
            "status": [OK, OK, CAPPED, OK, STALLED],
            "cap": [100] * 5,
        }
    )
    out = summarize_table(table, "iterations", by=["d"], cap="cap")
    assert list(out["d"]) == [8, 16]
    assert list(out["iterations_n_ok"]) == [2, 1]
    assert out.loc[0, "iterations_median_at_least"] == 20
    assert out.loc[1, "summary"] == "median 40 over 1 of 2 ok; left out: 1 stalled (50%)"
    with pytest.raises(ValueError, match="no column 'nope'"):
        summarize_table(table, "nope")


def test_censoring_is_public_api():
    assert "toolkit.censoring" in toolkit.PUBLIC_MODULES


def test_status_table_keeps_a_records_own_status(tmp_path):
    # before: every row of a finished point was relabelled "ok", hiding capped rows
    from toolkit.runner import RunResult, SweepResult

    run = RunResult(
        "m.s", {"d": 1}, 0, "k" * 64, [{"it": 5.0, "status": OK}, {"it": math.nan, "status": CAPPED}], {}, {}
    )
    sweep = SweepResult("m.s", "sid", [run], 0, 1, 0.0)
    assert list(sweep.status_table()["status"]) == [OK, CAPPED]


def test_plot_leaves_censored_rows_out_and_says_so():
    from toolkit.report import plot_table

    table = pd.DataFrame(
        {"d": [1, 1, 2, 2], "seed": [0, 1, 0, 1], "it": [1.0, -1.0, 2.0, 3.0], "status": [OK, CAPPED, OK, OK]}
    )
    fig = plot_table(table, x="d", y="it")
    line = fig.axes[0].lines[0]
    assert list(line.get_ydata()) == [1.0, 2.5]  # the capped -1 is not averaged in
    assert any("1 capped of 4 rows" in t.get_text() for t in fig.texts)
