"""Conversations and messages stored in the library, answers round-tripping as Answer JSON."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.library.conversations import (
    ConversationStore,
    answer_from_json,
    answer_to_json,
    title_from_question,
)
from core.library.store import Library
from models.types import Answer, CellEvidence, Citation, Step, Usage

pytestmark = pytest.mark.unit


def _answer() -> Answer:
    cell = CellEvidence("budget_p2", 3, "y2024", "1,234", 2, (100.0, 200.0, 150.0, 212.5))
    return Answer(
        question="What was the total budget in 2024?",
        text="The total was 4,321 thousand [1], as the report says [2].",
        citations=(
            Citation("table", "report.pdf", 7, 2, (90.0, 180.0, 400.0, 300.0), "Budget by department",
                     table="budget_p2", sql="SELECT SUM(y2024) FROM budget_p2", columns=("total",),
                     result=((4321,),), cells=(cell,)),
            Citation("text", "report.pdf", 7, 1, (50.0, 60.0, 500.0, 90.0), "Spending rose in 2024.",
                     boxes=((50.0, 60.0, 500.0, 75.0), (50.0, 76.0, 300.0, 90.0))),
        ),
        steps=(Step("total budget 2024", (4, 5), "SELECT SUM(y2024) FROM budget_p2", ("total",), ((4321,),),
                    None, "4,321", "the text says 4,300", answer_type="computed",
                    failures=("Operation choice: There is no row labelled 'Bridges'.",)),),
        usage=Usage(3, 1200, 80, 12.5, reused_tokens=900),
        mode="tablerag",
        model="scripted",
        answer_type="computed",
        parts=("4,321",),
        read_as="What was the total budget of the city in 2024?",
    )


def test_answer_json_round_trip_is_lossless() -> None:
    answer = _answer()
    assert answer_from_json(answer_to_json(answer)) == answer


def test_conversations_persist_across_connections(tmp_path: Path) -> None:
    path = tmp_path / "library.sqlite3"
    with Library(path) as library:
        store = ConversationStore(library.conn)
        first = store.create()
        store.add_question(first.id, "  What was the total   budget in 2024? ")
        store.add_answer(first.id, _answer())
        second = store.create()
        store.add_question(second.id, "Which department grew most?")
    with Library(path) as library:
        store = ConversationStore(library.conn)
        listed = store.conversations()
        assert [c.id for c in listed] == [second.id, first.id]  # the most recent first
        assert listed[1].title == "What was the total budget in 2024?"
        assert listed[1].message_count == 2
        messages = store.messages(first.id)
        assert [m.role for m in messages] == ["user", "assistant"]
        assert messages[1].answer == _answer()
        assert messages[1].content == _answer().text
        assert messages[0].answer is None
        # what a follow-up is read against: each question as it was understood (its answer's read_as)
        assert store.questions(first.id) == ["What was the total budget of the city in 2024?"]
        assert store.questions(second.id) == ["Which department grew most?"]


def test_a_later_question_keeps_the_title_and_delete_removes_messages(tmp_path: Path) -> None:
    with Library(tmp_path / "library.sqlite3") as library:
        store = ConversationStore(library.conn)
        conversation = store.create()
        store.add_question(conversation.id, "First question")
        store.add_question(conversation.id, "Second question")
        assert store.get(conversation.id).title == "First question"  # type: ignore[union-attr]
        store.delete(conversation.id)
        assert store.conversations() == []
        assert library.conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 0


def test_long_questions_make_short_titles() -> None:
    title = title_from_question("word " * 40)
    assert len(title) <= 60 and title.endswith("\u2026")
