"""Write a headline experiment's outcome to a folder: table CSV, comparisons (CSV + Markdown), figure.

Used by the ``plugins/gd_perceptron/studies/gd_perceptron_*.py`` scripts. No toolkit imports beyond the outcome it is given.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd


def comparisons_markdown(comparisons) -> str:
    lines = ["| claim | paper / reference | measured | ok |", "|---|---|---|---|"]
    for c in comparisons:
        ok = {True: "yes", False: "**NO**", None: "-"}[c.ok]
        lines.append(f"| {c.claim} | {c.paper} | {c.measured} | {ok} |")
    return "\n".join(lines) + "\n"


def write_outcome(outcome, out: Path, stem: str, *, figsize=(9, 5)) -> list[Path]:
    """Write ``<stem>.csv``, ``<stem>_comparisons.csv/.md`` and ``<stem>.png`` (when it has a plot)."""
    out.mkdir(parents=True, exist_ok=True)
    written = [out / f"{stem}.csv", out / f"{stem}_comparisons.csv", out / f"{stem}_comparisons.md"]
    outcome.table.to_csv(written[0], index=False)
    pd.DataFrame([vars(c) for c in outcome.comparisons]).to_csv(written[1], index=False)
    written[2].write_text(comparisons_markdown(outcome.comparisons))
    if outcome.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib.figure import Figure

        fig = Figure(figsize=figsize, layout="constrained")
        outcome.plot(fig)
        fig.savefig(out / f"{stem}.png", dpi=120)
        written.append(out / f"{stem}.png")
    return written
