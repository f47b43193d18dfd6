"""The whole path with the real parts: a report PDF generated here, ingested for real (extraction, typing, MiniLM
embeddings), then a sum and a difference asked in TableRAG mode with the embedded 1.5B model at hand. Both
must come out exact, computed by SQL, with citations of the table cells they came from (code reads both, so the
model is called for neither; tests/e2e/test_answer_types_real_model.py asks it what only the prose answers)."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pymupdf
import pytest

from core.ingest.ingestor import Ingestor
from core.library.store import Library
from models.embedding import MiniLMEmbedder
from models.types import Answer
from tests.e2e.conftest import ask
from tests.support.report_builder import Section, TableSpec, build_report

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    directory = tmp_path_factory.mktemp("real")
    pdf = directory / "city_budget.pdf"
    build_report(pdf, "City Budget Report 2019", [
        Section("Spending", paragraphs=[
            ("The council reviewed departmental spending for 2019. Road maintenance grew after the harsh "
             "winter, and two new playgrounds raised park spending."),
            "The table below shows spending by department (in millions):",
        ], tables=[TableSpec("Spending by department", [["Department", "2019", "2018"]], [
            ["Roads", "120.5", "110.0"],
            ["Parks", "80.0", "75.5"],
            ["Schools", "300.25", "280.0"],
            ["Total", "500.75", "465.5"],
        ])]),
        Section("Staff", paragraphs=["The parks department employed 42 gardeners in 2019, up from 38 in 2018."]),
    ])
    lib = Library(directory / "library.sqlite3")
    result = Ingestor(lib, MiniLMEmbedder()).ingest_file(pdf)
    assert result.status == "added" and result.tables == 1
    yield lib
    lib.close()


def _number(text: str) -> float:
    found = re.search(r"-?\d+(?:\.\d+)?", text.replace(",", ""))
    assert found, text
    return float(found.group(0))


def _check_cells(library: Library, answer: Answer, expected: set[str]) -> None:
    cited = [c for c in answer.citations if c.sql]
    assert cited, answer.citations
    cells = [cell for c in cited for cell in c.cells]
    assert expected <= {cell.text for cell in cells}
    pdf = pymupdf.open(library.documents()[0].path)
    for cell in cells:
        if cell.text in expected:
            # The cited box holds the printed number.
            printed = pdf[cell.page - 1].get_text(clip=pymupdf.Rect(cell.bbox)).strip()
            assert printed == cell.text


def test_sum_over_a_table_is_exact(library: Library, chat: object) -> None:
    answer = ask(library, chat, "What was the total spending on roads and parks in 2019?")
    assert _number(answer.value) == pytest.approx(200.5)
    assert "120.5 + 80 = 200.5 million" in answer.text, answer.text  # what was computed, from which cells
    assert any(s.sql and s.sql_result and s.sql_result[0][0] == pytest.approx(200.5) for s in answer.steps)
    _check_cells(library, answer, {"120.5", "80.0"})


def test_difference_over_a_table_is_exact(library: Library, chat: object) -> None:
    answer = ask(library, chat, "What was the change in school spending from 2018 to 2019?")
    assert _number(answer.value) == pytest.approx(20.25)
    assert "300.25 - 280 = 20.25 million" in answer.text, answer.text
    assert any(s.sql and s.sql_result and s.sql_result[0][0] == pytest.approx(20.25) for s in answer.steps)
    _check_cells(library, answer, {"300.25", "280.0"})
    assert answer.usage.calls == 0  # code bound both cells: no model call
