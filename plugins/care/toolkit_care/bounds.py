"""The bounds care's simulated rows are held against, and the theory behind them.

* ``care.bayes_floor``: no aggregator's error is below the Gaussian posterior's (given the latent scores the votes
  come from) minus a sampling tolerance 4/sqrt(N): error >= bayes_floor - floor_tolerance, every row.
* ``care.theory``: symbolic only (toolkit_care.theory): Woodbury structure, the optimal weights in L's span, the
  omitted-confounder bias and its equality, the mean's leakage, the one-factor limit, non-identifiability.
"""

from __future__ import annotations

import sympy as sp

from toolkit import Bound
from toolkit_care import theory

bayes_floor, floor_tolerance = sp.symbols("bayes_floor floor_tolerance", nonnegative=True)


def _measured(row) -> bool:
    """rows with an error (a failed method's row is marked, not held)"""
    return not row.get("failed", False)


BOUNDS = [
    Bound(
        "care.bayes_floor",
        "no aggregator beats the Gaussian posterior: error >= Bayes floor - 4/sqrt(N), every simulated row",
        expression=bayes_floor - floor_tolerance,
        metric="error",
        sense="lower",
        slack=1e-12,
        applies=_measured,
        domain={bayes_floor: (0, 1), floor_tolerance: (0, 1)},
    ),
    Bound(
        "care.theory",
        "Woodbury structure (rank 1 + K), optimal weights in L's span, omitted-confounder bias with equality, "
        "the mean's leakage, the one-factor limit, non-identifiability without anchors (symbolic)",
        claims=tuple(theory.claims()),
    ),
]
