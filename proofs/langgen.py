"""Verdicts of langgen's symbolic claims (sympy, each paired with a numeric spot-check), and the
Stirling limit of the paper checked with sympy.limit.

    python proofs/langgen.py            # verdict table + Stirling limit
    python proofs/langgen.py --csv out.csv

Exits non-zero when a claim's verdict differs from what its author expects, or when sympy's limit
differs from the paper's value.
"""

from __future__ import annotations

import sys

import pandas as pd


def stirling_limit_check() -> tuple[str, pd.DataFrame, bool]:
    from toolkit_langgen.bounds import stirling_limits

    rows = [
        {
            "limit": name,
            "computed": str(computed),
            "expected": str(expected),
            "ok": bool(computed == expected),
        }
        for name, (computed, expected) in stirling_limits().items()
    ]
    table = pd.DataFrame(rows)
    return "sympy.limit of the paper's Stirling asymptotics", table, bool(table.ok.all())


if __name__ == "__main__":
    from toolkit.proving import main

    sys.exit(main("langgen", description=__doc__, extras=[stirling_limit_check]))
