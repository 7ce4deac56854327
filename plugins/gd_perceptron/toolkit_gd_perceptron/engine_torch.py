"""The batched engine of :mod:`engine` in torch, for CUDA (or CPU) devices.

Same maths, same parameters and the same iteration counts as :func:`engine.run_batch` (float64),
without trajectory recording. torch is imported inside the function so the plugin imports without it.
Built-in activations only (user callables are numpy functions).
"""

from __future__ import annotations

import numpy as np

from toolkit_gd_perceptron.engine import BLOWN, DIVERGED, EXP_CLIP, STALLED, TINY_INIT, _validate
from toolkit_gd_perceptron.models import LEAKY_SLOPE, Model

TORCH_INSTALL = (
    "pip install 'theory-toolkit-gd-perceptron[torch]' (the CPU-only build: "
    "pip install torch --index-url https://download.pytorch.org/whl/cpu)"
)


def import_torch():
    """torch, or a MissingDependencyError that says how to install it (torch is an optional extra)."""
    from toolkit import require

    return require(
        "torch", install=TORCH_INSTALL, needed_for="gd_perceptron's torch backend (backend='torch')"
    )


def _activation(torch, name, grad_at_zero=None):
    if name == "linear":
        return (lambda s: s), (lambda s: torch.ones_like(s))
    if name == "relu":
        c = grad_at_zero or 0.0
        return (lambda s: torch.clamp(s, min=0.0)), (lambda s: (s > 0).to(s.dtype) + c * (s == 0).to(s.dtype))
    if name == "leaky_relu":
        return (lambda s: torch.where(s > 0, s, LEAKY_SLOPE * s)), (
            lambda s: torch.where(s > 0, torch.ones_like(s), torch.full_like(s, LEAKY_SLOPE))
        )
    if name == "quadratic":
        return (lambda s: s * s), (lambda s: 2.0 * s)
    raise ValueError(f"the torch engine supports the built-in activations only, got {name!r}")


def run_batch_torch(
    B,
    y,
    model: Model,
    gammas,
    W0,
    a0,
    *,
    mode: str = "gd",
    loss: str = "logistic",
    normalized: bool = False,
    tie_weight: float = 0.5,
    first_step: str = "indicator",
    max_iter: int = 10_000,
    representation: str = "auto",
    device: str = "cpu",
    start: str = "vanishing",
) -> np.ndarray:
    """Iterations to separation of R runs (-1 at the cap, -2 diverged), advanced together on ``device``."""
    torch = import_torch()

    B = np.ascontiguousarray(B, dtype=np.float64)
    y_np = np.asarray(y, dtype=np.float64)
    gam_np = np.atleast_1d(np.asarray(gammas, dtype=np.float64))
    W0 = np.asarray(W0, dtype=np.float64)
    a0 = np.asarray(a0, dtype=np.float64)
    if B.ndim != 2:
        raise ValueError(
            f"the torch engine takes one dataset shared by all runs, shape (n, d); got {B.shape}"
        )
    _validate(B[None], y_np[None], gam_np, W0, a0, mode, loss, tie_weight, first_step, max_iter, start)
    if representation not in ("auto", "dual", "primal"):
        raise ValueError(f"representation must be 'auto', 'dual' or 'primal', got {representation!r}")
    dev = torch.device(device)
    f64 = dict(dtype=torch.float64, device=dev)
    n, d = B.shape
    R = gam_np.shape[0]
    fn, grad = _activation(torch, model.activation.name, model.activation.grad_at_zero)
    p = 1.0 if model.kind == "linear" else model.degree
    trained = model.train_outer
    renormalize = p is not None and p > 1

    Bt, yt = torch.as_tensor(B, **f64), torch.as_tensor(y_np, **f64)
    W0t, a = torch.as_tensor(W0, **f64), torch.as_tensor(a0, **f64).clone()
    gam = torch.as_tensor(gam_np, **f64)
    raw0 = yt * torch.einsum("rm,rmn->rn", a, fn(W0t @ Bt.T))
    if p == 1.0:
        from_w0 = mode == "gd" or start == "init"
        c0 = 1.0 / gam if from_w0 else torch.full((R,), TINY_INIT, **f64)
        ell = torch.log(gam) if from_w0 else torch.zeros(R, **f64)
    elif renormalize:
        s0 = torch.sqrt((W0t * W0t).sum((1, 2)) + ((a * a).sum(1) if trained else 0.0))
        if bool((s0 == 0).any()):
            raise ValueError("a degree > 1 model started at zero never moves: give it a non-zero init")
        c0, ell = 1.0 / s0, torch.log(s0)
    else:
        c0, ell = torch.ones(R, **f64), torch.zeros(R, **f64)
    if trained:
        a = a * c0[:, None]
    dual = representation == "dual" or (representation == "auto" and n < d)
    if dual:
        G = Bt @ Bt.T
        P0 = W0t @ Bt.T
        N0 = (W0t * W0t).sum((1, 2))
        kappa = c0.clone()
        C = torch.zeros_like(P0)
    else:
        W = W0t * c0[:, None, None]

    iterations = np.full(R, -1, dtype=np.int64)
    idx = torch.arange(R, device=dev)
    track_scale = renormalize and mode == "gd"

    def full_state():  # the state whose repetition means a stall (as in engine.StallWatch)
        parts = [kappa[:, None], C.flatten(1)] if dual else [W.flatten(1)]
        parts += ([a] if trained else []) + ([ell[:, None]] if track_scale else [])
        return torch.cat(parts, 1)

    prev = snap = full_state()
    snap_t = 0
    stuck = torch.zeros(R, dtype=torch.bool, device=dev)
    for t in range(max_iter + 1):
        P = kappa[:, None, None] * P0 + C @ G if dual else W @ Bt.T
        phi = fn(P)
        margins = yt * torch.einsum("rm,rmn->rn", a, phi)
        blown = ~(margins.abs() < DIVERGED).all(1)
        separated = (margins > 0).all(1) & ~blown
        stalled = stuck & ~separated & ~blown
        done = separated | blown | stalled
        if bool(done.any()):
            ids = idx[done].cpu().numpy()
            iterations[ids] = np.where(
                separated[done].cpu().numpy(), t, np.where(blown[done].cpu().numpy(), BLOWN, STALLED)
            )
            keep = ~done
            idx, a, ell, gam, raw0 = idx[keep], a[keep], ell[keep], gam[keep], raw0[keep]
            P, phi, margins = P[keep], phi[keep], margins[keep]
            prev, snap = prev[keep], snap[keep]
            if dual:
                P0, N0, kappa, C = P0[keep], N0[keep], kappa[keep], C[keep]
            else:
                W = W[keep]
            if idx.numel() == 0:
                break
        if t == max_iter:
            break
        if mode == "perceptron":
            if t == 0 and first_step == "limit":
                lam = torch.sigmoid(-raw0)
            else:
                tie = 0.5 if t == 0 else tie_weight
                lam = (margins < 0).to(torch.float64) + tie * (margins == 0).to(torch.float64)
            step = torch.ones_like(gam) if p == 1.0 else gam
        else:
            if p is None:
                true, step = margins, gam
            elif p == 1.0:
                true, step = gam[:, None] * margins, torch.ones_like(gam)
            else:
                true = margins * torch.exp(torch.clamp(p * ell, max=EXP_CLIP))[:, None]
                step = gam * torch.exp(torch.clamp((p - 2) * ell, -EXP_CLIP, EXP_CLIP))
            lam = torch.sigmoid(-true) if loss == "logistic" else torch.exp(torch.clamp(-true, max=EXP_CLIP))
        denom = lam.sum(1) if normalized else torch.full((lam.shape[0],), float(n), **f64)
        denom = torch.where(denom > 0, denom, torch.ones_like(denom))
        ly = (step / denom)[:, None] * lam * yt
        coef = ly[:, None, :] * a[:, :, None] * grad(P)
        if trained:
            a = a + torch.einsum("rn,rmn->rm", ly, phi)
        if dual:
            C = C + coef
        else:
            W = W + coef @ Bt
        if renormalize:
            if dual:
                sq = kappa * kappa * N0 + 2 * kappa * (C * P0).sum((1, 2)) + ((C @ G) * C).sum((1, 2))
            else:
                sq = (W * W).sum((1, 2))
            s = torch.sqrt(sq + ((a * a).sum(1) if trained else 0.0))
            if dual:
                kappa, C = kappa / s, C / s[:, None, None]
            else:
                W = W / s[:, None, None]
            if trained:
                a = a / s[:, None]
            ell = ell + torch.log(s)
        state = full_state()
        stuck = (state == prev).all(1) | (state == snap).all(1)
        prev = state
        if t + 1 >= 2 * max(snap_t, 1) or snap_t == 0:
            snap, snap_t = state, t + 1
    return iterations
