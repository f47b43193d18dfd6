"""Table extraction on the shared sample PDFs (real one-page government documents), with values checked."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from core.ingest.extraction import extract_tables
from models.types import ExtractedTable

pytestmark = pytest.mark.unit

SAMPLES = Path(__file__).resolve().parents[4] / "shared" / "samples"  # beside the repository

if not SAMPLES.is_dir():  # pragma: no cover - the shared data lives outside the repository
    pytest.skip("shared sample PDFs are not available", allow_module_level=True)


def _only(name: str, password: str | None = None) -> ExtractedTable:
    tables = extract_tables(SAMPLES / name, password=password)
    assert len(tables) == 1, [t.caption for t in tables]
    return tables[0]


def _row(table: ExtractedTable, first_cell: str) -> tuple[str, ...]:
    return next(row for row in table.rows if row[0] == first_cell)


def _assert_boxes_hold_text(path: Path, table: ExtractedTable, password: str | None = None) -> None:
    doc = pymupdf.open(path)
    if doc.needs_pass:
        doc.authenticate(password or "")
    page = doc[table.page - 1]
    for r, row in enumerate(table.rows):
        for c, text in enumerate(row):
            ref = table.cells[r][c]
            assert ref is not None
            if text:
                found = "".join(page.get_text("text", clip=pymupdf.Rect(ref.bbox)).split())
                assert "".join(text.split()) in found, (text, found)
    doc.close()


def test_budget_borderless_table_with_spanning_headers() -> None:
    table = _only("budget.pdf")
    assert table.extractor.startswith("camelot-stream")
    assert table.header_rows == 2
    assert table.rows[0][1:4] == ("Plan", "Plan", "Plan")  # "Plan" spans Revenue, Capital, Total
    assert table.rows[0][4:7] == ("Non-Plan", "Non-Plan", "Non-Plan")
    assert table.rows[0][7] == "Total Plan & Non-Plan"
    assert table.rows[1][:4] == ("Ministry/Demand", "Revenue", "Capital", "Total")
    assert _row(table, "1. Department of Agriculture and Cooperation") == (
        "1. Department of Agriculture and Cooperation", "22260.55", "48.45", "22309.00", "342.51", "0.74",
        "343.25", "22652.25", "1-10",
    )
    assert _row(table, "2. Department of Agricultural Research and Education")[2] == "..."
    assert "Budget 2014-2015" in table.caption and "(In crores of Rupees)" in table.caption


def test_rotated_page_table_reads_upright_with_stripped_footnote_markers() -> None:
    table = _only("rotated_page.pdf")
    assert table.caption.startswith("Table S–4. Adjusted Baseline by Category")
    assert table.header_rows == 2
    assert table.rows[1][1:3] == ("2011", "2012")
    assert table.rows[1][-2:] == ("2013–2017", "2013–2022")
    assert table.rows[0][-2:] == ("Totals", "Totals")
    defense = _row(table, "Defense")  # printed "Defense³ ......": marker and dot leaders are gone
    assert defense[1:4] == ("699", "709", "700") and defense[-2:] == ("3,446", "7,215")
    _assert_boxes_hold_text(SAMPLES / "rotated_page.pdf", table)


def test_row_spans_are_repeated_on_every_row() -> None:
    table = _only("row_span_1.pdf")
    assert table.rows[0] == ("Plan Type", "County", "Plan Name", "Totals")
    assert table.rows[1] == ("GMC", "Sacramento", "Anthem Blue Cross", "164,380")
    assert table.rows[2] == ("GMC", "Sacramento", "Health Net", "126,547")
    assert table.rows[-1] == ("All Models Total Enrollments", "", "", "10,132,875")
    # The repeated label points at the one merged cell on the page.
    assert table.cells[1][0].bbox == table.cells[2][0].bbox


def test_two_ruled_tables_on_one_page_keep_their_captions() -> None:
    tables = extract_tables(SAMPLES / "twotables_2.pdf")
    assert [t.caption.split(":")[0].strip() for t in tables] == ["Table 6", "Table 7"]
    for table in tables:
        assert table.header_rows == 2
        assert table.rows[1][2:] == ("Illiterate", "Read & Write", "1-4 std.", "5-8 std.", "9-12 std.", "College")
        assert table.rows[0][2:] == ("Literacy Status",) * 6
    assert _row(tables[0], "Kerala") == ("Kerala", "2400", "7.2", "0.5", "25.3", "20.1", "41.5", "5.5")
    assert _row(tables[1], "Pooled") == ("Pooled", "23889", "47.7", "1.5", "9.9", "19.9", "17.8", "3.3")


def test_missing_values_stay_empty_and_section_labels_stay_in_the_table() -> None:
    table = _only("missing_values.pdf")
    assert table.caption == "Bhandara - Key Indicators"
    assert table.rows[1] == ("Indicators", "TOTAL", "RURAL", "TOTAL", "RURAL")
    assert table.rows[0][1:] == ("DLHS-4 (2012-13)", "DLHS-4 (2012-13)", "DLHS-3 (2007-08)", "DLHS-3 (2007-08)")
    assert _row(table, "Any Injury") == ("Any Injury", "1.9", "2.1", "", "")
    assert _row(table, "Reported Prevalence of Morbidity") == ("Reported Prevalence of Morbidity", "", "", "", "")


def test_column_spanning_cells_in_a_ruled_table() -> None:
    table = _only("column_span_2.pdf")
    assert "pymupdf" in table.extractor
    assert table.rows[0][:3] == ("Investigations", "No. of HHs", "Age/Sex/ Physiological Group")
    assert table.rows[1] == ("Anthropometry", "2400", "All the available individuals", "", "", "", "")
    assert table.rows[-1] == ("Knowledge & Practices on HTN & DM", "2400", "Women (≥ 18 yrs)", "-", "-", "-", "1728")


def test_superscript_sample_title_and_header_lines() -> None:
    table = _only("superscript.pdf")
    assert table.caption.startswith("TABLE 125: STATE-WISE COMPOSITION OF OUTSTANDING LIABILITIES")
    assert table.rows[0][-1] == "Loans from NCDC"  # three header lines joined into one cell
    assert table.rows[-1][:3] == ("ALL STATES", "513.38", "436.02")


def test_encrypted_sample_with_password_matches_the_open_one() -> None:
    protected = _only("health_protected.pdf", password="userpass")
    plain = _only("health.pdf")
    assert protected.rows == plain.rows
    assert protected.header_rows == 2
    assert protected.rows[1][1:3] == ("Medical & Public Health", "Family Welfare")
    assert _row(protected, "Assam")[1:3] == ("14,874,821", "2,554,197")
    _assert_boxes_hold_text(SAMPLES / "health_protected.pdf", protected, "userpass")


def test_a_file_encrypted_without_a_user_password_reads_as_the_open_one(tmp_path: Path) -> None:
    """Many filings are encrypted with an empty user password (they open without one, and camelot is given a
    decrypted copy of a page): the tables are those of the unencrypted file, and a page camelot is not asked
    for costs no copy."""
    from core.ingest.extraction.page_view import open_view

    locked = tmp_path / "locked budget.pdf"
    pymupdf.open(SAMPLES / "budget.pdf").save(locked, encryption=pymupdf.PDF_ENCRYPT_RC4_128, owner_pw="owner",
                                              user_pw="", permissions=pymupdf.PDF_PERM_PRINT)
    doc = pymupdf.open(locked)
    assert not doc.needs_pass and doc.metadata["encryption"]
    view = open_view(doc, locked, 1, None)
    assert "_camelot_source" not in view.__dict__  # not made until camelot asks
    source, page = view.source, view.source_page
    assert isinstance(source, bytes) and page == 1 and pymupdf.open("pdf", source).page_count == 1
    tables = extract_tables(locked)
    assert tables == extract_tables(SAMPLES / "budget.pdf") and [t.extractor for t in tables] == ["camelot-stream"]


def test_image_only_page_has_no_tables() -> None:
    assert extract_tables(SAMPLES / "image.pdf") == []


def test_every_sample_gives_rectangular_tables_with_complete_cell_references() -> None:
    for path in sorted(SAMPLES.glob("*.pdf")):
        password = "userpass" if "protected" in path.name else None
        for table in extract_tables(path, password=password):
            assert table.n_rows >= 2 and table.n_cols >= 2, path.name
            assert all(len(row) == table.n_cols for row in table.rows), path.name
            assert 0 <= table.header_rows < table.n_rows, path.name
            assert len(table.cells) == table.n_rows, path.name
            for r, refs in enumerate(table.cells):
                assert [(ref.row, ref.col) for ref in refs if ref] == [(r, c) for c in range(table.n_cols)]
            assert table.to_json()["rows"] == [list(row) for row in table.rows]
