"""The right congruence of the class DFA_n (u ≡ v iff every member has the same residual after u and
after v) and the upper bound on C(DFA_n) it gives, as far as it can be computed. RECON, ours.

Lemma. If ∩F (F ⊆ H) is finite, no word of ∩F has two prefixes x, xy (y non-empty) with x ≡ xy:
otherwise x y^i ≡ x for all i (≡ is a right congruence), so every member that contains x y z also
contains x y^i z, and ∩F is infinite. Hence every word of a finite intersection labels a simple path
from the start of U_n, the reachable product of the members' minimal DFAs (its states are the
≡-classes), and C(DFA_n) <= the number of simple paths from U_n's start (the longest word is shorter
than U_n's number of states).

The computation is the registered simulation ``langgen.congruence_bound``, kept in the run store
(--store, default TOOLKIT_STORE): a rerun reads the result back. It builds U_n breadth-first (a state is the vector of the members' states, hashed), level
by level up to ``--max-depth``. If the construction closes (a level adds no class), it counts the
simple paths from the start (capped at ``--max-paths``) and prints the bound; otherwise it reports
how many classes the words of each length add: while every word of length <= d is its own class,
U_n has >= 2^(d+1) - 1 states, and the bound is at least that large.

    OMP_NUM_THREADS=1 nice -n 10 python plugins/langgen/studies/langgen_dfa_congruence.py --n 3 --max-depth 40
    OMP_NUM_THREADS=1 nice -n 10 python plugins/langgen/studies/langgen_dfa_congruence.py --n 4 --max-depth 12

It prints the result as JSON (stdout) and the classes each word length adds (stderr).
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

from toolkit.argtypes import add_run_options


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=3, help="states of the class DFA_n (1..4)")
    ap.add_argument("--max-depth", type=int, default=12)
    ap.add_argument("--max-classes", type=int, default=2_000_000)
    ap.add_argument("--max-paths", type=int, default=50_000_000)
    add_run_options(ap, executors=("serial",))
    args = ap.parse_args(argv)
    if not 1 <= args.n <= 4:
        ap.error(f"--n must be 1..4, got {args.n}")
    if args.max_depth < 1:
        ap.error(f"--max-depth must be >= 1, got {args.max_depth}")
    import toolkit

    t0 = time.perf_counter()
    values = {"n": args.n, "max_depth": args.max_depth, "max_classes": args.max_classes}
    res = toolkit.run(
        "langgen.congruence_bound", {**values, "max_paths": args.max_paths}, 0, store=args.store
    )
    s = res.summary
    total = 0
    for level in res.records:
        total += level["new_classes"]
        if level["length"] > 0:
            print(
                f"length {level['length']}: {level['words_expanded']} words from new classes, "
                f"{level['new_classes']} new classes, {total} in all",
                file=sys.stderr,
            )
    out = {
        "n": args.n,
        "members": s["members"],
        "closed": s["closed"],
        "classes": s["classes"],
        "levels": [
            {"length": r["length"], "words_expanded": r["words_expanded"], "new_classes": r["new_classes"]}
            for r in res.records
        ],
        "all_words_distinct_up_to_length": s["all_words_distinct_up_to_length"],
    }
    if s["closed"]:
        paths = s["upper_bound"] if s["status"] == "ok" else None
        out["simple_paths"] = paths
        out["upper_bound"] = paths if paths is not None else f"> {args.max_paths} (cap)"
    out["seconds"] = round(time.perf_counter() - t0, 1)
    out["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    json.dump(out, sys.stdout, indent=1)
    print()
    print(f"1 run: {'read from the store' if res.from_cache else 'computed'}", file=sys.stderr)


if __name__ == "__main__":
    main()
