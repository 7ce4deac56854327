"""The core ships ``py.typed`` so that type checkers read its annotations in a user's project."""

from __future__ import annotations

import tomllib
from core_paths import REPO


def test_py_typed_is_in_the_package_and_its_package_data():
    assert (REPO / "toolkit" / "py.typed").is_file()
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["toolkit"]
