"""Password-protected PDFs: the failed row offers a password; the preview asks for it in a new session."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.ui.conftest import drop_files

pytestmark = pytest.mark.ui

TIMEOUT_MS = 30_000


def test_a_protected_pdf_is_added_once_its_password_is_given(qtbot: Any, make_window: Any, samples: Path,
                                                             tmp_path: Path, config_dir: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = shutil.copy(samples / "health_protected.pdf", tmp_path / "health_protected.pdf")
    window = make_window()
    drop_files(window, [Path(pdf)])
    job = window.library_view.ingest_view.job
    with qtbot.waitSignal(job.ended, timeout=TIMEOUT_MS):
        pass
    row = window.library_view.ingest_view.rows["health_protected.pdf"]
    assert row.state == "failed" and "password" in row.stage_label.text()
    assert row.password_button.isVisible()
    assert window.controller.documents() == []

    typed = iter([("wrong", True), ("userpass", True)])
    prompts: list[str] = []

    def get_text(parent: Any, title: str, label: str, *args: Any, **kwargs: Any) -> tuple[str, bool]:
        prompts.append(label)
        return next(typed)

    monkeypatch.setattr("ui.main_window.QInputDialog.getText", get_text)
    with qtbot.waitSignal(window.controller.write_runner.job_started, timeout=TIMEOUT_MS) as started:
        qtbot.mouseClick(row.password_button, Qt.MouseButton.LeftButton)
    assert "Try again" in prompts[1]
    with qtbot.waitSignal(started.args[0].finished, timeout=TIMEOUT_MS):
        pass
    assert window.library_view.document_names() == ["health_protected.pdf"]
    document = window.controller.documents()[0]
    window.show_page(document.id, 1)
    assert not window.evidence_view.error.isVisible() and window.evidence_view.rendered is not None
    window.close()
    window.controller.close()

    # Passwords are not kept on disk: a new session asks for it when the page is shown.
    again = make_window()
    again.show_page(document.id, 1)
    evidence = again.evidence_view
    assert evidence.error.isVisible() and "password-protected" in evidence.error.text()
    assert evidence.unlock_button.isVisible()
    monkeypatch.setattr("ui.main_window.QInputDialog.getText", lambda *a, **k: ("userpass", True))
    qtbot.mouseClick(evidence.unlock_button, Qt.MouseButton.LeftButton)
    assert not evidence.error.isVisible() and evidence.rendered is not None and evidence.rendered.page == 1
    assert "kept in its library unencrypted" in prompts[0] and "password itself is never saved" in prompts[0]
    again.close()
    again.controller.close()
    # The password reached no file: not the library (with its WAL), not the settings, nothing else written.
    written = [p for folder in (tmp_path, config_dir) for p in folder.rglob("*") if p.is_file()]
    assert any(p.name.startswith("library.sqlite3") for p in written)
    assert [p for p in written if b"userpass" in p.read_bytes() or "userpass".encode("utf-16-le") in p.read_bytes()] == []
