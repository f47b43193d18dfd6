"""Document metadata read at ingestion: issuer, type, period, currency and scale, for filings and for
reports in general (councils, charities, statistics offices); stored, corrected by a person, filled in
for older libraries by migration 7, and readable by the questions' SQL."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from core.ingest.ingestor import Ingestor
from core.library.db import connect
from core.library.migrations import MIGRATIONS
from core.library.store import Library
from core.reports.document_metadata import DocumentMetadata, edited_metadata, read_metadata, read_ticker
from core.reports.document_title import document_title, registrant
from core.sql.runner import SqlRunner
from tests.support.report_builder import Section, TableSpec, build_report

pytestmark = pytest.mark.unit

FILINGS = Path(__file__).resolve().parents[4] / "shared" / "bench" / "financebench-dev"

TEN_Q_COVER = """UNITED STATES
SECURITIES AND EXCHANGE COMMISSION
FORM 10-Q
QUARTERLY REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934
For the quarterly period ended July 29, 2023
Commission File Number: 1-9595
BEST BUY CO., INC.
(Exact name of registrant as specified in its charter)
"""


def test_a_quarterly_filing_is_placed_in_its_fiscal_year() -> None:
    body = "... as reported in our Annual Report on Form 10-K for the fiscal year ended January 28, 2023 ..."
    found = read_metadata("", "bby.pdf", [TEN_Q_COVER], ["$ in millions"], [], body=body)
    assert (found.issuer, found.doc_type, found.period) == ("BEST BUY CO., INC.", "10-Q", "Q2 FY2024")
    assert (found.fiscal_year, found.quarter, found.period_end) == (2024, 2, "2023-07-29")
    assert (found.currency, found.scale) == ("$", "million")


def test_a_registrant_broken_over_lines_or_ending_a_line_is_read_whole() -> None:
    assert registrant("Date of Report: July 1, 2022\nAMCOR\nPLC\n(Exact\nname of registrant as specified)") == "AMCOR PLC"
    assert registrant("Commission File Number: 0-15175 ADOBE SYSTEMS INCORPORATED\n(Exact name of registrant)") \
        == "ADOBE SYSTEMS INCORPORATED"
    assert registrant("Commission file number 1-3285\n3M COMPANY State of Incorporation: Delaware") == "3M COMPANY"


@pytest.mark.parametrize(
    ("title", "cover", "expected"),
    [
        ("Springfield City Council Budget 2024-25", "Springfield City Council\nBudget 2024-25\nRevenue budget",
         ("Springfield City Council", "budget", "2024-25", 2025, None)),
        ("Riverside Food Bank Trust Annual Report 2022", "Our year\nWe fed 12,000 families in 2022.",
         ("Riverside Food Bank Trust", "annual report", "2022", 2022, None)),
        ("Labour Market Statistics, second quarter of 2023", "Office for National Statistics\nRelease",
         ("Office for National Statistics", "statistics release", "Q2 2023", 2023, 2)),
        ("", "Amcor reports fiscal 2023 results\nJune 2023 quarter: strong cash flow",
         ("Amcor", "earnings release", "FY2023", 2023, None)),
    ],
)
def test_reports_in_general(title: str, cover: str, expected: tuple[object, ...]) -> None:
    found = read_metadata(title, "report.pdf", [cover], [], [])
    assert (found.issuer, found.doc_type, found.period, found.fiscal_year, found.quarter) == expected


def test_a_file_name_gives_the_issuer_only_when_a_year_follows_the_name() -> None:
    from core.reports.document_metadata import read_issuer

    assert read_issuer("", "", "ADOBE_2015_10K.pdf") == "ADOBE"
    assert read_issuer("", "", "AMCOR_2023Q4_EARNINGS.pdf") == "AMCOR"
    assert read_issuer("", "", "acme-fy2019-annual.pdf") == "acme"
    assert read_issuer("", "", "eu-004.pdf") == ""  # a numbered file of a collection, not an issuer "eu"
    assert read_issuer("", "", "scan_0012.pdf") == ""


def test_statement_headers_give_the_period_when_the_cover_does_not() -> None:
    found = read_metadata("Accounts", "accounts.pdf", ["Directors' report and accounts"], ["€ thousand"],
                          ["Note 2023 2022", "2023 2022", "2021 2020"])
    assert (found.fiscal_year, found.period, found.currency, found.scale) == (2023, "2023", "\u20ac", "thousand")


def test_a_correction_is_typed_and_checked() -> None:
    current = DocumentMetadata(issuer="X", period="FY2018", fiscal_year=2018)
    fixed = edited_metadata(current, {"issuer": " Acme  Corp ", "period": "Q3 FY2019"})
    assert (fixed.issuer, fixed.period, fixed.fiscal_year, fixed.quarter, fixed.edited) == \
        ("Acme Corp", "Q3 FY2019", 2019, 3, True)
    with pytest.raises(ValueError, match="quarter must be 1 to 4"):
        edited_metadata(current, {"quarter": "7"})
    with pytest.raises(ValueError, match="not a field"):
        edited_metadata(current, {"summary": "x"})


def _council_budget(path: Path) -> Path:
    table = TableSpec("Revenue budget by service ($ thousands)", [["Service", "2024-25", "2023-24"]],
                      [["Roads", "12,400", "11,900"], ["Libraries", "3,100", "3,050"], ["Total", "15,500", "14,950"]])
    build_report(path, "Springfield City Council Budget 2024-25",
                 [Section("Overview", ["The council sets its budget each year for the services it runs."], [table])])
    return path


def test_ingestion_stores_metadata_a_person_corrects_and_the_sql_reads(tmp_path: Path, hash_embedder) -> None:  # type: ignore[no-untyped-def]
    pdf = _council_budget(tmp_path / "budget.pdf")
    library = Library(tmp_path / "lib" / "library.sqlite3")
    (result,) = Ingestor(library, hash_embedder).ingest_paths([pdf])
    assert result.document_id is not None
    found = library.document_metadata()[result.document_id]
    assert (found.issuer, found.doc_type, found.period, found.fiscal_year) == \
        ("Springfield City Council", "budget", "2024-25", 2025)
    assert (found.currency, found.scale) == ("$", "thousand")

    fixed = library.set_document_metadata(result.document_id, {"issuer": "City of Springfield"})
    assert fixed.issuer == "City of Springfield" and fixed.edited
    library.conn.execute("BEGIN IMMEDIATE")
    library.conn.execute("UPDATE documents SET status = 'ready' WHERE id = ?", (result.document_id,))
    from core.library.facts import refresh_metadata
    refresh_metadata(library.conn, result.document_id)  # a corrected row is never recomputed
    library.conn.execute("COMMIT")
    assert library.document_metadata()[result.document_id].issuer == "City of Springfield"

    runner = SqlRunner(library.path)
    runner.allow_only(library.table_names())
    rows = runner.run("SELECT document, issuer, doc_type, fiscal_year FROM document_metadata").rows
    assert rows == (("budget.pdf", "City of Springfield", "budget", 2025),)
    runner.close()
    library.close()


def test_migration_fills_in_metadata_for_documents_already_in_a_library(tmp_path: Path, hash_embedder) -> None:  # type: ignore[no-untyped-def]
    pdf = _council_budget(tmp_path / "budget.pdf")
    path = tmp_path / "lib" / "library.sqlite3"
    library = Library(path)
    Ingestor(library, hash_embedder).ingest_paths([pdf])
    library.close()
    conn = connect(path)  # back to the schema before migration 7, as an older Folio left it
    conn.execute("DROP TABLE document_metadata")
    conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(next(m for m in MIGRATIONS if m.__name__ == 'm007_document_metadata'))}")
    conn.close()
    reopened = Library(path)
    (found,) = reopened.document_metadata().values()
    assert (found.issuer, found.doc_type, found.fiscal_year) == ("Springfield City Council", "budget", 2025)
    reopened.close()


@pytest.mark.skipif(not FILINGS.is_dir(), reason="the FinanceBench dev filings (../shared) are not here")
def test_real_filings_issuer_type_and_period() -> None:
    expected_issuers = {"3M": "3M COMPANY", "ADOBE": "ADOBE", "AMCOR": "AMCOR", "BESTBUY": "BEST BUY",
                        "CORNING": "CORNING", "GENERALMILLS": "GENERAL MILLS", "LOCKHEEDMARTIN": "LOCKHEED MARTIN",
                        "NIKE": "NIKE"}
    for pdf in sorted(FILINGS.glob("*.pdf")):
        company, period, kind = pdf.stem.split("_")[:3]
        with pymupdf.open(pdf) as doc:
            pages = [doc.load_page(i).get_text() for i in range(min(12, doc.page_count))]
            found = read_metadata(document_title(doc, pdf), pdf.name, pages, [], [], body="\n".join(pages))
        assert found.issuer.upper().startswith(expected_issuers[company]), (pdf.name, found)
        assert found.fiscal_year == int(period[:4]), (pdf.name, found)
        if kind in ("10K", "10Q", "8K"):
            assert found.doc_type == f"{kind[:-1]}-{kind[-1]}", (pdf.name, found)
        if "Q" in period:
            assert found.quarter == int(period[-1]), (pdf.name, found)


def test_the_trading_symbol_a_cover_registers_is_read() -> None:
    cover = ("Securities registered pursuant to Section 12(b) of the Act: Title of each class Trading Symbol(s) Name of "
             "each exchange on which registered Common Stock, $0.50 par value ACW New York Stock Exchange 2.25% Notes "
             "due 2031 ACW31 New York Stock Exchange")
    assert read_ticker(cover) == "ACW"
    assert read_ticker("Class A Common Stock, $1 par value  ZEPH  The Nasdaq Stock Market LLC (Trading symbol)") == ""
    assert read_ticker("Trading symbol ... Ordinary shares XLM NASDAQ Global Select Market") == "XLM"
    assert read_ticker("Annual report of the Water Board, registered in New York Stock Exchange terms") == ""
    assert read_metadata("Acme Widgets 10-K", "acme.pdf", [cover], [], []).ticker == "ACW"


def test_a_person_may_set_or_clear_a_trading_symbol() -> None:
    assert edited_metadata(DocumentMetadata(issuer="Acme"), {"ticker": " acw "}).ticker == "ACW"
    assert edited_metadata(DocumentMetadata(issuer="Acme", ticker="ACW"), {"ticker": ""}).ticker == ""
    with pytest.raises(ValueError):
        edited_metadata(DocumentMetadata(issuer="Acme"), {"ticker": "ACME WIDGETS INC"})
