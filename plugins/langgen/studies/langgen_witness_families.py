"""Witness families: brute-force |∩F| against the closed forms, on a log scale.

    OMP_NUM_THREADS=1 python plugins/langgen/studies/langgen_witness_families.py [--out results/langgen]

Writes witness_families.csv and witness_families.png; bounds are checked by the runner.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import toolkit
from toolkit.argtypes import add_run_options

GRID = {
    "counting": [0, 1, 2, 3, 4, 5],
    "counting3": [0, 1, 2],
    "ltt_threshold": [1, 2, 3, 4, 5],
    "sl_staircase": [2, 3, 4, 5, 6],
    "cfg_power": [1, 2, 3, 4],
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="results/langgen", help="output folder (default results/langgen)")
    add_run_options(ap, executors=("serial",))
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tables = []
    for family, params in GRID.items():
        res = toolkit.sweep(
            "langgen.witness_family", grid={"param": params}, params={"family": family}, store=args.store
        )
        tables.append(res.table)
        bad = res.checks[res.checks.holds == False] if len(res.checks) else res.checks  # noqa: E712
        if len(bad):
            print(f"BOUND VIOLATIONS for {family}:\n{bad}")
    import pandas as pd

    table = pd.concat(tables, ignore_index=True)[
        ["family", "param", "max_size", "intersection_size", "closed_form", "matches", "evidence"]
    ]
    table.to_csv(out / "witness_families.csv", index=False)
    fig, ax = plt.subplots(figsize=(6, 4))
    for family, grp in table.groupby("family"):
        ax.plot(grp.max_size, grp.intersection_size, "o-", label=family)
    ax.set_yscale("log")
    ax.set_xlabel("largest member size (DFA states / grammar variables)")
    ax.set_ylabel("|∩F| (lower bound on C(H_n))")
    ax.legend()
    fig.tight_layout()
    fig.savefig(out / "witness_families.png", dpi=120)
    print(table.drop(columns="evidence").to_string(index=False))
    print(f"wrote {out}/witness_families.csv, witness_families.png")


if __name__ == "__main__":
    main()
