"""Pytest hooks: a test whose dataset is missing is skipped, saying how to fetch it.

A :class:`~toolkit.errors.DatasetMissingError` (anywhere in the exception's chain) raised while a
test's fixtures are set up, while it runs, or while its module is collected becomes a skip whose
reason names the dataset and the command that fetches it (``toolkit data fetch NAME``). With
``TOOLKIT_REQUIRE_DATA=1`` (set by ``.ci/run``: CI has the data) the error stays a failure, so
that CI cannot go green by skipping.

Use it from a plugin's ``conftest.py``::

    from toolkit.testing.missing_data import *  # noqa: F401,F403  (the hooks below)
"""

from __future__ import annotations

import functools
import os
from collections.abc import Generator, Mapping
from typing import Any

import pytest

from toolkit.data import missing_dataset, skip_reason

REQUIRE_DATA_ENV = "TOOLKIT_REQUIRE_DATA"


def data_required() -> bool:
    """True when missing data must fail the tests (``TOOLKIT_REQUIRE_DATA`` set to 1/true/yes)."""
    return os.environ.get(REQUIRE_DATA_ENV, "").strip().lower() in ("1", "true", "yes")


@functools.lru_cache(maxsize=1)
def _registered_datasets() -> Mapping[str, Any] | None:
    """The registered datasets (to say whether one can be fetched); None when plugins cannot load."""
    try:
        from toolkit.registry import get_registry

        return get_registry().datasets
    except Exception:
        return None


def _skip_instead(exc: BaseException) -> None:
    """Raise a skip for a missing dataset (unless data is required); otherwise return."""
    missing = missing_dataset(exc)
    if missing is None or data_required():
        return
    datasets = _registered_datasets() if missing.dataset else None
    if datasets is not None and missing.dataset not in datasets:
        datasets = None  # a dataset of a plugin this registry does not load (a test fixture): no opinion
    raise pytest.skip.Exception(skip_reason(missing, datasets), allow_module_level=True) from exc


def _wrap_skipping_missing_data() -> Generator[None, Any, Any]:
    """The body of a hook wrapper whose wrapped call's missing-dataset error becomes a skip."""
    try:
        return (yield)
    except Exception as exc:
        _skip_instead(exc)
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, Any, Any]:
    return (yield from _wrap_skipping_missing_data())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, Any, Any]:
    return (yield from _wrap_skipping_missing_data())


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, Any, Any]:
    # the collection's exception is caught inside the report-making call: wrap the collector's own
    # collect() so that a missing dataset at import or parametrisation time raises a skip instead
    original = collector.collect

    def collect() -> Any:
        try:
            return original()
        except Exception as exc:
            _skip_instead(exc)
            raise

    collector.collect = collect  # type: ignore[method-assign]
    try:
        return (yield)
    finally:
        del collector.collect


__all__ = ["pytest_make_collect_report", "pytest_runtest_call", "pytest_runtest_setup"]
