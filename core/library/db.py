"""Opening SQLite connections with the extensions Folio needs (sqlite-vec, FTS5).

Python's own ``sqlite3`` is often built without extension loading; ``pysqlite3`` (bundling a recent
SQLite) is used instead where that is so. Every thread opens its own connection through ``connect``.
"""

from __future__ import annotations

import contextlib
import errno
import sqlite3 as _stdlib_sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import sqlite_vec

from core.errors import LibraryBusy, LibraryError, LibraryFull, LibraryReadOnly


def _pick_module() -> ModuleType:
    if hasattr(_stdlib_sqlite3.Connection, "enable_load_extension"):
        return _stdlib_sqlite3
    try:
        import pysqlite3.dbapi2 as pysqlite3  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - only on platforms without the wheel
        return _stdlib_sqlite3
    return pysqlite3


sqlite3: ModuleType = _pick_module()
if TYPE_CHECKING:
    # pysqlite3 mirrors the standard module's API, so its types check as the standard ones.
    from sqlite3 import (
        Connection,
        Cursor,
        DatabaseError,
        Error,
        IntegrityError,
        InterfaceError,
        OperationalError,
    )
else:
    Connection = sqlite3.Connection
    Cursor = sqlite3.Cursor
    Error = sqlite3.Error
    OperationalError = sqlite3.OperationalError
    DatabaseError = sqlite3.DatabaseError
    IntegrityError = sqlite3.IntegrityError
    InterfaceError = sqlite3.InterfaceError


def load_vec(conn: Connection) -> None:
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)


def connect(path: Path | str, *, read_only: bool = False, timeout: float = 30.0) -> Connection:
    """Open the library file. Read-only connections use SQLite's ``mode=ro`` so no statement can write."""
    if read_only:
        uri = Path(path).resolve().as_uri() + "?mode=ro"
        conn = sqlite3.connect(uri, uri=True, timeout=timeout, check_same_thread=False, isolation_level=None)
    else:
        conn = sqlite3.connect(str(path), timeout=timeout, check_same_thread=False, isolation_level=None)
    load_vec(conn)
    conn.execute("PRAGMA foreign_keys = ON")
    if not read_only:
        _use_write_ahead_log(conn, timeout)
        conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _use_write_ahead_log(conn: Connection, timeout: float) -> None:
    """Switch the file to WAL mode (once per file: the mode is stored in it). SQLite answers "database is
    locked" at once, without waiting, when another process opens a new library at the same moment, so the
    switch is retried until ``timeout`` runs out."""
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        try:
            if str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower() != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
            return
        except OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(delay)
            delay = min(delay * 2, 0.5)


def inserted_id(cursor: Cursor) -> int:
    """The rowid an INSERT just made (never None after a successful INSERT)."""
    rowid = cursor.lastrowid
    if rowid is None:
        raise RuntimeError("the statement inserted no row")
    return int(rowid)


def quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def quote_text(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def busy_error(exc: BaseException) -> bool:
    """SQLite's "another connection holds the lock" (``database is locked`` / ``busy``)."""
    text = str(exc).lower()
    return isinstance(exc, OperationalError) and ("locked" in text or "busy" in text)


def library_path(conn: Connection) -> Path:
    """The file a connection has open."""
    return Path(next((r[2] for r in conn.execute("PRAGMA database_list") if r[1] == "main"), "") or "library")


def library_write_error(exc: BaseException, library: Path, failed: str) -> LibraryError | None:
    """What a failed write means for a person, or None when it is none of the failures a person can mend (a full
    disk, a read-only file or disk, a lock held too long, a damaged file). ``library`` is the library file (a
    failure of SQLite's is one of it; an ``OSError`` names its own file); ``failed`` says what did not happen
    ("report.pdf was not added"). Nothing of it was kept."""
    text = str(exc).lower()
    code = exc.errno if isinstance(exc, OSError) else None
    elsewhere = str(exc.filename) if isinstance(exc, OSError) and exc.filename else ""
    if code in (errno.ENOSPC, errno.EDQUOT) or "disk is full" in text:
        return LibraryFull(f"{failed}: the disk holding {elsewhere or f'the library ({Path(library).parent})'} is full. "
                           "Free some space there and try again; the library is unchanged.")
    if code in (errno.EROFS, errno.EACCES, errno.EPERM) or "readonly" in text or "read-only" in text:
        return LibraryReadOnly(f"{failed}: {elsewhere or f'the library at {library}'} cannot be written (the file, its "
                               "folder or the disk is read-only, or belongs to another user). Make it writable, or "
                               "choose another library folder, and try again.")
    if busy_error(exc):
        return LibraryBusy(f"{failed}: another program kept the library at {library} locked for too long. Wait for it "
                           "to finish (or close it) and try again.")
    if isinstance(exc, DatabaseError) and ("malformed" in text or "not a database" in text or "disk i/o" in text):
        return LibraryError(f"{failed}: the library file {library} could not be written ({exc}). The disk may be "
                            "failing or the file damaged; copy the library folder somewhere safe and check the disk.")
    return None


def rollback(conn: Connection) -> None:
    """Roll back the open transaction, if SQLite has not already (it does on a full disk, and a second
    ROLLBACK would raise over the real error)."""
    if conn.in_transaction:
        with contextlib.suppress(Exception):  # the error being raised already says what went wrong
            conn.execute("ROLLBACK")


def _begin_immediate(conn: Connection) -> None:
    conn.execute("BEGIN IMMEDIATE")


@contextlib.contextmanager
def write_transaction(conn: Connection, failed: str,
                      begin: Callable[[Connection], None] = _begin_immediate) -> Iterator[None]:
    """One write, all of it or nothing. A failure a person can mend (see ``library_write_error``) is raised as the
    ``LibraryError`` that says so, ``failed`` saying what did not happen ("The document was not removed")."""
    try:
        begin(conn)
        try:
            yield
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)
            raise
    except LibraryError:
        raise
    except Exception as exc:
        failure = library_write_error(exc, library_path(conn), failed)
        if failure is None:
            raise
        raise failure from exc
