"""The ingestion panel: one row per file with its stage, page and progress bar, a cancel button for
the batch, and a message for every file that could not be added (kept until dismissed)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, cast

from PySide6.QtCore import Qt, QTimer, Signal, Slot
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.messages import plural
from app.qt_jobs import Job
from models.types import ProgressEvent
from ui import style


class _FileOutcome(Protocol):
    """What an ingestion job reports per file (core's IngestResult, which the UI does not import)."""

    path: Path
    status: str
    message: str

# How far along a file is when a stage starts, and how much of the bar the stage fills.
STAGE_SPAN = {"hashing": (0.0, 0.02), "pages": (0.02, 0.78), "tables": (0.80, 0.05), "embedding": (0.85, 0.15),
              "done": (1.0, 0.0), "ocr": (0.02, 0.78)}
STAGE_WORDS = {"hashing": "Reading", "pages": "Reading", "tables": "Typing tables", "embedding": "Indexing",
               "done": "Added", "ocr": "OCR of scanned"}
DONE_ROWS_LINGER_MS = 4000


class FileRow(QFrame):
    """One file of a batch."""

    dismissed = Signal()
    password_requested = Signal()

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.state = "waiting"  # waiting | working | added | skipped | failed | cancelled
        self.name_label = QLabel(name)
        self.name_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.stage_label = QLabel("Waiting")
        self.stage_label.setStyleSheet(f"color: {style.muted_colour(self)};")
        self.stage_label.setWordWrap(True)
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setFixedHeight(6)
        self.dismiss_button = QToolButton()
        self.dismiss_button.setText("\u00d7")
        self.dismiss_button.setToolTip("Dismiss")
        self.dismiss_button.setAutoRaise(True)
        self.dismiss_button.hide()
        self.dismiss_button.clicked.connect(self.dismissed)
        self.password_button = QPushButton("Enter password\u2026")
        self.password_button.hide()
        self.password_button.clicked.connect(self.password_requested)
        self.path: Path | None = None
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.name_label, 1)
        top.addWidget(self.password_button)
        top.addWidget(self.dismiss_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.setSpacing(2)
        layout.addLayout(top)
        layout.addWidget(self.bar)
        layout.addWidget(self.stage_label)

    def show_progress(self, event: ProgressEvent) -> None:
        self.state = "working"
        start, span = STAGE_SPAN.get(event.stage, (0.0, 0.0))
        fraction = start + span * (event.fraction or 0.0)
        self.bar.setValue(max(self.bar.value(), int(fraction * 1000)))
        words = STAGE_WORDS.get(event.stage, event.stage.capitalize())
        detail = f"page {event.done + 1} of {event.total}" if event.stage in ("pages", "ocr") and event.total else ""
        self.stage_label.setText(f"{words} {detail}".strip() + "\u2026" if event.stage != "done" else words)

    def show_result(self, status: str, message: str) -> None:
        self.state = status
        self.bar.setValue(1000 if status in ("added", "skipped") else self.bar.value())
        if status == "added":
            self.stage_label.setText(message or "Added")
        elif status == "skipped":
            self.stage_label.setText(message or "Already in the library")
        else:
            self.bar.hide()
            self.stage_label.setText(message)
            colour = style.error_colour(self) if status == "failed" else style.muted_colour(self)
            self.stage_label.setStyleSheet(f"color: {colour};")
            self.dismiss_button.show()


class IngestView(QFrame):
    """Shows the running batch and the failures of past ones; hides itself when there is nothing."""

    password_requested = Signal(object)  # Path of a password-protected file

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.job: Job | None = None
        self.rows: dict[str, FileRow] = {}
        self.title = QLabel()
        self.title.setStyleSheet("font-weight: 600;")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop adding files (Esc)")
        self.cancel_button.clicked.connect(self.cancel)
        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.cancel_button)
        self.rows_layout = QVBoxLayout()
        self.rows_layout.setSpacing(0)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(style.SPACING, style.SPACING, style.SPACING, style.SPACING)
        layout.addLayout(header)
        layout.addLayout(self.rows_layout)
        self._linger = QTimer(self)
        self._linger.setSingleShot(True)
        self._linger.timeout.connect(self._clear_done_rows)
        self.hide()

    def track(self, job: Job, files: list[Path]) -> None:
        """Follow an ingest job over ``files`` (rows appear now, in order, as waiting)."""
        self._clear_done_rows()
        self.job = job
        for path in files:
            self._add_row(Path(path))
        job.progressed.connect(self._on_progressed)
        job.reported.connect(self._on_reported)
        job.ended.connect(self._on_ended)
        self.cancel_button.setEnabled(True)
        self.cancel_button.show()
        self._update_title()
        self.show()

    @property
    def busy(self) -> bool:
        return self.job is not None and self.job.running

    def cancel(self) -> None:
        if self.busy and self.job is not None:
            self.job.cancel()
            self.cancel_button.setEnabled(False)
            self.title.setText("Cancelling\u2026")

    def _add_row(self, path: Path) -> FileRow:
        """A waiting row for ``path``, replacing an earlier row of the same file (a retry)."""
        old = self._row_for_path(path)
        if old is not None:
            self._remove_row(old, hide_when_empty=False)
        label = path.name
        if label in self.rows:  # two files of the same name: say which folder each comes from
            label = f"{path.name} ({path.parent.name})"
        serial = 2
        while label in self.rows:
            label = f"{path.name} ({path.parent.name} {serial})"
            serial += 1
        row = FileRow(label, self)
        row.path = path
        row.dismissed.connect(lambda row=row: self._remove_row(row))
        row.password_requested.connect(lambda row=row: self.password_requested.emit(row.path))
        self.rows[label] = row
        self.rows_layout.addWidget(row)
        return row

    def _row_for_path(self, path: Path) -> FileRow | None:
        return next((row for row in self.rows.values() if row.path == Path(path)), None)

    @Slot(object)
    def _on_progressed(self, event: ProgressEvent) -> None:
        # Files go one at a time, so the event is about the working row of that name, else the next one.
        candidates = [row for row in self.rows.values()
                      if row.path is not None and row.path.name == event.document
                      and row.state in ("waiting", "working")]
        working = [row for row in candidates if row.state == "working"]
        if working or candidates:
            (working or candidates)[0].show_progress(event)

    @Slot(str, object)
    def _on_reported(self, kind: str, result: object) -> None:
        if kind != "file":
            return
        outcome = cast(_FileOutcome, result)
        path = Path(outcome.path)
        row = self._row_for_path(path) or self._add_row(path)
        row.show_result(outcome.status, outcome.message)
        self._update_title()

    def offer_password(self, path: Path) -> None:
        """Let the person give the password of a file that failed for want of one."""
        row = self._row_for_path(Path(path))
        if row is not None:
            row.password_button.show()

    @Slot()
    def _on_ended(self) -> None:
        job = self.job
        if job is not None and job.outcome == "cancelled":
            for row in self.rows.values():
                if row.state in ("waiting", "working"):
                    row.show_result("cancelled", "Cancelled; nothing from this file was kept.")
        elif job is not None and job.outcome == "failed":
            for row in self.rows.values():
                if row.state in ("waiting", "working"):
                    row.show_result("failed", job.error_message)
        self.cancel_button.hide()
        self._update_title()
        self._linger.start(DONE_ROWS_LINGER_MS)

    def _update_title(self) -> None:
        states = [row.state for row in self.rows.values()]
        failed = states.count("failed")
        if self.busy:
            finished = sum(s in ("added", "skipped", "failed") for s in states)
            self.title.setText(f"Adding {plural(len(states), 'file')}: {finished} done")
        elif failed:
            self.title.setText(f"{plural(failed, 'file')} could not be added")
        else:
            self.title.setText("Done")

    def _clear_done_rows(self) -> None:
        if self.busy:
            return
        for row in [r for r in self.rows.values() if r.state in ("added", "skipped", "cancelled", "waiting")]:
            self._remove_row(row)

    def _remove_row(self, row: FileRow, hide_when_empty: bool = True) -> None:
        self.rows.pop(row.name, None)
        self.rows_layout.removeWidget(row)
        row.deleteLater()
        if not self.rows and hide_when_empty:
            self.hide()
        else:
            self._update_title()

    def failures(self) -> dict[str, str]:
        """Row label (the file name) -> message, for every file that could not be added."""
        return {name: row.stage_label.text() for name, row in self.rows.items() if row.state == "failed"}
