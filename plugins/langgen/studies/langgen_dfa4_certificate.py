# Outside the run store on purpose: an independent checker re-verifies a written certificate each run.
"""Independent check of a C(DFA_n) lower-bound certificate written by langgen_dfa4_bounds.py,
langgen_dfa4_pairs.py or langgen_dfa4_families.py.

1. (our core) the prefix argument of ``toolkit_langgen.certificate``: every member accepts the
   witness words, every prefix of a witness word outside the set is rejected by a member, and after
   every boundary word some member (or a group of <= 3) reaches a dead state; the members named
   there form the *support*, whose intersection is therefore exactly the witness.
2. (automata-lib alone) the support's members are complete DFAs with <= n states and infinite
   languages, and automata-lib's own product (``&``), ``isfinite`` and iteration give exactly the
   witness words.

(The previous version intersected the whole family in order of state count and ran out of time:
the running intersection of the 65-member family reaches 77,380 states after 21 members, before it
becomes finite; the support of the prefix argument has 4 members.)

    OMP_NUM_THREADS=1 python plugins/langgen/studies/langgen_dfa4_certificate.py results/langgen/dfa4_bounds.json

Writes ``<checkpoint>.certificate.json`` (support as DFA tables, the words, the two checks, time
and peak memory) and exits 1 if a check fails.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time
from pathlib import Path

from toolkit_langgen.certificate import check_with_automata, dfa_table, prefix_certificate, shortlex
from toolkit_langgen.dfa import DFA, enumerate_dfa_languages


def family_from_checkpoint(doc: dict) -> list[DFA]:
    if "members" in doc:  # tables (written by langgen_dfa4_families.py)
        return [
            DFA.from_table(
                {int(q): row for q, row in m["transitions"].items()},
                m["start"],
                m["accepting"],
                doc.get("alphabet", "ab"),
            )
            for m in doc["members"]
        ]
    family = doc.get("witness_family") or doc["pair"]
    langs, inf = enumerate_dfa_languages(doc["n"], method="numba")
    H = [L for L, i in zip(langs, inf) if i]
    return [H[i] for i in family]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("--out", default=None, help="default: <checkpoint>.certificate.json")
    args = ap.parse_args()
    path = Path(args.checkpoint)
    if not path.is_file():
        ap.error(f"checkpoint: no such file {path}")
    doc = json.loads(path.read_text())
    if "n" not in doc or not (doc.get("witness_words") or doc.get("words")):
        ap.error(f"checkpoint: {path} has no 'n' and witness words (not a bounds checkpoint)")
    n = doc["n"]
    words = shortlex(doc.get("witness_words") or doc.get("words"))
    t0 = time.perf_counter()
    members = family_from_checkpoint(doc)
    t_load = time.perf_counter() - t0
    t0 = time.perf_counter()
    cert = prefix_certificate(members, words)
    t_prefix = time.perf_counter() - t0
    support = [members[i] for i in cert["support"]]
    tables = [dfa_table(L) for L in support]
    t0 = time.perf_counter()
    try:
        check = check_with_automata(tables, words, n)
    except AssertionError as exc:
        print(f"automata-lib check FAILED: {exc}", file=sys.stderr)
        sys.exit(1)
    t_automata = time.perf_counter() - t0
    out = Path(args.out or (str(path) + ".certificate.json"))
    result = {
        "n": n,
        "value": len(words),
        "words": words,
        "family_size": len(members),
        "support_size": len(support),
        "members": tables,
        "check_1": {
            "by": "toolkit_langgen core: prefix argument (toolkit_langgen.certificate.prefix_certificate)",
            "prefixes": cert["prefixes"],
            "boundary_words": cert["boundary_words"],
            "rejected_by": cert["rejected_by"],
            "killed_by": {p: [cert["support"].index(i) for i in g] for p, g in cert["killed_by"].items()},
            "seconds": round(t_prefix, 2),
        },
        "check_2": {
            "by": "automata-lib alone (minify, isfinite, &, iteration)",
            **check,
            "seconds": round(t_automata, 2),
        },
        "seconds_loading_family": round(t_load, 1),
        "max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
    out.write_text(json.dumps(result, indent=1))
    print(
        f"certificate of C(DFA_{n}) >= {len(words)}: {len(support)} of the {len(members)} languages suffice "
        f"(prefix argument on our core, {t_prefix:.2f} s); automata-lib alone: all <= {n} states, infinite, "
        f"intersection = the {check['intersection_size']} words ({t_automata:.2f} s); written to {out}"
    )


if __name__ == "__main__":
    main()
