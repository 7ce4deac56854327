"""An in-process plugin for test_run_registry.py: a simulation that looks a dataset up through
``toolkit.get_registry()`` and a dataset only this plugin registers (importable by worker processes)."""

from toolkit import Dataset, Simulation, hookimpl
from toolkit.config import Params


class NoParams(Params):
    pass


def _three() -> list[int]:
    return [1, 2, 3]


def looks_up_its_dataset(params: NoParams, seed: int) -> dict:
    import toolkit

    return {"total": sum(toolkit.get_registry().dataset("run_registry_plugin.three").load())}


@hookimpl
def toolkit_register_simulations():
    return [
        Simulation(
            "run_registry_plugin.lookup",
            looks_up_its_dataset,
            NoParams,
            description="looks up run_registry_plugin.three",
        )
    ]


@hookimpl
def toolkit_register_datasets():
    return [Dataset("run_registry_plugin.three", "the numbers 1, 2, 3", _three)]
