"""Proving the registered bounds: the verdict table of their claims, and a ``main`` for proof scripts.

``prove_bounds`` checks the claims of the named bounds (or of every bound of some plugins) and adds
what each claim's author expects, so a reader sees at once that, say, a deliberately false claim
came out ``refuted`` as intended. ``main`` is the whole of a ``proofs/<plugin>.py`` script.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from toolkit.registry import Registry
from toolkit.specs import Bound

if TYPE_CHECKING:  # pragma: no cover
    from toolkit.symbolic import Claim

SHOWN_COLUMNS = ["bound", "claim", "kind", "verdict", "expected", "method", "numeric", "detail"]


def bound_claims(bound: Bound) -> list[Claim]:
    """The bound's claims, each with the bound's declared ``domain`` for the symbols it leaves open."""
    return [claim.with_domain(bound.domain) for claim in bound.claims]


def prove_bounds(
    registry: Registry, names: Sequence[str] | None = None, *, plugins: Sequence[str] = (), seed: int = 0
) -> pd.DataFrame:
    """One row per claim of the named bounds, or of ``plugins``' bounds, or of every bound.

    Columns: ``bound``, ``claim``, ``kind``, ``verdict`` (proved / refuted / unknown), ``expected``
    (the author's expected verdict), ``as_expected`` (verdict == expected and the numeric
    spot-check agrees), ``method``, ``numeric``, ``n_points``, ``counterexample``, ``detail``,
    ``description`` (the claim's own).
    """
    from toolkit.symbolic import verdict_table

    if names:
        bounds = [registry.bound(n) for n in names]
    elif plugins:
        for plugin in plugins:
            if plugin not in registry.plugins():
                from toolkit.errors import UnknownNameError

                raise UnknownNameError("plugin", plugin, registry.plugins())
        bounds = [b for b in registry.bounds.values() if b.plugin in plugins]
    else:
        bounds = list(registry.bounds.values())
    claims = [(b.name, claim) for b in bounds for claim in bound_claims(b)]
    verdicts = [claim.check(seed=seed) for _, claim in claims]
    table = verdict_table(verdicts, [owner for owner, _ in claims])
    if table.empty:
        return pd.DataFrame(columns=[*SHOWN_COLUMNS, "as_expected"])
    expected = [claim.expect for _, claim in claims]
    table.insert(table.columns.get_loc("verdict") + 1, "expected", expected)
    table.insert(
        table.columns.get_loc("expected") + 1,
        "as_expected",
        [v.status == e and v.numeric.status != "disagree" for v, e in zip(verdicts, expected)],
    )
    table["description"] = [claim.description for _, claim in claims]
    return table


def unexpected(table: pd.DataFrame) -> pd.DataFrame:
    """The rows whose verdict differs from the expected one or whose spot-check disagrees.

    A verdict that timed out (``unknown (timed out)``) is not among them: it depends on the
    machine, not on the claim, so it never fails ``--strict``.
    """
    if table.empty:
        return table
    timed_out = table["timed_out"].astype(bool) if "timed_out" in table.columns else False
    return table[~table["as_expected"].astype(bool) & ~timed_out]


def timed_out(table: pd.DataFrame) -> pd.DataFrame:
    """The rows whose verdict is ``unknown (timed out)``."""
    if table.empty or "timed_out" not in table.columns:
        return table.iloc[:0]
    return table[table["timed_out"].astype(bool)]


def summary_line(table: pd.DataFrame) -> str:
    """``"57 claims: 55 proved, 2 refuted, 0 unknown; all as expected"`` (timeouts and cited claims counted apart)."""
    cited: Any = table["kind"] == "cited" if len(table) else []
    counts = table["verdict"][~cited].value_counts().to_dict() if len(table) else {}
    late = timed_out(table)
    text = f"{len(table)} claims: " + ", ".join(
        f"{counts.get(k, 0)} {k}" for k in ("proved", "refuted", "unknown")
    )
    if len(table) and cited.any():
        text += f", {int(cited.sum())} cited (transcribed from the literature, not derived)"
    if len(late):
        text += (
            f", {len(late)} unknown (timed out: {', '.join(late['claim'])}; not counted as failures, "
            "raise TOOLKIT_SYMBOLIC_SECONDS to give sympy more CPU time)"
        )
    bad = unexpected(table)
    return text + (
        "; all as expected" if bad.empty else f"; {len(bad)} NOT as expected: {', '.join(bad['claim'])}"
    )


Extra = Callable[[], tuple[str, pd.DataFrame, bool]]


def main(
    plugin: str,
    argv: Sequence[str] | None = None,
    *,
    description: str | None = None,
    extras: Sequence[Extra] = (),
    registry: Registry | None = None,
) -> int:
    """Print the verdicts of ``plugin``'s claims; exit status 1 when any is not as expected.

    ``extras`` are further checks a proof script adds (e.g. formulas measured on built objects):
    each returns ``(title, table, ok)``; the table is printed under the title and ``ok=False``
    fails the script.
    """
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the numeric spot-checks (default 0)")
    parser.add_argument("--csv", default=None, help="also write the verdict table to this CSV file")
    args = parser.parse_args(argv)

    if registry is None:
        from toolkit.manager import get_plugin_manager

        registry = Registry.from_manager(get_plugin_manager())
    table = prove_bounds(registry, plugins=[plugin], seed=args.seed)
    failures = []
    with pd.option_context("display.max_colwidth", 70, "display.width", 220, "display.max_rows", 1000):
        print(table[SHOWN_COLUMNS].to_string(index=False))
        for extra in extras:
            title, extra_table, ok = extra()
            print(f"\n{title}:\n{extra_table.to_string(index=False)}")
            if not ok:
                failures.append(title)
    if args.csv:
        table.to_csv(args.csv, index=False)
    print("\n" + summary_line(table))
    failures += list(unexpected(table)["claim"])
    if failures:
        print(f"FAILED: {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0


__all__ = ["bound_claims", "main", "prove_bounds", "summary_line", "timed_out", "unexpected"]
