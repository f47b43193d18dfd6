"""Rows kept by the sign of a figure: "which reservoirs had a water deficit" over a column printed "Surplus/
Deficit" keeps the rows below zero, "how many ran a surplus" counts those above it, and a header a narrow column
broke mid-word ("Defi cit") is still named by the whole word. A ruled table is drawn, ingested for real and asked
with no model call."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.library.store import Library
from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library

pytestmark = pytest.mark.unit

# reservoir: inflow, outflow, balance (megalitres, made up)
RESERVOIRS = {
    "Harrow Fen": (1_240, 1_310, -70),
    "Millbrook": (980, 905, 75),
    "Stonecrop": (2_115, 2_300, -185),
    "Wyndale": (640, 610, 30),
    "Oxley Moor": (1_505, 1_480, 25),
}


@pytest.fixture(scope="module")
def reservoirs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    header = [["Reservoir", "Inflow (Ml)", "Outflow (Ml)", "Surplus/Defi cit (Ml)"]]
    body = [[name, f"{a:,}", f"{b:,}", f"{c:,}"] for name, (a, b, c) in RESERVOIRS.items()]
    library = drawn_library(tmp_path_factory.mktemp("reservoirs"), "Table 3: Water balance of the county's reservoirs, 2024",
                            header + body, [40, 160, 260, 360, 500])
    yield library
    library.close()


def test_the_rows_that_had_a_deficit_are_those_below_zero(reservoirs: Library) -> None:
    answer = ask_without_model(reservoirs, "Which reservoirs had a water deficit in 2024?")
    assert set(answer.parts or answer.value.split("; ")) == {"Harrow Fen", "Stonecrop"}, answer.text
    assert "below zero" in answer.text, answer.text


def test_the_rows_that_ran_a_surplus_are_counted_above_zero(reservoirs: Library) -> None:
    answer = ask_without_model(reservoirs, "How many reservoirs ran a surplus?")
    assert answer.value == "3", answer.text
