"""toolkit.run / sweep called wrongly from Python: the parameter error the CLI gives, not a bare TypeError."""

from __future__ import annotations

import pytest

import toolkit
from toolkit.errors import ParameterError, UnknownNameError


def test_run_none_names_the_registered_simulations(registry, store_path):
    # before: AttributeError
    with pytest.raises(UnknownNameError, match="unknown simulation 'None'.*example.random_walk"):
        toolkit.run(None, store=store_path, registry=registry)


@pytest.mark.parametrize("function", ["run", "sweep"])
def test_parameters_as_keywords_are_a_parameter_error(registry, store_path, function):
    # before: TypeError: run() got an unexpected keyword argument 'n_steps'
    with pytest.raises(ParameterError, match=r"n_steps=3.*go in params.*n_steps, p, record_every"):
        getattr(toolkit, function)("example.random_walk", n_steps=3, store=store_path, registry=registry)
