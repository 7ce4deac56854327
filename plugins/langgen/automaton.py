"""A small, fast internal core for complete DFAs (numpy tables + numba kernels).

A DFA here is complete, has start state 0, a transition table ``delta[state, symbol_index]`` (int32)
and a boolean ``accept`` vector. Words are Python strings over a tuple of single-character symbols.
Everything a language class needs is decidable on this core: membership, product (intersection,
union, difference), emptiness, finiteness, exact cardinality, shortlex enumeration, and minimisation
to a canonical form (Moore refinement + BFS numbering in symbol order), so two DFAs accept the same
language iff their canonical ``key`` is equal.

automata-lib is used to parse regular expressions and to convert from its own DFA/NFA objects; its
pure-Python algorithms are too slow for the brute-force searches, which is why this core exists.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import numba
import numpy as np


class LanguageInputError(ValueError):
    """Malformed description of a language (unknown symbol, non-deterministic table, ...)."""


# ---------------------------------------------------------------------------------------------------
# numba kernels on (delta, accept) arrays


@numba.njit(cache=True)
def _reachable(delta):
    n, s = delta.shape
    seen = np.zeros(n, np.bool_)
    order = np.empty(n, np.int64)
    seen[0] = True
    order[0] = 0
    head, tail = 0, 1
    while head < tail:
        q = order[head]
        head += 1
        for a in range(s):
            r = delta[q, a]
            if not seen[r]:
                seen[r] = True
                order[tail] = r
                tail += 1
    return seen


@numba.njit(cache=True)
def _canonical(delta, accept):
    """Minimise (reachable part, Moore refinement) and renumber states by BFS in symbol order."""
    n, s = delta.shape
    seen = _reachable(delta)
    cls = np.full(n, -1, np.int64)
    for q in range(n):
        if seen[q]:
            cls[q] = 1 if accept[q] else 0
    n_classes = 0
    while True:
        # signature of q: (cls[q], cls[delta[q, 0]], ...); renumber by first occurrence
        sig = np.full((n, s + 1), -1, np.int64)
        for q in range(n):
            if seen[q]:
                sig[q, 0] = cls[q]
                for a in range(s):
                    sig[q, a + 1] = cls[delta[q, a]]
        new = np.full(n, -1, np.int64)
        count = 0
        for q in range(n):
            if not seen[q]:
                continue
            found = -1
            for p in range(q):
                if seen[p] and new[p] >= 0:
                    same = True
                    for c in range(s + 1):
                        if sig[p, c] != sig[q, c]:
                            same = False
                            break
                    if same:
                        found = new[p]
                        break
            if found < 0:
                new[q] = count
                count += 1
            else:
                new[q] = found
        cls = new
        if count == n_classes:
            break
        n_classes = count
    # BFS numbering of the classes from the start class
    canon = np.full(n_classes, -1, np.int64)
    rep = np.full(n_classes, -1, np.int64)
    for q in range(n):
        if seen[q] and rep[cls[q]] < 0:
            rep[cls[q]] = q
    queue = np.empty(n_classes, np.int64)
    canon[cls[0]] = 0
    queue[0] = cls[0]
    head, tail = 0, 1
    while head < tail:
        c = queue[head]
        head += 1
        q = rep[c]
        for a in range(s):
            d = cls[delta[q, a]]
            if canon[d] < 0:
                canon[d] = tail
                queue[tail] = d
                tail += 1
    out_delta = np.empty((n_classes, s), np.int32)
    out_accept = np.empty(n_classes, np.bool_)
    for c in range(n_classes):
        q = rep[c]
        i = canon[c]
        out_accept[i] = accept[q]
        for a in range(s):
            out_delta[i, a] = canon[cls[delta[q, a]]]
    return out_delta, out_accept


@numba.njit(cache=True)
def _product(d1, a1, d2, a2, mode):
    """Reachable product automaton; mode 0 = and, 1 = or, 2 = difference (L1 minus L2)."""
    n1, s = d1.shape
    n2 = d2.shape[0]
    index = np.full(n1 * n2, -1, np.int64)
    pairs = np.empty(n1 * n2, np.int64)
    index[0] = 0
    pairs[0] = 0
    count = 1
    head = 0
    trans = np.empty((n1 * n2, s), np.int32)
    while head < count:
        code = pairs[head]
        p, q = code // n2, code % n2
        for a in range(s):
            nxt = d1[p, a] * n2 + d2[q, a]
            if index[nxt] < 0:
                index[nxt] = count
                pairs[count] = nxt
                count += 1
            trans[head, a] = index[nxt]
        head += 1
    acc = np.empty(count, np.bool_)
    for i in range(count):
        p, q = pairs[i] // n2, pairs[i] % n2
        if mode == 0:
            acc[i] = a1[p] and a2[q]
        elif mode == 1:
            acc[i] = a1[p] or a2[q]
        else:
            acc[i] = a1[p] and not a2[q]
    return trans[:count].copy(), acc


@numba.njit(cache=True)
def _useful(delta, accept):
    """States reachable from the start and co-reachable to an accepting state."""
    n, s = delta.shape
    reach = _reachable(delta)
    co = accept.copy()
    changed = True
    while changed:
        changed = False
        for q in range(n):
            if not co[q]:
                for a in range(s):
                    if co[delta[q, a]]:
                        co[q] = True
                        changed = True
                        break
    return reach & co


@numba.njit(cache=True)
def _count_words(delta, accept):
    """Number of accepted words (int64), or -1 if the language is infinite."""
    n, s = delta.shape
    useful = _useful(delta, accept)
    # cycle detection among useful states via iterative DFS colouring; words(q) by memo
    colour = np.zeros(n, np.int64)  # 0 white, 1 grey, 2 black
    words = np.zeros(n, np.int64)
    stack = np.empty(n, np.int64)
    edge = np.zeros(n, np.int64)
    if not useful[0]:
        return 0
    top = 0
    stack[0] = 0
    colour[0] = 1
    while top >= 0:
        q = stack[top]
        if edge[q] < s:
            r = delta[q, edge[q]]
            edge[q] += 1
            if useful[r]:
                if colour[r] == 1:
                    return -1
                if colour[r] == 0:
                    colour[r] = 1
                    top += 1
                    stack[top] = r
        else:
            total = 1 if accept[q] else 0
            for a in range(s):
                r = delta[q, a]
                if useful[r]:
                    total += words[r]
            words[q] = total
            colour[q] = 2
            top -= 1
    return words[0]


@numba.njit(cache=True)
def _accepts(delta, accept, word):
    q = 0
    for i in range(word.shape[0]):
        q = delta[q, word[i]]
    return accept[q]


# ---------------------------------------------------------------------------------------------------
# the DFA object


class DFA:
    """Complete DFA with start state 0 over ``alphabet`` (tuple of one-character symbols).

    The regular-language interface: ``accepts``, ``__and__``/``__or__``/``__sub__``, ``complement``,
    ``is_empty``, ``is_finite``, ``cardinality`` (``None`` if infinite), ``words_of_length``,
    ``shortlex`` (iterator), ``minimal`` (canonical form) and ``key`` (equal iff same language).
    """

    __slots__ = ("alphabet", "delta", "accept", "_index", "_key", "_count")

    def __init__(self, alphabet: Sequence[str], delta: Any, accept: Any):
        self.alphabet = tuple(alphabet)
        self.delta = np.ascontiguousarray(delta, dtype=np.int32)
        self.accept = np.ascontiguousarray(accept, dtype=np.bool_)
        if self.delta.ndim != 2 or self.delta.shape[1] != len(self.alphabet):
            raise LanguageInputError(
                f"transition table must have shape (n_states, {len(self.alphabet)}), got {self.delta.shape}")
        if self.accept.shape != (self.delta.shape[0],):
            raise LanguageInputError("accept vector must have one entry per state")
        if self.delta.size and (self.delta.min() < 0 or self.delta.max() >= self.delta.shape[0]):
            raise LanguageInputError("transition table refers to a state that does not exist")
        self._index = {a: i for i, a in enumerate(self.alphabet)}
        self._key: bytes | None = None
        self._count: int | None = None

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_table(cls, alphabet: Sequence[str], transitions: Mapping[Any, Mapping[str, Any]],
                   start: Any, accepting: Iterable[Any]) -> DFA:
        """Build from ``{state: {symbol: next_state}}``; missing transitions go to a dead state.

        A value that is a set/list of more than one state is a non-deterministic entry and an error.
        """
        alphabet = tuple(alphabet)
        for a in alphabet:
            if not isinstance(a, str) or len(a) != 1:
                raise LanguageInputError(f"alphabet symbols must be single characters, got {a!r}")
        states = list(transitions)
        accepting = set(accepting)
        for q, row in transitions.items():
            for sym, nxt in row.items():
                if sym not in alphabet:
                    raise LanguageInputError(f"unknown symbol {sym!r} in the transition of state {q!r}; "
                                             f"alphabet is {alphabet}")
                if isinstance(nxt, (set, frozenset, list, tuple)):
                    if len(nxt) != 1:
                        raise LanguageInputError(f"non-deterministic table: state {q!r} on {sym!r} goes to "
                                                 f"{sorted(map(str, nxt))}; a DFA needs exactly one next state")
                    nxt = next(iter(nxt))
                if nxt not in transitions and nxt not in states:
                    states.append(nxt)
        if start not in transitions:
            raise LanguageInputError(f"start state {start!r} is not a state of the table (states: {states})")
        unknown = accepting - set(states)
        if unknown:
            raise LanguageInputError(f"accepting states {sorted(map(str, unknown))} are not states of the table")
        order = [start] + [q for q in states if q != start]
        idx = {q: i for i, q in enumerate(order)}
        dead = len(order)
        delta = np.full((len(order) + 1, len(alphabet)), dead, np.int32)
        for q, row in transitions.items():
            for sym, nxt in row.items():
                if isinstance(nxt, (set, frozenset, list, tuple)):
                    nxt = next(iter(nxt))
                delta[idx[q], alphabet.index(sym)] = idx[nxt]
        accept = np.zeros(len(order) + 1, bool)
        for q in accepting:
            accept[idx[q]] = True
        return cls(alphabet, delta, accept).minimal()

    @classmethod
    def from_automata_lib(cls, fa: Any, alphabet: Sequence[str] | None = None) -> DFA:
        """Convert an automata-lib DFA or NFA (partial DFAs are completed with a dead state)."""
        from automata.fa.dfa import DFA as LibDFA

        if not isinstance(fa, LibDFA):
            fa = LibDFA.from_nfa(fa)
        alphabet = tuple(sorted(alphabet if alphabet is not None else fa.input_symbols))
        table = {q: dict(fa.transitions.get(q, {})) for q in fa.states}
        return cls.from_table(alphabet, table, fa.initial_state, fa.final_states)

    @classmethod
    def from_regex(cls, regex: str, alphabet: Sequence[str] = ("a", "b")) -> DFA:
        """Regular expression in automata-lib syntax: ``|`` union, ``*``, ``+``, ``()``, juxtaposition.

        ``.`` is not allowed (use an explicit union); symbols outside ``alphabet`` are errors.
        """
        from automata.fa.nfa import NFA

        alphabet = tuple(alphabet)
        specials = set("()|*+?&^ ")
        for ch in regex:
            if ch not in specials and ch not in alphabet:
                raise LanguageInputError(f"unknown symbol {ch!r} in regex {regex!r}; alphabet is {alphabet}")
        if regex.strip() == "":
            raise LanguageInputError("empty regex; write '()' for the empty word")
        try:
            nfa = NFA.from_regex(regex, input_symbols=set(alphabet))
        except Exception as exc:  # automata-lib raises several exception types for syntax errors
            raise LanguageInputError(f"malformed regex {regex!r}: {exc}") from None
        return cls.from_automata_lib(nfa, alphabet)

    @classmethod
    def universal(cls, alphabet: Sequence[str] = ("a", "b")) -> DFA:
        return cls(alphabet, np.zeros((1, len(alphabet)), np.int32), np.ones(1, bool))

    @classmethod
    def empty(cls, alphabet: Sequence[str] = ("a", "b")) -> DFA:
        return cls(alphabet, np.zeros((1, len(alphabet)), np.int32), np.zeros(1, bool))

    @classmethod
    def finite(cls, words: Iterable[str], alphabet: Sequence[str] = ("a", "b")) -> DFA:
        """The finite language ``words`` (a trie plus a dead state)."""
        alphabet = tuple(alphabet)
        trie: dict[str, dict[str, str]] = {"": {}}
        final = set()
        for w in words:
            for i, ch in enumerate(w):
                if ch not in alphabet:
                    raise LanguageInputError(f"unknown symbol {ch!r} in word {w!r}; alphabet is {alphabet}")
                trie.setdefault(w[:i], {})[ch] = w[: i + 1]
                trie.setdefault(w[: i + 1], {})
            final.add(w)
        return cls.from_table(alphabet, trie, "", final)

    def to_automata_lib(self) -> Any:
        from automata.fa.dfa import DFA as LibDFA

        return LibDFA(states=set(range(self.n_states)), input_symbols=set(self.alphabet),
                      transitions={q: {a: int(self.delta[q, i]) for i, a in enumerate(self.alphabet)}
                                   for q in range(self.n_states)},
                      initial_state=0, final_states={int(q) for q in np.flatnonzero(self.accept)})

    # -- basic queries --------------------------------------------------------------------------
    @property
    def n_states(self) -> int:
        return int(self.delta.shape[0])

    def encode(self, word: str) -> np.ndarray:
        try:
            return np.fromiter((self._index[ch] for ch in word), np.int64, len(word))
        except KeyError as exc:
            raise LanguageInputError(f"unknown symbol {exc.args[0]!r} in word {word!r}; "
                                     f"alphabet is {self.alphabet}") from None

    def accepts(self, word: str) -> bool:
        return bool(_accepts(self.delta, self.accept, self.encode(word)))

    __contains__ = accepts

    def _check(self, other: DFA) -> None:
        if self.alphabet != other.alphabet:
            raise LanguageInputError(f"alphabets differ: {self.alphabet} vs {other.alphabet}")

    def __and__(self, other: DFA) -> DFA:
        self._check(other)
        return DFA(self.alphabet, *_product(self.delta, self.accept, other.delta, other.accept, 0))

    def __or__(self, other: DFA) -> DFA:
        self._check(other)
        return DFA(self.alphabet, *_product(self.delta, self.accept, other.delta, other.accept, 1))

    def __sub__(self, other: DFA) -> DFA:
        self._check(other)
        return DFA(self.alphabet, *_product(self.delta, self.accept, other.delta, other.accept, 2))

    def complement(self) -> DFA:
        return DFA(self.alphabet, self.delta, ~self.accept)

    def minimal(self) -> DFA:
        return DFA(self.alphabet, *_canonical(self.delta, self.accept))

    @property
    def key(self) -> bytes:
        """Canonical byte string of the minimal DFA: equal keys iff equal languages."""
        if self._key is None:
            d, a = _canonical(self.delta, self.accept)
            self._key = bytes([len(self.alphabet)]) + d.tobytes() + a.tobytes()
        return self._key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DFA) and self.alphabet == other.alphabet and self.key == other.key

    def __hash__(self) -> int:
        return hash(self.key)

    def is_empty(self) -> bool:
        return not bool(_useful(self.delta, self.accept)[0])

    def is_finite(self) -> bool:
        return self.cardinality() is not None

    def cardinality(self) -> int | None:
        """Exact number of words, ``None`` if infinite (int64 counts; exact for the sizes used here)."""
        if self._count is None:
            self._count = int(_count_words(self.delta, self.accept))
        return None if self._count < 0 else self._count

    def subset_of(self, other: DFA) -> bool:
        return (self - other).is_empty()

    def _accept_within(self, max_len: int) -> np.ndarray:
        """ok[r, q]: some word of length exactly r leads from q to acceptance (r = 0..max_len)."""
        ok = np.zeros((max_len + 1, self.n_states), bool)
        ok[0] = self.accept
        for r in range(1, max_len + 1):
            ok[r] = ok[r - 1][self.delta].any(axis=1)
        return ok

    def words_of_length(self, length: int) -> list[str]:
        """All accepted words of one length, in lexicographic (symbol) order."""
        ok = self._accept_within(length)
        out: list[str] = []

        def walk(q: int, prefix: str, rest: int) -> None:
            if rest == 0:
                out.append(prefix)
                return
            for i, a in enumerate(self.alphabet):
                r = int(self.delta[q, i])
                if ok[rest - 1, r]:
                    walk(r, prefix + a, rest - 1)

        if ok[length, 0]:
            walk(0, "", length)
        return out

    def shortlex(self, max_len: int | None = None) -> Iterator[str]:
        """Accepted words in shortlex order (length, then symbol order); stops after ``max_len``
        or, for a finite language, after its last word."""
        bound = self.n_states  # a finite language has no word longer than n_states - 1
        finite = self.is_finite()
        length = 0
        while max_len is None or length <= max_len:
            if finite and length >= bound:
                return
            yield from self.words_of_length(length)
            length += 1

    def words(self, max_len: int) -> list[str]:
        return list(self.shortlex(max_len))

    def pumping_certificate(self) -> tuple[str, str, str] | None:
        """(x, y, z) with x y^j z accepted for j = 0 .. 2n-1 (n = states), or None if finite.

        For a DFA with n states the membership of x y^j z is eventually periodic in j with
        preperiod + period <= n, so acceptance for 2n consecutive j from 0 proves x y* z is in the
        language: the certificate that it is infinite, checkable with membership tests only.
        """
        if self.is_finite():
            return None
        d = self.minimal()
        useful = _useful(d.delta, d.accept)
        # a useful state on a cycle, found by BFS from the start (x: shortest path to it)
        paths = {0: ""}
        order = [0]
        for q in order:
            for i, a in enumerate(d.alphabet):
                r = int(d.delta[q, i])
                if useful[r] and r not in paths:
                    paths[r] = paths[q] + a
                    order.append(r)
        for q in order:
            # shortest nonempty loop q -> q within useful states
            loop = {q: ""}
            frontier = [q]
            found = None
            while frontier and found is None:
                nxt = []
                for p in frontier:
                    for i, a in enumerate(d.alphabet):
                        r = int(d.delta[p, i])
                        if not useful[r]:
                            continue
                        if r == q:
                            found = loop[p] + a
                            break
                        if r not in loop:
                            loop[r] = loop[p] + a
                            nxt.append(r)
                    if found is not None:
                        break
                frontier = nxt
            if found is None:
                continue
            # z: shortest word from q to acceptance
            tails = {q: ""}
            todo = [q]
            z = "" if d.accept[q] else None
            while z is None and todo:
                p = todo.pop(0)
                for i, a in enumerate(d.alphabet):
                    r = int(d.delta[p, i])
                    if r not in tails:
                        tails[r] = tails[p] + a
                        todo.append(r)
                        if d.accept[r]:
                            z = tails[r]
                            break
            x, y = paths[q], found
            assert all(self.accepts(x + y * j + z) for j in range(2 * self.n_states))
            return x, y, z
        raise AssertionError("infinite language without a useful cycle")  # pragma: no cover

    def __repr__(self) -> str:
        card = self.cardinality()
        size = "infinite" if card is None else f"{card} words"
        return f"DFA({self.n_states} states over {''.join(self.alphabet)}, {size})"


def verify_pumping(languages: Iterable[DFA], certificate: tuple[str, str, str], n_states: int) -> bool:
    """Check a pumping certificate against every language (all with at most ``n_states`` states)."""
    x, y, z = certificate
    words = [x + y * j + z for j in range(2 * n_states)]
    return all(lang.accepts(w) for lang in languages for w in words)


def intersect_all(languages: Iterable[DFA]) -> DFA:
    """Intersection of a non-empty family (minimised after each product to keep it small)."""
    it = iter(languages)
    try:
        acc = next(it)
    except StopIteration:
        raise LanguageInputError("intersection of an empty family is undefined here") from None
    for lang in it:
        acc = (acc & lang).minimal()
    return acc
