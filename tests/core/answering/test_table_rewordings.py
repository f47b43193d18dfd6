"""A question over a table is read by what it asks, whatever its word order and words: the place or period said
first, the asking words left where the answer goes ("X affected how many?"), a count asked as "what number of" or
"count the", a total as "altogether" or "add up", a ranking as a heading ("top 2 ... by ..."), a share as "A
accounted for what percentage of X", a span of years as "2016-2019" or "between 2016 and 2019". Each is answered by
code, as its usual wording is. The tables are invented, drawn as ruled PDFs and ingested for real."""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pymupdf
import pytest

from core.answering.reading import read
from core.ingest.ingestor import Ingestor
from core.library.store import Library
from tests.conftest import HashEmbedder
from tests.core.answering.test_table_query import ask_without_model
from tests.core.ingest.test_extraction import _draw_ruled

pytestmark = pytest.mark.unit

OPERATORS = ("Copperfield Bakery Ltd.", "Ninefold Dairy", "Lark Lane Grocers", "Tidewater Fish Co.")
DISTRICTS = ("Ashby", "Brampton", "Colwick", "Dunmore")
YEARS = (2016, 2017, 2018, 2019, 2020)
# harbour: ferry passengers (thousands) in each of YEARS
HARBOURS = {"Nordby": (412, 430, 455, 470, 301), "Westby": (220, 236, 241, 262, 180),
            "Eastby": (150, 149, 171, 166, 120), "Southby": (95, 118, 131, 127, 84), "Kirkby": (60, 64, 61, 72, 55)}


@dataclass
class Inspections:
    library: Library
    rows: list[tuple[str, str, date, int]]


def _ingested(directory: Path, name: str, title: str, rows: list[list[str]], x: list[float]) -> Library:
    path = directory / name
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), title, fontsize=12)
    _draw_ruled(page, rows, x, 80, row_height=17)
    doc.save(path)
    doc.close()
    library = Library(path.with_suffix(".sqlite3"))
    result = Ingestor(library, HashEmbedder()).ingest_file(path)
    assert result.status == "added" and result.tables == 1, result
    return library


@pytest.fixture(scope="module")
def inspections(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Inspections]:
    rng = random.Random(7)
    rows = [(rng.choice(OPERATORS), rng.choice(DISTRICTS), date(2021, rng.randint(1, 12), rng.randint(1, 28)),
             rng.randint(3, 40)) for _ in range(24)]
    table = [["Operator", "District", "Inspection date", "Staff on site"]] + [
        [o, d, f"{day.month}/{day.day}/{day.year}", str(n)] for o, d, day, n in rows]
    library = _ingested(tmp_path_factory.mktemp("inspections"), "inspections.pdf",
                        "Register of food hygiene inspections, 2021", table, [60, 230, 330, 430, 550])
    yield Inspections(library, rows)
    library.close()


@pytest.fixture(scope="module")
def harbours(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    table = [["Harbour", *map(str, YEARS)]] + [[h, *map(str, n)] for h, n in HARBOURS.items()]
    table.append(["Total", *(str(sum(n[i] for n in HARBOURS.values())) for i in range(len(YEARS)))])
    library = _ingested(tmp_path_factory.mktemp("harbours"), "ferries.pdf",
                        "Table 3: Ferry passengers by harbour, 2016-2020 (thousands)", table, [60, 180, 250, 320, 390, 460, 530])
    yield library
    library.close()


def test_a_count_asked_as_what_number_of_or_count_the(inspections: Inspections) -> None:
    in_brampton = sum(1 for r in inspections.rows if r[1] == "Brampton")
    answer = ask_without_model(inspections.library, "What number of inspections took place in Brampton?")
    assert answer.value == str(in_brampton), answer.text
    in_colwick = sum(1 for r in inspections.rows if r[1] == "Colwick")
    answer = ask_without_model(inspections.library, "Count the inspections in Colwick.")
    assert answer.value == str(in_colwick), answer.text


def test_a_total_asked_after_the_asking_words_left_in_place(inspections: Inspections) -> None:
    staff = sum(r[3] for r in inspections.rows if r[1] == "Dunmore")
    answer = ask_without_model(inspections.library, "Inspections in Dunmore counted how many staff on site altogether?")
    assert answer.value == f"{staff:,}", answer.text


def test_rows_named_by_what_they_did_are_listed(inspections: Inspections) -> None:
    towns = {r[1] for r in inspections.rows if r[0] == "Tidewater Fish Co."}
    answer = ask_without_model(inspections.library, "Which districts did Tidewater Fish Co. receive inspections in?")
    assert set(answer.parts) == towns, answer.text  # the District column's values, never every row's operator
    operators = {r[0] for r in inspections.rows if r[1] == "Ashby"}
    answer = ask_without_model(inspections.library, "Which operators hosted inspections in Ashby?")
    assert set(answer.parts) == operators, answer.text


def test_a_period_said_first_and_a_ranking_said_as_a_heading(harbours: Library) -> None:
    answer = ask_without_model(harbours, "In 2019, how many passengers did Westby handle?")
    assert answer.value == f"{HARBOURS['Westby'][3]} thousand", answer.text
    answer = ask_without_model(harbours, "Top 2 harbours by passengers in 2020?")
    assert list(answer.parts) == ["Nordby", "Westby"], answer.text


@pytest.mark.parametrize("question", ["Average passengers at Eastby, 2016-2019?",
                                      "Average passengers at Eastby between 2016 and 2019?"])
def test_a_span_of_years_said_with_a_dash_or_between_and(harbours: Library, question: str) -> None:
    assert read(question).measure is not None and read(question).measure.periods == (2016, 2017, 2018, 2019)  # type: ignore[union-attr]
    answer = ask_without_model(harbours, question)
    assert answer.value == f"{sum(HARBOURS['Eastby'][:4]) / 4:g} thousand", answer.text


def test_a_share_said_by_the_part_s_verb(harbours: Library) -> None:
    total = sum(n[4] for n in HARBOURS.values())
    answer = ask_without_model(harbours, "Kirkby accounted for what percentage of total passengers in 2020?")
    assert answer.value.rstrip("%") == f"{HARBOURS['Kirkby'][4] * 100 / total:.2f}", answer.text


# county: (staff, books, total) library spending, thousand euros; the most on staff is not the most in total
COUNTIES = {"Arden": (410, 90, 500), "Belmore": (300, 260, 560), "Corrib": (350, 100, 450)}


@pytest.fixture(scope="module")
def libraries(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    table = [["County", "Staff library spending", "Book library spending", "Total"]] + [
        [c, *map(str, n)] for c, n in COUNTIES.items()]
    library = _ingested(tmp_path_factory.mktemp("libraries"), "libraries.pdf",
                        "Table 2: Library spending by county, 2020 (thousand euros)", table, [60, 180, 330, 480, 550])
    yield library
    library.close()


def test_a_ranking_asked_in_total_reads_the_total_column(libraries: Library) -> None:
    answer = ask_without_model(libraries, "Which county spent the most on libraries in total?")
    assert answer.value == "Belmore" and "560" in answer.text, answer.text


def test_a_count_named_by_another_word_of_the_same_meaning(inspections: Inspections) -> None:
    staff = sum(r[3] for r in inspections.rows if r[1] == "Colwick")
    answer = ask_without_model(inspections.library, "What was the total number of staff at the inspections held in Colwick?")
    assert answer.value == f"{staff:,}", answer.text


# region: (wheat, barley) production in tonnes
REGIONS = {"Eastmarch": (48_200, 30_150), "Westmarch": (39_900, 52_700), "Northmoor": (21_300, 18_800)}


@pytest.fixture(scope="module")
def crops(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    table = [["Region", "Wheat production (t)", "Barley production (t)"]] + [
        [r, f"{w:,}", f"{b:,}"] for r, (w, b) in REGIONS.items()]
    library = _ingested(tmp_path_factory.mktemp("crops"), "crops.pdf", "Table 1: Cereal production by region, 2022",
                        table, [60, 200, 360, 520])
    yield library
    library.close()


def test_an_output_asked_by_its_verb_and_a_figure_asked_by_its_size(crops: Library) -> None:
    answer = ask_without_model(crops, "How much wheat did Northmoor produce?")
    assert answer.value.startswith(f"{REGIONS['Northmoor'][0]:,}"), answer.text
    answer = ask_without_model(crops, "Top barley producing region?")
    assert answer.value == "Westmarch", answer.text
    answer = ask_without_model(crops, "How large was barley production in Eastmarch?")
    assert answer.value.startswith(f"{REGIONS['Eastmarch'][1]:,}"), answer.text


# year: (thefts, fires) reported
INCIDENTS = {2011: (310, 41), 2012: (295, 38), 2013: (301, 52), 2014: (288, 47), 2015: (270, 44)}


@pytest.fixture(scope="module")
def incidents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    table = [["Year", "Thefts", "Fires"]] + [[str(y), str(t), str(f)] for y, (t, f) in INCIDENTS.items()]
    library = _ingested(tmp_path_factory.mktemp("incidents"), "incidents.pdf",
                        "Table 4: Incidents reported on the estate, by year", table, [60, 160, 260, 360])
    yield library
    library.close()


def test_on_average_said_after_the_count(incidents: Library) -> None:
    answer = ask_without_model(incidents, "How many fires were reported per year on average between 2012 and 2014?")
    assert answer.value == f"{sum(INCIDENTS[y][1] for y in (2012, 2013, 2014)) / 3:.2f}", answer.text


def test_an_average_over_rows_of_years_keeps_the_years_asked(incidents: Library) -> None:
    answer = ask_without_model(incidents, "What was the average number of thefts from 2013 to 2015?")
    assert answer.value == f"{sum(INCIDENTS[y][0] for y in (2013, 2014, 2015)) / 3:.2f}", answer.text
    assert "3 rows" in answer.text, answer.text


def test_a_period_said_before_an_asking_preposition_and_what_for_which(harbours: Library,
                                                                       inspections: Inspections) -> None:
    busy = sum(1 for n in HARBOURS.values() if n[3] > 150)
    answer = ask_without_model(harbours, "In 2019, in how many harbours were there more than 150 thousand passengers?")
    assert answer.value == str(busy), answer.text
    districts = {r[1] for r in inspections.rows if r[0] == "Ninefold Dairy"}
    answer = ask_without_model(inspections.library, "What districts hosted inspections of Ninefold Dairy?")
    assert set(answer.parts) == districts, answer.text
