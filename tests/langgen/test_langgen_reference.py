"""Exact reference values of the langgen spec."""

import itertools
import random
from math import comb

import pytest
from toolkit_langgen.closure import (
    _size_key,
    closure_dimension,
    closure_dimension_bruteforce,
    closure_dimension_power_free,
    closure_of,
    dfa_class,
    ltt_closure_dimension,
    ltt_union_class,
    power_free_words,
)
from toolkit_langgen.dfa import enumerate_dfa_languages
from toolkit_langgen.generation import (
    GENERATORS,
    counting_class,
    intersection_first_adversary,
    km_nonuniform_class,
    km_shortlex_generator,
    race,
    sample_complexity,
    worst_case,
)
from toolkit_langgen.languages import counting, regex


@pytest.mark.parametrize("m,value", list(enumerate([1, 5, 19, 69, 251, 923])))
def test_counting_class_closure_dimension(m, value):
    H = counting_class(m)
    assert comb(2 * m + 2, m + 1) - 1 == value
    if m <= 3:
        res = closure_dimension(H)
        assert (res.value, res.status) == (value, "exact")
    assert (H[0] & H[1]).cardinality() == value


@pytest.mark.parametrize("m", [0, 1, 2, 3])
@pytest.mark.parametrize("gen", sorted(GENERATORS))
def test_counting_class_generators_first_correct(m, gen):
    H = counting_class(m)
    horizon = comb(2 * m + 2, m + 1) + 10
    per_target = sample_complexity(H, GENERATORS[gen], intersection_first_adversary, horizon)
    assert worst_case(per_target, horizon) == comb(2 * m + 2, m + 1)


def test_counting_three_letters():
    A = ("a", "b", "c")
    sizes = [
        (counting("a", m, A) & counting("b", m, A) & counting("c", m, A)).cardinality() for m in range(3)
    ]
    assert sizes == [1, 16, 271]


def test_km_nonuniformity_example():
    H = km_nonuniform_class()
    stream = ["a" * i for i in range(60)]
    km = race(H, GENERATORS["km"], stream, 1)
    # KM's critical language is always a* ∪ ba*; its first unseen word in its own enumeration
    # (round robin ε, b, a, ba, aa, ...) is 'b', not in the target, at every sample.
    assert not any(km.correct) and km.first_permanent is None and set(km.outputs) == {"b"}
    for gen in ("closure", "greedy"):
        r = race(H, GENERATORS[gen], stream, 1)
        assert all(r.correct) and r.first_permanent == 1


def test_km_nonuniformity_example_shortlex_reading():
    # the alternative reading (shortlex-first fresh word) is right at sample 1 only
    H = km_nonuniform_class()
    km = race(H, km_shortlex_generator, ["a" * i for i in range(60)], 1)
    assert km.correct[0] and not any(km.correct[1:]) and km.outputs[:2] == ["a", "b"]


def test_own_enumeration_is_a_bijection_onto_the_language():
    for expr in ("a*|ba*", "a*|bb(a|b)*", "(ab)*|b*|a", "b*|b*ab*"):
        L = regex(expr)
        words = [w for w, _ in zip(L.enumeration(), range(400))]
        assert len(set(words)) == len(words) and all(w in L for w in words)
        assert set(L.words(5)) <= set(words)
    assert list(regex("a|b|ab").enumeration()) == ["a", "b", "ab"]
    assert regex("a*|ba*").fresh_word({"", "b"}, order="own") == "a"
    with pytest.raises(ValueError, match="order must be"):
        regex("a*").fresh_word(set(), order="lex")
    with pytest.raises(ValueError, match="union of the parts"):
        regex("a*").with_parts([regex("a"), regex("b")])


def test_dfa_enumeration_counts():
    got = []
    for n in (1, 2, 3):
        langs, inf = enumerate_dfa_languages(n)
        got.append((len(langs), sum(inf)))
        assert len({L.key() for L in langs}) == len(langs)
        assert all(L.is_finite() != i for L, i in zip(langs, inf))
    assert got == [(2, 1), (26, 24), (1054, 1046)]


def test_dfa_closure_dimension_small():
    assert closure_dimension(dfa_class(1)).row()["closure_dimension"] == 0
    res = closure_dimension(dfa_class(2))
    assert (res.value, res.status, res.witness_words) == (1, "exact", ("",))


def test_dfa3_certificate():
    no_bb = regex("(a|b)*bb(a|b)*").complement().minimize()
    one_a = regex("b*|b*ab*")
    keys = {L.key() for L in dfa_class(3)}
    assert no_bb.key() in keys and one_a.key() in keys
    assert no_bb.n_states <= 3 and one_a.n_states <= 3
    assert (no_bb & one_a).words(10) == ["", "a", "b", "ab", "ba", "bab"]
    assert (no_bb & one_a).cardinality() == 6


def test_dfa3_search_reports_unresolved_within_cap():
    res = closure_dimension(dfa_class(3), max_nodes=3)
    assert res.status == "unresolved" and res.cap_hit == "max_nodes=3" and res.unexpanded > 0
    # the value is a certified lower bound: its witness family really intersects to that many words
    assert res.witness_family
    if res.witness_family:
        H = dfa_class(3)
        inter = H[res.witness_family[0]]
        for j in res.witness_family[1:]:
            inter = inter & H[j]
        assert inter.cardinality() == res.value


def test_ltt_closure_dimension_matches_search():
    assert ltt_closure_dimension(1, 1)["closure_dimension"] == 1
    H = ltt_union_class(1, 1)
    assert len(H) == 14
    assert closure_dimension(H).value == closure_dimension_bruteforce(H) == 1
    assert ltt_closure_dimension(1, 2)["closure_dimension"] == 5  # ε, a, b, ab, ba


def test_search_matches_bruteforce_on_counting():
    H = counting_class(2) + [regex("a*b*"), regex("(ab)*|b*")]
    assert closure_dimension(H).value == closure_dimension_bruteforce(H)


def test_batched_core_agrees_with_per_dfa_core():
    import random

    from toolkit_langgen.dfa import batch_intersection_finite, batch_membership, stack_dfas
    from toolkit_langgen.languages import all_words

    H = dfa_class(3)
    rng = random.Random(1)
    pairs = [(rng.choice(H), rng.choice(H)) for _ in range(200)]
    words = all_words("ab", 5)
    TA, FA = stack_dfas([a for a, _ in pairs])
    TB, FB = stack_dfas([b for _, b in pairs])
    member = batch_membership(TA, FA, words, ("a", "b"))
    empty, finite = batch_intersection_finite(TA, FA, TB, FB)
    for i, (a, b) in enumerate(pairs):
        inter = a.product(b, "and")
        assert list(member[i]) == [w in a for w in words]
        assert (bool(empty[i]), bool(finite[i])) == (inter.is_empty(), inter.is_finite())


def test_dfa3_all_pairs_lower_bound_is_six():
    from toolkit_langgen.closure import pairwise_lower_bound

    res = pairwise_lower_bound(dfa_class(3))
    assert res["lower_bound"] == 6 and len(res["words"]) == 6


@pytest.mark.slow
def test_dfa4_enumeration_finishes():
    langs, inf = enumerate_dfa_languages(4)
    assert (len(langs), sum(inf)) == (57068, 57000)  # measured here (README); no reference value in the spec


@pytest.mark.slow
def test_dfa3_best_first_search_is_exact_or_says_what_is_unresolved():
    res = closure_dimension(dfa_class(3), time_limit=120)
    if res.status == "exact":
        assert res.value == 6
    else:
        assert res.cap_hit and res.unexpanded > 0 and res.value <= 6


def test_dfa3_closure_dimension_is_exactly_six():
    res = closure_dimension_power_free(dfa_class(3))
    assert (res.value, res.status, res.power) == (6, "exact", 2)
    assert res.ground_set == ("", "a", "b", "ab", "ba", "aba", "bab")
    assert len(res.witness_words) == 6
    H = dfa_class(3)
    inter = H[res.witness_family[0]]
    for i in res.witness_family[1:]:
        inter = inter.product(H[i], "and")
    assert sorted(inter.words(12)) == sorted(res.witness_words) and inter.cardinality() == 6
    # the spec's certificate is a closed set of H_3 too, and the 7 square-free words are not closed
    for T, closed in ((["", "a", "b", "ab", "ba", "bab"], True), (list(res.ground_set), False)):
        cl = closure_of(H, T)
        assert (cl is not None and cl.is_finite() and sorted(cl.words(12)) == sorted(T)) == closed


@pytest.mark.parametrize("n,value", [(1, 0), (2, 1)])
def test_power_free_matches_search_on_small_dfa_classes(n, value):
    H = dfa_class(n)
    assert closure_dimension_power_free(H).value == closure_dimension(H).value == value


def test_power_free_lemma_on_all_short_words():
    # every word with a square factor x y y z: each <= 3-state language containing it contains x y^(2+6i) z
    H = dfa_class(3)
    words = [w for n in range(1, 7) for w in itertools.product("ab", repeat=n)]
    checked = 0
    for w in map("".join, words):
        cuts = [
            (i, p)
            for p in range(1, len(w) // 2 + 1)
            for i in range(len(w) - 2 * p + 1)
            if w[i : i + p] == w[i + p : i + 2 * p]
        ]
        if not cuts:
            assert w in ("a", "b", "ab", "ba", "aba", "bab")
            continue
        i, p = cuts[0]
        x, y, z = w[:i], w[i : i + p], w[i + 2 * p :]
        for L in H:
            if w in L:
                assert all(x + y * (2 + 6 * j) + z in L for j in (1, 2))
                checked += 1
    assert checked > 10_000


def test_power_free_matches_bruteforce_on_random_subclasses():
    # 8 random subclasses of the 150 smallest H_3 languages (every other one with the spec's
    # certificate pair added): the exact method equals brute force over all subfamilies
    H = sorted(dfa_class(3), key=_size_key)[:150]
    cert = [regex("(a|b)*bb(a|b)*").complement().minimize(), regex("b*|b*ab*")]
    values = []
    for seed in range(8):
        rng = random.Random(seed)
        sub = [H[i] for i in rng.sample(range(len(H)), 8)] + (cert if seed % 2 else [])
        values.append(closure_dimension_power_free(sub, n_states=3).value)
        assert values[-1] == closure_dimension_bruteforce(sub)
    assert len(set(values)) >= 3 and max(values) == 6


def test_power_free_on_counting_classes_and_unresolved_beyond():
    for m, value in ((0, 1), (1, 5)):
        res = closure_dimension_power_free(counting_class(m))
        assert (res.value, res.status) == (value, "exact")
    res = closure_dimension_power_free(counting_class(2))  # 4 states: cube-free words are infinite
    assert res.status == "unresolved" and "power-free words" in res.reason
    with pytest.raises(ValueError, match="n_states=2"):
        closure_dimension_power_free(counting_class(1), n_states=2)
    assert power_free_words("ab", 3, max_words=500) is None
