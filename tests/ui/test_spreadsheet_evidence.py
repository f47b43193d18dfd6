"""Spreadsheets in the window, driven as a person would: drop an xlsx and a CSV, ask, click the citation,
and see the sheet as a grid with the cells the SQL read highlighted; turn to the next sheet."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.support.sheets import BUDGET, budget_sheets, write_csv, write_xlsx
from tests.ui.conftest import QUESTION, drop_files

pytestmark = pytest.mark.ui

JOB_TIMEOUT_MS = 20_000


def _drop_and_wait(qtbot: Any, window: Any, paths: list[Path]) -> None:
    assert drop_files(window, paths) == (True, True)
    job = window.library_view.ingest_view.job
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass


def test_dropped_spreadsheets_are_listed_with_their_sheets(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    xlsx = write_xlsx(tmp_path / "budget.xlsx", budget_sheets())
    csv_file = write_csv(tmp_path / "budget.csv", BUDGET)
    (tmp_path / "notes.txt").write_text("not a spreadsheet")
    assert drop_files(window, [tmp_path / "notes.txt"])[0] is False
    _drop_and_wait(qtbot, window, [xlsx, csv_file])
    rows = window.library_view.ingest_view.rows
    assert rows["budget.xlsx"].state == "added" and rows["budget.csv"].state == "added"
    assert sorted(window.library_view.document_names()) == ["budget.csv", "budget.xlsx"]
    view = window.library_view
    top = next(r for r in range(view.visible_count()) if view.document_index(r).data() == "budget.xlsx")
    assert (view.document_index(top, 1).data(), view.document_index(top, 2).data()) == ("2", "2")
    assert [view.table_index(top, t, 1).data() for t in range(2)] == ["sheet 1", "sheet 2"]


def test_a_sheet_citation_shows_the_sheet_with_the_cells_highlighted(qtbot: Any, make_window: Any,
                                                                     tmp_path: Path) -> None:
    window = make_window()
    _drop_and_wait(qtbot, window, [write_xlsx(tmp_path / "budget.xlsx", budget_sheets())])
    job = window.ask(QUESTION)
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    card = window.chat_view.answer_cards()[-1]
    assert "2,240" in card.answer.text or "2240" in card.answer.text, card.answer.text
    number, citation = next((n, c) for n, c in enumerate(card.answer.citations, 1) if c.cells)
    assert citation.sheet == "Budget" and citation.cell_range == "C4:C5"
    assert "sheet Budget, C4:C5" in card.source_buttons[number - 1].text() + card.source_buttons[number - 1].toolTip()
    qtbot.mouseClick(card.source_buttons[number - 1], Qt.MouseButton.LeftButton)
    evidence = window.evidence_view
    assert evidence.isVisible() and evidence.sheet_view.isVisible() and not evidence.page_view.isVisible()
    assert evidence.page_label.text() == "Sheet 1 of 2: Budget"
    assert "sheet Budget, C4:C5" in evidence.title.text()
    grid = evidence.sheet_view
    # Column letters and row numbers as in the spreadsheet; the highlighted cells are the ones the SQL read.
    assert [grid.horizontalHeaderItem(c).text() for c in range(4)] == ["A", "B", "C", "D"]
    assert grid.verticalHeaderItem(3).text() == "4"
    assert sorted(grid.highlighted) == [(3, 2), (4, 2)]
    assert sorted(grid.item(r, c).text() for r, c in grid.highlighted) == sorted(c.text for c in citation.cells)
    assert grid.item(3, 0).text() == "Roads" and grid.item(0, 0).text().startswith("Northwind Council")
    assert evidence.sql_panel.isVisible() and "SUM" in evidence.sql_text.toPlainText().upper()
    assert not evidence.zoom_in_button.isEnabled()
    # The next sheet is shown whole, with nothing highlighted; back again shows the highlights.
    qtbot.mouseClick(evidence.next_button, Qt.MouseButton.LeftButton)
    assert evidence.page_label.text() == "Sheet 2 of 2: Staff" and grid.highlighted == []
    assert grid.item(1, 0).text() == "Roads" and not evidence.next_button.isEnabled()
    qtbot.mouseClick(evidence.prev_button, Qt.MouseButton.LeftButton)
    assert sorted(grid.highlighted) == [(3, 2), (4, 2)]


def test_a_moved_spreadsheet_says_so_and_a_pdf_after_it_shows_its_page(qtbot: Any, make_window: Any,
                                                                       tmp_path: Path) -> None:
    from tests.ui.conftest import budget_pdf

    window = make_window()
    xlsx = write_xlsx(tmp_path / "budget.xlsx", budget_sheets())
    _drop_and_wait(qtbot, window, [xlsx, budget_pdf(tmp_path / "budget.pdf")])
    documents = {d.file_name: d for d in window.controller.documents()}
    xlsx.rename(tmp_path / "moved.xlsx")
    window.show_page(documents["budget.xlsx"].id, 1)
    evidence = window.evidence_view
    assert evidence.error.isVisible() and "no longer at" in evidence.error.text()
    window.show_page(documents["budget.pdf"].id, 1)
    assert not evidence.error.isVisible() and evidence.page_view.isVisible() and not evidence.sheet_view.isVisible()
    assert evidence.page_label.text() == "Page 1 of 1"
