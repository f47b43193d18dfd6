"""CamelotReader: camelot run page by page on one open document, each page's layout parsed once.

It goes through camelot's internal steps (not public API), so these tests pin what it relies on and
check that its tables are exactly those of ``camelot.read_pdf`` with its default settings (through
``find_camelot_grids``), although the reader skips the text-box grouping: a camelot release that
changes those internals fails here, loudly, before extraction quietly changes.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import pymupdf
import pytest

from core.ingest.extraction import camelot_tables
from core.ingest.extraction.camelot_tables import CamelotReader, find_camelot_grids
from core.ingest.extraction.page_view import open_view
from tests.core.ingest.test_extraction import BUDGET_ROWS, _draw_borderless, _draw_ruled, _prose, _save
from tests.support.report_builder import build_generated_report

pytestmark = pytest.mark.unit

# (flavor, options) as Folio's extractor asks them, and camelot's default lattice (rendering the page).
RUNS = [("lattice", {"engine": "vector"}), ("stream", {}), ("lattice", {})]
SAMPLE_FILES = ["budget.pdf", "rotated_page.pdf", "superscript.pdf", "twotables_2.pdf", "health_protected.pdf",
                "column_span_2.pdf"]


def test_camelot_internals_the_reader_relies_on_are_there() -> None:
    from camelot.handlers import PARSERS, PDFHandler
    from camelot.parsers.base import BaseParser
    from camelot.utils import remove_extra, validate_input

    assert {"lattice", "stream"} <= set(PARSERS)
    layout = inspect.signature(PDFHandler._get_layout)
    assert list(layout.parameters)[:2] == ["self", "page"]
    prepare = inspect.signature(BaseParser.prepare_page_parse)
    assert list(prepare.parameters) == ["self", "filename", "layout", "dimensions", "page_idx", "images",
                                        "horizontal_text", "vertical_text", "rotation", "layout_kwargs"]
    assert callable(BaseParser.extract_tables) and callable(validate_input) and callable(remove_extra)


def _both_table_kinds(path: Path) -> Path:
    """A page with a ruled table and a borderless one: lattice and stream both have work."""
    doc = pymupdf.open()
    page = doc.new_page()
    _prose(page, 60, 3)
    bottom = _draw_ruled(page, BUDGET_ROWS, [72, 200, 290, 380, 470], 120)
    rows = [["Region", "Cases", "Deaths"]] + [[f"District {i}", f"{1200 + 37 * i:,}", f"{12 + i}"] for i in range(6)]
    _draw_borderless(page, rows, [72, 300, 420], bottom + 60)
    return _save(doc, path)


def _compare(path: Path, password: str | None = None) -> int:
    """Every run on every page: the reader's grids equal read_pdf's. Returns how many grids were compared."""
    doc = pymupdf.open(path)
    if doc.needs_pass:
        doc.authenticate(password or "")
    compared = 0
    with CamelotReader() as reader:
        for number in range(1, doc.page_count + 1):
            view = open_view(doc, path, number, password)
            try:
                for flavor, options in RUNS:
                    expected = find_camelot_grids(view.source, view.source_page, view.page, flavor, view.password,
                                                  **options)
                    got = reader.grids(view.source, view.source_page, view.page, flavor, view.password, **options)
                    assert got == expected, (path.name, number, flavor, options)
                    compared += len(got)
            finally:
                view.close()
    doc.close()
    return compared


def test_reader_gives_what_read_pdf_gives_on_drawn_pages(tmp_path: Path) -> None:
    assert _compare(_both_table_kinds(tmp_path / "both.pdf")) >= 3


def test_reader_gives_what_read_pdf_gives_on_a_generated_report(tmp_path: Path) -> None:
    # Report pages have many text lines: where skipping the text-box grouping (LAYOUT_KWARGS) saves most.
    pdf = tmp_path / "report.pdf"
    build_generated_report(pdf, pages=6, seed=2)
    assert camelot_tables.LAYOUT_KWARGS == {"boxes_flow": None}
    assert _compare(pdf) >= 6


@pytest.mark.parametrize("name", SAMPLE_FILES)
def test_reader_gives_what_read_pdf_gives_on_samples(name: str, samples: Path) -> None:
    _compare(samples / name, "userpass" if "protected" in name else None)


def test_each_page_is_parsed_once_for_both_flavors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from camelot.handlers import PDFHandler

    pdf = _both_table_kinds(tmp_path / "both.pdf")
    calls: list[int] = []
    original = PDFHandler._get_layout

    def counting(self, page, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(page.page_idx)
        return original(self, page, **kwargs)

    monkeypatch.setattr(PDFHandler, "_get_layout", counting)
    doc = pymupdf.open(pdf)
    view = open_view(doc, pdf, 1, None)
    with CamelotReader() as reader:
        lattice = reader.grids(view.source, 1, view.page, "lattice", None, engine="vector")
        stream = reader.grids(view.source, 1, view.page, "stream")
        assert lattice and stream
        assert calls == [0]
        assert reader.grids(view.source, 1, view.page, "stream") == stream  # asked again: still the one parse
        assert calls == [0]
    view.close()
    doc.close()


def test_reader_lets_go_of_the_document_now_and_then(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(camelot_tables, "READER_REOPEN_PAGES", 2)
    monkeypatch.setattr(camelot_tables, "READER_LAYOUTS", 1)
    doc = pymupdf.open()
    for _ in range(4):
        page = doc.new_page()
        _draw_ruled(page, BUDGET_ROWS, [72, 200, 290, 380, 470], 100)
    pdf = _save(doc, tmp_path / "four.pdf")
    doc = pymupdf.open(pdf)
    with CamelotReader() as reader:
        first = reader.grids(pdf, 1, doc[0], "lattice", None, engine="vector")
        opened = reader._pdf
        for number in (2, 3, 4, 1):  # page 1 again, after its layout was let go
            grids = reader.grids(pdf, number, doc[number - 1], "lattice", None, engine="vector")
            assert grids == first
        assert reader._pdf is not opened
    doc.close()
