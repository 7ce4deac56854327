"""Table and log-scale figure of C(H_n) and of the measured worst-case sample complexity against n.

    OMP_NUM_THREADS=1 python plugins/langgen/studies/langgen_closure_dimension.py [--out results/langgen] [--full]

Writes closure_dimension.csv, sample_complexity.csv and closure_dimension.png to --out.
Counting class H_m (n = m + 2 DFA states), DFA_n (exact for n <= 2, certified lower bounds beyond),
LTT(k, t) (exact by profile classes), strictly local / CFG witness families (lower bounds).
"""

from __future__ import annotations

import argparse
from math import comb
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

import toolkit
from toolkit.argtypes import add_run_options


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="results/langgen", help="output folder (default results/langgen)")
    ap.add_argument(
        "--full", action="store_true", help="larger ranges (m <= 3 races, LTT up to (3,1), (2,2))"
    )
    add_run_options(ap, executors=("serial",))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    from toolkit_langgen.closure import dfa_class, ltt_closure_dimension, pairwise_lower_bound

    rows = []
    for m in range(6 if args.full else 4):
        rows.append({"class": "counting H_m", "n": m + 2, "C": comb(2 * m + 2, m + 1) - 1, "kind": "exact"})
    cd = toolkit.sweep(
        "langgen.closure_dimension", grid={"n": [1, 2, 3]}, params={"family": "dfa"}, store=args.store
    ).table
    for _, r in cd.iterrows():
        rows.append(
            {
                "class": "DFA_n",
                "n": int(r.n),
                "C": int(r.closure_dimension),
                "kind": f"{r.status} (power-free closed sets)",
            }
        )
    pair = pairwise_lower_bound(dfa_class(3))["lower_bound"]
    assert pair <= int(cd.set_index("n").loc[3, "closure_dimension"]), "pair bound above the exact value"
    rows.append({"class": "DFA_n", "n": 4, "C": comb(6, 3) - 1, "kind": "lower bound (counting family)"})
    for k, t in [(1, 1), (1, 2), (1, 3), (2, 1), (2, 2), (3, 1)] if args.full else [(1, 1), (1, 2), (2, 1)]:
        info = ltt_closure_dimension(k, t)
        rows.append({"class": f"LTT(k,{t})", "n": k, "C": info["closure_dimension"], "kind": "exact"})
    table = pd.DataFrame(rows)
    table.to_csv(out / "closure_dimension.csv", index=False)

    ms = list(range(4 if args.full else 3))
    race = toolkit.sweep(
        "langgen.generator_race",
        grid={"m": ms, "generator": ["closure", "km", "greedy"]},
        params={"adversary": "intersection_first"},
        store=args.store,
    ).table
    race = race[["m", "generator", "closure_dimension", "worst_first_correct"]]
    race.to_csv(out / "sample_complexity.csv", index=False)

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for name, grp in table.groupby("class"):
        ax1.plot(grp.n, grp.C.clip(lower=0.5), "o-", label=name)
    ax1.set_yscale("log")
    ax1.set_xlabel("size n (states / window k)")
    ax1.set_ylabel("C(H_n) (exact or lower bound)")
    ax1.legend()
    for g, grp in race.groupby("generator"):
        ax2.plot(grp.m + 2, grp.worst_first_correct, "o--", label=g)
    ax2.plot(race.m.unique() + 2, [comb(2 * m + 2, m + 1) for m in race.m.unique()], "k:", label="C(H)+1")
    ax2.set_yscale("log")
    ax2.set_xlabel("DFA states n = m + 2 (counting class)")
    ax2.set_ylabel("worst-case samples until correct")
    ax2.legend()
    fig.tight_layout()
    fig.savefig(out / "closure_dimension.png", dpi=120)
    print(table.to_string(index=False))
    print(race.to_string(index=False))
    print(f"wrote {out}/closure_dimension.csv, sample_complexity.csv, closure_dimension.png")


if __name__ == "__main__":
    main()
