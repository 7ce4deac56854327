"""Verdicts of care's symbolic claims (sympy, each paired with a numeric spot-check).

    python proofs/care.py            # table of bound, claim, verdict, expected verdict, numeric check
    python proofs/care.py --csv out.csv

Woodbury structure of the judges' precision for p = 4, K = 1 (Sigma^-1 = D^-1 - L, L of rank 1 + K); the least-error
weights Sigma^-1 a lie in the span of L (so anchor judges recover them from L); the omitted-confounder bias
w'Nw/(w'a)^2 >= 1/(a'N^-1 a) with equality at w = N^-1 a; the mean's confounder leakage 1'B/1'a; the one-factor
limit of the first principal component's confounder share; non-identifiability of quality without anchors (a
rotation of the loadings leaves Sigma unchanged). Exits non-zero when a claim's verdict differs from what its
author expects (the same as `toolkit prove --plugin care --strict`).
"""

from __future__ import annotations

import sys

from toolkit.proving import main

if __name__ == "__main__":
    sys.exit(main("care", description=__doc__))
