"""The judge model: X = mu + a Q + B C + e, and a seeded simulator of judges with planted confounders.

Q ~ N(0, 1) is the latent quality, C ~ N(0, I_K) the shared confounders (verbosity, style), e ~ N(0, D) the
judges' own noise. Anchor judges load (almost) nothing on the confounders: their leak scales their B row.
Binary votes threshold each judge's score; pairwise votes are Bradley-Terry preferences on score differences.
Pure numpy/scipy: no toolkit imports.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TASKS = ("continuous", "binary", "pairwise")


@dataclass(frozen=True)
class JudgeModel:
    """Loadings of J judges: quality ``a`` (J,), confounders ``B`` (J, K), noise variances ``d`` (J,)."""

    a: np.ndarray
    B: np.ndarray
    d: np.ndarray
    mu: np.ndarray

    @property
    def n_judges(self) -> int:
        return int(self.a.shape[0])

    def covariance(self) -> np.ndarray:
        """Sigma = a a' + B B' + D."""
        return np.outer(self.a, self.a) + self.B @ self.B.T + np.diag(self.d)

    def nuisance_covariance(self) -> np.ndarray:
        """B B' + D: the part of Sigma that is not quality."""
        return self.B @ self.B.T + np.diag(self.d)

    def optimal_weights(self) -> np.ndarray:
        """(B B' + D)^-1 a: the linear weights with the least error (proportional to Sigma^-1 a)."""
        return np.linalg.solve(self.nuisance_covariance(), self.a)

    def bayes_error(self) -> float:
        """1 - corr^2 of the posterior mean E[Q | X] with Q: 1 - a' Sigma^-1 a (no aggregator does better)."""
        return float(1.0 - self.a @ np.linalg.solve(self.covariance(), self.a))

    def linear_error(self, w: np.ndarray) -> float:
        """1 - corr^2(w'X, Q) for fixed weights w."""
        w = np.asarray(w, dtype=float)
        var = w @ self.covariance() @ w
        return float(1.0 - (w @ self.a) ** 2 / var) if var > 0 else 1.0

    def posterior(self, X: np.ndarray) -> tuple[np.ndarray, float]:
        """E[Q | X] per item and the posterior standard deviation."""
        Sigma = self.covariance()
        k = np.linalg.solve(Sigma, self.a)
        return (np.asarray(X) - self.mu) @ k, float(np.sqrt(max(1.0 - self.a @ k, 0.0)))


def make_model(
    n_judges: int = 10,
    n_confounders: int = 1,
    strength: float = 1.0,
    n_anchors: int = 2,
    anchor_leak: float = 0.0,
    seed: int = 0,
) -> JudgeModel:
    """Random loadings: quality a_j ~ U(0.5, 1.5), confounders B_jk = strength * U(0.5, 1.5) (the first
    ``n_anchors`` judges' rows times ``anchor_leak``), noise variances U(0.5, 1.5), means U(-1, 1)."""
    if n_judges < 3:
        raise ValueError(f"n_judges must be >= 3, got {n_judges}")
    if not 0 <= n_anchors <= n_judges:
        raise ValueError(f"n_anchors must be between 0 and n_judges={n_judges}, got {n_anchors}")
    if strength < 0 or n_confounders < 0:
        raise ValueError("strength and n_confounders must be >= 0")
    rng = np.random.default_rng([seed, 1])
    a = rng.uniform(0.5, 1.5, n_judges)
    B = strength * rng.uniform(0.5, 1.5, (n_judges, n_confounders))
    B[:n_anchors] *= anchor_leak
    d = rng.uniform(0.5, 1.5, n_judges)
    mu = rng.uniform(-1.0, 1.0, n_judges)
    return JudgeModel(a=a, B=B, d=d, mu=mu)


@dataclass(frozen=True)
class Sample:
    """One simulated table: ``votes`` (items x judges: scores, 0/1 votes or pairwise 0/1 preferences),
    ``truth`` (Q for continuous, 1{Q > 0} for binary, 1{Q_i > Q_k} for pairs) and the latent scores ``X``
    the votes were made from (for the Bayes floor)."""

    votes: np.ndarray
    truth: np.ndarray
    X: np.ndarray
    Q: np.ndarray
    task: str
    pairs: np.ndarray | None = None


def simulate(model: JudgeModel, n_items: int, task: str = "continuous", seed: int = 0) -> Sample:
    """Draw ``n_items`` items (``n_items`` pairs for the pairwise task), every draw from ``seed``."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, got {task!r}")
    if n_items < 2:
        raise ValueError(f"n_items must be >= 2, got {n_items}")
    rng = np.random.default_rng([seed, 2])
    J, K = model.B.shape
    Q = rng.standard_normal(n_items)
    C = rng.standard_normal((n_items, K))
    E = rng.standard_normal((n_items, J)) * np.sqrt(model.d)
    X = model.mu + np.outer(Q, model.a) + C @ model.B.T + E
    if task == "continuous":
        return Sample(X, Q, X, Q, task)
    if task == "binary":
        votes = (X - model.mu > 0).astype(float)
        return Sample(votes, (Q > 0).astype(int), X, Q, task)
    # pairwise: items i, k drawn at random; judge j prefers i with Bradley-Terry probability
    other = rng.permutation(n_items)
    diff = X - X[other]
    noise = rng.logistic(size=diff.shape)
    votes = (diff + noise > 0).astype(float)
    truth = (Q > Q[other]).astype(int)
    return Sample(votes, truth, X, Q, task, pairs=np.stack([np.arange(n_items), other], axis=1))


def bayes_floor(model: JudgeModel, sample: Sample) -> float:
    """The error of the Gaussian posterior given the latent scores X (votes carry less): no aggregator of
    the votes does better in expectation."""
    m, s = model.posterior(sample.X)
    if sample.task == "continuous":
        return model.bayes_error()
    from scipy.stats import norm

    if sample.task == "binary":
        return float(np.mean(norm.cdf(-np.abs(m) / max(s, 1e-12))))
    assert sample.pairs is not None
    i, k = sample.pairs[:, 0], sample.pairs[:, 1]
    # Q_i - Q_k | X is Gaussian with mean m_i - m_k and variance 2 s^2 (items independent)
    return float(np.mean(norm.cdf(-np.abs(m[i] - m[k]) / max(np.sqrt(2.0) * s, 1e-12))))


def error(task: str, estimate: np.ndarray, truth: np.ndarray) -> float:
    """Continuous: 1 - corr^2; binary and pairwise: the error rate of 0/1 labels."""
    estimate = np.asarray(estimate, dtype=float)
    if task == "continuous":
        if np.std(estimate) == 0:
            return 1.0
        return float(1.0 - np.corrcoef(estimate, truth)[0, 1] ** 2)
    return float(np.mean(estimate.astype(int) != np.asarray(truth).astype(int)))
