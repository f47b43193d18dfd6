"""OCR of scanned pages, for real (RapidOCR's ONNX models, real scans): the text layer puts words where
the scan shows them; a scanned report's ruled table becomes a typed SQL table (rulings from the image); the shared scanned sample is read
with its figures right; cancelling a 20-page scan stops within a second and keeps nothing."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from core.errors import Cancelled
from core.ingest.ingestor import Ingestor
from core.ingest.ocr import OcrLine, OcrWorker, text_layer_copy
from core.ingest.pdf_reader import read_page
from core.jobs import CancelToken, JobContext
from core.library.store import Library
from tests.support.pdfs import draw_ruled_table
from tests.support.scans import blank_scan, scan_of

pytestmark = pytest.mark.unit

# The DXA table of ../shared/samples/image.pdf, transcribed by hand from the scan.
IMAGE_PDF_TABLE = [
    ("L Arm", "197.82", "159.60", "0.807"), ("R Arm", "211.89", "169.76", "0.801"),
    ("L Ribs", "143.14", "98.66", "0.689"), ("R Ribs", "134.29", "95.97", "0.715"),
    ("T Spine", "148.77", "130.68", "0.878"), ("L Spine", "47.04", "54.62", "1.161"),
    ("Pelvis", "240.04", "307.24", "1.280"), ("L Leg", "376.74", "485.63", "1.289"),
    ("R Leg", "396.85", "494.30", "1.246"), ("Subtotal", "1896.58", "1996.46", "1.053"),
    ("Head", "234.81", "458.87", "1.954"), ("Total", "2131.39", "2455.33", "1.152"),
]

BUDGET_ROWS = [
    ["Department", "2023", "2024", "Change"],
    ["Roads", "1,200", "1,450", "20.8%"],
    ["Parks", "830", "790", "(4.8%)"],
    ["Schools", "2,310", "2,402", "4.0%"],
    ["Libraries", "415", "436", "5.1%"],
    ["Total", "4,755", "5,078", "6.8%"],
]


@pytest.fixture
def library(tmp_path: Path) -> Iterator[Library]:
    lib = Library(tmp_path / "lib" / "library.sqlite3")
    yield lib
    lib.close()


def budget_report() -> pymupdf.Document:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 60), "Northwind Council Annual Report", fontsize=16)
    page.insert_text((50, 90), "The council kept spending under control in 2024 despite higher road costs.", fontsize=10)
    page.insert_text((50, 130), "Table 1: Budget by department ($ thousands)", fontsize=11)
    draw_ruled_table(page, BUDGET_ROWS, [50, 200, 300, 400, 500], 145)
    return doc


def test_text_layer_places_invisible_words_and_rulings_where_the_scan_shows_them() -> None:
    source = pymupdf.open()
    page = source.new_page(width=400, height=300)
    page.draw_rect(pymupdf.Rect(20, 20, 380, 280), color=(0, 0, 0), fill=(0.9, 0.9, 0.8))
    lines = [OcrLine("Total revenue 2,131.39", (50.0, 100.0, 250.0, 114.0), 0.99),
             OcrLine("(4.8%)", (300.0, 100.0, 340.0, 114.0), 0.98)]
    rulings = [(40.0, 95.0, 360.0, 95.0), (40.0, 118.0, 360.0, 118.0), (280.0, 95.0, 280.0, 118.0)]
    copy = text_layer_copy(source, 1, lines, rulings)
    drawn = [item for path in copy[0].get_drawings() for item in path["items"] if item[0] == "l"]
    assert sorted((round(a.x), round(a.y), round(b.x), round(b.y)) for _, a, b in drawn) == [
        (40, 95, 360, 95), (40, 118, 360, 118), (280, 95, 280, 118)]
    words = copy[0].get_text("words")
    assert [w[4] for w in words] == ["Total", "revenue", "2,131.39", "(4.8%)"]
    for x0, y0, x1, y1, text, *_ in words:
        box = lines[0].bbox if text != "(4.8%)" else lines[1].bbox
        assert box[0] - 1 <= x0 < x1 <= box[2] + 1 and box[1] - 3 <= y0 < y1 <= box[3] + 3, (text, x0, x1)
    # Left to right, in the order read, and invisible: the page looks exactly as before.
    assert [w[0] for w in words[:3]] == sorted(w[0] for w in words[:3])
    assert copy[0].get_pixmap(dpi=50).samples == source[0].get_pixmap(dpi=50).samples
    content = read_page(copy, 1)
    assert "2,131.39" in content.text and not content.needs_ocr


def test_a_logo_on_a_page_left_blank_is_no_scan(tmp_path: Path, library: Library, hash_embedder) -> None:
    """Filings end sections on a page holding only a small picture (a logo, a signature): it has no text to read,
    and OCR of the whole page would cost seconds to find none. A page the picture covers is a scan."""
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Annual report of the council for the year ended 30 June 2024.", fontsize=11)
    logo = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 92), False)
    logo.clear_with(90)
    doc.new_page().insert_image(pymupdf.Rect(18, 560, 58, 622), pixmap=logo)
    half = doc.new_page()
    half.insert_image(pymupdf.Rect(0, 0, half.rect.width, half.rect.height / 2), pixmap=logo, keep_proportion=False)
    assert [read_page(doc, n).needs_ocr for n in (1, 2, 3)] == [False, False, True]
    doc.select([0, 1])  # the half-page picture goes: only the logo is left beside the text
    path = tmp_path / "report with a logo.pdf"
    doc.save(path)
    result = Ingestor(library, hash_embedder).ingest_file(path)
    assert result.status == "added" and result.ocr_pages == () and "OCR" not in result.message, result


def test_scanned_report_table_becomes_a_typed_sql_table(tmp_path: Path, library: Library, hash_embedder) -> None:
    scan = scan_of(budget_report(), tmp_path / "scanned budget.pdf", dpi=150)
    assert read_page(pymupdf.open(scan), 1).needs_ocr
    result = Ingestor(library, hash_embedder).ingest_file(scan)
    assert result.status == "added" and result.ocr_pages == (1,) and result.tables == 1
    assert "read by OCR" in result.message
    (table,) = library.tables()
    # The rulings seen in the image are given to the ruled-table extractors, as a born-digital page's are:
    # the grid, its caption and its unit come out as they would from the original.
    assert table.extractor in ("camelot-lattice", "pymupdf"), table.extractor
    assert "Budget by department" in table.caption and table.unit == "$ thousand"
    assert [c.name for c in table.schema.columns] == ["department", "y2023", "y2024", "change"]
    types = {c.name: c.type for c in table.schema.columns}
    assert types.get("y2023") == "INTEGER" and types.get("y2024") == "INTEGER" and types.get("change") == "REAL"
    rows = library.conn.execute(f'SELECT department, y2023, y2024, change FROM "{table.name}" ORDER BY _row').fetchall()
    assert rows == [("Roads", 1200, 1450, 20.8), ("Parks", 830, 790, -4.8), ("Schools", 2310, 2402, 4.0),
                    ("Libraries", 415, 436, 5.1), ("Total", 4755, 5078, 6.8)]
    # Cells are placed where the scan shows them: "1,450" was printed right-aligned in 300..400, row 167..189.
    cells = library.cells(table.id, [r for r in range(10)])
    roads = next(c for c in cells if c.text == "1,450")
    x0, y0, x1, y1 = roads.bbox
    assert roads.page == 1 and x0 <= 380 <= x1 and y0 <= 178 <= y1 and x1 - x0 < 150 and y1 - y0 < 30
    # The page text is searchable like a born-digital page's.
    text = library.page_text(result.document_id or 0, 1)
    assert "despite higher road costs" in text
    assert library.documents()[0].status == "ready"


def _numbers(text: str) -> list[str]:
    return re.findall(r"-?\d+\.\d+", text)


def test_scanned_sample_is_read_with_its_figures_right(samples: Path, library: Library, hash_embedder) -> None:
    result = Ingestor(library, hash_embedder).ingest_file(samples / "image.pdf")
    assert result.status == "added" and result.ocr_pages == (1,)
    text = library.page_text(result.document_id or 0, 1)
    expected = [value for row in IMAGE_PDF_TABLE for value in row[1:]] + ["-0.5"]
    found = _numbers(text)
    assert sum(1 for value in expected if value in found) == len(expected)
    for label in ("Pelvis", "Subtotal", "Head", "T Spine", "DXA Results Summary"):
        assert label in text
    # Its table (read through the stream logic from OCR word boxes) is queryable.
    values = set()
    for table in library.tables():
        for row in library.conn.execute(f'SELECT * FROM "{table.name}"'):
            values.update(v for v in row[1:] if isinstance(v, float))
    assert {197.82, 159.60, 0.807, 240.04, 1.289} <= values


def test_blank_scan_is_refused_clearly_and_ocr_off_says_ocr_is_needed(tmp_path: Path, library: Library,
                                                                       hash_embedder) -> None:
    blank = blank_scan(tmp_path / "blank.pdf")
    (result,) = Ingestor(library, hash_embedder).ingest_paths([blank])
    assert result.status == "failed" and "OCR found no text" in result.message and "blank.pdf" in result.message
    scan = scan_of(budget_report(), tmp_path / "scan.pdf", dpi=72)
    (result,) = Ingestor(library, hash_embedder, ocr=False).ingest_paths([scan])
    assert result.status == "failed" and "needs OCR" in result.message
    assert library.counts()["documents"] == 0


def test_cancel_during_ocr_of_a_20_page_scan_stops_within_a_second(tmp_path: Path, library: Library,
                                                                   hash_embedder) -> None:
    scan = scan_of(budget_report(), tmp_path / "twenty.pdf", dpi=150, copies=20)
    token = CancelToken()
    ocr_started = threading.Event()
    events = []

    def on_progress(event) -> None:
        events.append(event)
        if event.stage == "ocr":
            ocr_started.set()

    outcome: list[BaseException | object] = []

    def run() -> None:
        try:
            outcome.append(Ingestor(library_copy, hash_embedder).ingest_file(scan, JobContext(on_progress, token)))
        except BaseException as exc:  # noqa: BLE001 - inspected below
            outcome.append(exc)
        finally:
            library_copy.close()

    library_copy = Library(library.path)  # one connection per thread
    worker = threading.Thread(target=run)
    worker.start()
    assert ocr_started.wait(60)
    time.sleep(1.5)  # the OCR worker is now inside a page
    asked = time.monotonic()
    token.cancel()
    worker.join(10)
    stopped = time.monotonic() - asked
    assert not worker.is_alive() and isinstance(outcome[0], Cancelled)
    assert stopped < 1.0, f"cancel took {stopped:.2f} s"
    assert library.counts()["documents"] == 0
    assert [e.stage for e in events].count("ocr") < 20


def test_worker_reports_a_page_it_cannot_read(tmp_path: Path) -> None:
    worker = OcrWorker()
    try:
        with pytest.raises(Exception, match="page 3"):
            worker.read(blank_scan(tmp_path / "one.pdf"), 3)
    finally:
        worker.close()
    assert worker.pid is None
