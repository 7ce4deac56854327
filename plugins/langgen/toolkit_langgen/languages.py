"""Language classes behind one interface.

Every language has ``alphabet``, membership (``w in L``), ``words(max_length)`` (shortlex) and
``is_finite()``. Regular languages (DFA, regex/NFA, counting, LTT(k, t), strictly local) are
:class:`~toolkit_langgen.dfa.DFA` objects, where intersection, emptiness, finiteness, cardinality
and shortlex enumeration are all decidable. Context-free grammars (CYK membership, finiteness,
intersection with a regular language) and non-erasing pattern languages only give bounded-length
evidence for questions such as "is L1 ∩ L2 finite?". Pure maths, no toolkit imports.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable

from toolkit_langgen.dfa import DFA, LanguageError, validate_alphabet

BINARY = ("a", "b")
LEFT_MARK, RIGHT_MARK = "<", ">"  # the word boundaries of LTT / strictly local factors


_alphabet = validate_alphabet  # one rule for every language constructor and the DFA core


def all_words(alphabet: Iterable[str], max_length: int) -> list[str]:
    """Every word of length <= max_length, shortlex."""
    alphabet = tuple(alphabet)
    out = []
    for n in range(max_length + 1):
        out.extend("".join(p) for p in itertools.product(alphabet, repeat=n))
    return out


# -- regular -----------------------------------------------------------------------------------------
def _top_level_alternatives(expression: str) -> list[str]:
    parts, depth, cur = [], 0, []
    for ch in expression:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "|" and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def regex(expression: str, alphabet: Iterable[str] = BINARY) -> DFA:
    """Regular expression in automata-lib syntax (``|`` union, ``*``, ``+``, ``?``, ``()``, ``.``).

    A top-level union ``r1|r2|...`` keeps its alternatives as the language's own enumeration
    (round robin, :meth:`DFA.enumeration`); membership and every other operation are unaffected.
    """
    from automata.base.exceptions import AutomatonException, RegexException
    from automata.fa.dfa import DFA as ADFA
    from automata.fa.nfa import NFA

    alphabet = _alphabet(alphabet)
    unknown = sorted({ch for ch in expression if ch.isalnum() and ch not in alphabet})
    if unknown:
        raise LanguageError(f"regex {expression!r}: unknown symbol(s) {unknown} (alphabet {alphabet})")
    try:
        nfa = NFA.from_regex(expression, input_symbols=set(alphabet))
    except (AutomatonException, RegexException) as exc:
        raise LanguageError(f"regex {expression!r} is malformed: {exc}") from None
    out = DFA.from_automata(ADFA.from_nfa(nfa), alphabet).minimize()
    alternatives = _top_level_alternatives(expression)
    if len(alternatives) > 1 and all(alternatives):
        out = out.with_parts(regex(alt, alphabet) for alt in alternatives)
    return out


def from_table(table, start, accepting, alphabet: Iterable[str] | None = None) -> DFA:
    """DFA from ``{state: {symbol: next}}`` (see :meth:`DFA.from_table` for the errors)."""
    return DFA.from_table(table, start, accepting, alphabet).minimize()


def counting(symbol: str, m: int, alphabet: Iterable[str] = BINARY) -> DFA:
    """L_{σ,m} = {w : |w|_σ <= m} (m + 2 states with the dead state)."""
    alphabet = _alphabet(alphabet)
    if symbol not in alphabet:
        raise LanguageError(f"counting: symbol {symbol!r} is not in the alphabet {alphabet}")
    if m < 0:
        raise LanguageError(f"counting: m must be >= 0, got {m}")
    rows = []
    for q in range(m + 2):
        rows.append([min(q + 1, m + 1) if s == symbol else q for s in alphabet])
    return DFA(alphabet, rows, [q <= m for q in range(m + 2)], 0)


# -- locally threshold testable and strictly local ----------------------------------------------------
def ltt_profile(word: str, k: int, t: int) -> tuple:
    """The LTT(k, t) profile of ``word``: counts (capped at t) of the length-k factors of <word>.

    Words whose padded form ``<word>`` is shorter than k are their own profile.
    """
    padded = LEFT_MARK + word + RIGHT_MARK
    if len(padded) < k:
        return (padded, ())
    counts = Counter(padded[i : i + k] for i in range(len(padded) - k + 1))
    return ("", tuple(sorted((f, min(c, t)) for f, c in counts.items())))


def _ltt_advance(state, ch, k, t):
    buf, counts = state
    s = buf + ch
    if len(s) >= k:
        factor = s[len(s) - k :]
        d = dict(counts)
        d[factor] = min(d.get(factor, 0) + 1, t)
        counts = tuple(sorted(d.items()))
        buf = s[len(s) - k + 1 :] if k > 1 else ""
    else:
        buf = s
    return buf, counts


def _ltt_final(state, k, t):
    buf, counts = _ltt_advance(state, RIGHT_MARK, k, t)
    return (buf, ()) if not counts else ("", counts)


def ltt_automaton(k: int, t: int, alphabet: Iterable[str] = BINARY):
    """The profile automaton of LTT(k, t): ``(trans, start, final_profile_of_state)``."""
    alphabet = _alphabet(alphabet)
    if k < 1 or t < 1:
        raise LanguageError(f"LTT needs window k >= 1 and threshold t >= 1, got k={k}, t={t}")
    start = _ltt_advance(("", ()), LEFT_MARK, k, t)
    ids = {start: 0}
    order = [start]
    trans = []
    for state in order:
        row = []
        for ch in alphabet:
            nxt = _ltt_advance(state, ch, k, t)
            if nxt not in ids:
                ids[nxt] = len(order)
                order.append(nxt)
            row.append(ids[nxt])
        trans.append(row)
    finals = [_ltt_final(s, k, t) for s in order]
    return alphabet, trans, finals


def ltt(k: int, t: int, predicate: Callable[[dict], bool], alphabet: Iterable[str] = BINARY) -> DFA:
    """The LTT(k, t) language {w : predicate(profile counts of w)}.

    ``predicate`` gets a dict factor -> count capped at t (factors of ``<w>`` of length k; for words
    with ``|<w>| < k`` the dict is ``{<w>: 1}``).
    """
    alphabet, trans, finals = ltt_automaton(k, t, alphabet)
    accept = []
    for short, counts in finals:
        accept.append(bool(predicate({short: 1} if short else dict(counts))))
    return DFA(alphabet, trans, accept, 0).minimize()


def strictly_local(k: int, allowed: Iterable[str], alphabet: Iterable[str] = BINARY) -> DFA:
    """SL_k: words all of whose length-k factors of ``<w>`` are in ``allowed`` (short words: ``<w>``)."""
    alphabet = _alphabet(alphabet)
    allowed = set(allowed)
    valid = set(alphabet) | {LEFT_MARK, RIGHT_MARK}
    for f in allowed:
        if any(ch not in valid for ch in f):
            raise LanguageError(f"strictly_local: factor {f!r} uses a symbol outside {sorted(valid)}")
    if k == 1:  # the factors are single symbols, markers included: the profile automaton is tiny
        return ltt(1, 1, lambda counts: all(f in allowed for f in counts), alphabet)
    # states: the last k-1 symbols of <w (or all of <w while shorter), plus a dead state (None)
    start = LEFT_MARK
    ids, order, rows, ok = {start: 0}, [start], [], []
    for buf in order:
        if buf is None:
            rows.append([ids[None]] * len(alphabet))
            ok.append(False)
            continue
        row = []
        for ch in alphabet:
            s = buf + ch
            if len(s) >= k and s[len(s) - k :] not in allowed:
                nxt = None
            else:
                nxt = s[len(s) - k + 1 :] if len(s) >= k else s
            if nxt not in ids:
                ids[nxt] = len(order)
                order.append(nxt)
            row.append(ids[nxt])
        rows.append(row)
        # accept: closing with the right marker; short padded words must be allowed as a whole
        closed = buf + RIGHT_MARK
        ok.append(closed[max(len(closed) - k, 0) :] in allowed)  # a short <w> is its own factor
    return DFA(alphabet, rows, ok, 0).minimize()


# -- context-free ------------------------------------------------------------------------------------
_LINE = re.compile(r"^\s*([A-Z][A-Za-z0-9_]*)\s*->\s*(.+?)\s*$")


class CFGLanguage:
    """A context-free grammar in text form: ``S -> a S b | $`` (variables start upper-case,
    terminals are alphabet symbols, ``$`` is the empty word; symbols separated by spaces)."""

    decidable_intersection = False

    def __init__(self, text: str, alphabet: Iterable[str] = BINARY, start: str = "S"):
        from pyformlang.cfg import CFG, Terminal, Variable

        self.alphabet = _alphabet(alphabet)
        self.text = text
        heads, used = set(), set()
        lines = []
        for i, raw in enumerate(text.strip().splitlines(), 1):
            if not raw.strip():
                continue
            m = _LINE.match(raw)
            if not m:
                raise LanguageError(f"bad grammar line {i}: {raw!r} (expected 'A -> body | body')")
            head, bodies = m.group(1), m.group(2)
            heads.add(head)
            for body in bodies.split("|"):
                symbols = body.split()
                if not symbols:
                    raise LanguageError(f"bad grammar line {i}: {raw!r} has an empty alternative (use $)")
                for s in symbols:
                    if s == "$":
                        continue
                    if s[0].isupper():
                        used.add(s)
                    elif s not in self.alphabet:
                        raise LanguageError(
                            f"grammar line {i}: unknown symbol {s!r} (alphabet {self.alphabet})"
                        )
            lines.append(f"{head} -> {bodies}")
        if start not in heads:
            raise LanguageError(f"grammar has no production for the start variable {start!r}")
        missing = sorted(used - heads)
        if missing:
            raise LanguageError(f"grammar uses variable(s) {missing} without productions")
        self.cfg = CFG.from_text("\n".join(lines), start_symbol=Variable(start))
        self._epsilon = self.cfg.generate_epsilon()
        cnf = self.cfg.to_normal_form()
        self._unit = {}  # terminal -> heads
        self._binary = []  # (head, left, right)
        for p in cnf.productions:
            if len(p.body) == 1 and isinstance(p.body[0], Terminal):
                self._unit.setdefault(p.body[0].value, set()).add(p.head)
            elif len(p.body) == 2:
                self._binary.append((p.head, p.body[0], p.body[1]))
        self._start = cnf.start_symbol

    def __contains__(self, word: str) -> bool:
        """CYK membership."""
        for ch in word:
            if ch not in self.alphabet:
                raise LanguageError(f"symbol {ch!r} of {word!r} is not in the alphabet {self.alphabet}")
        n = len(word)
        if n == 0:
            return self._epsilon
        table = [[set() for _ in range(n + 1)] for _ in range(n)]  # table[i][l]: heads deriving word[i:i+l]
        for i, ch in enumerate(word):
            table[i][1] = set(self._unit.get(ch, ()))
        for length in range(2, n + 1):
            for i in range(n - length + 1):
                cell = table[i][length]
                for split in range(1, length):
                    left, right = table[i][split], table[i + split][length - split]
                    if not left or not right:
                        continue
                    for head, b, c in self._binary:
                        if b in left and c in right:
                            cell.add(head)
        return self._start in table[0][n]

    def words(self, max_length: int) -> list[str]:
        """Words of length <= max_length (generated by pyformlang, sorted shortlex)."""
        out = {"".join(t.value for t in w) for w in self.cfg.get_words(max_length)}
        return sorted(out, key=lambda w: (len(w), w))

    def is_finite(self) -> bool:
        return self.cfg.is_finite()

    def intersect_regular(self, dfa: DFA) -> CFGLanguage:
        """L ∩ R for a regular R (decidable; the result is again a grammar)."""
        from pyformlang.finite_automaton import DeterministicFiniteAutomaton, State, Symbol

        if dfa.alphabet != self.alphabet:
            raise LanguageError(f"alphabets differ: {self.alphabet} vs {dfa.alphabet}")
        fa = DeterministicFiniteAutomaton()
        fa.add_start_state(State(dfa.start))
        for q in range(dfa.n_states):
            if dfa.accept[q]:
                fa.add_final_state(State(q))
            for i, s in enumerate(dfa.alphabet):
                fa.add_transition(State(q), Symbol(s), State(dfa.trans[q][i]))
        out = object.__new__(CFGLanguage)
        from pyformlang.cfg import Terminal

        out.alphabet, out.text = self.alphabet, f"({self.text}) ∩ regular"
        out.cfg = self.cfg.intersection(fa)
        out._epsilon = out.cfg.generate_epsilon()
        cnf = out.cfg.to_normal_form()
        out._unit, out._binary = {}, []
        for p in cnf.productions:
            if len(p.body) == 1 and isinstance(p.body[0], Terminal):
                out._unit.setdefault(p.body[0].value, set()).add(p.head)
            elif len(p.body) == 2:
                out._binary.append((p.head, p.body[0], p.body[1]))
        out._start = cnf.start_symbol
        return out


# -- non-erasing pattern languages --------------------------------------------------------------------
class PatternLanguage:
    """Non-erasing pattern language, e.g. ``"x a x b y"``: tokens in the alphabet are constants, other
    identifiers are variables; each variable maps to a non-empty word, repeated variables to equal
    words. Without spaces, every character is a token."""

    def __init__(self, pattern: str, alphabet: Iterable[str] = BINARY):
        self.alphabet = _alphabet(alphabet)
        self.pattern = pattern
        tokens = pattern.split() if " " in pattern.strip() else list(pattern.strip())
        if not tokens:
            raise LanguageError("pattern is empty")
        for tok in tokens:
            if tok not in self.alphabet and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", tok):
                raise LanguageError(
                    f"pattern {pattern!r}: token {tok!r} is neither an alphabet symbol nor a variable"
                )
        self.tokens = tuple(tokens)
        self.variables = tuple(dict.fromkeys(t for t in tokens if t not in self.alphabet))

    def is_finite(self) -> bool:
        return not self.variables

    def __contains__(self, word: str) -> bool:
        """Backtracking matcher."""
        for ch in word:
            if ch not in self.alphabet:
                raise LanguageError(f"symbol {ch!r} of {word!r} is not in the alphabet {self.alphabet}")
        toks, alpha = self.tokens, set(self.alphabet)
        min_rest = [0] * (len(toks) + 1)
        for i in range(len(toks) - 1, -1, -1):
            min_rest[i] = min_rest[i + 1] + 1

        def match(i: int, pos: int, env: dict) -> bool:
            if i == len(toks):
                return pos == len(word)
            if len(word) - pos < min_rest[i]:
                return False
            tok = toks[i]
            if tok in alpha:
                return word[pos] == tok and match(i + 1, pos + 1, env)
            if tok in env:
                v = env[tok]
                return word.startswith(v, pos) and match(i + 1, pos + len(v), env)
            for end in range(pos + 1, len(word) - min_rest[i + 1] + 1):
                env[tok] = word[pos:end]
                if match(i + 1, end, env):
                    del env[tok]
                    return True
            env.pop(tok, None)
            return False

        return match(0, 0, {})

    def words(self, max_length: int) -> list[str]:
        """Words of length <= max_length by substituting non-empty words for the variables."""
        n_const = sum(1 for t in self.tokens if t in self.alphabet)
        mult = Counter(t for t in self.tokens if t not in self.alphabet)
        out = set()

        def assign(j: int, env: dict, length: int):
            if j == len(self.variables):
                out.add("".join(env.get(t, t) for t in self.tokens))
                return
            v = self.variables[j]
            for n in range(1, (max_length - length) // mult[v] + 1):
                for w in itertools.product(self.alphabet, repeat=n):
                    env[v] = "".join(w)
                    assign(j + 1, env, length + n * mult[v])
            env.pop(v, None)

        if n_const + len(self.tokens) - n_const <= max_length:
            assign(0, {}, n_const)
        return sorted((w for w in out if len(w) <= max_length), key=lambda w: (len(w), w))


def intersection_profile(languages, max_length: int) -> list[int]:
    """Bounded-length evidence: |L1 ∩ ... ∩ Lr ∩ Σ^n| for n = 0..max_length (brute force membership)."""
    alphabet = languages[0].alphabet
    counts = [0] * (max_length + 1)
    for w in all_words(alphabet, max_length):
        if all(w in L for L in languages):
            counts[len(w)] += 1
    return counts
