"""Spreadsheets and CSV beside PDFs, on real files written in the tests (xlsx by openpyxl, xls by xlwt, ods
and CSV by hand): every table region becomes a typed SQL table named, headed and unit-tagged as a PDF
table is; cells cite "sheet, cell"; bad files get one clear message and leave the library untouched; a
question over a library mixing a PDF report and a spreadsheet of the same data is answered from either,
with the right citation."""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from core.answering import Answerer
from core.ingest.ingestor import Ingestor, expand_paths
from core.ingest.spreadsheets import (
    MAX_ROWS,
    cell_name,
    cell_range,
    cell_text,
    find_regions,
    open_workbook,
    sheet_window,
)
from core.library.store import Library
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from tests.core.answering.test_answering_library import ScriptedChat
from tests.support.pdfs import draw_ruled_table
from tests.support.sheets import (
    BUDGET,
    BUDGET_TITLE,
    budget_sheets,
    write_csv,
    write_long_xlsx,
    write_ods,
    write_xls,
    write_xlsx,
)

pytestmark = pytest.mark.unit

WRITERS = {"xlsx": write_xlsx, "xls": write_xls, "ods": write_ods}


@pytest.fixture
def library(tmp_path: Path) -> Iterator[Library]:
    lib = Library(tmp_path / "lib" / "library.sqlite3")
    yield lib
    lib.close()


def snapshot(library: Library) -> tuple:
    return (library.counts(), sorted(r[0] for r in library.conn.execute("SELECT name FROM sqlite_master")))


@pytest.mark.parametrize("kind", ["xlsx", "xls", "ods"])
def test_each_format_becomes_typed_tables_with_sheet_cells(kind: str, tmp_path: Path, library: Library,
                                                           hash_embedder) -> None:
    path = WRITERS[kind](tmp_path / f"council budget.{kind}", budget_sheets())
    result = Ingestor(library, hash_embedder).ingest_file(path)
    assert result.status == "added" and result.pages == 2 and result.tables == 2, result.message
    document = library.documents()[0]
    assert document.kind == "sheet" and document.page_count == 2
    budget, staff = library.tables()
    # Same naming, header detection, report notation and units as a PDF table.
    assert budget.name == "council_budget_p1_northwind_department"
    assert budget.caption == BUDGET_TITLE and budget.unit == "$ thousand"
    assert [(c.name, c.type) for c in budget.schema.columns] == [
        ("department", "TEXT"), ("y2023", "INTEGER"), ("y2024", "INTEGER"), ("change", "REAL")]
    rows = library.conn.execute(f'SELECT department, y2023, y2024, change FROM "{budget.name}" ORDER BY _row').fetchall()
    assert rows == [("Roads", 1200, 1450, 20.8), ("Parks", 830, 790, -4.8), ("Schools", 2310, 2402, 4.0),
                    ("Libraries", 415, 436, 5.1), ("Total", 4755, 5078, 6.8)]
    assert staff.name == "council_budget_p2_staff" and [c.type for c in staff.schema.columns] == ["TEXT", "INTEGER", "REAL"]
    # Cells cite the sheet and the cell: the table starts at A3 under the title and a blank row.
    (roads_2024,) = library.cells(budget.id, [1], [2])
    assert (roads_2024.sheet, roads_2024.cell, roads_2024.text, roads_2024.page) == ("Budget", "C4", "1450", 1)
    (parks_salaries,) = library.cells(staff.id, [2], [2])
    assert (parks_salaries.sheet, parks_salaries.cell) == ("Staff", "C3")
    # The title is searchable text of its sheet; table chunks carry the sheet name.
    chunks = library.chunks([r[0] for r in library.conn.execute("SELECT id FROM chunks ORDER BY id")])
    assert {c.sheet for c in chunks} == {"Budget", "Staff"}
    assert any(c.kind == "text" and "Northwind Council" in c.text for c in chunks)
    assert library.page_label(document.id, 2) == "Staff"


def test_csv_is_sniffed_for_delimiter_and_encoding(tmp_path: Path, library: Library, hash_embedder) -> None:
    rows = [["Region", "Revenue (€ millions)", "Margin"], ["Nord", "1,234.5", "12.5%"],
            ["Süd", "(210.0)", "-"], ["Ost", "98.1", "7.25%"]]
    semicolon = write_csv(tmp_path / "regions.csv", rows, delimiter=";", encoding="cp1252")
    tabbed = write_csv(tmp_path / "regions copy.tsv", rows + [["West", "5", "1%"]], delimiter="\t", encoding="utf-8-sig")
    results = Ingestor(library, hash_embedder).ingest_paths([semicolon, tabbed])
    assert [r.status for r in results] == ["added", "added"], [r.message for r in results]
    first, second = library.tables()
    assert first.unit == "" and [c.name for c in first.schema.columns][:1] == ["region"]
    revenue = next(c for c in first.schema.columns if c.name.startswith("revenue"))
    assert revenue.type == "REAL" and revenue.unit.startswith("€")
    values = library.conn.execute(f'SELECT region, "{revenue.name}", margin FROM "{first.name}" ORDER BY _row').fetchall()
    assert values == [("Nord", 1234.5, 12.5), ("Süd", -210.0, None), ("Ost", 98.1, 7.25)]
    assert library.conn.execute(f'SELECT COUNT(*) FROM "{second.name}"').fetchone()[0] == 4
    (cell,) = library.cells(first.id, [2], [1])
    assert (cell.sheet, cell.cell) == ("regions", "B3")


def test_regions_side_by_side_and_stacked_become_separate_tables(tmp_path: Path, library: Library,
                                                                 hash_embedder) -> None:
    grid = [
        ["Revenue by region", "", "", "", "Staff by region"],
        ["Region", "2023", "2024", "", "Region", "Staff"],
        ["North", 10, 12, "", "North", 4],
        ["South", 20, 25, "", "South", 7],
        [],
        [],
        ["Costs", "2023", "2024"],
        ["Rent", 3, 3.5],
        ["Energy", 1.2, 1.9],
        [],
        ["Figures are unaudited and may change when the annual accounts are closed in spring."],
    ]
    assert find_regions([[cell_text(v) for v in row] for row in grid]) == [(0, 0, 4, 3), (0, 4, 4, 6), (6, 0, 9, 3),
                                                                          (10, 0, 11, 1)]
    path = write_xlsx(tmp_path / "regions.xlsx", {"Overview": grid})
    result = Ingestor(library, hash_embedder).ingest_file(path)
    assert result.tables == 3
    by_caption = {t.caption: t for t in library.tables()}
    assert set(by_caption) == {"Revenue by region", "Staff by region", "Overview"}
    staff = by_caption["Staff by region"]
    assert library.conn.execute(f'SELECT * FROM "{staff.name}"').fetchall() == [(1, "North", 4), (2, "South", 7)]
    (cell,) = library.cells(staff.id, [2], [1])
    assert cell.cell == "F4"
    text = library.page_text(result.document_id or 0, 1)
    assert "unaudited" in text


def _bad_files(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    good = write_xlsx(tmp_path / "good.xlsx", budget_sheets())
    truncated = tmp_path / "truncated.xlsx"
    truncated.write_bytes(good.read_bytes()[: len(good.read_bytes()) // 2])
    garbage = tmp_path / "garbage.ods"
    garbage.write_bytes(os.urandom(4000))
    broken_xml = tmp_path / "broken.xlsx"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(broken_xml, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            target.writestr(item, data[: len(data) // 2] if item.filename == "xl/worksheets/sheet1.xml" else data)
    # What Excel writes for a workbook with a password: the encrypted package inside an OLE2 container.
    protected = tmp_path / "protected.xlsx"
    protected.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504 + "EncryptionInfo".encode("utf-16-le")
                          + os.urandom(3000))
    formulas = write_xlsx(tmp_path / "formulas.xlsx", {"Sums": [["Item", "Amount"], ["A", 1], ["B", 2],
                                                                ["Total", "=SUM(B2:B3)"]]})
    empty = write_xlsx(tmp_path / "empty.xlsx", {"Sheet1": []})
    binary_csv = tmp_path / "photo.csv"
    binary_csv.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 100 + os.urandom(500))
    return {
        "truncated": (truncated, "damaged"),
        "garbage": (garbage, "damaged"),
        "broken xml": (broken_xml, "damaged"),
        "password": (protected, "password-protected"),
        "formulas": (formulas, "formulas were saved without their results (B4)"),
        "empty": (empty, "holds no data"),
        "binary csv": (binary_csv, "not a text CSV"),
    }


@pytest.mark.parametrize("case", ["truncated", "garbage", "broken xml", "password", "formulas", "empty", "binary csv"])
def test_bad_spreadsheets_are_refused_clearly_and_change_nothing(case: str, tmp_path: Path, library: Library,
                                                                 hash_embedder) -> None:
    Ingestor(library, hash_embedder).ingest_file(write_csv(tmp_path / "first.csv", BUDGET))
    before = snapshot(library)
    path, words = _bad_files(tmp_path)[case]
    (result,) = Ingestor(library, hash_embedder).ingest_paths([path])
    assert result.status == "failed"
    assert words in result.message and path.name in result.message, result.message
    assert "\n" not in result.message and "Traceback" not in result.message
    assert snapshot(library) == before


def _peak_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM"))


def test_a_million_rows_are_refused_before_the_sheet_is_loaded(tmp_path: Path, library: Library,
                                                               hash_embedder) -> None:
    huge = write_long_xlsx(tmp_path / "huge.xlsx", 1_000_000, columns=2)
    lines = tmp_path / "huge.csv"
    with lines.open("w") as handle:
        handle.writelines(f"Region {i % 7},{i}\n" for i in range(1_000_000))
    with open("/proc/self/clear_refs", "w") as clear:  # restart the peak-memory count of this process
        clear.write("5")
    start = _peak_kib()
    results = Ingestor(library, hash_embedder).ingest_paths([huge, lines])
    grown_mib = (_peak_kib() - start) / 1024
    for result in results:
        assert result.status == "failed" and f"more than {MAX_ROWS:,} rows" in result.message, result.message
    assert grown_mib < 60, f"refusing the files took {grown_mib:.0f} MiB"
    assert library.counts()["documents"] == 0


def test_folders_bring_spreadsheets_with_their_pdfs(tmp_path: Path) -> None:
    folder = tmp_path / "annual"
    folder.mkdir()
    for name in ("report.pdf", "data.xlsx", "data.csv", "notes.txt", "old.xls", "budget.ods", "image.png"):
        (folder / name).write_bytes(b"x")
    assert [p.name for p in expand_paths([folder])] == ["budget.ods", "data.csv", "data.xlsx", "old.xls", "report.pdf"]


def test_geometry_and_the_evidence_window(tmp_path: Path) -> None:
    assert [cell_name(0, 0), cell_name(9, 25), cell_name(0, 26), cell_name(2, 701)] == ["A1", "Z10", "AA1", "ZZ3"]
    from core.ingest.spreadsheets import cell_box

    assert cell_range([cell_box(3, 1), cell_box(3, 2)]) == "B4:C4" and cell_range([cell_box(0, 0)]) == "A1"
    assert cell_text(1200.0) == "1200" and cell_text(0.1 + 0.2) == "0.3" and cell_text(True) == "TRUE"
    path = write_xlsx(tmp_path / "budget.xlsx", budget_sheets())
    window = sheet_window(path, "Budget", [cell_box(3, 2)])
    assert window.first_row == 0 and window.cells[3][:3] == ("Roads", "1200", "1450")
    far = sheet_window(write_long_xlsx(tmp_path / "long.xlsx", 2000, columns=3), "Data", [cell_box(1500, 1)],
                       max_rows=100)
    assert far.first_row == 1495 and len(far.cells) == 100 and far.cells[5][1] == str(2000 + 1501 % 25)
    assert open_workbook(path).sheet_names == ["Budget", "Staff"]


def _report_pdf(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((50, 60), "Northwind Council Annual Report", fontsize=16)
    page.insert_text((50, 90), "Road repairs after the flood raised spending in 2024.", fontsize=10)
    page.insert_text((50, 130), "Table 1: Budget by department ($ thousands)", fontsize=11)
    printed = [[str(v) for v in BUDGET[0]]] + [[f"{v:,}" if isinstance(v, int) else v for v in row] for row in BUDGET[1:]]
    draw_ruled_table(page, printed, [50, 200, 300, 400, 500], 145)
    doc.save(path)
    return path


def _operation_reply(messages, schema):  # type: ignore[no-untyped-def]
    """A scripted model: picks Roads' 2023 and 2024 cells from whatever table it is offered."""
    if schema and "cells" in schema.get("properties", {}):
        cell = schema["properties"]["cells"]["items"]["properties"]
        rows = [r for r in cell["row"]["enum"] if r == "Roads"]
        columns = sorted(c for c in cell["column"]["enum"] if c in ("y2023", "y2024"))
        return {"operation": "difference", "cells": [{"row": rows[0], "column": c} for c in columns]}
    if schema and "source" in schema.get("properties", {}):
        return {"source": "sql", "text_answer": "", "conflict": False}
    return {"action": "answer", "text": "The change is in the table."}


def test_a_question_over_a_pdf_and_its_spreadsheet_is_answered_from_either_and_cited(
        tmp_path: Path, library: Library, hash_embedder) -> None:
    pdf = _report_pdf(tmp_path / "annual report.pdf")
    sheet = write_xlsx(tmp_path / "annual data.xlsx", budget_sheets())
    results = Ingestor(library, hash_embedder).ingest_paths([pdf, sheet])
    assert [r.status for r in results] == ["added", "added"]
    question = "How much did Roads spending change from 2023 to 2024?"
    answered_from = []
    for _ in range(2):
        runner = SqlRunner(library.path)
        try:
            answer = Answerer(library, Retriever(library.conn, hash_embedder), runner,
                              ScriptedChat(fallback=_operation_reply)).answer(question)  # type: ignore[arg-type]
        finally:
            runner.close()
        assert "250" in answer.text, answer.text
        (cited,) = [c for c in answer.citations if c.sql]
        texts = {c.text.replace(",", "") for c in cited.cells}
        assert texts == {"1200", "1450"}
        document = next(d for d in library.documents() if d.file_name == cited.document)
        if document.kind == "sheet":
            assert cited.sheet == "Budget" and cited.cell_range == "B4:C4" and cited.place == "sheet Budget, B4:C4"
            assert {c.cell for c in cited.cells} == {"B4", "C4"}
        else:
            assert cited.sheet == "" and cited.page == 1 and cited.place == "p.1"
            page = pymupdf.open(pdf)[0]
            assert {page.get_text(clip=pymupdf.Rect(c.bbox)).strip() for c in cited.cells} == {"1,200", "1,450"}
        answered_from.append(document.kind)
        library.delete_document(document.id)  # the next round must answer from the other file
    assert sorted(answered_from) == ["pdf", "sheet"]


def test_a_long_table_is_in_sql_whole_in_the_word_index_in_part_and_embedded_in_less(tmp_path: Path, library: Library,
                                                                                     hash_embedder) -> None:
    from core.ingest.spreadsheets import MAX_EMBEDDED_ROWS, MAX_INDEXED_ROWS

    rows = MAX_INDEXED_ROWS + 1_000
    path = write_csv(tmp_path / "visits.csv", [["Site", "Year", "Visits"]] + [[f"Site {i}", 2000 + i % 20, i * 3]
                                                                              for i in range(rows)])
    (result,) = Ingestor(library, hash_embedder).ingest_paths([path])
    assert result.status == "added", result.message
    (table,) = library.tables()
    assert library.conn.execute(f'SELECT COUNT(*) FROM "{table.name}"').fetchone()[0] == rows
    indexed = library.conn.execute("SELECT MAX(last_row) FROM chunks WHERE table_id = ?", (table.id,)).fetchone()[0]
    assert indexed == MAX_INDEXED_ROWS  # header row 0, body rows 1..5,000
    embedded = library.conn.execute(
        "SELECT MAX(c.last_row) FROM chunks c JOIN embeddings e ON e.content_hash = c.content_hash WHERE c.table_id = ?",
        (table.id,)).fetchone()[0]
    assert MAX_EMBEDDED_ROWS <= embedded < MAX_EMBEDDED_ROWS + 12  # up to the chunk holding the 1,000th row
    fts = library.conn.execute("SELECT COUNT(*) FROM chunks_fts WHERE chunks_fts MATCH '\"Site 4321\"'").fetchone()[0]
    assert fts == 1  # found by its words, though it has no vector
