"""A model validator's error names the parameters its message mentions (it read "parameter '?'")."""

from __future__ import annotations

import pytest
from pydantic import model_validator

from toolkit.config import Params, validate_params
from toolkit.errors import ParameterError


class Window(Params):
    low: float = 0.0
    high: float = 1.0

    @model_validator(mode="after")
    def _ordered(self):
        if self.low >= self.high:
            raise ValueError("low must be below high")
        return self


class Opaque(Params):
    a: int = 1

    @model_validator(mode="after")
    def _never(self):
        raise ValueError("these settings do not fit together")


def test_a_model_validator_names_the_parameters_it_mentions():
    with pytest.raises(ParameterError) as info:
        validate_params(Window, {"low": 2.0}, owner="demo.window")
    assert str(info.value) == "parameters 'low', 'high' of demo.window: low must be below high."
    assert "'?'" not in str(info.value)


def test_a_model_validator_that_mentions_no_parameter_still_reads_well():
    with pytest.raises(ParameterError, match=r"^the parameters of demo.opaque: these settings do not fit"):
        validate_params(Opaque, {}, owner="demo.opaque")
