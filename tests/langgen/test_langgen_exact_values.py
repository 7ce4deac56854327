"""Exact closure dimensions of SL_k (two computations, and the reduction checked against the generic
search on the whole SL_2 class), the closed-set oracle on DFA_3, and the LTT check by the word search."""

import itertools
import math

import pytest
from toolkit_langgen.closure import closure_dimension, dfa_class, ltt_closure_dimension, power_free_words
from toolkit_langgen.strictly_local_closure import (
    de_bruijn,
    simple_paths,
    simple_paths_within,
    sl_closure_dimension_bounds,
    sl_closure_dimension_branch_and_bound,
    sl_closure_dimension_dfa,
    sl_closure_dimension_orders,
    sl_closure_dimension_pareto,
    sl_language,
    walks_in_order,
)

SL5_WITNESS_ORDER = "aabb abbb bbbb bbba bbab babb abba bbaa baab aaba abab baba abaa baaa aaaa aaab".split()

import toolkit


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
    assert (
        sl_closure_dimension_orders(4)["closure_dimension"]
        == sl_closure_dimension_dfa(4)["closure_dimension"]
        == 72
    )


@pytest.mark.parametrize("k,value", [(2, 4), (3, 15), (4, 72)])
def test_sl_exact_methods_match_the_exhaustive_orders(k, value):
    pareto, bnb = sl_closure_dimension_pareto(k), sl_closure_dimension_branch_and_bound(k)
    assert pareto["closure_dimension"] == bnb["closure_dimension"] == value
    if k <= 3:
        assert sl_closure_dimension_orders(k)["closure_dimension"] == value
    _, edges = de_bruijn(k)
    for row in (pareto, bnb):  # each witness order is a finite SL_k language of that size on the DFA core
        assert walks_in_order(row["order"].split(), edges) == value - (2 ** (k - 1) - 1)
        L = sl_language(k, row["witness_factors"])
        assert L.is_finite() and L.cardinality() == value


def test_sl_branch_and_bound_incumbent_is_an_upper_bound_only_when_nothing_beats_it():
    at = sl_closure_dimension_branch_and_bound(4, incumbent=65)  # 65 walks = C(SL_4) - 7
    assert at["order"] is None and at["status"].startswith("upper bound") and at["walks"] == 65
    below = sl_closure_dimension_branch_and_bound(4, incumbent=64)
    assert (below["walks"], below["status"]) == (65, "exact") and below["visited"] < at["visited"] * 10


def test_simple_paths_within_the_full_set_is_simple_paths():
    for k in (2, 3, 4):
        full = simple_paths_within(k)[-1]
        assert sum(full) == simple_paths(k)


def test_sl_exact_methods_refuse_k6():
    with pytest.raises(ValueError, match="exact methods reach k <= 5"):
        sl_closure_dimension_pareto(6)


def test_sl5_witness_is_a_finite_language_of_469_words():
    # C(SL_5) = 469: the order found by both exact methods (slow test below); here its language on the
    # DFA core, and no backward factor can be added without a cycle
    from toolkit_langgen.strictly_local_closure import witness_factors

    _, edges = de_bruijn(5)
    assert walks_in_order(SL5_WITNESS_ORDER, edges) == 454
    A = witness_factors(5, SL5_WITNESS_ORDER, edges)
    L = sl_language(5, A)
    assert L.is_finite() and L.cardinality() == 469
    pos = {v: i for i, v in enumerate(SL5_WITNESS_ORDER)}
    backward = [f for u, v, f in edges if pos[u] > pos[v]]
    assert len(backward) == 8 and all(not sl_language(5, set(A) | {f}).is_finite() for f in backward)


@pytest.mark.slow
def test_sl5_two_exact_computations():  # about 55 s
    pareto = sl_closure_dimension_pareto(5)
    bnb = sl_closure_dimension_branch_and_bound(5)
    assert pareto["closure_dimension"] == bnb["closure_dimension"] == 469
    assert sl_closure_dimension_branch_and_bound(5, incumbent=454)["order"] is None  # nothing above 454 walks


def _exact_values_module():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "plugins" / "langgen" / "studies" / "langgen_exact_values.py"
    spec = importlib.util.spec_from_file_location("langgen_exact_values", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _exact_values_main(argv, monkeypatch):
    import sys

    mod = _exact_values_module()
    monkeypatch.setattr(sys, "argv", ["langgen_exact_values.py", *argv])
    mod.main()


def test_exact_values_script_takes_pairs_as_comma_lists(monkeypatch, capsys):
    cases = [
        (["--ltt", "1,1", "2,x"], "argument --ltt: 'x' is not one of"),
        (["--ltt-words", "1,1", "2,x"], "argument --ltt-words: 'x' is not one of"),
        (["--ltt", "5"], "argument --ltt: expected pairs k,t"),
        (["--ltt-words", "0,1"], "argument --ltt-words: '0' is below the minimum 1"),
        (["--sl-exact", "6"], "--sl-exact: k must be 2..5"),
        (["--sl-max", "5"], "--sl-max: k must be <= 4"),
        (["--sl-bounds", "6", "--sl-steps", "0"], "--sl-steps 1..10000000"),
        (["--executor", "threads"], "argument --executor: invalid choice"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit) as exc:
            _exact_values_main(argv, monkeypatch)
        assert exc.value.code == 2 and message in capsys.readouterr().err


def test_exact_values_script_runs_with_several_pairs(tmp_path, monkeypatch, capsys):
    import pandas as pd

    argv = [
        "--sl-max",
        "3",
        "--sl-exact",
        "4",
        "--sl-bounds",
        "3",
        "--sl-restarts",
        "2",
        "--sl-steps",
        "30",
        "--ltt",
        "1,1",
        "2,1",
        "--ltt-words",
        "3,1 2,2",
        "--out",
        str(tmp_path),
        "--store",
        str(tmp_path / "runs.sqlite"),
    ]
    _exact_values_main(argv, monkeypatch)
    table = pd.read_csv(tmp_path / "exact_values.csv")
    classes = ["SL_2", "SL_3", "SL_4", "SL_3", "LTT(1,1)", "LTT(2,1)", "LTT(3,1)", "LTT(2,2)"]
    assert list(table["class"]) == classes
    assert list(table.closure_dimension)[:3] + list(table.closure_dimension)[4:] == [4, 15, 72, 1, 5, 25, 43]
    assert 4 <= table.closure_dimension[3] <= 15  # a lower bound on C(SL_3) from a short local search
    assert table.set_index("class").loc["SL_4", "status"] == "exact"
    assert table.agree.dropna().all() and "14 runs: 14 computed, 0 from the store" in capsys.readouterr().err
    # a second call reads every computation back from the store: the same table, nothing computed
    _exact_values_main(argv, monkeypatch)
    assert "14 runs: 0 computed, 14 from the store" in capsys.readouterr().err
    again = pd.read_csv(tmp_path / "exact_values.csv")
    pd.testing.assert_frame_equal(again.drop(columns="max_rss_mb"), table.drop(columns="max_rss_mb"))


def test_closed_set_oracle_reproduces_dfa3():
    from toolkit_langgen.closed_sets import closed_set_search

    res = closed_set_search(dfa_class(3), power_free_words("ab", 2), time_limit=300)
    assert (res.value, res.closed_sets, res.complete) == (6, 108, True)


def test_ltt_two_computations_agree_in_the_exact_values_script(tmp_path):
    mod = _exact_values_module()
    runs = mod.Computations(tmp_path / "runs.sqlite")
    both = ["profile_automaton", "word_search"]
    runs.sweep({"k": [1, 2], "t": [1], "method": both}, {"language_class": "ltt"})
    runs.sweep({"k": [1], "t": [2], "method": both}, {"language_class": "ltt"})
    for k, t in ((1, 1), (1, 2), (2, 1)):
        row = mod.ltt_rows(k, t, runs)
        assert row["agree"] and row["closure_dimension"] == ltt_closure_dimension(k, t)["closure_dimension"]
    runs.sweep({"k": [3], "t": [3], "method": both}, {"language_class": "ltt"})
    runs.sweep({"k": [4], "t": [1], "method": both}, {"language_class": "ltt"})
    for k, t in ((3, 3), (4, 1)):  # both computations, the word sets compared
        row = mod.ltt_rows(k, t, runs)
        assert row["agree"] and row["status"] == "exact" and row["check"] == row["closure_dimension"]
    runs.sweep({"k": [5], "t": [1], "method": ["word_search", "simple_paths"]}, {"language_class": "ltt"})
    row = mod.ltt_word_search_row(5, 1, runs)  # t = 1: checked by the simple paths of B_5
    assert (row["closure_dimension"], row["check"], row["status"]) == (7881, 7881, "exact")
    runs.sweep({"k": [2], "t": [2], "method": ["word_search"]}, {"language_class": "ltt"})
    assert mod.ltt_word_search_row(2, 2, runs)["status"] == "one computation"  # no check for t > 1


def test_closure_computation_compares_word_sets_and_refuses_bad_methods(tmp_path):
    from toolkit.errors import ParameterError

    def run(**values):
        return toolkit.run("langgen.closure_computation", values, store=tmp_path / "runs.sqlite").records[0]

    a = run(language_class="ltt", k=2, t=2, method="profile_automaton")
    b = run(language_class="ltt", k=2, t=2, method="word_search")
    assert a["words"] == b["words"] == 43 and a["words_sha256"] == b["words_sha256"]
    assert run(language_class="ltt", k=2, t=1, method="word_search")["words_sha256"] != b["words_sha256"]
    for values, message in [
        ({"language_class": "sl", "method": "word_search"}, "parameter 'method'"),
        ({"language_class": "sl", "k": 5, "method": "orders"}, "reaches k <= 4"),
        ({"language_class": "ltt", "k": 2, "t": 2, "method": "simple_paths"}, "needs t = 1"),
    ]:
        with pytest.raises(ParameterError, match=message):
            toolkit.run("langgen.closure_computation", values, store=tmp_path / "runs.sqlite")


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_ltt_k_1_is_short_words_plus_simple_paths(k):
    from toolkit_langgen.ltt_words import ltt_finite_class_words
    from toolkit_langgen.strictly_local_closure import _short_words, simple_paths

    assert len(ltt_finite_class_words(k, 1)) == _short_words(k) + simple_paths(k)


def test_congruence_bound_script_closes_on_dfa2_and_validates(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path

    script = (
        Path(__file__).resolve().parents[2] / "plugins" / "langgen" / "studies" / "langgen_dfa_congruence.py"
    )
    argv = [
        sys.executable,
        str(script),
        "--n",
        "2",
        "--max-depth",
        "40",
        "--store",
        str(tmp_path / "runs.sqlite"),
    ]
    run = subprocess.run(argv, capture_output=True, text=True, check=True)
    out = json.loads(run.stdout)
    # U_2 closes: every word of a finite intersection is a simple path of it, so the bound holds
    assert (out["closed"], out["classes"], out["upper_bound"]) == (True, 21, 245)
    assert out["upper_bound"] >= closure_dimension(dfa_class(2)).value == 1
    assert sum(level["new_classes"] for level in out["levels"]) == out["classes"]
    assert "length 6: " in run.stderr and "1 run: computed" in run.stderr
    # a second call reads the run back from the store: the same JSON but for its time and memory
    again = subprocess.run(argv, capture_output=True, text=True, check=True)
    assert "1 run: read from the store" in again.stderr
    drop = ("seconds", "max_rss_mb")
    assert {k: v for k, v in json.loads(again.stdout).items() if k not in drop} == {
        k: v for k, v in out.items() if k not in drop
    }
    # capped: the path count stops at max_paths and the bound is marked, not a number
    capped = toolkit.run(
        "langgen.congruence_bound", {"n": 2, "max_depth": 40, "max_paths": 100}, store=tmp_path / "c"
    )
    assert capped.summary["status"] == "capped" and capped.summary["capped_by"] == "max_paths"
    assert math.isnan(capped.summary["upper_bound"])
    bad = subprocess.run([sys.executable, str(script), "--n", "5"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--n must be 1..4" in bad.stderr
