"""A loopback HTTP server that speaks Ollama's REST API, for tests (Ollama itself cannot run here).

It is a real ``ThreadingHTTPServer`` on 127.0.0.1 with a free port, so clients go through real
sockets, real HTTP, real NDJSON streaming and real connection failures. It serves ``/``,
``/api/version``, ``/api/tags``, ``/api/show``, ``/api/chat`` (streamed and not) and ``/api/embed``.

Chat replies are scripted: queue texts with ``queue_replies`` or answer with ``reply_with(fn)`` where
``fn(request_json) -> str``. Every request is recorded in ``requests`` so tests can check what a
client sent (``format``, ``options.num_ctx``...). ``drop_after_chunks`` makes the server cut the
connection mid-answer, ``delay_seconds`` makes it stall, and a model missing from ``models`` gets
Ollama's 404 ``model "x" not found``.

Token counts are the loopback's own, deterministic: a streamed chunk is one word with its leading
whitespace; ``eval_count`` is the number of chunks and ``prompt_eval_count`` the number of
whitespace-separated words over all messages.

Use the ``ollama_server`` pytest fixture, or ``with serve_ollama() as server:`` outside pytest.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest

from tests.support.scripted_http import (
    JsonHandler,
    RecordedRequest,
    ScriptedServer,
    split_into_chunks,
)

DEFAULT_MODELS = ("qwen2.5-coder:1.5b", "all-minilm:latest")
OLLAMA_VERSION = "0.6.5"

def canonical_model_name(name: str) -> str:
    """Ollama's rule: a name without a tag means ``:latest``."""
    return name if ":" in name else f"{name}:latest"


def hash_embedding(text: str, dimension: int) -> list[float]:
    """A unit vector that depends only on ``text``."""
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
    vector = np.random.default_rng(seed).standard_normal(dimension)
    return [float(v) for v in vector / np.linalg.norm(vector)]


class LoopbackOllama(ScriptedServer):
    """The scripted server. Configure it from the test thread; handlers read it from server threads."""

    name = "Ollama"

    def __init__(self, models: Iterable[str] = DEFAULT_MODELS, *, embedding_dimension: int = 384) -> None:
        super().__init__()
        self.models: list[str] = [canonical_model_name(m) for m in models]
        self.embedding_dimension = embedding_dimension
        self.drop_after_chunks: int | None = None
        """Cut the connection after this many streamed chunks (a non-streamed reply: before any byte)."""
        self.delay_seconds: float = 0.0
        """Wait this long before answering a chat request."""

    # -- scripting -----------------------------------------------------------------------------

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of the ``/api/chat`` requests received so far."""
        return [r.body or {} for r in self.requests if r.path == "/api/chat"]

    # -- life cycle ----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _handler(self) -> type[JsonHandler]:
        return type("BoundHandler", (_Handler,), {"ollama": self})

    # -- used by the handler -------------------------------------------------------------------

    def _has_model(self, name: str | None) -> bool:
        return name is not None and canonical_model_name(name) in self.models


class _Handler(JsonHandler):
    ollama: LoopbackOllama
    json_type = "application/json; charset=utf-8"

    # -- plumbing ------------------------------------------------------------------------------

    def _send_text(self, text: str, status: int) -> None:
        data = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _model_not_found(self, name: str | None) -> None:
        self._send_json({"error": f'model "{name}" not found, try pulling it first'}, status=404)

    # -- routes --------------------------------------------------------------------------------

    def do_GET(self) -> None:
        self.ollama._record(RecordedRequest("GET", self.path, None))
        if self.path == "/":
            self._send_text("Ollama is running", 200)
        elif self.path == "/api/version":
            self._send_json({"version": OLLAMA_VERSION})
        elif self.path == "/api/tags":
            self._send_json({"models": [_model_entry(name) for name in self.ollama.models]})
        else:
            self._send_text("404 page not found", 404)

    def do_POST(self) -> None:
        body = self._read_json()
        self.ollama._record(RecordedRequest("POST", self.path, body))
        body = body or {}
        routes = {"/api/chat": self._chat, "/api/embed": self._embed, "/api/show": self._show}
        route = routes.get(self.path)
        if route is None:
            self._send_text("404 page not found", 404)
        elif not self.ollama._has_model(body.get("model")):
            self._model_not_found(body.get("model"))
        else:
            route(body)

    def _show(self, body: dict[str, Any]) -> None:
        name = canonical_model_name(body["model"])
        entry = _model_entry(name)
        embedding = "embed" in name or "minilm" in name
        self._send_json({
            "modelfile": f"FROM {name}",
            "parameters": "temperature 0",
            "template": "{{ .Prompt }}",
            "details": entry["details"],
            "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768},
            "capabilities": ["embedding"] if embedding else ["completion"],
        })

    def _embed(self, body: dict[str, Any]) -> None:
        inputs = body.get("input", [])
        texts = [inputs] if isinstance(inputs, str) else list(inputs)
        self._send_json({
            "model": body["model"],
            "embeddings": [hash_embedding(t, self.ollama.embedding_dimension) for t in texts],
            "total_duration": 1000,
            "load_duration": 0,
            "prompt_eval_count": sum(len(t.split()) for t in texts),
        })

    def _chat(self, body: dict[str, Any]) -> None:
        if self.ollama.delay_seconds:
            self.ollama._stall(self.ollama.delay_seconds)
        reply = self.ollama._next_reply(body)
        if reply is None:
            self._send_json({"error": "loopback Ollama has no scripted reply for this request"}, status=500)
            return
        started = time.perf_counter_ns()
        chunks = split_into_chunks(reply)
        prompt_words = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        num_predict = (body.get("options") or {}).get("num_predict")
        done_reason = "stop"
        if isinstance(num_predict, int) and 0 <= num_predict < len(chunks):
            chunks, done_reason = chunks[:num_predict], "length"
        model = body["model"]

        def message(content: str) -> dict[str, Any]:
            return {"model": model, "created_at": _now(), "message": {"role": "assistant", "content": content}}

        final = {
            **message(""),
            "done": True,
            "done_reason": done_reason,
            "total_duration": 0,
            "load_duration": 0,
            "prompt_eval_count": prompt_words,
            "prompt_eval_duration": 0,
            "eval_count": len(chunks),
            "eval_duration": 0,
        }
        drop_after = self.ollama.drop_after_chunks
        if not body.get("stream", True):
            if drop_after is not None:
                self._hang_up()
                return
            final["message"]["content"] = "".join(chunks)
            final["total_duration"] = time.perf_counter_ns() - started
            self._send_json(final)
            return

        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for sent, chunk in enumerate(chunks):
            if drop_after is not None and sent >= drop_after:
                self._hang_up()
                return
            self._send_chunk(json.dumps({**message(chunk), "done": False}).encode("utf-8") + b"\n")
        if drop_after is not None:
            self._hang_up()
            return
        final["total_duration"] = time.perf_counter_ns() - started
        self._send_chunk(json.dumps(final).encode("utf-8") + b"\n")
        self._send_chunk(b"")


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _model_entry(name: str) -> dict[str, Any]:
    return {
        "name": name,
        "model": name,
        "modified_at": "2025-01-01T00:00:00Z",
        "size": 986_000_000,
        "digest": hashlib.sha256(name.encode()).hexdigest(),
        "details": {"format": "gguf", "family": "qwen2", "parameter_size": "1.5B",
                    "quantization_level": "Q4_K_M"},
    }


@contextmanager
def serve_ollama(models: Iterable[str] = DEFAULT_MODELS, *, embedding_dimension: int = 384
                 ) -> Iterator[LoopbackOllama]:
    """Run a loopback Ollama server for the duration of the ``with`` block."""
    with LoopbackOllama(models, embedding_dimension=embedding_dimension) as server:
        yield server


@pytest.fixture
def ollama_server() -> Iterator[LoopbackOllama]:
    """A running loopback Ollama server with the DEFAULT_MODELS installed and no scripted replies."""
    with serve_ollama() as server:
        yield server
