"""Score streams: the reference synthetic shift scenarios, statsmodels series with a rolling AR(3) forecaster,
the simulated LLM-factuality stream, and the user's own scores (array, CSV column, .npy, text file).

Pure numpy (statsmodels imported inside the loader that needs it); every random stream takes a seed.
"""

from __future__ import annotations

import csv
import functools
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SYNTHETIC = ("exchangeable", "drift", "abrupt_variance", "mean_jump", "multi_block", "computo")
REAL = ("co2", "elnino", "sunspots", "inflation", "nile")
STREAMS = (*SYNTHETIC, *REAL, "llm_factuality", "user")
MULTI_BLOCK_SIGMAS = (1.0, 2.5, 1.0, 4.0, 1.5, 1.0, 3.0, 1.0)


@dataclass
class Stream:
    """A score stream: ``scores`` (1-D float), its known ``change_points`` (indices where the law changes),
    whether a score is an absolute residual (the set is then an interval of length 2 q), an optional
    label-free side stream, and per-round extras (the LLM stream's claims)."""

    name: str
    scores: np.ndarray
    change_points: tuple[int, ...] = ()
    interval: bool = True
    side: np.ndarray | None = None
    extra: dict = field(default_factory=dict)


def _at(T: int, fraction: float) -> int:
    return int(round(fraction * T))


def synthetic(scenario: str, T: int, seed: int) -> Stream:
    """s_t = |mu_t + sigma_t Z_t|, Z_t iid N(0, 1); change points scale with T (the values at T = 4000):

    exchangeable (mu 0, sigma 1); drift (sigma = 1 + 2t/T); abrupt_variance (sigma 1 -> 3 at 0.375 T, -> 1 at
    0.625 T); mean_jump (mu 0 -> 2 at 0.375 T); multi_block (sigma per T/8 block 1, 2.5, 1, 4, 1.5, 1, 3, 1);
    computo (sigma 0.2 -> 0.7 at T/2: the Computo study's t = 250 of T = 500).
    """
    if scenario not in SYNTHETIC:
        raise ValueError(f"scenario must be one of {', '.join(SYNTHETIC)}, got {scenario!r}")
    rng = np.random.default_rng(seed)
    z = rng.standard_normal(T)
    t = np.arange(T)
    mu, sigma, cps = np.zeros(T), np.ones(T), ()
    if scenario == "drift":
        sigma = 1 + 2 * t / T
    elif scenario == "abrupt_variance":
        cps = (_at(T, 0.375), _at(T, 0.625))
        sigma = np.where((t >= cps[0]) & (t < cps[1]), 3.0, 1.0)
    elif scenario == "mean_jump":
        cps = (_at(T, 0.375),)
        mu = np.where(t >= cps[0], 2.0, 0.0)
    elif scenario == "multi_block":
        edges = [_at(T, k / 8) for k in range(9)]
        cps = tuple(edges[1:8])
        for k in range(8):
            sigma[edges[k] : edges[k + 1]] = MULTI_BLOCK_SIGMAS[k]
    elif scenario == "computo":
        cps = (_at(T, 0.5),)
        sigma = np.where(t >= cps[0], 0.7, 0.2)
    return Stream(scenario, np.abs(mu + sigma * z), tuple(c for c in cps if 0 < c < T))


def _series(name: str) -> np.ndarray:
    import statsmodels.api as sm

    if name == "co2":
        return sm.datasets.co2.load_pandas().data["co2"].interpolate().to_numpy(float)
    if name == "elnino":
        data = sm.datasets.elnino.load_pandas().data
        return data.drop(columns="YEAR").to_numpy(float).ravel()
    if name == "sunspots":
        return sm.datasets.sunspots.load_pandas().data["SUNACTIVITY"].to_numpy(float)
    if name == "inflation":
        return sm.datasets.macrodata.load_pandas().data["infl"].to_numpy(float)
    if name == "nile":
        return sm.datasets.nile.load_pandas().data["volume"].to_numpy(float)
    raise ValueError(f"real stream must be one of {', '.join(REAL)}, got {name!r}")


AR_ORDER, AR_FIT_WINDOW, AR_MIN_ROWS = 3, 200, 10


def rolling_ar_scores(
    y: np.ndarray, order: int = AR_ORDER, fit_window: int = AR_FIT_WINDOW, min_rows: int = AR_MIN_ROWS
) -> np.ndarray:
    """s_t = |y_t - yhat_t|, yhat_t from an OLS AR(order) with intercept fitted on y[t - fit_window .. t - 1]
    (all the past while shorter); scores start once ``min_rows`` regression rows exist (t = order + min_rows)."""
    out = []
    for t in range(order + min_rows, y.size):
        past = y[max(0, t - fit_window) : t]
        rows = past.size - order
        design = np.ones((rows, order + 1))
        for j in range(1, order + 1):
            design[:, j] = past[order - j : past.size - j]
        coef, *_ = np.linalg.lstsq(design, past[order:], rcond=None)
        x_next = np.concatenate([[1.0], past[::-1][:order]])
        out.append(abs(y[t] - float(x_next @ coef)))
    return np.asarray(out)


@functools.lru_cache(maxsize=8)
def _real_scores(name: str) -> np.ndarray:
    return rolling_ar_scores(_series(name))


def real(name: str) -> Stream:
    """A statsmodels series (co2 weekly with its 59 gaps interpolated, elnino flattened month by month,
    sunspots yearly, macrodata quarterly inflation, nile's 100 yearly volumes) as |y - rolling AR(3) forecast|."""
    return Stream(name, _real_scores(name).copy())


LLM_TOPICS = {
    "claims_mean": (6, 6, 8, 5),
    "truth": (0.92, 0.80, 0.65, 0.85),
    "a": (2.0, 1.5, 1.0, 2.5),
    "b": (0.5, 0.5, 0.8, -0.3),
}
LLM_MIXING = 0.1


def llm_factuality(T: int, seed: int) -> Stream:
    """The reference simulated LLM factuality stream [reconstructed].

    Round t's topic is floor(4t/T) (switches at T/4, T/2, 3T/4), replaced with probability 0.1 by a uniform
    topic (mixing); 1 + Poisson(lambda - 1) claims, each true with probability p; confidence
    sigmoid(a (2z - 1) + b + N(0, 1)); the score is the largest confidence of a false claim (0 if none), so
    keeping the claims with confidence > q_t keeps a false one iff s_t > q_t; the label-free side stream
    u_t is the mean confidence. ``extra``: per-claim ``confidence``, ``true`` and the round ``offsets``, and
    the round's ``topic``.
    """
    rng = np.random.default_rng(seed)
    base = np.minimum(3, (4 * np.arange(T)) // T)
    mixed = rng.random(T) < LLM_MIXING
    topic = np.where(mixed, rng.integers(0, 4, T), base)
    lam = np.asarray(LLM_TOPICS["claims_mean"], float)[topic]
    counts = 1 + rng.poisson(lam - 1)
    offsets = np.concatenate([[0], np.cumsum(counts)])
    claim_topic = np.repeat(topic, counts)
    truth = rng.random(offsets[-1]) < np.asarray(LLM_TOPICS["truth"])[claim_topic]
    logit = (
        np.asarray(LLM_TOPICS["a"])[claim_topic] * (2 * truth - 1)
        + np.asarray(LLM_TOPICS["b"])[claim_topic]
        + rng.standard_normal(offsets[-1])
    )
    conf = 1 / (1 + np.exp(-logit))
    false_conf = np.where(truth, 0.0, conf)
    scores = np.maximum.reduceat(false_conf, offsets[:-1])
    side = np.add.reduceat(conf, offsets[:-1]) / counts
    cps = tuple(_at(T, f) for f in (0.25, 0.5, 0.75))
    return Stream(
        "llm_factuality",
        scores,
        cps,
        interval=False,
        side=side,
        extra={"confidence": conf, "true": truth, "offsets": offsets, "topic": topic},
    )


def retained_fraction(stream: Stream, thresholds: np.ndarray, start: int) -> np.ndarray:
    """Per round t >= start of the LLM stream: the fraction of its claims with confidence > q_t."""
    conf, offsets = stream.extra["confidence"], stream.extra["offsets"]
    counts = np.diff(offsets)[start : start + thresholds.size]
    q_claim = np.repeat(thresholds, counts)
    lo = offsets[start]
    kept = conf[lo : lo + q_claim.size] > q_claim
    return np.add.reduceat(kept.astype(float), np.concatenate([[0], np.cumsum(counts)[:-1]])) / counts


class ScoreFileError(ValueError):
    """A user score file that cannot be read as one column of finite numbers (names the file and line)."""


def read_scores(path: str | Path, column: str | None = None) -> np.ndarray:
    """Scores from a ``.npy`` (1-D), a ``.csv`` (the named ``column``, or the only one) or a ``.txt`` (one
    number per line). Errors name the file, and for text the line, of the first bad value."""
    path = Path(path)
    if not path.is_file():
        raise ScoreFileError(f"score file {str(path)!r} does not exist")
    suffix = path.suffix.lower()
    if suffix == ".npy":
        x = np.load(path, allow_pickle=False)
        if x.ndim != 1:
            raise ScoreFileError(f"{path}: the array must be one-dimensional, got shape {x.shape}")
        x = x.astype(float)
        if not np.all(np.isfinite(x)):
            raise ScoreFileError(f"{path}: value {int(np.flatnonzero(~np.isfinite(x))[0])} is not finite")
        return x
    if suffix not in (".csv", ".txt"):
        raise ScoreFileError(f"{path}: score files are .csv, .npy or .txt, got {suffix or 'no extension'!r}")
    values = []
    with path.open(newline="") as fh:
        if suffix == ".txt":
            for line_no, line in enumerate(fh, 1):
                if line.strip():
                    values.append(_number(line.strip(), path, line_no, "the line"))
        else:
            reader = csv.reader(fh)
            header = next(reader, None)
            if header is None:
                raise ScoreFileError(f"{path}: the CSV file is empty")
            header = [h.strip() for h in header]
            if column is None:
                if len(header) != 1:
                    raise ScoreFileError(
                        f"{path}: the CSV has columns {', '.join(header)}; name one with column="
                    )
                index = 0
            elif column in header:
                index = header.index(column)
            else:
                raise ScoreFileError(f"{path}: no column {column!r}; the columns are {', '.join(header)}")
            for line_no, row in enumerate(reader, 2):
                if not row or not any(c.strip() for c in row):
                    continue
                if index >= len(row):
                    raise ScoreFileError(f"{path}, line {line_no}: no value in column {header[index]!r}")
                values.append(_number(row[index].strip(), path, line_no, f"column {header[index]!r}"))
    if not values:
        raise ScoreFileError(f"{path}: no scores found")
    return np.asarray(values, float)


def _number(text: str, path: Path, line_no: int, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ScoreFileError(f"{path}, line {line_no}: {where} is {text!r}, not a number") from None
    if not math.isfinite(value):
        raise ScoreFileError(f"{path}, line {line_no}: {where} is {text!r}, not a finite number")
    return value


def csv_header(path: str | Path) -> list[str]:
    with Path(path).open(newline="") as fh:
        return [h.strip() for h in next(csv.reader(fh), [])]
