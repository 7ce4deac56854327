"""An example third-party plugin: simple random walks, their range bound, and a headline experiment.

It is what ``docs/writing-plugins.md`` walks through; the core's tests install it by putting this
folder (with its ``.dist-info``) on ``sys.path``.
"""

from __future__ import annotations

import click
import numpy as np
import sympy

import toolkit
from toolkit import Bound, Comparison, Dataset, Experiment, ExperimentOutcome, Simulation, SimulationOutput
from toolkit.config import Field, Params
from toolkit.symbolic import Asymptotic, Identity, Inequality

__version__ = "0.3.0"

EVENTS: list[str] = []  # notifications received, for the tests of toolkit_run_finished


class WalkParams(Params):
    n_steps: int = Field(100, ge=1, le=10_000_000, description="number of +-1 steps")
    p: float = Field(0.5, ge=0.0, le=1.0, description="probability of a +1 step")
    record_every: int = Field(10, ge=1, description="keep every k-th position as a row")


def random_walk(params: WalkParams, seed: int) -> SimulationOutput:
    """A simple random walk S_t = X_1 + ... + X_t with P(X = +1) = p.

    Rows: every ``record_every``-th step and the last, with the position and the running maximum of |S|.
    """
    rng = np.random.default_rng(seed)
    steps = np.where(rng.random(params.n_steps) < params.p, 1, -1)
    path = np.cumsum(steps)
    running = np.maximum.accumulate(np.abs(path))
    idx = np.union1d(np.arange(params.record_every - 1, params.n_steps, params.record_every), [params.n_steps - 1])
    records = [{"step": int(i + 1), "position": int(path[i]), "max_abs": int(running[i])} for i in idx]
    return SimulationOutput(records, summary={"final": int(path[-1]), "max_abs": int(running[-1]),
                                              "drift": float(path[-1] / params.n_steps)})


class SquareParams(Params):
    x: float = Field(1.0, description="the number to square")
    delay_s: float = Field(0.0, ge=0.0, le=10.0, description="seconds to wait (stands in for real work)")
    log_path: str = Field("", description="append a line per computation to this file (shows recomputation)")
    fail_at: list[float] = Field(default_factory=list, description="x values that raise (tests of failed points)")
    fail_flag: str = Field("", description="raise at fail_at only while this file exists (empty: always)")


def slow_square(params: SquareParams, seed: int) -> dict:
    """x**2 after a delay; busy-waits so that it uses a core like real work does."""
    import os
    import time

    end = time.perf_counter() + params.delay_s
    while time.perf_counter() < end:
        pass
    if params.x in params.fail_at and (not params.fail_flag or os.path.exists(params.fail_flag)):
        raise ValueError(f"x = {params.x} is in fail_at")
    if params.log_path:
        with open(params.log_path, "a") as fh:
            fh.write(f"{params.x},{seed}\n")
    return {"square": params.x ** 2, "seed_echo": seed}


def plot_walk(table, fig) -> None:
    ax = fig.add_subplot()
    for seed, group in table.groupby("seed"):
        ax.plot(group["step"], group["position"], lw=0.8, label=f"seed {seed}")
    ax.set_xlabel("step")
    ax.set_ylabel("position")


n, t, p = sympy.symbols("n_steps t p", positive=True)
step = sympy.Symbol("step", positive=True, integer=True)

WALK_RANGE = Bound(
    name="example.walk_range",
    description="|S_t| <= t: a walk of t unit steps cannot go further than t",
    expression=step,
    metric="max_abs",
    sense="upper",
    claims=(
        Identity("mean of S_n", lhs=n * (p * 1 + (1 - p) * (-1)), rhs=n * (2 * p - 1), domain={p: (0, 1)}),
        Inequality("Hoeffding tail is a probability", lhs=sympy.exp(-t**2 / (2 * n)), rhs=1, relation="<="),
        Asymptotic("typical range is o(n)", f=sympy.sqrt(n * sympy.log(n)), g=n, var=n, order="o"),
    ),
)


def _walk_experiment(quick: bool) -> ExperimentOutcome:
    """Mean drift of the walk over seeds vs the exact mean 2p - 1."""
    n_seeds = 10 if quick else 200
    rows = []
    for seed in range(n_seeds):
        out = random_walk(WalkParams(n_steps=1000, p=0.7), seed)
        rows.append({"seed": seed, **out.summary})
    import pandas as pd

    table = pd.DataFrame(rows)
    drift = table["drift"].mean()

    def plot(fig) -> None:
        ax = fig.add_subplot()
        ax.hist(table["drift"], bins=20)
        ax.axvline(0.4, color="k", ls="--", label="2p - 1")
        ax.legend()

    return ExperimentOutcome(
        table=table,
        comparisons=[Comparison("mean drift of a p=0.7 walk", "2p - 1 = 0.4", f"{drift:.3f}", abs(drift - 0.4) < 0.05)],
        plot=plot,
    )


def _range_experiment(quick: bool) -> ExperimentOutcome:
    """E max_k |S_k| / sqrt(n) -> E sup_[0,1] |B_t| = sqrt(pi/2) for a symmetric walk."""
    import pandas as pd

    n_seeds, n_steps = (60, 2000) if quick else (1000, 20000)
    table = pd.DataFrame([{"seed": s, **random_walk(WalkParams(n_steps=n_steps), s).summary} for s in range(n_seeds)])
    ratio = table["max_abs"].mean() / np.sqrt(n_steps)
    return ExperimentOutcome(
        table=table,
        comparisons=[Comparison("E max|S_k| / sqrt(n)", "sqrt(pi/2) = 1.2533", f"{ratio:.3f}", abs(ratio - 1.2533) < 0.2)],
    )


def make_steps(n_steps: int = 10, p: float = 0.5, seed: int = 0) -> np.ndarray:
    """The +-1 steps of a walk (a dataset other plugins' users can load)."""
    rng = np.random.default_rng(seed)
    return np.where(rng.random(n_steps) < p, 1, -1)


class StepsParams(Params):
    n_steps: int = Field(10, ge=1)
    p: float = Field(0.5, ge=0, le=1)
    seed: int = Field(0, ge=0)


@toolkit.hookimpl
def toolkit_register_simulations():
    return [Simulation(name="example.random_walk", func=random_walk, params=WalkParams,
                       description="simple random walk positions and range", bounds=("example.walk_range",),
                       quick={"n_steps": 200}, plot=plot_walk),
            Simulation(name="example.slow_square", func=slow_square, params=SquareParams,
                       description="x squared after a delay (for tests and benchmarks of the runner)")]


@toolkit.hookimpl
def toolkit_register_bounds():
    return [WALK_RANGE]


@toolkit.hookimpl
def toolkit_register_datasets():
    return [Dataset(name="example.steps", description="+-1 steps of a random walk", loader=make_steps, params=StepsParams)]


@toolkit.hookimpl
def toolkit_register_experiments():
    return [Experiment(name="example.drift", description="Mean drift of a biased walk equals 2p - 1.", run=_walk_experiment),
            Experiment(name="example.range", description="The range of a symmetric walk grows like sqrt(pi n / 2).",
                       run=_range_experiment)]


@toolkit.hookimpl
def toolkit_register_commands(cli):
    @cli.command("example-hello")
    @click.option("--name", default="world")
    def hello(name):
        """Say hello (a command added by the example plugin)."""
        click.echo(f"hello {name} from the example plugin")


@toolkit.hookimpl
def toolkit_configure(settings):
    EVENTS.append(f"configured:{settings.store_path.name}")


@toolkit.hookimpl
def toolkit_run_finished(result):
    EVENTS.append(f"finished:{result.simulation}:{result.seed}")


@toolkit.hookimpl
def toolkit_addhooks(pluginmanager):
    from toolkit_example import hookspecs

    pluginmanager.add_hookspecs(hookspecs)
