"""The example plugin's simulations: parameter models, run functions and the SIMULATIONS list."""

from __future__ import annotations

import numpy as np

from toolkit import Field, Params, Simulation, SimulationOutput
from toolkit_example.walks import positions_and_range, walk_steps


class WalkParams(Params):
    n_steps: int = Field(100, ge=1, le=10_000_000, description="number of +-1 steps")
    p: float = Field(0.5, ge=0.0, le=1.0, description="probability of a +1 step")
    record_every: int = Field(10, ge=1, description="keep every k-th position as a row")


def random_walk(params: WalkParams, seed: int) -> SimulationOutput:
    """A simple random walk S_t = X_1 + ... + X_t with P(X = +1) = p.

    Rows: every ``record_every``-th step and the last, with the position and the running maximum of |S|.
    """
    rng = np.random.default_rng(seed)
    path, running = positions_and_range(walk_steps(params.n_steps, params.p, rng))
    idx = np.union1d(
        np.arange(params.record_every - 1, params.n_steps, params.record_every), [params.n_steps - 1]
    )
    records = [{"step": int(i + 1), "position": int(path[i]), "max_abs": int(running[i])} for i in idx]
    return SimulationOutput(
        records,
        summary={
            "final": int(path[-1]),
            "max_abs": int(running[-1]),
            "drift": float(path[-1] / params.n_steps),
        },
    )


class SquareParams(Params):
    x: float = Field(1.0, description="the number to square")
    delay_s: float = Field(0.0, ge=0.0, le=10.0, description="seconds to wait (stands in for real work)")
    log_path: str = Field("", description="append a line per computation to this file (shows recomputation)")
    fail_at: list[float] = Field(
        default_factory=list, description="x values that raise (tests of failed points)"
    )
    fail_flag: str = Field("", description="raise at fail_at only while this file exists (empty: always)")
    started_path: str = Field(
        "", description="append a line to this file when a computation starts (shows it runs)"
    )


def slow_square(params: SquareParams, seed: int) -> dict:
    """x**2 after a delay; busy-waits so that it uses a core like real work does."""
    import os
    import time

    if params.started_path:
        with open(params.started_path, "a") as fh:
            fh.write(f"{params.x},{seed}\n")
    end = time.perf_counter() + params.delay_s
    while time.perf_counter() < end:
        pass
    if params.x in params.fail_at and (not params.fail_flag or os.path.exists(params.fail_flag)):
        raise ValueError(f"x = {params.x} is in fail_at")
    if params.log_path:
        with open(params.log_path, "a") as fh:
            fh.write(f"{params.x},{seed}\n")
    return {"square": params.x**2, "seed_echo": seed}


def plot_walk(table, fig) -> None:
    ax = fig.add_subplot()
    for seed, group in table.groupby("seed"):
        ax.plot(group["step"], group["position"], lw=0.8, label=f"seed {seed}")
    ax.set_xlabel("step")
    ax.set_ylabel("position")


SIMULATIONS = [
    Simulation(
        name="example.random_walk",
        func=random_walk,
        params=WalkParams,
        description="simple random walk positions and range",
        bounds=("example.walk_range",),  # rows are checked against this bound
        quick={"n_steps": 200},  # a fast setting for the harness
        plot=plot_walk,
    ),  # plot(table, figure) for `toolkit report`
    Simulation(
        name="example.slow_square",
        func=slow_square,
        params=SquareParams,
        description="x squared after a delay (for tests and benchmarks of the runner)",
    ),
]
