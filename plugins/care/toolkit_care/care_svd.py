"""CARE-SVD: weights from the low-rank part L of a sparse + low-rank precision decomposition.

faithful: the published rule. L from the correlation matrix at one gamma; w = sqrt(l1) v1 - sum_{i>1, li>=0}
sqrt(li) vi (eigenvectors in LAPACK's arbitrary signs); score = X w / sum(w). gamma is tuned on labels by
``tune_gamma`` (a validation split), as the published experiments do.

principled: no labels and no sign ambiguity. gamma maximises the held-out Gaussian likelihood of S - L (two
halves of the items); the rank of L is the number of its eigenvalues above 1e-3. With anchor judges (no
confounder load) the weights are U u, U = V sqrt(l) any factor of L and u the direction the anchor rows of U
share: this equals Sigma^-1 a, the least-error linear weights (see ``toolkit_care.theory``). Without anchors the
leading eigenvector, oriented to a positive sum. The score is X w / sum(w), a weighted average on the judges'
scale; where sum(w) is under a tenth of sum|w| that division is ill-posed and the score is instead put on
the scale of the judges' mean (same mean and spread). Where L = 0 it says so (``fallback_``) and returns the
judges' mean.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from toolkit_care.aggregators import CONTINUOUS, Aggregator, _check
from toolkit_care.precision import decompose, heldout_loglik, latent_rank

GAMMA_GRID = (0.1, 0.2, 0.25, 0.5, 0.75, 1, 2, 3, 5, 7, 10)
MODES = ("faithful", "principled")
CORRS = ("auto", "pearson", "tetrachoric")


def correlation(X: np.ndarray) -> np.ndarray:
    """Pearson correlation with non-finite entries set to 0 and a unit diagonal."""
    with np.errstate(invalid="ignore", divide="ignore"):
        C = np.corrcoef(X, rowvar=False)
    C = np.where(np.isfinite(C), C, 0.0)
    np.fill_diagonal(C, 1.0)
    return C


def published_weights(L: np.ndarray) -> np.ndarray:
    """The published rule: sqrt(l1) v1 minus sqrt(li) vi for every further eigenvalue li >= 0."""
    ev, V = np.linalg.eig(L)
    ev, V = np.real(ev), np.real(V)
    order = np.argsort(ev)[::-1]
    ev, V = ev[order], V[:, order]
    w = V[:, 0] * np.sqrt(max(ev[0], 0.0))
    for i in range(1, len(ev)):
        if ev[i] >= 0:
            w = w - V[:, i] * np.sqrt(ev[i])
    return w


def anchored_weights(L: np.ndarray, rank: int, anchors=None) -> np.ndarray:
    """Sigma^-1 a from L: the anchor rows' shared direction in a factor U of L (else the leading eigenvector)."""
    ev, V = np.linalg.eigh(0.5 * (L + L.T))
    order = np.argsort(ev)[::-1][:rank]
    U = V[:, order] * np.sqrt(np.clip(ev[order], 0.0, None))
    if anchors is not None and len(anchors) > 0 and rank > 1:
        _, _, vt = np.linalg.svd(U[list(anchors)], full_matrices=False)
        w = U @ vt[0]
    else:
        w = V[:, order[0]]
    return -w if w.sum() < 0 else w


@dataclass
class CareSVD(Aggregator):
    """CARE-SVD aggregator; ``mode`` 'faithful' (fixed ``gamma``) or 'principled' (gamma by likelihood)."""

    mode: str = "principled"
    gamma: float = 1.0
    gamma_grid: tuple = GAMMA_GRID
    anchors: tuple | None = None
    task: str = CONTINUOUS
    threshold: float | None = None
    seed: int = 0
    max_iters: int | None = 10000
    corr: str = "pearson"
    weights_: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if self.corr not in CORRS:
            raise ValueError(f"corr must be one of {CORRS}, got {self.corr!r}")

    def _corr(self, X):
        """Pearson, or (principled mode, ``corr`` 'auto' on 0/1 votes, or 'tetrachoric') the latent scores'."""
        votes = self.corr == "tetrachoric" or (self.corr == "auto" and np.isin(X, (0.0, 1.0)).all())
        if self.mode == "principled" and votes:
            from toolkit_care.tetrachoric import tetrachoric

            return tetrachoric(X)
        return correlation(X)

    def _solve(self, sigma, gamma):
        return decompose(sigma, gamma=gamma, max_iters=self.max_iters)

    def fit(self, X, y=None):
        X = _check(X)
        self.fallback_ = None
        if self.mode == "faithful":
            S, L = self._solve(correlation(X), self.gamma)
            self.gamma_, self.S_, self.L_ = self.gamma, S, L
            self.weights_ = published_weights(L)
            return self
        self.gamma_, self.loglik_ = self.select_gamma(X)
        S, L = self._solve(self._corr(X), self.gamma_)
        self.S_, self.L_ = S, L
        self.rank_ = latent_rank(L)
        self.mean_scale_ = (X.mean(axis=1).mean(), X.mean(axis=1).std())
        self.sd_ = X.std(axis=0)
        if self.rank_ == 0:
            self.fallback_ = "mean: the latent part L is zero at this gamma"
            self.weights_ = np.ones(X.shape[1]) / X.shape[1]
        else:
            w = anchored_weights(L, self.rank_, self.anchors) / self.sd_
            self.weights_ = -w if w.sum() < 0 else w
        s = X @ self.weights_
        self.score_scale_ = (s.mean(), s.std())
        self.weighted_average_ = self.weights_.sum() > 0.1 * np.abs(self.weights_).sum()
        return self

    def select_gamma(self, X) -> tuple[float, dict]:
        """The gamma of ``gamma_grid`` with the largest held-out likelihood (two halves, each fitted on the other)."""
        rng = np.random.default_rng([self.seed, 7])
        idx = rng.permutation(len(X))
        halves = (idx[: len(X) // 2], idx[len(X) // 2 :])
        scores = {}
        for g in self.gamma_grid:
            total = 0.0
            for fit_idx, val_idx in (halves, halves[::-1]):
                try:
                    S, L = self._solve(self._corr(X[fit_idx]), g)
                except RuntimeError:
                    total = float("-inf")
                    break
                total += heldout_loglik(S - L, self._corr(X[val_idx]))
            scores[float(g)] = total
        best = max(scores, key=lambda g: (scores[g], -g))
        return best, scores

    def predict(self, X):
        X = _check(X)
        if self.mode == "faithful":
            denom = self.weights_.sum()
            if np.isclose(denom, 0.0):
                raise ValueError("CARE-SVD weights sum to zero: the published normalisation is undefined")
            s = X @ self.weights_ / denom
        elif self.weighted_average_:
            s = X @ self.weights_ / self.weights_.sum()
        else:
            raw = X @ self.weights_
            m, sd = self.score_scale_
            s = self.mean_scale_[0] + (raw - m) / (sd if sd > 0 else 1.0) * self.mean_scale_[1]
        if self.task == CONTINUOUS:
            return s
        return (s >= (np.mean(s) if self.threshold is None else self.threshold)).astype(int)


def tune_gamma(X, y, *, seed: int, val_fraction: float = 0.1, gamma_grid=GAMMA_GRID, max_iters=10000):
    """The published label-tuned gamma: fit on a random 90% (scikit-learn's split with ``seed``), choose the
    gamma with the least validation MAE (ties: the smaller gamma). Returns (gamma, table of validation MAE)."""
    from sklearn.model_selection import train_test_split

    X = _check(X)
    y = np.asarray(y, dtype=float)
    Xtr, Xva, _, yva = train_test_split(X, y, test_size=val_fraction, random_state=seed, shuffle=True)
    sigma = correlation(Xtr)
    table = {}
    for g in gamma_grid:
        try:
            _, L = decompose(sigma, gamma=g, max_iters=max_iters)
            w = published_weights(L)
            table[float(g)] = (
                float(np.mean(np.abs(Xva @ w / w.sum() - yva))) if not np.isclose(w.sum(), 0) else np.nan
            )
        except (RuntimeError, ValueError):
            table[float(g)] = np.nan
    ok = [(v, g) for g, v in table.items() if np.isfinite(v)]
    best = min(ok)[1] if ok else float(gamma_grid[0])
    return best, table
