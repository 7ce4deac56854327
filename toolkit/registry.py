"""Collects what plugins register into name -> spec maps.

Each hook implementation is called on its own so that every spec is stamped with its provider; a
name registered by two plugins raises :class:`~toolkit.errors.DuplicateNameError` naming both.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from toolkit.errors import DuplicateNameError, UnknownNameError
from toolkit.manager import ToolkitPluginManager, get_plugin_manager
from toolkit.specs import Bound, Dataset, Experiment, Simulation

SpecT = TypeVar("SpecT", Simulation, Bound, Dataset, Experiment)

KINDS: dict[str, tuple[str, type]] = {
    "simulation": ("toolkit_register_simulations", Simulation),
    "bound": ("toolkit_register_bounds", Bound),
    "dataset": ("toolkit_register_datasets", Dataset),
    "experiment": ("toolkit_register_experiments", Experiment),
}


def _collect(pm: ToolkitPluginManager, kind: str) -> dict[str, Any]:
    hook_name, spec_type = KINDS[kind]
    caller = getattr(pm.hook, hook_name)
    out: dict[str, Any] = {}
    # pluggy calls the last-registered first; reverse so that the registration order is kept
    for impl in reversed(caller.get_hookimpls()):
        provider = impl.plugin_name
        items = impl.function() or ()
        if isinstance(items, spec_type):
            items = [items]
        for spec in items:
            if not isinstance(spec, spec_type):
                raise TypeError(
                    f"plugin {provider!r}: {hook_name} must return {spec_type.__name__} objects, got {type(spec).__name__}"
                )
            spec = dataclasses.replace(spec, plugin=provider)
            if spec.name in out:
                raise DuplicateNameError(
                    f"{kind} name {spec.name!r} is registered by two plugins: {out[spec.name].plugin!r} and "
                    f"{provider!r}. Rename one, or disable one with `-p no:NAME` / TOOLKIT_DISABLE_PLUGINS."
                )
            out[spec.name] = spec
    return out


@dataclass
class Registry:
    """Everything the loaded plugins registered, by kind and name."""

    manager: ToolkitPluginManager
    simulations: dict[str, Simulation] = field(default_factory=dict)
    bounds: dict[str, Bound] = field(default_factory=dict)
    datasets: dict[str, Dataset] = field(default_factory=dict)
    experiments: dict[str, Experiment] = field(default_factory=dict)

    @classmethod
    def from_manager(cls, pm: ToolkitPluginManager | None = None) -> Registry:
        pm = pm or get_plugin_manager()
        return cls(
            manager=pm,
            simulations=_collect(pm, "simulation"),
            bounds=_collect(pm, "bound"),
            datasets=_collect(pm, "dataset"),
            experiments=_collect(pm, "experiment"),
        )

    def _get(self, table: dict[str, SpecT], kind: str, name: str) -> SpecT:
        try:
            return table[name]
        except KeyError:
            raise UnknownNameError(kind, name, table) from None

    def simulation(self, name: str) -> Simulation:
        return self._get(self.simulations, "simulation", name)

    def bound(self, name: str) -> Bound:
        return self._get(self.bounds, "bound", name)

    def dataset(self, name: str) -> Dataset:
        return self._get(self.datasets, "dataset", name)

    def experiment(self, name: str) -> Experiment:
        return self._get(self.experiments, "experiment", name)

    def find(self, name: str) -> tuple[str, Any]:
        """Look ``name`` up among all kinds; the error lists close matches across all of them."""
        for kind, table in (("simulation", self.simulations), ("bound", self.bounds),
                            ("dataset", self.datasets), ("experiment", self.experiments)):
            if name in table:
                return kind, table[name]
        every = [*self.simulations, *self.bounds, *self.datasets, *self.experiments]
        raise UnknownNameError("name", name, every)

    def by_plugin(self, plugin: str) -> dict[str, list[Any]]:
        return {
            kind: [s for s in table.values() if s.plugin == plugin]
            for kind, table in (("simulations", self.simulations), ("bounds", self.bounds),
                                ("datasets", self.datasets), ("experiments", self.experiments))
        }

    def plugins(self) -> Iterable[str]:
        return self.manager.plugin_infos.keys()


def get_registry(**manager_kwargs: Any) -> Registry:
    """A registry over a fresh plugin manager (keyword arguments go to ``get_plugin_manager``)."""
    return Registry.from_manager(get_plugin_manager(**manager_kwargs))
