"""Hook specifications of the toolkit: the whole plugin interface, nothing else.

Hooks are grouped by lifecycle phase. Call them with keyword arguments only. A plugin implements a
hook by defining a function of the same name decorated with :data:`toolkit.hookimpl`; it may take
any subset of the arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:  # pragma: no cover
    import click

    from toolkit.manager import ToolkitPluginManager
    from toolkit.runner import RunResult
    from toolkit.settings import Settings
    from toolkit.specs import Bound, Dataset, Deferred, Experiment, Simulation

hookspec = pluggy.HookspecMarker("toolkit")


# -- start-up ------------------------------------------------------------------------------------


@hookspec(historic=True)
def toolkit_addhooks(pluginmanager: ToolkitPluginManager) -> None:
    """Add new hook specifications, so that other plugins can extend *this* plugin.

    Called once for every plugin as it is registered (historic: a plugin registered later still
    gets the call).

    :param pluginmanager: the toolkit plugin manager; call ``pluginmanager.add_hookspecs(module)``.

    Example::

        @toolkit.hookimpl
        def toolkit_addhooks(pluginmanager):
            from toolkit_graphpfl import hookspecs
            pluginmanager.add_hookspecs(hookspecs)
    """


@hookspec(historic=True)
def toolkit_configure(settings: Settings) -> None:
    """Receive the resolved settings (data root, store path, device) after all plugins are loaded.

    Historic: a plugin registered after configuration still gets the call.

    Example::

        @toolkit.hookimpl
        def toolkit_configure(settings):
            global DATA_DIR
            DATA_DIR = settings.data_dir
    """


# -- registration ----------------------------------------------------------------------------------


@hookspec
def toolkit_register_simulations() -> Sequence[Simulation | Deferred]:
    """Return the simulations this plugin provides: specs, :class:`~toolkit.specs.Deferred` groups, or both.

    Called when a registry is built (``toolkit list``, ``run``, ``sweep`` ...). Names must be
    namespaced by plugin (``myplugin.scaling``); a name registered twice is an error naming both
    providers. Keep it cheap: a ``Deferred`` names the list (``"module:ATTRIBUTE"``) and describes
    its entries, and the module (with its numpy, torch ...) is imported only when one is used.

    Example::

        toolkit_register_simulations = toolkit.defer("myplugin.simulation:SIMULATIONS", {
            "myplugin.scaling": "iterations to separation vs d",
        })

        # the same, written out:
        @toolkit.hookimpl
        def toolkit_register_simulations():
            return [toolkit.Deferred("myplugin.simulation:SIMULATIONS",
                                     {"myplugin.scaling": "iterations to separation vs d"})]
    """


@hookspec
def toolkit_register_bounds() -> Sequence[Bound | Deferred]:
    """Return the bounds and symbolic claims this plugin provides (``toolkit prove`` / ``check``).

    As for simulations: specs or :class:`~toolkit.specs.Deferred` groups; sympy stays unimported
    until a bound is used.

    Example::

        toolkit_register_bounds = toolkit.defer("myplugin.bounds:BOUNDS", {
            "myplugin.novikoff": "batch perceptron iterations <= n R^2 / mu^2",
        })

        # myplugin/bounds.py, imported on first use:
        n, R, mu = sympy.symbols("n R mu", positive=True)
        BOUNDS = [Bound(name="myplugin.novikoff", description="batch perceptron iterations <= n R^2 / mu^2",
                        expression=n * R**2 / mu**2, metric="iterations", sense="upper")]

        # or, with the Simulation itself (fine when building it is cheap):
        @toolkit.hookimpl
        def toolkit_register_bounds():
            return [Bound(name="myplugin.trivial", description="iterations >= 0",
                          expression=0, metric="iterations", sense="lower")]
    """


@hookspec
def toolkit_register_datasets() -> Sequence[Dataset | Deferred]:
    """Return the datasets (loaders and synthetic generators) this plugin provides.

    Example::

        @toolkit.hookimpl
        def toolkit_register_datasets():
            return [toolkit.Deferred("myplugin.data:DATASETS",
                                     {"myplugin.planted": "separable data with a planted margin"})]
    """


@hookspec
def toolkit_register_experiments() -> Sequence[Experiment | Deferred]:
    """Return the headline experiments of this plugin, run by ``toolkit reproduce``.

    Each experiment has a quick setting (seconds, default data, CPU) and a full one.

    Example::

        @toolkit.hookimpl
        def toolkit_register_experiments():
            return [toolkit.Deferred("myplugin.experiments:EXPERIMENTS", {"myplugin.table1": "Table 1"})]
    """


@hookspec
def toolkit_register_commands(cli: click.Group) -> None:
    """Add sub-commands to the ``toolkit`` command-line interface.

    Called when the CLI is built, after plugins are loaded.

    Example::

        @toolkit.hookimpl
        def toolkit_register_commands(cli):
            @cli.command("myplugin-info")
            def info():
                click.echo("hello")
    """


# -- notifications -------------------------------------------------------------------------------


@hookspec
def toolkit_run_finished(result: RunResult) -> None:
    """Notification after a run finished (computed or served from the store). Return value ignored.

    Example::

        @toolkit.hookimpl
        def toolkit_run_finished(result):
            print(result.simulation, result.seed, result.wall_time)
    """


HOOK_NAMES: tuple[str, ...] = tuple(name for name in dict(globals()) if name.startswith("toolkit_"))
"""Every hook this module specifies (the meta-tests check each is documented and tested)."""

__all__ = ["hookspec", "HOOK_NAMES", *HOOK_NAMES]
