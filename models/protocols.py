"""The services the rest of Folio swaps: embedders and chat models, and what a chat model declares it can do.

Implementations live beside this module (``embedding.py``, ``llm_embedded.py``, ``llm_ollama.py``,
``llm_openai.py``); tests substitute deterministic fakes that satisfy the same Protocols. Code that
must adapt to a backend asks its ``capabilities`` (``capabilities_of``), never its class name.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable
from urllib.parse import urlsplit

import numpy as np

from models.types import ChatMessage, ChatReply


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors of a fixed dimension."""

    @property
    def name(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an array of shape (len(texts), dimension), float32, rows of unit length."""
        ...


TokenCallback = Callable[[str], None]


@dataclass(frozen=True)
class ChatCapabilities:
    """What a chat backend declares about itself. The defaults are the cautious ones (a small local model)."""

    supports_free_sql: bool = False
    """The model is strong enough to write SQL itself (served models are usually larger than the embedded one);
    otherwise it only picks an operation and cells, and Folio compiles the SQL."""
    context_tokens: int = 8192
    """How many tokens the model's context holds (prompt and reply together)."""
    host_label: str | None = None
    """Where answers are computed, for people (``"gpu-box:8000"``); None when inside Folio's own process."""


LOCAL_CAPABILITIES = ChatCapabilities()


def server_label(url: str) -> str:
    """``host:port`` of a server URL for people (never its path, query or credentials); a loopback
    address reads "this computer (port N)"."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    host = parts.hostname or url
    try:
        port = parts.port
    except ValueError:
        port = None
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if loopback:
        return f"this computer (port {port})"
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def capabilities_of(chat: object) -> ChatCapabilities:
    """``chat.capabilities``, or the cautious defaults for a model that declares none (a scripted fake)."""
    declared = getattr(chat, "capabilities", None)
    return declared if isinstance(declared, ChatCapabilities) else LOCAL_CAPABILITIES


@runtime_checkable
class ChatModel(Protocol):
    """A chat LLM. ``schema`` constrains the reply to JSON matching a JSON Schema."""

    @property
    def name(self) -> str: ...

    @property
    def capabilities(self) -> ChatCapabilities: ...

    def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        on_token: TokenCallback | None = None,
    ) -> ChatReply:
        """Run one completion. Raises ``models.errors.ModelError`` subclasses on failure."""
        ...
