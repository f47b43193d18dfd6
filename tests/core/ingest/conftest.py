"""Fixtures of the ingestion tests: a fresh library in the test's folder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.library.store import Library


@pytest.fixture
def library(tmp_path: Path) -> Iterator[Library]:
    lib = Library(tmp_path / "lib" / "library.sqlite3")
    yield lib
    lib.close()
