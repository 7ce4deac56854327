"""What keys the run store besides the parameters: the content of named files, and a plugin's source.

- A parameter annotated :data:`ContentPath` (or whose type holds it, e.g. ``list[float] | ContentPath``)
  names a file, a directory or an SQLite database (a path or a ``sqlite:///`` URL): the run's key
  includes a hash of what it names, so editing the file gives new results instead of stored ones.
  A dict or list parameter marked ``Annotated[dict[str, Any], HashContent()]`` (a dataset loader's
  arguments) is keyed by every text inside it that names a file.
  A value that names nothing on disk (inline JSON, a server URL) is keyed by its text only.
- A plugin installed in editable or development mode is keyed by its version *and* a hash of its
  package's ``.py`` files, so editing its code recomputes its points.
- A simulation that names ``keyed_packages`` (a numerical solver whose answers move between its releases)
  is keyed also by the installed version of each, so upgrading one recomputes its points.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import json
import sys
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any

__all__ = [
    "ContentPath",
    "HashContent",
    "content_fingerprints",
    "package_versions",
    "path_fingerprint",
    "source_fingerprint",
]


class HashContent:
    """Marker (``Annotated[str, HashContent()]``): the store key hashes the content the value names."""

    def __repr__(self) -> str:
        return "HashContent()"


ContentPath = Annotated[str, HashContent()]
"""A text parameter that may name a file, a directory or an SQLite database (path or ``sqlite:///`` URL)."""

_CHUNK = 1 << 20


def _local_path(value: str) -> Path | None:
    """The file or directory ``value`` names on this machine, or None (inline text, a server URL)."""
    text = value.strip()
    if not text or "\n" in text or len(text) > 4096:
        return None
    if text.startswith("sqlite:///"):
        text = text[len("sqlite:///") :].split("?", 1)[0]
        if not text or text == ":memory:":
            return None
    elif "://" in text:
        return None
    path = Path(text).expanduser()
    try:
        return path if path.exists() else None
    except OSError:  # a name too long or otherwise unusable as a path: not a path
        return None


@functools.lru_cache(maxsize=256)
def _file_digest(path: str, size: int, mtime_ns: int) -> str:
    # keyed by size and mtime so that a sweep hashes each file once, and an edit hashes it again
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _digest(path: Path) -> str:
    st = path.stat()
    return _file_digest(str(path.resolve()), st.st_size, st.st_mtime_ns)


def path_fingerprint(value: str) -> str | None:
    """A sha256 of what ``value`` names (file bytes; a directory's relative paths and file bytes; an
    SQLite file with its ``-wal`` file), or None when it names nothing on this machine."""
    path = _local_path(value)
    if path is None:
        return None
    h = hashlib.sha256()
    if path.is_dir():
        for sub in sorted(p for p in path.rglob("*") if p.is_file()):
            h.update(str(sub.relative_to(path).as_posix()).encode() + b"\0" + _digest(sub).encode())
    else:
        h.update(_digest(path).encode())
        wal = path.with_name(path.name + "-wal")  # committed rows an SQLite reader sees before a checkpoint
        if wal.is_file() and wal.stat().st_size:
            h.update(b"wal\0" + _digest(wal).encode())
    return h.hexdigest()


def _marked(annotation: Any) -> bool:
    """Whether ``annotation`` is, or holds in a union, a type marked with :class:`HashContent`."""
    if typing.get_origin(annotation) is Annotated:
        if any(isinstance(m, HashContent) for m in annotation.__metadata__):
            return True
        return _marked(typing.get_args(annotation)[0])
    return any(_marked(a) for a in typing.get_args(annotation))


def content_fields(model: Any) -> list[str]:
    """The parameters of a model whose content keys the store."""
    out = []
    for name, field in model.model_fields.items():
        if any(isinstance(m, HashContent) for m in field.metadata) or _marked(field.annotation):
            out.append(name)
    return out


def content_fingerprints(params: Any) -> dict[str, str]:
    """``{parameter: sha256}`` for each content-keyed parameter of ``params`` that names something on disk."""
    out: dict[str, str] = {}
    for name in content_fields(type(params)):
        _collect(name, getattr(params, name), out)
    return out


def _collect(where: str, value: Any, out: dict[str, str]) -> None:
    # a marked dict or list (e.g. a dataset loader's arguments) is keyed by every file its texts name
    if isinstance(value, str):
        fp = path_fingerprint(value)
        if fp is not None:
            out[where] = fp
    elif isinstance(value, Mapping):
        for k in sorted(value, key=str):
            _collect(f"{where}.{k}", value[k], out)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _collect(f"{where}[{i}]", item, out)


def _is_editable(dist: importlib.metadata.Distribution) -> bool:
    text = dist.read_text("direct_url.json")
    if not text:
        return False
    try:
        return bool(json.loads(text).get("dir_info", {}).get("editable"))
    except (ValueError, AttributeError):
        return False


@functools.lru_cache(maxsize=64)
def _tree_hash(root: str, stamp: tuple[tuple[str, int, int], ...]) -> str:
    h = hashlib.sha256()
    for rel, _size, _mtime in stamp:
        h.update(rel.encode() + b"\0" + Path(root, rel).read_bytes() + b"\0")
    return h.hexdigest()[:12]


def _package_dir(module_name: str) -> Path | None:
    module = sys.modules.get(module_name.split(":", 1)[0].split(".", 1)[0])
    file = getattr(module, "__file__", None)
    if not file:
        return None
    path = Path(file).resolve()
    return path.parent if path.name == "__init__.py" else None


def source_fingerprint(module_name: str, distribution: str = "") -> str:
    """A short hash of the ``.py`` files of the package holding ``module_name`` when it is developed
    in place (an editable install, or not installed at all), else "" (an ordinary install's version
    says what code it is)."""
    if distribution and not distribution.startswith("("):
        try:
            if not _is_editable(importlib.metadata.distribution(distribution)):
                return ""
        except importlib.metadata.PackageNotFoundError:
            pass
    root = _package_dir(module_name)
    if root is None:
        return ""
    files = []
    for p in sorted(root.rglob("*.py")):
        if "__pycache__" in p.parts:
            continue
        st = p.stat()
        files.append((p.relative_to(root).as_posix(), st.st_size, st.st_mtime_ns))
    return _tree_hash(str(root), tuple(files)) if files else ""


def package_versions(distributions: tuple[str, ...]) -> str:
    """``name=version`` of each installed distribution, comma-separated (``name=absent`` when one is not
    installed), read from the package metadata without importing it."""
    versions = []
    for name in distributions:
        try:
            versions.append(f"{name}={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name}=absent")
    return ",".join(versions)


def keyed_params(params: Mapping[str, Any], fingerprints: Mapping[str, str]) -> dict[str, Any]:
    """The parameters as the store key sees them: unchanged without content fingerprints."""
    if not fingerprints:
        return dict(params)
    return {**params, "__content__": dict(sorted(fingerprints.items()))}
