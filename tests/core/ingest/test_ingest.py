"""Ingestion end to end on real PDFs: tables become typed SQL tables with a cell map; bad input is
refused with a clear message and leaves the library untouched; a killed ingestion leaves no trace."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pymupdf
import pytest

from core.errors import Cancelled
from core.ingest.ingestor import Ingestor
from core.jobs import CancelToken, JobContext
from core.library.store import Library
from tests.support.pdfs import draw_ruled_table
from tests.support.scans import blank_scan

pytestmark = pytest.mark.unit

REPO = Path(__file__).resolve().parents[3]


def ruled_table_pdf(path: Path, *, caption: str = "Table 1: Budget by department ($ thousands)") -> Path:
    """One page: a paragraph, a caption, a ruled table with separators, negatives and percentages."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 60), "Northwind Council Annual Report", fontsize=16)
    page.insert_text((50, 90), "The council kept spending under control in 2024 despite higher road costs.", fontsize=10)
    page.insert_text((50, 130), caption, fontsize=11)
    rows = [
        ["Department", "2023", "2024", "Change"],
        ["Roads", "1,200", "1,450", "20.8%"],
        ["Parks", "830", "790", "(4.8%)"],
        ["Schools", "2,310", "2,402", "4.0%"],
        ["Reserves", "(150)", "(75)", "-"],
        ["Total", "4,190", "4,567", "9.0%"],
    ]
    draw_ruled_table(page, rows, [50, 200, 300, 400, 500], top=140)
    page.insert_text((290, 820), "1", fontsize=9)
    doc.save(path)
    return path


@pytest.fixture
def library(tmp_path: Path) -> Library:
    lib = Library(tmp_path / "lib" / "library.sqlite3")
    yield lib
    lib.close()


def snapshot(library: Library) -> tuple:
    names = sorted(r[0] for r in library.conn.execute("SELECT name FROM sqlite_master"))
    return tuple(library.counts().items()), tuple(names)


def test_ruled_table_becomes_a_typed_sql_table(tmp_path: Path, library: Library, hash_embedder) -> None:
    pdf = ruled_table_pdf(tmp_path / "budget.pdf")
    result = Ingestor(library, hash_embedder).ingest_file(pdf)
    assert result.status == "added" and result.tables == 1 and result.pages == 1
    (table,) = library.tables()
    assert "budget" in table.name and table.page == 1
    cols = {c.name: c for c in table.schema.columns}
    assert set(cols) >= {"y2023", "y2024"}
    assert cols["y2024"].type in ("INTEGER", "REAL")
    label = table.schema.columns[0].name
    total = library.conn.execute(f'SELECT SUM(y2024) FROM "{table.name}" WHERE {label} != \'Total\'').fetchone()[0]
    assert total == 1450 + 790 + 2402 - 75
    reserves = library.conn.execute(f'SELECT y2023 FROM "{table.name}" WHERE {label} = \'Reserves\'').fetchone()[0]
    assert reserves == -150
    change = next(c for c in table.schema.columns if c.name not in (label, "y2023", "y2024"))
    assert change.unit == "percent"
    assert library.conn.execute(f'SELECT {change.name} FROM "{table.name}" WHERE {label} = \'Parks\'').fetchone()[0] == -4.8
    assert "thousand" in (table.unit + cols["y2024"].unit)
    # Every cell maps back to its place on the page, and the box holds the cell's text.
    row = library.conn.execute(f'SELECT _row FROM "{table.name}" WHERE {label} = \'Roads\'').fetchone()[0]
    (cell,) = library.cells(table.id, [row], [2])
    assert cell.text == "1,450" and cell.page == 1
    doc = pymupdf.open(pdf)
    assert "1,450" in doc[0].get_text("text", clip=pymupdf.Rect(cell.bbox)).strip()
    # Table chunks and text chunks are searchable; the page number footer is not in the table.
    assert library.conn.execute("SELECT COUNT(*) FROM chunks WHERE kind = 'table'").fetchone()[0] >= 1
    grid = library.table_grid(table.id)
    assert len(grid) == 6 and all(cell != "1" for row in grid for cell in row)


def test_same_content_is_skipped(tmp_path: Path, library: Library, hash_embedder) -> None:
    pdf = ruled_table_pdf(tmp_path / "budget.pdf")
    copy = tmp_path / "copy of budget.pdf"
    copy.write_bytes(pdf.read_bytes())
    results = Ingestor(library, hash_embedder).ingest_paths([pdf, copy])
    assert [r.status for r in results] == ["added", "skipped"]
    assert library.counts()["documents"] == 1


def _bad_inputs(tmp_path: Path, samples: Path) -> dict[str, tuple[Path, str]]:
    not_pdf = tmp_path / "notes.pdf"
    not_pdf.write_text("just some text, not a PDF")
    good = ruled_table_pdf(tmp_path / "good.pdf")
    truncated = tmp_path / "truncated.pdf"
    truncated.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 3])
    garbage = tmp_path / "garbage.pdf"
    garbage.write_bytes(b"%PDF-1.7\n" + os.urandom(5000))
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    return {
        "not a pdf": (not_pdf, "not a PDF"),
        "empty file": (empty, "not a PDF"),
        "truncated": (truncated, "damaged"),
        "garbage": (garbage, "damaged"),
        "encrypted": (samples / "health_protected.pdf", "password"),
        # A scan is read by OCR now (tests/core/ingest/test_ocr.py); one with nothing to read is still refused.
        "scanned": (blank_scan(tmp_path / "scanned.pdf"), "OCR found no text"),
    }


@pytest.mark.parametrize("case", ["not a pdf", "empty file", "truncated", "garbage", "encrypted", "scanned"])
def test_bad_input_is_refused_clearly_and_changes_nothing(case: str, tmp_path: Path, samples: Path,
                                                          library: Library, hash_embedder) -> None:
    Ingestor(library, hash_embedder).ingest_file(ruled_table_pdf(tmp_path / "first.pdf"))
    before = snapshot(library)
    path, words = _bad_inputs(tmp_path, samples)[case]
    (result,) = Ingestor(library, hash_embedder).ingest_paths([path])
    assert result.status == "failed"
    assert words in result.message and path.name in result.message
    assert snapshot(library) == before
    assert library.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_zero_page_pdf_is_refused(tmp_path: Path, library: Library, hash_embedder) -> None:
    # MuPDF refuses to save a document without pages, so write the smallest valid one by hand.
    body = b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
    xref = len(body)
    pdf = body + b"xref\n0 3\n0000000000 65535 f \n0000000009 00000 n \n0000000052 00000 n \n"
    pdf += b"trailer<</Size 3/Root 1 0 R>>\nstartxref\n" + str(xref).encode() + b"\n%%EOF\n"
    path = tmp_path / "nothing.pdf"
    path.write_bytes(pdf)
    (result,) = Ingestor(library, hash_embedder).ingest_paths([path])
    assert result.status == "failed" and "no pages" in result.message
    assert library.counts()["documents"] == 0


def test_encrypted_pdf_with_password(samples: Path, library: Library, hash_embedder) -> None:
    path = samples / "health_protected.pdf"
    (result,) = Ingestor(library, hash_embedder).ingest_paths([path], passwords={path: "userpass"})
    assert result.status == "added" and result.tables >= 1
    (wrong,) = Ingestor(library, hash_embedder).ingest_paths([samples / "health.pdf"], passwords={samples / "health.pdf": "x"})
    assert wrong.status in ("added", "skipped")  # a password for an unencrypted file is ignored


def test_a_bad_file_does_not_stop_the_batch(tmp_path: Path, samples: Path, library: Library, hash_embedder) -> None:
    folder = tmp_path / "inbox"
    folder.mkdir()
    ruled_table_pdf(folder / "a_budget.pdf")
    (folder / "b_broken.pdf").write_text("nope")
    (folder / "c_budget.pdf").write_bytes((samples / "budget.pdf").read_bytes())
    results = Ingestor(library, hash_embedder).ingest_paths([folder])
    assert [r.status for r in results] == ["added", "failed", "added"]


def test_cancel_rolls_back(tmp_path: Path, library: Library, hash_embedder) -> None:
    pdf = ruled_table_pdf(tmp_path / "budget.pdf")
    token = CancelToken()
    events = []

    def on_progress(event) -> None:
        events.append(event)
        if event.stage == "pages":
            token.cancel()

    with pytest.raises(Cancelled):
        Ingestor(library, hash_embedder).ingest_file(pdf, JobContext(on_progress, token))
    assert library.counts()["documents"] == 0 and library.tables() == []
    assert [e.stage for e in events][:2] == ["hashing", "pages"]


def test_progress_reports_pages_and_stages(tmp_path: Path, library: Library, hash_embedder) -> None:
    doc = pymupdf.open()
    for i in range(3):
        doc.new_page().insert_text((72, 72), f"Page {i + 1} talks about budgets and schools in some detail.")
    doc.save(tmp_path / "three.pdf")
    events = []
    Ingestor(library, hash_embedder).ingest_file(tmp_path / "three.pdf", JobContext(events.append))
    pages = [(e.done, e.total) for e in events if e.stage == "pages"]
    assert pages == [(0, 3), (1, 3), (2, 3)]
    assert events[-1].stage == "done"


KILL_SCRIPT = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, {repo!r})
    from pathlib import Path
    from core.ingest.ingestor import Ingestor
    from core.jobs import JobContext
    from core.library.store import Library
    from tests.conftest import HashEmbedder

    def slow(event):
        if event.stage == "pages" and event.done == 5:
            print("MIDWAY", flush=True)
            time.sleep(60)

    library = Library(Path({lib!r}))
    Ingestor(library, HashEmbedder()).ingest_file(Path({pdf!r}), JobContext(slow))
    """
)


def test_killed_ingestion_leaves_no_half_document(tmp_path: Path, library: Library, hash_embedder) -> None:
    Ingestor(library, hash_embedder).ingest_file(ruled_table_pdf(tmp_path / "first.pdf"))
    before = snapshot(library)
    doc = pymupdf.open()
    for i in range(12):
        doc.new_page().insert_text((72, 72), f"Page {i + 1} of a long report about council spending.")
    doc.save(tmp_path / "long.pdf")
    script = KILL_SCRIPT.format(repo=str(REPO), lib=str(library.path), pdf=str(tmp_path / "long.pdf"))
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    line = ""
    while time.monotonic() < deadline and "MIDWAY" not in line:
        line = proc.stdout.readline()
    assert "MIDWAY" in line
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    proc.stdout.close()
    reopened = Library(library.path)
    assert snapshot(reopened) == before
    assert reopened.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    result = Ingestor(reopened, hash_embedder).ingest_file(tmp_path / "long.pdf")
    assert result.status == "added" and result.pages == 12


HUGE_SCRIPT = textwrap.dedent(
    """
    import json, resource, sys
    from pathlib import Path as _Path
    # The kernel keeps the RSS high-water mark across fork and exec, so a child of a big pytest process
    # starts with pytest's peak. Reset it (Linux: clear_refs 5) and read this process's own peak below.
    _status = _Path("/proc/self/status")
    _fresh = _status.exists()
    if _fresh:
        _Path("/proc/self/clear_refs").write_text("5")
    sys.path.insert(0, {repo!r})
    from pathlib import Path
    from core.ingest.ingestor import Ingestor
    from core.library.store import Library
    from tests.conftest import HashEmbedder

    library = Library(Path({lib!r}))
    (result,) = Ingestor(library, HashEmbedder(), pool_workers={workers}).ingest_paths([Path({pdf!r})])
    print(json.dumps({{"status": result.status, "pages": result.pages, "chunks": result.chunks,
                      "peak_mb": (int(next(l for l in _status.read_text().splitlines() if l.startswith("VmHWM:")).split()[1]) / 1024
                                  if _fresh else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                      "worker_peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}}))
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("workers", [0, 2], ids=["in-process", "page-workers"])
def test_thousand_page_file_in_bounded_memory(tmp_path: Path, workers: int) -> None:
    doc = pymupdf.open()
    paragraph = ("The council's spending on roads, parks and schools is reported in this section, with notes on "
                 "capital works and grants received during the year. ") * 4
    for i in range(1000):
        page = doc.new_page()
        page.insert_text((72, 60), f"Section {i + 1}", fontsize=14)
        page.insert_textbox(pymupdf.Rect(72, 80, 520, 760), paragraph * 3, fontsize=10)
    doc.save(tmp_path / "huge.pdf")
    doc.close()
    script = HUGE_SCRIPT.format(repo=str(REPO), lib=str(tmp_path / "lib.sqlite3"), pdf=str(tmp_path / "huge.pdf"),
                                workers=workers)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=900)
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert figures["status"] == "added" and figures["pages"] == 1000 and figures["chunks"] >= 1000
    # Pages are streamed: the process stays far below what holding the document's content would take.
    assert figures["peak_mb"] < 700, figures
    if workers:
        # The worker processes that found the tables stream the pages too.
        assert 0 < figures["worker_peak_mb"] < 700, figures


def test_a_table_is_headed_by_the_sentence_that_introduces_it() -> None:
    from core.ingest.staging import heading_above
    from models.types import TextBlock

    table = (50.0, 300.0, 500.0, 400.0)
    intro = "The following table presents total external revenues by geographic location, based on the location of the merchants:"
    blocks = [TextBlock(1, (50, 200, 500, 230), "The Company has determined that it operates in one segment."),
              TextBlock(1, (50, 250, 500, 290), intro)]
    assert heading_above(blocks, table) == intro
    # Without an introducing sentence, the nearest short line above still heads it.
    blocks[1] = TextBlock(1, (50, 250, 500, 290), "Revenue by region")
    assert heading_above(blocks, table) == "Revenue by region"


def test_a_table_on_a_turned_page_is_headed_by_the_line_above_it_as_displayed(tmp_path: Path, library: Library,
                                                                              hash_embedder) -> None:
    # A page turned by its /Rotate entry keeps its text in the unturned page's coordinates, where the line above the
    # table as displayed lies beside it, and a note printed beside it lies above it.
    rows = [["Topic", "Letters"], ["Pensions", "2,418"], ["Housing", "1,306"], ["Transport", "905"],
            ["Schools", "712"], ["Total", "5,341"]]
    source = pymupdf.open()
    sheet = source.new_page()
    sheet.insert_text((72, 28), "Letters received by topic", fontsize=10)  # too far above to be its caption
    sheet.insert_text((430, 180), "Unaudited", fontsize=9)
    sheet.insert_text((10, 180), "Annex", fontsize=9)
    draw_ruled_table(sheet, rows, [72, 300, 400], 100)
    _save_turned(source, tmp_path / "turned.pdf")
    assert Ingestor(library, hash_embedder).ingest_file(tmp_path / "turned.pdf").tables == 1
    (caption, heading), = library.conn.execute("SELECT caption, heading FROM extracted_tables").fetchall()
    assert caption == "" and heading == "Letters received by topic"


def _save_turned(source: pymupdf.Document, path: Path) -> None:
    """``source``'s first page placed turned on a landscape page that its /Rotate entry turns back, saved to ``path``."""
    doc = pymupdf.open()
    page = doc.new_page(width=842, height=595)
    page.show_pdf_page(page.rect, source, 0, rotate=90)
    page.set_rotation(90)
    doc.save(path)
    doc.close()


def test_a_table_printed_sideways_reads_no_outline_from_where_its_rows_start(tmp_path: Path, library: Library,
                                                                              hash_embedder) -> None:
    # On a page turned to show a sideways table, each row's label starts further along the page than the last:
    # that is the rows advancing, not each line indented under the one before.
    rows = [["Topic", "Letters"], ["Pensions", "2,418"], ["Housing", "1,306"], ["Transport", "905"],
            ["Schools", "712"], ["Total", "5,341"]]
    source = pymupdf.open()
    draw_ruled_table(source.new_page(), rows, [72, 300, 400], 100)
    _save_turned(source, tmp_path / "sideways.pdf")
    assert Ingestor(library, hash_embedder).ingest_file(tmp_path / "sideways.pdf").tables == 1
    facts = library.conn.execute("SELECT row, depth, parent_row FROM table_row_facts ORDER BY row").fetchall()
    assert [tuple(f) for f in facts] == [(row, 0, None) for row in range(1, 6)]
