"""Exact closure dimensions of SL_k and LTT(k, t) over {a, b}, each by two independent computations,
with witnesses, time and peak memory.

    OMP_NUM_THREADS=1 nice -n 10 python plugins/langgen/studies/langgen_exact_values.py [--out results/langgen] \\
        [--sl-max 4] [--sl-exact 5] [--ltt 1,1 1,2 1,3 1,4 2,1 2,2 2,3 3,1 3,2 3,3 4,1 4,2] [--sl-bounds 6] \\
        [--seed 0] [--sl-restarts 20] [--sl-steps 20000] [--ltt-words 5,1] [--store PATH] [--executor NAME]

SL_k, k <= 4: (a) maximum over all linear orders of the de Bruijn graph's nodes of the walks in the
forward edges; (b) the DFA core over every edge subset (strictly_local languages, finiteness and
cardinality on the DFA). --sl-exact (k <= 5, 16! orders): (a) a dynamic programme over the set of
nodes placed first that keeps only undominated partial states; (b) a branch and bound over orders
cut by the simple-path bound (a different argument, no shared pruning); the witness order's
language is built on the DFA core and checked finite with exactly that many words. Beyond
(--sl-bounds): local-search lower bound (seeded; --sl-restarts restarts of --sl-steps moves) and
simple-path upper bound.
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

Each computation is one ``langgen.closure_computation`` run kept in the run store (--store, default
TOOLKIT_STORE): a second call reads them back and computes nothing. The seconds columns are the
computing time of each run, as stored.
"""

from __future__ import annotations

import argparse
import resource
import sys
from pathlib import Path

import pandas as pd

from toolkit.argtypes import add_run_options, comma_list, open_run_store

_k_t = comma_list(int, minimum=1, allow_duplicates=True)


def ltt_pairs(text: str) -> list[tuple[int, int]]:
    """argparse type: ``"4,2"`` (or ``"4,2 5,1"``, space-separated in one argument) -> [(4, 2), ...]."""
    pairs = [tuple(_k_t(item)) for item in text.split()]
    if not pairs or any(len(p) != 2 for p in pairs):
        raise argparse.ArgumentTypeError(f"expected pairs k,t of positive integers (e.g. 4,2), got {text!r}")
    return pairs


ltt_pairs.__name__ = "k,t pair"  # argparse: "invalid k,t pair value"


SIM = "langgen.closure_computation"


class Computations:
    """The ``langgen.closure_computation`` runs of one call, looked up by (class, k, t, method); each
    is computed by :func:`toolkit.sweep` (or read back from the run store) before the table is built."""

    def __init__(self, store=None, executor: str = "serial"):
        self.store, self.executor, self.runs = store, executor, {}
        self.computed = self.cached = 0

    def sweep(self, grid: dict, params: dict, seed: int = 0) -> None:
        import toolkit

        grid = {name: sorted(set(values)) for name, values in grid.items()}
        res = toolkit.sweep(SIM, grid, [seed], params=params, store=self.store, executor=self.executor)
        self.computed, self.cached = self.computed + res.n_computed, self.cached + res.n_cached
        for r in res.runs:
            p = r.params
            t = p["t"] if p["language_class"] == "ltt" else None
            self.runs[(p["language_class"], p["k"], t, p["method"])] = r

    def __call__(self, language_class: str, k: int, t: int | None, method: str):
        return self.runs[(language_class, k, t, method)]


def _seconds(res) -> float:
    return round(res.provenance["wall_time"], 2)


def ltt_rows(k: int, t: int, runs: Computations) -> dict:
    a, b = runs("ltt", k, t, "profile_automaton"), runs("ltt", k, t, "word_search")
    ra, rb = a.records[0], b.records[0]
    # the word sets are compared (by their digests), not only their sizes
    agree = rb["words"] == ra["closure_dimension"] and rb["words_sha256"] == ra["words_sha256"]
    return {
        "class": f"LTT({k},{t})",
        "k": k,
        "t": t,
        "closure_dimension": ra["closure_dimension"],
        "check": rb["words"],
        "agree": agree,
        "status": "exact" if agree else "DISAGREE",
        "method_a": ra["detail"],
        "method_b": rb["detail"],
        "seconds_a": _seconds(a),
        "seconds_b": _seconds(b),
        "witness": ra["witness"],
    }


def ltt_word_search_row(k: int, t: int, runs: Computations) -> dict:
    """Beyond the profile automaton's reach: the word search, checked for t = 1 by counting simple
    paths (with t = 1 a profile is the set of factors, and a class is finite iff it is one word whose
    walk of (k-1)-factors in the de Bruijn graph B_k is a simple path, or a word of length <= k - 2);
    otherwise one computation, so not called exact."""
    b = runs("ltt", k, t, "word_search")
    rb = b.records[0]
    row = {
        "class": f"LTT({k},{t})",
        "k": k,
        "t": t,
        "closure_dimension": rb["words"],
        "check": None,
        "agree": None,
        "status": "one computation",
        "method_a": None,
        "method_b": rb["detail"],
        "seconds_a": None,
        "seconds_b": _seconds(b),
        "witness": f"{rb['words']} words, the union of the finite profile classes",
    }
    if t == 1 and k >= 2:
        a = runs("ltt", k, 1, "simple_paths")
        check = a.records[0]["closure_dimension"]
        row.update(
            check=check,
            agree=check == rb["words"],
            status="exact" if check == rb["words"] else "DISAGREE",
            method_a=a.records[0]["detail"],
            seconds_a=_seconds(a),
        )
    return row


def sl_rows(k: int, runs: Computations) -> dict:
    a, b = runs("sl", k, None, "orders"), runs("sl", k, None, "dfa_core")
    ra, rb = a.records[0], b.records[0]
    return {
        "class": f"SL_{k}",
        "k": k,
        "t": None,
        "closure_dimension": ra["closure_dimension"],
        "check": rb["closure_dimension"],
        "agree": ra["closure_dimension"] == rb["closure_dimension"],
        "status": "exact",
        "method_a": ra["detail"],
        "method_b": rb["detail"],
        "seconds_a": _seconds(a),
        "seconds_b": _seconds(b),
        "witness": rb["witness"] + f" (order {ra['order']})",
    }


def sl_bound_row(k: int, runs: Computations) -> dict:
    res = runs("sl", k, None, "local_search")
    r = res.records[0]
    upper = r["upper_bound"]  # None beyond 16 nodes (the simple paths are not counted there)
    return {
        "class": f"SL_{k}",
        "k": k,
        "t": None,
        "closure_dimension": r["closure_dimension"],
        "check": None,
        "agree": None,
        "status": f"bounds [{r['closure_dimension']}, {upper}]" if upper else "lower bound",
        "method_a": r["detail"],
        "method_b": "upper: simple paths of the de Bruijn graph" if upper else None,
        "seconds_a": _seconds(res),
        "seconds_b": None,
        "witness": r["witness"],
    }


def sl_exact_row(k: int, runs: Computations) -> dict:
    """k <= 5: the dynamic programme and the branch and bound, and the witness on the DFA core."""
    a, b = runs("sl", k, None, "pareto"), runs("sl", k, None, "branch_and_bound")
    ra, rb = a.records[0], b.records[0]
    witness_ok = ra["witness_finite"] and ra["witness_words"] == ra["closure_dimension"]
    agree = ra["closure_dimension"] == rb["closure_dimension"] and witness_ok
    return {
        "class": f"SL_{k}",
        "k": k,
        "t": None,
        "closure_dimension": ra["closure_dimension"],
        "check": rb["closure_dimension"],
        "agree": agree,
        "status": "exact" if agree else "DISAGREE",
        "method_a": ra["detail"],
        "method_b": rb["detail"] + f"; witness on the DFA core: "
        f"{'finite' if ra['witness_finite'] else 'infinite'}, {ra['witness_words']} words",
        "seconds_a": _seconds(a),
        "seconds_b": _seconds(b),
        "witness": ra["witness"],
    }


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="results/langgen")
    ap.add_argument("--sl-max", type=int, default=4)
    ap.add_argument("--sl-exact", type=int, nargs="*", default=[5], help="k <= 5: exact by two methods")
    ap.add_argument("--sl-bounds", type=int, nargs="*", default=[], help="bounds only (any k >= 2)")
    ap.add_argument("--sl-restarts", type=int, default=20, help="local-search restarts per bounded SL_k")
    ap.add_argument(
        "--sl-steps", type=int, default=20_000, help="local-search move steps per restart (bounded SL_k)"
    )
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
    ap.add_argument("--seed", type=int, default=0, help="seed of the local search (--sl-bounds)")
    add_run_options(ap)
    args = ap.parse_args(argv)
    if args.sl_max > 4:
        ap.error(
            f"--sl-max: k must be <= 4 (every order of 2^(k-1) nodes; use --sl-exact 5), got {args.sl_max}"
        )
    if any(not 2 <= k <= 5 for k in args.sl_exact):
        ap.error(f"--sl-exact: k must be 2..5 (2^(2^(k-1)) node sets beyond), got {args.sl_exact}")
    if any(not 2 <= k <= 8 for k in args.sl_bounds):
        ap.error(f"--sl-bounds: k must be 2..8, got {args.sl_bounds}")
    if not 1 <= args.sl_restarts <= 10_000 or not 1 <= args.sl_steps <= 10_000_000:
        ap.error(
            f"--sl-restarts must be 1..10000 and --sl-steps 1..10000000, got {args.sl_restarts}, {args.sl_steps}"
        )
    if any(k > 8 or t > 4 for k, t in sum(args.ltt, []) + sum(args.ltt_words, [])):
        ap.error("--ltt / --ltt-words: k must be <= 8 and t <= 4")
    ltt_pairs_, ltt_word_pairs = (sum(args.ltt, []), sum(args.ltt_words, []))
    sl_ks = list(range(2, args.sl_max + 1))
    if not (sl_ks or args.sl_exact or args.sl_bounds or ltt_pairs_ or ltt_word_pairs):
        ap.error("nothing to compute: give --sl-max >= 2, --sl-exact, --sl-bounds, --ltt or --ltt-words")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    store = open_run_store(args.store)
    runs = Computations(store, args.executor)
    try:
        sl = {"language_class": "sl"}
        if sl_ks:
            runs.sweep({"k": sl_ks, "method": ["orders", "dfa_core"]}, sl)
        if args.sl_exact:
            runs.sweep({"k": args.sl_exact, "method": ["pareto", "branch_and_bound"]}, sl)
        if args.sl_bounds:
            bounds = {**sl, "method": "local_search", "restarts": args.sl_restarts, "steps": args.sl_steps}
            runs.sweep({"k": args.sl_bounds}, bounds, args.seed)
        ltt = {"language_class": "ltt"}
        for t in sorted({t for _, t in ltt_pairs_}):
            ks = [k for k, tt in ltt_pairs_ if tt == t]
            runs.sweep({"k": ks, "t": [t], "method": ["profile_automaton", "word_search"]}, ltt)
        for t in sorted({t for _, t in ltt_word_pairs}):
            ks = [k for k, tt in ltt_word_pairs if tt == t]
            runs.sweep({"k": ks, "t": [t]}, {**ltt, "method": "word_search"})
            if t == 1 and any(k >= 2 for k in ks):
                runs.sweep({"k": [k for k in ks if k >= 2], "t": [1]}, {**ltt, "method": "simple_paths"})
    finally:
        store.close()
    rows = [sl_rows(k, runs) for k in sl_ks]
    rows += [sl_exact_row(k, runs) for k in args.sl_exact]
    rows += [sl_bound_row(k, runs) for k in args.sl_bounds]
    rows += [ltt_rows(k, t, runs) for k, t in ltt_pairs_]
    rows += [ltt_word_search_row(k, t, runs) for k, t in ltt_word_pairs]
    table = pd.DataFrame(rows)
    table["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    table.to_csv(out / "exact_values.csv", index=False)
    with pd.option_context("display.max_colwidth", 60, "display.width", 200):
        print(table.drop(columns=["witness"]).to_string(index=False))
    print(
        f"{runs.computed + runs.cached} runs: {runs.computed} computed, {runs.cached} from the store",
        file=sys.stderr,
    )
    assert table.agree.dropna().all(), "two computations disagree"


if __name__ == "__main__":
    main()
