"""The user's own hypothesis class: parse, validate and build it (pure maths, no toolkit imports).

A class is a JSON object (inline, or in a file)::

    {"kind": "regex", "alphabet": "ab", "members": ["a*b*", "(ab)*|b*", ...]}

``kind`` (the default for members given as plain values) is one of ``regex``, ``dfa``, ``nfa``,
``cfg``, ``pattern``; a member may also be an object with its own ``kind`` (a mixed class). Members:

- ``regex``: automata-lib syntax, e.g. ``"a*|ba*"``;
- ``dfa``: ``{"start": q, "accepting": [...], "transitions": {q: {symbol: q'}}}`` (a missing
  transition goes to a dead state); ``nfa``: the same with lists of targets and ``""`` for epsilon
  moves (subset construction);
- ``cfg``: productions ``"S -> a S b | $"`` (lines separated by newlines or ``;``);
- ``pattern``: a non-erasing pattern ``"x a x b y"``.

Inline shorthand for the command line: ``KIND: member ; member ; ...`` (e.g. ``regex: a*b* ; b*a*``;
the alphabet is the set of symbols the members use unless given in brackets: ``regex[abc]: a* ; b*``;
patterns need it; grammars are separated by ``;;``, a grammar's productions by ``;``). A value that
is the path of an existing file is read as JSON.

Validation (:class:`UserClassError`, naming the member): one alphabet for all members; every member
well formed; where the theory needs it (closure dimension, generator races) every member infinite
and regular.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from toolkit_langgen.dfa import DFA, LanguageError, subset_construction, validate_alphabet

KINDS = ("regex", "dfa", "nfa", "cfg", "pattern")
REGULAR_KINDS = ("regex", "dfa", "nfa")
_SHORTHAND = re.compile(r"^\s*(regex|cfg|pattern)\s*(?:\[\s*([A-Za-z0-9]+)\s*\])?\s*:(.*)$", re.DOTALL)


class UserClassError(LanguageError):
    """A user-given class is malformed; the message names the source and the member."""


@dataclass(frozen=True)
class UserClass:
    alphabet: tuple[str, ...]
    kinds: tuple[str, ...]  # kind of each member
    specs: tuple  # the members as given (JSON-compatible)
    languages: tuple  # DFA for regular members, CFGLanguage / PatternLanguage otherwise
    source: str = "inline"

    @property
    def regular(self) -> bool:
        return all(k in REGULAR_KINDS for k in self.kinds)

    def canonical(self) -> str:
        """The class as canonical JSON (a file's contents inlined: the run store's key follows them)."""
        members = [{"kind": k, "value": v} for k, v in zip(self.kinds, self.specs)]
        return json.dumps(
            {"alphabet": "".join(self.alphabet), "members": members}, sort_keys=True, separators=(",", ":")
        )

    def describe(self, i: int) -> str:
        return describe_member(i, self.kinds[i], self.specs[i])

    def require_regular_infinite(self, what: str) -> list[DFA]:
        """The members as DFAs; raise naming the first non-regular or finite member."""
        for i, k in enumerate(self.kinds):
            if k not in REGULAR_KINDS:
                raise UserClassError(
                    f"{what} needs regular members (regex, dfa, nfa); {self.describe(i)} is a "
                    f"{k} (CFG and pattern classes get bounded-length answers in "
                    "langgen.witness_family and langgen.closure_dimension)"
                )
        return self.require_infinite(what)

    def require_infinite(self, what: str) -> list:
        for i, L in enumerate(self.languages):
            if L.is_finite():
                raise UserClassError(
                    f"{what} needs infinite languages (a class H of the theory); {self.describe(i)} is finite"
                )
        return list(self.languages)


def describe_member(i: int, kind: str, spec) -> str:
    text = spec if isinstance(spec, str) else json.dumps(spec, sort_keys=True)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"member {i} ({kind} {text!r})"


def _symbols_of(kind: str, spec) -> set[str]:
    if kind == "regex":
        return {ch for ch in spec if ch.isalnum()}
    if kind in ("dfa", "nfa"):
        return {s for row in spec.get("transitions", {}).values() for s in row if s != ""}
    if kind == "cfg":
        return {
            tok
            for line in re.split(r"[;\n]", spec)
            for tok in line.replace("->", " ").replace("|", " ").split()
            if tok != "$" and not tok[0].isupper()
        }
    raise UserClassError(
        "a pattern's constants and variables are told apart by the alphabet: give "
        "\"alphabet\" (or 'pattern[ab]: ...')"
    )


def _load_text(value: str) -> tuple[object, str]:
    """(JSON document or shorthand string, source) of a parameter value."""
    text = value.strip()
    if not text:
        raise UserClassError("the class is empty: give a JSON object, a JSON file or 'regex: r1 ; r2'")
    source = "inline"
    if not text.startswith(("{", "[")) and not _SHORTHAND.match(text):
        path = Path(text)
        if not path.is_file():
            raise UserClassError(
                f"{text!r} is neither a file nor a class ('regex: a* ; b*', JSON {{\"kind\": ..., "
                f'"members": [...]}}); kinds: {", ".join(KINDS)}'
            )
        source = str(path)
        text = path.read_text()
    if text.lstrip().startswith(("{", "[")):
        try:
            return json.loads(text), source
        except json.JSONDecodeError as exc:
            raise UserClassError(
                f"{source}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}"
            ) from None
    m = _SHORTHAND.match(text)
    if not m:
        raise UserClassError(
            f"{source}: expected JSON or 'KIND: m1 ; m2' with KIND one of regex, cfg, pattern"
        )
    kind, alphabet, body = m.group(1), m.group(2), m.group(3)
    # grammars: members separated by ';;', a grammar's productions by ';'
    members = [part.strip() for part in body.split(";;" if kind == "cfg" else ";")]
    doc = {"kind": kind, "members": members}
    if alphabet:
        doc["alphabet"] = alphabet
    return doc, source


def parse_user_class(value, alphabet=None) -> UserClass:
    """Build a :class:`UserClass` from a JSON document (dict), a JSON string, a shorthand string or a
    file path. Raises :class:`UserClassError` naming the source and the offending member."""
    if isinstance(value, UserClass):
        return value
    source = "inline"
    if isinstance(value, (str, Path)):
        doc, source = _load_text(str(value))
    else:
        doc = value
    if isinstance(doc, list):
        doc = {"members": doc}
    if not isinstance(doc, dict):
        raise UserClassError(f"{source}: a class is a JSON object with 'members', got {type(doc).__name__}")
    unknown = set(doc) - {"kind", "alphabet", "members"}
    if unknown:
        raise UserClassError(f"{source}: unknown key(s) {sorted(unknown)}; allowed: kind, alphabet, members")
    default_kind = doc.get("kind", "regex")
    if default_kind not in KINDS:
        raise UserClassError(f"{source}: kind must be one of {', '.join(KINDS)}, got {default_kind!r}")
    members = doc.get("members")
    if not isinstance(members, list) or not members:
        raise UserClassError(f"{source}: 'members' must be a non-empty list")
    kinds, specs = [], []
    for i, m in enumerate(members):
        if isinstance(m, dict) and "kind" in m and "value" in m and set(m) == {"kind", "value"}:
            kind, spec = m["kind"], m["value"]
        elif isinstance(m, dict) and "kind" in m:
            kind, spec = m["kind"], {k: v for k, v in m.items() if k != "kind"}
        else:
            kind, spec = default_kind, m
        if kind not in KINDS:
            raise UserClassError(
                f"{source}: member {i}: kind must be one of {', '.join(KINDS)}, got {kind!r}"
            )
        if kind in ("dfa", "nfa") and not isinstance(spec, dict):
            raise UserClassError(
                f"{source}: {describe_member(i, kind, spec)}: a {kind} is an object "
                '{"start": q, "accepting": [...], "transitions": {q: {symbol: target}}}'
            )
        if kind not in ("dfa", "nfa") and not isinstance(spec, str):
            raise UserClassError(f"{source}: {describe_member(i, kind, spec)}: a {kind} member is a string")
        kinds.append(kind)
        specs.append(spec)
    given = alphabet if alphabet is not None else doc.get("alphabet")
    try:
        if given is not None:
            sigma = validate_alphabet(tuple(given))
        else:
            sigma = validate_alphabet(sorted(set().union(*(_symbols_of(k, s) for k, s in zip(kinds, specs)))))
    except LanguageError as exc:
        raise UserClassError(f"{source}: {exc}") from None
    languages = []
    for i, (kind, spec) in enumerate(zip(kinds, specs)):
        try:
            languages.append(_build(kind, spec, sigma))
        except (LanguageError, KeyError, TypeError, ValueError) as exc:
            raise UserClassError(f"{source}: {describe_member(i, kind, spec)}: {exc}") from None
    return UserClass(sigma, tuple(kinds), tuple(specs), tuple(languages), source)


def _build(kind: str, spec, alphabet: tuple[str, ...]):
    from toolkit_langgen.languages import CFGLanguage, PatternLanguage, regex

    if kind == "regex":
        return regex(spec, alphabet)
    if kind == "cfg":
        return CFGLanguage(spec.replace(";", "\n"), alphabet)
    if kind == "pattern":
        return PatternLanguage(spec, alphabet)
    extra = set(spec) - {"start", "accepting", "transitions"}
    missing = {"start", "accepting", "transitions"} - set(spec)
    if extra or missing:
        raise LanguageError(
            f"keys must be start, accepting, transitions (missing {sorted(missing)}, unknown {sorted(extra)})"
        )
    table = spec["transitions"]
    if not isinstance(table, dict):
        raise LanguageError("'transitions' must be an object {state: {symbol: target}}")
    start = str(spec["start"])
    accepting = [str(q) for q in spec["accepting"]]
    if kind == "dfa":
        rows = {
            str(q): {s: (str(t) if not isinstance(t, list) else [str(x) for x in t]) for s, t in row.items()}
            for q, row in table.items()
        }
        return DFA.from_table(rows, start, accepting, alphabet).minimize()
    return subset_construction(_NFA(table, start, accepting, alphabet), alphabet)


class _NFA:
    """The attributes :func:`subset_construction` reads (automata-lib's NFA layout), from JSON."""

    def __init__(self, table: dict, start: str, accepting, alphabet):
        self.states = {str(q) for q in table}
        self.transitions = {}
        for q, row in table.items():
            if not isinstance(row, dict):
                raise LanguageError(f"state {q!r}: transitions must be an object {{symbol: [targets]}}")
            out = {}
            for s, targets in row.items():
                targets = [targets] if not isinstance(targets, list) else targets
                for t in targets:
                    if str(t) not in self.states:
                        raise LanguageError(f"state {q!r} on {s!r} goes to {t!r}, which is not a state")
                out[s] = {str(t) for t in targets}
            self.transitions[str(q)] = out
        if start not in self.states:
            raise LanguageError(f"start state {start!r} is not a state (states: {sorted(self.states)})")
        bad = set(accepting) - self.states
        if bad:
            raise LanguageError(f"accepting states {sorted(bad)} are not states")
        self.initial_state, self.final_states = start, set(accepting)
        self.input_symbols = {s for row in self.transitions.values() for s in row if s != ""}
        unknown = self.input_symbols - set(alphabet)
        if unknown:
            raise LanguageError(f"symbol(s) {sorted(unknown)} outside the alphabet {alphabet}")
