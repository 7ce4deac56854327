"""Sparse + low-rank decomposition of a precision matrix (cvxpy, SCS): Sigma^-1 = S - L.

The D-trace loss 0.5 ||R Sigma^(1/2)||_F^2 - tr R is minimised by R = Sigma^-1; an l1 penalty keeps S sparse
(judge-judge dependence) and a nuclear-norm penalty keeps L (the latent quality and confounders) of low rank.
"""

from __future__ import annotations

import numpy as np


def _sqrtm_psd(A: np.ndarray) -> np.ndarray:
    import scipy.linalg

    return np.real(scipy.linalg.sqrtm(0.5 * (A + A.T)))


def decompose(
    sigma: np.ndarray,
    *,
    lam_S: float | None = None,
    lam_L: float | None = None,
    gamma: float | None = None,
    scale: float = 1.0,
    max_iters: int | None = None,
    eps: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(S, L) for one penalty setting: either ``gamma`` (penalty lam (gamma ||S||_1 + ||L||_*) with
    lam = ``scale`` 4e-3 / sqrt(p); the published level is ``scale`` 1) or ``lam_S`` and ``lam_L`` apart. S, L and R = S - L are kept positive
    semidefinite. Raises RuntimeError when the solver returns no solution."""
    import cvxpy as cp

    A = np.asarray(sigma, dtype=float)
    p = A.shape[0]
    root = _sqrtm_psd(A)
    L = cp.Variable((p, p), PSD=True)
    S = cp.Variable((p, p), PSD=True)
    R = cp.Variable((p, p), PSD=True)
    loss = 0.5 * cp.norm(R @ root, "fro") ** 2 - cp.trace(R)
    if gamma is not None:
        lam = scale * 4e-3 / np.sqrt(p)
        penalty = lam * (gamma * cp.pnorm(S, 1) + cp.norm(L, "nuc"))
    else:
        if lam_S is None or lam_L is None:
            raise ValueError("give gamma, or both lam_S and lam_L")
        penalty = lam_S * cp.pnorm(S, 1) + lam_L * cp.norm(L, "nuc")
    problem = cp.Problem(cp.Minimize(loss + penalty), [R == S - L, L >> 0])
    kwargs = {}
    if max_iters is not None:
        kwargs["max_iters"] = int(max_iters)
    if eps is not None:
        kwargs["eps"] = float(eps)
    try:
        problem.solve(solver=cp.SCS, **kwargs)
    except cp.error.SolverError as exc:
        raise RuntimeError(f"SCS failed: {exc}") from None
    if S.value is None or L.value is None:
        raise RuntimeError(f"SCS returned no solution (status {problem.status})")
    S_hat, L_hat = np.asarray(S.value), np.asarray(L.value)
    return 0.5 * (S_hat + S_hat.T), 0.5 * (L_hat + L_hat.T)


def heldout_loglik(R: np.ndarray, sigma_val: np.ndarray) -> float:
    """Gaussian log-likelihood per item (up to constants) of precision R on a held-out covariance:
    0.5 (log det R - tr(R Sigma_val)); -inf when R is not positive definite."""
    sign, logdet = np.linalg.slogdet(0.5 * (R + R.T))
    if sign <= 0:
        return float("-inf")
    return float(0.5 * (logdet - np.trace(R @ sigma_val)))


def latent_rank(L: np.ndarray, floor: float = 1e-3) -> int:
    """The number of latent factors in L: 0 when its largest eigenvalue is under ``floor``, else the r (at most
    half the judges) with the largest eigengap l_r / l_(r+1). The penalty is small, so L also absorbs sampling
    noise; the gap separates the factors from it (eigenvalues under 5% of the largest count as noise)."""
    ev = np.sort(np.linalg.eigvalsh(0.5 * (L + L.T)))[::-1]
    if ev[0] < floor:
        return 0
    ev = np.maximum(ev, 0.05 * ev[0])  # the near-zero tail has no gap worth reading
    top = max(1, min(len(ev) - 1, len(ev) // 2))
    ratios = ev[:top] / ev[1 : top + 1]
    return int(np.argmax(ratios)) + 1
