"""Online conformal methods with one interface: emit a threshold, observe a score, update.

Every method is a class with ``threshold()`` (q_t for the coming score) and ``update(score)`` (returns
err_t = 1{score > q_t} and updates the state); the batch functions (``aci``, ``pace``...) run a class
(or, for ACI and PACE, the identical compiled kernel of :mod:`toolkit_pace.kernels`) over a numpy
array of scores and return a :class:`Trace`.

Conventions shared by all methods (the reference section 1):

* the stream is ``scores[0..N-1]``; rounds ``0..burn_in-1`` only fill the calibration window (and warm
  SF-OGD/SAOCP up, as salesforce's package does with its calibration residuals); rounds
  ``burn_in..N-1`` are predicted and updated, and a Trace holds one entry per such round;
* the calibration set of round t is the last ``calibration_window`` scores before t (W_cal);
* quantile rule: with the n calibration scores sorted, q_t = the k-th smallest with
  k = ceil((1 - alpha_t)(n + 1)) (float64, as written); q_t = +inf when alpha_t <= 0 or k > n;
  q_t = -inf (the empty set: an error whatever the score) when alpha_t >= 1;
* err_t = 1{s_t > q_t}; alpha_t is never clipped (clipping, as MAPIE and salesforce's FACI do, breaks
  the telescoping sums the bounds rest on).

alpha-space methods (``aci``, ``dtaci``, ``agaci``'s experts, ``pace``) move alpha_t; score-space
methods (``quantile_tracking``, ``decaying``, ``pid``, ``sfogd``, ``saocp``) move q_t directly and
report ``alpha_t = nan``. ``gamma_t`` is the step used by round t's update (eta_t in score space;
DtACI: the weighted mean of its experts' steps; SF-OGD/SAOCP: nan).
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from toolkit_pace.window import CalibrationWindow, ks_statistic

METHOD_NAMES = ("aci", "quantile_tracking", "pid", "decaying", "dtaci", "agaci", "sfogd", "saocp", "pace")
ALPHA_SPACE = frozenset({"aci", "pace"})
"""Methods whose update is alpha_{t+1} = alpha_t + gamma_t (alpha - err_t): held against T2 (and T1/T3)."""
SCORE_SPACE_STEP = frozenset({"quantile_tracking", "decaying"})
"""Methods whose update is q_{t+1} = q_t + eta_t (err_t - alpha): held against T2 in score space."""


@dataclass
class Trace:
    """Per updated round: threshold q_t, err_t, alpha_t (nan in score space), gamma_t (step used).

    Unpacks as ``threshold, err, alpha_t = trace``; ``phi`` (PACE's ledger after the round) and
    ``extra`` (method-specific arrays) are attributes.
    """

    threshold: np.ndarray
    err: np.ndarray
    alpha_t: np.ndarray
    gamma_t: np.ndarray
    phi: np.ndarray | None = None
    extra: dict[str, np.ndarray] = field(default_factory=dict)

    def __iter__(self):
        return iter((self.threshold, self.err, self.alpha_t))


class OnlineConformal:
    """Base: ``threshold()`` -> q_t; ``update(score)`` -> err_t. ``alpha_t``/``gamma_t`` are public state."""

    def __init__(self, alpha: float, calibration=(), calibration_window: int = 500):
        if not 0.0 < alpha < 1.0:
            raise ValueError(f"alpha must be in (0, 1), got {alpha}")
        self.alpha = float(alpha)
        self.window = CalibrationWindow(calibration_window, calibration)
        self.alpha_t = math.nan
        self.gamma_t = math.nan
        self.rounds = 0  # updated rounds so far
        self._q: float | None = None
        self.round_record: dict[
            str, float
        ] = {}  # per-round quantities a bound needs (collected by run_online)

    def threshold(self) -> float:
        if self._q is None:
            self._q = self._threshold()
        return self._q

    def update(self, score: float, side: float | None = None) -> int:
        q = self.threshold()
        err = int(score > q)
        self._update(float(score), err, side)
        self.window.add(float(score))
        self.rounds += 1
        self._q = None
        return err

    def _threshold(self) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def _update(self, score: float, err: int, side: float | None) -> None:  # pragma: no cover - abstract
        raise NotImplementedError


class ACI(OnlineConformal):
    """Adaptive conformal inference (Gibbs & Candes 2021): alpha_{t+1} = alpha_t + gamma (alpha - err_t)."""

    def __init__(
        self,
        alpha: float,
        gamma: float = 0.005,
        calibration=(),
        calibration_window: int = 500,
        alpha_1: float | None = None,
    ):
        super().__init__(alpha, calibration, calibration_window)
        if not gamma > 0:
            raise ValueError(f"gamma must be > 0, got {gamma}")
        self.gamma = float(gamma)
        self.alpha_t = self.alpha if alpha_1 is None else float(alpha_1)

    def _threshold(self) -> float:
        return self.window.quantile(self.alpha_t)

    def _update(self, score, err, side):
        self.gamma_t = self.gamma
        self.alpha_t = self.alpha_t + self.gamma * (self.alpha - err)


def pace_kappa(shift_window: int, reference_window: int, delta: float) -> float:
    """The DKW-type margin kappa = sqrt(-ln(delta/2)/2) sqrt((w + w_r)/(w w_r)) of PACE's KS term."""
    return math.sqrt(-0.5 * math.log(delta / 2)) * math.sqrt(
        (shift_window + reference_window) / (shift_window * reference_window)
    )


class PACE(OnlineConformal):
    """PACE [reconstructed from the abstract]: ACI with a step from a proactive and a reactive signal,
    capped by a ledger that keeps ACI's long-run guarantee.

    After observing s_t and err_t:

    * proactive P_t = max(0, KS(last w scores, the w_r before them) - kappa)/(1 - kappa) (0 until w + w_r
      scores exist; with a label-free side stream u_t the max of both KS terms);
    * reactive R_t = max(0, |mean of the last m err - alpha| - 2 sqrt(alpha(1-alpha)/m))/max(alpha, 1-alpha)
      (0 until m rounds);
    * gamma* = min(gamma_cap, gamma0 + g_P P_t + g_R R_t); smoothed gamma~_t = gamma* when it rises, else
      gamma~_{t-1} + (gamma* - gamma~_{t-1})/decay;
    * ledger phi_{t+1} = phi_t + (gamma_t - gamma0)(alpha - err_t), phi_1 = 0, with gamma_t the largest value
      in [gamma0, gamma~_t] that keeps |phi_{t+1}| <= phi_cap (a rounding excess is set to +-phi_cap);
    * alpha_{t+1} = alpha_t + gamma_t (alpha - err_t).
    """

    def __init__(
        self,
        alpha: float,
        gamma0: float = 0.005,
        calibration=(),
        calibration_window: int = 500,
        gamma_cap: float = 0.128,
        phi_cap: float = 0.5,
        shift_window: int = 50,
        reference_window: int = 200,
        delta: float = 0.01,
        gap_window: int = 50,
        shift_gain: float = 0.1,
        gap_gain: float = 0.1,
        decay: float = 20.0,
        alpha_1: float | None = None,
        side_calibration=None,
    ):
        super().__init__(alpha, calibration, calibration_window)
        if not 0 < gamma0 <= gamma_cap:
            raise ValueError(f"need 0 < gamma0 <= gamma_cap, got gamma0={gamma0}, gamma_cap={gamma_cap}")
        if not phi_cap >= 0:
            raise ValueError(f"phi_cap must be >= 0, got {phi_cap}")
        self.gamma0, self.gamma_cap, self.phi_cap = float(gamma0), float(gamma_cap), float(phi_cap)
        self.w, self.w_ref, self.gap_window = int(shift_window), int(reference_window), int(gap_window)
        self.kappa = pace_kappa(self.w, self.w_ref, delta)
        self.shift_gain, self.gap_gain, self.decay = float(shift_gain), float(gap_gain), float(decay)
        self.gap_margin = 2 * math.sqrt(self.alpha * (1 - self.alpha) / self.gap_window)
        self.alpha_t = self.alpha if alpha_1 is None else float(alpha_1)
        self.gamma_smooth = self.gamma0
        self.phi = 0.0
        self.history: deque[float] = deque(
            list(calibration)[-(self.w + self.w_ref) :], maxlen=self.w + self.w_ref
        )
        self.side_history: deque[float] | None = None
        if side_calibration is not None:
            self.side_history = deque(
                list(side_calibration)[-(self.w + self.w_ref) :], maxlen=self.w + self.w_ref
            )
        self.errs: deque[int] = deque(maxlen=self.gap_window)
        self.shift_signal = 0.0
        self.gap_signal = 0.0

    def _threshold(self) -> float:
        return self.window.quantile(self.alpha_t)

    def _ks_term(self, history) -> float:
        if len(history) < self.w + self.w_ref:
            return 0.0
        x = np.fromiter(history, float, len(history))
        d = ks_statistic(x[self.w_ref :], x[: self.w_ref])
        return max(0.0, d - self.kappa) / (1.0 - self.kappa)

    def _update(self, score, err, side):
        self.history.append(score)
        self.errs.append(err)
        shift = self._ks_term(self.history)
        if self.side_history is not None:
            if side is None:
                raise ValueError("this PACE was built with a side stream: pass side= to every update")
            self.side_history.append(float(side))
            shift = max(shift, self._ks_term(self.side_history))
        gap = 0.0
        if len(self.errs) == self.gap_window:
            gap = max(0.0, abs(sum(self.errs) / self.gap_window - self.alpha) - self.gap_margin) / max(
                self.alpha, 1 - self.alpha
            )
        self.shift_signal, self.gap_signal = shift, gap
        target = min(self.gamma_cap, self.gamma0 + self.shift_gain * shift + self.gap_gain * gap)
        if target >= self.gamma_smooth:
            self.gamma_smooth = target
        else:
            self.gamma_smooth = self.gamma_smooth + (target - self.gamma_smooth) / self.decay
        d = self.alpha - err
        gamma = ledger_step(self.gamma_smooth, self.gamma0, self.phi, d, self.phi_cap)
        phi = self.phi + (gamma - self.gamma0) * d
        if abs(phi) > self.phi_cap:  # float rounding only: the step above keeps it inside exactly
            phi = math.copysign(self.phi_cap, phi)
        self.phi = phi
        self.gamma_t = gamma
        self.alpha_t = self.alpha_t + gamma * d
        self.round_record = {"shift_signal": shift, "gap_signal": gap, "gamma_smooth": self.gamma_smooth}


def ledger_step(gamma_smooth: float, gamma0: float, phi: float, d: float, phi_cap: float) -> float:
    """The largest gamma in [gamma0, gamma_smooth] with |phi + (gamma - gamma0) d| <= phi_cap."""
    gamma = gamma_smooth
    if d > 0:
        gamma = min(gamma, gamma0 + (phi_cap - phi) / d)
    elif d < 0:
        gamma = min(gamma, gamma0 + (phi_cap + phi) / (-d))
    return max(gamma, gamma0)


class QuantileTracking(OnlineConformal):
    """Quantile tracking / P control (Angelopoulos, Candes, Tibshirani 2023): q_{t+1} = q_t + eta_t (err_t - alpha),
    eta_t = lr (max - min of the calibration window), as conformalForecast scales it. q_1 = the calibration
    quantile at level 1 - alpha (the window's largest score when that is +inf)."""

    def __init__(self, alpha: float, lr: float = 0.01, calibration=(), calibration_window: int = 500):
        super().__init__(alpha, calibration, calibration_window)
        self.lr = float(lr)
        q = self.window.quantile(self.alpha)
        self.q = q if math.isfinite(q) else self.window.max()

    def _threshold(self) -> float:
        return self.q

    def _step(self) -> float:
        return self.lr * self.window.range()

    def _update(self, score, err, side):
        eta = self._step()
        self.gamma_t = eta
        self.q = self.q + eta * (err - self.alpha)


class Decaying(QuantileTracking):
    """Decaying steps (Angelopoulos, Barber, Bates 2024): quantile tracking with eta_t = scale B_t t^-exponent,
    B_t = max - min of the calibration window, t = 1, 2, ... the updated rounds."""

    def __init__(
        self,
        alpha: float,
        scale: float = 1.0,
        exponent: float = 0.51,
        calibration=(),
        calibration_window: int = 500,
    ):
        super().__init__(alpha, 1.0, calibration, calibration_window)
        self.scale, self.exponent = float(scale), float(exponent)

    def _step(self) -> float:
        return self.scale * self.window.range() * (self.rounds + 1) ** (-self.exponent)


def ar_forecast(x: np.ndarray, order: int) -> float:
    """One-step OLS AR(order) forecast with intercept from ``x`` (arrival order); the mean when too short."""
    n = x.size
    if n == 0:
        return 0.0
    if n < 2 * order + 2:
        return float(x.mean())
    design = np.ones((n - order, order + 1))
    for j in range(1, order + 1):
        design[:, j] = x[order - j : n - j]
    coef, *_ = np.linalg.lstsq(design, x[order:], rcond=None)
    last = np.concatenate([[1.0], x[::-1][:order]])  # 1, x_{n-1}, ..., x_{n-order}
    return float(last @ coef)


def pid_saturation(x: float, t: int, k_i: float, c_sat: float) -> float:
    """r_t(x) = K_I tan(x ln t/(t C_sat)), +-inf where the argument leaves (-pi/2, pi/2); 0 at t <= 1."""
    if t <= 1:
        return 0.0
    arg = x * math.log(t) / (t * c_sat)
    if abs(arg) >= math.pi / 2:
        return math.copysign(math.inf, x)
    return k_i * math.tan(arg)


def pid_c_sat(horizon: int, delta: float = 0.01) -> float:
    """C_sat = (2/pi)(ceil(delta ln T_g) - 1/ln T_g) of the tan saturation."""
    log_t = math.log(horizon)
    return (2 / math.pi) * (math.ceil(delta * log_t) - 1 / log_t)


def pid_integrator_bound(n: int, alpha: float, c_sat: float) -> float:
    """|mean err - alpha| over the first n updated rounds of :class:`PID`, for any scores.

    With S_r = sum_{i<r} (err_i - alpha), the saturation is +inf once S_r >= H(r) = (pi/2) C_sat r/ln r
    (r >= 2), so q = +inf and err_r = 0, and -inf once S_r <= -H(r), so err_r = 1: S never moves further
    out than one step past max_{2<=r<n} H(r), and |S_n| <= max(2 m, max_r H(r) + m), m = max(alpha, 1 -
    alpha). r/ln r increases from r = 3 on, so the max is at r = 2 or r = n - 1.
    """
    m = max(alpha, 1 - alpha)

    def h(r: int) -> float:
        return (math.pi / 2) * c_sat * r / math.log(r)

    top = max(h(2), h(max(n - 1, 2))) if n > 2 else -math.inf
    return max(2 * m, top + m) / n


class PID(OnlineConformal):
    """Conformal PID control (Angelopoulos, Candes, Tibshirani 2023) with an AR scorecaster:
    q_t = s^_t + p_t + r_{t-1}(sum_{i<t} (err_i - alpha)), p_{t+1} = p_t + eta_t (err_t - alpha)
    (eta_t = lr (max - min of the window)), r the tan saturation with K_I = max calibration score,
    C_sat = (2/pi)(ceil(delta ln T_g) - 1/ln T_g); s^_t the OLS AR(ar_order) forecast of the next score
    from the calibration window, refit every round. p_1 = Q_{1-alpha}(window) - s^_1 (a calibrated start)."""

    def __init__(
        self,
        alpha: float,
        lr: float = 0.01,
        calibration=(),
        calibration_window: int = 500,
        horizon: int = 4000,
        delta: float = 0.01,
        ar_order: int = 3,
    ):
        super().__init__(alpha, calibration, calibration_window)
        if horizon < 3:
            raise ValueError(f"horizon T_g must be >= 3 (C_sat > 0), got {horizon}")
        self.lr, self.ar_order = float(lr), int(ar_order)
        self.c_sat = pid_c_sat(horizon, delta)
        self.k_i = self.window.max()
        self.forecast = ar_forecast(self.window.as_array(), self.ar_order)
        q = self.window.quantile(self.alpha)
        self.p = (q if math.isfinite(q) else self.window.max()) - self.forecast
        self.integral = 0.0

    def _threshold(self) -> float:
        return self.forecast + self.p + pid_saturation(self.integral, self.rounds, self.k_i, self.c_sat)

    def _update(self, score, err, side):
        eta = self.lr * self.window.range()
        self.gamma_t = eta
        self.p = self.p + eta * (err - self.alpha)
        self.integral += err - self.alpha

    def update(self, score: float, side: float | None = None) -> int:
        err = super().update(score, side)
        self.forecast = ar_forecast(self.window.as_array(), self.ar_order)
        return err


def dtaci_eta(alpha: float, n_experts: int, interval: int) -> float:
    """eta = sqrt(3/I) sqrt((ln(K I) + 2)/(alpha^2 (1-alpha)^3 + alpha^3 (1-alpha)^2)) (Gibbs & Candes 2022)."""
    return math.sqrt(3 / interval) * math.sqrt(
        (math.log(n_experts * interval) + 2) / (alpha**2 * (1 - alpha) ** 3 + alpha**3 * (1 - alpha) ** 2)
    )


DEFAULT_GAMMAS = tuple(0.001 * 2**k for k in range(8))


class DtACI(OnlineConformal):
    """Dynamically-tuned ACI (Gibbs & Candes 2022): ACI experts gamma_k = 0.001 2^k, exponential weights
    on the pinball loss of beta_t (the fraction of calibration scores >= s_t), alpha_t = sum_k p_k alpha^k
    (the deterministic mean, not a draw); sigma = 1/(2I), eta from :func:`dtaci_eta`, I = interval."""

    def __init__(
        self,
        alpha: float,
        gammas=DEFAULT_GAMMAS,
        interval: int = 100,
        calibration=(),
        calibration_window: int = 500,
    ):
        super().__init__(alpha, calibration, calibration_window)
        self.gammas = np.asarray(gammas, float)
        k = self.gammas.size
        self.expert_alphas = np.full(k, self.alpha)
        self.p = np.full(k, 1.0 / k)
        self.sigma = 1.0 / (2 * interval)
        self.eta = dtaci_eta(self.alpha, k, interval)
        self.alpha_t = float(self.p @ self.expert_alphas)

    def _threshold(self) -> float:
        return self.window.quantile(self.alpha_t)

    def _update(self, score, err, side):
        beta = self.window.beta(score)
        diff = beta - self.expert_alphas
        losses = self.alpha * diff - np.minimum(0.0, diff)
        w = self.p * np.exp(-self.eta * losses)
        expert_err = (self.expert_alphas > beta).astype(float)
        p_old = self.p
        self.p = (1 - self.sigma) * w / w.sum() + self.sigma / w.size
        # the weighted experts' miss (the miscoverage of a random draw from the experts) and the weights'
        # move: the two quantities of the bound pace.dtaci_experts
        self.round_record = {
            "expert_miss": float(p_old @ expert_err),
            "weight_move": float(np.abs(self.p - p_old).sum()),
        }
        self.gamma_t = float(self.p @ self.gammas)
        self.expert_alphas = self.expert_alphas + self.gammas * (self.alpha - expert_err)
        self.alpha_t = float(self.p @ self.expert_alphas)


def pinball(y: float, yhat, level: float):
    """Pinball loss of quantile ``level``: max(level (y - yhat), (1 - level)(yhat - y))."""
    return np.maximum(level * (y - yhat), (1 - level) * (yhat - y))


def pinball_grad(y: float, yhat, level: float):
    """d/dyhat of the pinball loss: -level where y > yhat, 1 - level where y < yhat, 0 at a tie."""
    return -level * (y > yhat) + (1 - level) * (y < yhat)


class AgACI(OnlineConformal):
    """Aggregated ACI (Zaffran et al. 2022): ACI experts gamma_k, their thresholds aggregated by BOA
    (Wintenberger 2017, gradient trick and adaptive rates as in the opera package) on the pinball loss
    of level 1 - alpha. An expert's infinite threshold enters the mixture as the window's largest score
    (+inf) or smallest (-inf). The one-sided scores here have only the upper bound to aggregate."""

    def __init__(self, alpha: float, gammas=DEFAULT_GAMMAS, calibration=(), calibration_window: int = 500):
        super().__init__(alpha, calibration, calibration_window)
        self.gammas = np.asarray(gammas, float)
        k = self.gammas.size
        self.expert_alphas = np.full(k, self.alpha)
        self.regret = np.zeros(k)
        self.sq = np.zeros(k)
        self.scale = 0.0
        self.weights = np.full(k, 1.0 / k)
        self._experts_q: np.ndarray | None = None

    def _expert_thresholds(self) -> np.ndarray:
        q = np.array([self.window.quantile(a) for a in self.expert_alphas])
        return np.where(q == np.inf, self.window.max(), np.where(q == -np.inf, self.window.min(), q))

    def _threshold(self) -> float:
        self._experts_q = self._expert_thresholds()
        return float(self.weights @ self._experts_q)

    def _update(self, score, err, side):
        q_k = self._experts_q
        q = float(self.weights @ q_k)
        g = float(pinball_grad(score, q, 1 - self.alpha))
        r = g * (q - q_k)  # linearised regret of the mixture against each expert
        self.scale = max(self.scale, float(np.max(np.abs(r))))
        self.sq += r**2
        if self.scale > 0:
            with np.errstate(divide="ignore"):
                eta = np.minimum(
                    1 / (2 * self.scale), np.sqrt(math.log(r.size) / np.where(self.sq > 0, self.sq, np.nan))
                )
            eta = np.where(np.isnan(eta), 1 / (2 * self.scale), eta)
            self.regret += r - eta * r**2
            logw = np.log(eta) + eta * self.regret
            w = np.exp(logw - logw.max())
            self.weights = w / w.sum()
        expert_err = (score > q_k).astype(float)
        self.gamma_t = float(self.weights @ self.gammas)
        self.expert_alphas = self.expert_alphas + self.gammas * (self.alpha - expert_err)


class SFOGD(OnlineConformal):
    """Scale-free OGD on the pinball loss (Orabona & Pal 2016; Bhatnagar et al. 2023, salesforce ``ogd.py``):
    q <- max(0, q - D g_t / sqrt(sum g^2)), D = the largest calibration score (1 if none); started at 0
    and warmed up on the calibration scores, as salesforce does with its calibration residuals."""

    def __init__(self, alpha: float, calibration=(), calibration_window: int = 500):
        calibration = [float(s) for s in calibration]
        super().__init__(alpha, calibration, calibration_window)
        self.scale = max((abs(s) for s in calibration), default=1.0) if calibration else 1.0
        self.q = 0.0
        self.grad_sq = 0.0
        self.warm_steps = len(calibration)
        for s in calibration:
            self._step(s)

    def _step(self, score: float) -> bool:
        """One OGD step; True when the step was not q + eta (err - alpha): a tie (no gradient) or the floor at 0."""
        grad = float(pinball_grad(score, self.q, 1 - self.alpha))
        self.grad_sq += grad**2
        if grad == 0:
            return True
        moved = self.q - self.scale / math.sqrt(self.grad_sq) * grad
        self.q = max(0.0, moved)
        return moved < 0.0

    def _threshold(self) -> float:
        return self.q

    def _update(self, score, err, side):
        self.round_record = {"floor": float(self._step(score))}


def _sequential_sum(values: np.ndarray) -> float:
    """Left-to-right float sum (as Python's ``sum``), not numpy's pairwise sum or a BLAS dot.

    SAOCP needs it: a newborn expert's meta-loss gap is 0 in exact arithmetic, and its rounding decides
    w > 0, which moves the clip's lower bound from 0 to -1; another summation order diverges by O(1) in q.
    """
    return float(np.cumsum(values)[-1]) if values.size else 0.0


class SAOCP(OnlineConformal):
    """Strongly adaptive online conformal prediction (Bhatnagar et al. 2023, salesforce ``saocp.py``):
    an SF-OGD expert born every round t with lifetime g 2^{v_2(t)}, mixed by coin betting (CBCE, Jun et al.
    2017) under the prior 1/(t^2 (1 + floor(log2 t))). Vectorised over the live experts (preallocated
    columns, compacted when one expires); warmed up on the calibration scores like salesforce's package
    (its round counter starts at 1 there). The mixture's sums run left to right in birth order, as
    salesforce's Python sums over its dict of experts do, so the two agree to rounding (see
    :func:`_sequential_sum` for why the order matters)."""

    _FIELDS = ("born", "life", "yhat", "grad_sq", "z", "wz", "age")

    def __init__(self, alpha: float, lifetime: int = 8, calibration=(), calibration_window: int = 500):
        calibration = [float(s) for s in calibration]
        super().__init__(alpha, calibration, calibration_window)
        self.g = int(lifetime)
        self.scale = (max(abs(s) for s in calibration) if calibration else 1.0 / math.sqrt(3)) * math.sqrt(3)
        self.base_lr = self.scale / math.sqrt(3)
        self.clock = 1
        self.k = 0  # live experts: the first k entries of each column
        self.state = np.zeros((len(self._FIELDS), 64))
        for s in calibration:
            self._step(s)

    def _w(self, z, wz, age) -> np.ndarray:
        return np.where(age == 0, 0.0, z / np.where(age == 0, 1, age) * (1 + wz))

    def _predict(self) -> float:
        if self.k == 0:
            return 0.0
        born, _, yhat, _, z, wz, age = self.state[:, : self.k]
        prior = 1 / (born**2 * (1 + np.floor(np.log2(born))))
        prior = prior / _sequential_sum(prior)
        p = prior * np.maximum(0.0, self._w(z, wz, age))
        total = _sequential_sum(p)
        p = p / total if total > 0 else prior
        return _sequential_sum(p * yhat)

    def _step(self, score: float) -> None:
        s_hat = self._predict()
        live = self.state[:, : self.k]
        keep = live[6] <= live[1]  # age <= lifetime
        if not keep.all():
            kept = live[:, keep]
            self.k = kept.shape[1]
            self.state[:, : self.k] = kept
        if self.k == self.state.shape[1]:
            self.state = np.concatenate([self.state, np.zeros_like(self.state)], axis=1)
        t, u = self.clock, 0
        while t % 2 == 0:
            t //= 2
            u += 1
        self.state[:, self.k] = (float(self.clock), float(self.g * 2**u), s_hat, 0.0, 0.0, 0.0, 0.0)
        self.k += 1
        level = 1 - self.alpha
        meta_loss = float(pinball(score, self._predict(), level))
        born, life, yhat, grad_sq, z, wz, age = self.state[:, : self.k]  # views: updated in place
        w = self._w(z, wz, age)
        g = np.clip(
            (meta_loss - pinball(score, yhat, level)) / self.scale / max(self.alpha, 1 - self.alpha),
            -1.0 * (w > 0),
            1.0,
        )
        z += g
        wz += g * w
        age += 1
        grad = pinball_grad(score, yhat, level)
        grad_sq += grad**2
        with np.errstate(divide="ignore", invalid="ignore"):
            moved = np.maximum(0.0, yhat - self.base_lr / np.sqrt(grad_sq) * grad)
        yhat[:] = np.where(grad_sq != 0, moved, yhat)
        self.clock += 1

    def _threshold(self) -> float:
        return self._predict()

    def _update(self, score, err, side):
        self._step(score)


# -- batch functions over a score array -----------------------------------------------------------------


def _as_scores(scores) -> np.ndarray:
    x = np.asarray(scores, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"scores must be one-dimensional, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        bad = int(np.flatnonzero(~np.isfinite(x))[0])
        raise ValueError(f"scores must be finite; scores[{bad}] = {x[bad]}")
    return x


def _check_burn_in(x: np.ndarray, burn_in: int) -> None:
    if not 0 <= burn_in < x.size:
        raise ValueError(f"burn_in must be in [0, len(scores) - 1] = [0, {x.size - 1}], got {burn_in}")


def run_online(method: OnlineConformal, scores, burn_in: int, side=None) -> Trace:
    """Run an online method over ``scores[burn_in:]`` (``side[t]`` passed to each update when given)."""
    x = _as_scores(scores)
    _check_burn_in(x, burn_in)
    n = x.size - burn_in
    q, err, a, g = np.empty(n), np.empty(n, dtype=np.int8), np.empty(n), np.empty(n)
    phi = np.empty(n) if isinstance(method, PACE) else None
    extra: dict[str, np.ndarray] = {}
    for i in range(n):
        t = burn_in + i
        q[i] = method.threshold()
        a[i] = method.alpha_t if not isinstance(method, (QuantileTracking, PID, SFOGD, SAOCP)) else math.nan
        err[i] = method.update(x[t], None if side is None else float(side[t]))
        g[i] = method.gamma_t
        if phi is not None:
            phi[i] = method.phi
        for name, value in getattr(method, "round_record", {}).items():  # what a bound needs per round
            extra.setdefault(name, np.empty(n))[i] = value
    return Trace(q, err, a, g, phi, extra)


def _engine(engine: str) -> str:
    if engine not in ("auto", "numba", "numpy"):
        raise ValueError(f"engine must be 'auto', 'numba' or 'numpy', got {engine!r}")
    if engine == "auto":
        try:
            import numba  # noqa: F401
        except ImportError:  # pragma: no cover - numba is a dependency
            return "numpy"
        return "numba"
    return engine


def aci(
    scores,
    alpha: float = 0.1,
    gamma: float = 0.005,
    calibration_window: int = 500,
    burn_in: int = 100,
    alpha_1: float | None = None,
    engine: str = "auto",
) -> Trace:
    """ACI over a score array: ``threshold, err, alpha_t = aci(scores, ...)`` for rounds burn_in..N-1.

    Quantile rule (module docstring): q_t = k-th smallest of the last ``calibration_window`` scores before
    round t, k = ceil((1 - alpha_t)(n + 1)); +inf when alpha_t <= 0 or k > n; -inf when alpha_t >= 1.
    alpha_{t+1} = alpha_t + gamma (alpha - err_t), alpha_{burn_in} = alpha_1 (default alpha), never clipped.
    ``engine``: "numba" (compiled, the default when numba imports) or "numpy" (the :class:`ACI` class);
    both give identical arrays.
    """
    x = _as_scores(scores)
    _check_burn_in(x, burn_in)
    a1 = alpha if alpha_1 is None else alpha_1
    if _engine(engine) == "numba":
        from toolkit_pace.kernels import aci_kernel

        ACI(alpha, gamma, (), calibration_window)  # validates the arguments the kernel trusts
        q, err, a = aci_kernel(
            x, float(alpha), float(gamma), int(calibration_window), int(burn_in), float(a1)
        )
        return Trace(q, err.astype(np.int8), a, np.full(q.size, float(gamma)))
    return run_online(ACI(alpha, gamma, x[:burn_in], calibration_window, alpha_1=a1), x, burn_in)


def pace(
    scores,
    alpha: float = 0.1,
    gamma0: float = 0.005,
    calibration_window: int = 500,
    burn_in: int = 100,
    side=None,
    gamma_cap: float = 0.128,
    phi_cap: float = 0.5,
    shift_window: int = 50,
    reference_window: int = 200,
    delta: float = 0.01,
    gap_window: int = 50,
    shift_gain: float = 0.1,
    gap_gain: float = 0.1,
    decay: float = 20.0,
    engine: str = "auto",
) -> Trace:
    """PACE (:class:`PACE`) over a score array; ``side`` an optional label-free stream of the same length
    whose KS term joins the proactive signal. ``trace.phi`` is the ledger after each round; ``engine`` as
    in :func:`aci` (identical arrays)."""
    x = _as_scores(scores)
    _check_burn_in(x, burn_in)
    u = None if side is None else _as_scores(side)
    if u is not None and u.size != x.size:
        raise ValueError(f"side must have the length of scores ({x.size}), got {u.size}")
    kw = dict(
        gamma_cap=gamma_cap,
        phi_cap=phi_cap,
        shift_window=shift_window,
        reference_window=reference_window,
        delta=delta,
        gap_window=gap_window,
        shift_gain=shift_gain,
        gap_gain=gap_gain,
        decay=decay,
    )
    model = PACE(
        alpha,
        gamma0,
        x[:burn_in],
        calibration_window,
        side_calibration=None if u is None else u[:burn_in],
        **kw,
    )
    if _engine(engine) == "numba":
        from toolkit_pace.kernels import pace_kernel

        q, err, a, g, phi, shift, gap, smooth = pace_kernel(
            x,
            np.zeros(0) if u is None else u,
            u is not None,
            float(alpha),
            float(gamma0),
            int(calibration_window),
            int(burn_in),
            float(gamma_cap),
            float(phi_cap),
            int(shift_window),
            int(reference_window),
            model.kappa,
            int(gap_window),
            float(shift_gain),
            float(gap_gain),
            float(decay),
        )
        signals = {"shift_signal": shift, "gap_signal": gap, "gamma_smooth": smooth}
        return Trace(q, err.astype(np.int8), a, g, phi, signals)
    return run_online(model, x, burn_in, side=u)


def quantile_tracking(
    scores, alpha: float = 0.1, lr: float = 0.01, calibration_window: int = 500, burn_in: int = 100
) -> Trace:
    """Quantile tracking (:class:`QuantileTracking`) over a score array; ``gamma_t`` holds eta_t."""
    x = _as_scores(scores)
    _check_burn_in(x, burn_in)
    return run_online(QuantileTracking(alpha, lr, x[:burn_in], calibration_window), x, burn_in)


def decaying(
    scores,
    alpha: float = 0.1,
    scale: float = 1.0,
    exponent: float = 0.51,
    calibration_window: int = 500,
    burn_in: int = 100,
) -> Trace:
    """Decaying steps (:class:`Decaying`) over a score array; ``gamma_t`` holds eta_t."""
    x = _as_scores(scores)
    _check_burn_in(x, burn_in)
    return run_online(Decaying(alpha, scale, exponent, x[:burn_in], calibration_window), x, burn_in)


def pid(
    scores,
    alpha: float = 0.1,
    lr: float = 0.01,
    calibration_window: int = 500,
    burn_in: int = 100,
    horizon: int | None = None,
    delta: float = 0.01,
    ar_order: int = 3,
) -> Trace:
    """Conformal PID with an AR scorecaster (:class:`PID`); T_g = ``horizon`` (default: len(scores))."""
    x = _as_scores(scores)
    _check_burn_in(x, burn_in)
    model = PID(
        alpha,
        lr,
        x[:burn_in],
        calibration_window,
        horizon=max(3, horizon or x.size),
        delta=delta,
        ar_order=ar_order,
    )
    return run_online(model, x, burn_in)


def dtaci(
    scores,
    alpha: float = 0.1,
    gammas=DEFAULT_GAMMAS,
    interval: int = 100,
    calibration_window: int = 500,
    burn_in: int = 100,
) -> Trace:
    """DtACI (:class:`DtACI`) over a score array; ``gamma_t`` is the experts' weighted step."""
    x = _as_scores(scores)
    _check_burn_in(x, burn_in)
    return run_online(DtACI(alpha, gammas, interval, x[:burn_in], calibration_window), x, burn_in)


def agaci(
    scores, alpha: float = 0.1, gammas=DEFAULT_GAMMAS, calibration_window: int = 500, burn_in: int = 100
) -> Trace:
    """AgACI (:class:`AgACI`) over a score array; ``alpha_t`` is nan (the mixture acts on thresholds)."""
    x = _as_scores(scores)
    _check_burn_in(x, burn_in)
    trace = run_online(AgACI(alpha, gammas, x[:burn_in], calibration_window), x, burn_in)
    trace.alpha_t[:] = math.nan
    return trace


def sfogd(scores, alpha: float = 0.1, calibration_window: int = 500, burn_in: int = 100) -> Trace:
    """SF-OGD (:class:`SFOGD`) over a score array (warmed up on ``scores[:burn_in]``)."""
    x = _as_scores(scores)
    _check_burn_in(x, burn_in)
    return run_online(SFOGD(alpha, x[:burn_in], calibration_window), x, burn_in)


def saocp(
    scores, alpha: float = 0.1, lifetime: int = 8, calibration_window: int = 500, burn_in: int = 100
) -> Trace:
    """SAOCP (:class:`SAOCP`) over a score array (warmed up on ``scores[:burn_in]``)."""
    x = _as_scores(scores)
    _check_burn_in(x, burn_in)
    return run_online(SAOCP(alpha, lifetime, x[:burn_in], calibration_window), x, burn_in)


def run_method(
    method: str,
    scores,
    alpha: float,
    gamma0: float,
    calibration_window: int,
    burn_in: int,
    side=None,
    engine: str = "auto",
    **options: Any,
) -> Trace:
    """Dispatch by name (:data:`METHOD_NAMES`); ``gamma0`` is ACI's gamma and PACE's base step (others ignore it)."""
    common = dict(alpha=alpha, calibration_window=calibration_window, burn_in=burn_in)
    if method == "aci":
        return aci(scores, gamma=gamma0, engine=engine, **common)
    if method == "pace":
        return pace(scores, gamma0=gamma0, side=side, engine=engine, **common, **options)
    funcs = {
        "quantile_tracking": quantile_tracking,
        "pid": pid,
        "decaying": decaying,
        "dtaci": dtaci,
        "agaci": agaci,
        "sfogd": sfogd,
        "saocp": saocp,
    }
    if method not in funcs:
        raise ValueError(f"method must be one of {', '.join(METHOD_NAMES)}, got {method!r}")
    return funcs[method](scores, **common)


__all__ = [
    "ACI",
    "AgACI",
    "DEFAULT_GAMMAS",
    "Decaying",
    "DtACI",
    "METHOD_NAMES",
    "OnlineConformal",
    "PACE",
    "PID",
    "QuantileTracking",
    "SAOCP",
    "SFOGD",
    "Trace",
    "aci",
    "agaci",
    "ar_forecast",
    "decaying",
    "dtaci",
    "dtaci_eta",
    "ledger_step",
    "pace",
    "pace_kappa",
    "pid",
    "pid_saturation",
    "pinball",
    "pinball_grad",
    "quantile_tracking",
    "run_method",
    "run_online",
    "saocp",
    "sfogd",
]
