"""`folio library` shows a document that was only partly read: its status and the note naming the pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import cli
from core.ingest.ingestor import Ingestor
from core.library.store import Library
from tests.core.ingest.test_ingest_damage import one_damaged_page_pdf

pytestmark = pytest.mark.unit


def test_library_lists_a_partly_read_document_with_its_note(tmp_path: Path, hash_embedder: object,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    library = Library.in_directory(tmp_path / "library")
    try:
        (result,) = Ingestor(library, hash_embedder).ingest_paths([one_damaged_page_pdf(tmp_path / "minutes.pdf")])  # type: ignore[arg-type]
        assert result.status == "added"
    finally:
        library.close()
    assert cli.run(["library", "--library", str(tmp_path / "library")]) == 0
    out = capsys.readouterr().out
    assert "minutes.pdf" in out and "(3 pages, 0 tables, partial)" in out
    assert "\n    1 page(s) could not be read (damaged): 2\n" in out
