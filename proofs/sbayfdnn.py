"""Verdict table of the sbayfdnn plugin's symbolic claims (PIP threshold, mixture prior, approximation rate).

    python proofs/sbayfdnn.py
"""

from __future__ import annotations

import argparse


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=0, help="seed of the numeric spot-checks")
    args = parser.parse_args(argv)

    import pandas as pd

    from plugins.sbayfdnn.bounds import BOUNDS

    rows, bad = [], 0
    for bound in BOUNDS:
        for claim in bound.claims:
            verdict = claim.check(seed=args.seed)
            ok = verdict.status == claim.expect
            bad += not ok
            rows.append({"bound": bound.name, "claim": claim.name, "verdict": verdict.status,
                         "expected": claim.expect, "spot_check": verdict.numeric.status, "as_expected": ok})
    with pd.option_context("display.width", 200, "display.max_colwidth", 60):
        print(pd.DataFrame(rows).to_string(index=False))
    print(f"\n{len(rows) - bad}/{len(rows)} claims gave their expected verdict")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
