"""What the tests' loopback model servers share: a scripted reply queue, the requests received, a
threaded HTTP server on 127.0.0.1 that tolerates clients hanging up, and the JSON and chunked-streaming
plumbing of their request handlers. ``ollama_server`` and ``openai_server`` add each API's routes."""

from __future__ import annotations

import collections
import json
import re
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

ReplyFunction = Callable[[dict[str, Any]], str]


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    body: dict[str, Any] | None
    """The parsed JSON body; None for requests without one."""
    headers: dict[str, str] = field(default_factory=dict)


def split_into_chunks(text: str) -> list[str]:
    """The pieces a streamed reply arrives in: each word with the whitespace before it."""
    return re.findall(r"\s*\S+|\s+", text)


class ScriptedServer:
    """A scripted server's state and life cycle. Configure it from the test thread; handlers read it from
    server threads. Subclasses say which handler serves them (``_handler``)."""

    name = "scripted"

    def __init__(self) -> None:
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

    # -- life cycle ----------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError(f"the loopback {self.name} server is not running")
        return int(self._server.server_port)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError

    def start(self) -> Self:
        self._server = QuietServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        name=f"loopback-{self.name.lower()}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # releases handlers stalled on purpose
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


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], OSError):  # clients that hang up, on purpose in several tests
            return
        super().handle_error(request, client_address)


class JsonHandler(BaseHTTPRequestHandler):
    """JSON in and out, chunked streaming, hanging up: the plumbing of both servers' handlers."""

    protocol_version = "HTTP/1.1"  # needed for chunked streaming
    json_type = "application/json"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _read_json(self) -> dict[str, Any] | None:
        length = int(self.headers.get("Content-Length") or 0)
        if not length:
            return None
        parsed = json.loads(self.rfile.read(length))
        return parsed if isinstance(parsed, dict) else {"_body": parsed}

    def _send_json(self, payload: Any, status: int = 200) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", self.json_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _hang_up(self) -> None:
        self.close_connection = True
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)
