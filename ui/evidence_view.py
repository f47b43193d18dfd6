"""The evidence view: the cited PDF page, rendered, with the cited regions highlighted (the sentences
that answer, or the exact table cells an SQL query read), zoom, previous/next page, opening the file
in the system viewer, and for SQL evidence the result table with the query one click away ("Show
SQL", laid out for reading). The source is named as people name it, the caption says which row and
column each highlighted cell is, and internal columns (``_row``) are not shown. Pages open fitted to
the width, but never below a readable zoom: a landscape page scrolls to its highlight instead. A
spreadsheet's sheet is shown as a grid (column letters, row numbers) with the cited cells highlighted
instead of a page."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import QRectF, Qt, QTimer, QUrl, Signal, Slot
from PySide6.QtGui import QBrush, QDesktopServices, QFont, QPalette, QPen, QPixmap
from PySide6.QtWidgets import (
    QFrame,
    QGraphicsPixmapItem,
    QGraphicsRectItem,
    QGraphicsScene,
    QGraphicsView,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.controller import format_sql
from models.types import BBox, Citation
from ui import style
from ui.table_view import GridView, TablePanel

ZOOM_STEPS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0)
DEFAULT_ZOOM = 1.25
READABLE_ZOOM = 0.85
"""Fitting the width never shrinks a page below this: report text stays legible (a landscape page
fitted into the pane would be drawn at about 60 %)."""
MINIMUM_WIDTH = 420


def visible_columns(columns: Sequence[str]) -> list[int]:
    """Positions of the result columns worth showing: internal ones (``_row``) are left out."""
    return [i for i, name in enumerate(columns) if not str(name).startswith("_")]


def shown_value(value: Any) -> Any:
    """A result value as a grid shows it: figures with thousands separators and at most two decimals."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return value
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.2f}".rstrip("0").rstrip(".")
    return f"{int(value):,}"

Renderer = Callable[[int, int, float], Any]  # (document id, page, zoom) -> RenderedPage
# (document id, sheet number, cited boxes) -> a SheetWindow (app.controller.sheet_window), None for a PDF
SheetReader = Callable[[int, int, Sequence[BBox]], Any]


class SheetView(GridView):
    """A part of a spreadsheet's sheet, labelled with its column letters and row numbers, cited cells
    highlighted (and selected, so the first one is scrolled into view)."""

    def show_window(self, window: Any) -> None:
        self.set_grid([list(row) for row in window.cells], window.column_labels)
        self.setVerticalHeaderLabels(window.row_labels)
        self.verticalHeader().show()
        bold = QFont(self.font())
        bold.setBold(True)
        self.highlighted = list(window.highlights)
        for row, col in self.highlighted:
            item = self.item(row, col)
            if item is None:  # an empty cell has no item yet; one the grid holds is styled where it is
                item = QTableWidgetItem("")
                self.setItem(row, col, item)
            item.setBackground(QBrush(style.CELL_FILL))
            item.setForeground(QBrush(Qt.GlobalColor.black))
            item.setFont(bold)
        first = self.item(*self.highlighted[0]) if self.highlighted else None
        if first is not None:
            self.scrollToItem(first, QTableWidget.ScrollHint.PositionAtCenter)
        else:
            self.scrollToTop()


class PageView(QGraphicsView):
    """A rendered page with highlight rectangles over it; Ctrl+wheel zooms."""

    zoom_requested = Signal(int)  # +1 / -1
    resized = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.scene_ = QGraphicsScene(self)
        self.setScene(self.scene_)
        self.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setFrameShape(QFrame.Shape.NoFrame)
        # A neutral surround so the white page stands out in light and dark palettes alike.
        self.setBackgroundBrush(QBrush(self.palette().color(QPalette.ColorRole.Mid)))
        self.pixmap_item: QGraphicsPixmapItem | None = None
        self.highlights: list[QGraphicsRectItem] = []

    def show_page(self, png: bytes, boxes_px: Sequence[tuple[float, float, float, float]], cells: bool) -> None:
        self.scene_.clear()
        self.highlights = []
        pixmap = QPixmap()
        pixmap.loadFromData(png, "PNG")
        self.pixmap_item = self.scene_.addPixmap(pixmap)
        fill, edge = (style.CELL_FILL, style.CELL_EDGE) if cells else (style.HIGHLIGHT_FILL, style.HIGHLIGHT_EDGE)
        pen = QPen(edge)
        pen.setWidthF(1.5)
        for x0, y0, x1, y1 in boxes_px:
            pad = 2.0
            item = self.scene_.addRect(QRectF(x0 - pad, y0 - pad, x1 - x0 + 2 * pad, y1 - y0 + 2 * pad), pen,
                                       QBrush(fill))
            self.highlights.append(item)
        self.scene_.setSceneRect(QRectF(pixmap.rect()))
        if self.highlights:
            united = self.highlights[0].sceneBoundingRect()
            for item in self.highlights[1:]:
                united = united.united(item.sceneBoundingRect())
            # Centred vertically; horizontally from the page's left edge when the highlight fits there,
            # so a highlighted cell is seen with its row label.
            self.centerOn(united.center())
            self.horizontalScrollBar().setValue(0)
            self.ensureVisible(united, 40, 40)
        else:
            self.verticalScrollBar().setValue(0)

    def clear_page(self) -> None:
        self.scene_.clear()
        self.pixmap_item = None
        self.highlights = []

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self.resized.emit()

    def wheelEvent(self, event: Any) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom_requested.emit(1 if event.angleDelta().y() > 0 else -1)
            event.accept()
            return
        super().wheelEvent(event)


class EvidenceView(QWidget):
    closed = Signal()
    unlock_requested = Signal(int)  # document id whose password is needed to draw its pages

    def __init__(self, render: Renderer, describe_error: Callable[[BaseException], str],
                 is_locked: Callable[[BaseException], bool] = lambda error: False,
                 parent: QWidget | None = None, sheet: SheetReader | None = None) -> None:
        super().__init__(parent)
        self._render = render
        self._read_sheet = sheet
        self.sheet_window: Any = None  # the sheet shown (a spreadsheet document), else None
        self._describe_error = describe_error
        self._is_locked = is_locked
        self.document_id: int | None = None
        self.document_path = ""
        self.page = 1
        self.page_count = 1
        self.zoom = DEFAULT_ZOOM
        self.fit = True  # fit the page width until the person zooms
        self.citation: Citation | None = None
        self._boxes_by_page: dict[int, list[BBox]] = {}
        self._cells = False
        self.rendered: Any = None

        self.setMinimumWidth(MINIMUM_WIDTH)
        self.title = QLabel()
        self.title.setStyleSheet("font-weight: 600;")
        self.title.setWordWrap(True)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.prev_button = self._tool("\u25c0", "Previous page (PgUp)", self.previous_page)
        self.next_button = self._tool("\u25b6", "Next page (PgDown)", self.next_page)
        self.page_label = QLabel()
        self.zoom_out_button = self._tool("\u2212", "Zoom out (Ctrl+\u2212)", lambda: self.step_zoom(-1))
        self.zoom_label = QLabel()
        self.zoom_in_button = self._tool("+", "Zoom in (Ctrl++)", lambda: self.step_zoom(1))
        self.fit_button = self._tool("Fit", "Fit the page width", self.fit_width)
        self.open_button = self._tool("Open file", "Open the PDF in the system viewer", self.open_file)
        self.close_button = self._tool("\u00d7", "Close the preview", self._on_close)
        bar = QHBoxLayout()
        bar.setSpacing(2)
        for widget in (self.prev_button, self.page_label, self.next_button):
            bar.addWidget(widget)
        bar.addSpacing(style.SPACING)
        for widget in (self.zoom_out_button, self.zoom_label, self.zoom_in_button, self.fit_button):
            bar.addWidget(widget)
        bar.addStretch(1)
        bar.addWidget(self.open_button)
        bar.addWidget(self.close_button)

        self.snippet = QLabel()
        self.snippet.setWordWrap(True)
        self.snippet.setStyleSheet(f"color: {style.muted_colour(self)};")
        self.snippet.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.error = QLabel()
        self.error.setWordWrap(True)
        self.error.setStyleSheet(f"color: {style.error_colour(self)};")
        self.error.hide()
        self.unlock_button = QPushButton("Enter password\u2026")
        self.unlock_button.hide()
        self.unlock_button.clicked.connect(lambda: self.document_id is not None and
                                           self.unlock_requested.emit(self.document_id))
        self.page_view = PageView()
        self.page_view.zoom_requested.connect(self.step_zoom)
        self.page_view.resized.connect(self._on_page_view_resized)
        self._refit = QTimer(self)
        self._refit.setSingleShot(True)
        self._refit.setInterval(120)  # re-render once the splitter settles, not on every pixel
        self._refit.timeout.connect(self._fit_again)
        self.sheet_view = SheetView()
        self.sheet_view.hide()

        self.sql_panel = QWidget()
        self.sql_text = QPlainTextEdit()
        self.sql_text.setReadOnly(True)
        self.sql_text.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        self.sql_text.setStyleSheet("font-family: monospace;")
        self.sql_text.hide()
        self.result_grid = GridView()
        sql_layout = QVBoxLayout(self.sql_panel)
        sql_layout.setContentsMargins(0, 0, 0, 0)
        sql_title = QLabel("Computed from the highlighted cells")
        sql_title.setStyleSheet("font-weight: 600;")
        self.show_sql_button = QToolButton()
        self.show_sql_button.setText("Show SQL")
        self.show_sql_button.setCheckable(True)
        self.show_sql_button.setAutoRaise(True)
        self.show_sql_button.setToolTip("Show the SQL statement that computed this result")
        self.show_sql_button.toggled.connect(self._on_show_sql_toggled)
        sql_header = QHBoxLayout()
        sql_header.addWidget(sql_title, 1)
        sql_header.addWidget(self.show_sql_button)
        sql_layout.addLayout(sql_header)
        sql_layout.addWidget(self.result_grid, 1)
        sql_layout.addWidget(self.sql_text, 2)
        self.sql_panel.hide()

        self.table_panel = TablePanel()  # a table from the library: its typed grid under its page
        self.table_panel.hide()

        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.page_view)
        self.splitter.addWidget(self.sheet_view)
        self.splitter.addWidget(self.sql_panel)
        self.splitter.addWidget(self.table_panel)
        self.splitter.setStretchFactor(0, 3)
        self.splitter.setStretchFactor(1, 1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, style.SPACING, style.SPACING, style.SPACING)
        layout.addWidget(self.title)
        layout.addLayout(bar)
        layout.addWidget(self.snippet)
        layout.addWidget(self.error)
        layout.addWidget(self.unlock_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.splitter, 1)
        self._update_controls()

    def _tool(self, text: str, tip: str, slot: Callable[[], None]) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setToolTip(tip)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    # -- what to show ----------------------------------------------------------------------------------

    def show_citation(self, citation: Citation, number: int | None = None) -> None:
        """The cited page with the cited regions: the SQL's cells for table evidence, else text boxes."""
        self.citation = citation
        self.table_panel.hide()
        boxes: dict[int, list[BBox]] = {}
        if citation.cells:
            for cell in citation.cells:
                boxes.setdefault(cell.page, []).append(cell.bbox)
        else:
            regions = list(citation.boxes) or ([citation.bbox] if citation.bbox else [])
            boxes[citation.page] = [b for b in regions if b is not None]
        label = f"[{number}] " if number else ""
        where = f" ({citation.place})" if citation.sheet else ""
        if citation.label:
            self.title.setText(f"{label}{citation.label}")
        else:  # saved before sources had labels
            kind = f"table {citation.table}" if citation.kind == "table" and citation.table else "text"
            self.title.setText(f"{label}{citation.document} \u2014 {kind}{where}")
        self.title.setToolTip(f"{citation.document}, {citation.place}"
                              + (f"\nSQL table {citation.table}" if citation.table else ""))
        snippet = " ".join(citation.snippet.split())
        snippet = snippet[:400] + ("\u2026" if len(snippet) > 400 else "")
        self.snippet.setText(f"Highlighted: {snippet}" if citation.cells and citation.label else snippet)
        self.snippet.setVisible(bool(snippet))
        if citation.sql:
            self.sql_text.setPlainText(format_sql(citation.sql))
            keep = visible_columns(citation.columns)
            self.result_grid.set_grid([[shown_value(row[i]) for i in keep if i < len(row)] for row in citation.result],
                                      [citation.columns[i] for i in keep])
            self.show_sql_button.setChecked(False)
            self.sql_text.hide()
            self.sql_panel.show()
            self._size_panes(0.22)  # the page first
        else:
            self.sql_panel.hide()
        first_page = min(boxes) if citation.cells and boxes else citation.page
        self._show(citation.document_id, first_page, boxes, cells=bool(citation.cells))

    def show_page(self, document_id: int, page: int, boxes: Sequence[BBox] = (), title: str = "") -> None:
        """A page without a citation (from the library), optionally with regions marked."""
        self.citation = None
        self.title.setText(title)
        self.snippet.hide()
        self.sql_panel.hide()
        self.table_panel.hide()
        self._show(document_id, page, {page: list(boxes)} if boxes else {}, cells=False)

    def show_table(self, table: Any, title: str = "", total_rows: int | None = None) -> None:
        """A stored table (``core.library.export.TableExport``, from app/) as its typed grid, under its page with
        the table's region marked."""
        self.citation = None
        self.title.setText(title)
        self.snippet.hide()
        self.sql_panel.hide()
        self.table_panel.show_table(table, total_rows)
        self.table_panel.show()
        info = table.info
        self._size_panes(0.5)
        self._show(info.document_id, info.page, {info.page: [info.bbox]}, cells=False)

    def _show(self, document_id: int, page: int, boxes: dict[int, list[BBox]], cells: bool) -> None:
        self.document_id = document_id
        self._boxes_by_page = boxes
        self._cells = cells
        self.page = page
        self.render_page()

    def render_page(self, refit: bool = True) -> None:
        if self.document_id is None:
            return
        if self._show_sheet():
            return
        if self.fit and self.rendered is not None:
            self.zoom = self._fit_zoom(self.rendered.width_px / self.rendered.zoom)
        try:
            rendered = self._render(self.document_id, self.page, self.zoom)
        except Exception as exc:  # noqa: BLE001 (shown in place: the page simply cannot be drawn)
            self.rendered = None
            self.page_view.clear_page()
            self.error.setText(self._describe_error(exc))
            self.error.show()
            self.unlock_button.setVisible(self._is_locked(exc))
            self._update_controls()
            return
        self.error.hide()
        self.unlock_button.hide()
        self.rendered = rendered
        if self.fit and refit:  # this page's width is known only now
            fitted = self._fit_zoom(rendered.width_px / rendered.zoom)
            if abs(fitted - rendered.zoom) > 0.01:
                self.zoom = fitted
                self.render_page(refit=False)
                return
        self.page_count = rendered.page_count
        self.zoom = rendered.zoom
        boxes = [rendered.to_pixels(b) for b in self._boxes_by_page.get(self.page, [])]
        self.page_view.show_page(rendered.png, boxes, self._cells)
        self._update_controls()

    def _show_sheet(self) -> bool:
        """Show the current page as a sheet's grid when the document is a spreadsheet; False for a PDF."""
        if self._read_sheet is None or self.document_id is None:
            return False
        try:
            window = self._read_sheet(self.document_id, self.page, self._boxes_by_page.get(self.page, []))
        except Exception as exc:  # noqa: BLE001 (shown in place: the sheet simply cannot be read)
            window = None
            self.sheet_window = self.rendered = None
            self.sheet_view.hide()
            self.page_view.clear_page()
            self.error.setText(self._describe_error(exc))
            self.error.show()
            self._update_controls()
            return True
        self.sheet_window = window
        if window is None:
            self.sheet_view.hide()
            self.page_view.show()
            return False
        self.error.hide()
        self.unlock_button.hide()
        self.rendered = None
        self.page_view.hide()
        self.sheet_view.show()
        if not self.sql_panel.isHidden():
            self._size_panes(0.45 if self.show_sql_button.isChecked() else 0.22)
        elif not self.table_panel.isHidden():
            self._size_panes(0.5)
        self.sheet_view.show_window(window)
        self.page_count = max(1, len(window.sheets))
        self._update_controls()
        return True

    @Slot(bool)
    def _on_show_sql_toggled(self, shown: bool) -> None:
        self.sql_text.setVisible(shown)
        self.show_sql_button.setText("Hide SQL" if shown else "Show SQL")
        self._size_panes(0.45 if shown else 0.22)

    def _size_panes(self, share: float) -> None:
        """The page or the sheet (whichever is shown) above; the result and the SQL, or the table's grid, below,
        ``share`` of the height."""
        height = max(300, self.splitter.height())
        top = int(height * (1 - share))
        sheet = not self.sheet_view.isHidden()
        below = int(height * share)
        table = not self.table_panel.isHidden()
        self.splitter.setSizes([0 if sheet else top, top if sheet else 0, 0 if table else below, below if table else 0])

    def highlight_rects(self) -> list[QRectF]:
        """The highlighted regions on the shown page, in image pixels (for tests and accessibility)."""
        return [item.rect() for item in self.page_view.highlights]

    # -- navigation ------------------------------------------------------------------------------------

    @Slot()
    def previous_page(self) -> None:
        if self.page > 1:
            self.page -= 1
            self.render_page()

    @Slot()
    def next_page(self) -> None:
        if self.page < self.page_count:
            self.page += 1
            self.render_page()

    @Slot()
    def _on_page_view_resized(self) -> None:
        if self.fit and self.rendered is not None:
            self._refit.start()

    @Slot()
    def _fit_again(self) -> None:
        if self.fit and self.rendered is not None:
            fitted = self._fit_zoom(self.rendered.width_px / self.rendered.zoom)
            if abs(fitted - self.zoom) / self.zoom > 0.03:
                self.render_page()

    def _fit_zoom(self, page_width_pt: float) -> float:
        available = max(200, self.page_view.viewport().width() - 24)
        return max(READABLE_ZOOM, min(2.0, round(available / page_width_pt, 2)))

    @Slot(int)
    def step_zoom(self, direction: int) -> None:
        self.fit = False
        if direction > 0:
            bigger = [z for z in ZOOM_STEPS if z > self.zoom + 1e-6]
            self.zoom = bigger[0] if bigger else self.zoom
        else:
            smaller = [z for z in ZOOM_STEPS if z < self.zoom - 1e-6]
            self.zoom = smaller[-1] if smaller else self.zoom
        self.render_page()

    @Slot()
    def fit_width(self) -> None:
        self.fit = True
        if self.rendered is not None:
            self.render_page()

    @Slot()
    def open_file(self) -> None:
        if self.document_path:
            QDesktopServices.openUrl(QUrl.fromLocalFile(self.document_path))

    def set_document_path(self, path: str) -> None:
        self.document_path = path
        self.open_button.setEnabled(bool(path))

    def _on_close(self) -> None:
        self.hide()
        self.closed.emit()

    def _update_controls(self) -> None:
        shown = self.rendered is not None
        sheet = self.sheet_window
        self.page_label.setText(f"Page {self.page} of {self.page_count}" if shown else "")
        if sheet is not None:
            self.page_label.setText(f"Sheet {self.page} of {self.page_count}: {sheet.sheet}")
            shown = True
        self.zoom_label.setText(f"{round(self.zoom * 100)}%")
        self.prev_button.setEnabled(shown and self.page > 1)
        self.next_button.setEnabled(shown and self.page < self.page_count)
        for button in (self.zoom_in_button, self.zoom_out_button, self.fit_button):
            button.setEnabled(shown and sheet is None)

    def keyPressEvent(self, event: Any) -> None:
        key = event.key()
        if key == Qt.Key.Key_PageDown:
            self.next_page()
        elif key == Qt.Key.Key_PageUp:
            self.previous_page()
        elif event.modifiers() & Qt.KeyboardModifier.ControlModifier and key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.step_zoom(1)
        elif event.modifiers() & Qt.KeyboardModifier.ControlModifier and key == Qt.Key.Key_Minus:
            self.step_zoom(-1)
        else:
            super().keyPressEvent(event)
