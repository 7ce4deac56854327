"""A declarative task specification (JSON) for one's own database -> a :class:`Database` and an
:class:`EntityTask` (no toolkit imports).

The task specification, every key but ``entity_table``, ``label``, ``timedelta``, ``val_timestamps`` and
``test_timestamps`` optional::

    {
      "entity_table": "customer",
      "label": {"kind": "any", "table": "invoice", "fkey": "customer_id"},
      "timedelta": "60D",
      "val_timestamps": ["2021-05-01", "2021-07-01"],
      "test_timestamps": ["2021-09-01", "2021-11-01"],
      "train_start": "2020-07-01", "step": "60D",
      "entities": {"table": "invoice", "fkey": "customer_id", "window": "365D"},
      "task_type": "binary_classification",
      "edge_tables": ["line_item"],
      "time_cols": {"invoice": "invoice_date"}, "pkeys": {}, "fkeys": {}, "time_formats": {},
      "static_tables": [], "unknown_time_tables": [], "tables": null,
      "exclude": {"customer": ["notes"]}, "unknown_at_seed": [], "column_types": {}
    }

Label kinds: ``any`` (a row of ``table`` referencing the entity in (t, t+Δ]: binary), ``count``
(how many), ``sum`` / ``mean`` of ``column`` over those rows, ``future_column`` (``column`` of the
entity's latest row of ``table`` in the window; ``table`` may be the entity table itself, whose
rows are then the seeds and whose ``column`` is masked in the seed row). Times: integers on an
integer-time database, dates (``"2021-05-01"``) and durations (``"60D"``, ``"12h"``) on a
datetime one. ``entities`` (default: every entity with a row of the label table before t):
``"all"`` (every entity row visible at t) or ``{"table", "fkey", "window"}``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolkit_frog.relational import Database, EntityTask, SchemaError, events_label_fn

SPEC_KEYS = (
    "entity_table",
    "label",
    "timedelta",
    "val_timestamps",
    "test_timestamps",
    "train_start",
    "step",
    "entities",
    "task_type",
    "edge_tables",
    "time_cols",
    "pkeys",
    "fkeys",
    "time_formats",
    "static_tables",
    "unknown_time_tables",
    "tables",
    "exclude",
    "unknown_at_seed",
    "column_types",
)
REQUIRED_KEYS = ("entity_table", "label", "timedelta", "val_timestamps", "test_timestamps")
SPEC_LABEL_KINDS = ("any", "count", "sum", "mean", "future_column")
LABEL_KEYS = ("kind", "table", "fkey", "column")
DB_KEYS = ("time_cols", "pkeys", "fkeys", "time_formats", "static_tables", "unknown_time_tables", "tables")


@dataclass
class TaskSpec:
    """A parsed spec: the database options, the task, and the training options."""

    raw: dict[str, Any]
    db_options: dict[str, Any] = field(default_factory=dict)
    edge_tables: list[str] | None = None
    exclude: dict[str, list[str]] = field(default_factory=dict)
    column_types: dict[str, dict[str, str]] = field(default_factory=dict)

    def task(self, db: Database) -> EntityTask:
        return build_task(db, self.raw)


def read_spec(source: str | Mapping[str, Any], where: str = "task") -> TaskSpec:
    """A spec from a dict, a JSON string or a path to a JSON file; errors name the key."""
    if isinstance(source, Mapping):
        raw = dict(source)
    else:
        text, origin = str(source), where
        if not text.lstrip().startswith("{"):
            path = Path(text)
            if not path.exists():
                raise SchemaError(f"{where}: {text!r} is neither a JSON object nor an existing file")
            text, origin = path.read_text(), str(path)
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as e:
            raise SchemaError(
                f"{origin}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})"
            ) from None
        if not isinstance(raw, dict):
            raise SchemaError(f"{origin}: the task spec must be a JSON object, got {type(raw).__name__}")
    unknown = sorted(set(raw) - set(SPEC_KEYS))
    if unknown:
        raise SchemaError(f"task spec: unknown key(s) {unknown}; allowed: {', '.join(SPEC_KEYS)}")
    missing = [k for k in REQUIRED_KEYS if k not in raw]
    if missing:
        raise SchemaError(f"task spec: missing key(s) {missing} (required: {', '.join(REQUIRED_KEYS)})")
    label = raw["label"]
    if not isinstance(label, dict):
        raise SchemaError(
            'task spec: \'label\' must be an object like {"kind": "any", "table": ..., "fkey": ...}'
        )
    unknown = sorted(set(label) - set(LABEL_KEYS))
    if unknown:
        raise SchemaError(f"task spec: label: unknown key(s) {unknown}; allowed: {', '.join(LABEL_KEYS)}")
    if label.get("kind") not in SPEC_LABEL_KINDS:
        raise SchemaError(
            f"task spec: label.kind must be one of {', '.join(SPEC_LABEL_KINDS)}, got {label.get('kind')!r}"
        )
    if "table" not in label:
        raise SchemaError("task spec: label.table is required (the table whose rows define the label)")
    if label["kind"] in ("sum", "mean", "future_column") and not label.get("column"):
        raise SchemaError(f"task spec: label kind {label['kind']!r} needs label.column")
    return TaskSpec(
        raw,
        {k: raw[k] for k in DB_KEYS if raw.get(k) is not None},
        raw.get("edge_tables"),
        dict(raw.get("exclude") or {}),
        dict(raw.get("column_types") or {}),
    )


def load_database(url: str, spec: TaskSpec) -> Database:
    """A SQLAlchemy URL (``sqlite:///shop.db``, ``postgresql://...``) or a SQLite file path."""
    opts = dict(spec.db_options)
    if "://" in url:
        return Database.from_sql(url, **opts)
    return Database.from_sqlite(url, **opts)


def build_task(db: Database, raw: Mapping[str, Any]) -> EntityTask:
    """The :class:`EntityTask` a (validated) spec describes on ``db``."""
    entity = raw["entity_table"]
    if entity not in db.table_dict:
        raise SchemaError(
            f"task spec: entity_table {entity!r} is not in the database (tables: {', '.join(db.table_dict)})"
        )
    et = db.table_dict[entity]
    label = raw["label"]
    table, kind = label["table"], label["kind"]
    if table not in db.table_dict:
        raise SchemaError(
            f"task spec: label.table {table!r} is not in the database (tables: {', '.join(db.table_dict)})"
        )
    own_row = table == entity
    fkey = None if own_row else label.get("fkey")
    if not own_row:
        to_entity = [fk for fk, t in db.table_dict[table].fkey_col_to_pkey_table.items() if t == entity]
        if fkey is None:
            if len(to_entity) != 1:
                raise SchemaError(
                    f"task spec: label.fkey is needed: table {table!r} has {len(to_entity)} foreign "
                    f"keys to {entity!r} ({', '.join(to_entity) or 'none'})"
                )
            fkey = to_entity[0]
        elif fkey not in to_entity:
            raise SchemaError(
                f"task spec: label.fkey {fkey!r} of table {table!r} does not reference {entity!r} "
                f"(its keys to {entity!r}: {', '.join(to_entity) or 'none'})"
            )
    if own_row and kind != "future_column":
        raise SchemaError("task spec: a label on the entity table's own rows must be kind 'future_column'")
    if own_row and et.time_col is None:
        raise SchemaError(
            f"task spec: label on {entity!r}'s own rows needs the entity table to have a time column"
        )
    entities = raw.get("entities")
    act = dict(active_table=None, active_fkey=None, active_window=None)
    if entities is None and not own_row:
        act.update(active_table=table, active_fkey=fkey)
    elif isinstance(entities, dict):
        unknown = sorted(set(entities) - {"table", "fkey", "window"})
        if unknown or "table" not in entities or "fkey" not in entities:
            raise SchemaError('task spec: \'entities\' must be "all" or {"table", "fkey", optional "window"}')
        act.update(
            active_table=entities["table"], active_fkey=entities["fkey"], active_window=entities.get("window")
        )
        if act["active_table"] not in db.table_dict:
            raise SchemaError(f"task spec: entities.table {act['active_table']!r} is not in the database")
    elif entities not in (None, "all"):
        raise SchemaError(f"task spec: 'entities' must be \"all\" or an object, got {entities!r}")
    column = label.get("column")
    if column is not None and column not in db.table_dict[table].df.columns:
        raise SchemaError(
            f"task spec: label.column {column!r} is not a column of {table!r} "
            f"(columns: {', '.join(map(str, db.table_dict[table].df.columns))})"
        )
    fn = events_label_fn(
        et.pkey_col,
        "time",
        "label",
        event_table=table,
        event_fkey=fkey,
        kind="last" if kind == "future_column" else kind,
        value_col=column,
        entity_table=entity,
        **act,
    )
    task_type = raw.get("task_type") or ("binary_classification" if kind == "any" else "regression")
    unknown_at_seed = list(raw.get("unknown_at_seed") or [])
    if own_row and column not in unknown_at_seed:
        unknown_at_seed.append(column)  # the label is the seed row's own column
    return EntityTask(
        db=db,
        entity_table=entity,
        entity_col=et.pkey_col,
        time_col="time",
        target_col="label",
        timedelta=raw["timedelta"],
        task_type=task_type,
        label_fn=fn,
        val_timestamp=raw["val_timestamps"],
        test_timestamp=raw["test_timestamps"],
        train_start=raw.get("train_start"),
        step=raw.get("step"),
        unknown_at_seed=tuple(unknown_at_seed),
    )
