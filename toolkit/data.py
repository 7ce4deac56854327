"""Registered datasets on disk: where each is expected, whether it is there, and fetching it.

A dataset read from the data root (``TOOLKIT_DATA_DIR``) declares a :class:`toolkit.specs.DataSource`:
its official download address, the SHA-256 of that file and the folder it lives in under the data
root. ``toolkit data list`` shows every registered dataset; ``toolkit data fetch NAME`` downloads
the file, verifies the checksum, unpacks it into a temporary folder beside the target and moves it
into place only when everything succeeded (an interrupted fetch leaves nothing half-written).

Where a source publishes no checksum (``sha256=None``) the fetch still proceeds, checks that it
received every byte the server announced (``Content-Length``), prints the SHA-256 it computed and
records it, marked unverified, in ``<target>/.toolkit-fetch.json`` beside the data, so that the
download can be pinned and compared later.

Unpacking stops at :data:`DEFAULT_MAX_UNPACKED` bytes (2 GiB; ``TOOLKIT_DATA_MAX_UNPACKED`` or
``--max-unpacked`` raises it). The file can come from elsewhere than the official address: a mirror
or a local copy given with ``--from URL|PATH`` or, for every dataset, ``TOOLKIT_DATA_MIRROR`` (a base
URL or folder holding the files under their official names); a declared checksum is still verified.
The temporary folder of a fetch that was killed is removed by the next fetch into the same folder.

A :class:`~toolkit.errors.DatasetMissingError` anywhere in an exception's chain means "the data is
not there"; :func:`missing_dataset` finds it and :func:`skip_reason` turns it into the one-line
reason that ``toolkit reproduce`` and the test suite report when they skip.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import shutil
import tarfile
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from toolkit.errors import DatasetMissingError, ParameterError, ToolkitError, UserError
from toolkit.settings import Settings, get_settings
from toolkit.specs import Dataset, DataSource

PROVENANCE_FILE = ".toolkit-fetch.json"
UNPACK_KINDS = ("zip", "tar", None)
_CHUNK = 1 << 20
DEFAULT_MAX_UNPACKED = 2 << 30  # bytes a fetch may unpack unless raised (an archive bomb stops here)
MAX_UNPACKED_ENV = "TOOLKIT_DATA_MAX_UNPACKED"
MIRROR_ENV = "TOOLKIT_DATA_MIRROR"
_OWNER_FILE = "owner.pid"
_SIZE_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


class DataFetchError(ToolkitError):
    """A fetch that could not complete: offline, a server error, a checksum mismatch, a bad archive.

    Nothing is written into the dataset's folder when it is raised; the message is one line.
    """


def fetch_command(name: str) -> str:
    """The exact command that fetches dataset ``name``."""
    return f"toolkit data fetch {name}"


def expected_path(dataset: Dataset, settings: Settings | None = None) -> Path | None:
    """Where ``dataset`` lives under the data root; None for a dataset without a DataSource."""
    if dataset.source is None:
        return None
    return (settings or get_settings()).data_dir / dataset.source.target


def _files_under(path: Path) -> Iterable[Path]:
    if path.is_file():
        yield path
    elif path.is_dir():
        for root, _, files in os.walk(path):
            for f in files:
                if f != PROVENANCE_FILE:
                    yield Path(root) / f


def is_present(dataset: Dataset, settings: Settings | None = None) -> bool:
    """True when the dataset's target holds at least one file (always True without a DataSource);
    for a multi-file source, when every listed file is there."""
    path = expected_path(dataset, settings)
    if path is not None and dataset.source is not None and dataset.source.files:
        return all((path / rel).is_file() for rel, _ in dataset.source.files)
    return path is None or next(iter(_files_under(path)), None) is not None


@dataclass(frozen=True)
class DatasetStatus:
    """One row of ``toolkit data list``."""

    name: str
    plugin: str
    state: str  # "present", "missing" or "no source" (no DataSource declared)
    location: str
    size_bytes: int | None
    license: str
    source: str

    def row(self) -> dict[str, Any]:
        size = human_size(self.size_bytes) if self.size_bytes is not None else "-"
        if self.state == "missing" and self.size_bytes is not None:
            size += " (download)"
        return {
            "dataset": self.name,
            "status": self.state,
            "size": size,
            "location": self.location,
            "licence": self.license or "-",
            "source": self.source,
        }


def dataset_status(dataset: Dataset, settings: Settings | None = None) -> DatasetStatus:
    source = dataset.source
    if source is None:
        return DatasetStatus(dataset.name, dataset.plugin, "no source", "-", None, "-", "-")
    path = expected_path(dataset, settings)
    assert path is not None
    present = is_present(dataset, settings)
    size: int | None
    if present and source.files:
        size = sum((path / rel).stat().st_size for rel, _ in source.files)
    else:
        size = sum(f.stat().st_size for f in _files_under(path)) if present else source.size_bytes
    return DatasetStatus(
        dataset.name,
        dataset.plugin,
        "present" if present else "missing",
        str(path),
        size,
        source.license,
        source.url,
    )


def status_table(datasets: Iterable[Dataset], settings: Settings | None = None) -> list[DatasetStatus]:
    return [dataset_status(d, settings) for d in datasets]


def human_size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{n} B"  # pragma: no cover


# -- skipping on missing data --------------------------------------------------------------------


def missing_dataset(exc: BaseException | None) -> DatasetMissingError | None:
    """The :class:`DatasetMissingError` in ``exc``'s chain (``__cause__`` / ``__context__``), if any.

    Plugins may wrap it (``raise ParameterError(...) from exc``, or even ``from None``, which keeps
    ``__context__``): the data is still what is missing.
    """
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, DatasetMissingError):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def skip_reason(missing: DatasetMissingError, datasets: Mapping[str, Dataset] | None = None) -> str:
    """One line: what is missing and the exact command that gets it."""
    text = " ".join(str(missing).split())
    name = missing.dataset
    if not name:
        return f"data missing: {text}"
    dataset = datasets.get(name) if datasets is not None else None
    if datasets is not None and (dataset is None or dataset.source is None):
        return (
            f"dataset {name} missing (it declares no download source: see its plugin's README, or set "
            f"TOOLKIT_DATA_DIR to a folder that has it). {text}"
        )
    return f"dataset {name} missing; fetch it with `{fetch_command(name)}` (or set TOOLKIT_DATA_DIR). {text}"


# -- fetching --------------------------------------------------------------------------------------


def _validate_source(name: str, source: DataSource) -> None:
    if source.unpack not in UNPACK_KINDS:
        raise UserError(
            f"dataset {name}: DataSource.unpack must be 'zip', 'tar' or None, got {source.unpack!r}"
        )
    target = PurePosixPath(source.target)
    if not source.target or target.is_absolute() or ".." in target.parts:
        raise UserError(
            f"dataset {name}: DataSource.target must be a relative folder inside the data root, "
            f"got {source.target!r}"
        )
    if source.sha256 is not None and (
        len(source.sha256) != 64 or any(c not in "0123456789abcdefABCDEF" for c in source.sha256)
    ):
        raise UserError(
            f"dataset {name}: DataSource.sha256 must be 64 hex digits or None, got {source.sha256!r}"
        )
    if source.files and (source.sha256 is not None or source.unpack is not None):
        raise UserError(f"dataset {name}: a DataSource with files takes sha256=None and unpack=None")
    for rel, digest in source.files:
        path = PurePosixPath(rel)
        if not rel or path.is_absolute() or ".." in path.parts:
            raise UserError(f"dataset {name}: DataSource.files path must be relative, got {rel!r}")
        if len(digest) != 64 or any(c not in "0123456789abcdefABCDEF" for c in digest):
            raise UserError(f"dataset {name}: DataSource.files sha256 of {rel} must be 64 hex digits")


def parse_size(text: str, what: str = MAX_UNPACKED_ENV) -> int:
    """Bytes from ``"2G"``, ``"500M"``, ``"1048576"`` (binary units); a ParameterError names ``what``."""
    raw = str(text).strip().upper().removesuffix("IB").removesuffix("B")
    unit = raw[-1:] if raw[-1:] in _SIZE_UNITS else ""
    try:
        value = float(raw[: len(raw) - len(unit)]) * _SIZE_UNITS[unit]
    except ValueError:
        value = -1
    if not value > 0:
        raise ParameterError(
            f"{what} must be a positive size in bytes, optionally with a unit K, M, G or T (e.g. 5G), got {text!r}"
        )
    return int(value)


def max_unpacked(override: str | int | None = None) -> int:
    """The unpacking cap: ``override``, else ``TOOLKIT_DATA_MAX_UNPACKED``, else :data:`DEFAULT_MAX_UNPACKED`."""
    if override is not None:
        return override if isinstance(override, int) else parse_size(override, "--max-unpacked")
    env = os.environ.get(MAX_UNPACKED_ENV)
    return parse_size(env) if env else DEFAULT_MAX_UNPACKED


def source_location(source: DataSource, origin: str | None = None) -> str:
    """Where the file is read from: ``origin`` (a URL or a path), a mirror from the environment, or the official URL."""
    if origin:
        return origin
    mirror = os.environ.get(MIRROR_ENV)
    if not mirror:
        return source.url
    filename = PurePosixPath(urllib.parse.urlsplit(source.url).path).name
    if "://" in mirror:
        return mirror.rstrip("/") + "/" + filename
    return str(Path(mirror).expanduser() / filename)


def _download(name: str, url: str, into: Path, timeout: float) -> tuple[Path, str, int]:
    """Stream ``url`` (or copy a local file) into a file under ``into``; returns (file, sha256 hex, bytes).

    The whole of an announced ``Content-Length`` must arrive: a connection cut short is an error.
    """
    if "://" not in url:  # a local file given with --from or TOOLKIT_DATA_MIRROR
        local = Path(url).expanduser()
        if not local.is_file():
            raise DataFetchError(f"cannot fetch {name}: {local} is not a file; nothing was written")
        url = local.resolve().as_uri()
    host = urllib.parse.urlsplit(url).netloc or url
    digest = hashlib.sha256()
    filename = PurePosixPath(urllib.parse.urlsplit(url).path).name or "download"
    dest = into / filename
    size = 0
    announced: int | None = None
    try:
        request = urllib.request.Request(url, headers={"User-Agent": "theory-toolkit data fetch"})
        with urllib.request.urlopen(request, timeout=timeout) as response, open(dest, "wb") as fh:
            length = response.headers.get("Content-Length")
            if length is not None and length.strip().isdigit():
                announced = int(length)
            while chunk := response.read(_CHUNK):
                digest.update(chunk)
                fh.write(chunk)
                size += len(chunk)
    except urllib.error.HTTPError as exc:
        raise DataFetchError(
            f"cannot fetch {name}: {url} answered HTTP {exc.code} {exc.reason}; nothing was written"
        ) from None
    except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as exc:
        if isinstance(exc, http.client.IncompleteRead):
            raise DataFetchError(
                f"cannot fetch {name}: the download from {host} was cut short ({size} bytes received); "
                "the partial file was discarded, nothing was written"
            ) from None
        reason = getattr(exc, "reason", exc)
        raise DataFetchError(
            f"cannot fetch {name}: {host} is unreachable ({reason}); offline? nothing was written"
        ) from None
    if announced is not None and size != announced:
        raise DataFetchError(
            f"cannot fetch {name}: the download from {host} was cut short ({size} of the {announced} bytes "
            "announced); the partial file was discarded, nothing was written"
        )
    return dest, digest.hexdigest(), size


def _copy_capped(src: Any, dst: Any, budget: list[int], name: str, limit: int) -> None:
    """Copy ``src`` to ``dst`` while at most ``budget[0]`` bytes remain of the unpacking cap."""
    while chunk := src.read(_CHUNK):
        budget[0] -= len(chunk)
        if budget[0] < 0:
            raise DataFetchError(
                f"cannot fetch {name}: the archive unpacks to more than {human_size(limit)} (the cap); "
                f"nothing was written. If that size is expected, raise the cap with --max-unpacked SIZE or "
                f"{MAX_UNPACKED_ENV}=SIZE (e.g. 8G)"
            )
        dst.write(chunk)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale_fetches(parent: Path, target_name: str) -> list[Path]:
    """Remove the temporary folders of fetches into ``parent/target_name`` whose process is gone."""
    removed: list[Path] = []
    if not parent.is_dir():
        return removed
    for folder in parent.glob(f".fetch-{target_name}-*"):
        if not folder.is_dir():
            continue
        try:
            pid = int((folder / _OWNER_FILE).read_text().strip())
        except (OSError, ValueError):
            pid = None
        if pid is None:  # the owner had not written its id yet: only an old folder is abandoned
            try:
                if time.time() - folder.stat().st_mtime < 60:
                    continue
            except OSError:
                continue
        elif _pid_alive(pid):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _strip(member: str, n: int, name: str) -> PurePosixPath | None:
    path = PurePosixPath(member.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts:
        raise DataFetchError(
            f"cannot fetch {name}: archive member {member!r} points outside the target; refused"
        )
    parts = [p for p in path.parts if p not in ("", ".")]
    if len(parts) <= n:
        return None
    return PurePosixPath(*parts[n:])


def _unpack(
    name: str, archive: Path, kind: str, strip_components: int, into: Path, limit: int = DEFAULT_MAX_UNPACKED
) -> int:
    """Extract regular files and folders of ``archive`` into ``into``; links and devices are refused.

    At most ``limit`` bytes are written in all (counted as they are written, not as the archive claims).
    """
    count = 0
    budget = [limit]
    try:
        if kind == "zip":
            with zipfile.ZipFile(archive) as zf:
                for info in zf.infolist():
                    rel = _strip(info.filename, strip_components, name)
                    if rel is None:
                        continue
                    out = into / rel
                    if info.is_dir():
                        out.mkdir(parents=True, exist_ok=True)
                        continue
                    out.parent.mkdir(parents=True, exist_ok=True)
                    with zf.open(info) as src, open(out, "wb") as dst:
                        _copy_capped(src, dst, budget, name, limit)
                    count += 1
        else:
            with tarfile.open(archive, "r:*") as tf:
                for member in tf:
                    rel = _strip(member.name, strip_components, name)
                    if rel is None:
                        continue
                    out = into / rel
                    if member.isdir():
                        out.mkdir(parents=True, exist_ok=True)
                    elif member.isfile():
                        out.parent.mkdir(parents=True, exist_ok=True)
                        member_file = tf.extractfile(member)
                        assert member_file is not None
                        with member_file, open(out, "wb") as dst:
                            _copy_capped(member_file, dst, budget, name, limit)
                        count += 1
                    else:
                        raise DataFetchError(
                            f"cannot fetch {name}: archive member {member.name!r} is a link or "
                            "device; refused"
                        )
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError) as exc:
        if isinstance(exc, DataFetchError):
            raise
        raise DataFetchError(
            f"cannot fetch {name}: the download is not a valid {kind} archive ({exc}); nothing was written"
        ) from None
    return count


def fetch(
    dataset: Dataset,
    settings: Settings | None = None,
    *,
    force: bool = False,
    echo: Callable[[str], Any] = print,
    timeout: float = 60.0,
    origin: str | None = None,
    max_unpacked_bytes: str | int | None = None,
) -> Path:
    """Download ``dataset`` from its declared source into the data root; returns its folder.

    Verifies the SHA-256 (when the source declares one) or the announced length, unpacks, and moves
    the result into place atomically. A dataset already present is left alone unless ``force``.

    :param origin: read the file from this URL or local path instead (a mirror or a copy at hand);
        default: ``TOOLKIT_DATA_MIRROR`` when set, else the official URL.
    :param max_unpacked_bytes: the unpacking cap (bytes, or a size such as ``"8G"``); default
        ``TOOLKIT_DATA_MAX_UNPACKED`` or 2 GiB.

    :raises UserError: the dataset declares no source, or its source is malformed.
    :raises DataFetchError: offline, a server error, a checksum mismatch or a bad archive.
    """
    source = dataset.source
    if source is None:
        raise UserError(
            f"dataset {dataset.name} declares no download source (DataSource): it is generated by its "
            f"plugin or shipped with it, so there is nothing to fetch (load it with "
            f"toolkit.get_registry().dataset({dataset.name!r}).load())"
        )
    _validate_source(dataset.name, source)
    limit = max_unpacked(max_unpacked_bytes)
    settings = settings or get_settings()
    dest = settings.data_dir / source.target
    if is_present(dataset, settings) and not force:
        echo(f"{dataset.name} is already present in {dest} (use --force to fetch it again)")
        return dest
    url = source_location(source, origin)
    size = f" ({human_size(source.size_bytes)})" if source.size_bytes else ""
    echo(f"fetching {dataset.name}{size} from {url}")
    dest.parent.mkdir(parents=True, exist_ok=True)
    for folder in clean_stale_fetches(dest.parent, dest.name):
        echo(f"removed {folder}, left by a fetch that was stopped")
    if source.files:
        return _fetch_files(dataset, dest, echo, timeout)
    with tempfile.TemporaryDirectory(prefix=f".fetch-{dest.name}-", dir=dest.parent) as tmp:
        tmp_path = Path(tmp)
        (tmp_path / _OWNER_FILE).write_text(str(os.getpid()))
        (tmp_path / "download").mkdir()
        file, digest, n_bytes = _download(dataset.name, url, tmp_path / "download", timeout)
        if source.sha256 is not None:
            if digest.lower() != source.sha256.lower():
                raise DataFetchError(
                    f"cannot fetch {dataset.name}: checksum mismatch (sha256 {digest}, expected "
                    f"{source.sha256}); the download was discarded, nothing was written"
                )
            echo(f"sha256 verified: {digest}")
        else:
            echo(
                f"no official checksum is published for {dataset.name}; sha256 of this download (unverified): {digest}"
            )
        staged = tmp_path / "staged"
        staged.mkdir()
        if source.unpack is None:
            official = PurePosixPath(urllib.parse.urlsplit(source.url).path).name or file.name
            shutil.move(str(file), staged / official)  # under its official name, wherever it came from
            n_files = 1
        else:
            n_files = _unpack(dataset.name, file, source.unpack, source.strip_components, staged, limit)
            if n_files == 0:
                raise DataFetchError(
                    f"cannot fetch {dataset.name}: the archive has no files after stripping "
                    f"{source.strip_components} leading path component(s); nothing was written"
                )
        (staged / PROVENANCE_FILE).write_text(
            json.dumps(
                {
                    "dataset": dataset.name,
                    "url": url,
                    "official_url": source.url,
                    "sha256": digest,
                    "verified": source.sha256 is not None,
                    "bytes": n_bytes,
                    "fetched": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                },
                indent=1,
            )
        )
        if dest.exists():
            old = tmp_path / "previous"
            dest.rename(old)
        staged.rename(dest)
    echo(f"fetched {dataset.name}: {n_files} file(s), {human_size(n_bytes)} downloaded, into {dest}")
    return dest


def _fetch_files(dataset: Dataset, dest: Path, echo: Callable[[str], Any], timeout: float) -> Path:
    """A multi-file source: download and verify every file, then move each into place."""
    source = dataset.source
    assert source is not None
    dest.mkdir(parents=True, exist_ok=True)
    n_bytes = 0
    with tempfile.TemporaryDirectory(prefix=f".fetch-{dataset.name}-", dir=dest) as tmp:
        staged = []
        for i, (rel, expected) in enumerate(source.files):
            into = Path(tmp) / str(i)
            into.mkdir()
            url = source.url.rstrip("/") + "/" + urllib.parse.quote(rel)
            file, digest, size = _download(dataset.name, url, into, timeout)
            if digest.lower() != expected.lower():
                raise DataFetchError(
                    f"cannot fetch {dataset.name}: checksum mismatch for {rel} (sha256 {digest}, expected "
                    f"{expected}); the download was discarded, nothing was written"
                )
            staged.append((file, dest / rel))
            n_bytes += size
        echo(f"sha256 verified for {len(staged)} file(s)")
        for file, out in staged:
            out.parent.mkdir(parents=True, exist_ok=True)
            os.replace(file, out)
    echo(f"fetched {dataset.name}: {len(staged)} file(s), {human_size(n_bytes)} downloaded, into {dest}")
    return dest


__all__ = [
    "DEFAULT_MAX_UNPACKED",
    "DataFetchError",
    "clean_stale_fetches",
    "max_unpacked",
    "parse_size",
    "source_location",
    "DatasetStatus",
    "dataset_status",
    "expected_path",
    "fetch",
    "fetch_command",
    "is_present",
    "missing_dataset",
    "skip_reason",
    "status_table",
]
