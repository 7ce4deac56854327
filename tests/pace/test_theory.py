"""pace's symbolic theory: every claim gives its expected verdict, wrong variants are refuted, and the
bounds hold on simulated streams (tiny inline recursions written here, independent of the methods)."""

from __future__ import annotations

import importlib
import math
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

try:  # installed with the plugin; before that, the plugin folder itself (an implicit namespace package)
    theory = importlib.import_module("toolkit_pace.theory")
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "plugins" / "pace"))
    theory = importlib.import_module("toolkit_pace.theory")

from toolkit.errors import SpotCheckDisagreement
from toolkit.symbolic import Identity, Inequality

TUPLES = (
    "ACI_CLAIMS",
    "STEP_SEQUENCE_CLAIMS",
    "LEDGER_CLAIMS",
    "DECOMPOSITION_CLAIMS",
    "CITED_CLAIMS",
    "DTACI_EXPERT_CLAIMS",
    "SFOGD_CLAIMS",
)


# -- the claims -----------------------------------------------------------------------------------------------
def test_exported_tuples_partition_all_claims():
    groups = [getattr(theory, name) for name in TUPLES]
    assert all(isinstance(g, tuple) and g for g in groups)
    names = [c.name for g in groups for c in g]
    assert len(names) == len(set(names)), "claim names must be unique"
    assert [c.name for c in theory.ALL_CLAIMS] == names
    assert all(c.description for c in theory.ALL_CLAIMS)
    assert {c.expect for c in theory.ALL_CLAIMS} == {"proved", "refuted", "unknown"}
    assert all(c.expect == "unknown" for c in theory.ALL_CLAIMS if isinstance(c, theory.Cited))
    assert all(c.expect != "unknown" for c in theory.ALL_CLAIMS if not isinstance(c, theory.Cited))
    assert all(c.name.startswith("expected_refuted_") for c in theory.ALL_CLAIMS if c.expect == "refuted")


@pytest.mark.parametrize("claim", theory.ALL_CLAIMS, ids=lambda c: c.name)
def test_claim_gives_expected_verdict(claim):
    verdict = claim.check(seed=0)
    assert verdict.status == claim.expect, (verdict.method, verdict.detail)
    assert not verdict.timed_out
    assert verdict.numeric.status == "agree", verdict.numeric.detail


def test_a_shared_verdict_is_the_one_a_fresh_check_gives(shared_claim_verdicts):
    """conftest.py decides each claim once per session: the kept verdict must be what the claim itself gives."""
    cheap = [c for c in theory.ALL_CLAIMS if c.name in ("aci_telescoping_T6", "aci_box_lower_free_up")]
    assert len(cheap) == 2
    for claim in cheap:
        shared = claim.check(seed=0)
        assert shared_claim_verdicts[(id(claim), 0)] is shared
        assert claim.check(seed=0) is shared  # decided once
        fresh = type(claim).check.original(claim, 0)
        assert fresh == shared
    other = theory.Cited(
        "not_a_pace_claim", quantity="Reg", bound=sp.Integer(1), source="nowhere 2000", description="x"
    )
    other.check()
    assert (id(other), 0) not in shared_claim_verdicts  # only pace's own claim objects are shared


def test_cited_claims_carry_sources():
    cited = [c for c in theory.CITED_CLAIMS if isinstance(c, theory.Cited)]
    assert len(cited) == 4
    for claim in cited:
        verdict = claim.check()
        assert verdict.method == "cited, not derived" and verdict.detail == claim.source
        assert "20" in claim.source and claim.quantity  # a year, and what is bounded


def test_cited_flags_a_transcription_that_goes_negative():
    D = sp.Symbol("D", positive=True)
    wrong = theory.Cited(
        "negative_bound", quantity="Reg", bound=1 - D, source="nowhere 2000", description="x"
    )
    with pytest.warns(SpotCheckDisagreement):
        verdict = wrong.check()
    assert verdict.status == "unknown" and verdict.numeric.status == "disagree"


# -- deliberately wrong variants are refuted ---------------------------------------------------------------------
def _refuted(claim) -> None:
    verdict = claim.check(seed=0)
    assert verdict.status == "refuted", (verdict.method, verdict.detail)
    assert verdict.counterexample


def test_off_by_one_telescoping_is_refuted():
    path = theory.alpha_path([theory.gamma] * theory.HORIZON)
    _refuted(
        Identity(
            "off_by_one",
            lhs=theory.miscoverage_sum(),
            rhs=(path[-2] - path[0]) / theory.gamma,
            domain=theory.ERR_DOMAIN,
        )
    )


def test_telescoping_with_the_wrong_horizon_is_refuted():
    path = theory.alpha_path([theory.gamma] * theory.HORIZON)
    _refuted(
        Identity(
            "one_err_short",
            lhs=theory.miscoverage_sum(theory.ERR[:-1]),
            rhs=(path[-1] - path[0]) / theory.gamma,
            domain=theory.ERR_DOMAIN,
        )
    )


def test_box_without_margin_is_refuted():
    # "alpha_t stays in [0, 1]": an interior alpha_t that misses steps below 0
    w = sp.Symbol("w", nonnegative=True) / (1 + sp.Symbol("w", nonnegative=True))
    _refuted(Inequality("no_margin", lhs=w - theory.gamma * (1 - theory.ALPHA), rhs=0, relation=">="))


def test_long_run_bound_without_gamma_is_refuted():
    end = -theory.gamma + (1 + 2 * theory.gamma) * sp.Symbol("u", nonnegative=True) / (
        1 + sp.Symbol("u", nonnegative=True)
    )
    _refuted(
        Inequality("no_gamma", lhs=theory.alpha_1 - end, rhs=theory.alpha_1, domain={theory.alpha_1: (0, 1)})
    )


def test_ledger_with_the_wrong_sign_is_refuted():
    path, phi = theory.alpha_path(theory.GAMMAS), theory.ledger_path(theory.GAMMAS)
    _refuted(
        Identity(
            "ledger_sign",
            lhs=theory.miscoverage_sum(),
            rhs=(path[-1] - path[0] + phi[-1]) / theory.gamma_0,
            domain=theory.ERR_DOMAIN,
        )
    )


def test_abel_summation_with_plain_inverse_steps_is_refuted():
    path = theory.alpha_path(theory.GAMMAS)
    wrong = [1 / g for g in theory.GAMMAS]  # 1/gamma_t instead of the differences Delta_t
    _refuted(
        Identity(
            "abel_weights",
            lhs=theory.miscoverage_sum(),
            rhs=sp.Add(*(wrong[s] * (path[-1] - path[s]) for s in range(theory.HORIZON))),
            domain=theory.ERR_DOMAIN,
        )
    )


# -- numeric spot checks on simulated streams (inline recursions, test-only) ---------------------------------------
def _threshold(window: np.ndarray, level: float) -> float:
    """The spec's rule: +inf when level <= 0 or the index exceeds n; -inf (empty set) when level >= 1."""
    if level <= 0:
        return math.inf
    if level >= 1:
        return -math.inf
    n = len(window)
    k = math.ceil((1 - level) * (n + 1))
    return math.inf if k > n else float(np.sort(window)[k - 1])


def _run(scores, alpha, steps, window, adversary=None, ledger=None):
    """alpha_{t+1} = alpha_t + gamma_t (alpha - err_t) from t = window on; err from the rule or an adversary.

    ``adversary(level) -> err`` replaces the scores inside (0, 1) (where either err is possible); the
    forced moves at alpha_t <= 0 and >= 1 stay forced. ``ledger=(gamma_0, Phi)`` applies PACE's cap.
    """
    level, levels, errs, used, phis = float(alpha), [float(alpha)], [], [], [0.0]
    for i, t in enumerate(range(window, len(scores))):
        q = _threshold(scores[t - window : t], level)
        err = float(scores[t] > q)
        if adversary is not None and 0 < level < 1:
            err = adversary(level)
        step = steps[i]
        if ledger is not None:
            gamma_0, cap = ledger
            phi = phis[-1]
            limit = gamma_0 + ((cap - phi) / alpha if err == 0 else (cap + phi) / (1 - alpha))
            step = min(step, limit)
            phis.append(phi + (step - gamma_0) * (alpha - err))
        level += step * (alpha - err)
        levels.append(level)
        errs.append(err)
        used.append(step)
    return np.array(levels), np.array(errs), np.array(used), np.array(phis)


def _bound(expr, **values) -> float:
    """A bound expression of the theory at numeric values, its symbols matched by name."""
    assert {str(x) for x in expr.free_symbols} == set(values)
    return float(expr.subs({x: values[str(x)] for x in expr.free_symbols}))


def _shifted_scores(rng, n):
    sigma = np.where(np.arange(n) < n // 2, 1.0, 3.0)  # an abrupt variance shift half-way
    return np.abs(rng.normal(0.0, sigma))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_aci_box_telescoping_and_long_run_bound_on_a_shifted_stream(seed):
    rng = np.random.default_rng(seed)
    alpha, gamma, window = 0.1, float(rng.choice([0.005, 0.05, 0.5])), 50
    scores = _shifted_scores(rng, 1500)
    levels, errs, _, _ = _run(scores, alpha, [gamma] * len(scores), window)
    T = len(errs)
    assert levels.min() >= -gamma and levels.max() <= 1 + gamma
    assert abs(np.sum(alpha - errs) - (levels[-1] - levels[0]) / gamma) <= 1e-9 * T
    assert abs(errs.mean() - alpha - (levels[0] - levels[-1]) / (gamma * T)) <= 1e-12
    bound = _bound(theory.ACI_LONG_RUN_BOUND, alpha_1=alpha, gamma=gamma, T=T)
    assert abs(errs.mean() - alpha) <= bound


def _push_out(level: float) -> float:
    """The worst adversary inside (0, 1): move alpha_t away from 1/2."""
    return 0.0 if level >= 0.5 else 1.0


@pytest.mark.parametrize("start", [0.05, 0.9])
def test_aci_box_is_nearly_attained_by_an_adversary(start):
    rng = np.random.default_rng(3)
    alpha, gamma = start, 0.3
    levels, _, _, _ = _run(rng.random(400), alpha, [gamma] * 400, 10, adversary=_push_out)
    assert levels.min() >= -gamma and levels.max() <= 1 + gamma
    assert levels.max() > 1 or levels.min() < 0  # the margin of the box is used: [0, 1] is not enough


@pytest.mark.parametrize("seed", [0, 1])
def test_step_sequence_box_abel_and_bound_for_random_steps(seed):
    rng = np.random.default_rng(seed)
    alpha, gamma_max, window = 0.1, 0.2, 30
    scores = _shifted_scores(rng, 800)
    steps = gamma_max * rng.uniform(1e-3, 1.0, size=len(scores))
    levels, errs, used, _ = _run(scores, alpha, steps, window, adversary=_push_out if seed else None)
    T = len(errs)
    assert levels.min() >= -gamma_max * (1 - alpha) - 1e-15 and levels.max() <= 1 + gamma_max * alpha + 1e-15
    deltas = np.diff(1 / used, prepend=0.0)  # Delta_1 = 1/gamma_1, then differences
    abel = np.sum(deltas * (levels[-1] - levels[:-1]))
    assert abs(np.sum(alpha - errs) - abel) <= 1e-9 * np.sum(np.abs(deltas))
    bound = _bound(theory.STEP_SEQUENCE_BOUND, gamma_max=gamma_max, l1_delta=np.abs(deltas).sum(), T=T)
    assert abs(errs.mean() - alpha) <= bound


def test_nonincreasing_steps_have_l1_norm_one_over_the_last_step():
    steps = np.sort(np.random.default_rng(4).uniform(0.001, 0.3, size=200))[::-1]
    deltas = np.diff(1 / steps, prepend=0.0)
    assert deltas.min() >= 0 and np.isclose(np.abs(deltas).sum(), 1 / steps[-1], rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_qspace_box_for_quantile_tracking(seed):
    rng = np.random.default_rng(seed)
    alpha, B, eta_max = 0.1, 2.0, 0.4
    scores = np.clip(_shifted_scores(rng, 2000), 0, B)
    q, qs = 1.0, [1.0]
    for s in scores:
        err = float(s > q)
        q += eta_max * rng.uniform(0.01, 1.0) * (err - alpha)
        qs.append(q)
    qs = np.array(qs)
    assert qs.min() >= -eta_max * alpha and qs.max() <= B + eta_max * (1 - alpha)


def _monotone_runs(values: np.ndarray) -> int:
    """Maximal monotone runs of a sequence (constant stretches extend the current run)."""
    runs, direction = 1, 0
    for step in np.sign(np.diff(values)):
        if step == 0:
            continue
        if direction and step != direction:
            runs += 1
        direction = step
    return runs


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pace_ledger_identity_cap_and_bounds(seed):
    rng = np.random.default_rng(seed)
    alpha, gamma_0, gamma_max, cap, window = 0.1, 0.005, 0.128, 0.5, 50
    scores = _shifted_scores(rng, 3000)
    # a smoothed target that jumps up at random rounds and decays by 1/20 of the gap (as PACE's gamma~)
    tilde, smoothed = gamma_0, []
    for _ in scores:
        target = gamma_max if rng.random() < 0.01 else gamma_0
        tilde = target if target >= tilde else tilde + (target - tilde) / 20
        smoothed.append(tilde)
    levels, errs, used, phis = _run(scores, alpha, smoothed, window, ledger=(gamma_0, cap))
    T = len(errs)
    assert np.abs(phis).max() <= cap + 1e-12
    assert used.min() >= gamma_0 - 1e-15 and used.max() <= gamma_max
    assert abs(np.sum(alpha - errs) - (levels[-1] - levels[0] - phis[-1]) / gamma_0) <= 1e-9 * T
    assert abs(errs.mean() - alpha) <= _bound(
        theory.LEDGER_BOUND, alpha_1=alpha, gamma_max=gamma_max, Phi=cap, gamma_0=gamma_0, T=T
    )
    l1 = np.abs(np.diff(1 / used, prepend=0.0)).sum()
    runs = _monotone_runs(used)
    assert runs > 1
    assert l1 <= _bound(theory.RATIO_STEP_L1_BOUND, K=runs, rho=gamma_max / gamma_0, gamma_0=gamma_0) * (
        1 + 1e-12
    )


@pytest.mark.parametrize("n", [10, 99, 500])
def test_discretisation_term_of_the_empirical_quantile(n):
    rng = np.random.default_rng(n)
    window = rng.normal(size=n)  # distinct scores: no ties
    for level in rng.uniform(1 / (n + 1), 1, size=200):
        q = _threshold(window, level)
        if math.isinf(q):
            continue
        f_hat = np.mean(window <= q)
        assert -2 / n < 1 - level - f_hat <= 1e-12
