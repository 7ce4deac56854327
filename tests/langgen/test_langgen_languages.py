"""Language classes: membership against brute force, decidable operations, clear errors."""

import pytest
from toolkit_langgen.dfa import DFA, LanguageError
from toolkit_langgen.languages import (
    CFGLanguage,
    PatternLanguage,
    all_words,
    counting,
    from_table,
    ltt,
    ltt_profile,
    regex,
    strictly_local,
)

WORDS8 = all_words("ab", 8)

GRAMMARS = {
    "anbn": ("S -> a S b | $", lambda w: w == "a" * (len(w) // 2) + "b" * (len(w) // 2)),
    "palindromes": ("S -> a S a | b S b | a | b | $", lambda w: w == w[::-1]),
    "dyck": ("S -> a S b S | $", None),
    "equal_ab": (
        "S -> a B | b A | $\nA -> a S | b A A\nB -> b S | a B B",
        lambda w: w.count("a") == w.count("b"),
    ),
}


def _dyck(w):
    depth = 0
    for ch in w:
        depth += 1 if ch == "a" else -1
        if depth < 0:
            return False
    return depth == 0


@pytest.mark.parametrize("name", sorted(GRAMMARS))
def test_cyk_agrees_with_generation_and_reference(name):
    text, ref = GRAMMARS[name]
    ref = ref or _dyck
    g = CFGLanguage(text)
    cyk = [w for w in WORDS8 if w in g]
    assert cyk == [w for w in WORDS8 if ref(w)]
    assert cyk == g.words(8)


@pytest.mark.parametrize("pattern", ["x a x b y", "x x", "a x b", "x y x", "x a y a x"])
def test_pattern_matcher_agrees_with_substitution(pattern):
    p = PatternLanguage(pattern)
    assert [w for w in WORDS8 if w in p] == p.words(8)


def test_pattern_semantics():
    p = PatternLanguage("x a x b y")
    assert "aaabb" in p  # x = a, y = b
    assert "aab" not in p  # y must be non-empty
    assert "abaabba" in p  # x = ab, y = a
    assert "abaabb" not in p  # would need |x| = 2 and an empty y
    assert "ab" + "a" + "ba" + "b" + "a" not in p  # the two x's differ
    assert PatternLanguage("xx").is_finite() is False and PatternLanguage("ab").is_finite() is True


def test_cfg_finiteness_and_regular_intersection():
    g = CFGLanguage("S -> a S b | $")
    assert not g.is_finite()
    short = g.intersect_regular(regex("(a|b)?(a|b)?(a|b)?(a|b)?"))
    assert short.is_finite() and short.words(10) == ["", "ab", "aabb"]


def test_dfa_operations_match_automata_lib():
    L = regex("(a|b)*bb(a|b)*")
    A = L.to_automata()
    assert [w for w in WORDS8 if w in L] == [w for w in WORDS8 if A.accepts_input(w)]
    I = counting("a", 2) & counting("b", 1)
    AI = counting("a", 2).to_automata() & counting("b", 1).to_automata()
    assert I.cardinality() == AI.cardinality() == 9
    assert I.words(10) == sorted(AI, key=lambda w: (len(w), w))
    assert DFA.from_automata(AI).key() == I.key()
    assert not L.is_finite() and L.pumping_certificate() is not None
    x, y, z = L.pumping_certificate()
    assert all(x + y * j + z in L for j in range(6)) and y


def test_ltt_membership_is_profile_based():
    L = ltt(2, 2, lambda c: c.get("ab", 0) >= 2 and c.get("<b", 0) == 1)
    for w in all_words("ab", 7):
        c = dict(ltt_profile(w, 2, 2)[1])
        assert (w in L) == (c.get("ab", 0) >= 2 and c.get("<b", 0) == 1)


def test_strictly_local_matches_ltt_definition():
    allowed = {"<a", "ab", "ba", "b>", "a>", "<>"}
    L = strictly_local(2, allowed)
    assert L.words(5) == ["", "a", "ab", "aba", "abab", "ababa"]


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda: regex("(a|"), "malformed"),
        (lambda: regex("ac"), "unknown symbol"),
        (lambda: from_table({0: {"a": 0, "c": 1}, 1: {"a": 1}}, 0, {1}, ("a", "b")), "unknown symbol 'c'"),
        (lambda: from_table({0: {"a": {0, 1}}, 1: {}}, 0, {1}), "non-deterministic"),
        (lambda: from_table({0: {"a": 0}}, 5, {0}), "start state 5"),
        (lambda: from_table({0: {"a": 7}}, 0, {0}), "not a state"),
        (lambda: CFGLanguage("S -> a S b |"), "empty alternative"),
        (lambda: CFGLanguage("S => a"), "bad grammar line 1"),
        (lambda: CFGLanguage("S -> a c"), "unknown symbol 'c'"),
        (lambda: CFGLanguage("S -> a T"), "without productions"),
        (lambda: PatternLanguage("x # y"), "neither an alphabet symbol"),
        (lambda: counting("c", 1), "not in the alphabet"),
        (lambda: "abc" in counting("a", 1), "not in the alphabet"),
        (lambda: ltt(0, 1, lambda c: True), "window k >= 1"),
    ],
)
def test_malformed_input_gets_a_clear_error(make, message):
    with pytest.raises(LanguageError, match=message):
        make()


def _nfa_ends_in_ab():
    from automata.fa.nfa import NFA

    return NFA(
        states={0, 1, 2},
        input_symbols={"a", "b"},
        initial_state=0,
        final_states={2},
        transitions={0: {"a": {0, 1}, "b": {0}}, 1: {"b": {2}}, 2: {}},
    )


def test_nfa_accepted_wherever_a_regular_language_is_expected():
    from automata.fa.dfa import DFA as ADFA
    from toolkit_langgen.dfa import as_dfa, subset_construction

    nfa = _nfa_ends_in_ab()
    ends_ab = regex("(a|b)*ab")
    assert (
        subset_construction(nfa) == ends_ab == DFA.from_automata(ADFA.from_nfa(nfa))
    )  # ours vs automata-lib's
    star = regex("a*b*")
    assert (star & nfa) == (star & ends_ab) and star.product(nfa, "or") == star.product(ends_ab, "or")
    assert star.issubset(DFA.universal()) and not star.issubset(nfa) and ends_ab.equivalent(nfa)
    assert as_dfa(ADFA.from_nfa(nfa)) == ends_ab
    # an epsilon NFA and an NFA using fewer symbols than the alphabet
    from automata.fa.nfa import NFA

    eps = NFA(
        states={0, 1},
        input_symbols={"a"},
        initial_state=0,
        final_states={1},
        transitions={0: {"": {1}}, 1: {"a": {1}}},
    )
    assert (DFA.universal() & eps) == regex("a*")


def test_non_regular_operand_refused_naming_the_expected_type():
    with pytest.raises(
        TypeError, match="expected a regular language .*automata-lib DFA / NFA.*got CFGLanguage"
    ):
        regex("a*") & CFGLanguage("S -> a S b | $")
    with pytest.raises(TypeError, match="got str"):
        regex("a*").product("a*")
    from automata.fa.nfa import NFA

    abc = NFA(
        states={0}, input_symbols={"a", "c"}, initial_state=0, final_states={0}, transitions={0: {"c": {0}}}
    )
    with pytest.raises(LanguageError, match=r"symbol\(s\) \['c'\] outside the alphabet"):
        regex("a*") & abc


@pytest.mark.parametrize(
    "build",
    [
        lambda: DFA((), [[]], [True]),
        lambda: DFA.universal(()),
        lambda: DFA.from_table({0: {}}, 0, [0]),
        lambda: DFA.from_words(["", "a"], ()),
        lambda: counting("a", 1, ()),
        lambda: regex("a*", ()),
        lambda: strictly_local(2, {"<>"}, ()),
        lambda: ltt(1, 1, lambda c: True, ()),
        lambda: CFGLanguage("S -> $", ()),
        lambda: PatternLanguage("x", ()),
    ],
)
def test_empty_alphabet_refused_by_one_rule_everywhere(build):
    with pytest.raises(LanguageError, match="the alphabet is empty"):
        build()


def test_enumeration_refuses_the_empty_alphabet():
    from toolkit_langgen.dfa import enumerate_dfa_languages

    for method in ("numpy", "numba"):
        with pytest.raises(LanguageError, match="the alphabet is empty"):
            enumerate_dfa_languages(2, (), method=method)
