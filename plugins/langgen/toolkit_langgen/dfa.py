"""A small, fast DFA core (tuple-encoded, pure Python + vectorised numpy enumeration).

automata-lib is the interoperable reference; this core exists because brute force over thousands of
small DFAs (closure-dimension searches, enumerating all n-state DFAs) is too slow through it.

A ``DFA`` is complete: ``trans[q][i]`` is the successor of state ``q`` on ``alphabet[i]``.
No toolkit imports here: pure maths.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Iterator, Mapping

import numpy as np


class LanguageError(ValueError):
    """Malformed language description (unknown symbol, non-deterministic table, bad grammar...)."""


class InfiniteLanguageError(ValueError):
    """An operation that needs a finite language (cardinality, listing) got an infinite one."""


def validate_alphabet(alphabet: Iterable[str]) -> tuple[str, ...]:
    """The one alphabet rule of the plugin (DFA core, regex, counting, LTT, SL, CFG, patterns, user
    classes): a non-empty tuple of distinct single alphanumeric characters (operators and the LTT
    word markers ``<``, ``>`` stay free)."""
    alphabet = tuple(alphabet)
    if not alphabet:
        raise LanguageError("the alphabet is empty; give at least one symbol, e.g. ('a', 'b')")
    if any(not isinstance(s, str) or len(s) != 1 or not s.isalnum() for s in alphabet) or len(
        set(alphabet)
    ) != len(alphabet):
        raise LanguageError(f"alphabet must be distinct single alphanumeric characters, got {alphabet!r}")
    return alphabet


class DFA:
    """A complete deterministic automaton over a tuple of single-character symbols."""

    __slots__ = ("alphabet", "trans", "accept", "start", "_index", "_key", "_useful", "_finite", "_parts")

    def __init__(
        self, alphabet: Iterable[str], trans: Iterable[Iterable[int]], accept: Iterable[bool], start: int = 0
    ):
        self.alphabet = validate_alphabet(alphabet)
        self.trans = tuple(tuple(int(x) for x in row) for row in trans)
        self.accept = tuple(bool(x) for x in accept)
        self.start = int(start)
        n, k = len(self.trans), len(self.alphabet)
        if n == 0:
            raise LanguageError("a DFA needs at least one state")
        if len(self.accept) != n:
            raise LanguageError(f"accept has {len(self.accept)} entries for {n} states")
        if not 0 <= self.start < n:
            raise LanguageError(f"start state {self.start} is not one of the states 0..{n - 1}")
        for q, row in enumerate(self.trans):
            if len(row) != k or any(not 0 <= r < n for r in row):
                raise LanguageError(
                    f"transition row of state {q} must have {k} targets in 0..{n - 1}, got {row}"
                )
        self._index = {s: i for i, s in enumerate(self.alphabet)}
        self._key = None
        self._useful = None
        self._finite = None
        self._parts = None  # alternatives of a union given by the user: the language's own enumeration

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def from_table(
        cls, table: Mapping, start, accepting: Iterable, alphabet: Iterable[str] | None = None
    ) -> DFA:
        """Build from ``{state: {symbol: next_state}}``; missing transitions go to a dead state.

        Raises :class:`LanguageError` for an unknown symbol, a non-deterministic entry (a set or list
        of targets), a target that is not a state, or a start state that is not in the table.
        """
        states = list(table)
        if start not in table:
            raise LanguageError(f"start state {start!r} is not a state of the table (states: {states})")
        symbols = (
            tuple(alphabet)
            if alphabet is not None
            else tuple(sorted({s for row in table.values() for s in row}))
        )
        symbols = validate_alphabet(symbols)
        accepting = set(accepting)
        bad_accept = accepting - set(states)
        if bad_accept:
            raise LanguageError(
                f"accepting states {sorted(map(str, bad_accept))} are not states of the table"
            )
        index = {q: i for i, q in enumerate(states)}
        dead = len(states)
        rows, need_dead = [], False
        for q in states:
            row = []
            edges = table[q]
            for sym in edges:
                if sym not in symbols:
                    raise LanguageError(
                        f"state {q!r} has a transition on unknown symbol {sym!r} (alphabet {symbols})"
                    )
            for sym in symbols:
                if sym not in edges:
                    row.append(dead)
                    need_dead = True
                    continue
                target = edges[sym]
                if isinstance(target, (set, frozenset, list, tuple)):
                    if len(target) != 1:
                        raise LanguageError(
                            f"non-deterministic table: state {q!r} on {sym!r} goes to {target!r}"
                        )
                    (target,) = tuple(target)
                if target not in index:
                    raise LanguageError(f"state {q!r} on {sym!r} goes to {target!r}, which is not a state")
                row.append(index[target])
            rows.append(row)
        acc = [q in accepting for q in states]
        if need_dead:
            rows.append([dead] * len(symbols))
            acc.append(False)
        return cls(symbols, rows, acc, index[start])

    @classmethod
    def universal(cls, alphabet: Iterable[str] = ("a", "b")) -> DFA:
        alphabet = validate_alphabet(alphabet)
        return cls(alphabet, [[0] * len(alphabet)], [True])

    @classmethod
    def from_words(cls, words: Iterable[str], alphabet: Iterable[str] = ("a", "b")) -> DFA:
        """The finite language ``words`` (a trie plus a dead state)."""
        alphabet = validate_alphabet(alphabet)
        idx = {s: i for i, s in enumerate(alphabet)}
        trans, acc = [[None] * len(alphabet)], [False]
        for w in words:
            q = 0
            for ch in w:
                if ch not in idx:
                    raise LanguageError(f"word {w!r} has symbol {ch!r} outside the alphabet {alphabet}")
                if trans[q][idx[ch]] is None:
                    trans.append([None] * len(alphabet))
                    acc.append(False)
                    trans[q][idx[ch]] = len(trans) - 1
                q = trans[q][idx[ch]]
            acc[q] = True
        dead = len(trans)
        rows = [[dead if t is None else t for t in row] for row in trans] + [[dead] * len(alphabet)]
        return cls(alphabet, rows, acc + [False]).minimize()

    # -- basic queries -----------------------------------------------------------------------------
    @property
    def n_states(self) -> int:
        return len(self.trans)

    def run(self, word: str) -> int:
        q, trans, index = self.start, self.trans, self._index
        for ch in word:
            try:
                q = trans[q][index[ch]]
            except KeyError:
                raise LanguageError(
                    f"symbol {ch!r} of word {word!r} is not in the alphabet {self.alphabet}"
                ) from None
        return q

    def accepts(self, word: str) -> bool:
        return self.accept[self.run(word)]

    __contains__ = accepts

    def _check_alphabet(self, other: DFA) -> None:
        if self.alphabet != other.alphabet:
            raise LanguageError(f"alphabets differ: {self.alphabet} vs {other.alphabet}")

    def product(self, other, op: str = "and") -> DFA:
        """Reachable product automaton; ``op`` in and/or/diff/xor. ``other`` is any regular language
        :func:`as_dfa` takes (an automata-lib NFA goes through the subset construction)."""
        other = as_dfa(other, self.alphabet)
        self._check_alphabet(other)
        k = len(self.alphabet)
        ta, tb, aa, ab = self.trans, other.trans, self.accept, other.accept
        start = (self.start, other.start)
        ids = {start: 0}
        order = [start]
        rows = []
        i = 0
        while i < len(order):
            p, q = order[i]
            i += 1
            rp, rq = ta[p], tb[q]
            row = []
            for c in range(k):
                nxt = (rp[c], rq[c])
                j = ids.get(nxt)
                if j is None:
                    j = ids[nxt] = len(order)
                    order.append(nxt)
                row.append(j)
            rows.append(row)
        if op == "and":
            acc = [aa[p] and ab[q] for p, q in order]
        elif op == "or":
            acc = [aa[p] or ab[q] for p, q in order]
        elif op == "diff":
            acc = [aa[p] and not ab[q] for p, q in order]
        elif op == "xor":
            acc = [aa[p] != ab[q] for p, q in order]
        else:
            raise ValueError(f"op must be one of and/or/diff/xor, got {op!r}")
        return DFA(self.alphabet, rows, acc, 0)

    def intersect(self, other: DFA) -> DFA:
        return self.product(other, "and").minimize()

    __and__ = intersect

    def union(self, other: DFA) -> DFA:
        return self.product(other, "or").minimize()

    __or__ = union

    def complement(self) -> DFA:
        return DFA(self.alphabet, self.trans, [not a for a in self.accept], self.start)

    def issubset(self, other: DFA) -> bool:
        return self.product(other, "diff").is_empty()

    def equivalent(self, other: DFA) -> bool:
        return self.product(other, "xor").is_empty()

    def reachable(self) -> list[int]:
        seen = [False] * self.n_states
        seen[self.start] = True
        order = [self.start]
        for q in order:
            for r in self.trans[q]:
                if not seen[r]:
                    seen[r] = True
                    order.append(r)
        return order

    def useful(self) -> frozenset[int]:
        """States that are reachable from the start and can reach an accepting state."""
        if self._useful is None:
            reach = self.reachable()
            rev: dict[int, list[int]] = {q: [] for q in reach}
            for q in reach:
                for r in self.trans[q]:
                    rev[r].append(q)
            live = {q for q in reach if self.accept[q]}
            stack = list(live)
            while stack:
                r = stack.pop()
                for q in rev[r]:
                    if q not in live:
                        live.add(q)
                        stack.append(q)
            self._useful = frozenset(live)
        return self._useful

    def is_empty(self) -> bool:
        return not self.useful()

    def _cycle_state(self):
        """A useful state on a cycle of useful states, or None (then the language is finite)."""
        useful = self.useful()
        color = dict.fromkeys(useful, 0)
        for root in useful:
            if color[root]:
                continue
            stack = [(root, iter(self.trans[root]))]
            color[root] = 1
            while stack:
                q, it = stack[-1]
                for r in it:
                    if r not in useful:
                        continue
                    if color[r] == 1:
                        return r
                    if color[r] == 0:
                        color[r] = 1
                        stack.append((r, iter(self.trans[r])))
                        break
                else:
                    color[q] = 2
                    stack.pop()
        return None

    def is_finite(self) -> bool:
        if self._finite is None:
            self._finite = self._cycle_state() is None
        return self._finite

    def pumping_certificate(self):
        """``(x, y, z)`` with y non-empty and x y^j z accepted for every j >= 0; None if finite."""
        q = self._cycle_state()
        if q is None:
            return None
        useful = self.useful()

        def path(src, targets, nonempty=False):
            # shortlex-shortest word from src to a state in targets through useful states
            start = [(src, "")]
            if not nonempty and src in targets:
                return ""
            seen = set() if nonempty else {src}
            frontier = start
            while frontier:
                nxt = []
                for s, w in frontier:
                    for c, r in enumerate(self.trans[s]):
                        if r not in useful or r in seen:
                            continue
                        if r in targets:
                            return w + self.alphabet[c]
                        seen.add(r)
                        nxt.append((r, w + self.alphabet[c]))
                frontier = nxt
            raise AssertionError("unreachable")

        x = path(self.start, {q})
        y = path(q, {q}, nonempty=True)
        z = path(q, {s for s in useful if self.accept[s]})
        return x, y, z

    def _count_from(self) -> dict[int, int]:
        useful = self.useful()
        memo: dict[int, int] = {}

        def count(q: int) -> int:
            if q in memo:
                return memo[q]
            total = 1 if self.accept[q] else 0
            for r in self.trans[q]:
                if r in useful:
                    total += count(r)
            memo[q] = total
            return total

        for q in useful:
            count(q)
        return memo

    def cardinality(self) -> int | float:
        """Number of accepted words; ``math.inf`` if infinite."""
        if self.is_empty():
            return 0
        if not self.is_finite():
            return math.inf
        return self._count_from()[self.start]

    def count_words_of_length(self, length: int) -> int:
        vec = [0] * self.n_states
        vec[self.start] = 1
        for _ in range(length):
            nxt = [0] * self.n_states
            for q, v in enumerate(vec):
                if v:
                    for r in self.trans[q]:
                        nxt[r] += v
            vec = nxt
        return sum(v for q, v in enumerate(vec) if self.accept[q])

    def words_of_length(self, length: int) -> Iterator[str]:
        """Accepted words of exactly ``length``, in lexicographic (alphabet) order, lazily."""
        useful = self.useful()
        if self.start not in useful:
            return
        # can[r] = states from which some accepted word of length exactly r starts
        can = [{q for q in useful if self.accept[q]}]
        for _ in range(length):
            prev = can[-1]
            can.append({q for q in useful if any(r in prev for r in self.trans[q])})
        if self.start not in can[length]:
            return
        stack = [(self.start, "")]
        while stack:
            q, w = stack.pop()
            rem = length - len(w)
            if rem == 0:
                yield w
                continue
            nxt = []
            for c, r in enumerate(self.trans[q]):
                if r in can[rem - 1]:
                    nxt.append((r, w + self.alphabet[c]))
            stack.extend(reversed(nxt))

    def shortlex(self) -> Iterator[str]:
        """All accepted words in shortlex order (infinite iterator for infinite languages)."""
        if self.is_empty():
            return
        finite = self.is_finite()
        horizon = len(self.useful()) if finite else None
        length = 0
        while horizon is None or length < horizon:
            yield from self.words_of_length(length)
            length += 1

    def words(self, max_length: int) -> list[str]:
        """Accepted words of length <= max_length, shortlex."""
        out = []
        for length in range(max_length + 1):
            out.extend(self.words_of_length(length))
        return out

    def with_parts(self, parts) -> DFA:
        """This language, with its own enumeration set to the round robin of ``parts`` (the
        alternatives of a union, in the order given; their union must be this language)."""
        parts = tuple(parts)
        union = parts[0]
        for p in parts[1:]:
            union = union.product(p, "or")
        if not union.equivalent(self):
            raise LanguageError("with_parts: the union of the parts is not this language")
        out = DFA(self.alphabet, self.trans, self.accept, self.start)
        out._key = self._key
        out._parts = parts if len(parts) > 1 else None
        return out

    def enumeration(self) -> Iterator[str]:
        """The language's own enumeration: round robin over the alternatives of a union it was
        built from (each in shortlex, repeats skipped), plain shortlex otherwise. Every word
        appears exactly once."""
        if self._parts is None:
            yield from self.shortlex()
            return
        its = [p.shortlex() for p in self._parts]
        seen = set()
        while its:
            alive = []
            for it in its:
                w = next(it, None)
                if w is None:
                    continue
                alive.append(it)
                if w not in seen:
                    seen.add(w)
                    yield w
            its = alive

    def fresh_word(self, exclude, order: str = "shortlex") -> str | None:
        """First accepted word not in ``exclude``, in shortlex order (``order="shortlex"``) or in the
        language's own enumeration (``order="own"``, see :meth:`enumeration`); None if every
        word is excluded."""
        if order not in ("shortlex", "own"):
            raise ValueError(f"order must be 'shortlex' or 'own', got {order!r}")
        for w in self.shortlex() if order == "shortlex" else self.enumeration():
            if w not in exclude:
                return w
        return None

    def minimize(self) -> DFA:
        """Minimal complete DFA, states numbered in breadth-first (alphabet) order from the start."""
        reach = self.reachable()
        pos = {q: i for i, q in enumerate(reach)}
        trans = [[pos[r] for r in self.trans[q]] for q in reach]
        acc = [self.accept[q] for q in reach]
        cls = [1 if a else 0 for a in acc]
        n_cls = len(set(cls))
        while True:
            sig = {}
            new = []
            for q in range(len(reach)):
                s = (cls[q],) + tuple(cls[r] for r in trans[q])
                new.append(sig.setdefault(s, len(sig)))
            if len(sig) == n_cls:
                break
            cls, n_cls = new, len(sig)
        # canonical BFS numbering of the classes
        rep = {}
        for q in range(len(reach)):
            rep.setdefault(cls[q], q)
        order = [cls[0]]
        num = {cls[0]: 0}
        for c in order:
            for r in trans[rep[c]]:
                if cls[r] not in num:
                    num[cls[r]] = len(order)
                    order.append(cls[r])
        rows = [[num[cls[r]] for r in trans[rep[c]]] for c in order]
        out = DFA(self.alphabet, rows, [acc[rep[c]] for c in order], 0)
        out._key = (self.alphabet, out.trans, out.accept)
        return out

    @classmethod
    def trusted(cls, alphabet: tuple[str, ...], trans, accept) -> DFA:
        """A canonical minimal DFA (start 0) from the compiled core, without re-validation: the caller
        guarantees the table is complete, minimal and numbered as :meth:`minimize` numbers it."""
        out = object.__new__(cls)
        out.alphabet = alphabet
        out.trans = tuple(map(tuple, trans))
        out.accept = tuple(accept)
        out.start = 0
        out._index = {s: i for i, s in enumerate(alphabet)}
        out._key = (alphabet, out.trans, out.accept)
        out._useful = out._finite = out._parts = None
        return out

    def arrays(self):
        """``(T, F, start)`` as int32 / bool numpy arrays for :mod:`toolkit_langgen.compiled`."""
        return (
            np.asarray(self.trans, dtype=np.int32).reshape(self.n_states, len(self.alphabet)),
            np.asarray(self.accept, dtype=np.bool_),
            self.start,
        )

    def key(self) -> tuple:
        """Canonical form: equal keys <=> equal languages."""
        if self._key is None:
            self._key = self.minimize()._key
        return self._key

    def __eq__(self, other) -> bool:
        return isinstance(other, DFA) and self.key() == other.key()

    def __hash__(self) -> int:
        return hash(self.key())

    def __repr__(self) -> str:
        return f"DFA(states={self.n_states}, alphabet={''.join(self.alphabet)}, accept={sum(self.accept)})"

    # -- automata-lib interop ----------------------------------------------------------------------
    def to_automata(self):
        from automata.fa.dfa import DFA as ADFA

        return ADFA(
            states=set(range(self.n_states)),
            input_symbols=set(self.alphabet),
            transitions={
                q: {s: self.trans[q][i] for i, s in enumerate(self.alphabet)} for q in range(self.n_states)
            },
            initial_state=self.start,
            final_states={q for q in range(self.n_states) if self.accept[q]},
        )

    @classmethod
    def from_automata(cls, automaton, alphabet: Iterable[str] | None = None) -> DFA:
        """From an automata-lib DFA or NFA (subset construction); see :func:`as_dfa`."""
        return as_dfa(automaton, alphabet)


# -- other regular representations ---------------------------------------------------------------------
REGULAR_TYPES = (
    "a toolkit_langgen DFA or an automata-lib DFA / NFA (automata.fa.dfa.DFA, automata.fa.nfa.NFA)"
)


def _foreign_symbols(symbols, alphabet, what: str) -> tuple[str, ...]:
    symbols = set(symbols)
    if alphabet is None:
        return validate_alphabet(sorted(symbols))
    extra = symbols - set(alphabet)
    if extra:
        raise LanguageError(f"{what} has symbol(s) {sorted(extra)} outside the alphabet {tuple(alphabet)}")
    return tuple(alphabet)


def subset_construction(nfa, alphabet: Iterable[str] | None = None) -> DFA:
    """DFA of an automata-lib NFA (epsilon moves under the key ``""``) over ``alphabet`` (default:
    the NFA's own symbols; a symbol the NFA does not use leads to the empty set of states)."""
    alphabet = _foreign_symbols(nfa.input_symbols, alphabet, "the NFA")
    moves = {q: {s: frozenset(t) for s, t in nfa.transitions.get(q, {}).items()} for q in nfa.states}

    def eclose(states):
        out, stack = set(states), list(states)
        while stack:
            for r in moves.get(stack.pop(), {}).get("", ()):
                if r not in out:
                    out.add(r)
                    stack.append(r)
        return frozenset(out)

    start = eclose({nfa.initial_state})
    ids, order, rows = {start: 0}, [start], []
    for S in order:
        row = []
        for sym in alphabet:
            T = eclose({r for q in S for r in moves.get(q, {}).get(sym, ())})
            if T not in ids:
                ids[T] = len(order)
                order.append(T)
            row.append(ids[T])
        rows.append(row)
    finals = set(nfa.final_states)
    return DFA(alphabet, rows, [bool(S & finals) for S in order], 0).minimize()


def as_dfa(language, alphabet: Iterable[str] | None = None) -> DFA:
    """A regular language as a :class:`DFA`: our DFA as is, an automata-lib DFA by its table, an
    automata-lib NFA by the subset construction. Anything else raises ``TypeError`` naming the
    expected types (a CFG or pattern language is not regular: use its ``words`` / membership)."""
    if isinstance(language, DFA):
        return language
    module = type(language).__module__ or ""
    if module.startswith("automata.fa.dfa"):
        symbols = _foreign_symbols(language.input_symbols, alphabet, "the automata-lib DFA")
        table = {q: dict(language.transitions.get(q, {})) for q in language.states}
        return DFA.from_table(table, language.initial_state, language.final_states, symbols)
    if module.startswith("automata.fa.nfa"):
        return subset_construction(language, alphabet)
    raise TypeError(f"expected a regular language ({REGULAR_TYPES}), got {type(language).__name__}")


# -- enumeration of all n-state binary DFAs up to language equivalence -----------------------------
def _all_words(max_length: int, k: int):
    """Words of length <= max_length as (parent index, letter) in shortlex order (word 0 = epsilon)."""
    parent, letter, lengths = [-1], [-1], [0]
    start = 0
    for length in range(1, max_length + 1):
        end = len(parent)
        for p in range(start, end):
            for c in range(k):
                parent.append(p)
                letter.append(c)
                lengths.append(length)
        start = end
    return np.array(parent), np.array(letter), np.array(lengths)


def enumerate_dfa_languages(n: int, alphabet: tuple[str, ...] = ("a", "b"), method: str = "auto"):
    """All languages of complete DFAs with <= n states (start fixed), one minimal DFA per language,
    and their infinite flags.

    ``method``: ``"numba"`` (every minimal DFA in canonical breadth-first numbering, found by
    testing each table for that numbering and for minimality: one per language, no deduplication;
    ordered by size, then table), ``"numpy"`` (fingerprints on all short words, see
    :func:`enumerate_dfa_languages_numpy`; sorted by fingerprint) or ``"auto"`` (numba from n = 4,
    where it pays; below, numba's first-call compile costs more than the whole numpy run).
    """
    if n < 1:
        raise LanguageError(f"n must be >= 1, got {n}")
    alphabet = validate_alphabet(alphabet)
    if method not in ("auto", "numba", "numpy"):
        raise ValueError(f"method must be one of auto, numba, numpy; got {method!r}")
    if method == "auto":
        method = "numba" if n >= 4 else "numpy"
    if method == "numpy":
        return enumerate_dfa_languages_numpy(n, alphabet)
    from toolkit_langgen.compiled import enumerate_minimal

    sizes, T, F, inf = enumerate_minimal(n, len(alphabet))
    languages = [
        DFA.trusted(alphabet, T[i, :m].tolist(), F[i, :m].tolist()) for i, m in enumerate(sizes.tolist())
    ]
    return languages, inf.tolist()


def enumerate_dfa_languages_numpy(n: int, alphabet: tuple[str, ...] = ("a", "b"), chunk: int = 1 << 16):
    """All languages of complete DFAs with <= n states (start fixed), one minimal DFA per language.

    Vectorised: every transition table is run on all words of length <= 2n - 1 at once; two DFAs with
    <= n states are equivalent iff they agree on those words (a distinguishing word of a product
    of two n-state DFAs has length <= 2n - 2), and a <= n-state DFA accepts an infinite language iff
    it accepts a word of length in [n, 2n - 1]. Returns ``(languages, infinite_flags)`` sorted by
    the fingerprint (deterministic).
    """
    if n < 1:
        raise LanguageError(f"n must be >= 1, got {n}")
    k = len(alphabet)
    parent, letter, lengths = _all_words(2 * n - 1, k)
    n_words = len(parent)
    n_tables = n ** (n * k)
    long_mask = lengths >= n
    found: dict[bytes, tuple[int, int]] = {}
    for lo in range(0, n_tables, chunk):
        idx = np.arange(lo, min(lo + chunk, n_tables), dtype=np.int64)
        # digits of the table index: T[:, q, c] = digit q*k + c in base n
        digits = np.empty((len(idx), n * k), dtype=np.int64)
        rest = idx.copy()
        for j in range(n * k):
            digits[:, j] = rest % n
            rest //= n
        T = digits.reshape(len(idx), n, k)
        states = np.zeros((len(idx), n_words), dtype=np.int64)
        rows = np.arange(len(idx))
        for w in range(1, n_words):
            states[:, w] = T[rows, states[:, parent[w]], letter[w]]
        for mask in range(2**n):
            acc_bits = (mask >> states) & 1
            packed = np.packbits(acc_bits.astype(np.uint8), axis=1)
            # first table of each distinct fingerprint in this chunk
            view = np.ascontiguousarray(packed).view(np.dtype((np.void, packed.shape[1]))).ravel()
            _, first = np.unique(view, return_index=True)
            for f in first:
                fp = packed[f].tobytes()
                if fp not in found:
                    found[fp] = (int(idx[f]), mask, bool(acc_bits[f][long_mask].any()))
    languages, infinite = [], []
    for fp in sorted(found):
        t, mask, inf = found[fp]
        digits = []
        for _ in range(n * k):
            digits.append(t % n)
            t //= n
        rows = [digits[q * k : (q + 1) * k] for q in range(n)]
        dfa = DFA(alphabet, rows, [(mask >> q) & 1 == 1 for q in range(n)], 0).minimize()
        languages.append(dfa)
        infinite.append(inf)
    return languages, infinite


def canonical_dfas(n: int, alphabet: tuple[str, ...] = ("a", "b")) -> Iterator[DFA]:
    """Plain-Python reference enumeration (slow; for cross-checking small n)."""
    k = len(alphabet)
    for targets in itertools.product(range(n), repeat=n * k):
        rows = [targets[q * k : (q + 1) * k] for q in range(n)]
        for mask in range(2**n):
            yield DFA(alphabet, rows, [(mask >> q) & 1 == 1 for q in range(n)], 0)


# -- batched (vectorised numpy) operations for brute force over many small DFAs ------------------------
def stack_dfas(dfas) -> tuple[np.ndarray, np.ndarray]:
    """(N, n_max, k) transitions and (N, n_max) accepting flags; padding states are unreachable
    self-loops, start state 0 (the DFAs are re-numbered so that the start is 0)."""
    n_max = max(d.n_states for d in dfas)
    k = len(dfas[0].alphabet)
    T = np.tile(np.arange(n_max)[None, :, None], (len(dfas), 1, k))
    F = np.zeros((len(dfas), n_max), dtype=bool)
    for i, d in enumerate(dfas):
        perm = list(range(d.n_states))
        perm[0], perm[d.start] = d.start, 0  # swap start into position 0
        inv = {q: j for j, q in enumerate(perm)}
        T[i, : d.n_states] = [[inv[r] for r in d.trans[q]] for q in perm]
        F[i, : d.n_states] = [d.accept[q] for q in perm]
    return T, F


def batch_membership(T: np.ndarray, F: np.ndarray, words: list[str], alphabet: tuple[str, ...]) -> np.ndarray:
    """(N, len(words)) acceptance of every word by every stacked DFA."""
    index = {s: i for i, s in enumerate(alphabet)}
    N = T.shape[0]
    rows = np.arange(N)
    out = np.empty((N, len(words)), dtype=bool)
    cache: dict[str, np.ndarray] = {"": np.zeros(N, dtype=np.int64)}
    for j, w in enumerate(words):
        if w not in cache:
            prefix = w[:-1]
            if prefix not in cache:  # words need not be prefix-closed: run from the longest cached prefix
                state = np.zeros(N, dtype=np.int64)
                for ch in prefix:
                    state = T[rows, state, index[ch]]
                cache[prefix] = state
            cache[w] = T[rows, cache[prefix], index[w[-1]]]
        out[:, j] = F[rows, cache[w]]
    return out


def batch_intersection_finite(TA, FA, TB, FB) -> tuple[np.ndarray, np.ndarray]:
    """For stacked pairs (A_i, B_i): (is_empty, is_finite) of A_i ∩ B_i, via the product graph's
    transitive closure (repeated boolean squaring)."""
    N, na, k = TA.shape
    nb = TB.shape[1]
    p = na * nb
    rows = np.arange(N)[:, None, None]
    # product state (i, j) -> i * nb + j
    PT = TA[:, :, None, :] * nb + TB[:, None, :, :]  # (N, na, nb, k)
    PT = PT.reshape(N, p, k)
    PF = (FA[:, :, None] & FB[:, None, :]).reshape(N, p)
    A = np.zeros((N, p, p), dtype=np.int32)
    src = np.broadcast_to(np.arange(p)[None, :, None], (N, p, k))
    A[np.broadcast_to(rows, (N, p, k)), src, PT] = 1
    R = A.copy()
    steps = 1
    while steps < p:
        R = ((R + R @ R) > 0).astype(np.int32)
        steps *= 2
    Rb = R > 0
    reach = Rb[:, 0, :].copy()
    reach[:, 0] = True
    co = (Rb & PF[:, None, :]).any(axis=2) | PF
    useful = reach & co
    empty = ~(reach & PF).any(axis=1)
    cyclic = np.diagonal(Rb, axis1=1, axis2=2)
    finite = ~(useful & cyclic).any(axis=1)
    return empty, finite
