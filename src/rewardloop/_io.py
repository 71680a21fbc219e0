"""Reading and writing row files: JSON Lines (``.jsonl``/``.json`` lines) and Parquet (needs pyarrow)."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .errors import ConfigError

__all__ = ["json_safe", "read_rows", "write_rows"]

FORMATS = ("jsonl", "parquet")


def _format_of(path: str | os.PathLike[str]) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    raise ConfigError(
        f"cannot tell the format of {str(path)!r}: use a .jsonl or .parquet file (allowed: {FORMATS})"
    )


class RowError(dict):
    """A line that could not be parsed: kept as a row so that it gets its own error status downstream."""


def read_rows(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All rows of a JSONL or Parquet file. A JSONL line that is not a JSON object becomes a :class:`RowError`."""
    if not Path(path).is_file():
        raise ConfigError(f"input file not found: {str(path)!r}")
    if _format_of(path) == "parquet":
        import pyarrow.parquet as pq

        return pq.read_table(path).to_pylist()
    rows: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                rows.append(
                    RowError(_error=f"line {lineno}: invalid JSON: {exc}", _line=line.rstrip("\n")[:200])
                )
                continue
            if not isinstance(row, dict):
                rows.append(
                    RowError(_error=f"line {lineno}: expected a JSON object, got {type(row).__name__}")
                )
                continue
            rows.append(row)
    return rows


def json_safe(value: Any) -> Any:
    """``value`` made JSON-serialisable: numpy scalars/arrays to Python, NaN kept as None, unknowns as str."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [json_safe(v) for v in value]
    if hasattr(value, "tolist"):
        return json_safe(value.tolist())
    if hasattr(value, "item"):
        return json_safe(value.item())
    return str(value)


def write_rows(path: str | os.PathLike[str], rows: Iterable[dict[str, Any]]) -> None:
    """Write rows as JSONL or Parquet, chosen by the file extension."""
    rows = [json_safe(r) for r in rows]
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    if _format_of(path) == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), path)
        return
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
