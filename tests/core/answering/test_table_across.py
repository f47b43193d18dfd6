"""A table whose items are its columns (regions across the top, quarters down the side) is asked over its items:
"which regions had a rate above 6% in the second quarter" lists columns, "which region had the highest" ranks
them, "how many" counts them. The table is read turned (``core.answering.across``): its statement still reads the
stored cells, and the answer cites the cells of the page it read. A row that spans several quarters is not the
quarter it ends with. A ruled table is drawn, ingested for real and asked with no model call."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.answering.across import across
from core.answering.operations import load_table_view
from core.answering.reading import read
from core.answering.table_query import of_the_periods_said
from core.library.store import Library
from tests.core.answering.test_table_precision import _drawn
from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library

pytestmark = pytest.mark.unit

REGIONS = ("Northmoor", "Eastwick", "Southfell", "Westridge", "Midvale")
# quarter: unemployment rate (%) by region (made up)
RATES = {
    "Q2 2021 - Q1 2024": (5.4, 6.0, 4.6, 6.8, 5.5),
    "Q1 2023 - Q4 2023": (5.1, 6.2, 4.4, 7.0, 5.6),
    "Q4 2023": (4.9, 6.6, 4.1, 7.3, 5.2),
    "Q1 2024": (5.3, 6.9, 3.8, 6.4, 4.7),
    "Q2 2024": (6.1, 7.2, 4.0, 5.9, 6.3),
    "Q3 2024": (5.8, 7.0, 4.2, 5.5, 6.0),
}


@pytest.fixture(scope="module")
def rates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    header = [["Quarter", *REGIONS]]
    body = [[quarter, *(f"{v:.1f}" for v in values)] for quarter, values in RATES.items()]
    library = drawn_library(tmp_path_factory.mktemp("rates"), "Table 2: Unemployment rate by region (%)",
                            header + body, [40, 170, 250, 330, 410, 490, 570], fontsize=10)
    yield library
    library.close()


def test_the_items_above_a_bound_in_one_quarter_are_columns(rates: Library) -> None:
    answer = ask_without_model(rates, "Which regions had an unemployment rate above 6% in Q2 2024?")
    assert set(answer.parts or answer.value.split("; ")) == {"Northmoor", "Eastwick", "Midvale"}, answer.text


def test_the_columns_are_counted_and_ranked_in_the_quarter_asked(rates: Library) -> None:
    counted = ask_without_model(rates, "In Q1 2024, how many regions had unemployment below 5 percent?")
    assert counted.value == "2", counted.text
    ranked = ask_without_model(rates, "Which region had the highest unemployment rate in Q4 2023?")
    assert ranked.value.startswith("Westridge"), ranked.text


def test_the_answer_cites_the_stored_cells_it_read(rates: Library) -> None:
    answer = ask_without_model(rates, "Which regions had an unemployment rate above 6% in Q2 2024?")
    cited = [cell for citation in answer.citations for cell in citation.cells]
    texts = {cell.text for cell in cited}
    assert {"6.1", "7.2", "6.3"} <= texts, texts
    info = next(t for t in rates.tables())
    columns = {c.name for c in info.schema.columns}
    assert all(cell.column in columns for cell in cited), [c.column for c in cited]


def test_a_quarter_is_not_the_span_that_ends_with_it(rates: Library) -> None:
    answer = ask_without_model(rates, "What was the mean unemployment rate across the five regions in Q4 2023?")
    assert answer.value.startswith("5.62"), answer.text  # (4.9 + 6.6 + 4.1 + 7.3 + 5.2) / 5


def test_a_table_of_items_down_the_side_is_not_turned(tmp_path_factory: pytest.TempPathFactory) -> None:
    header = [["Region", "2022", "2023", "2024"]]
    body = [[name, "4.1", "4.4", "4.9"] for name in REGIONS]
    library = drawn_library(tmp_path_factory.mktemp("by_year"), "Table 3: Unemployment rate by year (%)",
                            header + body, [40, 170, 260, 350, 440])
    try:
        view = load_table_view(library, library.tables()[0])
        assert across(view) is None
    finally:
        library.close()


def test_the_rows_of_a_quarter_are_those_printing_exactly_it() -> None:
    values = ("Q2 2021 – Q1 2024", "Q1 2023 – Q4 2023", "Q4 2023")
    assert of_the_periods_said(values, read("What was the mean rate across the regions in Q4 2023?")) == ("Q4 2023",)
    assert of_the_periods_said(values, read("The rate from Q1 2023 to Q4 2023?")) == ("Q1 2023 – Q4 2023",)
    assert of_the_periods_said(values, read("The rate in Q3 2023?")) == ()


def test_a_mean_below_one_keeps_three_significant_digits(tmp_path_factory: pytest.TempPathFactory) -> None:
    header = [["Period", "Oslo", "Bergen", "Tromsø", "Bodø"]]
    body = [["Q1 2024", "0.31", "0.12", "0.07", "0.25"], ["Q2 2024", "0.33", "0.14", "0.05", "0.22"],
            ["Q3 2024", "0.30", "0.17", "0.04", "0.21"]]
    library = drawn_library(tmp_path_factory.mktemp("small"), "Table 4: Correlation of rents with wages by city",
                            header + body, [40, 160, 250, 340, 430, 520])
    try:
        answer = ask_without_model(library, "What was the average correlation across the four cities in Q2 2024?")
        assert answer.value == "0.185", answer.text  # (0.33 + 0.14 + 0.05 + 0.22) / 4
    finally:
        library.close()


# year: offences recorded by type (made up)
OFFENCES = {2020: (612, 1_480, 395, 220), 2021: (580, 1_395, 410, 305), 2022: (540, 1_510, 388, 512),
            2023: (505, 1_620, 402, 498)}


@pytest.fixture(scope="module")
def offences(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Year", "Burglary", "Theft", "Assault", "Fraud"]] + [
        [str(year), *(f"{n:,}" for n in counts)] for year, counts in OFFENCES.items()]
    yield from _drawn(tmp_path_factory, "Table 1: Offences recorded by type", rows, [40, 140, 240, 340, 440, 540])


def test_a_column_of_years_down_the_side_makes_the_other_columns_the_items(offences: Library) -> None:
    ranked = ask_without_model(offences, "Which offence type had the fewest cases in 2021?")
    assert ranked.value.startswith("Fraud"), ranked.text
    counted = ask_without_model(offences, "How many offence types had more than 500 cases in 2022?")
    assert counted.value == "3", counted.text  # Burglary 540, Theft 1,510, Fraud 512
