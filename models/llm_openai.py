"""The OpenAI-compatible chat backend: a ChatModel served by any server that speaks ``/v1/chat/completions``
and ``/v1/models`` (vLLM, llama.cpp's ``llama-server``, llama-cpp-python's server, LM Studio, LocalAI,
text-generation-inference), usually on a shared GPU box.

Owns the base URL, the API key (sent only as a bearer header to the configured host; never in a message,
a log line or a ``repr``), the translation of Folio's chat call into the wire format, structured output,
SSE streaming, usage counts, and the words for the failures a person can act on: server unreachable,
key refused, model not served, prompt larger than the context, connection lost mid-answer.

Structured output, most to least reliable: ``response_format`` ``json_schema`` (OpenAI, vLLM, llama-server,
LM Studio, Ollama); else ``json_object`` with a ``schema`` (llama-cpp-python's server); else the schema in
the system prompt and the reply parsed. Whichever the server refuses (a 400/422, or a 500 naming
``response_format``, as llama-cpp-python's server answers a request it cannot validate) is not asked again. Every
schema-bound reply is checked, and a reply that is not the JSON object asked for gets one repair call.

httpx rather than the ``openai`` SDK: httpx is already what the Ollama client runs on, the two endpoints
and SSE are a small surface, and the SDK would read ``OPENAI_API_KEY`` / ``OPENAI_BASE_URL`` from the
environment by itself and retry on its own, where Folio must decide which key goes to which host.
``trust_env=False``: no proxy variable or ``.netrc`` sends a request anywhere but the configured host.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from models.errors import ContextTooSmall, ModelError, ModelOutputError, ModelUnavailable
from models.protocols import ChatCapabilities, TokenCallback, server_label
from models.types import ChatMessage, ChatReply, Usage

API_KEY_ENV = "FOLIO_OPENAI_API_KEY"
DEFAULT_BASE_URL = "http://127.0.0.1:8080/v1"
DEFAULT_CONTEXT_TOKENS = 8192
_CONNECT_TIMEOUT = 5.0
_SWITCH_HINT = "Check the address and that the server is running, or switch to the embedded model."
STRUCTURED_MODES = ("json_schema", "json_object", "prompt")
"""How a JSON schema is sent, in the order tried."""
_CONTEXT_PATTERNS = (
    re.compile(r"maximum context length is (\d+)", re.IGNORECASE),  # OpenAI, vLLM, llama-cpp-python
    re.compile(r"context (?:window|size|length) of (\d+)", re.IGNORECASE),
    re.compile(r"n_ctx[^\d]{0,12}(\d+)", re.IGNORECASE),  # llama-server
)
_CONTEXT_WORDS = re.compile(r"context[_ ](?:length|window|size)|exceed.{0,40}context|too many tokens|prompt is too long",
                            re.IGNORECASE)


def normalise_base_url(url: str) -> str:
    """The API root for what a person typed: a scheme is added, ``/v1`` when no path was given.

    ``gpu-box:8000`` and ``http://gpu-box:8000/`` both become ``http://gpu-box:8000/v1``; a URL with a path
    (``https://proxy/llm/v1``) is kept as written, without its trailing slash.
    """
    text = url.strip()
    if not text:
        raise ModelUnavailable("No model server address is set. Enter its base URL, e.g. http://gpu-box:8000/v1.")
    if "://" not in text:
        text = f"http://{text}"
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ModelUnavailable(f"{url.strip()!r} is not a model server address; expected e.g. http://gpu-box:8000/v1.")
    path = parts.path.rstrip("/") or "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def display_url(url: str) -> str:
    """A URL as it may be shown: without user name, password, query or fragment."""
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


@dataclass(frozen=True)
class ServedModel:
    """One entry of ``/v1/models``."""

    id: str
    context_tokens: int | None = None
    """The context length the server reports (vLLM ``max_model_len``, llama-server ``meta.n_ctx_train``)."""


class _Connection:
    """The base URL, the key and the timeouts of one server; builds clients and words for failures."""

    def __init__(self, base_url: str, api_key: str | None, timeout: float) -> None:
        self.base_url = normalise_base_url(base_url)
        self.label = server_label(self.base_url)
        self.timeout = timeout
        self._api_key = (api_key or "").strip()

    @property
    def has_key(self) -> bool:
        return bool(self._api_key)

    def client(self, timeout: float | None = None) -> httpx.Client:
        seconds = timeout or self.timeout
        headers = {"Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return httpx.Client(
            base_url=self.base_url + "/",
            headers=headers,
            timeout=httpx.Timeout(seconds, connect=min(seconds, _CONNECT_TIMEOUT)),
            trust_env=False,
            follow_redirects=False,
        )

    def redact(self, text: str) -> str:
        """``text`` with the key (and any bearer token) blotted out, so no message can carry it."""
        if self._api_key:
            text = text.replace(self._api_key, "***")
        return re.sub(r"(?i)(bearer\s+)\S+", r"\1***", text)

    def unreachable(self, error: BaseException, timeout: float) -> ModelUnavailable:
        return ModelUnavailable(
            f"No model server answers at {display_url(self.base_url)}: {_reason(error, timeout)}. {_SWITCH_HINT}"
        )

    def server_message(self, response: httpx.Response) -> str:
        """The error text a server put in its reply, whatever its dialect, short and without secrets."""
        try:
            body: Any = response.json()
        except ValueError:
            body = response.text
        return self.redact(_error_text(body))[:300] or response.reason_phrase


def _error_text(body: Any) -> str:
    if isinstance(body, str):
        return " ".join(body.split())
    if isinstance(body, dict):
        for key in ("error", "detail", "message"):
            if key in body:
                return _error_text(body[key])
        return ""
    if isinstance(body, list):  # FastAPI's 422: a list of {"loc", "msg"}
        return "; ".join(_error_text(item.get("msg", item) if isinstance(item, dict) else item) for item in body[:3])
    return str(body)


def _error_code(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return ""
    error = body.get("error") if isinstance(body, dict) else None
    return str(error.get("code") or error.get("type") or "") if isinstance(error, dict) else ""


def _reason(error: BaseException, timeout: float) -> str:
    if isinstance(error, httpx.ConnectTimeout):
        return f"the connection was not accepted within {min(timeout, _CONNECT_TIMEOUT):g} s"
    if isinstance(error, httpx.TimeoutException):
        return f"no answer within {timeout:g} s"
    text = str(error).strip() or type(error).__name__
    if "refused" in text.lower():
        return "connection refused"
    if "name or service not known" in text.lower() or "nodename nor servname" in text.lower():
        return "unknown host name"
    return text[:1].lower() + text[1:]


def list_served_models(base_url: str, api_key: str | None = None, timeout: float = 5.0) -> list[ServedModel]:
    """The models the server at ``base_url`` serves (``GET /v1/models``), with their context when it says."""
    return _list_models(_Connection(base_url, api_key, timeout), timeout)


def list_models(base_url: str, api_key: str | None = None, timeout: float = 5.0) -> list[str]:
    """The ids of the models the server at ``base_url`` serves."""
    return [m.id for m in list_served_models(base_url, api_key, timeout)]


def _list_models(connection: _Connection, timeout: float) -> list[ServedModel]:
    try:
        with connection.client(timeout) as client:
            response = client.get("models")
    except httpx.ReadTimeout as error:
        # Connected, but no reply: llama-cpp-python's server, for one, answers nothing while it generates.
        raise ModelUnavailable(f"The model server at {connection.label} did not list its models within "
                               f"{timeout:g} s; it may be busy with another request. Try again.") from error
    except httpx.HTTPError as error:
        raise connection.unreachable(error, timeout) from error
    if response.status_code in (401, 403):
        raise _unauthorised(connection, response)
    if response.status_code == 404:
        raise ModelUnavailable(
            f"The server at {display_url(connection.base_url)} has no /models endpoint: is the base URL right? "
            "OpenAI-compatible servers usually answer under /v1 (e.g. http://gpu-box:8000/v1)."
        )
    if response.status_code >= 400:
        raise ModelUnavailable(f"The model server at {connection.label} could not list its models "
                               f"({response.status_code}: {connection.server_message(response)}).")
    try:
        entries = response.json()["data"]
        return [_served_model(entry) for entry in entries if isinstance(entry, dict) and entry.get("id")]
    except (ValueError, KeyError, TypeError) as error:
        raise ModelUnavailable(f"The server at {display_url(connection.base_url)} does not speak the OpenAI API "
                               f"(its /models reply has no model list). {_SWITCH_HINT}") from error


def _served_model(entry: dict[str, Any]) -> ServedModel:
    meta = entry.get("meta") if isinstance(entry.get("meta"), dict) else {}
    context = entry.get("max_model_len") or entry.get("context_length") or (meta or {}).get("n_ctx_train")
    return ServedModel(str(entry["id"]), int(context) if isinstance(context, int) and context > 0 else None)


def _unauthorised(connection: _Connection, response: httpx.Response) -> ModelUnavailable:
    # The server's own text is left out: some echo part of the key they refused.
    if connection.has_key:
        return ModelUnavailable(
            f"The model server at {connection.label} refused the API key ({response.status_code} "
            f"{response.reason_phrase}). Check the key in Settings or in ${API_KEY_ENV}."
        )
    return ModelUnavailable(
        f"The model server at {connection.label} asks for an API key ({response.status_code} "
        f"{response.reason_phrase}). Enter it in Settings or set ${API_KEY_ENV}."
    )


class _Refused(Exception):
    """The server answered a request with an error status (read by the caller, which decides)."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(response.status_code)
        self.response = response


class OpenAIChatModel:
    """A ChatModel on an OpenAI-compatible server. Temperature 0; nothing is sent before the first call."""

    def __init__(self, model: str, base_url: str = DEFAULT_BASE_URL, *, api_key: str | None = None,
                 timeout: float = 120.0, context_tokens: int = DEFAULT_CONTEXT_TOKENS,
                 free_sql: bool = True) -> None:
        if not model.strip():
            raise ModelUnavailable("No model is chosen for the model server. Pick one of the models it serves.")
        self.model = model.strip()
        self._connection = _Connection(base_url, api_key, timeout)
        self._lock = threading.Lock()
        self._context_tokens = context_tokens
        self._free_sql = free_sql
        self._structured_mode = 0  # index into STRUCTURED_MODES: the first one the server has not refused
        self._stream_usage = True  # ask for usage in streams until the server refuses stream_options

    def __repr__(self) -> str:
        return f"OpenAIChatModel(model={self.model!r}, base_url={display_url(self.base_url)!r})"

    @property
    def name(self) -> str:
        return f"{self.model} (OpenAI-compatible)"

    @property
    def base_url(self) -> str:
        return self._connection.base_url

    @property
    def timeout(self) -> float:
        return self._connection.timeout

    @property
    def structured_output(self) -> str:
        """How a schema is sent to this server now: ``json_schema``, ``json_object`` or ``prompt``."""
        return STRUCTURED_MODES[self._structured_mode]

    @property
    def capabilities(self) -> ChatCapabilities:
        return ChatCapabilities(supports_free_sql=self._free_sql, context_tokens=self._context_tokens,
                                host_label=self._connection.label)

    def served_models(self, timeout: float = 5.0) -> list[ServedModel]:
        return _list_models(self._connection, timeout)

    def check(self, timeout: float = 5.0) -> None:
        """Raise ``ModelUnavailable`` unless the server answers and serves this model; learn its context size."""
        served = self.served_models(timeout)
        match = next((m for m in served if m.id == self.model), None)
        if match is None:
            raise self._model_missing(served)
        if match.context_tokens:
            with self._lock:
                self._context_tokens = match.context_tokens

    # -- the call ------------------------------------------------------------------------------------

    def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        on_token: TokenCallback | None = None,
    ) -> ChatReply:
        started = time.perf_counter()
        if schema is None:
            text, usage, _ = self._complete(messages, None, max_tokens, on_token)
            return ChatReply(text, _timed(usage, started))
        text, usage, finish_reason = self._complete(messages, schema, max_tokens, on_token)
        problem = _json_problem(text, schema)
        if problem is None:
            return ChatReply(_json_text(text), _timed(usage, started))
        if finish_reason == "length":
            raise ModelOutputError(f"The model's JSON was cut off at max_tokens={max_tokens}; allow more tokens.",
                                   _timed(usage, started))
        # One repair: show the model its reply and what is wrong with it.
        repair = [*messages, ChatMessage("assistant", text),
                  ChatMessage("user", f"That reply is not what was asked ({problem}). Reply with only the JSON "
                                      "object, matching the schema.")]
        text, more, finish_reason = self._complete(repair, schema, max_tokens, None)
        usage = usage + more
        problem = _json_problem(text, schema)
        if problem is not None:
            cut = " (cut off at max_tokens)" if finish_reason == "length" else ""
            raise ModelOutputError(f"The model's reply is not the JSON asked for, even after one repair{cut}: "
                                   f"{problem}.", _timed(usage, started))
        return ChatReply(_json_text(text), _timed(usage, started))

    def _complete(self, messages: Sequence[ChatMessage], schema: dict[str, Any] | None, max_tokens: int,
                  on_token: TokenCallback | None) -> tuple[str, Usage, str | None]:
        """One completion, stepping down the structured modes and stream options the server refuses."""
        while True:
            mode = self.structured_output if schema is not None else None
            stream_usage = self._stream_usage
            body = self._request(messages, schema, mode, max_tokens, stream=on_token is not None,
                                 stream_usage=stream_usage)
            try:
                if on_token is None:
                    return self._post(body)
                return self._post_streaming(body, on_token)
            except _Refused as refused:
                response = refused.response
                text = response.text
                # A refused option is a 400/422, or a 500 that names it (llama-cpp-python's validation errors).
                refused_option = response.status_code in (400, 422) or (
                    response.status_code == 500 and ("response_format" in text or "stream_options" in text))
                if refused_option and not self._is_context_error(response):
                    if on_token is not None and stream_usage and "stream_options" in text:
                        self._stream_usage = False
                        continue
                    if mode is not None and mode != STRUCTURED_MODES[-1] and not self._is_model_error(response):
                        with self._lock:
                            self._structured_mode = max(self._structured_mode, STRUCTURED_MODES.index(mode) + 1)
                        continue
                raise self._http_error(response) from None

    def _request(self, messages: Sequence[ChatMessage], schema: dict[str, Any] | None, mode: str | None,
                 max_tokens: int, *, stream: bool, stream_usage: bool) -> dict[str, Any]:
        chat = [{"role": m.role, "content": m.content} for m in messages]
        body: dict[str, Any] = {"model": self.model, "messages": chat, "temperature": 0, "max_tokens": max_tokens,
                                "stream": stream}
        if stream and stream_usage:
            body["stream_options"] = {"include_usage": True}
        if schema is not None and mode == "json_schema":
            body["response_format"] = {"type": "json_schema",
                                       "json_schema": {"name": "reply", "schema": schema, "strict": True}}
        elif schema is not None and mode == "json_object":
            body["response_format"] = {"type": "json_object", "schema": schema}
        elif schema is not None:
            body["messages"] = _with_schema_instruction(chat, schema)
        return body

    def _post(self, body: dict[str, Any]) -> tuple[str, Usage, str | None]:
        connection = self._connection
        try:
            with connection.client() as client:
                response = client.post("chat/completions", json=body)
        except httpx.HTTPError as error:
            raise self._transport_error(error, connected=False) from error
        if response.status_code >= 400:
            raise _Refused(response)
        try:
            payload = response.json()
            choice = payload["choices"][0]
            text = choice["message"].get("content") or ""
            finish_reason = choice.get("finish_reason")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as error:
            raise ModelUnavailable(f"The server at {display_url(connection.base_url)} does not speak the OpenAI "
                                   f"chat API (its reply has no choices). {_SWITCH_HINT}") from error
        return text, _usage(payload.get("usage")), finish_reason

    def _post_streaming(self, body: dict[str, Any], on_token: TokenCallback) -> tuple[str, Usage, str | None]:
        connection = self._connection
        parts: list[str] = []
        chunks = 0
        finish_reason: str | None = None
        usage: Usage | None = None
        done = False
        connected = False
        try:
            with connection.client() as client, client.stream("POST", "chat/completions", json=body) as response:
                connected = True
                if response.status_code >= 400:
                    response.read()
                    raise _Refused(response)
                for event in _sse_events(response.iter_lines()):
                    if event == "[DONE]":
                        done = True
                        break
                    try:
                        payload = json.loads(event)
                    except ValueError:
                        continue  # a keep-alive or a comment some servers send as data
                    if not isinstance(payload, dict):
                        continue
                    if payload.get("error"):
                        raise ModelUnavailable(f"The model server at {connection.label} failed while {self.model} "
                                               f"was replying: {self.redact(_error_text(payload))[:300]}")
                    if payload.get("usage"):
                        usage = _usage(payload["usage"])
                    for choice in payload.get("choices") or ():
                        piece = (choice.get("delta") or {}).get("content") or ""
                        if piece:
                            parts.append(piece)
                            chunks += 1
                            on_token(piece)
                        finish_reason = choice.get("finish_reason") or finish_reason
        except httpx.HTTPError as error:
            raise self._transport_error(error, connected=connected) from error
        if not done and finish_reason is None:
            raise self._dropped("the stream ended before the answer was complete")
        # A server that reports no usage for a stream (llama-cpp-python's) sends one token per chunk.
        return "".join(parts), usage or Usage(calls=1, completion_tokens=chunks), finish_reason

    # -- failures --------------------------------------------------------------------------------------

    def redact(self, text: str) -> str:
        return self._connection.redact(text)

    def _transport_error(self, error: httpx.HTTPError, *, connected: bool) -> ModelError:
        if not connected and isinstance(error, (httpx.ConnectError, httpx.ConnectTimeout)):
            return self._connection.unreachable(error, self.timeout)
        if not connected and isinstance(error, httpx.TimeoutException):
            return ModelUnavailable(f"The model server at {self._connection.label} did not answer within "
                                    f"{self.timeout:g} s. It may be busy: try again, or raise the timeout.")
        return self._dropped(self.redact(_reason(error, self.timeout)))

    def _dropped(self, reason: str) -> ModelUnavailable:
        return ModelUnavailable(
            f"The connection to the model server at {self._connection.label} broke while {self.model} was "
            f"replying ({reason}); the partial answer was discarded. Check that the server is still running "
            "and ask again."
        )

    def _is_context_error(self, response: httpx.Response) -> bool:
        if _error_code(response) in ("context_length_exceeded", "exceed_context_size_error"):
            return True
        return bool(_CONTEXT_WORDS.search(self._connection.server_message(response)))

    def _is_model_error(self, response: httpx.Response) -> bool:
        message = self._connection.server_message(response).lower()
        return _error_code(response) == "model_not_found" or (
            "model" in message and any(w in message for w in ("does not exist", "not found", "not served")))

    def _http_error(self, response: httpx.Response) -> ModelError:
        connection = self._connection
        status = response.status_code
        if status in (401, 403):
            return _unauthorised(connection, response)
        if self._is_context_error(response):
            return self._context_error(response)
        if status == 404 or self._is_model_error(response):
            try:
                served = self.served_models(timeout=min(self.timeout, 5.0))
            except ModelUnavailable as error:
                if status == 404:
                    return error  # the base URL itself is wrong: say that
                served = []
            return self._model_missing(served)
        where = f"The model server at {connection.label}"
        message = connection.server_message(response)
        if status >= 500:
            return ModelUnavailable(f"{where} failed ({status}): {message}. Check its log, or switch models.")
        return ModelUnavailable(f"{where} refused the request for {self.model} ({status}): {message}")

    def _context_error(self, response: httpx.Response) -> ContextTooSmall:
        message = self._connection.server_message(response)
        size = next((int(m.group(1)) for p in _CONTEXT_PATTERNS if (m := p.search(message))), None)
        if size:
            with self._lock:
                self._context_tokens = size
        holds = f" (it holds {size} tokens)" if size else ""
        return ContextTooSmall(
            f"The question and its tables do not fit the context of {self.model} at {self._connection.label}{holds}. "
            "Start the server with a longer context (vLLM --max-model-len, llama-server -c, "
            "llama_cpp.server --n_ctx), or ask about fewer tables at once.",
            context_tokens=size,
        )

    def _model_missing(self, served: Sequence[ServedModel]) -> ModelUnavailable:
        listing = ", ".join(m.id for m in served) or "none"
        return ModelUnavailable(
            f"The model {self.model} is not served at {self._connection.label}; it serves: {listing}. "
            "Choose one of them in Settings (or with --model)."
        )


# -- helpers ---------------------------------------------------------------------------------------------


def _sse_events(lines: Iterator[str]) -> Iterator[str]:
    """The ``data`` of each server-sent event (multi-line data joined), skipping comments and other fields."""
    data: list[str] = []
    for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        if field == "data":
            data.append(value.removeprefix(" "))
            # Servers that separate events by one newline only (llama-cpp-python): a complete JSON is an event.
            if data[-1] == "[DONE]" or _is_complete_json(data[-1]):
                yield "\n".join(data)
                data = []
    if data:
        yield "\n".join(data)


def _is_complete_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _usage(reported: Any) -> Usage:
    if not isinstance(reported, dict):
        return Usage(calls=1)
    # The OpenAI API's count of prompt tokens served from the server's prefix cache (llama-server, vLLM).
    details = reported.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    return Usage(calls=1, prompt_tokens=int(reported.get("prompt_tokens") or 0),
                 completion_tokens=int(reported.get("completion_tokens") or 0), reused_tokens=int(cached or 0))


def _timed(usage: Usage, started: float) -> Usage:
    return Usage(usage.calls, usage.prompt_tokens, usage.completion_tokens, time.perf_counter() - started,
                 reused_tokens=usage.reused_tokens)


def _with_schema_instruction(chat: list[dict[str, str]], schema: dict[str, Any]) -> list[dict[str, str]]:
    instruction = ("Reply with only a JSON object (no code fences, no other text) that matches this JSON Schema: "
                   + json.dumps(schema, separators=(",", ":")))
    if chat and chat[0]["role"] == "system":
        return [{"role": "system", "content": chat[0]["content"] + "\n\n" + instruction}, *chat[1:]]
    return [{"role": "system", "content": instruction}, *chat]


_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?(.*?)\n?```$", re.DOTALL)


def _json_text(text: str) -> str:
    """The JSON in a reply, without code fences or chatter around the object."""
    cleaned = text.strip()
    fenced = _FENCE.match(cleaned)
    if fenced:
        cleaned = fenced.group(1).strip()
    if not cleaned.startswith("{"):
        start, end = cleaned.find("{"), cleaned.rfind("}")
        if 0 <= start < end:
            cleaned = cleaned[start:end + 1]
    return cleaned


def _json_problem(text: str, schema: dict[str, Any]) -> str | None:
    """None when ``text`` holds a JSON object with the schema's required keys and allowed values, else why not."""
    try:
        value = json.loads(_json_text(text))
    except ValueError as error:
        return f"not valid JSON: {error}"
    return _value_problem(value, schema, "the reply")


def _value_problem(value: Any, schema: dict[str, Any], where: str) -> str | None:
    """A shallow check of the parts of JSON Schema Folio's prompts use: type, required, enum, items."""
    if "enum" in schema and value not in schema["enum"]:
        return f"{where} is {json.dumps(value)[:60]}, not one of the allowed values"
    expected = schema.get("type")
    types = {"object": dict, "array": list, "string": str, "boolean": bool}
    if isinstance(expected, str) and expected in types and not isinstance(value, types[expected]):
        return f"{where} is not a JSON {expected}"
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        missing = [k for k in schema.get("required", ()) if k not in value]
        if missing:
            return f"{where} lacks {', '.join(missing)}"
        for key, sub in properties.items():
            if key in value and isinstance(sub, dict):
                problem = _value_problem(value[key], sub, key)
                if problem:
                    return problem
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for item in value:
            problem = _value_problem(item, schema["items"], f"an item of {where}")
            if problem:
                return problem
    return None
