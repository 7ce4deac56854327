"""Orchestration of optimizer runs on finite sums: suboptimality curves, estimator variance.

Turns the optimizer generators of ``optimizers.py`` into tidy rows (one per record point) with the
gradient evaluations spent, epochs (= evaluations / N) and the relative suboptimality
(P - P*) / (P(0) - P*), P* from Newton's method.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from toolkit_svrg_poco import optimizers as opt
from toolkit_svrg_poco.problems import FiniteSum, make_problem, optimum

METHODS = ("sgd", "svrg", "alpha_svrg", "poco_iso", "von_poco")


@lru_cache(maxsize=16)
def cached_problem(
    name: str, kappa: float, lam: float | None, n: int, seed: int
) -> tuple[FiniteSum, np.ndarray, float]:
    """A built-in problem with its optimum (w*, P*), computed once per process."""
    problem = make_problem(name, kappa=kappa, lam=lam, n=n, seed=seed)
    w_star, p_star = optimum(problem)
    return problem, w_star, p_star


def user_problem(
    *,
    table: str | None = None,
    target: str | None = None,
    dataset: str | None = None,
    dataset_params: dict | None = None,
    loss: str = "auto",
    lam: float | None = None,
    standardize: bool = False,
    bias: bool = True,
) -> tuple[FiniteSum, np.ndarray, float]:
    """A user's problem from a table file or a registered dataset, with its optimum, cached per process
    (a file by path, size and modification time, so an edited file is read again)."""
    import json
    from pathlib import Path

    if (table is None) == (dataset is None):
        raise ValueError(
            "give exactly one of table= (a .csv or .npz file) and dataset= (a registered dataset)"
        )
    if table is not None:
        path = Path(table).expanduser().resolve()
        stat = path.stat() if path.is_file() else None
        source = ("table", str(path), stat.st_size if stat else -1, stat.st_mtime_ns if stat else -1, target)
    else:
        source = (
            "dataset",
            dataset,
            json.dumps(dataset_params or {}, sort_keys=True, default=str),
            None,
            None,
        )
    return _cached_user_problem(source, loss, lam, standardize, bias)


@lru_cache(maxsize=8)
def _cached_user_problem(source: tuple, loss: str, lam: float | None, standardize: bool, bias: bool):
    import json
    from pathlib import Path

    from toolkit_svrg_poco.user_data import load_registered, problem_from_arrays, read_table

    kind, where, extra, _, target = source
    if kind == "table":
        X, y = read_table(where, target)
        label = Path(where).stem
    else:
        X, y = load_registered(where, json.loads(extra))
        label = where
    name = f"{label}({'standardised' if standardize else 'raw'})"
    problem = problem_from_arrays(X, y, loss=loss, lam=lam, standardize=standardize, bias=bias, name=name)
    w_star, p_star = optimum(problem)
    return problem, w_star, p_star


def method_iterator(
    problem: FiniteSum,
    method: str,
    *,
    step: float,
    m: int,
    seed: int,
    alpha: float = 1.0,
    option: str = "II",
    engine: str = "auto",
):
    """The generator of ``method`` with its step in the method's own units.

    ``step`` is SGD's / SVRG's step; for ``poco_iso`` it is the BLR learning rate eta (equal to SVRG
    with step N eta); for ``von_poco`` it is eta (1 = a full Newton-like step).
    """
    if method == "sgd":
        return opt.sgd(problem, step, seed, engine=engine)
    if method == "svrg":
        return opt.svrg(problem, step, m, seed, alpha=1.0, option=option, engine=engine)
    if method == "alpha_svrg":
        return opt.svrg(problem, step, m, seed, alpha=alpha, option=option, engine=engine)
    if method == "poco_iso":
        return opt.poco_iso(problem, step, m, seed, alpha=alpha, engine=engine)
    if method == "von_poco":
        return opt.von_poco(problem, step, m, seed, alpha=alpha, engine=engine)
    raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")


def suboptimality_curve(
    problem: FiniteSum,
    p_star: float,
    iterator,
    *,
    max_epochs: float,
    tol: float = 1e-13,
    w_star: np.ndarray | None = None,
) -> list[dict]:
    """Consume ``iterator`` until ``max_epochs`` x N evaluations or relative suboptimality <= tol."""
    p0 = problem.value(np.zeros(problem.dim))
    scale = p0 - p_star
    if not scale > 0:
        raise ValueError(f"{problem.name}: P(0) - P* = {scale:g}; the start is already optimal")
    rows = []
    for evals, w, info in iterator:
        value = problem.value(w)
        rel = (value - p_star) / scale
        finite = bool(np.isfinite(w).all() and math.isfinite(value))
        row = {
            "evals": int(evals),
            "epoch": evals / problem.n,
            "snapshot": int(info.get("snapshot", 0)),
            "end_of_loop": bool(info.get("end_of_loop", False)),
            "objective": value,
            "suboptimality": value - p_star,
            "rel_suboptimality": rel if finite else math.inf,
        }
        if "step" in info:  # the adaptive step rule's loop step and verdict
            row["loop_step"] = float(info["step"])
            row["rejected"] = bool(info.get("rejected", False))
        if w_star is not None:
            row["distance"] = float(np.linalg.norm(w - w_star)) if finite else math.inf
        rows.append(row)
        if not finite or rel <= tol or evals >= max_epochs * problem.n:
            break
    return rows


def epochs_to(rows: list[dict], target: float) -> float:
    """First epoch at which the relative suboptimality is <= target (inf if never)."""
    for row in rows:
        if row["rel_suboptimality"] <= target:
            return row["epoch"]
    return math.inf


def log_slope(rows: list[dict], lo: float = 1e-10, hi: float = 1e-1) -> float:
    """Least-squares slope of log10(relative suboptimality) per epoch, over records with lo <= rel <= hi."""
    pts = [
        (r["epoch"], math.log10(r["rel_suboptimality"]))
        for r in rows
        if lo <= r["rel_suboptimality"] <= hi and r["rel_suboptimality"] > 0
    ]
    if len(pts) < 2:
        return math.nan
    x, y = np.array(pts).T
    return float(np.polyfit(x, y, 1)[0])


def svrg_rate(step: float, m: int, L: float, gamma: float) -> float:
    """Johnson-Zhang's alpha = 1/(gamma eta (1 - 2 L eta) m) + 2 L eta / (1 - 2 L eta) (inf where eta >= 1/(2L))."""
    if not 0 < step < 1 / (2 * L) or gamma <= 0:
        return math.inf
    return 1.0 / (gamma * step * (1 - 2 * L * step) * m) + 2 * L * step / (1 - 2 * L * step)


def variance_along_path(problem: FiniteSum, p_star: float, iterator, *, max_epochs: float) -> list[dict]:
    """At every record of an SVRG run: the SVRG estimator's variance, SGD's at the same point, and
    the lemma's ratio (1/N) sum |v_i|^2 / (4 L [P(w) - P* + P(w~) - P*])."""
    rows = []
    all_idx = np.arange(problem.n)
    L = problem.smoothness
    for evals, w, info in iterator:
        if "w_snap" not in info:
            continue
        w_snap, mu = info["w_snap"], info["mu"]
        G = problem.sample_grads(w, all_idx)
        G_snap = problem.sample_grads(w_snap, all_idx)
        full = G.mean(axis=0)
        v = G - G_snap + mu
        var_svrg = float(np.mean(np.sum((v - full) ** 2, axis=1)))
        var_sgd = float(np.mean(np.sum((G - full) ** 2, axis=1)))
        gap = (problem.value(w) - p_star) + (problem.value(w_snap) - p_star)
        second_moment = float(np.mean(np.sum(v**2, axis=1)))
        rows.append(
            {
                "evals": int(evals),
                "epoch": evals / problem.n,
                "snapshot": int(info["snapshot"]),
                "rel_suboptimality": (problem.value(w) - p_star)
                / (problem.value(np.zeros(problem.dim)) - p_star),
                "var_svrg": var_svrg,
                "var_sgd": var_sgd,
                "variance_ratio": var_svrg / var_sgd if var_sgd > 0 else math.nan,
                "lemma_lhs": second_moment,
                "lemma_rhs": 4 * L * gap,
                "lemma_ratio": second_moment / (4 * L * gap) if gap > 0 else math.nan,
            }
        )
        if evals >= max_epochs * problem.n or gap <= 1e-14 * abs(p_star) + 1e-300:
            break
    return rows
