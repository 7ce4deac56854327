r"""Batched full-batch dynamics: GD on the logistic/exponential loss and its perceptron limits.

Many runs (seeds x step sizes) on one dataset advance together as one array computation: the
state of run r is (W_r, a_r) with W_r of shape (m, d); every step computes all pre-activations,
margins, loss weights and updates for all active runs at once, and runs leave the batch as soon
as they separate the data.

Update (f = (1/n) sum_i ell(y_i g(b_i)), ell logistic or exponential)::

    W <- W + gamma * (1/n) sum_i lambda_i y_i grad_W g(b_i; W),   lambda_i = -ell'(y_i g(b_i))

with lambda_i = sigma(-y_i g_i) (logistic) or exp(-y_i g_i) (exponential); the *normalized* variants
divide by sum_i lambda_i instead of n (Normalized LR+GD; Normalized Batch Perceptron in the limit).

Rescaling (no overflow, exact): the state is kept as W = e^ell * W_hat.
- degree-1 models (linear, ReLU/leaky-ReLU with fixed outer layer): W_hat = W / gamma, i.e. the
  predecessor's exact rescaled GD u_{t+1} = u_t + (1/n) sum sigma(-gamma y_i g(b_i; u_t)) y_i grad g;
  the *perceptron* mode is its gamma -> infinity limit: lambda_i = 1[y_i g_i < 0], ties
  (y_i g_i == 0) get ``tie_weight`` (1/2 is the exact limit; the classical Batch Perceptron counts
  ties as mistakes, ``tie_weight=1``). The first step from the initial point uses lambda = 1/2 on
  ties (the limit of GD from v_0 = 0), or sigma(-y g(b; W_0)) with ``first_step='limit'`` (the limit of
  GD from a fixed non-zero W_0, which then starts the perceptron at 0+ in the direction of W_0).
- degree-k models, k > 1 (quadratic units, trained outer layer): W_hat is renormalised to unit norm
  after every step and ell tracks the log-scale; GD uses lambda = sigma(-e^{k ell} y g(W_hat)) and step
  gamma e^{(k-2) ell}; the perceptron mode uses indicator weights and step ``gamma`` on the unit sphere.
- unknown degree (user activation): plain GD, no rescaling.

Representation: pre-activations are w_j^T b_i. When n < d the weights stay in
kappa * W_0 + C B (W_0 the initial weights, C of shape (m, n)), so each step costs O(m n^2)
through the Gram matrix G = B B^T instead of O(m n d) (``representation='dual'``); with n >= d
the plain (m, d) weights are used (``'primal'``). Both compute the same iterates.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy.special import expit

from toolkit_gd_perceptron.models import Model

TINY_INIT = 1e-150  # the perceptron limit of a degree-1 model starts at 0+ in the direction of W_0
EXP_CLIP = 300.0  # exp() arguments are clipped here (e^300 ~ 1e130 > DIVERGED, far from overflow)
DIVERGED = 1e100  # a margin of the (rescaled) state beyond this means the run blew up (exponential loss)
CAPPED, BLOWN, STALLED = -1, -2, -3  # iteration codes of runs that did not separate
STATUS = {CAPPED: "capped", BLOWN: "diverged", STALLED: "stalled"}


def status_of(iterations: int) -> str:
    """'separated' or the name of the iteration code (capped, diverged, stalled)."""
    return STATUS.get(int(iterations), "separated")


class StallWatch:
    """Per-run detection of a state that stops changing (at once) or recurs (Brent: compare with a
    snapshot retaken at steps 1, 2, 4, 8, ...; a cycle of period p entered at step s is found by step
    2 max(s, p) + p). States are compared exactly: a float step that changes nothing is a fixed point."""

    def __init__(self, state: np.ndarray) -> None:
        self.snap, self.snap_t, self.prev = state.copy(), 0, state.copy()

    def step(self, t: int, state: np.ndarray) -> np.ndarray:
        """``state`` (R, k) after update number t (1-based); returns the runs found stalled."""
        fixed = np.all(state == self.prev, axis=1)
        cycled = np.all(state == self.snap, axis=1)
        self.prev = state.copy()
        if t >= 2 * max(self.snap_t, 1) or self.snap_t == 0:
            self.snap, self.snap_t = state.copy(), t
        return fixed | cycled

    def take(self, keep) -> None:
        self.snap, self.prev = self.snap[keep], self.prev[keep]


class _Primal:
    """The (m, d) weights. ``B`` has shape (1, n, d) (shared data) or (R, n, d) (one dataset per run)."""

    def __init__(self, B, W):
        self.B, self.W = B, W

    def preact(self):
        return self.W @ self.B.transpose(0, 2, 1)  # batched BLAS: (R, m, d) @ (R|1, d, n)

    def add(self, coef):
        self.W += coef @ self.B

    def scale(self, s):
        self.W *= s[:, None, None]

    def sqnorm(self):
        return np.einsum("rmd,rmd->r", self.W, self.W)

    def primal(self):
        return self.W.copy()

    def state(self):
        return self.W.reshape(self.W.shape[0], -1)

    def take(self, keep):
        self.W = self.W[keep]
        if self.B.shape[0] > 1:
            self.B = self.B[keep]


class _Dual:
    """W_r = kappa_r W0_r + C_r B_r: pre-activations through the Gram matrices G_r = B_r B_r^T."""

    def __init__(self, B, W0, kappa, keep_primal=True):
        # without primal() (no weights asked for) the (m, d)-sized arrays are not kept at all
        self.B = B if keep_primal else None
        self.G = B @ B.transpose(0, 2, 1)
        self.W0 = W0 if keep_primal else None
        self.P0 = W0 @ B.transpose(0, 2, 1)
        self.N0 = np.einsum("rmd,rmd->r", W0, W0)
        self.kappa = np.asarray(kappa, dtype=np.float64).copy()
        self.C = np.zeros(self.P0.shape)

    def preact(self):
        return self.kappa[:, None, None] * self.P0 + self.C @ self.G

    def add(self, coef):
        self.C += coef

    def scale(self, s):
        self.kappa *= s
        self.C *= s[:, None, None]

    def sqnorm(self):
        k = self.kappa
        return (
            k * k * self.N0
            + 2 * k * np.einsum("rmn,rmn->r", self.C, self.P0)
            + np.einsum("rmn,rmn->r", self.C @ self.G, self.C)
        )

    def primal(self):
        return self.kappa[:, None, None] * self.W0 + self.C @ self.B

    def state(self):
        return np.concatenate([self.kappa[:, None], self.C.reshape(self.C.shape[0], -1)], axis=1)

    def take(self, keep):
        self.P0, self.N0 = self.P0[keep], self.N0[keep]
        self.kappa, self.C = self.kappa[keep], self.C[keep]
        if self.W0 is not None:
            self.W0 = self.W0[keep]
        if self.G.shape[0] > 1:
            self.G = self.G[keep]
            if self.B is not None:
                self.B = self.B[keep]


def stack_datasets(datasets) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Datasets [(B_k, y_k)] with the same n but any d_k -> (B (K, n, d_max) zero-padded, y (K, n),
    d (K,)). Zero features change no inner product, so a run on the padded data (with its initial
    weights zero-padded too, see :func:`pad_weights`) is the run on the original data."""
    ns = {np.shape(B)[0] for B, _ in datasets}
    if len(ns) != 1:
        raise ValueError(f"stacked datasets need the same number of samples, got {sorted(ns)}")
    dims = np.array([np.shape(B)[1] for B, _ in datasets])
    out = np.zeros((len(datasets), ns.pop(), int(dims.max())))
    for k, (B, _) in enumerate(datasets):
        out[k, :, : dims[k]] = B
    return out, np.stack([np.asarray(y, dtype=np.float64) for _, y in datasets]), dims


def pad_weights(W0, d_max: int) -> np.ndarray:
    """Zero-pad (R, m, d) initial weights to (R, m, d_max)."""
    out = np.zeros(W0.shape[:2] + (d_max,))
    out[:, :, : W0.shape[2]] = W0
    return out


@dataclass
class BatchResult:
    """Outcome of :func:`run_batch` for R runs.

    ``iterations[r]``: first t (number of updates) whose iterate has every margin y_i g(b_i) > 0,
    -1 when that did not happen within ``max_iter`` (a run at the cap), -2 when the run diverged
    (a margin of the rescaled state beyond 1e100: GD on the exponential loss with a large step,
    whose weights exp(-gamma m) are unbounded), -3 when it stalled: its state stopped changing (a
    fixed point, stopped at once) or came back to an earlier state (a cycle, found within twice
    its period and tail by Brent's doubling snapshots), so it never separates;
    ``stalled_points[r]`` marks the points with margin <= 0 there (e.g. points
    no ReLU unit is active on: zero margin and zero gradient). ``weights``/``outer``: the
    final state in rescaled form (W_hat, a_hat) with ``log_scale`` ell (W = e^ell W_hat); for
    degree-1 GD this is u = w / gamma. ``trajectory`` (when recorded) holds per-step arrays:
    ``margins`` (T+1, R, n) of the rescaled state, ``log_scale`` (T+1, R), ``lambdas`` (T, R, n),
    ``active`` (T+1, R, m, n) activation pattern w_j^T b_i > 0, and ``states`` (T+1, R, m, d) with ``outer``
    (T+1, R, m) if asked.
    """

    iterations: np.ndarray
    weights: np.ndarray | None
    outer: np.ndarray | None
    log_scale: np.ndarray | None
    degree: float | None
    trajectory: dict[str, np.ndarray] = field(default_factory=dict)
    stalled_points: np.ndarray | None = None  # (R, n) bool

    @property
    def capped(self) -> np.ndarray:
        return self.iterations == -1

    @property
    def stalled(self) -> np.ndarray:
        return self.iterations == STALLED

    @property
    def diverged(self) -> np.ndarray:
        return self.iterations == -2


Mode = Literal["gd", "perceptron"]


def _validate(B, y, gammas, W0, a0, mode, loss, tie_weight, first_step, max_iter, start="vanishing"):
    R = gammas.shape[0]
    if B.ndim != 3 or B.shape[0] not in (1, R):
        raise ValueError(f"features must have shape (n, d) or (R={R}, n, d), got {B.shape}")
    if y.shape != (B.shape[0], B.shape[1]):
        raise ValueError(
            f"labels must have shape (n,) or (R, n) matching the features {B.shape}, got {y.shape}"
        )
    d = B.shape[2]
    if W0.ndim != 3 or W0.shape[0] != R or W0.shape[2] != d:
        raise ValueError(f"W0 must have shape (R={R}, m, d={d}), got {W0.shape}")
    if a0.shape != W0.shape[:2]:
        raise ValueError(f"a0 must have shape {W0.shape[:2]}, got {a0.shape}")
    if mode not in ("gd", "perceptron"):
        raise ValueError(f"mode must be 'gd' or 'perceptron', got {mode!r}")
    if loss not in ("logistic", "exponential"):
        raise ValueError(f"loss must be 'logistic' or 'exponential', got {loss!r}")
    if start not in ("vanishing", "init"):
        raise ValueError(f"start must be 'vanishing' or 'init', got {start!r}")
    if first_step not in ("indicator", "limit"):
        raise ValueError(f"first_step must be 'indicator' or 'limit', got {first_step!r}")
    if not 0.0 <= tie_weight <= 1.0:
        raise ValueError(f"tie_weight must be in [0, 1], got {tie_weight}")
    if not np.all(gammas > 0) or (mode == "gd" and not np.all(np.isfinite(gammas))):
        raise ValueError(
            "step sizes gamma must be positive (and finite for mode='gd'; use mode='perceptron' for gamma = inf)"
        )
    if max_iter < 0:
        raise ValueError(f"max_iter must be >= 0, got {max_iter}")


def run_batch(
    B,
    y,
    model: Model,
    gammas,
    W0,
    a0,
    *,
    mode: Mode = "gd",
    loss: str = "logistic",
    normalized: bool = False,
    tie_weight: float = 0.5,
    first_step: str = "indicator",
    max_iter: int = 10_000,
    record: bool = False,
    record_states: bool = False,
    representation: str = "auto",
    keep_weights: bool = True,
    start: str = "vanishing",
) -> BatchResult:
    """Advance R runs on the dataset (B, y) together (see the module docstring for the maths).

    :param gammas: (R,) step sizes; in ``mode='perceptron'`` they are the step on the unit sphere of
        degree > 1 models and are ignored by degree-1 models (the limit does not depend on gamma).
    :param B, y: one dataset, (n, d) and (n,), shared by all runs, or one per run, (R, n, d) and (R, n)
        (datasets of different d: zero-pad them with :func:`stack_datasets`).
    :param W0, a0: (R, m, d) and (R, m) initial weights (see :func:`models.init_weights`).
    :param record: keep the whole trajectory and run all ``max_iter`` steps (no early exit).
    :param keep_weights: return the final weights (``False``: ``weights``/``outer`` are None, which saves
        rebuilding (R, m, d) arrays whenever runs finish).
    :param start: where ``mode='perceptron'`` starts a degree-1 model: ``'vanishing'`` at 0+ in the
        direction of W_0 (the gamma -> inf limit of GD from a fixed W_0), ``'init'`` at W_0 itself with
        step ``gammas`` (= eta: the generalized perceptron from W_0; in the rescaled form it starts at
        W_0/eta, so only the ratio eta/||W_0|| matters).
    """
    B = np.asarray(B, dtype=np.float64)
    B = np.ascontiguousarray(B[None] if B.ndim == 2 else B)  # (1 | R, n, d)
    y = np.asarray(y, dtype=np.float64)
    y = y[None] if y.ndim == 1 else y  # (1 | R, n)
    gammas = np.atleast_1d(np.asarray(gammas, dtype=np.float64))
    W0 = np.asarray(W0, dtype=np.float64)
    a0 = np.asarray(a0, dtype=np.float64)
    _validate(B, y, gammas, W0, a0, mode, loss, tie_weight, first_step, max_iter, start)
    n, d = B.shape[1:]
    R = gammas.shape[0]
    act = model.activation
    p = 1.0 if model.kind == "linear" else model.degree
    trained = model.train_outer
    renormalize = p is not None and p > 1
    per_run = B.shape[0] > 1

    raw_margins0 = y * np.einsum("rm,rmn->rn", a0, act.fn(W0 @ B.transpose(0, 2, 1)))
    if p == 1.0:
        from_w0 = mode == "gd" or start == "init"
        c0 = 1.0 / gammas if from_w0 else np.full(R, TINY_INIT)
        log_scale = np.log(gammas) if from_w0 else np.zeros(R)
    elif renormalize:
        s0 = np.sqrt(np.einsum("rmd,rmd->r", W0, W0) + (np.einsum("rm,rm->r", a0, a0) if trained else 0.0))
        if np.any(s0 == 0):
            raise ValueError("a degree > 1 model started at zero never moves: give it a non-zero init")
        c0, log_scale = 1.0 / s0, np.log(s0)
    else:
        c0, log_scale = np.ones(R), np.zeros(R)
    a = a0 * c0[:, None] if trained else a0.copy()

    use_dual = representation == "dual" or (representation == "auto" and n < d)
    if representation not in ("auto", "dual", "primal"):
        raise ValueError(f"representation must be 'auto', 'dual' or 'primal', got {representation!r}")
    rep = (
        _Dual(B, W0, c0, keep_primal=keep_weights or record_states)
        if use_dual
        else _Primal(B, W0 * c0[:, None, None])
    )

    iterations = np.full(R, -1, dtype=np.int64)
    idx = np.arange(R)  # runs still in the batch
    gam = gammas.copy()
    final_W = np.empty_like(W0) if keep_weights else None
    final_a = np.empty_like(a0) if keep_weights else None
    final_ell = np.empty(R) if keep_weights else None
    traj: dict[str, list] = {
        "margins": [],
        "log_scale": [],
        "lambdas": [],
        "active": [],
        "states": [],
        "outer": [],
    }

    def retire(keep_mask):
        nonlocal idx, a, log_scale, gam, raw_margins0, y
        gone = ~keep_mask
        if gone.any() and keep_weights:
            final_W[idx[gone]] = rep.primal()[gone]
            final_a[idx[gone]] = a[gone]
            final_ell[idx[gone]] = log_scale[gone]
        rep.take(keep_mask)
        idx, a, log_scale, gam, raw_margins0 = (
            idx[keep_mask],
            a[keep_mask],
            log_scale[keep_mask],
            gam[keep_mask],
            raw_margins0[keep_mask],
        )
        if per_run:
            y = y[keep_mask]

    frozen = np.zeros(R, dtype=bool)  # diverged runs stop moving (record mode keeps them in the batch)
    track_scale = (
        renormalize and mode == "gd"
    )  # GD's weights depend on the scale; the perceptron form's do not

    def full_state():
        parts = [rep.state()] + ([a] if trained else []) + ([log_scale[:, None]] if track_scale else [])
        return np.concatenate(parts, axis=1) if len(parts) > 1 else parts[0]

    watch = StallWatch(full_state())
    stalled_points = np.zeros((R, n), dtype=bool)
    stuck = np.zeros(R, dtype=bool)  # per run in the batch: its last update changed nothing or closed a cycle
    for t in range(max_iter + 1):
        P = rep.preact()
        phi = act.fn(P)
        margins = y * np.einsum("rm,rmn->rn", a, phi)
        blown = ~np.all(np.abs(margins) < DIVERGED, axis=1)  # also catches nan
        separated = np.all(margins > 0, axis=1) & ~blown
        stalled = stuck & ~separated & ~blown
        if record:
            traj["margins"].append(margins.copy())
            traj["log_scale"].append(log_scale.copy())
            traj["active"].append(P > 0)
            if record_states:
                traj["states"].append(rep.primal())
                traj["outer"].append(a.copy())
            open_ = iterations[idx] == CAPPED
            iterations[idx[separated & open_]] = t
            iterations[idx[blown & open_]] = BLOWN
            stalled_points[idx[stalled & open_]] = margins[stalled & open_] <= 0
            iterations[idx[stalled & open_]] = STALLED
            frozen |= blown
        else:
            iterations[idx[separated]] = t
            iterations[idx[blown]] = BLOWN
            iterations[idx[stalled]] = STALLED
            stalled_points[idx[stalled]] = margins[stalled] <= 0
            done = separated | blown | stalled
            if done.any():
                retire(~done)
                watch.take(~done)
                if idx.size == 0:
                    break
                P, phi, margins = P[~done], phi[~done], margins[~done]
        if t == max_iter:
            break

        # loss weights lambda_i = -ell'(true margin)
        if mode == "perceptron":
            if t == 0 and first_step == "limit":
                lam = expit(-raw_margins0)
            else:
                tie = 0.5 if t == 0 else tie_weight
                lam = (margins < 0) + tie * (margins == 0)
                lam = lam.astype(np.float64)
            step = np.ones_like(gam) if p == 1.0 else gam
        else:
            if p is None:
                true = margins
            elif p == 1.0:
                true = gam[:, None] * margins
            else:
                with np.errstate(over="ignore"):
                    true = margins * np.exp(np.minimum(p * log_scale, EXP_CLIP))[:, None]
            if loss == "logistic":
                lam = expit(-true)
            else:
                lam = np.exp(np.minimum(-true, EXP_CLIP))
            if p is None:
                step = gam
            elif p == 1.0:
                step = np.ones_like(gam)
            else:
                step = gam * np.exp(np.clip((p - 2) * log_scale, -EXP_CLIP, EXP_CLIP))
        if record:
            traj["lambdas"].append(lam.copy())
        denom = lam.sum(axis=1) if normalized else np.full(lam.shape[0], float(n))
        denom = np.where(denom > 0, denom, 1.0)  # no mistakes: nothing to normalise, the step is 0
        ly = (step / denom)[:, None] * lam * y  # (R, n)
        if record and frozen.any():
            ly[frozen] = 0.0
        coef = ly[:, None, :] * a[:, :, None] * act.grad(P)
        if trained:
            a = a + np.einsum("rn,rmn->rm", ly, phi)
        rep.add(coef)
        if renormalize:
            s = np.sqrt(rep.sqnorm() + (np.einsum("rm,rm->r", a, a) if trained else 0.0))
            rep.scale(1.0 / s)
            if trained:
                a = a / s[:, None]
            log_scale = log_scale + np.log(s)
        stuck = watch.step(t + 1, full_state())

    if idx.size and keep_weights:
        final_W[idx] = rep.primal()
        final_a[idx] = a
        final_ell[idx] = log_scale
    result = BatchResult(
        iterations,
        final_W if keep_weights else None,
        final_a if keep_weights else None,
        final_ell if keep_weights else None,
        p,
        stalled_points=stalled_points,
    )
    if record:
        result.trajectory = {k: np.stack(v) for k, v in traj.items() if v}
    return result


def reference_run(
    B,
    y,
    model: Model,
    gamma: float,
    W0,
    a0,
    *,
    mode: Mode = "gd",
    loss: str = "logistic",
    normalized: bool = False,
    tie_weight: float = 0.5,
    first_step: str = "indicator",
    max_iter: int = 10_000,
    start: str = "vanishing",
) -> int:
    """One run, written plainly in the (m, d) weights: the per-run numpy loop that the batched
    engine is benchmarked and tested against. Returns the iterations to separation, -1 at the cap,
    -2 when it diverged, -3 when it stalled (see :class:`BatchResult`)."""
    B = np.asarray(B, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    n = B.shape[0]
    act = model.activation
    p = 1.0 if model.kind == "linear" else model.degree
    trained = model.train_outer
    W = np.array(W0, dtype=np.float64)
    a = np.array(a0, dtype=np.float64)
    raw0 = y * (a @ act.fn(W @ B.T))
    ell = 0.0
    if p == 1.0:
        from_w0 = mode == "gd" or start == "init"
        W = W / gamma if from_w0 else W * TINY_INIT
        ell = np.log(gamma) if from_w0 else 0.0
    elif p is not None and p > 1:
        s0 = np.sqrt(np.sum(W * W) + (np.sum(a * a) if trained else 0.0))
        W, ell = W / s0, np.log(s0)
        if trained:
            a = a / s0
    track_scale = p is not None and p > 1 and mode == "gd"

    def full_state():
        return np.concatenate([W.ravel()] + ([a] if trained else []) + ([[ell]] if track_scale else []))[None]

    watch = StallWatch(full_state())
    stuck = False
    for t in range(max_iter + 1):
        P = W @ B.T
        phi = act.fn(P)
        m = y * (a @ phi)
        if not np.all(np.abs(m) < DIVERGED):
            return BLOWN
        if np.all(m > 0):
            return t
        if stuck:
            return STALLED
        if t == max_iter:
            return CAPPED
        if mode == "perceptron":
            if t == 0 and first_step == "limit":
                lam = expit(-raw0)
            else:
                lam = (m < 0) + (0.5 if t == 0 else tie_weight) * (m == 0)
            step = 1.0 if p == 1.0 else gamma
        else:
            if p is None:
                true, step = m, gamma
            elif p == 1.0:
                true, step = gamma * m, 1.0
            else:
                true = m * np.exp(min(p * ell, EXP_CLIP))
                step = gamma * np.exp(np.clip((p - 2) * ell, -EXP_CLIP, EXP_CLIP))
            lam = expit(-true) if loss == "logistic" else np.exp(np.minimum(-true, EXP_CLIP))
        denom = lam.sum() if normalized else n
        ly = step / (denom if denom > 0 else 1.0) * lam * y
        grad_W = (a[:, None] * act.grad(P) * ly[None, :]) @ B
        if trained:
            a = a + phi @ ly
        W = W + grad_W
        if p is not None and p > 1:
            s = np.sqrt(np.sum(W * W) + (np.sum(a * a) if trained else 0.0))
            W = W / s
            if trained:
                a = a / s
            ell += np.log(s)
        stuck = bool(watch.step(t + 1, full_state())[0])
    return CAPPED


def classical_perceptron(B, y, max_updates: int = 1_000_000) -> tuple[int, np.ndarray]:
    """Rosenblatt's perceptron from theta = 0: cyclic passes, update theta += y_i b_i on every
    sample with y_i b_i^T theta <= 0 (ties are mistakes). Returns (updates until every margin is
    > 0, theta); updates = -1 at the cap. Margins are tracked through the Gram matrix."""
    B = np.asarray(B, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    Z = y[:, None] * B
    G = Z @ Z.T
    n = B.shape[0]
    alpha = np.zeros(n)
    margins = np.zeros(n)
    updates, i, clean = 0, 0, 0
    while clean < n:  # stop after a full pass without a mistake
        if margins[i] <= 0:
            if updates == max_updates:
                return -1, alpha @ Z
            alpha[i] += 1.0
            margins += G[i]
            updates += 1
            clean = 0
        else:
            clean += 1
        i = (i + 1) % n
    return updates, alpha @ Z
