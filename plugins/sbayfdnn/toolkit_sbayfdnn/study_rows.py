"""Study rows written as they are made (so a stopped study keeps the rows it finished).

Each unit of work (e.g. one dataset x seed) appends its rows to a JSON-lines file the moment it is
done, as one line (so a unit is either wholly in the file or not at all); a rerun with the same file
skips the units already there, so a stopped run resumes. Tidy tables are built from the file at the
end (``to_frame``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path


def _plain(value):
    """JSON-safe copy of one cell (numpy scalars -> Python, nan/inf -> None)."""
    if hasattr(value, "item") and not isinstance(value, (list, dict, str)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


class RowLog:
    """Append-only JSON-lines log of a study's units of work, each with its rows.

    :param path: the ``.jsonl`` file (created with its folder; an existing one is resumed).
    :param key: the fields that name one unit of work, e.g. ``("dataset", "seed")``.
    """

    def __init__(self, path, key: tuple[str, ...]):
        self.path = Path(path)
        self.key = tuple(key)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._units: dict[tuple, list[dict]] = {}
        if self.path.exists():
            lines = self.path.read_text().splitlines()
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    unit = json.loads(line)
                except json.JSONDecodeError:
                    if number != len(lines):
                        raise ValueError(f"{self.path}:{number}: not a JSON line of this log") from None
                    # a run killed mid-write leaves its last line cut: drop it, that unit is redone
                    self.path.write_text("".join(f"{kept}\n" for kept in lines[:-1]))
                    continue
                self._units[self._unit_key(unit["key"])] = unit["rows"]

    def _unit_key(self, unit: dict) -> tuple:
        missing = [k for k in self.key if k not in unit]
        if missing:
            raise ValueError(f"unit of {self.path} lacks the key fields {missing}")
        return tuple(unit[k] for k in self.key)

    def done(self, **unit) -> bool:
        """Whether this unit (a value for every key field) is already in the log."""
        return self._unit_key(unit) in self._units

    def append(self, rows: list[dict], **unit) -> None:
        """Write the rows of one finished unit of work as one line (flushed before returning)."""
        key = {k: _plain(v) for k, v in unit.items()}
        clean = [{**key, **{k: _plain(v) for k, v in row.items()}} for row in rows]
        with self.path.open("a") as handle:
            handle.write(json.dumps({"key": key, "rows": clean}) + "\n")
            handle.flush()
        self._units[self._unit_key(key)] = clean

    @property
    def rows(self) -> list[dict]:
        """Every row, units in the order they were first written."""
        return [row for rows in self._units.values() for row in rows]

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(self.rows)
