"""Collects what plugins register into name -> spec maps, building deferred specs on first use.

Each hook implementation is called on its own so that every spec is stamped with its provider; a
name registered by two plugins raises :class:`~toolkit.errors.DuplicateNameError` naming both.
Names are namespaced by the plugin (``<plugin>.<what>``): a plugin registering a name outside its
namespace is reported (naming the plugin and the name) and skipped like a broken one. A
plugin whose register hook raises is reported (:class:`~toolkit.errors.PluginLoadWarning`) and
skipped as a whole, like a plugin that fails to import. One plugin may use a name for different
kinds (a dataset and the simulation on it): ``find_all`` returns every kind that has the name.

A hook may return :class:`~toolkit.specs.Deferred` groups instead of specs: their names and
descriptions are known at once (``toolkit list`` needs nothing else), and the group's module is
imported the first time one of its specs is looked up. Each :class:`SpecTable` is a read-only
mapping whose lookups (``table[name]``, ``values()``, ``items()``) always give built specs.
"""

from __future__ import annotations

import dataclasses
import importlib
import traceback
import uuid
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Generic, TypeVar

from toolkit.errors import DuplicateNameError, PluginBuildError, PluginLoadWarning, UnknownNameError
from toolkit.manager import PluginInfo, ToolkitPluginManager, get_plugin_manager
from toolkit.specs import Bound, Dataset, Deferred, Experiment, Simulation

SpecT = TypeVar("SpecT", Simulation, Bound, Dataset, Experiment)

KINDS: dict[str, tuple[str, type[Simulation | Bound | Dataset | Experiment]]] = {
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
    return (
        f"plugin {plugin!r} registers the {kind} {name!r} outside its namespace: every name a plugin registers "
        f"must start with {prefix!r} (e.g. {prefix + tail!r}), so that plugins cannot clash"
    )


@dataclass(frozen=True)
class SpecSummary:
    """What ``toolkit list`` shows of a spec, known without building it."""

    kind: str
    name: str
    description: str
    plugin: str
    built: bool


@dataclass
class _Group:
    """One plugin's deferred group of one kind, until it is built."""

    plugin: str
    deferred: Deferred
    distribution: str = ""
    built: bool = False
    held: dict[str, str] = field(default_factory=dict)  # name -> description of what it built


class SpecTable(Mapping[str, SpecT], Generic[SpecT]):
    """Name -> spec of one kind; deferred specs are built (their module imported) on first lookup.

    ``len``, ``in`` and iterating over names cost nothing; :meth:`summaries` gives names,
    descriptions and providers without building anything.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._specs: dict[str, Any] = {}  # name -> spec, or the _Group that will build it
        self._descriptions: dict[str, str] = {}
        self._groups: list[_Group] = []

    # -- filling (the registry) --------------------------------------------------------------------

    def _check_free(self, name: str, provider: str) -> None:
        if name in self._specs and self.provider(name) == provider:
            raise DuplicateNameError(f"{self.kind} name {name!r} is registered twice by plugin {provider!r}")
        if name in self._specs:
            raise DuplicateNameError(
                f"{self.kind} name {name!r} is registered by two plugins: {self.provider(name)!r} and "
                f"{provider!r}. Rename one, or disable one with `-p no:NAME` / TOOLKIT_DISABLE_PLUGINS."
            )

    def _add_spec(self, spec: Any) -> None:
        self._check_free(spec.name, spec.plugin)
        self._specs[spec.name] = spec
        self._descriptions[spec.name] = spec.description

    def _add_group(self, group: _Group) -> None:
        for name, description in group.deferred.names.items():
            self._check_free(name, group.plugin)
            self._specs[name] = group
            self._descriptions[name] = description
        self._groups.append(group)

    def _drop_plugin(self, plugin: str) -> None:
        for name in [n for n in self._specs if self.provider(n) == plugin]:
            del self._specs[name], self._descriptions[name]
        self._groups = [g for g in self._groups if g.plugin != plugin]

    # -- building --------------------------------------------------------------------------------

    def _build(self, group: _Group) -> None:
        if group.built:
            return
        hook_name, spec_type = KINDS[self.kind]
        try:
            specs = group.deferred.build()
        except Exception as exc:
            raise PluginBuildError(group.plugin, group.distribution, group.deferred.target, exc) from exc
        group.built = True
        for name in [n for n, v in self._specs.items() if v is group]:
            del self._specs[name]  # names the group lists but does not hold are unknown from now on
        for spec in specs:
            if not isinstance(spec, spec_type):
                raise TypeError(
                    f"plugin {group.plugin!r}: {group.deferred.target} must hold {spec_type.__name__} "
                    f"objects, got {type(spec).__name__}"
                )
            self._add_spec(dataclasses.replace(spec, plugin=group.plugin))
            group.held[spec.name] = spec.description

    def _build_pending(self, plugin: str | None = None) -> None:
        for group in list(self._groups):
            if not group.built and (plugin is None or group.plugin == plugin):
                self._build(group)

    def _find_unlisted(self, name: str) -> bool:
        """A name its plugin's list may hold though its Deferred names forgot it: build that plugin's groups."""
        plugin = name.split(".", 1)[0]
        if not any(g.plugin == plugin and not g.built for g in self._groups):
            return False
        self._build_pending(plugin)
        return name in self._specs

    def __getitem__(self, name: str) -> SpecT:
        entry = self._specs.get(name)
        if entry is None:
            if self._find_unlisted(name):
                return self[name]
            raise KeyError(name)
        if isinstance(entry, _Group):
            self._build(entry)
            if name not in self._specs:
                raise PluginBuildError(
                    entry.plugin,
                    entry.distribution,
                    entry.deferred.target,
                    LookupError(f"it lists {self.kind} {name!r} but does not hold it"),
                )
            return self._specs[name]
        return entry

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._specs))

    def __len__(self) -> int:
        return len(self._specs)

    def __contains__(self, name: object) -> bool:
        # the listed names only: `in` must stay free (``find_all`` asks every kind's table)
        return name in self._specs

    def values(self) -> list[SpecT]:  # type: ignore[override]
        self._build_pending()
        return list(self._specs.values())

    def items(self) -> list[tuple[str, SpecT]]:  # type: ignore[override]
        self._build_pending()
        return list(self._specs.items())

    # -- cheap views -----------------------------------------------------------------------------

    def provider(self, name: str) -> str:
        entry = self._specs[name]
        return entry.plugin

    def summaries(self) -> list[SpecSummary]:
        """Every spec's name, description and provider, building nothing."""
        return [
            SpecSummary(
                self.kind, name, self._descriptions[name], entry.plugin, not isinstance(entry, _Group)
            )
            for name, entry in self._specs.items()
        ]

    def of_plugin(self, plugin: str) -> list[SpecT]:
        """The specs ``plugin`` registered, built (only that plugin's modules are imported)."""
        self._build_pending(plugin)
        return [spec for spec in self._specs.values() if spec.plugin == plugin]

    def catalogue_mismatches(self, plugin: str) -> list[str]:
        """How ``plugin``'s deferred names and descriptions differ from the specs they build."""
        problems = []
        self._build_pending(plugin)
        for group in [g for g in self._groups if g.plugin == plugin]:
            listed, held = dict(group.deferred.names), group.held
            if listed != held:
                missing = sorted(set(listed) - set(held))
                extra = sorted(set(held) - set(listed))
                changed = sorted(n for n in set(listed) & set(held) if listed[n] != held[n])
                literal = "{\n" + "".join(f"    {n!r}: {d!r},\n" for n, d in held.items()) + "}"
                problems.append(
                    f"Deferred({group.deferred.target!r}) in plugin {plugin!r} lists names that are not "
                    f"held {missing}, misses {extra}, describes differently {changed}; its names "
                    f"should read:\n{literal}"
                )
        return problems


def _collect(pm: ToolkitPluginManager, kind: str, broken: dict[str, str]) -> SpecTable:
    """The table of one kind; a provider whose hook raises goes into ``broken`` (name -> error)."""
    hook_name, spec_type = KINDS[kind]
    caller = getattr(pm.hook, hook_name)
    table: SpecTable = SpecTable(kind)
    # pluggy calls the last-registered first; reverse so that the registration order is kept
    for impl in reversed(caller.get_hookimpls()):
        provider = impl.plugin_name
        if provider in broken:
            continue
        try:
            items = impl.function() or ()
        except Exception as exc:  # a broken plugin must not take the others down
            broken[provider] = (
                f"{hook_name} raised " + "".join(traceback.format_exception_only(type(exc), exc)).strip()
            )
            continue
        if isinstance(items, (spec_type, Deferred)):
            items = [items]
        info = pm.plugin_infos.get(provider)
        problem = next(
            (
                p
                for item in items
                for p in [namespace_problem(provider, kind, n) for n in _item_names(item)]
                if p
            ),
            "",
        )
        if problem:
            broken[provider] = problem
            continue
        for item in items:
            if isinstance(item, Deferred):
                table._add_group(_Group(provider, item, info.distribution if info else ""))
            elif isinstance(item, spec_type):
                table._add_spec(dataclasses.replace(item, plugin=provider))
            else:
                raise TypeError(
                    f"plugin {provider!r}: {hook_name} must return {spec_type.__name__} or Deferred "
                    f"objects, got {type(item).__name__}"
                )
    return table


def _item_names(item: Any) -> list[Any]:
    """The names a hook's item registers: a Deferred's listed names, or a spec's own name."""
    if isinstance(item, Deferred):
        return list(item.names)
    if isinstance(item, (Simulation, Bound, Dataset, Experiment)):
        return [item.name]
    return []  # not a spec at all: the type check below says so


def _drop_broken(pm: ToolkitPluginManager, tables: dict[str, SpecTable], broken: dict[str, str]) -> None:
    """Remove everything the broken plugins registered, mark them failed and warn once each."""
    for provider, error in broken.items():
        for table in tables.values():
            table._drop_plugin(provider)
        info = pm.plugin_infos.get(provider)
        pm.plugin_infos[provider] = PluginInfo(
            provider,
            info.distribution if info else "?",
            info.version if info else "?",
            info.module if info else provider,
            "failed",
            error,
        )
        warnings.warn(f"plugin {provider!r} was skipped: {error}", PluginLoadWarning, stacklevel=3)


@dataclass
class Registry:
    """Everything the loaded plugins registered, by kind and name."""

    manager: ToolkitPluginManager
    simulations: SpecTable[Simulation] = field(default_factory=lambda: SpecTable("simulation"))
    bounds: SpecTable[Bound] = field(default_factory=lambda: SpecTable("bound"))
    datasets: SpecTable[Dataset] = field(default_factory=lambda: SpecTable("dataset"))
    experiments: SpecTable[Experiment] = field(default_factory=lambda: SpecTable("experiment"))

    @classmethod
    def from_manager(cls, pm: ToolkitPluginManager | None = None) -> Registry:
        pm = pm or get_plugin_manager()
        broken: dict[str, str] = {}
        tables = {kind: _collect(pm, kind, broken) for kind in KINDS}
        _drop_broken(pm, tables, broken)
        return cls(
            manager=pm,
            simulations=tables["simulation"],
            bounds=tables["bound"],
            datasets=tables["dataset"],
            experiments=tables["experiment"],
        )

    def _get(self, table: SpecTable[SpecT], kind: str, name: str) -> SpecT:
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

    def _tables(self) -> tuple[tuple[str, SpecTable[Any]], ...]:
        return (
            ("simulation", self.simulations),
            ("bound", self.bounds),
            ("dataset", self.datasets),
            ("experiment", self.experiments),
        )

    def find_all(self, name: str) -> list[tuple[str, Any]]:
        """Every ``(kind, spec)`` registered under ``name``; the error lists close matches of all kinds."""
        found = [(kind, table[name]) for kind, table in self._tables() if name in table]
        if not found:  # names are case-insensitive where that is unambiguous (graphpfl.MUTAG)
            found = [
                (kind, table[k]) for kind, table in self._tables() for k in table if k.lower() == name.lower()
            ]
        if not found:
            every = [n for _, table in self._tables() for n in table]
            raise UnknownNameError("name", name, every)
        return found

    def find(self, name: str, kind: str | None = None) -> tuple[str, Any]:
        """The one ``(kind, spec)`` named ``name``; pass ``kind`` when several kinds share the name."""
        if kind is not None and kind not in KINDS:
            raise UnknownNameError("kind", kind, list(KINDS))
        if kind is not None:
            table = dict(self._tables())[kind]
            if name not in table:  # names are case-insensitive where that is unambiguous (graphpfl.MUTAG)
                same = [k for k in table if k.lower() == name.lower()]
                if len(same) == 1:
                    return kind, self._get(table, kind, same[0])
                self.find_all(name)  # the error lists close matches of every kind
                raise UnknownNameError(kind, name, table)
            return kind, self._get(table, kind, name)
        found = self.find_all(name)
        if len(found) > 1:
            from toolkit.errors import ParameterError

            raise ParameterError(
                f"{name!r} names a {' and a '.join(k for k, _ in found)}; choose one with kind="
                f"{' or '.join(repr(k) for k, _ in found)}"
            )
        return found[0]

    def by_plugin(self, plugin: str) -> dict[str, list[Any]]:
        """Everything ``plugin`` registered, built, by kind (imports only that plugin's modules)."""
        return {kind + "s": table.of_plugin(plugin) for kind, table in self._tables()}

    def summaries(self) -> list[SpecSummary]:
        """Name, description and provider of every registered spec, of every kind, building nothing."""
        return [s for _, table in self._tables() for s in table.summaries()]

    def defers(self, plugin: str) -> bool:
        """Whether ``plugin`` registered any :class:`~toolkit.specs.Deferred` group."""
        return any(g.plugin == plugin for _, table in self._tables() for g in table._groups)

    def catalogue_mismatches(self, plugin: str) -> list[str]:
        """Where ``plugin``'s :class:`~toolkit.specs.Deferred` names differ from what they build (harness)."""
        return [p for _, table in self._tables() for p in table.catalogue_mismatches(plugin)]

    def plugins(self) -> Iterable[str]:
        return self.manager.plugin_infos.keys()


def get_registry(**manager_kwargs: Any) -> Registry:
    """The registry of the run in progress (see :func:`running_with`); otherwise, or with keyword
    arguments (they go to ``get_plugin_manager``), a registry over a fresh plugin manager."""
    current = _RUN_REGISTRY.get()
    if current is not None and not manager_kwargs:
        return current
    return Registry.from_manager(get_plugin_manager(**manager_kwargs))


# -- the registry of the run in progress ---------------------------------------------------------------
# ``run``/``sweep`` set it around each point (worker processes included), so that a simulation's own
# ``toolkit.get_registry()`` lookups see the registry the call was given (e.g. a user's in-process plugin).

_RUN_REGISTRY: ContextVar[Registry | None] = ContextVar("toolkit_run_registry", default=None)
_REBUILT: dict[str, Registry] = {}  # per worker process: the registries rebuilt from a recipe, by token


@contextmanager
def running_with(registry: Registry | None) -> Iterator[None]:
    """Within the block, ``get_registry()`` (without arguments) returns ``registry``."""
    token = _RUN_REGISTRY.set(registry)
    try:
        yield
    finally:
        _RUN_REGISTRY.reset(token)


class RegistryHandle:
    """A registry that travels to worker processes: the object itself in this process; pickled, a
    recipe (entry points loaded or not, disabled names, the directly registered plugins: a module by
    its import name, any other object as itself) that the worker rebuilds once per handle."""

    def __init__(self, registry: Registry, token: str | None = None) -> None:
        self.registry, self.token = registry, token or uuid.uuid4().hex

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        pm = self.registry.manager
        direct, entry_points, disabled = [], False, []
        for name, info in pm.plugin_infos.items():
            if info.distribution != "(registered directly)":
                entry_points = True
                disabled += [name] if info.status == "disabled" else []
            elif info.status == "loaded":
                plugin = pm.get_plugin(name)
                direct.append(
                    ("module", plugin.__name__) if isinstance(plugin, ModuleType) else ("object", plugin)
                )
        return (_rebuild_handle, (self.token, direct, entry_points, disabled, pm.settings))


def _rebuild_handle(
    token: str, direct: list, entry_points: bool, disabled: list, settings: Any
) -> RegistryHandle:
    if token not in _REBUILT:
        plugins = [importlib.import_module(ref) if kind == "module" else ref for kind, ref in direct]
        pm = get_plugin_manager(
            plugins=plugins, load_entrypoints=entry_points, disable=disabled, settings=settings
        )
        _REBUILT.clear()  # one sweep at a time per worker
        _REBUILT[token] = Registry.from_manager(pm)
    return RegistryHandle(_REBUILT[token], token)


__all__ = ["KINDS", "Registry", "SpecSummary", "SpecTable", "get_registry"]
