"""Verdicts of svrg_poco's symbolic claims (sympy, each paired with a numeric spot-check).

    python proofs/svrg_poco.py            # table of bound, claim, verdict, expected verdict, numeric check
    python proofs/svrg_poco.py --csv out.csv

T1 SVRG's rate constant and its region, T2 isotropic PoCo = (alpha-)SVRG with step N eta, T3 the
Newton-like closed form = its natural-parameter form, T4 zero variance and one-step convergence on
quadratics. Exits non-zero when a claim's verdict differs from what its author expects (the same as
`toolkit prove --plugin svrg_poco --strict`).
"""

from __future__ import annotations

import sys

from toolkit.proving import main

if __name__ == "__main__":
    sys.exit(main("svrg_poco", description=__doc__))
