"""Verdicts of gd_perceptron's symbolic claims (sympy, each paired with a numeric spot-check).

    python proofs/gd_perceptron.py            # table of claim, bound, verdict, numeric check
    python proofs/gd_perceptron.py --csv out.csv

Exits non-zero when a claim's verdict differs from what its author expects.
"""

from __future__ import annotations

import argparse
import sys

import pandas as pd


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed of the numeric spot-checks")
    parser.add_argument("--csv", default=None, help="also write the table to this CSV file")
    args = parser.parse_args(argv)

    from toolkit.symbolic import prove, verdict_table
    from plugins.gd_perceptron.bounds import BOUNDS

    seen, claims, owners = set(), [], []
    for bound in BOUNDS:
        for claim in bound.claims:
            if claim.name not in seen:  # a claim shared by two bounds is checked once
                seen.add(claim.name)
                claims.append(claim)
                owners.append(bound.name)
    verdicts = prove(claims, seed=args.seed)
    table = verdict_table(verdicts, owners)
    table["expected"] = [c.expect for c in claims]
    with pd.option_context("display.max_colwidth", 60, "display.width", 200):
        print(table[["bound", "claim", "kind", "verdict", "expected", "numeric"]].to_string(index=False))
    if args.csv:
        table.to_csv(args.csv, index=False)
    bad = [c.name for c, v in zip(claims, verdicts) if v.status != c.expect or v.numeric.status == "disagree"]
    print(f"\n{len(claims) - len(bad)}/{len(claims)} claims as expected" + (f"; NOT: {', '.join(bad)}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
