"""Certificates that a family F of DFA languages intersects to exactly a given finite set W, and
their check by automata-lib alone (RECON, ours). Pure maths.

Prefix argument (what :func:`prefix_certificate` finds on our core). Let P = the prefixes of W.
If (i) every member accepts every word of W, (ii) every u in P \\ W is rejected by some member, and
(iii) for every boundary word p = u c (u in P, c a symbol, p not in P) the residuals p^-1 L of some
members have an empty intersection, then ∩F = W: a word x outside W is either in P \\ W (rejected by
(ii)) or has a shortest prefix outside P, a boundary word (killed by (iii)). Only the members named
in (ii) and (iii) are needed, so the certificate is usually a much smaller family than F, and its
intersection is cheap to recompute on an unrelated implementation — which :func:`check_with_automata`
does: it never uses the prefix argument, only automata-lib's ``minify``, ``isfinite``, ``&`` and
iteration, so the two computations share nothing but the input tables.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from toolkit_langgen.dfa import DFA


def shortlex(words) -> list[str]:
    return sorted(words, key=lambda w: (len(w), w))


def _residual(L: DFA, p: str) -> DFA:
    return DFA(L.alphabet, L.trans, L.accept, L.run(p))


def _jointly_empty(residuals: Sequence[DFA]) -> bool:
    x = residuals[0]
    for r in residuals[1:]:
        x = x & r
        if x.is_empty():
            return True
    return x.is_empty()


def prefix_certificate(members: Sequence[DFA], words, max_group: int = 3) -> dict:
    """Find (ii) and (iii) of the prefix argument for ``members`` and the finite set ``words``.

    Each boundary word is killed by the smallest group of members (size <= ``max_group``, tried in
    order of size) whose residuals have an empty intersection. Returns ``support`` (indices into
    ``members``: those named anywhere), ``rejected_by`` {u: i}, ``killed_by`` {p: (i, ...)}.
    Raises ValueError naming the first word for which a condition fails.
    """
    members = list(members)
    if not members:
        raise ValueError("members: empty family")
    W = set(words)
    alphabet = members[0].alphabet
    for i, L in enumerate(members):
        missing = [w for w in shortlex(W) if not L.accepts(w)]
        if missing:
            raise ValueError(f"member {i} rejects the word {missing[0]!r} of the set")
    P = {w[:j] for w in W for j in range(len(w) + 1)} or {""}
    rejected_by = {}
    for u in shortlex(P - W):
        who = next((i for i, L in enumerate(members) if not L.accepts(u)), None)
        if who is None:
            raise ValueError(
                f"every member accepts {u!r}, which is not in the set: the intersection is larger"
            )
        rejected_by[u] = who
    killed_by = {}
    for p in shortlex({u + c for u in P for c in alphabet} - P):
        res = [_residual(L, p) for L in members]
        group = None
        for size in range(1, max_group + 1):
            group = next(
                (
                    g
                    for g in itertools.combinations(range(len(members)), size)
                    if _jointly_empty([res[i] for i in g])
                ),
                None,
            )
            if group is not None:
                break
        if group is None:
            raise ValueError(f"no group of <= {max_group} members has empty residuals after {p!r}")
        killed_by[p] = group
    support = sorted(set(rejected_by.values()) | {i for g in killed_by.values() for i in g})
    return {
        "support": support,
        "rejected_by": rejected_by,
        "killed_by": killed_by,
        "prefixes": len(P),
        "boundary_words": len(killed_by),
    }


def dfa_table(L: DFA) -> dict:
    """A DFA as the JSON table of user classes (start, accepting, transitions)."""
    return {
        "start": L.start,
        "accepting": [q for q in range(L.n_states) if L.accept[q]],
        "transitions": {
            str(q): {s: L.trans[q][i] for i, s in enumerate(L.alphabet)} for q in range(L.n_states)
        },
    }


def check_with_automata(tables: Sequence[dict], words, n_states: int, alphabet: str = "ab") -> dict:
    """Independent check on automata-lib alone that every table is a complete DFA with at most
    ``n_states`` states over ``alphabet`` whose language is infinite, and that the intersection of
    their languages is finite and exactly ``words``. Returns the check's numbers; raises
    AssertionError naming the member or the word that fails."""
    from automata.fa.dfa import DFA as ADFA

    autos = []
    for i, t in enumerate(tables):
        trans = {str(q): {s: str(r) for s, r in row.items()} for q, row in t["transitions"].items()}
        assert len(trans) <= n_states, f"member {i} has {len(trans)} states (> {n_states})"
        assert all(set(row) == set(alphabet) for row in trans.values()), (
            f"member {i} is not complete over {alphabet}"
        )
        a = ADFA(
            states=set(trans),
            input_symbols=set(alphabet),
            transitions=trans,
            initial_state=str(t["start"]),
            final_states={str(q) for q in t["accepting"]},
        )
        assert len(a.minify().states) <= n_states, f"member {i} needs more than {n_states} states"
        assert not a.isfinite(), f"member {i} is a finite language"
        autos.append(a)
    x = autos[0]
    for a in autos[1:]:
        x = x & a
    assert x.isfinite(), "the intersection is infinite"
    got = shortlex(x)
    want = shortlex(words)
    extra, missing = sorted(set(got) - set(want)), sorted(set(want) - set(got))
    assert not extra and not missing, (
        f"automata-lib's intersection differs: extra {extra[:5]}, missing {missing[:5]}"
    )
    return {
        "members": len(autos),
        "intersection_size": len(got),
        "intersection_states": len(x.minify().states),
    }


# C(DFA_4) >= 109: three infinite prefix-closed 4-state languages whose intersection is exactly
# these 109 words: (1) no factor bbb and not starting with b; (2) no b while the number of a's
# read is divisible by 3; (3) an even-numbered a is not followed by a. Found by the exhaustive search
# over <= 3 prefix-closed members (plugins/langgen/studies/langgen_dfa4_prefix_closed.py); both computations
# check it in tests/langgen/test_langgen_certificates.py.
DFA4_LOWER_BOUND_WITNESS = {
    "value": 109,
    "members": [
        {
            "start": 0,
            "accepting": [0, 1, 3],
            "transitions": {
                "0": {"a": 1, "b": 2},
                "1": {"a": 1, "b": 3},
                "2": {"a": 2, "b": 2},
                "3": {"a": 1, "b": 0},
            },
        },
        {
            "start": 0,
            "accepting": [0, 1, 3],
            "transitions": {
                "0": {"a": 1, "b": 2},
                "1": {"a": 3, "b": 1},
                "2": {"a": 2, "b": 2},
                "3": {"a": 0, "b": 3},
            },
        },
        {
            "start": 0,
            "accepting": [0, 1, 2],
            "transitions": {
                "0": {"a": 1, "b": 0},
                "1": {"a": 2, "b": 1},
                "2": {"a": 3, "b": 0},
                "3": {"a": 3, "b": 3},
            },
        },
    ],
    "words": [""]
    + (
        "a aa ab aab aba abb aaba aabb abab abba aabaa aabba ababa ababb abbab aabaab aabbaa ababaa ababba "
        "abbaba abbabb aabaaba aabaabb aabbaab ababaab ababbaa abbabaa abbabba aabaabaa aabaabab aabaabba "
        "aabbaaba aabbaabb ababaaba ababaabb ababbaab abbabaab abbabbaa aabaababa aabaababb aabaabbaa "
        "aabaabbab aabbaabaa aabbaabab aabbaabba ababaabaa ababaabab ababaabba ababbaaba ababbaabb abbabaaba "
        "abbabaabb abbabbaab aabaababba aabaabbaba aabaabbabb aabbaababa aabbaababb aabbaabbaa aabbaabbab "
        "ababaababa ababaababb ababaabbaa ababaabbab ababbaabaa ababbaabab ababbaabba abbabaabaa abbabaabab "
        "abbabaabba abbabbaaba abbabbaabb aabaabbabba aabbaababba aabbaabbaba aabbaabbabb ababaababba "
        "ababaabbaba ababaabbabb ababbaababa ababbaababb ababbaabbaa ababbaabbab abbabaababa abbabaababb "
        "abbabaabbaa abbabaabbab abbabbaabaa abbabbaabab abbabbaabba aabbaabbabba ababaabbabba ababbaababba "
        "ababbaabbaba ababbaabbabb abbabaababba abbabaabbaba abbabaabbabb abbabbaababa abbabbaababb "
        "abbabbaabbaa abbabbaabbab ababbaabbabba abbabaabbabba abbabbaababba abbabbaabbaba abbabbaabbabb "
        "abbabbaabbabba "
    ).split(),
}
