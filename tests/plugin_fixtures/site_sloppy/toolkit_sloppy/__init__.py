"""A fixture plugin with two planted import mistakes: a private core module and a heavy library
imported at registration."""

from __future__ import annotations

import pandas  # noqa: F401  (planted: a heavy import at registration)

import toolkit
from toolkit.runner import execute_point  # noqa: F401  (planted: a private core module)

__version__ = "0.1.0"


class SloppyParams(toolkit.Params):
    x: float = 1.0


def value(params: SloppyParams, seed: int) -> dict:
    return {"y": params.x + seed}


@toolkit.hookimpl
def toolkit_register_simulations():
    return [toolkit.Simulation("sloppy.value", value, SloppyParams, "x + seed")]
