"""Settings chosen in the dialog persist across restarts; the status bar always says how the model is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from app.controller import ModelStatus
from app.settings import OPENAI_API_KEY_ENV, Settings, load_settings, settings_path
from models.llm_openai import OpenAIChatModel
from tests.support.ollama_server import serve_ollama
from tests.support.openai_server import serve_openai
from tests.ui.conftest import budget_chat
from ui.main_window import ModelStatusLabel
from ui.settings_dialog import SettingsDialog

pytestmark = pytest.mark.ui

TIMEOUT_MS = 15_000


def _status_states(window: Any) -> list[str]:
    states: list[str] = []
    window.controller.model_status_changed.connect(lambda status: states.append(status.state))
    return states


def test_settings_chosen_in_the_dialog_persist_across_restarts(qtbot: Any, make_window: Any,
                                                                config_dir: Path) -> None:
    with serve_ollama(models=("qwen2.5-coder:1.5b", "llama3.2:3b", "all-minilm:latest")) as server:
        window = make_window(real_chat_models=True)
        seen: dict[str, Any] = {}

        def fill_in() -> None:
            dialog = QApplication.activeModalWidget()
            assert isinstance(dialog, SettingsDialog)
            dialog.backend.setCurrentIndex(dialog.backend.findData("ollama"))
            dialog.host.setText(server.url)
            with qtbot.waitSignal(window.controller.runner.job_started, timeout=TIMEOUT_MS) as started:
                dialog.refresh_button.click()
            job = started.args[0]
            with qtbot.waitSignal(job.ended, timeout=TIMEOUT_MS):
                pass
            seen["models"] = [dialog.model.itemText(i) for i in range(dialog.model.count())]
            dialog.model.setCurrentText("llama3.2:3b")
            dialog.mode.setCurrentIndex(dialog.mode.findData("naive"))
            dialog.accept()

        QTimer.singleShot(0, fill_in)
        states = _status_states(window)
        with qtbot.waitSignal(window.controller.model_status_changed,
                              check_params_cb=lambda status: status.state == "ready", timeout=TIMEOUT_MS):
            window.open_settings()
        assert seen["models"] == ["qwen2.5-coder:1.5b", "llama3.2:3b", "all-minilm:latest"]
        assert states[0] == "checking" and states[-1] == "ready"
        assert "llama3.2:3b (Ollama): ready" in window.model_label.text.text()
        assert settings_path().parent == config_dir and settings_path().is_file()
        window.close()
        window.controller.close()

        # A restart reads the same settings, and the dialog shows them.
        saved = load_settings()
        assert saved == Settings(backend="ollama", ollama_host=server.url, ollama_model="llama3.2:3b",
                                 answer_mode="naive")
        reopened = make_window(settings=saved, real_chat_models=True)
        dialog = SettingsDialog(reopened.controller.settings, reopened.controller.list_models, reopened)
        assert dialog.settings() == saved
        assert dialog.host.isEnabled()
        dialog.deleteLater()


def test_an_unreachable_ollama_server_is_named_in_the_status_bar(qtbot: Any, make_window: Any) -> None:
    settings = Settings(backend="ollama", ollama_host="http://127.0.0.1:9", ollama_model="llama3.2:3b")
    window = make_window(settings=settings, real_chat_models=True)
    with qtbot.waitSignal(window.controller.model_status_changed,
                          check_params_cb=lambda status: status.state == "unreachable", timeout=TIMEOUT_MS):
        window.controller.check_model()
    text = window.model_label.text.text()
    assert text.startswith("Model unavailable:") and "not reachable" in text
    assert "127.0.0.1:9" in window.model_label.toolTip()


def test_a_missing_ollama_model_is_named_with_the_installed_ones(qtbot: Any, make_window: Any) -> None:
    with serve_ollama(models=("qwen2.5-coder:1.5b",)) as server:
        settings = Settings(backend="ollama", ollama_host=server.url, ollama_model="mistral:7b")
        window = make_window(settings=settings, real_chat_models=True)
        with qtbot.waitSignal(window.controller.model_status_changed,
                              check_params_cb=lambda status: status.state == "unreachable", timeout=TIMEOUT_MS):
            window.controller.check_model()
        assert "mistral:7b is not installed" in window.controller.model_status.reason
        assert "qwen2.5-coder:1.5b" in window.controller.model_status.reason


def test_an_embedded_model_shows_loading_then_ready(qtbot: Any, make_window: Any) -> None:
    chat = budget_chat()
    window = make_window(chat=chat)
    states = _status_states(window)
    with qtbot.waitSignal(window.controller.model_status_changed,
                          check_params_cb=lambda status: status.state == "ready", timeout=TIMEOUT_MS):
        window.controller.check_model()
    assert states == ["checking", "loading", "ready"]
    assert chat.warmed.is_set()
    assert window.model_label.text.text() == "scripted: ready"


def test_the_settings_dialog_disables_ollama_fields_for_the_embedded_model(qtbot: Any) -> None:
    dialog = SettingsDialog(Settings(backend="embedded"), lambda settings: None)  # type: ignore[arg-type,return-value]
    qtbot.addWidget(dialog)
    assert not dialog.host.isEnabled() and not dialog.refresh_button.isEnabled()
    dialog.backend.setCurrentIndex(dialog.backend.findData("auto"))
    assert dialog.host.isEnabled() and dialog.model.isEnabled()


# -- an OpenAI-compatible server ---------------------------------------------------------------------

KEY = "sk-team-gpu-box-5c1e0a9b"


def _window_texts(window: Any) -> str:
    label = window.model_label
    return "\n".join([label.text.text(), label.where.text(), label.toolTip(), window.statusBar().currentMessage()])


def test_an_openai_server_is_chosen_listed_checked_and_shown_in_the_status_bar(qtbot: Any, make_window: Any,
                                                                               config_dir: Path) -> None:
    with serve_openai(api_key=KEY) as server:
        window = make_window(real_chat_models=True)
        seen: dict[str, Any] = {}

        def run_job(button: Any) -> None:
            with qtbot.waitSignal(window.controller.runner.job_started, timeout=TIMEOUT_MS) as started:
                button.click()
            with qtbot.waitSignal(started.args[0].ended, timeout=TIMEOUT_MS):
                pass

        def fill_in() -> None:
            dialog = QApplication.activeModalWidget()
            assert isinstance(dialog, SettingsDialog)
            dialog.backend.setCurrentIndex(dialog.backend.findData("openai"))
            assert dialog.base_url.isVisible() and not dialog.host.isVisible()
            dialog.base_url.setText(server.url)
            dialog.api_key.setText(KEY)
            seen["echo"] = dialog.api_key.echoMode()
            run_job(dialog.server_refresh_button)
            seen["models"] = [dialog.server_model.itemText(i) for i in range(dialog.server_model.count())]
            dialog.server_model.setCurrentText("llama-3.1-8b-instruct")
            server.queue_replies("OK")
            run_job(dialog.check_button)
            seen["checked"] = dialog.model_status.text()
            dialog.accept()

        QTimer.singleShot(0, fill_in)
        with qtbot.waitSignal(window.controller.model_status_changed,
                              check_params_cb=lambda status: status.state == "ready", timeout=TIMEOUT_MS):
            window.open_settings()
        assert seen["echo"] == seen["echo"].Password
        assert seen["models"] == ["qwen2.5-coder-32b-instruct", "llama-3.1-8b-instruct"]
        port = server.port
        assert seen["checked"].startswith(
            f"llama-3.1-8b-instruct (OpenAI-compatible) answered on this computer (port {port}) in ")
        assert seen["checked"].endswith("\u201cOK\u201d.")
        check_call = server.chat_requests[-1]
        assert check_call["model"] == "llama-3.1-8b-instruct" and check_call["max_tokens"] == 4
        assert "llama-3.1-8b-instruct (OpenAI-compatible): ready" in window.model_label.text.text()
        assert window.model_label.where.text() == f"\u00b7 answers are computed on this computer (port {port})"
        # Only the configured server was asked anything, and always with the key.
        assert {r.headers.get("Authorization") for r in server.requests} == {f"Bearer {KEY}"}

        path = settings_path()
        assert path.parent == config_dir and path.stat().st_mode & 0o777 == 0o600
        saved = load_settings()
        assert (saved.backend, saved.openai_base_url, saved.openai_model, saved.openai_api_key) == (
            "openai", server.url, "llama-3.1-8b-instruct", KEY)
        assert KEY not in repr(saved) and KEY not in _window_texts(window) and KEY not in seen["checked"]


def test_a_remote_host_is_named_in_the_status_bar(qtbot: Any) -> None:
    label = ModelStatusLabel()
    qtbot.addWidget(label)
    remote = OpenAIChatModel("qwen2.5-coder-32b-instruct", "http://gpu-box:8000/v1")  # nothing is sent
    label.set_status(ModelStatus("ready", "openai", remote.name, host=remote.capabilities.host_label or ""))
    assert label.text.text() == "qwen2.5-coder-32b-instruct (OpenAI-compatible): ready"
    assert label.where.text() == "\u00b7 answers are computed on gpu-box:8000"
    assert "Answers are computed on gpu-box:8000." in label.toolTip()
    label.set_status(ModelStatus("ready", "embedded", "qwen2.5-coder-1.5b (embedded)"))
    assert label.where.text() == "" and label.where.isHidden()


def test_a_refused_key_is_named_in_the_status_bar_without_the_key(qtbot: Any, make_window: Any) -> None:
    wrong = "sk-not-the-right-one-77"
    with serve_openai(api_key=KEY) as server:
        settings = Settings(backend="openai", openai_base_url=server.url, openai_model="qwen2.5-coder-32b-instruct",
                            openai_api_key=wrong)
        window = make_window(settings=settings, real_chat_models=True)
        with qtbot.waitSignal(window.controller.model_status_changed,
                              check_params_cb=lambda status: status.state == "unreachable", timeout=TIMEOUT_MS):
            window.controller.check_model()
        assert "refused the API key (401 Unauthorized)" in window.model_label.toolTip()
        assert wrong not in _window_texts(window) and KEY not in _window_texts(window)


def test_the_key_from_the_environment_is_used_and_not_shown(qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OPENAI_API_KEY_ENV, KEY)
    saved = Settings(backend="openai", openai_base_url="http://gpu-box:8000/v1", openai_api_key="sk-old")
    dialog = SettingsDialog(saved, lambda settings: None)  # type: ignore[arg-type,return-value]
    qtbot.addWidget(dialog)
    assert not dialog.api_key.isEnabled() and dialog.api_key.text() == ""
    assert OPENAI_API_KEY_ENV in dialog.api_key.placeholderText()
    assert dialog.settings().openai_api_key == "sk-old"  # the saved key is kept, not replaced by the variable
    assert dialog.check_button.isHidden()  # no way to try a model was given
