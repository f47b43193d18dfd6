"""Shares of a table's total asked in the question's own words: the whole ("of the departures", "of the whole
population") is the column's total, which the table need not name so; a band asked ("80 or older") is the one band
printed for it ("80+"); a table whose unit is only its % column's ("n | %") keeps its counts as counts. Tables drawn
as ruled PDFs, ingested for real, asked with no model call (invented figures)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.library.store import Library
from tests.core.answering.test_table_precision import _drawn, ask_code_first
from tests.core.answering.test_table_query import ask_without_model

pytestmark = pytest.mark.unit

# reason for leaving the club: members (n), share (%)
REASONS = {"Moved away": (40, "25.0"), "Fees too high": (24, "15.0"), "Lack of time": (56, "35.0"),
           "Other": (40, "25.0"), "Total": (160, "100.0")}


@pytest.fixture(scope="module")
def reasons(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Reason", "n =", "%"]] + [[name, str(n), share] for name, (n, share) in REASONS.items()]
    yield from _drawn(tmp_path_factory, "Table 5: Reasons given for leaving the rowing club (per cent)", rows)


def test_a_share_of_a_whole_the_table_names_otherwise_is_of_the_column_total(reasons: Library) -> None:
    answer = ask_without_model(reasons, "What percentage of the departures were down to fees too high?")
    assert answer.value.rstrip("%") in ("15", "15.0", "15.00"), answer.text


def test_words_of_the_part_no_row_prints_are_not_taken_for_the_whole(reasons: Library) -> None:
    # "junior rowers" names a part of the fees row the table does not hold: not the whole's words, and no answer
    answer = ask_code_first(reasons, "What percentage of the departures were down to fees too high for junior rowers?")
    assert answer.value == "", answer.text


def test_counts_beside_a_percent_column_are_no_percentages(reasons: Library) -> None:
    answer = ask_without_model(reasons, "How many gave lack of time as their reason?")
    assert answer.value == "56", answer.text


# age band: persons
AGES = {"0-19": 500, "20-39": 640, "40-59": 460, "60-79": 280, "80+": 120, "All ages": 2000}


@pytest.fixture(scope="module")
def ages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Age (years)", "Persons"]] + [[band, f"{n:,}"] for band, n in AGES.items()]
    yield from _drawn(tmp_path_factory, "Table 2: Residents of the parish by age", rows)


def test_a_band_asked_is_the_one_band_printed_for_it(ages: Library) -> None:
    answer = ask_without_model(ages, "Residents aged 80 and over: what percentage of the parish is that?")
    assert answer.value.rstrip("%") in ("6", "6.0", "6.00"), answer.text
