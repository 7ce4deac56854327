"""Lower bounds on C(H) by local search over small subfamilies F ⊆ H (RECON, ours). Pure maths.

C(H) = max |∩F| over subfamilies with a finite intersection, and a large finite intersection of
≤ 4-state languages often needs only a few members (the 63-word DFA_4 witness of the closed-set
climb needs 4). So search the k-subsets directly: a move replaces one member by the best of *all*
N languages, scored exactly in one compiled pass (``compiled.intersection_sizes``: |B ∩ L_j| for
the intersection B of the other k − 1 members, every j); iterated local search (perturb one member
at random from a local maximum, climb again), seeded. Every value found is the size of a finite
intersection of members of H, hence a lower bound, with the k members as its certificate.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import numpy as np

from toolkit_langgen.dfa import DFA


def stack_padded(languages: Sequence[DFA]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(T, F, sizes): tables padded to the largest state count, start state 0 (canonical DFAs)."""
    if any(L.start != 0 for L in languages):
        raise ValueError("languages: every DFA must start in state 0 (use DFA.minimize())")
    n = max(L.n_states for L in languages)
    k = len(languages[0].alphabet)
    T = np.zeros((len(languages), n, k), np.int32)
    F = np.zeros((len(languages), n), np.bool_)
    for i, L in enumerate(languages):
        T[i, : L.n_states] = L.trans
        F[i, : L.n_states] = L.accept
    return T, F, np.array([L.n_states for L in languages], np.int32)


class FamilyScorer:
    """Exact |∩F| for index families F of stacked DFAs (compiled core)."""

    def __init__(self, T: np.ndarray, F: np.ndarray, sizes: np.ndarray):
        from toolkit_langgen import compiled as C

        self.C, self.T, self.F, self.sizes = C, T, F, sizes
        self.N = len(sizes)

    def intersection(self, family: Sequence[int]):
        C = self.C
        i = family[0]
        BT, BF = C.minimize(self.T[i, : self.sizes[i]], self.F[i, : self.sizes[i]], 0)
        for i in family[1:]:
            BT, BF = C.product(BT, BF, 0, self.T[i, : self.sizes[i]], self.F[i, : self.sizes[i]], 0, C.OP_AND)
            BT, BF = C.minimize(BT, BF, 0)
        return BT, BF

    def value(self, family: Sequence[int]) -> int:
        """|∩F|, or -1 when it is infinite."""
        BT, BF = self.intersection(family)
        return int(self.C.cardinality(BT, BF, 0))

    def completions(self, others: Sequence[int]) -> np.ndarray:
        """|∩others ∩ L_j| for every j (-1 where infinite)."""
        BT, BF = self.intersection(others)
        return self.C.intersection_sizes(BT, BF, self.T, self.F, self.sizes)


def climb(
    scorer: FamilyScorer, family: list[int], rng: random.Random, deadline: float
) -> tuple[int, list[int], int]:
    """Best-improvement replacement of one member at a time until no move improves |∩F|.
    Returns (value, family, scans)."""
    family = list(family)
    value = scorer.value(family)
    scans = 0
    improved = True
    while improved and time.perf_counter() < deadline:
        improved = False
        for pos in rng.sample(range(len(family)), len(family)):
            others = family[:pos] + family[pos + 1 :]
            sizes = scorer.completions(others)
            scans += 1
            sizes[family] = -1  # no duplicate members
            j = int(np.argmax(sizes))
            if sizes[j] > value:
                family[pos], value, improved = j, int(sizes[j]), True
            if time.perf_counter() >= deadline:
                break
    return value, family, scans


def iterated_local_search(
    scorer: FamilyScorer,
    k: int,
    seed: int,
    time_limit: float,
    start: Sequence[int] | None = None,
    kicks: int = 1_000_000,
    progress=None,
) -> dict:
    """Iterated local search over k-member families (seeded): climb, then replace one random member
    by a random language and climb again, keeping the best family. Time-bounded."""
    if k < 1 or k > scorer.N:
        raise ValueError(f"k must be in 1..{scorer.N}, got {k}")
    rng = random.Random(seed)
    t0 = time.perf_counter()
    deadline = t0 + time_limit
    current = list(start) if start is not None else rng.sample(range(scorer.N), k)
    if len(current) != k:
        raise ValueError(f"start has {len(current)} members, expected k = {k}")
    value, current, scans = climb(scorer, current, rng, deadline)
    best, best_family, n_kicks = value, list(current), 0
    if progress:
        progress(best, best_family, time.perf_counter() - t0)
    while n_kicks < kicks and time.perf_counter() < deadline:
        n_kicks += 1
        trial = list(current)
        trial[rng.randrange(k)] = rng.randrange(scorer.N)
        if len(set(trial)) < k:
            continue
        v, trial, s = climb(scorer, trial, rng, deadline)
        scans += s
        if v >= value:  # accept sideways moves: plateaus are common
            value, current = v, trial
        if v > best:
            best, best_family = v, list(trial)
            if progress:
                progress(best, best_family, time.perf_counter() - t0)
    return {
        "value": best,
        "family": sorted(best_family),
        "k": k,
        "seed": seed,
        "kicks": n_kicks,
        "scans": scans,
        "seconds": time.perf_counter() - t0,
    }


def is_prefix_closed(L: DFA) -> bool:
    """Prefix-closed (a safety language): at most one rejecting reachable state, and it is a sink."""
    M = L.minimize()
    rejecting = [q for q in range(M.n_states) if not M.accept[q]]
    return len(rejecting) <= 1 and all(r == q for q in rejecting for r in M.trans[q])


def is_suffix_closed(L: DFA) -> bool:
    """Suffix-closed (uv in L implies v in L): every reachable state's residual is inside L."""
    M = L.minimize()
    return all(DFA(M.alphabet, M.trans, M.accept, q).issubset(M) for q in M.reachable())


def exhaustive_triples(scorer: FamilyScorer, candidates: Sequence[int]) -> dict:
    """The largest finite |L_i ∩ L_j ∩ L_l| over all i < j < l in ``candidates`` (and over pairs and
    single members, which a triple with a repeated member would give): exact for that subclass.
    One compiled pass per pair (i, j) over the l > j."""
    C = scorer.C
    cand = np.asarray(sorted(set(int(i) for i in candidates)), np.int64)
    T, F, sizes = scorer.T[cand], scorer.F[cand], scorer.sizes[cand]
    best, best_family, n_finite = -1, (), 0
    for a in range(len(cand)):
        for b in range(a, len(cand)):
            BT, BF = scorer.intersection([int(cand[a]), int(cand[b])])
            got = C.intersection_sizes(BT, BF, T[b:], F[b:], sizes[b:])
            n_finite += int((got >= 0).sum())
            c = int(np.argmax(got))
            if got[c] > best:
                best, best_family = int(got[c]), tuple(sorted({int(cand[a]), int(cand[b]), int(cand[b + c])}))
    return {"value": best, "family": best_family, "candidates": len(cand), "finite_intersections": n_finite}
