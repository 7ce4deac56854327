"""Frozen records that plugins return from their ``toolkit_register_*`` hooks.

The registry fills in ``plugin`` (the provider's name); plugins leave it empty.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.figure import Figure

    from toolkit.config import Params
    from toolkit.symbolic import Claim


@dataclass(frozen=True)
class SimulationOutput:
    """What a simulation function may return: tidy rows plus an optional summary.

    ``records`` is one dict per run or per step (a ``pandas.DataFrame`` is accepted too).
    ``summary`` holds the headline numbers of the run; when omitted, the runner uses the numeric
    values of the last row.
    """

    records: Any
    summary: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class PointCost:
    """What one point of a simulation costs, declared so the core refuses what cannot fit.

    :param memory_bytes: ``memory_bytes(params) -> float``: about the most bytes one point needs
        (an estimate that errs high), from the validated parameters.
    :param parameters: the parameters that drive it, named in the refusal (``("d", "n")``).
    """

    memory_bytes: Callable[[Any], float]
    parameters: tuple[str, ...] = ()


@dataclass(frozen=True)
class Simulation:
    """A named, seeded computation: ``func(params, seed)`` returns tidy records.

    :param name: namespaced name, ``"<plugin>.<what>"``.
    :param func: ``func(params: params_model, seed: int)`` returning a ``SimulationOutput``, a
        ``pandas.DataFrame``, a list of dicts (rows) or one dict (a single row). It must draw all its
        randomness from ``seed``. Module-level functions are best: they pickle for process and
        Dask executors.
    :param params: the :class:`toolkit.config.Params` subclass of its parameters.
    :param description: one line for ``toolkit list``; the longer docs come from ``func``'s docstring.
    :param bounds: names of registered bounds its rows must respect; ``run``/``sweep`` check them.
    :param quick: parameter overrides for a quick run (the plugin-author harness and smoke tests); a
        list of such dicts declares several quick settings, so that the harness runs every branch
        (``quick`` then reads as the first, ``quick_settings`` holds them all).
    :param plot: ``plot(table, figure)`` draws the results of a run or sweep on a matplotlib figure.
    :param version: bump to invalidate stored results of this simulation (default: the plugin's).
    :param keyed_packages: distributions whose installed versions key the store too (``("scs",)``): for a
        result that moves between releases of a numerical library, so an upgrade recomputes instead of
        serving results the new release would not give.
    :param cost: what one point costs (:class:`PointCost`); ``run``/``sweep`` refuse, before any
        work, a point that cannot fit in this machine's memory.
    """

    name: str
    func: Callable[..., Any]
    params: type[Params]
    description: str
    bounds: tuple[str, ...] = ()
    quick: Mapping[str, Any] = field(default_factory=dict)
    plot: Callable[[pd.DataFrame, Figure], None] | None = None
    version: str | None = None
    plugin: str = ""
    cost: PointCost | None = None
    keyed_packages: tuple[str, ...] = ()
    quick_settings: tuple[Mapping[str, Any], ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        packages = self.keyed_packages
        if isinstance(packages, str) or not all(isinstance(p, str) and p for p in packages):
            raise TypeError(
                f"simulation {self.name}: keyed_packages must be a tuple of distribution names, got {packages!r}"
            )
        object.__setattr__(self, "keyed_packages", tuple(packages))
        quick = self.quick
        if isinstance(quick, Mapping):
            settings = self.quick_settings
            if not settings or dict(settings[0]) != dict(quick):
                object.__setattr__(self, "quick_settings", (dict(quick),))
            return
        settings = tuple(quick)
        if not settings or not all(isinstance(q, Mapping) for q in settings):
            raise TypeError(
                f"simulation {self.name}: quick must be a dict of parameter overrides or a non-empty list "
                f"of such dicts, got {quick!r}"
            )
        object.__setattr__(self, "quick_settings", tuple(dict(q) for q in settings))
        object.__setattr__(self, "quick", dict(settings[0]))

    @property
    def docs(self) -> str:
        import inspect

        return inspect.getdoc(self.func) or self.description


@dataclass(frozen=True)
class Bound:
    """A bound from theory: symbolic claims to prove, and a value to hold results against.

    :param claims: :class:`toolkit.symbolic.Claim` objects proved by ``toolkit prove``.
    :param expression: the bound's value as a function of a result row: a sympy expression whose
        free symbols are named like the row's columns (see ``columns`` to rename), or a callable
        ``f(row: Mapping) -> float``. ``None`` for a bound that is only symbolic.
    :param metric: the result column the bound constrains (required with ``expression``).
    :param sense: ``"upper"`` (metric <= bound) or ``"lower"`` (metric >= bound).
    :param slack: absolute tolerance allowed when checking results.
    :param columns: symbol name -> column name, where they differ.
    :param applies: ``applies(row) -> bool`` selects the rows the bound is about; others are skipped.
    :param domain: ``{symbol: (low, high)}``, where the bound is meant to hold (ends included;
        ``None`` or ``sympy.oo`` for an unbounded end). Every numeric check uses it: the harness
        samples the expression inside it, and its claims inherit it for the symbols (matched by
        name) that their own ``domain`` leaves open.
    """

    name: str
    description: str
    claims: tuple[Claim, ...] = ()
    expression: Any = None
    metric: str | None = None
    sense: Literal["upper", "lower"] = "upper"
    slack: float = 0.0
    columns: Mapping[str, str] = field(default_factory=dict)
    applies: Callable[[Mapping[str, Any]], bool] | None = None
    plugin: str = ""
    domain: Mapping[Any, tuple[Any, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.sense not in ("upper", "lower"):
            raise ValueError(f"Bound {self.name!r}: sense must be 'upper' or 'lower', got {self.sense!r}")
        if self.domain:
            from toolkit.symbolic import normalize_domain  # sympy only for bounds that declare a domain

            try:
                object.__setattr__(self, "domain", normalize_domain(self.domain))
            except ValueError as exc:
                raise ValueError(f"Bound {self.name!r}: {exc}") from None
        if self.expression is not None and not self.metric:
            raise ValueError(f"Bound {self.name!r}: an expression needs the metric it constrains")


@dataclass(frozen=True)
class DataSource:
    """Where a dataset officially comes from, so that ``toolkit data fetch`` can get it.

    :param url: the official download address of one file (an archive or a plain file).
    :param sha256: the hex SHA-256 of that file; a download that does not match is refused.
        ``None`` only where no official checksum is published (the fetch then says so).
    :param target: the folder, relative to the data root, that the dataset lives in once fetched
        (``TUDataset/MUTAG``); an archive is unpacked there.
    :param unpack: ``"zip"``, ``"tar"`` (any compression) or ``None`` (keep the file as it is).
    :param strip_components: leading path components to drop from archive members (like tar's).
    :param license: the dataset's licence or terms, as its source states them.
    :param size_bytes: the download's size, shown before fetching (optional).
    :param files: for a release of several plain files: ``(relative path, sha256)`` pairs. Each is
        downloaded from ``url + "/" + path`` into ``target/path``, every checksum is verified before
        any file is moved into place, and the dataset is present when all of them are. Several
        datasets may then share one target folder. ``sha256`` and ``unpack`` must be ``None``.
    """

    url: str
    sha256: str | None
    target: str
    unpack: str | None = None
    strip_components: int = 0
    license: str = ""
    size_bytes: int | None = None
    files: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Dataset:
    """A dataset loader or synthetic generator: ``loader(**params)`` returns the data.

    :param params: an optional :class:`toolkit.config.Params` subclass validating the loader's
        keyword arguments (shown by ``toolkit show``).
    :param source: where the real data comes from (:class:`DataSource`), for datasets read from the
        data root; ``None`` for synthetic generators and data shipped inside packages.
    """

    name: str
    description: str
    loader: Callable[..., Any]
    params: type[Params] | None = None
    plugin: str = ""
    source: DataSource | None = None

    def load(self, **kwargs: Any) -> Any:
        if self.params is not None:
            from toolkit.config import validate_params

            kwargs = dict(validate_params(self.params, kwargs, owner=self.name))
        return self.loader(**kwargs)


@dataclass(frozen=True)
class Comparison:
    """One line of a reproduction report: the paper's claim beside our measured number."""

    claim: str
    paper: str
    measured: str
    ok: bool | None = None
    documented: str = ""
    """Why a miss is known and expected (the plugin's documentation says so); empty: a miss is unexpected."""


@dataclass
class ExperimentOutcome:
    """What a headline experiment returns: its table, the claim-by-claim comparison and a figure."""

    table: pd.DataFrame
    comparisons: Sequence[Comparison] = ()
    plot: Callable[[Figure], None] | None = None
    notes: str = ""


@dataclass(frozen=True)
class Experiment:
    """A headline experiment for ``toolkit reproduce``: ``run(quick: bool)`` -> ExperimentOutcome.

    The quick setting must run in seconds on a laptop CPU with default data; the full setting
    produces the statistics quoted in the plugin's README.
    """

    name: str
    description: str
    run: Callable[[bool], ExperimentOutcome]
    plugin: str = ""


_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


@dataclass(frozen=True)
class Deferred:
    """Specs described now and built on first use: what a ``toolkit_register_*`` hook returns to
    keep loading a plugin free of its heavy imports.

    :param target: ``"package.module:ATTRIBUTE"``, the list of specs (``SIMULATIONS``) or a function
        of no arguments returning one. It is imported the first time one of its specs is looked
        up (``toolkit show``, ``run``, ``prove``...), never by ``toolkit list`` or ``--help``.
    :param names: ``{name: description}`` of every spec the target holds, as ``toolkit list`` shows
        them. The harness (:mod:`toolkit.testing`) checks that it matches the target exactly.
    """

    target: str
    names: Mapping[str, str]

    def __post_init__(self) -> None:
        if not isinstance(self.target, str) or not _TARGET.match(self.target):
            raise ValueError(f"Deferred target must be 'package.module:ATTRIBUTE', got {self.target!r}")
        if not isinstance(self.names, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in self.names.items()
        ):
            raise ValueError(
                f"Deferred({self.target!r}): names must map each spec name to its one-line description"
            )

    def build(self) -> list[Any]:
        """Import the target and return its specs (a list)."""
        module_name, attr = self.target.split(":")
        value = getattr(importlib.import_module(module_name), attr)
        if callable(value):
            value = value()
        return [value] if not isinstance(value, (list, tuple)) else list(value)


def defer(target: str, names: Mapping[str, str]) -> Callable[[], list[Deferred]]:
    """A ready-made ``toolkit_register_*`` hook implementation that returns ``Deferred(target, names)``.

    Assign it to the hook's name in the plugin's ``__init__.py``::

        toolkit_register_bounds = defer("toolkit_example.bounds:BOUNDS", {
            "example.walk_range": "|S_t| <= t: a walk of t unit steps cannot go further than t",
        })
    """
    from toolkit import hookimpl

    deferred = Deferred(target, names)

    def register() -> list[Deferred]:
        return [deferred]

    register.__doc__ = f"Registers {', '.join(deferred.names)} (built from {target} on first use)."
    return hookimpl(register)


__all__ = [
    "Bound",
    "Comparison",
    "Dataset",
    "DataSource",
    "Deferred",
    "defer",
    "Experiment",
    "ExperimentOutcome",
    "PointCost",
    "Simulation",
    "SimulationOutput",
]
