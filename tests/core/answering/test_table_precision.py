"""Precision before coverage: a plan that leaves part of the question unread is not decided by code. A column the
question names that the plan does not read, a count of every row where the question says more, rows that are
themselves numbers of what is counted, a ranking over one label: each goes to the model (here: no answer) rather
than into a wrong figure. And the general cases read right: a number written as a word names the row that prints
it, a totals row under a column of years is not one more row. Tables drawn as ruled PDFs, ingested for real, asked
with no model call (invented figures)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from pathlib import Path

import pymupdf
import pytest

from core.answering import Answerer, table_query
from core.answering.operations import load_table_view
from core.answering.query_step import distinct_values
from core.answering.reading import read
from core.ingest.ingestor import Ingestor
from core.library.store import Library
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from models.errors import ModelOutputError
from models.types import Answer
from tests.conftest import HashEmbedder
from tests.core.answering.test_answering_library import ScriptedChat
from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library
from tests.core.ingest.test_extraction import _draw_ruled

pytestmark = pytest.mark.unit


def ask_code_first(library: Library, question: str) -> Answer:
    """``question`` over ``library`` where code may leave it to a model, which fails every call: what code decided
    is the answer, what it did not is refused."""
    def refuse(*_: object) -> str:
        raise ModelOutputError("no model here")
    runner = SqlRunner(library.path)
    try:
        return Answerer(library, Retriever(library.conn, HashEmbedder()), runner,
                        ScriptedChat(fallback=refuse)).answer(question)
    finally:
        runner.close()

# programme: grants (n), budget ($M)
PROGRAMMES = {"Harbour Walls": (14, "2.5"), "Old Mill Roof": (3, "0"), "Chapel Windows": (9, "1.2"),
              "Canal Locks": (5, "0"), "Bell Tower": (11, "0.8")}


def _drawn(tmp_path_factory: pytest.TempPathFactory, title: str, rows: list[list[str]],
           columns: list[float] | None = None) -> Iterator[Library]:
    """A library of one table drawn under ``title``, its columns at ``columns`` (a label and two figures by default)."""
    library = drawn_library(tmp_path_factory.mktemp("table"), title, rows, columns or [40, 220, 320, 420])
    yield library
    library.close()


_one_table = contextmanager(_drawn)
"""``_drawn`` for one test: ``with _one_table(...) as library``."""


@pytest.fixture(scope="module")
def grants(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Programme", "Grants (n)", "Budget ($M)"]] + [[name, str(n), budget]
                                                         for name, (n, budget) in PROGRAMMES.items()]
    yield from _drawn(tmp_path_factory, "Table 4: Heritage Fund programmes, 2024", rows)


def test_a_count_that_leaves_a_named_column_unread_is_not_decided(grants: Library) -> None:
    answer = ask_code_first(grants, "How many programmes had a budget of zero?")
    assert answer.value != str(len(PROGRAMMES)), answer.text  # every programme counted, "budget of zero" unread
    assert answer.value in ("", "2"), answer.text


def test_any_figure_or_none_at_all_keeps_the_rows_with_or_without_one(grants: Library) -> None:
    """"which programmes had any budget": those whose budget is a figure other than zero; "no budget at all": the
    others."""
    answer = ask_without_model(grants, "Which programmes had any budget?")
    funded = [name for name, (_, budget) in PROGRAMMES.items() if float(budget)]
    assert answer.value == "; ".join(funded), answer.text
    answer = ask_without_model(grants, "How many programmes had no budget at all?")
    assert answer.value == str(len(PROGRAMMES) - len(funded)), answer.text


def test_a_count_of_every_row_answers_a_question_that_says_no_more(grants: Library) -> None:
    answer = ask_without_model(grants, "How many programmes are listed?")
    assert answer.value == str(len(PROGRAMMES)), answer.text


def _plan(library: Library, question: str) -> table_query.QueryPlan | None:
    (info,) = library.tables()
    view = load_table_view(library, info)
    runner = SqlRunner(library.path)
    try:
        return table_query.plan(view, read(question, []), distinct_values(runner.run, view))
    finally:
        runner.close()


def test_a_plan_reading_no_column_the_question_names_is_none(grants: Library) -> None:
    assert _plan(grants, "How many programmes had a large budget?") is None
    exact = _plan(grants, "How many programmes had a budget of zero?")  # the figure said: the column is read
    assert exact is not None and [(t.column.header, t.value, t.equal) for t in exact.thresholds] == \
        [("Budget ($M)", 0.0, True)]
    planned = _plan(grants, "How many grants did the Bell Tower programme receive?")
    assert planned is not None and planned.target is not None and planned.target.header.startswith("Grants")


# visits: patients, share (%); a row of the total
VISITS = [("0 visits", 120, 30.0), ("1 visit", 150, 37.5), ("2 visits", 90, 22.5), ("3 visits", 40, 10.0)]


@pytest.fixture(scope="module")
def visits(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Visits in the year", "Patients", "Share (%)"]] + [[v, str(n), f"{s:.1f}"] for v, n, s in VISITS]
    rows.append(["Total", str(sum(n for _, n, _ in VISITS)), "100.0"])
    yield from _drawn(tmp_path_factory, "Table 2: Patients by number of clinic visits", rows)


def test_a_number_written_as_a_word_names_the_row_that_prints_it(visits: Library) -> None:
    answer = ask_code_first(visits, "How many patients made exactly two visits?")
    assert answer.value in ("", "90"), answer.text  # that row's figure, never the sum of every row
    planned = _plan(visits, "How many patients made exactly two visits?")
    assert planned is not None and [c.values for c in planned.conditions] == [("2 visits",)]


def test_a_sum_of_every_row_is_not_that_of_the_rows_the_question_names(visits: Library) -> None:
    planned = _plan(visits, "How many patients made exactly seven visits to the eastern wing?")
    assert planned is None or planned.conditions, planned  # "seven", "eastern wing" unread: no sum of every row


# year: thefts, fires; the totals row prints no word in the year column once typed
YEARS = {2019: (410, 31), 2020: (388, 27), 2021: (402, 35), 2022: (371, 22)}


@pytest.fixture(scope="module")
def incidents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Year", "Thefts", "Fires"]] + [[str(y), str(t), str(f)] for y, (t, f) in YEARS.items()]
    rows.append(["", str(sum(t for t, _ in YEARS.values())), str(sum(f for _, f in YEARS.values()))])
    yield from _drawn(tmp_path_factory, "Table 5: Incidents reported on campus, 2019-22",
                            rows, [40, 140, 240, 340])


def test_a_totals_row_under_a_column_of_years_is_not_added(incidents: Library) -> None:
    answer = ask_without_model(incidents, "How many thefts were reported from 2019 through 2022?")
    assert answer.value == f"{sum(t for t, _ in YEARS.values()):,}", answer.text
    answer = ask_without_model(incidents, "What was the average number of fires reported from 2019 to 2022?")
    assert answer.value == f"{sum(f for _, f in YEARS.values()) / len(YEARS):g}", answer.text


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["", "All banks surveyed", "Large banks"],
            ["Number of regions in the survey", "17", "6"],
            ["Number of regions where a bank closed branches", "9", "2"]]
    yield from _drawn(tmp_path_factory, "Summary of the branch survey", rows, [40, 300, 420, 520])


def test_rows_that_are_numbers_of_what_is_counted_are_not_counted(summary: Library) -> None:
    answer = ask_code_first(summary, "In how many regions did a bank close branches?")
    assert answer.value in ("", "9"), answer.text  # never "2 rows"


@pytest.fixture(scope="module")
def one_site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Site", "Month", "Visitors"]] + [["Northfield", month, str(n)]
                                              for month, n in (("January", 310), ("February", 295), ("March", 402))]
    yield from _drawn(tmp_path_factory, "Table 1: Visitors by site and month", rows,
                            [40, 200, 320, 420])


def test_a_ranking_over_one_label_ranks_nothing(one_site: Library) -> None:
    assert _plan(one_site, "Which site had the most visitors?") is None


@pytest.fixture(scope="module")
def ages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Age group", "Men", "Women"], ["Under 20", "1,204", "1,187"], ["20-39", "2,310", "2,402"],
            ["40-59", "2,115", "2,230"], ["60-79", "1,520", "1,796"], ["80+", "310", "522"]]
    yield from _drawn(tmp_path_factory, "Table 3: Residents of the district by age and sex",
                            rows, [40, 200, 300, 400])


def test_a_column_named_with_rows_left_unread_is_no_count_and_no_sum_of_every_row(ages: Library) -> None:
    answer = ask_code_first(ages, "How many women aged 60 and over lived in the district?")
    # neither "5 rows are listed" nor every woman of the table: the rows aged 60 and over, or no figure
    assert answer.value in ("", f"{1_796 + 522:,}"), answer.text


@pytest.fixture(scope="module")
def error_rates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Method", "Error rate", "Runs"], ["Sieve", "0.0042", "12"], ["Lattice", "0.0061", "15"],
            ["Spline", "0.0075", "9"], ["Kernel", "0.0018", "20"]]
    yield from _drawn(tmp_path_factory, "Table 2: Error rates of four methods", rows)


def test_a_small_bound_is_said_as_the_question_said_it(error_rates: Library) -> None:
    answer = ask_without_model(error_rates, "How many methods have an error rate above 0.005?")
    assert answer.value == "2", answer.text  # Lattice and Spline
    assert "above 0.005" in answer.text and "0.01" not in answer.text, answer.text


def _page_library(directory: Path, lines: Sequence[tuple[float, str]], rows: list[list[str]], columns: list[float],
                  top: float) -> Library:
    """A library of one page: ``lines`` of text (at their heights) and a ruled table of ``rows`` at ``top``."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for y, line in lines:
        page.insert_text((72, y), line, fontsize=11)
    _draw_ruled(page, rows, columns, top, row_height=18)
    doc.save(directory / "page.pdf")
    doc.close()
    library = Library(directory / "library.sqlite3")
    assert Ingestor(library, HashEmbedder()).ingest_file(directory / "page.pdf").tables == 1
    return library


@pytest.fixture(scope="module")
def harbours(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    """A bulletin whose table of boats by harbour is introduced by a sentence over it ("the spring census")."""
    lines = [(24, "Harbour Office: Annual Bulletin"),
             (60, "The office keeps the quays, the slipways and the moorings of four harbours in"),
             (74, "good repair, and reports each year on what it spent and on the works it plans."),
             (88, "This bulletin sets out the year's accounts, the works done and the fleet."),
             (120, "Boats were counted in the spring census of the harbours."), (140, "Table 3: Boats by harbour")]
    counts = {"Kelby": (41, 18), "Marrow": (25, 32), "Penhale": (12, 9), "Tresco Bay": (30, 21)}
    rows = [["Harbour", "Sailing boats", "Motor boats"]] + [[h, str(s), str(m)] for h, (s, m) in counts.items()]
    library = _page_library(tmp_path_factory.mktemp("bulletin"), lines, rows, [60, 220, 340, 460], 158)
    yield library
    library.close()


def test_a_word_of_the_sentence_introducing_a_table_names_the_table(harbours: Library) -> None:
    """"in the census": the sentence over the table says it holds the census counts, so the words name
    the table, as its title's would (no column or row is left unread)."""
    answer = ask_code_first(harbours, "What is the average number of motor boats per harbour in the census?")
    assert answer.value == "20", answer.text
    # a word nothing on the page says is still unread: no answer
    answer = ask_code_first(harbours, "What is the average number of motor boats per harbour in the audit?")
    assert answer.value != "20", answer.text


def test_how_the_answer_is_rounded_names_nothing_to_read(harbours: Library) -> None:
    """"to 2 decimal places", "nearest whole number": how to round the figure, no rows the sum leaves out."""
    answer = ask_code_first(harbours, "What is the total number of motor boats? Give it to 2 decimal places.")
    assert answer.value == "80", answer.text
    answer = ask_code_first(harbours, "Total sailing boats, to the nearest whole number")
    assert answer.value == "108", answer.text


def test_avg_is_an_average(harbours: Library) -> None:
    answer = ask_code_first(harbours, "avg motor boats per harbour")
    assert answer.value == "20", answer.text


@pytest.fixture(scope="module")
def awards(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    """A roll-forward of share awards: each year's lines printed again under the balance they move."""
    rows = [["", "Number of shares", "Average price ($)"],
            ["Outstanding at March 31, 2021", "52,400", "11.20"], ["Awarded", "8,100", "12.05"],
            ["Vested", "(6,300)", "10.40"], ["Outstanding at March 31, 2022", "54,200", "11.48"],
            ["Awarded", "9,900", "13.10"], ["Vested", "(7,700)", "11.00"],
            ["Outstanding at March 31, 2023", "56,400", "11.95"]]
    yield from _drawn(tmp_path_factory, "Share award activity", rows, [40, 260, 370, 470])


def test_a_line_printed_once_a_period_is_counted_by_the_column_of_counts(awards: Library) -> None:
    """"How many awards vested in total" over "Vested" printed once a year: the awards the lines count, added, in
    their size (the table prints what left as negatives), not the number of lines printed."""
    answer = ask_code_first(awards, "How many awards vested in total?")
    assert answer.value == "14,000", answer.text
    answer = ask_code_first(awards, "What was the total number of awards awarded?")
    assert answer.value == "18,000", answer.text


WEIGHTS = [["Age band", "Weight"], ["20-39", "0.4120"], ["40-59", "0.3315"], ["60-79", "0.2065"], ["80 +", "0.0500"]]


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    """A table of weights whose only title is the sentence over it, which says what the weights are for."""
    lines = [(24, "Methods, section 4"),
             (60, "Following are the weights to be used when standardising the panel's yearly results by age.")]
    library = _page_library(tmp_path_factory.mktemp("weights"), lines, WEIGHTS, [60, 220, 340], 80)
    yield library
    library.close()


def test_a_line_is_named_by_the_sentence_over_its_table(weights: Library) -> None:
    """The words "when standardising survey results" are the introducing sentence's: they say which table, so the
    weight of the band named is the answer."""
    answer = ask_code_first(weights, "What is the weight for the 40-59 band when standardising the panel's yearly results?")
    assert answer.value == "0.3315", answer.text


def test_a_computed_figure_is_shown_to_the_decimals_asked(harbours: Library) -> None:
    """"One decimal": 22.33 sailing boats on average is said 22.3 (two decimals only when none are asked)."""
    answer = ask_code_first(harbours, "Average number of sailing boats in Marrow, Penhale and Tresco Bay? One decimal.")
    assert answer.value == "22.3", answer.text  # (25 + 12 + 30) / 3
    answer = ask_code_first(harbours, "What percentage of Kelby's boats are motor boats? One decimal.")
    assert answer.value == "30.5%", answer.text  # 18 of 59


def test_a_share_said_as_what_falls_under_a_column(harbours: Library) -> None:
    """"What percentage of Marrow's boats fall under Motor boats?", with an instruction after the question."""
    answer = ask_code_first(harbours, "What percentage of Marrow's boats fall under Motor boats? Round to 1 decimal.")
    assert answer.value == "56.1%", answer.text  # 32 of 57


def test_a_survey_s_hh_is_households(tmp_path_factory: pytest.TempPathFactory) -> None:
    """"No. of HHs", as surveys head their counts of households: "how many households" reads it."""
    rows = [["Module", "No. of HHs", "Persons per district"], ["Height and weight", "1800", "5400"],
            ["Food diary", "900", "2700"], ["Blood sugar", "1800", "3100"]]
    with _one_table(tmp_path_factory, "Sample size for each district", rows) as library:
        answer = ask_code_first(library, "For the food diary, how many households did the sample take?")
        assert answer.value == "900", answer.text


@pytest.fixture(scope="module")
def regions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    """Countries added up in a "Nordic Total" row, and two more countries printed after it."""
    rows = [["Country", "Imported (%)", "Cases (n)"], ["Denmark", "40.0", "120"], ["Finland", "100.0", "35"],
            ["Iceland", "100.0", "8"], ["Sweden", "12.5", "240"], ["Nordic Total", "30.1", "403"],
            ["Estonia", "100.0", "14"], ["Latvia", "20.0", "55"]]
    yield from _drawn(tmp_path_factory, "Table 7: Cases by country and origin", rows, [40, 200, 320, 440])


def test_the_rows_a_group_s_totals_row_adds_up_are_the_group_s(regions: Library) -> None:
    """"Which Nordic countries": the rows the "Nordic Total" row adds up, not those printed after it."""
    answer = ask_code_first(regions, "Which Nordic countries had more than 50 cases?")
    assert answer.value == "Denmark; Sweden", answer.text  # not Latvia
    answer = ask_code_first(regions, "How many cases did the countries printed below the Nordic total report in all?")
    assert answer.value == "69", answer.text


@pytest.fixture(scope="module")
def indicators(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    """Key indicators of two survey rounds (codes KIS-1, KIS-2), in sections; one section's heading runs on to a
    second bare row."""
    rows = [["Indicators", "KIS-2 TOTAL", "KIS-2 RURAL", "KIS-1 TOTAL", "KIS-1 RURAL"],
            ["Care of newborns (based on the last child born in the", "", "", "", ""],
            ["reference years) (%)", "", "", "", ""],
            ["Newborns weighed at birth", "80.0", "75.0", "70.0", "72.0"],
            ["Newborns breastfed within an hour", "60.0", "58.0", "65.0", "61.0"],
            ["Newborns checked within a day", "55.0", "50.0", "40.0", "45.0"],
            ["Awareness (%)", "", "", "", ""],
            ["Heard of vaccines", "90.0", "85.0", "80.0", "70.0"],
            ["Heard of clean water", "70.0", "65.0", "75.0", "60.0"]]
    yield from _drawn(tmp_path_factory, "Westdale - Key Indicators", rows, [40, 300, 360, 420, 480, 540])


def test_rows_compared_across_two_survey_rounds_in_a_section_named_first(indicators: Library) -> None:
    """"For the care of newborns section, what number of the indicators had a larger total in KIS-2 than in KIS-1": the
    second round is named by its code alone (its Total column, as the first side's); the section, said before the
    question, keeps the rows under its heading, printed over two bare rows."""
    answer = ask_code_first(indicators, "For the care of newborns section, what number of the indicators had a larger "
                                        "total in KIS-2 than in KIS-1?")
    assert answer.value == "2", answer.text  # weighed, checked (not breastfed; not the awareness rows)
    answer = ask_code_first(indicators, "How many of the indicators had a larger total in KIS-2 than in KIS-1?")
    assert answer.value == "3", answer.text
    # the section said before a question followed by an instruction: still part of what is asked
    answer = ask_code_first(indicators, "For the care of newborns section, what number of the indicators had a larger "
                                        "total in KIS-2 than in KIS-1? Leave out any blanks.")
    assert answer.value == "2", answer.text
    answer = ask_code_first(indicators, "For the housing section, what number of the indicators had a larger total in "
                                        "KIS-2 than in KIS-1? Leave out any blanks.")
    assert answer.value not in ("2", "3"), answer.text  # no such section: no count of other rows


def test_a_sentence_naming_a_table_by_its_number_names_a_line_s_words(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Prose over a table that points at it ("... (see Table 4)") says what it holds; prose that does not (the
    sentence before it) names nothing."""
    lines = [(40, "The harbour towns were surveyed in the spring by post."),
             (60, "The Orne panel's results were weighted by age band (see Table 4)."), (80, "Table 4: Weights by age band")]
    with closing(_page_library(tmp_path_factory.mktemp("panel"), lines, WEIGHTS, [60, 220, 340], 96)) as library:
        answer = ask_code_first(library, "What weight did the Orne panel give the 40-59 band?")
        assert answer.value == "0.3315", answer.text
        answer = ask_code_first(library, "What weight did the postal harbour survey give the 40-59 band?")
        assert answer.value != "0.3315", answer.text


def test_the_rows_that_need_so_many_of_a_thing_counted_once_a_label(tmp_path_factory: pytest.TempPathFactory) -> None:
    """"How many modules need 1,800 households each": the rows whose households column holds 1,800 (not the
    column the rest of the words name, "per district"), a module printed over two rows (men, women) counted once."""
    rows = [["Module", "No. of HHs", "Group", "Sample size per district"],
            ["Height and weight", "1800", "All members", "5400"], ["Food diary", "900", "All members", "2700"],
            ["Blood sugar", "1800", "Men", "1500"], ["Blood sugar", "1800", "Women", "1500"],
            ["Hearing", "1800", "All members", "5400"]]
    with _one_table(tmp_path_factory, "Sample size for each district", rows, [40, 200, 290, 400, 540]) as library:
        answer = ask_code_first(library, "how many modules in the sample table need 1,800 households, district by "
                                         "district?")
        assert answer.value == "3", answer.text
        assert "4 rows" in answer.text, answer.text  # what was counted, said


def test_a_table_of_another_edition_answers_nothing(tmp_path_factory: pytest.TempPathFactory) -> None:
    """"Students in ABC-2002 set C" over a table of the ABC-2007 sets: another edition's figures."""
    rows = [["Set", "Events", "Students"], ["Set A", "400", "200"], ["Set B", "410", "205"], ["Set C", "420", "210"]]
    with _one_table(tmp_path_factory, "Table 5: Features of the ABC-2007 sets", rows) as library:
        answer = ask_code_first(library, "Number of students in ABC-2007 set C?")
        assert answer.value == "210", answer.text
        answer = ask_code_first(library, "Number of students in ABC-2002 set C?")
        assert answer.value != "210", answer.text
