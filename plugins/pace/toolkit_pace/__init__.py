"""pace: online conformal inference under shift, PACE (ICML 2026, reconstructed from its abstract) and the
methods it builds on (ACI, quantile tracking, conformal PID, decaying steps, DtACI, AgACI, SF-OGD, SAOCP).

Hook implementations only: each list of specs is imported the first time one of its names is used.
"""

from __future__ import annotations

from toolkit import defer

toolkit_register_simulations = defer(
    "toolkit_pace.simulation:SIMULATIONS",
    {
        "pace.stream": "one score stream under one online conformal method: per-round threshold, err, alpha_t, step, width",
        "pace.recovery": "recovery time and post-shift deviation after each change point of a stream",
        "pace.factuality": "LLM factuality: retained claims vs coverage per round (claims kept when confidence > q_t)",
    },
)

toolkit_register_bounds = defer(
    "toolkit_pace.bounds:BOUNDS",
    {
        "pace.aci_long_run": "T1 (Gibbs-Candes Prop 4.1): ACI's running |mean err - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma)/(gamma T)",
        "pace.step_sequence": "T2 (Abel summation): any positive steps give |mean err - alpha| <= box_width ||Delta||_1 / T "
        "(ACI, PACE in alpha space; quantile tracking, decaying steps in score space)",
        "pace.ledger": "T3 (PACE ledger [R]): |mean err - alpha| <= (max(alpha_1, 1 - alpha_1) + gamma_max + Phi)/(gamma_0 T)",
        "pace.pid_integrator": "conformal PID: the tan-saturated integrator caps |sum (err - alpha)|, so |mean err - alpha| <= max(2m, (pi/2) C_sat max(2/ln 2, (T-1)/ln(T-1)) + m)/T, m = max(alpha, 1 - alpha), for any scores",
        "pace.dtaci_experts": "DtACI (derived): the experts' weighted miss obeys |mean_t sum_k p_tk err_tk - alpha| <= "
        "(1 + 2 gamma_min)/(2 gamma_min) (2 + V)/T, V the weights' total variation, for any scores; the "
        "averaged alpha_t's own miscoverage has no finite-sample bound",
        "pace.sfogd_long_run": "SF-OGD (derived): |mean err - alpha| <= (max(alpha, 1 - alpha) sqrt(warm + T) (B + D)/D + alpha P)/T, "
        "B the largest score so far, D the warm-up scale, P the rounds where a tie or the floor at 0 acted",
        "pace.motivation": "T4 (PACE's motivation [R]): E[err_t | past] - alpha = (alpha_t - alpha) + (Fhat_t - F_t)(q_t) + "
        "O(1/n), the shift term split by the triangle inequality over KS distances (symbolic only)",
        "pace.cited": "T5: the regret and coverage bounds of SAOCP, ACI, SF-OGD and DtACI transcribed with their sources (not "
        "derived: verdict 'unknown' by design), and what sympy proves about the transcriptions",
    },
)

toolkit_register_datasets = defer(
    "toolkit_pace.data:DATASETS",
    {
        "pace.synthetic": "synthetic score streams |mu_t + sigma_t Z| with planted shifts (1-D array)",
        "pace.statsmodels": "statsmodels series (co2, elnino, sunspots, inflation, nile) as |y - rolling AR(3) "
        "forecast| (1-D array)",
        "pace.llm_factuality": "simulated LLM factuality scores: the largest confidence of a false claim per "
        "round (1-D array)",
    },
)

toolkit_register_experiments = defer(
    "toolkit_pace.experiments:EXPERIMENTS",
    {
        "pace.g1_bounds": "G1: every run of ACI, PACE, quantile tracking, decaying steps within its bounds "
        "(T1, T2, T3) at every prefix",
        "pace.g2_exchangeable": "G2: without shift PACE behaves like ACI (violation rate, width, steps at gamma_0)",
        "pace.g3_g4_shift": "G3-G4: recovery time and post-shift deviation of PACE vs ACI (DtACI beside)",
        "pace.g5_long_run": "G5: PACE's long-run deviation, abstention and retained LLM claims",
    },
)
