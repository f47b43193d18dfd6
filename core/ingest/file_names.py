"""File names as people see them and as readers can open them.

A name from an old share or a zip archive may hold bytes that are not UTF-8 (``bad\\xff name.pdf``); Python
keeps them as surrogates, which MuPDF, pdfium, calamine and SQLite cannot take. People see such a name with
\ufffd in place of those bytes (``display_name``); readers are given a link to the file under that name
(``readable_path``); the library keeps the path's bytes (``core.library.store``) so the file can be opened again.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def display_name(path: Path) -> str:
    """A file's name as people see it: bytes that are not UTF-8 (a name from an old share or a zip archive,
    ``bad\\xff.pdf``) shown as \ufffd, as a file manager shows them."""
    return os.fsencode(Path(path).name).decode("utf-8", errors="replace")


def utf8_path(path: Path) -> bool:
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


@contextmanager
def readable_path(path: Path) -> Iterator[Path]:
    """``path`` itself, or, when it is not valid UTF-8 (which MuPDF, pdfium and calamine need), a link to the
    same file named as people see it (``display_name``) in a private folder, for as long as the file is read."""
    path = Path(path)
    if utf8_path(path):
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="folio-name-") as folder:
        link = Path(folder) / display_name(path)
        os.symlink(os.path.abspath(path), link)
        yield link
