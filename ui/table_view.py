"""Showing a table as a grid: a stored table as its typed SQL table (``TablePanel``, with Export\u2026), a spreadsheet's
sheet or an SQL result (``GridView``). Read-only; cells can be selected and copied."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QGuiApplication, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMenu,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from ui import style


def _is_number(text: str) -> bool:
    stripped = text.replace(",", "").replace("%", "").replace("$", "").strip("() -\u2212")
    return bool(stripped) and stripped.replace(".", "", 1).isdigit()


class GridView(QTableWidget):
    """A read-only grid of text; numbers right-aligned, the first ``header_rows`` rows in bold."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ContiguousSelection)
        self.setAlternatingRowColors(True)
        self.verticalHeader().setDefaultSectionSize(22)
        self.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        QShortcut(QKeySequence.StandardKey.Copy, self, self.copy_selection)

    def set_grid(self, rows: Sequence[Sequence[Any]], columns: Sequence[str] = (), header_rows: int = 0) -> None:
        width = max([len(columns)] + [len(r) for r in rows]) if (rows or columns) else 0
        self.clear()
        self.setColumnCount(width)
        self.setRowCount(len(rows))
        if columns:
            self.setHorizontalHeaderLabels(list(columns))
            self.horizontalHeader().show()
        else:
            self.horizontalHeader().hide()
        bold = QFont(self.font())
        bold.setBold(True)
        for r, row in enumerate(rows):
            for c in range(width):
                value = row[c] if c < len(row) else ""
                text = "" if value is None else str(value)
                item = QTableWidgetItem(text)
                if r < header_rows:
                    item.setFont(bold)
                elif isinstance(value, (int, float)) or _is_number(text):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.setItem(r, c, item)
        self.resizeColumnsToContents()
        for c in range(width):
            self.setColumnWidth(c, min(self.columnWidth(c), 260))

    def copy_selection(self) -> None:
        """Copy the selected cells as tab-separated text (pastes into a spreadsheet)."""
        ranges = self.selectedRanges()
        if not ranges:
            return
        block = ranges[0]
        lines = []
        for r in range(block.topRow(), block.bottomRow() + 1):
            cells = []
            for c in range(block.leftColumn(), block.rightColumn() + 1):
                item = self.item(r, c)
                cells.append(item.text() if item else "")
            lines.append("\t".join(cells))
        QGuiApplication.clipboard().setText("\n".join(lines))


def figure_text(value: Any, decimals: int) -> str:
    """A typed value as a grid shows it: figures with thousands separators and their own decimals, negatives
    with a minus sign; no value as blank."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    return f"{value:,.{decimals}f}" if decimals or isinstance(value, float) and not value.is_integer() else f"{value:,.0f}"


class TablePanel(QWidget):
    """A stored table as its typed SQL table: a header line (where it is, its rows, the scale and periods its
    figures are stated in), a grid whose column headers give each column's unit, type and period, and
    Export… (this table as Excel or CSV, or every table of its document as one workbook)."""

    export_requested = Signal(str, int)  # "table" with a table id, or "document" with a document id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.table: Any = None  # core.library.export.TableExport, from app/
        self.total_rows = 0
        self.title = QLabel()
        self.title.setStyleSheet("font-weight: 600;")
        self.title.setWordWrap(True)
        self.details = QLabel()
        self.details.setWordWrap(True)
        self.details.setStyleSheet(f"color: {style.muted_colour(self)};")
        self.details.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.export_button = QToolButton()
        self.export_button.setText("Export\u2026")
        self.export_button.setToolTip("Save this table, or every table of its document, as an Excel workbook or CSV")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.export_button)
        self.export_table_action = menu.addAction("This table\u2026")
        self.export_table_action.triggered.connect(
            lambda: self.table is not None and self.export_requested.emit("table", self.table.info.id))
        self.export_document_action = menu.addAction("Every table of the document\u2026")
        self.export_document_action.triggered.connect(
            lambda: self.table is not None and self.export_requested.emit("document", self.table.info.document_id))
        self.export_button.setMenu(menu)
        self.grid = GridView()
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.title, 1)
        top.addWidget(self.export_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(top)
        layout.addWidget(self.details)
        layout.addWidget(self.grid, 1)

    def show_table(self, table: Any, total_rows: int | None = None) -> None:
        """Show ``table`` (its first rows when ``total_rows`` says there are more; Export writes them all)."""
        self.table = table
        self.total_rows = table.info.row_count if total_rows is None else total_rows
        info = table.info
        self.title.setText(html.escape(table.title))
        facts = [f"{table.place}", f"{self.total_rows:,} row{'s' if self.total_rows != 1 else ''}"]
        if table.unit:
            facts.append(f"figures in {table.unit}")
        if table.periods:
            facts.append(", ".join(table.periods))
        facts.append(f"SQL table <code>{html.escape(info.name)}</code>")
        shown = len(table.rows)
        more = f"<br>The first {shown:,} rows are shown; Export\u2026 writes every row." if shown < self.total_rows else ""
        self.details.setText(" \u00b7 ".join(html.escape(f) if not f.startswith("SQL") else f for f in facts) + more)
        headers = []
        for column in table.columns:
            kind = " \u00b7 ".join(filter(None, [column.type.lower(), column.period]))
            headers.append(f"{column.title}\n{kind}")
        decimals = [table.decimals(i) if c.numeric else 0 for i, c in enumerate(table.columns)]
        rows = [[figure_text(v, decimals[i]) if table.columns[i].numeric else v for i, v in enumerate(row)]
                for row in table.rows]
        self.grid.set_grid(rows, headers)
        for position, column in enumerate(table.columns):
            header = self.grid.horizontalHeaderItem(position)
            if header is not None:
                header.setToolTip(
                    f"{column.header} \u2014 SQL column {column.name} ({column.type})"
                    + (f", {column.unit}" if column.unit else "") + (f", {column.period}" if column.period else ""))
            if column.numeric:  # right-aligned even where a cell is blank or a figure reads like text
                for r in range(len(rows)):
                    item = self.grid.item(r, position)
                    if item is not None:
                        item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
