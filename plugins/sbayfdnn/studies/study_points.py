"""A study's unit of work (one fit, one dataset x seed, ...) as a point of a simulation that lives in the
study, run by ``toolkit.sweep`` and kept in the run store: a rerun serves the finished points from the
store and computes only the rest, and a stopped run keeps what it finished.

The simulation is not registered (it is the study's, not a user's), so ``toolkit list`` does not show it;
its stored results are keyed by the plugin's version and source and by this script's own text, so
editing the study recomputes its points.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

PLUGIN = "sbayfdnn"


def plain(value: Any) -> Any:
    """A numpy scalar as the Python value (nan kept): a row reads the same computed or from the store."""
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):
        return value.item()
    return value


def plain_rows(rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{k: plain(v) for k, v in row.items()} for row in rows]


def study_simulation(name: str, func: Callable, params: type, script: str | Path):
    """The unregistered simulation ``<plugin>.study.<name>`` running ``func(params, seed)``."""
    from toolkit import Simulation
    from toolkit.manager import get_plugin_manager

    digest = hashlib.sha256(Path(script).read_bytes()).hexdigest()[:12]
    base = get_plugin_manager().plugin_version(PLUGIN)
    return Simulation(
        name=f"{PLUGIN}.study.{name}",
        func=func,
        params=params,
        description=(func.__doc__ or name).strip().splitlines()[0],
        plugin=PLUGIN,
        version=f"{base}+study.{digest}",
    )


def sweep(sim, grid: Mapping[str, list], seeds, args: argparse.Namespace, params: Mapping | None = None):
    """``toolkit.sweep`` of the study's points on ``args.store`` with ``args.executor``; says how many
    points came from the store."""
    import toolkit

    result = toolkit.sweep(
        sim,
        dict(grid),
        seeds=list(seeds),
        params=dict(params or {}),
        store=args.store,
        executor=args.executor,
        progress=False,
    )
    print(
        f"{sim.name}: {result.n_cached + result.n_computed} points, {result.n_cached} from the store",
        flush=True,
    )
    return result
