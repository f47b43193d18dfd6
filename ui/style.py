"""The look: colours taken from the system palette (so light and dark both work), the few accents
Folio adds (evidence highlights, status dots, error text), spacing, and the application icon."""

from __future__ import annotations

import importlib.resources

from PySide6.QtGui import QColor, QIcon, QPalette
from PySide6.QtWidgets import QApplication, QWidget

HIGHLIGHT_FILL = QColor(255, 196, 0, 80)
HIGHLIGHT_EDGE = QColor(230, 140, 0, 230)
CELL_FILL = QColor(0, 170, 255, 70)
CELL_EDGE = QColor(0, 120, 215, 230)
STATUS_COLOURS = {"ready": "#2e9d57", "loading": "#d49a1c", "checking": "#8a8a8a", "unreachable": "#cc3b3b",
                  "missing": "#cc3b3b", "installing": "#d49a1c"}
SPACING = 8


def is_dark(widget: QWidget | None = None) -> bool:
    palette = widget.palette() if widget is not None else QApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def error_colour(widget: QWidget | None = None) -> str:
    return "#ff7b72" if is_dark(widget) else "#b3261e"


def muted_colour(widget: QWidget | None = None) -> str:
    palette = widget.palette() if widget is not None else QApplication.palette()
    return palette.color(QPalette.ColorRole.PlaceholderText).name()


def link_colour(widget: QWidget | None = None) -> str:
    palette = widget.palette() if widget is not None else QApplication.palette()
    return palette.color(QPalette.ColorRole.Link).name()


def card_style(widget: QWidget | None = None) -> str:
    """A subtle frame for chat messages that follows the palette."""
    palette = widget.palette() if widget is not None else QApplication.palette()
    base = palette.color(QPalette.ColorRole.Base)
    edge = palette.color(QPalette.ColorRole.Mid)
    return (f"QFrame#card {{ background: {base.name()}; border: 1px solid {edge.name()}; border-radius: 6px; }}")


def question_style(widget: QWidget | None = None) -> str:
    palette = widget.palette() if widget is not None else QApplication.palette()
    tint = palette.color(QPalette.ColorRole.Highlight)
    tint.setAlpha(40)
    return (f"QFrame#question {{ background: rgba({tint.red()}, {tint.green()}, {tint.blue()}, {tint.alpha()}); "
            "border-radius: 6px; }")


def app_icon() -> QIcon:
    resource = importlib.resources.files("resources") / "icons" / "folio.svg"
    with importlib.resources.as_file(resource) as path:
        return QIcon(str(path))
