"""Errors the engine raises. ``UserError`` subclasses are problems a person can fix or should be told
about in plain words (a corrupt or encrypted PDF, a full disk, a refused SQL statement); anything else
escaping the core is a bug. Only ``app/`` turns these into messages."""

from __future__ import annotations


class FolioError(Exception):
    """Base of every error the engine raises on purpose."""


class UserError(FolioError):
    """Something the user can understand and act on. ``str(error)`` is the message to show."""


class Cancelled(FolioError):
    """A job stopped because its cancellation token was set."""

    def __init__(self, message: str = "Cancelled") -> None:
        super().__init__(message)


class NotAPdf(UserError):
    pass


class CorruptPdf(UserError):
    pass


class EncryptedPdf(UserError):
    """The PDF needs a password (none given, or the one given was wrong)."""


class EmptyPdf(UserError):
    pass


class NoTextLayer(UserError):
    """Every page is an image without a text layer: it needs OCR first."""


class LibraryError(UserError):
    """The library file cannot be opened or written (disk full, read-only, newer schema)."""


class LibraryFull(LibraryError):
    """The disk (or the quota) holding the library has no room for what was being written."""


class LibraryReadOnly(LibraryError):
    """The library file, its folder or its disk may not be written."""


class LibraryBusy(LibraryError):
    """Another process held the library's write lock for longer than a writer waits."""


class SqlRefused(UserError):
    """A statement tried to write, attach, or change pragmas; the runner is read-only."""


class SqlTimeout(UserError):
    pass


class SqlError(UserError):
    """The statement is not valid SQL for this library (the message is SQLite's)."""
