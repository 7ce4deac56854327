"""argparse types and options for study scripts: comma-separated lists (``--seeds 0,1,2``,
``--seeds 0:10``) and the options every study that runs through the run store takes (``--store``,
``--executor``).

A bad item becomes an ``argparse.ArgumentTypeError``, so argparse names the option, prints the
allowed values and exits with status 2 before any work is done (the project's rule for bad input).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from toolkit.executors import EXECUTORS  # the standard library and toolkit.errors: cheap at start-up

if TYPE_CHECKING:
    from toolkit.store import RunStore

__all__ = ["add_run_options", "comma_list", "open_run_store", "seeds"]

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


def add_run_options(
    parser: argparse.ArgumentParser,
    *,
    executors: Sequence[str] = EXECUTORS,
    default_executor: str = "serial",
) -> None:
    """Add ``--store PATH`` and ``--executor NAME`` to a study script's parser.

    ``--store`` defaults to ``None``, read by :func:`open_run_store` as the ``TOOLKIT_STORE`` setting;
    ``--executor`` takes one of ``executors`` (a study whose points cannot leave the process offers
    fewer), so a wrong name exits with status 2 listing the allowed ones.
    """
    unknown = [name for name in executors if name not in EXECUTORS]
    if unknown or default_executor not in executors:
        raise ValueError(
            f"executors must be among {', '.join(EXECUTORS)} and include default_executor "
            f"{default_executor!r}; got {list(executors)}"
        )
    parser.add_argument(
        "--store",
        default=None,
        metavar="PATH",
        help="run store file (default: TOOLKIT_STORE or the default store)",
    )
    parser.add_argument(
        "--executor",
        choices=tuple(executors),
        default=default_executor,
        help="how the points run (default: %(default)s)",
    )


def open_run_store(path: str | None) -> RunStore:
    """The run store at ``path``, or the configured one (``TOOLKIT_STORE``) when ``path`` is ``None``."""
    from toolkit.settings import get_settings
    from toolkit.store import RunStore

    return RunStore(path if path is not None else get_settings().store_path)
