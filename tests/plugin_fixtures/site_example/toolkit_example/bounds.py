"""The example plugin's bounds: sympy expressions and claims (imported only when a bound is used)."""

from __future__ import annotations

import sympy

from toolkit import Bound
from toolkit.symbolic import Asymptotic, Identity, Inequality

n, t, p = sympy.symbols("n_steps t p", positive=True)
step = sympy.Symbol("step", positive=True, integer=True)

WALK_RANGE = Bound(
    name="example.walk_range",
    description="|S_t| <= t: a walk of t unit steps cannot go further than t",
    expression=step,
    metric="max_abs",
    sense="upper",
    claims=(
        Identity("mean of S_n", lhs=n * (p * 1 + (1 - p) * (-1)), rhs=n * (2 * p - 1), domain={p: (0, 1)}),
        Inequality("Hoeffding tail is a probability", lhs=sympy.exp(-(t**2) / (2 * n)), rhs=1, relation="<="),
        Asymptotic("typical range is o(n)", f=sympy.sqrt(n * sympy.log(n)), g=n, var=n, order="o"),
    ),
)

BOUNDS = [WALK_RANGE]
