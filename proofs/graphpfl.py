"""Verdicts of graphpfl's symbolic claims: the FRPA identities (FedProx and FedAvg as special cases,
form A/B starts and gradients) and the closed-form Fisher of logistic regression.

    python proofs/graphpfl.py            # table of bound, claim, verdict, expected verdict, numeric check
    python proofs/graphpfl.py --csv out.csv

Exits non-zero when a claim's verdict differs from what its author expects (the same as
`toolkit prove --plugin graphpfl --strict`).
"""

from __future__ import annotations

import sys

from toolkit.proving import main

if __name__ == "__main__":
    sys.exit(main("graphpfl", description=__doc__))
