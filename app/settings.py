"""The user's settings: which chat backend, the Ollama host and model, the OpenAI-compatible server
(base URL, model, API key), and the answer mode.

Kept as JSON in ``settings.json`` in the platform's config directory (``FOLIO_CONFIG_DIR`` overrides
it, which tests use). A missing or damaged file gives the defaults; unknown values fall back to the
defaults one by one, so a hand-edited file never stops Folio from starting. The file may hold an API
key, so it is written readable by its owner only (0600); ``$FOLIO_OPENAI_API_KEY``, when set, is used
instead of the saved key. The key is left out of ``repr`` so no log line or traceback carries it.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path

import platformdirs

CONFIG_ENV = "FOLIO_CONFIG_DIR"
SETTINGS_FILE_NAME = "settings.json"
BACKENDS = ("auto", "embedded", "ollama", "openai")
ANSWER_MODES = ("tablerag", "naive")
DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
OPENAI_API_KEY_ENV = "FOLIO_OPENAI_API_KEY"
_FILE_MODE = 0o600


@dataclass(frozen=True)
class Settings:
    backend: str = "auto"
    ollama_host: str = DEFAULT_OLLAMA_HOST
    ollama_model: str = ""
    answer_mode: str = "tablerag"
    openai_base_url: str = ""
    openai_model: str = ""
    openai_api_key: str = field(default="", repr=False)

    def checked(self) -> Settings:
        """These settings with every invalid value replaced by its default."""
        default = Settings()
        return replace(
            self,
            backend=self.backend if self.backend in BACKENDS else default.backend,
            ollama_host=self.ollama_host.strip() or default.ollama_host,
            ollama_model=self.ollama_model.strip(),
            answer_mode=self.answer_mode if self.answer_mode in ANSWER_MODES else default.answer_mode,
            openai_base_url=self.openai_base_url.strip(),
            openai_model=self.openai_model.strip(),
            openai_api_key=self.openai_api_key.strip(),
        )


def api_key_from_environment() -> bool:
    """Whether ``$FOLIO_OPENAI_API_KEY`` provides the key (the saved one is then not used)."""
    return bool(os.environ.get(OPENAI_API_KEY_ENV, "").strip())


def openai_api_key(settings: Settings) -> str | None:
    """The key for the OpenAI-compatible server: ``$FOLIO_OPENAI_API_KEY`` when set, else the saved one."""
    return os.environ.get(OPENAI_API_KEY_ENV, "").strip() or settings.openai_api_key or None


def config_dir() -> Path:
    env = os.environ.get(CONFIG_ENV)
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_config_dir("folio", appauthor=False))


def settings_path() -> Path:
    return config_dir() / SETTINGS_FILE_NAME


def load_settings(path: Path | None = None) -> Settings:
    path = path or settings_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return Settings()
    if not isinstance(data, dict):
        return Settings()
    known = {f.name for f in fields(Settings)}
    values = {k: v for k, v in data.items() if k in known and isinstance(v, str)}
    return Settings(**values).checked()


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write atomically (a temporary file renamed into place) so a crash never leaves half a file; the
    file is created readable and writable by its owner only, as it may hold an API key."""
    path = path or settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".json.tmp")
    temporary.unlink(missing_ok=True)  # a leftover could have wider permissions; O_EXCL below needs it gone
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, _FILE_MODE)
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(json.dumps(asdict(settings.checked()), indent=2) + "\n")
    os.chmod(temporary, _FILE_MODE)  # whatever the umask did
    os.replace(temporary, path)
    return path
