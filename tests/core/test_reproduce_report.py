"""`toolkit reproduce`: the last line counts claims met and missed; --only proves only its plugins' bounds."""

from __future__ import annotations

import pandas as pd

from toolkit import report
from toolkit.report import ExperimentReport, missed_claims, outcome_counts, run_experiments
from toolkit.specs import Comparison, Experiment, ExperimentOutcome


def _reports() -> list[ExperimentReport]:
    return [
        ExperimentReport(
            "a.one", "", 1.0, [Comparison("c1", "1", "1", True), Comparison("c2", "2", "3", False)]
        ),
        ExperimentReport(
            "b.two",
            "",
            1.0,
            [Comparison("c3", "<= 1", "1.2", False, documented="the paper's constant is loose")],
        ),
    ]


def test_last_line_counts_claims_met_and_missed():
    # before: "2 experiments: 2 ran, 0 skipped (data missing), 0 failed" although two claims were missed
    line = outcome_counts(_reports())
    assert line.endswith("claims: 1 met, 2 missed (1 documented, 1 unexpected)")
    assert missed_claims(_reports()) == [
        "a.one: c2 (paper 2, measured 3): unexpected",
        "b.two: c3 (paper <= 1, measured 1.2): documented: the paper's constant is loose",
    ]


def test_report_marks_each_miss(tmp_path):
    path = report.write_report(_reports(), pd.DataFrame(), quick=True, out_dir=tmp_path)
    text = path.read_text()
    assert "1 missed (0 documented, 1 unexpected)" in text
    assert "documented: the paper's constant is loose" in text and "MISSED" not in text


def test_a_table_returned_by_several_experiments_is_saved_once(tmp_path):
    table = pd.DataFrame({"x": [1, 2]})

    def run(quick: bool) -> ExperimentOutcome:
        return ExperimentOutcome(table)

    exps = [Experiment(f"p.e{i}", "", run) for i in range(3)]
    reports, _ = run_experiments(exps, quick=True, out_dir=tmp_path, echo=lambda *a: None)
    assert sorted(p.name for p in tmp_path.glob("*.csv")) == ["p.e0.csv"]
    assert [r.csv for r in reports] == ["p.e0.csv"] * 3


def test_only_proves_the_named_experiments_plugins_bounds(registry, tmp_path, monkeypatch):
    asked = []

    def fake_prove(reg, names=None, *, plugins=(), seed=0):
        asked.append(tuple(plugins))
        return pd.DataFrame()

    monkeypatch.setattr(report, "prove_bounds", fake_prove)
    report.reproduce(registry, only=["example.drift"], out_dir=tmp_path, echo=lambda *a: None)
    assert asked == [("example",)]  # before: () -> every bound of every plugin


def test_html_report_renders_markdown_fully():
    # before: a hand-written subset left **bold**, `code` and lists as literal text
    page = report.markdown_to_html(
        "# T\n\n**Skipped:** `x` <b>\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n![f](f.png)\n"
    )
    assert "<strong>Skipped:</strong>" in page and "<code>x</code>" in page and "<li>one</li>" in page
    assert "<table>" in page and "<td>1</td>" in page and '<img src="f.png" alt="f"' in page
    assert "<b>" not in page  # raw HTML in a table cell or note is escaped


def test_a_report_figure_without_a_title_gets_the_experiments_name():
    def plot(fig):
        fig.add_subplot().plot([0, 1], [1, 0])

    assert report.outcome_figure("p.curve", plot).get_suptitle() == "p.curve"

    def titled(fig):
        fig.suptitle("own title")

    assert report.outcome_figure("p.curve", titled).get_suptitle() == "own title"


def test_warnings_an_experiment_raises_are_counted_in_the_report_not_printed(tmp_path, recwarn):
    import warnings

    def run(quick: bool) -> ExperimentOutcome:
        for _ in range(3):
            warnings.warn("the fit is empty\nsecond line", UserWarning, stacklevel=1)
        warnings.warn("slow solver", RuntimeWarning, stacklevel=1)
        return ExperimentOutcome(pd.DataFrame({"x": [1]}))

    lines: list[str] = []
    reports, _ = run_experiments(
        [Experiment("p.w", "", run)], quick=True, out_dir=tmp_path, echo=lines.append
    )
    assert reports[0].warnings == ["UserWarning: the fit is empty (x3)", "RuntimeWarning: slow solver"]
    assert "(2 distinct warnings, listed in the report)" in lines[-1]
    assert not [w for w in recwarn if "the fit is empty" in str(w.message)]  # nothing reached the console
    text = report.write_report(reports, pd.DataFrame(), quick=True, out_dir=tmp_path).read_text()
    assert "- UserWarning: the fit is empty (x3)" in text
