"""Writing result tables to CSV or Parquet (by the file's extension)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolkit.errors import ParameterError

FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


def export_table(table: Any, path: str | Path) -> Path:
    """Write ``table`` to ``path``; the extension (.csv, .parquet) picks the format."""
    path = Path(path)
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise ParameterError(f"--out {str(path)!r}: the file must end in one of {', '.join(FORMATS)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        table.to_csv(path, index=False)
    else:
        # object columns with mixed types do not convert to Arrow; write them as text
        safe = table.copy()
        for col in safe.columns:
            if safe[col].dtype == object:
                safe[col] = safe[col].map(lambda v: v if v is None or isinstance(v, str) else str(v))
        safe.to_parquet(path, index=False)
    return path
