"""Aggregators of judge tables with one interface: ``fit(X)`` learns from an items x judges table (no
labels), ``predict(X)`` returns one score (continuous tasks) or one 0/1 label (binary tasks) per item.

Every class here is pure numpy/scipy/scikit-learn (CARE-SVD needs cvxpy). The label-free ones never see
labels; ``BestJudge`` and ``OLSOracle`` take ``y`` in ``fit`` and are oracles, reported, never tuned on test.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

CONTINUOUS, BINARY = "continuous", "binary"


def _check(X) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[1] < 1 or X.shape[0] < 2:
        raise ValueError(f"X must be an items x judges table with >= 2 items, got shape {X.shape}")
    if not np.isfinite(X).all():
        raise ValueError("X has missing or non-finite scores: drop or impute them first")
    return X


class Aggregator:
    """Base: ``fit_predict(X) == fit(X).predict(X)``; ``task`` is 'continuous' or 'binary'."""

    task: str = CONTINUOUS

    def fit(self, X, y=None):
        _check(X)
        return self

    def predict(self, X) -> np.ndarray:
        raise NotImplementedError

    def fit_predict(self, X, y=None) -> np.ndarray:
        return self.fit(X, y).predict(X)


@dataclass
class Mean(Aggregator):
    """The judges' average; on a binary task the label is 1{average >= threshold}."""

    task: str = CONTINUOUS
    threshold: float = 0.5

    def predict(self, X):
        m = _check(X).mean(axis=1)
        return m if self.task == CONTINUOUS else (m >= self.threshold).astype(int)


@dataclass
class MajorityVote(Aggregator):
    """The most frequent value per item (ties: the smallest value), as pandas' ``mode``."""

    task: str = CONTINUOUS

    def predict(self, X):
        X = _check(X)
        out = np.empty(X.shape[0])
        for i, row in enumerate(X):
            vals, counts = np.unique(row, return_counts=True)
            out[i] = vals[np.argmax(counts)]  # np.unique sorts: the first maximum is the smallest value
        return out if self.task == CONTINUOUS else out.astype(int)


@dataclass
class LabelModel(Aggregator):
    """A label model over the judges' discrete values (weak supervision, Dawid-Skene): each judge has a full
    confusion matrix P(reported value | true value), smoothed by ``alpha``, and the values a prior; EM from the
    vote shares. The prediction is the posterior mode (ties: the smallest value)."""

    task: str = CONTINUOUS
    n_iter: int = 30
    alpha: float = 0.01
    decimals: int = 6
    values_: np.ndarray | None = field(default=None, repr=False)

    def _codes(self, X):
        R = np.round(_check(X), self.decimals)
        codes = np.searchsorted(self.values_, R)
        known = (codes < len(self.values_)) & (self.values_[np.minimum(codes, len(self.values_) - 1)] == R)
        return codes, known

    def _log_post(self, X):
        codes, known = self._codes(X)
        n, J = codes.shape
        logp = np.tile(self.log_prior_, (n, 1))
        for j in range(J):
            col = np.minimum(codes[:, j], len(self.values_) - 1)
            logp += np.where(
                known[:, j, None], self.log_conf_[j][:, col].T, 0.0
            )  # unseen values: no evidence
        return logp

    def fit(self, X, y=None):
        R = np.round(_check(X), self.decimals)
        self.values_ = np.unique(R)
        k = len(self.values_)
        codes = np.searchsorted(self.values_, R)
        n, J = codes.shape
        onehots = [np.eye(k)[codes[:, j]] for j in range(J)]
        post = sum(onehots) / J  # vote shares
        for _ in range(self.n_iter):
            self.log_prior_ = np.log(post.mean(axis=0) + 1e-6)
            confs = []
            for j in range(J):
                C = post.T @ onehots[j] + self.alpha  # C[true, reported]
                confs.append(np.log(C / C.sum(axis=1, keepdims=True)))
            self.log_conf_ = confs
            logp = self._log_post(X)
            post = np.exp(logp - logp.max(axis=1, keepdims=True))
            post /= post.sum(axis=1, keepdims=True)
        return self

    def predict_proba(self, X):
        logp = self._log_post(X)
        p = np.exp(logp - logp.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)

    def predict(self, X):
        out = self.values_[np.argmax(self._log_post(X), axis=1)]
        return out if self.task == CONTINUOUS else out.astype(int)


@dataclass
class UWS(Aggregator):
    """Unsupervised weighted sum by the triplet method: theta_j = 1 / (2 E||x_j - y||^2), where the distance
    to the unseen truth comes from triplets (d_ij + d_ik - d_jk) / 2 averaged over all pairs (j, k)."""

    task: str = CONTINUOUS
    threshold: float = 0.5
    weights_: np.ndarray | None = field(default=None, repr=False)

    def fit(self, X, y=None):
        X = _check(X)
        J = X.shape[1]
        if J < 3:
            raise ValueError("UWS needs at least 3 judges")
        sq = (X * X).sum(axis=0)
        D = sq[:, None] + sq[None, :] - 2 * X.T @ X  # squared distances between judges, summed over items
        np.fill_diagonal(D, 0.0)
        r = D.sum(axis=1)
        total = np.triu(D, 1).sum()
        m = (J - 1) * (J - 2) / 2
        diff = 0.5 * ((J - 2) * r - (total - r)) / m
        theta = 1.0 / (2.0 * diff)
        self.weights_ = theta / theta.sum()
        return self

    def predict(self, X):
        s = _check(X) @ self.weights_
        return s if self.task == CONTINUOUS else (s >= self.threshold).astype(int)


@dataclass
class DawidSkene(Aggregator):
    """Two-coin Dawid-Skene for 0/1 votes: per judge sensitivity and specificity and a class prior, by EM
    from majority vote. ``predict`` gives labels; ``predict_proba`` P(y = 1 | votes)."""

    task: str = BINARY
    n_iter: int = 100
    params_: tuple | None = field(default=None, repr=False)

    def _post(self, V, prior, sens, specificity):
        eps = 1e-6
        sens, specificity = np.clip(sens, eps, 1 - eps), np.clip(specificity, eps, 1 - eps)
        l1 = np.log(prior) + V @ np.log(sens) + (1 - V) @ np.log(1 - sens)
        l0 = np.log(1 - prior) + V @ np.log(1 - specificity) + (1 - V) @ np.log(specificity)
        return 1.0 / (1.0 + np.exp(np.clip(l0 - l1, -700, 700)))

    def fit(self, X, y=None):
        V = _check(X)
        if not np.isin(V, (0.0, 1.0)).all():
            raise ValueError("DawidSkene takes 0/1 votes")
        p = (V.mean(axis=1) >= 0.5).astype(float)
        for _ in range(self.n_iter):
            prior = np.clip(p.mean(), 1e-3, 1 - 1e-3)
            sens = (p @ V + 1) / (p.sum() + 2)
            specificity = ((1 - p) @ (1 - V) + 1) / ((1 - p).sum() + 2)
            new = self._post(V, prior, sens, specificity)
            done = np.max(np.abs(new - p)) < 1e-7
            p = new
            if done:
                break
        self.params_ = (prior, sens, specificity)
        return self

    def predict_proba(self, X):
        return self._post(_check(X), *self.params_)

    def predict(self, X):
        return (self.predict_proba(X) >= 0.5).astype(int)


def _standardize(X):
    mean, sd = X.mean(axis=0), X.std(axis=0)
    if (sd == 0).any():
        raise ValueError(f"constant judge(s) at column(s) {np.flatnonzero(sd == 0).tolist()}")
    return mean, sd


def _orient(v: np.ndarray) -> np.ndarray:
    """The sign of a loading vector is arbitrary: make its sum non-negative (judges agree with quality)."""
    return -v if v.sum() < 0 else v


def _label(task, s, threshold):
    if task == CONTINUOUS:
        return s
    return (s >= (np.mean(s) if threshold is None else threshold)).astype(int)


def quality_direction(loadings: np.ndarray, anchors=None) -> np.ndarray:
    """The quality loading a in the span of the factor loadings (judges x factors): with anchor judges
    (no confounder load), the direction their rows share; else the first factor. Sum made >= 0."""
    Lam = np.atleast_2d(loadings)
    if anchors is not None and len(anchors) > 0 and Lam.shape[1] > 1:
        _, _, vt = np.linalg.svd(Lam[list(anchors)], full_matrices=False)
        return _orient(Lam @ vt[0])
    return _orient(Lam[:, 0])


@dataclass
class FactorAggregator(Aggregator):
    """Linear factor analysis (scikit-learn) with ``n_factors``; the score is the GLS estimate of the quality
    factor, weights Sigma^-1 a on standardised scores, where a is ``quality_direction`` of the loadings. One
    factor omits the confounders; 1 + K factors with anchors separates them."""

    n_factors: int = 1
    anchors: tuple | None = None
    task: str = CONTINUOUS
    threshold: float | None = None
    seed: int = 0
    weights_: np.ndarray | None = field(default=None, repr=False)

    def fit(self, X, y=None):
        from sklearn.decomposition import FactorAnalysis

        X = _check(X)
        self.mean_, self.sd_ = _standardize(X)
        Z = (X - self.mean_) / self.sd_
        fa = FactorAnalysis(n_components=self.n_factors, random_state=self.seed).fit(Z)
        Lam = fa.components_.T
        a = quality_direction(Lam, self.anchors)
        Sigma = Lam @ Lam.T + np.diag(fa.noise_variance_)
        self.loadings_ = Lam
        self.weights_ = np.linalg.solve(Sigma, a) / self.sd_
        return self

    def predict(self, X):
        s = (_check(X) - self.mean_) @ self.weights_
        return _label(self.task, s, self.threshold)


@dataclass
class BestJudge(Aggregator):
    """Oracle: the single judge most correlated with the labels given to ``fit``."""

    task: str = CONTINUOUS
    threshold: float | None = None

    def fit(self, X, y=None):
        X = _check(X)
        y = np.asarray(y, dtype=float)
        r = [abs(np.corrcoef(X[:, j], y)[0, 1]) if X[:, j].std() > 0 else 0 for j in range(X.shape[1])]
        self.judge_ = int(np.nanargmax(r))
        return self

    def predict(self, X):
        return _label(self.task, _check(X)[:, self.judge_], self.threshold)


@dataclass
class OLSOracle(Aggregator):
    """Oracle: least squares of the labels on the judges' scores (with intercept)."""

    task: str = CONTINUOUS
    threshold: float | None = 0.5

    def fit(self, X, y=None):
        X = _check(X)
        A = np.column_stack([np.ones(len(X)), X])
        self.coef_ = np.linalg.lstsq(A, np.asarray(y, dtype=float), rcond=None)[0]
        return self

    def predict(self, X):
        X = _check(X)
        s = np.column_stack([np.ones(len(X)), X]) @ self.coef_
        return _label(self.task, s, self.threshold)
