"""Closure dimension of the strictly local class SL_k over {a, b} (RECON, ours).

SL_k = the infinite languages L(A) = {w : every length-k factor of <w> is in A} (a padded word
<w> shorter than k is its own factor), A any set of factors. Two facts give C(SL_k) exactly:

1. L(A) ∩ L(B) = L(A ∩ B), and every finite L(A) is L(A ∪ X) ∩ L(A ∪ Y) with X, Y the factors of
   <a^N>, <b^N> (disjoint for k >= 2, and both unions infinite). So C(SL_k) = the largest finite
   SL_k language.
2. A word of length m >= k - 1 is a walk of m - k + 1 edges in the de Bruijn graph B_k on the
   (k-1)-words (edges: the k-words), entered by the factor <u and left by u>; shorter words are
   single factors. Allowing every entry, exit and short word costs nothing and L(A) is finite iff
   the allowed edges D are acyclic; an acyclic D lies in the forward edges of a linear order of the
   nodes. So C(SL_k) = (2^(k-1) - 1) + max over linear orders of the number of walks (of length
   >= 0) in the forward-edge subgraph.

:func:`sl_closure_dimension_orders` maximises over all orders (k <= 4: 8! orders);
:func:`sl_closure_dimension_dfa` is the independent check through the DFA core (every edge subset
D, the language built by :func:`~toolkit_langgen.languages.strictly_local`, finiteness and
cardinality decided on the DFA; k <= 4). For larger k, :func:`sl_closure_dimension_bounds` gives a
lower bound (local search over orders, seeded) and an upper bound (the number of simple paths of
B_k: every walk of an acyclic D is one). Pure maths, no toolkit imports.
"""

from __future__ import annotations

import itertools
import random
import time


def de_bruijn(k: int, alphabet=("a", "b")):
    """Nodes (the (k-1)-words) and the non-loop edges (u, v, factor) of B_k."""
    if k < 2:
        raise ValueError(f"SL_k closure dimension needs k >= 2, got {k}")
    nodes = ["".join(p) for p in itertools.product(alphabet, repeat=k - 1)]
    edges = []
    for f in ("".join(p) for p in itertools.product(alphabet, repeat=k)):
        u, v = f[:-1], f[1:]
        if u != v:
            edges.append((u, v, f))
    return nodes, edges


def _short_words(k: int) -> int:
    return 2 ** (k - 1) - 1  # words of length <= k - 2 (one factor each)


def walks_in_order(order, edges) -> int:
    """Number of walks (single nodes included) in the forward edges of ``order``."""
    pos = {v: i for i, v in enumerate(order)}
    into = {v: [] for v in order}
    for u, v, _ in edges:
        if pos[u] < pos[v]:
            into[v].append(u)
    ending = {}
    for v in order:
        ending[v] = 1 + sum(ending[u] for u in into[v])
    return sum(ending.values())


def sl_closure_dimension_orders(k: int) -> dict:
    """Exact C(SL_k) by maximising over every linear order of B_k's nodes (k <= 4)."""
    t0 = time.perf_counter()
    nodes, edges = de_bruijn(k)
    if len(nodes) > 8:
        raise ValueError(f"k={k}: {len(nodes)}! orders; use sl_closure_dimension_bounds")
    best, best_order = -1, None
    for order in itertools.permutations(nodes):
        w = walks_in_order(order, edges)
        if w > best:
            best, best_order = w, order
    allowed = witness_factors(k, best_order, edges)
    return {"k": k, "closure_dimension": _short_words(k) + best, "walks": best, "order": " ".join(best_order),
            "witness_factors": allowed, "status": "exact", "method": "all linear orders",
            "seconds": time.perf_counter() - t0}


def witness_factors(k: int, order, edges) -> tuple[str, ...]:
    """The allowed factors A of the witness: every short word, entry, exit, and the forward edges."""
    pos = {v: i for i, v in enumerate(order)}
    fs = {"<" + "".join(p) + ">" for n in range(k - 1) for p in itertools.product("ab", repeat=n)}
    fs |= {"<" + v for v in order} | {v + ">" for v in order}
    fs |= {f for u, v, f in edges if pos[u] < pos[v]}
    return tuple(sorted(fs))


def sl_language(k: int, factors):
    from toolkit_langgen.languages import strictly_local

    return strictly_local(k, factors)


def sl_closure_dimension_dfa(k: int) -> dict:
    """Independent check: max |L(A)| over A = (shorts, entries, exits) ∪ D for every edge subset D,
    on the DFA core (k <= 4: 2^14 languages)."""
    t0 = time.perf_counter()
    nodes, edges = de_bruijn(k)
    if len(edges) > 14:
        raise ValueError(f"k={k}: 2^{len(edges)} edge subsets")
    base = {"<" + "".join(p) + ">" for n in range(k - 1) for p in itertools.product("ab", repeat=n)}
    base |= {"<" + v for v in nodes} | {v + ">" for v in nodes}
    best, best_d, finite = 0, (), 0
    for mask in range(2 ** len(edges)):
        D = {edges[i][2] for i in range(len(edges)) if mask >> i & 1}
        L = sl_language(k, base | D)
        if L.is_finite():
            finite += 1
            size = int(L.cardinality())
            if size > best:
                best, best_d = size, tuple(sorted(D))
    return {"k": k, "closure_dimension": best, "edges": " ".join(best_d), "finite_edge_sets": finite,
            "status": "exact", "method": "DFA core over every edge subset", "seconds": time.perf_counter() - t0}


def simple_paths(k: int) -> int:
    """Number of simple paths (single nodes included) of B_k: an upper bound on the walks of any
    acyclic edge set."""
    nodes, edges = de_bruijn(k)
    out = {v: [] for v in nodes}
    for u, v, _ in edges:
        out[u].append(v)
    total = 0

    def dfs(v, seen):
        nonlocal total
        total += 1
        for r in out[v]:
            if r not in seen:
                seen.add(r)
                dfs(r, seen)
                seen.remove(r)

    for v in nodes:
        dfs(v, {v})
    return total


def sl_closure_dimension_bounds(k: int, seed: int = 0, restarts: int = 20, steps: int = 20_000,
                                time_limit: float = 60.0) -> dict:
    """Certified bounds on C(SL_k): a lower bound from the best order found by local search (swap and
    move steps, seeded; the order itself is the witness) and the simple-path upper bound."""
    t0 = time.perf_counter()
    nodes, edges = de_bruijn(k)
    rng = random.Random(seed)
    best, best_order = -1, None
    for _ in range(restarts):
        order = nodes[:]
        rng.shuffle(order)
        cur = walks_in_order(order, edges)
        for _ in range(steps):
            if time.perf_counter() - t0 > time_limit:
                break
            i, j = rng.randrange(len(order)), rng.randrange(len(order))
            cand = order[:]
            cand.insert(j, cand.pop(i))
            w = walks_in_order(cand, edges)
            if w >= cur:
                order, cur = cand, w
        if cur > best:
            best, best_order = cur, order
    upper = simple_paths(k) if len(nodes) <= 16 else None
    return {"k": k, "closure_dimension": _short_words(k) + best, "walks": best, "order": " ".join(best_order),
            "upper_bound": None if upper is None else _short_words(k) + upper, "status": "lower bound",
            "method": f"local search (seed {seed}, {restarts} restarts)", "seconds": time.perf_counter() - t0}
