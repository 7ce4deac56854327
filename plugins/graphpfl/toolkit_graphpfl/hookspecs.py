"""Hook specifications that let other plugins extend graphpfl (added via ``toolkit_addhooks``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:  # pragma: no cover
    from toolkit_graphpfl.strategies import Strategy

hookspec = pluggy.HookspecMarker("toolkit")


@hookspec
def toolkit_graphpfl_register_strategies() -> Sequence[type[Strategy]]:
    """Return federated strategies (subclasses of ``toolkit_graphpfl.strategies.Strategy``).

    Called when the graphpfl simulator resolves an ``algorithm`` name that is not built in. Each
    class's ``name`` is the ``algorithm`` value that selects it; a name given twice is an error.

    Example::

        from toolkit_graphpfl.strategies import Strategy, weighted_average

        class FedMedian(Strategy):
            name = "fedmedian"
            description = "coordinate-wise median of the client models"
            def aggregate(self, global_shared, uploads, sizes, fishers):
                return {k: torch.stack([u[k] for u in uploads]).median(0).values for k in global_shared}

        @toolkit.hookimpl
        def toolkit_graphpfl_register_strategies():
            return [FedMedian]
    """
