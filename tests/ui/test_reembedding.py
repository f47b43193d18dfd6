"""A library an older Folio made, opened in the window: its search vectors are made again by today's embedder as a
job whose progress shows in the status bar, and a library whose vectors are current starts no job. Real PDF, real
SQLite + sqlite-vec, both real ONNX embedders."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QPushButton

from app.paths import library_file
from core.ingest.ingestor import Ingestor
from core.library.store import Library
from models.embedding import MiniLMEmbedder
from tests.support.embedders import FloatMiniLMEmbedder

pytestmark = pytest.mark.ui


def test_an_old_library_is_reembedded_when_the_window_opens_it(qtbot: Any, make_window: Any, tmp_path: Path,
                                                               samples: Path) -> None:
    with Library(library_file(tmp_path / "library")) as library:
        (result,) = Ingestor(library, FloatMiniLMEmbedder()).ingest_paths([samples / "population_growth.pdf"])
        assert result.status == "added"
    embedder = MiniLMEmbedder()
    window = make_window(embedder=embedder)
    shown: list[str] = []
    window.statusBar().messageChanged.connect(shown.append)
    job = window.update_vectors()
    assert job is not None
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Updating the search vectors"),
                    timeout=20_000)
    # the Stop button stays in view beside the progress messages
    assert any(b.text() == "Stop" and not b.isHidden() for b in window.statusBar().findChildren(QPushButton))
    with qtbot.waitSignal(job.finished, timeout=60_000):
        pass
    assert any(m.startswith("Updating the search vectors") for m in shown)
    qtbot.waitUntil(lambda: window.statusBar().currentMessage().startswith("Search vectors updated"), timeout=5000)
    models = {r[0] for r in window.controller.library.conn.execute("SELECT DISTINCT model FROM embeddings")}
    assert models == {embedder.name}
    assert window.update_vectors() is None  # all current now: no job
