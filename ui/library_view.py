"""The library panel: documents with status, pages and tables; each document unfolds to its tables.
An empty library shows how to start (drop files, add files, or open the sample report)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal, Slot
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
    QPushButton,
    QStackedWidget,
    QStyle,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.messages import plural
from models.types import Document
from ui import style
from ui.ingest_view import IngestView

DOCUMENT_ROLE = Qt.ItemDataRole.UserRole
TABLE_ROLE = Qt.ItemDataRole.UserRole + 1
KIND_ROLE = Qt.ItemDataRole.UserRole + 2
STATUS_WORDS = {"ready": "Ready", "partial": "Partly read", "ingesting": "Adding\u2026"}
QUIET_STATUSES = ("ready",)
"""Statuses the list leaves blank (the tooltip still says them): the name gets the room."""
DOCUMENT_TYPES = ("10-K", "10-Q", "8-K", "20-F", "annual report", "interim report", "earnings release", "budget",
                  "statistics release", "financial statements", "report")
DETAIL_FIELDS = (("issuer", "Issuer"), ("doc_type", "Type"), ("period", "Period"), ("fiscal_year", "Fiscal year"),
                 ("quarter", "Quarter"), ("currency", "Currency"), ("scale", "Scale"))
"""What a person can correct about a document (core.document_metadata.EDITABLE), with its label."""
FILTER_FROM = 8
"""Libraries of this many documents or more show the filter box."""
ISSUER_COLUMN, TYPE_COLUMN, PERIOD_COLUMN = 4, 5, 6
"""Logical columns after name, pages, tables and status; shown right after the name (moved sections)."""


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


class LibraryView(QWidget):
    add_files_requested = Signal()
    sample_requested = Signal()
    remove_requested = Signal(int)  # document id
    details_changed = Signal(int, dict)  # document id, {field: new value}
    table_requested = Signal(int)  # table id
    page_requested = Signal(int, int)  # document id, page

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
        header = QHBoxLayout()
        header.addWidget(heading, 1)
        self.details_button = QPushButton("Details\u2026")
        self.details_button.setToolTip("See and correct what Folio read about the selected document: issuer, type, "
                                       "period, currency and scale (questions are routed by them)")
        self.details_button.setEnabled(False)
        self.details_button.clicked.connect(self._on_details_clicked)
        header.addWidget(self.add_button)
        header.addWidget(self.details_button)
        header.addWidget(self.remove_button)
        self._metadata: dict[int, Any] = {}
        self._names: dict[int, str] = {}

        self.tree = QTreeWidget()
        self.tree.setColumnCount(7)
        self.tree.setHeaderLabels(["Document", "Pages", "Tables", "", "Issuer", "Type", "Period"])
        self.tree.setRootIsDecorated(True)
        self.tree.setUniformRowHeights(True)
        # Report names share long prefixes and end in years: keep both ends, the tooltip has all of it.
        self.tree.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.tree.header().setStretchLastSection(False)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2, 3, 4, 5, 6):
            self.tree.header().setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        for visual, column in enumerate((ISSUER_COLUMN, TYPE_COLUMN, PERIOD_COLUMN), start=1):
            self.tree.header().moveSection(self.tree.header().visualIndex(column), visual)
        self.tree.itemSelectionChanged.connect(self._on_selection_changed)
        self.tree.itemActivated.connect(self._on_item_activated)
        self.tree.itemExpanded.connect(self._on_item_expanded)
        self._tables_loader: Callable[[int], Sequence[Any]] | None = None

        self.filter_edit = QLineEdit()
        self.filter_edit.setPlaceholderText("Filter by name, issuer, type or period")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setToolTip("Show only the documents whose name, title, issuer, type or period hold every "
                                    "word typed (\u201cCouncil budget 2019\u201d)")
        self.filter_edit.textChanged.connect(self._on_filter_changed)
        self.filter_edit.setVisible(False)

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
        layout.addWidget(self.filter_edit)
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
        ``metadata`` (core.document_metadata.DocumentMetadata by document id) in the issuer, type and period columns."""
        self._metadata = dict(metadata or {})
        self._names = {d.id: d.file_name for d in documents}
        self._tables_loader = tables_by_document if callable(tables_by_document) else None
        selected = self.selected_document_id()
        expanded = {item.data(0, DOCUMENT_ROLE) for item in self._document_items() if item.isExpanded()}
        self.tree.clear()
        names = Counter(d.file_name for d in documents)
        for document in documents:
            label = document.file_name
            if names[label] > 1:  # same name, different files: say which folder each is in
                label = f"{label} ({Path(document.path).parent.name})"
            details = self._metadata.get(document.id)
            item = QTreeWidgetItem([label, str(document.page_count), str(document.table_count),
                                    "" if document.status in QUIET_STATUSES else
                                    STATUS_WORDS.get(document.status, document.status.capitalize()),
                                    getattr(details, "issuer", ""), getattr(details, "doc_type", ""),
                                    getattr(details, "period", "")])
            item.setData(0, DOCUMENT_ROLE, document.id)
            tip = f"{label}\n{document.title}\n{document.path}" + (f"\n{document.note}" if document.note else "")
            item.setToolTip(0, tip)
            item.setToolTip(3, document.note or STATUS_WORDS.get(document.status, document.status))
            if details is not None:
                described = ", ".join(filter(None, [details.describe(), " ".join(filter(None, [details.currency,
                                                                                             details.scale]))]))
                for column in (ISSUER_COLUMN, TYPE_COLUMN, PERIOD_COLUMN):
                    item.setToolTip(column, described + ("\n(corrected by you)" if details.edited else
                                                         "\nRead from the document; Details\u2026 to correct it"))
            if document.status == "partial":  # part of it could not be read: say so where it is listed
                item.setIcon(3, self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxWarning))
            for column in (1, 2):
                item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            if callable(tables_by_document):
                if document.table_count:  # read when unfolded: a large library lists at once
                    item.setData(0, KIND_ROLE, document.kind)
                    item.setChildIndicatorPolicy(QTreeWidgetItem.ChildIndicatorPolicy.ShowIndicator)
            else:
                self._add_tables(item, document.id, document.kind, tables_by_document.get(document.id, ()))
            self.tree.addTopLevelItem(item)
            if document.id in expanded:
                item.setExpanded(True)
            if document.id == selected:
                item.setSelected(True)
        self.stack.setCurrentWidget(self.tree if documents else self.empty)
        self.filter_edit.setVisible(len(documents) >= FILTER_FROM)
        self._on_filter_changed(self.filter_edit.text())
        self._on_selection_changed()

    @Slot(str)
    def _on_filter_changed(self, text: str) -> None:
        wanted = text.lower().split()
        for item in self._document_items():
            said = " ".join([item.text(0), item.toolTip(0), *(item.text(c) for c in (ISSUER_COLUMN, TYPE_COLUMN,
                                                                                    PERIOD_COLUMN))]).lower()
            item.setHidden(not all(word in said for word in wanted))

    def visible_count(self) -> int:
        return sum(not item.isHidden() for item in self._document_items())

    def _add_tables(self, item: QTreeWidgetItem, document_id: int, kind: str, tables: Sequence[Any]) -> None:
        for table in tables:
            label = " ".join((table.caption or table.heading or table.name).split())
            where = f"sheet {table.page}" if kind == "sheet" else f"p.{table.page}"
            child = QTreeWidgetItem([label, where, plural(table.row_count, "row"), ""])
            child.setData(0, DOCUMENT_ROLE, document_id)
            child.setData(0, TABLE_ROLE, table.id)
            child.setToolTip(0, f"{label}\nPage {table.page}, {plural(table.row_count, 'row')}; SQL table "
                                f"{table.name}\nDouble-click to see its cells")
            item.addChild(child)

    @Slot(QTreeWidgetItem)
    def _on_item_expanded(self, item: QTreeWidgetItem) -> None:
        loader = self._tables_loader
        if loader is None or item.childCount() or item.data(0, TABLE_ROLE) is not None:
            return
        document_id = int(item.data(0, DOCUMENT_ROLE))
        self._add_tables(item, document_id, str(item.data(0, KIND_ROLE) or "pdf"), loader(document_id))

    def document_names(self) -> list[str]:
        return [item.text(0) for item in self._document_items()]

    def _document_items(self) -> list[QTreeWidgetItem]:
        items = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [item for item in items if item is not None]

    def selected_document_id(self) -> int | None:
        items = self.tree.selectedItems()
        if not items or items[0].data(0, TABLE_ROLE) is not None:
            return None
        return int(items[0].data(0, DOCUMENT_ROLE))

    @Slot()
    def _on_selection_changed(self) -> None:
        self.remove_button.setEnabled(self.selected_document_id() is not None)
        self.details_button.setEnabled(self.selected_document_id() is not None)

    def details_dialog(self, document_id: int) -> DocumentDetailsDialog:
        return DocumentDetailsDialog(self._names.get(document_id, "the document"), self._metadata.get(document_id), self)

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

    @Slot(QTreeWidgetItem, int)
    def _on_item_activated(self, item: QTreeWidgetItem, column: int) -> None:
        table_id = item.data(0, TABLE_ROLE)
        if table_id is not None:
            self.table_requested.emit(int(table_id))
        else:
            self.page_requested.emit(int(item.data(0, DOCUMENT_ROLE)), 1)

    def keyPressEvent(self, event: Any) -> None:
        if event.key() == Qt.Key.Key_Delete and self.selected_document_id() is not None:
            self._on_remove_clicked()
            return
        super().keyPressEvent(event)
