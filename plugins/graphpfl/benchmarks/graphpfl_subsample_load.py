"""CPU time to get the subsampled graphs of a TU dataset in a fresh process: only the kept graphs built
(what ``subsample`` does) vs the whole dataset built, then subset (what it did before 2026-12-02).

    python plugins/graphpfl/benchmarks/graphpfl_subsample_load.py --dataset NCI1 --subsample 1000 --repeats 3

Each measurement is its own interpreter (the parsed files are cached per process), the two ways alternated;
the time counts the loading of the seeds' subsamples only, not the imports. Needs the dataset under
TOOLKIT_DATA_DIR.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

_CHILD = """
import sys, time
from toolkit_graphpfl.data import load_tu
from toolkit_graphpfl.simulation import NoiseRobustnessParams, _subsample, load_named
way, name, n, seeds = sys.argv[1], sys.argv[2], int(sys.argv[3]), [int(s) for s in sys.argv[4].split(",")]
params = NoiseRobustnessParams(dataset=name, subsample=n)
t = time.process_time()
for seed in seeds:
    gs = load_named(name, params, seed) if way == "kept-only" else _subsample(load_tu(name), n, seed, 0)
print(time.process_time() - t)
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", default="NCI1")
    parser.add_argument("--subsample", type=int, default=1000)
    parser.add_argument("--seeds", default="20,21", help="comma list: the subsamples loaded per process")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.subsample < 1:
        parser.error("--repeats and --subsample must be >= 1")
    times: dict[str, list[float]] = {"full-then-subset": [], "kept-only": []}
    for _ in range(args.repeats):
        for way in times:
            out = subprocess.run(
                [sys.executable, "-c", _CHILD, way, args.dataset, str(args.subsample), args.seeds],
                capture_output=True,
                text=True,
            )
            if out.returncode:
                sys.stderr.write(out.stderr)
                return out.returncode
            times[way].append(float(out.stdout.strip()))
    for way, ts in times.items():
        print(
            f"{way:>17}: "
            + " / ".join(f"{t:.2f}" for t in ts)
            + f" s CPU ({args.dataset}, {args.subsample} graphs, "
            f"seeds {args.seeds}, one fresh process each)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
