"""The plugin manager: loads first- and third-party plugins from the ``toolkit.plugins`` group.

``get_plugin_manager()`` builds a fresh manager on each call (nothing is loaded at import). A plugin
that fails to import is reported as a :class:`~toolkit.errors.PluginLoadWarning` and skipped;
plugins named in ``disable`` (CLI ``-p no:NAME``) or ``TOOLKIT_DISABLE_PLUGINS`` are not loaded.
"""

from __future__ import annotations

import functools
import importlib.metadata
import traceback
import warnings
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pluggy

from toolkit import hookspecs
from toolkit.errors import PluginLoadWarning
from toolkit.settings import Settings, get_settings

PROJECT_NAME = "toolkit"
ENTRY_POINT_GROUP = "toolkit.plugins"


@dataclass(frozen=True)
class PluginInfo:
    """A plugin as ``toolkit plugins`` lists it."""

    name: str
    distribution: str
    version: str
    module: str
    status: str  # "loaded", "disabled" or "failed"
    error: str = ""


def direct_plugin_name(plugin: Any) -> str:
    """The name of a plugin registered directly (not through an entry point).

    Its ``toolkit_plugin_name`` attribute when it has one (the namespace of the names it registers,
    as an entry point's name would give it); else a module's last dotted component without the
    conventional ``toolkit_`` prefix, so that ``toolkit_langgen`` registers as ``langgen``.
    """
    declared = getattr(plugin, "toolkit_plugin_name", None)
    if isinstance(declared, str) and declared:
        return declared
    name = getattr(plugin, "__name__", None) or type(plugin).__name__
    name = name.rsplit(".", 1)[-1]
    return name.removeprefix("toolkit_") or name


@functools.lru_cache(maxsize=1)
def _packages_distributions() -> Mapping[str, list[str]]:
    return importlib.metadata.packages_distributions()  # reads every installed distribution: once


def _installed_distribution(plugin: Any) -> tuple[str, str]:
    """(name, version) of the installed distribution that holds ``plugin``'s module, or ("", "")."""
    top = (getattr(plugin, "__name__", "") or "").split(".", 1)[0]
    names = _packages_distributions().get(top, []) if top else []
    if len(names) != 1:
        return "", ""
    return names[0], importlib.metadata.version(names[0])


class ToolkitPluginManager(pluggy.PluginManager):
    """A pluggy manager that remembers where each plugin came from and which ones failed."""

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(PROJECT_NAME)
        self.add_hookspecs(hookspecs)
        self.settings = settings or get_settings()
        self.plugin_infos: dict[str, PluginInfo] = {}

    def register_plugin(self, plugin: Any, name: str, *, distribution: str = "", version: str = "") -> None:
        """Register ``plugin`` (usually a module) under ``name``, recording its provenance.

        Without ``distribution``/``version`` (a plugin registered directly), the version is the
        plugin's ``__version__``, else that of the installed distribution holding its module, else "0".
        """
        self.register(plugin, name=name)
        if not version:
            version = str(getattr(plugin, "__version__", "") or "")
            if not version and not distribution:
                distribution, version = _installed_distribution(plugin)
        self.plugin_infos[name] = PluginInfo(
            name,
            distribution or "(registered directly)",
            version or "0",
            getattr(plugin, "__name__", repr(plugin)),
            "loaded",
        )

    def plugin_version(self, name: str) -> str:
        info = self.plugin_infos.get(name)
        return info.version if info else "0"

    def load_entrypoints(self, group: str = ENTRY_POINT_GROUP, disable: Iterable[str] = ()) -> None:
        """Import and register every entry point of ``group``; skip disabled and broken ones."""
        blocked = set(disable) | set(self.settings.disabled_plugins)
        seen: set[str] = set()
        for ep in sorted(importlib.metadata.entry_points(group=group), key=lambda e: e.name):
            if ep.name in seen or self.has_plugin(ep.name):
                continue  # the same distribution found twice on sys.path
            seen.add(ep.name)
            dist = getattr(ep, "dist", None)
            dist_name = dist.name if dist is not None else "?"
            dist_version = dist.version if dist is not None else "?"
            if ep.name in blocked:
                self.plugin_infos[ep.name] = PluginInfo(
                    ep.name, dist_name, dist_version, ep.value, "disabled"
                )
                continue
            try:
                plugin = ep.load()
            except Exception as exc:  # a broken plugin must not take the host down
                detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
                self.plugin_infos[ep.name] = PluginInfo(
                    ep.name, dist_name, dist_version, ep.value, "failed", detail
                )
                warnings.warn(
                    f"plugin {ep.name!r} ({dist_name} {dist_version}, {ep.value}) failed to import and was skipped: {detail}",
                    PluginLoadWarning,
                    stacklevel=2,
                )
                continue
            # the distribution's version keys the run store: bumping it recomputes this plugin's points only
            version = dist_version if dist is not None else str(getattr(plugin, "__version__", "") or "0")
            self.register_plugin(plugin, ep.name, distribution=dist_name, version=version)

    def failed_plugins(self) -> list[PluginInfo]:
        return [i for i in self.plugin_infos.values() if i.status == "failed"]


def get_plugin_manager(
    *,
    disable: Iterable[str] = (),
    plugins: Iterable[ModuleType | Any] = (),
    load_entrypoints: bool = True,
    settings: Settings | None = None,
) -> ToolkitPluginManager:
    """A fresh plugin manager with all entry-point plugins loaded and configured.

    :param disable: plugin names not to load (added to ``TOOLKIT_DISABLE_PLUGINS``).
    :param plugins: extra plugin objects (modules or instances) to register directly, e.g. in tests.
    :param load_entrypoints: set False to load only ``plugins``.
    """
    pm = ToolkitPluginManager(settings)
    pm.hook.toolkit_addhooks.call_historic(kwargs={"pluginmanager": pm})
    if load_entrypoints:
        pm.load_entrypoints(disable=disable)
    for plugin in plugins:
        if not pm.is_registered(plugin):
            pm.register_plugin(plugin, direct_plugin_name(plugin))
    pm.hook.toolkit_configure.call_historic(kwargs={"settings": pm.settings})
    return pm
