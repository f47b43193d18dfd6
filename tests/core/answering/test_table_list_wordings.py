"""Lists asked in the words people use: "which variables in the survey summary have a standard deviation greater
than 1" (the noun asked followed by where it is, a header abbreviated "Std. Dev."), "list the problems of the
estate that no tenant reported having often" (the rows whose share is nothing, a verb in -ing linked to the
title's). Ruled tables are drawn, ingested for real and asked with no model call."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pymupdf
import pytest

from core.answering import Answerer, loop
from core.answering.operations import load_table_view
from core.answering.query_step import distinct_values
from core.answering.reading import read
from core.answering.table_query import plan, rows_named, words_named
from core.ingest.ingestor import Ingestor
from core.library.store import Library
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from models.errors import ModelOutputError
from tests.conftest import HashEmbedder
from tests.core.answering.test_answering_library import ScriptedChat
from tests.core.answering.test_table_precision import _drawn
from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library
from tests.core.ingest.test_extraction import _draw_ruled

pytestmark = pytest.mark.unit

# variable: mean, standard deviation, min, max (made up)
SUMMARY = {
    "Age": (44.2, 13.1, 18, 91),
    "Household members": (3.1, 1.4, 1, 11),
    "Owns a car": (0.62, 0.49, 0, 1),
    "Monthly rent (Euro)": (612.0, 240.5, 150, 2400),
    "Urban": (0.55, 0.5, 0, 1),
}
# problem: often, sometimes, never (% of tenants; made up)
PROBLEMS = {
    "Damp": (0.0, 4.1, 95.9),
    "Noise": (3.2, 12.5, 84.3),
    "Broken heating": (0.0, 2.2, 97.8),
    "Pests": (1.1, 3.0, 95.9),
}


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Variable", "Mean", "Std. Dev.", "Min", "Max"]] + [
        [name, *(f"{v:g}" for v in values)] for name, values in SUMMARY.items()]
    yield from _drawn(tmp_path_factory, "Table 1: Summary statistics of the tenant survey", rows,
                      [40, 200, 280, 360, 440, 520])


@pytest.fixture(scope="module")
def problems(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Problem", "Often (%)", "Sometimes (%)", "Never (%)"]] + [
        [name, *(f"{v:.1f}" for v in values)] for name, values in PROBLEMS.items()]
    yield from _drawn(tmp_path_factory, "Table 5: Housing problems experienced by tenants", rows, [40, 200, 300, 400, 500])


def test_a_plural_asked_with_where_it_is_is_a_list() -> None:
    asked = read("Which districts in the northern province had more than 500 births?")
    assert asked.query is not None and asked.query.operation == "list", asked
    assert asked.query.group == "districts" and asked.query.target == "births", asked.query


def test_a_header_abbreviated_is_named_by_the_words_it_stands_for(summary: Library) -> None:
    answer = ask_without_model(summary, "Which variables in the household file had a standard deviation above 1?")
    assert set(answer.parts) == {"Age", "Household members", "Monthly rent (Euro)"}, answer.text


def test_the_rows_no_one_reported_are_those_at_nothing(problems: Library) -> None:
    answer = ask_without_model(problems, "list the problems of housing that no tenant reported experiencing often")
    assert set(answer.parts) == {"Damp", "Broken heating"}, answer.text


def test_an_average_asked_first_is_an_average_of_the_percentages() -> None:
    asked = read("On average, what percentage of pupils walk to school in each district?")
    assert asked.measure is not None and asked.measure.op == "average", asked.measure


def test_of_two_tables_that_answer_the_one_naming_the_question_is_read(tmp_path_factory: pytest.TempPathFactory) -> None:
    directory = tmp_path_factory.mktemp("two_tables")
    first = drawn_library(directory, "Table 2: How often tenants felt unsafe at home (%)",
                          [["Feeling", "Never", "Sometimes", "Often"], ["At night", "40.0", "35.0", "25.0"],
                           ["Alone", "52.0", "30.0", "18.0"], ["With visitors", "71.0", "20.0", "9.0"]],
                          [40, 200, 300, 400, 500], name="feelings.pdf")
    first.close()
    library = drawn_library(directory, "Table 3: Discrimination experienced by tenants (%)",
                            [["Ground", "Never", "Occasionally", "Frequently"], ["Age", "90.0", "8.0", "2.0"],
                             ["Religion", "96.0", "4.0", "0.0"], ["Disability", "94.0", "5.0", "1.0"]],
                            [40, 200, 300, 400, 500], name="discrimination.pdf")
    try:
        answer = ask_without_model(library, "What was the mean percentage of tenants never discriminated against?")
        across_the_grounds = ask_without_model(library, "What was the mean percentage of tenants never discriminated "
                                                        "against, across all the grounds?")
        assert across_the_grounds.value == answer.value, across_the_grounds.text  # the rows of a Ground column
        assert answer.value.startswith("93.33"), answer.text  # (90 + 96 + 94) / 3, not (40 + 52 + 71) / 3
        # both tables plan an average of their Never column; the one whose title names the question is chosen
        reading = read("What was the mean percentage of tenants never discriminated against?")
        runner = SqlRunner(library.path)
        try:
            plans = {}
            for info in library.tables():
                view = load_table_view(library, info)
                planned = plan(view, reading, distinct_values(runner.run, view))
                assert planned is not None and planned.target is not None and planned.target.header == "Never"
                plans[info.caption] = words_named(planned, reading)
        finally:
            runner.close()
        named = dict(sorted(plans.items()))
        assert named["Table 3: Discrimination experienced by tenants (%)"] > \
            named["Table 2: How often tenants felt unsafe at home (%)"], named
    finally:
        library.close()


@pytest.fixture(scope="module")
def costs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Cost category", "Total costs, all funds", "Indirect costs", "Total direct costs"],
            ["Salaries", "1,314,000", "373,250", "940,750"], ["Fringe benefits", "352,000", "99,988", "252,012"],
            ["Staff travel", "94,000", "20,000", "74,000"], ["Office rent", "161,000", "93,000", "68,000"],
            ["Telephone", "9,800", "1,200", "8,600"]]
    yield from _drawn(tmp_path_factory, "Table 1: Allocation of costs, 2024", rows, [40, 180, 280, 380, 500])


def test_how_many_things_had_a_figure_past_a_bound_counts_the_rows(costs: Library) -> None:
    asked = read("How many categories had total costs above 150,000?")
    assert asked.query is not None and asked.query.operation == "count", asked.query
    answer = ask_without_model(costs, "How many categories had total costs above 150,000?")
    assert answer.value == "3", answer.text  # Salaries, Fringe benefits, Office rent: rows, not a column added up


def test_a_column_printing_the_words_asked_in_their_order_is_the_one_read(costs: Library) -> None:
    answer = ask_without_model(costs, "Which cost category shows the lowest total cost?")
    assert answer.value.startswith("Telephone") and "9,800" in answer.text, answer.text  # not 8,600 (direct costs)


def test_a_row_is_named_without_its_linking_words(tmp_path_factory: pytest.TempPathFactory) -> None:
    header = [["Indicator (%)", "2023", "2024"]]
    body = [["Women who have used the helpline", "41.5", "48.2"], ["Men who have used the helpline", "30.1", "35.9"],
            ["Women who called the helpline twice", "6.2", "7.4"], ["Calls answered within a minute", "71.0", "77.3"],
            ["Callers referred to a shelter", "12.4", "11.8"], ["Repeat callers", "22.9", "20.5"]]
    library = drawn_library(tmp_path_factory.mktemp("helpline"), "Table 7: Awareness of the helpline (%)",
                            header + body, [40, 300, 400, 500])
    runner = SqlRunner(library.path)
    try:
        view = load_table_view(library, library.tables()[0])
        text_columns = [c for c in view.info.schema.columns if c.type == "TEXT"]
        named = rows_named(read("What percentage of women had used the helpline in 2024?"), view, text_columns,
                           distinct_values(runner.run, view), None, set())
        # "who have" is no word the question must repeat to name the row
        assert [c.values for c in named] == [("Women who have used the helpline",)], named
    finally:
        runner.close()
        library.close()


def test_how_many_on_average_reads_the_column_of_numbers_of_the_things_asked(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Domain", "All items Number", "New items Number"], ["Purposes of reading", "", ""],
            ["Literary experience", "72", "33"], ["Acquire information", "63", "27"],
            ["Reading processes", "", ""], ["Retrieve stated information", "33", "14"],
            ["Make inferences", "46", "20"], ["Interpret ideas", "38", "18"], ["Evaluate content", "18", "8"]]
    library = drawn_library(tmp_path_factory.mktemp("items"), "Table 2: Test items by domain and process", rows,
                            [40, 220, 340, 460])
    try:
        answer = ask_without_model(library, "On average how many items were there per reading process?")
        assert answer.value == "33.75", answer.text  # (33 + 46 + 38 + 18) / 4, of the All items column
    finally:
        library.close()


def test_a_value_of_only_the_words_most_values_print_is_named_by_them(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Faculty", "Students"], ["Sciences", "1,269"], ["Social Sciences", "3,212"], ["Humanities", "1,168"],
            ["Civil Sciences", "705"], ["Total", "6,354"]]
    library = drawn_library(tmp_path_factory.mktemp("faculties"), "Table 4: Students by faculty", rows, [40, 220, 340])
    try:
        assert ask_without_model(library, "How many students are in the Sciences faculty?").value == "1,269"
        assert ask_without_model(library, "How many students are in the Social Sciences faculty?").value == "3,212"
    finally:
        library.close()


def test_together_before_a_share_is_the_share_of_both() -> None:
    asked = read("Together, what share of the staff do the nursing and catering units make up?")
    assert asked.measure is not None and asked.measure.op == "share", asked.measure
    part, whole = asked.measure.leaves()
    assert (part.words, whole.words) == ("nursing and catering units", "staff"), asked.measure


def test_code_reads_the_two_likeliest_tables_whatever_room_the_model_s_prompt_has(
        tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    # a model whose tokenizer counts every text as huge leaves one table in its prompt; code's query plan is no
    # prompt, and is asked over both likeliest tables, as it is with no model at all
    directory = tmp_path_factory.mktemp("two_depots")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), "Table 1: Depots and their staff", fontsize=11)
    _draw_ruled(page, [["Depot", "Staff", "Vans"], ["Northgate", "41", "12"], ["Eastbrook", "28", "9"],
                       ["Southmere", "35", "11"]], [60, 240, 340, 440], 80)
    page.insert_text((72, 300), "Table 2: Tonnage handled by depot", fontsize=11)
    _draw_ruled(page, [["Depot", "Tonnage"], ["Northgate", "1,240"], ["Eastbrook", "2,115"], ["Southmere", "980"]],
                [60, 240, 340], 320)
    doc.save(directory / "depots.pdf")
    doc.close()
    library = Library(directory / "library.sqlite3")
    assert Ingestor(library, HashEmbedder()).ingest_file(directory / "depots.pdf").tables == 2
    planned_over: list[list[str]] = []
    real = loop.answer_by_query

    def spy(reading: Any, views: Any, *args: Any) -> Any:
        planned_over.append([view.info.name for view in views])
        return real(reading, views, *args)
    monkeypatch.setattr(loop, "answer_by_query", spy)

    class Wordy(ScriptedChat):
        def count_tokens(self, text: str) -> int:
            return 10 ** 6
    runner = SqlRunner(library.path)
    try:
        for chat in (ScriptedChat(fallback=_refuse), Wordy(fallback=_refuse)):
            Answerer(library, Retriever(library.conn, HashEmbedder()), runner, chat).answer(
                "Which depot handled the largest tonnage?")
        assert len(planned_over) == 2 and len(planned_over[0]) == 2 and planned_over[0] == planned_over[1], planned_over
    finally:
        runner.close()
        library.close()


def _refuse(*_: object) -> str:
    raise ModelOutputError("no model here")


def test_rows_past_a_threshold_are_those_under_the_heading_the_question_names(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Indicator", "EHS-2 Total", "EHS-2 Rural", "EHS-1 Total"],
            ["Child health (%)", "", "", ""], ["Children fully vaccinated", "71.2", "69.0", "60.0"],
            ["Children with diarrhoea given ORS", "64.5", "60.1", "40.0"],
            ["Daily habits (age 15 and above) (%)", "", "", ""], ["Men who smoke", "52.3", "55.0", ""],
            ["Women who smoke", "12.4", "13.0", ""], ["Men who drink tea daily", "81.0", "83.5", ""]]
    library = drawn_library(tmp_path_factory.mktemp("habits"), "Table 1: Key indicators of the Eastvale district",
                            rows, [40, 260, 360, 460, 560])
    try:
        # "Eastvale's EHS-2 survey": the source named, no word of the table's to read
        answer = ask_without_model(library, "In Eastvale's EHS-2 survey, which daily habits were reported by more "
                                            "than 50% (total)?")
        assert answer.parts == ("Men who smoke", "Men who drink tea daily"), answer.text
    finally:
        library.close()


def test_rows_past_a_bound_are_listed_whatever_noun_names_them(tmp_path_factory: pytest.TempPathFactory) -> None:
    # "which gadgets" over rows headed "Device": the rows are what the question lists
    rows = [["Device", "Used in the last week", "Used in the last year", "Never used"],
            ["Tablet", "31.0", "22.0", "47.0"], ["Games console", "12.5", "30.0", "57.5"],
            ["Smart watch", "24.0", "8.0", "68.0"], ["E-reader", "4.0", "9.5", "86.5"]]
    library = drawn_library(tmp_path_factory.mktemp("devices"), "Table 6: How recently pupils used a device (%)",
                            rows, [40, 200, 300, 400, 500])
    try:
        answer = ask_without_model(library, "which gadgets had more than 20% of pupils using them in the last week?")
        assert answer.parts == ("Tablet", "Smart watch"), answer.text
    finally:
        library.close()


def test_which_rows_account_for_a_bound_is_a_list_of_them() -> None:
    asked = read("Which complaint types account for under 5 of the calls?")
    assert asked.query is not None and (asked.query.operation, asked.query.group) == ("list", "complaint types"), asked
    assert (asked.criterion.kind, asked.criterion.threshold) == ("below", 5.0)
    asked = read("Which stalls make up over 10% of the market's takings?")
    assert asked.query is not None and (asked.query.operation, asked.query.group) == ("list", "stalls"), asked


# vessel: masts, crew, wt (tonnes); made up
VESSELS = {
    "Morning Star": (2, 12, 140.5), "Grey Heron": (3, 24, 310.0), "Kittiwake": (1, 4, 22.8),
    "Saint Brendan": (3, 30, 402.2), "Halcyon": (2, 9, 98.0), "North Wind": (1, 5, 31.4),
    "Osprey": (2, 14, 155.1), "Tern": (1, 3, 18.9),
}


@pytest.fixture(scope="module")
def vessels(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Vessel", "masts", "crew", "wt"]] + [[name, str(m), str(c), f"{w:.1f}"]
                                                  for name, (m, c, w) in VESSELS.items()]
    yield from _drawn(tmp_path_factory, "Table 2: Sailing vessels in the harbour register", rows, [40, 200, 280, 360, 440])


def test_a_share_of_the_rows_holding_a_count_is_of_all_the_rows(vessels: Library) -> None:
    # ("what" spells no "wt" header: the words that name nothing name no column)
    answer = ask_without_model(vessels, "what percentage of the vessels have two masts?")
    assert answer.value == "37.5%", answer.text  # 3 of 8
    answer = ask_without_model(vessels, "What share of the vessels carried more than 10 crew?")
    assert answer.value == "50%", answer.text  # Morning Star, Grey Heron, Saint Brendan, Osprey: 4 of 8


def test_the_rows_holding_a_count_of_a_thing_are_listed(vessels: Library) -> None:
    for question in ("list the vessels with 3 masts", "which vessels have three masts"):
        answer = ask_without_model(vessels, question)
        assert set(answer.parts) == {"Grey Heron", "Saint Brendan"}, (question, answer.text)


def test_so_many_rows_ranked_by_a_superlative_are_named(vessels: Library) -> None:
    answer = ask_without_model(vessels, "name the two largest vessels by crew")
    assert list(answer.parts) == ["Saint Brendan", "Grey Heron"], answer.text
    answer = ask_without_model(vessels, "list the top 3 vessels by crew")
    assert list(answer.parts) == ["Saint Brendan", "Grey Heron", "Osprey"], answer.text
    # a superlative of a measure ranks by it, whatever it is called ("heaviest": the weight, printed "wt")
    answer = ask_without_model(vessels, "name the two heaviest vessels")
    assert list(answer.parts) == ["Saint Brendan", "Grey Heron"], answer.text
    answer = ask_without_model(vessels, "name the two lightest vessels")
    assert list(answer.parts) == ["Tern", "Kittiwake"], answer.text


def test_a_unit_after_the_bound_is_no_word_of_the_column(tmp_path_factory: pytest.TempPathFactory) -> None:
    # the rows are named by a noun the table prints nowhere ("animals" over "Organism"): the column bounded is read
    # from the words before the bound, the unit after it set aside
    rows = [["Organism", "Samples", "Safe level (ng/L)"], ["Heron", "120", "12.5"], ["Otter", "64", "64.0"],
            ["Grebe", "51", "51.2"], ["Vole", "88", "8.8"]]
    library = drawn_library(tmp_path_factory.mktemp("levels"), "Table 3: Safe levels for wildlife", rows,
                            [40, 220, 320, 440])
    try:
        answer = ask_without_model(library, "Which animals have a safe level above 50 ng/L?")
        assert set(answer.parts) == {"Otter", "Grebe"}, answer.text
    finally:
        library.close()


def test_a_verb_linking_the_rows_to_their_figure_names_nothing_to_read(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Cause", "Fires"], ["Cooking", "45"], ["Heating", "22"], ["Smoking", "12"], ["Electrical", "31"]]
    library = drawn_library(tmp_path_factory.mktemp("fires"), "Table 8: Household fires by cause", rows, [40, 220, 340])
    try:
        answer = ask_without_model(library, "which causes led to more than 20 fires?")
        assert set(answer.parts) == {"Cooking", "Heating", "Electrical"}, answer.text
    finally:
        library.close()


def test_the_largest_groups_are_ranked_by_the_one_column_of_amounts(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Age group", "Proportion (%)", "Residents"], ["Under 20", "25.0", "2,500"], ["20 - 39", "35.0", "3,500"],
            ["40 - 59", "28.0", "2,800"], ["60 and over", "12.0", "1,200"], ["Total", "100.0", "10,000"]]
    library = drawn_library(tmp_path_factory.mktemp("ages"), "Table 2: County residents by age group", rows,
                            [40, 220, 340, 460])
    try:
        answer = ask_without_model(library, "Name the two largest age groups in the county table.")
        assert list(answer.parts) == ["20 - 39", "40 - 59"], answer.text
    finally:
        library.close()


def test_columns_headed_by_their_first_letters_are_named_by_the_words_they_begin(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    # Co courses, Cl classes, R rooms, S students (made up)
    rows = [["Inst.", "Co", "Cl", "R", "S"], ["alpha-a", "120", "310", "12", "900"], ["beta-b", "85", "240", "30", "0"],
            ["gamma-c", "210", "505", "18", "1,400"], ["delta-d", "40", "90", "7", "0"]]
    library = drawn_library(tmp_path_factory.mktemp("instances"), "Table 7: Features of the timetabling instances", rows,
                            [40, 200, 280, 360, 440, 520])
    try:
        answer = ask_without_model(library, "Which instances have more than 100 courses?")
        assert set(answer.parts) == {"alpha-a", "gamma-c"}, answer.text
        answer = ask_without_model(library, "Which instance has the most rooms?")
        assert answer.value.startswith("beta-b"), answer.text
        answer = ask_without_model(library, "How many instances have more than 200 classes?")
        assert answer.value == "3", answer.text  # Cl, not Co
    finally:
        library.close()


def test_a_ranking_by_a_share_is_never_by_the_column_of_amounts(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Country", "Domestic (%)", "Imported (%)", "Cases (n)"], ["Arland", "90", "10", "5,000"],
            ["Borduria", "60", "40", "1,200"], ["Carpania", "75", "25", "3,400"]]
    library = drawn_library(tmp_path_factory.mktemp("cases"), "Table 3: Cases by origin", rows, [40, 200, 300, 400, 500])
    runner = SqlRunner(library.path)
    try:
        view = load_table_view(library, library.tables()[0])
        planned = plan(view, read("Name the two countries with the biggest share of local infections"),
                       distinct_values(runner.run, view))
        assert planned is None or planned.target is None or planned.target.header != "Cases (n)", planned
    finally:
        runner.close()
        library.close()
