"""Finite-sum problems P(w) = (1/N) sum_i psi_i(w), with the L2 term folded into every psi_i.

Built-in problems hold their data as arrays (least squares, L2-regularised logistic regression),
which lets the optimizers use compiled inner loops; a user's own problem is any object with the
:class:`FiniteSum` methods (see :class:`CallableProblem` for one built from per-sample callables).
Pure numpy; no toolkit imports.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


class FiniteSum:
    """The interface every optimizer uses. ``idx`` is an integer array of sample indices.

    Subclasses implement ``sample_grads`` (per-sample gradients, ``(len(idx), dim)``) and
    ``mean_hess`` (mean Hessian over ``idx``); everything else derives from them.
    """

    name: str = "problem"
    n: int
    dim: int
    kind: str = "generic"  # "least_squares" / "logistic" enable the compiled inner loops

    def value(self, w: np.ndarray) -> float:
        raise NotImplementedError

    def sample_grads(self, w: np.ndarray, idx: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def mean_hess(self, w: np.ndarray, idx: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def grad(self, w: np.ndarray, idx: np.ndarray | None = None) -> np.ndarray:
        """Mean gradient over ``idx`` (all samples when ``None``)."""
        idx = np.arange(self.n) if idx is None else idx
        return self.sample_grads(w, idx).mean(axis=0)

    def hess(self, w: np.ndarray, idx: np.ndarray | None = None) -> np.ndarray:
        return self.mean_hess(w, np.arange(self.n) if idx is None else idx)

    @property
    def smoothness(self) -> float:
        """L = max_i of psi_i's smoothness constant (what SVRG's step is scaled by)."""
        raise NotImplementedError

    @property
    def strong_convexity(self) -> float:
        """gamma: a strong-convexity modulus of P (0 when unknown)."""
        return 0.0


def _check_xy(X, y, name: str):
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
        raise ValueError(
            f"{name}: X must be a 2-D array (n_samples >= 2, n_features >= 1), got shape {X.shape}"
        )
    if y.shape != (X.shape[0],):
        raise ValueError(f"{name}: y must have shape ({X.shape[0]},) to match X, got {y.shape}")
    if not (np.isfinite(X).all() and np.isfinite(y).all()):
        raise ValueError(f"{name}: X and y must be finite (found NaN or inf)")
    return np.ascontiguousarray(X), np.ascontiguousarray(y)


@dataclass
class LeastSquares(FiniteSum):
    """psi_i(w) = 1/2 (x_i.w - y_i)^2 + lam/2 |w|^2."""

    X: np.ndarray
    y: np.ndarray
    lam: float = 0.0
    name: str = "least_squares"
    kind: str = field(default="least_squares", init=False)

    def __post_init__(self):
        self.X, self.y = _check_xy(self.X, self.y, "LeastSquares")
        if not (self.lam >= 0 and np.isfinite(self.lam)):
            raise ValueError(f"LeastSquares: lam must be a finite number >= 0, got {self.lam}")
        self.n, self.dim = self.X.shape

    def value(self, w):
        r = self.X @ w - self.y
        return float(0.5 * np.mean(r * r) + 0.5 * self.lam * (w @ w))

    def sample_grads(self, w, idx):
        Xi = self.X[idx]
        return (Xi @ w - self.y[idx])[:, None] * Xi + self.lam * w

    def mean_hess(self, w, idx):
        Xi = self.X[idx]
        return Xi.T @ Xi / len(idx) + self.lam * np.eye(self.dim)

    @property
    def smoothness(self):
        return float(np.max(np.einsum("ij,ij->i", self.X, self.X)) + self.lam)

    @property
    def strong_convexity(self):
        return float(np.linalg.eigvalsh(self.X.T @ self.X / self.n)[0] + self.lam)


@dataclass
class Logistic(FiniteSum):
    """psi_i(w) = log(1 + exp(-y_i x_i.w)) + lam/2 |w|^2 with labels y_i in {-1, +1} (0/1 accepted)."""

    X: np.ndarray
    y: np.ndarray
    lam: float = 1e-3
    name: str = "logistic"
    kind: str = field(default="logistic", init=False)

    def __post_init__(self):
        self.X, y = _check_xy(self.X, self.y, "Logistic")
        labels = set(np.unique(y).tolist())
        if labels <= {0.0, 1.0}:
            y = 2.0 * y - 1.0
        elif not labels <= {-1.0, 1.0}:
            raise ValueError(
                f"Logistic: y must hold two classes as {{0, 1}} or {{-1, +1}}, got values {sorted(labels)[:5]}"
            )
        self.y = y
        if not (self.lam > 0 and np.isfinite(self.lam)):
            raise ValueError(
                f"Logistic: lam must be a finite number > 0 (the problem must be strongly convex), got {self.lam}"
            )
        self.n, self.dim = self.X.shape

    def value(self, w):
        z = self.y * (self.X @ w)
        return float(np.mean(np.logaddexp(0.0, -z)) + 0.5 * self.lam * (w @ w))

    def sample_grads(self, w, idx):
        Xi, yi = self.X[idx], self.y[idx]
        s = -yi * _sigmoid(-yi * (Xi @ w))
        return s[:, None] * Xi + self.lam * w

    def mean_hess(self, w, idx):
        Xi = self.X[idx]
        p = _sigmoid(Xi @ w)
        return (Xi * (p * (1 - p))[:, None]).T @ Xi / len(idx) + self.lam * np.eye(self.dim)

    @property
    def smoothness(self):
        return float(0.25 * np.max(np.einsum("ij,ij->i", self.X, self.X)) + self.lam)

    @property
    def strong_convexity(self):
        return float(self.lam)


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # overflow-free


@dataclass
class CallableProblem(FiniteSum):
    """A user's own finite sum from per-sample callables.

    :param grad_i: ``grad_i(w, i) -> (dim,)`` gradient of psi_i.
    :param loss_i: ``loss_i(w, i) -> float``; optional when ``value`` is given.
    :param hess_i: ``hess_i(w, i) -> (dim, dim)``; or ``hvp_i(w, i, v) -> (dim,)``. Needed by the
        Newton-like method and by :func:`optimum` only.
    :param smoothness: L (max smoothness of the psi_i), needed for steps given as c / L.
    """

    n: int
    dim: int
    grad_i: Callable[[np.ndarray, int], np.ndarray]
    loss_i: Callable[[np.ndarray, int], float] | None = None
    hess_i: Callable[[np.ndarray, int], np.ndarray] | None = None
    hvp_i: Callable[[np.ndarray, int, np.ndarray], np.ndarray] | None = None
    L: float | None = None
    gamma: float = 0.0
    name: str = "user"

    def __post_init__(self):
        if int(self.n) < 1 or int(self.dim) < 1:
            raise ValueError(f"CallableProblem: n and dim must be >= 1, got n={self.n}, dim={self.dim}")
        if self.loss_i is None:
            raise ValueError("CallableProblem: loss_i(w, i) is required (suboptimality curves need P(w))")

    def value(self, w):
        return float(np.mean([self.loss_i(w, i) for i in range(self.n)]))

    def sample_grads(self, w, idx):
        return np.stack([np.asarray(self.grad_i(w, int(i)), dtype=np.float64) for i in idx])

    def mean_hess(self, w, idx):
        if self.hess_i is not None:
            return np.mean([self.hess_i(w, int(i)) for i in idx], axis=0)
        if self.hvp_i is not None:
            eye = np.eye(self.dim)
            return np.mean([np.stack([self.hvp_i(w, int(i), e) for e in eye], axis=1) for i in idx], axis=0)
        raise ValueError("CallableProblem: this method needs hess_i(w, i) or hvp_i(w, i, v)")

    @property
    def smoothness(self):
        if self.L is None:
            raise ValueError(
                "CallableProblem: give L (max smoothness of the psi_i) to use steps relative to 1/L"
            )
        return float(self.L)

    @property
    def strong_convexity(self):
        return float(self.gamma)


def optimum(problem: FiniteSum, tol: float = 1e-13, max_iter: int = 100) -> tuple[np.ndarray, float]:
    """(w*, P*) by Newton's method with backtracking (least squares: one exact solve)."""
    w = np.zeros(problem.dim)
    if problem.kind == "least_squares":
        A = problem.hess(w)
        w = np.linalg.solve(A, -problem.grad(w))
        return w, problem.value(w)
    value = problem.value(w)
    for _ in range(max_iter):
        g = problem.grad(w)
        step = np.linalg.solve(problem.hess(w), g)
        decrement = float(g @ step)
        if decrement / 2 <= tol * max(1.0, abs(value)):
            break
        t = 1.0
        while True:
            candidate = w - t * step
            new = problem.value(candidate)
            if new <= value - 0.25 * t * decrement or t < 1e-12:
                break
            t *= 0.5
        w, value = candidate, new
    return w, problem.value(w)


# -- problem makers ---------------------------------------------------------------------------------


def conditioned_least_squares(
    kappa: float, n: int = 1000, dim: int = 20, noise: float = 0.1, seed: int = 0
) -> LeastSquares:
    """The reference LS design: X = Z diag(sqrt(ev)) U^T, ev = logspace(0, -log10 kappa, dim), y = X w + noise eps.

    The Hessian X^T X / n has condition number close to ``kappa`` (exactly so as n grows).
    """
    if not kappa >= 1:
        raise ValueError(f"conditioned_least_squares: kappa must be >= 1, got {kappa}")
    rng = np.random.default_rng([seed, 11])
    ev = np.logspace(0.0, -np.log10(kappa), dim)
    U, _ = np.linalg.qr(rng.standard_normal((dim, dim)))
    X = rng.standard_normal((n, dim)) * np.sqrt(ev) @ U.T
    w_true = rng.standard_normal(dim)
    y = X @ w_true + noise * rng.standard_normal(n)
    return LeastSquares(X, y, 0.0, name=f"least_squares(kappa={kappa:g})")


def breast_cancer(lam: float = 1e-2) -> Logistic:
    """scikit-learn's breast_cancer (569 x 30), standardised, with a bias column."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    return Logistic(np.hstack([X, np.ones((len(X), 1))]), y, lam, name=f"breast_cancer(lam={lam:g})")


def digits_binary(lam: float = 1e-3) -> Logistic:
    """scikit-learn's digits (1797 x 64) with y = [digit >= 5], X / 16, and a bias column."""
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    return Logistic(
        np.hstack([X, np.ones((len(X), 1))]), (y >= 5).astype(float), lam, name=f"digits(lam={lam:g})"
    )


def make_problem(
    name: str, *, kappa: float = 10.0, lam: float | None = None, n: int = 1000, seed: int = 0
) -> FiniteSum:
    """A built-in problem by name: ``least_squares``, ``breast_cancer`` or ``digits``."""
    if name == "least_squares":
        return conditioned_least_squares(kappa, n=n, seed=seed)
    if name == "breast_cancer":
        return breast_cancer(1e-2 if lam is None else lam)
    if name == "digits":
        return digits_binary(1e-3 if lam is None else lam)
    raise ValueError(f"problem must be one of least_squares, breast_cancer, digits; got {name!r}")
