"""The Ollama chat backend: a ChatModel that talks to a user's Ollama server through the ``ollama`` client.

Owns the translation from Folio's chat call (messages, JSON schema, token budget, streaming) to
Ollama's ``/api/chat``, the usage counts Ollama reports, and the wording of the errors a person
can act on: server not running, model not pulled, server gone mid-answer. Every request has a
timeout, so a stalled server cannot hang a question forever.
"""

from __future__ import annotations

import errno
import json
import time
from collections.abc import Sequence
from typing import Any

import httpx
import ollama

from models.errors import ModelError, ModelUnavailable
from models.protocols import ChatCapabilities, TokenCallback, server_label
from models.types import ChatMessage, ChatReply, Usage

DEFAULT_HOST = "http://127.0.0.1:11434"
_CONNECT_TIMEOUT = 5.0
_SWITCH_HINT = "Start Ollama or switch to the embedded model."


def _timeout(seconds: float) -> httpx.Timeout:
    # A server that does not accept the connection is not going to; a slow answer may still come.
    return httpx.Timeout(seconds, connect=min(seconds, _CONNECT_TIMEOUT))


def _reason(error: BaseException, timeout: float) -> str:
    """A short, lower-case account of why a request failed."""
    # ollama re-raises httpx.ConnectError as a bare ConnectionError; the original is its context.
    if type(error) is ConnectionError and error.__context__ is not None:
        error = error.__context__
    if isinstance(error, httpx.TimeoutException):
        return f"no answer within {timeout:g} s"
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, OSError) and cause.errno == errno.ECONNREFUSED:
            return "connection refused"
        cause = cause.__cause__ or cause.__context__
    text = str(error).strip() or type(error).__name__
    if "refused" in text.lower():
        return "connection refused"
    return text[:1].lower() + text[1:]


def _unreachable(host: str, error: BaseException, timeout: float) -> ModelUnavailable:
    return ModelUnavailable(f"Ollama is not reachable at {host}: {_reason(error, timeout)}. {_SWITCH_HINT}")


def _connection_failed(error: BaseException) -> bool:
    if isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout)):
        return True
    # ollama's own wrapper for httpx.ConnectError
    return type(error) is ConnectionError


def list_models(host: str, timeout: float = 3.0) -> list[str]:
    """The names of the models installed in the Ollama server at ``host`` (``/api/tags``)."""
    try:
        with ollama.Client(host=host, timeout=_timeout(timeout)) as client:
            listed = client.list()
    except ollama.ResponseError as error:
        raise ModelUnavailable(f"Ollama at {host} could not list its models: {error.error}") from error
    except (httpx.HTTPError, ConnectionError) as error:
        raise _unreachable(host, error, timeout) from error
    except ValueError as error:  # JSON or pydantic: something else listens on that port
        raise ModelUnavailable(f"The server at {host} does not speak Ollama's API. {_SWITCH_HINT}") from error
    return [m.model for m in listed.models if m.model]


def check_server(host: str, timeout: float = 3.0) -> str | None:
    """None when an Ollama server answers at ``host``, else a one-line reason a person can act on."""
    try:
        list_models(host, timeout)
    except ModelUnavailable as error:
        return str(error)
    return None


class OllamaChatModel:
    """A ChatModel served by Ollama. Temperature 0; a ``schema`` is passed as Ollama's ``format``."""

    def __init__(self, model: str, host: str = DEFAULT_HOST, num_ctx: int = 8192, timeout: float = 120) -> None:
        self.model = model
        self.host = host
        self.num_ctx = num_ctx
        self.timeout = timeout

    @property
    def name(self) -> str:
        return f"{self.model} (Ollama)"

    @property
    def capabilities(self) -> ChatCapabilities:
        # Models people serve with Ollama are usually larger than the embedded one: they write SQL.
        return ChatCapabilities(supports_free_sql=True, context_tokens=self.num_ctx, host_label=server_label(self.host))

    def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        on_token: TokenCallback | None = None,
    ) -> ChatReply:
        request: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "options": {"temperature": 0, "num_ctx": self.num_ctx, "num_predict": max_tokens},
        }
        if schema is not None:
            request["format"] = schema
        started = time.perf_counter()
        connected = False
        final: ollama.ChatResponse | None = None
        # A client per call: nothing to share between threads, and its sockets close with the call.
        try:
            with ollama.Client(host=self.host, timeout=_timeout(self.timeout)) as client:
                if on_token is None:
                    final = client.chat(**request, stream=False)
                    text = final.message.content or ""
                else:
                    parts: list[str] = []
                    for part in client.chat(**request, stream=True):
                        connected = True
                        piece = part.message.content or ""
                        if piece:
                            parts.append(piece)
                            on_token(piece)
                        if part.done:
                            final = part
                    if final is None:
                        raise httpx.RemoteProtocolError("the stream ended without its final message")
                    text = "".join(parts)
        except ollama.ResponseError as error:
            raise self._response_error(error) from error
        except (httpx.HTTPError, ConnectionError, json.JSONDecodeError) as error:
            if not connected and _connection_failed(error):
                raise _unreachable(self.host, error, self.timeout) from error
            raise ModelUnavailable(
                f"The Ollama server stopped answering at {self.host} while {self.model} was replying "
                f"({_reason(error, self.timeout)}). Check that Ollama is still running, or switch to the "
                "embedded model."
            ) from error
        usage = Usage(
            calls=1,
            prompt_tokens=final.prompt_eval_count or 0,
            completion_tokens=final.eval_count or 0,
            seconds=time.perf_counter() - started,
        )
        return ChatReply(text=text, usage=usage)

    def _response_error(self, error: ollama.ResponseError) -> ModelError:
        if error.status_code == 404 and "not found" in str(error.error).lower():
            try:
                installed = list_models(self.host, timeout=min(self.timeout, 3.0))
            except ModelUnavailable:
                installed = []
            listing = ", ".join(installed) if installed else "none"
            return ModelUnavailable(
                f"The model {self.model} is not installed in Ollama at {self.host}; installed: {listing}. "
                f"Run `ollama pull {self.model}` or choose an installed model."
            )
        return ModelUnavailable(f"Ollama at {self.host} refused the request for {self.model}: {error.error}")
