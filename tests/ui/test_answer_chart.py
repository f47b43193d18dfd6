"""A series answer shows a small chart under its sentence, its points equal to the SQL result it cites; a click
on a point opens the page with that point's cell alone highlighted; the Markdown export writes the chart as a PNG
beside it. An answer of one figure shows no chart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from app.series import chart_values
from tests.ui.conftest import ScriptedChat, budget_chat, budget_pdf

pytestmark = pytest.mark.ui

JOB_TIMEOUT_MS = 20_000


def lookup(rows_wanted: tuple[str, ...], years: tuple[str, ...]) -> Any:
    """Choose the cells of these rows in these years' columns, by the labels the schema offers."""
    def choose(schema: dict[str, Any]) -> dict[str, Any]:
        cell = schema["properties"]["cells"]["items"]["properties"]
        columns = [c for c in cell["column"]["enum"] if any(year in c for year in years)]
        return {"operation": "lookup", "cells": [{"row": r, "column": c} for r in cell["row"]["enum"]
                                                 if r in rows_wanted for c in columns]}
    return choose


def lookup_chat(question: str, rows: tuple[str, ...], years: tuple[str, ...]) -> ScriptedChat:
    return ScriptedChat({"action": {"action": "ask", "text": question}, "operation": lookup(rows, years),
                         "source": {"source": "sql", "text_answer": "", "conflict": False},
                         "answer": {"answer": "It is not in the text."}, "text": "The figures [1]."})


def answered(qtbot: Any, window: Any, tmp_path: Path, question: str) -> Any:
    job = window.add_paths([budget_pdf(tmp_path / "budget.pdf")])
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    job = window.ask(question)
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert job.outcome == "finished", job.error_message
    return window.chat_view.answer_cards()[-1]


def test_a_series_answer_shows_a_chart_whose_points_are_the_result(qtbot: Any, make_window: Any,
                                                                   tmp_path: Path) -> None:
    question = "What were the 2024 budgets of Parks, Roads and Libraries?"
    window = make_window(chat=lookup_chat(question, ("Parks", "Roads", "Libraries"), ("2024",)))
    card = answered(qtbot, window, tmp_path, question)
    view = card.chart_view
    assert view is not None
    qtbot.waitUntil(view.isVisible, timeout=2000)
    layout = card.layout()
    assert layout.indexOf(view) == layout.indexOf(card.text) + 1  # under its sentence
    (citation,) = [c for c in card.answer.citations if c.kind == "table"]
    result = {row[1]: row[2] for row in citation.result}
    assert chart_values(view.chart) == [("2024", label, float(value)) for label, value in result.items()]
    assert view.chart.kind == "bar" and view.chart.unit == "$ thousands"

    clicked: list[Any] = []
    card.citation_clicked.connect(lambda c, n: clicked.append((c, n)))
    roads = next(p for p in view.chart.points if p.label == "Roads")
    qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=view.point_position(roads).toPoint())
    ((shown, number),) = clicked
    assert number == 1 and [(c.column, c.text) for c in shown.cells] == [(roads.cell.column, "2,650")]
    evidence = window.evidence_view
    assert evidence.isVisible() and evidence.page == 1
    (rect,) = evidence.highlight_rects()  # that cell alone
    x0, y0, x1, y1 = evidence.rendered.to_pixels(roads.cell.bbox)
    assert rect.contains((x0 + x1) / 2, (y0 + y1) / 2)


def test_a_line_across_periods_and_its_png_beside_the_markdown(qtbot: Any, make_window: Any, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    question = "What was the Parks budget in 2023 and 2024?"
    window = make_window(chat=lookup_chat(question, ("Parks",), ("2023", "2024")))
    card = answered(qtbot, window, tmp_path, question)
    assert card.chart_view is not None and card.chart_view.chart.kind == "line"
    assert chart_values(card.chart_view.chart) == [("Parks", "2023", 1200.0), ("Parks", "2024", 1350.0)]
    monkeypatch.setattr("ui.main_window.QFileDialog.getSaveFileName",
                        lambda *a, **k: (str(tmp_path / "parks.md"), "Markdown (*.md)"))
    card.export_button.click()
    markdown = (tmp_path / "parks.md").read_text(encoding="utf-8")
    assert "![Chart of the figures in this answer](parks-chart.png)" in markdown
    image = QImage(str(tmp_path / "parks-chart.png"))
    assert not image.isNull() and image.width() == 640


def test_an_answer_of_one_figure_shows_no_chart(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window(chat=budget_chat())
    card = answered(qtbot, window, tmp_path, "What was the total budget for Parks and Roads in 2024?")
    assert card.answer.status != "refused" and card.chart_view is None
