"""Benchmark: the internal DFA core vs automata-lib (membership + intersection + finiteness), and the
enumeration of all <= n-state binary DFAs up to language equivalence.

    OMP_NUM_THREADS=1 python benchmarks/langgen_core.py [--n4]
"""

from __future__ import annotations

import argparse
import random
import time

from toolkit_langgen.closure import dfa_class
from toolkit_langgen.dfa import batch_intersection_finite, batch_membership, enumerate_dfa_languages, stack_dfas
from toolkit_langgen.languages import all_words


def core_vs_automata(n_pairs: int = 300, seed: int = 0) -> dict:
    H = dfa_class(3)
    rng = random.Random(seed)
    pairs = [(rng.choice(H), rng.choice(H)) for _ in range(n_pairs)]
    words = all_words("ab", 6)
    ours = [(a, b) for a, b in pairs]
    theirs = [(a.to_automata(), b.to_automata()) for a, b in pairs]

    # per-pair pure-Python core
    t0 = time.perf_counter()
    res_ours = []
    for a, b in ours:
        inter = a.product(b, "and")
        res_ours.append((sum(w in a for w in words), inter.is_finite(), inter.is_empty()))
    t_ours = time.perf_counter() - t0

    # batched numpy core: all pairs at once
    t0 = time.perf_counter()
    TA, FA = stack_dfas([a for a, _ in ours])
    TB, FB = stack_dfas([b for _, b in ours])
    member = batch_membership(TA, FA, words, ours[0][0].alphabet)
    empty, finite = batch_intersection_finite(TA, FA, TB, FB)
    t_batch = time.perf_counter() - t0
    res_batch = [(int(member[i].sum()), bool(finite[i]), bool(empty[i])) for i in range(len(ours))]
    assert res_batch == res_ours, "batched core disagrees"

    t0 = time.perf_counter()
    res_theirs = []
    for a, b in theirs:
        inter = a & b
        res_theirs.append((sum(a.accepts_input(w) for w in words), inter.isfinite(), inter.isempty()))
    t_theirs = time.perf_counter() - t0
    assert res_ours == res_theirs, "the two implementations disagree"
    return {"pairs": n_pairs, "words_per_dfa": len(words), "core_s": round(t_ours, 4),
            "batched_core_s": round(t_batch, 4), "automata_lib_s": round(t_theirs, 4),
            "speedup_core": round(t_theirs / t_ours, 1), "speedup_batched": round(t_theirs / t_batch, 1)}


def enumeration(n: int) -> dict:
    t0 = time.perf_counter()
    langs, inf = enumerate_dfa_languages(n)
    return {"n": n, "languages": len(langs), "infinite": sum(inf), "seconds": time.perf_counter() - t0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n4", action="store_true", help="also enumerate the 4-state DFAs (about a minute)")
    ap.add_argument("--pairs", type=int, default=300, help="random DFA pairs from DFA_3 for the comparison")
    args = ap.parse_args()
    print(core_vs_automata(args.pairs))
    for n in (1, 2, 3) + ((4,) if args.n4 else ()):
        print(enumeration(n))


if __name__ == "__main__":
    main()
