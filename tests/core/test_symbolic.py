"""The claim checker: proved / refuted (with a counterexample) / unknown, and loud disagreements."""

from __future__ import annotations

import warnings

import pytest
import sympy as sp

import toolkit.symbolic as symbolic
from toolkit.errors import SpotCheckDisagreement
from toolkit.symbolic import Asymptotic, Identity, Inequality, Limit, prove, verdict_table

x, y = sp.symbols("x y", real=True)
a = sp.Symbol("a", positive=True)
n = sp.Symbol("n", integer=True, positive=True)
gamma = sp.Symbol("gamma", positive=True)
m_neg = sp.Symbol("m", negative=True)


@pytest.mark.parametrize(
    "claim",
    [
        Identity("binomial", lhs=(x + y) ** 2, rhs=x**2 + 2 * x * y + y**2),
        Identity("relu homogeneity", lhs=sp.Max(0, a * x), rhs=a * sp.Max(0, x)),
        Identity("step scale invariance", lhs=sp.Heaviside(a * x), rhs=sp.Heaviside(x)),
        Identity(
            "logistic gradient", lhs=sp.diff(sp.log(1 + sp.exp(-y * x)), x), rhs=-y / (1 + sp.exp(y * x))
        ),
        Inequality("AM-GM", lhs=2 * x * y, rhs=x**2 + y**2),
        Inequality("n <= n^2 on positive integers", lhs=n, rhs=n**2),
        Inequality("x <= x^2 on [1, oo)", lhs=x, rhs=x**2, domain={x: (1, None)}),
        Inequality("log(1+a) <= a", lhs=sp.log(1 + a), rhs=a),
        Inequality("strict", lhs=a, rhs=a + 1, relation="<"),
        Asymptotic("n log n = o(n^2)", f=n * sp.log(n), g=n**2, var=n, order="o"),
        Asymptotic("mu^2 ~ 1/(4d)", f=(n - 1) / (4 * n**2 + n - 1), g=1 / (4 * n), var=n, order="~"),
        Asymptotic("3n^2+n = Theta(n^2)", f=3 * n**2 + n, g=n**2, var=n, order="Theta"),
        Asymptotic("n^2 = Omega(n)", f=n**2, g=n, var=n, order="Omega"),
        Limit("sigmoid saturates", expr=1 / (1 + sp.exp(gamma * m_neg)), var=gamma, point=sp.oo, value=1),
        Limit("sin x / x", expr=sp.sin(x) / x, var=x, point=0, value=1, direction="+-"),
    ],
)
def test_true_claims_are_proved_and_agree_with_spot_checks(claim):
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpotCheckDisagreement)
        verdict = claim.check(seed=0)
    assert verdict.status == "proved", verdict
    assert (
        verdict.numeric.status in ("agree", "skipped")
        and verdict.numeric.status == "agree"
        or claim.kind == "limit"
    )


@pytest.mark.parametrize(
    "claim, key",
    [
        (Identity("not binomial", lhs=(x + y) ** 2, rhs=x**2 + y**2), "x"),
        (Inequality("n^2 <= 10n", lhs=n**2, rhs=10 * n), "n"),
        (Inequality("x <= x^2 everywhere", lhs=x, rhs=x**2, domain={x: (0, 1)}), "x"),
    ],
)
def test_false_claims_are_refuted_with_a_checked_counterexample(claim, key):
    verdict = claim.check(seed=0)
    assert verdict.status == "refuted" and key in verdict.counterexample
    point = {
        sp.Symbol(k, **s.assumptions0): v
        for k, v in verdict.counterexample.items()
        for s in [next(q for q in (claim.lhs - claim.rhs).free_symbols if q.name == k)]
    }
    lhs, rhs = sp.sympify(claim.lhs).subs(point), sp.sympify(claim.rhs).subs(point)
    if claim.kind == "identity":
        assert sp.simplify(lhs - rhs) != 0
    else:
        assert bool(lhs > rhs)


def test_wrong_asymptotic_order_is_refuted():
    verdict = Asymptotic("n^2 = O(n)", f=n**2, g=n, var=n, order="O").check()
    assert verdict.status == "refuted" and verdict.counterexample == {"lim f/g": "oo"}


def test_wrong_limit_is_refuted():
    verdict = Limit(
        "sigmoid -> 0?", expr=1 / (1 + sp.exp(gamma * m_neg)), var=gamma, point=sp.oo, value=0
    ).check()
    assert verdict.status == "refuted" and verdict.counterexample == {"limit": "1"}


def test_undecidable_claim_is_unknown_never_refuted():
    # true, but beyond sympy's simplifier: sum of a nontrivial identity via an unevaluated special function
    claim = Identity("Hurwitz at s=2 vs polygamma", lhs=sp.zeta(2, a), rhs=sp.polygamma(1, a))
    verdict = claim.check()
    assert verdict.status in ("unknown", "proved")
    assert verdict.status != "refuted"
    oscillating = Asymptotic("n sin n = O(n)?", f=n * sp.sin(n) + 2 * n, g=n, var=n, order="~").check()
    assert oscillating.status == "unknown"


def test_inequality_sympy_cannot_decide_is_unknown():
    t = sp.Symbol("t", positive=True)
    verdict = Inequality(
        "tricky but true", lhs=sp.sin(t) ** 2 * sp.exp(-t), rhs=1 + sp.cos(t) ** 2, relation="<="
    ).check()
    assert verdict.status in ("unknown", "proved") and verdict.counterexample is None


def test_disagreement_between_symbolic_and_numeric_is_loud(monkeypatch):
    real = symbolic._numeric

    def broken(expr, point, dps=40):  # a numeric evaluator that is off: the verdicts must disagree
        value = real(expr, point, dps)
        return None if value is None else value * 1.5 if expr == x**2 else value

    monkeypatch.setattr(symbolic, "_numeric", broken)
    with pytest.warns(SpotCheckDisagreement, match="disagrees with the numeric spot-check"):
        verdict = Identity("square", lhs=x**2, rhs=x * (x + 1) - x).check()
    assert verdict.status == "proved" and verdict.numeric.status == "disagree" and not verdict.agrees


def test_prove_and_table():
    verdicts = prove(
        [Identity("one", lhs=x + x, rhs=2 * x), Inequality("two", lhs=n, rhs=n - 1, expect="refuted")]
    )
    table = verdict_table(verdicts, owners=["b1", "b2"])
    assert list(table["verdict"]) == ["proved", "refuted"]
    assert list(table.columns[:3]) == ["bound", "claim", "kind"]


def test_bad_relation_and_order():
    with pytest.raises(ValueError, match="relation must be one of"):
        Inequality("x", lhs=x, rhs=x, relation="=<").check()
    with pytest.raises(ValueError, match="order must be one of"):
        Asymptotic("x", f=n, g=n, var=n, order="big-O").check()
