"""Registers ``example.random_walk`` a second time: the registry must name both providers."""

import toolkit
from toolkit import Simulation
from toolkit.config import Params


class NoParams(Params):
    pass


def nothing(params, seed):
    return {"value": 0}


@toolkit.hookimpl
def toolkit_register_simulations():
    return [Simulation(name="example.random_walk", func=nothing, params=NoParams, description="a clash")]
