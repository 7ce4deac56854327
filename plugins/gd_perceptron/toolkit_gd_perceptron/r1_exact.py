r"""Linear GD on R1 in its two exact coordinates: a check of the batched engine that shares no code with it.

From v_0 = 0 the rescaled iterate u_t = v_t/gamma of linear GD on R1 stays in span{e_1, s/d} with
s = sum_{k>=2} e_k: u_t = a_t e_1 + c_t s/d, ||s/d||^2 = q = (d-1)/d^2. The margins are
m_1 = a (sample e_1, label +1) and m_2 = -(a + c q) (sample e_1 + s/d, label -1), and the step is

    w_i = sigma(-gamma m_i),   a <- a + (w_1 - w_2)/2,   c <- c - w_2/2        (n = 2).

Iterations = the first t whose iterate has m_1 > 0 and m_2 > 0 (as in the engine). The recursion runs in
float64 (``dps=None``) or in ``dps``-digit arithmetic (mpmath), so counts can be checked against rounding.

Facts used in README.md (all tested in ``tests/gd_perceptron/test_gd_perceptron_r1_gd.py``):
- m_1 = 0 exactly at t = 1 for every gamma, so w_1 = 1/2 there and a_2 = (1/2 - sigma(-gamma q/4))/2
  = tanh(gamma q/8)/4 (:func:`first_amplitude`);
- the gamma -> oo limit of GD is the Batch Perceptron with weight 1/2 on ties (here only the tie at
  t = 1), which separates R1 at t = d + 4 for even d, d + 3 for odd d (:func:`half_tie_iterations`),
  not the classical 2d + 4 (ties counted as mistakes); its last non-separating step (t = d + 2, even d)
  has the near-tie margin m_2 = -1/(4 d^2).
"""

from __future__ import annotations

import math


def _check(d: int, gamma: float, dps: int | None, max_iter: int) -> None:
    if not isinstance(d, (int,)) or isinstance(d, bool) or d < 2:
        raise ValueError(f"d must be an integer >= 2, got {d!r}")
    if not (isinstance(gamma, (int, float)) and math.isfinite(gamma) and gamma > 0):
        raise ValueError(f"gamma must be a finite number > 0, got {gamma!r}")
    if dps is not None and (not isinstance(dps, int) or dps < 16):
        raise ValueError(f"dps must be None (float64) or an integer >= 16 (decimal digits), got {dps!r}")
    if max_iter < 0:
        raise ValueError(f"max_iter must be >= 0, got {max_iter}")


def _sigma_f64(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def gd_path(
    d: int, gamma: float, *, dps: int | None = None, max_iter: int = 100_000, stop_at_separation: bool = True
) -> tuple[int, list[tuple[float, float]]]:
    """Run linear GD with step ``gamma`` on R1(d) in the coordinates (a, c q).

    Returns (iterations, path): iterations is the first t with both margins > 0 (-1 if none up to
    ``max_iter``); path[t] = (a_t, c_t q) as floats, so m_1 = a_t and m_2 = -(a_t + c_t q).
    """
    _check(d, gamma, dps, max_iter)
    if dps is None:
        q, g, a, c, one, half = (d - 1) / d**2, float(gamma), 0.0, 0.0, 1.0, 0.5
        sig = _sigma_f64
    else:
        import mpmath

        ctx = mpmath.mp.clone()
        ctx.dps = dps
        q, g, a, c, one, half = (
            ctx.mpf(d - 1) / d**2,
            ctx.mpf(gamma),
            ctx.mpf(0),
            ctx.mpf(0),
            ctx.mpf(1),
            ctx.mpf(1) / 2,
        )

        def sig(x):
            return one / (one + ctx.exp(-x))

    path = []
    iterations = -1
    for t in range(max_iter + 1):
        m1, m2 = a, -(a + c * q)
        path.append((float(a), float(c * q)))
        if m1 > 0 and m2 > 0:
            if iterations < 0:
                iterations = t
            if stop_at_separation:
                break
        if t == max_iter:
            break
        w1, w2 = sig(-g * m1), sig(-g * m2)
        a, c = a + (w1 - w2) * half, c - w2 * half
    return iterations, path


def gd_iterations(d: int, gamma: float, *, dps: int | None = None, max_iter: int = 100_000) -> int:
    """Iterations of linear GD (step ``gamma``, logistic loss, v_0 = 0) to separate R1(d); -1 at the cap."""
    return gd_path(d, gamma, dps=dps, max_iter=max_iter)[0]


def half_tie_iterations(d: int) -> int:
    """Iterations of GD's gamma -> oo limit on R1 (Batch Perceptron with weight 1/2 on ties): the
    sample-1 coordinate alternates +1/4, -1/4 and c q drops by q/2 every two steps, so the first
    separating step is t = 2k + 2 with 2k + 1 the first odd number > 1/q = d + 1 + 1/(d - 1):
    d + 4 for even d, d + 3 for odd d >= 3."""
    if not isinstance(d, int) or isinstance(d, bool) or d < 3:
        raise ValueError(f"d must be an integer >= 3, got {d!r}")
    return d + 4 if d % 2 == 0 else d + 3


def first_amplitude(d: int, gamma: float) -> float:
    """a_2 = tanh(gamma q / 8) / 4: the sample-1 coordinate of u_2 (after the exact tie m_1 = 0 at t = 1)."""
    _check(d, gamma, None, 0)
    return math.tanh(gamma * (d - 1) / d**2 / 8) / 4
