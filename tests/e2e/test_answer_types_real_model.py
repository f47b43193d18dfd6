"""Answer types with the real embedded model over a report generated here and ingested for real: "in
which year was X highest" answers with the year, "respective" with both figures (never their difference),
and a question only the prose answers is answered from the prose, cited to it (issue 13)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.answering import answer_types as types
from core.ingest.ingestor import Ingestor
from core.library.store import Library
from models.embedding import MiniLMEmbedder
from tests.e2e.conftest import ask
from tests.support.report_builder import Section, TableSpec, build_report

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PROSE = ("Pension and benefit charges were $126 million in 2019, compared with $118 million in 2018, "
         "reflecting the higher discount rate.")


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    directory = tmp_path_factory.mktemp("types")
    pdf = directory / "shares_report.pdf"
    build_report(pdf, "Annual Report 2019", [
        Section("Earnings per share", paragraphs=[
            "The weighted average number of shares used in computing earnings per share (in thousands):",
        ], tables=[TableSpec("Weighted average shares", [["", "2019", "2018", "2017"]], [
            ["Basic weighted average shares outstanding", "8,943", "6,832", "6,610"],
            ["Diluted average shares outstanding", "9,120", "9,410", "7,002"],
            ["Net income", "2,191", "1,980", "1,744"],
        ])]),
        Section("Employee benefits", paragraphs=[
            "The group operates defined benefit plans for its employees in three countries.", PROSE,
        ]),
    ])
    lib = Library(directory / "library.sqlite3")
    result = Ingestor(lib, MiniLMEmbedder()).ingest_file(pdf)
    assert result.status == "added" and result.tables == 1
    yield lib
    lib.close()


def test_in_which_year_returns_the_year(library: Library, chat: object) -> None:
    answer = ask(library, chat, "In which year was the diluted average shares outstanding the highest?")
    assert answer.answer_type == types.COLUMN_HEADERS and answer.value == "2018"
    assert "9,410" in answer.text  # the value selected, as support
    cited = [c for c in answer.citations if c.sql]
    assert cited and "9,410" in {cell.text for c in cited for cell in c.cells}


def test_respective_returns_both_figures(library: Library, chat: object) -> None:
    answer = ask(library, chat, "What are the respective basic weighted average shares outstanding in 2019 and 2018?")
    assert answer.answer_type == types.FIGURES
    assert [p.split()[0] for p in answer.parts] == ["8,943", "6,832"]
    assert "2,111" not in answer.text  # never their difference


def test_a_question_the_prose_answers_is_answered_from_the_prose(library: Library, chat: object) -> None:
    answer = ask(library, chat, "What were the pension and benefit charges in 2019?")
    assert "126" in answer.value and "2,191" not in answer.text
    texts = [c for c in answer.citations if c.kind == "text"]
    assert any("126" in c.snippet for c in texts), answer.citations
