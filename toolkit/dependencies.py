"""Optional dependencies: import one where a path needs it, or say what is missing and how to get it.

A plugin whose heavy dependency is optional (an extra) imports it through :func:`require` inside the
function that needs it, so that loading the plugin never needs it and using that path without it
gives a :class:`~toolkit.errors.MissingDependencyError` (a user error: exit status 2 on the CLI)::

    torch = require("torch", install="pip install 'theory-toolkit-gd-perceptron[torch]'",
                    needed_for="backend='torch'")
"""

from __future__ import annotations

import importlib
from types import ModuleType

from toolkit.errors import MissingDependencyError


def require(module: str, *, install: str, needed_for: str = "") -> ModuleType:
    """Import ``module``; if it (not one of its own imports) is missing, raise MissingDependencyError.

    :param module: the import name (``"torch"``, ``"torch_geometric.data"``).
    :param install: the command that installs it, shown to the user.
    :param needed_for: what needs it, in the user's words (a parameter value, a feature).
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = module.split(".", 1)[0]
        if exc.name not in (module, top):
            raise  # the module is there but one of *its* imports is broken: show the real error
        raise MissingDependencyError(module, install=install, needed_for=needed_for) from None


__all__ = ["require"]
