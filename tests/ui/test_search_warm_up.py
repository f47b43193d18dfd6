"""The library's search index is read in the background once the model is ready, so the first question on
a large library does not wait for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app import wiring
from tests.ui.conftest import budget_pdf

pytestmark = pytest.mark.ui


def test_opening_a_library_loads_its_vectors_before_any_question(qtbot: Any, make_window: Any, tmp_path: Path) -> None:
    first = make_window()
    job = first.add_paths([budget_pdf(tmp_path / "budget.pdf")])
    with qtbot.waitSignal(job.ended, timeout=60_000):
        pass
    path = first.controller.library.path
    wiring._vector_indexes.pop(Path(path).resolve(), None)  # as in a new process
    second = make_window()
    with qtbot.waitSignal(second.controller.check_model().ended, timeout=30_000):  # as app/gui.py starts it
        pass
    index = wiring.vector_index(path)
    assert len(index) == first.controller.library.counts()["chunks"] > 0 and index.full_loads == 1
