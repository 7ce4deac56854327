"""The simulation ``langgen.closure_computation``: one computation of C(SL_k) or C(LTT(k, t)), with its
witness, so that two independent computations of one class can be run, stored and compared."""

from __future__ import annotations

from typing import Literal

from toolkit import SimulationOutput
from toolkit.config import Field, Params

SL_METHODS = ("orders", "dfa_core", "pareto", "branch_and_bound", "local_search")
LTT_METHODS = ("profile_automaton", "word_search", "simple_paths")
WITNESS_WORDS_SHOWN = (
    2000  # LTT witnesses beyond this many words are cut in the table (the digest covers all)
)


class ClosureComputationParams(Params):
    language_class: Literal["sl", "ltt"] = Field(
        "sl", description="strictly local SL_k, or locally threshold testable LTT(k, t), over {a, b}"
    )
    k: int = Field(2, ge=1, le=8, description="window k (SL_k: k >= 2)")
    t: int = Field(1, ge=1, le=4, description="threshold t (ltt only)")
    method: Literal[
        "orders",
        "dfa_core",
        "pareto",
        "branch_and_bound",
        "local_search",
        "profile_automaton",
        "word_search",
        "simple_paths",
    ] = Field(
        "orders",
        description="sl: 'orders' (every order of the de Bruijn nodes, k <= 4), 'dfa_core' (every edge "
        "subset on the DFA core, k <= 4), 'pareto' (dynamic programme over placed node sets, k <= 5, "
        "witness checked on the DFA core), 'branch_and_bound' (simple-path bound, k <= 5), "
        "'local_search' (seeded lower bound and simple-path upper bound, any k); ltt: "
        "'profile_automaton' (finite profile classes, one compiled pass), 'word_search' (saturated "
        "factor graph, no automaton), 'simple_paths' (t = 1 only: short words + simple paths of B_k)",
    )
    restarts: int = Field(20, ge=1, le=10_000, description="local_search: restarts from a shuffled order")
    steps: int = Field(20_000, ge=1, le=10_000_000, description="local_search: move steps per restart")


def _refuse(message: str):
    from toolkit.errors import ParameterError

    raise ParameterError(f"langgen.closure_computation: {message}")


def _check(params: ClosureComputationParams) -> None:
    p = params
    methods = SL_METHODS if p.language_class == "sl" else LTT_METHODS
    if p.method not in methods:
        _refuse(f"parameter 'method' for language_class={p.language_class!r} must be one of {methods}")
    if p.language_class == "sl":
        if p.k < 2:
            _refuse(f"parameter 'k': SL_k needs k >= 2, got {p.k}")
        limit = {"orders": 4, "dfa_core": 4, "pareto": 5, "branch_and_bound": 5}.get(p.method)
        if limit is not None and p.k > limit:
            _refuse(f"parameter 'k': method {p.method!r} reaches k <= {limit}, got {p.k}")
    elif p.method == "simple_paths" and (p.t != 1 or p.k < 2):
        _refuse(f"parameter 't': method 'simple_paths' needs t = 1 and k >= 2, got k={p.k}, t={p.t}")


def _words_digest(words) -> str:
    """sha256 of the sorted distinct words: two computations list the same set iff the digests agree."""
    import hashlib

    return hashlib.sha256("\n".join(sorted(set(words))).encode()).hexdigest()


def _sl_row(p: ClosureComputationParams, seed: int) -> dict:
    from toolkit_langgen import strictly_local_closure as slc

    if p.method == "orders":
        a = slc.sl_closure_dimension_orders(p.k)
        return {
            "closure_dimension": a["closure_dimension"],
            "status": "exact",
            "order": a["order"],
            "detail": "all linear orders of the de Bruijn nodes",
            "witness": "order " + a["order"],
        }
    if p.method == "dfa_core":
        b = slc.sl_closure_dimension_dfa(p.k)
        return {
            "closure_dimension": b["closure_dimension"],
            "status": "exact",
            "edges": b["edges"],
            "detail": f"DFA core over every edge subset ({b['finite_edge_sets']} finite)",
            "witness": "A = shorts, entries, exits and edges " + b["edges"],
        }
    if p.method == "pareto":
        a = slc.sl_closure_dimension_pareto(p.k)
        L = slc.sl_language(p.k, a["witness_factors"])
        finite = bool(L.is_finite())
        words = int(L.cardinality()) if finite else None
        return {
            "closure_dimension": a["closure_dimension"],
            "status": "exact",
            "order": a["order"],
            "detail": f"dynamic programme over placed node sets, undominated states "
            f"({a['states_kept']} kept, largest front {a['largest_front']})",
            "witness_finite": finite,
            "witness_words": words,
            "witness": f"order {a['order']}; A = " + " ".join(a["witness_factors"]),
        }
    if p.method == "branch_and_bound":
        b = slc.sl_closure_dimension_branch_and_bound(p.k)
        return {
            "closure_dimension": b["closure_dimension"],
            "status": b["status"],
            "order": b["order"],
            "detail": f"branch and bound over orders, simple-path bound ({b['visited']} nodes visited)",
            "witness": f"order {b['order']}",
        }
    r = slc.sl_closure_dimension_bounds(
        p.k, seed=seed, restarts=p.restarts, steps=p.steps, time_limit=float("inf")
    )
    return {
        "closure_dimension": r["closure_dimension"],
        "status": "lower bound",
        "order": r["order"],
        "upper_bound": r["upper_bound"],
        "detail": r["method"] + f", {p.steps} steps each",
        "witness": f"order {r['order']}",
    }


def _ltt_row(p: ClosureComputationParams) -> dict:
    if p.method == "simple_paths":
        from toolkit_langgen.strictly_local_closure import _short_words, simple_paths

        short = _short_words(p.k)
        return {
            "closure_dimension": short + simple_paths(p.k),
            "status": "exact",
            "detail": f"t = 1: {short} short words + the simple paths of B_{p.k}",
            "witness": "",
        }
    if p.method == "profile_automaton":
        from toolkit_langgen.ltt_compiled import ltt_closure_dimension_compiled

        a = ltt_closure_dimension_compiled(p.k, p.t, list_words=True)
        words = a["words"]
        n_finite = a["states"] - a["infinite_classes"]
        detail = (
            f"profile automaton, coded states, one pass ({a['states']} states = classes, {n_finite} finite)"
        )
        value = a["closure_dimension"]
    else:
        from toolkit_langgen.ltt_words import ltt_finite_class_words

        words = ltt_finite_class_words(p.k, p.t)
        detail = f"word search, saturated factor graph acyclic (longest word {max(map(len, words))})"
        value = len(words)
    shown = list(words[:WITNESS_WORDS_SHOWN])
    if len(words) > WITNESS_WORDS_SHOWN:
        shown.append(f"... ({len(words) - WITNESS_WORDS_SHOWN} more)")
    return {
        "closure_dimension": value,
        "status": "exact",
        "detail": detail,
        "words": len(words),
        "words_sha256": _words_digest(words),
        "witness": "F = {U ∪ [a^N], U ∪ [b^N]}, U = the finite classes: " + " ".join(w or "ε" for w in shown),
    }


def closure_computation(params: ClosureComputationParams, seed: int) -> SimulationOutput:
    """One computation of the closure dimension of SL_k or LTT(k, t) over {a, b}, chosen by ``method``
    (see its description): ``closure_dimension``, ``status`` (exact, or lower bound for local_search,
    with ``upper_bound`` the simple-path count where B_k has <= 16 nodes), a ``detail`` line, the
    ``witness`` (an order of the de Bruijn nodes, a factor set, or the words of the finite classes) and,
    for LTT word listings, ``words`` and ``words_sha256`` (the sorted distinct words) so that two
    computations' word sets can be compared. Run two methods of one class to check a value
    (``plugins/langgen/studies/langgen_exact_values.py``). Only local_search reads the seed."""
    _check(params)
    row = _sl_row(params, seed) if params.language_class == "sl" else _ltt_row(params)
    return SimulationOutput(
        records=[row], summary={"closure_dimension": row["closure_dimension"], "status": row["status"]}
    )
