"""The reproduction report as a document: one record per experiment, the counts of the last line,
and the Markdown (or HTML) page with the comparisons, figures, tables and the verdicts of the bounds."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from toolkit.proving import summary_line
from toolkit.specs import Comparison


@dataclass
class ExperimentReport:
    """What one experiment produced, as written into the report (picklable: no figures or closures)."""

    name: str
    description: str
    seconds: float
    comparisons: list[Comparison] = field(default_factory=list)
    notes: str = ""
    n_rows: int = 0
    figure: str = ""
    csv: str = ""
    error: str = ""
    skipped: str = ""  # why it did not run (its data is missing), with the command that fetches the data
    warnings: list[str] = field(default_factory=list)  # distinct warnings the run raised, with their counts

    @property
    def failed(self) -> bool:
        return bool(self.error) and not self.csv and not self.skipped


def _markdown_table(df: pd.DataFrame, max_rows: int = 30) -> str:
    if df.empty:
        return "(empty)\n"
    shown = df.head(max_rows)
    cols = [str(c) for c in shown.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in shown.itertuples(index=False):
        cells = [f"{v:.4g}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join(c.replace("|", "\\|").replace("\n", " ") for c in cells) + " |")
    if len(df) > max_rows:
        lines.append(f"\n({len(df) - max_rows} more rows in the CSV)")
    return "\n".join(lines) + "\n"


def outcome_counts(reports: Sequence[ExperimentReport]) -> str:
    """``"7 experiments: 5 ran, 2 skipped (data missing), 0 failed; claims: 40 met, 3 missed (2 documented,
    1 unexpected)"``."""
    skipped = sum(1 for r in reports if r.skipped)
    failed = sum(1 for r in reports if r.failed)
    judged = [c for r in reports for c in r.comparisons if c.ok is not None]
    missed = [c for c in judged if not c.ok]
    documented = sum(1 for c in missed if c.documented)
    return (
        f"{len(reports)} experiments: {len(reports) - skipped - failed} ran, {skipped} skipped (data missing), "
        f"{failed} failed; claims: {len(judged) - len(missed)} met, {len(missed)} missed "
        f"({documented} documented, {len(missed) - documented} unexpected)"
    )


def missed_claims(reports: Sequence[ExperimentReport]) -> list[str]:
    """One line per missed claim: the experiment, the claim, and ``documented: <reason>`` or ``unexpected``."""
    return [
        f"{r.name}: {c.claim} (paper {c.paper}, measured {c.measured}): "
        + (f"documented: {c.documented}" if c.documented else "unexpected")
        for r in reports
        for c in r.comparisons
        if c.ok is False
    ]


def _comparisons_frame(comparisons: Sequence[Comparison]) -> pd.DataFrame:
    rows = [
        {
            "claim": c.claim,
            "paper": c.paper,
            "measured": c.measured,
            "met": "yes" if c.ok else ("no" if c.ok is False else "n/a"),
            "miss": ("documented: " + c.documented if c.documented else "unexpected")
            if c.ok is False
            else "",
        }
        for c in comparisons
    ]
    return pd.DataFrame(rows, columns=["claim", "paper", "measured", "met", "miss"])


def write_report(
    reports: Sequence[ExperimentReport],
    verdicts: pd.DataFrame,
    *,
    quick: bool,
    out_dir: Path,
    fmt: str = "md",
    plugins: Sequence[str] = (),
) -> Path:
    """Write ``report.md`` (or ``report.html``) into ``out_dir`` and return its path."""
    total = sum(r.seconds for r in reports)
    lines = [
        "# Reproduction report",
        "",
        f"Setting: {'quick' if quick else 'full'}; {outcome_counts(reports)}; {total:.1f} s; "
        f"plugins: {', '.join(plugins) or 'none'}; written {time.strftime('%Y-%m-%d %H:%M:%S')}.",
        "",
    ]
    if not reports:
        lines += ["No experiments are registered (install or enable a plugin that registers some).", ""]
    lines += ["## Summary", "", "| experiment | seconds | claims met | status |", "|---|---|---|---|"]
    for r in reports:
        if r.skipped:
            lines.append(f"| {r.name} | {r.seconds:.1f} | - | skipped (data missing) |")
            continue
        if r.failed:
            lines.append(f"| {r.name} | {r.seconds:.1f} | - | FAILED |")
            continue
        judged = [c for c in r.comparisons if c.ok is not None]
        met = sum(1 for c in judged if c.ok)
        missed = [c for c in judged if not c.ok]
        status = "ok"
        if missed:
            unexpected = sum(1 for c in missed if not c.documented)
            status = f"{len(missed)} missed ({len(missed) - unexpected} documented, {unexpected} unexpected)"
        lines.append(f"| {r.name} | {r.seconds:.1f} | {met}/{len(judged)} | {status} |")
    lines.append("")
    for r in reports:
        lines += [f"## {r.name}", "", r.description, ""]
        if r.skipped:
            lines += [f"**Skipped:** {r.skipped}", ""]
            continue
        if r.failed:
            lines += ["**Failed:**", "", "```", r.error.strip(), "```", ""]
            continue
        lines += ["### Paper vs measured", "", _markdown_table(_comparisons_frame(r.comparisons)), ""]
        if r.figure:
            lines += [f"![{r.name}]({r.figure})", ""]
        if r.notes:
            lines += [r.notes, ""]
        if r.warnings:
            lines += ["Warnings raised while it ran:", "", *(f"- {w}" for w in r.warnings), ""]
        lines += [f"Table: [{r.csv}]({r.csv}) ({r.n_rows} rows).", ""]
        if r.error:
            lines += ["```", r.error.strip(), "```", ""]
    lines += ["## Verdicts of all bounds", ""]
    if len(verdicts):
        lines += [
            summary_line(verdicts) + ". `expected` is the verdict the claim's author expects: a claim "
            "stated to show that something fails is expected `refuted`.",
            "",
        ]
        shown = verdicts.drop(
            columns=[
                c for c in ("as_expected", "n_points", "description", "timed_out") if c in verdicts.columns
            ]
        )
        lines += [_markdown_table(shown, max_rows=500)]
        if "description" in verdicts.columns:
            meant = verdicts[verdicts["expected"] != "proved"]
            if len(meant):
                lines += ["Claims not expected to be proved, in their authors' words:", ""]
                lines += [
                    f"- `{r.bound}` / `{r.claim}` (expected {r.expected}): {r.description or '(no description)'}"
                    for r in meant.itertuples()
                ]
                lines.append("")
    else:
        lines += ["(no claims registered)\n"]
    text = "\n".join(lines)
    out_dir.mkdir(parents=True, exist_ok=True)
    if fmt == "md":
        path = out_dir / "report.md"
        path.write_text(text)
        return path
    path = out_dir / "report.html"
    path.write_text(markdown_to_html(text))
    return path


def markdown_to_html(text: str) -> str:
    """The report's Markdown as a standalone HTML page (CommonMark with tables, by markdown-it-py)."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(text)
    return "\n".join(
        [
            "<!doctype html><html><head><meta charset='utf-8'><title>Reproduction report</title>",
            "<style>body{font-family:sans-serif;max-width:1100px;margin:auto}table{border-collapse:collapse}"
            "td,th{border:1px solid #ccc;padding:3px 6px;font-size:90%}img{max-width:100%}</style></head><body>",
            body,
            "</body></html>",
        ]
    )


__all__ = ["ExperimentReport", "markdown_to_html", "missed_claims", "outcome_counts", "write_report"]
