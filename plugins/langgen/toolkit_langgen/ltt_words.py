"""C(LTT(k, t)) by enumerating the words whose profile class is finite (RECON, ours): a second
computation, independent of the profile automaton of ``closure.ltt_closure_dimension``. Pure maths.

Lemma. Call a factor of length k of <w> *saturated* when it is mark-free (no < or >) and occurs at
least t times in <w>; the saturated factors are the edges f[:-1] -> f[1:] of a graph on the
(k−1)-factors. The profile class of w is finite iff that graph is acyclic.
(⇐ infinite) a cycle of saturated edges passes through a (k−1)-factor that <w> visits (every
edge is used by <w>); splicing the cycle into <w> there raises only counts that are already >= t,
so the profile is unchanged and the words get arbitrarily long. (⇒) words of one class use the same
factors and the same counts below t; a long word in the class therefore has a long run of
consecutive saturated mark-free factors, which revisits a (k−1)-factor: a saturated cycle.
Saturation only grows when a word is extended, so once the graph of ``<p`` has a cycle, every
extension of p has an infinite class: a depth-first search over prefixes with that pruning visits
exactly the words with finite classes (a word with |<w>| < k has no factor and is its own class),
and finishes because long prefixes have cycles. C(LTT(k, t)) is their number (the finite classes
partition them; their union is the largest finite intersection, see ``ltt_closure_dimension``).
"""

from __future__ import annotations

from toolkit_langgen.languages import LEFT_MARK


def _reaches(graph: dict, src: str, dst: str) -> bool:
    stack, seen = [src], {src}
    while stack:
        u = stack.pop()
        if u == dst:
            return True
        for v in graph.get(u, ()):
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return False


def ltt_finite_class_words(k: int, t: int, alphabet=("a", "b"), max_words: int = 10_000_000) -> list[str]:
    """Every word whose LTT(k, t) profile class is finite (lemma above), in depth-first order."""
    if k < 1 or t < 1:
        raise ValueError(f"k and t must be >= 1, got k={k}, t={t}")
    alphabet = tuple(alphabet)
    out: list[str] = []
    counts: dict[str, int] = {}
    graph: dict[str, set] = {}

    def visit(padded: str) -> None:
        out.append(padded[1:])
        if len(out) > max_words:
            raise RuntimeError(f"more than max_words={max_words} words with a finite class")
        for c in alphabet:
            s = padded + c
            if len(s) < k:
                visit(s)
                continue
            f = s[len(s) - k :]
            counts[f] = counts.get(f, 0) + 1
            added = False
            if counts[f] == t and LEFT_MARK not in f:
                u, v = f[:-1], f[1:]
                if _reaches(graph, v, u):  # the new saturated edge u -> v closes a cycle
                    counts[f] -= 1
                    continue
                graph.setdefault(u, set()).add(v)
                added = True
            visit(s)
            if added:
                graph[f[:-1]].discard(f[1:])
            counts[f] -= 1

    visit(LEFT_MARK)
    return out


def ltt_closure_dimension_words(k: int, t: int, alphabet=("a", "b")) -> dict:
    words = ltt_finite_class_words(k, t, alphabet)
    return {
        "k": k,
        "t": t,
        "closure_dimension": len(words),
        "longest_word": max(map(len, words)),
        "words": sorted(words, key=lambda w: (len(w), w)),
    }
