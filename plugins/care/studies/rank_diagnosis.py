"""The rank of L on simulated votes: eigenvalues of the principled CARE-SVD's L and its error, per correlation.

    python plugins/care/studies/rank_diagnosis.py --seeds 0:5                # the seeds of the results page
    python plugins/care/studies/rank_diagnosis.py --seeds 100:110 --strengths 0,1   # fresh seeds
    python plugins/care/studies/rank_diagnosis.py --seeds 200:210 --tasks binary,pairwise,continuous \
        --strengths 0,1 --corrs pearson --selections gamma,penalty_and_rank   # the two selection rules

N = 1000 items, one confounder, 2 anchor judges with no leak, 20 judges on the binary and pairwise tasks (10 on
the continuous one). For each table: the principled CARE-SVD with the Pearson and with the tetrachoric
correlation (``corr``), with gamma alone or gamma, the penalty level and the rank chosen by held-out likelihood
(``selection``), its chosen gamma and level, the rank of L, the top 4 eigenvalues of L
(as shares of the largest), and the errors of the mean and the one-factor model beside it. Each (task, strength,
corr, seed) is one point of ``toolkit.sweep`` in the store (``TOOLKIT_STORE``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Literal

import numpy as np
import pandas as pd
from toolkit_care.simulation import SOLVER_PACKAGES

import toolkit
from toolkit import Simulation
from toolkit.argtypes import add_run_options, open_run_store
from toolkit.argtypes import seeds as seed_type
from toolkit.config import Field, Params


class RankParams(Params):
    task: Literal["continuous", "binary", "pairwise"] = Field("binary", description="what the judges report")
    strength: float = Field(1.0, ge=0, description="confounder strength")
    corr: Literal["pearson", "tetrachoric"] = Field("pearson", description="CARE-SVD's correlation")
    selection: Literal["gamma", "penalty_and_rank"] = Field(
        "gamma",
        description="gamma alone at the published penalty level, rank by eigengap; or gamma and the penalty "
        "level, then the rank, by held-out likelihood",
    )
    n_items: int = Field(1000, ge=20, description="items (pairs)")


def point(params: RankParams, seed: int) -> pd.DataFrame:
    from toolkit_care import aggregators as ag
    from toolkit_care.care_svd import SCALE_GRID, CareSVD
    from toolkit_care.model import error, make_model, simulate

    J = 10 if params.task == "continuous" else 20
    model = make_model(J, 1, params.strength, 2, 0.0, seed)
    s = simulate(model, params.n_items, params.task, seed)
    kind = ag.CONTINUOUS if params.task == "continuous" else ag.BINARY
    corr = "pearson" if params.task == "continuous" else params.corr
    agg = CareSVD(
        "principled",
        anchors=(0, 1),
        task=kind,
        seed=seed,
        gamma_grid=(0.25, 1, 3, 10),
        scale_grid=SCALE_GRID if params.selection == "penalty_and_rank" else (1,),
        rank_by="heldout" if params.selection == "penalty_and_rank" else "eigengap",
        max_iters=2000,
        corr=corr,
    ).fit(s.votes)
    ev = np.sort(np.linalg.eigvalsh(agg.L_))[::-1]
    base = {
        "mean": error(params.task, ag.Mean(task=kind).fit_predict(s.votes), s.truth),
        "one_factor": error(
            params.task, ag.FactorAggregator(1, task=kind, seed=seed).fit_predict(s.votes), s.truth
        ),
    }
    care = error(params.task, agg.predict(s.votes), s.truth)
    return pd.DataFrame(
        [
            {
                "gamma": agg.gamma_,
                "scale": agg.scale_,
                "rank": agg.rank_,
                "ev1": ev[0],
                **{f"ev{i + 1}_share": ev[i] / ev[0] if ev[0] > 0 else np.nan for i in range(1, 4)},
                "error_mean": base["mean"],
                "error_one_factor": base["one_factor"],
                "error_care_svd": care,
                "cut": 1 - care / min(base.values()),
            }
        ]
    )


RANK = Simulation(
    "care_study.rank_diagnosis",
    point,
    RankParams,
    "principled CARE-SVD on simulated votes: rank of L, its eigenvalues and the error, per correlation",
    version="2",
    keyed_packages=SOLVER_PACKAGES,
)


def main(argv=None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=seed_type, default="0:5", help="the CLI's seed syntax: 0:5, 1,2,3")
    ap.add_argument("--tasks", default="binary,pairwise")
    ap.add_argument("--strengths", default="1")
    ap.add_argument("--corrs", default="pearson,tetrachoric")
    ap.add_argument("--selections", default="gamma", help="gamma, penalty_and_rank or both (comma-separated)")
    add_run_options(ap)
    args = ap.parse_args(argv)
    res = toolkit.sweep(
        RANK,
        {
            "task": args.tasks.split(","),
            "strength": [float(x) for x in args.strengths.split(",")],
            "corr": args.corrs.split(","),
            "selection": args.selections.split(","),
        },
        seeds=args.seeds,
        check=False,
        store=open_run_store(args.store).path,
        executor=args.executor,
    )
    return res.table


if __name__ == "__main__":
    main().to_csv(sys.stdout, index=False, float_format="%.4g")
