"""Registered simulations of the langgen plugin (one tidy row per run)."""

from __future__ import annotations

import functools
from typing import Literal

from pydantic import ValidationInfo, field_validator

from toolkit import Simulation, SimulationOutput
from toolkit.config import Field, Params
from toolkit_langgen.dfa_search import (
    ClosedSetClimbParams,
    FamilySearchParams,
    closed_set_climb,
    family_search,
)
from toolkit_langgen.exact_closure import ClosureComputationParams, closure_computation

CLASSES = ("counting", "km_example", "dfa2", "ltt11", "user")
LANGUAGES_HELP = (
    'your own class (with the \'user\' choice): a JSON file, inline JSON {"kind": "regex"|"dfa"|'
    '"nfa"|"cfg"|"pattern", "alphabet": "ab", "members": [...]}, or \'regex: a*b* ; (ab)*\' '
    "(see the plugin README); stored as canonical JSON with a file's contents inlined"
)


def _check_languages(
    value, info: ValidationInfo, selector: str, what: str, regular_infinite: bool, infinite: bool
):
    """The ``languages`` parameter: required with ``selector == 'user'``, refused otherwise; parsed,
    validated and returned as canonical JSON (so the run store keys on the class, not a file name)."""
    choice = info.data.get(selector)
    if choice != "user":
        if value is not None:
            raise ValueError(f"languages is only read with {selector}='user' (got {selector}={choice!r})")
        return None
    if value is None:
        raise ValueError(f"{selector}='user' needs languages=... ({LANGUAGES_HELP})")
    from toolkit_langgen.dfa import LanguageError
    from toolkit_langgen.user_class import parse_user_class

    try:
        uc = parse_user_class(value)
        if regular_infinite:
            uc.require_regular_infinite(what)
        elif infinite:
            uc.require_infinite(what)
    except LanguageError as exc:
        raise ValueError(str(exc)) from None
    return uc.canonical()


def _user_class(languages: str):
    from toolkit_langgen.user_class import parse_user_class

    return parse_user_class(languages)


def make_class(name: str, m: int, languages: str | None = None):
    """A named finite class of infinite regular languages (ordered); 'user': the ``languages`` class."""
    from toolkit_langgen.closure import dfa_class, ltt_union_class
    from toolkit_langgen.generation import counting_class, km_nonuniform_class

    if name == "user":
        return _user_class(languages).require_regular_infinite("langgen.generator_race")
    if name == "counting":
        return counting_class(m)
    if name == "km_example":
        return km_nonuniform_class()
    if name == "dfa2":
        return dfa_class(2)
    if name == "ltt11":
        return ltt_union_class(1, 1)
    raise ValueError(f"class must be one of {CLASSES}, got {name!r}")


class GeneratorRaceParams(Params):
    language_class: Literal["counting", "km_example", "dfa2", "ltt11", "user"] = Field(
        "counting",
        description="class of languages: counting H_m, KM's two-language example, all infinite "
        "<=2-state DFA languages, all infinite LTT(1,1) languages, or 'user' (languages=)",
    )
    m: int = Field(2, ge=0, le=5, description="counting threshold m (counting class only)")
    generator: Literal["closure", "km", "greedy"] = Field("closure", description="generator")
    adversary: Literal["shortlex", "random", "intersection_first"] = Field(
        "intersection_first", description="enumeration order"
    )
    extra_horizon: int = Field(10, ge=1, le=1000, description="samples beyond C(H) + 1 in the horizon")
    languages: str | None = Field(None, description=LANGUAGES_HELP + "; regular, infinite members")

    @field_validator("languages")
    @classmethod
    def _languages(cls, value, info: ValidationInfo):
        return _check_languages(value, info, "language_class", "langgen.generator_race", True, True)


def generator_race(params: GeneratorRaceParams, seed: int):
    """Race one generator against one adversary on every target of a class: the first distinct-sample
    count from which the generator is correct up to the horizon, worst case over targets."""
    from toolkit_langgen.generation import (
        ADVERSARIES,
        GENERATORS,
        cached_closure_dimension,
        sample_complexity,
        worst_case,
    )

    H = make_class(params.language_class, params.m, params.languages)
    cd = cached_closure_dimension(H)
    horizon = cd.value + 1 + params.extra_horizon
    per_target = sample_complexity(
        H, GENERATORS[params.generator], ADVERSARIES[params.adversary], horizon, seed
    )
    never = sum(v is None for v in per_target.values())
    row = {
        "n_languages": len(H),
        "closure_dimension": cd.value,
        "status": cd.status,
        "horizon": horizon,
        "worst_first_correct": worst_case(per_target, horizon),
        "targets_never_correct": never,
        "mean_first_correct": sum(horizon + 1 if v is None else v for v in per_target.values()) / len(H),
    }
    return SimulationOutput(records=[row], summary=row)


class ClosureDimensionParams(Params):
    family: Literal["counting", "dfa", "ltt", "user"] = Field(
        "counting", description="size-indexed class family, or 'user' (your class: languages=)"
    )
    n: int = Field(2, ge=0, le=8, description="size index: m (counting), states (dfa), window k (ltt)")
    t: int = Field(1, ge=1, le=4, description="LTT threshold t (ltt only)")
    method: Literal["power_free", "search"] = Field(
        "power_free",
        description="dfa: 'power_free' (exact when the (n-1)-power-free words are finite: n <= 3) "
        "or 'search' (best-first over intersections, with the caps below)",
    )
    max_nodes: int = Field(2000, ge=1, description="cap on expanded infinite intersections (dfa)")
    time_limit: float = Field(20.0, gt=0, description="cap in seconds for the search (dfa, user)")
    max_length: int = Field(
        8,
        ge=1,
        le=14,
        description="user classes with CFG / pattern members: words up to "
        "this length (bounded-length evidence)",
    )
    languages: str | None = Field(None, description=LANGUAGES_HELP + "; infinite members")

    @field_validator("languages")
    @classmethod
    def _languages(cls, value, info: ValidationInfo):
        return _check_languages(value, info, "family", "langgen.closure_dimension", False, True)


def closure_dimension_run(params: ClosureDimensionParams, seed: int):
    """C(H_n) of a size-indexed class: exact, or a certified lower bound marked 'unresolved' with the cap hit."""
    from toolkit_langgen.closure import (
        closure_dimension,
        closure_dimension_power_free,
        dfa_class,
        ltt_closure_dimension,
    )
    from toolkit_langgen.generation import counting_class

    if params.family == "user":
        row = _user_closure_row(_user_class(params.languages), params)
    elif params.family == "counting":
        res = closure_dimension(counting_class(params.n))
        row = {"n_languages": 3, **res.row()}
    elif params.family == "dfa":
        if params.n > 4:
            from toolkit.errors import ParameterError

            raise ParameterError(
                f"parameter 'n' of langgen.closure_dimension: dfa classes need n <= 4, got {params.n}"
            )
        H = dfa_class(params.n)
        if params.method == "power_free":
            res = closure_dimension_power_free(H, n_states=params.n)
        else:
            res = closure_dimension(H, max_nodes=params.max_nodes, time_limit=params.time_limit)
        row = {"n_languages": len(H), "method_used": params.method, **res.row()}
        row["seconds"] = None  # wall time is not reproducible; kept out of the stored table
    else:
        info = ltt_closure_dimension(params.n, params.t)
        row = {
            "n_languages": None,
            "closure_dimension": info["closure_dimension"],
            "status": "exact",
            "profile_classes": info["profile_classes"],
            "finite_classes": info["finite_classes"],
        }
    row.pop("seconds", None)
    return SimulationOutput(records=[row], summary={"closure_dimension": row["closure_dimension"]})


def _user_closure_row(uc, params) -> dict:
    """C(H) of a user class: exact search (power-free first where it applies) for regular members;
    bounded-length evidence over every subfamily when a member is a CFG or a pattern."""
    from toolkit_langgen.closure import (
        bounded_closure_evidence,
        closure_dimension,
        closure_dimension_power_free,
    )

    if not uc.regular:
        ev = bounded_closure_evidence(list(uc.languages), params.max_length)
        return {"n_languages": len(uc.languages), "method_used": "bounded_length", **ev}
    H = list(uc.languages)
    if params.method == "power_free":
        res = closure_dimension_power_free(H)
        if res.status == "exact":
            return {"n_languages": len(H), "method_used": "power_free", **res.row()}
    res = closure_dimension(H, max_nodes=params.max_nodes, time_limit=params.time_limit)
    return {"n_languages": len(H), "method_used": "search", **res.row()}


class CongruenceBoundParams(Params):
    n: int = Field(3, ge=1, le=4, description="states of the class DFA_n (complete DFAs over {a, b})")
    max_depth: int = Field(12, ge=1, le=10_000, description="longest word length the construction expands")
    max_classes: int = Field(2_000_000, ge=1, description="stop once the congruence has more classes")
    max_paths: int = Field(50_000_000, ge=1, description="stop counting simple paths past this many")


def congruence_bound(params: CongruenceBoundParams, seed: int) -> SimulationOutput:
    """An upper bound on C(DFA_n) from the class's right congruence (u ≡ v iff every member has the same
    residual after u and after v): every word of a finite intersection is a simple path from the start
    of the product of the members' minimal DFAs, built breadth-first. Rows: per word length, the words
    expanded from new classes and the new classes they reach. Summary: ``closed`` (a length added no
    class), ``classes``, ``all_words_distinct_up_to_length`` d (so the product has >= 2^(d+1) - 1
    states), ``upper_bound`` (the simple paths from the start) with ``status`` ok, or capped (NaN bound)
    when the construction stopped at max_depth / max_classes or the count at max_paths (``capped_by``).
    Deterministic: the seed is not used."""
    import math

    from toolkit.censoring import CAPPED, OK
    from toolkit_langgen.closure import dfa_class
    from toolkit_langgen.congruence import build_levels, distinct_prefix_length, simple_paths
    from toolkit_langgen.family_search import stack_padded

    H = dfa_class(params.n)
    T, _, _ = stack_padded(H)
    levels, trans, closed = build_levels(T, params.max_depth, params.max_classes)
    rows = [{"length": d, "words_expanded": w, "new_classes": c} for d, (w, c) in enumerate(levels)]
    paths = simple_paths(trans, params.max_paths) if closed else None
    capped_by = "" if paths is not None else ("max_paths" if closed else "max_depth or max_classes")
    summary = {
        "members": len(H),
        "closed": closed,
        "classes": sum(c for _, c in levels),
        "all_words_distinct_up_to_length": distinct_prefix_length(levels),
        "upper_bound": paths if paths is not None else math.nan,
        "status": OK if paths is not None else CAPPED,
        "capped_by": capped_by,
    }
    return SimulationOutput(records=rows, summary=summary)


class ClosedFamilyBoundParams(Params):
    n: int = Field(4, ge=1, le=4, description="states of the class DFA_n (complete DFAs over {a, b})")
    subclass: Literal["prefix", "prefix-or-suffix"] = Field(
        "prefix",
        description="members: the prefix-closed (safety) DFA_n languages, or the prefix- and the "
        "suffix-closed ones together (mixed families included)",
    )


def closed_family_bound(params: ClosedFamilyBoundParams, seed: int) -> SimulationOutput:
    """The largest finite intersection over every family of at most 3 prefix-closed (or prefix- or
    suffix-closed) DFA_n languages: exact for that subclass, and a certified lower bound on C(DFA_n).
    One row: ``languages`` (infinite members of DFA_n), ``candidates`` (those in the subclass),
    ``lower_bound``, ``finite_intersections`` scored, the ``witness_family`` (indices into the
    enumeration of DFA_n), its ``members`` (DFA tables) and the ``witness_words`` of their intersection,
    which ``plugins/langgen/studies/langgen_dfa4_certificate.py`` checks independently. Deterministic:
    the seed is not used."""
    from toolkit_langgen.certificate import dfa_table
    from toolkit_langgen.closure import dfa_class
    from toolkit_langgen.dfa import DFA
    from toolkit_langgen.family_search import (
        FamilyScorer,
        exhaustive_triples,
        is_prefix_closed,
        is_suffix_closed,
        stack_padded,
    )

    H = dfa_class(params.n)
    scorer = FamilyScorer(*stack_padded(H))
    if params.subclass == "prefix":
        candidates = [i for i, L in enumerate(H) if is_prefix_closed(L)]
    else:
        candidates = [i for i, L in enumerate(H) if is_prefix_closed(L) or is_suffix_closed(L)]
    res = exhaustive_triples(scorer, candidates)
    BT, BF = scorer.intersection(list(res["family"]))
    inter = DFA("ab", BT.tolist(), BF.tolist(), 0)
    words = sorted(inter.words(inter.n_states), key=lambda w: (len(w), w))
    if len(words) != res["value"]:  # the compiled count and the DFA core disagree: no result
        raise RuntimeError(f"intersection has {len(words)} words, the compiled pass counted {res['value']}")
    row = {
        "languages": len(H),
        "candidates": len(candidates),
        "lower_bound": res["value"],
        "finite_intersections": res["finite_intersections"],
        "witness_family": [int(i) for i in res["family"]],
        "witness_words": words,
        "members": [dfa_table(H[i]) for i in res["family"]],
    }
    summary = {k: row[k] for k in ("lower_bound", "candidates", "finite_intersections")}
    return SimulationOutput(records=[row], summary=summary)


class PairScanParams(Params):
    n: int = Field(4, ge=1, le=4, description="states of the class DFA_n (complete DFAs over {a, b})")
    row_start: int = Field(0, ge=0, description="first row i of the block (index into the infinite members)")
    row_stop: int | None = Field(
        None, ge=1, description="rows i < row_stop (None, or past the last member: to the last member)"
    )

    @field_validator("row_stop")
    @classmethod
    def _after_start(cls, value, info: ValidationInfo):
        start = info.data.get("row_start")
        if value is not None and start is not None and value <= start:
            raise ValueError(f"row_stop must be > row_start (= {start}), got {value}")
        return value


@functools.lru_cache(maxsize=4)
def _stacked_infinite_dfas(n: int):
    """The infinite DFA_n languages (enumeration order) and their padded stacked tables, once per process."""
    import numpy as np

    from toolkit_langgen.dfa import enumerate_dfa_languages

    langs, infinite = enumerate_dfa_languages(n, method="numba")
    H = [L for L, i in zip(langs, infinite) if i]
    T = np.zeros((len(H), n, 2), np.int32)
    F = np.zeros((len(H), n), np.bool_)
    sizes = np.array([L.n_states for L in H], np.int32)
    for i, L in enumerate(H):
        T[i, : L.n_states] = L.trans
        F[i, : L.n_states] = L.accept
    return H, T, F, sizes


def pair_scan_run(params: PairScanParams, seed: int) -> SimulationOutput:
    """The largest finite |L_i ∩ L_j| over the pairs i < j of infinite DFA_n languages with i in
    [row_start, row_stop) (compiled scan): a certified lower bound on C(DFA_n), with the pair as its
    certificate. One row: ``languages`` (infinite members), the block's ``rows``, ``pairs_scanned``,
    ``finite_pairs`` (finite non-empty intersections), ``best`` (-1: none), the pair ``i``, ``j`` and the
    ``witness_words`` of their intersection, checked on the Python DFA core. Sweep blocks of rows to
    scan all pairs (in parallel with an executor). Deterministic: the seed is not used."""
    from toolkit.errors import ParameterError
    from toolkit_langgen.compiled import pair_scan

    H, T, F, sizes = _stacked_infinite_dfas(params.n)
    if params.row_start >= len(H):
        raise ParameterError(
            f"parameter 'row_start': DFA_{params.n} has {len(H)} infinite languages, so row_start must be "
            f"< {len(H)}, got {params.row_start}"
        )
    stop = len(H) if params.row_stop is None else min(params.row_stop, len(H))
    best, i, j, finite, scanned = pair_scan(T, F, sizes, params.row_start, stop)
    words: list[str] = []
    if best >= 0:
        inter = H[i] & H[j]
        if not (inter.is_finite() and inter.cardinality() == best):
            raise RuntimeError(f"pair ({i}, {j}): the Python core does not give {best} words")
        words = inter.words(inter.n_states)
    row = {
        "languages": len(H),
        "rows": stop - params.row_start,
        "pairs_scanned": int(scanned),
        "finite_pairs": int(finite),
        "best": int(best),
        "i": int(i),
        "j": int(j),
        "witness_words": words,
    }
    return SimulationOutput(
        records=[row], summary={k: row[k] for k in ("best", "pairs_scanned", "finite_pairs")}
    )


class WitnessFamilyParams(Params):
    family: Literal["counting", "counting3", "ltt_threshold", "sl_staircase", "cfg_power", "user"] = Field(
        "counting", description="lower-bound witness family, or 'user' (|∩| of your languages=)"
    )
    param: int = Field(
        2, ge=0, le=8, description="family parameter (m, t, k or j; see README); unused by 'user'"
    )
    max_length: int = Field(
        10,
        ge=1,
        le=14,
        description="user families with CFG / pattern members: words up to "
        "this length (bounded-length evidence)",
    )
    languages: str | None = Field(None, description=LANGUAGES_HELP)

    @field_validator("languages")
    @classmethod
    def _languages(cls, value, info: ValidationInfo):
        return _check_languages(value, info, "family", "langgen.witness_family", False, False)


def witness_family(params: WitnessFamilyParams, seed: int):
    """Brute-force |∩| of a witness family against its closed form."""
    from toolkit.errors import ParameterError
    from toolkit_langgen.witnesses import PARAM_MIN, make_family, user_family

    if params.family == "user":
        row = user_family(_user_class(params.languages), params.max_length).row()
        row.pop("param")  # unused by 'user': the table shows the parameter itself
        return SimulationOutput(records=[row], summary={"intersection_size": row["intersection_size"]})
    if params.param < PARAM_MIN[params.family]:
        raise ParameterError(
            f"parameter 'param' of langgen.witness_family: family {params.family!r} needs "
            f">= {PARAM_MIN[params.family]}, got {params.param}"
        )
    row = make_family(params.family, params.param).row()
    return SimulationOutput(records=[row], summary={"intersection_size": row["intersection_size"]})


def _plot_log(x: str, y: str):
    def plot(table, fig):
        ax = fig.add_subplot(111)
        data = table.sort_values(x)
        ax.plot(data[x], data[y].clip(lower=1), "o-")
        ax.set_yscale("log")
        ax.set_xlabel(x)
        ax.set_ylabel(y)

    return plot


SIMULATIONS = [
    Simulation(
        "langgen.generator_race",
        generator_race,
        GeneratorRaceParams,
        "first permanently-correct sample count of a generator vs an adversary, per class (worst target)",
        bounds=("langgen.lrt_lower_bound", "langgen.closure_generator_upper"),
        quick={"m": 1},
        plot=_plot_log("m", "worst_first_correct"),
    ),
    Simulation(
        "langgen.closure_dimension",
        closure_dimension_run,
        ClosureDimensionParams,
        "closure dimension C(H_n) of counting / DFA / LTT classes, exact or certified lower bound",
        quick={"family": "counting", "n": 1},
        plot=_plot_log("n", "closure_dimension"),
    ),
    Simulation(
        "langgen.congruence_bound",
        congruence_bound,
        CongruenceBoundParams,
        "upper bound on C(DFA_n): simple paths of the class's right congruence (exact count or capped)",
        quick={"n": 2, "max_depth": 40},
    ),
    Simulation(
        "langgen.closed_family_bound",
        closed_family_bound,
        ClosedFamilyBoundParams,
        "lower bound on C(DFA_n): exhaustive over families of <= 3 prefix- (or suffix-) closed members",
        quick={"n": 2},
    ),
    Simulation(
        "langgen.pair_scan",
        pair_scan_run,
        PairScanParams,
        "lower bound on C(DFA_n): the largest finite pairwise intersection over a block of rows",
        quick={"n": 3, "row_start": 0, "row_stop": 50},
    ),
    Simulation(
        "langgen.witness_family",
        witness_family,
        WitnessFamilyParams,
        "brute-force |∩| of a lower-bound witness family vs its closed form",
        bounds=(
            "langgen.counting_family",
            "langgen.counting_family_lower",
            "langgen.ltt_threshold_family",
            "langgen.sl_staircase_family",
            "langgen.cfg_power_family",
        ),
        quick={"param": 2},
        plot=_plot_log("param", "intersection_size"),
    ),
    Simulation(
        "langgen.closure_computation",
        closure_computation,
        ClosureComputationParams,
        "one computation of C(SL_k) or C(LTT(k, t)) with its witness (run two methods to check a value)",
        quick=[
            {"language_class": "sl", "k": 2, "method": "orders"},
            {"language_class": "sl", "k": 2, "method": "dfa_core"},
            {"language_class": "sl", "k": 3, "method": "pareto"},
            {"language_class": "sl", "k": 3, "method": "branch_and_bound"},
            {"language_class": "sl", "k": 3, "method": "local_search", "restarts": 2, "steps": 50},
            {"language_class": "ltt", "k": 1, "t": 2, "method": "profile_automaton"},
            {"language_class": "ltt", "k": 2, "t": 1, "method": "word_search"},
            {"language_class": "ltt", "k": 2, "t": 1, "method": "simple_paths"},
        ],
    ),
    Simulation(
        "langgen.closed_set_climb",
        closed_set_climb,
        ClosedSetClimbParams,
        "lower bound on C(DFA_n): hill climbing over finite closed sets of power-free words (step budget)",
        quick={"n": 3, "max_length": 5, "pump_length": 5, "start": "random", "max_closures": 20},
    ),
    Simulation(
        "langgen.family_search",
        family_search,
        FamilySearchParams,
        "lower bound on C(DFA_n): iterated local search over k-member families (kick budget)",
        quick={"n": 3, "k": 2, "kicks": 3},
    ),
]
