"""Code answers a question over a table's rows only by a plan that binds every content word of the question (to the
table, a column it reads, a row or value it keeps, the rows' noun, or a word of how a figure is asked): a plan
that leaves a word unread answers another question, and a wrong figure is worse than a refusal. The tables are
drawn as ruled PDFs and ingested for real (extraction, typing, SQLite, FTS5, vectors from a hash embedder)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pymupdf
import pytest

from core.answering import Answerer
from core.answering.citations import SourceNames
from core.answering.operations import load_table_view
from core.answering.query_step import answer_by_query
from core.answering.reading import read
from core.answering.table_query import Condition, QueryPlan, is_percent, unbound
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

PORTS = (("Karsby", 412, 530), ("Vellmouth", 388, 301), ("Ostrand", 120, 96), ("Pellham", 75, 140),
         ("Drumcliff", 266, 262), ("Saltney", 51, 88))
"""(port, outbound, inbound) thousand tonnes."""
DEATHS = (("Female", 2140, 131.5), ("Male", 2460, 158.2), ("Under 65", 1010, 48.7), ("65 and over", 3590, 612.4),
          ("Total", 4600, 144.9))
"""(group, deaths, rate per 100,000): the groups under two headings, each adding up to the total."""


@dataclass
class Tables:
    library: Library


def _draw(path: Path, title: str, header: list[str], body: list[list[str]], columns: list[float]) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), title, fontsize=12)
    _draw_ruled(page, [header, *body], columns, 80, row_height=18)
    doc.save(path)
    doc.close()


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tables]:
    directory = tmp_path_factory.mktemp("bound")
    _draw(directory / "freight.pdf", "Coastal freight handled by port, 2031 (thousand tonnes)",
          ["Port", "Outbound", "Inbound", "Net outbound"],
          [[p, str(o), str(i), str(o - i)] for p, o, i in PORTS], [60, 200, 300, 400, 520])
    _draw(directory / "influenza.pdf", "Influenza deaths by sex and age group, 2030",
          ["Group", "Deaths", "Rate"], [["Sex", "", ""], *[[g, str(n), f"{r}"] for g, n, r in DEATHS[:2]], ["Age", "", ""],
                                        *[[g, str(n), f"{r}"] for g, n, r in DEATHS[2:]]], [60, 240, 340, 440])
    library = Library(directory / "library.sqlite3")
    for name in ("freight.pdf", "influenza.pdf"):
        result = Ingestor(library, HashEmbedder()).ingest_file(directory / name)
        assert result.status == "added" and result.tables == 1, result
    yield Tables(library)
    library.close()


def ask_refused_model(library: Library, question: str) -> Answer:
    """``question`` answered over ``library`` where every model call fails: what code alone answers."""
    def refuse(*_: object) -> str:
        raise ModelOutputError("no model here")
    runner = SqlRunner(library.path)
    try:
        return Answerer(library, Retriever(library.conn, HashEmbedder()), runner, ScriptedChat(fallback=refuse)
                        ).answer(question)
    finally:
        runner.close()


def test_a_word_no_part_of_the_plan_reads_is_no_answer_by_code(tables: Tables) -> None:
    # "shortfall" names no column, no row and no filter of the table: listing every port answers "which ports
    # are there", not the question
    answer = ask_refused_model(tables.library, "Name the ports that ran a shortfall of freight in 2031")
    every = [p for p, _, _ in PORTS]
    assert not all(p in answer.text for p in every), answer.text


def test_a_plan_that_reads_every_word_still_answers(tables: Tables) -> None:
    answer = ask_without_model(tables.library, "List the ports with inbound freight above 250")
    assert set(answer.parts) == {p for p, _, i in PORTS if i > 250}, answer.text


def test_a_share_of_a_count_is_of_the_printed_total_and_a_rate_is_no_percentage(tables: Tables) -> None:
    # the Rate column (per 100,000, above 100) is no share the table prints; the rows under Sex and under Age each
    # add up to the Total row, so the whole is that row, not every row added up
    library = tables.library
    views = [load_table_view(library, info) for info in library.tables() if "influenza" in info.caption.lower()]
    runner = SqlRunner(library.path)
    failures: list[str] = []
    try:
        found = answer_by_query(read("What share of influenza deaths were female?"), views, library, runner.run,
                                SourceNames(library), [], failures)
    finally:
        runner.close()
    assert found is not None, failures
    assert found[2].value == f"{2140 * 100 / 4600:.2f}%", found[2].sentence
    rate = next(c for c in views[0].data_columns if c.header == "Rate")
    assert not is_percent(views[0], rate)  # 612.4 per 100,000 is no percentage


def test_rows_whose_figure_is_above_or_below_their_other_figure(tmp_path: Path) -> None:
    # each row's two figures compared: one column against the other, named by their headers or by their years
    rows = [["Complaint", "Boys", "Girls", "2019", "2020"], ["Asthma", "41", "35", "60", "76"],
            ["Eczema", "18", "29", "47", "47"], ["Migraine", "12", "30", "50", "42"], ["Hay fever", "33", "28", "61", "61"]]
    with drawn_library(tmp_path, "Table 6: Pupils reporting each complaint", rows, [40, 160, 250, 340, 430, 520]) as library:
        answer = ask_without_model(library, "which complaints did fewer girls than boys report")
        assert list(answer.parts) == ["Asthma", "Hay fever"], answer.text
        answer = ask_without_model(library, "Which complaints were reported by more girls than boys?")
        assert list(answer.parts) == ["Eczema", "Migraine"], answer.text
        answer = ask_without_model(library, "In how many complaints were the pupils fewer in 2020 than in 2019?")
        assert answer.value == "1", answer.text  # Migraine: 42 below 50 (Eczema and Hay fever are level)
        # a bound said as a number stays a bound, and "how many more" stays a difference
        answer = ask_without_model(library, "which complaints did more than 30 boys report")
        assert list(answer.parts) == ["Asthma", "Hay fever"], answer.text


def test_how_many_of_the_items_under_a_heading_passed_a_bound(tmp_path: Path) -> None:
    # "in how many of the public transport items": the rows under that heading (its words before the plural)
    rows = [["Mode of travel", "Used it (%)"], ["Use of public transport", ""], ["Bus", "62"], ["Tram", "48"],
            ["Ferry", "55"], ["Use of private transport", ""], ["Car", "71"], ["Bicycle", "30"]]
    with drawn_library(tmp_path, "Table 2: Travel to work, share of commuters", rows, [40, 260, 400]) as library:
        answer = ask_without_model(library, "in how many of the public transport items was use above 50%?")
        assert answer.value == "2", answer.text  # Bus and Ferry


def test_an_average_percentage_of_respondents_who_said_so_over_every_row(tmp_path: Path) -> None:
    # "what percentage of pupils said they never ...": whom the percentages are of, and how they answered, name no
    # column or row; the average is over every row listed
    rows = [["Place of bullying", "Often (%)", "Sometimes (%)", "Never (%)"], ["Classroom", "4", "16", "80"],
            ["Playground", "6", "24", "70"], ["Online", "3", "12", "85"]]
    with drawn_library(tmp_path, "Table 3: Where pupils were bullied", rows, [40, 200, 300, 420, 520]) as library:
        answer = ask_without_model(library, "on average, what percentage of pupils said they were never bullied, "
                                            "across all the places listed")
        assert answer.value == "78.33%", answer.text  # (80 + 70 + 85) / 3


def test_a_column_of_counts_need_not_name_what_it_counts(tmp_path: Path) -> None:
    # "Count" counts something the table does not name ("visits"): the one word the question adds for it is what the
    # column counts, not an unread part of the question; two unnamed words still leave it unanswered
    rows = [["Band", "Count (North site)", "Count (South site)"], ["(0, 10]", "12", "17"], ["(10, 20]", "41", "35"],
            ["(20, 40]", "57", "22"], ["(40, 80]", "30", "9"]]
    with drawn_library(tmp_path, "Table 1: Duration bands", rows, [40, 160, 300, 440]) as library:
        answer = ask_without_model(library, "How many South site visits were in band (10, 20]?")
        assert answer.value == "35", answer.text
        answer = ask_refused_model(library, "How many South site visits by nurses were in band (10, 20]?")
        assert answer.value != "35", answer.text


def test_a_column_that_says_what_it_counts_leaves_another_noun_unread(tmp_path: Path) -> None:
    # "Number of Shares" counts shares, not deaths: a question about deaths is not answered from it; one about the
    # shares outstanding at a date is (a number of shares is no percentage)
    rows = [["", "Number of Shares", "Price ($)"], ["Outstanding at June 30, 2017", "2,832,983", "3.95"],
            ["Granted", "147,800", "7.06"], ["Exercised", "(134,917)", "2.92"],
            ["Outstanding at June 30, 2018", "2,845,866", "4.21"], ["Granted", "299,397", "8.60"],
            ["Exercised", "(338,899)", "2.96"], ["Outstanding at June 30, 2019", "2,806,364", "4.75"]]
    title = "The following table summarizes stock option activity during the years ended June 30, 2019 and 2018:"
    with drawn_library(tmp_path, title, rows, [40, 240, 360, 440]) as library:
        answer = ask_without_model(library, "What number of options were outstanding on June 30, 2019?")
        assert answer.value == "2,806,364", answer.text
        # a line printed once a year between the year's balances: the year asked names its row
        answer = ask_without_model(library, "How many options got granted in fiscal 2019?")
        assert answer.value == "299,397", answer.text
        answer = ask_refused_model(library, "What number of deaths were recorded on June 30, 2019?")
        assert answer.value != "2,806,364", answer.text
        # the one word a plan over that column leaves unread is not excused as what the column counts
        view = load_table_view(library, library.tables()[0])
        shares = next(c for c in view.data_columns if c.header == "Number of Shares")
        row = (next(r.label for r in view.rows if r.label.endswith("2019")),)
        planned = QueryPlan(view, "sum", shares, (Condition(view.label_column, row, "June 30, 2019"),))
        assert unbound(planned, read("What number of deaths were recorded on June 30, 2019?")) == ("deaths",)


def test_a_count_column_that_names_what_it_counts_excuses_a_word_that_is_not_the_noun_counted(tmp_path: Path) -> None:
    # "how many people joined job search training sessions" over "Number of participants": people are what the
    # column counts (in other words); "sessions" is the one word left, and it is not the noun counted
    rows = [["Programme", "Number of participants"], ["Job search training", "51,955"], ["Language tuition", "8,120"],
            ["Work trials", "12,400"]]
    with drawn_library(tmp_path, "Table 7: Participation in programmes, 2004", rows, [40, 240, 400]) as library:
        answer = ask_without_model(library, "How many people joined job search training sessions in 2004?")
        assert answer.value == "51,955", answer.text


def test_a_question_naming_a_table_by_number_is_answered_from_that_table_only(tmp_path: Path) -> None:
    # "in Table 2" over a library whose Table 1 would answer the rest of the words: Table 2 is asked, or nothing
    _draw(tmp_path / "freight.pdf", "Table 1: Coastal freight handled by port, 2031 (thousand tonnes)",
          ["Port", "Outbound", "Inbound"], [[p, str(o), str(i)] for p, o, i in PORTS], [60, 200, 300, 400])
    _draw(tmp_path / "deaths.pdf", "Table 2: Influenza deaths by group, 2030", ["Group", "Deaths", "Rate"],
          [[g, str(n), f"{r}"] for g, n, r in DEATHS], [60, 240, 340, 440])
    library = Library(tmp_path / "library.sqlite3")
    try:
        for name in ("freight.pdf", "deaths.pdf"):
            assert Ingestor(library, HashEmbedder()).ingest_file(tmp_path / name).status == "added"
        answer = ask_without_model(library, "Which port handled the most outbound freight?")
        assert answer.value == "Karsby", answer.text
        answer = ask_refused_model(library, "Which port handled the most outbound freight in Table 2?")
        assert answer.value != "Karsby", answer.text
    finally:
        library.close()

