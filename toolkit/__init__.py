"""theory-toolkit core: a pluggy host for seeded, cached, sweepable simulations and sympy-checked bounds.

Public API (imported lazily, so ``import toolkit`` stays light): the names in ``__all__``, and those in
the ``__all__`` of each module of :data:`PUBLIC_MODULES`::

    import toolkit
    result = toolkit.run("gd_perceptron.scaling", {"d": 64}, seed=0)
    sweep = toolkit.sweep("gd_perceptron.scaling", grid={"d": [16, 32]}, seeds="0:5")
"""

from __future__ import annotations

import importlib
from typing import Any

import pluggy

__version__ = "0.5.0"

hookimpl = pluggy.HookimplMarker("toolkit")
"""Marker for hook implementations in plugins: ``@toolkit.hookimpl``."""

_LAZY = {
    "run": "toolkit.runner",
    "sweep": "toolkit.runner",
    "load": "toolkit.runner",
    "RunResult": "toolkit.runner",
    "SweepResult": "toolkit.runner",
    "SweepInterrupted": "toolkit.runner",
    "get_plugin_manager": "toolkit.manager",
    "get_registry": "toolkit.registry",
    "Registry": "toolkit.registry",
    "Simulation": "toolkit.specs",
    "SimulationOutput": "toolkit.specs",
    "PointCost": "toolkit.specs",
    "SweepFailed": "toolkit.runner",
    "Bound": "toolkit.specs",
    "Dataset": "toolkit.specs",
    "DataSource": "toolkit.specs",
    "Deferred": "toolkit.specs",
    "defer": "toolkit.specs",
    "require": "toolkit.dependencies",
    "DatasetMissingError": "toolkit.errors",
    "MissingDependencyError": "toolkit.errors",
    "ParameterError": "toolkit.errors",
    "Experiment": "toolkit.specs",
    "ExperimentOutcome": "toolkit.specs",
    "Comparison": "toolkit.specs",
    "Params": "toolkit.config",
    "Field": "toolkit.config",
    "ContentPath": "toolkit.config",
    "RunStore": "toolkit.store",
    "Settings": "toolkit.settings",
    "get_settings": "toolkit.settings",
    "prove": "toolkit.symbolic",
    "check_table": "toolkit.checks",
}

PUBLIC_MODULES: tuple[str, ...] = (
    "toolkit.argtypes",
    "toolkit.backend",
    "toolkit.censoring",
    "toolkit.config",
    "toolkit.dependencies",
    "toolkit.errors",
    "toolkit.executors",
    "toolkit.hookspecs",
    "toolkit.proving",
    "toolkit.settings",
    "toolkit.specs",
    "toolkit.symbolic",
    "toolkit.testing",
)
"""The submodules that are public API besides ``toolkit.__all__``: the names in each one's ``__all__``.

Everything else of the core (``toolkit.registry``, ``runner``, ``store``, ``cli``... and any name
outside an ``__all__``) may change without notice; first-party plugins use only the public surface,
and a test checks that they do.
"""

__all__ = ["__version__", "PUBLIC_MODULES", "hookimpl", *_LAZY]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'toolkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
