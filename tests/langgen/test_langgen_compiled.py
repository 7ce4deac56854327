"""The numba-compiled core agrees with automata-lib (and the Python core) on random DFAs and words."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from toolkit_langgen import compiled as C
from toolkit_langgen.dfa import DFA, enumerate_dfa_languages


@st.composite
def dfas(draw, max_states=6, k=2):
    n = draw(st.integers(1, max_states))
    trans = [[draw(st.integers(0, n - 1)) for _ in range(k)] for _ in range(n)]
    accept = [draw(st.booleans()) for _ in range(n)]
    start = draw(st.integers(0, n - 1))
    return DFA("abc"[:k], trans, accept, start)


WORDS = st.lists(st.text(alphabet="ab", max_size=12), min_size=1, max_size=20)
SETTINGS = settings(
    max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def _as_dfa(T, F):
    return DFA(("a", "b"), T.tolist(), F.tolist(), 0)


@SETTINGS
@given(dfas(), dfas(), WORDS, st.sampled_from(sorted(C.OPS)))
def test_compiled_product_and_decisions_agree_with_automata_lib(a, b, words, op):
    (TA, FA, sa), (TB, FB, sb) = a.arrays(), b.arrays()
    TP, FP = C.product(TA, FA, sa, TB, FB, sb, C.OPS[op])
    TM, FM = C.minimize(TP, FP, 0)
    ours = _as_dfa(TM, FM)
    aa, ab = a.to_automata(), b.to_automata()
    theirs = {"and": aa & ab, "or": aa | ab, "diff": aa - ab, "xor": aa ^ ab}[op]
    minimal = theirs.minify()
    assert TM.shape[0] == len(minimal.states)
    assert bool(C.is_empty(TP, FP, 0)) == theirs.isempty()
    assert bool(C.is_finite(TP, FP, 0)) == theirs.isfinite()
    card = int(C.cardinality(TM, FM, 0))
    assert card == (theirs.cardinality() if theirs.isfinite() else -1)
    symbols = np.array([0 if ch == "a" else 1 for w in words for ch in w], dtype=np.int32)
    offsets = np.cumsum([0] + [len(w) for w in words]).astype(np.int64)
    got = C.accepts_many(TM, FM, 0, symbols, offsets).tolist()
    assert got == [theirs.accepts_input(w) for w in words]
    # canonical numbering: the same key as the Python core's minimisation
    assert ours.key() == a.product(b, op).minimize().key()
    assert (ours.trans, ours.accept) == a.product(b, op).minimize().key()[1:]


@SETTINGS
@given(dfas(max_states=5, k=3))
def test_compiled_minimisation_matches_python_on_three_letters(a):
    T, F, s = a.arrays()
    TM, FM = C.minimize(T, F, s)
    assert (tuple(map(tuple, TM.tolist())), tuple(FM.tolist())) == a.minimize().key()[1:]
    assert bool(C.is_finite(T, F, s)) == a.is_finite() and bool(C.is_empty(T, F, s)) == a.is_empty()


def test_compiled_enumeration_equals_the_numpy_fingerprints():
    for n in (1, 2, 3):
        nb, inf_nb = enumerate_dfa_languages(n, method="numba")
        npy, inf_np = enumerate_dfa_languages(n, method="numpy")
        assert {L.key(): i for L, i in zip(nb, inf_nb)} == {L.key(): i for L, i in zip(npy, inf_np)}
        assert all(L.is_finite() != i for L, i in zip(nb, inf_nb))
    assert (len(nb), sum(inf_nb)) == (1054, 1046)


@SETTINGS
@given(dfas(max_states=48, k=2))
def test_compiled_decisions_agree_with_automata_lib_on_larger_dfas(a):
    # above 32 states the liveness search takes the reversed-edge (CSR) branch of compiled._live_into
    T, F, s = a.arrays()
    theirs = a.to_automata()
    assert bool(C.is_empty(T, F, s)) == theirs.isempty()
    assert bool(C.is_finite(T, F, s)) == theirs.isfinite()
    assert int(C.cardinality(T, F, s)) == (theirs.cardinality() if theirs.isfinite() else -1)


def test_large_dfas_reach_the_reversed_edge_branch():
    # 41 states (> 32): a chain a^39 to the one accepting state, b and overshooting go to a dead sink
    n, dead = 41, 40
    T = np.array([[q + 1 if q < 39 else dead, dead] for q in range(n)], np.int32)
    T[dead] = [dead, dead]
    F = np.zeros(n, np.bool_)
    F[39] = True
    assert int(C.cardinality(T, F, 0)) == 1 and not C.is_empty(T, F, 0)
    assert C.useful_states(T, F, 0).tolist() == [q < 40 for q in range(n)]
    T[39, 0] = 39  # a^39 a*: infinite
    assert int(C.cardinality(T, F, 0)) == -1 and not C.is_finite(T, F, 0)
    F[39] = False
    assert C.is_empty(T, F, 0) and int(C.cardinality(T, F, 0)) == 0


@SETTINGS
@given(dfas(max_states=7, k=2))
def test_acyclic_prefix_counts_the_words_to_each_state(a):
    T, F, s = a.arrays()
    n = T.shape[0]
    peeled, paths = C.acyclic_prefix(T, s)
    reach_by_length = [dict() for _ in range(2 * n + 1)]
    frontier = {s: 1}
    for length in range(2 * n + 1):
        reach_by_length[length] = frontier
        nxt = {}
        for q, c in frontier.items():
            for x in range(2):
                nxt[int(T[q, x])] = nxt.get(int(T[q, x]), 0) + c
        frontier = nxt
    for q in range(n):
        short = sum(d.get(q, 0) for d in reach_by_length[:n])
        long_ = sum(d.get(q, 0) for d in reach_by_length[n:])
        if peeled[q]:  # no word of length >= n reaches q, and paths counts the shorter ones
            assert long_ == 0 and paths[q] == short > 0
        else:  # unreachable, or reached by words of every length beyond some point
            assert paths[q] == 0 and (short == 0 or long_ > 0)
