"""Fixtures for the core's tests: example plugin sites on sys.path, registries, stores."""

from __future__ import annotations

import sys

import pytest
from core_paths import FIRST_PARTY, FIXTURES


@pytest.fixture
def example_site(monkeypatch):
    """The example third-party plugin installed (a dist-info on sys.path), first-party plugins off."""
    path = str(FIXTURES / "site_example")
    monkeypatch.syspath_prepend(path)
    monkeypatch.setenv("TOOLKIT_DISABLE_PLUGINS", ",".join(FIRST_PARTY))
    yield path
    for mod in [m for m in sys.modules if m.startswith("toolkit_example")]:
        del sys.modules[mod]


@pytest.fixture
def registry(example_site):
    from toolkit.registry import get_registry

    return get_registry()


@pytest.fixture
def store_path(tmp_path):
    return tmp_path / "runs.sqlite"
