"""Verdict table of the langgen plugin's symbolic claims (and the Stirling limit checked with sympy).

    python proofs/langgen.py
"""

from __future__ import annotations

from toolkit.symbolic import prove, verdict_table

from plugins.langgen.bounds import BOUNDS, stirling_limits


def main() -> None:
    claims, owners = [], []
    for b in BOUNDS:
        for c in b.claims:
            claims.append(c)
            owners.append(b.name)
    print(verdict_table(prove(claims), owners).to_string(index=False))
    for name, (computed, expected) in stirling_limits().items():
        print(f"sympy.limit {name} = {computed} (expected {expected}): {'proved' if computed == expected else 'FAILED'}")


if __name__ == "__main__":
    main()
