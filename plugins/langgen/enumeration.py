"""All languages of complete DFAs with at most n states (start fixed), up to language equivalence.

Every DFA with fewer than n states is equivalent to an n-state one (add unreachable states), so
enumerating the n^(s n) transition tables times 2^n accepting sets of exactly n states covers
"at most n". Each table is minimised and canonically numbered inside one numba loop and encoded as
an int64; ``np.unique`` then gives one code per language.
"""

from __future__ import annotations

import numba
import numpy as np

from plugins.langgen.automaton import DFA, _canonical


@numba.njit(cache=True)
def _all_codes(n, s):
    n_tables = n ** (n * s)
    n_masks = 2 ** n
    base = n + 1
    span = base ** (n * s)
    out = np.empty(n_tables * n_masks, np.int64)
    delta = np.zeros((n, s), np.int32)
    accept = np.zeros(n, np.bool_)
    k = 0
    for t in range(n_tables):
        rest = t
        for q in range(n):
            for a in range(s):
                delta[q, a] = rest % n
                rest //= n
        for mask in range(n_masks):
            for q in range(n):
                accept[q] = (mask >> q) & 1
            d, acc = _canonical(delta, accept)
            m = d.shape[0]
            code = 0
            for q in range(n):
                for a in range(s):
                    code = code * base + (d[q, a] if q < m else n)
            amask = 0
            for q in range(m):
                if acc[q]:
                    amask |= 1 << q
            out[k] = (m * span + code) * n_masks + amask
            k += 1
    return out


def _decode(code: int, n: int, s: int, alphabet: tuple[str, ...]) -> DFA:
    base, n_masks = n + 1, 2 ** n
    span = base ** (n * s)
    amask = code % n_masks
    code //= n_masks
    m, digits = divmod(code, span)
    flat = []
    for _ in range(n * s):
        flat.append(digits % base)
        digits //= base
    flat.reverse()
    delta = np.array(flat[: m * s], np.int32).reshape(m, s)
    accept = np.array([(amask >> q) & 1 for q in range(m)], bool)
    return DFA(alphabet, delta, accept)


def dfa_languages(n: int, alphabet: tuple[str, ...] = ("a", "b")) -> list[DFA]:
    """Distinct languages of complete DFAs with at most ``n`` states, as canonical minimal DFAs,
    sorted by (number of states, code)."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    s = len(alphabet)
    if n ** (n * s) * 2 ** n > 50_000_000:
        raise ValueError(f"n={n} over {s} symbols gives {n ** (n * s) * 2 ** n} tables; the limit is 5e7")
    codes = np.unique(_all_codes(n, s))
    return [_decode(int(c), n, s, tuple(alphabet)) for c in codes]


def dfa_class(n: int, alphabet: tuple[str, ...] = ("a", "b")) -> list[DFA]:
    """H_n for DFAs: the infinite languages of complete DFAs with at most ``n`` states."""
    return [d for d in dfa_languages(n, alphabet) if not d.is_finite()]
