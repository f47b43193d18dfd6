"""Facts about a table found once when it is stored (core.reports.table_facts): stated scale and currency, each row's
parent line, section and total flag, each figure column's period; kept in the library, read through
``TableInfo``, and given by migration to tables stored before they existed."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from core.ingest.ingestor import Ingestor
from core.library.db import quote_identifier
from core.library.migrations import MIGRATIONS, m006_table_facts, m008_unit_rows, m012_group_headings
from core.library.store import Library, TableInfo
from core.reports.values import AskedPeriod, Period, asked_periods, is_unit_only, read_period, scale_stated_in
from tests.conftest import HashEmbedder
from tests.support.report_builder import PageBreak, TableSpec, build_report

FILINGS = Path(__file__).resolve().parents[4] / "shared" / "bench" / "financebench-dev"

BALANCE_SHEET = TableSpec(
    "Consolidated Balance Sheets",
    [["", "December 31,", ""], ["", "2019", "2018"]],
    [
        ["Current assets:", "", ""],
        ["  Cash and cash equivalents", "$ 1,200", "$ 1,000"],
        ["  Accounts receivable", "800", "700"],
        ["  Inventories", "500", "450"],
        ["    Total current assets", "2,500", "2,150"],
        ["Property, plant and equipment, net", "3,000", "2,900"],
        ["  Less accumulated depreciation", "(1,000)", "(900)"],
        ["Goodwill", "400", "400"],
        ["    Total assets", "$ 4,900", "$ 4,550"],
    ],
    ruled=False,
    col_widths=[3, 1, 1],
)


@pytest.mark.parametrize(("header", "context", "expected"), [
    ("2018", "Years ended December 31", Period(2018, "2018-12-31", 0, 12)),
    ("December 31, 2018", "Consolidated Balance Sheets", Period(2018, "2018-12-31", 0, 0)),
    ("February 2, 2019", "Fiscal Years Ended", Period(2019, "2019-02-02", 0, 12)),
    ("Three Months Ended June 30, 2023", "", Period(2023, "2023-06-30", 0, 3)),
    ("Q3 2019", "", Period(2019, "", 3, 3)),
    ("April 24, 2021", "Quarters Ended", Period(2021, "2021-04-24", 0, 3)),
    ("FY2019", "", Period(2019, "", 0, 12)),
    ("2019/20", "", Period(2020, "", 0, 0)),
    ("2019 vs 2018", "", None),
    ("% change", "", None),
    ("Segment", "", None),
])
def test_a_column_header_names_its_period(header: str, context: str, expected: Period | None) -> None:
    assert read_period(header, context) == expected


def test_a_question_names_periods_as_people_write_them() -> None:
    assert asked_periods("What was the FY2018 capex?") == [AskedPeriod(2018)]
    assert asked_periods("capital expenditure in fiscal 2018") == [AskedPeriod(2018)]
    assert asked_periods("FY18 total assets") == [AskedPeriod(2018)]
    assert asked_periods("fiscal year 2019 against 2018") == [AskedPeriod(2019), AskedPeriod(2018)]
    assert asked_periods("sales in the second quarter of 2023") == [AskedPeriod(2023, 2)]
    assert asked_periods("What is the total?") == []


def test_scale_lines_as_reports_print_them() -> None:
    assert scale_stated_in("(In millions, except per share data)") == "million"
    assert scale_stated_in("$'000") == "thousand"
    # a long bracket after a statement's title: the unit phrase inside it
    assert scale_stated_in("Consolidated Balance Sheets ($ in millions, except share and per share data)") == "million"
    assert scale_stated_in("(Rs. in crore)") == "crore"
    assert scale_stated_in("A$000's") == "thousand"  # "thousands of dollars", as Australian reports print it
    assert is_unit_only("Expressed in US $000's except share and per share amounts")
    assert not is_unit_only("The share and per share amounts are restated")
    assert scale_stated_in("Revenue grew 5% to $3 million in the year, as the table below shows.") == ""


def _ingest(tmp_path: Path, path: Path) -> Library:
    library = Library.in_directory(tmp_path / "library")
    result = Ingestor(library, HashEmbedder()).ingest_file(path)
    assert result.status == "added", result.message
    return library


def _statement(tmp_path: Path) -> Path:
    built = build_report(tmp_path / "statement.pdf", "Harbourline Holdings Annual Report 2019", [
        "The company's financial position at the end of the year was as follows.",
        "(In millions, except per share data)",
        BALANCE_SHEET,
    ])
    return built.path


def _labels(library: Library, info: TableInfo) -> dict[int, str]:
    return {row: label for row, label in library.conn.execute(
        f"SELECT _row, item FROM {quote_identifier(info.name)}")}


def test_a_statement_stores_its_scale_periods_totals_and_parent_lines(tmp_path: Path) -> None:
    library = _ingest(tmp_path, _statement(tmp_path))
    (info,) = library.tables()
    assert info.stated_scale == "million" and info.currency == "$"  # from the scale line above the statement
    assert [(p.column, p.period.fiscal_year, p.period.end_date) for p in info.periods] == [
        ("y2019", 2019, "2019-12-31"), ("y2018", 2018, "2018-12-31")]
    assert info.period_columns("total assets in FY2018") == ("y2018",)
    assert info.period_columns("fiscal 2019 inventories") == ("y2019",)
    labels = _labels(library, info)
    by_label = {labels[f.row]: f for f in info.row_facts}
    assert {labels[row] for row in info.total_rows} == {"Total current assets", "Total assets"}
    assert labels[info.parent_of(by_label["Inventories"].row) or -1] == "Current assets:"
    assert labels[info.parent_of(by_label["Total current assets"].row) or -1] == "Current assets:"  # not "Inventories"
    assert by_label["Inventories"].section == "Current assets" and by_label["Inventories"].depth == 1
    # A line under a line with figures: the SQL table gets a parent column the model's SQL can filter on.
    assert [c.name for c in info.schema.columns] == ["item", "y2019", "y2018", "section", "parent"]
    rows = library.conn.execute(f"SELECT item, y2019 FROM {quote_identifier(info.name)} "
                                "WHERE parent = 'Property, plant and equipment, net'").fetchall()
    assert rows == [("Less accumulated depreciation", -1000)]
    (cell,) = library.cells(info.id, [by_label["Less accumulated depreciation"].row], [4])
    assert cell.text == "Property, plant and equipment, net" and cell.column == "parent"  # cited where it is printed


def test_migration_gives_tables_stored_before_it_the_same_facts(tmp_path: Path) -> None:
    library = _ingest(tmp_path, _statement(tmp_path))
    (before,) = library.tables()
    conn = library.conn
    # Back to the schema before m006: no facts, no parent column (and none of the later migrations).
    conn.execute(f"ALTER TABLE {quote_identifier(before.name)} DROP COLUMN parent")
    conn.execute("DELETE FROM table_columns WHERE name = 'parent'")
    conn.execute("DELETE FROM table_cells WHERE col = 4")
    for statement in ("DROP TABLE table_row_facts", "DROP TABLE table_periods", "DROP TABLE document_metadata",
                      "ALTER TABLE extracted_tables DROP COLUMN stated_scale",
                      "ALTER TABLE extracted_tables DROP COLUMN currency"):
        conn.execute(statement)
    conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(m006_table_facts)}")
    library.close()
    reopened = Library.in_directory(tmp_path / "library")
    (after,) = reopened.tables()
    assert after == before
    reopened.close()


def test_facts_computed_again_write_the_parent_column_over(tmp_path: Path) -> None:
    library = _ingest(tmp_path, _statement(tmp_path))
    (info,) = library.tables()
    table = quote_identifier(info.name)
    before = library.conn.execute(f"SELECT _row, parent FROM {table} ORDER BY _row").fetchall()
    assert any(parent for _, parent in before)
    library.conn.execute(f"UPDATE {table} SET parent = 'Misread heading'")  # as an older version wrote it
    m012_group_headings(library.conn)
    assert library.conn.execute(f"SELECT _row, parent FROM {table} ORDER BY _row").fetchall() == before
    under = {row: parent for row, parent in before if parent}
    assert {c.row: c.text for c in library.cells(info.id, under, [4])} == under  # the cells cited say it too
    library.close()


def test_rows_set_flush_under_headings_stand_under_them_page_by_page() -> None:
    """A ruled table's labels all start at their cell's edge, a little further left on the next page: the heading
    rows without figures are the parents of the rows after them, a total closing its group."""
    from core.reports.table_facts import StoredRow, facts_of

    printed = [("Northern farms", None, 50.0, 1), ("Wheat", 12, 50.0, 1), ("Barley", 3, 50.0, 1),
               ("Southern farms", None, 44.0, 2), ("Wheat", 9, 44.0, 2), ("Total southern farms", 9, 44.0, 2),
               ("Orchards", 4, 44.0, 2)]
    rows = [StoredRow(i, label, (value,), x, "", page) for i, (label, value, x, page) in enumerate(printed)]
    assert [f.parent_row for f in facts_of(rows, [], [], [], "").rows] == [None, 0, 0, None, 3, 3, None]
    # a flat table that does not open with a heading (a row whose figure is missing) reads no groups
    flat = [StoredRow(i, label, (value,), 50.0, "", 1) for i, (label, value) in
            enumerate([("Wheat", 12), ("Barley", None), ("Oats", 4), ("Rye", None), ("Maize", 7)])]
    assert all(f.parent_row is None for f in facts_of(flat, [], [], [], "").rows)


def test_a_unit_printed_as_a_row_of_its_own_is_the_table_s_scale(tmp_path: Path) -> None:
    """"(In thousands)" in the label column under the years, a row with no figures: the scale of the table."""
    inventories = TableSpec(caption="", header=[["October 31,", "", ""], ["", "2019", "2018"]], rows=[
        ["(In thousands)", "", ""], ["Live poultry", "161,082", "153,931"], ["Prepared chicken", "20,032", "13,591"],
        ["Packaging materials", "7,488", "6,547"], ["Total inventories", "188,602", "174,069"]])
    built = build_report(tmp_path / "inventories.pdf", "Poultry Company Annual Report 2019", [
        "Inventories consisted of the following:", inventories,
        "The increase in prepared chicken inventory is attributable to the mix of finished products."])
    library = _ingest(tmp_path, built.path)
    (info,) = library.tables()
    assert info.stated_scale == "thousand"
    # A library stored before the rule reads it when it is opened.
    library.conn.execute("UPDATE extracted_tables SET stated_scale = ''")
    library.conn.execute(f"PRAGMA user_version = {MIGRATIONS.index(m008_unit_rows)}")
    library.close()
    reopened = Library.in_directory(tmp_path / "library")
    assert [t.stated_scale for t in reopened.tables()] == ["thousand"]
    reopened.close()


@pytest.mark.skipif(not FILINGS.is_dir(), reason=f"the FinanceBench dev filings are not at {FILINGS}")
def test_real_cash_flow_statement_facts(tmp_path: Path) -> None:
    source = pymupdf.open(str(FILINGS / "3M_2018_10K.pdf"))
    cut = pymupdf.open()
    cut.insert_pdf(source, from_page=59, to_page=59)
    path = tmp_path / "3m_cash_flows.pdf"
    cut.save(str(path))
    library = _ingest(tmp_path, path)
    (info,) = library.tables()
    assert info.stated_scale == "million" and info.currency == "$"
    assert info.period_columns("FY2018 capital expenditure") == ("y2018",)
    assert [p.period.end_date for p in info.periods] == ["2018-12-31", "2017-12-31", "2016-12-31"]
    labels = _labels(library, info)
    totals = {labels[row] for row in info.total_rows}
    # the filing's own labels for the two section totals (both printed "provided by (used in)")
    assert {f"Net cash provided by (used in) {section} activities" for section in ("investing", "financing")} <= totals
    capex = next(f for f in info.row_facts if labels[f.row].startswith("Purchases of property, plant and equipment"))
    assert labels[capex.parent_row or -1] == "Cash Flows from Investing Activities"
    assert not capex.is_total


class _CountedFigure(float):
    """A figure that counts the additions it takes part in (issue 23: a spreadsheet of 5,000 rows without a total
    cost 12.5 million checks, each row summing every line since the last total again)."""

    additions = 0

    def __add__(self, other: object) -> float:
        _CountedFigure.additions += 1
        return float(self) + float(other)  # type: ignore[arg-type]

    __radd__ = __add__


def test_finding_totals_costs_one_pass_over_a_long_table_without_totals() -> None:
    from core.reports.table_facts import StoredRow, facts_of

    rows = [StoredRow(i, f"Region {i}", (_CountedFigure(1000 + i % 97), _CountedFigure(500.5 + i % 13)), 10.0, "")
            for i in range(4_000)]
    _CountedFigure.additions = 0
    facts = facts_of(rows, [], [], [], "")
    assert not any(f.is_total for f in facts.rows)
    assert _CountedFigure.additions <= 2 * 2 * len(rows)  # each figure added once (a few times at most), not n^2 / 2


def test_a_running_sum_still_finds_a_total_line_and_starts_again_after_it() -> None:
    from core.reports.table_facts import StoredRow, facts_of

    values = [("A", 10), ("B", 20), ("Sum", 30), ("C", 5), ("D", 7), ("", 12), ("E", 1), ("F", 2)]
    rows = [StoredRow(i, label, (value,), 0.0, "") for i, (label, value) in enumerate(values)]
    assert [f.is_total for f in facts_of(rows, [], [], [], "").rows] == [False, False, True, False, False, True,
                                                                          False, False]


def test_small_figures_are_no_total_of_those_above_by_a_unit_s_slack() -> None:
    # correlations of 0.33 and -0.01 do not add up to 0.17, though all lie within a unit of each other; shares of
    # 0.25 and 0.50 do add up to 0.75
    from core.reports.table_facts import StoredRow, facts_of

    rates = [("Period A", (0.33, 0.05)), ("Period B", (-0.01, 0.05)), ("Period C", (0.17, -0.01))]
    rows = [StoredRow(i, label, values, 0.0, "") for i, (label, values) in enumerate(rates)]
    assert not any(f.is_total for f in facts_of(rows, [], [], [], "").rows)
    shares = [("Part one", (0.25,)), ("Part two", (0.5,)), ("Both", (0.75,))]
    rows = [StoredRow(i, label, values, 0.0, "") for i, (label, values) in enumerate(shares)]
    assert [f.is_total for f in facts_of(rows, [], [], [], "").rows] == [False, False, True]


def _awards_table() -> TableSpec:
    return TableSpec(caption="", header=[["", "2019", "2018"]], rows=[
        ["Cash-settled awards", "255", "198"], ["Equity-settled awards", "1,410", "1,322"], ["Total", "1,665", "1,520"]])


_NOTES_INTRO = [
    "NOTES TO CONSOLIDATED FINANCIAL STATEMENTS (in thousands, except per share data)",
    "Stock-based compensation is measured at the grant date fair value of the awards.",
    "Awards settled in cash are remeasured at each reporting date until they are settled.",
    "The expense is recognised over the vesting period of each award.",
    "The following table summarizes the expense by kind of award:",
]
"""A notes heading stating the scale, then paragraphs that introduce a table."""


def test_the_scale_a_notes_page_states_above_its_introduction_is_the_table_s(tmp_path: Path) -> None:
    """A notes page heading "(in thousands, except per share data)" over several paragraphs and then a table
    that states no unit: the table is in thousands. A scale stated for the table above another one is not."""
    built = build_report(tmp_path / "notes.pdf", "Harbourline Holdings Annual Report 2019", [
        *_NOTES_INTRO,
        _awards_table(),
        "Deferred revenue consists of the following (in millions):",
        TableSpec(caption="", header=[["", "2019", "2018"]], rows=[["Current", "12", "10"], ["Non-current", "4", "3"]]),
        "Grants made during the year were as follows.",
        "Grants vest over three years from the grant date.",
        "No grants were made to directors during the year.",
        _awards_table(),
    ])
    library = _ingest(tmp_path, built.path)
    scales = [info.stated_scale for info in sorted(library.tables(), key=lambda i: (i.page, i.bbox[1]))]
    assert scales == ["thousand", "million", ""]



def test_a_unit_line_printed_just_under_a_table_is_its_scale(tmp_path: Path) -> None:
    """"(in thousands)" printed as the line under a table's figures states the table's scale; the same line right
    over the next table heads that one instead."""
    deferred = TableSpec(caption="", header=[["", "2019", "2018"]], rows=[["Current", "12", "10"], ["Non-current", "4", "3"]])
    built = build_report(tmp_path / "under.pdf", "Kestrel Ropeworks Annual Report 2019", [
        "The charge for the year consisted of the following:",
        _awards_table(),
        "(in thousands)",
        "Other matters are described in the directors' report.",
        "The following table summarizes the grants:",
        _awards_table(),
        "(in millions)",
        deferred,
    ])
    library = _ingest(tmp_path, built.path)
    scales = [info.stated_scale for info in sorted(library.tables(), key=lambda i: (i.page, i.bbox[1]))]
    assert scales[0] == "thousand" and scales[2] == "million"
    assert scales[1] != "million"


def test_the_scale_a_notes_heading_states_on_the_page_before_a_table_is_the_table_s(tmp_path: Path) -> None:
    """A notes heading "(in thousands, except per share data)" and a few paragraphs at the end of a page, the
    table at the top of the next: the table is in thousands. A unit line under a table with more words
    ("(in millions, except per-share amounts)") states its scale too."""
    built = build_report(tmp_path / "notes.pdf", "Harbourline Holdings Annual Report 2019", [
        *_NOTES_INTRO,
        PageBreak(),
        _awards_table(),
        "Awards are granted each spring and vest in equal parts over three years.",
        "Quarterly results were as follows:",
        TableSpec(caption="", header=[["", "Q4", "Q3"]], rows=[["Revenue", "130", "125"], ["Gross margin", "85", "81"],
                                                               ["Net income per share", "0.52", "0.49"]]),
        "(in millions, except per-share amounts)",
    ])
    library = _ingest(tmp_path, built.path)
    tables = sorted(library.tables(), key=lambda i: (i.page, i.bbox[1]))
    assert [info.page for info in tables] == [2, 2]
    assert [info.stated_scale for info in tables] == ["thousand", "million"]


def test_the_head_of_the_label_column_says_what_every_column_holds(tmp_path: Path) -> None:
    """A table of quarters whose label column is headed "Quarters Ended": each dated column holds three months."""
    built = build_report(tmp_path / "quarters.pdf", "Pelican Freight Annual Report 2021", [
        "Selected quarterly data were as follows:",
        TableSpec(caption="", header=[["Quarters Ended", "April 24, 2021", "January 23, 2021"]],
                  rows=[["Revenue", "4,210", "3,980"], ["Gross margin", "1,505", "1,398"]]),
    ])
    (info,) = _ingest(tmp_path, built.path).tables()
    assert [p.period.months for p in info.periods] == [3, 3]
