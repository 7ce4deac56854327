"""Verdicts of gd_perceptron's symbolic claims (sympy, each paired with a numeric spot-check).

    python proofs/gd_perceptron.py            # table of bound, claim, verdict, expected verdict, numeric check
    python proofs/gd_perceptron.py --csv out.csv

Exits non-zero when a claim's verdict differs from what its author expects (the same as
`toolkit prove --plugin gd_perceptron --strict`).
"""

from __future__ import annotations

import sys

from toolkit.proving import main

if __name__ == "__main__":
    sys.exit(main("gd_perceptron", description=__doc__))
