"""Coverage metrics of a run and the per-round quantities its bounds are evaluated at (pure numpy).

Rounds are the updated ones (burn_in..N-1), counted n = 1, 2, ... from the first of them: the bounds'
T is n, so every prefix of a run is held against them.
"""

from __future__ import annotations

import numpy as np

LOCAL_WINDOW = 100
LOCAL_TOLERANCE = 0.05
POST_SHIFT_ROUNDS = 300


def running_gap(err: np.ndarray, alpha: float) -> np.ndarray:
    """|mean(err_1..err_n) - alpha| for every prefix n."""
    n = np.arange(1, err.size + 1)
    return np.abs(np.cumsum(err, dtype=float) / n - alpha)


def step_variation(steps: np.ndarray) -> np.ndarray:
    """||Delta||_1 of every prefix: Delta_1 = 1/gamma_1, Delta_t = 1/gamma_t - 1/gamma_{t-1} (inf at a step <= 0)."""
    with np.errstate(divide="ignore"):
        inv = np.where(steps > 0, 1.0 / np.where(steps > 0, steps, 1.0), np.inf)
    delta = np.abs(np.diff(inv, prepend=0.0))
    return np.cumsum(delta)


def certificate_columns(
    method_space: str, steps: np.ndarray, scores: np.ndarray, burn_in: int
) -> dict[str, np.ndarray]:
    """``gamma_max`` (running max step), ``delta_l1`` (running ||Delta||_1) and ``box_width``:

    alpha space: 1 + gamma_max (alpha_t stays in [-gamma_max (1 - alpha), 1 + gamma_max alpha]);
    score space: B_hi - B_lo + eta_max, with B_lo/B_hi the running min/max of every score so far (the
    calibration scores included, so q_1 lies inside), q_t staying in [B_lo - eta_max alpha, B_hi + eta_max (1 - alpha)].
    """
    gamma_max = np.maximum.accumulate(steps)
    delta_l1 = step_variation(steps)
    if method_space == "alpha":
        box = 1.0 + gamma_max
    else:
        lo = np.minimum.accumulate(scores)[burn_in:]
        hi = np.maximum.accumulate(scores)[burn_in:]
        box = hi - lo + gamma_max
    return {"gamma_max": gamma_max, "delta_l1": delta_l1, "box_width": box}


def forward_local(err: np.ndarray, window: int = LOCAL_WINDOW) -> np.ndarray:
    """m_t = mean(err_t .. err_{t+window-1}) for every t with a full window."""
    if err.size < window:
        return np.zeros(0)
    c = np.concatenate([[0.0], np.cumsum(err, dtype=float)])
    return (c[window:] - c[:-window]) / window


def recovery_times(
    err: np.ndarray,
    alpha: float,
    change_points,
    window: int = LOCAL_WINDOW,
    tolerance: float = LOCAL_TOLERANCE,
) -> list[tuple[int, int, bool]]:
    """Per change point tau (round index into ``err``): (tau, r, censored), r = min r >= 0 with
    |m_{tau+r} - alpha| <= tolerance; when no window after tau qualifies, r = the number of window starts
    after tau and censored = True."""
    local = forward_local(err, window)
    out = []
    for tau in change_points:
        after = np.abs(local[tau:] - alpha) <= tolerance if tau < local.size else np.zeros(0, bool)
        hits = np.flatnonzero(after)
        if hits.size:
            out.append((int(tau), int(hits[0]), False))
        else:
            out.append((int(tau), int(after.size), True))
    return out


def post_shift_deviation(
    err: np.ndarray, alpha: float, change_points, rounds: int = POST_SHIFT_ROUNDS, window: int = LOCAL_WINDOW
) -> float:
    """Mean over change points of mean_{t in [tau, tau + rounds)} |m_t - alpha| (nan without change points)."""
    local = forward_local(err, window)
    devs = [np.mean(np.abs(local[tau : tau + rounds] - alpha)) for tau in change_points if tau < local.size]
    return float(np.mean(devs)) if devs else float("nan")


def trailing_post_shift_deviation(
    err: np.ndarray, alpha: float, change_points, rounds: int = POST_SHIFT_ROUNDS, window: int = LOCAL_WINDOW
) -> float:
    """Mean over change points of mean_{t in [tau, tau + rounds)} |mean(err_{t-window+1} .. err_t) - alpha|:
    local coverage looking back over the rounds just played (a window is clipped at the start of the run);
    nan without change points."""
    c = np.concatenate([[0.0], np.cumsum(err, dtype=float)])
    devs = []
    for tau in change_points:
        if tau >= err.size:
            continue
        t = np.arange(tau, min(tau + rounds, err.size))
        start = np.maximum(t - window + 1, 0)
        devs.append(np.mean(np.abs((c[t + 1] - c[start]) / (t + 1 - start) - alpha)))
    return float(np.mean(devs)) if devs else float("nan")


def violation_rate(
    err: np.ndarray, alpha: float, window: int = LOCAL_WINDOW, tolerance: float = LOCAL_TOLERANCE
) -> float:
    local = forward_local(err, window)
    return float(np.mean(np.abs(local - alpha) > tolerance)) if local.size else float("nan")
