"""The chat panel's pieces: links for citation markers, streamed text, steps, errors."""

from __future__ import annotations

from typing import Any

import pytest

from models.types import Answer, Citation, Step
from ui.chat_view import AnswerCard, answer_markdown_with_links, steps_html, with_markers

pytestmark = pytest.mark.ui


def _citation(page: int) -> Citation:
    return Citation("text", "report.pdf", 1, page, (10.0, 10.0, 100.0, 20.0), f"text on page {page}")


def test_only_markers_that_name_a_citation_become_links() -> None:
    text = answer_markdown_with_links("Total 5 [2], see [9] and [1].", 2)
    assert "[\\[2\\]](cite:2)" in text and "[\\[1\\]](cite:1)" in text
    assert "[9]" in text and "cite:9" not in text


def test_an_answer_without_markers_gets_them_at_the_end() -> None:
    assert with_markers("4000 thousand", 2) == "4000 thousand [1][2]"
    assert with_markers("It rose [1].", 2) == "It rose [1]."
    assert with_markers("No sources.", 0) == "No sources."


def test_steps_show_sql_results_errors_and_conflicts() -> None:
    steps = [Step("total 2024", sql="SELECT SUM(y2024) FROM t", sql_columns=("total",), sql_result=((4000,),),
                  intermediate_answer="4000", conflict="the text says 3,900; SQL gave 4000"),
             Step("libraries", sql="SELECT x FROM t", sql_error="no such column: x",
                  failures=("SQL: no such column: amount_2019",))]
    rendered = steps_html(steps)
    assert "Step 1." in rendered and "SELECT SUM(y2024) FROM t" in rendered and "<td>4000</td>" in rendered
    assert "Sources disagree:" in rendered and "3,900" in rendered
    assert "SQL error: no such column: x" in rendered
    assert "Tried and failed: SQL: no such column: amount_2019" in rendered


def test_a_card_streams_then_shows_the_answer(qtbot: Any) -> None:
    card = AnswerCard()
    qtbot.addWidget(card)
    card.show()
    for token in ("The ", "total ", "is ", "4,000."):
        card.add_token(token)
    qtbot.waitUntil(lambda: card.text.text() == "The total is 4,000.", timeout=2000)
    answer = Answer("q", "The total is 4,000 [1].", (_citation(3),), (Step("q", intermediate_answer="4,000"),))
    card.set_answer(answer)
    assert "(cite:1)" in card.text.text()
    assert [b.full_text for b in card.source_buttons] == ["[1]  report.pdf p.3"]
    assert card.steps_button.text() == "Steps (1)" and not card.status.isVisible()
    clicked: list[Any] = []
    card.citation_clicked.connect(lambda citation, number: clicked.append(number))
    card.source_buttons[0].click()
    assert clicked == [1]


def test_a_card_shows_an_error_in_place(qtbot: Any) -> None:
    card = AnswerCard()
    qtbot.addWidget(card)
    card.show_error("Ollama is not reachable.")
    assert card.status.text() == "Ollama is not reachable." and card.answer is None
    assert not card.copy_button.isVisible()
