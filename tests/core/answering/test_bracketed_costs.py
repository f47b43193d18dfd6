"""A cost printed in brackets in every period of its row is the amount of the cost, whatever the table's title: the
change in it is the change in the amount (a cost that fell from (28,200) to (21,400) fell by 6,800), and its average
is positive. A line of either sign ("Other income (expense), net") keeps its printed sign. A made-up ferry operator's
table is drawn, ingested for real and asked with no model call; the wording is invented."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.library.store import Library
from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def ferries(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["(in thousands)", "2021", "2020"], ["Charter revenue", "50,000", "45,000"],
            ["Fuel expenses", "(21,400)", "(28,200)"], ["Port costs", "(3,100)", "(2,900)"],
            ["Other income (expense), net", "(400)", "250"]]
    library = drawn_library(tmp_path_factory.mktemp("ferries"), "Results of the ferry routes", rows,
                            [40, 260, 350, 440])
    yield library
    library.close()


def test_the_change_in_a_bracketed_cost_is_the_change_in_its_amount(ferries: Library) -> None:
    answer = ask_without_model(ferries, "What is the change in fuel expenses from 2020 to 2021?")
    assert answer.value.startswith("-6,800") or answer.value.startswith("-$6,800"), answer.text


def test_the_average_of_a_bracketed_cost_is_positive(ferries: Library) -> None:
    answer = ask_without_model(ferries, "What was the average port costs for 2020 and 2021?")
    assert answer.value.lstrip("$").startswith("3,000"), answer.text


def test_a_line_of_either_sign_keeps_its_printed_sign(ferries: Library) -> None:
    answer = ask_without_model(ferries, "What is the change in other income (expense), net from 2020 to 2021?")
    assert answer.value.startswith("-650") or answer.value.startswith("-$650"), answer.text
