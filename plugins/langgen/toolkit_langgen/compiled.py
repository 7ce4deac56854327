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


@njit(cache=True)
def product(TA, FA, sa, TB, FB, sb, op):
    """Reachable product automaton (start 0), BFS numbering; ``op`` one of OP_*."""
    na, k = TA.shape
    nb = TB.shape[0]
    ids = np.full(na * nb, -1, np.int32)
    order = np.empty(na * nb, np.int32)
    ids[sa * nb + sb] = 0
    order[0] = sa * nb + sb
    n = 1
    i = 0
    T = np.empty((na * nb, k), np.int32)
    while i < n:
        p = order[i] // nb
        q = order[i] % nb
        for c in range(k):
            nxt = TA[p, c] * nb + TB[q, c]
            j = ids[nxt]
            if j < 0:
                j = n
                ids[nxt] = n
                order[n] = nxt
                n += 1
            T[i, c] = j
        i += 1
    F = np.empty(n, np.bool_)
    for i in range(n):
        a = FA[order[i] // nb]
        b = FB[order[i] % nb]
        if op == 0:
            F[i] = a and b
        elif op == 1:
            F[i] = a or b
        elif op == 2:
            F[i] = a and not b
        else:
            F[i] = a != b
    return T[:n].copy(), F


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
    inreach = np.zeros(n, np.bool_)
    for q in reach:
        inreach[q] = True
    live = np.zeros(n, np.bool_)
    stack = np.empty(n, np.int32)
    top = 0
    for q in reach:
        if F[q]:
            live[q] = True
            stack[top] = q
            top += 1
    # reverse edges restricted to reachable states
    indeg = np.zeros(n + 1, np.int32)
    for q in reach:
        for c in range(k):
            indeg[T[q, c] + 1] += 1
    for q in range(n):
        indeg[q + 1] += indeg[q]
    src = np.empty(indeg[n], np.int32)
    fill = indeg[:n].copy()
    for q in reach:
        for c in range(k):
            r = T[q, c]
            src[fill[r]] = q
            fill[r] += 1
    while top > 0:
        top -= 1
        r = stack[top]
        for j in range(indeg[r], indeg[r + 1]):
            q = src[j]
            if not live[q]:
                live[q] = True
                stack[top] = q
                top += 1
    return live & inreach


@njit(cache=True)
def is_empty(T, F, s):
    return not useful_states(T, F, s).any()


@njit(cache=True)
def is_finite(T, F, s):
    """Finite iff the useful subgraph is acyclic (Kahn's algorithm)."""
    n, k = T.shape
    use = useful_states(T, F, s)
    indeg = np.zeros(n, np.int32)
    for q in range(n):
        if use[q]:
            for c in range(k):
                if use[T[q, c]]:
                    indeg[T[q, c]] += 1
    stack = np.empty(n, np.int32)
    top = 0
    for q in range(n):
        if use[q] and indeg[q] == 0:
            stack[top] = q
            top += 1
    removed = 0
    while top > 0:
        top -= 1
        q = stack[top]
        removed += 1
        for c in range(k):
            r = T[q, c]
            if use[r]:
                indeg[r] -= 1
                if indeg[r] == 0:
                    stack[top] = r
                    top += 1
    return removed == use.sum()


@njit(cache=True)
def cardinality(T, F, s):
    """Number of accepted words (-1 if infinite); int64 (exact below 2^63)."""
    if not is_finite(T, F, s):
        return -1
    n, k = T.shape
    use = useful_states(T, F, s)
    if not use[s]:
        return 0
    # count(q) = [F q] + sum over useful successors; memoised DFS by repeated relaxation in
    # reverse topological order (the useful graph is acyclic)
    indeg = np.zeros(n, np.int32)
    for q in range(n):
        if use[q]:
            for c in range(k):
                if use[T[q, c]]:
                    indeg[T[q, c]] += 1
    topo = np.empty(n, np.int32)
    stack = np.empty(n, np.int32)
    top = 0
    m = 0
    for q in range(n):
        if use[q] and indeg[q] == 0:
            stack[top] = q
            top += 1
    while top > 0:
        top -= 1
        q = stack[top]
        topo[m] = q
        m += 1
        for c in range(k):
            r = T[q, c]
            if use[r]:
                indeg[r] -= 1
                if indeg[r] == 0:
                    stack[top] = r
                    top += 1
    cnt = np.zeros(n, np.int64)
    for i in range(m - 1, -1, -1):
        q = topo[i]
        v = 1 if F[q] else 0
        for c in range(k):
            r = T[q, c]
            if use[r]:
                v += cnt[r]
        cnt[q] = v
    return cnt[s]


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
    start 0). Returns (best size, i, j, number of finite pairs, pairs scanned)."""
    N, n, k = T.shape
    P = n * n
    ids = np.empty(P, np.int32)
    order = np.empty(P, np.int32)
    PT = np.empty((P, k), np.int32)
    PF = np.empty(P, np.bool_)
    live = np.empty(P, np.bool_)
    indeg = np.empty(P, np.int32)
    stack = np.empty(P, np.int32)
    topo = np.empty(P, np.int32)
    cnt = np.empty(P, np.int64)
    best, bi, bj, n_finite, scanned = -1, -1, -1, 0, 0
    for i in range(i_lo, i_hi):
        na = sizes[i]
        for j in range(i + 1, N):
            nb = sizes[j]
            scanned += 1
            for x in range(na * nb):
                ids[x] = -1
            ids[0] = 0
            order[0] = 0
            m = 1
            h = 0
            while h < m:
                p = order[h] // nb
                q = order[h] % nb
                for c in range(k):
                    nxt = T[i, p, c] * nb + T[j, q, c]
                    if ids[nxt] < 0:
                        ids[nxt] = m
                        order[m] = nxt
                        m += 1
                    PT[h, c] = ids[nxt]
                PF[h] = F[i, order[h] // nb] and F[j, order[h] % nb]
                h += 1
            # live states (reach an accepting state): fixed point (m <= 16)
            for x in range(m):
                live[x] = PF[x]
            changed = True
            while changed:
                changed = False
                for x in range(m):
                    if not live[x]:
                        for c in range(k):
                            if live[PT[x, c]]:
                                live[x] = True
                                changed = True
                                break
            if not live[0]:
                continue
            for x in range(m):
                indeg[x] = 0
            for x in range(m):
                if live[x]:
                    for c in range(k):
                        if live[PT[x, c]]:
                            indeg[PT[x, c]] += 1
            top = 0
            for x in range(m):
                if live[x] and indeg[x] == 0:
                    stack[top] = x
                    top += 1
            removed = 0
            while top > 0:
                top -= 1
                x = stack[top]
                topo[removed] = x
                removed += 1
                for c in range(k):
                    r = PT[x, c]
                    if live[r]:
                        indeg[r] -= 1
                        if indeg[r] == 0:
                            stack[top] = r
                            top += 1
            n_live = 0
            for x in range(m):
                if live[x]:
                    n_live += 1
            if removed != n_live:
                continue  # a cycle among live states: infinite
            n_finite += 1
            for t in range(removed - 1, -1, -1):
                x = topo[t]
                v = 1 if PF[x] else 0
                for c in range(k):
                    r = PT[x, c]
                    if live[r]:
                        v += cnt[r]
                cnt[x] = v
            if cnt[0] > best:
                best, bi, bj = cnt[0], i, j
    return best, bi, bj, n_finite, scanned


@njit(cache=True)
def intersection_sizes(BT, BF, T, F, sizes):
    """|B ∩ L_j| for every stacked DFA j (padded ``T[j]``, ``F[j]``, start 0; ``sizes[j]`` states)
    and one DFA ``B`` (start 0): the count, or -1 where the intersection is infinite."""
    N, n, k = T.shape
    nb = BT.shape[0]
    P = nb * n
    ids = np.empty(P, np.int32)
    order = np.empty(P, np.int32)
    PT = np.empty((P, k), np.int32)
    PF = np.empty(P, np.bool_)
    out = np.empty(N, np.int64)
    for j in range(N):
        nj = sizes[j]
        for x in range(nb * nj):
            ids[x] = -1
        ids[0] = 0
        order[0] = 0
        m = 1
        h = 0
        while h < m:
            p = order[h] // nj
            q = order[h] % nj
            for c in range(k):
                nxt = BT[p, c] * nj + T[j, q, c]
                if ids[nxt] < 0:
                    ids[nxt] = m
                    order[m] = nxt
                    m += 1
                PT[h, c] = ids[nxt]
            PF[h] = BF[order[h] // nj] and F[j, order[h] % nj]
            h += 1
        out[j] = cardinality(PT[:m], PF[:m], 0)
    return out
