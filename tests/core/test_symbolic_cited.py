"""Cited claims: results transcribed from the literature, counted apart from what sympy could not decide."""

from __future__ import annotations

import pytest
import sympy as sp

from toolkit.errors import SpotCheckDisagreement
from toolkit.symbolic import Cited, Identity, Inequality

T, gamma = sp.symbols("T gamma", positive=True)


def _regret(bound, **kwargs):
    return Cited(
        "aci_regret",
        quantity="Reg(T)",
        bound=bound,
        source="Gibbs & Candes 2021, Prop 4.1",
        domain={T: (2, None)},
        **kwargs,
    )


def test_a_cited_claim_is_unknown_by_construction_and_names_its_source():
    verdict = _regret(1 / gamma + gamma * T).check()
    assert (verdict.status, verdict.method, verdict.kind) == ("unknown", "cited, not derived", "cited")
    assert verdict.detail == "Gibbs & Candes 2021, Prop 4.1"
    assert verdict.numeric.status == "agree"
    assert _regret(T).expect == "unknown"
    assert "[Gibbs & Candes 2021, Prop 4.1]" in _regret(T).statement()


def test_a_transcription_that_goes_negative_disagrees_unless_the_quantity_may_be_negative():
    with pytest.warns(SpotCheckDisagreement, match="aci_regret"):
        assert _regret(1 - T).check().numeric.status == "disagree"
    assert _regret(1 - T, nonnegative=False).check().numeric.status == "agree"


def test_a_cited_claim_without_a_source_is_refused():
    with pytest.raises(ValueError, match="source"):
        Cited("nameless", quantity="Reg(T)", bound=T, source=" ")


def test_the_summary_counts_cited_claims_apart_from_the_undecided():
    from toolkit.proving import summary_line, unexpected
    from toolkit.symbolic import prove, verdict_table

    claims = [
        Identity("square", lhs=(T + 1) ** 2, rhs=T**2 + 2 * T + 1),
        Inequality("false on purpose", lhs=T, rhs=1, expect="refuted", domain={T: (2, None)}),
        _regret(1 / gamma + gamma * T),
    ]
    table = verdict_table(prove(claims))
    table["expected"] = [c.expect for c in claims]
    table["as_expected"] = [v == e for v, e in zip(table["verdict"], table["expected"])]
    assert summary_line(table) == (
        "3 claims: 1 proved, 1 refuted, 0 unknown, 1 cited (transcribed from the "
        "literature, not derived); all as expected"
    )
    assert unexpected(table).empty
