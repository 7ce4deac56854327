"""Every aggregator on one table: simulated judges (error vs the planted truth) or a released table (error vs
the human labels). Pure orchestration of the maths modules; no toolkit imports."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd

from toolkit_care import aggregators as ag
from toolkit_care.care_svd import CareSVD, tune_gamma
from toolkit_care.method_names import SYNTHETIC_METHODS
from toolkit_care.model import bayes_floor, error, make_model, simulate


def synthetic(
    n_items: int,
    n_judges: int,
    n_confounders: int,
    strength: float,
    n_anchors: int,
    anchor_leak: float,
    task: str,
    seed: int,
    methods=SYNTHETIC_METHODS,
    gamma_grid=(0.25, 1, 3, 10),
    solver: str = "auto",
) -> list[dict]:
    """One simulated table, every method's error (continuous: 1 - corr^2; binary, pairwise: error rate) and the
    Bayes floor. ``care_svd`` is the principled mode told which judges are anchors; rank of L reported.
    ``solver``: CARE-SVD's (see `CareSVD`)."""
    model = make_model(n_judges, n_confounders, strength, n_anchors, anchor_leak, seed)
    sample = simulate(model, n_items, task, seed)
    V, truth = sample.votes, sample.truth
    kind = ag.CONTINUOUS if task == "continuous" else ag.BINARY
    anchors = tuple(range(n_anchors)) or None
    floor = bayes_floor(model, sample)
    rows = []
    for m in methods:
        extra = {}
        t0 = time.perf_counter()
        if m in ("mv", "ds") and task == "continuous":
            continue
        if m == "mean":
            est = (
                ag.Mean(task=kind).fit_predict(V)
                if kind == ag.CONTINUOUS
                else ag.Mean(task=kind).fit_predict(V)
            )
        elif m == "mv":
            est = (V.mean(axis=1) > 0.5).astype(int)
        elif m == "ds":
            est = ag.DawidSkene().fit_predict(V)
        elif m == "one_factor":
            est = ag.FactorAggregator(1, task=kind, seed=seed).fit_predict(V)
        elif m == "factor_1k":
            est = ag.FactorAggregator(1 + n_confounders, task=kind, seed=seed).fit_predict(V)
        elif m == "care_svd":
            agg = CareSVD(
                "principled",
                anchors=anchors,
                task=kind,
                seed=seed,
                gamma_grid=gamma_grid,
                max_iters=2000,
                solver=solver,
            )
            est = agg.fit_predict(V)
            extra = {"rank": agg.rank_, "gamma": agg.gamma_, "fallback": agg.fallback_ or ""}
        elif m == "care_faithful":
            agg = CareSVD("faithful", gamma=1.0, task=kind, solver=solver)
            try:
                est = agg.fit_predict(V)
            except ValueError:
                est = None  # weights summing to zero: censored, never a number
        elif m == "oracle":
            w = model.optimal_weights() if task == "continuous" else None
            if w is None:
                continue
            est = V @ w
        else:
            raise ValueError(f"unknown method {m!r}; choose from {SYNTHETIC_METHODS}")
        err = error(task, est, truth) if est is not None else np.nan
        rows.append(
            {
                "method": m,
                "error": err,
                "failed": est is None,
                "bayes_floor": floor,
                "floor_tolerance": 4.0 / np.sqrt(n_items),
                "wall_s": time.perf_counter() - t0,
                **extra,
            }
        )
    return rows


def _mae_tau(pred, y):
    from scipy.stats import kendalltau

    pred = np.asarray(pred, dtype=float)
    return float(np.mean(np.abs(pred - y))), float(kendalltau(pred, y).statistic)


def asset_rows(table, seed: int, methods=None, solver: str = "auto") -> list[dict]:
    """ASSET: MAE and Kendall tau vs the human rating, every method (CARE-SVD faithful: gamma tuned on a 10%
    validation split with ``seed``, then fitted on all items, as published). ``solver``: CARE-SVD's."""
    X, y = table.X, table.labels
    rows = []

    def add(name, fn, **extra):
        if methods is not None and name not in methods:
            return
        t0 = time.perf_counter()
        try:
            pred = fn()
            mae, tau = _mae_tau(pred, y)
            failed = False
        except (ValueError, RuntimeError) as exc:
            mae, tau, failed = np.nan, np.nan, True
            extra = {**extra, "note": str(exc)}
        rows.append(
            {
                "method": name,
                "mae": mae,
                "kendall_tau": tau,
                "failed": failed,
                "wall_s": time.perf_counter() - t0,
                **extra,
            }
        )

    add("mv", lambda: ag.MajorityVote().fit_predict(X))
    add("avg", lambda: ag.Mean().fit_predict(X))
    add("ws", lambda: ag.LabelModel().fit_predict(X))
    add("uws", lambda: ag.UWS().fit_predict(X))
    if methods is None or "care_svd_faithful" in methods:
        t0 = time.perf_counter()
        gamma, _ = tune_gamma(X, y, seed=seed, solver=solver)
        tune_s = time.perf_counter() - t0
        add(
            "care_svd_faithful",
            lambda: CareSVD("faithful", gamma=gamma, solver=solver).fit_predict(X),
            gamma=gamma,
            tune_wall_s=tune_s,
        )
    principled = {}

    def care_p():
        agg = CareSVD("principled", seed=seed, solver=solver).fit(X)
        principled.update(gamma=agg.gamma_, rank=agg.rank_, fallback=agg.fallback_ or "")
        return agg.predict(X)

    add("care_svd_principled", care_p)
    if principled and rows and rows[-1]["method"] == "care_svd_principled":
        rows[-1].update(principled)
    add("one_factor", lambda: _rescale(ag.FactorAggregator(1, seed=seed).fit_predict(X), X))
    add("best_judge_oracle", lambda: ag.BestJudge().fit(X, y).predict(X))
    add("ols_oracle", lambda: ag.OLSOracle().fit(X, y).predict(X))
    return rows


def _rescale(s, X):
    """A standardised score on the scale of the judges' mean (same mean and spread)."""
    m = X.mean(axis=1)
    return m.mean() + (s - s.mean()) / s.std() * m.std()


def civil_split(y, seed: int, val_fraction: float = 0.15):
    """The published split: a stratified 15% validation set (scikit-learn, ``seed``), the rest is the test set."""
    from sklearn.model_selection import train_test_split

    idx = np.arange(len(y))
    rest, val = train_test_split(idx, test_size=val_fraction, random_state=seed, stratify=y)
    return val, rest


def civil_rows(
    table, seed: int, methods=None, lam_L_grid=(1e-3,), lam_S_grid=None, restarts=1000, solver: str = "auto"
) -> list[dict]:
    """CivilComments: accuracy on the 85% test split, every method. Label-tuned (faithful) choices use only the
    15% validation split; ``positive_rate`` of the oracle prior is the labels' share of 1s, as published.
    ``solver``: CARE-SVD's."""
    from toolkit_care.care_tensor import LAM_GRID, CareTensor

    lam_S_grid = LAM_GRID if lam_S_grid is None else lam_S_grid
    X, y, thr = table.X, table.labels, table.threshold
    V = (X >= thr).astype(float)
    val, test = civil_split(y, seed)
    rate = float(np.mean(y))
    rows = []

    def acc(pred):
        return float(np.mean(np.asarray(pred, int)[test] == y[test]))

    def add(name, fn, **extra):
        if methods is not None and name not in methods:
            return
        t0 = time.perf_counter()
        try:
            out = fn()
            pred, more = out if isinstance(out, tuple) else (out, {})
            a, failed = acc(pred), False
        except (ValueError, RuntimeError) as exc:
            a, failed, more = np.nan, True, {"note": str(exc)}
        rows.append(
            {
                "method": name,
                "accuracy": a,
                "failed": failed,
                "wall_s": time.perf_counter() - t0,
                **extra,
                **more,
            }
        )

    add("mv", lambda: ag.MajorityVote(task=ag.BINARY).fit_predict(V))
    add("avg", lambda: (X.mean(axis=1) >= thr).astype(int))
    add("ws", lambda: ag.LabelModel(task=ag.BINARY).fit_predict(V))
    add("uws", lambda: (ag.UWS().fit_predict(X) >= thr).astype(int))
    add("ds", lambda: ag.DawidSkene().fit_predict(V))

    def svd_faithful():
        best = (-1.0, None, None)
        for g in (0.1, 0.2, 0.25, 0.5, 0.75, 1, 2, 3, 5, 7, 10):
            try:
                p = CareSVD("faithful", gamma=g, task=ag.BINARY, threshold=thr, solver=solver).fit_predict(X)
            except (ValueError, RuntimeError):
                continue
            va = float(np.mean(p[val] == y[val]))
            if va > best[0]:
                best = (va, g, p)
        return best[2], {"gamma": best[1], "val_accuracy": best[0]}

    add("care_svd_faithful", svd_faithful)

    def svd_principled():
        agg = CareSVD(
            "principled", task=ag.BINARY, threshold=thr, seed=seed, gamma_grid=(0.25, 1, 3, 10), solver=solver
        ).fit(X)
        return agg.predict(X), {"gamma": agg.gamma_, "rank": agg.rank_}

    add("care_svd_principled", svd_principled)

    def tensor_faithful():
        cache: dict = {}
        best = (-1.0, None, None, None)
        for lL in lam_L_grid:
            for lS in lam_S_grid:
                agg = CareTensor(
                    "faithful",
                    lam_S=lS,
                    lam_L=lL,
                    prior="oracle",
                    positive_rate=rate,
                    seed=seed,
                    restarts=restarts,
                    _cache=cache,
                )
                try:
                    p = agg.fit_predict(X)
                except (ValueError, RuntimeError):
                    continue
                va = float(np.mean(p[val] == y[val]))
                if va > best[0]:
                    best = (va, (lL, lS), p, agg.mixture_.rank)
        return best[2], {"lam_L": best[1][0], "lam_S": best[1][1], "val_accuracy": best[0], "rank": best[3]}

    add("care_tensor_faithful", tensor_faithful)

    def tensor_principled():
        agg = CareTensor("principled", prior="mixture", seed=seed, restarts=restarts).fit(X)
        return agg.predict(X), {
            "lam_L": agg.lam_L,
            "lam_S": agg.lam_S,
            "rank": agg.mixture_.rank,
            "prior_rate": agg.mixture_rate_,
        }

    add("care_tensor_principled", tensor_principled)

    def fa3_oracle():
        s = ag.FactorAggregator(3, task=ag.CONTINUOUS, seed=seed).fit_predict(X)
        return (s > np.percentile(s, 100 * (1 - rate))).astype(int)

    add("factor3_oracle_prior", fa3_oracle)

    def crowdkit_ds():
        try:
            from crowdkit.aggregation import DawidSkene as CKDawidSkene
        except ImportError as exc:
            raise RuntimeError(
                "crowd-kit is not installed (pip install theory-toolkit-care[anchors])"
            ) from exc
        n, J = V.shape
        long = pd.DataFrame(
            {
                "task": np.repeat(np.arange(n), J),
                "worker": np.tile(np.arange(J), n),
                "label": V.astype(int).ravel(),
            }
        )
        out = CKDawidSkene(n_iter=100).fit_predict(long)
        return out.reindex(np.arange(n)).to_numpy().astype(int)

    add("crowdkit_dawid_skene", crowdkit_ds)
    return rows


def asset_gamma_path(table, gamma_grid=None) -> list[dict]:
    """Both CARE-SVD modes at every gamma of the grid on asset: sum of the weights, rank of L, MAE, fallback."""
    from toolkit_care.care_svd import GAMMA_GRID

    X, y = table.X, table.labels
    rows = []
    for g in gamma_grid or GAMMA_GRID:
        f = CareSVD("faithful", gamma=g).fit(X)
        try:
            f_mae = float(np.mean(np.abs(f.predict(X) - y)))
        except ValueError:
            f_mae = np.nan
        p = CareSVD("principled", gamma_grid=(g,)).fit(X)
        rows.append(
            {
                "gamma": g,
                "faithful_sum_w": float(f.weights_.sum()),
                "faithful_mae": f_mae,
                "principled_sum_w": float(p.weights_.sum()),
                "principled_rank": p.rank_,
                "principled_mae": float(np.mean(np.abs(p.predict(X) - y))),
                "principled_fallback": p.fallback_ or "",
            }
        )
    return rows


def asset_weight_scale(table, gamma: float = 1.0) -> list[dict]:
    """Asset at one gamma: the principled leading-eigenvector weights three ways. ``correlation`` (the principled
    mode: L from the correlation, weights divided by the judges' sd to act on raw scores), ``covariance`` (L from
    the covariance, weights act on raw scores directly) and ``correlation_unconverted`` (L from the correlation,
    its eigenvector applied to raw scores as the published code does). MAE, Kendall tau, the score's mean and sd."""
    from toolkit_care.care_svd import anchored_weights
    from toolkit_care.precision import decompose, latent_rank

    X, y = table.X, table.labels
    p = CareSVD("principled", gamma_grid=(gamma,)).fit(X)
    _, L_cov = decompose(np.cov(X, rowvar=False), gamma=gamma, max_iters=p.max_iters)
    variants = {
        "correlation": (p.weights_, p.rank_),
        "covariance": (anchored_weights(L_cov, 1), latent_rank(L_cov)),
        "correlation_unconverted": (anchored_weights(p.L_, 1), p.rank_),
    }
    rows = []
    for name, (w, rank) in variants.items():
        s = X @ w / w.sum()
        mae, tau = _mae_tau(s, y)
        rows.append(
            {
                "gamma": gamma,
                "variant": name,
                "rank": rank,
                "mae": mae,
                "kendall_tau": tau,
                "score_mean": float(s.mean()),
                "score_sd": float(s.std()),
                "label_mean": float(np.mean(y)),
                "label_sd": float(np.std(y)),
            }
        )
    return rows
