"""Ours beside the authors' released pipeline on asset, in one run: wall time, CPU time and peak memory of
each as a child process, and each method's mean absolute error.

    python plugins/care/benchmarks/against_authors.py --authors-src PATH --authors-python PY

PATH is a checkout of the authors' repository (kept outside this project; nothing of it is copied here) and
PY a Python with its requirements (their code needs numpy < 2.4 and pandas < 3). Three child processes run
one after the other with the same environment: the authors' ``scripts/fully_gaussian_main.py --seed SEED``
(every method of their table and CARE-SVD's gamma grid), then ``care.benchmark`` on asset with the same five
methods (majority vote, average, label model, UWS, CARE-SVD faithful), then ``care.benchmark`` with all its
methods. Ours run on a fresh, temporary run store, so nothing is served from a cache. Each child's CPU time
(user + system) and peak resident memory come from ``os.wait4``; the thread settings (``OMP_NUM_THREADS``
and the like) are inherited and printed, since the label models use torch and BLAS.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

SAME_METHODS = ("mv", "avg", "ws", "uws", "care_svd_faithful")
# the authors' names for the same five methods, in their results file
AUTHORS_NAMES = {"mv": "mv", "avg": "avg", "ws": "ws", "uws": "uws", "care_svd": "care_svd_faithful"}
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")

OURS_CHILD = """
import json, sys, toolkit
methods = json.loads(sys.argv[1])
params = {"dataset": "asset"} if methods is None else {"dataset": "asset", "methods": tuple(methods)}
table = toolkit.run("care.benchmark", params, seed=int(sys.argv[2]), store=sys.argv[3]).table
print(json.dumps({str(r["method"]): r["mae"] for r in table.to_dict("records")}))
"""


@dataclass(frozen=True)
class ChildCost:
    wall_s: float
    cpu_s: float
    peak_mib: float
    stdout: str


def measure(command: list[str], cwd: Path | None = None) -> ChildCost:
    """Run ``command`` as a child process; its wall and CPU seconds and peak resident memory."""
    with tempfile.TemporaryFile(mode="w+") as out, tempfile.TemporaryFile(mode="w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=err)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed ({child.returncode}):\n{err.read()[-3000:]}")
        # ru_maxrss is in KiB on Linux
        return ChildCost(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out.read())


def authors_errors(results_csv: Path) -> dict[str, float]:
    with results_csv.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    return {AUTHORS_NAMES[r["pred"]]: float(r["mae"]) for r in rows if r["pred"] in AUTHORS_NAMES}


def ours_errors(stdout: str) -> dict[str, float]:
    return {name: float(mae) for name, mae in json.loads(stdout.strip().splitlines()[-1]).items()}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--authors-src", type=Path, required=True, help="a checkout of the authors' repository"
    )
    parser.add_argument("--authors-python", type=Path, required=True, help="a Python with their requirements")
    parser.add_argument("--seed", type=int, default=2024, help="validation split seed (default: 2024)")
    args = parser.parse_args(argv)
    script = args.authors_src / "scripts" / "fully_gaussian_main.py"
    if not script.is_file():
        parser.error(f"--authors-src: {script} not found; give a checkout of the authors' repository")
    if not os.access(args.authors_python, os.X_OK):
        parser.error(f"--authors-python: {args.authors_python} is not an executable Python")

    threads = ", ".join(f"{name}={os.environ.get(name, 'unset')}" for name in THREAD_VARIABLES)
    print(f"asset, seed {args.seed}; {threads}")
    with tempfile.TemporaryDirectory() as tmp:
        theirs = measure(
            [str(args.authors_python), str(script), "--seed", str(args.seed), "--output-dir", tmp],
            cwd=args.authors_src,
        )
        their_mae = authors_errors(Path(tmp) / "fully_gaussian_main.csv")
        runs = {}
        for label, methods in (("same five methods", list(SAME_METHODS)), ("all methods", None)):
            store = str(Path(tmp) / f"runs-{len(runs)}.sqlite")
            command = [sys.executable, "-c", OURS_CHILD, json.dumps(methods), str(args.seed), store]
            runs[label] = measure(command)

    print("\n| pipeline | wall s | CPU s | peak MiB | CPU vs the authors' |")
    print("|---|---|---|---|---|")
    print(
        f"| authors' code, fully_gaussian_main.py | {theirs.wall_s:.1f} | {theirs.cpu_s:.1f} | {theirs.peak_mib:.0f} | 1 |"
    )
    for label, cost in runs.items():
        ratio = cost.cpu_s / theirs.cpu_s
        print(
            f"| ours, {label} | {cost.wall_s:.1f} | {cost.cpu_s:.1f} | {cost.peak_mib:.0f} | {ratio:.2f}x |"
        )

    ours_mae = ours_errors(runs["same five methods"].stdout)
    print("\n| method | MAE authors' code | MAE ours |")
    print("|---|---|---|")
    for method in SAME_METHODS:
        print(
            f"| {method} | {their_mae.get(method, float('nan')):.3f} | {ours_mae.get(method, float('nan')):.3f} |"
        )


if __name__ == "__main__":
    main()
