"""Answers a person can trust at a glance, driven in the window: an empty library answered at once
without the model; a refusal shown as one; the stage and the seconds in the bubble and the status bar
while a slow model works; Stop at any stage; sources and the preview caption in human words with the
SQL one click away; the missing-model state with its install command and button; the layout at
1366x768 with the evidence open."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.settings import Settings
from tests.ui.conftest import (
    QUESTION,
    TEXT_ANSWER,
    TEXT_QUESTION,
    ScriptedChat,
    budget_chat,
    budget_pdf,
    text_chat,
)

pytestmark = pytest.mark.ui

JOB_TIMEOUT_MS = 60_000
PROGRESS = re.compile(r"^\S.*\u2026 \d+ s$")


def _ingest(qtbot: Any, window: Any, paths: list[Path]) -> None:
    job = window.add_paths(paths)
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert job.outcome == "finished", job.error_message


def _ask(qtbot: Any, window: Any, question: str) -> Any:
    job = window.ask(question)
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert job.outcome == "finished", job.error_message
    return window.chat_view.answer_cards()[-1]


def test_an_empty_library_answers_at_once_without_the_model(qtbot: Any, make_window: Any) -> None:
    chat = budget_chat()
    window = make_window(chat=chat)
    card = _ask(qtbot, window, "What was the total budget in 2024?")
    assert chat.calls == []
    assert card.answer.status == "refused" and "Add a PDF first" in card.text.text()
    assert card.text.text().startswith("**No answer found.**")


def test_a_question_the_library_does_not_answer_is_refused(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    chat = budget_chat()
    window = make_window(chat=chat)
    _ingest(qtbot, window, [budget_pdf(tmp_path / "budget.pdf")])
    card = _ask(qtbot, window, "Who won the football world cup?")
    assert chat.calls == []  # nothing in the library is about it: no model call, no made-up figure
    assert card.answer.status == "refused" and not re.search(r"\d{3}", card.answer.text.split("closest")[0])
    assert "No answer found" in card.text.text() and "The closest I found, in Northwind Council Budget Report: Table 1: Budget by department" in card.text.text()
    headings = [card.sources.itemAt(i).widget() for i in range(card.sources.count())]
    assert any(getattr(w, "text", lambda: "")() == "Closest sources" for w in headings)


def test_the_bubble_and_the_status_bar_show_the_stage_and_seconds(qtbot: Any, make_window: Any,
                                                                   tmp_path: Path) -> None:
    window = make_window(chat=text_chat(delay=1.2))
    _ingest(qtbot, window, [budget_pdf(tmp_path / "budget.pdf")])
    job = window.ask(TEXT_QUESTION)
    card = window.chat_view.answer_cards()[-1]
    qtbot.waitUntil(lambda: card.seconds >= 1 and PROGRESS.match(card.status.text()) is not None, timeout=10_000)
    assert card.status.isVisible()
    stages = {card.stage}
    qtbot.waitUntil(lambda: (stages.add(card.stage), "Reading the passages" in card.stage)[1], timeout=10_000)
    assert window.statusBar().currentMessage().startswith("Answering: Reading the passages\u2026")
    assert "Searching the library" in stages or "Reading" in card.stage
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert window.statusBar().currentMessage() == ""
    assert card.answer.text.startswith(TEXT_ANSWER)
    assert card.note.isVisible() and re.search(r"\(\d+ s\)$", card.note.text())


def test_a_figure_code_computes_is_answered_without_the_model(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    chat = budget_chat()
    window = make_window(chat=chat)
    _ingest(qtbot, window, [budget_pdf(tmp_path / "budget.pdf")])
    card = _ask(qtbot, window, QUESTION)
    assert chat.calls == []  # both lines are named: code reads and adds them
    assert "1,350" in card.answer.text and "2,650" in card.answer.text and "4,000 thousand" in card.answer.text
    assert card.note.isVisible() and "computed" in card.note.text()


def test_stop_frees_the_chat_at_once_while_the_model_works(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(chat=text_chat(delay=3.0))
    _ingest(qtbot, window, [budget_pdf(tmp_path / "budget.pdf")])
    job = window.ask(TEXT_QUESTION)
    card = window.chat_view.answer_cards()[-1]
    qtbot.waitUntil(lambda: card.stage.startswith("Reading the passages"), timeout=10_000)  # inside the model's call
    qtbot.mouseClick(window.chat_view.ask_button, Qt.MouseButton.LeftButton)
    # Free at once, although the model call is still running.
    assert job.running and not window.chat_view.busy
    assert card.status.text() == "Stopped." and window.chat_view.ask_button.text() == "Ask"
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert job.outcome == "cancelled" and card.answer is None and card.status.text() == "Stopped."


def _lookup(schema: dict[str, Any]) -> dict[str, Any]:
    cell = schema["properties"]["cells"]["items"]["properties"]
    column = next(c for c in cell["column"]["enum"] if "2024" in c)
    return {"operation": "lookup", "cells": [{"row": "Parks", "column": column}]}


def test_evidence_speaks_human_and_keeps_the_sql_one_click_away(qtbot: Any, make_window: Any,
                                                                 tmp_path: Path) -> None:
    chat = ScriptedChat({"operation": _lookup, "source": {"source": "sql", "text_answer": "", "conflict": False},
                         "answer": {"answer": "not stated"},
                         "action": {"action": "ask", "text": "How much did Parks get in 2024?"}})
    window = make_window(chat=chat)
    _ingest(qtbot, window, [budget_pdf(tmp_path / "budget.pdf")])
    card = _ask(qtbot, window, "How much did Parks get in 2024?")
    assert card.answer.text.startswith("Parks, 2024: $1,350 thousand; source: Northwind Council Budget Report, p. 1, Table 1.")
    qtbot.mouseClick(card.source_buttons[0], Qt.MouseButton.LeftButton)
    evidence = window.evidence_view
    qtbot.waitUntil(lambda: bool(evidence.highlight_rects()), timeout=10_000)
    assert evidence.title.text() == "[1] Northwind Council Budget Report, p. 1, Table 1: Budget by department ($ thousands)"
    assert evidence.snippet.text() == "Highlighted: Parks, 2024: 1,350"
    headers = [evidence.result_grid.horizontalHeaderItem(i).text() for i in range(evidence.result_grid.columnCount())]
    assert "_row" not in headers and headers[-1].endswith("2024")
    assert evidence.result_grid.item(0, len(headers) - 1).text() == "1,350"
    assert not evidence.sql_text.isVisible()
    qtbot.mouseClick(evidence.show_sql_button, Qt.MouseButton.LeftButton)
    assert evidence.sql_text.isVisible() and evidence.show_sql_button.text() == "Hide SQL"
    sql = evidence.sql_text.toPlainText()
    assert sql.splitlines()[0] == "SELECT" and "\nFROM " in sql and "\nWHERE _row IN" in sql


def test_the_evidence_opens_beside_a_readable_chat_at_1366x768(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    window.resize(1366, 768)
    _ingest(qtbot, window, [budget_pdf(tmp_path / "budget.pdf")])
    card = _ask(qtbot, window, QUESTION)
    qtbot.mouseClick(card.source_buttons[0], Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(window.evidence_view.highlight_rects()), timeout=10_000)
    library, chat, evidence = window.splitter.sizes()
    assert library >= 220 and chat >= 500 and evidence >= 500, (library, chat, evidence)
    assert window.evidence_view.zoom >= 0.85  # fitted, but never below a readable zoom
    view = window.library_view
    assert view.tree.textElideMode() == Qt.TextElideMode.ElideMiddle
    assert view.document_index(0).data(Qt.ItemDataRole.ToolTipRole).startswith("budget.pdf\n")
    assert view.table_index(0, 0).data(Qt.ItemDataRole.ToolTipRole).startswith(
        "Table 1: Budget by department ($ thousands)\nPage 1, 3 rows")
    assert not window.windowTitle().endswith("Folio")  # Qt adds " \u2014 Folio" itself


def test_a_missing_model_says_how_to_install_it_and_installs_on_a_click(qtbot: Any, make_window: Any,
                                                                       tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FOLIO_MODELS_DIR", str(tmp_path / "no-models"))
    progress: list[str] = []

    def installer(report: Any) -> Path:
        for message in ("installing 22 packages with pip", "joining 22 parts and checking sha256"):
            report(message)
        return tmp_path / "no-models" / "model.gguf"

    window = make_window(settings=Settings(backend="embedded"), real_chat_models=True, weights_installer=installer)
    controller = window.controller
    with qtbot.waitSignal(controller.model_status_changed, check_params_cb=lambda s: s.state == "missing",
                          timeout=JOB_TIMEOUT_MS):
        controller.check_model()
    label = window.model_label
    assert label.text.text() == "Embedded model not installed"
    assert label.install_button.isVisible() and "-m models.weights install" in label.command.text()
    assert "not installed" in controller.model_status.reason
    controller.model_status_changed.connect(lambda s: progress.append(f"{s.state}: {s.reason}"))
    with qtbot.waitSignal(controller.model_status_changed, check_params_cb=lambda s: s.state == "missing",
                          timeout=JOB_TIMEOUT_MS):
        qtbot.mouseClick(label.install_button, Qt.MouseButton.LeftButton)
    assert progress[:3] == ["installing: ", "installing: installing 22 packages with pip",
                            "installing: joining 22 parts and checking sha256"]
    assert "checking: " in progress  # checked again once the install ended


def test_settings_name_the_missing_model_and_install_it(qtbot: Any) -> None:
    from app.controller import ModelStatus
    from ui.settings_dialog import SettingsDialog

    installs: list[bool] = []
    status = ModelStatus("missing", "embedded", reason="not installed", install_command="/venv/python -m models.weights install")
    dialog = SettingsDialog(Settings(backend="embedded"), lambda host: None, model_status=status,  # type: ignore[arg-type,return-value]
                            install_model=lambda: installs.append(True))
    qtbot.addWidget(dialog)
    dialog.show()
    labels = [w.text() for w in dialog.findChildren(type(dialog.model_status))]
    assert any("/venv/python -m models.weights install" in text and "not installed" in text for text in labels)
    qtbot.mouseClick(dialog.install_button, Qt.MouseButton.LeftButton)
    assert installs == [True] and not dialog.install_button.isEnabled()


def test_closing_the_evidence_gives_the_library_its_width_back(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    window.resize(1366, 768)
    _ingest(qtbot, window, [budget_pdf(tmp_path / "budget.pdf")])
    before = window.splitter.sizes()[0]
    card = _ask(qtbot, window, QUESTION)
    qtbot.mouseClick(card.source_buttons[0], Qt.MouseButton.LeftButton)
    assert window.splitter.sizes()[0] < before
    qtbot.mouseClick(window.evidence_view.close_button, Qt.MouseButton.LeftButton)
    assert not window.evidence_view.isVisible() and window.splitter.sizes()[0] == before
