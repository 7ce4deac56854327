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
cardinality decided on the DFA; k <= 4). Two exact methods reach k = 5 (16 nodes, 16! orders), by
different arguments (proofs in their docstrings): :func:`sl_closure_dimension_pareto`, a dynamic
programme over the set of nodes placed first that keeps only undominated partial states, and
:func:`sl_closure_dimension_branch_and_bound`, a depth-first search over orders cut by the
simple-path bound. For larger k, :func:`sl_closure_dimension_bounds` gives a lower bound (local
search over orders, seeded) and an upper bound (the number of simple paths of B_k: every walk of an
acyclic D is one). Pure maths, no toolkit imports.
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
    return {
        "k": k,
        "closure_dimension": _short_words(k) + best,
        "walks": best,
        "order": " ".join(best_order),
        "witness_factors": allowed,
        "status": "exact",
        "method": "all linear orders",
        "seconds": time.perf_counter() - t0,
    }


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
    return {
        "k": k,
        "closure_dimension": best,
        "edges": " ".join(best_d),
        "finite_edge_sets": finite,
        "status": "exact",
        "method": "DFA core over every edge subset",
        "seconds": time.perf_counter() - t0,
    }


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


def sl_closure_dimension_bounds(
    k: int, seed: int = 0, restarts: int = 20, steps: int = 20_000, time_limit: float = 60.0
) -> dict:
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
    return {
        "k": k,
        "closure_dimension": _short_words(k) + best,
        "walks": best,
        "order": " ".join(best_order),
        "upper_bound": None if upper is None else _short_words(k) + upper,
        "status": "lower bound",
        "method": f"local search (seed {seed}, {restarts} restarts)",
        "seconds": time.perf_counter() - t0,
    }


_EXACT_MAX_NODES = 16  # k <= 5: 2^16 node sets; k = 6 would need 2^32


def _graph(k: int):
    nodes, edges = de_bruijn(k)
    if len(nodes) > _EXACT_MAX_NODES:
        raise ValueError(
            f"k={k}: {len(nodes)} de Bruijn nodes, 2^{len(nodes)} node sets; the exact methods "
            f"reach k <= 5, use sl_closure_dimension_bounds"
        )
    index = {v: i for i, v in enumerate(nodes)}
    succ = [[] for _ in nodes]
    pred = [[] for _ in nodes]
    for u, v, _ in edges:
        succ[index[u]].append(index[v])
        pred[index[v]].append(index[u])
    return nodes, edges, succ, pred


def _undominated(states: dict) -> dict:
    """Keep the vectors no other vector dominates (>= in every coordinate); ``states`` maps vector ->
    the order that reaches it."""
    kept: list[tuple] = []
    for vec in sorted(states, reverse=True):  # a dominating vector sorts first
        if not any(all(a >= b for a, b in zip(other, vec)) for other in kept):
            kept.append(vec)
    return {vec: states[vec] for vec in kept}


def sl_closure_dimension_pareto(k: int) -> dict:
    """Exact C(SL_k), k <= 5, by a dynamic programme over the set S of nodes placed first.

    Why it is exact. Fix an order and split it into its first |S| nodes S and the rest R. With
    end(v) the forward walks ending at v (v's own included) and start_R(r) those starting at r inside
    R, every walk is a walk in S, or one in R entered either at its start r or from a node u in S with
    an edge u -> r: walks = walks(S) + sum over r in R of (1 + sum_{u in S, u -> r} end(u)) start_R(r).
    The u that occur are the *frontier* of S (nodes of S with an edge leaving S), and every
    coefficient is >= 0, so for each fixed order of R the total is nondecreasing in the state
    (walks(S), end(u) for u in the frontier). A state dominated (<= in every coordinate) by another
    state of the same S can therefore be dropped without losing the optimum. States of S are built
    from those of S \\ {v} by placing v last: end(v) = 1 + the sum of end(u) over its predecessors u
    (all in the frontier of S \\ {v}, because v is not in it). By induction the kept states of S
    dominate every order of S, so the best state of the full node set is the optimum, and it is
    reached by the order stored with it (the witness).
    """
    t0 = time.perf_counter()
    nodes, edges, succ, pred = _graph(k)
    n = len(nodes)
    full = (1 << n) - 1
    out_mask = [sum(1 << s for s in succ[v]) for v in range(n)]

    def frontier(S: int) -> tuple[int, ...]:
        return tuple(u for u in range(n) if S >> u & 1 and out_mask[u] & ~S & full)

    layer = {0: {(0,): ()}}  # S -> {(walks(S), end of the frontier...): order}
    kept = largest = 1
    for size in range(1, n + 1):
        nxt = {}
        for combo in itertools.combinations(range(n), size):
            S = sum(1 << v for v in combo)
            front = frontier(S)
            states: dict = {}
            for v in combo:
                prev = S & ~(1 << v)
                prev_front = frontier(prev)
                slot = {u: i + 1 for i, u in enumerate(prev_front)}
                for vec, order in layer[prev].items():
                    end_v = 1 + sum(vec[slot[u]] for u in pred[v] if u in slot)
                    value = {u: vec[slot[u]] for u in prev_front}
                    value[v] = end_v
                    new = (vec[0] + end_v,) + tuple(value[u] for u in front)
                    if new not in states:
                        states[new] = order + (v,)
            nxt[S] = _undominated(states)
            kept += len(nxt[S])
            largest = max(largest, len(nxt[S]))
        layer = nxt
    ((best_vec, best_order),) = layer[full].items()
    order = tuple(nodes[i] for i in best_order)
    assert walks_in_order(order, edges) == best_vec[0]
    return {
        "k": k,
        "closure_dimension": _short_words(k) + best_vec[0],
        "walks": best_vec[0],
        "order": " ".join(order),
        "witness_factors": witness_factors(k, order, edges),
        "status": "exact",
        "method": "dynamic programme over placed node sets, undominated states only",
        "states_kept": kept,
        "largest_front": largest,
        "seconds": time.perf_counter() - t0,
    }


def simple_paths_within(k: int) -> list[list[int]]:
    """``table[R][r]``: simple paths of B_k starting at node r inside the node set R (bit mask), r's
    own included: 1 + the sum over successors s of r in R of table[R without r][s]."""
    nodes, _, succ, _ = _graph(k)
    n = len(nodes)
    table = [[0] * n for _ in range(1 << n)]
    for R in range(1, 1 << n):
        row = table[R]
        for r in range(n):
            if R >> r & 1:
                rest = table[R & ~(1 << r)]
                row[r] = 1 + sum(rest[s] for s in succ[r] if R >> s & 1 and s != r)
    return table


def sl_closure_dimension_branch_and_bound(k: int, incumbent: int = 0) -> dict:
    """Exact C(SL_k), k <= 5, by a depth-first search over orders (nodes placed left to right).

    Why it is exact (an argument apart from :func:`sl_closure_dimension_pareto`'s dominance). With S
    placed and R the rest, any completion adds, for each r in R, w(r) start_R(r) walks, where
    w(r) = 1 + the sum of end(u) over u in S with u -> r is fixed by S's order, and start_R(r), the
    forward walks from r inside R, are simple paths of B_k inside R, so at most ``table[R][r]`` of
    :func:`simple_paths_within`. A branch whose walks so far plus sum_r w(r) table[R][r] does not
    exceed the best complete order found (or ``incumbent``, a walk count to beat) cannot improve
    it and is cut. Symmetry: a <-> b maps B_k onto itself edge for edge, so some optimal order starts
    with a node beginning with ``a``; only those first nodes are tried. Returns ``walks`` = the best
    found; if it equals ``incumbent`` with no order, nothing beats the incumbent (an upper bound).
    """
    t0 = time.perf_counter()
    nodes, edges, succ, pred = _graph(k)
    n = len(nodes)
    table = simple_paths_within(k)
    full = (1 << n) - 1
    end = [0] * n
    best = [incumbent, None]
    visited = [0]
    order: list[int] = []

    def search(S: int, walks: int) -> None:
        visited[0] += 1
        R = full & ~S
        if not R:
            if walks > best[0]:
                best[0], best[1] = walks, tuple(order)
            return
        bound_row = table[R]
        weight = {}
        bound = walks
        for r in range(n):
            if R >> r & 1:
                weight[r] = 1 + sum(end[u] for u in pred[r] if S >> u & 1)
                bound += weight[r] * bound_row[r]
        if bound <= best[0]:
            return
        for r in sorted(weight, key=lambda r: -weight[r]):  # heavy nodes first: good orders early
            if not S and nodes[r][0] != "a":
                continue
            end[r] = weight[r]
            order.append(r)
            search(S | 1 << r, walks + weight[r])
            order.pop()
            end[r] = 0

    search(0, 0)
    walks, best_order = best
    row = {
        "k": k,
        "walks": walks,
        "closure_dimension": _short_words(k) + walks,
        "status": "exact",
        "method": "branch and bound over orders, simple-path bound, a <-> b symmetry",
        "incumbent": incumbent,
        "visited": visited[0],
        "seconds": time.perf_counter() - t0,
    }
    if best_order is None:
        row.update(
            order=None,
            witness_factors=None,
            status="exact" if incumbent == 0 else f"upper bound: no order has more than {incumbent} walks",
        )
    else:
        named = tuple(nodes[i] for i in best_order)
        assert walks_in_order(named, edges) == walks
        row.update(order=" ".join(named), witness_factors=witness_factors(k, named, edges))
    return row
