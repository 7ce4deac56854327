"""An example third-party plugin: simple random walks, their range bound, and headline experiments.

It has the layout of a first-party plugin (``plugins/<name>/``) and is what ``docs/writing-plugins.md``
walks through; the core's tests install it by putting this folder (with its ``.dist-info``) on
``sys.path``. This module holds the hook implementations only and imports nothing heavy: each
``Deferred`` list is imported the first time one of its names is used.
"""

from __future__ import annotations

import toolkit
from toolkit import Deferred, defer

EVENTS: list[str] = []  # notifications received, for the tests of toolkit_run_finished

toolkit_register_simulations = defer(
    "toolkit_example.simulation:SIMULATIONS",
    {
        "example.random_walk": "simple random walk positions and range",
        "example.slow_square": "x squared after a delay (for tests and benchmarks of the runner)",
    },
)

toolkit_register_bounds = defer(
    "toolkit_example.bounds:BOUNDS",
    {
        "example.walk_range": "|S_t| <= t: a walk of t unit steps cannot go further than t",
    },
)

toolkit_register_experiments = defer(
    "toolkit_example.experiments:EXPERIMENTS",
    {
        "example.drift": "Mean drift of a biased walk equals 2p - 1.",
        "example.range": "The range of a symmetric walk grows like sqrt(pi n / 2).",
    },
)


@toolkit.hookimpl
def toolkit_register_datasets():
    # the long form of defer(): a hook may return Deferred groups, specs, or a list of both
    return [Deferred("toolkit_example.data:DATASETS", {"example.steps": "+-1 steps of a random walk"})]


@toolkit.hookimpl
def toolkit_register_commands(cli):
    import click

    @cli.command("example-hello")
    @click.option("--name", default="world")
    def hello(name):
        """Say hello (a command added by the example plugin)."""
        click.echo(f"hello {name} from the example plugin")


@toolkit.hookimpl
def toolkit_configure(settings):
    EVENTS.append(f"configured:{settings.store_path.name}")


@toolkit.hookimpl
def toolkit_run_finished(result):
    EVENTS.append(f"finished:{result.simulation}:{result.seed}")


@toolkit.hookimpl
def toolkit_addhooks(pluginmanager):
    from toolkit_example import hookspecs

    pluginmanager.add_hookspecs(hookspecs)
