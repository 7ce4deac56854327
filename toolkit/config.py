"""Parameter models: typed, defaulted, validated, parsed from CLI strings and JSON.

A simulation's parameters are a :class:`Params` subclass (pydantic)::

    class ScalingParams(Params):
        d: int = Field(64, ge=2, description="number of features")
        loss: Literal["logistic", "exponential"] = "logistic"

Validation errors become :class:`~toolkit.errors.ParameterError` naming the parameter, the
expected type and the allowed values.
"""

from __future__ import annotations

import difflib
import json
import re
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import annotated_types
import pydantic
from pydantic import BaseModel, ConfigDict, Field  # noqa: F401  (re-exported for plugins)

from toolkit.errors import ParameterError


class Params(BaseModel):
    """Base class of parameter models: unknown names are errors, instances are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)


@dataclass(frozen=True)
class ParamInfo:
    """One parameter as ``toolkit show`` prints it."""

    name: str
    type: str
    default: Any
    allowed: str
    description: str


def _type_name(annotation: Any) -> str:
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return "choice"
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_name(a) for a in typing.get_args(annotation))
    if origin is not None:
        args = ", ".join(_type_name(a) for a in typing.get_args(annotation))
        return f"{getattr(origin, '__name__', str(origin))}[{args}]"
    if annotation is type(None):
        return "None"
    return getattr(annotation, "__name__", str(annotation))


def _allowed(field: pydantic.fields.FieldInfo) -> str:
    annotation = field.annotation
    literals = _literal_values(annotation)
    if literals:
        return "one of " + ", ".join(repr(v) for v in literals)
    parts = []
    items = _item_literal_values(annotation)
    if items:  # list[Literal[...]] and friends: say what each element may be
        parts.append("each one of " + ", ".join(repr(v) for v in items))
    for meta in field.metadata:
        for attr, sym in (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<")):
            value = getattr(meta, attr, None)
            if value is not None and isinstance(meta, (annotated_types.Ge, annotated_types.Gt,
                                                       annotated_types.Le, annotated_types.Lt,
                                                       annotated_types.Interval)):
                parts.append(f"{sym} {value}")
        if isinstance(meta, annotated_types.MinLen):
            parts.append(f"length >= {meta.min_length}")
        if isinstance(meta, annotated_types.MaxLen):
            parts.append(f"length <= {meta.max_length}")
    return ", ".join(parts) if parts else "any " + _type_name(annotation)


def _item_literal_values(annotation: Any) -> tuple[Any, ...]:
    """The allowed values of the elements of a ``list``/``tuple``/``set`` of a ``Literal`` (else ())."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        out: tuple[Any, ...] = ()
        for arg in typing.get_args(annotation):
            out += _item_literal_values(arg)
        return out
    if origin in (list, tuple, set, frozenset, Sequence):
        out = ()
        for arg in typing.get_args(annotation):
            if arg is not Ellipsis:
                out += tuple(v for v in _literal_values(arg) if v not in out)
        return out
    return ()


def _literal_values(annotation: Any) -> tuple[Any, ...]:
    if typing.get_origin(annotation) is Literal:
        return typing.get_args(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        out: tuple[Any, ...] = ()
        for arg in typing.get_args(annotation):
            out += _literal_values(arg)
        return out
    return ()


def describe_params(model: type[Params]) -> list[ParamInfo]:
    """Name, type, default, allowed range and description of every parameter of ``model``."""
    rows = []
    for name, field in model.model_fields.items():
        default = field.get_default(call_default_factory=True)
        rows.append(
            ParamInfo(name, _type_name(field.annotation), default, _allowed(field), field.description or "")
        )
    return rows


def _format_error(model: type[Params], owner: str, error: Mapping[str, Any]) -> str:
    loc = error.get("loc") or ("?",)
    name = str(loc[0])
    if error.get("type") == "extra_forbidden":
        valid = list(model.model_fields)
        close = difflib.get_close_matches(name, valid, n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        return f"unknown parameter {name!r} for {owner}.{hint} Valid parameters: {', '.join(valid)}."
    field = model.model_fields.get(name)
    where = ".".join(str(p) for p in loc)
    msg = f"parameter {where!r} of {owner}: {error.get('msg')} (got {error.get('input')!r})"
    if field is not None:
        msg += f"; expected {_type_name(field.annotation)}, allowed: {_allowed(field)}"
    return msg + "."


def validate_params(model: type[Params], values: Mapping[str, Any] | Params | None, *, owner: str = "") -> Params:
    """Validate ``values`` against ``model``; raise :class:`ParameterError` naming the culprit."""
    owner = owner or model.__name__
    if isinstance(values, model):
        return values
    if isinstance(values, BaseModel):
        values = values.model_dump()
    if values is not None and not isinstance(values, Mapping):
        raise ParameterError(f"parameters of {owner} must be a mapping of name -> value, got {type(values).__name__}")
    try:
        return model.model_validate(dict(values or {}))
    except pydantic.ValidationError as exc:
        messages = [_format_error(model, owner, e) for e in exc.errors()]
        raise ParameterError(" ".join(messages)) from None


def canonical_params(params: Params) -> dict[str, Any]:
    """All parameters (defaults included) as JSON-compatible values, in declaration order."""
    return params.model_dump(mode="json")


# -- parsing from the command line -----------------------------------------------------------------


def _is_text_field(model: type[Params] | None, name: str) -> bool:
    if model is None or name not in model.model_fields:
        return False
    annotation = model.model_fields[name].annotation
    literals = _literal_values(annotation)
    if literals:
        return all(isinstance(v, str) for v in literals)
    return annotation is str


_INF_TOKEN = re.compile(r'(?<![\w".])([+-]?)inf(?:inity)?(?![\w"])', re.IGNORECASE)


def _loads(text: str) -> Any:
    """json.loads that also takes bare ``inf`` / ``-inf`` inside lists (``[1, inf]``)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        spelled = _INF_TOKEN.sub(lambda m: ("-" if m.group(1) == "-" else "") + "Infinity", text)
        if spelled == text:
            raise
        return json.loads(spelled)


def parse_value(text: str, *, model: type[Params] | None = None, name: str = "") -> Any:
    """Turn one CLI string into a value: JSON where it parses (numbers, lists, true/null), else text."""
    if _is_text_field(model, name):
        return text
    lowered = text.strip().lower()
    if lowered in ("none", "null"):
        return None
    if lowered in ("inf", "+inf", "infinity"):
        return float("inf")
    if lowered == "-inf":
        return float("-inf")
    try:
        return _loads(text)
    except (json.JSONDecodeError, ValueError):
        return text


def _split_assignment(item: str, flag: str) -> tuple[str, str]:
    if "=" not in item:
        raise ParameterError(f"{flag} expects key=value, got {item!r}")
    key, value = item.split("=", 1)
    key = key.strip()
    if not key:
        raise ParameterError(f"{flag} expects key=value with a non-empty key, got {item!r}")
    return key, value


def parse_assignments(items: Iterable[str], *, model: type[Params] | None = None) -> dict[str, Any]:
    """``["d=8", "loss=logistic"]`` -> ``{"d": 8, "loss": "logistic"}``."""
    out: dict[str, Any] = {}
    for item in items:
        key, value = _split_assignment(item, "-p/--param")
        out[key] = parse_value(value, model=model, name=key)
    return out


def parse_grid(items: Iterable[str], *, model: type[Params] | None = None) -> dict[str, list[Any]]:
    """``["d=8,16,32", "n=100"]`` -> ``{"d": [8, 16, 32], "n": [100]}``.

    A value that is a JSON list as a whole (``dims=[[1,2],[3]]``) gives the list's items.
    """
    out: dict[str, list[Any]] = {}
    for item in items:
        key, value = _split_assignment(item, "--grid")
        if value.strip().startswith("[") and not _is_text_field(model, key):
            try:
                parsed = _loads(value)
            except json.JSONDecodeError:
                parsed = None
            if isinstance(parsed, list):
                out[key] = parsed
                continue
        out[key] = [parse_value(v, model=model, name=key) for v in value.split(",") if v != ""]
        if not out[key]:
            raise ParameterError(f"--grid {key}= has no values; give a comma-separated list, e.g. {key}=1,2,3")
    return out


def parse_seeds(text: str | int | Sequence[int]) -> list[int]:
    """Seeds from ``"0:10"`` (0..9), ``"1,5,7"``, a single ``"3"``, an int or a list of ints."""
    if isinstance(text, int):
        return [text]
    if not isinstance(text, str):
        seeds = list(text)
        if not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
            raise ParameterError(f"seeds must be integers, got {seeds!r}")
        return seeds
    try:
        if ":" in text:
            start, stop = text.split(":", 1)
            seeds = list(range(int(start or 0), int(stop)))
        else:
            seeds = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise ParameterError(
            f"--seeds expects START:STOP (e.g. 0:10), a comma list (1,2,3) or one integer, got {text!r}"
        ) from None
    if not seeds:
        raise ParameterError(f"--seeds {text!r} selects no seeds")
    if any(s < 0 for s in seeds):
        raise ParameterError(f"seeds must be non-negative integers, got {text!r}")
    return seeds


__all__ = [
    "Field",
    "ParamInfo",
    "Params",
    "canonical_params",
    "describe_params",
    "parse_assignments",
    "parse_grid",
    "parse_seeds",
    "parse_value",
    "validate_params",
]
