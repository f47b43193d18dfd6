"""Measures across statements with the real parts: a generated annual report (statement of income, balance
sheet, statement of cash flows, spending and budget by department) ingested for real (extraction, typing,
MiniLM embeddings), asked through the ``Answerer`` with the real embedded 1.5B model. A ratio of a
cash-flow line to a balance-sheet line, revenue over average assets and a department's overspend must
come out exact, each computed by one SQL statement, with the cells of both tables cited."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.ingest.ingestor import Ingestor
from core.library.store import Library
from models.embedding import MiniLMEmbedder
from models.types import Answer
from tests.e2e.conftest import ask
from tests.support.statements import Figures, Question, build_statements_report, multi_table_questions

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, Figures]]:
    directory = tmp_path_factory.mktemp("statements_real")
    pdf = directory / "annual_report.pdf"
    _, figures = build_statements_report(pdf, seed=4)  # a charity: "Total income", "Statement of Financial Activities"
    library = Library(directory / "library.sqlite3")
    result = Ingestor(library, MiniLMEmbedder()).ingest_file(pdf)
    assert result.status == "added" and result.tables == 5, result
    yield library, figures
    library.close()


def _exact(answer: Answer, question: Question) -> None:
    wanted = f"{question.answer:,.{question.decimals}f}" if question.decimals else f"{round(question.answer):,}"
    assert wanted in answer.text, answer.text
    cited = [c for c in answer.citations if c.sql and c.cells]
    assert len({c.table for c in cited}) == question.tables, answer.citations
    assert len({c.sql for c in cited}) == 1  # one statement computed it


@pytest.mark.parametrize("index", [0, 1, 6], ids=["cash-flow-over-balance-sheet", "revenue-over-average-assets",
                                                  "spending-against-budget"])
def test_measures_across_tables_are_exact_with_both_tables_cited(report: tuple[Library, Figures], chat: object,
                                                                  index: int) -> None:
    library, figures = report
    question = multi_table_questions(figures)[index]
    _exact(ask(library, chat, question.text), question)
