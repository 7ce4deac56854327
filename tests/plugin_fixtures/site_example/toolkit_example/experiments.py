"""The example plugin's headline experiments, run by ``toolkit reproduce``."""

from __future__ import annotations

import numpy as np
import pandas as pd

from toolkit import Comparison, Experiment, ExperimentOutcome
from toolkit_example.simulation import WalkParams, random_walk


def walk_drift(quick: bool) -> ExperimentOutcome:
    """Mean drift of the walk over seeds vs the exact mean 2p - 1."""
    n_seeds = 10 if quick else 200
    table = pd.DataFrame(
        [{"seed": s, **random_walk(WalkParams(n_steps=1000, p=0.7), s).summary} for s in range(n_seeds)]
    )
    drift = table["drift"].mean()

    def plot(fig) -> None:
        ax = fig.add_subplot()
        ax.hist(table["drift"], bins=20)
        ax.axvline(0.4, color="k", ls="--", label="2p - 1")
        ax.legend()

    return ExperimentOutcome(
        table=table,
        comparisons=[
            Comparison("mean drift of a p=0.7 walk", "2p - 1 = 0.4", f"{drift:.3f}", abs(drift - 0.4) < 0.05)
        ],
        plot=plot,
    )


def walk_range(quick: bool) -> ExperimentOutcome:
    """E max_k |S_k| / sqrt(n) -> E sup_[0,1] |B_t| = sqrt(pi/2) for a symmetric walk."""
    n_seeds, n_steps = (60, 2000) if quick else (1000, 20000)
    table = pd.DataFrame(
        [{"seed": s, **random_walk(WalkParams(n_steps=n_steps), s).summary} for s in range(n_seeds)]
    )
    ratio = table["max_abs"].mean() / np.sqrt(n_steps)
    return ExperimentOutcome(
        table=table,
        comparisons=[
            Comparison(
                "E max|S_k| / sqrt(n)", "sqrt(pi/2) = 1.2533", f"{ratio:.3f}", abs(ratio - 1.2533) < 0.2
            )
        ],
    )


EXPERIMENTS = [
    Experiment(
        name="example.drift", description="Mean drift of a biased walk equals 2p - 1.", run=walk_drift
    ),
    Experiment(
        name="example.range",
        description="The range of a symmetric walk grows like sqrt(pi n / 2).",
        run=walk_range,
    ),
]
