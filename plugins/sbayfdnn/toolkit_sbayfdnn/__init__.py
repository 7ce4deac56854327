"""sbayfdnn: sparse Bayesian functional deep network with structured region selection.

Zhu, Li, Ma, Wu, ICML 2026 (arXiv:2602.20651). Hook implementations only; the maths lives in
``basis``, ``prior``, ``network``, ``estimator``, ``baselines`` and ``designs``.
"""

from toolkit import hookimpl

__version__ = "0.1.0"


@hookimpl
def toolkit_register_simulations():
    from toolkit_sbayfdnn.simulation import SIMULATIONS

    return SIMULATIONS


@hookimpl
def toolkit_register_bounds():
    from toolkit_sbayfdnn.bounds import BOUNDS

    return BOUNDS


@hookimpl
def toolkit_register_datasets():
    from toolkit_sbayfdnn.data import DATASETS

    return DATASETS


@hookimpl
def toolkit_register_experiments():
    from toolkit_sbayfdnn.experiments import EXPERIMENTS

    return EXPERIMENTS
