"""pace's sympy claims are checked by two tests: `test_theory.py` (each claim's verdict) and the harness's
`pace.<bound>:claims` check (`test_pace_contract.py`). 68 of the 70 are the very same claim objects there,
and a verdict depends only on the claim and the seed, so each is decided once per session and shared.

Only pace's own claim objects are shared (keyed by identity; a bound's ``with_domain`` copy is another
object and is checked on its own). A verdict that timed out or whose spot-check disagreed is never
kept, so its timeout skip and its ``SpotCheckDisagreement`` warning come again on every check.
"""

from __future__ import annotations

import functools

import pytest

from toolkit.symbolic import Claim


def _shared(original, claims: dict[int, Claim], verdicts: dict):
    @functools.wraps(original)
    def check(self, seed: int = 0):
        if claims.get(id(self)) is not self:
            return original(self, seed)
        key = (id(self), seed)
        if key not in verdicts:
            verdict = original(self, seed)
            if verdict.timed_out or verdict.numeric.status == "disagree":
                return verdict
            verdicts[key] = verdict
        return verdicts[key]

    check.original = original  # the undecorated check, for the test that the shared verdict is the same
    return check


@pytest.fixture(scope="session", autouse=True)
def shared_claim_verdicts():
    """{(id(claim), seed): verdict} for pace's claims, filled as the tests check them."""
    from toolkit_pace import theory

    claims = {id(c): c for c in theory.ALL_CLAIMS}
    verdicts: dict = {}
    classes = {
        cls
        for c in theory.ALL_CLAIMS
        for cls in type(c).__mro__
        if issubclass(cls, Claim) and "check" in vars(cls)
    }
    with pytest.MonkeyPatch.context() as mp:
        for cls in classes:
            mp.setattr(cls, "check", _shared(vars(cls)["check"], claims, verdicts))
        yield verdicts
