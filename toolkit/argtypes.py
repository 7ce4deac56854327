"""argparse types for the comma-separated lists that study scripts take (``--seeds 0,1,2``, ``--seeds 0:10``).

A bad item becomes an ``argparse.ArgumentTypeError``, so argparse names the option, prints the
allowed values and exits with status 2 before any work is done (the project's rule for bad input).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["comma_list", "seeds"]

_KIND: dict[Any, str] = {int: "integers", float: "numbers", str: "names"}


def comma_list(
    item: Callable[[str], Any] = str,
    *,
    choices: Iterable[Any] | None = None,
    minimum: float | None = None,
    allow_duplicates: bool = False,
) -> Callable[[str], list[Any]]:
    """An argparse ``type=`` that turns ``"a,b,c"`` into ``[item("a"), item("b"), item("c")]``.

    ``choices`` limits the items to the values given; ``minimum`` bounds numeric items from below.
    Empty items (a trailing comma) are ignored; an empty list, an unparsable or disallowed item, and
    a repeated item (unless ``allow_duplicates``) are refused with a message naming the item.
    """
    allowed = None if choices is None else list(choices)
    kind = str(_KIND.get(item) or getattr(item, "__name__", "values"))

    def parse(text: str) -> list[Any]:
        parts = [part.strip() for part in text.split(",") if part.strip()]
        if not parts:
            raise argparse.ArgumentTypeError(f"expected comma-separated {kind} (e.g. 0,1,2), got {text!r}")
        values = []
        for part in parts:
            try:
                value = item(part)
            except (TypeError, ValueError):
                raise argparse.ArgumentTypeError(
                    f"{part!r} is not one of the comma-separated {kind} expected, in {text!r}"
                ) from None
            if allowed is not None and value not in allowed:
                shown = ", ".join(str(a) for a in allowed)
                raise argparse.ArgumentTypeError(f"unknown value {part!r}; allowed: {shown}")
            if minimum is not None and value < minimum:
                raise argparse.ArgumentTypeError(f"{part!r} is below the minimum {minimum}")
            if not allow_duplicates and value in values:
                raise argparse.ArgumentTypeError(f"{part!r} is listed twice in {text!r}")
            values.append(value)
        return values

    parse.__name__ = f"comma-separated {kind}"  # argparse shows this name in "invalid ... value"
    return parse


_seed_items = comma_list(int, minimum=0)


def seeds(text: str) -> list[int]:
    """``--seeds 0,1,2`` (distinct non-negative integers) or ``--seeds START:STOP`` (``0:10`` is 0..9).

    The range form is read by :func:`toolkit.config.parse_seeds`, the parser of ``toolkit run/sweep
    --seeds``, so both take the same thing with the same bounds; START may be left out (``:5``).
    """
    if ":" not in text:
        return _seed_items(text)
    from toolkit.config import parse_seeds  # pydantic: imported only for the range form
    from toolkit.errors import ParameterError

    try:
        return parse_seeds(text.strip())
    except ParameterError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


seeds.__name__ = "seeds"  # argparse shows this name in "invalid ... value"
