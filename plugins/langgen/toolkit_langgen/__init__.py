"""langgen: sample complexity of language generation in the limit (Arenas, Barceló, Cofré,
Kozachinskiy, ICML 2026; Kleinberg-Mullainathan 2024; Li-Raman-Tewari 2025; Charikar-Pabbaraju).
Hook implementations only; see README.md."""

from toolkit import hookimpl

__version__ = "0.1.0"


@hookimpl
def toolkit_register_simulations():
    from toolkit_langgen.simulation import SIMULATIONS

    return SIMULATIONS


@hookimpl
def toolkit_register_bounds():
    from toolkit_langgen.bounds import BOUNDS

    return BOUNDS


@hookimpl
def toolkit_register_experiments():
    from toolkit_langgen.experiments import EXPERIMENTS

    return EXPERIMENTS
