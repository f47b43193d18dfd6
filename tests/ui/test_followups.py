"""A conversation in the window: a follow-up typed as people type it ("and in 2019?", "and for Alder?") carries the
period and issuer of the question before it and shows "Read as ..." under its answer, also once the conversation
is opened again; a new conversation carries nothing; a comparison of two companies' reports cites cells of both.
The library holds two generated reports of invented companies; code answers these, the scripted model only
stands by."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.conftest import HashEmbedder
from tests.support.statements import Figures, build_two_company_library
from tests.ui.conftest import ScriptedChat

pytestmark = pytest.mark.ui

JOB_TIMEOUT_MS = 60_000
REPLIES = {"action": {"action": "answer", "text": "I cannot tell which figure you mean."},
           "operation": {"operation": "none"}, "source": {"source": "text", "text_answer": "", "conflict": False},
           "answer": {"answer": "I cannot tell which figure you mean."}, "text": "I cannot tell which figure you mean."}


@pytest.fixture
def figures(tmp_path: Path) -> list[Figures]:
    _, drawn = build_two_company_library(tmp_path / "library", HashEmbedder())  # the window's library
    return drawn


def asked(qtbot: Any, window: Any, question: str) -> Any:
    """Type ``question`` and press Enter, as a person asks; the answer's card once it is answered and saved."""
    with qtbot.waitSignal(window.controller.conversation_saved, timeout=JOB_TIMEOUT_MS):
        qtbot.keyClicks(window.chat_view.question, question)
        qtbot.keyClick(window.chat_view.question, Qt.Key.Key_Return)
    job = window.chat_view.job
    assert job is not None and job.outcome == "finished", job.error_message if job else "not asked"
    return window.chat_view.answer_cards()[-1]


def test_a_follow_up_carries_the_period_and_issuer_and_shows_how_it_was_read(
        qtbot: Any, make_window: Any, figures: list[Figures]) -> None:
    northgate, alder = figures
    window = make_window(chat=ScriptedChat(REPLIES))
    first = asked(qtbot, window, "What was Northgate's net income in 2020?")
    assert first.read_as.isHidden()
    card = asked(qtbot, window, "and in 2019?")
    assert not card.read_as.isHidden() and card.read_as.text() == "Read as: What was Northgate's net income in 2019?"
    assert f"{northgate.lines['net income'][2019]:,.0f} thousand" in card.text.text()
    card = asked(qtbot, window, "and for Alder?")
    assert card.read_as.text() == "Read as: What was Alder's net income in 2019?"
    assert card.answer.value == f"{alder.lines['net income'][2019]:,.0f} thousand"
    assert {c.document_id for c in card.answer.citations if c.cells} == {2}  # Alder's own report

    conversation = window.chat_view.conversation_id
    window.new_conversation()
    window.open_conversation(conversation)  # the stored conversation shows how each follow-up was read
    shown = [c.read_as.text() for c in window.chat_view.answer_cards()]
    assert shown == ["", "Read as: What was Northgate's net income in 2019?",
                     "Read as: What was Alder's net income in 2019?"]
    card = asked(qtbot, window, "what about its revenue?")  # and goes on where it was
    assert card.read_as.text() == "Read as: What was Alder's revenue in 2019?"
    assert card.answer.value == f"{alder.lines['revenue'][2019]:,.0f} thousand"

    window.new_conversation()  # a new conversation starts clean
    card = asked(qtbot, window, "and in 2018?")
    assert card.answer.read_as == "" and card.read_as.isHidden()
    assert card.answer.question == "and in 2018?"

    later = make_window(chat=ScriptedChat(REPLIES))  # Folio started again: the stored conversation goes on
    later.open_conversation(conversation)
    card = asked(qtbot, later, "and in 2018?")
    assert card.read_as.text() == "Read as: What was Alder's revenue in 2018?"


def test_a_comparison_of_two_reports_cites_cells_of_both(qtbot: Any, make_window: Any,
                                                        figures: list[Figures]) -> None:
    northgate, alder = figures
    window = make_window(chat=ScriptedChat(REPLIES))
    card = asked(qtbot, window, "Compare Northgate's and Alder's revenue in 2019")
    ours, theirs = northgate.lines["revenue"][2019], alder.lines["revenue"][2019]
    assert card.answer.value == f"{ours - theirs:,.0f} thousand"
    cited = {(c.document_id, cell.text.replace(",", "")) for c in card.answer.citations for cell in c.cells}
    assert cited == {(1, f"{ours:.0f}"), (2, f"{theirs:.0f}")}
    assert len(card.source_buttons) == 2
    shown = card.text.text()
    assert f"| Difference | {ours - theirs:+,.0f} thousand | |" in shown  # the table, under the sentence
    clicked: list[Any] = []
    card.citation_clicked.connect(lambda citation, number: clicked.append((citation.document_id, number)))
    qtbot.mouseClick(card.source_buttons[1], Qt.MouseButton.LeftButton)
    assert clicked == [(2, 2)]
    qtbot.waitUntil(lambda: window.evidence_view.isVisible(), timeout=5000)
