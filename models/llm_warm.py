"""A warm embedded model shared between processes over a Unix socket: the server that keeps one
``EmbeddedChatModel`` loaded (and its KV cache) between ``folio ask`` calls, and the ``WarmChatModel``
client that speaks to it.

A Unix socket is a file, not a network port: nothing can reach it from another machine, and the folder
it lives in is readable by its owner only (``app/warm_model.py`` makes it so). The protocol is one JSON
object per line. A request is ``{"op": "hello" | "chat" | "stop", ...}``; a chat streams
``{"token": text}`` lines (when the caller streams) and ends with ``{"reply": {...}}`` or
``{"error": {"kind", "message"}}``. The server answers one connection at a time, which is what the
model does anyway (one ``Llama`` under one lock), and ends itself after ``idle_seconds`` without a request.
"""

from __future__ import annotations

import json
import os
import socket
import socketserver
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from models.errors import ModelError, ModelOutputError, ModelUnavailable
from models.protocols import ChatCapabilities, TokenCallback
from models.types import ChatMessage, ChatReply, Usage

PROTOCOL = 1
_ERRORS: dict[str, type[ModelError]] = {"ModelError": ModelError, "ModelOutputError": ModelOutputError,
                                        "ModelUnavailable": ModelUnavailable}


class WarmServerGone(ModelError):
    """The warm model process is not there (any more), or does not speak this protocol."""


def _send(stream: Any, payload: dict[str, Any]) -> None:
    stream.write(json.dumps(payload).encode("utf-8") + b"\n")
    stream.flush()


def usage_to_json(usage: Usage) -> dict[str, Any]:
    return {"calls": usage.calls, "prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
            "seconds": usage.seconds, "reused_tokens": usage.reused_tokens}


def usage_from_json(data: dict[str, Any]) -> Usage:
    return Usage(int(data.get("calls", 0)), int(data.get("prompt_tokens", 0)), int(data.get("completion_tokens", 0)),
                 float(data.get("seconds", 0.0)), reused_tokens=int(data.get("reused_tokens", 0)))


class _ClientLeft(Exception):
    """The client closed its end while tokens were streaming (a stopped question)."""


class _Handler(socketserver.StreamRequestHandler):
    server: WarmModelServer

    def handle(self) -> None:
        self.server.requests += 1
        line = self.rfile.readline()
        if not line:
            return
        try:
            request = json.loads(line)
            op = request.get("op")
        except (json.JSONDecodeError, AttributeError):
            _send(self.wfile, {"error": {"kind": "ModelError", "message": "not a warm-model request"}})
            return
        if op == "hello":
            _send(self.wfile, {"protocol": PROTOCOL, "pid": os.getpid(), "name": self.server.model.name,
                               "n_ctx": self.server.model.n_ctx, "started": self.server.started,
                               "requests": self.server.requests})
        elif op == "stop":
            self.server.stopping = True
            _send(self.wfile, {"stopped": os.getpid()})
        elif op == "chat":
            self._chat(request)
        else:
            _send(self.wfile, {"error": {"kind": "ModelError", "message": f"unknown request {op!r}"}})

    def _chat(self, request: dict[str, Any]) -> None:
        def on_token(text: str) -> None:
            try:
                _send(self.wfile, {"token": text})
            except OSError as error:  # the client stopped listening: stop generating
                raise _ClientLeft() from error

        try:
            messages = [ChatMessage(role, content) for role, content in request["messages"]]
            reply = self.server.model.chat(messages, schema=request.get("schema"),
                                           max_tokens=int(request.get("max_tokens", 512)),
                                           on_token=on_token if request.get("stream") else None)
        except _ClientLeft:
            return
        except ModelError as error:
            kind = type(error).__name__ if type(error).__name__ in _ERRORS else "ModelError"
            _send(self.wfile, {"error": {"kind": kind, "message": str(error)}})
            return
        except (KeyError, TypeError, ValueError) as error:
            _send(self.wfile, {"error": {"kind": "ModelError", "message": f"bad warm-model request: {error}"}})
            return
        try:
            _send(self.wfile, {"reply": {"text": reply.text, "usage": usage_to_json(reply.usage)}})
        except OSError:
            return


class WarmModelServer(socketserver.UnixStreamServer):
    """Serves ``model`` on the Unix socket at ``path``, one connection at a time."""

    def __init__(self, path: Path, model: Any) -> None:
        self.model = model
        self.requests = 0
        self.stopping = False
        self.started = time.time()
        super().__init__(str(path), _Handler)
        os.chmod(path, 0o600)

    def serve_until_idle(self, idle_seconds: float) -> None:
        """Answer requests until one asks to stop or none came for ``idle_seconds``."""
        self.timeout = idle_seconds
        while not self.stopping:
            seen = self.requests
            self.handle_request()  # returns after one request, or after the timeout without one
            if self.requests == seen:
                break


class WarmChatModel:
    """A ChatModel whose calls run in the warm model process listening on ``path``."""

    def __init__(self, path: Path, name: str, n_ctx: int, *, pid: int = 0, connect_timeout: float = 10.0) -> None:
        self.path = Path(path)
        self._name = name
        self._n_ctx = n_ctx
        self.pid = pid
        self._connect_timeout = connect_timeout

    @property
    def name(self) -> str:
        return self._name

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    @property
    def capabilities(self) -> ChatCapabilities:
        # The same model as the in-process embedded one, so the same declaration.
        return ChatCapabilities(supports_free_sql=False, context_tokens=self._n_ctx, host_label=None)

    def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        on_token: TokenCallback | None = None,
    ) -> ChatReply:
        request = {"op": "chat", "messages": [[m.role, m.content] for m in messages], "schema": schema,
                   "max_tokens": max_tokens, "stream": on_token is not None}
        with self._connect() as connection, connection.makefile("rwb") as stream:
            _send(stream, request)
            for line in stream:
                data = json.loads(line)
                if "token" in data:
                    if on_token is not None:
                        on_token(data["token"])  # a raise (a stopped question) closes the socket: the server stops
                    continue
                if "error" in data:
                    raise _ERRORS.get(data["error"].get("kind"), ModelError)(data["error"].get("message", ""))
                reply = data["reply"]
                return ChatReply(text=reply["text"], usage=usage_from_json(reply["usage"]))
        raise WarmServerGone(f"The warm model process (pid {self.pid}) ended during a call; run the question again.")

    def _connect(self) -> socket.socket:
        return connect(self.path, self._connect_timeout)


def connect(path: Path, timeout: float) -> socket.socket:
    """A connection to the warm model socket at ``path``; ``WarmServerGone`` when nothing listens there."""
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(timeout)
    try:
        connection.connect(str(path))
    except OSError as error:
        connection.close()
        raise WarmServerGone(f"No warm model process listens at {path} ({error}).") from error
    connection.settimeout(None)  # a call lasts as long as the model takes
    return connection


def request(path: Path, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
    """One request and its one-line answer (``hello``, ``stop``), waiting at most ``timeout`` seconds."""
    with connect(path, timeout) as connection:
        connection.settimeout(timeout)
        with connection.makefile("rwb") as stream:
            try:
                _send(stream, payload)
                line = stream.readline()
            except OSError as error:
                raise WarmServerGone(f"The warm model process at {path} did not answer ({error}).") from error
    if not line:
        raise WarmServerGone(f"The warm model process at {path} closed the connection.")
    answer: dict[str, Any] = json.loads(line)
    return answer
