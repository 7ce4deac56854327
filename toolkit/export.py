"""Writing result tables to CSV or Parquet (by the file's extension)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toolkit.errors import ParameterError

FORMATS = {".csv": "csv", ".parquet": "parquet", ".pq": "parquet"}


def check_output_path(path: str | Path) -> Path:
    """Refuse, before any work, an output file with an unknown extension or that cannot be written."""
    path = Path(path)
    if FORMATS.get(path.suffix.lower()) is None:
        raise ParameterError(f"--out {str(path)!r}: the file must end in one of {', '.join(FORMATS)}")
    if path.is_dir():
        raise ParameterError(f"--out {str(path)!r} is a folder; give a file name")
    existed = path.exists()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "ab"):
            pass
    except OSError as exc:
        raise ParameterError(
            f"--out {str(path)!r} cannot be written ({exc.strerror or exc}); choose another file"
        ) from None
    if not existed:
        path.unlink()
    return path


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


def markdown_table(table: Any, floatfmt: str = ".3f") -> str:
    """``table`` (a DataFrame) as a Markdown pipe table, floats formatted with ``floatfmt``.

    For study scripts that print the tables results pages quote; needs no optional package
    (pandas' own ``to_markdown`` needs ``tabulate``).
    """

    def cell(value: Any) -> str:
        text = format(value, floatfmt) if isinstance(value, float) else str(value)
        return text.replace("|", "\\|")

    lines = ["| " + " | ".join(map(str, table.columns)) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in table.itertuples(index=False)]
    return "\n".join(lines) + "\n"
