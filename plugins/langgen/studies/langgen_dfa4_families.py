"""Lower bound on C(DFA_n) by iterated local search over k-member subfamilies of DFA_n
(``toolkit_langgen.family_search``): a move replaces one member by the best of all infinite
<= n-state languages, scored exactly by one compiled pass. Seeded, time-bounded, checkpoint JSON
rewritten at every improvement; its ``members`` (DFA tables) and ``witness_words`` are what
``langgen_dfa4_certificate.py`` checks.

    OMP_NUM_THREADS=1 nice -n 10 python plugins/langgen/studies/langgen_dfa4_families.py \\
        --start results/langgen/dfa4_bounds.json.certificate.json --k 4 5 --seeds 0 1 \\
        --time-limit 600 --out results/langgen/dfa4_families.json

``--start``: a certificate (its members, looked up in the enumeration) to climb from; for every
k larger than the start family, random members are added (seeded). Without it, random starts.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time
from pathlib import Path

from toolkit_langgen.certificate import dfa_table
from toolkit_langgen.dfa import DFA, enumerate_dfa_languages
from toolkit_langgen.family_search import FamilyScorer, iterated_local_search, stack_padded


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--k", type=int, nargs="+", default=[4, 5], help="family sizes to search")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--time-limit", type=float, default=300.0, help="seconds per (k, seed) run")
    ap.add_argument("--start", default=None, help="certificate JSON whose members start the climb")
    ap.add_argument("--out", default="results/langgen/dfa4_families.json")
    args = ap.parse_args()
    if args.n < 1 or any(k < 1 for k in args.k) or args.time_limit <= 0:
        ap.error("--n and --k must be >= 1 and --time-limit > 0")
    start_members = []
    if args.start:
        if not Path(args.start).is_file():
            ap.error(f"--start: no such file {args.start}")
        start_members = json.loads(Path(args.start).read_text()).get("members") or []
        if not start_members:
            ap.error(f"--start: {args.start} has no 'members' (DFA tables)")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    langs, inf = enumerate_dfa_languages(args.n, method="numba" if args.n >= 3 else "numpy")
    H = [L for L, i in zip(langs, inf) if i]
    index = {L.key(): i for i, L in enumerate(H)}
    start = [
        index[
            DFA.from_table({int(q): r for q, r in m["transitions"].items()}, m["start"], m["accepting"], "ab")
            .minimize()
            .key()
        ]
        for m in start_members
    ]
    scorer = FamilyScorer(*stack_padded(H))
    state = {
        "n": args.n,
        "languages": len(H),
        "method": "iterated local search over k-member families",
        "runs": [],
        "status": "running",
    }

    def save():
        state.update(
            seconds=round(time.perf_counter() - t0, 1),
            max_rss_mb=round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        )
        out.write_text(json.dumps(state, indent=1))

    def record(value, family, label):
        if value > state.get("lower_bound", -1):
            BT, BF = scorer.intersection(family)
            inter = DFA("ab", BT.tolist(), BF.tolist(), 0)
            words = sorted(inter.words(inter.n_states), key=lambda w: (len(w), w))
            assert len(words) == value, "scorer and word enumeration disagree"
            state.update(
                lower_bound=value,
                witness_words=words,
                witness_family=sorted(family),
                members=[dfa_table(H[i]) for i in sorted(family)],
                found_by=label,
            )
            save()
            print(
                f"{time.perf_counter() - t0:8.1f} s  {label}: |∩F| = {value} with {len(family)} members",
                flush=True,
            )

    for k in args.k:
        for seed in args.seeds:
            rng = random.Random(seed)
            s = None
            if start:
                s = (
                    list(start[:k])
                    + [j for j in rng.sample(range(len(H)), k + len(start)) if j not in start][
                        : max(0, k - len(start))
                    ]
                )
            label = f"k={k}, seed={seed}" + (", from --start" if s else "")
            res = iterated_local_search(
                scorer,
                k,
                seed,
                args.time_limit,
                start=s,
                progress=lambda v, f, secs, label=label: record(v, f, label),
            )
            record(res["value"], res["family"], label)
            state["runs"].append(
                {
                    "k": k,
                    "seed": seed,
                    "from_start": bool(s),
                    "value": res["value"],
                    "kicks": res["kicks"],
                    "scans": res["scans"],
                    "seconds": round(res["seconds"], 1),
                }
            )
            save()
    state["status"] = "done"
    save()
    print(json.dumps({k: v for k, v in state.items() if k not in ("witness_words", "members")}, indent=1))


if __name__ == "__main__":
    main()
