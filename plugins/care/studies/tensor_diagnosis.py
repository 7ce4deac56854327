"""Why CARE-Tensor faithful scores higher here than the authors' code on civilcomments: one step at a time.

    python plugins/care/studies/tensor_diagnosis.py --authors-src PATH [--seeds 42,2024,7]

PATH is the ``src`` folder of a checkout of the authors' repository (SprocketLab/CARE at commit 72f5b29), kept
outside this project: its modules are imported from there at run time, nothing of it is copied. Its top-level
import of snorkel (used only by its label model, not here) is satisfied by an empty stand-in, and its ``float``
of one-element arrays is given the element, as numpy before 2.4 did.

The pipeline (lam_L = 1e-3, every lam_S, the oracle prior, the choice by validation accuracy on the 15% split)
has four steps, and each can run as ours or as the authors' code does it:

- ``precision``: ours solves each (lam_S, lam_L) from a cold start; the authors' code keeps one cvxpy problem
  and warm-starts SCS from the previous grid point's solution (both stop at 2,000 iterations, eps 1e-4).
- ``groups``: the three views from S (ours: ``three_groups``; theirs: ``find_three_groups_auto``).
- ``tensor``: the multi-view decomposition (ours: ``decompose_views``, numpy's Generator; theirs:
  ``mixture_tensor_decomp_full`` with the global legacy generator seeded with the seed).
- the posteriors, the "Q = 1" components and the oracle threshold are the same rule in both and stay ours.

``swap`` names the steps run the authors' way ("none": ours end to end). Each (swap, seed) is one point of
``toolkit.sweep`` in the store; the table has the test accuracy, the chosen lam_S, the views, the mixture's rank
and its moment error.
"""

from __future__ import annotations

import argparse
import sys
import types

import numpy as np
import pandas as pd
from toolkit_care.simulation import SOLVER_PACKAGES

import toolkit
from toolkit import Simulation
from toolkit.argtypes import add_run_options, open_run_store
from toolkit.config import Field, Params

SWAPS = ("none", "precision", "groups", "tensor", "groups+tensor", "precision+groups", "all")


class DiagParams(Params):
    swap: str = Field("none", description=f"steps run the authors' way: one of {SWAPS}")
    authors_src: str = Field("", description="the src folder of the authors' checkout")


def _authors(src: str):
    if "snorkel" not in sys.modules:  # their module imports it at the top; only their label model uses it
        for name in ("snorkel", "snorkel.labeling", "snorkel.labeling.model"):
            sys.modules[name] = types.ModuleType(name)
        sys.modules["snorkel.labeling.model"].LabelModel = None  # type: ignore[attr-defined]
    if src not in sys.path:
        sys.path.insert(0, src)
    import pgm_tools
    import tensor_decomp

    # their code calls float() on 1-element arrays, which numpy >= 2.4 refuses; older numpy took the element
    tensor_decomp.float = lambda x: float(np.asarray(x).reshape(-1)[0])  # type: ignore[attr-defined]
    return pgm_tools, tensor_decomp


def point(params: DiagParams, seed: int) -> pd.DataFrame:
    from toolkit_care import data
    from toolkit_care.care_tensor import LAM_GRID
    from toolkit_care.evaluate import civil_split
    from toolkit_care.precision import decompose
    from toolkit_care.tensor import Mixture, decompose_views, posteriors, three_groups

    if params.swap not in SWAPS:
        raise ValueError(f"swap must be one of {SWAPS}, got {params.swap!r}")
    theirs = (
        set()
        if params.swap == "none"
        else set(params.swap.replace("all", "precision+groups+tensor").split("+"))
    )
    pgm, td = _authors(params.authors_src) if theirs else (None, None)
    table = data.load_civilcomments()
    X, y = table.X, table.labels
    n, p = X.shape
    val, test = civil_split(y, seed)
    rate = float(np.mean(y))
    sigma = np.cov(X, rowvar=False)
    if "tensor" in theirs:
        np.random.seed(seed)  # the authors' script seeds the global generator once, before the grid
    problem = (
        pgm.PrecisionProblem(sigma, solver_kwargs={"max_iters": 2000, "eps": 1e-4, "verbose": False})
        if "precision" in theirs
        else None
    )
    cache: dict = {}
    rows = []
    for lam_S in LAM_GRID:
        lam_L = 1e-3
        if problem is not None:
            S, L, _ = problem.solve(lam_S=lam_S, lam_L=lam_L)
        else:
            S, L = decompose(sigma, lam_S=lam_S, lam_L=lam_L, max_iters=2000, eps=1e-4)
        g = pgm.find_three_groups_auto(S) if "groups" in theirs else three_groups(S)
        groups = tuple(tuple(int(i) for i in x) for x in g[:3])
        if groups not in cache:
            views = [X[:, list(x)] for x in groups]
            mixes = []
            for k in (4, 5, 6, 7):
                if "tensor" in theirs:
                    w, m1, m2, m3 = td.mixture_tensor_decomp_full(
                        np.ones(n) / n,
                        *(v.T for v in views),
                        k=k,
                        max_iters=6,
                        early_stop_patience=50,
                        improvement_tol=1e-3,
                    )
                    T = np.einsum("ni,nj,nk->ijk", *views) / n
                    err = td.mse_perm(T, np.einsum("i,ji,ki,li->jkl", w, m1, m2, m3))
                    mixes.append(Mixture(k, np.asarray(w), (m1, m2, m3), float(err)))
                else:
                    mixes.append(decompose_views(*views, k, seed=seed, repeats=6, restarts=1000))
            cache[groups] = min(mixes, key=lambda m: m.error)
        mix = cache[groups]
        ev, V = np.linalg.eigh(L)
        v = V[:, int(np.argmax(ev))]
        v = -v if v.sum() < 0 else v
        mu = np.zeros((p, mix.rank))
        for x, m in zip(groups, mix.means):
            mu[list(x)] = m
        s = v @ mu
        q1 = np.flatnonzero(s >= np.median(s))
        if q1.size in (0, mix.rank):
            q1 = np.array([int(np.argmax(s))])
        prob = posteriors(mix, [X[:, list(x)] for x in groups])[q1].sum(axis=0)
        pred = (prob > np.percentile(prob, 100.0 * (1.0 - rate))).astype(int)
        rows.append(
            {
                "lam_S": lam_S,
                "lam_L": lam_L,
                "val_accuracy": float(np.mean(pred[val] == y[val])),
                "test_accuracy": float(np.mean(pred[test] == y[test])),
                "groups": "|".join(",".join(map(str, x)) for x in groups),
                "rank": mix.rank,
                "moment_error": mix.error,
                "q1": ",".join(map(str, q1)),
                "rank_L": int(np.sum(np.linalg.eigvalsh(L) > 1e-3 * max(np.linalg.eigvalsh(L).max(), 1e-12))),
            }
        )
    out = pd.DataFrame(rows)
    best = out["val_accuracy"].to_numpy().argmax()  # the first best, as both pipelines choose
    return out.assign(chosen=np.arange(len(out)) == best)


DIAGNOSIS = Simulation(
    "care_study.tensor_diagnosis",
    point,
    DiagParams,
    "CARE-Tensor faithful on civilcomments with chosen steps run the authors' way",
    version="1",
    keyed_packages=SOLVER_PACKAGES,
)


def main(argv=None) -> pd.DataFrame:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--authors-src", required=True, help="src folder of the authors' checkout (72f5b29)")
    ap.add_argument("--seeds", default="42", help="comma-separated seeds (default 42)")
    ap.add_argument("--swaps", default=",".join(SWAPS), help=f"comma-separated, from {', '.join(SWAPS)}")
    add_run_options(ap)
    args = ap.parse_args(argv)
    swaps = args.swaps.split(",")
    bad = sorted(set(swaps) - set(SWAPS))
    if bad:
        ap.error(f"--swaps: unknown {', '.join(bad)}; choose from {', '.join(SWAPS)}")
    res = toolkit.sweep(
        DIAGNOSIS,
        {"swap": swaps},
        seeds=[int(s) for s in args.seeds.split(",")],
        params={"authors_src": args.authors_src},
        check=False,
        store=open_run_store(args.store).path,
        executor=args.executor,
    )
    return res.table


if __name__ == "__main__":
    main().to_csv(sys.stdout, index=False, float_format="%.4g")
