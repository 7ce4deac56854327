"""The issue's statistical targets (slow: minutes to an hour on one CPU; run with ``pytest -m slow``).

These recompute the headline experiments' full settings and assert the targets; the README records
what they gave when last run (some targets are not met by this reconstruction, and these tests say so).
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


def _ok(outcome, fragment):
    hits = [c for c in outcome.comparisons if fragment in c.claim]
    assert hits, fragment
    return hits[0]


def test_mutag_noise_targets():
    from toolkit_graphpfl.experiments import run_mutag_noise

    out = run_mutag_noise(quick=False)
    for fragment in (
        "p = 0.3 (points, paired",
        "FedAvg's drop from p = 0 to p = 0.3",
        "clean MUTAG",
        "drop p = 0 -> 0.5",
    ):
        c = _ok(out, fragment)
        assert c.ok, f"{c.claim}: measured {c.measured}, target {c.paper}"


def test_proteins_does_no_harm():
    from toolkit_graphpfl.experiments import run_proteins_no_harm

    out = run_proteins_no_harm(quick=False)
    bad = [f"{c.claim}: {c.measured} (target {c.paper})" for c in out.comparisons if not c.ok]
    assert not bad, "; ".join(bad)


def test_round_cost_targets():
    from toolkit_graphpfl.experiments import run_round_cost

    out = run_round_cost(quick=False)
    bad = [f"{c.claim}: {c.measured} (target {c.paper})" for c in out.comparisons if not c.ok]
    assert not bad, "; ".join(bad)
