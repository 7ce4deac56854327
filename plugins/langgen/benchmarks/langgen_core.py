"""Benchmark, side by side in one run: automata-lib vs the pure-Python DFA core vs the numba-compiled
core vs the batched numpy core, and the enumeration of all <= n-state binary DFAs (numpy
fingerprints, the previous method, vs numba canonical keys).

    OMP_NUM_THREADS=1 python plugins/langgen/benchmarks/langgen_core.py [--n4] [--pairs 5000] [--seed 0]

Workloads (every path's answers are compared; a disagreement aborts the run):
- ``construction``: 200 random DFAs with 1..6 states (random tables, accepting sets) over {a, b},
  400 random pairs; per pair the minimal DFA of A ∩ B (its size), emptiness and finiteness of A ∩ B,
  A ⊆ B, A ≡ B, and membership of all 127 words of length <= 6 in A ∩ B. Timed from the raw
  tables: building the automata is part of it.
- ``dfa3_pairs``: random pairs of DFA_3 languages: membership of 127 words + finiteness + emptiness of
  the intersection (the earlier benchmark; the batched numpy core shines here).
- ``enumeration``: all languages of <= n-state binary DFAs (numba timed warm; its one-off compile
  time, cached on disk by ``cache=True``, reported apart).
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from toolkit_langgen.closure import dfa_class
from toolkit_langgen.dfa import (
    DFA,
    batch_intersection_finite,
    batch_membership,
    enumerate_dfa_languages,
    stack_dfas,
)
from toolkit_langgen.languages import all_words


def random_tables(n_dfas: int, max_states: int, seed: int):
    rng = random.Random(seed)
    out = []
    for _ in range(n_dfas):
        n = rng.randint(1, max_states)
        trans = [[rng.randrange(n), rng.randrange(n)] for _ in range(n)]
        accept = [rng.random() < 0.5 for _ in range(n)]
        out.append((trans, accept))
    return out


def _automata_path(tables, pairs, words):
    from automata.fa.dfa import DFA as ADFA

    dfas = [
        ADFA(
            states=set(range(len(t))),
            input_symbols={"a", "b"},
            transitions={q: {"a": t[q][0], "b": t[q][1]} for q in range(len(t))},
            initial_state=0,
            final_states={q for q in range(len(t)) if f[q]},
        )
        for t, f in tables
    ]
    out = []
    for i, j in pairs:
        a, b = dfas[i], dfas[j]
        inter = (a & b).minify()
        out.append(
            (
                len(inter.states),
                inter.isempty(),
                inter.isfinite(),
                a.issubset(b),
                a == b,
                tuple(inter.accepts_input(w) for w in words),
            )
        )
    return out


def _python_path(tables, pairs, words):
    dfas = [DFA(("a", "b"), t, f) for t, f in tables]
    out = []
    for i, j in pairs:
        a, b = dfas[i], dfas[j]
        inter = a.product(b, "and").minimize()
        out.append(
            (
                inter.n_states,
                inter.is_empty(),
                inter.is_finite(),
                a.issubset(b),
                a.equivalent(b),
                tuple(inter.accepts(w) for w in words),
            )
        )
    return out


def _compiled_path(tables, pairs, words):
    from toolkit_langgen import compiled as C

    arrays = [(np.array(t, dtype=np.int32), np.array(f, dtype=np.bool_)) for t, f in tables]
    symbols = np.array([0 if ch == "a" else 1 for w in words for ch in w], dtype=np.int32)
    offsets = np.cumsum([0] + [len(w) for w in words]).astype(np.int64)
    out = []
    for i, j in pairs:
        (TA, FA), (TB, FB) = arrays[i], arrays[j]
        TI, FI = C.product(TA, FA, 0, TB, FB, 0, C.OP_AND)
        TM, FM = C.minimize(TI, FI, 0)
        TD, FD = C.product(TA, FA, 0, TB, FB, 0, C.OP_DIFF)
        TX, FX = C.product(TA, FA, 0, TB, FB, 0, C.OP_XOR)
        out.append(
            (
                TM.shape[0],
                C.is_empty(TM, FM, 0),
                C.is_finite(TM, FM, 0),
                C.is_empty(TD, FD, 0),
                C.is_empty(TX, FX, 0),
                tuple(C.accepts_many(TM, FM, 0, symbols, offsets).tolist()),
            )
        )
    return out


def _normalise(results):
    return [tuple(bool(x) if isinstance(x, (bool, np.bool_)) else x for x in r) for r in results]


def construction_workload(n_dfas: int = 200, n_pairs: int = 400, max_states: int = 6, seed: int = 0) -> dict:
    tables = random_tables(n_dfas, max_states, seed)
    rng = random.Random(seed + 1)
    pairs = [(rng.randrange(n_dfas), rng.randrange(n_dfas)) for _ in range(n_pairs)]
    words = all_words("ab", 6)
    _compiled_path(tables[:2], [(0, 1)], words)  # compile (or load from the cache) before timing
    times, results = {}, {}
    for name, path in (
        ("automata_lib", _automata_path),
        ("python_core", _python_path),
        ("compiled_core", _compiled_path),
    ):
        t0 = time.perf_counter()
        results[name] = _normalise(path(tables, pairs, words))
        times[name] = time.perf_counter() - t0
    assert results["python_core"] == results["automata_lib"], "python core disagrees with automata-lib"
    assert results["compiled_core"] == results["automata_lib"], "compiled core disagrees with automata-lib"
    return {
        "workload": "construction",
        "dfas": n_dfas,
        "pairs": n_pairs,
        "seed": seed,
        **{f"{k}_s": round(v, 4) for k, v in times.items()},
        "speedup_python": round(times["automata_lib"] / times["python_core"], 1),
        "speedup_compiled": round(times["automata_lib"] / times["compiled_core"], 1),
    }


def dfa3_pairs_workload(n_pairs: int = 300, seed: int = 0) -> dict:
    from toolkit_langgen import compiled as C

    H = dfa_class(3)
    rng = random.Random(seed)
    pairs = [(rng.choice(H), rng.choice(H)) for _ in range(n_pairs)]
    words = all_words("ab", 6)
    theirs = [(a.to_automata(), b.to_automata()) for a, b in pairs]
    symbols = np.array([0 if ch == "a" else 1 for w in words for ch in w], dtype=np.int32)
    offsets = np.cumsum([0] + [len(w) for w in words]).astype(np.int64)
    TA0, FA0, _ = pairs[0][0].arrays()
    C.product(TA0, FA0, 0, TA0, FA0, 0, C.OP_AND)  # warm

    t0 = time.perf_counter()
    res_ours = []
    for a, b in pairs:
        inter = a.product(b, "and")
        res_ours.append((sum(w in a for w in words), inter.is_finite(), inter.is_empty()))
    t_ours = time.perf_counter() - t0

    t0 = time.perf_counter()
    res_comp = []
    for a, b in pairs:
        (TA, FA, sa), (TB, FB, sb) = a.arrays(), b.arrays()
        TI, FI = C.product(TA, FA, sa, TB, FB, sb, C.OP_AND)
        res_comp.append(
            (
                int(C.accepts_many(TA, FA, sa, symbols, offsets).sum()),
                bool(C.is_finite(TI, FI, 0)),
                bool(C.is_empty(TI, FI, 0)),
            )
        )
    t_comp = time.perf_counter() - t0
    assert res_comp == res_ours, "compiled core disagrees"

    t0 = time.perf_counter()
    TA, FA = stack_dfas([a for a, _ in pairs])
    TB, FB = stack_dfas([b for _, b in pairs])
    member = batch_membership(TA, FA, words, pairs[0][0].alphabet)
    empty, finite = batch_intersection_finite(TA, FA, TB, FB)
    t_batch = time.perf_counter() - t0
    assert [(int(member[i].sum()), bool(finite[i]), bool(empty[i])) for i in range(len(pairs))] == res_ours

    t0 = time.perf_counter()
    res_theirs = []
    for a, b in theirs:
        inter = a & b
        res_theirs.append((sum(a.accepts_input(w) for w in words), inter.isfinite(), inter.isempty()))
    t_theirs = time.perf_counter() - t0
    assert res_ours == res_theirs, "the core disagrees with automata-lib"
    return {
        "workload": "dfa3_pairs",
        "pairs": n_pairs,
        "seed": seed,
        "automata_lib_s": round(t_theirs, 4),
        "python_core_s": round(t_ours, 4),
        "compiled_core_s": round(t_comp, 4),
        "batched_numpy_s": round(t_batch, 4),
        "speedup_python": round(t_theirs / t_ours, 1),
        "speedup_compiled": round(t_theirs / t_comp, 1),
        "speedup_batched": round(t_theirs / t_batch, 1),
    }


def enumeration(n: int) -> dict:
    t0 = time.perf_counter()
    enumerate_dfa_languages(1, method="numba")
    compile_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    langs_np, inf_np = enumerate_dfa_languages(n, method="numpy")
    t_np = time.perf_counter() - t0
    t0 = time.perf_counter()
    langs_nb, inf_nb = enumerate_dfa_languages(n, method="numba")
    t_nb = time.perf_counter() - t0
    assert {L.key(): i for L, i in zip(langs_np, inf_np)} == {L.key(): i for L, i in zip(langs_nb, inf_nb)}, (
        "the two enumerations disagree"
    )
    return {
        "workload": f"enumeration n={n}",
        "languages": len(langs_nb),
        "infinite": sum(inf_nb),
        "numpy_s": round(t_np, 3),
        "numba_s": round(t_nb, 3),
        "numba_first_call_s": round(compile_s, 3),
        "speedup_numba": round(t_np / t_nb, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--n4", action="store_true", help="also enumerate the 4-state DFAs (numpy: seconds to a minute)"
    )
    ap.add_argument("--pairs", type=int, default=300, help="random DFA_3 pairs for the dfa3_pairs workload")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(construction_workload(seed=args.seed))
    print(dfa3_pairs_workload(args.pairs, args.seed))
    for n in (2, 3) + ((4,) if args.n4 else ()):
        print(enumeration(n))


if __name__ == "__main__":
    main()
