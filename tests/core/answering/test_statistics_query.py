"""Questions over a statistics table (regions by measures, a group heading over its sub-columns, a totals row,
figures in the European convention) answered by a query plan, with no model call: a cell found by its row and its
column, the top three, a count of the rows with no figure, a count past a threshold whose column the question names
by its unit, an average that leaves the totals row out. The table is drawn as a ruled PDF and ingested for real."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pymupdf
import pytest

from core.ingest.ingestor import Ingestor
from core.library.store import Library
from models.types import Answer
from tests.conftest import HashEmbedder
from tests.core.answering.test_table_query import ask_without_model
from tests.core.ingest.test_extraction import _draw_ruled

pytestmark = pytest.mark.unit

# region: oats area (ha), oats harvest (t), rye area (ha), rye harvest (t); None: printed "-"
REGIONS: dict[str, tuple[float, int, float, int | None]] = {
    "Ashvale": (12_406.5, 61_230, 3_118.2, 9_840),
    "Brindlemoor": (31_877.0, 150_912, 808.4, None),
    "Corwick": (8_215.3, 40_118, 5_530.9, 17_006),
    "Dunmore": (40_052.8, 204_377, 1_002.6, 3_115),
    "Elsworth": (27_310.1, 129_508, 0.0, None),
    "Farrowdale": (35_644.2, 166_021, 7_219.0, 22_480),
}


def _european(value: float | None, decimals: int) -> str:
    if value is None:
        return "-"
    text = f"{value:,.{decimals}f}"
    return text.replace(",", "_").replace(".", ",").replace("_", ".")


@dataclass
class Statistics:
    library: Library


@pytest.fixture(scope="module")
def statistics(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Statistics]:
    directory = tmp_path_factory.mktemp("statistics")
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 60), "Table 4: Oats and rye by region, harvest 2024", fontsize=12)
    header = [["Region", "Oats", "Oats", "Rye", "Rye"], ["", "Area (ha)", "Harvest (t)", "Area (ha)", "Harvest (t)"]]
    body = [[name, _european(a, 1), _european(h, 0), _european(ra, 1), _european(rh, 0)]
            for name, (a, h, ra, rh) in REGIONS.items()]
    totals = [sum(v[i] or 0 for v in REGIONS.values()) for i in range(4)]
    body.append(["Total", _european(totals[0], 1), _european(totals[1], 0), _european(totals[2], 1),
                 _european(totals[3], 0)])
    _draw_ruled(page, header + body, [60, 180, 280, 380, 480, 570], 80, row_height=17)
    doc.save(directory / "harvest.pdf")
    doc.close()
    library = Library(directory / "library.sqlite3")
    result = Ingestor(library, HashEmbedder()).ingest_file(directory / "harvest.pdf")
    assert result.status == "added" and result.tables == 1, result
    yield Statistics(library)
    library.close()


def _ask(statistics: Statistics, question: str) -> Answer:
    return ask_without_model(statistics.library, question)


def test_figures_in_the_european_convention_are_read_as_printed(statistics: Statistics) -> None:
    rows = statistics.library.conn.execute(f"SELECT * FROM {_table(statistics)} ORDER BY _row").fetchall()
    harvests = [r[3] for r in rows]  # "61.230": sixty-one thousand, beside "12.406,5"
    assert harvests[: len(REGIONS)] == [v[1] for v in REGIONS.values()]


def test_a_cell_found_by_its_row_and_its_column(statistics: Statistics) -> None:
    answer = _ask(statistics, "What was the rye harvest in Corwick in 2024?")
    assert answer.value.startswith("17,006"), answer.text
    assert "Corwick" in answer.text and "have a value" not in answer.text
    cited = next(c for c in answer.citations if c.sql)
    assert len(cited.cells) == 1


def test_the_three_regions_with_the_largest_figures(statistics: Statistics) -> None:
    answer = _ask(statistics, "Which three regions had the largest oats harvest in 2024?")
    ranked = sorted(REGIONS, key=lambda name: -REGIONS[name][1])[:3]
    assert list(answer.parts) == ranked, answer.text


def test_a_count_of_the_rows_with_no_figure(statistics: Statistics) -> None:
    answer = _ask(statistics, "How many regions recorded no rye harvest?")
    assert answer.value == str(sum(1 for v in REGIONS.values() if not v[3])), answer.text


def test_a_count_past_a_threshold_on_the_column_its_unit_names(statistics: Statistics) -> None:
    answer = _ask(statistics, "How many regions sowed oats on more than 30,000 hectares?")
    assert answer.value == str(sum(1 for v in REGIONS.values() if v[0] > 30_000)), answer.text
    assert "Area" in answer.text


def test_an_average_per_row_leaves_the_totals_row_out(statistics: Statistics) -> None:
    answer = _ask(statistics, "What was the average oats harvest per region?")
    mean = sum(v[1] for v in REGIONS.values()) / len(REGIONS)
    assert answer.value.replace(",", "").startswith(f"{mean:.2f}"[:6]), answer.text


def _table(statistics: Statistics) -> str:
    return str(statistics.library.conn.execute("SELECT name FROM extracted_tables").fetchone()[0])


def test_how_many_more_of_one_column_than_another_in_a_row(statistics: Statistics) -> None:
    oats, _, rye, _ = REGIONS["Farrowdale"]
    answer = _ask(statistics, "In Farrowdale, how many more hectares were sown with oats than with rye in 2024?")
    assert answer.value == f"{oats - rye:,.1f}", answer.text
