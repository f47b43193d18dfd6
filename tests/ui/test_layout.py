"""Layout slips at the common laptop size, 1366x768: the library's title and buttons are shown whole, whether the
library is wide (evidence closed) or narrowed beside an open page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect

from tests.ui.conftest import budget_pdf

pytestmark = pytest.mark.ui


def shown_whole(widget: Any, inside: Any) -> bool:
    """The widget is as wide as it asks to be and lies inside ``inside`` (no part cut off)."""
    corner = widget.mapTo(inside, widget.rect().topLeft())
    return widget.width() >= widget.sizeHint().width() and QRect(0, 0, inside.width(), inside.height()).contains(
        QRect(corner, widget.size()))


def test_the_library_header_is_whole_at_1366x768(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    window = make_window()
    window.resize(1366, 768)
    job = window.add_paths([budget_pdf(tmp_path / "budget.pdf")])
    with qtbot.waitSignal(job.ended, timeout=20_000):
        pass
    view = window.library_view
    widths = []
    for opened in (False, True):
        if opened:
            window.show_page(window.controller.documents()[0].id, 1)
            qtbot.waitUntil(window.evidence_view.isVisible, timeout=5000)
        qtbot.wait(50)
        widths.append(view.width())
        for widget in (view.heading, view.add_button, view.details_button, view.remove_button):
            assert shown_whole(widget, view), (opened, widget.text(), widget.width(), widget.sizeHint().width())
        assert view.heading.geometry().right() < view.add_button.geometry().left()
    assert widths[1] < widths[0]  # the library did narrow beside the page
