"""Lower-bound witness families: infinite languages of small size whose intersection is finite but large.

Each family maps a parameter to the languages, their sizes, the brute-force |∩| and its closed form.
A finite ∩F of members of H_n lower-bounds C(H_n), hence every generator's worst-case sample
complexity on size-n targets. Pure maths, no toolkit imports.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import comb, factorial

from toolkit_langgen.dfa import DFA
from toolkit_langgen.languages import (
    CFGLanguage,
    PatternLanguage,
    counting,
    intersection_profile,
    strictly_local,
)


@dataclass
class FamilyInstance:
    family: str
    param: int
    languages: list  # the members (DFAs, or grammars for cfg_power)
    sizes: list[int]  # states of each minimal DFA / productions of each grammar
    intersection_size: int | None  # brute force (None: the intersection is infinite)
    closed_form: int | None  # None for a user's family (no closed form known)
    evidence: str = "exact"  # "exact" (decided on DFAs) or "bounded-length" (CFG)

    def row(self) -> dict:
        matches = None if self.closed_form is None else self.intersection_size == self.closed_form
        return {
            "family": self.family,
            "param": self.param,
            "max_size": max(self.sizes),
            "intersection_size": self.intersection_size,
            "closed_form": self.closed_form,
            "matches": matches,
            "evidence": self.evidence,
        }


def _intersection(langs: list[DFA]) -> DFA:
    inter = langs[0]
    for L in langs[1:]:
        inter = inter.product(L, "and")
    return inter.minimize()


def counting_family(m: int) -> FamilyInstance:
    """L_{a,m} ∩ L_{b,m}: binom(2m+2, m+1) - 1 words with (m+2)-state DFAs."""
    langs = [counting("a", m), counting("b", m)]
    return FamilyInstance(
        "counting",
        m,
        langs,
        [L.n_states for L in langs],
        int(_intersection(langs).cardinality()),
        comb(2 * m + 2, m + 1) - 1,
    )


def counting3_family(m: int) -> FamilyInstance:
    """Three letters: Σ over (i, j, l) in [0, m]^3 of the multinomial (i+j+l)! / (i! j! l!)."""
    A = ("a", "b", "c")
    langs = [counting(s, m, A) for s in A]
    closed = sum(
        factorial(i + j + l) // (factorial(i) * factorial(j) * factorial(l))
        for i, j, l in itertools.product(range(m + 1), repeat=3)
    )
    return FamilyInstance(
        "counting3", m, langs, [L.n_states for L in langs], int(_intersection(langs).cardinality()), closed
    )


def ltt_threshold_family(t: int) -> FamilyInstance:
    """LTT(1, t): 'fewer than t a's' ∩ 'fewer than t b's' = binom(2t, t) - 1 words (t >= 1)."""
    from toolkit_langgen.languages import ltt

    langs = [ltt(1, t, lambda c, s=s: c.get(s, 0) < t) for s in ("a", "b")]
    return FamilyInstance(
        "ltt_threshold",
        t,
        langs,
        [L.n_states for L in langs],
        int(_intersection(langs).cardinality()),
        comb(2 * t, t) - 1,
    )


def sl_staircase_family(k: int) -> FamilyInstance:
    """SL_k (k >= 2): 'no factor ba' ∩ 'no factor a^k, no factor b^k' = {a^i b^j : i, j < k}: k^2 words."""
    letters = ("a", "b", "<", ">")
    all_k = {"".join(p) for p in itertools.product(letters, repeat=k)}
    # factors of length k of <w> (plus short padded words) that avoid the forbidden pattern
    shorts = {"<" + "".join(p) + ">" for n in range(max(k - 1, 0)) for p in itertools.product("ab", repeat=n)}
    allowed1 = {f for f in all_k | shorts if "ba" not in f}
    allowed2 = {f for f in all_k | shorts if "a" * k not in f and "b" * k not in f}
    langs = [strictly_local(k, allowed1), strictly_local(k, allowed2)]
    return FamilyInstance(
        "sl_staircase", k, langs, [L.n_states for L in langs], int(_intersection(langs).cardinality()), k * k
    )


def power_grammar(j: int) -> str:
    """A grammar with j + 3 variables for {a, b}^{<= 2^j} ∪ b a a* (X_i derives (a|b|ε)^{2^i})."""
    lines = ["S -> X%d | b A" % j, "A -> a A | a", "X0 -> a | b | $"]
    lines += [f"X{i} -> X{i - 1} X{i - 1}" for i in range(1, j + 1)]
    return "\n".join(lines)


def cfg_power_family(j: int) -> FamilyInstance:
    """{a^n b^n} ∩ ({a,b}^{<=2^j} ∪ b a a*): 2^(j-1) + 1 words (j >= 1); bounded-length evidence
    (words up to length 2^j + 4, CYK membership) plus pyformlang's finiteness of the CFG ∩ (regular
    part) as a cross-check."""
    anbn = CFGLanguage("S -> a S b | $")
    power = CFGLanguage(power_grammar(j))
    max_len = 2**j + 4
    # candidates from the first grammar's own bounded-length words, CYK membership in the second
    profile = [0] * (max_len + 1)
    for w in anbn.words(max_len):
        if w in power:
            profile[len(w)] += 1
    return FamilyInstance(
        "cfg_power",
        j,
        [anbn, power],
        [2, j + 3],
        sum(profile),
        2 ** (j - 1) + 1,
        evidence=f"bounded-length (<= {max_len}); counts by length {profile}",
    )


FAMILIES = {
    "counting": counting_family,
    "counting3": counting3_family,
    "ltt_threshold": ltt_threshold_family,
    "sl_staircase": sl_staircase_family,
    "cfg_power": cfg_power_family,
}
PARAM_MIN = {"counting": 0, "counting3": 0, "ltt_threshold": 1, "sl_staircase": 2, "cfg_power": 1}


def pattern_intersection_evidence(p1: str, p2: str, max_length: int = 10) -> list[int]:
    """|L(p1) ∩ L(p2) ∩ Σ^n| for n <= max_length (bounded-length evidence only)."""
    return intersection_profile([PatternLanguage(p1), PatternLanguage(p2)], max_length)


def user_family(uc, max_length: int = 10) -> FamilyInstance:
    """|∩| of a user's class (:class:`~toolkit_langgen.user_class.UserClass`): exact when every member
    is regular (None when the intersection is infinite), bounded-length counts otherwise."""
    langs = list(uc.languages)
    sizes = [
        L.n_states
        if isinstance(L, DFA)
        else (len(L.cfg.productions) if isinstance(L, CFGLanguage) else len(L.tokens))
        for L in langs
    ]
    if uc.regular:
        inter = _intersection(langs)
        size = None if not inter.is_finite() else int(inter.cardinality())
        words = (
            " ".join(w or "ε" for w in inter.words(inter.n_states)) if size is not None and size <= 64 else ""
        )
        return FamilyInstance("user", 0, langs, sizes, size, None, "exact" + (f": {words}" if words else ""))
    profile = intersection_profile(langs, max_length)
    return FamilyInstance(
        "user",
        0,
        langs,
        sizes,
        sum(profile),
        None,
        f"bounded-length (<= {max_length}); counts by length {profile}",
    )


def make_family(family: str, param: int) -> FamilyInstance:
    if family not in FAMILIES:
        raise ValueError(f"family must be one of {sorted(FAMILIES)}, got {family!r}")
    if param < PARAM_MIN[family]:
        raise ValueError(f"family {family!r} needs param >= {PARAM_MIN[family]}, got {param}")
    return FAMILIES[family](param)


__all__ = [
    "FAMILIES",
    "FamilyInstance",
    "make_family",
    "pattern_intersection_evidence",
    "power_grammar",
    "user_family",
]
