"""Exact closure dimensions of SL_k and LTT(k, t) over {a, b}, each by two independent computations,
with witnesses, time and peak memory.

    OMP_NUM_THREADS=1 nice -n 10 python plugins/langgen/studies/langgen_exact_values.py [--out results/langgen] \\
        [--sl-max 4] [--sl-exact 5] [--ltt 1,1 1,2 1,3 1,4 2,1 2,2 2,3 3,1 3,2 3,3 4,1 4,2] [--sl-bounds 6] \\
        [--seed 0] [--ltt-words 5,1]

SL_k, k <= 4: (a) maximum over all linear orders of the de Bruijn graph's nodes of the walks in the
forward edges; (b) the DFA core over every edge subset (strictly_local languages, finiteness and
cardinality on the DFA). --sl-exact (k <= 5, 16! orders): (a) a dynamic programme over the set of
nodes placed first that keeps only undominated partial states; (b) a branch and bound over orders
cut by the simple-path bound (a different argument, no shared pruning); the witness order's
language is built on the DFA core and checked finite with exactly that many words. Beyond
(--sl-bounds): local-search lower bound (seeded) and simple-path upper bound.
LTT(k, t): (a) the words of the finite profile classes (the Boolean-algebra identity), listed in one
compiled pass over the profile automaton with integer-coded states (``toolkit_langgen.ltt_compiled``;
a state is a profile class, finite iff no cycle reaches it); (b) the words whose class is finite,
enumerated by a depth-first search over prefixes that stops where the saturated factor graph gets a
cycle (``toolkit_langgen.ltt_words``: no automaton, no profile classes); the two word sets are
compared, not only their sizes. --ltt-words: the word search alone, checked for t = 1 against the
short words plus the simple paths of the de Bruijn graph B_k (``strictly_local_closure.simple_paths``).
Pairs are ``k,t`` (several after one option, or space-separated in one quoted argument); a bad pair
exits with status 2 naming the option. Writes exact_values.csv (one row per class, witnesses
included) and prints the table.
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import pandas as pd

from toolkit.argtypes import comma_list

_k_t = comma_list(int, minimum=1, allow_duplicates=True)


def ltt_pairs(text: str) -> list[tuple[int, int]]:
    """argparse type: ``"4,2"`` (or ``"4,2 5,1"``, space-separated in one argument) -> [(4, 2), ...]."""
    pairs = [tuple(_k_t(item)) for item in text.split()]
    if not pairs or any(len(p) != 2 for p in pairs):
        raise argparse.ArgumentTypeError(f"expected pairs k,t of positive integers (e.g. 4,2), got {text!r}")
    return pairs


ltt_pairs.__name__ = "k,t pair"  # argparse: "invalid k,t pair value"


def ltt_rows(k: int, t: int) -> dict:
    from toolkit_langgen.ltt_compiled import ltt_closure_dimension_compiled
    from toolkit_langgen.ltt_words import ltt_finite_class_words

    t0 = time.perf_counter()
    a = ltt_closure_dimension_compiled(k, t, list_words=True)
    secs_a = time.perf_counter() - t0
    t0 = time.perf_counter()
    words_b = ltt_finite_class_words(k, t)
    secs_b = time.perf_counter() - t0
    witness = a["words"]
    agree = len(words_b) == a["closure_dimension"] and set(words_b) == set(witness)
    n_finite = a["states"] - a["infinite_classes"]
    shown = witness if len(witness) <= 2000 else witness[:2000] + [f"... ({len(witness) - 2000} more)"]
    return {
        "class": f"LTT({k},{t})",
        "k": k,
        "t": t,
        "closure_dimension": a["closure_dimension"],
        "check": len(words_b),
        "agree": agree,
        "status": "exact" if agree else "DISAGREE",
        "method_a": f"profile automaton, coded states, one pass ({a['states']} states = classes, "
        f"{n_finite} finite)",
        "method_b": f"word search, saturated factor graph acyclic (longest word {max(map(len, words_b))})",
        "seconds_a": round(secs_a, 2),
        "seconds_b": round(secs_b, 2),
        "witness": "F = {U ∪ [a^N], U ∪ [b^N]}, U = the finite classes: " + " ".join(w or "ε" for w in shown),
    }


def ltt_word_search_row(k: int, t: int) -> dict:
    """Beyond the profile automaton's reach: the word search, checked for t = 1 by counting simple
    paths (with t = 1 a profile is the set of factors, and a class is finite iff it is one word whose
    walk of (k-1)-factors in the de Bruijn graph B_k is a simple path, or a word of length <= k - 2);
    otherwise one computation, so not called exact."""
    from toolkit_langgen.ltt_words import ltt_finite_class_words
    from toolkit_langgen.strictly_local_closure import _short_words, simple_paths

    t0 = time.perf_counter()
    words = ltt_finite_class_words(k, t)
    secs_b = time.perf_counter() - t0
    row = {
        "class": f"LTT({k},{t})",
        "k": k,
        "t": t,
        "closure_dimension": len(words),
        "check": None,
        "agree": None,
        "status": "one computation",
        "method_a": None,
        "method_b": f"word search, saturated factor graph acyclic (longest word {max(map(len, words))})",
        "seconds_a": None,
        "seconds_b": round(secs_b, 2),
        "witness": f"{len(words)} words, the union of the finite profile classes",
    }
    if t == 1 and k >= 2:
        t0 = time.perf_counter()
        check = _short_words(k) + simple_paths(k)
        row.update(
            check=check,
            agree=check == len(words),
            status="exact" if check == len(words) else "DISAGREE",
            method_a=f"t = 1: {_short_words(k)} short words + the simple paths of B_{k}",
            seconds_a=round(time.perf_counter() - t0, 2),
        )
    return row


def sl_rows(k: int) -> dict:
    from toolkit_langgen.strictly_local_closure import sl_closure_dimension_dfa, sl_closure_dimension_orders

    a = sl_closure_dimension_orders(k)
    b = sl_closure_dimension_dfa(k)
    return {
        "class": f"SL_{k}",
        "k": k,
        "t": None,
        "closure_dimension": a["closure_dimension"],
        "check": b["closure_dimension"],
        "agree": a["closure_dimension"] == b["closure_dimension"],
        "status": "exact",
        "method_a": "all linear orders of the de Bruijn nodes",
        "method_b": f"DFA core over every edge subset ({b['finite_edge_sets']} finite)",
        "seconds_a": round(a["seconds"], 2),
        "seconds_b": round(b["seconds"], 2),
        "witness": "A = shorts, entries, exits and edges " + b["edges"] + f" (order {a['order']})",
    }


def sl_bound_row(k: int, seed: int, time_limit: float) -> dict:
    from toolkit_langgen.strictly_local_closure import sl_closure_dimension_bounds

    r = sl_closure_dimension_bounds(k, seed=seed, time_limit=time_limit)
    upper = r["upper_bound"]  # None beyond 16 nodes (the simple paths are not counted there)
    return {
        "class": f"SL_{k}",
        "k": k,
        "t": None,
        "closure_dimension": r["closure_dimension"],
        "check": None,
        "agree": None,
        "status": f"bounds [{r['closure_dimension']}, {upper}]" if upper else "lower bound",
        "method_a": r["method"],
        "method_b": "upper: simple paths of the de Bruijn graph" if upper else None,
        "seconds_a": round(r["seconds"], 2),
        "seconds_b": None,
        "witness": f"order {r['order']}",
    }


def sl_exact_row(k: int) -> dict:
    """k <= 5: the dynamic programme and the branch and bound, and the witness on the DFA core."""
    from toolkit_langgen.strictly_local_closure import (
        sl_closure_dimension_branch_and_bound,
        sl_closure_dimension_pareto,
        sl_language,
    )

    a = sl_closure_dimension_pareto(k)
    b = sl_closure_dimension_branch_and_bound(k)
    t0 = time.perf_counter()
    L = sl_language(k, a["witness_factors"])
    witness_ok = bool(L.is_finite()) and int(L.cardinality()) == a["closure_dimension"]
    secs_w = time.perf_counter() - t0
    agree = a["closure_dimension"] == b["closure_dimension"] and witness_ok
    return {
        "class": f"SL_{k}",
        "k": k,
        "t": None,
        "closure_dimension": a["closure_dimension"],
        "check": b["closure_dimension"],
        "agree": agree,
        "status": "exact" if agree else "DISAGREE",
        "method_a": f"dynamic programme over placed node sets, undominated states ({a['states_kept']} kept, "
        f"largest front {a['largest_front']})",
        "method_b": f"branch and bound over orders, simple-path bound ({b['visited']} nodes visited); "
        f"witness on the DFA core: finite, {L.cardinality()} words ({secs_w:.2f} s)",
        "seconds_a": round(a["seconds"], 2),
        "seconds_b": round(b["seconds"], 2),
        "witness": f"order {a['order']}; A = " + " ".join(a["witness_factors"]),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="results/langgen")
    ap.add_argument("--sl-max", type=int, default=4)
    ap.add_argument("--sl-exact", type=int, nargs="*", default=[5], help="k <= 5: exact by two methods")
    ap.add_argument("--sl-bounds", type=int, nargs="*", default=[], help="bounds only (any k >= 2)")
    ap.add_argument("--sl-time", type=float, default=120.0, help="seconds of local search per bounded SL_k")
    ap.add_argument(
        "--ltt",
        type=ltt_pairs,
        nargs="*",
        default=[
            [(1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (2, 2), (2, 3), (3, 1), (3, 2), (3, 3), (4, 1), (4, 2)]
        ],
        help="pairs k,t: both computations",
    )
    ap.add_argument(
        "--ltt-words",
        type=ltt_pairs,
        nargs="*",
        default=[],
        help="pairs k,t (e.g. 5,1): word search only (one computation)",
    )
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if any(not 2 <= k <= 5 for k in args.sl_exact):
        ap.error(f"--sl-exact: k must be 2..5 (2^(2^(k-1)) node sets beyond), got {args.sl_exact}")
    if any(k < 2 for k in args.sl_bounds):
        ap.error(f"--sl-bounds: k must be >= 2, got {args.sl_bounds}")
    ltt_pairs_, ltt_word_pairs = (sum(args.ltt, []), sum(args.ltt_words, []))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = [sl_rows(k) for k in range(2, args.sl_max + 1)]
    rows += [sl_exact_row(k) for k in args.sl_exact]
    rows += [sl_bound_row(k, args.seed, args.sl_time) for k in args.sl_bounds]
    rows += [ltt_rows(k, t) for k, t in ltt_pairs_]
    rows += [ltt_word_search_row(k, t) for k, t in ltt_word_pairs]
    if not rows:
        ap.error("nothing to compute: give --sl-max >= 2, --sl-exact, --sl-bounds, --ltt or --ltt-words")
    table = pd.DataFrame(rows)
    table["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    table.to_csv(out / "exact_values.csv", index=False)
    with pd.option_context("display.max_colwidth", 60, "display.width", 200):
        print(table.drop(columns=["witness"]).to_string(index=False))
    assert table.agree.dropna().all(), "two computations disagree"


if __name__ == "__main__":
    main()
