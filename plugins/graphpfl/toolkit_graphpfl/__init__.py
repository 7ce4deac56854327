"""graphpfl: personalised federated graph learning under topology noise (GraphP-FL, reconstructed).

Hook implementations only: each list of specs is imported the first time one of its names is used.
"""

from __future__ import annotations

from toolkit import defer, hookimpl


@hookimpl
def toolkit_addhooks(pluginmanager):
    from toolkit_graphpfl import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@hookimpl
def toolkit_graphpfl_register_strategies():
    from toolkit_graphpfl.strategies import BUILTIN_STRATEGIES

    return list(BUILTIN_STRATEGIES.values())


toolkit_register_simulations = defer(
    "toolkit_graphpfl.simulation:SIMULATIONS",
    {
        "graphpfl.noise_robustness": "federated graph classification under topology noise (dataset x noise p x algorithm x seed x partition)",
        "graphpfl.kept_edges": "topology noise keeps exactly round((1-p)|E|) edges of each graph",
    },
)

toolkit_register_bounds = defer(
    "toolkit_graphpfl.bounds:BOUNDS",
    {
        "graphpfl.frpa": "FRPA (reconstructed) identities: FedProx and FedAvg as special cases",
        "graphpfl.fisher_logistic": "empirical Fisher of logistic regression in closed form",
        "graphpfl.communication": "bytes uploaded per round <= 4 bytes x clients x (shared parameters + their Fisher)",
        "graphpfl.kept_edges_exact_upper": "topology noise keeps at most round((1-p)|E|) edges",
        "graphpfl.kept_edges_exact_lower": "topology noise keeps at least round((1-p)|E|) edges",
    },
)


@hookimpl
def toolkit_register_datasets():
    # every TU dataset of the catalogue or under the data root: a directory listing, nothing imported
    from toolkit.specs import Deferred
    from toolkit_graphpfl.tu import PLANTED_DESCRIPTION, tu_catalogue

    return [
        Deferred(
            "toolkit_graphpfl.datasets:DATASETS", {"graphpfl.planted": PLANTED_DESCRIPTION, **tu_catalogue()}
        )
    ]


toolkit_register_experiments = defer(
    "toolkit_graphpfl.experiments:EXPERIMENTS",
    {
        "graphpfl.mutag_noise": "MUTAG, 5 clients: GraphP-FL vs FedAvg under topology noise (paired)",
        "graphpfl.proteins_no_harm": "PROTEINS, 10 clients: GraphP-FL and ablations do no harm",
        "graphpfl.round_cost": "per-round cost and bytes of FedAvg, GraphP-FL, FedProx, FedCurv (MUTAG); GraphP-FL/FedAvg on PROTEINS",
    },
)
