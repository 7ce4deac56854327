"""The release rule holds: no distribution's code changed without a version bump and a changelog line."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

RULE_PATH = Path(__file__).resolve().parents[1] / "release_rule.py"
spec = importlib.util.spec_from_file_location("release_rule", RULE_PATH)
assert spec is not None and spec.loader is not None
release_rule = importlib.util.module_from_spec(spec)
sys.modules["release_rule"] = release_rule
spec.loader.exec_module(release_rule)


def test_every_distribution_is_recorded_at_its_version():
    assert release_rule.problems() == []


@pytest.fixture
def small_repo(tmp_path: Path) -> Path:
    (tmp_path / "toolkit").mkdir()
    (tmp_path / "toolkit" / "__init__.py").write_text('"""Core."""\n__version__ = "1.0.0"\n')
    (tmp_path / "CHANGELOG.md").write_text("# Changelog\n\n## 1.0.0\n\n- First.\n")
    plugin = tmp_path / "plugins" / "demo"
    (plugin / "toolkit_demo").mkdir(parents=True)
    (plugin / "toolkit_demo" / "__init__.py").write_text("def f(x):\n    return x + 1\n")
    (plugin / "pyproject.toml").write_text('[project]\nname = "theory-toolkit-demo"\nversion = "0.3.0"\n')
    (plugin / "CHANGELOG.md").write_text("## 0.3.0\n\n- First.\n")
    release_rule.record(tmp_path)
    return tmp_path


def test_a_code_change_without_a_version_bump_is_caught(small_repo: Path):
    source = small_repo / "plugins" / "demo" / "toolkit_demo" / "__init__.py"
    source.write_text("def f(x):\n    return x + 2\n")
    (found,) = release_rule.problems(small_repo)
    assert "theory-toolkit-demo: its code changed since version 0.3.0" in found
    assert "plugins/demo/pyproject.toml" in found


def test_comments_and_formatting_alone_do_not_count(small_repo: Path):
    source = small_repo / "plugins" / "demo" / "toolkit_demo" / "__init__.py"
    source.write_text("# a comment\ndef f( x ):\n    return x+1  # why\n")
    assert release_rule.problems(small_repo) == []


def test_a_bump_needs_a_changelog_heading_for_the_new_version(small_repo: Path):
    source = small_repo / "plugins" / "demo" / "toolkit_demo" / "__init__.py"
    source.write_text("def f(x):\n    return x + 2\n")
    pyproject = small_repo / "plugins" / "demo" / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace("0.3.0", "0.4.0"))
    (found,) = release_rule.problems(small_repo)
    assert "has no '## 0.4.0' heading" in found
    (small_repo / "plugins" / "demo" / "CHANGELOG.md").write_text("## 0.4.0\n\n- f adds two.\n\n## 0.3.0\n")
    assert release_rule.problems(small_repo) == []


def test_a_new_plugin_must_be_recorded(small_repo: Path):
    shutil.copytree(small_repo / "plugins" / "demo", small_repo / "plugins" / "other")
    other = small_repo / "plugins" / "other"
    (other / "toolkit_demo").rename(other / "toolkit_other")
    (other / "pyproject.toml").write_text('[project]\nname = "theory-toolkit-other"\nversion = "0.3.0"\n')
    (found,) = release_rule.problems(small_repo)
    assert "theory-toolkit-other: not in release-fingerprints.json" in found


def test_the_citation_file_names_the_cores_version():
    import re

    import toolkit

    text = (Path(__file__).parents[2] / "CITATION.cff").read_text()
    cited = re.search(r'^version:\s*"?([^"\n]+)"?\s*$', text, re.M)
    assert cited is not None and cited.group(1) == toolkit.__version__, (
        "CITATION.cff's version is not the core's: update it when the version goes up"
    )
