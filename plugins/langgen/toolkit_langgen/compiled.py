"""numba-compiled scalar DFA core: product, minimisation (canonical numbering), emptiness,
finiteness, cardinality, membership, and the enumeration of all n-state DFAs by canonical keys.

Imported only where used (never at plugin registration); ``cache=True`` keeps the compile cost
(a few seconds) to the first call on a machine. A DFA here is ``(T, F, s)``: ``T[q, c]`` int32
successor table, ``F[q]`` bool accepting flags, ``s`` the start state. The canonical form is the
one :meth:`toolkit_langgen.dfa.DFA.minimize` produces (reachable part, Moore refinement, classes
numbered breadth-first from the start in alphabet order), so keys agree with the Python core.
Pure maths, no toolkit imports.
"""

from __future__ import annotations

import numpy as np
from numba import njit

OP_AND, OP_OR, OP_DIFF, OP_XOR = 0, 1, 2, 3
OPS = {"and": OP_AND, "or": OP_OR, "diff": OP_DIFF, "xor": OP_XOR}


@njit(cache=True, inline="always")
def _combine(a, b, op):
    if op == OP_AND:
        return a and b
    if op == OP_OR:
        return a or b
    if op == OP_DIFF:
        return a and not b
    return a != b


@njit(cache=True, inline="always")
def _product_into(TA, FA, sa, TB, FB, sb, nb, op, ids, order, PT, PF):
    """The reachable product of A and B (B's states ``< nb``) written into ``PT``, ``PF``, states
    numbered breadth-first from ``(sa, sb)`` = 0; returns its number of states. ``ids`` (one entry per
    pair ``p * nb + q``) must be all -1 on entry and is left so: the loops that score millions of
    products reuse one set of buffers."""
    k = TA.shape[1]
    ids[sa * nb + sb] = 0
    order[0] = sa * nb + sb
    m = 1
    h = 0
    while h < m:
        p = order[h] // nb
        q = order[h] % nb
        for c in range(k):
            nxt = TA[p, c] * nb + TB[q, c]
            j = ids[nxt]
            if j < 0:
                j = m
                ids[nxt] = m
                order[m] = nxt
                m += 1
            PT[h, c] = j
        PF[h] = _combine(FA[p], FB[q], op)
        h += 1
    for h in range(m):
        ids[order[h]] = -1
    return m


@njit(cache=True, inline="always")
def _live_into(T, F, m, live, stack, rstart, src, fill):
    """``live[x]`` for the states ``x < m``: some accepting state is reachable from x. Small automata
    (the pair scans' products, m <= 32): sweeps to a fixed point, cheaper there than building the
    reversed edges; larger ones: a search over the reversed edges, kept as a CSR in ``rstart``/``src``."""
    k = T.shape[1]
    if m <= 32:
        for x in range(m):
            live[x] = F[x]
        changed = True
        while changed:
            changed = False
            for x in range(m - 1, -1, -1):
                if not live[x]:
                    for c in range(k):
                        if live[T[x, c]]:
                            live[x] = True
                            changed = True
                            break
        return
    for x in range(m + 1):
        rstart[x] = 0
    for x in range(m):
        for c in range(k):
            rstart[T[x, c] + 1] += 1
    for x in range(m):
        rstart[x + 1] += rstart[x]
    for x in range(m):
        fill[x] = rstart[x]
    for x in range(m):
        for c in range(k):
            r = T[x, c]
            src[fill[r]] = x
            fill[r] += 1
    top = 0
    for x in range(m):
        live[x] = F[x]
        if F[x]:
            stack[top] = x
            top += 1
    while top > 0:
        top -= 1
        r = stack[top]
        for j in range(rstart[r], rstart[r + 1]):
            x = src[j]
            if not live[x]:
                live[x] = True
                stack[top] = x
                top += 1


@njit(cache=True, inline="always")
def _peel(T, m, use, indeg, stack, topo):
    """Kahn's algorithm on the states ``x < m`` with ``use[x]``: the states it can order (exactly
    those not reachable from a cycle of used states) in ``topo``; returns how many it ordered and
    how many are used (equal iff the used states are acyclic)."""
    k = T.shape[1]
    n_use = 0
    for x in range(m):
        indeg[x] = 0
    for x in range(m):
        if use[x]:
            n_use += 1
            for c in range(k):
                if use[T[x, c]]:
                    indeg[T[x, c]] += 1
    top = 0
    for x in range(m):
        if use[x] and indeg[x] == 0:
            stack[top] = x
            top += 1
    n_topo = 0
    while top > 0:
        top -= 1
        x = stack[top]
        topo[n_topo] = x
        n_topo += 1
        for c in range(k):
            r = T[x, c]
            if use[r]:
                indeg[r] -= 1
                if indeg[r] == 0:
                    stack[top] = r
                    top += 1
    return n_topo, n_use


@njit(cache=True, inline="always")
def _finite_size(T, F, s, m, use, indeg, stack, topo, cnt):
    """The number of words accepted from ``s`` through the useful states (``use``, among ``x < m``),
    or -1 if infinite: counts summed in reverse topological order."""
    if not use[s]:
        return 0  # then no state is useful: empty (and the pair scans skip the peeling)
    n_topo, n_use = _peel(T, m, use, indeg, stack, topo)
    if n_topo != n_use:
        return -1
    k = T.shape[1]
    for t in range(n_topo - 1, -1, -1):
        x = topo[t]
        v = 1 if F[x] else 0
        for c in range(k):
            r = T[x, c]
            if use[r]:
                v += cnt[r]
        cnt[x] = v
    return cnt[s]


@njit(cache=True)
def _workspace(P, k):
    """Buffers for products of up to ``P`` states: ids, order, PT, PF, live, indeg, stack, topo, cnt,
    rstart, src, fill."""
    return (
        np.full(P, -1, np.int32),
        np.empty(P, np.int32),
        np.empty((P, k), np.int32),
        np.empty(P, np.bool_),
        np.empty(P, np.bool_),
        np.empty(P, np.int32),
        np.empty(P, np.int32),
        np.empty(P, np.int32),
        np.empty(P, np.int64),
        np.empty(P + 1, np.int32),
        np.empty(P * k, np.int32),
        np.empty(P, np.int32),
    )


@njit(cache=True, inline="always")
def _product_size(TA, FA, TB, FB, nb, ws):
    """|A ∩ B| (starts 0; B's states ``< nb``), -1 if infinite, through the buffers ``ws``."""
    ids, order, PT, PF, live, indeg, stack, topo, cnt, rstart, src, fill = ws
    m = _product_into(TA, FA, 0, TB, FB, 0, nb, OP_AND, ids, order, PT, PF)
    _live_into(PT, PF, m, live, stack, rstart, src, fill)
    return _finite_size(PT, PF, 0, m, live, indeg, stack, topo, cnt)


@njit(cache=True)
def product(TA, FA, sa, TB, FB, sb, op):
    """Reachable product automaton (start 0), BFS numbering; ``op`` one of OP_*."""
    na, k = TA.shape
    nb = TB.shape[0]
    ids = np.full(na * nb, -1, np.int32)
    order = np.empty(na * nb, np.int32)
    T = np.empty((na * nb, k), np.int32)
    F = np.empty(na * nb, np.bool_)
    n = _product_into(TA, FA, sa, TB, FB, sb, nb, op, ids, order, T, F)
    return T[:n].copy(), F[:n].copy()


@njit(cache=True)
def reachable_order(T, s):
    n, k = T.shape
    seen = np.zeros(n, np.bool_)
    order = np.empty(n, np.int32)
    order[0] = s
    seen[s] = True
    m = 1
    i = 0
    while i < m:
        q = order[i]
        for c in range(k):
            r = T[q, c]
            if not seen[r]:
                seen[r] = True
                order[m] = r
                m += 1
        i += 1
    return order[:m]


@njit(cache=True)
def minimize(T, F, s):
    """Canonical minimal DFA ``(T', F')`` with start 0 (same numbering as ``DFA.minimize``)."""
    n, k = T.shape
    reach = reachable_order(T, s)
    m = reach.shape[0]
    pos = np.full(n, -1, np.int32)
    for i in range(m):
        pos[reach[i]] = i
    R = np.empty((m, k), np.int32)
    acc = np.empty(m, np.bool_)
    for i in range(m):
        acc[i] = F[reach[i]]
        for c in range(k):
            R[i, c] = pos[T[reach[i], c]]
    cls = np.zeros(m, np.int64)
    for i in range(m):
        cls[i] = 1 if acc[i] else 0
    seen0 = False
    seen1 = False
    for i in range(m):
        if acc[i]:
            seen1 = True
        else:
            seen0 = True
    n_cls = int(seen0) + int(seen1)
    sig = np.empty((m, k + 1), np.int64)
    new = np.empty(m, np.int64)
    while True:
        for i in range(m):
            sig[i, 0] = cls[i]
            for c in range(k):
                sig[i, c + 1] = cls[R[i, c]]
        # stable sorts from the last column to the first: lexicographic order of the signatures
        idx = np.arange(m)
        for col in range(k, -1, -1):
            keys = sig[idx, col]
            idx = idx[np.argsort(keys, kind="mergesort")]
        count = 0
        for j in range(m):
            if j > 0:
                same = True
                for col in range(k + 1):
                    if sig[idx[j], col] != sig[idx[j - 1], col]:
                        same = False
                        break
                if not same:
                    count += 1
            new[idx[j]] = count
        count += 1
        done = count == n_cls
        n_cls = count
        for i in range(m):
            cls[i] = new[i]  # normalised ids 0..n_cls-1 (the initial 0/1 ids need not be)
        if done:
            break
    # canonical BFS numbering of the classes from the start (state 0 of R)
    rep = np.full(n_cls, -1, np.int64)
    for i in range(m):
        if rep[cls[i]] < 0:
            rep[cls[i]] = i
    num = np.full(n_cls, -1, np.int32)
    order = np.empty(n_cls, np.int64)
    order[0] = cls[0]
    num[cls[0]] = 0
    size = 1
    i = 0
    while i < size:
        q = rep[order[i]]
        for c in range(k):
            d = cls[R[q, c]]
            if num[d] < 0:
                num[d] = size
                order[size] = d
                size += 1
        i += 1
    Tm = np.empty((size, k), np.int32)
    Fm = np.empty(size, np.bool_)
    for i in range(size):
        q = rep[order[i]]
        Fm[i] = acc[q]
        for c in range(k):
            Tm[i, c] = num[cls[R[q, c]]]
    return Tm, Fm


@njit(cache=True)
def useful_states(T, F, s):
    """Reachable states that reach an accepting state."""
    n, k = T.shape
    reach = reachable_order(T, s)
    use = np.zeros(n, np.bool_)
    _live_into(
        T,
        F,
        n,
        use,
        np.empty(n, np.int32),
        np.empty(n + 1, np.int32),
        np.empty(n * k, np.int32),
        np.empty(n, np.int32),
    )
    inreach = np.zeros(n, np.bool_)
    for q in reach:
        inreach[q] = True
    return use & inreach


@njit(cache=True)
def is_empty(T, F, s):
    return not useful_states(T, F, s).any()


@njit(cache=True)
def cardinality(T, F, s):
    """Number of accepted words (-1 if infinite); int64 (exact below 2^63)."""
    n = T.shape[0]
    use = useful_states(T, F, s)
    return _finite_size(
        T,
        F,
        s,
        n,
        use,
        np.empty(n, np.int32),
        np.empty(n, np.int32),
        np.empty(n, np.int32),
        np.empty(n, np.int64),
    )


@njit(cache=True)
def is_finite(T, F, s):
    """Finite iff the useful subgraph is acyclic."""
    n = T.shape[0]
    use = useful_states(T, F, s)
    n_topo, n_use = _peel(T, n, use, np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n, np.int32))
    return n_topo == n_use


@njit(cache=True)
def acyclic_prefix(T, s):
    """The states reachable from ``s`` but from no cycle, and for each the number of words leading
    to it from ``s`` (0 elsewhere; int64, exact below 2^63). Returns (mask, counts)."""
    n = T.shape[0]
    k = T.shape[1]
    reach = np.zeros(n, np.bool_)
    for q in reachable_order(T, s):
        reach[q] = True
    topo = np.empty(n, np.int32)
    n_topo, _ = _peel(T, n, reach, np.empty(n, np.int32), np.empty(n, np.int32), topo)
    mask = np.zeros(n, np.bool_)
    paths = np.zeros(n, np.int64)
    if n_topo > 0:
        paths[s] = 1  # s has no predecessor among the peeled states, so it is ordered first
    for i in range(n_topo):
        x = topo[i]
        mask[x] = True
        for c in range(k):
            paths[T[x, c]] += paths[x]
    for q in range(n):
        if not mask[q]:
            paths[q] = 0  # the descendants of cycles got partial sums above
    return mask, paths


@njit(cache=True)
def accepts_many(T, F, s, symbols, offsets):
    """Acceptance of the words ``symbols[offsets[i]:offsets[i+1]]`` (symbol indices)."""
    n_words = offsets.shape[0] - 1
    out = np.empty(n_words, np.bool_)
    for i in range(n_words):
        q = s
        for j in range(offsets[i], offsets[i + 1]):
            q = T[q, symbols[j]]
        out[i] = F[q]
    return out


@njit(cache=True)
def _bfs_canonical(T, m, k):
    """Whether every state is reachable and numbered in breadth-first discovery order from 0
    (symbols in order): the numbering of :meth:`DFA.minimize`."""
    seen = np.zeros(m, np.bool_)
    seen[0] = True
    nxt = 1
    for q in range(m):  # states are discovered in id order iff each new target is the next id
        if q >= nxt:
            return False
        for c in range(k):
            r = T[q, c]
            if not seen[r]:
                if r != nxt:
                    return False
                seen[r] = True
                nxt += 1
    return nxt == m


@njit(cache=True)
def _is_minimal(T, F, m, k, dist):
    """No two states equivalent (pairwise distinguishability to a fixed point)."""
    for p in range(m):
        for q in range(m):
            dist[p, q] = F[p] != F[q]
    changed = True
    while changed:
        changed = False
        for p in range(m):
            for q in range(p + 1, m):
                if not dist[p, q]:
                    for c in range(k):
                        if dist[T[p, c], T[q, c]]:
                            dist[p, q] = True
                            dist[q, p] = True
                            changed = True
                            break
    for p in range(m):
        for q in range(p + 1, m):
            if not dist[p, q]:
                return False
    return True


@njit(cache=True)
def enumerate_minimal(n, k):
    """Every minimal complete DFA with <= n states over k symbols in canonical numbering: one per
    language, so no deduplication is needed. Returns (sizes, T padded to n states, F, infinite)."""
    total = 0
    for m in range(1, n + 1):
        total += m ** (m * k) * (1 << m)
    sizes = np.empty(total, np.int32)
    TT = np.zeros((total, n, k), np.int32)
    FF = np.zeros((total, n), np.bool_)
    inf = np.empty(total, np.bool_)
    dist = np.empty((n, n), np.bool_)
    out = 0
    for m in range(1, n + 1):
        T = np.empty((m, k), np.int32)
        F = np.empty(m, np.bool_)
        for t in range(m ** (m * k)):
            rest = t
            for j in range(m * k):
                T[j // k, j % k] = rest % m
                rest //= m
            if not _bfs_canonical(T, m, k):
                continue
            for mask in range(1 << m):
                for q in range(m):
                    F[q] = (mask >> q) & 1 == 1
                if not _is_minimal(T, F, m, k, dist):
                    continue
                sizes[out] = m
                TT[out, :m] = T
                FF[out, :m] = F
                inf[out] = not is_finite(T, F, 0)
                out += 1
    return sizes[:out].copy(), TT[:out].copy(), FF[:out].copy(), inf[:out].copy()


@njit(cache=True)
def pair_scan(T, F, sizes, i_lo, i_hi):
    """Over pairs i < j with i in [i_lo, i_hi): the largest finite |L_i ∩ L_j| (padded stacked DFAs,
    start 0). Returns (best size, i, j, number of finite non-empty pairs, pairs scanned)."""
    N, n, k = T.shape
    ws = _workspace(n * n, k)
    best, bi, bj, n_finite, scanned = -1, -1, -1, 0, 0
    for i in range(i_lo, i_hi):
        for j in range(i + 1, N):
            scanned += 1
            size = _product_size(T[i], F[i], T[j], F[j], sizes[j], ws)
            if size > 0:
                n_finite += 1
                if size > best:
                    best, bi, bj = size, i, j
    return best, bi, bj, n_finite, scanned


@njit(cache=True)
def intersection_sizes(BT, BF, T, F, sizes):
    """|B ∩ L_j| for every stacked DFA j (padded ``T[j]``, ``F[j]``, start 0; ``sizes[j]`` states)
    and one DFA ``B`` (start 0): the count, or -1 where the intersection is infinite."""
    N, n, k = T.shape
    ws = _workspace(BT.shape[0] * n, k)
    out = np.empty(N, np.int64)
    for j in range(N):
        out[j] = _product_size(BT, BF, T[j], F[j], sizes[j], ws)
    return out
