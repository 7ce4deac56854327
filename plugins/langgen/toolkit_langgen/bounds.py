"""Bounds of the langgen plugin: LRT's closure-dimension bounds (held against the races) and the
closed forms of the witness families with their growth (sympy limits / asymptotic orders)."""

from __future__ import annotations

from math import comb

import sympy as sp

from toolkit import Bound
from toolkit.symbolic import Asymptotic, Identity, Limit

n = sp.Symbol("n", positive=True, integer=True)
t = sp.Symbol("t", positive=True, integer=True)
k = sp.Symbol("k", positive=True, integer=True)
# columns of the simulations
closure_dimension = sp.Symbol("closure_dimension", nonnegative=True, integer=True)
param = sp.Symbol("param", nonnegative=True, integer=True)


def COUNTING_CLOSED(row) -> float:
    # a callable: as a sympy expression the harness evaluates it at huge random params (math overflow)
    m = int(row["param"])
    return comb(2 * m + 2, m + 1) - 1


def _ltt_closed(row) -> float:
    t_ = int(row["param"])
    return comb(2 * t_, t_) - 1


def _cfg_closed(row) -> float:
    return 2 ** (int(row["param"]) - 1) + 1


# factorial forms: sympy's limits of binomial(...) do not terminate, those of factorials do
def central(m):
    """binom(2m, m) as factorials."""
    return sp.factorial(2 * m) / sp.factorial(m) ** 2


# The toolkit's numeric spot-checks evaluate a limit at var = 10^6, 10^9, 10^12; sympy then computes
# factorial(2 * 10^12) exactly and never returns. So the claims below are stated through the ratio of
# consecutive terms (rational functions), and the Stirling-type limits of the closed form are checked
# with plain sympy.limit in ``stirling_limits()`` (used by the tests and proofs/langgen.py).
COUNTING_RATIO = Identity(
    "counting_closed_form_step",
    lhs=central(n + 1) / central(n),
    rhs=(2 * (2 * n + 1)) / (n + 1),
    domain={n: (1, 40)},
    description="binom(2n+2, n+1) = binom(2n, n) * 2(2n+1)/(n+1)",
)
COUNTING_GROWTH = Limit(
    "counting_growth_ratio_4",
    expr=(2 * (2 * n + 1)) / (n + 1),
    var=n,
    point=sp.oo,
    value=4,
    description="consecutive closed forms grow by a factor -> 4: one more DFA state multiplies |∩| by ~4",
)
COUNTING_RATIO_ORDER = Asymptotic(
    "counting_ratio_theta_one",
    f=(2 * (2 * n + 1)) / (n + 1),
    g=sp.Integer(4),
    var=n,
    order="~",
    description="binom(2n+2, n+1)/binom(2n, n) ~ 4",
)


def stirling_limits() -> dict:
    """sympy limits of the paper's asymptotics, in factorial form: name -> (computed, expected)."""
    return {
        "binom(2n-2,n-1) sqrt(n)/4^n": (
            sp.limit(central(n - 1) * sp.sqrt(n) / 4**n, n, sp.oo),
            1 / (4 * sp.sqrt(sp.pi)),
        ),
    }


STAIRCASE_THETA = Asymptotic(
    "sl_staircase_quadratic",
    f=k**2,
    g=k**2,
    var=k,
    order="Theta",
    description="SL_k staircase family: |∩| = k^2 = Theta(k^2)",
)
CFG_POWER_HALF = Identity(
    "cfg_power_half_of_length_bound",
    lhs=2 ** (n - 1) + 1,
    rhs=(2**n + 2) / 2,
    domain={n: (1, 40)},
    description="{a^i b^i : 2i <= 2^n} has 2^(n-1) + 1 = (2^n + 2)/2 words: exponential in the "
    "grammar size n + 3 (an exponential Asymptotic claim is not used: the toolkit's "
    "spot-check evaluates 2^(10^12) exactly)",
)


def _family(name):
    return lambda row: row.get("family") == name


BOUNDS = [
    Bound(
        "langgen.lrt_lower_bound",
        "LRT Thm 3.3: every generator needs more than C(H) distinct samples on the worst target when "
        "the adversary presents the largest finite closed set first",
        expression=closure_dimension + 1,
        metric="worst_first_correct",
        sense="lower",
        applies=lambda row: row.get("adversary") == "intersection_first" and row.get("status") == "exact",
    ),
    Bound(
        "langgen.closure_generator_upper",
        "LRT Thm 3.3: the closure generator is correct once it has C(H)+1 distinct samples (any adversary)",
        expression=closure_dimension + 1,
        metric="worst_first_correct",
        sense="upper",
        applies=lambda row: row.get("generator") == "closure" and row.get("status") == "exact",
    ),
    Bound(
        "langgen.counting_family",
        "|L_{a,m} ∩ L_{b,m}| = binom(2m+2, m+1) - 1 (equality: upper and lower)",
        claims=(COUNTING_RATIO, COUNTING_GROWTH, COUNTING_RATIO_ORDER),
        expression=COUNTING_CLOSED,
        metric="intersection_size",
        sense="upper",
        applies=_family("counting"),
    ),
    Bound(
        "langgen.counting_family_lower",
        "|L_{a,m} ∩ L_{b,m}| >= binom(2m+2, m+1) - 1",
        expression=COUNTING_CLOSED,
        metric="intersection_size",
        sense="lower",
        applies=_family("counting"),
    ),
    Bound(
        "langgen.ltt_threshold_family",
        "LTT(1, t): |fewer than t a's ∩ fewer than t b's| = binom(2t, t) - 1",
        expression=_ltt_closed,
        metric="intersection_size",
        sense="lower",
        applies=_family("ltt_threshold"),
    ),
    Bound(
        "langgen.sl_staircase_family",
        "SL_k: |no ba ∩ no a^k, b^k| = k^2",
        claims=(STAIRCASE_THETA,),
        expression=param**2,
        metric="intersection_size",
        sense="lower",
        applies=_family("sl_staircase"),
    ),
    Bound(
        "langgen.cfg_power_family",
        "{a^n b^n} ∩ ({a,b}^{<=2^j} ∪ baa*): 2^(j-1) + 1 words (bounded-length)",
        claims=(CFG_POWER_HALF,),
        expression=_cfg_closed,
        metric="intersection_size",
        sense="lower",
        applies=_family("cfg_power"),
    ),
]

CLAIMS = [c for b in BOUNDS for c in b.claims]
