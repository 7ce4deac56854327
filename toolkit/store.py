"""The run store: one SQLite file (WAL), content-addressed by (simulation, params, seed, version).

Every finished run is committed on its own, so a sweep killed at any moment (SIGINT or SIGKILL)
keeps every point that had finished, and a rerun serves them from here. A point whose simulation
raised is kept in ``failures`` (error and traceback) until a rerun computes it. Rows are pickled lists
of dicts (fast, exact types); the file is the user's own, so unpickling it is as safe as their data.

A new store is built under a temporary name and linked into place, so processes that create the
same store at the same moment all see a complete one. A store that cannot be written (a read-only
file or folder) still serves reads; writing to it raises a :class:`StoreError` that says so.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import pickle
import sqlite3
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolkit.errors import StoreError

SCHEMA_VERSION = 1
_APPLICATION_ID = 0x746B6974  # "tkit": marks a file as a toolkit store

_SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    key TEXT PRIMARY KEY,
    simulation TEXT NOT NULL,
    params TEXT NOT NULL,
    seed INTEGER NOT NULL,
    version TEXT NOT NULL,
    records BLOB NOT NULL,
    summary TEXT NOT NULL,
    provenance TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_by_simulation ON runs(simulation);
CREATE TABLE IF NOT EXISTS sweeps (
    sweep_id TEXT PRIMARY KEY,
    simulation TEXT NOT NULL,
    spec TEXT NOT NULL,
    keys TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS failures (
    key TEXT PRIMARY KEY,
    simulation TEXT NOT NULL,
    params TEXT NOT NULL,
    seed INTEGER NOT NULL,
    version TEXT NOT NULL,
    error TEXT NOT NULL,
    traceback TEXT NOT NULL,
    created REAL NOT NULL
);
"""


def run_key(simulation: str, params: Mapping[str, Any], seed: int, version: str) -> str:
    """The content address of one run: sha256 over the canonical JSON of what determines it."""
    blob = json.dumps([simulation, params, int(seed), version], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def sweep_id(simulation: str, keys: Sequence[str]) -> str:
    return hashlib.sha256((simulation + "\n" + "\n".join(keys)).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class StoredRun:
    key: str
    simulation: str
    params: dict[str, Any]
    seed: int
    version: str
    records: list[dict[str, Any]]
    summary: dict[str, Any]
    provenance: dict[str, Any]
    created: float


@dataclass(frozen=True)
class StoredFailure:
    """A point whose simulation raised: its error line and traceback (retried by the next sweep)."""

    key: str
    simulation: str
    params: dict[str, Any]
    seed: int
    version: str
    error: str
    traceback: str
    created: float


def _json(value: Any) -> str:
    # insertion order kept: parameters and grids read back in the order they were declared
    return json.dumps(value, default=str)


def _is_read_only(exc: Exception) -> bool:
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "read only" in text


def _is_disk_full(exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(exc).lower()
    return "disk is full" in text or "no space left" in text or "quota exceeded" in text


def _is_read_only_fs(exc: BaseException) -> bool:
    return isinstance(exc, OSError) and exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM)


def _writable(path: Path) -> bool:
    target = path if path.exists() else path.parent
    return os.access(target, os.W_OK) and (not path.exists() or os.access(path.parent, os.W_OK))


class RunStore:
    """SQLite-backed store of runs and sweeps. Safe for one writer and many readers."""

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self.read_only = False
        self._tables: set[str] = set()
        self._conn: sqlite3.Connection | None = None

    # -- connection ----------------------------------------------------------------------------
    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = self._open()
        return self._conn

    def _fail(self, exc: Exception) -> StoreError:
        text = str(exc)
        if _is_disk_full(exc):
            return self._disk_full_error()
        if "locked" in text or "busy" in text:
            return StoreError(
                f"the run store {self.path} is locked by another process (waited {self.timeout:.0f} s). "
                "Wait for it to finish, or point TOOLKIT_STORE / --store at another file."
            )
        if _is_read_only(exc):
            return self._read_only_error()
        return StoreError(
            f"the run store {self.path} is corrupt or not a toolkit store ({text}). It was left untouched: "
            "move it aside to start a new store, or point TOOLKIT_STORE / --store at another file."
        )

    def _disk_full_error(self) -> StoreError:
        # the write that failed was rolled back: what the store held is intact, so it must not be moved aside
        return StoreError(
            f"the disk that holds the run store {self.path} is full: the last point could not be written. "
            "The store itself is intact and keeps every point stored so far; free some space (or point "
            "TOOLKIT_STORE / --store at a file on another disk) and run the same command again."
        )

    def _directory_error(self) -> StoreError:
        return StoreError(
            f"the run store path {self.path} is a directory, not a file: point TOOLKIT_STORE / --store at a "
            f"file, e.g. {self.path / 'runs.sqlite'}."
        )

    def _read_only_error(self) -> StoreError:
        if not self.path.exists():
            return StoreError(
                f"cannot create the run store {self.path}: its folder (or the file system) is read-only. "
                "Point TOOLKIT_STORE / --store at a file in a writable folder."
            )
        return StoreError(
            f"the run store {self.path} cannot be written (the file or its folder is read-only). Reading it and "
            "sweeps whose points are all stored work; to compute new points make it writable or point "
            "TOOLKIT_STORE / --store at a writable file."
        )

    def _create(self) -> None:
        """Build a complete empty store under a temporary name, then link it into place (atomic, no clobber)."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            if _is_read_only_fs(exc):
                raise self._read_only_error() from None
            raise StoreError(
                f"cannot create the folder of the run store {self.path}: {exc.strerror or exc}."
            ) from None
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            conn = sqlite3.connect(tmp, isolation_level=None)
            try:
                conn.execute(f"PRAGMA application_id={_APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
                conn.executescript(_SCHEMA)
                conn.execute("PRAGMA journal_mode=WAL")
            finally:
                conn.close()
            try:
                os.link(tmp, self.path)
            except FileExistsError:
                if self.path.stat().st_size == 0:  # an empty file given as the store: fill it
                    os.replace(tmp, self.path)
            except OSError:  # no hard links on this file system: rename, which never leaves a half store
                if not self.path.exists() or self.path.stat().st_size == 0:
                    os.replace(tmp, self.path)
        except (sqlite3.Error, OSError) as exc:
            if _is_disk_full(exc):
                raise StoreError(
                    f"cannot create the run store {self.path}: the disk is full. Free some space or point "
                    "TOOLKIT_STORE / --store at a file on another disk."
                ) from None
            if _is_read_only_fs(exc) or not _writable(self.path):
                raise self._read_only_error() from None
            raise StoreError(f"cannot create the run store {self.path}: {exc}.") from None
        finally:
            for leftover in (tmp, tmp.with_name(tmp.name + "-wal"), tmp.with_name(tmp.name + "-shm")):
                try:
                    leftover.unlink()
                except OSError:  # never made (a read-only file system): nothing to remove
                    pass

    def _connect_read_only(self) -> sqlite3.Connection:
        uri = self.path.resolve().as_uri()
        conn = sqlite3.connect(
            f"{uri}?mode=ro", uri=True, timeout=self.timeout, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            return conn
        except (
            sqlite3.OperationalError
        ):  # WAL without a -shm that can be made here: read the file as a snapshot
            conn.close()
            return sqlite3.connect(
                f"{uri}?mode=ro&immutable=1",
                uri=True,
                timeout=self.timeout,
                isolation_level=None,
                check_same_thread=False,
            )

    def _open(self) -> sqlite3.Connection:
        if self.path.is_dir():
            raise self._directory_error()
        try:
            if not self.path.exists() or self.path.stat().st_size == 0:
                self._create()
        except OSError as exc:  # stat of a path that cannot be reached
            if _is_read_only_fs(exc):
                raise self._read_only_error() from None
            raise StoreError(f"cannot open the run store {self.path}: {exc.strerror or exc}.") from None
        self.read_only = not _writable(self.path)
        try:
            if self.read_only:
                conn = self._connect_read_only()
            else:
                conn = sqlite3.connect(
                    self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False
                )
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            if app_id != _APPLICATION_ID:
                conn.close()
                raise StoreError(
                    f"{self.path} is an SQLite file but not a toolkit run store (application_id {app_id:#x}). "
                    "It was left untouched; point TOOLKIT_STORE / --store at another file."
                )
            check = conn.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                conn.close()
                raise StoreError(
                    f"the run store {self.path} failed its integrity check ({check}); it was left untouched."
                )
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                conn.close()
                raise StoreError(
                    f"the run store {self.path} has schema version {version}; this toolkit reads {SCHEMA_VERSION}."
                )
            if not self.read_only:
                conn.execute("PRAGMA journal_mode=WAL")
                conn.execute(
                    "PRAGMA synchronous=NORMAL"
                )  # durable across process kills; WAL keeps it consistent
                conn.executescript(_SCHEMA)  # tables added since the store was made (failures)
            self._tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except StoreError:
            raise
        except sqlite3.DatabaseError as exc:
            raise self._fail(exc) from None
        return conn

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getstate__(self) -> dict[str, Any]:  # connections do not pickle; reopen lazily
        return {
            "path": self.path,
            "timeout": self.timeout,
            "read_only": False,
            "_tables": set(),
            "_conn": None,
        }

    def _execute(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        try:
            return self.conn.execute(sql, args)
        except sqlite3.DatabaseError as exc:
            raise self._fail(exc) from None

    def _write(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        self.conn  # noqa: B018  (opening decides read_only)
        if self.read_only:
            raise self._read_only_error()
        return self._execute(sql, args)

    def _decode(self, what: str, ident: str, column: str, text: Any, kind: type) -> Any:
        """One JSON column of a row, or a StoreError naming the row and the column."""
        try:
            value = json.loads(text)
        except (TypeError, ValueError) as exc:
            raise StoreError(
                f"{what} {ident} in {self.path} has an unreadable {column} column (invalid JSON: {exc}); "
                "the other rows are readable. Rerun it with --no-cache to compute it again."
            ) from None
        if not isinstance(value, kind):
            raise StoreError(
                f"{what} {ident} in {self.path} has an unreadable {column} column "
                f"(expected a JSON {'object' if kind is dict else 'array'}, got {text!r:.60}); "
                "the other rows are readable. Rerun it with --no-cache to compute it again."
            )
        return value

    # -- runs ----------------------------------------------------------------------------------
    def put(
        self,
        key: str,
        simulation: str,
        params: Mapping[str, Any],
        seed: int,
        version: str,
        records: list[dict[str, Any]],
        summary: Mapping[str, Any],
        provenance: Mapping[str, Any],
    ) -> None:
        """Store one finished run (committed at once); a failure recorded for it is cleared."""
        self._write(
            "INSERT OR REPLACE INTO runs VALUES (?,?,?,?,?,?,?,?,?)",
            (
                key,
                simulation,
                _json(params),
                int(seed),
                version,
                pickle.dumps(records, protocol=pickle.HIGHEST_PROTOCOL),
                _json(summary),
                _json(provenance),
                time.time(),
            ),
        )
        if self._has_failures_table():
            self._execute("DELETE FROM failures WHERE key = ?", (key,))

    def _row(self, row: tuple) -> StoredRun:
        key, simulation, params, seed, version, records, summary, provenance, created = row
        try:
            records = pickle.loads(records)
        except Exception as exc:
            raise StoreError(
                f"run {key[:12]} in {self.path} cannot be read back ({exc}); the file may be corrupt."
            ) from None
        ident = f"{key[:12]} ({simulation}, seed {seed})"
        if not isinstance(records, list):
            raise StoreError(
                f"run {ident} in {self.path} has records that are not a list of rows; "
                "the other rows are readable. Rerun it with --no-cache to compute it again."
            )
        return StoredRun(
            key,
            simulation,
            self._decode("run", ident, "params", params, dict),
            seed,
            version,
            records,
            self._decode("run", ident, "summary", summary, dict),
            self._decode("run", ident, "provenance", provenance, dict),
            created,
        )

    def get(self, key: str) -> StoredRun | None:
        row = self._execute("SELECT * FROM runs WHERE key = ?", (key,)).fetchone()
        return self._row(row) if row else None

    def get_many(self, keys: Iterable[str]) -> dict[str, StoredRun]:
        keys = list(keys)
        out: dict[str, StoredRun] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for row in self._execute(f"SELECT * FROM runs WHERE key IN ({marks})", chunk):
                out[row[0]] = self._row(row)
        return out

    def existing(self, keys: Iterable[str]) -> set[str]:
        keys = list(keys)
        found: set[str] = set()
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            marks = ",".join("?" * len(chunk))
            found.update(r[0] for r in self._execute(f"SELECT key FROM runs WHERE key IN ({marks})", chunk))
        return found

    def resolve(self, prefix: str) -> tuple[str, str]:
        """A run key or sweep id from a unique prefix: returns ``("run"|"sweep", full_id)``."""
        if len(prefix) < 4:
            raise StoreError(f"give at least 4 characters of a run or sweep id, got {prefix!r}")
        sweeps = [
            r[0] for r in self._execute("SELECT sweep_id FROM sweeps WHERE sweep_id LIKE ?", (prefix + "%",))
        ]
        runs = [r[0] for r in self._execute("SELECT key FROM runs WHERE key LIKE ? LIMIT 3", (prefix + "%",))]
        hits = [("sweep", s) for s in sweeps] + [("run", r) for r in runs]
        if not hits:
            raise StoreError(f"no run or sweep with id {prefix!r} in {self.path} (see `toolkit runs`).")
        if len(hits) > 1:
            raise StoreError(
                f"id {prefix!r} is ambiguous in {self.path}: " + ", ".join(h[1][:16] for h in hits)
            )
        return hits[0]

    def iter_runs(self, simulation: str | None = None) -> Iterator[StoredRun]:
        if simulation:
            rows = self._execute("SELECT * FROM runs WHERE simulation = ? ORDER BY created", (simulation,))
        else:
            rows = self._execute("SELECT * FROM runs ORDER BY created")
        for row in rows.fetchall():
            yield self._row(row)

    def count(self) -> int:
        return self._execute("SELECT COUNT(*) FROM runs").fetchone()[0]

    # -- sweeps --------------------------------------------------------------------------------
    def put_sweep(self, sid: str, simulation: str, spec: Mapping[str, Any], keys: Sequence[str]) -> None:
        self._write(
            "INSERT OR IGNORE INTO sweeps VALUES (?,?,?,?,?)",
            (sid, simulation, _json(spec), json.dumps(list(keys)), time.time()),
        )

    def has_sweep(self, sid: str) -> bool:
        return self._execute("SELECT 1 FROM sweeps WHERE sweep_id = ?", (sid,)).fetchone() is not None

    def _sweep_row(self, row: tuple) -> dict[str, Any]:
        sid, simulation = row[0], row[1]
        ident = f"{sid} ({simulation})"
        keys = self._decode("sweep", ident, "keys", row[3], list)
        if not all(isinstance(k, str) for k in keys):
            raise StoreError(
                f"sweep {ident} in {self.path} has an unreadable keys column (not a list of run keys); "
                "the other rows are readable."
            )
        return {
            "sweep_id": sid,
            "simulation": simulation,
            "spec": self._decode("sweep", ident, "spec", row[2], dict),
            "keys": keys,
            "created": row[4],
        }

    def get_sweep(self, sid: str) -> dict[str, Any] | None:
        row = self._execute(
            "SELECT sweep_id, simulation, spec, keys, created FROM sweeps WHERE sweep_id = ?", (sid,)
        ).fetchone()
        return None if row is None else self._sweep_row(row)

    def list_sweeps(self, *, errors: list[StoreError] | None = None) -> list[dict[str, Any]]:
        """Every readable sweep, oldest first; an unreadable row raises, or goes to ``errors`` when given."""
        out = []
        for row in self._execute(
            "SELECT sweep_id, simulation, spec, keys, created FROM sweeps ORDER BY created"
        ).fetchall():
            try:
                out.append(self._sweep_row(row))
            except StoreError as exc:
                if errors is None:
                    raise
                errors.append(exc)
        return out

    # -- failures ------------------------------------------------------------------------------
    def put_failure(
        self,
        key: str,
        simulation: str,
        params: Mapping[str, Any],
        seed: int,
        version: str,
        error: str,
        traceback: str,
    ) -> None:
        """Record that a point raised (kept until the point is computed)."""
        self._write(
            "INSERT OR REPLACE INTO failures VALUES (?,?,?,?,?,?,?,?)",
            (key, simulation, _json(params), int(seed), version, error, traceback, time.time()),
        )

    def _has_failures_table(self) -> bool:
        self.conn  # noqa: B018  (opening fills _tables; a read-only store made before failures has none)
        return "failures" in self._tables

    def get_failures(self, keys: Iterable[str]) -> dict[str, StoredFailure]:
        if not self._has_failures_table():
            return {}
        keys = list(keys)
        out: dict[str, StoredFailure] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for row in self._execute(f"SELECT * FROM failures WHERE key IN ({marks})", chunk):
                key, simulation, params, seed, version, error, tb, created = row
                ident = f"{key[:12]} ({simulation}, seed {seed})"
                out[key] = StoredFailure(
                    key,
                    simulation,
                    self._decode("failed point", ident, "params", params, dict),
                    seed,
                    version,
                    error,
                    tb,
                    created,
                )
        return out

    def count_failures(self) -> int:
        if not self._has_failures_table():
            return 0
        return self._execute("SELECT COUNT(*) FROM failures").fetchone()[0]
