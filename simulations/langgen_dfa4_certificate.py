"""Independent check of a C(DFA_n) lower-bound certificate written by langgen_dfa4_bounds.py or
langgen_dfa4_pairs.py: shrink the family to a small subfamily with the same intersection (our
core), then re-check with automata-lib alone: every member has <= n states and is infinite, and
their intersection is finite with exactly the witness words. Writes the subfamily as DFA tables.

    OMP_NUM_THREADS=1 python simulations/langgen_dfa4_certificate.py results/langgen/dfa4_bounds.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from toolkit_langgen.dfa import enumerate_dfa_languages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("--out", default=None, help="default: <checkpoint>.certificate.json")
    args = ap.parse_args()
    doc = json.loads(Path(args.checkpoint).read_text())
    n = doc["n"]
    family = doc.get("witness_family") or doc["pair"]
    words = sorted(doc.get("witness_words") or [], key=lambda w: (len(w), w))
    langs, inf = enumerate_dfa_languages(n, method="numba")
    H = [L for L, i in zip(langs, inf) if i]
    members = [H[i] for i in family]
    # shrink: keep a member only if it removes words from the running intersection
    inter, kept = None, []
    for L in sorted(members, key=lambda L: L.n_states):
        nxt = L if inter is None else inter & L
        if inter is None or nxt != inter:
            inter, kept = nxt, kept + [L]
        if inter.is_finite() and sorted(inter.words(inter.n_states), key=lambda w: (len(w), w)) == words:
            break
    # drop redundant members (backwards)
    for L in list(reversed(kept)):
        rest = [M for M in kept if M is not L]
        if rest:
            x = rest[0]
            for M in rest[1:]:
                x = x & M
            if x.is_finite() and sorted(x.words(x.n_states), key=lambda w: (len(w), w)) == words:
                kept = rest
    # automata-lib alone from here
    autos = [L.to_automata() for L in kept]
    assert all(len(a.minify().states) <= n for a in autos), "a member needs more than n states"
    assert all(not a.isfinite() for a in autos), "a member is finite"
    x = autos[0]
    for a in autos[1:]:
        x = x & a
    assert x.isfinite(), "intersection infinite"
    got = sorted(x, key=lambda w: (len(w), w))
    assert got == words, "automata-lib's intersection differs from the witness"
    cert = {"n": n, "value": len(words), "words": words, "checked_by": "automata-lib (minify, isfinite, &, iteration)",
            "members": [{"start": 0, "accepting": [q for q in range(L.n_states) if L.accept[q]],
                         "transitions": {str(q): {"a": L.trans[q][0], "b": L.trans[q][1]} for q in range(L.n_states)}}
                        for L in kept]}
    out = Path(args.out or (args.checkpoint + ".certificate.json"))
    out.write_text(json.dumps(cert, indent=1))
    print(f"certificate of C(DFA_{n}) >= {len(words)}: {len(kept)} languages of <= {n} states, checked by "
          f"automata-lib; written to {out}")


if __name__ == "__main__":
    main()
