"""Compiled (numba) kernels of the temporal neighbour sampler (``TemporalSampler(engine="numba")``).

Same data layout as the numpy engine of :mod:`toolkit_frog.graph`: per relation, edges sorted by
(dst, time) in CSR form, so the edges of a dst node visible at seed time t are a prefix of its
segment. The numpy engine finds that prefix with one ``searchsorted`` over a composite key of all
edges and draws uniform neighbours by sorting random keys over every visible edge; here each dst
node does a binary search inside its own segment and draws its k neighbours with Floyd's
algorithm (k draws, no sort), or Knuth's selection sampling when k is large. Build: a counting
sort by dst, then a stable sort of each segment by time (O(E) plus the segments' own sorts).

Imported only when the numba engine is used (numba is a heavy import).
"""

from __future__ import annotations

import numpy as np
from numba import njit

FLOYD_MAX_K = 32  # above this, selection sampling (O(n_visible)) beats Floyd's O(k^2) duplicate check


@njit(cache=True)
def csr_by_dst_time(dst, time, n_dst):
    """(order, indptr): edge ids sorted by (dst, time), ties in edge order (a stable sort)."""
    n_edges = len(dst)
    indptr = np.zeros(n_dst + 1, np.int64)
    for e in range(n_edges):
        indptr[dst[e] + 1] += 1
    for i in range(n_dst):
        indptr[i + 1] += indptr[i]
    fill = indptr[:-1].copy()
    order = np.empty(n_edges, np.int64)
    for e in range(n_edges):
        d = dst[e]
        order[fill[d]] = e
        fill[d] += 1
    for d in range(n_dst):
        a, b = indptr[d], indptr[d + 1]
        if b - a < 2:
            continue
        is_sorted = True
        for q in range(a + 1, b):
            if time[order[q]] < time[order[q - 1]]:
                is_sorted = False
                break
        if is_sorted:
            continue
        if b - a <= 16:  # stable insertion sort
            for q in range(a + 1, b):
                e = order[q]
                te = time[e]
                p = q - 1
                while p >= a and time[order[p]] > te:
                    order[p + 1] = order[p]
                    p -= 1
                order[p + 1] = e
        else:
            seg = order[a:b].copy()
            o = np.argsort(time[seg], kind="mergesort")
            order[a:b] = seg[o]
    return order, indptr


@njit(cache=True)
def sample_relation(indptr, time_sorted, dst_nodes, t, k, uniform, seed):
    """Per dst node, its edges visible at time t (time <= t), at most k of them (k < 0: all).

    ``uniform``: k distinct visible edges drawn uniformly (seeded by ``seed``); otherwise the k
    most recent. Returns (positions into the CSR order, the dst node of each position).
    """
    n = len(dst_nodes)
    n_vis = np.empty(n, np.int64)
    total = 0
    for i in range(n):
        d = dst_nodes[i]
        lo, hi = indptr[d], indptr[d + 1]
        a = lo
        while lo < hi:  # first position whose time is > t
            mid = (lo + hi) >> 1
            if time_sorted[mid] <= t:
                lo = mid + 1
            else:
                hi = mid
        v = lo - a
        n_vis[i] = v
        total += v if (k < 0 or v <= k) else k
    pos = np.empty(total, np.int64)
    rep = np.empty(total, np.int64)
    if uniform:
        np.random.seed(seed)
    j = 0
    for i in range(n):
        d = dst_nodes[i]
        a = indptr[d]
        v = n_vis[i]
        if k < 0 or v <= k:
            for q in range(v):
                pos[j] = a + q
                rep[j] = d
                j += 1
        elif not uniform:  # the k most recent: the end of the visible prefix
            for q in range(v - k, v):
                pos[j] = a + q
                rep[j] = d
                j += 1
        elif k <= FLOYD_MAX_K:  # Floyd: for m = v-k..v-1 draw r in [0, m]; if taken, take m
            first = j
            for m in range(v - k, v):
                r = np.random.randint(0, m + 1)
                for q in range(first, j):
                    if pos[q] == a + r:
                        r = m
                        break
                pos[j] = a + r
                rep[j] = d
                j += 1
        else:  # Knuth's selection sampling: keep offset q with probability (k - taken) / (v - q)
            taken = 0
            for q in range(v):
                if np.random.random() * (v - q) < k - taken:
                    pos[j] = a + q
                    rep[j] = d
                    j += 1
                    taken += 1
                    if taken == k:
                        break
    return pos, rep


@njit(cache=True)
def visible_counts(indptr, time_sorted, nodes, t):
    """Per node, how many of its edges have time <= t (all of them, not capped by a fan-out)."""
    out = np.empty(len(nodes), np.int64)
    for i in range(len(nodes)):
        d = nodes[i]
        lo, hi = indptr[d], indptr[d + 1]
        a = lo
        while lo < hi:
            mid = (lo + hi) >> 1
            if time_sorted[mid] <= t:
                lo = mid + 1
            else:
                hi = mid
        out[i] = lo - a
    return out
