"""`folio export` from the command line: a table as CSV or Excel, a document as a workbook with its contents,
and a name that matches nothing said in one line with exit code 2."""

from __future__ import annotations

import csv
from pathlib import Path

import openpyxl
import pytest

from app import cli
from core.ingest.ingestor import Ingestor
from core.library.store import Library
from tests.conftest import HashEmbedder
from tests.support.pdfs import income_statement_pdf

pytestmark = pytest.mark.unit


@pytest.fixture
def library(tmp_path: Path) -> Path:
    directory = tmp_path / "library"
    with Library.in_directory(directory) as library:
        (result,) = Ingestor(library, HashEmbedder()).ingest_paths([income_statement_pdf(tmp_path / "harbour.pdf")])
        assert result.status == "added"
    return directory


def test_export_a_document_as_a_workbook(library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "harbour.xlsx"
    assert cli.run(["export", "--library", str(library), "--document", "harbour.pdf", "--format", "xlsx",
                    str(out)]) == 0
    assert f"Exported 1 table to {out}" in capsys.readouterr().out
    book = openpyxl.load_workbook(out)
    assert book.sheetnames[0] == "Contents"
    rows = list(book.worksheets[1].iter_rows(values_only=True))
    assert rows[0][1] == "2019 ($ millions)"
    assert ("Cost of sales", -2731.4, -2498.9, -2388.5) in rows


def test_export_one_table_as_csv_with_the_format_from_the_file_name(library: Path, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    with Library.in_directory(library) as opened:
        (table,) = opened.tables()
    out = tmp_path / "income.csv"
    assert cli.run(["export", "--library", str(library), "--table", table.name, str(out)]) == 0
    with out.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[-1] == ["Net income (loss)", "-35.8", "912.7", "845.1"]


def test_export_says_why_it_cannot(library: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["export", "--library", str(library), "--document", "minutes", str(tmp_path / "x.xlsx")]) == 2
    assert "No document in the library is called 'minutes'" in capsys.readouterr().err
    assert cli.run(["export", "--library", str(library), "--document", "harbour", str(tmp_path / "x.txt")]) == 2
    assert "Choose the format: csv or xlsx" in capsys.readouterr().err
    assert not list(tmp_path.glob("x.*"))
