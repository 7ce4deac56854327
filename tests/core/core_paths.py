"""Paths and names shared by the core's tests (a uniquely named module: every test dir has a conftest)."""

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "plugin_fixtures"
FIRST_PARTY = ("gd_perceptron", "langgen", "sbayfdnn", "frog", "graphpfl")
