"""Rows as questions name them: by the heading printed above them ("library spending" for the Library row under
"Spending:"; a heading named keeps its rows, a change between two survey rounds reads the row under it), several rows
named in full ("shouting and name calling"), and the rows of a table's one label column counted or ranked whatever
noun the question gives them. Ruled tables are drawn, ingested for real and asked with no model call."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing

import pytest

from core.answering import table_query
from core.answering.operations import load_table_view
from core.answering.query_step import distinct_values
from core.answering.reading import read
from core.library.store import Library
from core.sql.runner import SqlRunner
from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library

pytestmark = pytest.mark.unit


def test_a_row_is_named_by_the_heading_it_stands_under(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Item", "2024", "2025"],
            ["Spending:", "", ""], ["Services:", "", ""], ["Library", "412", "430"], ["Parks", "388", "395"],
            ["Roads", "1,020", "1,110"],
            ["Income:", "", ""], ["Council tax", "1,650", "1,720"], ["Parking fees", "140", "152"]]
    with closing(drawn_library(tmp_path_factory.mktemp("council"), "Table 3. Council budget (in thousands of pounds)",
                               rows, [40, 220, 320, 420])) as library:
        answer = ask_without_model(library, "What is the planned library spending for 2025?")
        assert answer.value == "430 thousand", answer.text


def test_a_heading_named_by_most_of_its_words_keeps_the_rows_ranked(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Indicator", "Total", "Rural"],
            ["Child feeding practices (last-born child) (%)", "", ""], ["Breastfed within one hour", "41.0", "39.5"],
            ["Given solid food at 6 months", "58.2", "52.0"], ["Weaned after 2 years", "12.5", "9.0"],
            ["Personal habits (age 15 and above) (%)", "", ""], ["Men who smoke", "8.4", "5.1"],
            ["Women who smoke", "2.0", "1.2"]]
    with closing(drawn_library(tmp_path_factory.mktemp("feeding"), "Table 2: Key indicators of the Westvale district",
                               rows, [40, 300, 400, 500])) as library:
        answer = ask_without_model(library, "Which child feeding indicator was the lowest in rural Westvale?")
        assert answer.value == "Weaned after 2 years", answer.text  # not "Women who smoke", under another heading


def test_the_words_after_the_rows_noun_name_the_column_a_bound_is_of(tmp_path_factory: pytest.TempPathFactory) -> None:
    # "cost lines" takes "costs" for the rows' noun; "total costs" after it names the column
    rows = [["Cost category", "Total costs, all funds", "Total direct costs"], ["Salaries", "420,000", "300,000"],
            ["Office rent", "96,000", "96,000"], ["Travel", "150,000", "80,000"], ["Supplies", "38,000", "38,000"]]
    with closing(drawn_library(tmp_path_factory.mktemp("costs"), "Table 5: Clinic costs, 2023", rows, [40, 220, 360, 500])) as library:
        assert ask_without_model(library, "How many cost lines showed total costs above $90,000?").value == "3"


def test_a_change_between_two_survey_rounds_named_by_their_codes(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Indicator", "EHS-3 (2020) Total", "EHS-3 (2020) Rural", "EHS-2 (2015) Total", "EHS-2 (2015) Rural"],
            ["Use of public clinics (%)", "", "", "", ""], ["Antenatal check-ups", "61.5", "58.0", "70.2", "66.1"],
            ["Child immunisation", "80.0", "77.4", "74.5", "70.0"]]
    with closing(drawn_library(tmp_path_factory.mktemp("rounds"), "Table 4: Key indicators of the Northvale district",
                               rows, [40, 230, 330, 430, 530, 630])) as library:
        answer = ask_without_model(library, "By how much did the use of public clinics for antenatal check-ups "
                                            "drop between EHS-2 and EHS-3?")
        assert answer.value == "8.7", answer.text  # 70.2 - 61.5, of the rounds' Total columns
        answer = ask_without_model(library, "By how much did rural child immunisation rise from EHS-2 to EHS-3?")
        assert answer.value == "7.4", answer.text  # 77.4 - 70.0



def test_a_change_between_two_periods_that_label_rows_is_down_the_column_named(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Quarter", "Arland", "Borvia", "Cestia"], ["Q3 2020", "0.21", "0.40", "0.35"],
            ["Q4 2020", "0.25", "0.52", "0.30"], ["Q1 2021", "0.61", "0.47", "0.12"]]
    with closing(drawn_library(tmp_path_factory.mktemp("quarters"), "Table 3: Bond spread correlation with the index",
                               rows, [40, 160, 260, 360, 460])) as library:
        answer = ask_without_model(library, "By how much did Arland's correlation rise from Q4 2020 to Q1 2021?")
        assert answer.value == "0.36", answer.text  # 0.61 - 0.25, down the Arland column
        answer = ask_without_model(library, "By how much did Cestia's correlation fall between Q3 2020 and Q1 2021?")
        assert answer.value == "0.23", answer.text  # 0.35 - 0.12


@pytest.fixture(scope="module")
def behaviour(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["How often each incident was seen", "Often", "Sometimes", "Never"], ["Shouting", "2.5", "6.0", "91.5"],
            ["Pushing", "1.0", "7.5", "91.5"], ["Name calling", "4.0", "12.0", "84.0"], ["Hair pulling", "0.5", "2.0", "97.5"]]
    library = drawn_library(tmp_path_factory.mktemp("behaviour"), "Table 2.6: Behaviour seen in the playground (%)",
                            rows, [40, 220, 320, 420, 520])
    yield library
    library.close()


def test_two_rows_named_in_full_are_both_kept(behaviour: Library) -> None:
    # "shouting and name calling": both rows, not only the one named by more words
    assert ask_without_model(behaviour, "What is the average share who never saw shouting and name calling?").value \
        == "87.75%"


def test_the_rows_past_a_bound_are_counted_whatever_noun_counts_them(behaviour: Library) -> None:
    # "cases": no header or row says so; what is counted past the bound is the rows
    assert ask_without_model(behaviour, "For how many cases did more than 5% sometimes see it?").value == "3"


def test_the_rows_of_the_one_label_column_are_ranked_whatever_noun_names_them(behaviour: Library) -> None:
    # "which incidents" over rows headed "How often each incident was seen"
    assert ask_without_model(behaviour, "Which incident did the largest share of pupils see often?").value == \
        "Name calling"


def test_rows_named_by_a_word_win_over_rows_named_only_by_a_year_asked(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Activity", "Number of options"], ["Outstanding at June 30, 2020", "900,000"], ["Granted", "120,000"],
            ["Exercised", "(80,000)"], ["Outstanding at June 30, 2021", "940,000"], ["Granted", "150,000"],
            ["Exercised", "(90,000)"], ["Outstanding at June 30, 2022", "1,000,000"], ["Granted", "180,000"],
            ["Exercised", "(60,000)"], ["Outstanding at June 30, 2023", "1,120,000"]]
    with closing(drawn_library(tmp_path_factory.mktemp("options"), "Table 9. Share option activity", rows, [40, 260, 400])) as library:
        answer = ask_without_model(library, "On average, how many options were granted each year in fiscal 2021-2023?")
        assert answer.value == "150,000", answer.text  # the three Granted rows, not the Outstanding rows of 2021, 2023


def test_a_total_across_several_things_said_is_no_one_row_s_figure(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Depot", "Vans"], ["Northgate", "12"], ["Eastbrook", "9"], ["Southmere", "11"]]
    library = drawn_library(tmp_path_factory.mktemp("vans"), "Table 1: Vans by depot, spring", rows, [40, 220, 340])
    runner = SqlRunner(library.path)
    try:
        view = load_table_view(library, library.tables()[0])
        reading = read("Across the three seasons, how many vans did Northgate have in total?")
        planned = table_query.plan(view, reading, distinct_values(runner.run, view))
        assert planned is not None
        with pytest.raises(table_query.NoAnswer, match="no total of several"):
            table_query.execute(planned, reading, runner.run)  # one season's figure, said as the three's total
    finally:
        runner.close()
        library.close()


def test_an_increase_or_decrease_asked_is_the_signed_change() -> None:
    # "increase/(decrease)" names both directions: the newer figure less the older, whichever way it went
    assert not table_query.asks_fall(read("What was the increase/(decrease) in dividends paid from 2022 to 2023?"))
    assert not table_query.asks_fall(read("What was the increase or decrease in staff numbers from 2022 to 2023?"))
    assert table_query.asks_fall(read("By how much did interest paid fall from 2022 to 2023?"))
