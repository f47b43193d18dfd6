"""An average down a column of one period: "on average, what was X in 2001-2011" reads the column that prints every
year of the span (not the decade before it, which prints one of them), and "the mean X across the provinces in 1990"
runs over every row of a table whose rows the question names only by their kind. A ruled table is drawn, ingested
for real and asked with no model call."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from core.library.store import Library
from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library

pytestmark = pytest.mark.unit

# province: growth (%) in 1981-1991, 1991-2001, 2001-2011 (made up)
GROWTH = {
    "Alder Coast": (18.2, 14.6, 9.8),
    "Brackenridge": (22.5, 19.1, 12.4),
    "Cinder Vale": (11.0, 8.7, 5.5),
    "Dunmarsh": (25.3, 21.9, 17.2),
}


def _figure(value: str) -> float:
    return float(value.rstrip("%"))


@pytest.fixture(scope="module")
def growth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    header = [["", "1981-1991", "1991-2001", "2001-2011"]]
    body = [[name, *(f"{v:.1f}" for v in values)] for name, values in GROWTH.items()]
    library = drawn_library(tmp_path_factory.mktemp("growth"), "Table 2: Population growth by decade (per cent)",
                            header + body, [40, 200, 290, 380, 470])
    yield library
    library.close()


def test_on_average_said_first_averages_the_column_of_the_whole_span(growth: Library) -> None:
    answer = ask_without_model(growth, "On average, what was the population growth of the provinces in 2001-2011?")
    assert _figure(answer.value) == pytest.approx(sum(v[2] for v in GROWTH.values()) / 4, abs=0.006), answer.text


def test_an_average_across_the_rows_named_by_their_kind_runs_over_every_row(growth: Library) -> None:
    answer = ask_without_model(growth, "mean population growth across the provinces in 1981-1991?")
    assert _figure(answer.value) == pytest.approx(sum(v[0] for v in GROWTH.values()) / 4, abs=0.006), answer.text


# year: Northland, Southland, Union growth (%) (made up); a forecast marked (*) and a mean row with no year
BY_YEAR = [("2019", 2.4, 1.1, 1.6), ("2020", -3.0, -4.2, -3.8), ("2022", 3.3, 2.0, 2.6), ("2023 (*)", 1.8, 0.9, 1.2),
           ("Mean", 1.1, -0.05, 0.4)]


@pytest.fixture(scope="module")
def by_year(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Year", "Northland", "Southland", "Union"]] + [[y, *(f"{v:.1f}" for v in values)] for y, *values in BY_YEAR]
    library = drawn_library(tmp_path_factory.mktemp("by_year"), "Table 1: Real output growth by region (% change)",
                            rows, [40, 140, 240, 340, 440])
    yield library
    library.close()


def test_a_region_named_by_its_column_averaged_over_the_years_asked(by_year: Library) -> None:
    answer = ask_without_model(by_year, "What was Southland's average output growth in 2019, 2020 and 2022?")
    assert _figure(answer.value) == pytest.approx((1.1 - 4.2 + 2.0) / 3, abs=0.006), answer.text


def test_every_year_asked_keeps_out_the_row_that_has_no_year(by_year: Library) -> None:
    # the forecast's mark is no part of its year; the Mean row is none of the years
    answer = ask_without_model(by_year, "What was Northland's average output growth in 2019, 2020, 2022 and 2023?")
    assert _figure(answer.value) == pytest.approx((2.4 - 3.0 + 3.3 + 1.8) / 4, abs=0.006), answer.text


def test_an_average_across_as_many_items_as_the_table_has_columns_is_one_row_s_across_them(tmp_path: Path) -> None:
    rows = [["Survey", "North", "South", "East", "West"], ["Spring survey", "61.0", "58.5", "70.2", "66.1"],
            ["Autumn survey", "64.4", "57.9", "71.0", "69.5"], ["Winter survey", "59.8", "55.0", "68.4", "63.3"]]
    library = drawn_library(tmp_path, "Table 5: Satisfaction score by region", rows, [40, 200, 280, 360, 440, 520])
    try:
        answer = ask_without_model(library, "What was the mean satisfaction score across the four regions in the autumn survey?")
        assert _figure(answer.value) == pytest.approx((64.4 + 57.9 + 71.0 + 69.5) / 4, abs=0.006), answer.text
    finally:
        library.close()
