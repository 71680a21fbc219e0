"""Reading and writing row files: JSON Lines (``.jsonl``/``.json`` lines) and Parquet (needs pyarrow).

What round-trips (``read_rows(write_rows(rows)) == rows`` after :func:`json_safe`), for any mix of scorers:

* JSONL: every JSON value, exactly.
* Parquet: a column is stored natively when Arrow holds it exactly (same values and types back: no
  ``1`` turned into ``1.0``, no missing struct keys filled with nulls, no empty structs); every other
  column is stored as JSON text, one document per cell (null stays null). ``metrics`` and ``info`` are
  always JSON text, so files scored by different scorers share one schema. The JSON-text columns are
  named in the file's schema metadata (``rewardloop.json_columns``) and :func:`read_rows` decodes them,
  so a reader sees the same rows whichever way a column was stored. A key that some rows lack (Parquet has
  one schema for all rows) is recorded in ``rewardloop.absent`` (column -> row numbers) and left out
  again on reading, so it does not come back as a null.

Writes are atomic (a temporary file renamed into place). When writing fails, :func:`save_rows` saves
the rows as JSONL next to the output (or in the temporary directory) and raises :class:`OutputError`
saying where, so no scored row is lost.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from .errors import ConfigError, InvalidSampleError, RewardLoopError

__all__ = ["OutputError", "json_safe", "read_rows", "response_text", "save_rows", "write_rows"]

FORMATS = ("jsonl", "parquet")
JSON_COLUMNS_KEY = b"rewardloop.json_columns"
ABSENT_KEY = b"rewardloop.absent"
ALWAYS_JSON = ("metrics", "info")


class OutputError(RewardLoopError):
    """Writing the output failed; ``saved_to`` is where the rows were saved instead (None if nowhere)."""

    def __init__(self, message: str, saved_to: str | None) -> None:
        super().__init__(message)
        self.saved_to = saved_to


def _format_of(path: str | os.PathLike[str]) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    raise ConfigError(
        f"cannot tell the format of {str(path)!r} from its extension {suffix or '(none)'!r}; allowed: "
        ".jsonl, .json (JSON Lines, or one JSON array of objects), .ndjson, .parquet, .pq"
    )


class RowError(dict[str, Any]):
    """A line that could not be parsed: kept as a row so that it gets its own error status downstream."""


def _check_input(path: str | os.PathLike[str]) -> None:
    p = Path(path)
    if p.is_dir():
        found = sorted(c.name for c in p.iterdir() if c.suffix.lower() in (".jsonl", ".json", ".parquet"))
        hint = f" (it holds: {', '.join(found[:5])}{' ...' if len(found) > 5 else ''})" if found else ""
        raise ConfigError(
            f"input {str(path)!r} is a directory, not a file: pass one .jsonl or .parquet file{hint}"
        )
    if not p.exists():
        raise ConfigError(f"input file not found: {str(path)!r}")
    _format_of(path)


def read_rows(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """All rows of a JSONL or Parquet file, or of a ``.json`` file holding one JSON array of objects. A line
    (or array item) that is not a JSON object becomes a :class:`RowError`; a file that cannot be read at all
    raises :class:`ConfigError` naming it."""
    _check_input(path)
    if _format_of(path) == "parquet":
        return _read_parquet(path)
    if _is_json_array(path):
        return _read_json_array(path)
    rows: list[dict[str, Any]] = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            text = line.rstrip("\r\n")
            try:
                row = json.loads(text)  # without the newline: a cut-off line reports its own column
            except json.JSONDecodeError as exc:
                cut = exc.msg.startswith("Unterminated") or exc.pos >= len(text.rstrip()) - 1
                hint = " (the line ends before its JSON does: truncated?)" if cut else ""
                rows.append(
                    RowError(
                        _error=f"line {lineno}: invalid JSON: {exc.msg} (column {exc.colno}){hint}",
                        _line=text[:200],
                    )
                )
                continue
            if not isinstance(row, dict):
                rows.append(
                    RowError(_error=f"line {lineno}: expected a JSON object, got {type(row).__name__}")
                )
                continue
            rows.append(row)
    return rows


def _is_json_array(path: str | os.PathLike[str]) -> bool:
    """A ``.json`` file whose first non-blank character is ``[`` holds one JSON array, not JSON Lines."""
    if Path(path).suffix.lower() != ".json":
        return False
    with open(path, encoding="utf-8") as fh:
        while chunk := fh.read(4096):
            stripped = chunk.lstrip()
            if stripped:
                return stripped.startswith("[")
    return False


def _read_json_array(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        try:
            items = json.load(fh)
        except json.JSONDecodeError as exc:
            raise ConfigError(
                f"{str(path)!r} starts a JSON array but is not valid JSON: {exc.msg} at line {exc.lineno} "
                f"column {exc.colno} (truncated?); write one JSON object per line (JSONL) to keep the rows "
                "before a bad one"
            ) from None
    rows: list[dict[str, Any]] = []
    for i, item in enumerate(items):
        if isinstance(item, dict):
            rows.append(item)
        else:
            rows.append(RowError(_error=f"item {i}: expected a JSON object, got {type(item).__name__}"))
    return rows


def _read_parquet(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:  # empty, truncated, or not Parquet at all
        size = Path(path).stat().st_size
        what = "an empty file" if size == 0 else f"{size} bytes"
        raise ConfigError(
            f"{str(path)!r} is not a readable Parquet file ({what}: {str(exc).splitlines()[0][:200]})"
        ) from None
    meta = table.schema.metadata or {}
    json_columns = json.loads(meta[JSON_COLUMNS_KEY]) if JSON_COLUMNS_KEY in meta else []
    absent = json.loads(meta[ABSENT_KEY]) if ABSENT_KEY in meta else {}
    rows = table.to_pylist()
    for name in json_columns:
        for row in rows:
            if isinstance(row.get(name), str):
                row[name] = json.loads(row[name])
    for name, numbers in absent.items():
        for i in numbers:
            rows[i].pop(name, None)
    return cast("list[dict[str, Any]]", rows)


def json_safe(value: Any) -> Any:
    """``value`` made JSON-serialisable: numpy scalars/arrays to Python, NaN kept as None, unknowns as str."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) or math.isinf(value) else value
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [json_safe(v) for v in value]
    if hasattr(value, "tolist"):
        return json_safe(value.tolist())
    if hasattr(value, "item"):
        return json_safe(value.item())
    return str(value)


def write_rows(path: str | os.PathLike[str], rows: Iterable[dict[str, Any]]) -> int:
    """Write rows as JSONL or Parquet, chosen by the file extension; returns the number of rows.

    Atomic: the rows go to a temporary file in the same directory that replaces ``path`` when complete.
    """
    fmt = _format_of(path)
    safe = [json_safe(r) for r in rows]
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = _new_file(target)
    try:
        if fmt == "parquet":
            _write_parquet(tmp, safe)
        else:
            _write_jsonl(tmp, safe)
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return len(safe)


def _new_file(target: Path) -> str:
    """A new empty temporary file next to ``target``, created with mode 0666 so the umask applies (as for any
    file a command writes; ``mkstemp``'s 0600 would keep the trainer and teammates from reading it)."""
    for _ in range(100):
        tmp = target.parent / f".{target.name}.{os.urandom(6).hex()}.tmp"
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return str(tmp)
    raise OSError(f"could not create a temporary file next to {str(target)!r}")


def _write_jsonl(path: str | os.PathLike[str], rows: Sequence[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def _canonical(values: Sequence[Any]) -> str:
    return json.dumps(values, sort_keys=True, ensure_ascii=False)


def _column(name: str, values: list[Any]) -> tuple[Any, bool]:
    """The Arrow array for one column and whether it holds JSON text."""
    import pyarrow as pa

    if name not in ALWAYS_JSON:
        try:
            array = pa.array(values)
        except (pa.ArrowException, TypeError, ValueError, OverflowError):
            array = None
        exact = array is not None and not _has_empty_struct(array.type)
        if exact and _canonical(array.to_pylist()) == _canonical(values):
            return array, False
    text = [None if v is None else json.dumps(v, ensure_ascii=False) for v in values]
    return pa.array(text, type=pa.string()), True


def _has_empty_struct(dtype: Any) -> bool:
    import pyarrow as pa

    if pa.types.is_struct(dtype):
        return dtype.num_fields == 0 or any(
            _has_empty_struct(dtype.field(i).type) for i in range(dtype.num_fields)
        )
    if pa.types.is_list(dtype) or pa.types.is_large_list(dtype):
        return _has_empty_struct(dtype.value_type)
    return False


def _write_parquet(path: str | os.PathLike[str], rows: Sequence[dict[str, Any]]) -> None:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:  # pragma: no cover - pyarrow is a core dependency
        from .errors import MissingExtraError

        raise MissingExtraError("pyarrow", "all") from exc
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    arrays, json_columns, absent = [], [], {}
    for name in names:
        array, is_json = _column(name, [row.get(name) for row in rows])
        arrays.append(array)
        if is_json:
            json_columns.append(name)
        missing = [i for i, row in enumerate(rows) if name not in row]
        if missing:
            absent[name] = missing
    table = pa.Table.from_arrays(arrays, names=list(names))
    meta = {JSON_COLUMNS_KEY: json.dumps(json_columns).encode(), ABSENT_KEY: json.dumps(absent).encode()}
    table = table.replace_schema_metadata(meta)
    pq.write_table(table, path)


def fallback_path(path: str | os.PathLike[str]) -> Path:
    """Where :func:`save_rows` puts the rows when ``path`` cannot be written: ``<path>.fallback.jsonl``."""
    return Path(f"{path}.fallback.jsonl")


def save_rows(path: str | os.PathLike[str], rows: Sequence[dict[str, Any]]) -> int:
    """:func:`write_rows`, and when that fails, save the rows as JSONL elsewhere and raise :class:`OutputError`.

    The fallback goes next to the output (``<path>.fallback.jsonl``), else to the temporary directory.
    """
    try:
        return write_rows(path, rows)
    except ConfigError:
        raise
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"
        candidates = [fallback_path(path), Path(tempfile.gettempdir()) / fallback_path(Path(path).name).name]
        for candidate in candidates:
            try:
                write_rows(candidate, rows)
            except Exception:
                continue
            raise OutputError(
                f"could not write {str(path)!r} ({reason}); the {len(rows)} scored rows were saved to "
                f"{str(candidate)!r} instead",
                str(candidate),
            ) from exc
        raise OutputError(
            f"could not write {str(path)!r} ({reason}) nor a fallback copy; the scored rows are lost", None
        ) from exc


def response_text(value: Any, field: str = "response") -> str:
    """The text to score: a string, or a chat (a list of ``{role, content}`` messages, TRL's conversational
    format: the last ``assistant`` message; text content parts are joined). Anything else raises
    :class:`InvalidSampleError` saying what was found and what is allowed."""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple):
        if not value:
            raise InvalidSampleError(f"{field!r} is an empty list: no response to score")
        if all(isinstance(m, Mapping) for m in value):
            assistant = [m for m in value if m.get("role") == "assistant"]
            if not assistant:
                roles = sorted({str(m.get("role")) for m in value})
                raise InvalidSampleError(
                    f"{field!r} is a chat without an assistant message (roles: {', '.join(roles)})"
                )
            return _content_text(assistant[-1].get("content"), field)
    raise InvalidSampleError(
        f"{field!r} must be a string, a list of strings (n responses) or a chat (a list of role/content "
        f"messages), got {type(value).__name__}"
    )


def _content_text(content: Any, field: str) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list | tuple):  # multimodal content parts: the text ones
        return "".join(
            str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type") == "text"
        )
    raise InvalidSampleError(
        f"{field!r}: an assistant message's content must be text, got {type(content).__name__}"
    )
