"""The release rule: a distribution's version goes up whenever its code changes.

Each distribution (the core and every plugin under ``plugins/``) has a *fingerprint*: a SHA-256 over its
import package's files, where a Python file counts by its syntax tree (``ast.dump``), so that a change
in comments or formatting alone does not count and a change in code or a docstring does. The file
``release-fingerprints.json`` at the repository root records, per distribution, the version and the
fingerprint at the last release record. ``tests/core/test_release_rule.py`` fails when a fingerprint
differs from its record while the version is still the recorded one.

After changing a distribution's behaviour: raise its version, add a line under the new version's
heading in its CHANGELOG.md, then record::

    python tests/release_rule.py record
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD = ROOT / "release-fingerprints.json"
PACKAGE_DATA = {".py", ".json", ".csv", ".md", ".typed"}


@dataclass(frozen=True)
class Distribution:
    name: str
    version: str
    package: Path
    changelog: Path
    version_file: Path


def _version_of_pyproject(pyproject: Path) -> str:
    match = re.search(r'^version\s*=\s*"([^"]+)"', pyproject.read_text(), re.M)
    if match is None:
        raise ValueError(f'{pyproject}: no static `version = "..."` line')
    return match.group(1)


def _name_of_pyproject(pyproject: Path) -> str:
    match = re.search(r'^name\s*=\s*"([^"]+)"', pyproject.read_text(), re.M)
    if match is None:
        raise ValueError(f'{pyproject}: no `name = "..."` line')
    return match.group(1)


def distributions(root: Path = ROOT) -> list[Distribution]:
    """The core and every plugin distribution under ``plugins/``."""
    core_init = root / "toolkit" / "__init__.py"
    core_version = re.search(r'^__version__\s*=\s*"([^"]+)"', core_init.read_text(), re.M)
    assert core_version is not None, "toolkit/__init__.py has no __version__"
    found = [
        Distribution(
            "theory-toolkit", core_version.group(1), root / "toolkit", root / "CHANGELOG.md", core_init
        )
    ]
    for pyproject in sorted((root / "plugins").glob("*/pyproject.toml")):
        packages = [p for p in pyproject.parent.glob("toolkit_*") if (p / "__init__.py").is_file()]
        if len(packages) != 1:
            raise ValueError(f"{pyproject.parent}: expected one toolkit_* package, found {len(packages)}")
        found.append(
            Distribution(
                _name_of_pyproject(pyproject),
                _version_of_pyproject(pyproject),
                packages[0],
                pyproject.parent / "CHANGELOG.md",
                pyproject,
            )
        )
    return found


def _file_digest(path: Path) -> bytes:
    if path.suffix == ".py":
        # the syntax tree: comments and formatting do not count, code and docstrings do
        return ast.dump(ast.parse(path.read_text(), str(path))).encode()
    return path.read_bytes()


def fingerprint(package: Path) -> str:
    """SHA-256 over the package's source and data files (relative path and content)."""
    digest = hashlib.sha256()
    for path in sorted(package.rglob("*")):
        if path.is_file() and path.suffix in PACKAGE_DATA and "__pycache__" not in path.parts:
            digest.update(path.relative_to(package).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(_file_digest(path)).digest())
    return digest.hexdigest()


def changelog_versions(changelog: Path) -> list[str]:
    """The versions a changelog has a ``## <version>`` heading for, newest first."""
    if not changelog.is_file():
        return []
    return re.findall(r"^##\s+v?(\d+(?:\.\d+)*\S*)", changelog.read_text(), re.M)


def record(root: Path = ROOT) -> dict[str, dict[str, str]]:
    entries = {
        d.name: {"version": d.version, "fingerprint": fingerprint(d.package)} for d in distributions(root)
    }
    (root / RECORD.name).write_text(json.dumps(entries, indent=2, sort_keys=True) + "\n")
    return entries


def problems(root: Path = ROOT) -> list[str]:
    """Every breach of the release rule, as a sentence saying what to do."""
    recorded = json.loads((root / RECORD.name).read_text()) if (root / RECORD.name).is_file() else {}
    found: list[str] = []
    for dist in distributions(root):
        if dist.version not in changelog_versions(dist.changelog):
            found.append(
                f"{dist.name} {dist.version}: {dist.changelog.relative_to(root)} has no '## {dist.version}' "
                "heading; add one with a line saying what changed for users"
            )
        entry = recorded.get(dist.name)
        if entry is None:
            found.append(f"{dist.name}: not in {RECORD.name}; run `python tests/release_rule.py record`")
        elif entry["fingerprint"] != fingerprint(dist.package) and entry["version"] == dist.version:
            found.append(
                f"{dist.name}: its code changed since version {dist.version} was recorded; raise the version "
                f"in {dist.version_file.relative_to(root)}, add a CHANGELOG line under the new version, then "
                "run `python tests/release_rule.py record`"
            )
    return found


if __name__ == "__main__":
    if sys.argv[1:] == ["record"]:
        for name, entry in record().items():
            print(f"{name} {entry['version']} {entry['fingerprint'][:12]}")
    elif sys.argv[1:] == ["check"]:
        issues_found = problems()
        print("\n".join(issues_found) or "release rule: every distribution is recorded at its version")
        sys.exit(1 if issues_found else 0)
    else:
        print("usage: python tests/release_rule.py record|check", file=sys.stderr)
        sys.exit(2)
