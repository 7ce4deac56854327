"""Symbolic claims of the graph construction (sympy), checked by ``toolkit prove``."""

from __future__ import annotations

import sympy

from toolkit import Bound
from toolkit.symbolic import Identity, Inequality, Limit

n = sympy.Symbol("n", positive=True, integer=True)  # rows of a link table
k = sympy.Symbol("k", positive=True, integer=True)  # its foreign keys
m = sympy.Symbol("m", positive=True, integer=True)  # bridge steps on a path
h = sympy.Symbol("h", nonnegative=True)  # homophily of the planted signal

ROW2NODE_EDGES = 2 * n * k  # f2p + rev_f2p per key
ROW2EDGE_EDGES = n * k * (k - 1)  # clique expansion: ordered key pairs per row

EDGE_COUNT_CLAIMS = (
    Identity(
        "row2edge_minus_row2node_edges",
        lhs=ROW2EDGE_EDGES - ROW2NODE_EDGES,
        rhs=n * k * (k - 3),
        domain={k: (2, None)},
        description="n k(k-1) - 2nk = n k (k-3): equal edge counts at k = 3",
    ),
    Identity(
        "full_resolution_row_count",
        lhs=ROW2EDGE_EDGES / (k * (k - 1)),
        rhs=n,
        domain={k: (2, None)},
        description="with all keys present each row is k(k-1) edges: the rows are recovered exactly",
    ),
    Inequality(
        "row2edge_denser_from_k3",
        lhs=ROW2EDGE_EDGES,
        rhs=ROW2NODE_EDGES,
        relation=">=",
        domain={k: (3, None)},
        description="hyperedges (k >= 3) need at least as many edges as Row2Node",
    ),
    Inequality(
        "row2edge_half_edges_k2",
        lhs=ROW2EDGE_EDGES.subs(k, 2),
        rhs=ROW2NODE_EDGES.subs(k, 2) / 2,
        relation="<=",
        description="a 2-key bridge as edges: 2n edges instead of 4n",
    ),
    # A deliberately false claim, kept so that the verdict table shows the prover refuting something:
    # its verdict is "refuted" by design (proofs/frog.py and the contract test fail if it is ever proved).
    # The name says so, because the reproduce report's verdict table shows names, not descriptions.
    Inequality(
        "expected_refuted_row2edge_never_denser",
        lhs=ROW2EDGE_EDGES,
        rhs=ROW2NODE_EDGES,
        relation="<=",
        domain={k: (2, 12)},
        expect="refuted",
        description="deliberately false, expected verdict 'refuted': 'Row2Edge never has more edges than "
        "Row2Node' fails for every k >= 4, where n k(k-1) > 2nk (true only for k <= 3)",
    ),
)

HOP_CLAIMS = (
    Identity(
        "hops_saved_per_bridge",
        lhs=2 * m - m,
        rhs=m,
        description="a path through m bridge rows: 2m Row2Node hops, m Row2Edge hops",
    ),
    Limit(
        "hop_ratio",
        expr=m / (2 * m),
        var=m,
        point=sympy.oo,
        value=sympy.Rational(1, 2),
        description="Row2Edge needs half the layers of Row2Node along bridge paths",
    ),
    Identity(
        "co_review_agreement",
        lhs=h**2 + (1 - h) ** 2 - sympy.Rational(1, 2),
        rhs=2 * (h - sympy.Rational(1, 2)) ** 2,
        domain={h: (0, 1)},
        description="P(two co-reviewers share a group) - 1/2 = 2(h - 1/2)^2 (planted homophily h)",
    ),
    Inequality(
        "co_review_informative",
        lhs=h**2 + (1 - h) ** 2,
        rhs=sympy.Rational(1, 2),
        relation=">=",
        domain={h: (0, 1)},
        description="co-reviewers agree at least at chance level",
    ),
)

BOUNDS = [
    Bound(
        name="frog.row2edge_edge_count",
        description="Row2Edge edges of a k-key link table <= n k (k-1), equality at full resolution",
        claims=EDGE_COUNT_CLAIMS,
        expression=n * k * (k - 1),
        metric="n_row2edge_edges",
        sense="upper",
        columns={"n": "n_rows", "k": "n_keys"},
    ),
    Bound(
        name="frog.hop_reduction",
        description="bridge tables as edges halve the hops (and layers) needed along bridge paths",
        claims=HOP_CLAIMS,
    ),
]
