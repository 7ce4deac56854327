"""Variance-reduced optimizers on a finite sum P = (1/N) sum_i psi_i, counting gradient evaluations.

Every method is a generator: it yields ``(evaluations, w, info)`` at record points and stops when
the caller stops consuming it. An evaluation is one per-sample gradient or one per-sample Hessian;
a full pass costs N (snapshots and Hessian passes included), because rates are compared per
gradient evaluation.

- ``sgd``: w <- w - step grad psi_i(w).
- ``svrg`` (Johnson & Zhang 2013): snapshot w~ (option II: a uniformly random inner iterate;
  option I: the last), mu~ = grad P(w~); m inner steps w <- w - step (grad psi_i(w) - alpha
  (grad psi_i(w~) - mu~)). alpha = 1 is SVRG, 0 < alpha < 1 is alpha-SVRG, alpha = 0 is SGD.
- ``poco_iso``: the posterior-correction step for q = N(m, I) in natural parameters, delta method
  (Thm 2): m <- m - eta alpha sum_j g_j(m_out) - eta N [g_i(m) - alpha g_i(m_out)]; the same
  iterates as ``svrg`` with step N eta (identity T2, proved in bounds.py; tested to rounding).
  ``sample_sigma > 0`` evaluates the gradients at m + sigma eps instead (VSGD-PoCo, eps shared by
  the in and out terms).
- ``von_poco`` (Thm 3): q = N(m, S^-1), the Newton-like variant with SVRG-corrected Hessians,
  a positive-definiteness safeguard S <- S + eta D + eta^2/2 D S^-1 D and S reset to the snapshot's
  Hessian sum at every snapshot. ``natural_form=True`` runs the same step in natural parameters
  (lambda = (S m, -S/2)), which agrees with the closed form to rounding (T3).
Pure numpy (and the numba loops of ``kernels.py`` for SGD/SVRG on the built-in problems).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from toolkit_svrg_poco.problems import FiniteSum

KIND_CODES = {"least_squares": 0, "logistic": 1}


def _engine(problem: FiniteSum, engine: str) -> str:
    if engine not in ("auto", "numba", "numpy"):
        raise ValueError(f"engine must be 'auto', 'numba' or 'numpy', got {engine!r}")
    compiled = problem.kind in KIND_CODES
    if engine == "numba" and not compiled:
        raise ValueError(
            f"engine='numba' needs a built-in array problem (least squares, logistic); "
            f"{problem.name!r} is {problem.kind!r}: use engine='numpy'"
        )
    if engine == "auto":
        return "numba" if compiled else "numpy"
    return engine


def _chunks(total: int, size: int):
    start = 0
    while start < total:
        yield start, min(total, start + size)
        start += size


def sgd(problem: FiniteSum, step: float, seed: int, *, engine: str = "auto") -> Iterator:
    """Plain SGD with uniform sampling; records every N evaluations (one epoch)."""
    rng = np.random.default_rng(seed)
    w = np.zeros(problem.dim)
    evals = 0
    engine = _engine(problem, engine)
    yield evals, w, {}
    while True:
        idx = rng.integers(0, problem.n, problem.n)
        if engine == "numba":
            from toolkit_svrg_poco.kernels import sgd_inner

            sgd_inner(
                KIND_CODES[problem.kind],
                problem.X,
                problem.y,
                float(getattr(problem, "lam", 0.0)),
                w,
                step,
                idx,
            )
        else:
            for t in range(len(idx)):
                w -= step * problem.sample_grads(w, idx[t : t + 1])[0]
        evals += problem.n
        yield evals, w, {}


def svrg(
    problem: FiniteSum,
    step: float,
    m: int,
    seed: int,
    *,
    alpha: float = 1.0,
    option: str = "II",
    engine: str = "auto",
) -> Iterator:
    """(alpha-)SVRG; records after every ~N evaluations inside the inner loop and at its end."""
    if option not in ("I", "II"):
        raise ValueError(f"option must be 'I' (last iterate) or 'II' (random inner iterate), got {option!r}")
    if m < 1:
        raise ValueError(f"inner length m must be >= 1, got {m}")
    rng = np.random.default_rng(seed)
    engine = _engine(problem, engine)
    N = problem.n
    w = np.zeros(problem.dim)
    evals = 0
    yield evals, w, {"snapshot": 0}
    s = 0
    while True:
        w_snap = w.copy()
        mu = problem.grad(w_snap)
        evals += N
        s += 1
        idx = rng.integers(0, N, m)
        save_at = int(rng.integers(0, m)) if option == "II" else -1
        w_save = w.copy()
        for a, b in _chunks(m, max(1, N // 2)):
            local_save = save_at - a if a <= save_at < b else -1
            if engine == "numba":
                from toolkit_svrg_poco.kernels import svrg_inner

                svrg_inner(
                    KIND_CODES[problem.kind],
                    problem.X,
                    problem.y,
                    float(getattr(problem, "lam", 0.0)),
                    w,
                    w_snap,
                    mu,
                    step,
                    alpha,
                    idx[a:b],
                    local_save,
                    w_save,
                )
            else:
                for t in range(a, b):
                    if t == save_at:
                        w_save[:] = w
                    i = idx[t : t + 1]
                    g = problem.sample_grads(w, i)[0]
                    g_snap = problem.sample_grads(w_snap, i)[0]
                    w -= step * (g - alpha * (g_snap - mu))
            evals += 2 * (b - a)
            if b < m:
                yield evals, w, {"snapshot": s, "w_snap": w_snap, "mu": mu}
        if option == "II":
            w = w_save
        yield evals, w, {"snapshot": s, "end_of_loop": True, "w_snap": w_snap, "mu": mu}


def svrg_adaptive(
    problem: FiniteSum,
    m: int,
    seed: int,
    *,
    step0: float | None = None,
    grow: float = 1.5,
    shrink: float = 0.25,
    engine: str = "auto",
) -> Iterator:
    """SVRG (option I) with a step found per inner loop, for problems whose 1/L step is far too small.

    Each loop starts at the snapshot with the current step and is accepted when the objective at its
    last iterate is finite and no larger than at the snapshot; then the step grows by ``grow``.
    A rejected loop is undone (the snapshot is kept) and the step shrinks by ``shrink``. The first step
    is ``step0`` (default 1/L). Evaluations count the loop's gradients and one objective pass per loop
    (N), rejected loops included. Records as :func:`svrg`; ``info["step"]`` is the loop's step.
    """
    if m < 1:
        raise ValueError(f"inner length m must be >= 1, got {m}")
    if not (0 < grow and 0 < shrink < 1):
        raise ValueError(f"grow must be > 0 and shrink in (0, 1), got grow={grow}, shrink={shrink}")
    rng = np.random.default_rng(seed)
    engine = _engine(problem, engine)
    N = problem.n
    step = 1.0 / problem.smoothness if step0 is None else float(step0)
    w_snap = np.zeros(problem.dim)
    p_snap = problem.value(w_snap)
    mu = problem.grad(w_snap)
    evals = N
    yield 0, w_snap, {"snapshot": 0, "step": step}
    s = 0
    while True:
        s += 1
        w = w_snap.copy()
        idx = rng.integers(0, N, m)
        if engine == "numba":
            from toolkit_svrg_poco.kernels import svrg_inner

            svrg_inner(
                KIND_CODES[problem.kind],
                problem.X,
                problem.y,
                float(getattr(problem, "lam", 0.0)),
                w,
                w_snap,
                mu,
                step,
                1.0,
                idx,
                -1,
                w,
            )
        else:
            for t in range(m):
                i = idx[t : t + 1]
                w -= step * (problem.sample_grads(w, i)[0] - problem.sample_grads(w_snap, i)[0] + mu)
        evals += 2 * m + N  # the loop's gradients and the objective at its end
        value = problem.value(w) if np.isfinite(w).all() else np.inf
        info = {"snapshot": s, "step": step, "end_of_loop": True}
        if np.isfinite(value) and value <= p_snap:
            w_snap, p_snap = w, value
            mu = problem.grad(w_snap)
            evals += N
            step *= grow
            yield evals, w_snap, info
        else:
            step *= shrink
            yield evals, w_snap, info | {"rejected": True}


def poco_iso(
    problem: FiniteSum,
    eta: float,
    m: int,
    seed: int,
    *,
    alpha: float = 1.0,
    sample_sigma: float = 0.0,
    engine: str = "auto",
) -> Iterator:
    """Posterior correction for q = N(m, I) in natural parameters (lambda = m; option I snapshots).

    ``engine``: the compiled inner loop (numba) for the array problems without sampling noise."""
    rng = np.random.default_rng(seed)
    noise_rng = np.random.default_rng([seed, 7])
    engine = "numpy" if sample_sigma > 0 and engine == "auto" else _engine(problem, engine)
    if engine == "numba" and sample_sigma > 0:
        raise ValueError(
            "engine='numba' runs sample_sigma = 0 only: use engine='numpy' with sample_sigma > 0"
        )
    N = problem.n
    mean = np.zeros(problem.dim)
    evals = 0
    yield evals, mean, {"snapshot": 0}
    s = 0
    while True:
        m_out = mean.copy()
        site_out = N * problem.grad(m_out)  # -lambda_hat_out = sum_j g_j(m_out)
        evals += N
        s += 1
        idx = rng.integers(0, N, m)
        for a, b in _chunks(m, max(1, N // 2)):
            if engine == "numba":
                from toolkit_svrg_poco.kernels import poco_iso_inner

                mean = mean.copy()  # the records already yielded keep their values
                poco_iso_inner(
                    KIND_CODES[problem.kind],
                    problem.X,
                    problem.y,
                    float(getattr(problem, "lam", 0.0)),
                    mean,
                    m_out,
                    site_out,
                    eta,
                    alpha,
                    float(N),
                    idx[a:b],
                )
            for t in range(a, b) if engine == "numpy" else ():
                i = idx[t : t + 1]
                if sample_sigma > 0:
                    eps = sample_sigma * noise_rng.standard_normal(problem.dim)
                    g_in, g_out = (
                        problem.sample_grads(mean + eps, i)[0],
                        problem.sample_grads(m_out + eps, i)[0],
                    )
                else:
                    g_in, g_out = problem.sample_grads(mean, i)[0], problem.sample_grads(m_out, i)[0]
                mean = mean - eta * alpha * site_out - eta * N * (g_in - alpha * g_out)
            evals += 2 * (b - a)
            yield evals, mean, {"snapshot": s}


def von_poco(
    problem: FiniteSum,
    eta: float,
    m: int,
    seed: int,
    *,
    alpha: float = 1.0,
    safeguard: bool = True,
    natural_form: bool = False,
    engine: str = "auto",
) -> Iterator:
    """Newton-like VON-PoCo for q = N(m, S^-1) (delta method: g_i, H_i at the mean).

    Per inner step 4 evaluations (g_i and H_i at the mean and at the snapshot); a snapshot costs
    2N (all gradients and all Hessians). Records after every inner step chunk of ~N/4 steps.
    ``engine``: the compiled closed-form loop (numba) for the array problems; the natural form is numpy only.
    """
    engine = "numpy" if natural_form and engine == "auto" else _engine(problem, engine)
    if engine == "numba" and natural_form:
        raise ValueError(
            "engine='numba' runs the closed form only: use engine='numpy' with natural_form=True"
        )
    rng = np.random.default_rng(seed)
    N, d = problem.n, problem.dim
    mean = np.zeros(d)
    evals = 0
    yield evals, mean, {"snapshot": 0}
    s = 0
    while True:
        m_out = mean.copy()
        G_hat = N * problem.grad(m_out)  # sum_j g_j(out)
        S_hat = N * problem.hess(m_out)  # sum_j H_j(out)
        evals += 2 * N
        S = S_hat.copy()  # precision reset at the snapshot
        s += 1
        idx = rng.integers(0, N, m)
        for a, b in _chunks(m, max(1, N // 4)):
            if engine == "numba":
                from toolkit_svrg_poco.kernels import von_poco_inner

                mean, S = mean.copy(), np.ascontiguousarray(S)
                von_poco_inner(
                    KIND_CODES[problem.kind],
                    problem.X,
                    problem.y,
                    float(getattr(problem, "lam", 0.0)),
                    mean,
                    S,
                    m_out,
                    np.ascontiguousarray(G_hat),
                    np.ascontiguousarray(S_hat),
                    eta,
                    alpha,
                    float(N),
                    safeguard,
                    idx[a:b],
                )
            for t in range(a, b) if engine == "numpy" else ():
                i = idx[t : t + 1]
                g_in, g_out = problem.sample_grads(mean, i)[0], problem.sample_grads(m_out, i)[0]
                H_in, H_out = problem.mean_hess(mean, i), problem.mean_hess(m_out, i)
                if natural_form:
                    mean, S = _von_natural_step(
                        mean, S, m_out, G_hat, S_hat, g_in, g_out, H_in, H_out, N, eta, alpha, safeguard
                    )
                else:
                    mean, S = von_closed_step(
                        mean, S, m_out, G_hat, S_hat, g_in, g_out, H_in, H_out, N, eta, alpha, safeguard
                    )
            evals += 4 * (b - a)
            yield evals, mean, {"snapshot": s}


def _new_precision(S, target, eta, safeguard):
    delta = target - S
    S_new = S + eta * delta
    if safeguard:
        S_new = S_new + 0.5 * eta**2 * delta @ np.linalg.solve(S, delta)
    return 0.5 * (S_new + S_new.T)


def von_closed_step(
    mean, S, m_out, G_hat, S_hat, g_in, g_out, H_in, H_out, N, eta, alpha=1.0, safeguard=True
):
    """One VON-PoCo inner step in closed form (Thm 3; alpha scales every snapshot correction).

    S <- (1 - eta) S + eta N [H_i(in) + alpha Hbar_{out minus i}],  Hbar_{out minus i} = S_hat / N - H_i(out)
    m <- m - eta S^-1 [N (g_i(in) - alpha g_i(out)) + alpha G_hat + alpha N Hbar_{out minus i} (m - m_out)]
    """
    H_bar = S_hat / N - H_out
    S_new = _new_precision(S, N * (H_in + alpha * H_bar), eta, safeguard)
    direction = N * (g_in - alpha * g_out) + alpha * G_hat + alpha * N * H_bar @ (mean - m_out)
    return mean - eta * np.linalg.solve(S_new, direction), S_new


def _von_natural_step(
    mean, S, m_out, G_hat, S_hat, g_in, g_out, H_in, H_out, N, eta, alpha=1.0, safeguard=True
):
    """The same step in natural parameters lambda = (S m, -S/2), with the delta method's
    expectation parameters' gradients grad_mu E[l] = (g - H m, H/2)."""
    lam1 = S @ mean
    # sites: lambda_hat_out = -sum_j grad_mu l_j(out)
    site1_out = -(G_hat - S_hat @ m_out)
    grad1_in, grad1_out = g_in - H_in @ mean, g_out - H_out @ m_out
    S_new = _new_precision(S, N * H_in + alpha * (S_hat - N * H_out), eta, safeguard)
    # the first natural parameter moves by the same rule; the safeguard's extra term on S acts on
    # lambda_1 through S_new m (the mean is kept where the closed form puts it)
    lam1_new = (1 - eta) * lam1 + eta * alpha * site1_out - eta * N * (grad1_in - alpha * grad1_out)
    lam1_new = lam1_new + (S_new - ((1 - eta) * S + eta * (N * H_in + alpha * (S_hat - N * H_out)))) @ mean
    return np.linalg.solve(S_new, lam1_new), S_new
