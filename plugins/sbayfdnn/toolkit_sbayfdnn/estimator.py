"""``SparseBayesianFDNN``: the sparse Bayesian functional deep network with region selection, as a
scikit-learn-style estimator (no toolkit imports; the device string comes from the caller).

Zhu, Li, Ma, Wu, "Sparse Bayesian Deep Functional Learning with Structured Region Selection",
ICML 2026, arXiv:2602.20651; fitting as in Sun, Song & Liang (2022), "Consistent sparse deep learning".

Pipeline of :meth:`SparseBayesianFDNN.fit`:

1. project curves on a clamped B-spline basis (``z = integral X B_j``), centre the scores and
   multiply them by one factor (per-column scaling would change the prior's meaning per column) so
   that their global sd is ``score_sd``. The default, 0.172, is the sd of the *raw* scores in the
   reference simulation design, where the prior variances (sigma1^2 = 5e-3) were calibrated; scaling to
   sd 1 instead kept 12 of 24 columns there (FPR 0.75), and raw ECG scores (sd 0.004) lost every
   column. So the calibrated prior carries over to curves in any units;
2. for R random restarts at once, MAP of ``loss + ramp/n * (-log prior)``, the grouped
   spike-and-slab prior on the first layer's columns ramped in over ``anneal_epochs``;
3. plug-in inclusion probabilities ``q_j``; columns with ``q_j > 1/2`` are kept, the rest masked;
4. fine-tune the masked networks; Laplace log evidence of each restart; keep the best restart;
5. Laplace predictive intervals ``f(x) +/- z sqrt(sigma^2 + g(x)^T Sigma g(x))``;
6. (regression) when the network fits the training curves worse than the functional linear
   model predicts unseen ones (training RMSE > ``cv_trigger`` x the FLM's leave-one-out RMSE), or when
   there are fewer than ``cv_always_below_n`` training curves (there the training RMSE is too optimistic
   to trust), choose between the network at sigma1^2 x ``cv_slab_factors`` and the FLM by
   ``cv_folds``-fold CV on the training curves (``small_n_cv_folds`` folds below ``cv_always_below_n``
   curves), keeping the FLM unless a network beats it by more than one paired standard error
   (README, "Inner-CV model choice" and "Folds").
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import torch
from scipy.stats import norm as normal_dist
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import NotFittedError as SklearnNotFittedError
from sklearn.utils.multiclass import check_classification_targets, type_of_target

from toolkit_sbayfdnn import basis
from toolkit_sbayfdnn.functional_input import (
    check_basis_against_data,
    check_new_input,
    check_training_input,
    seed_from,
)
from toolkit_sbayfdnn.network import (
    PriorConfig,
    data_loss,
    first_layer_log_evidence,
    forward,
    gauss_newton_hessian,
    init_params,
    laplace_log_evidence,
    laplace_objective,
    output_jacobian,
    posterior_predictive_variance,
    savage_dickey_log_bayes_factors,
    train,
)
from toolkit_sbayfdnn.prior import inclusion_probability, pip_threshold

DESIGN_SCORE_SD = 0.172
"""Global sd of the centred raw B-spline scores (J = 24, cubic) in the two-region design."""


NotFittedError = SklearnNotFittedError
"""The estimator was used before ``fit``: scikit-learn's ``NotFittedError`` (a ValueError and AttributeError)."""


class EmptyModelWarning(UserWarning):
    """The Laplace evidence chose the empty model: no basis function is selected, every prediction is
    the training mean (regression) or the base rate (classification)."""


def _check_positive_int(name: str, value, minimum: int = 1) -> None:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < minimum:
        raise ValueError(f"{name}: must be an integer >= {minimum}, got {value!r}")


def inner_cv_folds(n: int, n_folds: int, random_state) -> list[np.ndarray]:
    """The inner CV's held-out index sets: a permutation of ``range(n)``, seeded by ``random_state`` + 7919, cut
    into ``n_folds`` nearly equal parts (``np.array_split``)."""
    order = np.random.default_rng(seed_from(random_state) + 7919).permutation(n)
    return np.array_split(order, n_folds)


EARLY_STOP_MIN_CURVES = 20
"""The inner CV's early stop looks at the curves held out so far only once there are at least this many."""


def _linear_clearly_ahead(sq_errors: dict[str, np.ndarray], margin_se: float) -> bool:
    """Whether every network's per-curve squared error exceeds the FLM's by more than ``margin_se`` paired
    standard errors (on at least ``EARLY_STOP_MIN_CURVES`` curves): the mirror of ``inner_cv_choice``'s margin."""
    if "linear" not in sq_errors or len(sq_errors["linear"]) < EARLY_STOP_MIN_CURVES:
        return False
    for name, errors in sq_errors.items():
        if name == "linear":
            continue
        loss = np.asarray(errors, float) - np.asarray(sq_errors["linear"], float)
        if not loss.mean() > margin_se * loss.std(ddof=1) / np.sqrt(len(loss)):
            return False
    return True


def _fit_predict(model, X, y, grid, X_new) -> np.ndarray:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # inner fits repeat the guard / small-n messages
        return model.fit(X, y, grid).predict(X_new, grid)


def _fit_predict_all(models, X, y, grid, X_new, n_jobs) -> list[np.ndarray]:
    """Every model fitted on (X, y) and its predictions on ``X_new``; side by side in ``n_jobs`` processes."""
    from sklearn.base import clone

    if n_jobs in (None, 1) or len(models) == 1:
        return [_fit_predict(clone(m), X, y, grid, X_new) for m in models]
    from joblib import Parallel, delayed

    return Parallel(n_jobs=n_jobs)(delayed(_fit_predict)(clone(m), X, y, grid, X_new) for m in models)


def inner_cv_choice(sq_errors: dict[str, np.ndarray], margin_se: float = 2.0) -> tuple[str, float, float]:
    """The inner CV's choice from every candidate's per-curve held-out squared errors (networks first, in
    order; ``"linear"``, the FLM, last if present). Returns (choice, gain, se): the lowest mean wins (ties:
    the earlier candidate), except that the FLM is kept unless the best network's mean is below the FLM's by
    more than ``margin_se`` standard errors of the paired per-curve difference (0: the lowest mean alone;
    1: the one-standard-error rule). ``gain`` is that difference's mean (FLM minus best network; nan without
    an FLM), ``se`` its standard error."""
    mse = {c: float(np.mean(e)) for c, e in sq_errors.items()}
    chosen = min(mse, key=mse.get)  # dicts keep their order, and min keeps the first of equal values
    networks = [c for c in sq_errors if c != "linear"]
    if "linear" not in sq_errors or not networks:
        return chosen, float("nan"), float("nan")
    best_network = min(networks, key=mse.get)
    gain = np.asarray(sq_errors["linear"], float) - np.asarray(sq_errors[best_network], float)
    gain_mean, gain_se = float(gain.mean()), float(gain.std(ddof=1) / np.sqrt(len(gain)))
    if chosen != "linear" and not gain_mean > margin_se * gain_se:
        chosen = "linear"  # the network's gain is within the margin: keep the simpler model
    return chosen, gain_mean, gain_se


class _SparseBayesianFDNNBase(BaseEstimator):
    """Sparse Bayesian functional deep network with structured region selection (shared by the
    regressor :class:`SparseBayesianFDNN` and :class:`SparseBayesianFDNNClassifier`).

    :param n_basis: J, number of B-spline basis functions (>= degree + 1).
    :param degree: B-spline degree (3 = cubic).
    :param widths: hidden widths; the first is H, the width of the first layer whose J columns are
        the spike-and-slab groups.
    :param lam, sigma0_sq, sigma1_sq: prior inclusion probability and spike/slab *variances*.
    :param sigma_other_sq: variance of the Gaussian prior on all other weights.
    :param epochs, anneal_epochs, finetune_epochs, lr: full-batch Adam schedule.
    :param finetune_lr: Adam learning rate of the fine-tuning after masking (None: ``lr``). Fine-tuning
        starts a fresh Adam on an already converged network, so a full-size step can jolt it; 2e-4
        (lr/10) was chosen on pilot seeds (README, "Fine-tuning learning rate").
    :param n_restarts: R random restarts; the Laplace evidence picks the best.
    :param threshold: a column is selected when its inclusion probability exceeds this (1/2).
    :param include_empty_model: add a candidate with every column excluded (W1 = 0) to the restarts
        compared by the Laplace evidence (our addition; without it pure noise kept ~20 columns).
    :param empty_model_evidence: how the empty model is weighed against the best restart (restarts
        are always ranked among themselves by their full Laplace evidence): ``"full"`` (default)
        compares full evidences; ``"first_layer"`` compares the Laplace evidence of the first-layer
        (region) weights with the downstream layers at their MAP, so the Occam factor of the downstream
        weights cancels. Measured, and not the default (see the plugin's results page).
    :param linear_guard: when the evidence chooses the empty model although the functional linear
        model's exact leave-one-out R^2 on the training curves exceeds this, the best restart with
        columns (by evidence) is used instead, with a warning (never the empty model where a
        linear model explains most of the held-out variance); None: off. Regression only.
    :param guard_refit_slab: when the linear guard acts (the prior is too tight for these curves: the
        evidence prefers no region although a linear model explains most of the variance), refit once
        with ``sigma1_sq * guard_refit_slab`` and use the refit (``guard_refit_``, ``sigma1_sq_``); None: off.
    :param cv_folds: inner cross-validation of the model choice (regression only; see the plugin's
        results page, "Inner-CV model choice"): when the fitted network's *training* RMSE exceeds ``cv_trigger`` times
        the functional linear model's exact leave-one-out RMSE (the network fits the training curves worse
        than a linear model predicts unseen ones: its prior is too tight for these curves), the candidates
        "network at sigma1_sq x f" for f in ``cv_slab_factors`` and, with ``cv_linear``, the FLM are scored by
        ``cv_folds``-fold cross-validation on the training data only, and the one with the lowest CV MSE is
        used (``prediction_model_``: ``"network"`` or ``"linear"``; ``sigma1_sq_``). 0: off (the old rule).
    :param cv_trigger: the ratio above which the inner CV runs (>= 0; 0: always).
    :param cv_always_below_n: the inner CV also runs, whatever ``cv_trigger`` says, when there are fewer
        than this many training curves (integer >= 0; 0: the trigger alone). With few curves the network's
        training RMSE is an optimistic estimate of its error, so the trigger can miss a network that fits
        its curves and generalises worse than the FLM (README, "Small samples"); the CV's extra fits
        (two networks per fold) are affordable there. ``inner_cv_reason_`` says which condition ran it
        (``"small n"``, ``"trigger"``, ``""``).
    :param small_n_cv_folds: the number of inner-CV folds (integer >= 2; at most n // 2) when there are fewer
        than ``cv_always_below_n`` training curves, whichever condition ran the CV; ``cv_folds`` otherwise.
        With 3 folds on 40 curves each inner fit sees 27 curves, where the FLM (24 basis functions) is far
        worse than on 40, so the CV favoured the network (README, "Folds"); with 10 each sees 36.
        ``inner_cv_folds_`` is the number used (0: the CV did not run).
    :param cv_margin_se: with ``cv_linear``, keep the FLM unless the best network's CV MSE is below the
        FLM's by more than this many standard errors of the paired per-curve difference (``inner_cv_gain_``
        and ``inner_cv_gain_se_``; a number >= 0). 1 is the one-standard-error rule (Breiman et al. 1984;
        Hastie, Tibshirani & Friedman 2009, sec. 7.10) in its paired form; the default 2 asks for more
        because the per-curve differences share each fold's fitted models, so their naive standard error
        understates the spread of a CV estimate (Nadeau & Bengio 2003; Bengio & Grandvalet 2004), and on 40
        curves a one-SE gain reversed on the test curves (README, "Margin"). It can only move a choice from
        a network to the FLM. 0: the lowest CV MSE wins.
    :param cv_slab_factors: factors on ``sigma1_sq`` of the network candidates (must include 1, the default fit).
    :param cv_linear: include the FLM as a candidate (then predictions, ``predict_interval`` and
        ``effective_weight_function`` are the FLM's, and so is the selection: ``selected_regions_`` is the
        whole grid, ``selected_`` every basis function; the network's selection stays in ``network_*``).
    :param cv_early_stop: stop the inner CV after a fold once, on the curves held out so far (at least
        ``EARLY_STOP_MIN_CURVES``), every network's squared error exceeds the FLM's by more than
        ``cv_margin_se`` paired standard errors: the FLM is then clearly ahead and is chosen, without
        fitting the remaining folds (the full rule could only choose a network that beats it by that
        margin). ``inner_cv_folds_run_`` is the number of folds fitted. False: every fold.
    :param n_jobs: processes for the inner CV's network fits (the candidates of one fold run side by side);
        None or 1: one process; -1: every core. The result does not depend on it.
    :param torch_threads: the number of threads torch may use during ``fit`` (restored afterwards); None: torch's
        own setting (one thread per core). The default 1: these networks are small, and extra threads cost
        CPU time without saving wall time (see the sbayfdnn performance page).
    :param verbose: 0: silent; 1: one line per stage of the fit on stderr (training, evidence, each
        inner-CV fold) with the seconds elapsed.
    :param score_sd: the centred scores are multiplied by one factor so that their global sd is this
        (``None``: keep the raw scores). See step 1 above.
    :param grid: the grid (m,) the curves are observed on, fixed at construction (so that
        ``Pipeline``, ``GridSearchCV`` and ``cross_val_score`` need no fit argument); ``fit(X, y, grid)``
        may pass it instead; None and no fit argument: ``linspace(0, 1, m)``.
    :param device: torch device string (``"cpu"``, ``"cuda"``).
    :param random_state: integer seed, None (fresh randomness) or a numpy ``RandomState``.

    Learned attributes (after ``fit``): ``n_features_in_`` (m), ``inclusion_probabilities_`` (J,),
    ``selected_`` (indices), ``selected_regions_`` (merged intervals in grid units),
    ``region_inclusion_probabilities_``: the selection of the model that predicts (``prediction_model_``);
    when it is the FLM, every basis function and the whole grid (probabilities 1). The network's own
    selection is always in ``network_inclusion_probabilities_``, ``network_selected_``,
    ``network_selected_regions_``, ``network_unit_regions_``, ``network_region_inclusion_probabilities_``.
    ``weight_functions_`` (H x m: ``beta_k(t) = sum_j W1[k, j] B_j(t)``, the network's),
    ``log_evidences_`` (R,), ``best_restart_``, ``empty_model_selected_``, ``evidence_gap_`` (log evidence of
    the chosen candidate minus that of the best restart with columns: positive when the empty model is
    chosen, and, with ``empty_model_evidence="full"``, exactly 0.0 whenever a restart with columns is chosen,
    since that restart is then the best one with columns; nan when no restart kept a column), ``noise_variance_`` (regression, in y units),
    ``grid_``, ``fit_time_``.
    """

    task = "regression"

    def __init__(
        self,
        n_basis: int = 24,
        degree: int = 3,
        widths: tuple[int, ...] = (64, 32),
        lam: float = 1e-5,
        sigma0_sq: float = 1e-5,
        sigma1_sq: float = 5e-3,
        sigma_other_sq: float = 1.0,
        epochs: int = 3000,
        anneal_epochs: int = 500,
        finetune_epochs: int = 500,
        lr: float = 2e-3,
        finetune_lr: float | None = 2e-4,
        n_restarts: int = 3,
        threshold: float = 0.5,
        score_sd: float | None = DESIGN_SCORE_SD,
        include_empty_model: bool = True,
        empty_model_evidence: str = "full",
        linear_guard: float | None = 0.5,
        guard_refit_slab: float | None = None,
        cv_folds: int = 3,
        cv_trigger: float = 1.0,
        cv_always_below_n: int = 100,
        small_n_cv_folds: int = 10,
        cv_margin_se: float = 2.0,
        cv_slab_factors: tuple[float, ...] = (1.0, 10.0),
        cv_linear: bool = True,
        cv_early_stop: bool = True,
        n_jobs: int | None = None,
        torch_threads: int | None = 1,
        verbose: int = 0,
        grid=None,
        device: str = "cpu",
        random_state=0,
    ):
        self.n_basis = n_basis
        self.degree = degree
        self.widths = widths
        self.lam = lam
        self.sigma0_sq = sigma0_sq
        self.sigma1_sq = sigma1_sq
        self.sigma_other_sq = sigma_other_sq
        self.epochs = epochs
        self.anneal_epochs = anneal_epochs
        self.finetune_epochs = finetune_epochs
        self.lr = lr
        self.finetune_lr = finetune_lr
        self.n_restarts = n_restarts
        self.threshold = threshold
        self.score_sd = score_sd
        self.include_empty_model = include_empty_model
        self.empty_model_evidence = empty_model_evidence
        self.linear_guard = linear_guard
        self.guard_refit_slab = guard_refit_slab
        self.cv_folds = cv_folds
        self.cv_trigger = cv_trigger
        self.cv_always_below_n = cv_always_below_n
        self.small_n_cv_folds = small_n_cv_folds
        self.cv_margin_se = cv_margin_se
        self.cv_slab_factors = cv_slab_factors
        self.cv_linear = cv_linear
        self.cv_early_stop = cv_early_stop
        self.n_jobs = n_jobs
        self.torch_threads = torch_threads
        self.verbose = verbose
        self.grid = grid
        self.device = device
        self.random_state = random_state

    def _validate_settings(self) -> None:
        basis.check_basis_size(self.n_basis, self.degree)
        if not self.widths or any(int(w) < 1 for w in self.widths):
            raise ValueError(f"widths: must be a non-empty tuple of positive widths, got {self.widths!r}")
        for name in ("epochs", "n_restarts"):
            _check_positive_int(name, getattr(self, name))
        for name in ("anneal_epochs", "finetune_epochs"):
            _check_positive_int(name, getattr(self, name), minimum=0)
        if not 0.0 < self.threshold < 1.0:
            raise ValueError(f"threshold: must lie in (0, 1), got {self.threshold}")
        if not self.sigma0_sq < self.sigma1_sq:
            raise ValueError(
                f"sigma0_sq must be < sigma1_sq (spike narrower than slab), got "
                f"{self.sigma0_sq} >= {self.sigma1_sq}"
            )
        if not 0 < self.lam < 1:
            raise ValueError(f"lam: must lie in (0, 1), got {self.lam}")
        if self.lr <= 0:
            raise ValueError(f"lr: must be > 0, got {self.lr}")
        if self.finetune_lr is not None and not self.finetune_lr > 0:
            raise ValueError(f"finetune_lr: must be > 0 or None (None: use lr), got {self.finetune_lr}")
        if self.linear_guard is not None and not 0.0 <= self.linear_guard < 1.0:
            raise ValueError(f"linear_guard: must lie in [0, 1) or be None, got {self.linear_guard!r}")
        if self.guard_refit_slab is not None and not self.guard_refit_slab > 1.0:
            raise ValueError(
                f"guard_refit_slab: must be > 1 (the factor on sigma1_sq) or None, got {self.guard_refit_slab!r}"
            )
        _check_positive_int("cv_folds", self.cv_folds, minimum=0)
        if self.cv_folds == 1:
            raise ValueError("cv_folds: must be 0 (off) or >= 2, got 1")
        if not (isinstance(self.cv_trigger, (int, float, np.floating)) and self.cv_trigger >= 0):
            raise ValueError(f"cv_trigger: must be a number >= 0, got {self.cv_trigger!r}")
        _check_positive_int("cv_always_below_n", self.cv_always_below_n, minimum=0)
        _check_positive_int("small_n_cv_folds", self.small_n_cv_folds, minimum=2)
        if self.n_jobs is not None and (
            not isinstance(self.n_jobs, (int, np.integer))
            or isinstance(self.n_jobs, bool)
            or self.n_jobs == 0
        ):
            raise ValueError(
                f"n_jobs: must be None (one process), a positive integer or -1 (every core), got {self.n_jobs!r}"
            )
        _check_positive_int("verbose", self.verbose, minimum=0)
        if self.torch_threads is not None:
            _check_positive_int("torch_threads", self.torch_threads)
        if not isinstance(self.cv_early_stop, (bool, np.bool_)):
            raise ValueError(f"cv_early_stop: must be True or False, got {self.cv_early_stop!r}")
        if (
            isinstance(self.cv_margin_se, (bool, np.bool_))
            or not isinstance(self.cv_margin_se, (int, float, np.number))
            or not self.cv_margin_se >= 0
        ):  # also refuses nan
            raise ValueError(
                f"cv_margin_se: must be a number >= 0 (standard errors; 0: the lowest CV MSE), "
                f"got {self.cv_margin_se!r}"
            )
        factors = tuple(self.cv_slab_factors) if np.ndim(self.cv_slab_factors) == 1 else ()
        if not factors or 1.0 not in factors or any(not f > 0 for f in factors):
            raise ValueError(
                f"cv_slab_factors: must be a sequence of positive factors on sigma1_sq that includes 1.0 "
                f"(the default fit), got {self.cv_slab_factors!r}"
            )
        if any(self.sigma0_sq >= self.sigma1_sq * f for f in factors):
            raise ValueError(
                f"cv_slab_factors: every sigma1_sq x factor must exceed sigma0_sq = {self.sigma0_sq}, got "
                f"{self.cv_slab_factors!r}"
            )
        if self.empty_model_evidence not in ("first_layer", "full"):
            raise ValueError(
                f"empty_model_evidence: must be 'first_layer' or 'full', got {self.empty_model_evidence!r}"
            )
        if self.score_sd is not None and not self.score_sd > 0:
            raise ValueError(f"score_sd: must be > 0 or None (None: raw scores), got {self.score_sd}")

    def _say(self, message: str) -> None:
        """A progress line on stderr (``verbose`` >= 1), with the seconds since the fit started."""
        if self.verbose:
            import sys

            elapsed = time.perf_counter() - getattr(self, "_fit_start", time.perf_counter())
            print(f"[SparseBayesianFDNN {elapsed:7.1f} s] {message}", file=sys.stderr, flush=True)

    @property
    def finetune_step_size(self) -> float:
        """The learning rate fine-tuning uses: ``finetune_lr``, or ``lr`` when that is None."""
        return self.lr if self.finetune_lr is None else self.finetune_lr

    @property
    def prior_(self) -> PriorConfig:
        """The prior of the fitted network (its slab variance is ``sigma1_sq_`` after a guard refit)."""
        return PriorConfig(
            self.lam, self.sigma0_sq, getattr(self, "sigma1_sq_", self.sigma1_sq), self.sigma_other_sq
        )

    def _scores(self, X, grid=None) -> torch.Tensor:
        X = check_new_input(self, X, grid)
        Z = (X @ self.projection_ - self.z_mean_) / self.z_scale_
        return torch.as_tensor(Z, dtype=torch.float64, device=self.device)

    def _target(self, y) -> np.ndarray:
        self.y_mean_ = float(y.mean())
        self.y_scale_ = float(y.std()) or 1.0
        return (y - self.y_mean_) / self.y_scale_

    def fit(self, X, y, grid=None):
        """Fit on curves ``X`` (n x m array or ``FDataGrid``) observed on ``grid`` (m,), response ``y``."""
        self._validate_settings()
        previous = torch.get_num_threads()
        if self.torch_threads is not None:
            torch.set_num_threads(int(self.torch_threads))
        try:
            return self._fit(X, y, grid)
        finally:
            torch.set_num_threads(previous)

    def _fit(self, X, y, grid):
        start = self._fit_start = time.perf_counter()
        X, y, grid = check_training_input(self, X, y, grid, classifier=self.task == "classification")
        n = X.shape[0]
        check_basis_against_data(self.n_basis, self.degree, n, X.shape[1])
        target = self._target(y)
        self.grid_ = grid
        self.projection_ = basis.projection_matrix(grid, self.n_basis, self.degree)
        Z = X @ self.projection_
        self.z_mean_ = Z.mean(axis=0)
        # rescale the centred scores to a global sd of score_sd (one factor for all columns)
        self.z_scale_ = (float((Z - self.z_mean_).std()) or 1.0) / self.score_sd if self.score_sd else 1.0
        dev = self.device
        Zt = torch.as_tensor((Z - self.z_mean_) / self.z_scale_, dtype=torch.float32, device=dev)
        yt = torch.as_tensor(target, dtype=torch.float32, device=dev)
        gen = torch.Generator().manual_seed(seed_from(self.random_state))
        R = int(self.n_restarts)
        widths = tuple(int(w) for w in self.widths)
        params = init_params(R, self.n_basis, widths, gen, device=dev)
        prior = self.prior_
        self._say(f"training {R} restarts on {n} curves ({self.epochs} epochs)")
        params, _ = train(
            params,
            Zt,
            yt,
            task=self.task,
            prior=prior,
            epochs=self.epochs,
            lr=self.lr,
            anneal_epochs=self.anneal_epochs,
        )
        H = widths[0]
        if self.include_empty_model:
            # one more candidate: restart 0's network with W1 = 0 (no region at all); the evidence
            # decides between it and the restarts (the null design needs it, see the README)
            params = [torch.cat([p, p[:1]]) for p in params]
            params[0][-1] = 0.0
            R += 1
        col_norm_sq = (params[0] ** 2).sum(dim=1).cpu().double().numpy()  # (R, J)
        pips = inclusion_probability(col_norm_sq, H, self.lam, self.sigma0_sq, self.sigma1_sq)
        mask = torch.as_tensor(pips > self.threshold, dtype=torch.float32, device=dev)
        if self.finetune_epochs > 0:
            params, _ = train(
                params,
                Zt,
                yt,
                task=self.task,
                prior=prior,
                epochs=self.finetune_epochs,
                lr=self.finetune_step_size,
                mask=mask,
            )
        self._say(f"Laplace evidence of {R} candidates")
        with torch.no_grad():
            residual_var = data_loss(forward(params, Zt, mask), yt, self.task).cpu().numpy()
        evidences, region_evidences, laplace = [], [], []
        Zd, yd = Zt.double(), yt.double()
        for r in range(R):
            single = [p[r : r + 1].double() for p in params]
            noise_var = max(float(residual_var[r]), 1e-8) if self.task == "regression" else None
            objective, theta, shapes, keep = laplace_objective(
                single,
                Zd,
                yd,
                task=self.task,
                prior=prior,
                mask=mask[r : r + 1].double(),
                noise_var=noise_var,
            )
            hess = gauss_newton_hessian(
                shapes, theta, Zd[:, keep], yd, task=self.task, prior=prior, noise_var=noise_var
            )
            result = laplace_log_evidence(objective, theta, n, hessian=hess)
            result.update(theta=theta, shapes=shapes, keep=keep.cpu().numpy(), noise_var=noise_var)
            evidences.append(result["log_evidence"])
            region_evidences.append(
                first_layer_log_evidence(
                    single,
                    Zd,
                    yd,
                    task=self.task,
                    prior=prior,
                    mask=mask[r : r + 1].double(),
                    noise_var=noise_var,
                    hessian=hess,
                )
            )
            laplace.append(result)
        self.log_evidences_ = np.asarray(evidences)
        self.region_log_evidences_ = np.asarray(region_evidences)
        best = self._choose(self.log_evidences_, self.region_log_evidences_)
        best = self._apply_linear_guard(best, mask.sum(dim=1).cpu().numpy(), X, y, grid)
        self.best_restart_ = best
        self.all_params_, self.all_masks_ = params, mask  # every candidate (restarts, then the empty model)
        self.train_scores_, self.train_target_ = Zt.cpu(), yt.cpu()  # for laplace_inclusion_probabilities
        self.params_ = [p[best : best + 1].clone() for p in params]
        self.mask_ = mask[best : best + 1].clone()
        self.laplace_ = laplace[best]
        self.all_inclusion_probabilities_ = pips
        self.inclusion_probabilities_ = pips[best]
        self.selected_ = np.flatnonzero(pips[best] > self.threshold)
        unit_regions = basis.selected_regions(self.selected_, self.n_basis, self.degree)
        self.region_inclusion_probabilities_ = basis.region_inclusion(
            unit_regions, pips[best], self.n_basis, self.degree
        )
        self.selected_regions_ = [
            (float(basis.from_unit(lo, grid)), float(basis.from_unit(hi, grid))) for lo, hi in unit_regions
        ]
        self.unit_regions_ = unit_regions
        self._keep_network_selection()
        design = basis.bspline_design(basis.to_unit(grid), self.n_basis, self.degree)
        W1 = (self.params_[0][0] * self.mask_[0][None, :]).cpu().double().numpy()
        self.weight_functions_ = W1 @ design.T
        self.pip_threshold_norm_sq_ = pip_threshold(H, self.lam, self.sigma0_sq, self.sigma1_sq)
        self.column_norms_sq_ = col_norm_sq[best]
        if self.task == "regression":
            self.noise_variance_ = laplace[best]["noise_var"] * self.y_scale_**2
        self._report_empty_model(mask.cpu().numpy())
        self.sigma1_sq_ = float(self.sigma1_sq)
        self.guard_refit_ = False
        if self.guard_overrode_ and self.guard_refit_slab is not None:
            self._refit_with_wider_slab(X, y, grid)
        self._choose_by_inner_cv(X, y, grid)
        self.fit_time_ = time.perf_counter() - start
        self._say(f"done: {self.prediction_model_} chosen, {len(self.selected_)} basis functions selected")
        return self

    _SELECTION = ("inclusion_probabilities_", "selected_", "selected_regions_", "unit_regions_")

    def _keep_network_selection(self) -> None:
        """The network's selection under its own names (``network_selected_`` ...), whichever model is chosen."""
        for name in self._SELECTION + ("region_inclusion_probabilities_",):
            setattr(self, "network_" + name, getattr(self, name))

    def _select_linear_model(self) -> None:
        """The FLM was chosen: the selection attributes describe it (every basis function, the whole grid);
        the network's stay under ``network_*``."""
        J = int(self.n_basis)
        self.selected_ = np.arange(J)
        self.inclusion_probabilities_ = np.ones(J)
        self.unit_regions_ = [(0.0, 1.0)]
        self.selected_regions_ = [(float(self.grid_[0]), float(self.grid_[-1]))]
        self.region_inclusion_probabilities_ = np.ones(1)

    def _refit_with_wider_slab(self, X, y, grid) -> None:
        """The guard acted: the prior is too tight for these curves (README, "Tecator"). Refit once with
        sigma1_sq * guard_refit_slab and take over every fitted attribute of the refit."""
        from sklearn.base import clone

        wider = float(self.sigma1_sq) * float(self.guard_refit_slab)
        refit = clone(self).set_params(sigma1_sq=wider, guard_refit_slab=None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # the refit's own guard message would repeat ours
            refit.fit(X, y, grid)
        self.__dict__.update(
            {k: v for k, v in vars(refit).items() if k.endswith("_") and not k.startswith("_")}
        )
        self.guard_overrode_ = self.guard_refit_ = True
        warnings.warn(
            f"SparseBayesianFDNN: refitted with a wider slab, sigma1_sq = {wider:g} (guard_refit_slab = "
            f"{self.guard_refit_slab}), because the linear guard acted; {len(self.selected_)} basis "
            "functions selected.",
            UserWarning,
            stacklevel=3,
        )

    def _choose_by_inner_cv(self, X, y, grid) -> None:
        """Inner-CV model choice (README, "Inner-CV model choice" and "Folds"): runs only when the network fits
        the training curves worse than ``cv_trigger`` x the FLM's leave-one-out RMSE, or when there are fewer
        than ``cv_always_below_n`` training curves; training data only; the choice is ``inner_cv_choice``'s."""
        from sklearn.base import clone

        from toolkit_sbayfdnn.baselines import FunctionalLinearModel

        self.prediction_model_, self.linear_model_ = "network", None
        self.inner_cv_ran_, self.inner_cv_mse_, self.inner_cv_choice_, self.inner_cv_reason_ = (
            False,
            {},
            "",
            "",
        )
        self.inner_cv_gain_ = self.inner_cv_gain_se_ = float("nan")
        self.network_train_rmse_ = self.linear_loo_rmse_ = float("nan")
        n = len(y)
        # small n: more folds, so that each inner fit sees nearly as many curves as the final fit (README, "Folds")
        n_folds = self.cv_folds if n >= self.cv_always_below_n else min(self.small_n_cv_folds, n // 2)
        self.inner_cv_folds_ = self.inner_cv_folds_run_ = 0
        if (
            self.task != "regression"
            or self.cv_folds == 0
            or not np.var(y) > 0
            or n_folds < 2
            or n < 2 * n_folds
        ):
            return
        flm = FunctionalLinearModel(self.n_basis, self.degree).fit(X, y, grid)
        self.network_train_rmse_ = float(np.sqrt(np.mean((self._network_output(X, grid) - y) ** 2)))
        self.linear_loo_rmse_ = float(np.sqrt(flm.loo_mse_))
        if self.network_train_rmse_ > self.cv_trigger * self.linear_loo_rmse_:
            reason = "trigger"
        elif n < self.cv_always_below_n:
            reason = "small n"
        else:
            return
        folds = inner_cv_folds(n, n_folds, self.random_state)
        factors = [float(f) for f in self.cv_slab_factors]
        candidates = [f"network x{f:g}" for f in factors] + (["linear"] if self.cv_linear else [])
        sq_errors = {c: np.zeros(n) for c in candidates}  # per held-out curve, for the paired standard error
        base = clone(self).set_params(cv_folds=0, n_jobs=None, verbose=0)
        networks = [
            clone(base)
            if f == 1.0
            else clone(base).set_params(sigma1_sq=float(self.sigma1_sq) * f, guard_refit_slab=None)
            for f in factors
        ]
        done = np.zeros(n, dtype=bool)
        self.inner_cv_folds_run_ = 0
        for k, held in enumerate(folds, 1):
            train_rows = np.setdiff1d(np.arange(n), held)
            if self.cv_linear:
                linear = FunctionalLinearModel(self.n_basis, self.degree).fit(
                    X[train_rows], y[train_rows], grid
                )
                sq_errors["linear"][held] = (linear.predict(X[held], grid) - y[held]) ** 2
            predictions = _fit_predict_all(networks, X[train_rows], y[train_rows], grid, X[held], self.n_jobs)
            for name, pred in zip(candidates, predictions):
                sq_errors[name][held] = (pred - y[held]) ** 2
            done[held] = True
            self.inner_cv_folds_run_ = k
            self._say(
                f"inner CV fold {k}/{n_folds}: MSE so far "
                + ", ".join(f"{c} {float(e[done].mean()):.4g}" for c, e in sq_errors.items())
            )
            if (
                k < n_folds
                and self.cv_early_stop
                and _linear_clearly_ahead(
                    {c: e[done] for c, e in sq_errors.items()}, float(self.cv_margin_se)
                )
            ):
                self._say(f"inner CV: the FLM is clearly ahead after {k} of {n_folds} folds; stopping")
                break
        sq_errors = {c: e[done] for c, e in sq_errors.items()}
        mse = {c: float(v.mean()) for c, v in sq_errors.items()}
        chosen, gain_mean, gain_se = inner_cv_choice(sq_errors, float(self.cv_margin_se))
        by_margin = chosen == "linear" and min(mse, key=mse.get) != "linear"
        train_rmse, loo_rmse, folds_run = (
            self.network_train_rmse_,
            self.linear_loo_rmse_,
            self.inner_cv_folds_run_,
        )
        if chosen not in ("linear", candidates[factors.index(1.0)]):
            factor = factors[candidates.index(chosen)]
            refit = clone(base).set_params(sigma1_sq=float(self.sigma1_sq) * factor, guard_refit_slab=None)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)
                refit.fit(X, y, grid)
            self.__dict__.update(
                {k: v for k, v in vars(refit).items() if k.endswith("_") and not k.startswith("_")}
            )
        self.prediction_model_ = "linear" if chosen == "linear" else "network"
        self.linear_model_ = flm if chosen == "linear" else None
        if chosen == "linear":
            self._select_linear_model()
        self.inner_cv_ran_, self.inner_cv_mse_, self.inner_cv_choice_, self.inner_cv_reason_ = (
            True,
            mse,
            chosen,
            reason,
        )
        self.inner_cv_folds_, self.inner_cv_gain_, self.inner_cv_gain_se_ = n_folds, gain_mean, gain_se
        self.network_train_rmse_, self.linear_loo_rmse_ = train_rmse, loo_rmse
        self.inner_cv_folds_run_ = folds_run
        stopped = (
            f" on the first {folds_run} folds, where the FLM was already clearly ahead"
            if folds_run < n_folds
            else ""
        )
        scores = ", ".join(f"{c}: {v:.4g}" for c, v in mse.items())
        why = (
            f"the network's training RMSE ({train_rmse:.4g}) exceeds cv_trigger = {self.cv_trigger} x the functional "
            f"linear model's leave-one-out RMSE ({loo_rmse:.4g})"
            if reason == "trigger"
            else f"there are only n = {n} training curves (< cv_always_below_n = {self.cv_always_below_n}), too few to "
            f"trust the network's training RMSE ({train_rmse:.4g}; the FLM's leave-one-out RMSE {loo_rmse:.4g})"
        )
        warnings.warn(
            f"SparseBayesianFDNN: {why}, so the prior was chosen by "
            f"{n_folds}-fold inner cross-validation (MSE {scores}{stopped}); using {chosen!r}"
            + (
                f", since the best network's CV gain over it ({gain_mean:.4g}) is within cv_margin_se = {self.cv_margin_se:g} "
                f"standard errors ({gain_se:.4g} each)"
                if by_margin
                else ""
            )
            + (
                " (selected_regions_ is the whole grid; the network's regions are network_selected_regions_)."
                if chosen == "linear"
                else "."
            ),
            UserWarning,
            stacklevel=3,
        )

    def _choose(self, full: np.ndarray, region: np.ndarray) -> int:
        """Index of the chosen candidate (the last one is the empty model when it is included)."""
        if not self.include_empty_model or self.empty_model_evidence == "full":
            return int(np.argmax(full))
        best = int(np.argmax(full[:-1]))
        return len(full) - 1 if region[-1] > region[best] else best

    def _apply_linear_guard(self, best: int, n_columns: np.ndarray, X, y, grid) -> int:
        """Replace an empty choice by the best restart with columns when a linear model explains more
        than ``linear_guard`` of the leave-one-out variance (regression only)."""
        self.linear_loo_r2_ = float("nan")
        self.guard_overrode_ = False
        if (
            self.task != "regression"
            or self.linear_guard is None
            or n_columns[best] > 0
            or not (n_columns > 0).any()
            or not np.var(y) > 0
        ):  # R^2 is undefined for a constant y
            return best
        from toolkit_sbayfdnn.baselines import FunctionalLinearModel

        flm = FunctionalLinearModel(self.n_basis, self.degree).fit(X, y, grid)
        self.linear_loo_r2_ = float(1.0 - flm.loo_mse_ / float(np.var(y)))
        if not self.linear_loo_r2_ > self.linear_guard:
            return best
        candidates = np.flatnonzero(n_columns > 0)
        chosen = int(candidates[np.argmax(self.log_evidences_[candidates])])
        self.guard_overrode_ = True
        warnings.warn(
            f"SparseBayesianFDNN: the Laplace evidence preferred the empty model by "
            f"{self.log_evidences_[best] - self.log_evidences_[chosen]:.1f} nats, but a functional linear model "
            f"explains {self.linear_loo_r2_:.0%} of the leave-one-out variance (linear_guard = {self.linear_guard}); "
            f"using the best restart with columns ({int(n_columns[chosen])} of {self.n_basis}) instead. Its "
            "inclusion probabilities are less trustworthy than usual; compare with FunctionalLinearModel.",
            UserWarning,
            stacklevel=3,
        )
        return chosen

    def _report_empty_model(self, mask: np.ndarray) -> None:
        """Warn (EmptyModelWarning, with the evidence gap) when no basis function is selected."""
        with_columns = mask.sum(axis=1) > 0
        self.empty_model_selected_ = len(self.selected_) == 0
        ev = self.region_log_evidences_ if self.empty_model_evidence == "first_layer" else self.log_evidences_
        others = ev[with_columns]
        self.evidence_gap_ = float(ev[self.best_restart_] - others.max()) if others.size else float("nan")
        if not self.empty_model_selected_:
            return
        if others.size:
            why = (
                f"its {self.empty_model_evidence.replace('_', '-')} log evidence beats the best restart with columns ({int(mask[with_columns].sum(axis=1)[np.argmax(others)])}"
                f" columns) by {self.evidence_gap_:.1f} nats"
            )
        else:
            why = "no restart kept any column (every inclusion probability fell below the threshold during the MAP)"
        warnings.warn(
            f"SparseBayesianFDNN selected the empty model: no basis function, every prediction is the training "
            f"{'mean' if self.task == 'regression' else 'base rate'}; {why}. If a linear model fits these curves, "
            "the curves' variation may be dominated by directions unrelated to y (offsets, baselines): compare "
            "with FunctionalLinearModel, try fewer basis functions (n_basis) or differentiated curves.",
            EmptyModelWarning,
            stacklevel=3,
        )

    # -- prediction --------------------------------------------------------------------------------

    def _network_output(self, X, grid=None, candidate: int | None = None) -> np.ndarray:
        """Network output in float64 (so that a row's prediction does not depend on its batch);
        ``candidate`` picks another candidate than the chosen one (index into ``log_evidences_``)."""
        Z = self._scores(X, grid)
        if candidate is None:
            params, mask = self.params_, self.mask_
        else:
            params = [p[candidate : candidate + 1] for p in self.all_params_]
            mask = self.all_masks_[candidate : candidate + 1]
        with torch.no_grad():
            out = forward([p.double() for p in params], Z, mask.double())[0].cpu().numpy()
        return out * self.y_scale_ + self.y_mean_

    def effective_weight_function(self, X, grid=None) -> np.ndarray:
        """Average gradient of the prediction with respect to the curve, as a function on the grid:
        ``mean_i sum_j d f(x_i)/d z_j * B_j(t)`` (for a linear truth it is proportional to beta); the FLM's
        beta(t) when the inner CV chose it."""
        Z = self._scores(X, grid).clone().requires_grad_(True)
        if getattr(self, "prediction_model_", "network") == "linear":
            return self.linear_model_.beta_.copy()
        out = forward([p.double() for p in self.params_], Z, self.mask_.double())[0]
        (grad,) = torch.autograd.grad(out.sum(), Z)
        mean_grad = grad.mean(dim=0).cpu().double().numpy() / self.z_scale_ * self.y_scale_
        design = basis.bspline_design(basis.to_unit(self.grid_), self.n_basis, self.degree)
        return design @ mean_grad


class SparseBayesianFDNN(RegressorMixin, _SparseBayesianFDNNBase):
    __doc__ = (
        (_SparseBayesianFDNNBase.__doc__ or "")
        + """
    Regression: squared error on the standardised response, Gaussian Laplace evidence and predictive
    intervals; ``score`` is R^2 (scikit-learn's ``r2_score``).
    """
    )

    task = "regression"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.regressor_tags.poor_score = True  # functional_input.FUNCTIONAL_INPUT_TAG_REASON
        return tags

    def predict(self, X, grid=None) -> np.ndarray:
        """Predicted responses (the FLM's when the inner CV chose it, ``prediction_model_ == "linear"``)."""
        if getattr(self, "prediction_model_", "network") == "linear":
            check_new_input(self, X, grid)
            return self.linear_model_.predict(X, grid)
        return self._network_output(X, grid)

    def predictive_std(self, X, grid=None) -> tuple[np.ndarray, np.ndarray]:
        """(mean, sd) of the Laplace predictive: sd^2 = sigma^2 + g(x)^T Sigma g(x), in y units. When the
        inner CV chose the FLM: its prediction and, for every curve, sd = its leave-one-out RMSE."""
        Zs = self._scores(X, grid)
        if getattr(self, "prediction_model_", "network") == "linear":
            return self.predict(X, grid), np.full(Zs.shape[0], np.sqrt(self.linear_model_.loo_mse_))
        lap = self.laplace_
        Zk = Zs[:, torch.as_tensor(lap["keep"], device=Zs.device)]
        jac = output_jacobian(lap["shapes"], lap["theta"], Zk)  # (n, d)
        epistemic = posterior_predictive_variance(jac, lap["precision_chol"]).cpu().numpy()
        sd = np.sqrt(lap["noise_var"] + np.maximum(epistemic, 0.0)) * self.y_scale_
        return self._network_output(X, grid), sd

    def laplace_inclusion_probabilities(self) -> np.ndarray:
        """Inclusion probability of each basis function from the Laplace posterior of the fitted
        network with every column in the slab (Savage-Dickey Bayes factor against the point spike,
        :func:`~toolkit_sbayfdnn.network.savage_dickey_log_bayes_factors`) and the prior odds
        ``lam / (1 - lam)``. Unlike ``inclusion_probabilities_`` (the plug-in at the MAP, which reads
        one mode and is 0 or 1) it sees the posterior spread of each column, including the correlation
        with its neighbours. Measured on fresh seeds it is *worse* calibrated than the plug-in (Brier
        0.327 vs 0.115: it falls back to ~``lam`` on almost every column, because this network's data
        do not identify single columns), so it is not the default and selection uses the plug-in
        (README, "PIP calibration")."""
        if not hasattr(self, "params_"):
            raise NotFittedError("SparseBayesianFDNN is not fitted yet; call fit(X, y) first")
        log_bf = savage_dickey_log_bayes_factors(
            [p.to(self.device) for p in self.params_],
            self.train_scores_.to(self.device),
            self.train_target_.to(self.device),
            prior=self.prior_,
            mask=self.mask_,
            noise_var=self.laplace_["noise_var"],
        )
        logit = np.log(self.lam / (1.0 - self.lam)) + log_bf
        return 0.5 * (1.0 + np.tanh(0.5 * logit))  # stable sigmoid

    def predict_interval(self, X, grid=None, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Laplace predictive interval (lower, upper) at coverage ``level`` for new responses."""
        if not 0.0 < level < 1.0:
            raise ValueError(f"level: must lie in (0, 1), got {level}")
        mean, sd = self.predictive_std(X, grid)
        z = float(normal_dist.ppf(0.5 + level / 2))
        return mean - z * sd, mean + z * sd


class SparseBayesianFDNNClassifier(ClassifierMixin, _SparseBayesianFDNNBase):
    __doc__ = (
        (_SparseBayesianFDNNBase.__doc__ or "")
        + """
    Binary classification: logistic head, Bernoulli likelihood in the Laplace evidence; ``classes_``
    holds the two labels; ``score`` is accuracy.
    """
    )

    task = "classification"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.poor_score = True  # functional_input.FUNCTIONAL_INPUT_TAG_REASON
        tags.classifier_tags.multi_class = False  # binary only (logistic head)
        return tags

    def _target(self, y) -> np.ndarray:
        check_classification_targets(y)
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        if y_type != "binary":
            raise ValueError(
                f"y: Only binary classification is supported. The type of the target is {y_type} "
                f"({len(np.unique(y))} classes); classification needs exactly 2 classes"
            )
        self.classes_ = np.unique(y)
        if len(self.classes_) != 2:
            raise ValueError(f"y: classification needs exactly 2 classes, got {len(self.classes_)}")
        self.y_mean_, self.y_scale_ = 0.0, 1.0
        return (y == self.classes_[1]).astype(float)

    def decision_function(self, X, grid=None) -> np.ndarray:
        """Logit of the second class (``classes_[1]``)."""
        return self._network_output(X, grid)

    def predict(self, X, grid=None) -> np.ndarray:
        """Predicted class labels."""
        return np.where(self.decision_function(X, grid) > 0, self.classes_[1], self.classes_[0])

    def predict_proba(self, X, grid=None) -> np.ndarray:
        """Class probabilities (n, 2), columns in the order of ``classes_``."""
        p1 = 1.0 / (1.0 + np.exp(-self.decision_function(X, grid)))
        return np.stack([1 - p1, p1], axis=1)
