"""A financial statement printed over two pages, as 10-K filings print them, is read as one table: the
continuation page repeats the title ("(continued)") and the period header but not the units line, "$" signs
stand apart from their figures, and the lines at the top of the second page stand in the section left open
at the foot of the first.

No statement of the FinanceBench dev filings runs over two pages (each fits one), so the PDF is drawn here
line by line, the way those filings lay a statement out."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from core.ingest.extraction import extract_tables
from core.reports.table_typing import type_table

pytestmark = pytest.mark.unit

Line = tuple[str, int, tuple[str, str, str] | None, bool]  # label, indent level, figures, "$" printed apart

OPERATING: list[Line] = [
    ("Cash Flows from Operating Activities", 0, None, False),
    ("Net income", 1, ("5,363", "4,869", "5,058"), True),
    *[(f"Adjustment {name}", 1, (f"{100 + 7 * i:,}", f"({90 + 3 * i})", f"{80 + i}"), False)
      for i, name in enumerate(["for depreciation", "for pensions", "for stock compensation", "for taxes",
                                "for receivables", "for inventories", "for payables", "for accruals"])],
    ("Net cash provided by operating activities", 0, ("6,439", "6,240", "6,662"), False),
]
INVESTING: list[Line] = [
    ("Cash Flows from Investing Activities", 0, None, False),
    ("Purchases of property, plant and equipment (PP&E)", 1, ("(1,577)", "(1,373)", "(1,420)"), False),
    ("Proceeds from sale of PP&E and other assets", 1, ("262", "49", "58"), False),
    ("Acquisitions, net of cash acquired", 1, ("13", "(2,023)", "(16)"), False),
    ("Purchases of marketable securities", 1, ("(1,828)", "(2,152)", "(1,410)"), False),
    ("Proceeds from sale of marketable securities", 1, ("2,497", "1,354", "1,247"), False),
    ("Proceeds from sale of businesses", 1, ("846", "1,065", "142"), False),
    ("Other — net", 1, ("9", "(6)", "(4)"), False),
    ("Net cash provided by (used in) investing activities", 0, ("222", "(3,086)", "(1,403)"), False),
]
FINANCING: list[Line] = [
    ("Cash Flows from Financing Activities", 0, None, False),
    ("Change in short-term debt — net", 1, ("(284)", "578", "(797)"), False),
    ("Repayment of debt", 1, ("(1,034)", "(962)", "(992)"), False),
    ("Proceeds from debt", 1, ("2,251", "1,987", "2,832"), False),
    ("Purchases of treasury stock", 1, ("(4,870)", "(2,068)", "(3,753)"), False),
    ("Dividends paid to shareholders", 1, ("(3,193)", "(2,803)", "(2,678)"), False),
    ("Net cash provided by (used in) financing activities", 0, ("(6,701)", "(2,655)", "(4,626)"), False),
]
CLOSING: list[Line] = [
    ("Effect of exchange rate changes on cash", 0, ("(160)", "156", "(33)"), False),
    ("Net increase (decrease) in cash and cash equivalents", 0, ("(200)", "655", "600"), False),
    ("Cash and cash equivalents at beginning of year", 0, ("3,053", "2,398", "1,798"), True),
    ("Cash and cash equivalents at end of period", 0, ("2,853", "3,053", "2,398"), True),
]
STATEMENT = [*OPERATING, *INVESTING, *FINANCING, *CLOSING]
RIGHT_EDGES = (400.0, 480.0, 560.0)
SIZE = 8.0
LEADING = 12.5


def _right(page: pymupdf.Page, right: float, y: float, text: str, bold: bool = False) -> None:
    font = "hebo" if bold else "helv"
    page.insert_text((right - pymupdf.get_text_length(text, fontname=font, fontsize=SIZE), y), text,
                     fontname=font, fontsize=SIZE)


YEARS = ("2018", "2017", "2016")


def _header(page: pymupdf.Page, continued: bool, units: bool, years: tuple[str, ...]) -> float:
    title = "Consolidated Statement of Cash Flows" + (" (continued)" if continued else "")
    y = 60.0
    for text in ("Harbourline Holdings and Subsidiaries", title, "Years ended December 31"):
        width = pymupdf.get_text_length(text, fontname="hebo", fontsize=9)
        page.insert_text(((612 - width) / 2, y), text, fontname="hebo", fontsize=9)
        y += 13
    y += 14
    if units:
        page.insert_text((50, y + LEADING), "(Millions)", fontname="helv", fontsize=SIZE)
    for right, year in zip(RIGHT_EDGES, years, strict=True):
        _right(page, right, y + LEADING, year, bold=True)
    return y + 2 * LEADING + 4


def _draw(path: Path, split: int, second_years: tuple[str, ...] = YEARS) -> Path:
    """The statement with its first ``split`` lines on page 1 and the rest on page 2 (under ``second_years``)."""
    doc = pymupdf.open()
    for part, lines in enumerate((STATEMENT[:split], STATEMENT[split:])):
        page = doc.new_page(width=612, height=792)
        y = _header(page, continued=part == 1, units=part == 0, years=second_years if part else YEARS)
        for label, level, figures, dollar in lines:
            bold = figures is None
            page.insert_text((50 + 10 * level, y), label, fontname="hebo" if bold else "helv", fontsize=SIZE)
            for right, figure in zip(RIGHT_EDGES, figures or (), strict=False):
                if dollar:
                    page.insert_text((right - 62, y), "$", fontname="helv", fontsize=SIZE)
                _right(page, right + (3 if figure.startswith("(") else 0), y, figure)
            y += LEADING
        page.insert_text((300, 760), str(60 + part), fontname="helv", fontsize=SIZE)
    doc.save(str(path))
    return path


def _rows(path: Path) -> dict[str, dict[str, object]]:
    (table,) = extract_tables(path)
    assert table.pages == (1, 2)
    typed = type_table(table, table.caption)
    names = [c.name for c in typed.columns]
    assert names == ["item", "y2018", "y2017", "y2016", "section"]
    return {str(row[0]): dict(zip(names, row, strict=True)) for row in typed.rows}


def test_statement_continued_under_a_repeated_header_is_one_table(tmp_path: Path) -> None:
    # Page 1 ends inside the investing section; page 2 carries on with its lines, then financing.
    split = len(OPERATING) + 4
    rows = _rows(_draw(tmp_path / "cash_flows.pdf", split))
    assert len(rows) == len(STATEMENT)
    investing = "Cash Flows from Investing Activities"
    assert rows["Purchases of marketable securities"] == {
        "item": "Purchases of marketable securities", "y2018": -1828, "y2017": -2152, "y2016": -1410,
        "section": investing}  # the first line of page 2, in the section open at the foot of page 1
    assert rows["Net cash provided by (used in) investing activities"]["section"] == investing
    assert rows["Dividends paid to shareholders"]["section"] == "Cash Flows from Financing Activities"
    assert rows["Cash and cash equivalents at end of period"]["y2018"] == 2853  # "$" apart, on page 2
    assert rows["Net income"]["y2018"] == 5363


def test_continuation_without_headings_joins_and_stays_out_of_closed_sections(tmp_path: Path) -> None:
    # Page 2 holds no heading at all (its lines have no section column of their own), and page 1 ended
    # with the financing section still open.
    split = len(OPERATING) + len(INVESTING) + 3
    rows = _rows(_draw(tmp_path / "cash_flows.pdf", split))
    assert len(rows) == len(STATEMENT)
    financing = "Cash Flows from Financing Activities"
    assert rows["Purchases of treasury stock"]["section"] == financing
    assert rows["Net cash provided by (used in) financing activities"]["section"] == financing
    assert rows["Effect of exchange rate changes on cash"]["section"] is None  # after the total that closed it
    assert rows["Cash and cash equivalents at beginning of year"]["y2016"] == 1798


def test_a_table_under_other_periods_on_the_next_page_is_not_joined(tmp_path: Path) -> None:
    path = _draw(tmp_path / "two_statements.pdf", len(OPERATING) + 4, second_years=("2015", "2014", "2013"))
    assert [t.pages for t in extract_tables(path)] == [(1,), (2,)]
