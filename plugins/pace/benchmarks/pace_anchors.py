"""pace against its anchors in one run: MAPIE 1.6's ACI and salesforce online-conformal 1.0.2, same score streams.

    python plugins/pace/benchmarks/pace_anchors.py                 # needs the pace plugin (toolkit_pace) and an anchor or both
    python plugins/pace/benchmarks/pace_anchors.py --self-test     # the anchors against their own rules (no toolkit_pace)
    options: --T 4000 --seed 0 --gammas 0.005,0.05 --streams exchangeable,abrupt_variance,multi_block --csv FILE

Install the anchors (the versions this script was checked with):

    pip install "mapie==1.6.0"
    pip install --no-deps "online-conformal==1.0.2" "salesforce-merlion==2.0.4" dill plotly

(salesforce-merlion, which online-conformal imports, declares numpy<2 and would downgrade this environment's numpy;
with --no-deps the parts used here, FACI, ScaleFreeOGD and SAOCP, run on numpy 2.)

Three ACI rules, each written out below as an exact reference (:func:`reference_aci`, pure Python):

* ours (``toolkit_pace.methods.aci``): q_t = the k-th smallest of the last W scores, k = ceil((1 - alpha_t)(W + 1));
  q_t = +inf when alpha_t <= 0 or k > W, the empty set when alpha_t >= 1; err_t = 1{s_t > q_t}; alpha_t never clipped.
* MAPIE (``TimeSeriesRegressor(method="aci", cv="prefit")`` with the absolute residual score and a constant-zero
  regressor, so the score is y itself): the same k on its rolling window of the last n = W conformity scores
  (``np.nanquantile(scores, k/n, method="lower")`` is the k-th smallest), +inf when k > n
  (``allow_infinite_bounds=True``); at alpha_t = 1 (k = 0) the smallest score, never an empty set;
  err_t = 1{y_t not in the OPEN interval (-q_t, q_t)} = 1{s_t >= q_t}; alpha_t CLIPPED to [0, 1] after each update.
* salesforce (``FACI`` with its expert grid replaced by the single step gamma, i.e. ACI as the package implements
  it; it has no ACI class): every past score (no window: the calibration scores and all scores so far), interval
  radius ``np.quantile(scores, 1 - alpha_t, method="inverted_cdf")`` (the k-th smallest with k = ceil((1 - alpha_t) n),
  no +1), but the update's err_t = 1{alpha_t > beta_t} with beta_t = fraction of stored scores >= s_t; alpha_t
  CLIPPED to [0, 1]; alpha_t moves only once more than floor(1/alpha) scores are stored.

With continuous scores (no ties) the tie conventions never matter, so MAPIE's sequence equals ours until the first
round our alpha_t leaves [0, 1] (where MAPIE clips); the run checks exactly that, and that each anchor equals its
own reference rule to 1e-12. Salesforce's differs from the first rounds on (no window, index without +1).
The windows: all three see the same W = calibration_window scores before the first updated round (burn_in = W), as
MAPIE's window has a fixed size.

SF-OGD and SAOCP (score space, no ACI rule to compare): our thresholds must equal salesforce's to 1e-12 on the
timing stream (same warm-up on the calibration scores; SAOCP's mixture summed left to right as salesforce's Python
sums are, see toolkit_pace.methods._sequential_sum).

Timings (microseconds per step) are taken in the same process, one after another, on the same stream: compare the
ratios, not the absolute values, on a loaded machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from toolkit.argtypes import comma_list

ALPHA = 0.1
WINDOW = 500  # calibration_window W, and burn_in for the equality runs
TOLERANCE = 1e-12


# -- the rules, written out ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Rule:
    """One ACI rule: the window, the order-statistic index, clipping, the miss convention and the warm start."""

    name: str
    window: int | None  # the last `window` scores calibrate q_t; None: every past score (salesforce)
    plus_one: bool  # k = ceil((1 - alpha_t)(n + 1)) (ours, MAPIE) or ceil((1 - alpha_t) n) (salesforce)
    clip: bool  # alpha_t clipped to [0, 1] after each update (MAPIE, salesforce)
    miss: Literal[
        "above", "at_or_above", "beta"
    ]  # s > q (ours), s >= q (MAPIE), alpha_t > beta_t (salesforce)
    empty_at_one: bool  # alpha_t >= 1 gives the empty set (ours) or the smallest score (anchors)
    warm_start: bool = False  # salesforce: no update until more than floor(1/alpha) scores are stored
    via_coverage: bool = (
        False  # salesforce stores coverage = 1 - alpha and targets 1 - coverage (0.0999...98)
    )


OURS = Rule("ours", WINDOW, plus_one=True, clip=False, miss="above", empty_at_one=True)
MAPIE_RULE = Rule("mapie", WINDOW, plus_one=True, clip=True, miss="at_or_above", empty_at_one=False)
SALESFORCE_RULE = Rule(
    "salesforce",
    None,
    plus_one=False,
    clip=True,
    miss="beta",
    empty_at_one=False,
    warm_start=True,
    via_coverage=True,
)


def _threshold(sorted_window: np.ndarray, level: float, rule: Rule) -> float:
    n = sorted_window.size
    if rule.plus_one:  # ours and MAPIE: k = ceil((1 - alpha_t)(n + 1)), +inf beyond n
        if level <= 0:
            return math.inf
        if level >= 1:
            return -math.inf if rule.empty_at_one else float(sorted_window[0])
        k = math.ceil((1 - level) * (n + 1))
        return math.inf if k > n else float(sorted_window[max(k, 1) - 1])
    # salesforce: np.quantile(..., clip(1 - alpha_t, 0, 1), method="inverted_cdf"), exactly the package's call
    return float(np.quantile(sorted_window, min(max(1 - level, 0.0), 1.0), method="inverted_cdf"))


def reference_aci(scores, alpha: float, gamma: float, burn_in: int, rule: Rule):
    """(threshold, err, alpha_t) of ``rule`` for rounds burn_in..N-1; scores[:burn_in] only calibrate."""
    x = np.asarray(scores, dtype=float)
    if rule.via_coverage:
        alpha = 1 - (1 - alpha)
    level, q_out, err_out, a_out = float(alpha), [], [], []
    warm = math.floor(1 / alpha)  # salesforce: len(residuals) > floor(1 / (1 - coverage))
    for t in range(burn_in, x.size):
        past = x[:t] if rule.window is None else x[max(0, t - rule.window) : t]
        q = _threshold(np.sort(past), level, rule)
        s = x[t]
        if rule.miss == "beta":
            err = int(level > np.mean(past >= s))
        else:
            err = int(s >= q) if rule.miss == "at_or_above" else int(s > q)
        q_out.append(q)
        err_out.append(err)
        a_out.append(level)
        if not (rule.warm_start and past.size <= warm):
            level = level + gamma * (alpha - err)
            if rule.clip:
                level = min(max(level, 0.0), 1.0)
    return np.array(q_out), np.array(err_out, dtype=np.int8), np.array(a_out)


# -- the anchors ---------------------------------------------------------------------------------------------------
def _mapie_quantile(scores: np.ndarray, level: float, reverse: bool, sym: bool) -> float:
    """One level of ``mapie.utils._compute_regression_quantile`` (the same float operations and numpy call).

    The corrected level is ceil(ref (n + 1))/n with ref = (1 - 2 level) reverse + level; beyond 1 the bound is
    infinite (MAPIE's symmetric branch raises ValueError there instead: ``_MAPIE_RAISES``).
    """
    n = scores.size
    ref = (1 - 2 * level) * reverse + level
    corrected = math.ceil(ref * (n + 1)) / n
    signed = -1.0 if reverse else 1.0
    if corrected > 1.0:
        if sym:
            raise _MapieRaises()
        return signed * math.inf
    return float(signed * np.nanquantile(signed * scores, corrected, method="lower"))


class _MapieRaises(Exception):
    """MAPIE's symmetric ACI raises ValueError when k > n, although allow_infinite_bounds=True."""


def reference_mapie(scores, alpha: float, gamma: float, window: int, sym: bool):
    """MAPIE's ACI rule, written out: (upper bound, err, alpha_t) per round (and the rounds MAPIE raises at).

    ``sym=True`` (``AbsoluteConformityScore(sym=True)``): the interval (-q_t, q_t), q_t = the k-th smallest of the
    last n = window scores, k = ceil((1 - alpha_t)(n + 1)); when k > n MAPIE raises (the rounds are returned) and
    the run goes on with q_t = +inf, what ``allow_infinite_bounds`` promises. ``sym=False`` (TimeSeriesRegressor's
    default): alpha_t/2 on each side of the signed residuals, lower = the ceil((1 - alpha_t/2)(n + 1))-th largest,
    upper = the ceil((1 - alpha_t + alpha_t/2)(n + 1))-th smallest, +-inf beyond n. Both: err_t = 1{y_t outside the
    open interval}, alpha_t clipped to [0, 1].
    """
    x = np.asarray(scores, dtype=float)
    level, qs, errs, levels, raised = float(alpha), [], [], [], []
    for t in range(window, x.size):
        past = x[t - window : t]
        if sym:
            try:
                high = _mapie_quantile(past, 1 - level, reverse=False, sym=True)
            except _MapieRaises:
                high = math.inf
                raised.append(t - window)
            low = -high
        else:
            beta = level / 2
            low = _mapie_quantile(past, beta, reverse=True, sym=False)
            high = _mapie_quantile(past, 1 - level + beta, reverse=False, sym=False)
        err = int(not (low < x[t] < high))
        qs.append(high)
        errs.append(err)
        levels.append(level)
        level = min(max(level + gamma * (alpha - err), 0.0), 1.0)
    return np.array(qs), np.array(errs, dtype=np.int8), np.array(levels), raised


def mapie_aci(scores, alpha: float, gamma: float, window: int, sym: bool, record: bool = True):
    """MAPIE's ACI on a score stream (y = score, constant-zero regressor, cv="prefit").

    Returns (upper bound, err, alpha_t) per round and the rounds where MAPIE raised ValueError (``sym=True`` only,
    k > n: its symmetric branch ignores ``allow_infinite_bounds``); at those rounds this driver applies the update
    for q_t = +inf itself (err_t = 0, alpha_t + gamma alpha, clipped) and goes on. ``record=False`` skips the extra
    ``predict`` that reads q_t (for timing: adapt + update per step only).
    """
    from mapie.conformity_scores import AbsoluteConformityScore
    from mapie.regression import TimeSeriesRegressor
    from sklearn.dummy import DummyRegressor

    y = np.asarray(scores, dtype=float)
    X = np.arange(y.size, dtype=float).reshape(-1, 1)
    estimator = DummyRegressor(strategy="constant", constant=0.0).fit(X[:window], y[:window])
    score = (
        AbsoluteConformityScore(sym=True) if sym else None
    )  # None: TimeSeriesRegressor's default (sym=False)
    model = TimeSeriesRegressor(estimator, method="aci", cv="prefit", conformity_score=score).fit(
        X[:window], y[:window]
    )
    qs, errs, levels, raised = [], [], [], []
    confidence = 1 - alpha
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # update() warns that its deprecated arguments are ignored
        model.predict(X[:1], confidence_level=confidence, allow_infinite_bounds=True)  # creates current_alpha
        (key,) = model.current_alpha
        for t in range(window, y.size):
            if record:
                levels.append(float(model.current_alpha[key]))
                try:
                    _, bounds = model.predict(
                        X[t : t + 1], confidence_level=confidence, allow_infinite_bounds=True
                    )
                    low, high = float(bounds[0, 0, 0]), float(bounds[0, 1, 0])
                except ValueError:
                    low, high = -math.inf, math.inf
                qs.append(high)
                errs.append(int(not (low < y[t] < high)))  # MAPIE's own test in adapt_conformal_inference
            try:
                model.adapt_conformal_inference(
                    X[t : t + 1], y[t : t + 1], gamma=gamma, confidence_level=confidence
                )
            except ValueError:
                raised.append(t - window)
                model.current_alpha[key] = float(np.clip(model.current_alpha[key] + gamma * alpha, 0, 1))
            model.update(X[t : t + 1], y[t : t + 1])
    return np.array(qs), np.array(errs, dtype=np.int8), np.array(levels), raised


def _salesforce_residuals(calibration):
    from online_conformal.utils import Residuals

    residuals = Residuals(1)
    residuals.horizon2residuals[1] = [float(v) for v in calibration]
    return residuals


def salesforce_aci(scores, alpha: float, gamma: float, burn_in: int, record: bool = True):
    """salesforce's FACI with the single step gamma (its ACI): radius, the update's err and alpha_t per round.

    The first ``burn_in`` scores are stored as residuals without moving alpha_t (as calibration residuals).
    """
    import pandas as pd
    from online_conformal.faci import FACI

    x = np.asarray(scores, dtype=float)
    model = FACI(model=None, train_data=None, coverage=1 - alpha)
    model.gammas = np.asarray([gamma])
    model.alphas = np.full((1, 1), 1 - model.coverage)  # as FACI's own __init__ sets it
    model.log_w = np.zeros((1, 1))
    model.residuals = _salesforce_residuals(x[:burn_in])
    zero = pd.Series([0.0])
    qs, errs, levels = [], [], []
    for t in range(burn_in, x.size):
        if record:
            qs.append(float(model.predict(1)[1]))
            before = float(model.alphas[0, 0])
            levels.append(before)
        model.update(pd.Series([x[t]]), zero, 1)
        if (
            record
        ):  # the update's err, read back from the (clipped) step; exact for gamma (alpha - err) in (0, 1)
            after = float(model.alphas[0, 0])
            errs.append(int(after < before or (after == before and before == 0.0)))
    return np.array(qs), np.array(errs, dtype=np.int8), np.array(levels)


def salesforce_method(name: str, scores, alpha: float, burn_in: int):
    """salesforce's FACI (8 experts), ScaleFreeOGD or SAOCP, calibrated on scores[:burn_in]: radii per round."""
    import pandas as pd
    from online_conformal.faci import FACI
    from online_conformal.ogd import ScaleFreeOGD
    from online_conformal.saocp import SAOCP

    cls = {"faci": FACI, "sfogd": ScaleFreeOGD, "saocp": SAOCP}[name]
    x = np.asarray(scores, dtype=float)
    model = cls(
        model=None, train_data=None, coverage=1 - alpha, calib_residuals=_salesforce_residuals(x[:burn_in])
    )
    zero, qs = pd.Series([0.0]), []
    for t in range(burn_in, x.size):
        qs.append(float(model.predict(1)[1]))
        model.update(pd.Series([x[t]]), zero, 1)
    return np.array(qs)


INLINE_SCENARIOS = ("exchangeable", "abrupt_variance", "multi_block", "mean_jump", "drift")
PLUGIN_SCENARIOS = (*INLINE_SCENARIOS, "computo")  # the plugin's synthetic streams (tested equal to its list)


# -- streams ---------------------------------------------------------------------------------------------------------
def inline_stream(scenario: str, T: int, seed: int) -> np.ndarray:
    """The self-test's streams, s_t = |mu_t + sigma_t Z_t| (the streams of ``pace.stream``), written here independently of the plugin."""
    t = np.arange(T)
    z = np.random.default_rng(seed).standard_normal(T)
    mu, sigma = np.zeros(T), np.ones(T)
    if scenario == "exchangeable":
        pass
    elif scenario == "abrupt_variance":
        sigma = np.where((t >= int(0.375 * T)) & (t < int(0.625 * T)), 3.0, 1.0)
    elif scenario == "multi_block":
        blocks = np.array([1, 2.5, 1, 4, 1.5, 1, 3, 1])
        sigma = blocks[np.minimum(t * len(blocks) // T, len(blocks) - 1)]
    elif scenario == "mean_jump":
        mu = np.where(t >= int(0.375 * T), 2.0, 0.0)
    elif scenario == "drift":
        sigma = 1 + 2 * t / T
    else:
        raise SystemExit(
            f"--streams: unknown scenario {scenario!r} for --self-test; use exchangeable, abrupt_variance, "
            "multi_block, mean_jump or drift"
        )
    return np.abs(mu + sigma * z)


def plugin_stream(scenario: str, T: int, seed: int, store: str) -> np.ndarray:
    """The plugin's stream ``scenario`` through ``toolkit.run("pace.stream")``: its score column (rounds 100..T-1)."""
    import toolkit

    result = toolkit.run(
        "pace.stream",
        {
            "method": "aci",
            "stream": scenario,
            "alpha": ALPHA,
            "gamma0": 0.005,
            "T": T,
            "calibration_window": WINDOW,
            "burn_in": 100,
        },
        seed=seed,
        cache=False,
        store=store,
    )
    rows = sorted(result.records, key=lambda r: r["t"])
    return np.array([r["score"] for r in rows], dtype=float)


def plugin_aci_rows(scores: np.ndarray, gamma: float, store: str):
    """Our ACI through the simulation (stream='user'): the rows' threshold, err and alpha_t."""
    import toolkit

    result = toolkit.run(
        "pace.stream",
        {
            "method": "aci",
            "stream": "user",
            "scores": [float(v) for v in scores],
            "alpha": ALPHA,
            "gamma0": gamma,
            "T": int(scores.size),
            "calibration_window": WINDOW,
            "burn_in": WINDOW,
        },
        seed=0,
        cache=False,
        store=store,
    )
    rows = sorted(result.records, key=lambda r: r["t"])
    return tuple(np.array([r[c] for r in rows], dtype=float) for c in ("threshold", "err", "alpha_t"))


# -- comparisons -------------------------------------------------------------------------------------------------------
def _same(a, b) -> bool:
    """Equal sequences: the same infinities, finite entries within TOLERANCE."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    finite = np.isfinite(a) & np.isfinite(b)
    return bool(
        np.array_equal(np.isfinite(a), np.isfinite(b))
        and np.all(a[~finite] == b[~finite])
        and np.all(np.abs(a[finite] - b[finite]) <= TOLERANCE)
    )


def _equal(a, b) -> bool:
    """(threshold, err, alpha_t) triples equal: thresholds and alpha_t by :func:`_same`, err exactly."""
    return _same(a[0], b[0]) and bool(np.array_equal(a[1], b[1])) and _same(a[2], b[2])


def _first_difference(a, b) -> int | None:
    diff = np.flatnonzero(np.asarray(a) != np.asarray(b))
    return int(diff[0]) if diff.size else None


def _max_gap(a, b) -> float:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    finite = np.isfinite(a) & np.isfinite(b)
    return float(np.max(np.abs(a[finite] - b[finite]))) if finite.any() else 0.0


def _row(stream, gamma, left, right, a, b, expect: str, ok: bool, note: str = "") -> dict:
    q1, e1, l1 = a
    q2, e2, l2 = b
    return {
        "stream": stream,
        "gamma": gamma,
        "compare": f"{left} vs {right}",
        "expect": expect,
        "ok": ok,
        "err_equal": float(np.mean(e1 == e2)),
        "first_err_diff": _first_difference(e1, e2),
        "max_alpha_gap": _max_gap(l1, l2),
        "mean_err_left": float(np.mean(e1)),
        "mean_err_right": float(np.mean(e2)),
        "note": note,
    }


def _leaves_unit(levels: np.ndarray) -> int | None:
    """The first round whose update takes our alpha_t out of [0, 1] (MAPIE clips there)."""
    nxt = np.append(levels[1:], np.nan)
    out = np.flatnonzero((nxt < 0) | (nxt > 1))
    return int(out[0]) if out.size else None


def _mapie_rows(stream: str, scores: np.ndarray, gamma: float, ours_ref) -> list[dict]:
    rows = []
    *mapie, raised = mapie_aci(scores, ALPHA, gamma, WINDOW, sym=True)
    *mapie_ref, raised_ref = reference_mapie(scores, ALPHA, gamma, WINDOW, sym=True)
    rows.append(
        _row(
            stream,
            gamma,
            "MAPIE sym=True",
            "MAPIE's rule (reference)",
            mapie,
            mapie_ref,
            "equal",
            _equal(mapie, mapie_ref) and raised == raised_ref,
            f"MAPIE raised ValueError (k > n) at {len(raised)} rounds, first {raised[:1]}",
        )
    )
    *default, _ = mapie_aci(scores, ALPHA, gamma, WINDOW, sym=False)
    *default_ref, _ = reference_mapie(scores, ALPHA, gamma, WINDOW, sym=False)
    rows.append(
        _row(
            stream,
            gamma,
            "MAPIE default (sym=False)",
            "its rule (reference)",
            default,
            default_ref,
            "equal",
            _equal(default, default_ref),
            "alpha_t/2 on each side of the signed residuals",
        )
    )
    mapie_as_ours = reference_aci(scores, ALPHA, gamma, WINDOW, MAPIE_RULE)
    rows.append(
        _row(
            stream,
            gamma,
            "MAPIE's rule (numpy calls)",
            "ours + clip + (s >= q) (k-th smallest)",
            mapie_ref,
            mapie_as_ours,
            "equal",
            _equal(mapie_ref, mapie_as_ours),
        )
    )
    # MAPIE = ours until our alpha_t leaves [0, 1]; with clipping and MAPIE's tie rule our rule is MAPIE's
    leave = _leaves_unit(ours_ref[2])
    split = len(scores) - WINDOW if leave is None else leave + 1
    head = lambda arrays: tuple(a[:split] for a in arrays)
    ties = int(np.sum(scores[WINDOW:] == ours_ref[0]))
    rows.append(
        _row(
            stream,
            gamma,
            "ours (reference)",
            "MAPIE sym=True",
            ours_ref,
            mapie,
            "equal until alpha_t leaves [0, 1]",
            _equal(head(ours_ref), head(mapie)),
            f"our alpha_t leaves [0, 1] after round {leave}; ties s_t = q_t: {ties}",
        )
    )
    rows.append(
        _row(
            stream,
            gamma,
            "ours (reference)",
            "MAPIE default (sym=False)",
            ours_ref,
            default,
            "report",
            True,
            "a two-sided interval: not the same rule",
        )
    )
    return rows


def compare_stream(
    stream: str,
    scores: np.ndarray,
    gamma: float,
    with_plugin: bool,
    store: str | None,
    anchors: frozenset = frozenset({"mapie", "salesforce"}),
) -> list[dict]:
    rows = []
    ours_ref = reference_aci(scores, ALPHA, gamma, WINDOW, OURS)
    if "mapie" in anchors:
        rows += _mapie_rows(stream, scores, gamma, ours_ref)
    if "salesforce" in anchors:
        sf = salesforce_aci(scores, ALPHA, gamma, WINDOW)
        sf_ref = reference_aci(scores, ALPHA, gamma, WINDOW, SALESFORCE_RULE)
        rows.append(
            _row(
                stream,
                gamma,
                "salesforce FACI(1 expert)",
                "salesforce's rule (reference)",
                sf,
                sf_ref,
                "equal",
                _equal(sf, sf_ref),
            )
        )
    for label, rule in (
        ("ours + clip", replace(OURS, clip=True)),
        ("ours, all past scores", replace(OURS, window=None)),
        ("ours, k without +1", replace(OURS, plus_one=False)),
        ("salesforce's rule", SALESFORCE_RULE),
    ):
        variant = reference_aci(scores, ALPHA, gamma, WINDOW, rule)
        rows.append(
            _row(
                stream,
                gamma,
                "ours (reference)",
                label,
                ours_ref,
                variant,
                "report",
                True,
                "one difference at a time",
            )
        )
    if with_plugin:
        from toolkit_pace.methods import aci

        ours = tuple(np.asarray(v, dtype=float) for v in aci(scores, ALPHA, gamma, WINDOW, WINDOW))
        rows.append(
            _row(
                stream,
                gamma,
                "toolkit_pace.methods.aci",
                "ours (reference)",
                ours,
                ours_ref,
                "equal",
                _equal(ours, ours_ref),
            )
        )
        run = plugin_aci_rows(scores, gamma, store)
        rows.append(
            _row(
                stream,
                gamma,
                "toolkit.run pace.stream aci",
                "ours (reference)",
                run,
                ours_ref,
                "equal",
                _equal(run, ours_ref),
            )
        )
    return rows


# -- timings -------------------------------------------------------------------------------------------------------------
def _per_step(fn, steps: int, repeats: int = 1):
    """(best microseconds per step over ``repeats`` runs, the last run's output)."""
    best, out = math.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return 1e6 * best / steps, out


def _agreement(ours, theirs) -> str:
    """How close two threshold sequences are (score-space methods: reported, not required equal)."""
    ours, theirs = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
    finite = np.isfinite(ours) & np.isfinite(theirs)
    gap = float(np.max(np.abs(ours[finite] - theirs[finite]))) if finite.any() else math.nan
    return f"vs salesforce: max |q gap| {gap:.3g}"


def timings(
    scores: np.ndarray,
    gamma: float,
    with_plugin: bool,
    anchors: frozenset = frozenset({"mapie", "salesforce"}),
) -> list[dict]:
    steps = scores.size - WINDOW
    out = []

    def add(method, implementation, fn, repeats=1, note=""):
        us, result = _per_step(fn, steps, repeats)
        out.append({"method": method, "implementation": implementation, "us_per_step": us, "note": note})
        return result

    if "mapie" in anchors:
        add(
            "ACI",
            "MAPIE 1.6 adapt_conformal_inference + update (default, sym=False)",
            lambda: mapie_aci(scores, ALPHA, gamma, WINDOW, sym=False, record=False),
        )
    add(
        "ACI",
        "reference rule (pure Python, this script)",
        lambda: reference_aci(scores, ALPHA, gamma, WINDOW, OURS),
    )
    theirs = {}
    if "salesforce" in anchors:
        add(
            "ACI",
            "salesforce FACI, 1 expert",
            lambda: salesforce_aci(scores, ALPHA, gamma, WINDOW, record=False),
        )
        for name, label in (("faci", "DtACI/FACI"), ("sfogd", "SF-OGD"), ("saocp", "SAOCP")):
            theirs[name] = add(
                label, f"salesforce {name}", lambda n=name: salesforce_method(n, scores, ALPHA, WINDOW)
            )
    if not with_plugin:
        return out
    from toolkit_pace import methods

    for engine in ("numba", "numpy"):
        try:
            methods.aci(
                scores[: WINDOW + 10], ALPHA, gamma, WINDOW, WINDOW, engine=engine
            )  # compile / warm up
        except (TypeError, ValueError, ImportError) as exc:
            out.append(
                {
                    "method": "ACI",
                    "implementation": f"toolkit_pace aci ({engine})",
                    "us_per_step": math.nan,
                    "note": str(exc),
                }
            )
            continue
        add(
            "ACI",
            f"toolkit_pace aci ({engine})",
            lambda e=engine: methods.aci(scores, ALPHA, gamma, WINDOW, WINDOW, engine=e),
            repeats=3,
        )
    for name, label, anchor in (
        ("dtaci", "DtACI/FACI", None),
        ("sfogd", "SF-OGD", "sfogd"),
        ("saocp", "SAOCP", "saocp"),
        ("pace", "PACE", None),
    ):
        fn = getattr(methods, name, None)
        kwargs = {"alpha": ALPHA, "calibration_window": WINDOW, "burn_in": WINDOW}
        try:
            fn(scores[: WINDOW + 10], **kwargs)  # compile / warm up
        except TypeError as exc:
            out.append(
                {
                    "method": label,
                    "implementation": f"toolkit_pace {name}",
                    "us_per_step": math.nan,
                    "note": str(exc),
                }
            )
            continue
        trace = add(label, f"toolkit_pace {name}", lambda f=fn: f(scores, **kwargs), repeats=3)
        if anchor in theirs:
            out[-1]["note"] = _agreement(trace.threshold, theirs[anchor])
            out[-1]["q_gap"] = _max_gap(
                trace.threshold, theirs[anchor]
            )  # expected <= TOLERANCE (checked in main)
    return out


# -- main -------------------------------------------------------------------------------------------------------------------
def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for dist in ("mapie", "online-conformal", "salesforce-merlion", "numpy", "scikit-learn"):
        try:
            found[dist] = version(dist)
        except PackageNotFoundError:
            found[dist] = "not installed"
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="the anchors against their written-out rules on inline streams (no toolkit_pace needed)",
    )
    parser.add_argument(
        "--T", type=int, default=None, help="stream length (default 4000; 1500 with --self-test)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--gammas",
        type=comma_list(float),
        default=[0.005, 0.05],
        help="ACI steps, comma-separated, each in (0, 1] (default 0.005,0.05)",
    )
    parser.add_argument(
        "--streams",
        type=comma_list(str, choices=PLUGIN_SCENARIOS),
        default=["exchangeable", "abrupt_variance", "multi_block"],
        help=f"comma-separated, of {', '.join(PLUGIN_SCENARIOS)} (--self-test: of "
        f"{', '.join(INLINE_SCENARIOS)}); default exchangeable,abrupt_variance,multi_block",
    )
    parser.add_argument("--csv", default=None, help="also write the comparison table to this CSV file")
    args = parser.parse_args(argv)
    T = args.T if args.T is not None else (1500 if args.self_test else 4000)
    gammas, streams = args.gammas, args.streams
    if not all(0 < g <= 1 for g in gammas):
        parser.error(
            f"--gammas must lie in (0, 1] (MAPIE refuses gamma > 1), got {','.join(map(str, gammas))}"
        )
    if args.self_test and not set(streams) <= set(INLINE_SCENARIOS):
        parser.error(
            f"--streams with --self-test: each of {', '.join(INLINE_SCENARIOS)}; got {','.join(streams)}"
        )
    if T < WINDOW + 100:
        parser.error(
            f"--T must be at least {WINDOW + 100} (W = {WINDOW} calibration scores, then the stream)"
        )
    anchors = frozenset(
        name
        for name, module in (("mapie", "mapie"), ("salesforce", "online_conformal"))
        if importlib.util.find_spec(module) is not None
    )
    if not anchors:
        print(
            f"no anchor installed (mapie, online_conformal): install them as the docstring says "
            f"(python {sys.argv[0]} -h)",
            file=sys.stderr,
        )
        return 2
    with_plugin = not args.self_test
    if with_plugin and importlib.util.find_spec("toolkit_pace") is None:
        print(
            "toolkit_pace (the pace plugin) is not installed: install it, or run with --self-test",
            file=sys.stderr,
        )
        return 2

    import pandas as pd

    print("versions:", ", ".join(f"{k} {v}" for k, v in _versions().items()))
    for name in sorted({"mapie", "salesforce"} - anchors):
        print(
            f"NOTE: {name} is not installed: its rows and timings are left out (install it as the docstring says)"
        )
    rows, timing_rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        store = f"{tmp}/runs.sqlite"
        for stream in streams:
            if with_plugin:
                scores = plugin_stream(stream, T, args.seed, store)
            else:
                scores = inline_stream(stream, T, args.seed)
            for gamma in gammas:
                rows += compare_stream(stream, scores, gamma, with_plugin, store, anchors)
        timing_scores = (
            plugin_stream("abrupt_variance", T, args.seed, store)
            if with_plugin
            else inline_stream("abrupt_variance", T, args.seed)
        )
        timing_rows = timings(timing_scores, 0.005, with_plugin, anchors)
    table = pd.DataFrame(rows)
    with pd.option_context("display.width", 250, "display.max_columns", 20, "display.max_colwidth", 60):
        print(table.to_string(index=False))
        print(
            f"\nmicroseconds per step (abrupt_variance, T = {T}, {T - WINDOW} steps after W = {WINDOW}; one run each, "
            "same process):"
        )
        print(pd.DataFrame(timing_rows).to_string(index=False))
    if args.csv:
        table.to_csv(args.csv, index=False)
    failed = table[(table["expect"] != "report") & ~table["ok"].astype(bool)]
    # SF-OGD and SAOCP: our thresholds equal salesforce's (same calibration warm-up, same summation order)
    score_space = [r for r in timing_rows if "q_gap" in r]
    off = [r for r in score_space if not r["q_gap"] <= TOLERANCE]
    if len(failed) or off:
        print(
            f"FAILED: {len(failed) + len(off)} comparison(s) not as expected:\n{failed.to_string(index=False)}\n"
            + "\n".join(f"{r['method']}: max |q gap| vs salesforce {r['q_gap']:.3g}" for r in off),
            file=sys.stderr,
        )
        return 1
    n_expected = int((table["expect"] != "report").sum()) + len(score_space)
    print(f"\nall {n_expected} expected equalities hold (tolerance {TOLERANCE:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
