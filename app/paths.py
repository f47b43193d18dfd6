"""Where Folio keeps things on disk: the library directory (``--library DIR`` beats ``FOLIO_LIBRARY``
beats the user's data directory), the settings file, and the private runtime folder that holds the warm
model's socket (``FOLIO_RUNTIME_DIR`` beats ``$XDG_RUNTIME_DIR/folio`` beats ``/tmp/folio-<uid>``)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import platformdirs

from core.library.store import LIBRARY_FILE_NAME

LIBRARY_ENV = "FOLIO_LIBRARY"
RUNTIME_ENV = "FOLIO_RUNTIME_DIR"


def default_library_dir() -> Path:
    return Path(platformdirs.user_data_dir("folio", appauthor=False)) / "library"


def library_dir(cli_value: str | os.PathLike[str] | None = None) -> Path:
    if cli_value:
        return Path(cli_value).expanduser()
    env = os.environ.get(LIBRARY_ENV)
    if env:
        return Path(env).expanduser()
    return default_library_dir()


def library_file(directory: Path) -> Path:
    return directory / LIBRARY_FILE_NAME


def runtime_dir() -> Path:
    """A folder only this user can enter, for sockets and locks; created if needed. Raises ``OSError``
    when it exists but belongs to someone else or others may enter it (a socket there would not be private)."""
    env = os.environ.get(RUNTIME_ENV)
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if env:
        path = Path(env).expanduser()
    elif xdg:
        path = Path(xdg) / "folio"
    else:
        path = Path(tempfile.gettempdir()) / f"folio-{os.getuid()}"
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = path.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise OSError(f"{path} is not a private folder of this user (owner {info.st_uid}, mode "
                      f"{stat.S_IMODE(info.st_mode):o}); remove it or set {RUNTIME_ENV}.")
    return path
