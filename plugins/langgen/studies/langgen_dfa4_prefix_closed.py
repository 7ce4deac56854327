"""Exhaustive search over all families of at most 3 prefix-closed (safety) DFA_n languages: the
largest finite intersection, exact for that subclass and a lower bound on C(DFA_n) (all three
members of the 108-word DFA_4 certificate are prefix-closed). ``--subclass prefix-or-suffix``
takes the prefix-closed and the suffix-closed languages together (mixed triples included). Writes
a checkpoint JSON that ``langgen_dfa4_certificate.py`` checks.

    OMP_NUM_THREADS=1 nice -n 10 python plugins/langgen/studies/langgen_dfa4_prefix_closed.py \\
        [--subclass prefix|prefix-or-suffix] --out results/langgen/dfa4_prefix_closed.json
"""

from __future__ import annotations

import argparse
import json
import resource
import time
from pathlib import Path

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument(
        "--subclass",
        choices=("prefix", "prefix-or-suffix"),
        default="prefix",
        help="members: prefix-closed languages, or prefix- and suffix-closed ones together",
    )
    ap.add_argument("--out", default="results/langgen/dfa4_prefix_closed.json")
    args = ap.parse_args()
    if args.n < 1:
        ap.error("--n must be >= 1")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    H = dfa_class(args.n)
    scorer = FamilyScorer(*stack_padded(H))
    closed = (
        is_prefix_closed
        if args.subclass == "prefix"
        else (lambda L: is_prefix_closed(L) or is_suffix_closed(L))
    )
    S = [i for i, L in enumerate(H) if closed(L)]
    t1 = time.perf_counter()
    res = exhaustive_triples(scorer, S)
    BT, BF = scorer.intersection(list(res["family"]))
    inter = DFA("ab", BT.tolist(), BF.tolist(), 0)
    words = sorted(inter.words(inter.n_states), key=lambda w: (len(w), w))
    assert len(words) == res["value"]
    doc = {
        "n": args.n,
        "languages": len(H),
        "subclass": args.subclass,
        "candidates": len(S),
        "lower_bound": res["value"],
        "method": f"exhaustive over all families of <= 3 {args.subclass}-closed languages",
        "finite_intersections": res["finite_intersections"],
        "witness_words": words,
        "witness_family": list(res["family"]),
        "members": [dfa_table(H[i]) for i in res["family"]],
        "seconds_search": round(time.perf_counter() - t1, 1),
        "seconds": round(time.perf_counter() - t0, 1),
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    out.write_text(json.dumps(doc, indent=1))
    print(json.dumps({k: v for k, v in doc.items() if k not in ("witness_words", "members")}, indent=1))


if __name__ == "__main__":
    main()
