"""Certificates of finite intersections (prefix argument on our core, automata-lib alone), the
compiled all-completions scan, the family local search, and the word-search computation of
C(LTT(k, t))."""

import itertools
import json
import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from toolkit_langgen import compiled as C
from toolkit_langgen.certificate import (
    DFA4_LOWER_BOUND_WITNESS,
    check_with_automata,
    dfa_table,
    prefix_certificate,
)
from toolkit_langgen.closure import (
    dfa_class,
    ltt_closure_dimension,
    ltt_finite_class_words_automaton,
    ltt_profile_classes,
)
from toolkit_langgen.dfa import DFA
from toolkit_langgen.family_search import (
    FamilyScorer,
    exhaustive_triples,
    is_prefix_closed,
    is_suffix_closed,
    iterated_local_search,
    stack_padded,
)
from toolkit_langgen.languages import all_words, ltt_automaton, ltt_profile, regex
from toolkit_langgen.ltt_compiled import ltt_closure_dimension_compiled, ltt_profile_automaton_compiled
from toolkit_langgen.ltt_words import ltt_closure_dimension_words, ltt_finite_class_words

REPO = Path(__file__).resolve().parents[2]
NO_BB, AT_MOST_ONE_A = regex("(a|b)*bb(a|b)*", "ab").complement(), regex("b*|b*ab*", "ab")
DFA3_WITNESS = ["", "a", "b", "ab", "ba", "bab"]


def _tables(members):
    return [dfa_table(L.minimize()) for L in members]


def test_prefix_certificate_and_automata_lib_agree_on_the_dfa3_witness():
    cert = prefix_certificate([NO_BB, AT_MOST_ONE_A, DFA.universal()], DFA3_WITNESS)
    assert cert["support"] == [0, 1]  # Σ* is never needed
    assert check_with_automata(_tables([NO_BB, AT_MOST_ONE_A]), DFA3_WITNESS, 3)["intersection_size"] == 6


@pytest.mark.parametrize(
    "words,match",
    [
        (DFA3_WITNESS[:-1], "larger|residuals"),  # 'bab' left out
        (DFA3_WITNESS + ["bb"], "rejects the word 'bb'"),
    ],
)
def test_prefix_certificate_refuses_a_wrong_word_set(words, match):
    with pytest.raises(ValueError, match=match):
        prefix_certificate([NO_BB, AT_MOST_ONE_A], words)


def test_automata_check_refuses_wrong_words_too_many_states_and_finite_members():
    good = _tables([NO_BB, AT_MOST_ONE_A])
    with pytest.raises(AssertionError, match="differs"):
        check_with_automata(good, DFA3_WITNESS[:-1], 3)
    with pytest.raises(AssertionError, match="states"):
        check_with_automata(good, DFA3_WITNESS, 2)
    finite = _tables([DFA.from_words(["a", "b"])])
    with pytest.raises(AssertionError, match="finite language"):
        check_with_automata(finite + good, [], 3)


def test_prefix_certificate_matches_automata_lib_on_random_finite_dfa3_pairs():
    H = dfa_class(3)
    rng = random.Random(0)
    checked = 0
    while checked < 25:
        A, B = rng.sample(H, 2)
        X = A & B
        if not X.is_finite() or X.is_empty():
            continue
        words = X.words(X.n_states)
        cert = prefix_certificate([A, B], words)
        sub = [[A, B][i] for i in cert["support"]]
        assert check_with_automata(_tables(sub), words, 3)["intersection_size"] == len(words)
        checked += 1


def test_dfa4_lower_bound_witness_two_computations():
    members = [
        DFA.from_table({int(q): r for q, r in m["transitions"].items()}, m["start"], m["accepting"], "ab")
        for m in DFA4_LOWER_BOUND_WITNESS["members"]
    ]
    words = DFA4_LOWER_BOUND_WITNESS["words"]
    assert len(words) == DFA4_LOWER_BOUND_WITNESS["value"] == len(set(words))
    cert = prefix_certificate(members, words)  # our core: the prefix argument
    assert cert["support"] == list(range(len(members)))
    check = check_with_automata(DFA4_LOWER_BOUND_WITNESS["members"], words, 4)  # automata-lib alone
    assert check["intersection_size"] == DFA4_LOWER_BOUND_WITNESS["value"]


def test_certificate_script_on_a_table_checkpoint(tmp_path):
    doc = {"n": 3, "witness_words": DFA3_WITNESS, "members": _tables([DFA.universal(), NO_BB, AT_MOST_ONE_A])}
    path = tmp_path / "cp.json"
    path.write_text(json.dumps(doc))
    run = subprocess.run(
        [
            sys.executable,
            str(REPO / "plugins" / "langgen" / "studies" / "langgen_dfa4_certificate.py"),
            str(path),
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads((tmp_path / "cp.json.certificate.json").read_text())
    assert (out["value"], out["support_size"], out["family_size"]) == (6, 2, 3)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"n": 3, "witness_words": DFA3_WITNESS[:-1], "members": doc["members"]}))
    run = subprocess.run(
        [
            sys.executable,
            str(REPO / "plugins" / "langgen" / "studies" / "langgen_dfa4_certificate.py"),
            str(bad),
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode != 0


def test_intersection_sizes_match_the_python_core():
    H = dfa_class(3)
    T, F, sizes = stack_padded(H)
    rng = random.Random(1)
    for _ in range(5):
        B = rng.choice(H) & rng.choice(H)
        BT, BF, _ = B.arrays()
        got = C.intersection_sizes(BT, BF, T, F, sizes)
        for j in rng.sample(range(len(H)), 60):
            X = B & H[j]
            assert got[j] == (X.cardinality() if X.is_finite() else -1)


def test_family_search_reaches_c_dfa3():
    scorer = FamilyScorer(*stack_padded(dfa_class(3)))
    res = iterated_local_search(scorer, 3, seed=0, time_limit=60, kicks=200)
    assert res["value"] == 6  # C(DFA_3), exact (power-free closed sets)
    assert scorer.value(res["family"]) == 6


def test_exhaustive_triples_of_prefix_closed_dfa3_languages_match_brute_force():
    H = dfa_class(3)
    S = [i for i, L in enumerate(H) if is_prefix_closed(L)]
    assert is_prefix_closed(NO_BB) and not is_prefix_closed(AT_MOST_ONE_A.complement())
    res = exhaustive_triples(FamilyScorer(*stack_padded(H)), S)
    best = -1
    for c in itertools.combinations_with_replacement(S, 3):
        X = H[c[0]] & H[c[1]] & H[c[2]]
        if X.is_finite():
            best = max(best, X.cardinality())
    assert res["value"] == best == 6


def test_suffix_closed_matches_the_definition_on_words():
    # uv in L implies v in L, checked on all words of length <= 6 for every DFA_2 language and the
    # prefix-closed ones of DFA_3 (their reversals are not all DFA_3 languages)
    words = [""] + ["".join(p) for n in range(1, 7) for p in itertools.product("ab", repeat=n)]
    H = dfa_class(2) + [L for L in dfa_class(3) if is_prefix_closed(L)]
    flags = []
    for L in H:
        inside = [w for w in words if L.accepts(w)]
        by_words = all(L.accepts(w[i:]) for w in inside for i in range(len(w) + 1))
        assert is_suffix_closed(L) == by_words
        flags.append(by_words)
    assert any(flags) and not all(flags)
    assert is_suffix_closed(NO_BB) and not is_suffix_closed(AT_MOST_ONE_A.complement())


@pytest.mark.parametrize(
    "k,t",
    [
        (1, 1),
        (1, 2),
        (1, 4),
        (2, 1),
        (2, 2),
        pytest.param(2, 3, marks=pytest.mark.slow),
        pytest.param(3, 1, marks=pytest.mark.slow),
    ],
)
def test_ltt_word_search_agrees_with_profile_classes(k, t):
    words = ltt_finite_class_words(k, t)
    assert len(words) == len(set(words)) == ltt_closure_dimension(k, t)["closure_dimension"]
    alphabet, trans, finals = ltt_automaton(k, t)
    union = set()
    for p, size in ltt_profile_classes(k, t):
        if size != float("inf"):
            L = DFA(alphabet, trans, [f == p for f in finals], 0)
            union |= set(L.words(L.n_states))
    assert set(words) == union


@pytest.mark.parametrize("k,t", [(2, 1), (2, 2), (3, 1)])
def test_ltt_word_search_against_brute_force_profiles(k, t):
    words = set(ltt_finite_class_words(k, t))
    M = max(map(len, words))
    by_profile = defaultdict(list)
    # an infinite class with a word of length <= M has one of length <= M + 2^(k-1) (splice a simple
    # cycle of the de Bruijn graph): classes whose words seen up to that horizon all have length <= M
    for w in all_words("ab", M + 2 ** (k - 1) + 1):
        by_profile[ltt_profile(w, k, t)].append(w)
    brute = {w for ws in by_profile.values() if max(map(len, ws)) <= M for w in ws}
    assert brute == words


@pytest.mark.parametrize("k,t", [(1, 3), (2, 2)])
def test_profile_classes_compiled_equal_python(k, t):
    key = lambda item: repr(item)
    assert sorted(ltt_profile_classes(k, t, method="python"), key=key) == sorted(
        ltt_profile_classes(k, t), key=key
    )
    with pytest.raises(ValueError, match="method"):
        ltt_profile_classes(k, t, method="gpu")


@pytest.mark.parametrize("k,t,value", [(1, 5, 251), (2, 3, 453), (3, 1, 25), (3, 2, 1729)])
def test_ltt_word_search_gives_the_profile_class_values(k, t, value):
    # values of the profile-class computation (README; the slow tests recompute them)
    assert ltt_closure_dimension_words(k, t)["closure_dimension"] == value


@pytest.mark.slow
def test_ltt_3_2_profile_classes():
    assert ltt_closure_dimension(3, 2)["closure_dimension"] == 1729


def test_ltt_word_search_validates():
    with pytest.raises(ValueError, match="k and t"):
        ltt_finite_class_words(0, 1)
    with pytest.raises(ValueError, match="every DFA must start"):
        stack_padded([DFA("ab", [[0, 1], [1, 0]], [True, False], 1)])
    assert np.all(stack_padded(dfa_class(2))[2] >= 1)


def test_pair_scan_matches_the_python_core():
    H = dfa_class(3)
    T, F, sizes = stack_padded(H)
    lo, hi = 100, 104
    best, bi, bj, n_finite, scanned = C.pair_scan(T, F, sizes, lo, hi)
    sizes_py = {}
    for i in range(lo, hi):
        for j in range(i + 1, len(H)):
            X = H[i] & H[j]
            if X.is_finite() and not X.is_empty():
                sizes_py[i, j] = X.cardinality()
    assert scanned == sum(len(H) - 1 - i for i in range(lo, hi)) and n_finite == len(sizes_py)
    assert best == max(sizes_py.values()) == sizes_py[bi, bj]
    assert min((i, j) for (i, j), v in sizes_py.items() if v == best) == (bi, bj)  # the first maximum


@pytest.mark.parametrize("k,t", [(1, 2), (2, 1), (2, 2), (3, 1)])
def test_ltt_one_pass_equals_the_per_class_computation_and_the_word_search(k, t):
    a = ltt_finite_class_words_automaton(k, t)
    assert a["closure_dimension"] == ltt_closure_dimension(k, t)["closure_dimension"]
    assert a["words"] == sorted(ltt_finite_class_words(k, t), key=lambda w: (len(w), w))


@pytest.mark.parametrize("k,t,value", [(3, 2, 1729), (3, 3, 243_155), (4, 1, 235)])
def test_ltt_one_pass_gives_the_word_search_values(k, t, value):
    # the word search's values (README: both computations, words compared, in langgen_exact_values.py)
    assert ltt_finite_class_words_automaton(k, t, list_words=False)["closure_dimension"] == value


@pytest.mark.parametrize("k,t", [(1, 2), (2, 2), (2, 3), (3, 1), (3, 2)])
def test_coded_profile_automaton_equals_the_tuple_one(k, t):
    # one state per profile class in both, the same number of states, the same finite-class words
    coded = ltt_closure_dimension_compiled(k, t, list_words=True)
    _, trans, finals = ltt_automaton(k, t)
    assert coded["states"] == len(trans) == len(set(finals))
    assert coded["words"] == ltt_finite_class_words_automaton(k, t)["words"]


@pytest.mark.parametrize(
    "k,t,value", [(3, 3, 243_155), (4, 1, 235), pytest.param(4, 2, 4_385_503, marks=pytest.mark.slow)]
)
def test_coded_profile_automaton_gives_the_word_search_values(k, t, value):
    assert ltt_closure_dimension_compiled(k, t)["closure_dimension"] == value


def test_coded_profile_automaton_validates():
    with pytest.raises(ValueError, match="k, t and sigma"):
        ltt_profile_automaton_compiled(0, 1)
    with pytest.raises(ValueError, match="do not fit in int64"):
        ltt_profile_automaton_compiled(6, 3)
    with pytest.raises(RuntimeError, match="max_states=100"):
        ltt_profile_automaton_compiled(3, 2, max_states=100)


def test_prefix_closed_study_through_the_store_and_its_certificate(tmp_path):
    script = REPO / "plugins" / "langgen" / "studies" / "langgen_dfa4_prefix_closed.py"
    out = tmp_path / "pc.json"
    argv = [
        sys.executable,
        str(script),
        "--n",
        "3",
        "--out",
        str(out),
        "--store",
        str(tmp_path / "runs.sqlite"),
    ]
    run = subprocess.run(argv, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "1 run: computed" in run.stderr
    doc = json.loads(out.read_text())
    # exhaustive over prefix-closed triples of DFA_3 reaches C(DFA_3) = 6
    assert (doc["lower_bound"], len(doc["witness_words"]), len(doc["members"])) == (
        6,
        6,
        len(doc["witness_family"]),
    )
    again = subprocess.run(argv, capture_output=True, text=True)
    assert again.returncode == 0 and "1 run: read from the store" in again.stderr
    drop = ("seconds", "max_rss_mb")
    assert {k: v for k, v in json.loads(out.read_text()).items() if k not in drop} == {
        k: v for k, v in doc.items() if k not in drop
    }
    check = subprocess.run(
        [
            sys.executable,
            str(REPO / "plugins" / "langgen" / "studies" / "langgen_dfa4_certificate.py"),
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr
    assert json.loads((tmp_path / "pc.json.certificate.json").read_text())["value"] == 6


def test_pairs_study_resumes_block_by_block_from_the_store(tmp_path, capsys):
    import importlib.util

    path = REPO / "plugins" / "langgen" / "studies" / "langgen_dfa4_pairs.py"
    spec = importlib.util.spec_from_file_location("langgen_dfa4_pairs", path)
    pairs = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pairs)
    out, store = tmp_path / "pairs.json", str(tmp_path / "runs.sqlite")
    argv = ["--n", "3", "--block", "300", "--out", str(out), "--store", store]
    pairs.main([*argv, "--time-limit", "1e-9"])  # stops after its first block
    assert "1 blocks: 1 computed, 0 from the store" in capsys.readouterr().err
    assert json.loads(out.read_text())["rows_done"] == 300
    pairs.main([*argv, "--time-limit", "1000"])  # goes on from the stored block
    assert "4 blocks: 3 computed, 1 from the store" in capsys.readouterr().err
    doc = json.loads(out.read_text())
    # DFA_3: the best pair reaches C(DFA_3) = 6 over all 1046 * 1045 / 2 pairs
    assert (doc["complete"], doc["pairs_scanned"], doc["pairs_total"], doc["best"]) == (
        True,
        546535,
        546535,
        6,
    )
    assert len(doc["witness_words"]) == 6
    pairs.main([*argv, "--time-limit", "1000"])
    assert "4 blocks: 0 computed, 4 from the store" in capsys.readouterr().err
