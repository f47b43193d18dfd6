"""A follow-up on a real filing with the real parts: the cover and the cash-flow statement of a 10-K from
../shared/bench/financebench-dev, ingested for real (extraction, typing, MiniLM embeddings), asked a question and
then "and in 2017?" with the embedded 1.5B model at hand and the 60-second budget a question has. The follow-up
must be read in full (issuer, measure, the new period) and answered from the statement's 2017 column, its cell
cited."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.answering import Answerer
from core.ingest.ingestor import Ingestor
from core.library.store import Library
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from models.embedding import MiniLMEmbedder
from tests.support.filings import FILINGS, cut_filing

FILING = "3M_2018_10K"
PAGES = (0, 59)
"""The cover (who files, for which year) and the consolidated statement of cash flows (0-based pages)."""

pytestmark = [pytest.mark.e2e, pytest.mark.slow,
              pytest.mark.skipif(not (FILINGS / f"{FILING}.pdf").is_file(),
                                 reason=f"the FinanceBench dev filings are not at {FILINGS}")]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    directory = tmp_path_factory.mktemp("filing")
    pdf = cut_filing(directory, FILING, PAGES)
    lib = Library(directory / "library.sqlite3")
    assert Ingestor(lib, MiniLMEmbedder()).ingest_file(pdf).status == "added"
    yield lib
    lib.close()


def test_a_follow_up_on_a_real_filing(library: Library, chat: object) -> None:
    runner = SqlRunner(library.path)
    try:
        answerer = Answerer(library, Retriever(library.conn, MiniLMEmbedder()), runner, chat,  # type: ignore[arg-type]
                            time_budget=60)
        first = answerer.answer("What was 3M's depreciation and amortization in 2018?")
        assert first.value.replace(",", "").startswith("$1488") or "1,488" in first.value, first.text
        second = answerer.answer("and in 2017?", earlier=[first.read_as or first.question])
    finally:
        runner.close()
    assert second.read_as == "What was 3M's depreciation and amortization in 2017?"
    assert "1,544" in second.value, second.text
    cells = [cell for c in second.citations for cell in c.cells]
    assert any(cell.text.replace("$", "").strip() == "1,544" and cell.column == "y2017" for cell in cells), cells
