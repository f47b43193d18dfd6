"""Fixtures for window tests: a controller over a temporary library with the hash embedder and a
scripted chat model injected, PDFs drawn with pymupdf, and a helper that drops files on a widget
the way a file manager does (a QDropEvent carrying file URLs)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget

from app.controller import Controller, default_chat_model
from app.settings import CONFIG_ENV, Settings
from models.types import ChatMessage, ChatReply, Usage
from tests.conftest import HashEmbedder
from tests.support.pdfs import draw_ruled_table
from ui.main_window import MainWindow

pytestmark = pytest.mark.ui

BUDGET_ROWS = [["Department", "2023", "2024"], ["Parks", "1,200", "1,350"], ["Roads", "2,400", "2,650"],
               ["Libraries", "800", "820"]]
COLUMN_X = [72, 250, 370, 490]
TABLE_TOP, ROW_HEIGHT = 165, 22


def budget_pdf(path: Path, title: str = "Northwind Council Budget Report") -> Path:
    """One page: a title, a sentence, a captioned ruled table with thousands separators."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 80), title, fontsize=16)
    page.insert_text((72, 110), "Spending on parks and roads rose in 2024 after a quiet 2023.", fontsize=10)
    page.insert_text((72, 150), "Table 1: Budget by department ($ thousands)", fontsize=11)
    draw_ruled_table(page, BUDGET_ROWS, COLUMN_X, TABLE_TOP, ROW_HEIGHT, pad=6)
    page.insert_text((72, 300), "The council approved the budget in March.", fontsize=10)
    doc.save(path)
    doc.close()
    return path


def prose_pdf(path: Path, pages: int) -> Path:
    """Many pages of short paragraphs: enough chunks for several embedding batches."""
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        page = doc.new_page(width=595, height=842)
        for paragraph in range(4):
            y = 80 + paragraph * 180
            text = f"Section {number}.{paragraph}: the committee reviewed item {number * 10 + paragraph} in detail. " * 6
            page.insert_textbox(pymupdf.Rect(72, y, 523, y + 160), text, fontsize=10)
    doc.save(path)
    doc.close()
    return path


class ScriptedChat:
    """A chat model whose replies are computed from the JSON schema it is asked to fill.

    ``replies`` maps a schema's distinguishing property (``action``, ``operation``, ``source``,
    ``answer``) or ``"text"`` (no schema) to a reply: a dict (sent as JSON), a string, or a callable
    ``(schema) -> dict | str``. Every call is recorded; ``delay`` slows each call down.
    """

    name = "scripted"

    def __init__(self, replies: dict[str, Any], delay: float = 0.0) -> None:
        self.replies = replies
        self.delay = delay
        self.calls: list[tuple[list[ChatMessage], dict[str, Any] | None]] = []
        self.warmed = threading.Event()

    def warm_up(self) -> None:
        self.warmed.set()

    def chat(self, messages: Sequence[ChatMessage], *, schema: dict[str, Any] | None = None, max_tokens: int = 512,
             on_token: Callable[[str], None] | None = None) -> ChatReply:
        self.calls.append((list(messages), schema))
        if self.delay:
            time.sleep(self.delay)
        key = "text"
        if schema is not None:
            key = next(k for k in ("action", "filters", "operation", "source", "answer", "answer_type")
                       if k in schema.get("properties", {}))
        if key == "answer_type" and key not in self.replies:  # the answer type (issue 13): the enum's first choice
            reply: Any = {"answer_type": schema["properties"]["answer_type"]["enum"][0]} if schema else {}
        elif key == "filters" and key not in self.replies:  # a query plan over a table's rows: none to give
            reply = {}
        else:
            reply = self.replies[key]
        if callable(reply):
            reply = reply(schema)
        text = json.dumps(reply) if isinstance(reply, dict) else str(reply)
        if on_token is not None:
            for word in text.split(" "):
                on_token(word + " ")
        return ChatReply(text, Usage(1, sum(len(m.content.split()) for m in messages), len(text.split()), 0.0))


class GatedEmbedder(HashEmbedder):
    """The hash embedder, but its ``blocked_call``-th call waits until the test opens the gate."""

    def __init__(self, blocked_call: int = 1) -> None:
        self.entered = threading.Event()
        self.gate = threading.Event()
        self.blocked_call = blocked_call
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        if self.calls == self.blocked_call:
            self.entered.set()
            self.gate.wait(30)
        return super().embed(texts)


def sum_of_2024(schema: dict[str, Any]) -> dict[str, Any]:
    """Choose the 2024 cells of Parks and Roads, by the labels the schema offers."""
    cell = schema["properties"]["cells"]["items"]["properties"]
    rows, columns = cell["row"]["enum"], cell["column"]["enum"]
    column = next(c for c in columns if "2024" in c)
    chosen = [r for r in rows if r in ("Parks", "Roads")]
    return {"operation": "sum", "cells": [{"row": r, "column": column} for r in chosen]}


QUESTION = "What was the total budget for Parks and Roads in 2024?"


def budget_chat(delay: float = 0.0) -> ScriptedChat:
    return ScriptedChat(
        {
            "action": {"action": "ask", "text": QUESTION},
            "operation": sum_of_2024,
            "source": {"source": "sql", "text_answer": "", "conflict": False},
            "answer": {"answer": "It is not in the text."},
            "text": "The budget rose [1].",
        },
        delay=delay,
    )


TEXT_QUESTION = "When did the council approve the budget?"
"""A question only the page's prose answers: code finds no figure for it, so the model is asked."""
TEXT_ANSWER = "The council approved the budget in March."


def text_chat(delay: float = 0.0) -> ScriptedChat:
    """A model that answers ``TEXT_QUESTION`` from the passage that says it."""
    return ScriptedChat({"answer": {"answer": TEXT_ANSWER}, "text": f"{TEXT_ANSWER[:-1]} [1]."}, delay=delay)


def drop_files(widget: QWidget, paths: Sequence[Path]) -> tuple[bool, bool]:
    """Drag ``paths`` over ``widget`` and drop them; returns (enter accepted, drop accepted)."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    point = QPointF(widget.width() / 2, widget.height() / 2)
    try:  # PySide6 >= 6.12 takes a QPointF (and deprecates the QPoint form); older ones only a QPoint
        enter = QDragEnterEvent(point, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier)
    except TypeError:
        enter = QDragEnterEvent(point.toPoint(), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                                Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, enter)
    drop = QDropEvent(point, Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, drop)
    return enter.isAccepted(), drop.isAccepted()


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "config"
    monkeypatch.setenv(CONFIG_ENV, str(directory))
    return directory


WindowFactory = Callable[..., MainWindow]


@pytest.fixture
def make_window(qtbot: Any, tmp_path: Path, config_dir: Path) -> Iterator[WindowFactory]:
    """Build windows over ``tmp_path/library`` with injected models; everything is closed afterwards."""
    built: list[tuple[MainWindow, Controller]] = []

    def make(chat: Any = None, embedder: Any = None, settings: Settings | None = None,
             real_chat_models: bool = False, **controller_options: Any) -> MainWindow:
        """``real_chat_models`` builds chat models from the settings as the app does (for Ollama tests);
        ``controller_options`` go to the Controller (a fake ``weights_installer``, say)."""
        chat = chat if chat is not None else budget_chat()
        embedder = embedder if embedder is not None else HashEmbedder()
        factory = default_chat_model if real_chat_models else (lambda _settings: chat)
        controller = Controller(tmp_path / "library", settings or Settings(backend="embedded"),
                                embedder_factory=lambda: embedder, chat_model_factory=factory, **controller_options)
        window = MainWindow(controller)
        qtbot.addWidget(window)
        window.resize(1200, 760)
        window.show()
        window.activateWindow()  # keyboard shortcuts only reach the active window
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5000)
        built.append((window, controller))
        return window

    yield make
    for window, controller in built:
        window.close()
        controller.close()
