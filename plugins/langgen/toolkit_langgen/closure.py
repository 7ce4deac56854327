"""Closure dimension C(H) of finite classes of regular languages, exact or explicitly unresolved.

C(H) = largest |S| with VS(H, S) non-empty and <S>_H finite (Li-Raman-Tewari). We use the
equivalent form C(H) = max{|∩F| : F ⊆ H non-empty, ∩F finite} (0 if no such F; RECON, easy: the
closure of S is the intersection of VS(S) ⊇ S, and conversely S = ∩F is its own closure).

Search: best-first over the distinct intersection languages (canonical minimal DFAs). Only
infinite intersections are expanded (each carries a pumping certificate x y^j z); a member L with
I ⊆ L is dropped (it leaves I unchanged). Every maximal finite intersection is a child of an
infinite one, so the search is exact when it finishes; when a cap is hit the result says
``status="unresolved"``, which cap, and how many infinite intersections were left unexpanded.

For classes of <= n-state DFAs, :func:`closure_dimension_power_free` is exact whenever the
(n-1)-power-free words are finite (binary n <= 3): it proves C(DFA_3) = 6 in about a second.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from toolkit_langgen.dfa import DFA, enumerate_dfa_languages
from toolkit_langgen.languages import ltt_automaton


@dataclass
class ClosureResult:
    value: int  # exact C(H) if status == "exact", else a certified lower bound
    status: str  # "exact" | "unresolved"
    witness_family: tuple[int, ...]  # indices F with |∩F| = value (empty if value == 0 and no F)
    witness_words: tuple[str, ...]
    nodes_expanded: int
    intersections_seen: int
    unexpanded: int = 0  # infinite intersections left unexpanded (status unresolved)
    cap_hit: str = ""  # which cap stopped the search
    seconds: float = 0.0
    certificates: dict = field(default_factory=dict, repr=False)  # node key -> (x, y, z)

    def row(self) -> dict:
        return {
            "closure_dimension": self.value,
            "status": self.status,
            "nodes_expanded": self.nodes_expanded,
            "intersections_seen": self.intersections_seen,
            "unexpanded": self.unexpanded,
            "cap_hit": self.cap_hit,
            "seconds": self.seconds,
            "witness": " ".join(w or "ε" for w in self.witness_words),
        }


def _size_key(dfa: DFA, length: int = 6) -> int:
    # explore small languages first: their intersections become finite sooner
    return sum(dfa.count_words_of_length(n) for n in range(length + 1))


def closure_dimension(
    languages: Sequence[DFA],
    *,
    include: int | None = None,
    max_nodes: int = 100_000,
    time_limit: float | None = None,
    max_states: int = 10_000,
) -> ClosureResult:
    """C(H) for a finite class of infinite regular languages (see module doc).

    :param include: only families containing ``languages[include]`` (the largest finite closed set
        seen by that target, used by the intersection-first adversary).
    :param max_nodes: cap on expanded infinite intersections.
    :param time_limit: cap in seconds.
    :param max_states: intersections whose minimal DFA exceeds this are left unexpanded.
    """
    t0 = time.perf_counter()
    langs = [L.minimize() for L in languages]
    for i, L in enumerate(langs):
        if L.is_finite():
            raise ValueError(f"class member {i} is finite; classes hold infinite languages only")
    best, best_family, best_words = 0, (), ()
    seen: dict = {}
    heap: list = []
    counter = itertools.count()
    certificates = {}
    starts = [include] if include is not None else range(len(langs))
    for i in starts:
        key = langs[i].key()
        if key not in seen:
            seen[key] = (i,)
            certificates[key] = langs[i].pumping_certificate()
            heapq.heappush(heap, (_size_key(langs[i]), next(counter), langs[i], (i,)))
    expanded, skipped_states, cap = 0, 0, ""
    while heap:
        if expanded >= max_nodes:
            cap = f"max_nodes={max_nodes}"
            break
        if time_limit is not None and time.perf_counter() - t0 > time_limit:
            cap = f"time_limit={time_limit}s"
            break
        _, _, node, family = heapq.heappop(heap)
        if node.n_states > max_states:
            skipped_states += 1
            continue
        expanded += 1
        pkey = node.key()
        for j, L in enumerate(langs):
            child = node.product(L, "and")
            ckey = child.key()
            if ckey == pkey or ckey in seen:
                continue  # L ⊇ node (non-minimal), or an intersection already found
            child = child.minimize()
            fam = family + (j,)
            seen[ckey] = fam
            if child.is_finite():
                size = child.cardinality()
                if size > best:
                    best, best_family, best_words = size, fam, tuple(child.words(child.n_states))
            else:
                certificates[ckey] = child.pumping_certificate()
                heapq.heappush(heap, (_size_key(child), next(counter), child, fam))
    unexpanded = len(heap) + skipped_states
    if skipped_states and not cap:
        cap = f"max_states={max_states}"
    status = "exact" if unexpanded == 0 else "unresolved"
    return ClosureResult(
        best,
        status,
        tuple(sorted(set(best_family))),
        best_words,
        expanded,
        len(seen),
        unexpanded,
        cap,
        time.perf_counter() - t0,
        certificates,
    )


def closure_dimension_bruteforce(languages: Sequence[DFA]) -> int:
    """Reference: max |∩F| over all 2^N - 1 subfamilies (small N only)."""
    best = 0
    for r in range(1, len(languages) + 1):
        for fam in itertools.combinations(languages, r):
            inter = fam[0]
            for L in fam[1:]:
                inter = inter.product(L, "and")
            if inter.is_finite():
                best = max(best, inter.cardinality())
    return best


def bounded_closure_evidence(languages, max_length: int, max_members: int = 12) -> dict:
    """Bounded-length evidence for C(H) when members are CFGs or patterns (∩ finiteness undecidable):
    over every subfamily F, the words of ∩F up to ``max_length``; F *looks finite* when ∩F has no word
    of length in (max_length // 2, max_length]. Reports the largest such |∩F ∩ Σ^{<= max_length}|:
    evidence, neither a bound nor exact."""
    from toolkit_langgen.languages import all_words

    if len(languages) > max_members:
        raise ValueError(
            f"bounded-length evidence tries every subfamily: at most {max_members} members, "
            f"got {len(languages)}"
        )
    words = all_words(languages[0].alphabet, max_length)
    sets = [frozenset(w for w in words if w in L) for L in languages]
    best, best_family, looks_finite = 0, (), 0
    for r in range(1, len(sets) + 1):
        for fam in itertools.combinations(range(len(sets)), r):
            inter = frozenset.intersection(*(sets[i] for i in fam))
            if any(len(w) > max_length // 2 for w in inter):
                continue
            looks_finite += 1
            if len(inter) > best or (len(inter) == best and not best_family):
                best, best_family = len(inter), fam
    witness = (
        sorted(frozenset.intersection(*(sets[i] for i in best_family)), key=lambda w: (len(w), w))
        if best_family
        else []
    )
    return {
        "closure_dimension": best,
        "status": f"bounded-length evidence (<= {max_length})",
        "witness": " ".join(w or "ε" for w in witness),
        "witness_family": " ".join(map(str, best_family)),
        "subfamilies_looking_finite": looks_finite,
    }


def closure_of(languages: Sequence[DFA], sample) -> DFA | None:
    """<S>_H: intersection of the version space; None if no language is consistent."""
    vs = [L for L in languages if all(w in L for w in sample)]
    if not vs:
        return None
    inter = vs[0]
    for L in vs[1:]:
        inter = inter.product(L, "and")
    return inter.minimize()


# -- size-indexed classes ------------------------------------------------------------------------------
def dfa_class(n: int) -> list[DFA]:
    """H_n: the infinite languages of complete binary DFAs with <= n states, one DFA each."""
    langs, inf = enumerate_dfa_languages(n)
    return [L for L, i in zip(langs, inf) if i]


CERTIFICATE_DFA3 = ("no factor bb", "(a|b)*bb(a|b)*", "at most one a", "b*|b*ab*")


def ltt_profile_classes(k: int, t: int, alphabet=("a", "b"), method: str = "compiled"):
    """The LTT(k, t) profile classes: list of (profile, size) with size = inf for infinite classes.
    ``method``: "compiled" (numba cardinality on the profile automaton) or "python" (the DFA core)."""
    if method not in ("compiled", "python"):
        raise ValueError(f"method must be 'compiled' or 'python', got {method!r}")
    alphabet, trans, finals = ltt_automaton(k, t, alphabet)
    by_profile: dict = {}
    for q, p in enumerate(finals):
        by_profile.setdefault(p, []).append(q)
    out = []
    if method == "compiled":
        import numpy as np

        from toolkit_langgen import compiled as C

        T = np.asarray(trans, np.int32)
    for p, states in by_profile.items():
        acc = [False] * len(trans)
        for q in states:
            acc[q] = True
        if method == "python":
            out.append((p, DFA(alphabet, trans, acc, 0).cardinality()))
        else:
            size = int(C.cardinality(T, np.asarray(acc, np.bool_), 0))
            out.append((p, math.inf if size < 0 else size))
    return out


def ltt_closure_dimension(k: int, t: int, alphabet=("a", "b")) -> dict:
    """C(LTT(k, t)) = total size of the finite profile classes (RECON).

    LTT(k, t) languages are exactly the unions of profile classes, so the class is a Boolean algebra.
    A finite intersection of members is a finite union of classes, hence <= the union U of all finite
    classes; and U = (U ∪ X) ∩ (U ∪ Y) for two distinct infinite classes X, Y (those of a^N and b^N),
    both infinite members. So C = |U|.
    """
    classes = ltt_profile_classes(k, t, alphabet)
    finite = [s for _, s in classes if s != math.inf]
    n_inf = len(classes) - len(finite)
    if n_inf < 2:
        raise ValueError("the identity needs two infinite profile classes")
    return {
        "k": k,
        "t": t,
        "closure_dimension": int(sum(finite)),
        "profile_classes": len(classes),
        "finite_classes": len(finite),
        "infinite_classes": n_inf,
    }


def ltt_finite_class_words_automaton(k: int, t: int, alphabet=("a", "b"), list_words: bool = True) -> dict:
    """The words of the finite LTT(k, t) profile classes in one pass over the profile automaton
    (compiled core), instead of one cardinality per class.

    Every word w leads to one state q_w, and its profile is that state's final profile. In a DFA whose
    states are all reachable, infinitely many words lead to q iff q is reachable from a cycle; so a
    profile's class is infinite iff some state reachable from a cycle carries it, and otherwise its
    words are the paths to the states that carry it, all of which avoid cycles (Kahn's peeling:
    ``compiled.acyclic_prefix``). C(LTT(k, t)) is the number of those paths; ``list_words`` also lists
    them (depth-first over the peeled states, shortlex-sorted).
    """
    import numpy as np

    from toolkit_langgen import compiled as C

    alphabet, trans, finals = ltt_automaton(k, t, alphabet)
    T = np.asarray(trans, np.int32)
    peeled, paths = C.acyclic_prefix(T, 0)
    infinite = {finals[q] for q in np.flatnonzero(~peeled)}
    in_finite = [bool(peeled[q]) and finals[q] not in infinite for q in range(len(finals))]
    size = int(sum(int(paths[q]) for q in range(len(finals)) if in_finite[q]))
    out = {
        "k": k,
        "t": t,
        "closure_dimension": size,
        "states": len(finals),
        "profile_classes": len(set(finals)),
        "infinite_classes": len(infinite),
    }
    if list_words:
        words, stack = [], [(0, "")]
        while stack:
            q, w = stack.pop()
            if in_finite[q]:
                words.append(w)
            stack.extend((int(T[q, c]), w + ch) for c, ch in enumerate(alphabet) if peeled[T[q, c]])
        words.sort(key=lambda w: (len(w), w))
        assert len(words) == size
        out["words"] = words
    return out


def ltt_union_class(k: int, t: int, alphabet=("a", "b")) -> list[DFA]:
    """Every infinite LTT(k, t) language (all unions of profile classes): for cross-checks, tiny k, t."""
    alphabet, trans, finals = ltt_automaton(k, t, alphabet)
    profiles = sorted(set(finals), key=repr)
    if len(profiles) > 12:
        raise ValueError(f"LTT({k},{t}) has {len(profiles)} profile classes: too many to list every union")
    out = []
    for mask in range(1, 2 ** len(profiles)):
        chosen = {p for i, p in enumerate(profiles) if mask >> i & 1}
        L = DFA(alphabet, trans, [p in chosen for p in finals], 0).minimize()
        if not L.is_finite():
            out.append(L)
    return out


def pairwise_lower_bound(languages: Sequence[DFA], chunk: int = 20_000) -> dict:
    """Certified lower bound on C(H) from all pairs: max |L_i ∩ L_j| over finite pair intersections.

    Finiteness of every pair is decided in vectorised batches (product-graph transitive closure);
    the finite ones are then counted exactly with the per-DFA core.
    """
    import numpy as np

    from toolkit_langgen.dfa import batch_intersection_finite, stack_dfas

    t0 = time.perf_counter()
    T, F = stack_dfas(list(languages))
    ii, jj = np.triu_indices(len(languages), k=1)
    best, best_pair, n_finite = 0, (), 0
    for lo in range(0, len(ii), chunk):
        a, b = ii[lo : lo + chunk], jj[lo : lo + chunk]
        empty, finite = batch_intersection_finite(T[a], F[a], T[b], F[b])
        for idx in np.nonzero(finite)[0]:
            n_finite += 1
            i, j = int(a[idx]), int(b[idx])
            size = languages[i].product(languages[j], "and").cardinality()
            if size > best:
                best, best_pair = size, (i, j)
    words = tuple(languages[best_pair[0]].intersect(languages[best_pair[1]]).words(64)) if best_pair else ()
    return {
        "lower_bound": int(best),
        "pair": best_pair,
        "words": words,
        "pairs": len(ii),
        "finite_pairs": n_finite,
        "seconds": time.perf_counter() - t0,
    }


# -- exact C(H) for classes of <= n-state DFAs via power-free words -----------------------------------
def power_free_words(alphabet: Sequence[str], k: int, max_words: int = 100_000) -> list[str] | None:
    """All words with no factor y^k (y non-empty), shortlex; None if there are more than ``max_words``
    (the set is infinite for binary k >= 3). Built by extension: a word is k-power-free iff its prefix
    is and no suffix is a k-th power."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")

    def suffix_power(w: str) -> bool:
        for p in range(1, len(w) // k + 1):
            y = w[len(w) - p :]
            if w.endswith(y * k):
                return True
        return False

    out, level = [""], [""]
    while level:
        nxt = [w + s for w in level for s in alphabet if not suffix_power(w + s)]
        out.extend(nxt)
        if len(out) > max_words:
            return None
        level = nxt
    return out


@dataclass
class PowerFreeResult:
    value: int  # exact C(H)
    status: str  # "exact" | "unresolved"
    n_states: int  # every language has a <= n_states DFA
    power: int  # k = max(n_states - 1, 1): words with a factor y^k have an infinite closure
    ground_set: tuple[str, ...]  # the k-power-free words (every finite closed set lies inside)
    closed_sets: int  # finite closed sets found (VS non-empty)
    witness_words: tuple[str, ...]
    witness_family: tuple[int, ...]  # VS(witness): its intersection is the witness
    reason: str = ""
    seconds: float = 0.0

    def row(self) -> dict:
        return {
            "closure_dimension": self.value,
            "status": self.status,
            "power": self.power,
            "ground_set": len(self.ground_set),
            "closed_sets": self.closed_sets,
            "cap_hit": self.reason,
            "seconds": self.seconds,
            "witness": " ".join(w or "ε" for w in self.witness_words),
        }


def closure_dimension_power_free(
    languages: Sequence[DFA], n_states: int | None = None, max_ground: int = 4096
) -> PowerFreeResult:
    """Exact C(H) for a finite class of infinite languages each given by a DFA with <= n states.

    Lemma (ours, RECON): if w = x y^k z with y non-empty and k >= n - 1, every <= n-state DFA
    language containing w contains x y^(k + P i) z for all i >= 0, P = lcm(1..n) (the states
    reached by x y^j have a tail of length <= n - 1 and a cycle of length c | P). So the closure
    <{w}> of such a w is infinite, and every finite closed set <S> lies inside the set G of
    k-power-free words (k = max(n - 1, 1)). Over two letters G is finite for n <= 3 (binary
    square-free words: ε, a, b, ab, ba, aba, bab). The finite closed sets are then enumerated
    exactly: starting from <∅>, add one word of G at a time and take the closure (every finite
    closed set T is reached by adding its own words in any order, each intermediate closure being
    inside T). A closure is finite iff the running intersection of its version space becomes
    finite (decided on the product DFA); its words are then those of G in every member.
    When G is infinite or larger than ``max_ground``, returns ``status="unresolved"`` with the reason.
    """
    t0 = time.perf_counter()
    langs = [L.minimize() for L in languages]
    if not langs:
        raise ValueError("languages must be a non-empty class")
    n_max = max(L.n_states for L in langs)
    n = n_max if n_states is None else n_states
    if n < n_max:
        raise ValueError(f"n_states={n} but a member's minimal DFA has {n_max} states")
    for i, L in enumerate(langs):
        if L.is_finite():
            raise ValueError(f"class member {i} is finite; classes hold infinite languages only")
    k = max(n - 1, 1)
    G = power_free_words(langs[0].alphabet, k, max_words=max_ground)
    if G is None:
        return PowerFreeResult(
            0,
            "unresolved",
            n,
            k,
            (),
            0,
            (),
            (),
            f"more than {max_ground} {k}-power-free words",
            time.perf_counter() - t0,
        )
    member = [[g in L for g in G] for L in langs]  # member[i][j]: G[j] in L_i
    order = sorted(range(len(langs)), key=lambda i: _size_key(langs[i]))  # small first: finite sooner
    memo: dict[frozenset, frozenset | None] = {}

    def closure(S: frozenset) -> tuple[frozenset | None, tuple[int, ...]]:
        """(<S> ∩ G if <S> is finite else None, VS(S)); VS empty -> (None, ())."""
        vs = tuple(i for i in order if all(member[i][j] for j in S))
        key = frozenset(vs)
        if not vs:
            return None, ()
        if key not in memo:
            inter = langs[vs[0]]
            fin = inter.is_finite()
            for i in vs[1:]:
                if fin:
                    break
                inter = inter.product(langs[i], "and").minimize()
                fin = inter.is_finite()
            memo[key] = frozenset(j for j in range(len(G)) if all(member[i][j] for i in vs)) if fin else None
        return memo[key], vs

    best, best_words, best_family = 0, (), ()
    start, vs0 = closure(frozenset())
    found: set[frozenset] = set()
    frontier = [frozenset()] if start is None else [start]
    if start is not None:
        found.add(start)
        best, best_words, best_family = len(start), tuple(G[x] for x in sorted(start)), tuple(sorted(vs0))
    while frontier:
        nxt = []
        for C in frontier:
            for j in range(len(G)):
                if j in C:
                    continue
                D, vs = closure(C | {j})
                if D is None or D in found:
                    continue
                found.add(D)
                nxt.append(D)
                if len(D) > best:
                    best, best_words, best_family = len(D), tuple(G[x] for x in sorted(D)), tuple(sorted(vs))
        frontier = nxt
    # words of G in a finite closure are sorted by G's shortlex index
    return PowerFreeResult(
        best, "exact", n, k, tuple(G), len(found), best_words, best_family, "", time.perf_counter() - t0
    )
