"""An answer read from one of several matching reports offers the others; a click asks the same question
there, and that answer cites only the report clicked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.core.search.test_routing import ISSUERS, _filing
from tests.ui.conftest import ScriptedChat
from ui.chat_view import QuestionCard

pytestmark = pytest.mark.ui

JOB_TIMEOUT_MS = 60_000
QUESTION = "What were Acme's purchases of property, plant and equipment?"
REPLIES = {"action": {"action": "answer", "text": "See the cash-flow statement."},
           "operation": {"operation": "none"}, "source": {"source": "text", "text_answer": "", "conflict": False},
           "answer": {"answer": "See the cash-flow statement."}, "text": "See the cash-flow statement."}


def test_clicking_an_alternative_asks_the_question_in_that_report(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(chat=ScriptedChat(REPLIES))
    job = window.add_paths([_filing(tmp_path / f"Acme_{year}.pdf", ISSUERS[0], year) for year in (2018, 2019)])
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    ids = {d.file_name: d.id for d in window.controller.documents()}
    job = window.ask(QUESTION)
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert job.outcome == "finished", job.error_message
    card = window.chat_view.answer_cards()[-1]
    used = {c.document_id for c in card.answer.citations}
    assert used == {ids["Acme_2019.pdf"]}  # no year asked: the latest annual report answers
    assert [b.full_text for b in card.alternative_buttons] == [
        f"Ask in {card.answer.alternatives[0].name}"] and "2018" in card.answer.alternatives[0].name

    with qtbot.waitSignal(window.chat_view.ask_in_requested, timeout=5000) as clicked:
        qtbot.mouseClick(card.alternative_buttons[0], Qt.MouseButton.LeftButton)
    assert clicked.args == [QUESTION, card.answer.alternatives[0]]
    again = window.chat_view.job
    assert again is not None and again is not job
    with qtbot.waitSignal(again.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert again.outcome == "finished", again.error_message
    answer = window.chat_view.answer_cards()[-1].answer
    assert answer.question == QUESTION and {c.document_id for c in answer.citations} == {ids["Acme_2018.pdf"]}
    assert answer.alternatives == ()
    asked = [c.label.text() for c in window.chat_view.cards if isinstance(c, QuestionCard)]
    assert asked == [QUESTION, f"{QUESTION} \u2014 in {card.answer.alternatives[0].name}"]
