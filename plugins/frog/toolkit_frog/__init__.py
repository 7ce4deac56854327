"""frog: relational databases as graphs with learnable table roles (FROG, reconstructed).

Hook implementations only; the work lives in the submodules (imported inside the hooks).
"""

from __future__ import annotations

from toolkit import hookimpl

__version__ = "0.1.0"


@hookimpl
def toolkit_register_simulations():
    from toolkit_frog.simulation import SIMULATIONS

    return SIMULATIONS


@hookimpl
def toolkit_register_bounds():
    from toolkit_frog.bounds import BOUNDS

    return BOUNDS


@hookimpl
def toolkit_register_datasets():
    from toolkit_frog.data import DATASETS

    return DATASETS


@hookimpl
def toolkit_register_experiments():
    from toolkit_frog.experiments import EXPERIMENTS

    return EXPERIMENTS
