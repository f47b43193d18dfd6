"""The library panel: documents with status, pages and tables; each document unfolds to its tables.
An empty library shows how to start (drop files, add files, or open the sample report).

The list is a model (``LibraryModel``: one row per document, its tables read when it is unfolded) seen
through a filter (``LibraryFilter``: words, issuer, type, period), so a library of thousands of documents
lists at once: the view asks only for the rows it shows. The documents, tables and metadata come from
app/ (the controller); nothing here reads the library."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QSortFilterProxyModel,
    Qt,
    Signal,
    Slot,
)
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QStackedWidget,
    QStyle,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from app.messages import plural
from models.types import Document
from ui import style
from ui.ingest_view import IngestView

DOCUMENT_ROLE = Qt.ItemDataRole.UserRole
TABLE_ROLE = Qt.ItemDataRole.UserRole + 1
SORT_ROLE = Qt.ItemDataRole.UserRole + 2
STATUS_WORDS = {"ready": "Ready", "partial": "Partly read", "ingesting": "Adding\u2026"}
QUIET_STATUSES = ("ready",)
"""Statuses the list leaves blank (the tooltip still says them): the name gets the room."""
DOCUMENT_TYPES = ("10-K", "10-Q", "8-K", "20-F", "annual report", "interim report", "earnings release", "budget",
                  "statistics release", "financial statements", "report")
DETAIL_FIELDS = (("issuer", "Issuer"), ("doc_type", "Type"), ("period", "Period"), ("fiscal_year", "Fiscal year"),
                 ("quarter", "Quarter"), ("currency", "Currency"), ("scale", "Scale"), ("ticker", "Trading symbol"))
"""What a person can correct about a document (core.reports.document_metadata.EDITABLE), with its label."""
FILTER_FROM = 8
"""Libraries of this many documents or more show the filter box."""
NAME_COLUMN, PAGES_COLUMN, TABLES_COLUMN, STATUS_COLUMN = 0, 1, 2, 3
ISSUER_COLUMN, TYPE_COLUMN, PERIOD_COLUMN = 4, 5, 6
"""Logical columns after name, pages, tables and status; shown right after the name (moved sections)."""
HEADERS = ("Document", "Pages", "Tables", "", "Issuer", "Type", "Period")
SHOWN_COLUMNS = (PERIOD_COLUMN, TYPE_COLUMN)
"""Shown besides the name unless a person hides them (the header's menu), most wanted first. The issuer,
pages and tables are shown on request: the name's tooltip says them, the issuer filter sits above the list."""
NAME_MIN_WIDTH = 150
"""The room the name keeps: columns are dropped, last wanted first, while the list is too narrow for it."""
ALL = ""
"""The filter choice that keeps every issuer, type or period."""
_ROOT = QModelIndex()


class DocumentDetailsDialog(QDialog):
    """Correct what Folio read about a document: issuer, type, period, currency, scale."""

    def __init__(self, name: str, metadata: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Details of {name}")
        form = QFormLayout(self)
        self.edits: dict[str, QLineEdit] = {}
        for field, label in DETAIL_FIELDS:
            value = getattr(metadata, field, "") if metadata is not None else ""
            if field == "doc_type":
                combo = QComboBox()
                combo.setEditable(True)
                combo.addItems(DOCUMENT_TYPES)
                combo.setCurrentText(str(value or ""))
                edit = combo.lineEdit()
                assert edit is not None
            else:
                edit = QLineEdit("" if value is None else str(value))
                combo = None
            edit.setObjectName(field)
            self.edits[field] = edit
            form.addRow(label, combo if combo is not None else edit)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self._initial = self.values()

    def values(self) -> dict[str, str]:
        return {field: edit.text().strip() for field, edit in self.edits.items()}

    def changes(self) -> dict[str, object]:
        """The fields the person changed."""
        return {k: v for k, v in self.values().items() if v != self._initial.get(k)}


@dataclass
class _Row:
    """One document as the list shows it."""

    document: Document
    label: str
    details: Any  # core.reports.document_metadata.DocumentMetadata or None
    tables: list[Any] | None  # None: not read yet (read when the document is unfolded)
    said: str  # what the filter's words are looked for in, lower case


class LibraryModel(QAbstractItemModel):
    """Documents (top-level rows) and their tables (child rows). A child's index carries its document's row
    number plus one as its id; a document's carries 0."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[_Row] = []
        self._loader: Callable[[int], Sequence[Any]] | None = None
        self.warning_icon = QIcon()

    # -- filling -----------------------------------------------------------------------------------------

    def set_documents(self, documents: Sequence[Document],
                      tables_by_document: Mapping[int, Sequence[Any]] | Callable[[int], Sequence[Any]],
                      metadata: Mapping[int, Any]) -> None:
        self.beginResetModel()
        self._loader = tables_by_document if callable(tables_by_document) else None
        names = Counter(d.file_name for d in documents)
        self._rows = []
        for document in documents:
            label = document.file_name
            if names[label] > 1:  # same name, different files: say which folder each is in
                label = f"{label} ({Path(document.path).parent.name})"
            details = metadata.get(document.id)
            tables = None if callable(tables_by_document) else list(tables_by_document.get(document.id, ()))
            said = " ".join([label, document.title, document.path, getattr(details, "issuer", ""),
                             getattr(details, "doc_type", ""), getattr(details, "period", "")]).lower()
            self._rows.append(_Row(document, label, details, tables, said))
        self.endResetModel()

    def row(self, number: int) -> _Row:
        return self._rows[number]

    def rows(self) -> list[_Row]:
        return list(self._rows)

    def document_row(self, document_id: int) -> int | None:
        return next((n for n, row in enumerate(self._rows) if row.document.id == document_id), None)

    # -- the tree ----------------------------------------------------------------------------------------

    def index(self, row: int, column: int, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> QModelIndex:
        if not self.hasIndex(row, column, parent):
            return QModelIndex()
        if not parent.isValid():
            return self.createIndex(row, column, id=0)
        return self.createIndex(row, column, id=parent.row() + 1)

    def parent(self, index: QModelIndex | QPersistentModelIndex = _ROOT) -> QModelIndex:  # type: ignore[override]
        if not index.isValid() or not index.internalId():
            return QModelIndex()
        return self.createIndex(index.internalId() - 1, 0, id=0)

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        if not parent.isValid():
            return len(self._rows)
        if parent.internalId() or parent.column() != 0:
            return 0
        return len(self._rows[parent.row()].tables or ())

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        return len(HEADERS)

    def hasChildren(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> bool:
        if not parent.isValid():
            return bool(self._rows)
        if parent.internalId() or parent.column() != 0:
            return False
        row = self._rows[parent.row()]
        return bool(row.tables) if row.tables is not None else row.document.table_count > 0

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> bool:
        if not parent.isValid() or parent.internalId() or self._loader is None:
            return False
        row = self._rows[parent.row()]
        return row.tables is None and row.document.table_count > 0

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex) -> None:
        """Read a document's tables (through app/) when it is unfolded: a large library lists at once."""
        if not self.canFetchMore(parent) or self._loader is None:
            return
        row = self._rows[parent.row()]
        tables = list(self._loader(row.document.id))
        if tables:
            self.beginInsertRows(parent, 0, len(tables) - 1)
            row.tables = tables
            self.endInsertRows()
        else:
            row.tables = []

    def flags(self, index: QModelIndex | QPersistentModelIndex) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal:
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return "Click to sort; right-click to show or hide columns"
        return None

    def data(self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        if index.internalId():
            row = self._rows[index.internalId() - 1]
            return self._table_data(row, (row.tables or [])[index.row()], index.column(), role)
        return self._document_data(self._rows[index.row()], index.column(), role)

    def _document_data(self, row: _Row, column: int, role: int) -> Any:
        document, details = row.document, row.details
        if role == Qt.ItemDataRole.DisplayRole:
            return self._document_text(row, column)
        if role == DOCUMENT_ROLE:
            return document.id
        if role == SORT_ROLE:
            if column in (PAGES_COLUMN, TABLES_COLUMN):
                return document.page_count if column == PAGES_COLUMN else document.table_count
            if column == PERIOD_COLUMN and details is not None:
                return f"{details.fiscal_year or 0:04d}{details.quarter or 0}{details.period}"
            return self._document_text(row, column).lower()
        if role == Qt.ItemDataRole.ToolTipRole:
            if column == STATUS_COLUMN:
                return document.note or STATUS_WORDS.get(document.status, document.status)
            if column in (ISSUER_COLUMN, TYPE_COLUMN, PERIOD_COLUMN) and details is not None:
                described = ", ".join(filter(None, [details.describe(),
                                                    " ".join(filter(None, [details.currency, details.scale]))]))
                return described + ("\n(corrected by you)" if details.edited else
                                    "\nRead from the document; Details\u2026 to correct it")
            described = details.describe() if details is not None else ""
            counts = f"{plural(document.page_count, 'page')}, {plural(document.table_count, 'table')}"
            return "\n".join(filter(None, [row.label, document.title, described, counts, document.path, document.note]))
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (PAGES_COLUMN, TABLES_COLUMN):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.DecorationRole and column == STATUS_COLUMN and document.status == "partial":
            return self.warning_icon  # part of it could not be read: say so where it is listed
        return None

    @staticmethod
    def _document_text(row: _Row, column: int) -> str:
        document = row.document
        if column == NAME_COLUMN:
            return row.label
        if column == PAGES_COLUMN:
            return str(document.page_count)
        if column == TABLES_COLUMN:
            return str(document.table_count)
        if column == STATUS_COLUMN:
            return "" if document.status in QUIET_STATUSES else \
                STATUS_WORDS.get(document.status, document.status.capitalize())
        field = {ISSUER_COLUMN: "issuer", TYPE_COLUMN: "doc_type", PERIOD_COLUMN: "period"}[column]
        return str(getattr(row.details, field, "") or "")

    @staticmethod
    def _table_data(row: _Row, table: Any, column: int, role: int) -> Any:
        label = " ".join((table.caption or table.heading or table.name).split())
        if role == Qt.ItemDataRole.DisplayRole:
            if column == NAME_COLUMN:
                return label
            if column == PAGES_COLUMN:
                return f"sheet {table.page}" if row.document.kind == "sheet" else f"p.{table.page}"
            return plural(table.row_count, "row") if column == TABLES_COLUMN else ""
        if role == DOCUMENT_ROLE:
            return row.document.id
        if role == TABLE_ROLE:
            return table.id
        if role == SORT_ROLE:
            return table.page if column == PAGES_COLUMN else label.lower()
        if role == Qt.ItemDataRole.ToolTipRole and column == NAME_COLUMN:
            return (f"{label}\nPage {table.page}, {plural(table.row_count, 'row')}; SQL table {table.name}\n"
                    "Click to see it as a grid beside its page; right-click to export it")
        return None


class LibraryFilter(QSortFilterProxyModel):
    """Keeps the documents holding every word typed and of the issuer, type and period chosen (a document's
    tables come with it), and sorts by the clicked column."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.words: list[str] = []
        self.chosen: dict[int, str] = {ISSUER_COLUMN: ALL, TYPE_COLUMN: ALL, PERIOD_COLUMN: ALL}
        self.setSortRole(SORT_ROLE)

    def set_filter(self, text: str, chosen: Mapping[int, str]) -> None:
        self.beginFilterChange()
        self.words = text.lower().split()
        self.chosen = dict(chosen)
        self.endFilterChange(QSortFilterProxyModel.Direction.Rows)

    def filterAcceptsRow(self, source_row: int, source_parent: QModelIndex | QPersistentModelIndex) -> bool:
        if source_parent.isValid():
            return True
        model = self.sourceModel()
        assert isinstance(model, LibraryModel)
        row = model.row(source_row)
        if not all(word in row.said for word in self.words):
            return False
        return all(not wanted or LibraryModel._document_text(row, column) == wanted
                   for column, wanted in self.chosen.items())


class LibraryView(QWidget):
    add_files_requested = Signal()
    sample_requested = Signal()
    remove_requested = Signal(int)  # document id
    details_changed = Signal(int, dict)  # document id, {field: new value}
    table_requested = Signal(int)  # table id
    page_requested = Signal(int, int)  # document id, page
    export_requested = Signal(str, int)  # "table" with a table id, or "document" with a document id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        heading = QLabel("Library")
        heading.setStyleSheet("font-size: 15px; font-weight: 600;")
        self.add_button = QPushButton("Add files\u2026")
        self.add_button.setToolTip("Add PDF files (Ctrl+O), or drop files and folders on the window")
        self.add_button.clicked.connect(self.add_files_requested)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setToolTip("Remove the selected document from the library (Del)")
        self.remove_button.setEnabled(False)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        self.heading = heading
        self.details_button = QPushButton("Details\u2026")
        self.details_button.setToolTip("See and correct what Folio read about the selected document: issuer, type, "
                                       "period, currency and scale (questions are routed by them)")
        self.details_button.setEnabled(False)
        self.details_button.clicked.connect(self._on_details_clicked)
        # The title and Add files… on the first row; Details… and Remove beside them when the panel is wide
        # enough for every button whole, else on a row of their own (the panel narrows to 220 px).
        header = QHBoxLayout()
        header.addWidget(heading)
        header.addStretch(1)
        header.addWidget(self.add_button)
        self.header_row = header
        self.actions_row = QHBoxLayout()
        self.actions_row.addStretch(1)
        for button in (self.details_button, self.remove_button):
            self.actions_row.addWidget(button)

        self.model = LibraryModel(self)
        self.model.warning_icon = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning)
        self.proxy = LibraryFilter(self)
        self.proxy.setSourceModel(self.model)
        self.tree = QTreeView()
        self.tree.setModel(self.proxy)
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setAllColumnsShowFocus(True)
        # Report names share long prefixes and end in years: keep both ends, the tooltip has all of it.
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        columns = self.tree.header()
        columns.setStretchLastSection(False)
        columns.setMinimumSectionSize(24)
        columns.setSectionResizeMode(NAME_COLUMN, QHeaderView.ResizeMode.Stretch)
        for column in range(1, len(HEADERS)):
            columns.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        for visual, column in enumerate((ISSUER_COLUMN, TYPE_COLUMN, PERIOD_COLUMN), start=1):
            columns.moveSection(columns.visualIndex(column), visual)
        # The columns besides the name a person wants, most wanted first; shown as the width allows.
        self.wanted = list(SHOWN_COLUMNS)
        columns.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        columns.customContextMenuRequested.connect(self._on_header_menu)
        # No sort until a header is clicked: the library's own order (as added) first.
        columns.setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.tree.setSortingEnabled(True)
        selection = self.tree.selectionModel()
        assert selection is not None
        selection.selectionChanged.connect(self._on_selection_changed)
        selection.selectionChanged.connect(self._on_table_clicked)
        self.tree.activated.connect(self._on_activated)
        self.tree.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.tree.customContextMenuRequested.connect(self._on_context_menu)
        self.tree.expanded.connect(self._on_expanded)

        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by name, issuer, type or period")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setToolTip("Show only the documents whose name, title, issuer, type or period hold every "
                                    "word typed (\u201cCouncil budget 2019\u201d)")
        self.filter_edit.textChanged.connect(self._on_filter_changed)
        self.choices: dict[int, QComboBox] = {}
        filters = QHBoxLayout()
        filters.setContentsMargins(0, 0, 0, 0)
        for column, everyone in ((ISSUER_COLUMN, "All issuers"), (TYPE_COLUMN, "All types"),
                                 (PERIOD_COLUMN, "All periods")):
            combo = QComboBox()
            combo.addItem(everyone, ALL)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(6)
            combo.setToolTip(f"Show only the documents of one {HEADERS[column].lower()}")
            combo.currentIndexChanged.connect(self._on_filter_changed)
            filters.addWidget(combo, 2 if column == ISSUER_COLUMN else 1)
            self.choices[column] = combo
        self.filters = QWidget()
        self.filters.setLayout(filters)
        self.filter_edit.setVisible(False)
        self.filters.setVisible(False)

        self.empty = QWidget()
        self.empty_label = QLabel(
            "<p style='font-size:15px'><b>Your library is empty</b></p>"
            "<p>Drop PDF files or folders anywhere on this window, or add them with the button below. "
            "Tables become real SQL tables; every answer points back to the page it came from.</p>"
        )
        self.empty_label.setWordWrap(True)
        self.empty_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_add_button = QPushButton("Add PDF files\u2026")
        self.empty_add_button.clicked.connect(self.add_files_requested)
        self.sample_button = QPushButton("Try the sample report")
        self.sample_button.setToolTip("Add a small annual report with tables, then ask it a question")
        self.sample_button.clicked.connect(self.sample_requested)
        empty_layout = QVBoxLayout(self.empty)
        empty_layout.addStretch(1)
        empty_layout.addWidget(self.empty_label)
        empty_layout.addSpacing(style.SPACING)
        empty_layout.addWidget(self.empty_add_button, 0, Qt.AlignmentFlag.AlignHCenter)
        empty_layout.addWidget(self.sample_button, 0, Qt.AlignmentFlag.AlignHCenter)
        empty_layout.addStretch(2)

        self.stack = QStackedWidget()
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.tree)
        self.ingest_view = IngestView()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(style.SPACING, style.SPACING, 0, style.SPACING)
        layout.addLayout(header)
        layout.addLayout(self.actions_row)
        layout.addWidget(self.filter_edit)
        layout.addWidget(self.filters)
        layout.addWidget(self.stack, 1)
        layout.addWidget(self.ingest_view)
        self.set_sample_available(False)

    def set_sample_available(self, available: bool) -> None:
        self.sample_button.setVisible(available)

    def set_documents(self, documents: Sequence[Document],
                      tables_by_document: Mapping[int, Sequence[Any]] | Callable[[int], Sequence[Any]],
                      metadata: Mapping[int, Any] | None = None) -> None:
        """Show ``documents``; their tables (objects with id, name, page, row_count, caption) as children, given
        by document id or, for a large library, read by a function when a document is unfolded;
        ``metadata`` (core.reports.document_metadata.DocumentMetadata by document id) in the issuer, type and period columns."""
        selected = self.selected_document_id()
        expanded = [row.document.id for n, row in enumerate(self.model.rows())
                    if self.tree.isExpanded(self.proxy.mapFromSource(self.model.index(n, 0)))]
        self.model.set_documents(documents, tables_by_document, dict(metadata or {}))
        for document_id in expanded:
            if (index := self._proxy_index(document_id)).isValid():
                self.tree.setExpanded(index, True)
        if selected is not None:
            self.select_document(selected)
        self._fill_choices()
        self.stack.setCurrentWidget(self.tree if documents else self.empty)
        self.filter_edit.setVisible(len(documents) >= FILTER_FROM)
        self.filters.setVisible(len(documents) >= FILTER_FROM)
        self._fit_columns()
        self._on_selection_changed()

    def _fill_choices(self) -> None:
        """Each filter offers the values the library holds (keeping the one chosen while it still exists)."""
        for column, combo in self.choices.items():
            order: dict[str, str] = {}  # value -> how it sorts: periods by fiscal year and quarter, latest first
            for number, row in enumerate(self.model.rows()):
                if value := LibraryModel._document_text(row, column):
                    key = str(self.model.index(number, column).data(SORT_ROLE))
                    order[value] = max(order.get(value, key), key)
            values = sorted(order, key=lambda v: order[v], reverse=column == PERIOD_COLUMN)
            chosen = combo.currentData()
            combo.blockSignals(True)
            combo.clear()
            combo.addItem({ISSUER_COLUMN: "All issuers", TYPE_COLUMN: "All types", PERIOD_COLUMN: "All periods"}[column],
                          ALL)
            for value in values:
                combo.addItem(value, value)
            combo.setCurrentIndex(max(0, combo.findData(chosen)))
            combo.blockSignals(False)
        self._on_filter_changed()

    @Slot()
    def _on_filter_changed(self, *_: Any) -> None:
        self.proxy.set_filter(self.filter_edit.text(), {column: str(combo.currentData() or ALL)
                                                        for column, combo in self.choices.items()})

    def choose(self, column: int, value: str) -> None:
        """Keep only the documents whose issuer, type or period (``column``) is ``value`` ('' for all)."""
        combo = self.choices[column]
        combo.setCurrentIndex(max(0, combo.findData(value)))

    def visible_count(self) -> int:
        return self.proxy.rowCount()

    def document_count(self) -> int:
        return self.model.rowCount()

    def document_names(self) -> list[str]:
        return [row.label for row in self.model.rows()]

    def document_index(self, row: int, column: int = NAME_COLUMN) -> QModelIndex:
        """The list's index of the ``row``-th document shown (as sorted and filtered)."""
        return self.proxy.index(row, column)

    def table_index(self, document_row: int, table_row: int, column: int = NAME_COLUMN) -> QModelIndex:
        """The index of a document's table (the document's tables are read first if they were not)."""
        parent = self.document_index(document_row)
        if self.proxy.canFetchMore(parent):
            self.proxy.fetchMore(parent)
        return self.proxy.index(table_row, column, parent)

    def _proxy_index(self, document_id: int) -> QModelIndex:
        number = self.model.document_row(document_id)
        return QModelIndex() if number is None else self.proxy.mapFromSource(self.model.index(number, 0))

    def select_document(self, document_id: int) -> None:
        index = self._proxy_index(document_id)
        if index.isValid():
            self.tree.setCurrentIndex(index)

    def selected_document_id(self) -> int | None:
        selection = self.tree.selectionModel()
        rows = selection.selectedRows(NAME_COLUMN) if selection is not None else []
        if not rows or rows[0].data(TABLE_ROLE) is not None:
            return None
        return int(rows[0].data(DOCUMENT_ROLE))

    @Slot()
    def _on_selection_changed(self, *_: Any) -> None:
        self.remove_button.setEnabled(self.selected_document_id() is not None)
        self.details_button.setEnabled(self.selected_document_id() is not None)

    def selected_table_id(self) -> int | None:
        selection = self.tree.selectionModel()
        rows = selection.selectedRows(NAME_COLUMN) if selection is not None else []
        table_id = rows[0].data(TABLE_ROLE) if rows else None
        return int(table_id) if table_id is not None else None

    @Slot()
    def _on_table_clicked(self, *_: Any) -> None:
        """A table chosen in the list opens as its grid beside its page."""
        table_id = self.selected_table_id()
        if table_id is not None:
            self.table_requested.emit(table_id)

    @Slot(QPoint)
    def _on_context_menu(self, position: QPoint) -> None:
        index = self.tree.indexAt(position)
        if not index.isValid():
            return
        menu = QMenu(self)
        table_id = index.data(TABLE_ROLE)
        document_id = int(index.data(DOCUMENT_ROLE))
        if table_id is not None:
            menu.addAction("Export this table\u2026", lambda: self.export_requested.emit("table", int(table_id)))
        menu.addAction("Export every table of the document\u2026",
                       lambda: self.export_requested.emit("document", document_id))
        menu.popup(self.tree.viewport().mapToGlobal(position))

    @Slot(QPoint)
    def _on_header_menu(self, position: QPoint) -> None:
        menu = QMenu(self)
        for column in range(1, len(HEADERS)):
            action = menu.addAction(HEADERS[column] or "Status")
            action.setCheckable(True)
            action.setChecked(column in self.wanted)
            action.toggled.connect(lambda shown, c=column: self.want_column(c, shown))
        menu.popup(self.tree.header().mapToGlobal(position))

    def want_column(self, column: int, shown: bool) -> None:
        """Show or hide a column (shown ones go last in the order they are kept when the list narrows)."""
        if column in self.wanted:
            self.wanted.remove(column)
        if shown:
            self.wanted.append(column)
        self._fit_columns()

    def _fit_columns(self) -> None:
        """Show the wanted columns the width allows, keeping ``NAME_MIN_WIDTH`` for the name (the panel narrows
        when evidence opens); the status column only while some document is not ready."""
        busy = any(row.document.status not in QUIET_STATUSES for row in self.model.rows())
        wanted = [c for c in self.wanted if c != STATUS_COLUMN] + ([STATUS_COLUMN] if busy else [])
        room = self.tree.viewport().width() - self.tree.indentation() - NAME_MIN_WIDTH
        shown = []
        for column in ([STATUS_COLUMN] if busy else []) + [c for c in wanted if c != STATUS_COLUMN]:
            width = max(self.tree.sizeHintForColumn(column), self.tree.header().sectionSizeHint(column))
            if width <= room:
                shown.append(column)
                room -= width
        for column in range(1, len(HEADERS)):
            self.tree.setColumnHidden(column, column not in shown)

    def resizeEvent(self, event: Any) -> None:
        super().resizeEvent(event)
        self._place_actions()
        self._fit_columns()

    def _place_actions(self) -> None:
        """Details… and Remove beside the title and Add files… when all fit whole, else on the row below."""
        buttons = (self.details_button, self.remove_button)
        spacing = max(0, self.header_row.spacing())
        room = self.width() - style.SPACING  # the panel's left margin (it has none on the right)
        wanted = sum(w.sizeHint().width() + spacing for w in (self.heading, self.add_button, *buttons)) + 24
        one_row = wanted <= room
        if one_row == (self.header_row.indexOf(self.details_button) >= 0):
            return
        source, target = (self.actions_row, self.header_row) if one_row else (self.header_row, self.actions_row)
        for button in buttons:
            source.removeWidget(button)
            target.addWidget(button)

    def details_dialog(self, document_id: int) -> DocumentDetailsDialog:
        number = self.model.document_row(document_id)
        row = self.model.row(number) if number is not None else None
        return DocumentDetailsDialog(row.document.file_name if row else "the document",
                                     row.details if row else None, self)

    @Slot()
    def _on_details_clicked(self) -> None:
        document_id = self.selected_document_id()
        if document_id is None:
            return
        dialog = self.details_dialog(document_id)
        if dialog.exec() == QDialog.DialogCode.Accepted and (changes := dialog.changes()):
            self.details_changed.emit(document_id, changes)

    @Slot()
    def _on_remove_clicked(self) -> None:
        document_id = self.selected_document_id()
        if document_id is not None:
            self.remove_requested.emit(document_id)

    @Slot(QModelIndex)
    def _on_expanded(self, index: QModelIndex) -> None:
        # The view fetches when it lays out; a document unfolded before that (or by code) is read now.
        if self.proxy.canFetchMore(index):
            self.proxy.fetchMore(index)

    @Slot(QModelIndex)
    def _on_activated(self, index: QModelIndex) -> None:
        table_id = index.data(TABLE_ROLE)
        if table_id is not None:
            self.table_requested.emit(int(table_id))
        else:
            self.page_requested.emit(int(index.data(DOCUMENT_ROLE)), 1)

    def keyPressEvent(self, event: Any) -> None:
        if event.key() == Qt.Key.Key_Delete and self.selected_document_id() is not None:
            self._on_remove_clicked()
            return
        super().keyPressEvent(event)
