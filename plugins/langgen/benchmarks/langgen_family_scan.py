"""Benchmark, side by side in one run: one move of the DFA_4 family search (|B ∩ L_j| for a fixed
intersection B and many languages L_j, -1 where infinite) by the compiled scan
(``compiled.intersection_sizes``), the pure-Python DFA core (``B & L``, ``cardinality``) and
automata-lib (``&``, ``isfinite``, ``cardinality``). B = the intersection of two members of the
108-word certificate; the L_j are the first ``--languages`` DFA_4 languages of the enumeration.
Every path's answers are compared (a disagreement aborts). The compiled scan over all 57,000
languages is timed as well.

    OMP_NUM_THREADS=1 python plugins/langgen/benchmarks/langgen_family_scan.py [--languages 1000]
"""

from __future__ import annotations

import argparse
import time

from toolkit_langgen import compiled as C
from toolkit_langgen.certificate import DFA4_LOWER_BOUND_WITNESS
from toolkit_langgen.dfa import DFA
from toolkit_langgen.family_search import stack_padded


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--languages", type=int, default=1000, help="languages scored by all three paths")
    args = ap.parse_args()
    if args.languages < 1:
        ap.error("--languages must be >= 1")
    from toolkit_langgen.closure import dfa_class

    H = dfa_class(4)
    A, B2 = (
        DFA.from_table({int(q): r for q, r in m["transitions"].items()}, m["start"], m["accepting"], "ab")
        for m in DFA4_LOWER_BOUND_WITNESS["members"][:2]
    )
    B = A & B2
    sub = H[: args.languages]
    T, F, sizes = stack_padded(H)
    BT, BF, _ = B.arrays()
    C.intersection_sizes(BT, BF, T[:2], F[:2], sizes[:2])  # compile / load from the cache

    t0 = time.perf_counter()
    got_numba = C.intersection_sizes(BT, BF, T[: len(sub)], F[: len(sub)], sizes[: len(sub)]).tolist()
    t_numba = time.perf_counter() - t0
    t0 = time.perf_counter()
    C.intersection_sizes(BT, BF, T, F, sizes)
    t_all = time.perf_counter() - t0

    t0 = time.perf_counter()
    got_python = []
    for L in sub:
        X = B & L
        got_python.append(X.cardinality() if X.is_finite() else -1)
    t_python = time.perf_counter() - t0

    a = B.to_automata()
    t0 = time.perf_counter()
    got_automata = []
    for L in sub:
        X = a & L.to_automata()
        got_automata.append(X.cardinality() if X.isfinite() else -1)
    t_automata = time.perf_counter() - t0
    assert got_numba == got_python == got_automata, "the three paths disagree"
    print(
        f"one family-search move, B = {B.n_states} states, {len(sub)} DFA_4 languages "
        f"({sum(v >= 0 for v in got_numba)} finite intersections, max {max(got_numba)}):"
    )
    print(f"  automata-lib {t_automata:8.3f} s")
    print(f"  Python core  {t_python:8.3f} s   ({t_automata / t_python:6.1f}x automata-lib)")
    print(
        f"  compiled     {t_numba:8.4f} s   ({t_automata / t_numba:6.0f}x automata-lib, {t_python / t_numba:5.0f}x Python)"
    )
    print(f"  compiled, all {len(H)} languages: {t_all:.3f} s")


if __name__ == "__main__":
    main()
