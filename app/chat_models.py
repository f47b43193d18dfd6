"""Choosing the chat backend: the embedded llama.cpp model, a user's Ollama server, an OpenAI-compatible
server (vLLM, llama-server, LM Studio, ...), or "auto"; and the two questions the settings ask of a
server: which models it serves, and whether the chosen one answers.

"auto" uses Ollama when a model is chosen and the server answers, else the embedded model; it never
contacts an OpenAI-compatible server, which is used only when chosen. Building a backend never loads
weights or sends a request; the embedded model loads on its first call.
"""

from __future__ import annotations

import time

from app.settings import Settings, openai_api_key
from models.errors import ModelUnavailable
from models.llm_ollama import DEFAULT_HOST, OllamaChatModel, check_server, list_models
from models.llm_openai import OpenAIChatModel
from models.llm_openai import list_models as list_openai_models
from models.protocols import ChatModel, capabilities_of
from models.types import ChatMessage

BACKENDS = ("auto", "embedded", "ollama", "openai")
_EMBEDDING_MODEL_WORDS = ("embed", "minilm", "bge", "e5-", "nomic")
_PROBE = [ChatMessage("user", "Reply with the single word OK.")]


def _chat_models_only(names: list[str]) -> list[str]:
    return [m for m in names if not any(w in m.lower() for w in _EMBEDDING_MODEL_WORDS)]


def pick_ollama_model(host: str) -> str:
    """The first installed Ollama model that is not an embedding model."""
    installed = list_models(host)
    chat_models = _chat_models_only(installed)
    if not chat_models:
        listing = ", ".join(installed) or "none"
        raise ModelUnavailable(f"Ollama at {host} has no chat model installed (installed: {listing}). "
                               "Run `ollama pull qwen2.5-coder:7b` or use the embedded model.")
    return chat_models[0]


def pick_openai_model(base_url: str, api_key: str | None = None) -> str:
    """The first model the OpenAI-compatible server serves that is not an embedding model."""
    served = list_openai_models(base_url, api_key)
    chat_models = _chat_models_only(served)
    if not chat_models:
        listing = ", ".join(served) or "none"
        raise ModelUnavailable(f"The model server at {base_url} serves no chat model (it serves: {listing}).")
    return chat_models[0]


def make_embedded_model() -> ChatModel:
    from models.llm_embedded import EmbeddedChatModel

    return EmbeddedChatModel()


def make_openai_model(base_url: str, model: str | None = None, api_key: str | None = None) -> OpenAIChatModel:
    """A model on an OpenAI-compatible server; without ``model``, the first chat model it serves."""
    if not base_url.strip():
        raise ModelUnavailable("No model server address is set. Give --base-url (e.g. http://gpu-box:8000/v1) "
                               "or enter it in Settings.")
    return OpenAIChatModel(model or pick_openai_model(base_url, api_key), base_url, api_key=api_key)


def make_chat_model(backend: str = "auto", ollama_host: str = DEFAULT_HOST, ollama_model: str | None = None, *,
                    openai_base_url: str = "", openai_model: str | None = None,
                    openai_api_key: str | None = None) -> ChatModel:
    """The chat model for a backend name; raises ``ModelUnavailable`` when a server was asked for and is down."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, not {backend!r}")
    if backend == "embedded":
        return make_embedded_model()
    if backend == "ollama":
        return OllamaChatModel(ollama_model or pick_ollama_model(ollama_host), host=ollama_host)
    if backend == "openai":
        return make_openai_model(openai_base_url, openai_model, openai_api_key)
    if ollama_model and check_server(ollama_host) is None:
        return OllamaChatModel(ollama_model, host=ollama_host)
    return make_embedded_model()


def chat_model_for(settings: Settings) -> ChatModel:
    """The chat model the settings choose (the key from ``$FOLIO_OPENAI_API_KEY`` or the settings file)."""
    return make_chat_model(settings.backend, ollama_host=settings.ollama_host,
                           ollama_model=settings.ollama_model or None, openai_base_url=settings.openai_base_url,
                           openai_model=settings.openai_model or None, openai_api_key=openai_api_key(settings))


def served_models(settings: Settings) -> list[str]:
    """The models the server chosen in ``settings`` offers: Ollama's installed ones, or ``/v1/models``."""
    if settings.backend == "openai":
        if not settings.openai_base_url:
            raise ModelUnavailable("Enter the model server's base URL first (e.g. http://gpu-box:8000/v1).")
        return list_openai_models(settings.openai_base_url, openai_api_key(settings))
    return list_models(settings.ollama_host)


def try_model(settings: Settings) -> str:
    """Make one tiny call to the model ``settings`` choose; a sentence saying how it went (raises if it failed).

    For a server it first checks that the server serves the model, so a wrong name is told as such."""
    chat = chat_model_for(settings)
    if isinstance(chat, OpenAIChatModel):
        chat.check()
    started = time.perf_counter()
    reply = chat.chat(_PROBE, max_tokens=4)
    seconds = time.perf_counter() - started
    where = capabilities_of(chat).host_label or "this computer"
    said = " ".join(reply.text.split())[:40] or "(an empty reply)"
    return f"{chat.name} answered on {where} in {seconds:.1f} s: \u201c{said}\u201d."
