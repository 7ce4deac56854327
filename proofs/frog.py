"""Verdicts of frog's symbolic claims (sympy, each paired with a numeric spot-check), and the same
counting identities measured on graphs the builders actually produce.

    python proofs/frog.py            # verdict table + construction check
    python proofs/frog.py --csv out.csv

Exits non-zero when a claim's verdict differs from what its author expects, or when a built graph
does not have the edge counts the formulas give.
"""

from __future__ import annotations

import sys

import pandas as pd


def construction_check() -> pd.DataFrame:
    """Edge counts of Row2Node / Row2Edge graphs of random k-key link tables vs 2nk and n k(k-1)."""
    from toolkit_frog.simulation import GraphSizeParams, graph_sizes

    rows = []
    for k in (2, 3, 4, 5):
        for n in (1, 17, 500):
            r = graph_sizes(GraphSizeParams(n_rows=n, n_keys=k, n_entities=30), seed=k * 1000 + n)
            rows.append(
                {
                    "k": k,
                    "n": n,
                    "row2node_edges": r["n_row2node_edges"],
                    "2nk": 2 * n * k,
                    "row2edge_edges": r["n_row2edge_edges"],
                    "nk(k-1)": n * k * (k - 1),
                    "full_resolution": r["full_resolution"],
                }
            )
    t = pd.DataFrame(rows)
    t["ok"] = (t.row2node_edges == t["2nk"]) & (t.row2edge_edges == t["nk(k-1)"]) & t.full_resolution
    return t


def construction_check_result() -> tuple[str, pd.DataFrame, bool]:
    built = construction_check()
    return "Edge counts of built graphs (all keys present)", built, bool(built.ok.all())


if __name__ == "__main__":
    from toolkit.proving import main

    sys.exit(main("frog", description=__doc__, extras=[construction_check_result]))
