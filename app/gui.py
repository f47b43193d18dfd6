"""Starting the window: the QApplication, the controller for the chosen library, the main window,
and ``--screenshot PATH [--ask QUESTION]``, which runs offscreen, optionally asks and waits for the
answer, saves a PNG of the window and exits. The one app module that imports ``ui``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from PySide6.QtCore import QEventLoop, QMessageLogContext, QTimer, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication, QMessageBox

from app import messages
from app.controller import Controller
from app.paths import library_dir
from app.settings import load_settings
from core.errors import UserError
from ui import style
from ui.main_window import MainWindow

WINDOW_SIZE = (1360, 820)
ANSWER_TIMEOUT_MS = 15 * 60 * 1000


QUIET_QT_MESSAGES = ("propagateSizeHints",)
"""Qt warnings that say nothing to a person (the offscreen and some Wayland plugins print this one for
every window shown)."""


def _on_qt_message(mode: QtMsgType, context: QMessageLogContext, message: str) -> None:
    if any(quiet in message for quiet in QUIET_QT_MESSAGES):
        return
    sys.stderr.write(f"{message}\n")


def make_application() -> QApplication:
    qInstallMessageHandler(_on_qt_message)
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    application = QApplication(sys.argv[:1])
    application.setApplicationName("Folio")
    application.setApplicationDisplayName("Folio")
    application.setOrganizationName("Folio")
    application.setDesktopFileName("folio")
    # Fusion draws every widget from the palette, so Folio follows the system's light or dark scheme.
    application.setStyle("Fusion")
    application.setWindowIcon(style.app_icon())
    return application


def wait(milliseconds: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(milliseconds, loop.quit)
    loop.exec()


def take_screenshot(window: MainWindow, path: Path, question: str | None = None,
                    size: tuple[int, int] = WINDOW_SIZE) -> Path:
    """Let the window settle (and answer ``question`` first, if given), then save it as a PNG."""
    window.resize(*size)
    window.show()
    wait(300)
    if question:
        job = window.ask(question)
        if job is not None and job.running:
            loop = QEventLoop()
            job.ended.connect(loop.quit)
            QTimer.singleShot(ANSWER_TIMEOUT_MS, loop.quit)
            loop.exec()
        cards = window.chat_view.answer_cards()
        answer = cards[-1].answer if cards else None
        if answer is not None and answer.citations and answer.status != "refused":
            window.show_citation(answer.citations[0], 1)
        wait(300)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not window.grab().save(str(path), "PNG"):
        raise OSError(f"Could not write the screenshot to {path}")
    return path


def run_gui(args: argparse.Namespace) -> int:
    if getattr(args, "screenshot", None):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    application = make_application()
    try:
        controller = Controller(library_dir(getattr(args, "library", None)), load_settings())
    except UserError as exc:  # e.g. the library folder cannot be written, or a newer Folio made it
        message = messages.describe(exc)
        sys.stderr.write(f"folio: {message}\n")
        if not getattr(args, "screenshot", None):
            QMessageBox.critical(None, "Folio cannot open its library", message)
        return 2
    window = MainWindow(controller)
    window.resize(*WINDOW_SIZE)
    # The model is checked and loaded in the background once the event loop runs, so the window's
    # first paint does not share the CPU with it; the status bar shows "loading" until it is ready.
    QTimer.singleShot(0, controller.check_model)
    QTimer.singleShot(0, window.update_vectors)  # a library an older Folio made: its vectors made again, as a job
    try:
        if getattr(args, "screenshot", None):
            saved = take_screenshot(window, Path(args.screenshot), getattr(args, "ask", None),
                                    getattr(args, "size", None) or WINDOW_SIZE)
            print(f"Saved {saved}")
            return 0
        window.show()
        return int(application.exec())
    finally:
        window.close()
        controller.close()
