"""Damaged input is never "ready" in silence, and two ingestions of one file do not collide: a PDF from
which nothing at all can be read is refused with a clear message; a file another process is adding is
left to it; a file another process added meanwhile is found inside the transaction."""

from __future__ import annotations

import random
from pathlib import Path

import pymupdf
import pytest

from core.ingest.ingestor import Ingestor, file_sha256
from core.library.store import Library
from tests.core.ingest.test_ingest import ruled_table_pdf
from tests.support.pdf_fuzz import MUTATIONS, expanded

pytestmark = pytest.mark.unit


@pytest.fixture
def library(tmp_path: Path) -> Library:
    lib = Library(tmp_path / "lib" / "library.sqlite3")
    yield lib
    lib.close()


def test_a_pdf_with_nothing_readable_is_refused_not_stored_empty(tmp_path: Path, library: Library,
                                                                  hash_embedder: object) -> None:
    blank = tmp_path / "blank.pdf"
    doc = pymupdf.open()
    for _ in range(3):
        doc.new_page()
    doc.save(blank)
    text = tmp_path / "text.pdf"
    doc = pymupdf.open()
    for number in (1, 2):
        doc.new_page().insert_text((72, 72), f"Page {number} of the minutes records the decisions taken.")
    doc.save(text)
    noise = tmp_path / "noise.pdf"  # both content streams replaced by operators with no text
    noise.write_bytes(MUTATIONS["noise_content"](expanded(text), random.Random(1)))
    for path, pages, verdict in ((blank, 3, "damaged or blank"), (noise, 2, "damaged")):
        (result,) = Ingestor(library, hash_embedder).ingest_paths([path])  # type: ignore[arg-type]
        assert result.status == "failed"
        assert result.message == (f"{path.name}: no text, table or image could be read from any of its {pages} "
                                  f"page(s); the file is {verdict}.")
    assert library.counts()["documents"] == 0
    assert library.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def one_damaged_page_pdf(path: Path) -> Path:
    """Three pages of text, the second with a garbled content stream (MuPDF complains and reads nothing)."""
    doc = pymupdf.open()
    for number in range(1, 4):
        doc.new_page().insert_text((72, 72), f"Page {number} of the minutes records the decisions taken.")
    (content,) = doc[1].get_contents()
    doc.update_stream(content, b"BT /F9 Tf 1e308 Tj [ [ ET Q Q cm (x) TJ ]")
    doc.save(path)
    return path


def test_a_pdf_with_one_damaged_page_is_kept_with_a_note_naming_it(tmp_path: Path, library: Library,
                                                                    hash_embedder: object) -> None:
    pdf = one_damaged_page_pdf(tmp_path / "minutes.pdf")
    (result,) = Ingestor(library, hash_embedder).ingest_paths([pdf])  # type: ignore[arg-type]
    assert result.status == "added" and result.message == "1 page(s) could not be read (damaged): 2"
    (document,) = library.documents()
    assert (document.status, document.note) == ("partial", "1 page(s) could not be read (damaged): 2")
    assert document.chunk_count == 2


def test_a_file_another_process_is_adding_is_left_to_it(tmp_path: Path, library: Library,
                                                          hash_embedder: object) -> None:
    pdf = ruled_table_pdf(tmp_path / "budget.pdf")
    other = Library(library.path)  # another claimant: its lock is a different open file, as in another process
    try:
        assert other.claim_content(file_sha256(pdf))
        (result,) = Ingestor(library, hash_embedder).ingest_paths([pdf])  # type: ignore[arg-type]
        assert result.status == "skipped"
        assert result.message == "budget.pdf is already being added to the library by another Folio process."
        assert library.counts()["documents"] == 0
        other.release_content(file_sha256(pdf))
    finally:
        other.close()
    (result,) = Ingestor(library, hash_embedder).ingest_paths([pdf])  # type: ignore[arg-type]
    assert result.status == "added"
    assert not list((library.path.parent / ".adding").iterdir())  # claims are removed when done


def test_a_file_added_meanwhile_by_another_process_is_found_in_the_transaction(
        tmp_path: Path, library: Library, hash_embedder: object, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = ruled_table_pdf(tmp_path / "budget.pdf")
    other = Library(library.path)
    try:
        (first,) = Ingestor(other, hash_embedder).ingest_paths([pdf])  # type: ignore[arg-type]
    finally:
        other.close()
    looked = []
    real = library.document_by_hash

    def not_yet_the_first_time(sha: str):  # type: ignore[no-untyped-def]
        looked.append(sha)
        return None if len(looked) == 1 else real(sha)

    monkeypatch.setattr(library, "document_by_hash", not_yet_the_first_time)
    (result,) = Ingestor(library, hash_embedder).ingest_paths([pdf])  # type: ignore[arg-type]
    assert result.status == "skipped" and result.document_id == first.document_id
    assert result.message == "budget.pdf is already in the library as budget.pdf."
    assert library.counts()["documents"] == 1


class _StaleVersion:
    """A connection whose first look at the schema version is from before another process migrated."""

    def __init__(self, conn: object) -> None:
        self.conn = conn
        self.looked = False

    def execute(self, sql: str, *args: object) -> object:
        if sql == "PRAGMA user_version" and not self.looked:
            self.looked = True
            return self.conn.execute("SELECT 0")  # type: ignore[attr-defined]
        return self.conn.execute(sql, *args)  # type: ignore[attr-defined]


def test_two_processes_opening_a_new_library_at_once_migrate_it_once(library: Library) -> None:
    from core.library.db import connect
    from core.library.migrations import MIGRATIONS, migrate

    conn = connect(library.path)
    try:
        assert migrate(_StaleVersion(conn)) == len(MIGRATIONS)  # type: ignore[arg-type]
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    finally:
        conn.close()
