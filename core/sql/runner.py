"""Running SQL that a person or an LLM wrote, safely: read-only, one statement, bounded in time, rows,
bytes and memory.

The fences: the connection is opened with SQLite's ``mode=ro``; an authorizer refuses anything that is
not reading (writes, ATTACH/DETACH, pragmas that change state, DDL), and, for the questions' SQL, any
table outside an allow-list; a progress handler interrupts a statement that runs past its time limit.
No string or BLOB longer than ``max_value_bytes`` can be built or read (SQLite's ``SQLITE_LIMIT_LENGTH``),
so no single step of a statement can run long or grow huge; SQLite's process-wide ``hard_heap_limit``
bounds what a statement may allocate in all (wide rows, sorting); and a result is cut at ``max_rows``
rows or ``max_result_bytes`` bytes, and says which. Refusals name the statement that was refused.
"""

from __future__ import annotations

import ctypes
import math
import os
import re
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import SqlError, SqlRefused, SqlTimeout
from core.library.db import Connection, connect, sqlite3

# Pragmas that only describe the schema or the file; their argument is a table name, never a new value.
# FTS5 asks for data_version whenever one of its tables is read.
READ_ONLY_PRAGMAS = frozenset({"table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
                               "foreign_key_list", "data_version"})
_ALLOWED_ACTIONS = {sqlite3.SQLITE_SELECT, sqlite3.SQLITE_FUNCTION, getattr(sqlite3, "SQLITE_RECURSIVE", 33)}
# What each refused authorizer action is called, for statements whose first words do not say it (WITH ... DELETE).
_ACTION_NAMES = {
    "SQLITE_CREATE_INDEX": "CREATE INDEX", "SQLITE_CREATE_TABLE": "CREATE TABLE", "SQLITE_CREATE_TEMP_INDEX": "CREATE INDEX",
    "SQLITE_CREATE_TEMP_TABLE": "CREATE TABLE", "SQLITE_CREATE_TEMP_TRIGGER": "CREATE TRIGGER",
    "SQLITE_CREATE_TEMP_VIEW": "CREATE VIEW", "SQLITE_CREATE_TRIGGER": "CREATE TRIGGER", "SQLITE_CREATE_VIEW": "CREATE VIEW",
    "SQLITE_DELETE": "DELETE", "SQLITE_DROP_INDEX": "DROP INDEX", "SQLITE_DROP_TABLE": "DROP TABLE",
    "SQLITE_DROP_TEMP_INDEX": "DROP INDEX", "SQLITE_DROP_TEMP_TABLE": "DROP TABLE", "SQLITE_DROP_TEMP_TRIGGER": "DROP TRIGGER",
    "SQLITE_DROP_TEMP_VIEW": "DROP VIEW", "SQLITE_DROP_TRIGGER": "DROP TRIGGER", "SQLITE_DROP_VIEW": "DROP VIEW",
    "SQLITE_INSERT": "INSERT", "SQLITE_PRAGMA": "PRAGMA", "SQLITE_TRANSACTION": "a transaction statement",
    "SQLITE_UPDATE": "UPDATE", "SQLITE_ATTACH": "ATTACH", "SQLITE_DETACH": "DETACH", "SQLITE_ALTER_TABLE": "ALTER TABLE",
    "SQLITE_REINDEX": "REINDEX", "SQLITE_ANALYZE": "ANALYZE", "SQLITE_CREATE_VTABLE": "CREATE VIRTUAL TABLE",
    "SQLITE_DROP_VTABLE": "DROP VIRTUAL TABLE", "SQLITE_SAVEPOINT": "SAVEPOINT",
}
_NAMES_BY_CODE = {getattr(sqlite3, name): words for name, words in _ACTION_NAMES.items() if hasattr(sqlite3, name)}

SQLITE_LIMIT_LENGTH = 0
# The longest string or BLOB a statement may build or read. The library's longest values (a page's text,
# a table's schema) are tens of kilobytes; sqlite-vec reads its 1.5 MB vector chunks as BLOBs itself,
# outside this limit. Bounding values also bounds the time one step of a statement can take (a replace()
# over a 100 MB value is one step, which the progress handler cannot interrupt).
MAX_VALUE_BYTES = 4 << 20
MAX_RESULT_BYTES = 16 << 20
# SQLite's hard heap limit is one for the process (every connection's page cache counts); Folio's own use
# is a few tens of megabytes. A statement that needs more fails with SQLITE_NOMEM, which Python raises as
# MemoryError. The pragma only ever lowers the limit.
HEAP_LIMIT_BYTES = 256 << 20
BLOB_PREFIX_BYTES = 16

_LEADING_NOISE = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?(?:\*/|$))*", re.DOTALL)


@dataclass(frozen=True)
class SqlResult:
    sql: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    truncated: bool
    seconds: float
    limited_by: str = ""  # "rows" or "bytes" when truncated


def statement_name(sql: str) -> str:
    """What a statement is, by its first words: "DROP TABLE", "VACUUM", "PRAGMA journal_mode"; "" for
    statements that start as a query (SELECT, WITH, VALUES), whose refused part the authorizer names."""
    text = _LEADING_NOISE.sub("", sql, count=1)
    pragma = re.match(r"PRAGMA\s+(?:\w+\s*\.\s*)?(\w+)", text, re.IGNORECASE)
    if pragma:
        return f"PRAGMA {pragma.group(1).lower()}"
    words = [w.upper() for w in re.findall(r"[A-Za-z_]+", text[:300])]
    while words and words[0] in ("EXPLAIN", "QUERY", "PLAN"):
        words.pop(0)
    if not words or words[0] in ("SELECT", "WITH", "VALUES"):
        return ""
    first = words[0]
    if first in ("CREATE", "DROP"):
        kind = next((w for w in words[1:5] if w in ("TABLE", "INDEX", "VIEW", "TRIGGER")), "")
        return " ".join(filter(None, [first, "VIRTUAL" if "VIRTUAL" in words[1:3] else "", kind]))
    if first == "ALTER":
        return "ALTER TABLE"
    return first


def value_bytes(value: Any) -> int:
    """The size a result value takes: its UTF-8 bytes for text, its length for a BLOB, 8 for a number."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    if isinstance(value, (bytes, bytearray, memoryview)):
        return len(value)
    return 8


def blob_summary(value: bytes | bytearray | memoryview) -> dict[str, Any]:
    """A BLOB as JSON shows it: its size and its first bytes in hex."""
    data = bytes(value[:BLOB_PREFIX_BYTES])
    return {"blob_bytes": len(value), "hex_prefix": data.hex()}


def json_value(value: Any) -> Any:
    """A result value as JSON can carry it (BLOBs summarised, infinities as text)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return blob_summary(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def display_value(value: Any) -> str:
    """A result value as a table cell shows it."""
    if value is None:
        return ""
    if isinstance(value, (bytes, bytearray, memoryview)):
        summary = blob_summary(value)
        more = "..." if summary["blob_bytes"] > BLOB_PREFIX_BYTES else ""
        return f"<BLOB {summary['blob_bytes']:,} bytes: {summary['hex_prefix']}{more}>"
    return str(value)


def _megabytes(amount: int) -> str:
    return f"{amount / (1 << 20):g} MB"


def _set_value_limit(conn: Connection, library_path: Path, limit: int) -> bool:
    """Set SQLITE_LIMIT_LENGTH on ``conn``; True when it was set.

    The standard module has ``Connection.setlimit`` (Python 3.11). pysqlite3, used where the standard
    module cannot load extensions, has not; but its extension module exports SQLite's C API, and its
    connection object holds the ``sqlite3*`` handle first after the object header, as CPython's does.
    The handle is checked (the file it has open must be the library) before the limit is set through it.
    """
    setlimit = getattr(conn, "setlimit", None)
    if setlimit is not None:
        setlimit(SQLITE_LIMIT_LENGTH, limit)
        return True
    if sqlite3.__name__ != "pysqlite3.dbapi2":
        return False
    try:
        import pysqlite3._sqlite3 as extension  # type: ignore[import-not-found]

        api = ctypes.CDLL(extension.__file__)
        api.sqlite3_db_filename.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        api.sqlite3_db_filename.restype = ctypes.c_char_p
        api.sqlite3_limit.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        api.sqlite3_limit.restype = ctypes.c_int
        handle = ctypes.c_void_p.from_address(id(conn) + object.__basicsize__).value
        name = api.sqlite3_db_filename(handle, b"main") if handle else None
        if not name or Path(os.fsdecode(name)).resolve() != library_path.resolve():
            return False
        api.sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, limit)
        return bool(api.sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, -1) == limit)
    except (ImportError, OSError, AttributeError, ValueError):
        return False


class SqlRunner:
    """Executes single read-only statements against a library file. One instance per thread."""

    def __init__(self, library_path: Path, *, timeout_seconds: float = 5.0, max_rows: int = 200,
                 allowed_tables: Collection[str] | None = None, max_value_bytes: int = MAX_VALUE_BYTES,
                 max_result_bytes: int = MAX_RESULT_BYTES, heap_limit_bytes: int = HEAP_LIMIT_BYTES) -> None:
        if max_rows < 1:
            raise ValueError(f"max_rows must be 1 or more, not {max_rows}")
        self.timeout_seconds = timeout_seconds
        self.max_rows = max_rows
        self.max_value_bytes = max_value_bytes
        self.max_result_bytes = max_result_bytes
        self.heap_limit_bytes = heap_limit_bytes
        self.allowed_tables = {t.lower() for t in allowed_tables} if allowed_tables is not None else None
        self._conn = connect(library_path, read_only=True)
        self._conn.execute(f"PRAGMA hard_heap_limit = {int(heap_limit_bytes)}")
        self.value_limit_set = _set_value_limit(self._conn, Path(library_path), max_value_bytes)
        self._refusal: str | None = None
        self._refused_action: int | None = None
        self._deadline = 0.0
        self._conn.set_authorizer(self._authorize)
        self._conn.set_progress_handler(self._progress, 2000)

    def close(self) -> None:
        self._conn.close()

    def allow_only(self, tables: Iterable[str]) -> None:
        """From now on, read no table but these (names, any case). SQLite's own schema stays readable."""
        self.allowed_tables = {t.lower() for t in tables}

    def _authorize(self, action: int, arg1: str | None, arg2: str | None, db_name: str | None, source: str | None) -> int:
        if action == sqlite3.SQLITE_READ:
            if self.allowed_tables is not None and source is None and arg1 and arg1.lower() not in self.allowed_tables \
                    and not arg1.lower().startswith("sqlite_"):
                self._refusal = (f"Reading table {arg1} is not allowed here: only the tables extracted from the "
                                 "documents can be read.")
                return sqlite3.SQLITE_DENY
            return sqlite3.SQLITE_OK
        if action in _ALLOWED_ACTIONS:
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_PRAGMA and (arg1 or "").lower() in READ_ONLY_PRAGMAS:
            return sqlite3.SQLITE_OK
        if self._refused_action is None:
            self._refused_action = action
            if action == sqlite3.SQLITE_PRAGMA and arg1:
                self._refusal = f"PRAGMA {arg1.lower()}"
        return sqlite3.SQLITE_DENY

    def _refused(self, statement: str) -> str:
        if self._refusal and self._refused_action is None:  # a table outside the allow-list
            return self._refusal
        name = statement_name(statement) or self._refusal or _NAMES_BY_CODE.get(self._refused_action or -1, "")
        return f"Only reading is allowed: {name or 'this statement'} was refused."

    def _progress(self) -> int:
        return 1 if time.monotonic() > self._deadline else 0

    def _timed_out(self) -> SqlTimeout:
        return SqlTimeout(f"The query ran longer than {self.timeout_seconds:g} s and was stopped.")

    def run(self, sql: str) -> SqlResult:
        statement = sql.strip().rstrip("; \t\r\n\f\v")  # "SELECT 1;;" is one statement, without empty ones
        if not statement:
            raise SqlError("The SQL statement is empty.")
        self._refusal = None
        self._refused_action = None
        start = time.monotonic()
        self._deadline = start + self.timeout_seconds
        rows: list[tuple[Any, ...]] = []
        limited_by = ""
        try:
            cursor = self._conn.execute(statement)
            total = 0
            while (row := cursor.fetchone()) is not None:
                if len(rows) == self.max_rows:
                    limited_by = "rows"
                    break
                sizes = [value_bytes(v) for v in row]
                if max(sizes, default=0) > self.max_value_bytes:  # only where SQLITE_LIMIT_LENGTH could not be set
                    raise SqlError(self._too_big_message())
                if total + sum(sizes) > self.max_result_bytes:
                    if not rows:
                        raise SqlError(f"One row of the result holds {_megabytes(sum(sizes))}; a result may hold "
                                       f"{_megabytes(self.max_result_bytes)}. Select fewer or shorter columns.")
                    limited_by = "bytes"
                    break
                total += sum(sizes)
                rows.append(tuple(row))
                if time.monotonic() > self._deadline:
                    raise self._timed_out()
        except MemoryError as exc:
            raise SqlError(f"The query needs more than the {_megabytes(self.heap_limit_bytes)} of memory a query "
                           "may use. Select fewer rows or columns, or shorter values.") from exc
        except sqlite3.DatabaseError as exc:
            message = str(exc)
            if self._refusal or self._refused_action is not None or "not authorized" in message or "prohibited" in message:
                raise SqlRefused(self._refused(statement)) from exc
            if "interrupted" in message:
                raise self._timed_out() from exc
            if "too big" in message:
                raise SqlError(self._too_big_message()) from exc
            if "readonly" in message or "read-only" in message:
                raise SqlRefused(f"Only reading is allowed: {statement_name(statement) or 'this statement'} was refused "
                                 f"({message}).") from exc
            raise SqlError(message) from exc
        except sqlite3.Warning as exc:  # "You can only execute one statement at a time."
            raise SqlError("Only one statement can be run at a time.") from exc
        columns = tuple(d[0] for d in cursor.description or ())
        return SqlResult(statement, columns, tuple(rows), bool(limited_by), time.monotonic() - start, limited_by)

    def _too_big_message(self) -> str:
        return (f"A value the query builds or reads is over the {_megabytes(self.max_value_bytes)} limit per value. "
                "Select part of it (substr()) or its size (length()).")
