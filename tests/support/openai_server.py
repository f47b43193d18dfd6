"""A loopback HTTP server that speaks the OpenAI API (``/v1/models``, ``/v1/chat/completions``), for tests.

It is a real ``ThreadingHTTPServer`` on 127.0.0.1 with a free port, so clients go through real sockets,
real HTTP, real server-sent events and real connection failures. Replies are scripted: queue texts with
``queue_replies`` or answer with ``reply_with(fn)`` where ``fn(request_json) -> str``. Every request is
recorded (method, path, headers, JSON body) in ``requests``.

What it can be made to do, as the servers it stands for do:

- ``structured``: how it treats ``response_format``. ``"json_schema"`` accepts both ``json_schema`` and
  ``json_object`` (vLLM, llama-server, LM Studio); ``"json_object"`` rejects ``json_schema`` with the 500
  and validation message llama-cpp-python's server sends; ``"none"`` rejects any ``response_format`` with a 400.
- ``api_key``: when set, requests without ``Authorization: Bearer <key>`` get a 401 whose message
  echoes the key they sent (OpenAI's echoes part of it), so tests can check Folio never repeats it.
- a model not in ``models``: 404 ``The model `x` does not exist.`` (vLLM's words).
- ``context_tokens``: a prompt of more words than this plus ``max_tokens`` gets OpenAI's 400
  ``context_length_exceeded``.
- ``drop_after_chunks``: the connection is cut after that many streamed chunks (a non-streamed reply:
  before any byte); ``delay_seconds`` stalls before answering a chat, ``list_delay_seconds`` before
  listing the models.
- ``stream_usage``: whether a stream asked for ``stream_options.include_usage`` ends with a usage chunk;
  ``reject_stream_options``: a 400 for any request carrying ``stream_options``; ``error_after_chunks``:
  an ``error`` event in the middle of a stream.

Token counts are the loopback's own, deterministic: a streamed chunk is one word with its leading
whitespace; ``completion_tokens`` is the number of chunks and ``prompt_tokens`` the number of
whitespace-separated words over all messages.

Use the ``openai_server`` pytest fixture, or ``with serve_openai() as server:`` outside pytest.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from tests.support.scripted_http import (
    JsonHandler,
    RecordedRequest,
    ScriptedServer,
    split_into_chunks,
)

DEFAULT_MODELS = ("qwen2.5-coder-32b-instruct", "llama-3.1-8b-instruct")
STRUCTURED = ("json_schema", "json_object", "none")

class LoopbackOpenAI(ScriptedServer):
    """The scripted server. Configure it from the test thread; handlers read it from server threads."""

    name = "OpenAI"

    def __init__(self, models: Iterable[str] = DEFAULT_MODELS, *, structured: str = "json_schema",
                 api_key: str | None = None, context_tokens: int = 32_768) -> None:
        super().__init__()
        if structured not in STRUCTURED:
            raise ValueError(f"structured must be one of {STRUCTURED}")
        self.models: list[str] = list(models)
        self.structured = structured
        self.api_key = api_key
        self.context_tokens = context_tokens
        self.drop_after_chunks: int | None = None
        self.delay_seconds: float = 0.0
        self.list_delay_seconds: float = 0.0
        """Stall ``/v1/models`` this long, as llama-cpp-python's server does while it generates."""
        self.stream_usage = True
        self.reject_stream_options = False
        self.error_after_chunks: int | None = None
        """Send an ``error`` event after this many streamed chunks and end the stream, as vLLM does."""
        """Refuse requests carrying ``stream_options`` with a 400, as servers predating it do."""

    # -- scripting -----------------------------------------------------------------------------

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of the ``/v1/chat/completions`` requests received so far."""
        return [r.body or {} for r in self.requests if r.path == "/v1/chat/completions"]

    # -- life cycle ----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The base URL a client is configured with (the API root, ``/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def _handler(self) -> type[JsonHandler]:
        return type("BoundHandler", (_Handler,), {"server_state": self})


def _error(message: str, kind: str, code: str | int | None, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


class _Handler(JsonHandler):
    server_state: LoopbackOpenAI

    # -- plumbing ------------------------------------------------------------------------------

    def _send_event(self, payload: Any) -> None:
        data = payload if isinstance(payload, str) else json.dumps(payload)
        self._send_chunk(f"data: {data}\n\n".encode())

    def _authorised(self) -> bool:
        key = self.server_state.api_key
        if key is None:
            return True
        sent = self.headers.get("Authorization", "")
        if sent == f"Bearer {key}":
            return True
        token = sent.removeprefix("Bearer ") or "none"
        # The whole key echoed back: worse than any real server, so a leak cannot hide.
        self._send_json(_error(f"Incorrect API key provided: {token}. You can find your API key in your account "
                               "settings.", "invalid_request_error", "invalid_api_key"), 401)
        return False

    # -- routes --------------------------------------------------------------------------------

    def do_GET(self) -> None:
        self.server_state._record(RecordedRequest("GET", self.path, None, dict(self.headers.items())))
        if self.path != "/v1/models":
            self._send_json({"detail": "Not Found"}, 404)
            return
        if not self._authorised():
            return
        if self.server_state.list_delay_seconds:
            self.server_state._stall(self.server_state.list_delay_seconds)
        self._send_json({"object": "list", "data": [
            {"id": name, "object": "model", "created": 1_700_000_000, "owned_by": "loopback",
             "max_model_len": self.server_state.context_tokens}
            for name in self.server_state.models]})

    def do_POST(self) -> None:
        body = self._read_json()
        self.server_state._record(RecordedRequest("POST", self.path, body, dict(self.headers.items())))
        if self.path != "/v1/chat/completions":
            self._send_json({"detail": "Not Found"}, 404)
            return
        if not self._authorised():
            return
        self._chat(body or {})

    def _chat(self, body: dict[str, Any]) -> None:
        state = self.server_state
        model = body.get("model")
        if model not in state.models:
            self._send_json(_error(f"The model `{model}` does not exist.", "NotFoundError", 404), 404)
            return
        response_format = body.get("response_format")
        if response_format is not None:
            kind = response_format.get("type") if isinstance(response_format, dict) else None
            if state.structured == "none":
                self._send_json(_error("response_format is not supported by this server", "invalid_request_error",
                                       None, "response_format"), 400)
                return
            if state.structured == "json_object" and kind != "json_object":
                # llama-cpp-python's words and status for a request its pydantic model refuses.
                self._send_json(_error("1 validation error: {'type': 'literal_error', 'loc': ('body', "
                                       "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", "
                                       f"'input': '{kind}'}}", "internal_server_error", None), 500)
                return
        if state.reject_stream_options and "stream_options" in body:
            self._send_json(_error("Unrecognized request argument supplied: stream_options", "invalid_request_error",
                                   None, "stream_options"), 400)
            return
        prompt_words = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        max_tokens = body.get("max_tokens")
        requested = prompt_words + (max_tokens if isinstance(max_tokens, int) else 0)
        if requested > state.context_tokens:
            self._send_json(_error(
                f"This model's maximum context length is {state.context_tokens} tokens. However, you requested "
                f"{requested} tokens ({prompt_words} in the messages, {max_tokens} in the completion). Please "
                "reduce the length of the messages or completion.", "invalid_request_error",
                "context_length_exceeded", "messages"), 400)
            return
        if state.delay_seconds:
            state._stall(state.delay_seconds)
        reply = state._next_reply(body)
        if reply is None:
            self._send_json(_error("the loopback server has no scripted reply for this request", "server_error",
                                   None), 500)
            return
        chunks = split_into_chunks(reply)
        finish_reason = "stop"
        if isinstance(max_tokens, int) and 0 <= max_tokens < len(chunks):
            chunks, finish_reason = chunks[:max_tokens], "length"
        usage = {"prompt_tokens": prompt_words, "completion_tokens": len(chunks),
                 "total_tokens": prompt_words + len(chunks)}
        identity = {"id": f"chatcmpl-{len(state.requests)}", "created": int(time.time()), "model": model}
        drop_after = state.drop_after_chunks
        if not body.get("stream"):
            if drop_after is not None:
                self._hang_up()
                return
            self._send_json({**identity, "object": "chat.completion", "usage": usage, "choices": [{
                "index": 0, "finish_reason": finish_reason,
                "message": {"role": "assistant", "content": "".join(chunks)}}]})
            return

        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        base = {**identity, "object": "chat.completion.chunk"}
        self._send_event({**base, "choices": [{"index": 0, "delta": {"role": "assistant"}, "finish_reason": None}]})
        for sent, chunk in enumerate(chunks):
            if drop_after is not None and sent >= drop_after:
                self._hang_up()
                return
            if state.error_after_chunks is not None and sent >= state.error_after_chunks:
                self._send_event({"error": {"object": "error", "message": "CUDA out of memory", "code": 500}})
                self._send_event("[DONE]")
                self._send_chunk(b"")
                return
            self._send_event({**base, "choices": [{"index": 0, "delta": {"content": chunk}, "finish_reason": None}]})
        if drop_after is not None:
            self._hang_up()
            return
        self._send_event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish_reason}]})
        if state.stream_usage and (body.get("stream_options") or {}).get("include_usage"):
            self._send_event({**base, "choices": [], "usage": usage})
        self._send_event("[DONE]")
        self._send_chunk(b"")


@contextmanager
def serve_openai(models: Iterable[str] = DEFAULT_MODELS, *, structured: str = "json_schema",
                 api_key: str | None = None, context_tokens: int = 32_768) -> Iterator[LoopbackOpenAI]:
    """Run a loopback OpenAI-compatible server for the duration of the ``with`` block."""
    with LoopbackOpenAI(models, structured=structured, api_key=api_key, context_tokens=context_tokens) as server:
        yield server


@pytest.fixture
def openai_server() -> Iterator[LoopbackOpenAI]:
    """A running loopback OpenAI-compatible server with the DEFAULT_MODELS and no scripted replies."""
    with serve_openai() as server:
        yield server
