"""The library panel marks a partly read document: a warning icon on its status, the note as tooltip."""

from __future__ import annotations

from typing import Any

import pytest

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
    partial, ready = (view.tree.topLevelItem(i) for i in range(2))
    assert partial is not None and ready is not None
    assert partial.text(3) == "Partly read" and partial.toolTip(3) == note and not partial.icon(3).isNull()
    assert ready.text(3) == "" and ready.icon(3).isNull()  # a ready document needs no word: its name gets the room
