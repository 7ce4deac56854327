"""Verdicts of graphpfl's symbolic claims: the FRPA identities (FedProx and FedAvg as special cases,
form A/B starts and gradients) and the closed-form Fisher of logistic regression.

    python proofs/graphpfl.py            # table of claim, bound, verdict, numeric check
    python proofs/graphpfl.py --csv out.csv

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

    from plugins.graphpfl.bounds import BOUNDS
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
    if args.csv:
        table.to_csv(args.csv, index=False)
    bad = [c.name for c, v in zip(claims, verdicts) if v.status != c.expect or v.numeric.status == "disagree"]
    if bad:
        print(f"unexpected verdicts: {', '.join(bad)}", file=sys.stderr)
        return 1
    print(f"all {len(claims)} claims gave their expected verdict")
    return 0


if __name__ == "__main__":
    sys.exit(main())
