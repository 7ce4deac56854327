"""Verdicts of sbayfdnn's symbolic claims (PIP threshold, mixture prior, approximation rate), each
paired with a numeric spot-check.

    python proofs/sbayfdnn.py            # table of bound, claim, verdict, expected verdict, numeric check
    python proofs/sbayfdnn.py --csv out.csv

Exits non-zero when a claim's verdict differs from what its author expects (the same as
`toolkit prove --plugin sbayfdnn --strict`).
"""

from __future__ import annotations

import sys

from toolkit.proving import main

if __name__ == "__main__":
    sys.exit(main("sbayfdnn", description=__doc__))
