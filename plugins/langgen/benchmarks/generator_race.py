"""Cost of ``langgen.generator_race`` against ``langgen.closure_dimension`` on a user class of 12 DFAs.

The class (regular expressions over {a, b}): exactly 5 a's; exactly 6 b's; exactly 4 a's; exactly 5 b's;
starts with a; ends with b; contains ab; even length; all words; starts with b; ends with a; contains bb.
Its closure dimension is C = 462 (the words with 5 a's and 6 b's), so the race runs C + 1 + 10 = 473 samples
on each of the 12 targets. The target: the race (closure generator, intersection-first adversary) within 5x
of the closure-dimension search on the same class.

    python plugins/langgen/benchmarks/generator_race.py [--repeats 1]

Each timing runs in a fresh process (no cache carries over from the other computation) and counts its
CPU time, which a busy machine disturbs less than wall time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

MEMBERS = (
    "b*ab*ab*ab*ab*ab*",
    "a*ba*ba*ba*ba*ba*ba*",
    "b*ab*ab*ab*ab*",
    "a*ba*ba*ba*ba*ba*",
    "a(a|b)*",
    "(a|b)*b",
    "(a|b)*ab(a|b)*",
    "((a|b)(a|b))*",
    "(a|b)*",
    "b(a|b)*",
    "(a|b)*a",
    "(a|b)*bb(a|b)*",
)
LANGUAGES = "regex: " + " ; ".join(MEMBERS)
TARGET_RATIO = 5.0

_CHILD = """
import json, sys, time
from toolkit_langgen import simulation as sims
what, languages = sys.argv[1], sys.argv[2]
t0, c0 = time.perf_counter(), time.process_time()
if what == "closure_dimension":
    out = sims.closure_dimension_run(sims.ClosureDimensionParams(family="user", languages=languages), 0)
else:
    out = sims.generator_race(sims.GeneratorRaceParams(language_class="user", languages=languages), 0)
seconds, wall = time.process_time() - c0, time.perf_counter() - t0
summary = {k: v for k, v in out.summary.items() if k != "languages"}
print(json.dumps({"seconds": seconds, "wall": wall, "summary": summary}))
"""


def timed(what: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, what, LANGUAGES], check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--repeats", type=int, default=1, help="timings of each computation (the best is kept)"
    )
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error(f"--repeats must be >= 1, got {args.repeats}")
    best = {}
    for what in ("closure_dimension", "generator_race"):
        runs = [timed(what) for _ in range(args.repeats)]
        best[what] = min(runs, key=lambda r: r["seconds"])
        r = best[what]
        print(f"{what}: {r['seconds']:.2f} CPU-s ({r['wall']:.2f} s wall)  {r['summary']}", flush=True)
    ratio = best["generator_race"]["seconds"] / best["closure_dimension"]["seconds"]
    verdict = "met" if ratio <= TARGET_RATIO else "missed"
    print(f"race / closure_dimension = {ratio:.2f} (target <= {TARGET_RATIO:g}: {verdict})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
