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

import collections
import json
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import pytest

DEFAULT_MODELS = ("qwen2.5-coder-32b-instruct", "llama-3.1-8b-instruct")
STRUCTURED = ("json_schema", "json_object", "none")

ReplyFunction = Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    """The parsed JSON body; None for requests without one."""


def split_into_chunks(text: str) -> list[str]:
    """The pieces a streamed reply arrives in: each word with the whitespace before it."""
    return re.findall(r"\s*\S+|\s+", text)


class LoopbackOpenAI:
    """The scripted server. Configure it from the test thread; handlers read it from server threads."""

    def __init__(self, models: Iterable[str] = DEFAULT_MODELS, *, structured: str = "json_schema",
                 api_key: str | None = None, context_tokens: int = 32_768) -> None:
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
        self._replies: collections.deque[str] = collections.deque()
        self._reply_function: ReplyFunction | None = None
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -----------------------------------------------------------------------------

    def queue_replies(self, *texts: str) -> None:
        """Answer the next chat requests with these texts, in order."""
        with self._lock:
            self._replies.extend(texts)

    def reply_with(self, function: ReplyFunction | None) -> None:
        """Answer chat requests with ``function(request_json)`` once the queue is empty."""
        with self._lock:
            self._reply_function = function

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of the ``/v1/chat/completions`` requests received so far."""
        return [r.body or {} for r in self.requests if r.path == "/v1/chat/completions"]

    # -- life cycle ----------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the loopback OpenAI server is not running")
        return int(self._server.server_port)

    @property
    def url(self) -> str:
        """The base URL a client is configured with (the API root, ``/v1``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> Self:
        handler = type("BoundHandler", (_Handler,), {"server_state": self})
        self._server = _QuietServer(("127.0.0.1", 0), handler)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="loopback-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- used by the handler -------------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_reply(self, body: dict[str, Any]) -> str | None:
        with self._lock:
            if self._replies:
                return self._replies.popleft()
            function = self._reply_function
        return function(body) if function is not None else None

    def _stall(self, seconds: float) -> None:
        self._stopping.wait(seconds)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], OSError):  # clients that hang up, on purpose in several tests
            return
        super().handle_error(request, client_address)


def _error(message: str, kind: str, code: str | int | None, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


class _Handler(BaseHTTPRequestHandler):
    server_state: LoopbackOpenAI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    # -- plumbing ------------------------------------------------------------------------------

    def _read_json(self) -> dict[str, Any] | None:
        length = int(self.headers.get("Content-Length") or 0)
        if not length:
            return None
        parsed = json.loads(self.rfile.read(length))
        return parsed if isinstance(parsed, dict) else {"_body": parsed}

    def _send_json(self, payload: Any, status: int = 200) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _send_event(self, payload: Any) -> None:
        data = payload if isinstance(payload, str) else json.dumps(payload)
        self._send_chunk(f"data: {data}\n\n".encode())

    def _hang_up(self) -> None:
        self.close_connection = True
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)

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
        self.server_state._record(RecordedRequest("GET", self.path, dict(self.headers.items()), None))
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
        self.server_state._record(RecordedRequest("POST", self.path, dict(self.headers.items()), body))
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
