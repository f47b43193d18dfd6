"""A statistics table's rows read as a person asks over them: a year printed as a fiscal span in a header
("Projected households 2031-32") is the year a question saying "2031-32" asks, and an average said over "the five
boroughs" is over the five rows, never the pooled row printed under them, and no average where the table lists
another number. The table is drawn as a ruled PDF and ingested for real (extraction, typing, SQLite, FTS5, vectors
from a hash embedder)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.ingest.ingestor import Ingestor
from core.library.store import Library
from tests.conftest import HashEmbedder
from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_query_bound import _draw, ask_refused_model

pytestmark = pytest.mark.unit

BOROUGHS = (("Ashcombe", 41.2, 18.5), ("Brindle", 36.8, 22.1), ("Corvale", 52.4, 15.0), ("Dunmere", 29.9, 31.7),
            ("Elsworth", 47.3, 12.6))
"""(borough, projected households in thousands, renting %)."""


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    directory = tmp_path_factory.mktemp("boroughs")
    body = [[b, f"{h:.1f}", f"{r:.1f}"] for b, h, r in BOROUGHS]
    body.append(["Pooled", f"{sum(h for _, h, _ in BOROUGHS):.1f}", "19.9"])
    _draw(directory / "housing.pdf", "Housing outlook by borough",
          ["Borough", "Projected households 2031-32 (thousand)", "Renting (%)"], body, [60, 200, 400, 520])
    opened = Library(directory / "library.sqlite3")
    result = Ingestor(opened, HashEmbedder()).ingest_file(directory / "housing.pdf")
    assert result.status == "added" and result.tables == 1, result
    yield opened
    opened.close()


def test_a_fiscal_span_in_a_header_is_the_year_the_question_says(library: Library) -> None:
    answer = ask_without_model(library, "Which borough has the fewest projected households for 2031-32?")
    fewest = min(BOROUGHS, key=lambda b: b[1])
    assert answer.value == fewest[0] and f"{fewest[1]}" in answer.text, answer.text


def test_an_average_over_the_rows_said_first_with_their_number(library: Library) -> None:
    answer = ask_without_model(library, "Across the five boroughs, what was the average renting percentage?")
    mean = sum(r for _, _, r in BOROUGHS) / len(BOROUGHS)
    assert answer.value == f"{mean:.2f}%", answer.text  # the pooled row's 19.9 is not a borough
    wrong = ask_refused_model(library, "Across the six boroughs, what was the average renting percentage?")
    assert wrong.status == "refused", wrong.text  # the table lists five
