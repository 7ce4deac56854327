"""Grouped Gaussian spike-and-slab prior on first-layer columns: log density, plug-in inclusion
probabilities and their selection threshold (pure maths: numpy, optional torch).

Column ``w_j`` (length H) has ``r_j ~ Bernoulli(lam)`` and
``w_j | r_j ~ r_j N(0, sigma1_sq I_H) + (1 - r_j) N(0, sigma0_sq I_H)`` (variances, not sds).

Plug-in posterior inclusion probability (Sun, Song & Liang 2022; the released code):

    logit q_j = log(lam / (1 - lam)) + H/2 log(sigma0_sq / sigma1_sq) + ||w_j||^2 / 2 (1/sigma0_sq - 1/sigma1_sq)

so q_j > 1/2 exactly when ||w_j||^2 exceeds :func:`pip_threshold`.
"""

from __future__ import annotations

import math

import numpy as np


def check_prior(lam: float, sigma0_sq: float, sigma1_sq: float) -> None:
    if not 0.0 < lam < 1.0:
        raise ValueError(f"lam: prior inclusion probability must lie in (0, 1), got {lam}")
    if sigma0_sq <= 0 or sigma1_sq <= 0:
        raise ValueError(f"sigma0_sq and sigma1_sq: variances must be > 0, got {sigma0_sq}, {sigma1_sq}")


def pip_logit(norm_sq, H: int, lam: float, sigma0_sq: float, sigma1_sq: float):
    """logit q for squared column norms ``norm_sq`` (array-like)."""
    check_prior(lam, sigma0_sq, sigma1_sq)
    norm_sq = np.asarray(norm_sq, dtype=float)
    return (
        math.log(lam / (1.0 - lam))
        + 0.5 * H * math.log(sigma0_sq / sigma1_sq)
        + 0.5 * norm_sq * (1.0 / sigma0_sq - 1.0 / sigma1_sq)
    )


def inclusion_probability(norm_sq, H: int, lam: float, sigma0_sq: float, sigma1_sq: float):
    """Plug-in inclusion probability q = sigmoid(logit q), computed stably."""
    logit = pip_logit(norm_sq, H, lam, sigma0_sq, sigma1_sq)
    return np.where(
        logit >= 0,
        1.0 / (1.0 + np.exp(-np.abs(logit))),
        np.exp(-np.abs(logit)) / (1.0 + np.exp(-np.abs(logit))),
    )


def inclusion_probability_from_densities(norm_sq, H: int, lam: float, sigma0_sq: float, sigma1_sq: float):
    """The same q from its definition, lam N1 / (lam N1 + (1 - lam) N0), with log-densities
    (used to test the closed form)."""
    norm_sq = np.asarray(norm_sq, dtype=float)
    log_slab = math.log(lam) + gaussian_logpdf_norm(norm_sq, H, sigma1_sq)
    log_spike = math.log(1.0 - lam) + gaussian_logpdf_norm(norm_sq, H, sigma0_sq)
    top = np.maximum(log_slab, log_spike)
    return np.exp(log_slab - top) / (np.exp(log_slab - top) + np.exp(log_spike - top))


def pip_threshold(H: int, lam: float, sigma0_sq: float, sigma1_sq: float) -> float:
    """The squared column norm at which q = 1/2 (needs sigma0_sq < sigma1_sq)."""
    check_prior(lam, sigma0_sq, sigma1_sq)
    if not sigma0_sq < sigma1_sq:
        raise ValueError(
            f"sigma0_sq must be smaller than sigma1_sq for a spike, got {sigma0_sq} >= {sigma1_sq}"
        )
    numerator = -math.log(lam / (1.0 - lam)) - 0.5 * H * math.log(sigma0_sq / sigma1_sq)
    return numerator / (0.5 * (1.0 / sigma0_sq - 1.0 / sigma1_sq))


def gaussian_logpdf_norm(norm_sq, H: int, var: float):
    """log N(w; 0, var I_H) as a function of ||w||^2."""
    return -0.5 * H * math.log(2 * math.pi * var) - 0.5 * np.asarray(norm_sq, dtype=float) / var


def log_mixture_prior(norm_sq, H: int, lam: float, sigma0_sq: float, sigma1_sq: float):
    """log[lam N(w; 0, sigma1_sq I) + (1 - lam) N(w; 0, sigma0_sq I)] per column (numpy)."""
    from scipy.special import logsumexp

    a = math.log(lam) + gaussian_logpdf_norm(norm_sq, H, sigma1_sq)
    b = math.log(1.0 - lam) + gaussian_logpdf_norm(norm_sq, H, sigma0_sq)
    return logsumexp(np.stack([a, b]), axis=0)


def torch_log_mixture_prior(norm_sq, H: int, lam: float, sigma0_sq: float, sigma1_sq: float):
    """Same as :func:`log_mixture_prior` for a torch tensor of squared column norms."""
    import torch

    a = math.log(lam) - 0.5 * H * math.log(2 * math.pi * sigma1_sq) - 0.5 * norm_sq / sigma1_sq
    b = math.log(1.0 - lam) - 0.5 * H * math.log(2 * math.pi * sigma0_sq) - 0.5 * norm_sq / sigma0_sq
    return torch.logsumexp(torch.stack([a, b]), dim=0)
