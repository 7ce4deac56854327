"""Exception and warning types shared by the core.

``UserError`` and its subclasses are mistakes the user can fix (a wrong name, a bad parameter, a
corrupt store file): the CLI prints their message in one paragraph and exits with status 2.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class ToolkitError(Exception):
    """Base class of every error raised by the toolkit."""


class UserError(ToolkitError):
    """A mistake in what the user asked for; the message says what and how to fix it."""


class UnknownNameError(UserError, KeyError):
    """A simulation, bound, dataset, experiment or plugin name that is not registered."""

    def __init__(self, kind: str, name: str, known: Iterable[str]):
        known = sorted(known)
        close = difflib.get_close_matches(name, known, n=5, cutoff=0.5)
        if not close:  # fall back to names sharing the part after the namespace
            tail = name.split(".")[-1]
            close = [k for k in known if tail and tail in k][:5]
        msg = f"unknown {kind} {name!r}."
        if close:
            msg += " Did you mean: " + ", ".join(close) + "?"
        elif known:
            shown = ", ".join(known[:20]) + (" ..." if len(known) > 20 else "")
            msg += f" Registered {kind}s: {shown}."
        else:
            msg += f" No {kind}s are registered (is the plugin installed and enabled? see `toolkit plugins`)."
        self.kind, self.name, self.close_matches = kind, name, close
        super().__init__(msg)

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.args[0]


class ParameterError(UserError, ValueError):
    """A parameter with a wrong name, type or value; the message names the parameter."""


class SweepInterrupted(ToolkitError, KeyboardInterrupt):
    """Ctrl-C during a sweep: what finished is stored; rerunning the sweep resumes it."""


class SweepAborted(ToolkitError):
    """The executor broke during a sweep (a worker killed, out of memory): what finished is stored."""


class ResultColumnError(ToolkitError):
    """A simulation returned a result column named like one of its parameters, with another value:
    the table would show the result as the parameter. The simulation's code must rename the column.
    Raised for the point, which is recorded as failed like any point whose simulation raises."""


class DuplicateNameError(ToolkitError):
    """Two plugins registered the same name."""


class MissingDependencyError(UserError, ImportError):
    """An optional package that the path asked for needs is not installed; the message says how to get it.

    :param module: the import name that is missing (``torch``).
    :param install: the command that installs it (``pip install 'theory-toolkit-gd-perceptron[torch]'``).
    :param needed_for: what needs it, in the user's words (``backend='torch'``).
    """

    def __init__(self, module: str, *, install: str, needed_for: str = ""):
        self.module, self.install = module, install
        what = f"{needed_for} needs" if needed_for else "this needs"
        super().__init__(
            f"{what} the package {module!r}, which is not installed. Install it with: {install}", name=module
        )


class PluginBuildError(UserError):
    """A plugin's deferred specs could not be built (its module failed to import, or lacks a name it listed)."""

    def __init__(self, plugin: str, distribution: str, target: str, cause: BaseException):
        self.plugin, self.target, self.cause = plugin, target, cause
        msg = f"plugin {plugin!r} could not build {target}: {type(cause).__name__}: {cause}."
        missing = getattr(cause, "name", None) if isinstance(cause, ModuleNotFoundError) else None
        if missing and not isinstance(cause, MissingDependencyError):
            dist = distribution if distribution and not distribution.startswith("(") else plugin
            msg += (
                f" The package {missing!r} is missing: reinstall the plugin with its dependencies "
                f"(pip install {dist}) or disable it (-p no:{plugin})."
            )
        super().__init__(msg)


class StoreError(UserError):
    """The run store file is corrupt, locked, or not a toolkit store."""


class PluginLoadWarning(UserWarning):
    """A plugin's entry point failed to import; it was skipped."""


class SpotCheckDisagreement(UserWarning):
    """A symbolic verdict disagrees with its numeric spot-check: one of them is wrong."""


class DatasetMissingError(UserError, FileNotFoundError):
    """A registered dataset's files are not under the data root.

    Raised by a dataset's loader; the message says where the files were expected and how to get
    them (``toolkit data fetch NAME`` when the dataset declares a :class:`toolkit.specs.DataSource`).
    Tests that need an absent dataset skip with this message instead of failing.

    :param dataset: the registered dataset name (``graphpfl.mutag``), or ``""`` when unknown.
    """

    def __init__(self, message: str, *, dataset: str = ""):
        self.dataset = dataset
        super().__init__(message)


__all__ = [
    "DatasetMissingError",
    "DuplicateNameError",
    "SweepAborted",
    "MissingDependencyError",
    "ParameterError",
    "PluginBuildError",
    "PluginLoadWarning",
    "ResultColumnError",
    "SpotCheckDisagreement",
    "StoreError",
    "SweepInterrupted",
    "ToolkitError",
    "UnknownNameError",
    "UserError",
]
