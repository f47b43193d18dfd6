"""Questions as turns of a conversation, through the real ``Answerer`` over two generated reports of invented
companies (ingested for real: extraction, typing, SQLite, FTS5, hash-embedder vectors): a follow-up carries the
issuer, period and measure of the question before it and says how it was read; a comparison of the two companies
is answered in each one's document, every figure's cell cited, and the difference computed in code; a question
that stands alone is answered as it always was. The scripted chat model fails the test if it is called: code
reads and answers all of these."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.answering import Answerer
from core.library.store import Library
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from tests.conftest import HashEmbedder
from tests.core.answering.test_answering_library import ScriptedChat
from tests.support.statements import Figures, build_two_company_library

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Answerer, ScriptedChat, list[Figures]]]:
    path, figures = build_two_company_library(tmp_path_factory.mktemp("two"), HashEmbedder())
    library = Library(path)
    runner = SqlRunner(library.path)
    chat = ScriptedChat()  # no reply queued: any model call fails the test
    yield Answerer(library, Retriever(library.conn, HashEmbedder()), runner, chat), chat, figures
    runner.close()
    library.close()


def _thousands(value: float) -> str:
    return f"{value:,.0f} thousand"


def test_a_follow_up_carries_the_period_issuer_and_measure(two: tuple[Answerer, ScriptedChat, list[Figures]]) -> None:
    answerer, chat, (northgate, alder) = two
    first = answerer.answer("What was Northgate's net income in 2020?")
    assert first.value == _thousands(northgate.lines["net income"][2020]) and first.read_as == ""
    earlier = [first.question]
    second = answerer.answer("and in 2019?", earlier=earlier)
    assert second.question == "and in 2019?"
    assert second.read_as == "What was Northgate's net income in 2019?"
    assert second.value == _thousands(northgate.lines["net income"][2019])
    earlier.append(second.read_as)
    third = answerer.answer("and for Alder?", earlier=earlier)
    assert third.read_as == "What was Alder's net income in 2019?"
    assert third.value == _thousands(alder.lines["net income"][2019])
    # each answered from its company's own report (Northgate's is document 1, Alder's document 2)
    assert {c.document_id for c in second.citations if c.cells} == {1}
    assert {c.document_id for c in third.citations if c.cells} == {2}
    earlier.append(third.read_as)
    fourth = answerer.answer("what about its revenue?", earlier=earlier)
    assert fourth.read_as == "What was Alder's revenue in 2019?"
    assert fourth.value == _thousands(alder.lines["revenue"][2019])
    assert chat.calls == []


def test_a_comparison_cites_both_documents_and_computes_the_difference(
        two: tuple[Answerer, ScriptedChat, list[Figures]]) -> None:
    answerer, chat, (northgate, alder) = two
    answer = answerer.answer("Compare Northgate's and Alder's net income in 2020")
    ours, theirs = northgate.lines["net income"][2020], alder.lines["net income"][2020]
    assert answer.value == _thousands(ours - theirs)
    assert f"{ours:,.0f} thousand" in answer.text and f"{theirs:,.0f} thousand" in answer.text
    assert answer.steps[-1].intermediate_answer == \
        f"{_thousands(ours)} - {_thousands(theirs)} = {_thousands(ours - theirs)}"
    cells = {(c.document_id, cell.text.replace(",", "")) for c in answer.citations for cell in c.cells}
    assert {document for document, _ in cells} == {1, 2}  # each figure from its own report, its cell cited
    assert {(1, f"{ours:.0f}"), (2, f"{theirs:.0f}")} <= cells
    assert f"| Northgate | {_thousands(ours)} | [1] |" in answer.text
    assert f"| Alder | {_thousands(theirs)} | [2] |" in answer.text
    assert chat.calls == []


def test_a_ranking_and_a_comparison_over_periods(two: tuple[Answerer, ScriptedChat, list[Figures]]) -> None:
    answerer, chat, (northgate, alder) = two
    ranked = answerer.answer("Which of Northgate and Alder had the lower revenue in 2018?")
    lower = "Northgate" if northgate.lines["revenue"][2018] < alder.lines["revenue"][2018] else "Alder"
    assert ranked.value == lower and ranked.text.startswith(f"{lower} had the lowest revenue in 2018")
    over = answerer.answer("What was Alder's revenue in 2018 vs 2020?")
    change = alder.lines["revenue"][2020] - alder.lines["revenue"][2018]
    assert over.value == _thousands(change)
    assert {cell.column for c in over.citations for cell in c.cells} == {"y2018", "y2020"}
    followed = answerer.answer("and for Northgate?", earlier=[over.question])
    assert followed.read_as == "What was Northgate's revenue in 2018 vs 2020?"
    assert followed.value == _thousands(northgate.lines["revenue"][2020] - northgate.lines["revenue"][2018])
    assert chat.calls == []


def test_a_question_that_stands_alone_is_answered_as_asked(two: tuple[Answerer, ScriptedChat, list[Figures]]) -> None:
    answerer, chat, (northgate, _) = two
    answer = answerer.answer("What was Northgate's revenue in 2019?", earlier=["What was Alder's net income in 2020?"])
    assert answer.read_as == "" and answer.value == _thousands(northgate.lines["revenue"][2019])
    assert chat.calls == []
