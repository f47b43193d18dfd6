"""The unit a question asks constrains the column it reads: a percentage asked ("what share of the cases were
imported") reads the percent column the words name, or is computed as a share, never answered with an amount;
"how many" reads a column of counts, never a percentage beside it; "the average X" of a row reads the averages the
table prints. A surveillance table is drawn as a ruled PDF, ingested for real and asked with no model call."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from core.answering import table_query
from core.answering.operations import load_table_view
from core.answering.query_step import distinct_values
from core.answering.reading import read
from core.ingest.ingestor import Ingestor
from core.library.store import Library
from core.sql.runner import SqlRunner
from tests.conftest import HashEmbedder
from tests.core.answering.test_table_query import ask_without_model
from tests.core.ingest.test_extraction import _draw_ruled

pytestmark = pytest.mark.unit


def drawn_library(directory: Path, title: str, rows: list[list[str]], x: list[float], *, name: str = "table.pdf",
                  row_height: float = 18, fontsize: float = 11, embedder: Any = None) -> Library:
    """A library holding one page: ``title`` over ``rows`` drawn as a ruled table (column boundaries ``x``),
    ingested for real (with the hash embedder unless another is given)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), title, fontsize=fontsize)
    _draw_ruled(page, rows, x, 80, row_height=row_height)
    doc.save(directory / name)
    doc.close()
    library = Library(directory / "library.sqlite3")
    result = Ingestor(library, embedder or HashEmbedder()).ingest_file(directory / name)
    assert result.status == "added" and result.tables == 1, result
    return library


# district: cases, imported (%), domestic (%), hospitalised, average age (years)  (made up)
DISTRICTS = {
    "Ashvale": (412, 12.4, 87.6, 61, 38.2),
    "Brindlemoor": (1_205, 31.0, 69.0, 140, 41.7),
    "Corwick": (288, 4.5, 95.5, 22, 35.9),
    "Dunmore": (1_930, 18.8, 81.2, 301, 44.0),
}


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    header = [["District", "Cases (n)", "Imported (%)", "Domestic (%)", "Hospitalised", "Average age (years)"]]
    body = [[name, f"{n:,}", f"{imp:.1f}", f"{dom:.1f}", str(hosp), f"{age:.1f}"]
            for name, (n, imp, dom, hosp, age) in DISTRICTS.items()]
    library = drawn_library(tmp_path_factory.mktemp("cases"), "Table 2: Notified cases of campylobacteriosis by district, 2024",
                            header + body, [40, 130, 210, 290, 370, 460, 570])
    yield library
    library.close()


def test_a_share_asked_reads_the_percent_column_the_words_name(cases: Library) -> None:
    answer = ask_without_model(cases, "What share of the cases in Brindlemoor were imported?")
    assert answer.value.startswith("31"), answer.text
    answer = ask_without_model(cases, "What percentage of Corwick's cases were domestic?")
    assert answer.value.startswith("95.5"), answer.text


def test_a_share_no_column_prints_is_computed_never_an_amount(cases: Library) -> None:
    answer = ask_without_model(cases, "What percentage of the cases in Ashvale were hospitalised?")
    assert answer.value == f"{100 * 61 / 412:.2f}%", answer.text


def test_how_many_reads_counts_not_the_percentages_beside_them(cases: Library) -> None:
    answer = ask_without_model(cases, "How many cases were notified in Dunmore?")
    assert answer.value == "1,930", answer.text


def test_the_average_a_row_prints_is_read_not_recomputed(cases: Library) -> None:
    answer = ask_without_model(cases, "What was the average age of the cases in Brindlemoor?")
    assert answer.value.startswith("41.7"), answer.text


# country (an unheaded stub): domestic (%), imported (%), total (n)  (made up)
COUNTRIES = {"Norland": (88.0, 12.0, 412), "Ostmark": (75.0, 25.0, 1_310), "Valdoria": (80.0, 20.0, 96),
             "Kestria": (64.5, 35.5, 870), "Brennmark": (97.1, 2.9, 1_502)}


@pytest.fixture(scope="module")
def origins(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["", "Domestic (%)", "Imported (%)", "Total (n)"]] + [
        [name, f"{domestic:.1f}", f"{imported:.1f}", f"{total:,}"] for name, (domestic, imported, total) in COUNTRIES.items()]
    library = drawn_library(tmp_path_factory.mktemp("origins"),
                            "Table 5: Confirmed listeriosis cases by reporting country and origin, 2024", rows,
                            [60, 200, 300, 400, 500])
    yield library
    library.close()


def test_what_the_title_counts_is_ranked_by_its_total_column(origins: Library) -> None:
    answer = ask_without_model(origins, "Which country reported the most confirmed listeriosis cases in 2024?")
    assert answer.value == "Brennmark" and "1,502" in answer.text, answer.text


def test_an_unheaded_stub_is_what_a_ranking_names(origins: Library) -> None:
    answer = ask_without_model(origins, "Which three countries had the highest imported share of listeriosis cases?")
    assert list(answer.parts) == ["Kestria", "Ostmark", "Valdoria"], answer.text


def test_at_least_keeps_the_threshold_itself(origins: Library) -> None:
    answer = ask_without_model(origins, "In how many countries were at least 20% of the cases imported?")
    assert answer.value == "3", answer.text  # Valdoria's 20.0 counts
    assert "countries were" not in answer.text


def test_which_of_the_rows_past_a_threshold_are_listed(origins: Library) -> None:
    answer = ask_without_model(origins, "Which of the countries had an imported share below 15%?")
    assert set(answer.parts) == {"Norland", "Brennmark"}, answer.text


# demand: plan total, non-plan total, total plan & non-plan, staff  (made up, crores of rupees)
DEMANDS = {"1. Department of Lighthouses": (120.5, 80.25, 200.75, 1_140),
           "2. Department of Canals": (310.0, 95.5, 405.5, 2_310),
           "3. Department of Hill Roads": (42.0, 18.0, 60.0, 515)}


@pytest.fixture(scope="module")
def provisions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Demand", "Plan Total", "Non-Plan Total", "Total Plan & Non-Plan", "Staff"]] + [
        [name, f"{plan:.2f}", f"{other:.2f}", f"{total:.2f}", f"{staff:,}"]
        for name, (plan, other, total, staff) in DEMANDS.items()]
    library = drawn_library(tmp_path_factory.mktemp("provisions"),
                            "Statement of budget provisions by demand, 2025-26 (in crores of rupees)", rows,
                            [40, 230, 310, 390, 490, 570])
    yield library
    library.close()


def test_a_total_no_header_names_reads_the_grand_total_column(provisions: Library) -> None:
    answer = ask_without_model(provisions, "What is the total 2025-26 budget of the Department of Canals?")
    assert answer.value.startswith("405.5"), answer.text  # not the plan or non-plan total


def test_how_many_a_named_row_has_reads_its_count_column(provisions: Library) -> None:
    answer = ask_without_model(provisions, "How many staff does the Department of Hill Roads have?")
    assert answer.value == "515", answer.text


def test_a_count_of_the_rows_a_column_of_names_names_is_no_answer(provisions: Library) -> None:
    (info,) = provisions.tables()
    view = load_table_view(provisions, info)
    reading = read("How many demands are listed under the Department of Canals?", [])
    runner = SqlRunner(provisions.path)
    try:
        planned = table_query.plan(view, reading, distinct_values(runner.run, view))
        assert planned is not None and planned.operation == "count"
        with pytest.raises(table_query.NoAnswer):  # "1 demand": the name counted, not what is listed under it
            table_query.execute(planned, reading, runner.run)
    finally:
        runner.close()


def test_how_many_there_were_in_a_row_reads_the_column_that_counts_them(cases: Library) -> None:
    answer = ask_without_model(cases, "How many hospitalised cases were there in Corwick?")
    assert answer.value == "22", answer.text  # the Hospitalised column of Corwick's row, not a count of rows


# a council's projected income by source, in thousands (made up): a heading row, its members, their total, and a
# column of the years added up (it prints every year, so a year asked names one column only by its own header)
INCOME = [["Source", "2025", "2026", "2027", "Total 2025-2027"],
          ["Income:", "", "", "", ""],
          ["Council tax", "8,120", "8,540", "8,990", "25,650"],
          ["Business rates", "3,310", "3,420", "3,505", "10,235"],
          ["Fees and charges", "1,470", "1,515", "1,560", "4,545"],
          ["Total income", "12,900", "13,475", "14,055", "40,430"]]


@pytest.fixture(scope="module")
def income(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    library = drawn_library(tmp_path_factory.mktemp("income"), "Table 4: Projected income by source (in thousands)",
                            INCOME, [40, 200, 280, 360, 440, 570])
    yield library
    library.close()


def test_a_share_of_one_row_in_another_reads_both_rows_in_the_year_asked(income: Library) -> None:
    # the whole is the "Total income" row the question names, not the "Income:" heading or the members added up;
    # the part is said in the future tense, as projections are
    answer = ask_without_model(income, "What share of total income in 2026 is projected to come from business rates?")
    assert answer.value == f"{100 * 3_420 / 13_475:.2f}%", answer.text
    assert "3,420" in answer.text and "13,475" in answer.text, answer.text
    answer = ask_without_model(income, "What percentage of total income in 2027 will come from council tax?")
    assert answer.value == f"{100 * 8_990 / 14_055:.2f}%", answer.text


# a ferry operator's commitments by when they fall due, in thousands (made up): a Total column and a Total row
COMMITMENTS = [["Commitment", "Total", "Less than 1 year", "1-3 years", "More than 3 years"],
               ["Vessel charters", "9,600", "2,400", "4,800", "2,400"],
               ["Berth leases", "3,150", "450", "900", "1,800"],
               ["Fuel contracts", "1,250", "1,000", "250", "0"],
               ["Total", "14,000", "3,850", "5,950", "4,200"]]
# a dairy's sales of its three products in one year (made up): one row, the products its columns
DAIRY = [["Product", "Cheese", "Yoghurt", "Cream"], ["Sales (EUR thousand)", "4,200", "2,650", "1,150"]]


def test_a_share_of_a_whole_across_columns_reads_the_part_s_column_over_the_whole_s(tmp_path: Path) -> None:
    commitments = drawn_library(tmp_path, "Table 7: Contractual commitments by period due", COMMITMENTS,
                                [40, 200, 290, 390, 470, 580])
    answer = ask_without_model(commitments, "What share of total commitments is payable in less than 1 year?")
    commitments.close()
    assert float(answer.value.rstrip("%")) == round(100 * 3_850 / 14_000, 2), answer.text
    dairy = drawn_library(tmp_path / "..", "Sales by product, 2024", DAIRY, [40, 220, 320, 420, 520], name="dairy.pdf")
    answer = ask_without_model(dairy, "What share of the 2024 sales of cheese, yoghurt and cream came from yoghurt?")
    dairy.close()
    assert float(answer.value.rstrip("%")) == round(100 * 2_650 / 8_000, 2), answer.text
    assert "Cheese + Yoghurt + Cream" in answer.text, answer.text


# a library service's programmes by area with this year's grant, in dollars (made up): headings with no figure
GRANTS = [["Programme", "Grant 2025"],
          ["Reading", ""],
          ["Summer reading club", "12,000"],
          ["Adult literacy", "0"],
          ["Digital", ""],
          ["Laptop lending", "8,500"],
          ["Coding clubs", "0"],
          ["Online archive", "12,000"]]


def test_the_rows_holding_a_figure_exactly_are_listed_and_counted_under_every_heading(tmp_path: Path) -> None:
    grants = drawn_library(tmp_path, "Table 3: Programme grants by area, 2025", GRANTS, [40, 300, 450])
    listed = ask_without_model(grants, "Which programmes had a grant of zero?")
    counted = ask_without_model(grants, "How many programmes had a grant of 12,000?")
    grants.close()
    assert set(listed.parts) == {"Adult literacy", "Coding clubs"}, listed.text
    assert counted.value == "2", counted.text


# a county's budget by directorate, in thousands (made up): each directorate's row prints the totals of the
# services beneath it (no bare heading row), and three total columns, the grand one first-worded "Total"
BUDGET = [["Directorate / service", "Staff total", "Running total", "Total staff & running"],
          ["HIGHWAYS DIRECTORATE", "1,450.50", "2,210.25", "3,660.75"],
          ["1. Road maintenance", "900.00", "1,500.25", "2,400.25"],
          ["2. Street lighting", "350.50", "410.00", "760.50"],
          ["3. Winter gritting", "200.00", "300.00", "500.00"],
          ["LIBRARIES DIRECTORATE", "610.00", "240.00", "850.00"],
          ["4. Branch libraries", "610.00", "240.00", "850.00"],
          ["PARKS DIRECTORATE", "330.00", "515.00", "845.00"],
          ["5. Parks and gardens", "250.00", "415.00", "665.00"],
          ["6. Allotments", "80.00", "100.00", "180.00"]]


def test_the_rows_under_a_heading_that_prints_their_totals_are_listed_counted_and_added(tmp_path: Path) -> None:
    budget = drawn_library(tmp_path, "Statement 2: Budget by directorate, 2025-26 (in thousands)", BUDGET,
                           [40, 250, 340, 430, 570])
    listed = ask_without_model(budget, "Which services come under the Highways Directorate?")
    counted = ask_without_model(budget, "How many services are listed under the Parks Directorate?")
    added = ask_without_model(budget, "What is the combined total budget for the services under the Highways Directorate?")
    budget.close()
    assert [p.split(". ", 1)[-1] for p in listed.parts] == ["Road maintenance", "Street lighting", "Winter gritting"], \
        listed.text
    assert counted.value == "2", counted.text
    assert added.value.replace(",", "").startswith("3660.75"), added.text


def test_the_average_of_several_rows_figures_that_are_themselves_averages(tmp_path: Path) -> None:
    # "per capita" heads a column of averages: one row's is read as printed, several rows' are averaged
    rows = [["Region", "Income per capita 2024 ($000)", "Population (m)"],
            ["North", "31.5", "2.1"], ["South", "27.0", "3.4"], ["East", "24.3", "1.2"], ["West", "29.9", "2.8"]]
    library = drawn_library(tmp_path, "Table 1: Income and population by region", rows, [40, 200, 420, 560])
    several = ask_without_model(library, "What was the average 2024 income per capita of North, East and West?")
    one = ask_without_model(library, "What was the income per capita of the South in 2024?")
    library.close()
    assert several.value.replace("$", "").startswith(f"{(31.5 + 24.3 + 29.9) / 3:.2f}"), several.text
    assert one.value.replace("$", "").startswith("27"), one.text


def test_the_rows_ranked_by_what_a_verb_before_most_often_counts(tmp_path: Path) -> None:
    rows = [["Complaint", "Reported (n)", "Resolved (n)"], ["Late running", "412", "380"], ["Overcrowding", "655", "120"],
            ["Cleanliness", "98", "97"], ["Ticketing", "301", "298"]]
    library = drawn_library(tmp_path, "Table 5: Complaints by passengers, 2025", rows, [40, 220, 360, 500])
    answer = ask_without_model(library, "What were the two complaints passengers reported most often?")
    library.close()
    assert list(answer.parts) == ["Overcrowding", "Late running"], answer.text


def test_a_line_named_with_the_words_of_its_note_s_title_is_the_row_under_that_title(tmp_path: Path) -> None:
    # "revenue from Kenya by delivery location": the row is "Kenya", the rest is what the note's title says
    rows = [["", "2024", "2023", "2022"], ["Kenya", "12,400", "11,950", "10,300"], ["Ghana", "8,020", "7,700", "7,010"],
            ["Total", "20,420", "19,650", "17,310"]]
    library = drawn_library(tmp_path, "The following table shows revenue from contracts with customers by delivery "
                            "location (in thousands):", rows, [40, 220, 320, 420, 520], fontsize=9)
    total = ask_without_model(library, "What was the combined revenue from Kenya by delivery location over 2022 to 2024?")
    library.close()
    assert total.value.replace(",", "").lstrip("$").startswith(str(12_400 + 11_950 + 10_300)), total.text


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["", "2020", "2019"], ["Stores sold to partners", "42", "37"], ["Stores opened by partners", "9", "14"],
            ["Proceeds from store sales", "12,400", "10,950"]]
    library = drawn_library(tmp_path_factory.mktemp("stores"), "Partner store activity (dollars in thousands):", rows,
                            [60, 260, 360, 460])
    yield library
    library.close()


def test_how_many_things_is_a_count_not_the_money_the_table_is_stated_in(stores: Library) -> None:
    answer = ask_without_model(stores, "How many stores were sold to partners in 2020?")
    assert answer.value == "42", answer.text
    answer = ask_without_model(stores, "How many stores were opened by partners in 2020 and 2019 respectively?")
    assert list(answer.parts) == ["9", "14"], answer.text
    answer = ask_without_model(stores, "What were the proceeds from store sales in 2019?")
    assert answer.value == "$10,950 thousand", answer.text  # money stays money


# harbour: goods landed (t), from abroad (%), coastal (%)  (made up): the shares printed as the whole or none
HARBOURS = {"Kelby": (5_200, 100.0, 0.0), "Ostmark": (880, 0.0, 100.0), "Rundale": (3_410, 62.5, 37.5),
            "Tarrow": (1_150, 100.0, 0.0), "Wenlow": (2_020, 48.0, 52.0)}


def test_all_or_none_of_a_share_keeps_the_rows_at_100_or_0_percent(tmp_path: Path) -> None:
    """"Which harbours landed all of their goods from abroad": the rows whose share is 100% (0% for "none of"),
    not every row of the table; a list of a figure column with nothing to keep rows by is no answer."""
    header = [["Harbour", "Goods landed (t)", "From abroad (%)", "Coastal (%)"]]
    body = [[name, f"{t:,}", f"{a:.1f}", f"{c:.1f}"] for name, (t, a, c) in HARBOURS.items()]
    library = drawn_library(tmp_path, "Table 5: Goods landed by harbour and origin, 2030", header + body,
                            [40, 160, 280, 400, 520])
    try:
        answer = ask_without_model(library, "Which harbours received all of their goods from abroad?")
        assert answer.value == "Kelby; Tarrow", answer.text
        answer = ask_without_model(library, "How many harbours received none of their goods from abroad?")
        assert answer.value == "1", answer.text
        answer = ask_without_model(library, "In how many harbours were all of their goods coastal?")
        assert answer.value == "1", answer.text
        planned = table_query.plan(*_view_and_reading(library, "List the harbours with their share of coastal goods."))
        assert planned is None
    finally:
        library.close()


def _view_and_reading(library: Library, question: str) -> tuple[Any, Any, Any]:
    runner = SqlRunner(library.path)
    view = load_table_view(library, next(iter(library.tables())))
    distinct = distinct_values(runner.run, view)
    values = {c.name: distinct(c) for c in view.info.schema.columns}  # read now: the runner closes below
    runner.close()
    return view, read(question), lambda column: values[column.name]
