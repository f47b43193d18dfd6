"""Ranges of time ahead, asked in words and printed as a maturity table's columns: "due within 5 years" is the
columns up to five years added up, "between 1 and 3 years" the one column printing that range, "after five years"
the open-ended one; a range no columns tile is not answered from the table. A made-up schedule of a shipyard's
commitments is drawn as a ruled PDF, ingested for real and asked with no model call; the wording is invented."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest

from core.answering import maturities
from core.answering.maturities import Span
from core.answering.reading import read
from core.library.store import Library
from models.types import ColumnSchema
from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("question", "spans", "rest"), [
    ("How much do the hull loans fall due within 5 years?", (Span(0, 60),), "How much do the hull loans?"),
    ("What are the dock rentals payable between two and four years?", (Span(24, 48),), "What are the dock rentals?"),
    ("What share of the crane leases is due in 3 years or less?", (Span(0, 36),), "What share of the crane leases?"),
    ("What are the berth fees after five years?", (Span(60, math.inf),), "What are the berth fees?"),
    ("What were the unpaid invoices that are 30 to 60 days old?", (Span(1, 2),), "What were the unpaid invoices?"),
    ("What do the hull loans cost in the next 12 months?", (Span(0, 12),), "What do the hull loans cost?"),
    ("What are the respective tug charters less than one year and between 1-3 years?",
     (Span(0, 12), Span(12, 36)), "What are the respective tug charters?"),
])
def test_ranges_asked_are_read_out_of_the_question(question: str, spans: tuple[Span, ...], rest: str) -> None:
    found, left = maturities.asked(question)
    assert found == spans and left == rest


@pytest.mark.parametrize("question", [
    "What was the change in dock revenue from 2018 to 2019?",
    "What was the average crane utilisation over 3 years?",
    "What was the growth in berth fees in the last two years?",
])
def test_years_and_periods_past_are_no_ranges_ahead(question: str) -> None:
    assert maturities.asked(question) == ((), question)
    assert read(question).horizons == ()


def _columns(*headers: str) -> list[ColumnSchema]:
    return [ColumnSchema(f"c{i}", "INTEGER", header) for i, header in enumerate(headers)]


def test_a_range_is_one_column_or_the_columns_that_tile_it() -> None:
    spans = maturities.columns(_columns("Total", "Less than 1 year", "1-3 years", "3-5 years", "Thereafter"))
    assert spans == {"c1": Span(0, 12), "c2": Span(12, 36), "c3": Span(36, 60), "c4": Span(60, math.inf)}
    assert maturities.covering(Span(12, 36), spans) == ["c2"]
    assert maturities.covering(Span(0, 60), spans) == ["c1", "c2", "c3"]
    assert maturities.covering(Span(60, math.inf), spans) == ["c4"]
    assert maturities.covering(Span(0, 24), spans) is None  # no column ends at two years
    assert maturities.total_column(_columns("Total", "Less than 1 year")) == "c0"
    assert maturities.columns(_columns("2019", "2018", "Change")) == {}


@pytest.fixture(scope="module")
def schedule(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["(in thousands)", "Total", "Less than 1 year", "1-3 years", "3-5 years", "More than 5 years"],
            ["Hull loans", "9,300", "1,100", "2,400", "2,600", "3,200"],
            ["Dock rentals", "1,450", "400", "650", "", "400"],
            ["Crane leases", "2,080", "510", "870", "520", "180"],
            ["Total", "12,830", "2,010", "3,920", "3,120", "3,780"]]
    library = drawn_library(tmp_path_factory.mktemp("schedule"), "Commitments of the shipyard by period of payment",
                            rows, [40, 150, 230, 320, 400, 480, 575], fontsize=10)
    yield library
    library.close()


def test_due_within_five_years_adds_the_ranges_up_to_five_years(schedule: Library) -> None:
    answer = ask_without_model(schedule, "How much of the hull loans falls due within five years?")
    assert answer.value.startswith("6,100"), answer.text  # 1,100 + 2,400 + 2,600, not the total nor one column


def test_a_range_printed_as_a_column_is_read_for_each_line_asked(schedule: Library) -> None:
    answer = ask_without_model(schedule, "What are the crane leases and dock rentals payable between 1 to 3 years?")
    assert [p.split()[0] for p in answer.parts] == ["870", "650"], answer.text
    answer = ask_without_model(schedule, "What were the hull loans after 5 years?")
    assert answer.value.startswith("3,200"), answer.text
    answer = ask_without_model(schedule, "How much are the dock rentals payable in the next 12 months?")
    assert answer.value.startswith("400"), answer.text


def test_a_share_of_the_line_falling_due_early_is_over_its_total(schedule: Library) -> None:
    answer = ask_without_model(schedule, "What percentage of the crane leases is due in 3 years or less?")
    assert answer.value == f"{100 * (510 + 870) / 2_080:.2f}%", answer.text
