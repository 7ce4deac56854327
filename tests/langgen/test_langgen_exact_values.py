"""Exact closure dimensions of SL_k (two computations, and the reduction checked against the generic
search on the whole SL_2 class), the closed-set oracle on DFA_3, and the LTT check by the word search."""

import itertools

import pytest

from toolkit_langgen.closure import closure_dimension, dfa_class, ltt_closure_dimension, power_free_words
from toolkit_langgen.strictly_local_closure import (sl_closure_dimension_bounds, sl_closure_dimension_dfa,
                                                    sl_closure_dimension_orders, sl_language, simple_paths)


@pytest.mark.parametrize("k,value", [(2, 4), (3, 15)])
def test_sl_closure_dimension_two_computations(k, value):
    a, b = sl_closure_dimension_orders(k), sl_closure_dimension_dfa(k)
    assert a["closure_dimension"] == b["closure_dimension"] == value
    # the witness really is a finite SL_k language of that size
    L = sl_language(k, a["witness_factors"])
    assert L.is_finite() and L.cardinality() == value


def test_sl2_reduction_matches_the_generic_search_on_the_whole_class():
    # every factor set A of SL_2: the class of infinite L(A); C by the best-first search
    factors = ["<a", "<b", "aa", "ab", "ba", "bb", "a>", "b>", "<>"]
    H = {}
    for r in range(len(factors) + 1):
        for A in itertools.combinations(factors, r):
            L = sl_language(2, A)
            if not L.is_finite():
                H[L.key()] = L
    res = closure_dimension(list(H.values()))
    assert (res.value, res.status) == (4, "exact")


def test_sl_bounds_bracket_the_exact_value():
    r = sl_closure_dimension_bounds(3, seed=0, restarts=3, steps=200)
    assert r["closure_dimension"] <= 15 <= r["upper_bound"] == simple_paths(3) + 3


@pytest.mark.slow
def test_sl4_two_computations():
    assert sl_closure_dimension_orders(4)["closure_dimension"] == sl_closure_dimension_dfa(4)["closure_dimension"] == 72


def test_closed_set_oracle_reproduces_dfa3():
    from toolkit_langgen.closed_sets import closed_set_search

    res = closed_set_search(dfa_class(3), power_free_words("ab", 2), time_limit=300)
    assert (res.value, res.closed_sets, res.complete) == (6, 108, True)


def test_ltt_two_computations_agree_in_the_exact_values_script():
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "langgen_exact_values", Path(__file__).resolve().parents[2] / "simulations" / "langgen_exact_values.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    for k, t in ((1, 1), (1, 2), (2, 1)):
        row = mod.ltt_rows(k, t)
        assert row["agree"] and row["closure_dimension"] == ltt_closure_dimension(k, t)["closure_dimension"]
