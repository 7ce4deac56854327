"""The numeric bounds every pace run is held against, row by row (every prefix of the run, T = n_rounds).

The symbolic claims behind them (sympy identities for T = 6, box bounds) live in toolkit_pace.theory and are
attached to these specs as ``claims``.

* ``pace.aci_long_run`` (T1, Gibbs-Candes Prop. 4.1): ACI's alpha_t stays in [-gamma, 1 + gamma] and
  sum_t (alpha - err_t) = (alpha_{T+1} - alpha_1)/gamma, so |mean err - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma)/(gamma T).
* ``pace.step_sequence`` (T2, Abel summation, any positive steps): |mean err - alpha| <= box_width ||Delta||_1 / T
  with Delta_1 = 1/gamma_1, Delta_t = 1/gamma_t - 1/gamma_{t-1}; box_width = 1 + gamma_max in alpha space (ACI,
  PACE), B_hi - B_lo + eta_max in score space (quantile tracking, decaying steps; scores in [B_lo, B_hi]).
* ``pace.ledger`` (T3, PACE [R]): sum_t (alpha - err_t) = (alpha_{T+1} - alpha_1 - phi_{T+1})/gamma_0 with
  |phi| <= Phi, so |mean err - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma_max + Phi)/(gamma_0 T).

* ``pace.dtaci_experts`` (DtACI, derived here by Abel summation over the experts' weights): every ACI expert
  k stays in [-gamma_k, 1 + gamma_k], so the weighted experts' miss (the miscoverage of a draw from the
  experts, as in Gibbs-Candes's randomised DtACI) obeys |mean_t sum_k p_tk err_tk - alpha| <=
  (1 + 2 gamma_min)/(2 gamma_min) (2 + V)/T, V = sum_{t<T} ||p_{t+1} - p_t||_1, for any scores.
* ``pace.sfogd_long_run`` (SF-OGD, derived here): q_{t+1} = max(0, q_t + eta_t (err_t - alpha)), eta_t =
  D/sqrt(G_t), stays in [0, B + D] (B the largest score so far), so Abel summation with the increasing
  1/eta_t <= max(alpha, 1 - alpha) sqrt(warm + T)/D gives |mean err - alpha| <= (max(alpha, 1 - alpha)
  sqrt(warm + T) (B + D)/D + alpha P)/T, P the rounds where a tie or the floor at 0 changed the step.

Zero tolerance: the slack 1e-12 only absorbs float rounding of the running mean.
"""

from __future__ import annotations

import sympy as sp

from toolkit import Bound
from toolkit_pace import theory

ROUNDING = 1e-12

alpha_1, gamma0, n_rounds = sp.symbols("alpha_1 gamma0 n_rounds", positive=True)
gamma_max, delta_l1, box_width, phi_cap = sp.symbols("gamma_max delta_l1 box_width phi_cap", positive=True)

gamma_min, weight_variation = sp.symbols("gamma_min weight_variation", positive=True)
score_max, sf_scale, warm_steps, floor_rounds = sp.symbols(
    "score_max sf_scale warm_steps floor_rounds", nonnegative=True
)

ACI_LONG_RUN = (sp.Max(alpha_1, 1 - alpha_1) + gamma0) / (gamma0 * n_rounds)
DTACI_EXPERTS = (1 + 2 * gamma_min) / (2 * gamma_min) * (2 + weight_variation) / n_rounds
SFOGD_LONG_RUN = (
    sp.Max(alpha_1, 1 - alpha_1) * sp.sqrt(warm_steps + n_rounds) * (score_max + sf_scale) / sf_scale
    + alpha_1 * floor_rounds
) / n_rounds
_sfogd_value = sp.lambdify(
    (alpha_1, warm_steps, n_rounds, score_max, sf_scale, floor_rounds), SFOGD_LONG_RUN, modules="math"
)


def _sfogd_bound(row) -> float:
    # D = 0 (every warm-up score 0): SF-OGD never moves and the bound says nothing (+inf)
    if not float(row["sf_scale"]) > 0:
        return float("inf")
    return float(
        _sfogd_value(
            *(
                float(row[k])
                for k in ("alpha_1", "warm_steps", "n_rounds", "score_max", "sf_scale", "floor_rounds")
            )
        )
    )


STEP_SEQUENCE = box_width * delta_l1 / n_rounds
LEDGER = (sp.Max(alpha_1, 1 - alpha_1) + gamma_max + phi_cap) / (gamma0 * n_rounds)

_ALPHA = (0, 1)
_ROUNDS = (1, None)


def _is(*methods):
    names = frozenset(methods)

    def applies(row) -> bool:
        return row.get("method") in names

    applies.__doc__ = f"rows of method(s) {', '.join(sorted(names))}"
    return applies


def _pid_bound(row) -> float:
    from toolkit_pace.methods import pid_integrator_bound

    return pid_integrator_bound(int(row["n_rounds"]), float(row["alpha_1"]), float(row["c_sat"]))


BOUNDS = [
    Bound(
        "pace.aci_long_run",
        "T1 (Gibbs-Candes Prop 4.1): ACI's running |mean err - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma)/(gamma T)",
        expression=ACI_LONG_RUN,
        metric="coverage_gap",
        sense="upper",
        slack=ROUNDING,
        applies=_is("aci"),
        claims=theory.ACI_CLAIMS,
        domain={alpha_1: _ALPHA, gamma0: (1e-6, 1), n_rounds: _ROUNDS},
    ),
    Bound(
        "pace.step_sequence",
        "T2 (Abel summation): any positive steps give |mean err - alpha| <= box_width ||Delta||_1 / T "
        "(ACI, PACE in alpha space; quantile tracking, decaying steps in score space)",
        expression=STEP_SEQUENCE,
        metric="coverage_gap",
        sense="upper",
        slack=ROUNDING,
        applies=_is("aci", "pace", "quantile_tracking", "decaying"),
        claims=theory.STEP_SEQUENCE_CLAIMS,
        domain={box_width: (1, 100), delta_l1: (1, 1e6), n_rounds: _ROUNDS},
    ),
    Bound(
        "pace.ledger",
        "T3 (PACE ledger [R]): |mean err - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma_max + Phi)/(gamma_0 T)",
        expression=LEDGER,
        metric="coverage_gap",
        sense="upper",
        slack=ROUNDING,
        applies=_is("pace"),
        claims=theory.LEDGER_CLAIMS,
        domain={
            alpha_1: _ALPHA,
            gamma0: (1e-6, 1),
            gamma_max: (1e-6, 1),
            phi_cap: (0, 10),
            n_rounds: _ROUNDS,
        },
    ),
    Bound(
        "pace.pid_integrator",
        "conformal PID: the tan-saturated integrator caps |sum (err - alpha)|, so |mean err - alpha| <= "
        "max(2m, (pi/2) C_sat max(2/ln 2, (T-1)/ln(T-1)) + m)/T, m = max(alpha, 1 - alpha), for any scores",
        expression=_pid_bound,
        metric="coverage_gap",
        sense="upper",
        slack=ROUNDING,
        applies=_is("pid"),
    ),
    Bound(
        "pace.dtaci_experts",
        "DtACI (derived): the experts' weighted miss obeys |mean_t sum_k p_tk err_tk - alpha| <= "
        "(1 + 2 gamma_min)/(2 gamma_min) (2 + V)/T, V the weights' total variation, for any scores; the "
        "averaged alpha_t's own miscoverage has no finite-sample bound",
        expression=DTACI_EXPERTS,
        metric="expert_gap",
        sense="upper",
        slack=ROUNDING,
        applies=_is("dtaci"),
        claims=theory.DTACI_EXPERT_CLAIMS,
        domain={gamma_min: (1e-6, 1), weight_variation: (0, None), n_rounds: _ROUNDS},
    ),
    Bound(
        "pace.sfogd_long_run",
        "SF-OGD (derived): |mean err - alpha| <= (max(alpha, 1 - alpha) sqrt(warm + T) (B + D)/D + alpha P)/T, "
        "B the largest score so far, D the warm-up scale, P the rounds where a tie or the floor at 0 acted",
        expression=_sfogd_bound,
        metric="coverage_gap",
        sense="upper",
        slack=ROUNDING,
        applies=_is("sfogd"),
        claims=theory.SFOGD_CLAIMS,
    ),
    Bound(
        "pace.motivation",
        "T4 (PACE's motivation [R]): E[err_t | past] - alpha = (alpha_t - alpha) + (Fhat_t - F_t)(q_t) + O(1/n), the "
        "shift term split by the triangle inequality over KS distances (symbolic only)",
        claims=theory.DECOMPOSITION_CLAIMS,
    ),
    Bound(
        "pace.cited",
        "T5: the regret and coverage bounds of SAOCP, ACI, SF-OGD and DtACI transcribed with their sources (not "
        "derived: verdict 'unknown' by design), and what sympy proves about the transcriptions",
        claims=theory.CITED_CLAIMS,
    ),
]
