"""argparse pieces shared by the graphpfl study scripts (``plugins/graphpfl/studies/graphpfl_*.py``): bad input ends
with exit status 2 and a message naming the option before any run starts. Light: argparse and the core."""

from __future__ import annotations

import argparse
from collections.abc import Sequence


def seed_selection(text: str) -> list[int]:
    """argparse ``type=`` for ``--seeds``: ``a:b`` (a..b-1) or a comma list, in the core's seed syntax."""
    from toolkit.config import parse_seeds
    from toolkit.errors import ParameterError

    try:
        return parse_seeds(text)
    except ParameterError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


seed_selection.__name__ = "seeds (a:b or comma list)"  # argparse shows this name in "invalid ... value"


def check_strategies(parser: argparse.ArgumentParser, option: str, names: Sequence[str]) -> None:
    """``parser.error`` (exit 2) unless every name is a strategy, built in or registered by a plugin."""
    from toolkit_graphpfl.simulation import strategy_classes

    known = strategy_classes()
    unknown = [n for n in names if n not in known]
    if unknown:
        parser.error(
            f"argument {option}: unknown strategy {', '.join(map(repr, unknown))}; "
            f"allowed: {', '.join(sorted(known))}"
        )
