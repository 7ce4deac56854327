"""A fixture plugin with a planted mistake: a result column that depends on the process it runs in."""

from __future__ import annotations

import multiprocessing

import toolkit

__version__ = "0.1.0"


class ByProcessParams(toolkit.Params):
    x: float = 1.0


def by_process(params: ByProcessParams, seed: int) -> dict:
    return {"worker": multiprocessing.current_process().name, "value": params.x + seed}


@toolkit.hookimpl
def toolkit_register_simulations():
    return [toolkit.Simulation("byprocess.value", by_process, ByProcessParams, "reports its process")]
