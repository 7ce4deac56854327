"""Verdicts of pace's symbolic claims (sympy, each paired with a numeric spot-check).

    python proofs/pace.py            # table of bound, claim, verdict, expected verdict, numeric check
    python proofs/pace.py --csv out.csv

T1 ACI's box [-gamma, 1 + gamma] (case split on alpha_t), telescoping identity and long-run bound (Gibbs &
Candes); T2 any positive steps: Abel summation, the box [-gamma_max (1 - alpha), 1 + gamma_max alpha], the bound
(1 + gamma_max) ||Delta||_1 / T, nonincreasing steps, and the same in q-space; T3 PACE's ledger identity, its bound,
the step choice that keeps |phi| <= Phi and ||Delta||_1 <= (1 + K (1 - 1/rho))/gamma_0; T4 the motivation
decomposition; T5 the cited regret and coverage bounds (verdict 'unknown' by design: transcribed with their
sources, not derived) and what sympy proves about them. One claim is deliberately false (clipped ACI does not
telescope) and expected 'refuted'. Exits non-zero when a claim's verdict differs from what its author expects
(the same as `toolkit prove --plugin pace --strict`).
"""

from __future__ import annotations

import sys

from toolkit.proving import main

if __name__ == "__main__":
    sys.exit(main("pace", description=__doc__))
