"""A vote tally printed once per polling station (the same Option / Votes / Share table on every page, the station
named only in the title above it), ingested for real and asked about with no model call: a station's figure
found by the title's name or by its number, the station with the most, and a total over every page, each
citing the cells it read on their own pages."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pymupdf
import pytest

from core.ingest.ingestor import Ingestor
from core.library.store import Library
from tests.conftest import HashEmbedder
from tests.core.answering.test_table_query import ask_without_model
from tests.core.ingest.test_extraction import _draw_ruled

pytestmark = pytest.mark.unit

# station: yes, no, blank (made up)
STATIONS = {"Larchmont Community Centre": (412, 388, 9), "Quarry Lane Library": (530, 301, 14),
            "Saint Brendan's Hall": (275, 460, 6), "Upper Wexcombe School": (198, 204, 3)}


@dataclass
class Tally:
    library: Library


@pytest.fixture(scope="module")
def tally(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tally]:
    directory = tmp_path_factory.mktemp("tally")
    doc = pymupdf.open()
    for number, (name, (yes, no, blank)) in enumerate(STATIONS.items(), 1):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 50), "Parish poll on the relief road, official results", fontsize=10)
        page.insert_text((72, 80), f"Polling station {number}: {name}", fontsize=12)
        total = yes + no + blank
        rows = [["Option", "Votes", "Share (%)"]] + [
            [option, f"{votes:,}", f"{100 * votes / total:.1f}"] for option, votes in
            (("Yes", yes), ("No", no), ("Blank", blank))] + [["Total", f"{total:,}", "100.0"]]
        _draw_ruled(page, rows, [60, 220, 320, 420], 100, row_height=18)
    doc.save(directory / "poll.pdf")
    doc.close()
    library = Library(directory / "library.sqlite3")
    result = Ingestor(library, HashEmbedder()).ingest_file(directory / "poll.pdf")
    assert result.status == "added", result
    yield Tally(library)
    library.close()


def test_the_pages_are_one_table_keyed_by_each_page_s_title(tally: Tally) -> None:
    (info,) = tally.library.tables()
    assert (info.page, info.last_page) == (1, len(STATIONS))
    key = info.schema.columns[-1]
    assert key.header == "Polling station"
    keys = [r[0] for r in tally.library.conn.execute(f'SELECT DISTINCT "{key.name}" FROM "{info.name}" ORDER BY _row')]
    assert keys == [f"Polling station {n}: {name}" for n, name in enumerate(STATIONS, 1)]


def test_a_station_s_figure_found_by_the_name_in_its_title(tally: Tally) -> None:
    answer = ask_without_model(tally.library, "How many yes votes were cast at Quarry Lane Library?")
    assert answer.value == "530", answer.text
    cells = [c for citation in answer.citations for c in citation.cells]
    assert cells and {c.page for c in cells} == {2}  # the cell read, on its own page


def test_a_station_s_figure_found_by_its_number(tally: Tally) -> None:
    answer = ask_without_model(tally.library, "How many no votes were cast at polling station 3?")
    assert answer.value == "460", answer.text


def test_the_station_with_the_most_reads_every_page(tally: Tally) -> None:
    answer = ask_without_model(tally.library, "Which polling station had the most yes votes?")
    assert "Quarry Lane Library" in answer.value and "530" in answer.text, answer.text


def test_a_total_over_every_page_leaves_each_page_s_total_row_out(tally: Tally) -> None:
    answer = ask_without_model(tally.library, "How many yes votes were cast in total?")
    assert answer.value == f"{sum(v[0] for v in STATIONS.values()):,}", answer.text
    pages = {c.page for citation in answer.citations for c in citation.cells}
    assert pages == set(range(1, len(STATIONS) + 1))


def test_how_many_more_of_one_row_than_of_another_on_one_station_s_page(tally: Tally) -> None:
    yes, no, _ = STATIONS["Saint Brendan's Hall"]
    answer = ask_without_model(tally.library, "How many more yes votes than no votes were cast at Saint Brendan's Hall?")
    assert answer.value == f"-{no - yes}" and "fewer" in answer.text, answer.text
    assert {c.page for citation in answer.citations for c in citation.cells} == {3}


def test_a_figure_of_one_of_two_stacked_tables_named_by_the_words_its_column_also_took(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    # one ruled table stacking the women's and the men's counts, each under a title row of its own, the column
    # headed for the first: the words "women members" name both the column read and the women's part
    directory = tmp_path_factory.mktemp("stacked")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), "Table 2: Members in the sample by club section", fontsize=12)
    counts = {"women": {"Rowing": 31, "Sailing": 44, "Swimming": 52}, "men": {"Rowing": 48, "Sailing": 27, "Swimming": 39}}
    rows = [["Club section", "Women members (sample)", "Part"]]
    for who, figures in counts.items():
        rows += [[k, str(v), f"Number of {who} members by club section"] for k, v in figures.items()]
        rows += [["Total", str(sum(figures.values())), f"Number of {who} members by club section"]]
    _draw_ruled(page, rows, [60, 200, 330, 560], 80, row_height=18)
    doc.save(directory / "members.pdf")
    doc.close()
    library = Library(directory / "library.sqlite3")
    assert Ingestor(library, HashEmbedder()).ingest_file(directory / "members.pdf").status == "added"
    women = ask_without_model(library, "How many women members from the Sailing section were in the sample?")
    men = ask_without_model(library, "How many men members from the Sailing section were in the sample?")
    library.close()
    assert (women.value, men.value) == ("44", "27"), (women.text, men.text)
