"""Paths and names shared by the core's tests (a uniquely named module: every test dir has a conftest)."""

from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
FIXTURES = REPO / "tests" / "plugin_fixtures"
# every distribution under plugins/ (a plugin added there is disabled in the core's tests too)
FIRST_PARTY = tuple(sorted(p.name for p in (REPO / "plugins").iterdir() if (p / "pyproject.toml").is_file()))
