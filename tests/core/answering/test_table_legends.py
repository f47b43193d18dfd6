"""Tables whose headers are letters explained by a legend in the caption, set under the table as papers set it
("Table 3: ... Symbol definition: N (number of stalls), ..."): the caption is found under the table, each header
reads with its meaning, and questions in the meaning's words read those columns; "how many of the X have ..." counts
the rows past the bound, and "over the four markets" over a table of four is every row. Drawn as a real PDF,
ingested for real, asked with no model call (invented figures)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest

from core.answering.reading import read
from core.ingest.ingestor import Ingestor
from core.library.store import Library
from core.reports.table_facts import header_legend, without_legend
from tests.conftest import HashEmbedder
from tests.core.answering.test_table_precision import _drawn, ask_code_first
from tests.core.answering.test_table_query import ask_without_model
from tests.support.pdfs import draw_ruled_table

pytestmark = pytest.mark.unit

# market: stalls, average daily visitors, peak daily visitors, opening days a week
MARKETS = {"Eastgate": (42, 1_310, 2_950, 6), "Millbrook": (18, 640, 1_120, 3), "Riverside": (65, 2_080, 3_400, 5),
           "Old Forge": (27, 990, 3_720, 2)}
CAPTION = ("Table 3: Weekly markets of the district. Symbol definition: N (number of stalls), Av (average daily "
           "visitors), Mx (peak daily visitors), Op (opening days per week).")


@pytest.fixture(scope="module")
def markets(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    directory = tmp_path_factory.mktemp("markets")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), "3.2 Markets surveyed in spring", fontsize=12)
    rows = [["Market", "N", "Av", "Mx", "Op"]] + [[name, *(f"{v:,}" for v in figures)] for name, figures in MARKETS.items()]
    draw_ruled_table(page, rows, [150, 260, 320, 380, 440, 500], 90, row_height=18)
    below = 90 + 18 * len(rows) + 14
    page.insert_textbox(pymupdf.Rect(72, below, 540, below + 60), CAPTION, fontsize=10)
    page.insert_text((72, below + 90), "Markets open on fewer days draw their crowds at the weekend.", fontsize=10)
    library = _ingested(doc, directory / "markets.pdf")
    yield library
    library.close()


def _ingested(doc: pymupdf.Document, path: Path) -> Library:
    """``doc`` saved at ``path`` and ingested for real into a library beside it, which holds its one table."""
    doc.save(path)
    doc.close()
    library = Library(path.parent / "library.sqlite3")
    result = Ingestor(library, HashEmbedder()).ingest_file(path)
    assert result.status == "added" and result.tables == 1, result
    return library


def test_a_numbered_title_under_the_table_is_its_caption(markets: Library) -> None:
    (info,) = markets.tables()
    assert info.caption.startswith("Table 3: Weekly markets of the district"), info.caption


def test_each_header_reads_with_the_meaning_the_legend_gives_it(markets: Library) -> None:
    (info,) = markets.tables()
    headers = {c.name: c.header for c in info.schema.columns}
    assert headers["n"] == "N (number of stalls)" and headers["mx"] == "Mx (peak daily visitors)", headers


def test_a_question_in_the_legend_words_reads_the_column_they_explain(markets: Library) -> None:
    answer = ask_without_model(markets, "How many stalls does the Millbrook market have?")
    assert answer.value == "18", answer.text
    answer = ask_without_model(markets, "Which market had the highest peak daily visitors?")
    assert answer.value == "Old Forge", answer.text
    answer = ask_without_model(markets, "Which markets have more than 1,000 average daily visitors?")
    assert answer.value and "Eastgate" in answer.value and "Riverside" in answer.value, answer.text
    assert "Old Forge" not in answer.value and "Millbrook" not in answer.value, answer.text


def test_a_legend_is_read_in_brackets_or_after_a_colon_and_left_out_of_what_the_caption_is_about() -> None:
    assert header_legend("Table 2: Sites. Symbol definition: E (Exams), PpD (Periods per Day).") == \
        {"E": "Exams", "PpD": "Periods per Day"}
    assert header_legend("Table 5: Datasets. #Inst: number of instances, Ref: first paper") == \
        {"#Inst": "number of instances", "Ref": "first paper"}
    assert header_legend("Table 1: Weekly markets of the district") == {}
    # a word with a bracket after it is no short name explained: "Total (Level 1)", "Assets (Liabilities)"
    assert header_legend("Fair values: Total (Level 1), Assets (Liabilities) (in millions)") == {}
    assert "Exams" not in without_legend("Table 2: Sites. Symbol definition: E (Exams), S (Students).")


def test_how_many_of_the_rows_past_a_bound_counts_them(markets: Library) -> None:
    query = read("How many of the weekly district markets have fewer than 30 stalls?").query
    assert query is not None and (query.operation, query.group) == ("count", "markets"), query
    answer = ask_without_model(markets, "How many of the weekly district markets have fewer than 30 stalls?")
    assert answer.value == "2", answer.text


def test_a_total_over_as_many_rows_as_the_table_has_runs_over_every_row(markets: Library) -> None:
    answer = ask_without_model(markets, "What is the total of stalls across the four markets?")
    assert answer.value == str(sum(v[0] for v in MARKETS.values())), answer.text
    # three markets of four: not every row, and not said which
    answer = ask_code_first(markets, "Total stalls over the three markets?")
    assert answer.value != str(sum(v[0] for v in MARKETS.values())), answer.text


# hall: seats, stage area (square metres), distance from the station (km); explained in the prose, not the caption
HALLS = {"Corn Exchange": (420, 96, "0.4"), "Drill Hall": (650, 140, "2.1"), "Assembly Rooms": (280, 60, "1.2")}


@pytest.fixture(scope="module")
def halls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    directory = tmp_path_factory.mktemp("halls")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 40), "Riverside Arts Festival: venue guide", fontsize=12)
    page.insert_textbox(pymupdf.Rect(72, 50, 540, 110), (
        "For each venue we give the number of seats (N), AR (stage area in square metres) and DS (distance from "
        "the station in km), as measured by the festival office."), fontsize=10)
    rows = [["Venue", "N", "AR", "DS"]] + [[name, str(n), str(a), d] for name, (n, a, d) in HALLS.items()]
    draw_ruled_table(page, rows, [150, 280, 340, 400, 460], 130, row_height=18)
    page.insert_text((72, 230), "Table 2: Festival halls", fontsize=10)
    library = _ingested(doc, directory / "festival_2024.pdf")
    yield library
    library.close()


def test_short_headers_read_with_the_meaning_the_prose_gives_them(halls: Library) -> None:
    (info,) = halls.tables()
    headers = [c.header for c in info.schema.columns]
    assert headers[1:] == ["N (number of seats)", "AR (stage area in square metres)",
                           "DS (distance from the station in km)"], headers
    answer = ask_without_model(halls, "How far is the Drill Hall from the station?")
    assert answer.value == "2.1", answer.text
    answer = ask_without_model(halls, "Which venue has the largest stage area?")
    assert answer.value == "Drill Hall", answer.text


# town: admissions per 100,000 by age group, headed as a program names the groups
ADMISSIONS = {"Ardmore": (21, 26, 30), "Belcourt": (9, 18, 11), "Carrow": (23, 20, 22), "Dunleary": (14, 12, 35)}


@pytest.fixture(scope="module")
def admissions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    rows = [["Town", "A20.29", "A30.39", "A40.49"]] + [[t, *map(str, v)] for t, v in ADMISSIONS.items()]
    yield from _drawn(tmp_path_factory, "Table 5: Admissions per 100,000 residents", rows, [40, 200, 300, 400, 500])


def test_a_span_asked_reads_the_column_headed_by_its_numbers(admissions: Library) -> None:
    answer = ask_without_model(admissions, "Which town has the fewest admissions among people aged 30 to 39?")
    assert answer.value == "Dunleary", answer.text
    answer = ask_without_model(admissions, "What were the admissions per 100,000 in Carrow for ages 40-49?")
    assert answer.value == "22", answer.text
