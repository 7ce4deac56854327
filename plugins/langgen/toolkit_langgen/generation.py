"""Generators, adversaries and the race harness (generation in the limit, Kleinberg-Mullainathan).

A generator is ``generator(languages, sample) -> word`` where ``sample`` is the list of distinct
words seen so far (in order) and ``languages`` the class L_1, L_2, ... (DFAs). It is correct at a
step if its word is in K \\ S. An adversary is ``adversary(languages, target_index, horizon, seed)
-> list of distinct words of the target``. Pure maths, no toolkit imports.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from toolkit_langgen.closure import closure_dimension
from toolkit_langgen.dfa import DFA

Generator = Callable[[Sequence[DFA], list], str]
Adversary = Callable[[Sequence[DFA], int, int, int], list]


class _Cache:
    """Memo of intersections and inclusions, keyed by the languages' canonical forms (never by
    object ids, which Python reuses once a class is garbage-collected)."""

    def __init__(self):
        self.inter: dict = {}
        self.subset: dict = {}

    def intersection(self, languages, idx: tuple[int, ...]) -> DFA:
        key = frozenset(languages[i].key() for i in idx)
        if key not in self.inter:
            inter = languages[idx[0]]
            for j in idx[1:]:
                inter = inter.product(languages[j], "and")
            self.inter[key] = inter.minimize()
        return self.inter[key]

    def issubset(self, languages, i: int, j: int) -> bool:
        key = (languages[i].key(), languages[j].key())
        if key not in self.subset:
            self.subset[key] = languages[i].issubset(languages[j])
        return self.subset[key]


_CACHE = _Cache()


def _consistent(languages, sample) -> list[int]:
    return [i for i, L in enumerate(languages) if all(w in L for w in sample)]


def _fresh(L: DFA, sample) -> str:
    w = L.fresh_word(set(sample))
    return "" if w is None else w


def closure_generator(languages, sample) -> str:
    """Li-Raman-Tewari: a fresh word of the closure <S> (always in K); when <S> \\ S is empty,
    a fresh word of the first consistent language (a guess)."""
    vs = _consistent(languages, sample)
    if not vs:
        return _fresh(languages[0], sample)
    closure = _CACHE.intersection(languages, tuple(vs))
    w = closure.fresh_word(set(sample))
    if w is not None:
        return w
    return _fresh(languages[vs[0]], sample)


class _Cursor:
    """The shortlex words of one language, enumerated once, and the position before which every word is
    already in the sample: a sample that only grows never moves the first fresh word back, so each call
    resumes where the last one stopped instead of restarting from the empty word."""

    def __init__(self, L: DFA):
        self.words = L.shortlex()
        self.buffer: list[str] = []
        self.position = 0

    def fresh(self, seen: set) -> str | None:
        while True:
            if self.position == len(self.buffer):
                w = next(self.words, None)
                if w is None:
                    return None
                self.buffer.append(w)
            w = self.buffer[self.position]
            if w not in seen:
                return w
            self.position += 1


class IncrementalClosure:
    """:func:`closure_generator` over one growing sample (one race): the consistent members are filtered
    by each new word only, and every closure keeps its shortlex cursor. Same outputs, linear cost."""

    def __init__(self, languages):
        self.languages = languages
        self.consistent = list(range(len(languages)))
        self.seen: set = set()
        self.cursors: dict = {}

    def _fresh(self, L: DFA) -> str | None:
        key = L.key()
        if key not in self.cursors:
            self.cursors[key] = _Cursor(L)
        return self.cursors[key].fresh(self.seen)

    def step(self, word: str) -> str:
        self.seen.add(word)
        self.consistent = [i for i in self.consistent if word in self.languages[i]]
        if not self.consistent:
            w = self._fresh(self.languages[0])
            return "" if w is None else w
        closure = _CACHE.intersection(self.languages, tuple(self.consistent))
        w = self._fresh(closure)
        if w is None:
            w = self._fresh(self.languages[self.consistent[0]])
        return "" if w is None else w


def _km(languages, sample, order: str) -> str:
    t = max(len(sample), 1)
    cons = _consistent(languages[:t], sample)
    critical = None
    for n in cons:
        if all(_CACHE.issubset(languages, n, i) for i in cons if i < n):
            critical = n
    L = languages[0 if critical is None else critical]
    w = L.fresh_word(set(sample), order=order)
    return "" if w is None else w


def km_generator(languages, sample) -> str:
    """Kleinberg-Mullainathan: the highest-index critical language among L_1..L_t (t = number of
    samples) and its first word not in S **in the language's own enumeration** (``DFA.enumeration``:
    round robin over the alternatives of a user-given union, shortlex otherwise). KM output "a string
    of L_{n_t} - S_t"; which one is ours (RECON): the own-enumeration rule is the reading under which
    the reference non-uniformity example holds (see the plugin README)."""
    return _km(languages, sample, "own")


def km_shortlex_generator(languages, sample) -> str:
    """KM with the shortlex-first fresh word of the critical language (the alternative reading)."""
    return _km(languages, sample, "shortlex")


def greedy_generator(languages, sample) -> str:
    """Charikar-Pabbaraju: keep L_j (j <= t) if consistent and the running intersection stays infinite."""
    t = max(len(sample), 1)
    kept: tuple[int, ...] = ()
    for j in _consistent(languages[:t], sample):
        if _CACHE.intersection(languages, kept + (j,)).is_finite():
            continue
        kept = kept + (j,)
    if not kept:
        return _fresh(languages[0], sample)
    return _fresh(_CACHE.intersection(languages, kept), sample)


GENERATORS: dict[str, Generator] = {
    "closure": closure_generator,
    "km": km_generator,
    "greedy": greedy_generator,
}


# -- adversaries ---------------------------------------------------------------------------------------
def _take(it, n: int) -> list:
    out = []
    for w in it:
        out.append(w)
        if len(out) == n:
            break
    return out


def shortlex_adversary(languages, target: int, horizon: int, seed: int = 0) -> list:
    return _take(languages[target].shortlex(), horizon)


def random_adversary(languages, target: int, horizon: int, seed: int = 0) -> list:
    """The first 2 * horizon words of the target in shortlex order, shuffled (seeded)."""
    words = _take(languages[target].shortlex(), 2 * horizon)
    random.Random(seed).shuffle(words)
    return words[:horizon]


_CLOSURES: dict = {}


def cached_closure_dimension(languages, include: int | None = None):
    """:func:`closure_dimension` of a class, computed once per class and ``include`` (keyed by the
    languages' canonical forms): the race and every target's adversary ask for the same search."""
    key = (tuple(L.key() for L in languages), include)
    if key not in _CLOSURES:
        if len(_CLOSURES) >= 64:
            _CLOSURES.clear()
        _CLOSURES[key] = closure_dimension(languages, include=include)
    return _CLOSURES[key]


def largest_closed_set(languages, target: int | None = None) -> tuple[str, ...]:
    """Words of the largest finite intersection ∩F (F containing ``target`` if given)."""
    res = cached_closure_dimension(languages, target)
    if res.status != "exact":
        raise ValueError(f"closure search unresolved ({res.cap_hit}); cannot build the adversary")
    return res.witness_words


def intersection_first_adversary(languages, target: int, horizon: int, seed: int = 0) -> list:
    """Present the class's largest finite closed set T = ∩F first (if the target contains it; else the
    largest one among families containing the target), then the rest of the target in shortlex."""
    T = largest_closed_set(languages)
    K = languages[target]
    if not all(w in K for w in T):
        T = largest_closed_set(languages, target)
    first = set(T)
    rest = (w for w in K.shortlex() if w not in first)
    return list(T)[:horizon] + _take(rest, max(horizon - len(T), 0))


ADVERSARIES: dict[str, Adversary] = {
    "shortlex": shortlex_adversary,
    "random": random_adversary,
    "intersection_first": intersection_first_adversary,
}


# -- the harness ---------------------------------------------------------------------------------------
@dataclass
class RaceResult:
    correct: list[bool]  # correct[t-1]: output after t distinct samples is in K \ S
    first_permanent: int | None  # smallest t with correct from t to the horizon (None: wrong at the end)
    outputs: list[str]


def race(languages, generator: Generator, stream: Sequence[str], target: int) -> RaceResult:
    """Feed the distinct words of ``stream`` (repeats skipped) and score the generator."""
    K = languages[target]
    sample, seen, correct, outputs = [], set(), [], []
    incremental = IncrementalClosure(languages) if generator is closure_generator else None
    for w in stream:
        if w not in K:
            raise ValueError(f"the adversary presented {w!r}, which is not in the target")
        if w in seen:
            continue
        seen.add(w)
        sample.append(w)
        out = incremental.step(w) if incremental is not None else generator(languages, list(sample))
        outputs.append(out)
        correct.append(out in K and out not in seen)
    first = None
    for t in range(len(correct), 0, -1):
        if not correct[t - 1]:
            break
        first = t
    return RaceResult(correct, first, outputs)


def sample_complexity(
    languages,
    generator: Generator,
    adversary: Adversary,
    horizon: int,
    seed: int = 0,
    targets: Sequence[int] | None = None,
) -> dict[int, int | None]:
    """First permanently-correct distinct-sample count per target (None: not correct by the horizon)."""
    out = {}
    for i in range(len(languages)) if targets is None else targets:
        stream = adversary(languages, i, horizon, seed)
        out[i] = race(languages, generator, stream, i).first_permanent
    return out


def worst_case(per_target: dict[int, int | None], horizon: int) -> int:
    """Worst case over targets; a target never permanently correct counts as horizon + 1."""
    return max(horizon + 1 if v is None else v for v in per_target.values())


# -- reference classes ---------------------------------------------------------------------------------
def counting_class(m: int, alphabet=("a", "b")) -> list[DFA]:
    """H_m = [L_{a,m}, L_{b,m}, ..., Σ*]."""
    from toolkit_langgen.languages import counting

    return [counting(s, m, alphabet) for s in alphabet] + [DFA.universal(alphabet)]


def km_nonuniform_class() -> list[DFA]:
    """[a* ∪ ba*, a* ∪ bbΣ*] (Kleinberg-Mullainathan's non-uniformity example)."""
    from toolkit_langgen.languages import regex

    return [regex("a*|ba*"), regex("a*|bb(a|b)*")]
