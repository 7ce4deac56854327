"""C(LTT(k, t)) on the profile automaton built with integer-coded states (numba), for the sizes the
tuple-keyed ``languages.ltt_automaton`` cannot reach (LTT(4, 2): millions of states). RECON, ours.

States. A word w with |w| <= k - 2 is a node of a prefix tree: <w> has at most one factor of length
k, so w is alone in its profile class. A word with |w| >= k - 1 is in the state
(first, last, counts): first = w[:k-1], last = w[-(k-1):], counts[f] = the occurrences of the
mark-free factor f of length k in w, capped at t. The profile of w (the capped counts of all length-k
factors of <w>) is exactly that triple: <first is its one factor with the left mark, last> the one
with the right mark, and each occurs once. So the states are the profile classes, one each, and a
class is infinite iff its state is reachable from a cycle; the words of a finite class are the paths
from the root to its state (``compiled.acyclic_prefix``). A state is coded as
(first * σ^(k-1) + last) * (t+1)^(σ^k) + Σ_f counts[f] (t+1)^f, so it must fit in int64.
This shares no code with ``languages.ltt_automaton`` (tuples of factor counts) nor with the word
search of ``ltt_words`` (saturated factor graphs); the tests check the state counts and the words
against both.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.typed import Dict


@njit(cache=True)
def _grow(a, size):
    b = np.empty((size,) + a.shape[1:], a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(cache=True)
def _main_automaton(k, t, sigma, max_states):
    """Transitions of the states of words with |w| >= k - 1 (ids: the σ^(k-1) initial states first,
    in the order of their word's code, then breadth-first); (T, n) or (T, -1) past ``max_states``."""
    L = sigma ** (k - 1)
    nf = sigma**k
    base = t + 1
    pw = np.empty(nf, np.int64)
    pw[0] = 1
    for i in range(1, nf):
        pw[i] = pw[i - 1] * base
    span = pw[nf - 1] * base
    ids = Dict.empty(key_type=types.int64, value_type=types.int64)
    cap = 1 << 16
    codes = np.empty(cap, np.int64)
    T = np.empty((cap, sigma), np.int32)
    n = 0
    for w in range(L):
        code = (w * L + w) * span
        ids[code] = n
        codes[n] = code
        n += 1
    h = 0
    while h < n:
        code = codes[h]
        cnt = code % span
        last = (code // span) % L
        first = code // span // L
        for c in range(sigma):
            f = last * sigma + c
            ncnt = cnt + pw[f] if (cnt // pw[f]) % base < t else cnt
            ncode = (first * L + f % L) * span + ncnt
            j = ids.get(ncode, -1)
            if j < 0:
                if n == max_states:
                    return T[:0], -1
                if n == codes.shape[0]:
                    codes = _grow(codes, 2 * n)
                    T = _grow(T, 2 * n)
                j = n
                ids[ncode] = n
                codes[n] = ncode
                n += 1
            T[h, c] = j
        h += 1
    return T[:n], n


def ltt_profile_automaton_compiled(
    k: int, t: int, sigma: int = 2, max_states: int = 50_000_000
) -> np.ndarray:
    """The whole automaton (root = ε, state 0): the prefix tree of the words of length <= k - 2, then
    the coded states; ``T[q, c]`` int32. One state per profile class."""
    if k < 1 or t < 1 or sigma < 1:
        raise ValueError(f"k, t and sigma must be >= 1, got k={k}, t={t}, sigma={sigma}")
    nf = sigma**k
    if ((t + 1) ** nf) * sigma ** (2 * (k - 1)) >= 2**63:
        raise ValueError(f"LTT({k},{t}) over {sigma} letters: the state codes do not fit in int64")
    main, n = _main_automaton(k, t, sigma, max_states)
    if n < 0:
        raise RuntimeError(f"LTT({k},{t}): more than max_states={max_states} states")
    # prefix tree: words of length 0..k-2 in breadth-first order (code of u = base-σ digits)
    tree = [(d, u) for d in range(k - 1) for u in range(sigma**d)]
    n_tree = len(tree)
    index = {node: i for i, node in enumerate(tree)}
    T = np.empty((n_tree + n, sigma), np.int32)
    for i, (d, u) in enumerate(tree):
        for c in range(sigma):
            T[i, c] = index[(d + 1, u * sigma + c)] if d + 1 <= k - 2 else n_tree + u * sigma + c
    T[n_tree:] = main + n_tree
    return T


def ltt_closure_dimension_compiled(k: int, t: int, alphabet=("a", "b"), list_words: bool = False) -> dict:
    """C(LTT(k, t)) = the number of words whose state is reachable from no cycle (module docstring);
    ``list_words`` also lists them (shortlex)."""
    from toolkit_langgen import compiled as C

    alphabet = tuple(alphabet)
    T = ltt_profile_automaton_compiled(k, t, len(alphabet))
    peeled, paths = C.acyclic_prefix(T, 0)
    out = {
        "k": k,
        "t": t,
        "closure_dimension": int(paths.sum()),
        "states": int(T.shape[0]),
        "infinite_classes": int((~peeled).sum()),
    }
    if list_words:
        words, stack = [], [(0, "")]
        while stack:
            q, w = stack.pop()
            words.append(w)
            stack.extend((int(T[q, c]), w + ch) for c, ch in enumerate(alphabet) if peeled[T[q, c]])
        words.sort(key=lambda w: (len(w), w))
        out["words"] = words
    return out
