"""argparse types for the comma-separated lists that study scripts take (``--seeds 0,1,2``, ``--seeds 0:10``).

A bad item becomes an ``argparse.ArgumentTypeError``, so argparse names the option, prints the
allowed values and exits with status 2 before any work is done (the project's rule for bad input).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["comma_list", "seeds"]

_KIND = {int: "integers", float: "numbers", str: "names"}


def comma_list(item: Callable[[str], Any] = str, *, choices: Iterable[Any] | None = None,
               minimum: float | None = None, allow_duplicates: bool = False) -> Callable[[str], list[Any]]:
    """An argparse ``type=`` that turns ``"a,b,c"`` into ``[item("a"), item("b"), item("c")]``.

    ``choices`` limits the items to the values given; ``minimum`` bounds numeric items from below.
    Empty items (a trailing comma) are ignored; an empty list, an unparsable or disallowed item, and
    a repeated item (unless ``allow_duplicates``) are refused with a message naming the item.
    """
    allowed = None if choices is None else list(choices)
    kind = _KIND.get(item, getattr(item, "__name__", "values"))

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
                    f"{part!r} is not one of the comma-separated {kind} expected, in {text!r}") from None
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

    The range form is the one ``toolkit run/sweep --seeds`` takes, so a user types the same thing to
    both; START may be left out (``:5``).
    """
    if ":" not in text:
        return _seed_items(text)
    start_text, _, stop_text = text.partition(":")
    try:
        start, stop = int(start_text.strip() or 0), int(stop_text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected START:STOP with integer bounds (e.g. 0:10), got {text!r}") from None
    if start < 0:
        raise argparse.ArgumentTypeError(f"{text!r}: seeds start at 0 or above")
    if stop <= start:
        raise argparse.ArgumentTypeError(f"{text!r} selects no seeds (STOP is exclusive: 0:10 is 0..9)")
    return list(range(start, stop))


seeds.__name__ = "seeds"  # argparse shows this name in "invalid ... value"
