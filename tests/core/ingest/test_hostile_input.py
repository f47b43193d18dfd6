"""Input a hostile or unlucky user gives (issue 23), each on real files and a real library: a scan whose text is
all table, file names that are not UTF-8, a link that loops, two ingestions into one library at once, a full
disk and a read-only library. Each is either read or refused with a message that says what failed and what
to do, and the library is never left with half a document."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pymupdf
import pytest

from core.errors import LibraryReadOnly
from core.ingest.ingestor import Ingestor
from core.ingest.page_render import render_page
from core.jobs import JobContext
from core.library.db import connect
from core.library.store import Library
from models.types import ProgressEvent
from tests.conftest import HashEmbedder
from tests.core.ingest.test_ingest import REPO, ruled_table_pdf, snapshot
from tests.support.pdfs import draw_ruled_table
from tests.support.scans import scan_of

pytestmark = pytest.mark.unit


def prose_pdf(path: Path, pages: int = 2, words: str = "council spending") -> Path:
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        doc.new_page().insert_text((72, 72), f"Page {number} of the minutes records decisions on {words}.")
    doc.save(path)
    return path


def test_a_scan_whose_text_is_all_table_is_read_not_refused(tmp_path: Path, library: Library,
                                                             hash_embedder: HashEmbedder) -> None:
    source = pymupdf.open()
    page = source.new_page(width=595, height=842)
    rows = [["Balance sheet", "2024", "2023"], ["Cash", "1,200", "1,000"], ["Receivables", "800", "700"],
            ["Inventories", "500", "450"], ["Total assets", "2,500", "2,150"]]
    draw_ruled_table(page, rows, [60, 260, 380, 500], 80)  # nothing on the page but the table
    scan = scan_of(source, tmp_path / "balance sheet scan.pdf", dpi=150)
    (result,) = Ingestor(library, hash_embedder).ingest_paths([scan])
    assert result.status == "added" and result.tables == 1 and result.ocr_pages == (1,), result.message
    (table,) = library.tables()
    values = library.conn.execute(f'SELECT * FROM "{table.name}" ORDER BY _row').fetchall()
    assert any(1200 in row and 1000 in row for row in values), values


def test_a_file_name_that_is_not_utf8_is_read_stored_and_opened_again(tmp_path: Path, library: Library,
                                                                      hash_embedder: HashEmbedder) -> None:
    folder = tmp_path / "share"
    folder.mkdir()
    raw = os.fsencode(folder) + b"/bad\xff name \xe9.pdf"  # Latin-1 bytes, as old shares and zip archives hold
    os.rename(ruled_table_pdf(tmp_path / "plain.pdf"), raw)
    path = Path(os.fsdecode(raw))
    (result,) = Ingestor(library, hash_embedder).ingest_paths([folder])
    assert result.status == "added" and result.tables == 1, result.message
    assert result.message.startswith("bad\ufffd name \ufffd.pdf: 1 page")
    (document,) = library.documents()
    assert document.file_name == "bad\ufffd name \ufffd.pdf"
    assert Path(document.path) == path  # the very file, so its pages can be shown again
    assert render_page(Path(document.path), 1, zoom=0.5).width_px > 0
    assert library.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_link_that_loops_is_refused_and_the_other_files_are_still_added(tmp_path: Path, library: Library,
                                                                          hash_embedder: HashEmbedder) -> None:
    loop = tmp_path / "loop.pdf"
    loop.symlink_to(loop)
    good = prose_pdf(tmp_path / "minutes.pdf")
    results = Ingestor(library, hash_embedder).ingest_paths([loop, good])
    assert [r.status for r in results] == ["failed", "added"]
    assert results[0].message == ("loop.pdf is a link that leads nowhere (it points to itself, in a loop, or to a file "
                                  "that is gone). Add the file it should point to instead.")


PAUSED_INGEST = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {repo!r})
    from pathlib import Path
    from core.ingest.ingestor import Ingestor
    from core.jobs import JobContext
    from core.library.store import Library
    from tests.conftest import HashEmbedder

    def pause(event):
        if event.stage == "pages" and event.done == 5:
            print("READING", flush=True)
            sys.stdin.readline()  # held mid-read until the test says go on

    library = Library(Path({lib!r}))
    (result,) = Ingestor(library, HashEmbedder()).ingest_paths([Path({pdf!r})], JobContext(pause))
    print(result.status, result.message, flush=True)
    """
)


def test_two_ingestions_at_once_both_add_their_file(tmp_path: Path, library: Library,
                                                    hash_embedder: HashEmbedder) -> None:
    """The first process reads a long file while the second adds another: the second is not kept waiting for the
    first one's whole read (before, one document's transaction held the write lock from its first page to its last,
    and the second failed with "database is locked" after 30 s)."""
    long_pdf = prose_pdf(tmp_path / "long.pdf", pages=12, words="a long report on council spending")
    script = PAUSED_INGEST.format(repo=str(REPO), lib=str(library.path), pdf=str(long_pdf))
    first = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert first.stdin is not None and first.stdout is not None
    try:
        assert first.stdout.readline().strip() == "READING"
        events: list[ProgressEvent] = []
        (second,) = Ingestor(library, hash_embedder).ingest_paths([ruled_table_pdf(tmp_path / "budget.pdf")],
                                                                  JobContext(events.append))
        assert second.status == "added", second.message
        assert "waiting" not in [e.stage for e in events]  # the first held no lock while it read
        first.stdin.write("go on\n")
        first.stdin.flush()
        assert first.stdout.readline().startswith("added long.pdf: 12 pages"), "the first ingestion failed"
    finally:
        first.kill()
        first.wait(10)
        first.stdin.close()
        first.stdout.close()
    assert sorted(d.file_name for d in library.documents()) == ["budget.pdf", "long.pdf"]


def test_a_write_waits_for_another_writer_saying_so_then_adds_the_file(tmp_path: Path, library: Library,
                                                                       hash_embedder: HashEmbedder) -> None:
    other = connect(library.path)
    other.execute("BEGIN IMMEDIATE")  # another process in the middle of its own write
    events: list[ProgressEvent] = []
    results = []

    def on_progress(event: ProgressEvent) -> None:
        events.append(event)
        if event.stage == "waiting":
            time.sleep(1.5)  # the other write goes on a little longer, then ends
            other.execute("COMMIT")

    def ingest() -> None:
        with Library(library.path) as writer:  # its own connection, as the window's ingestion thread has
            results.extend(Ingestor(writer, hash_embedder).ingest_paths([prose_pdf(tmp_path / "minutes.pdf")],
                                                                        JobContext(on_progress)))

    worker = threading.Thread(target=ingest)
    worker.start()
    worker.join(60)
    other.close()
    assert [r.status for r in results] == ["added"], results
    stages = [e.stage for e in events]
    assert stages.index("waiting") < stages.index("writing") < stages.index("done")


def test_a_full_disk_says_so_and_leaves_the_library_as_it_was(tmp_path: Path, library: Library,
                                                              hash_embedder: HashEmbedder) -> None:
    Ingestor(library, hash_embedder).ingest_paths([prose_pdf(tmp_path / "first.pdf")])
    before = snapshot(library)
    (pages,) = library.conn.execute("PRAGMA page_count").fetchone()
    library.conn.execute(f"PRAGMA max_page_count = {pages}")  # SQLite answers "database or disk is full"
    (result,) = Ingestor(library, hash_embedder).ingest_paths([ruled_table_pdf(tmp_path / "budget.pdf")])
    assert result.status == "failed"
    assert result.message == (f"budget.pdf was not added: the disk holding the library ({library.path.parent}) is "
                              "full. Free some space there and try again; the library is unchanged.")
    library.conn.execute("PRAGMA max_page_count = 1073741823")
    assert snapshot(library) == before
    assert library.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    (again,) = Ingestor(library, hash_embedder).ingest_paths([tmp_path / "budget.pdf"])
    assert again.status == "added"


def test_a_read_only_library_says_it_cannot_be_written(tmp_path: Path, library: Library,
                                                       hash_embedder: HashEmbedder) -> None:
    (first,) = Ingestor(library, hash_embedder).ingest_paths([prose_pdf(tmp_path / "first.pdf")])
    library.conn.execute("PRAGMA query_only = ON")  # SQLite answers "attempt to write a readonly database"
    (result,) = Ingestor(library, hash_embedder).ingest_paths([prose_pdf(tmp_path / "minutes.pdf", words="parks")])
    assert result.status == "failed"
    assert result.message == (f"minutes.pdf was not added: the library at {library.path} cannot be written (the "
                              "file, its folder or the disk is read-only, or belongs to another user). Make it "
                              "writable, or choose another library folder, and try again.")
    with pytest.raises(LibraryReadOnly, match="^The document was not removed: the library at .* cannot be written"):
        library.delete_document(first.document_id or 0)
    assert library.counts()["documents"] == 1


def test_one_cell_read_as_a_number_sqlite_cannot_hold_does_not_lose_the_document(tmp_path: Path, library: Library,
                                                                                  hash_embedder: HashEmbedder) -> None:
    """A column of references run together ("412,413,414,417,421,423,428", which reads as 4.1e20, past SQLite's
    64-bit integers): before, that one cell rolled the whole report back with an OverflowError."""
    doc = pymupdf.open()
    prose_page = doc.new_page(width=595, height=842)
    prose_page.insert_text((50, 60), "Chapter 6 reviews the leading food manufacturers of the Union.", fontsize=11)
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 60), "Table 6.12: Leading food manufacturers", fontsize=11)
    rows = [["Firm", "World sales", "EU sales", "Markets led"], ["Alpha", "38.8", "13.1", "412,413,414,417,421,423,428"],
            ["Beta", "33.4", "11.3", "413,417,421,423,429"], ["Gamma", "26.7", "14.6", "411,412,414,415,421"],
            ["Delta", "18.7", "2.4", "411"]]
    draw_ruled_table(page, rows, [50, 150, 250, 350, 545], top=80)
    doc.save(tmp_path / "food.pdf")
    (result,) = Ingestor(library, hash_embedder).ingest_paths([tmp_path / "food.pdf"])
    assert result.status == "added" and result.pages == 2 and result.tables == 1, result.message
    (table,) = library.tables()
    assert [c.type for c in table.schema.columns] == ["TEXT", "REAL", "REAL", "TEXT"]
    first = library.conn.execute(f'SELECT * FROM "{table.name}" ORDER BY _row').fetchone()
    assert first[1:] == ("Alpha", 38.8, 13.1, "412,413,414,417,421,423,428")
