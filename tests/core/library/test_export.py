"""Tables to take away: a table read from a real PDF, written as CSV and as Excel, reads back (csv, openpyxl)
equal to its SQL table, negative figures included, with the scale named in each header; a document's workbook
has a contents sheet linking to every sheet and to the page; a cancelled export leaves no file."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import openpyxl
import pytest

from core.errors import Cancelled
from core.ingest.ingestor import Ingestor
from core.jobs import CancelToken, JobContext
from core.library.db import quote_identifier
from core.library.export import (
    ExportError,
    column_unit,
    document_named,
    export_tables,
    read_table,
    sheet_names,
    tables_to_export,
)
from core.library.store import Library
from models.types import ColumnSchema, ProgressEvent
from tests.conftest import HashEmbedder
from tests.support.pdfs import income_statement_pdf
from tests.ui.conftest import budget_pdf

pytestmark = pytest.mark.unit


@pytest.fixture
def library(tmp_path: Path) -> Iterator[Library]:
    library = Library.in_directory(tmp_path / "library")
    pdfs = [income_statement_pdf(tmp_path / "harbour.pdf"), budget_pdf(tmp_path / "budget.pdf")]
    results = Ingestor(library, HashEmbedder()).ingest_paths(pdfs)
    assert [r.status for r in results] == ["added", "added"]
    yield library
    library.close()


def sql_rows(library: Library, name: str) -> list[tuple[object, ...]]:
    """The SQL table's rows, ``_row`` left out, in order."""
    cursor = library.conn.execute(f"SELECT * FROM {quote_identifier(name)} ORDER BY _row")
    return [tuple(row[1:]) for row in cursor.fetchall()]


def income(library: Library) -> str:
    (table,) = library.tables(document_named(library, "harbour").id)
    return table.name


def test_a_table_is_read_with_typed_columns_periods_and_its_scale(library: Library) -> None:
    export = read_table(library, income(library))
    assert [c.title for c in export.columns] == ["item", "2019 ($ millions)", "2018 ($ millions)", "2017 ($ millions)"]
    assert [c.type for c in export.columns][1:] == ["REAL"] * 3
    assert export.periods == ("FY2019", "FY2018", "FY2017")
    assert export.unit == "$ millions" and export.place == "p. 1"
    assert list(export.rows) == sql_rows(library, income(library))
    assert ("Net income (loss)", -35.8, 912.7, 845.1) in export.rows


def test_csv_reads_back_equal_to_the_sql_table(library: Library, tmp_path: Path) -> None:
    name = income(library)
    (written,) = export_tables(library, tables_to_export(library, table=name), "csv", tmp_path / "income")
    assert written == tmp_path / "income.csv"
    with written.open(encoding="utf-8-sig", newline="") as handle:
        header, *rows = list(csv.reader(handle))
    assert header == ["item", "2019 ($ millions)", "2018 ($ millions)", "2017 ($ millions)"]
    expected = sql_rows(library, name)
    read = [(r[0], *(float(v) if v else None for v in r[1:])) for r in rows]
    assert read == expected
    assert rows[1][1] == "-2731.4"  # a bracketed cost goes out as a negative number, not "(2,731.4)"


def test_xlsx_holds_numbers_equal_to_the_sql_table(library: Library, tmp_path: Path) -> None:
    name = income(library)
    (written,) = export_tables(library, tables_to_export(library, table=name), "xlsx", tmp_path / "income.xlsx")
    book = openpyxl.load_workbook(written)
    assert len(book.sheetnames) == 1  # one table: its sheet alone
    sheet = book.worksheets[0]
    values = list(sheet.iter_rows(values_only=True))
    assert values[0] == ("item", "2019 ($ millions)", "2018 ($ millions)", "2017 ($ millions)")
    assert values[1:] == sql_rows(library, name)
    cost = sheet["B3"]
    assert cost.value == -2731.4 and cost.data_type == "n" and cost.number_format == "#,##0.0"
    assert sheet["C5"].value is None  # the dash: no value, not the text "—"


def test_a_documents_workbook_has_a_contents_sheet_linking_to_sheets_and_pages(library: Library,
                                                                                tmp_path: Path) -> None:
    document = document_named(library, "budget.pdf")
    tables = tables_to_export(library, document="budget.pdf")
    events: list[ProgressEvent] = []
    (written,) = export_tables(library, tables, "xlsx", tmp_path / "budget.xlsx", JobContext(events.append),
                               contents=True)
    book = openpyxl.load_workbook(written)
    assert book.sheetnames[0] == "Contents" and len(book.sheetnames) == len(tables) + 1
    contents = book["Contents"]
    rows = list(contents.iter_rows(min_row=3, values_only=True))
    assert rows[0][:4] == ("Sheet", "Table", "Document", "Page")
    first = contents["A4"]
    assert first.value == book.sheetnames[1] and first.hyperlink.location == f"'{first.value}'!A1"
    page = contents["D4"]
    assert page.value == "p. 1"
    assert page.hyperlink.target == f"{Path(document.path).resolve().as_uri()}#page=1"
    sheet = book[book.sheetnames[1]]
    assert list(sheet.iter_rows(min_row=2, values_only=True)) == sql_rows(library, tables[0].name)
    assert any(e.stage == "export" for e in events) and events[-1].stage == "done"


def test_a_document_as_csv_is_a_folder_of_files(library: Library, tmp_path: Path) -> None:
    tables = tables_to_export(library, document="harbour.pdf") + tables_to_export(library, document="budget")
    written = export_tables(library, tables, "csv", tmp_path / "out")
    assert written == [tmp_path / "out" / f"{t.name}.csv" for t in tables]


def test_a_cancelled_export_leaves_no_file(library: Library, tmp_path: Path) -> None:
    token = CancelToken()

    def cancel_on_write(event: ProgressEvent) -> None:
        if event.message.startswith("Writing"):
            token.cancel()

    tables = tables_to_export(library, table=income(library))
    with pytest.raises(Cancelled):
        export_tables(library, tables, "xlsx", tmp_path / "x.xlsx", JobContext(cancel_on_write, token))
    assert list(tmp_path.glob("*.xlsx*")) == [] and list(tmp_path.glob(".x.xlsx*")) == []


def test_names_that_match_nothing_or_several_are_refused_with_the_reason(library: Library, tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="No document"):
        tables_to_export(library, document="minutes")
    with pytest.raises(ExportError, match="2 documents match 'pdf'"):
        tables_to_export(library, document="pdf")
    with pytest.raises(ExportError, match="no table 'missing'"):
        tables_to_export(library, table="missing")
    with pytest.raises(ExportError, match="Name a table"):
        tables_to_export(library)
    with pytest.raises(ExportError, match="csv or xlsx"):
        export_tables(library, tables_to_export(library, table=income(library)), "pdf", tmp_path / "x.pdf")


def test_a_column_states_its_own_unit_before_the_tables() -> None:
    from dataclasses import replace

    from core.library.store import TableInfo
    from models.types import TableSchema

    info = TableInfo(1, 1, "d.pdf", "t", 1, 1, (0, 0, 1, 1), "", "", "", 1, 1, "", TableSchema(1, "t", "d.pdf", 1, ()),
                     stated_scale="thousand", currency="\u20ac")
    assert column_unit(info, ColumnSchema("y2019", "REAL")) == "\u20ac thousands"
    assert column_unit(info, ColumnSchema("margin", "REAL", unit="percent")) == "%"
    assert column_unit(info, ColumnSchema("staff", "INTEGER", unit="million")) == "\u20ac millions"
    assert column_unit(info, ColumnSchema("item", "TEXT")) == ""
    assert column_unit(replace(info, stated_scale="", currency=""), ColumnSchema("n", "INTEGER")) == ""


def test_sheet_names_are_short_unique_and_allowed() -> None:
    class Fake:
        def __init__(self, title: str) -> None:
            self.place, self.title = "p. 12", title
            self.info = type("I", (), {"name": "t"})()

    names = sheet_names([Fake("Balance sheet: assets [restated]"), Fake("Balance sheet: assets [restated]"),
                         Fake("A" * 40)])  # type: ignore[list-item]
    assert names[0] == "p12 Balance sheet assets restat" and names[1].endswith(" (2)")
    assert all(len(n) <= 31 for n in names) and len(set(names)) == 3
