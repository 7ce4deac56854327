"""Tetrachoric correlation of 0/1 votes: the correlation of the latent Gaussian scores the votes threshold.

The Pearson correlation of thresholded Gaussians is attenuated and not linear in the latent one (at median
thresholds phi = (2 / pi) arcsin(rho)), so a sparse + low-rank model of it no longer holds exactly. For judges i,
j with vote rates p_i, p_j the thresholds are h = Phi^-1(1 - p), and rho solves
P(both vote 1) = Phi(-h_i) Phi(-h_j) + int_0^rho phi2(h_i, h_j; r) dr (Plackett's identity; phi2 the
standard bivariate normal density with correlation r), whose right side increases with rho.
"""

from __future__ import annotations

import numpy as np


def _bvn_gain(h: np.ndarray, k: np.ndarray, rho: np.ndarray, nodes: int = 24) -> np.ndarray:
    """int_0^rho phi2(h, k; r) dr by Gauss-Legendre, elementwise."""
    x, w = np.polynomial.legendre.leggauss(nodes)
    r = 0.5 * rho[..., None] * (x + 1.0)
    one = np.maximum(1.0 - r**2, 1e-300)
    dens = np.exp(-(h[..., None] ** 2 - 2 * r * h[..., None] * k[..., None] + k[..., None] ** 2) / (2 * one))
    dens /= 2 * np.pi * np.sqrt(one)
    return 0.5 * rho * (dens * w).sum(axis=-1)


def tetrachoric(V: np.ndarray, clip: float = 0.999) -> np.ndarray:
    """The judges' tetrachoric correlation matrix from an items x judges table of 0/1 votes (unit diagonal).

    A judge whose votes are all equal has no threshold: its row is set to 0. Entries are solved by bisection to
    1e-10 and clipped to +-``clip``."""
    from scipy.stats import norm

    V = np.asarray(V, dtype=float)
    if not np.isin(V, (0.0, 1.0)).all():
        raise ValueError("tetrachoric correlation needs 0/1 votes")
    n, J = V.shape
    p = V.mean(axis=0)
    ok = (p > 0) & (p < 1)
    h = norm.ppf(1 - np.clip(p, 1e-12, 1 - 1e-12))
    iu, ju = np.triu_indices(J, 1)
    keep = ok[iu] & ok[ju]
    iu, ju = iu[keep], ju[keep]
    p11 = (V[:, iu] * V[:, ju]).mean(axis=0)
    target = p11 - norm.cdf(-h[iu]) * norm.cdf(-h[ju])  # what the integral from 0 to rho must give
    lo, hi = np.full(iu.size, -clip), np.full(iu.size, clip)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        below = _bvn_gain(h[iu], h[ju], mid) < target
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    R = np.eye(J)
    R[iu, ju] = R[ju, iu] = 0.5 * (lo + hi)
    return R
