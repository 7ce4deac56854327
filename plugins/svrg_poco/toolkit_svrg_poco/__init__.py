"""svrg_poco: SVRG as posterior correction (Daheim, Möllenhoff, Ang, Khan; ICML 2026, arXiv 2512.01930).
Hook implementations only; see README.md."""

from toolkit import hookimpl

__version__ = "0.1.0"


@hookimpl
def toolkit_register_simulations():
    from toolkit_svrg_poco.simulation import SIMULATIONS

    return SIMULATIONS


@hookimpl
def toolkit_register_bounds():
    from toolkit_svrg_poco.bounds import BOUNDS

    return BOUNDS


@hookimpl
def toolkit_register_experiments():
    from toolkit_svrg_poco.experiments import EXPERIMENTS

    return EXPERIMENTS
