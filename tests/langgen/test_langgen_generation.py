"""Generators vs adversaries: the LRT lower bound and the closure generator's upper bound on random classes."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolkit_langgen.bounds import stirling_limits
from toolkit_langgen.closure import closure_dimension, closure_of
from toolkit_langgen.dfa import DFA
from toolkit_langgen.generation import (
    ADVERSARIES,
    GENERATORS,
    counting_class,
    intersection_first_adversary,
    largest_closed_set,
    race,
    sample_complexity,
    worst_case,
)
from toolkit_langgen.languages import counting, regex

POOL = [
    counting("a", 0),
    counting("a", 1),
    counting("b", 0),
    counting("b", 1),
    counting("a", 2),
    regex("a*b*"),
    regex("(ab)*|b*"),
    regex("b*|b*ab*"),
    regex("(a|b)*bb(a|b)*").complement(),
    regex("a(a|b)*|b"),
    regex("(a|b)*a|b"),
    DFA.universal(),
]


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, len(POOL) - 1), min_size=2, max_size=4, unique=True))
def test_no_generator_beats_closure_dimension_and_closure_meets_it(indices):
    H = [POOL[i] for i in indices]
    C = closure_dimension(H)
    assert C.status == "exact"
    T = set(largest_closed_set(H))
    targets = [i for i, L in enumerate(H) if all(w in L for w in T)]
    horizon = C.value + 6
    for name, gen in GENERATORS.items():
        per_target = sample_complexity(H, gen, intersection_first_adversary, horizon, targets=targets)
        # LRT lower bound: wrong after exactly the C(H) samples of T on some target
        assert worst_case(per_target, horizon) >= C.value + 1, name
    for adv in ADVERSARIES.values():
        per_target = sample_complexity(H, GENERATORS["closure"], adv, horizon, seed=3)
        assert worst_case(per_target, horizon) <= C.value + 1


def test_closure_generator_output_is_always_in_the_closure_when_fresh():
    H = counting_class(1)
    S = ["", "a"]
    closure = closure_of(H, S)
    w = GENERATORS["closure"](H, S)
    assert w in closure and w not in S


def test_random_adversary_is_seeded_and_valid():
    H = counting_class(2)
    a = ADVERSARIES["random"](H, 0, 30, 7)
    assert a == ADVERSARIES["random"](H, 0, 30, 7) and a != ADVERSARIES["random"](H, 0, 30, 8)
    assert len(set(a)) == 30 and all(w in H[0] for w in a)


def test_user_generator_and_adversary():
    H = counting_class(1)

    def always_b(languages, sample):  # a user generator: wrong whenever the target forbids b's
        return "b" * (len(sample) + 5)

    def reverse_shortlex(languages, target, horizon, seed):
        return list(reversed(ADVERSARIES["shortlex"](languages, target, horizon, seed)))

    res = sample_complexity(H, always_b, reverse_shortlex, 12)
    assert res[0] == 1 and res[1] is None and res[2] == 1


def test_race_rejects_words_outside_the_target():
    with pytest.raises(ValueError, match="not in the target"):
        race(counting_class(0), GENERATORS["closure"], ["", "aa"], 0)


def test_stirling_limit_of_the_counting_closed_form():
    for computed, expected in stirling_limits().values():
        assert computed == expected
