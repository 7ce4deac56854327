"""The symbolic theory of online conformal inference under shift (sympy through ``toolkit.symbolic``).

Update rules: err_t = 1{s_t > q_t}; q_t = +oo when alpha_t <= 0 (err_t = 0), the set is
empty when alpha_t >= 1 (err_t = 1); alpha_{t+1} = alpha_t + gamma_t (alpha - err_t), never clipped.

T1  ACI (Gibbs & Candes 2021, Lemma 4.1 / Prop 4.1): the box alpha_t in [-gamma, 1 + gamma] by a case split
    on alpha_t, the telescoping identity sum_t (alpha - err_t) = (alpha_{T+1} - alpha_1)/gamma (T = 6,
    symbolic err_t in {0, 1}) and the long-run bound |mean err - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma)/(gamma T).
T2  any positive steps gamma_t <= gamma_max (Abel summation): the box [-gamma_max (1 - alpha), 1 + gamma_max alpha],
    sum_t (alpha - err_t) = sum_s Delta_s (alpha_{T+1} - alpha_s) with Delta_1 = 1/gamma_1,
    Delta_t = 1/gamma_t - 1/gamma_{t-1}, hence |mean err - alpha| <= (1 + gamma_max) ||Delta||_1 / T; nonincreasing
    steps give ||Delta||_1 = 1/gamma_T. The same in q-space (scores in [0, B], steps eta_t <= eta_max): width
    B + eta_max.
T3  PACE's ledger phi_{t+1} = phi_t + (gamma_t - gamma_0)(alpha - err_t): sum_t (alpha - err_t) =
    (alpha_{T+1} - alpha_1 - phi_{T+1})/gamma_0, hence |mean err - alpha| <= (max(alpha_1, 1 - alpha_1) +
    gamma_max + Phi)/(gamma_0 T); the step choice keeps |phi| <= Phi; steps in [gamma_0, rho gamma_0] made of
    K monotone runs have ||Delta||_1 <= (1 + K (1 - 1/rho))/gamma_0.
T4  the motivation decomposition E[err_t | past] - alpha = (alpha_t - alpha) + (Fhat_t - F_t)(q_t) + d_t with
    the discretisation d_t in (-2/n, 0], and the speed limit |alpha_{t+r} - alpha_t| <= r gamma max(alpha, 1-alpha).
T5  cited bounds (SAOCP, ACI regret, SF-OGD, DtACI), transcribed with their sources and not derived
    (:class:`Cited`), each beside the consequences of it that sympy does prove.

Every inequality over a bounded range is stated through a parametrisation that sympy's sign assumptions
can read: a number in [0, 1) is u/(1 + u) with u >= 0 (a non-strict inequality continuous in it then
holds on [0, 1] too), the target alpha in (0, 1) is 1/(1 + a) with a > 0 (a = (1 - alpha)/alpha).
Deliberately false claims are named ``expected_refuted_*`` and carry ``expect="refuted"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy as sp

from toolkit.symbolic import Asymptotic, Cited, Claim, Identity, Inequality, Limit

HORIZON = 6  # the T of the finite-horizon identities (symbolic err_1..err_T, gamma_1..gamma_T)


def _unit(name: str, *, positive: bool = False) -> sp.Expr:
    """A number in [0, 1) (or (0, 1) when ``positive``) as u/(1 + u), u >= 0: its sign facts are assumptions."""
    u = sp.Symbol(name, positive=True) if positive else sp.Symbol(name, nonnegative=True)
    return u / (1 + u)


# -- shared symbols -------------------------------------------------------------------------------------
alpha = sp.Symbol("alpha", positive=True)  # target miscoverage, in (0, 1) (identities only)
alpha_odds = sp.Symbol(
    "alpha_odds", positive=True
)  # (1 - alpha)/alpha: alpha = 1/(1 + alpha_odds) in inequalities
ALPHA = 1 / (1 + alpha_odds)
alpha_1 = sp.Symbol("alpha_1", nonnegative=True)  # the starting level, in [0, 1]
gamma = sp.Symbol("gamma", positive=True)  # ACI's constant step
gamma_0 = sp.Symbol("gamma_0", positive=True)  # PACE's base step
gamma_max = sp.Symbol("gamma_max", positive=True)
eta_max = sp.Symbol("eta_max", positive=True)  # the largest q-space step
B = sp.Symbol("B", positive=True)  # scores in [0, B]
Phi = sp.Symbol("Phi", positive=True)  # PACE's ledger cap
T = sp.Symbol("T", positive=True, integer=True)
n = sp.Symbol("n", positive=True, integer=True)  # calibration scores
ERR = sp.symbols(f"err_1:{HORIZON + 1}", integer=True, nonnegative=True)
GAMMAS = sp.symbols(f"gamma_1:{HORIZON + 1}", positive=True)
ERR_DOMAIN = {e: (0, 1) for e in ERR}
UNIT_DOMAIN = {alpha: (0, 1), alpha_1: (0, 1)}


# -- the recursions, exactly as the methods run them ------------------------------------------------------
def alpha_path(
    steps: Sequence[Any], errs: Sequence[Any] = ERR, start: Any = alpha_1, target: Any = alpha
) -> list:
    """[alpha_1, ..., alpha_{T+1}] of alpha_{t+1} = alpha_t + gamma_t (alpha - err_t) (never clipped)."""
    path = [start]
    for step, err in zip(steps, errs, strict=True):
        path.append(path[-1] + step * (target - err))
    return path


def ledger_path(
    steps: Sequence[Any], base: Any = gamma_0, errs: Sequence[Any] = ERR, target: Any = alpha
) -> list:
    """[phi_1 = 0, ..., phi_{T+1}] of PACE's ledger phi_{t+1} = phi_t + (gamma_t - gamma_0)(alpha - err_t)."""
    path = [sp.Integer(0)]
    for step, err in zip(steps, errs, strict=True):
        path.append(path[-1] + (step - base) * (target - err))
    return path


def step_differences(steps: Sequence[Any]) -> list:
    """Delta_1 = 1/gamma_1, Delta_t = 1/gamma_t - 1/gamma_{t-1}: the weights of Abel's summation."""
    return [1 / steps[0], *(1 / steps[t] - 1 / steps[t - 1] for t in range(1, len(steps)))]


def miscoverage_sum(errs: Sequence[Any] = ERR, target: Any = alpha) -> sp.Expr:
    """sum_t (alpha - err_t)."""
    return sp.Add(*(target - e for e in errs))


# -- the bounds, as expressions (what runs are held against) ------------------------------------------------
ACI_LONG_RUN_BOUND = (sp.Max(alpha_1, 1 - alpha_1) + gamma) / (gamma * T)
"""T1: |mean_{t <= T} err_t - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma)/(gamma T)."""
l1_delta = sp.Symbol("l1_delta", positive=True)  # ||Delta||_1 of a step sequence
STEP_SEQUENCE_BOUND = (1 + gamma_max) * l1_delta / T
"""T2: |mean err - alpha| <= (1 + gamma_max) ||Delta||_1 / T for any steps 0 < gamma_t <= gamma_max."""
LEDGER_BOUND = (sp.Max(alpha_1, 1 - alpha_1) + gamma_max + Phi) / (gamma_0 * T)
"""T3: PACE's |mean err - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma_max + Phi)/(gamma_0 T)."""
rho = sp.Symbol("rho", positive=True)  # steps in [gamma_0, rho gamma_0], rho >= 1
K = sp.Symbol("K", nonnegative=True, integer=True)  # monotone runs of the step sequence
RATIO_STEP_L1_BOUND = (1 + K * (1 - 1 / rho)) / gamma_0
"""T3: ||Delta||_1 <= (1 + K (1 - 1/rho))/gamma_0 for steps in [gamma_0, rho gamma_0] made of K monotone runs."""


# -- a generic box by case split ----------------------------------------------------------------------------
def _box_claims(
    prefix: str,
    what: str,
    low: sp.Expr,
    high: sp.Expr,
    lo_in: sp.Expr,
    hi_in: sp.Expr,
    up: sp.Expr,
    down: sp.Expr,
    forced: tuple[str, str],
) -> tuple[Inequality, ...]:
    """Induction step of ``x_t in [low, high] => x_{t+1} in [low, high]``, by the three regions of x_t.

    On [low, lo_in] the update is forced to move up by ``up``, on [hi_in, high] forced down by ``down``,
    inside [lo_in, hi_in] it moves either way. ``forced`` names why the move is forced (for descriptions).
    """
    w = _unit(f"w_{prefix}")  # position of x_t inside its region, [0, 1)
    regions = (
        ("forced_up", low + (lo_in - low) * w, ((up, "up"),), forced[0]),
        ("free", lo_in + (hi_in - lo_in) * w, ((up, "up"), (-down, "down")), "either move"),
        ("forced_down", hi_in + (high - hi_in) * w, ((-down, "down"),), forced[1]),
    )
    claims = []
    for region, x, moves, why in regions:
        for move, label in moves:
            for side, rel, bound in (("lower", ">=", low), ("upper", "<=", high)):
                claims.append(
                    Inequality(
                        f"{prefix}_box_{side}_{region}_{label}",
                        lhs=x + move,
                        rhs=bound,
                        relation=rel,
                        description=f"{what}: x_t in [{sp.sstr(low)}, {sp.sstr(high)}] stays there ({side} end) when "
                        f"x_t lies in the {region.replace('_', ' ')} region ({why}) and moves {label}",
                    )
                )
    return tuple(claims)


# -- T1: ACI ---------------------------------------------------------------------------------------------------
_v = sp.Symbol("v_excess", nonnegative=True)
ACI_RULE_CLAIMS = (
    Inequality(
        "aci_rule_infinite_threshold_when_alpha_t_nonpositive",
        lhs=(1 + _v) * (n + 1),
        rhs=n,
        relation=">",
        description="alpha_t = -v <= 0: the order-statistic index ceil((1 - alpha_t)(n + 1)) > n, so q_t = +oo "
        "and err_t = 0 (the forced move up of the box)",
    ),
    Inequality(
        "aci_rule_no_order_statistic_when_alpha_t_at_least_one",
        lhs=(1 - (1 + _v)) * (n + 1),
        rhs=0,
        relation="<=",
        description="alpha_t = 1 + v >= 1: (1 - alpha_t)(n + 1) <= 0, no order statistic: the set is empty "
        "and err_t = 1 (the forced move down of the box)",
    ),
)
ACI_BOX_CLAIMS = _box_claims(
    "aci",
    "T1 ACI, constant step gamma",
    low=-gamma,
    high=1 + gamma,
    lo_in=sp.Integer(0),
    hi_in=sp.Integer(1),
    up=gamma * ALPHA,
    down=gamma * (1 - ALPHA),
    forced=("alpha_t <= 0: q_t = +oo, err_t = 0", "alpha_t >= 1: empty set, err_t = 1"),
)
_aci = alpha_path([gamma] * HORIZON)
ACI_TELESCOPING = Identity(
    "aci_telescoping_T6",
    lhs=miscoverage_sum(),
    rhs=(_aci[-1] - _aci[0]) / gamma,
    domain={**ERR_DOMAIN, **UNIT_DOMAIN},
    description="T1: sum_{t<=6} (alpha - err_t) = (alpha_7 - alpha_1)/gamma along ACI's recursion, "
    "symbolic err_t in {0, 1}",
)
ACI_MEAN = Identity(
    "aci_mean_miscoverage_T6",
    lhs=sp.Add(*ERR) / HORIZON - alpha,
    rhs=(_aci[0] - _aci[-1]) / (HORIZON * gamma),
    domain={**ERR_DOMAIN, **UNIT_DOMAIN},
    description="T1: mean_{t<=6} err_t - alpha = (alpha_1 - alpha_7)/(6 gamma)",
)
_a_end = -gamma + (1 + 2 * gamma) * _unit("w_end")  # alpha_{T+1} in the box [-gamma, 1 + gamma)
_a_start = _unit("w_start")  # alpha_1 in [0, 1)
ACI_LONG_RUN = (
    Inequality(
        "aci_long_run_upper",
        lhs=(_a_start - _a_end) / (gamma * T),
        rhs=(_a_start + gamma) / (gamma * T),
        description="T1: mean err - alpha = (alpha_1 - alpha_{T+1})/(gamma T) <= (alpha_1 + gamma)/(gamma T), "
        "alpha_{T+1} in the box, alpha_1 in [0, 1]",
    ),
    Inequality(
        "aci_long_run_lower",
        lhs=(_a_start - _a_end) / (gamma * T),
        rhs=-(1 - _a_start + gamma) / (gamma * T),
        relation=">=",
        description="T1: mean err - alpha >= -(1 - alpha_1 + gamma)/(gamma T); with the upper side, "
        "|mean err - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma)/(gamma T) = ACI_LONG_RUN_BOUND",
    ),
)
_clip = lambda x: sp.Min(1, sp.Max(0, x))
_clipped = [alpha_1]
for _e in ERR[:3]:
    _clipped.append(_clip(_clipped[-1] + gamma * (alpha - _e)))
ACI_CLIPPED_DOES_NOT_TELESCOPE = Identity(
    "expected_refuted_clipped_aci_telescopes",
    lhs=miscoverage_sum(ERR[:3]),
    rhs=(_clipped[-1] - alpha_1) / gamma,
    domain={**ERR_DOMAIN, **UNIT_DOMAIN},
    expect="refuted",
    description="deliberately false, expected verdict 'refuted': with alpha_t clipped to [0, 1] after each update "
    "(MAPIE, salesforce FACI) the telescoping identity fails (T = 3), so the long-run bound is lost; "
    "this is why our alpha_t is never clipped",
)
ACI_CLAIMS: tuple[Claim, ...] = (
    *ACI_RULE_CLAIMS,
    *ACI_BOX_CLAIMS,
    ACI_TELESCOPING,
    ACI_MEAN,
    *ACI_LONG_RUN,
    ACI_CLIPPED_DOES_NOT_TELESCOPE,
)

# -- T2: any positive step sequence -----------------------------------------------------------------------------
_xs = sp.symbols(f"x_1:{HORIZON + 2}", real=True)
_deltas = step_differences(GAMMAS)
ABEL_SUMMATION = Identity(
    "abel_summation_T6",
    lhs=sp.Add(*((_xs[t + 1] - _xs[t]) / GAMMAS[t] for t in range(HORIZON))),
    rhs=sp.Add(*(_deltas[s] * (_xs[HORIZON] - _xs[s]) for s in range(HORIZON))),
    description="Abel summation: sum_t (x_{t+1} - x_t)/gamma_t = sum_s Delta_s (x_{T+1} - x_s) for any reals x "
    "(T = 6, Delta_1 = 1/gamma_1, Delta_t = 1/gamma_t - 1/gamma_{t-1})",
)
_path2 = alpha_path(GAMMAS)
STEP_SEQUENCE_IDENTITY = Identity(
    "step_sequence_identity_T6",
    lhs=miscoverage_sum(),
    rhs=sp.Add(*(_deltas[s] * (_path2[HORIZON] - _path2[s]) for s in range(HORIZON))),
    domain={**ERR_DOMAIN, **UNIT_DOMAIN},
    description="T2: along alpha_{t+1} = alpha_t + gamma_t (alpha - err_t), sum_{t<=6} (alpha - err_t) = "
    "sum_s Delta_s (alpha_7 - alpha_s), symbolic gamma_t > 0 and err_t in {0, 1}",
)
_g_t = gamma_max * _unit("w_step", positive=True)  # a step in (0, gamma_max)
STEP_BOX_CLAIMS = _box_claims(
    "steps",
    "T2 any steps 0 < gamma_t <= gamma_max",
    low=-gamma_max * (1 - ALPHA),
    high=1 + gamma_max * ALPHA,
    lo_in=sp.Integer(0),
    hi_in=sp.Integer(1),
    up=_g_t * ALPHA,
    down=_g_t * (1 - ALPHA),
    forced=("alpha_t <= 0: q_t = +oo, err_t = 0", "alpha_t >= 1: empty set, err_t = 1"),
)
_box_low, _box_high = -gamma_max * (1 - ALPHA), 1 + gamma_max * ALPHA
_in_box = lambda name: _box_low + (_box_high - _box_low) * _unit(name)
_d = sp.Symbol("d_delta", nonnegative=True)
_x_term = (1 + gamma_max) * (2 * _unit("w_term") - 1)  # |x| <= 1 + gamma_max
STEP_TERM_CLAIMS = (
    Inequality(
        "box_width_upper",
        lhs=_in_box("w_a") - _in_box("w_b"),
        rhs=1 + gamma_max,
        description="T2: two points of the box [-gamma_max (1 - alpha), 1 + gamma_max alpha] differ by at most "
        "its width 1 + gamma_max: alpha_{T+1} - alpha_s <= 1 + gamma_max",
    ),
    Inequality(
        "box_width_lower",
        lhs=_in_box("w_a") - _in_box("w_b"),
        rhs=-(1 + gamma_max),
        relation=">=",
        description="T2: alpha_{T+1} - alpha_s >= -(1 + gamma_max)",
    ),
    Inequality(
        "abel_term_bound_nonnegative_delta",
        lhs=_d * _x_term,
        rhs=sp.Abs(_d) * (1 + gamma_max),
        description="T2, one term: Delta_s (alpha_{T+1} - alpha_s) <= |Delta_s| (1 + gamma_max) for Delta_s >= 0; "
        "summed over s (both signs), |sum_t (alpha - err_t)| <= (1 + gamma_max) ||Delta||_1",
    ),
    Inequality(
        "abel_term_bound_negative_delta",
        lhs=-_d * _x_term,
        rhs=sp.Abs(-_d) * (1 + gamma_max),
        description="T2, one term: the same for Delta_s <= 0 (the other sign of -(...) follows by symmetry "
        "x -> -x of the range); hence |mean err - alpha| <= STEP_SEQUENCE_BOUND",
    ),
)
_shrink = sp.symbols(f"d_1:{HORIZON}", nonnegative=True)  # gamma_{t+1} = gamma_t/(1 + d_t): nonincreasing
_nonincreasing = [GAMMAS[0]]
for _dt in _shrink:
    _nonincreasing.append(_nonincreasing[-1] / (1 + _dt))
NONINCREASING_L1 = Identity(
    "nonincreasing_steps_l1_norm_T6",
    lhs=sp.Add(*(sp.Abs(x) for x in step_differences(_nonincreasing))),
    rhs=1 / _nonincreasing[-1],
    description="T2: nonincreasing steps (gamma_{t+1} = gamma_t/(1 + d_t), d_t >= 0) have ||Delta||_1 = 1/gamma_T "
    "(T = 6), so |mean err - alpha| <= (1 + gamma_1)/(gamma_T T)",
)
_eta_t = eta_max * _unit("w_eta", positive=True)
QSPACE_BOX_CLAIMS = _box_claims(
    "qspace",
    "T2 in q-space: q_{t+1} = q_t + eta_t (err_t - alpha), scores in [0, B], 0 < eta_t <= eta_max",
    low=-eta_max * ALPHA,
    high=B + eta_max * (1 - ALPHA),
    lo_in=sp.Integer(0),
    hi_in=B,
    up=_eta_t * (1 - ALPHA),
    down=_eta_t * ALPHA,
    forced=("q_t < 0 <= s_t: err_t = 1", "q_t >= B >= s_t: err_t = 0"),
)
QSPACE_WIDTH = Identity(
    "qspace_box_width",
    lhs=(B + eta_max * (1 - alpha)) - (-eta_max * alpha),
    rhs=B + eta_max,
    description="T2 in q-space: the box has width B + eta_max, which replaces 1 + gamma_max in the bound",
)
STEP_SEQUENCE_CLAIMS: tuple[Claim, ...] = (
    ABEL_SUMMATION,
    STEP_SEQUENCE_IDENTITY,
    *STEP_BOX_CLAIMS,
    *STEP_TERM_CLAIMS,
    NONINCREASING_L1,
    *QSPACE_BOX_CLAIMS,
    QSPACE_WIDTH,
)

# -- T3: PACE's ledger -------------------------------------------------------------------------------------------
_pace = alpha_path(GAMMAS)
_phi = ledger_path(GAMMAS)
LEDGER_IDENTITY = Identity(
    "ledger_identity_T6",
    lhs=miscoverage_sum(),
    rhs=(_pace[-1] - _pace[0] - _phi[-1]) / gamma_0,
    domain={**ERR_DOMAIN, **UNIT_DOMAIN},
    description="T3: sum_{t<=6} (alpha - err_t) = (alpha_7 - alpha_1 - phi_7)/gamma_0 for any steps gamma_t and "
    "symbolic err_t in {0, 1}, phi the ledger with phi_1 = 0",
)
_phi_end = Phi * (2 * _unit("w_phi") - 1)  # |phi_{T+1}| <= Phi
_end2 = _in_box("w_end")  # alpha_{T+1} in T2's box with gamma_max
_mean_gap = (_a_start + _phi_end - _end2) / (gamma_0 * T)  # mean err - alpha by the ledger identity
LEDGER_LONG_RUN = (
    Inequality(
        "ledger_long_run_upper",
        lhs=_mean_gap,
        rhs=(_a_start + gamma_max + Phi) / (gamma_0 * T),
        description="T3: mean err - alpha = (alpha_1 + phi_{T+1} - alpha_{T+1})/(gamma_0 T) <= "
        "(alpha_1 + gamma_max + Phi)/(gamma_0 T), alpha_{T+1} in T2's box, |phi_{T+1}| <= Phi",
    ),
    Inequality(
        "ledger_long_run_lower",
        lhs=_mean_gap,
        rhs=-(1 - _a_start + gamma_max + Phi) / (gamma_0 * T),
        relation=">=",
        description="T3: mean err - alpha >= -(1 - alpha_1 + gamma_max + Phi)/(gamma_0 T); both sides give "
        "|mean err - alpha| <= LEDGER_BOUND",
    ),
)
_phi_t = Phi * (2 * _unit("w_phi_t") - 1)  # the current ledger, |phi_t| <= Phi
_c = _unit("c_fraction")  # the chosen step's fraction of the cap, [0, 1)
_cap_ok = gamma_0 + (Phi - _phi_t) / ALPHA  # err_t = 0: phi rises by (gamma_t - gamma_0) alpha
_cap_miss = gamma_0 + (Phi + _phi_t) / (1 - ALPHA)  # err_t = 1: phi falls by (gamma_t - gamma_0)(1 - alpha)
_next_ok = lambda g: _phi_t + (g - gamma_0) * ALPHA
_next_miss = lambda g: _phi_t - (g - gamma_0) * (1 - ALPHA)
_phi_s = sp.Symbol("phi_t", real=True)
LEDGER_STEP_CLAIMS = (
    Identity(
        "ledger_base_step_keeps_ledger",
        lhs=_phi_s + (gamma_0 - gamma_0) * (alpha - ERR[0]),
        rhs=_phi_s,
        description="T3: gamma_t = gamma_0 leaves phi unchanged, so a step keeping |phi_{t+1}| <= Phi always exists",
    ),
    Identity(
        "ledger_cap_reaches_Phi_after_coverage",
        lhs=_next_ok(_cap_ok),
        rhs=Phi,
        description="T3, err_t = 0: phi_{t+1} rises with gamma_t and reaches Phi exactly at "
        "gamma_t = gamma_0 + (Phi - phi_t)/alpha: the largest step is min(gamma~_t, that cap)",
    ),
    Identity(
        "ledger_cap_reaches_minus_Phi_after_miss",
        lhs=_next_miss(_cap_miss),
        rhs=-Phi,
        description="T3, err_t = 1: phi_{t+1} falls with gamma_t and reaches -Phi exactly at "
        "gamma_t = gamma_0 + (Phi + phi_t)/(1 - alpha)",
    ),
    Inequality(
        "ledger_step_below_cap_upper_after_coverage",
        lhs=_next_ok(gamma_0 + _c * (_cap_ok - gamma_0)),
        rhs=Phi,
        description="T3, err_t = 0: any gamma_t in [gamma_0, cap] keeps phi_{t+1} <= Phi",
    ),
    Inequality(
        "ledger_step_below_cap_lower_after_coverage",
        lhs=_next_ok(gamma_0 + _c * (_cap_ok - gamma_0)),
        rhs=-Phi,
        relation=">=",
        description="T3, err_t = 0: ... and phi_{t+1} >= -Phi",
    ),
    Inequality(
        "ledger_step_below_cap_upper_after_miss",
        lhs=_next_miss(gamma_0 + _c * (_cap_miss - gamma_0)),
        rhs=Phi,
        description="T3, err_t = 1: any gamma_t in [gamma_0, cap] keeps phi_{t+1} <= Phi",
    ),
    Inequality(
        "ledger_step_below_cap_lower_after_miss",
        lhs=_next_miss(gamma_0 + _c * (_cap_miss - gamma_0)),
        rhs=-Phi,
        relation=">=",
        description="T3, err_t = 1: ... and phi_{t+1} >= -Phi",
    ),
)
_gap_h = sp.Symbol("h_range", nonnegative=True)  # gamma_max = gamma_0 + h
_in_steps = lambda name: gamma_0 + _gap_h * _unit(name)
_smoothed = _in_steps("w_prev") + (_in_steps("w_target") - _in_steps("w_prev")) / 20
PACE_STEP_RANGE_CLAIMS = (
    Inequality(
        "pace_smoothed_step_at_least_gamma_0",
        lhs=_smoothed,
        rhs=gamma_0,
        relation=">=",
        description="T3: the decay gamma~_t = gamma~_{t-1} + (gamma* - gamma~_{t-1})/20 of two steps in "
        "[gamma_0, gamma_max] stays >= gamma_0 (so gamma_t in [gamma_0, gamma~_t] is well defined)",
    ),
    Inequality(
        "pace_smoothed_step_at_most_gamma_max",
        lhs=_smoothed,
        rhs=gamma_0 + _gap_h,
        description="T3: ... and <= gamma_max: PACE's steps lie in [gamma_0, rho gamma_0], rho = gamma_max/gamma_0",
    ),
)
_lo_inv, _hi_inv = 1 / (rho * gamma_0), 1 / gamma_0  # 1/gamma_t in [1/(rho gamma_0), 1/gamma_0]
_rho_big = 1 + sp.Symbol("r_excess", nonnegative=True)  # rho >= 1
_inv = lambda name: (_lo_inv + (_hi_inv - _lo_inv) * _unit(name)).subs(rho, _rho_big)
_rise = sp.symbols(f"u_1:{HORIZON}", nonnegative=True)
_run = [sp.Symbol("y_1", real=True)]
for _u in _rise:
    _run.append(_run[-1] + _u)
RATIO_STEP_CLAIMS = (
    Inequality(
        "first_step_weight_at_most_inverse_gamma_0",
        lhs=1 / (gamma_0 + _gap_h),
        rhs=1 / gamma_0,
        description="T3: Delta_1 = 1/gamma_1 <= 1/gamma_0 when gamma_1 >= gamma_0",
    ),
    Identity(
        "monotone_run_variation_T6",
        lhs=sp.Add(*(sp.Abs(_run[t + 1] - _run[t]) for t in range(HORIZON - 1))),
        rhs=_run[-1] - _run[0],
        description="T3: along a monotone run of 1/gamma_t (increments u_t >= 0, T = 6) the variation "
        "sum |Delta_t| telescopes to its end minus its start (a decreasing run: x -> -x)",
    ),
    Inequality(
        "monotone_run_variation_at_most_range",
        lhs=_inv("w_b") - _inv("w_a"),
        rhs=((1 - 1 / rho) / gamma_0).subs(rho, _rho_big),
        description="T3: two values of 1/gamma_t in [1/(rho gamma_0), 1/gamma_0] differ by at most "
        "(1 - 1/rho)/gamma_0; with the first term and one such bound per monotone run, "
        "||Delta||_1 <= (1 + K (1 - 1/rho))/gamma_0 for K runs (RATIO_STEP_L1_BOUND)",
    ),
)
LEDGER_CLAIMS: tuple[Claim, ...] = (
    LEDGER_IDENTITY,
    *LEDGER_LONG_RUN,
    *LEDGER_STEP_CLAIMS,
    *PACE_STEP_RANGE_CLAIMS,
    *RATIO_STEP_CLAIMS,
)

# -- T4: the motivation decomposition ------------------------------------------------------------------------------
F_true, F_hat, F_lag, alpha_t = sp.symbols("F_t Fhat_t F_lagged alpha_t", real=True)
_theta = _unit("theta_ceiling")  # ceil(x) = x + theta, theta in [0, 1)
_alpha_t_in = _unit("w_alpha_t")  # alpha_t in [0, 1), where q_t is an order statistic
_k_over_n = ((1 - _alpha_t_in) * (n + 1) + _theta) / n  # Fhat_t(q_t) = ceil((1 - alpha_t)(n + 1))/n, no ties
_r = sp.Symbol("r_rounds", positive=True, integer=True)
_mean_err = _unit("w_mean_err")  # the mean of err over r rounds, in [0, 1]
DECOMPOSITION_CLAIMS: tuple[Claim, ...] = (
    Identity(
        "coverage_gap_decomposition",
        lhs=(1 - F_true) - alpha,
        rhs=(alpha_t - alpha) + (F_hat - F_true) + (1 - alpha_t - F_hat),
        description="T4: E[err_t | past] - alpha = 1 - F_t(q_t) - alpha = (alpha_t - alpha) [parameter error] + "
        "(Fhat_t - F_t)(q_t) [shift] + (1 - alpha_t - Fhat_t(q_t)) [discretisation]",
    ),
    Identity(
        "shift_term_split",
        lhs=F_hat - F_true,
        rhs=(F_hat - F_lag) + (F_lag - F_true),
        description="T4: (Fhat_t - F_t)(q) = (Fhat_t - F_{t-w})(q) + (F_{t-w} - F_t)(q); by the triangle "
        "inequality and sup over q, |Fhat_t - F_t| <= KS(Fhat_t, F_{t-w}) + KS(F_{t-w}, F_t)",
    ),
    Inequality(
        "discretisation_term_nonpositive",
        lhs=1 - _alpha_t_in - _k_over_n,
        rhs=0,
        description="T4: with no ties Fhat_t(q_t) = ceil((1 - alpha_t)(n + 1))/n, so the discretisation term "
        "1 - alpha_t - Fhat_t(q_t) <= 0 (the empirical quantile is conservative)",
    ),
    Inequality(
        "discretisation_term_above_minus_two_over_n",
        lhs=1 - _alpha_t_in - _k_over_n,
        rhs=-2 / n,
        relation=">=",
        description="T4: ... and >= -2/n: the O(1/n) term of the decomposition",
    ),
    Inequality(
        "speed_limit_upper",
        lhs=_r * gamma * (ALPHA - _mean_err),
        rhs=_r * gamma * ALPHA,
        description="T4: r ACI steps move alpha_t up by at most r gamma alpha (alpha_{t+r} - alpha_t = "
        "r gamma (alpha - mean err)): after a shift the parameter error shrinks at most this fast",
    ),
    Inequality(
        "speed_limit_lower",
        lhs=_r * gamma * (ALPHA - _mean_err),
        rhs=-_r * gamma * (1 - ALPHA),
        relation=">=",
        description="T4: ... and down by at most r gamma (1 - alpha): recovering from a parameter error e takes "
        ">= e/(gamma max(alpha, 1 - alpha)) rounds, the motivation for steps up to gamma_max",
    ),
)


# -- T5: cited results -----------------------------------------------------------------------------------------------
D, m_len, T_real, sigma_mean = sp.symbols("D m T_horizon sigma_mean", positive=True)
eta_term, gamma_min = sp.symbols("eta_term gamma_min", positive=True)
SAOCP_BOUND = 15 * D * sp.sqrt(m_len * (sp.log(T_real) + 1))
ACI_REGRET_ORDER = D**2 / gamma + gamma * T_real
SFOGD_ORDER = alpha**-2 * T_real ** sp.Rational(-1, 4) * sp.log(T_real)
DTACI_BOUND = (
    (1 + 2 * gamma_max) / (T_real * gamma_min)
    + (1 + 2 * gamma_max) ** 2 / gamma_min * eta_term
    + 2 * (1 + gamma_max) / gamma_min * sigma_mean
)
_BHATNAGAR = (
    "Bhatnagar, Wang, Xiong, Bai, 'Improved online conformal prediction via strongly adaptive online "
    "learning', ICML 2023 (as transcribed from the paper's related work; reviewed by Susmann, Chambaz, Josse 2024, "
    "Computo)"
)
_GIBBS_CANDES = (
    "Gibbs & Candes, 'Conformal inference for online prediction with arbitrary distribution shifts', "
    "JMLR 2024 (DtACI; as transcribed from the paper's related work; reviewed by Susmann, Chambaz, Josse 2024)"
)
_TRANSCRIPTION_DOMAIN = {T_real: (2, None), m_len: (1, None), alpha: (0, 1)}
_optimal_gamma = D / sp.sqrt(T_real)
_sqrt_T = sp.Symbol("sqrt_T", positive=True)
CITED_CLAIMS: tuple[Claim, ...] = (
    Cited(
        "saocp_strongly_adaptive_regret",
        quantity="SAReg(T, m) of SAOCP (pinball loss, scores in [0, D])",
        bound=SAOCP_BOUND,
        source=_BHATNAGAR,
        domain=_TRANSCRIPTION_DOMAIN,
        description="T5 cited: SAOCP's strongly adaptive regret over every interval of length m is at most "
        "15 D sqrt(m (ln T + 1))",
    ),
    Cited(
        "aci_pinball_regret_order",
        quantity="Reg(T) of ACI (OGD on the pinball loss, constant step gamma), up to constants",
        bound=ACI_REGRET_ORDER,
        source=_BHATNAGAR,
        domain=_TRANSCRIPTION_DOMAIN,
        description="T5 cited: ACI's regret is O(D^2/gamma + gamma T)",
    ),
    Cited(
        "sfogd_coverage_error_order",
        quantity="|CovErr(T)| of SF-OGD, up to constants",
        bound=SFOGD_ORDER,
        source=_BHATNAGAR,
        domain=_TRANSCRIPTION_DOMAIN,
        description="T5 cited: SF-OGD's long-run coverage error is O(alpha^-2 T^-1/4 ln T)",
    ),
    Cited(
        "dtaci_coverage_error",
        quantity="|CovErr(T)| of DtACI (experts gamma_min..gamma_max)",
        bound=DTACI_BOUND,
        source=_GIBBS_CANDES,
        domain=_TRANSCRIPTION_DOMAIN,
        description="T5 cited: |CovErr| <= (1 + 2 gamma_max)/(T gamma_min) + (1 + 2 gamma_max)^2/gamma_min "
        "mean(eta_t e^{eta_t (1 + 2 gamma_max)}) + 2 (1 + gamma_max)/gamma_min mean(sigma_t); "
        "eta_term = mean(eta_t e^{eta_t (1 + 2 gamma_max)}), sigma_mean = mean(sigma_t)",
    ),
    # what sympy does prove about the transcriptions
    Limit(
        "saocp_average_regret_vanishes",
        expr=SAOCP_BOUND.subs(m_len, T_real) / (D * T_real),
        var=T_real,
        point=sp.oo,
        value=0,
        description="T5 consequence: over the whole horizon (m = T) SAOCP's bound / (D T) -> 0 "
        "(vanishing average regret)",
    ),
    Asymptotic(
        "saocp_regret_order_sqrt_m_log_T",
        f=SAOCP_BOUND.subs(m_len, T_real),
        g=sp.sqrt(T_real * sp.log(T_real)),
        var=T_real,
        order="Theta",
        description="T5 consequence: SAOCP's bound at m = T is Theta(sqrt(T ln T))",
    ),
    Inequality(
        "aci_regret_at_least_tuned_value",
        lhs=ACI_REGRET_ORDER.subs(T_real, _sqrt_T**2),
        rhs=2 * D * _sqrt_T,
        relation=">=",
        description="T5 consequence: D^2/gamma + gamma T >= 2 D sqrt(T) for every gamma > 0 (AM-GM; stated with "
        "T = sqrt_T^2): a constant step gives linear regret unless gamma ~ D/sqrt(T)",
    ),
    Identity(
        "aci_regret_tuned_step",
        lhs=ACI_REGRET_ORDER.subs(gamma, _optimal_gamma),
        rhs=2 * D * sp.sqrt(T_real),
        description="T5 consequence: gamma = D/sqrt(T) attains 2 D sqrt(T)",
    ),
    Limit(
        "sfogd_coverage_error_vanishes",
        expr=SFOGD_ORDER,
        var=T_real,
        point=sp.oo,
        value=0,
        description="T5 consequence: SF-OGD's coverage-error order tends to 0 for fixed alpha",
    ),
    Identity(
        "dtaci_reduces_without_learning_rate_and_mixing",
        lhs=DTACI_BOUND.subs({eta_term: 0, sigma_mean: 0}),
        rhs=(1 + 2 * gamma_max) / (T_real * gamma_min),
        description="T5 consequence: with eta_t = sigma_t = 0 the DtACI bound is the ACI-type "
        "(1 + 2 gamma_max)/(T gamma_min)",
    ),
)

# -- DtACI's experts and SF-OGD: Abel summation against moving weights -------------------------------------------
_P = sp.symbols(f"p_1:{HORIZON + 1}", positive=True)  # one expert's weight at rounds 1..T
_W = sp.symbols(f"w_1:{HORIZON + 1}", positive=True)  # SF-OGD's 1/eta_t
_Q = sp.symbols(f"q_1:{HORIZON + 2}", nonnegative=True)  # SF-OGD's thresholds q_1..q_{T+1}


def abel(weights: Sequence[Any], path: Sequence[Any]) -> sp.Expr:
    """w_T x_{T+1} - w_1 x_1 - sum_{t=2}^T (w_t - w_{t-1}) x_t, the Abel form of sum_t w_t (x_{t+1} - x_t)."""
    T_ = len(weights)
    return (
        weights[-1] * path[T_]
        - weights[0] * path[0]
        - sp.Add(*((weights[t] - weights[t - 1]) * path[t] for t in range(1, T_)))
    )


_expert = alpha_path([gamma] * HORIZON)
_g, _D = sp.symbols("g D", positive=True)
_h = sp.Symbol("h", nonnegative=True)
DTACI_EXPERT_CLAIMS: tuple[Claim, ...] = (
    Identity(
        "dtaci_expert_weighted_abel",
        lhs=sp.Add(*(_P[t] * (alpha - ERR[t]) for t in range(HORIZON))),
        rhs=abel(_P, _expert) / gamma,
        description="pace.dtaci_experts: an ACI expert's weighted miss sum_t p_t (alpha - err_t) is, by Abel "
        "summation, (p_T a_{T+1} - p_1 a_1 - sum_t (p_t - p_{t-1}) a_t)/gamma (T = 6); with a_t in "
        "[-gamma, 1 + gamma] and the weights summing to 1 this gives the bound",
    ),
)
SFOGD_CLAIMS: tuple[Claim, ...] = (
    Identity(
        "sfogd_abel",
        lhs=sp.Add(*(_W[t] * (_Q[t + 1] - _Q[t]) for t in range(HORIZON))),
        rhs=abel(_W, _Q),
        description="pace.sfogd_long_run: sum_t (q_{t+1} - q_t)/eta_t in Abel form (T = 6); with 1/eta_t "
        "increasing and q_t in [0, B + D] it lies in [-Q/eta_T, Q/eta_T]",
    ),
    Inequality(
        "sfogd_step_at_most_D",
        lhs=(_D * _g) ** 2 / (_g**2 + _h),
        rhs=_D**2,
        relation="<=",
        description="pace.sfogd_long_run: one step moves q by D |g_t|/sqrt(G_t), whose square D^2 g_t^2/(g_t^2 "
        "+ h) is at most D^2 (G_t = g_t^2 + h, h >= 0 the earlier squared gradients), so q stays below the "
        "largest score plus D",
    ),
)

ALL_CLAIMS: tuple[Claim, ...] = (
    *ACI_CLAIMS,
    *STEP_SEQUENCE_CLAIMS,
    *LEDGER_CLAIMS,
    *DECOMPOSITION_CLAIMS,
    *CITED_CLAIMS,
    *DTACI_EXPERT_CLAIMS,
    *SFOGD_CLAIMS,
)

__all__ = [
    "ACI_CLAIMS",
    "ACI_LONG_RUN_BOUND",
    "ALL_CLAIMS",
    "CITED_CLAIMS",
    "Cited",
    "DECOMPOSITION_CLAIMS",
    "DTACI_EXPERT_CLAIMS",
    "HORIZON",
    "LEDGER_BOUND",
    "LEDGER_CLAIMS",
    "RATIO_STEP_L1_BOUND",
    "STEP_SEQUENCE_BOUND",
    "SFOGD_CLAIMS",
    "STEP_SEQUENCE_CLAIMS",
    "alpha_path",
    "ledger_path",
    "miscoverage_sum",
    "step_differences",
]
