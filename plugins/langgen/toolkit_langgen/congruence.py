"""The right congruence of a class of DFA languages and the upper bound on its closure dimension it gives.

Lemma. If ∩F (F ⊆ H) is finite, no word of ∩F has two prefixes x, xy (y non-empty) with x ≡ xy, where
u ≡ v iff every member has the same residual after u and after v: otherwise x y^i ≡ x for all i (≡ is a
right congruence), so every member that contains x y z also contains x y^i z, and ∩F is infinite. Hence
every word of a finite intersection labels a simple path from the start of U, the reachable product of
the members' minimal DFAs (its states are the ≡-classes), and C(H) <= the number of simple paths from
U's start.

:func:`build_levels` builds U breadth-first (a state is the vector of the members' states, hashed),
level by level; :func:`simple_paths` counts the simple paths once U has closed.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy as np


def build_levels(
    T: np.ndarray, max_depth: int, max_classes: int, progress: Callable[[str], None] | None = None
) -> tuple[list[tuple[int, int]], dict[int, list[int]], bool]:
    """BFS of U over the stacked minimal DFAs ``T`` (N, n, k), start 0 in each. Returns (levels, trans,
    closed): levels[d] = (words of length d reaching a new class, new classes); trans[q] = successors
    of class q (for classes whose successors were computed); closed: a level added no class."""
    N = T.shape[0]
    rows = np.arange(N)
    start = np.zeros(N, np.int8)
    ids = {hashlib.blake2b(start.tobytes(), digest_size=16).digest(): 0}
    frontier = [(0, start)]
    trans: dict[int, list[int]] = {}
    levels = [(1, 1)]
    for depth in range(1, max_depth + 1):
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
        if progress is not None:
            progress(
                f"length {depth}: {words} words from new classes, {len(nxt)} new classes, {len(ids)} in all"
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


def distinct_prefix_length(levels: list[tuple[int, int]]) -> int:
    """The largest d such that every word of length <= d is its own class (so U has >= 2^(d+1) - 1 states)."""
    d = 0
    while d + 1 < len(levels) and levels[d + 1][1] == 2 ** (d + 1):
        d += 1
    return d
