"""``folio --screenshot PATH --ask QUESTION`` end to end, in a separate process: the real window,
real ingestion with the real embedder, the question answered through the Ollama backend (a loopback
server speaking Ollama's API, scripted here), the answer saved, and a PNG of the window written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from core.library.conversations import ConversationStore
from core.library.store import Library
from tests.support.ollama_server import serve_ollama
from tests.ui.conftest import TEXT_ANSWER, TEXT_QUESTION, budget_pdf

pytestmark = pytest.mark.ui

REPO = Path(__file__).resolve().parents[2]
MODEL = "qwen2.5-coder:1.5b"


def _folio(args: list[str], env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app.main", *args], cwd=REPO, env=env, capture_output=True, check=False,
                          text=True, timeout=timeout)


def _scripted_reply(body: dict[str, Any]) -> str:
    """Fill whichever schema the answering loop sends, naming the budget table from the prompt."""
    prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
    properties = (body.get("format") or {}).get("properties", {})
    if "action" in properties:
        return json.dumps({"action": "ask", "text": TEXT_QUESTION})
    if "sql" in properties:
        table = re.search(r"\b(\w+_p1_budget\w*)", prompt)  # "<document title>_p1_budget_by_department"
        assert table, "the prompt should name the budget table"
        return json.dumps({"sql": f'SELECT SUM("y2024") AS total FROM "{table.group(1)}" '
                                  "WHERE department IN ('Parks', 'Roads')"})
    if "source" in properties:
        return json.dumps({"source": "sql", "text_answer": "", "conflict": False})
    if "answer" in properties:
        return json.dumps({"answer": TEXT_ANSWER})
    return f"{TEXT_ANSWER[:-1]} [1]."


def test_screenshot_with_a_question_answers_saves_and_writes_the_png(tmp_path: Path) -> None:
    library = tmp_path / "library"
    config = tmp_path / "config"
    env = {**os.environ, "FOLIO_CONFIG_DIR": str(config), "QT_QPA_PLATFORM": "offscreen"}
    added = _folio(["ingest", "--library", str(library), str(budget_pdf(tmp_path / "budget.pdf"))], env)
    assert added.returncode == 0, added.stderr
    with serve_ollama(models=(MODEL,)) as server:
        server.reply_with(_scripted_reply)
        config.mkdir()
        (config / "settings.json").write_text(json.dumps(
            {"backend": "ollama", "ollama_host": server.url, "ollama_model": MODEL, "answer_mode": "tablerag"}))
        shot = tmp_path / "shots" / "window.png"
        run = _folio(["--library", str(library), "--screenshot", str(shot), "--ask", TEXT_QUESTION], env)
        assert run.returncode == 0, run.stderr
        assert "propagateSizeHints" not in run.stderr  # Qt's noise is not passed on
        assert server.chat_requests, "the window should have asked the model"
        assert all(r["model"] == MODEL for r in server.chat_requests)
    pixmap = pymupdf.Pixmap(str(shot))
    assert (pixmap.width, pixmap.height) == (1360, 820)
    with Library(library / "library.sqlite3") as opened:
        store = ConversationStore(opened.conn)
        conversations = store.conversations()
        assert len(conversations) == 1 and conversations[0].title == TEXT_QUESTION
        messages = store.messages(conversations[0].id)
    answer = messages[-1].answer
    assert answer is not None and answer.text.startswith(TEXT_ANSWER)
    assert any(c.kind == "text" and "March" in c.snippet for c in answer.citations)


def test_screenshot_of_an_empty_library_with_no_model_reachable(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.mkdir()
    (config / "settings.json").write_text(json.dumps(
        {"backend": "ollama", "ollama_host": "http://127.0.0.1:9", "ollama_model": MODEL}))
    env = {**os.environ, "FOLIO_CONFIG_DIR": str(config), "QT_QPA_PLATFORM": "offscreen"}
    shot = tmp_path / "empty.png"
    run = _folio(["--library", str(tmp_path / "library"), "--screenshot", str(shot)], env, timeout=60)
    assert run.returncode == 0, run.stderr
    assert pymupdf.Pixmap(str(shot)).width == 1360


def test_without_a_display_folio_says_so_in_one_line(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["FOLIO_CONFIG_DIR"] = str(tmp_path / "config")
    run = _folio(["--library", str(tmp_path / "library")], env, timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.count("\n") == 1 and run.stderr.startswith("folio: no display found")
    assert "--screenshot" in run.stderr and "folio ask" in run.stderr


def test_screenshot_at_a_given_size(tmp_path: Path) -> None:
    env = {**os.environ, "FOLIO_CONFIG_DIR": str(tmp_path / "config"), "QT_QPA_PLATFORM": "offscreen"}
    shot = tmp_path / "small.png"
    run = _folio(["--library", str(tmp_path / "library"), "--screenshot", str(shot), "--size", "1366x768"], env,
                 timeout=60)
    assert run.returncode == 0, run.stderr
    pixmap = pymupdf.Pixmap(str(shot))
    assert (pixmap.width, pixmap.height) == (1366, 768)


def test_a_damaged_library_is_reported_and_the_window_does_not_start(tmp_path: Path) -> None:
    library = tmp_path / "library"
    library.mkdir()
    (library / "library.sqlite3").write_bytes(b"not a database " * 100)
    env = {**os.environ, "FOLIO_CONFIG_DIR": str(tmp_path / "config"), "QT_QPA_PLATFORM": "offscreen"}
    run = _folio(["--library", str(library), "--screenshot", str(tmp_path / "x.png")], env, timeout=60)
    assert run.returncode == 2
    assert "cannot be opened" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "x.png").exists()
