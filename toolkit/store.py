"""The run store: one SQLite file (WAL), content-addressed by (simulation, params, seed, version).

Every finished run is committed on its own, so a sweep killed at any moment (SIGINT or SIGKILL)
keeps every point that had finished, and a rerun serves them from here. Rows are pickled lists of
dicts (fast, exact types); the file is the user's own, so unpickling it is as safe as their data.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import sqlite3
import time
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


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


class RunStore:
    """SQLite-backed store of runs and sweeps. Safe for one writer and many readers."""

    def __init__(self, path: str | Path, *, timeout: float = 30.0) -> None:
        self.path = Path(path)
        self.timeout = timeout
        self._conn: sqlite3.Connection | None = None

    # -- connection ----------------------------------------------------------------------------
    @property
    def conn(self) -> sqlite3.Connection:
        if self._conn is None:
            self._conn = self._open()
        return self._conn

    def _fail(self, exc: Exception) -> StoreError:
        text = str(exc)
        if "locked" in text or "busy" in text:
            return StoreError(
                f"the run store {self.path} is locked by another process (waited {self.timeout:.0f} s). "
                "Wait for it to finish, or point TOOLKIT_STORE / --store at another file."
            )
        return StoreError(
            f"the run store {self.path} is corrupt or not a toolkit store ({text}). It was left untouched: "
            "move it aside to start a new store, or point TOOLKIT_STORE / --store at another file."
        )

    def _open(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        existed = self.path.exists() and self.path.stat().st_size > 0
        try:
            conn = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None, check_same_thread=False)
            if existed:
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
                    raise StoreError(f"the run store {self.path} failed its integrity check ({check}); it was left untouched.")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # durable across process kills; WAL keeps it consistent
            if not existed:
                conn.execute(f"PRAGMA application_id={_APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if version != SCHEMA_VERSION:
                conn.close()
                raise StoreError(f"the run store {self.path} has schema version {version}; this toolkit reads {SCHEMA_VERSION}.")
            conn.executescript(_SCHEMA)
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
        return {"path": self.path, "timeout": self.timeout, "_conn": None}

    def _execute(self, sql: str, args: Sequence[Any] = ()) -> sqlite3.Cursor:
        try:
            return self.conn.execute(sql, args)
        except sqlite3.DatabaseError as exc:
            raise self._fail(exc) from None

    # -- runs ----------------------------------------------------------------------------------
    def put(self, key: str, simulation: str, params: Mapping[str, Any], seed: int, version: str,
            records: list[dict[str, Any]], summary: Mapping[str, Any], provenance: Mapping[str, Any]) -> None:
        """Store one finished run (committed at once)."""
        self._execute(
            "INSERT OR REPLACE INTO runs VALUES (?,?,?,?,?,?,?,?,?)",
            (key, simulation, _json(params), int(seed), version,
             pickle.dumps(records, protocol=pickle.HIGHEST_PROTOCOL), _json(summary), _json(provenance), time.time()),
        )

    def _row(self, row: tuple) -> StoredRun:
        key, simulation, params, seed, version, records, summary, provenance, created = row
        try:
            records = pickle.loads(records)
        except Exception as exc:
            raise StoreError(f"run {key[:12]} in {self.path} cannot be read back ({exc}); the file may be corrupt.") from None
        return StoredRun(key, simulation, json.loads(params), seed, version, records,
                         json.loads(summary), json.loads(provenance), created)

    def get(self, key: str) -> StoredRun | None:
        row = self._execute("SELECT * FROM runs WHERE key = ?", (key,)).fetchone()
        return self._row(row) if row else None

    def get_many(self, keys: Iterable[str]) -> dict[str, StoredRun]:
        keys = list(keys)
        out: dict[str, StoredRun] = {}
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            marks = ",".join("?" * len(chunk))
            for row in self._execute(f"SELECT * FROM runs WHERE key IN ({marks})", chunk):
                out[row[0]] = self._row(row)
        return out

    def existing(self, keys: Iterable[str]) -> set[str]:
        keys = list(keys)
        found: set[str] = set()
        for i in range(0, len(keys), 500):
            chunk = keys[i:i + 500]
            marks = ",".join("?" * len(chunk))
            found.update(r[0] for r in self._execute(f"SELECT key FROM runs WHERE key IN ({marks})", chunk))
        return found

    def resolve(self, prefix: str) -> tuple[str, str]:
        """A run key or sweep id from a unique prefix: returns ``("run"|"sweep", full_id)``."""
        if len(prefix) < 4:
            raise StoreError(f"give at least 4 characters of a run or sweep id, got {prefix!r}")
        sweeps = [r[0] for r in self._execute("SELECT sweep_id FROM sweeps WHERE sweep_id LIKE ?", (prefix + "%",))]
        runs = [r[0] for r in self._execute("SELECT key FROM runs WHERE key LIKE ? LIMIT 3", (prefix + "%",))]
        hits = [("sweep", s) for s in sweeps] + [("run", r) for r in runs]
        if not hits:
            raise StoreError(f"no run or sweep with id {prefix!r} in {self.path} (see `toolkit runs`).")
        if len(hits) > 1:
            raise StoreError(f"id {prefix!r} is ambiguous in {self.path}: " + ", ".join(h[1][:16] for h in hits))
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
        self._execute(
            "INSERT OR IGNORE INTO sweeps VALUES (?,?,?,?,?)",
            (sid, simulation, _json(spec), json.dumps(list(keys)), time.time()),
        )

    def get_sweep(self, sid: str) -> dict[str, Any] | None:
        row = self._execute("SELECT sweep_id, simulation, spec, keys, created FROM sweeps WHERE sweep_id = ?", (sid,)).fetchone()
        if row is None:
            return None
        return {"sweep_id": row[0], "simulation": row[1], "spec": json.loads(row[2]), "keys": json.loads(row[3]), "created": row[4]}

    def list_sweeps(self) -> list[dict[str, Any]]:
        rows = self._execute("SELECT sweep_id FROM sweeps ORDER BY created").fetchall()
        return [self.get_sweep(r[0]) for r in rows]  # type: ignore[misc]
