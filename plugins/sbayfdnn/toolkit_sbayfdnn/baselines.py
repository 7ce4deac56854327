"""Baselines on the same B-spline projections and the same train/test split (no toolkit imports).

- :class:`FunctionalLinearModel`: y = a + z^T b on standardised scores, ridge penalty chosen by exact
  leave-one-out cross-validation over a range from almost none to heavy shrinkage;
- :class:`GroupLassoFLM`: the same linear model with a group-lasso penalty over contiguous groups of
  basis functions (cvxpy); the penalty is chosen on a validation split by the one-standard-error
  rule (the largest penalty within one SE of the best); non-zero groups are its selected region;
- :class:`FPCARegression`: functional principal components (quadrature-weighted SVD), least squares
  on the leading scores (enough components for ``variance`` of the curves' variance);
- :class:`DenseNetwork`: the same network as the sparse model without the spike-and-slab prior
  (Gaussian weight decay) on per-column standardised scores, early stopping on a validation split;
- :class:`AdaFNN`: an AdaFNN-style network (Yao et al. 2021) whose K basis functions are small
  networks of t, scores ``integral X beta_k`` by quadrature, an MLP on the scores, with L1 and
  orthogonality penalties on the learned bases; early stopping.

:func:`compare_methods` fits them all (and the sparse Bayesian model) on one split.

Every baseline is a scikit-learn regressor (``fit(X, y, grid=None)``, ``grid`` also a constructor
parameter, ``n_features_in_``, ``score`` = R^2) and depends on X only through scale-free quantities:
multiplying the curves by a constant leaves its predictions unchanged (tested at 1e-3 and 1e3).
"""

from __future__ import annotations

import time

import numpy as np
import torch
from sklearn.base import BaseEstimator, RegressorMixin

from toolkit_sbayfdnn import basis
from toolkit_sbayfdnn.functional_input import check_new_input, check_training_input, seed_from
from toolkit_sbayfdnn.network import PriorConfig, forward, init_params, train

FLM_ALPHAS = tuple(float(a) for a in np.logspace(-8, 2, 21))
"""Ridge penalties of the FLM, relative to standardised scores (shrink factor of a component with
singular value s: s^2 / (s^2 + alpha n), s^2 / n ~ its variance): from no shrinkage to heavy."""


def _split(n: int, val_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    perm = np.random.default_rng(seed).permutation(n)
    n_val = max(1, int(round(val_fraction * n)))
    return perm[n_val:], perm[:n_val]


class _FunctionalRegressor(RegressorMixin, BaseEstimator):
    """Shared plumbing: validated curves in, ``grid_`` / ``n_features_in_`` set, R^2 ``score``."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True  # functional_input.FUNCTIONAL_INPUT_TAG_REASON
        return tags

    def _training_input(self, X, y, grid):
        X, y, grid = check_training_input(self, X, y, grid)
        self.grid_ = grid
        return X, y

    def _new_input(self, X, grid=None):
        return check_new_input(self, X, grid)


class FunctionalLinearModel(_FunctionalRegressor):
    """Ridge functional linear model on B-spline scores, penalty chosen by exact leave-one-out CV.

    The centred scores are divided by one factor (their global sd), so the penalty grid ``alphas``
    means the same for curves in any units; ``alphas`` may include 0 (least squares).
    Learned: ``alpha_``, ``coef_`` (per raw score), ``beta_`` (beta(t) on the grid), ``loo_mse_``.
    """

    def __init__(self, n_basis: int = 24, degree: int = 3, alphas=FLM_ALPHAS, grid=None):
        self.n_basis, self.degree, self.alphas, self.grid = n_basis, degree, alphas, grid

    def fit(self, X, y, grid=None):
        X, y = self._training_input(X, y, grid)
        if len(self.alphas) == 0 or any(a < 0 for a in self.alphas):
            raise ValueError(f"alphas: must be a non-empty sequence of penalties >= 0, got {self.alphas!r}")
        self.projection_ = basis.projection_matrix(self.grid_, self.n_basis, self.degree)
        Z = X @ self.projection_
        self.z_mean_, self.y_mean_ = Z.mean(axis=0), y.mean()
        self.z_scale_ = float((Z - self.z_mean_).std()) or 1.0
        Zc, yc = (Z - self.z_mean_) / self.z_scale_, y - self.y_mean_
        U, s, Vt = np.linalg.svd(Zc, full_matrices=False)
        uty = U.T @ yc
        n = len(y)
        best = None
        for alpha in self.alphas:
            # ridge penalty alpha * n * ||b||^2; shrink factors s^2 / (s^2 + alpha n)
            shrink = s**2 / (s**2 + alpha * n) if alpha > 0 else (s > s.max() * 1e-10).astype(float)
            fitted = U @ (shrink * uty)
            # exact leave-one-out residuals of a linear smoother (the intercept's leverage 1/n included)
            leverage = (U**2) @ shrink + 1.0 / n
            loo = np.mean(((yc - fitted) / np.maximum(1.0 - leverage, 1e-12)) ** 2)
            if best is None or loo < best[0]:
                coef = Vt.T @ (np.divide(shrink * uty, s, out=np.zeros_like(s), where=s > 0))
                best = (loo, alpha, coef)
        self.loo_mse_, self.alpha_, coef = best
        self.coef_ = coef / self.z_scale_
        design = basis.bspline_design(basis.to_unit(self.grid_), self.n_basis, self.degree)
        self.beta_ = design @ self.coef_  # estimated beta(t) on the grid
        return self

    def predict(self, X, grid=None):
        X = self._new_input(X, grid)
        return (X @ self.projection_ - self.z_mean_) @ self.coef_ + self.y_mean_


class GroupLassoFLM(_FunctionalRegressor):
    """Functional linear model with a group-lasso penalty on contiguous groups of B-spline coefficients."""

    def __init__(
        self,
        n_basis: int = 24,
        degree: int = 3,
        group_size: int = 3,
        lambdas=(1e-4, 3e-4, 1e-3, 3e-3, 1e-2, 3e-2, 1e-1, 3e-1),
        val_fraction: float = 0.2,
        random_state=0,
        grid=None,
    ):
        self.n_basis, self.degree, self.group_size = n_basis, degree, group_size
        self.lambdas, self.val_fraction, self.random_state, self.grid = (
            lambdas,
            val_fraction,
            random_state,
            grid,
        )

    def _solve(self, Z, y, lam):
        import cvxpy as cp

        n, J = Z.shape
        b = cp.Variable(J)
        a = cp.Variable()
        groups = [list(range(g, min(g + self.group_size, J))) for g in range(0, J, self.group_size)]
        penalty = sum(np.sqrt(len(g)) * cp.norm(b[g], 2) for g in groups)
        problem = cp.Problem(cp.Minimize(cp.sum_squares(y - Z @ b - a) / (2 * n) + lam * penalty))
        problem.solve(solver=cp.CLARABEL) if "CLARABEL" in cp.installed_solvers() else problem.solve()
        return np.asarray(b.value).ravel(), float(a.value), groups

    def _choose_lambda(self, Zs, y) -> float:
        """One-standard-error rule on a validation split: the largest penalty within one SE of the best."""
        tr, va = _split(len(y), self.val_fraction, seed_from(self.random_state))
        errors = []
        for lam in self.lambdas:
            b, a, _ = self._solve(Zs[tr], y[tr], lam)
            errors.append((y[va] - Zs[va] @ b - a) ** 2)
        means = np.array([e.mean() for e in errors])
        best = int(np.argmin(means))
        se = errors[best].std(ddof=1) / np.sqrt(len(errors[best]))
        within = [i for i, lam in enumerate(self.lambdas) if means[i] <= means[best] + se]
        return float(max(self.lambdas[i] for i in within))

    def fit(self, X, y, grid=None):
        X, y = self._training_input(X, y, grid)
        grid = self.grid_
        self.projection_ = basis.projection_matrix(grid, self.n_basis, self.degree)
        Z = X @ self.projection_
        self.z_scale_ = float(Z.std()) or 1.0  # the penalty needs comparable units across data sets
        Zs = Z / self.z_scale_
        if len(self.lambdas) == 0 or any(not lam > 0 for lam in self.lambdas):
            raise ValueError(f"lambdas: must be a non-empty sequence of penalties > 0, got {self.lambdas!r}")
        if len(self.lambdas) == 1:  # nothing to choose: no validation solves
            self.lambda_ = float(self.lambdas[0])
        else:
            self.lambda_ = self._choose_lambda(Zs, y)
        self.coef_, self.intercept_, groups = self._solve(Zs, y, self.lambda_)
        active = [
            g for g in groups if np.linalg.norm(self.coef_[g]) > 1e-6 * max(1.0, np.abs(self.coef_).max())
        ]
        self.selected_ = np.asarray(sorted(j for g in active for j in g), dtype=int)
        unit = basis.selected_regions(self.selected_, self.n_basis, self.degree)
        self.selected_regions_ = [
            (float(basis.from_unit(lo, grid)), float(basis.from_unit(hi, grid))) for lo, hi in unit
        ]
        return self

    def predict(self, X, grid=None):
        X = self._new_input(X, grid)
        return (X @ self.projection_) / self.z_scale_ @ self.coef_ + self.intercept_


class FPCARegression(_FunctionalRegressor):
    """Least squares on functional principal component scores."""

    def __init__(self, variance: float = 0.99, max_components: int = 20, grid=None):
        self.variance, self.max_components, self.grid = variance, max_components, grid

    def fit(self, X, y, grid=None):
        X, y = self._training_input(X, y, grid)
        grid = self.grid_
        w = basis.quadrature_weights(basis.to_unit(grid))
        self.x_mean_ = X.mean(axis=0)
        Xw = (X - self.x_mean_) * np.sqrt(w)
        _, s, Vt = np.linalg.svd(Xw, full_matrices=False)
        explained = np.cumsum(s**2) / np.sum(s**2)
        k = int(min(np.searchsorted(explained, self.variance) + 1, self.max_components, len(s)))
        self.n_components_ = k
        self.eigenfunctions_ = Vt[:k] / np.sqrt(w)  # orthonormal in L2[0, 1]
        scores = self._scores(X)
        design = np.column_stack([np.ones(len(y)), scores])
        self.coef_, *_ = np.linalg.lstsq(design, y, rcond=None)
        return self

    def _scores(self, X):
        w = basis.quadrature_weights(basis.to_unit(self.grid_))
        return ((X - self.x_mean_) * w) @ self.eigenfunctions_.T

    def predict(self, X, grid=None):
        X = self._new_input(X, grid)
        return self.coef_[0] + self._scores(X) @ self.coef_[1:]


class DenseNetwork(_FunctionalRegressor):
    """The sparse model's network without the spike-and-slab prior, early-stopped on a validation split.

    Its inputs are the B-spline scores standardised per column (mean 0, sd 1), so curves in any units
    give the same network (before 2026-12-01 it took the raw centred scores: X * 1e-3 gave R^2 ~ 0)."""

    def __init__(
        self,
        n_basis: int = 24,
        degree: int = 3,
        widths=(64, 32),
        epochs: int = 3000,
        lr: float = 2e-3,
        weight_decay_var: float = 1.0,
        val_fraction: float = 0.2,
        early_stopping: bool = True,
        device: str = "cpu",
        random_state=0,
        grid=None,
    ):
        self.n_basis, self.degree, self.widths, self.epochs, self.lr = n_basis, degree, widths, epochs, lr
        self.weight_decay_var, self.val_fraction = weight_decay_var, val_fraction
        self.early_stopping = early_stopping
        self.device, self.random_state, self.grid = device, random_state, grid

    def _standardised_scores(self, X):
        return torch.as_tensor(
            (X @ self.projection_ - self.z_mean_) / self.z_scale_, dtype=torch.float32, device=self.device
        )

    def fit(self, X, y, grid=None):
        X, y = self._training_input(X, y, grid)
        self.projection_ = basis.projection_matrix(self.grid_, self.n_basis, self.degree)
        Z = X @ self.projection_
        self.z_mean_ = Z.mean(axis=0)
        sd = Z.std(axis=0)
        self.z_scale_ = np.where(sd > 1e-12 * max(float(sd.max()), 1e-300), sd, 1.0)
        self.y_mean_, self.y_scale_ = float(y.mean()), float(y.std()) or 1.0
        Zt = self._standardised_scores(X)
        yt = torch.as_tensor((y - self.y_mean_) / self.y_scale_, dtype=torch.float32, device=self.device)
        gen = torch.Generator().manual_seed(seed_from(self.random_state))
        params = init_params(1, self.n_basis, tuple(self.widths), gen, device=self.device)
        prior = PriorConfig(sigma_other_sq=self.weight_decay_var)
        if self.early_stopping:
            tr, va = _split(len(y), self.val_fraction, seed_from(self.random_state))
            self.params_, info = train(
                params,
                Zt[tr],
                yt[tr],
                task="regression",
                prior=prior,
                epochs=self.epochs,
                lr=self.lr,
                spike_slab=False,
                Z_val=Zt[va],
                y_val=yt[va],
            )
            self.best_epoch_ = info["best_epoch"][0]
        else:  # all epochs on all training curves (the reference run dense network, as we read it)
            self.params_, _ = train(
                params,
                Zt,
                yt,
                task="regression",
                prior=prior,
                epochs=self.epochs,
                lr=self.lr,
                spike_slab=False,
            )
            self.best_epoch_ = self.epochs
        return self

    def predict(self, X, grid=None):
        X = self._new_input(X, grid)
        Z = self._standardised_scores(X).double()
        with torch.no_grad():
            out = forward([p.double() for p in self.params_], Z)[0].cpu().numpy()
        return out * self.y_scale_ + self.y_mean_


class AdaFNN(_FunctionalRegressor):
    """AdaFNN-style adaptive-basis network: K micro-networks beta_k(t) (1 -> 32 -> 32 -> 1, tanh),
    scores ``integral X beta_k`` by the trapezoid rule, an MLP (K -> 32 -> 1) on the scores; loss
    MSE + l1 * sum_k ||beta_k||_L1 + ortho * sum_{k != l} <beta_k, beta_l>^2 (+ ||beta_k|| = 1 softly)."""

    def __init__(
        self,
        n_bases: int = 4,
        epochs: int = 2000,
        lr: float = 2e-3,
        l1: float = 1e-3,
        ortho: float = 1e-2,
        val_fraction: float = 0.2,
        device: str = "cpu",
        random_state=0,
        grid=None,
    ):
        self.n_bases, self.epochs, self.lr, self.l1, self.ortho = n_bases, epochs, lr, l1, ortho
        self.val_fraction, self.device, self.random_state, self.grid = (
            val_fraction,
            device,
            random_state,
            grid,
        )

    def _build(self, seed: int):
        torch.manual_seed(seed)  # nn.Linear init; fit() restores the global state after
        K = self.n_bases
        self.micro_ = torch.nn.ModuleList(
            [
                torch.nn.Sequential(
                    torch.nn.Linear(1, 32),
                    torch.nn.Tanh(),
                    torch.nn.Linear(32, 32),
                    torch.nn.Tanh(),
                    torch.nn.Linear(32, 1),
                )
                for _ in range(K)
            ]
        )
        self.head_ = torch.nn.Sequential(torch.nn.Linear(K, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
        self.micro_.to(self.device)
        self.head_.to(self.device)

    def _bases(self):
        u = self.u_[:, None]
        return torch.cat([net(u) for net in self.micro_], dim=1).T  # (K, m)

    def _forward(self, Xt):
        B = self._bases()
        scores = (Xt * self.w_) @ B.T
        return self.head_(scores).squeeze(-1), B

    def fit(self, X, y, grid=None):
        X, y = self._training_input(X, y, grid)
        grid = self.grid_
        seed = seed_from(self.random_state)
        state = torch.random.get_rng_state()
        try:
            self._build(seed)
        finally:
            torch.random.set_rng_state(state)
        self.u_ = torch.as_tensor(basis.to_unit(grid), dtype=torch.float32, device=self.device)
        self.w_ = torch.as_tensor(
            basis.quadrature_weights(basis.to_unit(grid)), dtype=torch.float32, device=self.device
        )
        self.x_mean_ = X.mean(axis=0)
        self.x_scale_ = float((X - self.x_mean_).std()) or 1.0
        self.y_mean_, self.y_scale_ = float(y.mean()), float(y.std()) or 1.0
        Xt = torch.as_tensor((X - self.x_mean_) / self.x_scale_, dtype=torch.float32, device=self.device)
        yt = torch.as_tensor((y - self.y_mean_) / self.y_scale_, dtype=torch.float32, device=self.device)
        tr, va = _split(len(y), self.val_fraction, seed)
        params = list(self.micro_.parameters()) + list(self.head_.parameters())
        opt = torch.optim.Adam(params, lr=self.lr)
        best, best_state, stale = float("inf"), None, 0
        eye = torch.eye(self.n_bases, device=self.device)
        for epoch in range(self.epochs):
            out, B = self._forward(Xt[tr])
            gram = (B * self.w_) @ B.T
            penalty = self.l1 * (B.abs() * self.w_).sum() + self.ortho * ((gram - eye) ** 2).sum()
            loss = ((out - yt[tr]) ** 2).mean() + penalty
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if (epoch + 1) % 25 == 0:
                with torch.no_grad():
                    val = float(((self._forward(Xt[va])[0] - yt[va]) ** 2).mean())
                if val < best:
                    best, stale = val, 0
                    best_state = [p.detach().clone() for p in params]
                else:
                    stale += 1
                    if stale >= 20:
                        break
        if best_state is not None:
            with torch.no_grad():
                for p, keep in zip(params, best_state):
                    p.copy_(keep)
        return self

    def predict(self, X, grid=None):
        X = self._new_input(X, grid)
        Xt = torch.as_tensor((X - self.x_mean_) / self.x_scale_, dtype=torch.float64, device=self.device)
        with torch.no_grad():
            self.micro_.double(), self.head_.double()
            u, w = self.u_, self.w_
            self.u_, self.w_ = u.double(), w.double()
            try:
                out = self._forward(Xt)[0].cpu().numpy()
            finally:
                self.micro_.float(), self.head_.float()
                self.u_, self.w_ = u, w
        return out * self.y_scale_ + self.y_mean_


METHODS = ("sbayfdnn", "flm", "group_lasso", "fpca", "dense", "adafnn", "select_all")
EXTRA_METHODS = ("dense_no_early_stopping",)  # not in the default comparison; see compare_methods


def compare_methods(
    data,
    methods=METHODS,
    *,
    sbay_kwargs: dict | None = None,
    epochs: int = 3000,
    n_basis: int = 24,
    degree: int = 3,
    device: str = "cpu",
    seed: int = 0,
    interval_level: float = 0.95,
    keep_models: bool = False,
) -> list[dict]:
    """Fit every method in ``methods`` on ``data`` (a :class:`~toolkit_sbayfdnn.designs.FunctionalData`
    with a test split) and return one record per method: test RMSE, RMSE / oracle, region TPR/FPR/F1
    (methods that select), number of selected basis functions, interval coverage (sbayfdnn), wall time.

    ``select_all`` is the region baseline that selects the whole domain (the FLM's predictions).
    ``dense_no_early_stopping`` (not in the default list) trains the dense network for all epochs on
    all training curves without weight decay. ``keep_models``: each record also holds its fitted
    ``model``. Data without a planted truth (``f_test`` None) get ``rmse_ratio`` nan.
    """
    from toolkit_sbayfdnn.estimator import SparseBayesianFDNN

    unknown = [m for m in methods if m not in METHODS + EXTRA_METHODS]
    if unknown:
        raise ValueError(f"methods: unknown {unknown}; choose from {', '.join(METHODS + EXTRA_METHODS)}")
    true_mask = basis.region_mask(data.grid, data.true_regions) if data.true_regions is not None else None
    oracle = data.oracle_rmse if data.f_test is not None else float("nan")
    records = []
    for method in methods:
        start = time.perf_counter()
        rec = {"method": method}
        regions = None
        if method == "sbayfdnn":
            kw = dict(n_basis=n_basis, degree=degree, epochs=epochs, device=device, random_state=seed)
            kw.update(sbay_kwargs or {})
            model = SparseBayesianFDNN(**kw).fit(data.X, data.y, data.grid)
            lo, hi = model.predict_interval(data.X_test, level=interval_level)
            rec["coverage"] = float(np.mean((data.y_test >= lo) & (data.y_test <= hi)))
            rec["interval_width"] = float(np.mean(hi - lo))
            rec["n_selected"] = int(len(model.selected_))
            regions = model.selected_regions_
            rec["log_evidence"] = float(model.log_evidences_[model.best_restart_])
            rec["inner_cv_choice"] = model.inner_cv_choice_  # "" when the inner CV did not run
        elif method in ("flm", "select_all"):
            model = FunctionalLinearModel(n_basis, degree).fit(data.X, data.y, data.grid)
            if method == "select_all":
                regions = [(float(data.grid[0]), float(data.grid[-1]))]
                rec["n_selected"] = n_basis
        elif method == "group_lasso":
            model = GroupLassoFLM(n_basis, degree, random_state=seed).fit(data.X, data.y, data.grid)
            regions = model.selected_regions_
            rec["n_selected"] = int(len(model.selected_))
        elif method == "fpca":
            model = FPCARegression().fit(data.X, data.y, data.grid)
        elif method == "dense":
            model = DenseNetwork(n_basis, degree, epochs=epochs, device=device, random_state=seed).fit(
                data.X, data.y, data.grid
            )
        elif method == "dense_no_early_stopping":  # no validation split, no weight decay, every epoch
            model = DenseNetwork(
                n_basis,
                degree,
                epochs=epochs,
                weight_decay_var=float("inf"),
                early_stopping=False,
                device=device,
                random_state=seed,
            ).fit(data.X, data.y, data.grid)
        else:  # adafnn
            model = AdaFNN(epochs=epochs, device=device, random_state=seed).fit(data.X, data.y, data.grid)
        pred = model.predict(data.X_test)
        rec["rmse"] = float(np.sqrt(np.mean((pred - data.y_test) ** 2)))
        rec["rmse_ratio"] = rec["rmse"] / oracle if oracle == oracle and oracle > 0 else float("nan")
        if regions is not None and true_mask is not None and true_mask.any():
            rec.update(basis.region_metrics(basis.region_mask(data.grid, regions), true_mask))
        rec["wall_time"] = time.perf_counter() - start
        if keep_models:
            rec["model"] = model
        records.append(rec)
    return records
