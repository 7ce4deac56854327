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

    return {"total": sum(toolkit.get_registry().dataset("runreg.three").load())}


@hookimpl
def toolkit_register_simulations():
    return [Simulation("runreg.lookup", looks_up_its_dataset, NoParams, description="looks up runreg.three")]


@hookimpl
def toolkit_register_datasets():
    return [Dataset("runreg.three", "the numbers 1, 2, 3", _three)]
