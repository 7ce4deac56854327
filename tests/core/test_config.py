"""Parameter models: validation messages, CLI parsing, seeds."""

from __future__ import annotations

from typing import Literal

import pytest

from toolkit.config import (
    Field,
    Params,
    describe_params,
    parse_assignments,
    parse_grid,
    parse_seeds,
    validate_params,
)
from toolkit.errors import ParameterError


class Demo(Params):
    d: int = Field(64, ge=2, le=4096, description="features")
    gamma: float = Field(1.0, gt=0, description="step size")
    loss: Literal["logistic", "exponential"] = "logistic"
    label: str = "run"
    widths: list[int] = Field(default_factory=lambda: [8])


def test_defaults_and_describe():
    rows = {r.name: r for r in describe_params(Demo)}
    assert rows["d"].default == 64 and rows["d"].allowed == ">= 2, <= 4096" and rows["d"].type == "int"
    assert rows["gamma"].allowed == "> 0"
    assert rows["loss"].allowed == "one of 'logistic', 'exponential'"
    assert rows["widths"].default == [8]


@pytest.mark.parametrize(
    "values, pattern",
    [
        (
            {"d": 1},
            r"parameter 'd' of demo.sim: .*greater than or equal to 2.*got 1.*expected int, allowed: >= 2, <= 4096",
        ),
        ({"d": "abc"}, r"parameter 'd'.*expected int"),
        ({"loss": "hinge"}, r"parameter 'loss'.*allowed: one of 'logistic', 'exponential'"),
        (
            {"gama": 2.0},
            r"unknown parameter 'gama' for demo.sim. Did you mean gamma\? Valid parameters: d, gamma",
        ),
        ({"gamma": -1}, r"parameter 'gamma'.*allowed: > 0"),
    ],
)
def test_bad_values_name_parameter_type_and_range(values, pattern):
    with pytest.raises(ParameterError, match=pattern):
        validate_params(Demo, values, owner="demo.sim")


def test_parse_assignments_types():
    values = parse_assignments(
        ["d=8", "gamma=1e4", "loss=exponential", "label=8", "widths=[1,2]"], model=Demo
    )
    assert values == {"d": 8, "gamma": 1e4, "loss": "exponential", "label": "8", "widths": [1, 2]}
    model = validate_params(Demo, values)
    assert model.label == "8" and model.gamma == 1e4


def test_parse_assignment_needs_equals():
    with pytest.raises(ParameterError, match="key=value"):
        parse_assignments(["d8"])


def test_parse_grid():
    assert parse_grid(["d=8,16,32", "loss=logistic,exponential"], model=Demo) == {
        "d": [8, 16, 32],
        "loss": ["logistic", "exponential"],
    }
    assert parse_grid(["widths=[[1,2],[3]]"], model=Demo) == {"widths": [[1, 2], [3]]}
    with pytest.raises(ParameterError, match="no values"):
        parse_grid(["d="])


@pytest.mark.parametrize(
    "text, seeds", [("0:3", [0, 1, 2]), ("4", [4]), ("1,5,7", [1, 5, 7]), (":2", [0, 1])]
)
def test_parse_seeds(text, seeds):
    assert parse_seeds(text) == seeds


@pytest.mark.parametrize("text", ["a:b", "3:3", "-1", "x"])
def test_bad_seeds(text):
    with pytest.raises(ParameterError, match="seed"):
        parse_seeds(text)


def test_params_are_frozen_and_json_roundtrip():
    import json

    import pydantic

    from toolkit.config import canonical_params

    model = validate_params(Demo, {"d": 16})
    with pytest.raises(pydantic.ValidationError):
        model.d = 3  # type: ignore[misc]
    assert validate_params(Demo, json.loads(json.dumps(canonical_params(model)))) == model
