"""What a person sees between Enter and the answer: the bubble names the stage before the model has
answered anything (the first question names what it waits for: the model loading, the search index), and
an answer the model streams is shown as it is written."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.settings import Settings
from models.types import ChatMessage, ChatReply
from tests.ui.conftest import QUESTION, ScriptedChat, budget_chat, budget_pdf

pytestmark = pytest.mark.ui

JOB_TIMEOUT_MS = 20_000


class LoadingChat(ScriptedChat):
    """The scripted chat, but like the embedded model it is not loaded until ``warm_up`` (which takes a while)
    and it streams its words one by one with a pause between them."""

    def __init__(self, replies: dict[str, Any], load_seconds: float, word_seconds: float) -> None:
        super().__init__(replies)
        self.loaded = False
        self.load_seconds = load_seconds
        self.word_seconds = word_seconds

    def warm_up(self) -> None:
        if not self.loaded:
            time.sleep(self.load_seconds)
            self.loaded = True
        super().warm_up()

    def chat(self, messages: Sequence[ChatMessage], *, schema: dict[str, Any] | None = None, max_tokens: int = 512,
             on_token: Callable[[str], None] | None = None) -> ChatReply:
        def slow(token: str) -> None:
            time.sleep(self.word_seconds)
            assert on_token is not None
            on_token(token)

        return super().chat(messages, schema=schema, max_tokens=max_tokens, on_token=slow if on_token else None)


def _ingest(qtbot: Any, window: Any, path: Path) -> None:
    job = window.add_paths([path])
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert job.outcome == "finished", job.error_message


def test_the_stage_shows_before_the_model_answers_and_names_the_wait_for_the_model(qtbot: Any, make_window: Any,
                                                                                  tmp_path: Path) -> None:
    scripted = budget_chat()
    chat = LoadingChat(scripted.replies, load_seconds=1.0, word_seconds=0.0)
    window = make_window(chat=chat)
    _ingest(qtbot, window, budget_pdf(tmp_path / "budget.pdf"))
    seen: list[tuple[str, int]] = []  # the status bar's text, and how many model calls had been made by then
    window.chat_view.progress_changed.connect(lambda text: seen.append((text, len(chat.calls))))
    qtbot.keyClicks(window.chat_view.question, QUESTION)
    qtbot.keyClick(window.chat_view.question, Qt.Key.Key_Return)
    card = window.chat_view.answer_cards()[-1]
    assert card.status.text().startswith("Starting")  # at once, before the job has even begun
    job = window.chat_view.job
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert job.outcome == "finished", job.error_message
    stages = [text.split("\u2026")[0] for text, _calls in seen if text]
    assert "Loading the language model" in stages
    before_any_call = [text for text, calls in seen if text and calls == 0 and not text.startswith("Starting")]
    assert before_any_call, seen
    assert card.answer is not None and chat.loaded


def test_the_search_stack_is_ready_after_the_model_check(qtbot: Any, make_window: Any) -> None:
    window = make_window()
    job = window.controller.check_model()
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert window.controller.model_status.state == "ready"
    assert window.controller._answering_ready.is_set()


def test_a_streamed_answer_is_shown_while_it_is_written(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    replies = dict(budget_chat().replies)
    replies["text"] = "Parks and Roads were budgeted 4,000 in 2024 together, as Table 1 shows [1]."
    chat = LoadingChat(replies, load_seconds=0.0, word_seconds=0.15)
    window = make_window(chat=chat, settings=Settings(backend="embedded", answer_mode="naive"))
    _ingest(qtbot, window, budget_pdf(tmp_path / "budget.pdf"))
    job = window.ask(QUESTION)
    assert job is not None
    card = window.chat_view.answer_cards()[-1]
    shown: list[str] = []
    job.reported.connect(lambda kind, _value: shown.append(card.text.text()) if kind == "token" else None)
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert card.answer is not None and "4,000" in card.answer.text
    partial = [text for text in shown if text and "4,000" not in text]
    assert partial and all(replies["text"].startswith(text.rstrip()) for text in partial), shown
