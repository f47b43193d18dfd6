"""Tables to take away, in the window: clicking a table in the library shows its typed grid beside its page, with
its scale and periods; Export\u2026 writes it as Excel or CSV (values read back equal to the SQL table, negative
figures included), or every table of its document as a workbook with a contents sheet; Esc stops an export."""

from __future__ import annotations

import csv
import threading
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from PySide6.QtCore import Qt

from core.library import export
from tests.support.pdfs import income_statement_pdf
from tests.ui.conftest import budget_pdf

pytestmark = pytest.mark.ui

JOB_TIMEOUT_MS = 20_000


def _ingest(qtbot: Any, window: Any, paths: list[Path]) -> None:
    job = window.add_paths(paths)
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert job.outcome == "finished", job.error_message


def sql_rows(window: Any, name: str) -> list[tuple[object, ...]]:
    rows = window.controller.library.conn.execute(f'SELECT * FROM "{name}" ORDER BY _row').fetchall()
    return [tuple(r[1:]) for r in rows]


def click_table(qtbot: Any, window: Any, document_row: int = 0, table_row: int = 0) -> None:
    view = window.library_view
    view.tree.expand(view.document_index(document_row))
    index = view.table_index(document_row, table_row)
    view.tree.scrollTo(index)
    qtbot.mouseClick(view.tree.viewport(), Qt.MouseButton.LeftButton, pos=view.tree.visualRect(index).center())


def export_as(monkeypatch: pytest.MonkeyPatch, path: Path, chosen: str) -> None:
    monkeypatch.setattr("ui.main_window.QFileDialog.getSaveFileName", lambda *a, **k: (str(path), chosen))


def test_a_clicked_table_shows_its_typed_grid_beside_its_page(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    _ingest(qtbot, window, [income_statement_pdf(tmp_path / "harbour.pdf")])
    click_table(qtbot, window)
    evidence = window.evidence_view
    qtbot.waitUntil(evidence.isVisible, timeout=5000)
    panel = evidence.table_panel
    assert panel.isVisible() and evidence.page_view.isVisible()
    assert evidence.page == 1 and len(evidence.highlight_rects()) == 1  # the table's region on its page
    grid = panel.grid
    headers = [grid.horizontalHeaderItem(c).text() for c in range(grid.columnCount())]
    assert headers[1] == "2019 ($ millions)\nreal \u00b7 FY2019"
    assert (grid.rowCount(), grid.columnCount()) == (6, 4)
    assert [grid.item(1, c).text() for c in range(4)] == ["Cost of sales", "-2,731.4", "-2,498.9", "-2,388.5"]
    assert grid.item(3, 2).text() == ""  # the dash: no value
    assert "figures in $ millions" in panel.details.text() and "FY2019, FY2018, FY2017" in panel.details.text()
    name = panel.table.info.name
    assert [tuple(r) for r in panel.table.rows] == sql_rows(window, name)


def test_export_writes_the_table_as_excel_and_csv(qtbot: Any, make_window: Any, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    window = make_window()
    _ingest(qtbot, window, [income_statement_pdf(tmp_path / "harbour.pdf")])
    click_table(qtbot, window)
    panel = window.evidence_view.table_panel
    name = panel.table.info.name
    export_as(monkeypatch, tmp_path / "income.xlsx", "Excel workbook (*.xlsx)")
    with qtbot.waitSignal(window.controller.runner.job_started, timeout=5000) as started:
        panel.export_table_action.trigger()
    job = started.args[0]
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert job.outcome == "finished", job.error_message
    sheet = openpyxl.load_workbook(tmp_path / "income.xlsx").worksheets[0]
    values = list(sheet.iter_rows(values_only=True))
    assert values[0][1:] == ("2019 ($ millions)", "2018 ($ millions)", "2017 ($ millions)")
    assert values[1:] == sql_rows(window, name) and sheet["B7"].value == -35.8
    assert "Saved" in window.statusBar().currentMessage()

    export_as(monkeypatch, tmp_path / "income.csv", "CSV (*.csv)")
    job = window.export_tables("table", panel.table.info.id)
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    with (tmp_path / "income.csv").open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[2] == ["Cost of sales", "-2731.4", "-2498.9", "-2388.5"]


def test_a_documents_tables_export_as_a_workbook_from_the_librarys_menu(qtbot: Any, make_window: Any,
                                                                       tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    window = make_window()
    _ingest(qtbot, window, [budget_pdf(tmp_path / "budget.pdf")])
    view = window.library_view
    shown: list[Any] = []
    monkeypatch.setattr("ui.library_view.QMenu.popup", lambda menu, *_: shown.append(menu))
    view._on_context_menu(view.tree.visualRect(view.document_index(0)).center())
    (menu,) = shown
    assert [a.text() for a in menu.actions()] == ["Export every table of the document\u2026"]
    export_as(monkeypatch, tmp_path / "budget.xlsx", "Excel workbook, a sheet per table (*.xlsx)")
    with qtbot.waitSignal(window.controller.runner.job_started, timeout=5000) as started:
        menu.actions()[0].trigger()
    with qtbot.waitSignal(started.args[0].ended, timeout=JOB_TIMEOUT_MS):
        pass
    book = openpyxl.load_workbook(tmp_path / "budget.xlsx")
    assert book.sheetnames[0] == "Contents" and book["Contents"]["D4"].value == "p. 1"
    (table,) = window.controller.tables(window.controller.documents()[0].id)
    assert list(book.worksheets[1].iter_rows(min_row=2, values_only=True)) == sql_rows(window, table.name)


def test_esc_stops_an_export_and_nothing_is_written(qtbot: Any, make_window: Any, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    window = make_window()
    _ingest(qtbot, window, [income_statement_pdf(tmp_path / "harbour.pdf")])
    gate = threading.Event()
    real_read = export.read_table

    def waiting_read(*args: Any, **kwargs: Any) -> Any:  # holds the job between its tables until Esc is pressed
        gate.wait(10)
        return real_read(*args, **kwargs)

    monkeypatch.setattr(export, "read_table", waiting_read)
    export_as(monkeypatch, tmp_path / "stopped.xlsx", "Excel workbook (*.xlsx)")
    document = window.controller.documents()[0]
    job = window.export_tables("document", document.id)
    qtbot.keyClick(window, Qt.Key.Key_Escape)
    gate.set()
    with qtbot.waitSignal(job.ended, timeout=JOB_TIMEOUT_MS):
        pass
    assert job.outcome == "cancelled"
    assert not list(tmp_path.glob("*stopped*"))
    assert "nothing was written" in window.statusBar().currentMessage()
