"""The library panel marks a partly read document: a warning icon on its status, the note as tooltip."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from models.types import Document
from ui.library_view import LibraryView

pytestmark = pytest.mark.ui


def test_a_partly_read_document_shows_a_warning_and_its_note(qtbot: Any) -> None:
    view = LibraryView()
    qtbot.addWidget(view)
    note = "1 page(s) could not be read (damaged): 2"
    view.set_documents([
        Document(1, "a", "minutes.pdf", "/d/minutes.pdf", "Minutes", 3, "partial", "2024-01-01", note=note),
        Document(2, "b", "budget.pdf", "/d/budget.pdf", "Budget", 1, "ready", "2024-01-02"),
    ], {})
    partial, ready = (view.document_index(row, 3) for row in range(2))
    tip, icon = Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.DecorationRole
    assert partial.data() == "Partly read" and partial.data(tip) == note and not partial.data(icon).isNull()
    assert ready.data() == "" and ready.data(icon) is None  # a ready document needs no word: its name gets the room
