"""A hook this plugin lets *other* plugins implement (added through toolkit_addhooks)."""

import pluggy

hookspec = pluggy.HookspecMarker("toolkit")


@hookspec
def toolkit_example_register_step_distributions():
    """Return ``{name: callable(rng, n) -> steps}`` step distributions for random walks."""
