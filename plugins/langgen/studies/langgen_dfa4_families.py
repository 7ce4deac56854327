"""Lower bound on C(DFA_n) by iterated local search over k-member subfamilies of DFA_n
(``toolkit_langgen.family_search``): a move replaces one member by the best of all infinite
<= n-state languages, scored exactly by one compiled pass; --kicks random one-member kicks per
(k, seed) run. Its ``members`` (DFA tables) and ``witness_words`` are what
``langgen_dfa4_certificate.py`` checks.

    OMP_NUM_THREADS=1 nice -n 10 python plugins/langgen/studies/langgen_dfa4_families.py \\
        --start results/langgen/dfa4_bounds.json.certificate.json --k 4 5 --seeds 0 1 \\
        --kicks 200 --out results/langgen/dfa4_families.json [--store PATH] [--executor processes]

``--start``: a certificate (its members, looked up in the enumeration) to climb from; for every
k larger than the start family, random members are added (seeded). Without it, random starts.
Each (k, seed) is one ``langgen.family_search`` run kept in the run store (--store, default
TOOLKIT_STORE): a rerun reads the finished runs back. The budget is a number of kicks, not seconds,
so the bound does not depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
from pathlib import Path

from toolkit.argtypes import add_run_options, open_run_store


def start_family(members: list[dict], n: int) -> list[int]:
    """The indices (infinite DFA_n languages, enumeration order) of a certificate's member tables."""
    from toolkit_langgen.dfa import DFA
    from toolkit_langgen.dfa_search import infinite_dfa_languages

    index = {L.key(): i for i, L in enumerate(infinite_dfa_languages(n))}
    return [
        index[
            DFA.from_table({int(q): r for q, r in m["transitions"].items()}, m["start"], m["accepting"], "ab")
            .minimize()
            .key()
        ]
        for m in members
    ]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--k", type=int, nargs="+", default=[4, 5], help="family sizes to search")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--kicks", type=int, default=200, help="random kicks per (k, seed) run")
    ap.add_argument("--start", default=None, help="certificate JSON whose members start the climb")
    ap.add_argument("--out", default="results/langgen/dfa4_families.json")
    add_run_options(ap)
    args = ap.parse_args(argv)
    if not 1 <= args.n <= 4 or any(not 1 <= k <= 64 for k in args.k) or args.kicks < 0:
        ap.error("--n must be 1..4, --k 1..64 and --kicks >= 0")
    if any(s < 0 for s in args.seeds):
        ap.error(f"--seeds must be >= 0, got {args.seeds}")
    start_members = []
    if args.start:
        if not Path(args.start).is_file():
            ap.error(f"--start: no such file {args.start}")
        start_members = json.loads(Path(args.start).read_text()).get("members") or []
        if not start_members:
            ap.error(f"--start: {args.start} has no 'members' (DFA tables)")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    import toolkit

    start = start_family(start_members, args.n) if start_members else None
    store = open_run_store(args.store)
    try:
        sweep = toolkit.sweep(
            "langgen.family_search",
            {"k": sorted(set(args.k))},
            sorted(set(args.seeds)),
            params={"n": args.n, "start_family": start, "kicks": args.kicks},
            store=store,
            executor=args.executor,
        )
    finally:
        store.close()
    done = {(r.params["k"], r.seed): r for r in sweep.runs}
    state: dict = {
        "n": args.n,
        "languages": None,
        "method": "iterated local search over k-member families",
        "kicks": args.kicks,
        "runs": [],
    }
    for k in args.k:
        for seed in args.seeds:
            res = done[(k, seed)]
            row = res.records[0]
            label = f"k={k}, seed={seed}" + (", from --start" if row["from_start"] else "")
            state["languages"] = row["languages"]
            if row["value"] > state.get("lower_bound", -1):
                state.update(
                    lower_bound=row["value"],
                    witness_words=row["witness_words"],
                    witness_family=row["witness_family"],
                    members=row["members"],
                    found_by=label,
                )
            state["runs"].append(
                {
                    "k": k,
                    "seed": seed,
                    "from_start": row["from_start"],
                    "value": row["value"],
                    "kicks": args.kicks,
                    "scans": row["scans"],
                    "seconds": round(res.provenance["wall_time"], 1),
                }
            )
            print(f"{label}: |∩F| = {row['value']} with {k} members", flush=True)
    state["status"] = "done"
    state["seconds"] = round(sum(r["seconds"] for r in state["runs"]), 1)
    state["max_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    out.write_text(json.dumps(state, indent=1))
    print(json.dumps({k: v for k, v in state.items() if k not in ("witness_words", "members")}, indent=1))
    print(
        f"{len(sweep.runs)} runs: {sweep.n_computed} computed, {sweep.n_cached} from the store",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
