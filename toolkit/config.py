"""Parameter models: typed, defaulted, validated, parsed from CLI strings and JSON.

A simulation's parameters are a :class:`Params` subclass (pydantic)::

    class ScalingParams(Params):
        d: int = Field(64, ge=2, description="number of features")
        loss: Literal["logistic", "exponential"] = "logistic"

Validation errors become :class:`~toolkit.errors.ParameterError` naming the parameter, the
expected type and the allowed values.
"""

from __future__ import annotations

import collections.abc
import difflib
import json
import math
import numbers
import operator
import re
import types
import typing
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import annotated_types
import pydantic
from pydantic import BaseModel, ConfigDict, Field

from toolkit.errors import ParameterError
from toolkit.fingerprint import ContentPath, HashContent


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
    if annotation is Ellipsis:  # tuple[str, ...]
        return "..."
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        if any(isinstance(m, HashContent) for m in annotation.__metadata__):
            return "path"
        return _type_name(typing.get_args(annotation)[0])
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
            if value is not None and isinstance(
                meta,
                (
                    annotated_types.Ge,
                    annotated_types.Gt,
                    annotated_types.Le,
                    annotated_types.Lt,
                    annotated_types.Interval,
                ),
            ):
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
        marked = any(isinstance(m, HashContent) for m in field.metadata)  # pydantic moved it off the type
        # a marked dict or list (e.g. a dataset loader's arguments) keeps its own type: only its texts are hashed
        marked = marked and not _type_name(field.annotation).startswith(("dict", "list", "tuple"))
        type_name = "path" if marked else _type_name(field.annotation)
        allowed = "any path or text" if marked else _allowed(field)
        rows.append(ParamInfo(name, type_name, default, allowed, field.description or ""))
    return rows


def _list_item_annotation(annotation: Any) -> Any | None:
    """The item type of a list-like annotation (``list[int]`` -> int), ``Any`` for a bare list, else None."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        for arg in typing.get_args(annotation):
            item = _list_item_annotation(arg)
            if item is not None:
                return item
        return None
    if annotation in (list, tuple, set, frozenset):
        return Any
    if origin in (list, tuple, set, frozenset, Sequence, collections.abc.Sequence):
        args = [a for a in typing.get_args(annotation) if a is not Ellipsis]
        return args[0] if args else Any
    return None


def _is_list_field(model: type[Params] | None, name: str) -> bool:
    return (
        model is not None
        and name in model.model_fields
        and _list_item_annotation(model.model_fields[name].annotation) is not None
    )


def _format_error(model: type[Params], owner: str, error: Mapping[str, Any]) -> str:
    loc = error.get("loc")
    if not loc:  # a model validator: name the parameters its message mentions
        text = str(error.get("msg", "")).removeprefix("Value error, ")
        named = [f for f in model.model_fields if re.search(rf"\b{re.escape(f)}\b", text)]
        which = (
            f"parameter{'s' if len(named) > 1 else ''} {', '.join(map(repr, named))}"
            if named
            else "the parameters"
        )
        return f"{which} of {owner}: {text}."
    name = str(loc[0])
    if error.get("type") == "extra_forbidden":
        valid = list(model.model_fields)
        close = difflib.get_close_matches(name, valid, n=3, cutoff=0.5)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        return f"unknown parameter {name!r} for {owner}.{hint} Valid parameters: {', '.join(valid)}."
    field = model.model_fields.get(name)
    where = ".".join(str(p) for p in loc)
    got = repr(error.get("input"))
    got = got if len(got) <= 100 else got[:97] + "..."  # a whole class file or JSON document: its start
    msg = f"parameter {where!r} of {owner}: {error.get('msg')} (got {got})"
    allowed = _allowed(field) if field is not None else ""
    # a validator's own message already says what is wrong; "allowed: any str" would add nothing
    if field is not None and not (error.get("type") == "value_error" and allowed.startswith("any ")):
        msg += f"; expected {_type_name(field.annotation)}, allowed: {allowed}"
        if _list_item_annotation(field.annotation) is not None:
            msg += f" (on the command line a list is written {name}=16,32 or {name}=[16,32])"
    return msg + "."


def validate_params(
    model: type[Params], values: Mapping[str, Any] | Params | None, *, owner: str = ""
) -> Params:
    """Validate ``values`` against ``model``; raise :class:`ParameterError` naming the culprit."""
    owner = owner or model.__name__
    if isinstance(values, model):
        return values
    if isinstance(values, BaseModel):
        values = values.model_dump()
    if values is not None and not isinstance(values, Mapping):
        raise ParameterError(
            f"parameters of {owner} must be a mapping of name -> value, got {type(values).__name__}"
        )
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


# One rule for the special floats: ``nan``, ``inf``, ``-inf`` (any case, ``infinity`` too) are numbers,
# alone or inside lists; the parameter's model then decides whether it allows them.
_SPECIAL_TOKEN = re.compile(r'(?<![\w".])([+-]?)(inf(?:inity)?|nan)(?![\w"])', re.IGNORECASE)
_SPECIAL = {
    "nan": math.nan,
    "inf": math.inf,
    "+inf": math.inf,
    "infinity": math.inf,
    "+infinity": math.inf,
    "-inf": -math.inf,
    "-infinity": -math.inf,
}


def _spell_special(match: re.Match) -> str:
    if match.group(2).lower() == "nan":
        return "NaN"
    return ("-" if match.group(1) == "-" else "") + "Infinity"


def _loads(text: str) -> Any:
    """json.loads that also takes bare ``nan`` / ``inf`` / ``-inf`` inside lists (``[1, inf, nan]``)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        spelled = _SPECIAL_TOKEN.sub(_spell_special, text)
        if spelled == text:
            raise
        return json.loads(spelled)


def parse_value(text: str, *, model: type[Params] | None = None, name: str = "") -> Any:
    """Turn one CLI string into a value: JSON where it parses (numbers, lists, true/null), else text."""
    if _is_text_field(model, name):
        return text
    if _is_list_field(model, name):
        return _parse_list(text, model, name)
    lowered = text.strip().lower()
    if lowered in ("none", "null"):
        return None
    if lowered in _SPECIAL:
        return _SPECIAL[lowered]
    try:
        return _loads(text)
    except (json.JSONDecodeError, ValueError):
        return text


def _split_top(text: str) -> list[str]:
    """Split at the commas outside brackets: ``[a],[b,c]`` -> ``["[a]", "[b,c]"]``."""
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        depth += (ch == "[") - (ch == "]")
        current.append(ch)
    if "".join(current).strip() or parts:
        parts.append("".join(current).strip())
    return parts


def _parse_list(text: str, model: type[Params] | None, name: str) -> Any:
    """A list parameter from ``16,32``, ``[16,32]``, ``[sgd,svrg]`` or one value ``16`` (a list of one)."""
    stripped = text.strip()
    if stripped.lower() in ("none", "null"):
        return None
    item = _list_item_annotation(model.model_fields[name].annotation) if model is not None else Any
    text_items = item is str or (
        bool(_literal_values(item)) and all(isinstance(v, str) for v in _literal_values(item))
    )
    if not text_items and stripped.startswith("["):
        try:
            parsed = _loads(stripped)
            if isinstance(parsed, list):
                return parsed
        except (json.JSONDecodeError, ValueError):
            pass
    return _parse_items(stripped, text_items)


def _parse_items(text: str, text_items: bool) -> list[Any]:
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    out: list[Any] = []
    for part in _split_top(text):
        if part.startswith("[") and part.endswith("]"):
            out.append(_parse_items(part, text_items))
        elif text_items:
            out.append(part[1:-1] if len(part) >= 2 and part[0] == part[-1] and part[0] in "'\"" else part)
        else:
            out.append(parse_value(part))
    return out


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
        if key in out:
            raise ParameterError(f"-p {key}= is given twice; give each parameter once")
        out[key] = parse_value(value, model=model, name=key)
    return out


def parse_grid(items: Iterable[str], *, model: type[Params] | None = None) -> dict[str, list[Any]]:
    """``["d=8,16,32", "n=100"]`` -> ``{"d": [8, 16, 32], "n": [100]}``.

    A value that is a JSON list as a whole (``dims=[[1,2],[3]]``) gives the list's items.
    """
    out: dict[str, list[Any]] = {}
    for item in items:
        key, value = _split_assignment(item, "--grid")
        if key in out:
            raise ParameterError(
                f"--grid {key}= is given twice; give all its values in one --grid {key}=V1,V2,..."
            )
        if _is_list_field(model, key):
            # each grid value of a list parameter is a list: --grid d_values=[[16,32],[64]]
            whole = _parse_list(value, model, key)
            out[key] = [v if isinstance(v, list) else [v] for v in whole] if whole else []
            if not out[key]:
                raise ParameterError(f"--grid {key}= has no values; give lists, e.g. {key}=[[16,32],[64]]")
            continue
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
            raise ParameterError(
                f"--grid {key}= has no values; give a comma-separated list, e.g. {key}=1,2,3"
            )
    return out


SEED_MAX = 2**63 - 1
"""The largest seed (what one SQLite integer holds); seeds are integers in 0..SEED_MAX."""

MAX_SWEEP_POINTS = 1_000_000
"""No sweep has more points (grid size x seeds) than this; split a bigger one."""

_SEEDS_SYNTAX = (
    "seeds are START:STOP (e.g. 0:10), a comma list (1,2,3), one integer, or a list / array of integers"
)


def _seed(value: Any, shown: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterError(f"{_SEEDS_SYNTAX}; got {shown!r}")
    seed = operator.index(value)
    if not 0 <= seed <= SEED_MAX:
        raise ParameterError(f"seeds must be integers from 0 to {SEED_MAX} (2**63 - 1), got {seed}")
    return seed


def parse_seeds(text: str | int | Sequence[int] | Any) -> list[int]:
    """Seeds from ``"0:10"`` (0..9), ``"1,5,7"``, a single ``"3"``, an int or a list / numpy array of ints.

    Every seed is an integer from 0 to :data:`SEED_MAX`; an empty selection and more than
    :data:`MAX_SWEEP_POINTS` seeds are refused before anything is built.
    """
    if isinstance(text, str):
        seeds = _seeds_from_text(text)
    elif isinstance(text, numbers.Integral) and not isinstance(text, bool):
        seeds = [_seed(text, text)]
    elif isinstance(text, (bytes, Mapping)) or not isinstance(text, Iterable) or isinstance(text, bool):
        raise ParameterError(f"{_SEEDS_SYNTAX}; got {text!r}")
    else:
        if hasattr(text, "ndim") and text.ndim != 1:  # numpy arrays: one dimension
            if text.ndim == 0:
                return parse_seeds(text.item())  # type: ignore[union-attr]  # a 0-d numpy array
            raise ParameterError(f"{_SEEDS_SYNTAX}; got an array of shape {getattr(text, 'shape', '?')}")
        items = list(text)
        if len(items) > MAX_SWEEP_POINTS:
            raise ParameterError(
                f"{len(items)} seeds is more than a sweep may have ({MAX_SWEEP_POINTS}); split it"
            )
        seeds = [_seed(s, s) for s in items]
        if not seeds:
            raise ParameterError(f"seeds {text!r} selects no seeds; {_SEEDS_SYNTAX}")
    return seeds


def _seeds_from_text(text: str) -> list[int]:
    syntax = f"--seeds expects START:STOP (e.g. 0:10), a comma list (1,2,3) or one integer, got {text!r}"
    try:
        if ":" in text:
            start_text, stop_text = text.split(":", 1)
            start, stop = int(start_text or 0), int(stop_text)
        else:
            listed = [int(s) for s in text.split(",") if s.strip()]
    except ValueError:
        raise ParameterError(syntax) from None
    if ":" in text:
        if start < 0 or stop - 1 > SEED_MAX:
            raise ParameterError(f"--seeds {text!r}: seeds must be integers from 0 to {SEED_MAX} (2**63 - 1)")
        if stop - start > MAX_SWEEP_POINTS:
            raise ParameterError(
                f"--seeds {text!r} selects {stop - start} seeds, more than a sweep may have "
                f"({MAX_SWEEP_POINTS}); split it into several sweeps"
            )
        seeds = list(range(start, stop))
    else:
        seeds = listed
    if not seeds:
        raise ParameterError(f"--seeds {text!r} selects no seeds")
    if any(s < 0 for s in seeds):
        raise ParameterError(f"seeds must be non-negative integers, got {text!r}")
    for s in seeds:
        if s > SEED_MAX:
            raise ParameterError(
                f"--seeds {text!r}: seeds must be integers from 0 to {SEED_MAX} (2**63 - 1), got {s}"
            )
    return seeds


__all__ = [
    "MAX_SWEEP_POINTS",
    "SEED_MAX",
    "ContentPath",
    "Field",
    "HashContent",
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
