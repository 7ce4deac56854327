"""Verdicts of frog's symbolic claims (sympy, each paired with a numeric spot-check), and the same
counting identities measured on graphs the builders actually produce.

    python proofs/frog.py            # verdict table + construction check
    python proofs/frog.py --csv out.csv

Exits non-zero when a claim's verdict differs from what its author expects, or when a built graph
does not have the edge counts the formulas give.
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd


def construction_check() -> pd.DataFrame:
    """Edge counts of Row2Node / Row2Edge graphs of random k-key link tables vs 2nk and n k(k-1)."""
    from plugins.frog.simulation import GraphSizeParams, graph_sizes

    rows = []
    for k in (2, 3, 4, 5):
        for n in (1, 17, 500):
            r = graph_sizes(GraphSizeParams(n_rows=n, n_keys=k, n_entities=30), seed=k * 1000 + n)
            rows.append({"k": k, "n": n, "row2node_edges": r["n_row2node_edges"], "2nk": 2 * n * k,
                         "row2edge_edges": r["n_row2edge_edges"], "nk(k-1)": n * k * (k - 1),
                         "full_resolution": r["full_resolution"]})
    t = pd.DataFrame(rows)
    t["ok"] = (t.row2node_edges == t["2nk"]) & (t.row2edge_edges == t["nk(k-1)"]) & t.full_resolution
    return t


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed of the numeric spot-checks")
    parser.add_argument("--csv", default=None, help="also write the verdict table to this CSV file")
    args = parser.parse_args(argv)

    from plugins.frog.bounds import BOUNDS
    from toolkit.symbolic import prove, verdict_table

    claims, owners = [], []
    for bound in BOUNDS:
        for claim in bound.claims:
            claims.append(claim)
            owners.append(bound.name)
    verdicts = prove(claims, seed=args.seed)
    table = verdict_table(verdicts, owners)
    table["expected"] = [c.expect for c in claims]
    with pd.option_context("display.max_colwidth", 60, "display.width", 200):
        print(table[["bound", "claim", "kind", "verdict", "expected", "numeric"]].to_string(index=False))
        built = construction_check()
        print("\nEdge counts of built graphs (all keys present):")
        print(built.to_string(index=False))
    if args.csv:
        table.to_csv(args.csv, index=False)
    bad = [c.name for c, v in zip(claims, verdicts) if v.status != c.expect or v.numeric.status == "disagree"]
    if bad or not built.ok.all():
        print(f"\nFAILED: {', '.join(bad) or 'construction check'}", file=sys.stderr)
        return 1
    print(f"\nall {len(claims)} claims as expected; construction matches the formulas")
    return 0


if __name__ == "__main__":
    sys.exit(main())
