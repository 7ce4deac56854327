"""graphpfl: personalised federated graph learning under topology noise (GraphP-FL, reconstructed).

Hook implementations only; the work lives in the submodules (imported inside the hooks).
"""

from __future__ import annotations

from toolkit import hookimpl

__version__ = "0.1.0"


@hookimpl
def toolkit_addhooks(pluginmanager):
    from toolkit_graphpfl import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@hookimpl
def toolkit_graphpfl_register_strategies():
    from toolkit_graphpfl.strategies import BUILTIN_STRATEGIES

    return list(BUILTIN_STRATEGIES.values())


@hookimpl
def toolkit_register_simulations():
    from toolkit_graphpfl.simulation import SIMULATIONS

    return SIMULATIONS


@hookimpl
def toolkit_register_bounds():
    from toolkit_graphpfl.bounds import BOUNDS

    return BOUNDS


@hookimpl
def toolkit_register_datasets():
    from toolkit_graphpfl.datasets import DATASETS

    return DATASETS


@hookimpl
def toolkit_register_experiments():
    from toolkit_graphpfl.experiments import EXPERIMENTS

    return EXPERIMENTS
