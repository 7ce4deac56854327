"""langgen: sample complexity of language generation in the limit (Arenas, Barceló, Cofré,
Kozachinskiy, ICML 2026; Kleinberg-Mullainathan 2024; Li-Raman-Tewari 2025; Charikar-Pabbaraju).
Hook implementations only; see README.md."""

from __future__ import annotations

from toolkit import defer

toolkit_register_simulations = defer(
    "toolkit_langgen.simulation:SIMULATIONS",
    {
        "langgen.generator_race": "first permanently-correct sample count of a generator vs an adversary, per class (worst target)",
        "langgen.closure_dimension": "closure dimension C(H_n) of counting / DFA / LTT classes, exact or certified lower bound",
        "langgen.congruence_bound": "upper bound on C(DFA_n): simple paths of the class's right congruence (exact count or capped)",
        "langgen.closed_family_bound": "lower bound on C(DFA_n): exhaustive over families of <= 3 prefix- (or suffix-) closed members",
        "langgen.pair_scan": "lower bound on C(DFA_n): the largest finite pairwise intersection over a block of rows",
        "langgen.witness_family": "brute-force |∩| of a lower-bound witness family vs its closed form",
        "langgen.closed_set_climb": "lower bound on C(DFA_n): hill climbing over finite closed sets of power-free words (step budget)",
        "langgen.family_search": "lower bound on C(DFA_n): iterated local search over k-member families (kick budget)",
        "langgen.closure_computation": "one computation of C(SL_k) or C(LTT(k, t)) with its witness (run two methods to check a value)",
    },
)

toolkit_register_bounds = defer(
    "toolkit_langgen.bounds:BOUNDS",
    {
        "langgen.lrt_lower_bound": "LRT Thm 3.3: every generator needs more than C(H) distinct samples on the worst target when the adversary presents the largest finite closed set first",
        "langgen.closure_generator_upper": "LRT Thm 3.3: the closure generator is correct once it has C(H)+1 distinct samples (any adversary)",
        "langgen.counting_family": "|L_{a,m} ∩ L_{b,m}| = binom(2m+2, m+1) - 1 (equality: upper and lower)",
        "langgen.counting_family_lower": "|L_{a,m} ∩ L_{b,m}| >= binom(2m+2, m+1) - 1",
        "langgen.ltt_threshold_family": "LTT(1, t): |fewer than t a's ∩ fewer than t b's| = binom(2t, t) - 1",
        "langgen.sl_staircase_family": "SL_k: |no ba ∩ no a^k, b^k| = k^2",
        "langgen.cfg_power_family": "{a^n b^n} ∩ ({a,b}^{<=2^j} ∪ baa*): 2^(j-1) + 1 words (bounded-length)",
    },
)

toolkit_register_experiments = defer(
    "toolkit_langgen.experiments:EXPERIMENTS",
    {
        "langgen.counting_class": "C(H_m) and first-correct sample of KM/closure/greedy on the counting class",
        "langgen.km_example": "KM's non-uniformity example: KM wrong, closure and greedy right",
        "langgen.dfa_classes": "enumeration of <= n-state binary DFAs and C(DFA_n)",
        "langgen.witness_families": "witness families vs closed forms; C(LTT(k,t))",
    },
)
