"""The functional ReLU network on B-spline scores, its MAP training with an annealed grouped
spike-and-slab prior, and the Laplace approximation (torch; no toolkit imports).

Networks for the R random restarts are trained *together*: every weight tensor carries a leading
restart axis and the restarts' losses are summed, so their gradients (and Adam's elementwise
updates) stay independent while Python's per-step overhead is paid once.

Per-sample objective of restart r (y standardised, ``ramp`` goes 0 -> 1 over the annealing epochs)::

    loss_r(theta) + ramp / n * ( -sum_j log pi(W1[:, j]) + sum_other ||theta||^2 / (2 sigma_other_sq) )

with ``pi`` the spike-and-slab mixture on column j of the first layer (see :mod:`.prior`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

from toolkit_sbayfdnn.prior import torch_log_mixture_prior


@dataclass(frozen=True)
class PriorConfig:
    lam: float = 1e-5
    sigma0_sq: float = 1e-5
    sigma1_sq: float = 5e-3
    sigma_other_sq: float = 1.0


def init_params(
    n_restarts: int,
    n_in: int,
    widths: tuple[int, ...],
    generator: torch.Generator,
    dtype=torch.float32,
    device="cpu",
) -> list[torch.Tensor]:
    """He-uniform initialised weights [W1, b1, W2, b2, ..., W_out, b_out], each with a restart axis."""
    params = []
    sizes = (n_in, *widths, 1)
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1.0 / math.sqrt(fan_in)
        W = (torch.rand(n_restarts, fan_out, fan_in, generator=generator, dtype=dtype) * 2 - 1) * bound
        b = (torch.rand(n_restarts, fan_out, generator=generator, dtype=dtype) * 2 - 1) * bound
        params += [W.to(device), b.to(device)]
    return params


def forward(params: list[torch.Tensor], Z: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    """Outputs (R, n) of the R networks on scores Z (n, J); ``mask`` (R, J) zeroes first-layer columns."""
    W1, b1 = params[0], params[1]
    if mask is not None:
        W1 = W1 * mask[:, None, :]
    h = torch.relu(torch.einsum("nj,rhj->rnh", Z, W1) + b1[:, None, :])
    n_layers = len(params) // 2
    for layer in range(1, n_layers):
        W, b = params[2 * layer], params[2 * layer + 1]
        h = torch.baddbmm(b[:, None, :], h, W.transpose(1, 2))
        if layer < n_layers - 1:
            h = torch.relu(h)
    return h.squeeze(-1)


def data_loss(out: torch.Tensor, y: torch.Tensor, task: str) -> torch.Tensor:
    """Per-restart mean loss (R,): squared error (regression) or binary cross-entropy (logits)."""
    if task == "classification":
        return torch.nn.functional.binary_cross_entropy_with_logits(
            out, y.expand_as(out), reduction="none"
        ).mean(dim=1)
    return ((out - y) ** 2).mean(dim=1)


def neg_log_prior(
    params: list[torch.Tensor],
    prior: PriorConfig,
    mask: torch.Tensor | None,
    spike_slab: bool = True,
    normalised: bool = False,
) -> torch.Tensor:
    """-log prior per restart (R,). First-layer columns get the mixture (only unmasked columns count),
    other weights N(0, sigma_other_sq). ``normalised`` adds the Gaussian constants (for evidences)."""
    W1 = params[0]
    H = W1.shape[1]
    if spike_slab:
        col_norm_sq = (W1**2).sum(dim=1)  # (R, J)
        logp = torch_log_mixture_prior(col_norm_sq, H, prior.lam, prior.sigma0_sq, prior.sigma1_sq)
        if mask is not None:
            # a masked column is fixed at 0: it contributes the prior probability of exclusion
            logp = torch.where(mask > 0, logp, torch.full_like(logp, math.log(1 - prior.lam)))
        total = -logp.sum(dim=1)
        others = params[1:]
    else:
        total = torch.zeros(W1.shape[0], dtype=W1.dtype, device=W1.device)
        others = params
    for p in others:
        flat = p.reshape(p.shape[0], -1)
        total = total + 0.5 * (flat**2).sum(dim=1) / prior.sigma_other_sq
        if normalised:
            total = total + 0.5 * flat.shape[1] * math.log(2 * math.pi * prior.sigma_other_sq)
    return total


def train(
    params: list[torch.Tensor],
    Z: torch.Tensor,
    y: torch.Tensor,
    *,
    task: str,
    prior: PriorConfig,
    epochs: int,
    lr: float,
    anneal_epochs: int = 0,
    mask: torch.Tensor | None = None,
    spike_slab: bool = True,
    Z_val: torch.Tensor | None = None,
    y_val: torch.Tensor | None = None,
    check_every: int = 25,
    patience: int = 20,
) -> tuple[list[torch.Tensor], dict]:
    """Full-batch Adam on the annealed MAP objective. With validation data, early-stops each restart
    at its best validation loss (checked every ``check_every`` epochs) and returns those weights."""
    params = [p.detach().clone().requires_grad_(True) for p in params]
    opt = torch.optim.Adam(params, lr=lr)
    n = Z.shape[0]
    best = None
    if Z_val is not None:
        dev = params[0].device
        best = {
            "loss": torch.full((params[0].shape[0],), float("inf"), device=dev),
            "params": [p.detach().clone() for p in params],
            "epoch": torch.zeros(params[0].shape[0], dtype=torch.long, device=dev),
        }
        stale = 0
    for epoch in range(epochs):
        ramp = 1.0 if anneal_epochs <= 0 else min(1.0, (epoch + 1) / anneal_epochs)
        out = forward(params, Z, mask)
        objective = data_loss(out, y, task) + ramp / n * neg_log_prior(params, prior, mask, spike_slab)
        opt.zero_grad(set_to_none=True)
        objective.sum().backward()
        opt.step()
        if best is not None and (epoch + 1) % check_every == 0:
            with torch.no_grad():
                val = data_loss(forward(params, Z_val, mask), y_val, task)
                improved = val < best["loss"]
                if bool(improved.any()):
                    stale = 0
                    best["loss"] = torch.where(improved, val, best["loss"])
                    best["epoch"] = torch.where(
                        improved, torch.full_like(best["epoch"], epoch + 1), best["epoch"]
                    )
                    for keep, p in zip(best["params"], params):
                        shape = (-1,) + (1,) * (p.dim() - 1)
                        keep.copy_(torch.where(improved.view(shape), p.detach(), keep))
                else:
                    stale += 1
                    if stale >= patience:
                        break
    info = {"epochs_run": epoch + 1}
    if best is not None:
        info["best_epoch"] = best["epoch"].tolist()
        return [p.detach() for p in best["params"]], info
    return [p.detach() for p in params], info


# -- Laplace approximation ------------------------------------------------------------------------


def flatten(params: list[torch.Tensor]) -> torch.Tensor:
    return torch.cat([p.reshape(-1) for p in params])


def unflatten(theta: torch.Tensor, shapes: list[torch.Size]) -> list[torch.Tensor]:
    out, start = [], 0
    for shape in shapes:
        size = int(np.prod(shape))
        out.append(theta[start : start + size].reshape(shape))
        start += size
    return out


def laplace_log_evidence(
    objective, theta_star: torch.Tensor, n: int, hessian: torch.Tensor | None = None
) -> dict:
    """Laplace log evidence of ``exp(-n * objective(theta))`` around its minimiser ``theta_star``:

        -n obj(theta*) + d/2 log 2 pi - d/2 log n - 1/2 log det Hess obj(theta*)

    ``objective`` maps a flat parameter vector (float64) to a scalar. ``hessian`` defaults to the
    exact one (``torch.func.hessian``); the network passes its generalised Gauss-Newton matrix, which
    is positive definite (the exact Hessian of a ReLU network is indefinite away from a strict
    minimum and costs minutes at d ~ 3000). Also returns the Cholesky factor of ``n Hess`` (the
    posterior precision) for predictive intervals.
    """
    theta_star = theta_star.detach().to(torch.float64)
    d = theta_star.numel()
    if hessian is None:
        hessian = torch.func.hessian(objective)(theta_star)
    hessian = 0.5 * (hessian + hessian.T)
    chol, info = torch.linalg.cholesky_ex(hessian)
    jitter = 0.0
    while int(info) != 0:  # not positive definite (exact Hessian off a strict minimum): add a ridge
        jitter = max(jitter * 10, 1e-10 * float(hessian.diagonal().abs().max()))
        chol, info = torch.linalg.cholesky_ex(
            hessian + jitter * torch.eye(d, dtype=hessian.dtype, device=hessian.device)
        )
    logdet = 2.0 * float(torch.log(chol.diagonal()).sum())
    value = float(objective(theta_star))
    log_ev = -n * value + 0.5 * d * math.log(2 * math.pi) - 0.5 * d * math.log(n) - 0.5 * logdet
    return {
        "log_evidence": log_ev,
        "n_params": d,
        "jitter": jitter,
        "precision_chol": chol * math.sqrt(n),
        "objective": value,
        "logdet_hessian": logdet,
    }


def posterior_predictive_variance(jacobian: torch.Tensor, precision_chol: torch.Tensor) -> torch.Tensor:
    """diag(J Sigma J^T) with Sigma = (L L^T)^{-1}: ||L^{-1} g||^2 per row g of ``jacobian``."""
    solved = torch.linalg.solve_triangular(precision_chol, jacobian.T, upper=False)
    return (solved**2).sum(dim=0)


def gauss_newton_hessian(
    params_free_shapes,
    theta: torch.Tensor,
    Z: torch.Tensor,
    y: torch.Tensor,
    *,
    task: str,
    prior: PriorConfig,
    noise_var: float | None,
) -> torch.Tensor:
    """Per-sample GGN of the negative log joint: ``J^T Lambda J / n + Hess(-log prior) / n`` with
    ``Lambda = 1/sigma^2`` (regression) or ``p(1-p)`` (classification); the prior part is exact."""
    n = Z.shape[0]
    jac = output_jacobian(params_free_shapes, theta, Z)  # (n, d)
    if task == "classification":
        with torch.no_grad():
            parts = unflatten(theta, params_free_shapes)
            p = torch.sigmoid(forward([parts[0].unsqueeze(0)] + parts[1:], Z)[0])
        lam_diag = p * (1 - p)
    else:
        lam_diag = torch.full((n,), 1.0 / noise_var, dtype=theta.dtype, device=theta.device)
    ggn = (jac * lam_diag[:, None]).T @ jac
    k = params_free_shapes[0][1]
    H = params_free_shapes[0][0]
    n_first = H * k
    hess = ggn
    # prior: other weights Gaussian -> diagonal 1/sigma_other_sq; first-layer columns: mixture in ||w||^2
    diag = torch.full((theta.numel(),), 1.0 / prior.sigma_other_sq, dtype=theta.dtype, device=theta.device)
    diag[:n_first] = 0.0
    hess = hess + torch.diag(diag)
    W1 = theta[:n_first].reshape(H, k)
    for j in range(k):
        w = W1[:, j]
        s = (w**2).sum().detach().requires_grad_(True)
        phi = -torch_log_mixture_prior(s, H, prior.lam, prior.sigma0_sq, prior.sigma1_sq)
        (d1,) = torch.autograd.grad(phi, s, create_graph=True)
        (d2,) = torch.autograd.grad(d1, s)
        # columns of W1 are stored row-major (H, k): entry (h, j) sits at h * k + j
        idx = torch.arange(H, device=theta.device) * k + j
        eye = torch.eye(H, dtype=theta.dtype, device=theta.device)
        block = 2 * d1.detach() * eye + 4 * d2 * torch.outer(w, w)
        hess[idx[:, None], idx[None, :]] += block
    return hess / n


def laplace_objective(
    params: list[torch.Tensor],
    Z: torch.Tensor,
    y: torch.Tensor,
    *,
    task: str,
    prior: PriorConfig,
    mask: torch.Tensor,
    noise_var: float | None,
):
    """The per-sample negative log joint of one network (restart axis of size 1) as a function of the
    flat vector of its *free* parameters (unmasked first-layer columns and all other weights)."""
    keep = mask[0] > 0
    W1_full = params[0][0]
    rest = params[1:]
    shapes = [torch.Size([W1_full.shape[0], int(keep.sum())])] + [p.shape for p in rest]
    n = Z.shape[0]
    Zk = Z[:, keep]
    sub_mask = torch.ones(1, int(keep.sum()), dtype=Z.dtype, device=Z.device)
    n_masked = int((~keep).sum())

    def objective(theta: torch.Tensor) -> torch.Tensor:
        parts = unflatten(theta, shapes)
        ps = [parts[0].unsqueeze(0)] + parts[1:]
        out = forward(ps, Zk)[0]
        if task == "classification":
            nll = torch.nn.functional.binary_cross_entropy_with_logits(out, y, reduction="sum")
        else:
            nll = 0.5 * ((y - out) ** 2).sum() / noise_var + 0.5 * n * math.log(2 * math.pi * noise_var)
        nlp = neg_log_prior(ps, prior, sub_mask, spike_slab=True, normalised=True)[0]
        nlp = nlp - n_masked * math.log(1 - prior.lam)
        return (nll + nlp) / n

    theta = flatten([W1_full[:, keep]] + list(rest))
    return objective, theta, shapes, keep


def output_jacobian(params_free_shapes, theta: torch.Tensor, Zk: torch.Tensor) -> torch.Tensor:
    """d f(x) / d theta for each row of Zk: (n, d), in the order of ``flatten``.

    Written out by back-propagation by hand (for a ReLU MLP the gradient of layer l's weights is
    ``delta_l outer a_{l-1}``); ``torch.func.jacrev`` gives the same numbers 20x slower on CPU.
    """
    parts = unflatten(theta, params_free_shapes)
    weights = [parts[0]] + [parts[i][0] for i in range(2, len(parts), 2)]
    biases = [parts[1][0]] + [parts[i][0] for i in range(3, len(parts), 2)]
    acts, pres = [Zk], []
    h = Zk
    for layer, (W, b) in enumerate(zip(weights, biases)):
        pre = h @ W.T + b
        pres.append(pre)
        h = torch.relu(pre) if layer < len(weights) - 1 else pre
        acts.append(h)
    n = Zk.shape[0]
    delta = torch.ones(n, 1, dtype=Zk.dtype, device=Zk.device)
    blocks = []
    for layer in range(len(weights) - 1, -1, -1):
        grad_W = (delta[:, :, None] * acts[layer][:, None, :]).reshape(n, -1)
        blocks = [grad_W, delta] + blocks
        if layer > 0:
            delta = (delta @ weights[layer]) * (pres[layer - 1] > 0).to(Zk.dtype)
    return torch.cat(blocks, dim=1)


def one_column_toy_evidence(
    n: int = 50,
    w_true: float = 0.5,
    lam: float = 0.5,
    sigma0_sq: float = 1e-3,
    sigma1_sq: float = 1.0,
    seed: int = 0,
) -> dict:
    """Laplace vs brute-force log evidence on a one-column toy: ``y_i = w z_i + N(0, 1)``, a single
    weight with the spike-and-slab prior (H = 1). Returns both log evidences and their relative gap.

    The brute force integrates ``exp(-n obj(w))`` over w on a fine grid (trapezoid, log-sum-exp).
    """
    from scipy.optimize import minimize_scalar
    from scipy.special import logsumexp

    from toolkit_sbayfdnn.prior import log_mixture_prior

    rng = np.random.default_rng(seed)
    z = rng.standard_normal(n)
    y = w_true * z + rng.standard_normal(n)
    zt, yt = torch.as_tensor(z), torch.as_tensor(y)

    def objective(theta: torch.Tensor) -> torch.Tensor:
        w = theta[0]
        nll = 0.5 * ((yt - w * zt) ** 2).sum() + 0.5 * n * math.log(2 * math.pi)
        nlp = -torch_log_mixture_prior(w**2, 1, lam, sigma0_sq, sigma1_sq)
        return (nll + nlp) / n

    def objective_np(w):
        w = np.asarray(w, dtype=float)
        nll = 0.5 * ((y[None, :] - w.reshape(-1, 1) * z[None, :]) ** 2).sum(axis=1) + 0.5 * n * math.log(
            2 * math.pi
        )
        return (nll - log_mixture_prior(w.reshape(-1) ** 2, 1, lam, sigma0_sq, sigma1_sq)) / n

    w_hat = float(np.sum(z * y) / np.sum(z * z))
    w_star = minimize_scalar(
        lambda w: float(objective_np(w)[0]), bracket=(w_hat - 0.5, w_hat, w_hat + 0.5), tol=1e-12
    ).x
    laplace = laplace_log_evidence(objective, torch.tensor([w_star], dtype=torch.float64), n)["log_evidence"]
    grid = np.linspace(w_star - 8.0, w_star + 8.0, 160001)
    log_f = -n * objective_np(grid)
    step = grid[1] - grid[0]
    weights = np.full(grid.shape, step)
    weights[[0, -1]] = step / 2
    brute = float(logsumexp(log_f, b=weights))
    return {
        "laplace": float(laplace),
        "brute_force": brute,
        "w_star": float(w_star),
        "relative_gap": abs(laplace - brute) / abs(brute),
    }


def first_layer_log_evidence(
    single: list[torch.Tensor],
    Z: torch.Tensor,
    y: torch.Tensor,
    *,
    task: str,
    prior: PriorConfig,
    mask: torch.Tensor,
    noise_var: float | None,
    hessian: torch.Tensor,
) -> float:
    """Laplace log evidence of the region (first-layer) weights with the downstream layers held at their
    MAP: ``log p(y | W1, rest) + log p(W1)`` integrated over the kept columns of W1 only.

    ``single`` is one network (restart axis of size 1, float64), ``hessian`` its per-sample GGN over
    the free parameters (:func:`gauss_newton_hessian`), whose leading ``H x k`` block belongs to the
    ``k`` kept columns. With no kept column this is the log likelihood of the constant fit plus the
    prior mass of excluding every column. Comparing it between a network and the empty model asks
    only whether the *regions* are supported by the data: the Occam factor of the ~2,000 downstream
    weights, which the full evidence charges to every network but not to the empty model (whose
    downstream weights the data cannot see), cancels (README, "Why the empty model won").
    """
    n = Z.shape[0]
    keep = mask[0] > 0
    with torch.no_grad():
        out = forward(single, Z, mask)[0]
        if task == "classification":
            nll = float(torch.nn.functional.binary_cross_entropy_with_logits(out, y, reduction="sum"))
        else:
            nll = float(
                0.5 * ((y - out) ** 2).sum() / noise_var + 0.5 * n * math.log(2 * math.pi * noise_var)
            )
        col_norm_sq = (single[0][0] ** 2).sum(dim=0)
        logp = torch_log_mixture_prior(
            col_norm_sq[keep], single[0].shape[1], prior.lam, prior.sigma0_sq, prior.sigma1_sq
        ).sum()
        log_prior = float(logp) + int((~keep).sum()) * math.log(1 - prior.lam)
    d1 = single[0].shape[1] * int(keep.sum())
    if d1 == 0:
        return -nll + log_prior
    block = hessian[:d1, :d1]
    block = 0.5 * (block + block.T)
    chol, info = torch.linalg.cholesky_ex(block)
    jitter = 0.0
    while int(info) != 0:
        jitter = max(jitter * 10, 1e-10 * float(block.diagonal().abs().max()))
        chol, info = torch.linalg.cholesky_ex(
            block + jitter * torch.eye(d1, dtype=block.dtype, device=block.device)
        )
    logdet = 2.0 * float(torch.log(chol.diagonal()).sum())
    return -nll + log_prior + 0.5 * d1 * math.log(2 * math.pi) - 0.5 * d1 * math.log(n) - 0.5 * logdet


def savage_dickey_log_bayes_factors(
    single: list[torch.Tensor],
    Z: torch.Tensor,
    y: torch.Tensor,
    *,
    prior: PriorConfig,
    mask: torch.Tensor,
    noise_var: float,
) -> np.ndarray:
    """Per-column log Bayes factor "column j in the slab" vs "column j exactly 0", from one Laplace
    posterior of the network with *every* column in the slab (regression).

    The plug-in PIP reads one mode of a bimodal posterior (spike or slab) and is therefore 0 or 1.
    Here the posterior of the all-slab model is approximated once around the fitted network (masked
    columns at 0): precision ``A = J^T J / sigma^2 + D`` (``D``: 1/sigma1^2 on W1, 1/sigma_other^2
    elsewhere), mean one Newton step from the fit, ``mu = theta - A^-1 grad`` (the masked columns'
    gradient is not zero). Savage-Dickey (point spike): ``BF_j = N(0; 0, sigma1^2 I_H) / N(0; mu_j,
    Sigma_jj)`` with ``Sigma_jj`` the H x H marginal covariance of column j, so correlated neighbouring
    columns (which can carry each other's signal) widen it. Returns ``log BF_j`` (J,).
    """
    W1 = (single[0][0] * mask[0][None, :]).double()
    rest = [p.double() for p in single[1:]]
    H, J = W1.shape
    shapes = [W1.shape] + [p.shape for p in rest]
    theta = flatten([W1] + rest)
    with torch.no_grad():
        out = forward([W1.unsqueeze(0)] + rest, Z.double())[0]
    jac = output_jacobian(shapes, theta, Z.double())
    resid = y.double() - out
    d = theta.numel()
    D = torch.full((d,), 1.0 / prior.sigma_other_sq, dtype=torch.float64, device=theta.device)
    D[: H * J] = 1.0 / prior.sigma1_sq
    A = jac.T @ jac / noise_var + torch.diag(D)
    grad = -jac.T @ resid / noise_var + D * theta
    chol = torch.linalg.cholesky(0.5 * (A + A.T))
    cov = torch.cholesky_inverse(chol)
    mu = theta - cov @ grad
    log_bf = np.empty(J)
    for j in range(J):
        idx = torch.arange(H, device=theta.device) * J + j  # W1 is flattened row-major (H, J)
        S = cov[idx[:, None], idx[None, :]]
        m = mu[idx]
        c, info = torch.linalg.cholesky_ex(0.5 * (S + S.T))
        logdet = 2.0 * float(torch.log(c.diagonal()).sum())
        quad = float((torch.cholesky_solve(m[:, None], c)[:, 0] * m).sum())
        log_post_at_0 = -0.5 * H * math.log(2 * math.pi) - 0.5 * logdet - 0.5 * quad
        log_prior_at_0 = -0.5 * H * math.log(2 * math.pi * prior.sigma1_sq)
        log_bf[j] = log_prior_at_0 - log_post_at_0
    return log_bf
