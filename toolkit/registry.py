"""Collects what plugins register into name -> spec maps.

Each hook implementation is called on its own so that every spec is stamped with its provider; a
name registered by two plugins raises :class:`~toolkit.errors.DuplicateNameError` naming both.
Names are namespaced by the plugin (``<plugin>.<what>``): a plugin registering a name outside its
namespace is reported (naming the plugin and the name) and skipped like a broken one. A
plugin whose register hook raises is reported (:class:`~toolkit.errors.PluginLoadWarning`) and
skipped as a whole, like a plugin that fails to import. One plugin may use a name for different
kinds (a dataset and the simulation on it): ``find_all`` returns every kind that has the name.
"""

from __future__ import annotations

import dataclasses
import traceback
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from toolkit.errors import DuplicateNameError, PluginLoadWarning, UnknownNameError
from toolkit.manager import PluginInfo, ToolkitPluginManager, get_plugin_manager
from toolkit.specs import Bound, Dataset, Experiment, Simulation

SpecT = TypeVar("SpecT", Simulation, Bound, Dataset, Experiment)

KINDS: dict[str, tuple[str, type]] = {
    "simulation": ("toolkit_register_simulations", Simulation),
    "bound": ("toolkit_register_bounds", Bound),
    "dataset": ("toolkit_register_datasets", Dataset),
    "experiment": ("toolkit_register_experiments", Experiment),
}


def namespace_problem(plugin: str, kind: str, name: Any) -> str:
    """Why ``name`` may not be registered by ``plugin`` ('' when it may): names are ``<plugin>.<what>``."""
    prefix = f"{plugin}."
    if isinstance(name, str) and name.startswith(prefix) and len(name) > len(prefix):
        return ""
    tail = str(name).rsplit(".", 1)[-1] or "name"
    return (f"plugin {plugin!r} registers the {kind} {name!r} outside its namespace: every name a plugin registers "
            f"must start with {prefix!r} (e.g. {prefix + tail!r}), so that plugins cannot clash")


def _collect(pm: ToolkitPluginManager, kind: str, broken: dict[str, str]) -> dict[str, Any]:
    """Name -> spec of one kind; a provider whose hook raises goes into ``broken`` (name -> error)."""
    hook_name, spec_type = KINDS[kind]
    caller = getattr(pm.hook, hook_name)
    out: dict[str, Any] = {}
    # pluggy calls the last-registered first; reverse so that the registration order is kept
    for impl in reversed(caller.get_hookimpls()):
        provider = impl.plugin_name
        if provider in broken:
            continue
        try:
            items = impl.function() or ()
        except Exception as exc:  # a broken plugin must not take the others down
            broken[provider] = f"{hook_name} raised " + "".join(traceback.format_exception_only(type(exc), exc)).strip()
            continue
        if isinstance(items, spec_type):
            items = [items]
        for spec in items:
            if not isinstance(spec, spec_type):
                raise TypeError(
                    f"plugin {provider!r}: {hook_name} must return {spec_type.__name__} objects, got {type(spec).__name__}"
                )
            problem = namespace_problem(provider, kind, spec.name)
            if problem:
                broken[provider] = problem
                break
            spec = dataclasses.replace(spec, plugin=provider)
            if spec.name in out and out[spec.name].plugin == provider:
                raise DuplicateNameError(f"{kind} name {spec.name!r} is registered twice by plugin {provider!r}")
            if spec.name in out:
                raise DuplicateNameError(
                    f"{kind} name {spec.name!r} is registered by two plugins: {out[spec.name].plugin!r} and "
                    f"{provider!r}. Rename one, or disable one with `-p no:NAME` / TOOLKIT_DISABLE_PLUGINS."
                )
            out[spec.name] = spec
    return out


def _drop_broken(pm: ToolkitPluginManager, tables: dict[str, dict[str, Any]], broken: dict[str, str]) -> None:
    """Remove everything the broken plugins registered, mark them failed and warn once each."""
    for provider, error in broken.items():
        for table in tables.values():
            for name in [n for n, spec in table.items() if spec.plugin == provider]:
                del table[name]
        info = pm.plugin_infos.get(provider)
        pm.plugin_infos[provider] = PluginInfo(provider, info.distribution if info else "?", info.version if info else "?",
                                               info.module if info else provider, "failed", error)
        warnings.warn(f"plugin {provider!r} was skipped: {error}", PluginLoadWarning, stacklevel=3)


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
        broken: dict[str, str] = {}
        tables = {kind: _collect(pm, kind, broken) for kind in KINDS}
        _drop_broken(pm, tables, broken)
        return cls(manager=pm, simulations=tables["simulation"], bounds=tables["bound"],
                   datasets=tables["dataset"], experiments=tables["experiment"])

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

    def _tables(self) -> tuple[tuple[str, dict[str, Any]], ...]:
        return (("simulation", self.simulations), ("bound", self.bounds),
                ("dataset", self.datasets), ("experiment", self.experiments))

    def find_all(self, name: str) -> list[tuple[str, Any]]:
        """Every ``(kind, spec)`` registered under ``name``; the error lists close matches of all kinds."""
        found = [(kind, table[name]) for kind, table in self._tables() if name in table]
        if not found:
            every = [n for _, table in self._tables() for n in table]
            raise UnknownNameError("name", name, every)
        return found

    def find(self, name: str, kind: str | None = None) -> tuple[str, Any]:
        """The one ``(kind, spec)`` named ``name``; pass ``kind`` when several kinds share the name."""
        found = self.find_all(name)
        if kind is not None:
            if kind not in KINDS:
                raise UnknownNameError("kind", kind, list(KINDS))
            found = [(k, spec) for k, spec in found if k == kind]
            if not found:
                table = dict(self._tables())[kind]
                raise UnknownNameError(kind, name, table)
        if len(found) > 1:
            from toolkit.errors import ParameterError

            raise ParameterError(f"{name!r} names a {' and a '.join(k for k, _ in found)}; choose one with kind="
                                 f"{' or '.join(repr(k) for k, _ in found)}")
        return found[0]

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
