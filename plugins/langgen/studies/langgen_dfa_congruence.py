"""The right congruence of the class DFA_n (u ≡ v iff every member has the same residual after u and
after v) and the upper bound on C(DFA_n) it gives, as far as it can be computed. RECON, ours.

Lemma. If ∩F (F ⊆ H) is finite, no word of ∩F has two prefixes x, xy (y non-empty) with x ≡ xy:
otherwise x y^i ≡ x for all i (≡ is a right congruence), so every member that contains x y z also
contains x y^i z, and ∩F is infinite. Hence every word of a finite intersection labels a simple path
from the start of U_n, the reachable product of the members' minimal DFAs (its states are the
≡-classes), and C(DFA_n) <= the number of simple paths from U_n's start (the longest word is shorter
than U_n's number of states).

The script builds U_n breadth-first (a state is the vector of the members' states, hashed), level
by level up to ``--max-depth``. If the construction closes (a level adds no class), it counts the
simple paths from the start (capped at ``--max-paths``) and prints the bound; otherwise it reports
how many classes the words of each length add: while every word of length <= d is its own class,
U_n has >= 2^(d+1) - 1 states, and the bound is at least that large.

    OMP_NUM_THREADS=1 nice -n 10 python plugins/langgen/studies/langgen_dfa_congruence.py --n 3 --max-depth 40
    OMP_NUM_THREADS=1 nice -n 10 python plugins/langgen/studies/langgen_dfa_congruence.py --n 4 --max-depth 12
"""

from __future__ import annotations

import argparse
import hashlib
import json
import resource
import sys
import time

import numpy as np


def build_levels(T: np.ndarray, max_depth: int, max_classes: int):
    """BFS of U over the stacked minimal DFAs ``T`` (N, n, 2), start 0 in each. Returns (levels, trans,
    closed): levels[d] = (words of length d reaching a new class, new classes); trans[q] = successors
    of class q (for classes whose successors were computed)."""
    N = T.shape[0]
    rows = np.arange(N)
    start = np.zeros(N, np.int8)
    ids = {hashlib.blake2b(start.tobytes(), digest_size=16).digest(): 0}
    frontier = [(0, start)]
    trans: dict[int, list[int]] = {}
    levels = [(1, 1)]
    for _depth in range(1, max_depth + 1):
        nxt, words = [], 0
        for q, vec in frontier:
            succ = []
            for c in range(T.shape[2]):
                child = T[rows, vec, c].astype(np.int8)
                key = hashlib.blake2b(child.tobytes(), digest_size=16).digest()
                words += 1
                j = ids.get(key)
                if j is None:
                    j = len(ids)
                    ids[key] = j
                    nxt.append((j, child))
                succ.append(j)
            trans[q] = succ
        levels.append((words, len(nxt)))
        print(
            f"length {_depth}: {words} words from new classes, {len(nxt)} new classes, {len(ids)} in all",
            file=sys.stderr,
            flush=True,
        )
        frontier = nxt
        if not frontier or len(ids) > max_classes:
            break
    return levels, trans, not frontier


def simple_paths(trans: dict[int, list[int]], cap: int) -> int | None:
    """Number of simple paths from state 0 (the empty one included); None past ``cap``."""
    on_path = {0}
    stack = [(0, iter(trans[0]))]
    count = 1
    while stack:
        q, it = stack[-1]
        r = next(it, None)
        if r is None:
            stack.pop()
            on_path.discard(q)
            continue
        if r in on_path:
            continue
        count += 1
        if count > cap:
            return None
        on_path.add(r)
        stack.append((r, iter(trans[r])))
    return count


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=3, help="states of the class DFA_n (1..4)")
    ap.add_argument("--max-depth", type=int, default=12)
    ap.add_argument("--max-classes", type=int, default=2_000_000)
    ap.add_argument("--max-paths", type=int, default=50_000_000)
    args = ap.parse_args()
    if not 1 <= args.n <= 4:
        ap.error(f"--n must be 1..4, got {args.n}")
    if args.max_depth < 1:
        ap.error(f"--max-depth must be >= 1, got {args.max_depth}")
    from toolkit_langgen.closure import dfa_class
    from toolkit_langgen.family_search import stack_padded

    t0 = time.perf_counter()
    H = dfa_class(args.n)
    T, _, _ = stack_padded(H)
    levels, trans, closed = build_levels(T, args.max_depth, args.max_classes)
    classes = sum(new for _, new in levels)
    out = {
        "n": args.n,
        "members": len(H),
        "closed": closed,
        "classes": classes,
        "levels": [{"length": d, "words_expanded": w, "new_classes": c} for d, (w, c) in enumerate(levels)],
    }
    d = 0
    while d + 1 < len(levels) and levels[d + 1][1] == 2 ** (d + 1):
        d += 1
    out["all_words_distinct_up_to_length"] = d  # so U_n has >= 2^(d+1) - 1 states
    if closed:
        paths = simple_paths(trans, args.max_paths)
        out["simple_paths"] = paths
        out["upper_bound"] = paths if paths is not None else f"> {args.max_paths} (cap)"
    out["seconds"] = round(time.perf_counter() - t0, 1)
    out["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
