"""Financial statements cut out of real SEC filings (../shared/bench/financebench-dev) become whole,
correctly headed, typed tables: period columns, "$" merged into figures, sections, signs and scale."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from core.ingest.extraction import extract_tables
from core.reports.document_title import document_title
from core.reports.table_naming import table_name
from core.reports.table_typing import type_table
from tests.support.filings import FILINGS, cut_filing

pytestmark = pytest.mark.skipif(not FILINGS.is_dir(), reason=f"the FinanceBench dev filings are not at {FILINGS}")




def _typed(path: Path):  # type: ignore[no-untyped-def]
    tables = extract_tables(path)
    assert len(tables) == 1, [t.caption for t in tables]
    table = tables[0]
    return table, type_table(table, table.caption)


def _row(table, typed, label: str) -> dict[str, object]:  # type: ignore[no-untyped-def]
    names = [c.name for c in typed.columns]
    for row in typed.rows:
        if row[0] == label:
            return dict(zip(names, row))
    raise AssertionError(f"no row {label!r} in {[r[0] for r in typed.rows]}")


def test_cash_flow_statement_is_one_table_with_sections_and_period_columns(tmp_path: Path) -> None:
    table, typed = _typed(cut_filing(tmp_path, "3M_2018_10K", [59]))
    assert [c.name for c in typed.columns] == ["item", "y2018", "y2017", "y2016", "section"]
    assert typed.unit == "million"
    capex = _row(table, typed, "Purchases of property, plant and equipment (PP&E)")
    assert capex["y2018"] == -1577 and capex["y2016"] == -1420  # "(1,577)": parentheses are negatives
    assert capex["section"] == "Cash Flows from Investing Activities"  # the heading inside the statement
    # The statement runs to its last line (it used to stop at operating activities).
    assert _row(table, typed, "Cash and cash equivalents at end of period")["y2018"] == 2853  # "$ 2,853": no "$" column
    assert "Statement of Cash Flows" in table.caption.replace("Flow s", "Flows")
    title = document_title(pymupdf.open(str(FILINGS / "3M_2018_10K.pdf")), FILINGS / "3M_2018_10K.pdf")
    assert table_name(title, table.caption, 60, 0, set()) == "doc_3m_company_p60_statement_of_cash_flows"


def test_balance_sheet_with_dollar_signs_apart_keeps_figures_in_their_columns(tmp_path: Path) -> None:
    table, typed = _typed(cut_filing(tmp_path, "ADOBE_2015_10K", [58]))
    assert [c.name for c in typed.columns] == ["item", "y2015", "y2014", "section"]
    assert _row(table, typed, "Cash and cash equivalents") == {
        "item": "Cash and cash equivalents", "y2015": 876560, "y2014": 1117400, "section": "Current assets"}
    assert _row(table, typed, "Total current assets")["section"] == "Current assets"  # a total closes its section
    assert _row(table, typed, "Total liabilities and stockholders’ equity")["y2015"] == 11726472  # the last line
    assert _row(table, typed, "Deferred income taxes")["y2015"] is None  # "—" is no value


def test_income_statement_with_per_share_rows(tmp_path: Path) -> None:
    table, typed = _typed(cut_filing(tmp_path, "NIKE_2021_10K", [58]))
    assert [c.name for c in typed.columns][:4] == ["item", "y2021", "y2020", "y2019"]
    assert _row(table, typed, "Revenues")["y2021"] == 44538
    diluted = [row for row in typed.rows if row[0] == "Diluted"]
    assert [row[1] for row in diluted] == [3.56, 1609.4]  # per-share earnings, then diluted shares


def test_junk_metadata_title_gives_way_to_the_cover_page() -> None:
    doc = pymupdf.open(str(FILINGS / "BESTBUY_2019_10K.pdf"))
    try:
        assert doc.metadata["title"] == "0000764478-19-000009"  # an SEC accession number
        assert document_title(doc, FILINGS / "BESTBUY_2019_10K.pdf") == (
            "BEST BUY CO., INC., Form 10-K, fiscal year ended February 2, 2019")
    finally:
        doc.close()


def test_a_cover_without_the_registrant_caption_names_the_company() -> None:
    # 3M's cover prints "3M COMPANY" on a line of its own, without "(Exact name of registrant ...)" under it;
    # its metadata title is "10-K - 02/07/2019 - 3M Company".
    doc = pymupdf.open(str(FILINGS / "3M_2018_10K.pdf"))
    try:
        assert document_title(doc, FILINGS / "3M_2018_10K.pdf") == (
            "3M COMPANY, Form 10-K, fiscal year ended December 31, 2018")
    finally:
        doc.close()


def test_table_of_contents_is_not_a_data_table(tmp_path: Path) -> None:
    # 3M's contents pages list "Consolidated Statement of Cash Flows ... 60": aligned like a table, no data.
    path = cut_filing(tmp_path, "3M_2018_10K", [1, 2])
    assert extract_tables(path) == []
    doc = pymupdf.open(str(path))
    try:
        assert "Consolidated Statement of Cash Flows" in doc[1].get_text()  # still there as text
    finally:
        doc.close()
