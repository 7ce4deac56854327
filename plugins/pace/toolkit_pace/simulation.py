"""Registered simulations of pace: one stream under one method (per round), recovery after change points,
and the LLM factuality trade-off (retained claims vs coverage).

Parameter models and run functions only; the methods are in :mod:`toolkit_pace.methods`, the streams in
:mod:`toolkit_pace.streams`, the metrics in :mod:`toolkit_pace.metrics`.
"""

from __future__ import annotations

import hashlib
import math
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import field_validator

from toolkit import ParameterError, Simulation, SimulationOutput
from toolkit.config import ContentPath, Field, Params

METHOD = Literal["aci", "quantile_tracking", "pid", "decaying", "dtaci", "agaci", "sfogd", "saocp", "pace"]
STREAM = Literal[
    "exchangeable",
    "drift",
    "abrupt_variance",
    "mean_jump",
    "multi_block",
    "computo",
    "co2",
    "elnino",
    "sunspots",
    "inflation",
    "nile",
    "llm_factuality",
    "user",
]
SCORE_SUFFIXES = (".csv", ".npy", ".txt")


class MethodParams(Params):
    method: METHOD = Field(
        "pace",
        description="aci; quantile_tracking (P control); pid (with an AR(3) scorecaster); "
        "decaying (eta_t ~ t^-0.51); dtaci; agaci; sfogd; saocp; pace (reconstructed). Each run is held "
        "against its method's bound at every prefix: aci, pace, quantile_tracking, decaying (T1-T3); pid "
        "(pace.pid_integrator); dtaci (pace.dtaci_experts: its experts' weighted miss, not the averaged "
        "alpha_t's own miscoverage); sfogd (pace.sfogd_long_run); agaci: no finite-run bound (no coverage "
        "guarantee is stated for its aggregation, and an expert below 0 still misses, so its experts leave "
        "ACI's box); saocp: no finite-run bound (its cited guarantee bounds the pinball-loss regret, not "
        "miscoverage, and a mixture of thresholds does not telescope)",
    )
    alpha: float = Field(0.1, gt=0.0, lt=1.0, description="target miscoverage alpha")
    gamma0: float = Field(
        0.005,
        gt=0.0,
        le=0.128,
        description="ACI's step gamma, and PACE's base step gamma_0 (other methods ignore it)",
    )
    T: int = Field(
        4000,
        ge=20,
        le=1_000_000,
        description="length of synthetic and LLM streams (real and user "
        "streams are cut to their first T scores)",
    )
    calibration_window: int = Field(
        500, ge=1, le=100_000, description="W_cal: the last W_cal scores calibrate q_t"
    )
    burn_in: int = Field(
        100,
        ge=1,
        le=100_000,
        description="rounds that only fill the calibration window; "
        "rounds burn_in..T-1 are predicted, updated and held against the bounds",
    )
    gamma_cap: float = Field(0.128, gt=0.0, le=1.0, description="PACE's gamma_max (largest step)")
    phi_cap: float = Field(0.5, ge=0.0, le=10.0, description="PACE's ledger cap Phi: |phi_t| <= Phi")
    shift_gain: float = Field(
        0.1, ge=0.0, le=10.0, description="PACE's gain on its proactive signal (the KS shift statistic)"
    )
    gap_gain: float = Field(
        0.1, ge=0.0, le=10.0, description="PACE's gain on its reactive signal (the recent coverage gap)"
    )
    engine: Literal["auto", "numba", "numpy"] = Field(
        "auto", description="ACI/PACE loop: compiled (numba) or the Python classes (same arrays)"
    )

    @field_validator("burn_in")
    @classmethod
    def _burn_in_below_T(cls, value, info):
        T = info.data.get("T")
        if T is not None and value >= T:
            raise ValueError(f"burn_in must be < T (= {T}): at least one round must be predicted")
        return value

    @field_validator("gamma_cap")
    @classmethod
    def _cap_above_gamma0(cls, value, info):
        g0 = info.data.get("gamma0")
        if g0 is not None and value < g0:
            raise ValueError(f"gamma_cap must be >= gamma0 (= {g0})")
        return value


class StreamParams(MethodParams):
    stream: STREAM = Field(
        "abrupt_variance",
        description="synthetic (exchangeable, drift, abrupt_variance, "
        "mean_jump, multi_block, computo), statsmodels series with a rolling AR(3) forecaster "
        "(co2, elnino, sunspots, inflation, nile), llm_factuality, or user (scores= or dataset=)",
    )
    column: str | None = Field(None, description="with a CSV file in scores: the column holding the scores")
    scores: list[float] | ContentPath | None = Field(
        None,
        description="stream=user: the scores as a list, or a path to a "
        ".csv (see column), .npy (1-D) or .txt (one number per line)",
    )
    dataset: str | None = Field(
        None,
        description="stream=user: a registered dataset (any plugin's) whose loader "
        "returns a 1-D array of scores; it gets seed= and T= when its parameters have them",
    )

    change_points: list[int] | None = Field(
        None,
        description="stream indices where the score law changes (strictly increasing, inside the stream): "
        "recovery and post-shift deviation are measured after them; replaces the stream's own "
        "(None: the synthetic and LLM streams' known ones, none for real and user streams)",
    )
    absolute_residuals: bool | None = Field(
        None,
        description="stream=user: the scores are absolute residuals |y - yhat|, so the set yhat +- q_t "
        "has width 2 q_t (None: false, the width is q_t)",
    )

    @field_validator("change_points")
    @classmethod
    def _increasing(cls, value):
        if value is None:
            return value
        if any(c < 1 for c in value) or any(b <= a for a, b in zip(value, value[1:])):
            raise ValueError(
                f"change_points must be strictly increasing stream indices >= 1 (a change at index c "
                f"means scores c, c+1, ... follow the new law), got {value}"
            )
        return value

    @field_validator("absolute_residuals")
    @classmethod
    def _user_only(cls, value, info):
        stream = info.data.get("stream")
        if value is not None and stream not in (None, "user"):
            raise ValueError(
                f"absolute_residuals= is read only with stream='user' (stream {stream!r} knows its own)"
            )
        return value

    @field_validator("scores", mode="before")
    @classmethod
    def _one_path(cls, value):
        # the command line turns `-p scores=my.csv` into ["my.csv"] (scores may be a list)
        if isinstance(value, (list, tuple)) and len(value) == 1 and isinstance(value[0], str):
            return value[0]
        return value

    @field_validator("scores")
    @classmethod
    def _check_scores(cls, value, info):
        if value is None:
            return value
        if isinstance(value, str):
            path = Path(value).expanduser()
            if path.suffix.lower() not in SCORE_SUFFIXES:
                raise ValueError(f"a score file is .csv, .npy or .txt, got {value!r}")
            if not path.is_file():
                raise ValueError(f"score file {value!r} does not exist")
            if path.suffix.lower() == ".csv":
                from toolkit_pace.streams import csv_header

                header = csv_header(path)
                column = info.data.get("column")
                if column is None and len(header) != 1:
                    raise ValueError(f"{value} has columns {', '.join(header)}: name one with column=")
                if column is not None and column not in header:
                    raise ValueError(f"{value} has no column {column!r}; its columns are {', '.join(header)}")
            return value
        bad = [i for i, s in enumerate(value) if not math.isfinite(s)]
        if bad:
            raise ValueError(f"scores must be finite numbers; scores[{bad[0]}] = {value[bad[0]]}")
        burn_in = info.data.get("burn_in")
        if burn_in is not None and len(value) <= burn_in:
            raise ValueError(
                f"{len(value)} scores leave no round after burn_in = {burn_in}; give more than "
                f"burn_in scores or lower burn_in"
            )
        return value

    @field_validator("dataset")
    @classmethod
    def _user_source(cls, value, info):
        stream, scores = info.data.get("stream"), info.data.get("scores")
        if stream == "user" and (scores is None) == (value is None):
            raise ValueError(
                "stream='user' needs exactly one of scores= (a list or a file) and dataset= "
                "(a registered dataset name)"
            )
        if stream not in (None, "user") and (scores is not None or value is not None):
            raise ValueError(f"scores= and dataset= are read only with stream='user' (stream is {stream!r})")
        if stream not in (None, "user") and info.data.get("column") is not None:
            raise ValueError("column= is read only with stream='user' and a CSV file in scores=")
        return value


# -- building the stream ------------------------------------------------------------------------------


def _user_scores(p: StreamParams, seed: int) -> np.ndarray:
    from toolkit_pace.streams import ScoreFileError, read_scores

    if p.dataset is not None:
        import toolkit

        registry = toolkit.get_registry()
        if p.dataset not in registry.datasets:
            raise ParameterError(
                f"parameter 'dataset': no registered dataset {p.dataset!r} (registered: "
                f"{', '.join(sorted(registry.datasets)) or 'none'})"
            )
        ds = registry.dataset(p.dataset)
        fields = set(ds.params.model_fields) if ds.params is not None else set()
        kwargs = {k: v for k, v in (("seed", seed), ("T", p.T)) if k in fields}
        data = ds.load(**kwargs)
        x = np.asarray(getattr(data, "scores", data), dtype=float)
        if x.ndim != 1 or not np.all(np.isfinite(x)):
            raise ParameterError(
                f"parameter 'dataset': {p.dataset!r} must load a 1-D array of finite scores, "
                f"got shape {x.shape}"
            )
        return x
    if isinstance(p.scores, str):
        try:
            return read_scores(Path(p.scores).expanduser(), p.column)
        except ScoreFileError as exc:
            raise ParameterError(f"parameter 'scores': {exc}") from None
    return np.asarray(p.scores, dtype=float)


def build_stream(p: StreamParams, seed: int):
    """The run's Stream, cut to T scores; refuses (ParameterError) a stream too short for burn_in."""
    from toolkit_pace import streams

    if p.stream in streams.SYNTHETIC:
        s = streams.synthetic(p.stream, p.T, seed)
    elif p.stream in streams.REAL:
        s = streams.real(p.stream)
    elif p.stream == "llm_factuality":
        s = streams.llm_factuality(p.T, seed)
    else:
        s = streams.Stream("user", _user_scores(p, seed), interval=bool(p.absolute_residuals))
    if s.scores.size > p.T:
        s.scores = s.scores[: p.T]
        s.change_points = tuple(c for c in s.change_points if c < p.T)
    if p.change_points is not None:
        late = [c for c in p.change_points if c >= s.scores.size]
        if late:
            raise ParameterError(
                f"parameter 'change_points': stream {p.stream!r} has {s.scores.size} scores, so every "
                f"change point must be < {s.scores.size}, got {late}"
            )
        s.change_points = tuple(p.change_points)
    if s.scores.size <= p.burn_in:
        raise ParameterError(
            f"parameter 'burn_in': stream {p.stream!r} has {s.scores.size} scores, so burn_in "
            f"(= {p.burn_in}) must be < {s.scores.size} (e.g. burn_in={max(1, s.scores.size // 4)})"
        )
    return s


def _trace(p: MethodParams, stream, engine: str | None = None):
    from toolkit_pace.methods import run_method

    options = (
        {"gamma_cap": p.gamma_cap, "phi_cap": p.phi_cap, "shift_gain": p.shift_gain, "gap_gain": p.gap_gain}
        if p.method == "pace"
        else {}
    )
    return run_method(
        p.method,
        stream.scores,
        p.alpha,
        p.gamma0,
        p.calibration_window,
        p.burn_in,
        side=stream.side if p.method == "pace" else None,
        engine=engine or p.engine,
        **options,
    )


def run_columns(p: MethodParams, stream, trace) -> dict[str, Any]:
    """Per updated round: the trace, the width, and the columns the bounds are evaluated at."""
    from toolkit_pace.methods import ALPHA_SPACE, SCORE_SPACE_STEP
    from toolkit_pace.metrics import certificate_columns, running_gap

    n = trace.err.size
    t = np.arange(p.burn_in, p.burn_in + n)
    err = trace.err.astype(np.int64)
    cols: dict[str, Any] = {
        "t": t,
        "score": stream.scores[p.burn_in :],
        "threshold": trace.threshold,
        "err": err,
        "alpha_t": trace.alpha_t,
        "gamma_t": trace.gamma_t,
        "width": 2 * trace.threshold if stream.interval else trace.threshold.copy(),
        "phi": trace.phi if trace.phi is not None else np.full(n, math.nan),
        "n_rounds": np.arange(1, n + 1),
        "coverage_gap": running_gap(err, p.alpha),
        "alpha_1": np.full(n, p.alpha),
    }
    if p.method == "pid":  # the tan saturation of the integrator (T_g = the stream's length)
        from toolkit_pace.methods import pid_c_sat

        cols["c_sat"] = np.full(n, pid_c_sat(max(3, stream.scores.size)))
    # PACE's step rule per round: its two signals and the smoothed step before the ledger (nan otherwise)
    for name in PACE_SIGNAL_COLUMNS:
        cols[name] = trace.extra[name] if p.method == "pace" else np.full(n, math.nan)
    # every run has every bound's columns (nan where its method has none): one table for a sweep over methods
    cols.update({k: np.full(n, math.nan) for k in (*DTACI_COLUMNS, *SFOGD_COLUMNS)})
    if p.method == "dtaci":
        cols.update(dtaci_columns(trace, p.alpha))
    if p.method == "sfogd":
        cols.update(sfogd_columns(trace, stream.scores, p.burn_in))
    if p.method in ALPHA_SPACE or p.method in SCORE_SPACE_STEP:
        space = "alpha" if p.method in ALPHA_SPACE else "score"
        cols.update(certificate_columns(space, trace.gamma_t, stream.scores, p.burn_in))
    else:
        cols.update({k: np.full(n, math.nan) for k in ("gamma_max", "delta_l1", "box_width")})
    return cols


def dtaci_columns(trace, alpha: float) -> dict[str, Any]:
    """The columns of ``pace.dtaci_experts``: expert_gap = |mean_t sum_k p_tk err_tk - alpha| (the miscoverage of
    a draw from the experts), weight_variation = sum_{t<n} ||p_{t+1} - p_t||_1 and gamma_min."""
    from toolkit_pace.methods import DEFAULT_GAMMAS
    from toolkit_pace.metrics import running_gap

    n = trace.err.size
    move = trace.extra["weight_move"]
    return {
        "expert_gap": running_gap(trace.extra["expert_miss"], alpha),
        "weight_variation": np.concatenate([[0.0], np.cumsum(move)[:-1]]),
        "gamma_min": np.full(n, min(DEFAULT_GAMMAS)),
    }


def sfogd_columns(trace, scores: np.ndarray, burn_in: int) -> dict[str, Any]:
    """The columns of ``pace.sfogd_long_run``: score_max (the largest score so far, warm-up included, and 0),
    sf_scale D (the largest absolute warm-up score, 1 without one), warm_steps and floor_rounds (rounds where
    a tie or the floor at 0 changed the step)."""
    warm = scores[:burn_in]
    scale = float(np.max(np.abs(warm))) if warm.size else 1.0
    start = max(0.0, float(warm.max())) if warm.size else 0.0
    n = trace.err.size
    return {
        "score_max": np.maximum.accumulate(np.maximum(scores[burn_in:], start)),
        "sf_scale": np.full(n, scale),
        "warm_steps": np.full(n, burn_in),
        "floor_rounds": np.cumsum(trace.extra["floor"]),
    }


def run_summary(p: MethodParams, stream, cols: dict[str, Any]) -> dict[str, Any]:
    from toolkit_pace.metrics import (
        post_shift_deviation,
        recovery_times,
        trailing_post_shift_deviation,
        violation_rate,
    )

    err, thr = cols["err"], cols["threshold"]
    cps = [c - p.burn_in for c in stream.change_points if c >= p.burn_in]
    rec = recovery_times(err, p.alpha, cps)
    finite = np.isfinite(cols["width"])
    summary = {
        "rounds": int(err.size),
        "miscoverage": float(err.mean()),
        "long_run_deviation": float(abs(err.mean() - p.alpha)),
        "violation_rate": violation_rate(err, p.alpha),
        "post_shift_deviation": post_shift_deviation(err, p.alpha, cps),
        "post_shift_deviation_trailing": trailing_post_shift_deviation(err, p.alpha, cps),
        "recovery_total": float(sum(r for _, r, _ in rec)) if rec else math.nan,
        "recovery_censored": int(sum(c for *_, c in rec)),
        "abstain_fraction": float(np.mean(thr == np.inf)),
        "empty_fraction": float(np.mean(thr == -np.inf)),
        "mean_width": float(cols["width"][finite].mean()) if finite.any() else math.nan,
        # the sets left out of mean_width: infinite (q = +inf) ones, beside it
        "infinite_width_fraction": float(np.mean(cols["width"] == np.inf)),
        "gamma0_fraction": float(np.mean(cols["gamma_t"] == p.gamma0)),
        "max_abs_phi": float(np.nanmax(np.abs(cols["phi"]))) if np.isfinite(cols["phi"]).any() else math.nan,
    }
    if "retained" in cols:
        summary["retained_fraction"] = float(np.mean(cols["retained"]))
    return summary


def _digest(p: StreamParams, stream) -> str | None:
    if p.stream != "user" or not isinstance(p.scores, list):
        return None
    h = hashlib.sha256(np.asarray(p.scores, float).tobytes()).hexdigest()[:12]
    return f"<{len(p.scores)} scores, sha256 {h}>"


def stream_run(params: StreamParams, seed: int) -> SimulationOutput:
    """One stream under one method: a row per updated round t (burn_in..T-1) with the score, threshold q_t,
    err_t, alpha_t (nan for score-space methods), the step gamma_t, the width (2 q_t for residual streams,
    q_t otherwise), PACE's ledger phi, and the bounds' columns: n_rounds (the bounds' T, counted from the
    first updated round), coverage_gap = |mean err - alpha| over those rounds, alpha_1, gamma_max,
    delta_l1 (||Delta||_1) and box_width; for PACE, its step rule's inputs: shift_signal (the proactive KS
    term), gap_signal (the reactive coverage-gap term) and gamma_smooth (the smoothed step before the ledger
    caps it to gamma_t), nan for other methods. The LLM stream adds retained (fraction of claims kept) and topic.

    Summary: long-run deviation, local violation rate (forward windows of 100, |. - alpha| > 0.05),
    post-shift deviation over the 300 rounds after each change point (forward windows, and
    ``post_shift_deviation_trailing`` with windows looking back over the last 100 rounds), total recovery
    time over the stream's change points (``change_points=`` declares them for any stream), abstention
    (q = +inf) fraction, mean finite width with ``infinite_width_fraction`` (the share of rounds whose set
    is infinite, left out of ``mean_width``), the fraction of rounds at gamma_0, the largest |phi|.
    """
    stream = build_stream(params, seed)
    trace = _trace(params, stream)
    cols = run_columns(params, stream, trace)
    if stream.name == "llm_factuality":
        from toolkit_pace.streams import retained_fraction

        cols["retained"] = retained_fraction(stream, trace.threshold, params.burn_in)
        cols["topic"] = stream.extra["topic"][params.burn_in :]
    summary = run_summary(params, stream, cols)
    digest = _digest(params, stream)
    if digest is not None:  # one short cell instead of the whole list in every row
        cols["scores"] = np.full(trace.err.size, digest, dtype=object)
    import pandas as pd

    return SimulationOutput(pd.DataFrame(cols), summary)


class RecoveryParams(StreamParams):
    pass


def recovery(params: RecoveryParams, seed: int) -> SimulationOutput:
    """Recovery after each change point of the stream: a row per change point tau (stream index) with
    recovery = min r >= 0 such that |mean err over rounds tau+r .. tau+r+99 - alpha| <= 0.05 (censored when
    no window qualifies: r is then the number of windows left), and the post-shift deviation over the 300
    rounds after tau. Each row also carries the whole run's final coverage_gap and bound columns, so the
    run is held against its method's bound. A stream without change points gives one row with tau = -1."""
    from toolkit_pace.metrics import post_shift_deviation, recovery_times

    stream = build_stream(params, seed)
    trace = _trace(params, stream)
    cols = run_columns(params, stream, trace)
    final = {
        k: (v[-1].item() if hasattr(v[-1], "item") else v[-1])
        for k, v in cols.items()
        if k in ("n_rounds", "coverage_gap", "alpha_1", "gamma_max", "delta_l1", "box_width", "c_sat")
        or k in DTACI_COLUMNS
        or k in SFOGD_COLUMNS
    }
    cps = [c for c in stream.change_points if c >= params.burn_in]
    rows = []
    for tau, r, censored in recovery_times(cols["err"], params.alpha, [c - params.burn_in for c in cps]):
        rows.append(
            {
                "tau": tau + params.burn_in,
                "recovery": r,
                "censored": censored,
                "post_shift_deviation": post_shift_deviation(cols["err"], params.alpha, [tau]),
                **final,
            }
        )
    if not rows:
        rows.append(
            {"tau": -1, "recovery": math.nan, "censored": False, "post_shift_deviation": math.nan, **final}
        )
    summary = {
        "recovery_total": float(np.nansum([r["recovery"] for r in rows])),
        "censored": int(sum(r["censored"] for r in rows)),
        "n_change_points": len(cps),
        "long_run_deviation": final["coverage_gap"],
    }
    return SimulationOutput(rows, summary)


class FactualityParams(MethodParams):
    pass


def factuality(params: FactualityParams, seed: int) -> SimulationOutput:
    """The simulated LLM factuality stream: per round, the claims kept (confidence > q_t), whether a false one
    was kept (err), the topic; summary: coverage (1 - miscoverage), the mean retained fraction, its value per
    topic and the recovery after the topic switches."""
    p = StreamParams(**params.model_dump(), stream="llm_factuality")
    out = stream_run(p, seed)
    table = out.records
    summary = dict(out.summary)
    summary["coverage"] = 1 - summary["miscoverage"]
    for k, g in table.groupby("topic"):
        summary[f"retained_topic_{int(k)}"] = float(g["retained"].mean())
    return SimulationOutput(table.drop(columns=["stream"], errors="ignore"), summary)


def _plot_stream(table, fig):
    from toolkit_pace.metrics import forward_local

    ax = fig.add_subplot(111)
    keys = [
        c for c in ("method", "stream", "gamma0", "seed") if c in table.columns and table[c].nunique() > 1
    ]
    groups = table.groupby(keys) if keys else [("", table)]
    for key, g in groups:
        local = forward_local(g["err"].to_numpy(), 100)
        ax.plot(g["t"].to_numpy()[: local.size], local, label=str(key), lw=0.8)
    alpha = float(table["alpha"].iloc[0]) if "alpha" in table.columns else 0.1
    ax.axhline(alpha, color="k", ls="--", lw=0.8)
    ax.set_xlabel("round t")
    ax.set_ylabel("local miscoverage (next 100 rounds)")
    ax.legend(fontsize=7)


BOUND_NAMES = (
    "pace.aci_long_run",
    "pace.step_sequence",
    "pace.ledger",
    "pace.pid_integrator",
    "pace.dtaci_experts",
    "pace.sfogd_long_run",
)
DTACI_COLUMNS = ("expert_gap", "weight_variation", "gamma_min")
SFOGD_COLUMNS = ("score_max", "sf_scale", "warm_steps", "floor_rounds")
PACE_SIGNAL_COLUMNS = ("shift_signal", "gap_signal", "gamma_smooth")

SIMULATIONS = [
    Simulation(
        "pace.stream",
        stream_run,
        StreamParams,
        "one score stream under one online conformal method: per-round threshold, err, alpha_t, step, width",
        bounds=BOUND_NAMES,
        quick={"T": 600, "calibration_window": 200},
        plot=_plot_stream,
    ),
    Simulation(
        "pace.recovery",
        recovery,
        RecoveryParams,
        "recovery time and post-shift deviation after each change point of a stream",
        bounds=BOUND_NAMES,
        quick={"T": 800, "calibration_window": 200},
    ),
    Simulation(
        "pace.factuality",
        factuality,
        FactualityParams,
        "LLM factuality: retained claims vs coverage per round (claims kept when confidence > q_t)",
        bounds=BOUND_NAMES,
        quick={"T": 600, "calibration_window": 200},
        plot=_plot_stream,
    ),
]
