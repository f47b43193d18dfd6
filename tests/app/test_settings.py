"""Settings persist as JSON in the config directory; bad files and values fall back to defaults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.settings import CONFIG_ENV, Settings, load_settings, save_settings, settings_path

pytestmark = pytest.mark.unit


@pytest.fixture
def config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "config"
    monkeypatch.setenv(CONFIG_ENV, str(directory))
    return directory


def test_defaults_when_nothing_is_saved(config_dir: Path) -> None:
    assert load_settings() == Settings()
    assert settings_path() == config_dir / "settings.json"


def test_saved_settings_come_back(config_dir: Path) -> None:
    chosen = Settings(backend="ollama", ollama_host="http://10.0.0.2:11434", ollama_model="qwen2.5:7b",
                      answer_mode="naive")
    path = save_settings(chosen)
    assert path.parent == config_dir
    assert json.loads(path.read_text())["ollama_model"] == "qwen2.5:7b"
    assert load_settings() == chosen
    assert not list(config_dir.glob("*.tmp"))


def test_damaged_file_gives_defaults(config_dir: Path) -> None:
    config_dir.mkdir()
    (config_dir / "settings.json").write_text("{not json")
    assert load_settings() == Settings()
    (config_dir / "settings.json").write_text("[1, 2]")
    assert load_settings() == Settings()


def test_invalid_values_fall_back_one_by_one(config_dir: Path) -> None:
    config_dir.mkdir()
    (config_dir / "settings.json").write_text(json.dumps(
        {"backend": "gpt-9", "ollama_host": "  ", "ollama_model": " llama3 ", "answer_mode": 3, "unknown": "x"}))
    assert load_settings() == Settings(ollama_model="llama3")


def test_the_settings_file_is_private_and_keeps_the_server_and_key(config_dir: Path) -> None:
    import stat

    chosen = Settings(backend="openai", openai_base_url="http://gpu-box:8000/v1", openai_model="qwen2.5-32b",
                      openai_api_key="sk-saved-51ab")
    path = save_settings(chosen)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.chmod(0o644)  # loosened by hand: the next save tightens it again
    save_settings(chosen)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_settings() == chosen
    assert "sk-saved-51ab" not in repr(chosen) and "sk-saved-51ab" not in str(load_settings())


def test_the_key_comes_from_the_environment_first(config_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from app.settings import OPENAI_API_KEY_ENV, api_key_from_environment, openai_api_key

    saved = Settings(openai_api_key="sk-saved")
    monkeypatch.delenv(OPENAI_API_KEY_ENV, raising=False)
    assert openai_api_key(saved) == "sk-saved" and not api_key_from_environment()
    assert openai_api_key(Settings()) is None
    monkeypatch.setenv(OPENAI_API_KEY_ENV, " sk-from-env ")
    assert openai_api_key(saved) == "sk-from-env" and api_key_from_environment()


def test_the_openai_backend_is_a_valid_choice(config_dir: Path) -> None:
    config_dir.mkdir()
    (config_dir / "settings.json").write_text(json.dumps(
        {"backend": "openai", "openai_base_url": " http://gpu-box:8000/v1 ", "openai_model": 7}))
    assert load_settings() == Settings(backend="openai", openai_base_url="http://gpu-box:8000/v1")
