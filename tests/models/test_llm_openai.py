"""OpenAIChatModel against the loopback OpenAI-compatible server: real HTTP, real SSE, real failures."""

from __future__ import annotations

import json
import logging
import socket

import pytest

from models.errors import ContextTooSmall, ModelOutputError, ModelUnavailable
from models.llm_openai import OpenAIChatModel, display_url, list_models, normalise_base_url
from models.protocols import ChatModel, capabilities_of, server_label
from models.types import ChatMessage
from tests.support.openai_server import LoopbackOpenAI, openai_server, serve_openai

pytestmark = pytest.mark.unit
__all__ = ["openai_server"]  # the fixture, imported so pytest finds it here

MODEL = "qwen2.5-coder-32b-instruct"
KEY = "sk-folio-test-3f9a1c77e2"
QUESTION = [ChatMessage("system", "You answer questions about reports."),
            ChatMessage("user", "Which year had the highest revenue?")]
SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string"}, "confidence": {"type": "string", "enum": ["low", "high"]}},
    "required": ["answer", "confidence"],
}
GOOD = {"answer": "2023", "confidence": "high"}


def closed_port_url() -> str:
    """A loopback URL nobody listens on: bind a free port, then release it."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


# -- addresses and declarations --------------------------------------------------------------------


@pytest.mark.parametrize(("typed", "expected"), [
    ("gpu-box:8000", "http://gpu-box:8000/v1"),
    ("http://gpu-box:8000/", "http://gpu-box:8000/v1"),
    ("https://llm.example.org/v1/", "https://llm.example.org/v1"),
    ("https://proxy.example.org/team/llm/v1", "https://proxy.example.org/team/llm/v1"),
    (" http://10.0.0.5:8080/v1 ", "http://10.0.0.5:8080/v1"),
])
def test_base_urls_are_normalised(typed: str, expected: str) -> None:
    assert normalise_base_url(typed) == expected


@pytest.mark.parametrize("typed", ["", "   ", "ftp://gpu-box/v1", "http://"])
def test_a_bad_base_url_is_refused_with_a_message(typed: str) -> None:
    with pytest.raises(ModelUnavailable, match="address|base URL"):
        normalise_base_url(typed)


def test_server_labels_name_the_host_and_never_credentials() -> None:
    assert server_label("http://gpu-box:8000/v1") == "gpu-box:8000"
    assert server_label("https://llm.example.org/v1") == "llm.example.org:443"
    assert server_label("http://user:secret@gpu-box:8000/v1") == "gpu-box:8000"
    assert server_label("http://127.0.0.1:8080/v1") == "this computer (port 8080)"
    assert server_label("http://localhost:11434") == "this computer (port 11434)"
    assert display_url("http://user:secret@gpu-box:8000/v1?token=x") == "http://gpu-box:8000/v1"


def test_is_a_chat_model_that_declares_its_capabilities() -> None:
    model = OpenAIChatModel(MODEL, "http://gpu-box:8000/v1")
    assert isinstance(model, ChatModel)
    assert model.name == f"{MODEL} (OpenAI-compatible)"
    declared = capabilities_of(model)
    assert declared.supports_free_sql and declared.host_label == "gpu-box:8000"
    assert declared.context_tokens == 8192
    assert not OpenAIChatModel(MODEL, "gpu-box:8000", free_sql=False).capabilities.supports_free_sql


def test_the_sql_style_follows_the_declared_capability_not_the_class_name() -> None:
    from core.answering import default_sql_style
    from models.protocols import ChatCapabilities

    class Renamed:  # a served model under a name that says nothing
        name = "anything"
        capabilities = ChatCapabilities(supports_free_sql=True)

    class Undeclared:
        name = "OllamaLookalike"

    assert default_sql_style(OpenAIChatModel(MODEL, "gpu-box:8000")) == "free"
    assert default_sql_style(Renamed()) == "free"  # type: ignore[arg-type]
    assert default_sql_style(Undeclared()) == "structured"  # type: ignore[arg-type]


def test_no_model_chosen_is_a_clear_error() -> None:
    with pytest.raises(ModelUnavailable, match="No model is chosen"):
        OpenAIChatModel("  ", "gpu-box:8000")


# -- models list and check ----------------------------------------------------------------------


def test_lists_models_and_learns_the_context_from_the_server(openai_server: LoopbackOpenAI) -> None:
    assert list_models(openai_server.url) == ["qwen2.5-coder-32b-instruct", "llama-3.1-8b-instruct"]
    model = OpenAIChatModel(MODEL, openai_server.url)
    model.check()
    assert model.capabilities.context_tokens == 32_768
    assert [r.path for r in openai_server.requests] == ["/v1/models", "/v1/models"]


def test_check_names_the_served_models_when_ours_is_missing(openai_server: LoopbackOpenAI) -> None:
    with pytest.raises(ModelUnavailable) as caught:
        OpenAIChatModel("mistral-7b", openai_server.url).check()
    message = str(caught.value)
    assert "mistral-7b is not served at this computer" in message
    assert "qwen2.5-coder-32b-instruct, llama-3.1-8b-instruct" in message


def test_a_base_url_without_the_api_root_is_named(openai_server: LoopbackOpenAI) -> None:
    wrong = openai_server.url.removesuffix("/v1") + "/api"
    with pytest.raises(ModelUnavailable, match="is the base URL right"):
        list_models(wrong)


# -- chat -------------------------------------------------------------------------------------------


def test_plain_chat_sends_the_request_and_reads_usage(openai_server: LoopbackOpenAI) -> None:
    openai_server.queue_replies("Revenue peaked in 2023.")
    reply = OpenAIChatModel(MODEL, openai_server.url).chat(QUESTION, max_tokens=64)
    assert reply.text == "Revenue peaked in 2023."
    assert (reply.usage.calls, reply.usage.prompt_tokens, reply.usage.completion_tokens) == (1, 11, 4)
    assert reply.usage.seconds > 0
    body = openai_server.chat_requests[0]
    assert body["model"] == MODEL and body["temperature"] == 0 and body["max_tokens"] == 64
    assert body["stream"] is False and "response_format" not in body
    assert body["messages"] == [{"role": m.role, "content": m.content} for m in QUESTION]


def test_a_schema_goes_as_json_schema_response_format(openai_server: LoopbackOpenAI) -> None:
    openai_server.queue_replies(json.dumps(GOOD))
    model = OpenAIChatModel(MODEL, openai_server.url)
    reply = model.chat(QUESTION, schema=SCHEMA)
    assert json.loads(reply.text) == GOOD
    sent = openai_server.chat_requests[0]["response_format"]
    assert sent == {"type": "json_schema", "json_schema": {"name": "reply", "schema": SCHEMA, "strict": True}}
    assert model.structured_output == "json_schema"


def test_a_server_with_json_object_only_gets_the_schema_that_way_from_then_on() -> None:
    with serve_openai(structured="json_object") as server:
        server.queue_replies(json.dumps(GOOD), json.dumps(GOOD))
        model = OpenAIChatModel(MODEL, server.url)
        assert json.loads(model.chat(QUESTION, schema=SCHEMA).text) == GOOD
        assert json.loads(model.chat(QUESTION, schema=SCHEMA).text) == GOOD
        formats = [r.get("response_format", {}).get("type") for r in server.chat_requests]
        assert formats == ["json_schema", "json_object", "json_object"]  # refused once, never asked again
        assert server.chat_requests[1]["response_format"]["schema"] == SCHEMA
        assert model.structured_output == "json_object"


def test_without_structured_output_the_schema_is_in_the_prompt_and_fences_are_removed() -> None:
    with serve_openai(structured="none") as server:
        server.queue_replies("```json\n" + json.dumps(GOOD) + "\n```")
        model = OpenAIChatModel(MODEL, server.url)
        reply = model.chat(QUESTION, schema=SCHEMA)
        assert reply.text == json.dumps(GOOD)
        last = server.chat_requests[-1]
        assert "response_format" not in last and model.structured_output == "prompt"
        system = last["messages"][0]
        assert system["role"] == "system" and system["content"].startswith("You answer questions about reports.")
        assert json.dumps(SCHEMA, separators=(",", ":")) in system["content"]
        assert len(last["messages"]) == len(QUESTION)


def test_a_reply_that_misses_the_schema_gets_one_repair() -> None:
    with serve_openai(structured="none") as server:
        server.queue_replies('{"answer": "2023", "confidence": "certain"}', json.dumps(GOOD))
        model = OpenAIChatModel(MODEL, server.url)
        reply = model.chat(QUESTION, schema=SCHEMA)
        assert json.loads(reply.text) == GOOD
        assert reply.usage.calls == 2
        repair = server.chat_requests[-1]["messages"]
        assert repair[-2] == {"role": "assistant", "content": '{"answer": "2023", "confidence": "certain"}'}
        assert "confidence" in repair[-1]["content"] and "allowed values" in repair[-1]["content"]


def test_a_second_bad_reply_is_an_output_error() -> None:
    with serve_openai(structured="none") as server:
        server.queue_replies("The answer is 2023.", "Still 2023, I think.")
        with pytest.raises(ModelOutputError, match="even after one repair"):
            OpenAIChatModel(MODEL, server.url).chat(QUESTION, schema=SCHEMA)
        assert len(server.chat_requests) == 4  # json_schema and json_object refused, the answer, the repair


def test_json_cut_off_by_max_tokens_says_so(openai_server: LoopbackOpenAI) -> None:
    openai_server.queue_replies('{"answer": "the year with the highest revenue was 2023", "confidence": "high"}')
    with pytest.raises(ModelOutputError, match="cut off at max_tokens=3"):
        OpenAIChatModel(MODEL, openai_server.url).chat(QUESTION, schema=SCHEMA, max_tokens=3)


# -- streaming --------------------------------------------------------------------------------------


def test_streaming_delivers_tokens_in_order_with_usage(openai_server: LoopbackOpenAI) -> None:
    openai_server.queue_replies("Revenue peaked in 2023 [1].")
    tokens: list[str] = []
    reply = OpenAIChatModel(MODEL, openai_server.url).chat(QUESTION, on_token=tokens.append)
    assert tokens == ["Revenue", " peaked", " in", " 2023", " [1]."]
    assert reply.text == "Revenue peaked in 2023 [1]."
    assert (reply.usage.prompt_tokens, reply.usage.completion_tokens) == (11, 5)
    body = openai_server.chat_requests[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


def test_a_stream_without_usage_is_counted_by_its_chunks(openai_server: LoopbackOpenAI) -> None:
    openai_server.stream_usage = False
    openai_server.queue_replies("one two three")
    reply = OpenAIChatModel(MODEL, openai_server.url).chat(QUESTION, on_token=lambda _: None)
    assert (reply.usage.calls, reply.usage.completion_tokens) == (1, 3)


def test_a_server_that_refuses_stream_options_is_asked_without_them(openai_server: LoopbackOpenAI) -> None:
    openai_server.reject_stream_options = True
    openai_server.queue_replies("one two three", "four five")
    model = OpenAIChatModel(MODEL, openai_server.url)
    tokens: list[str] = []
    assert model.chat(QUESTION, on_token=tokens.append).usage.completion_tokens == 3
    assert model.chat(QUESTION, on_token=tokens.append).text == "four five"
    assert tokens == ["one", " two", " three", "four", " five"]
    assert ["stream_options" in r for r in openai_server.chat_requests] == [True, False, False]


def test_a_stream_cut_mid_answer_is_a_clear_error(openai_server: LoopbackOpenAI) -> None:
    openai_server.queue_replies("Revenue peaked in 2023 after a long climb.")
    openai_server.drop_after_chunks = 2
    tokens: list[str] = []
    with pytest.raises(ModelUnavailable) as caught:
        OpenAIChatModel(MODEL, openai_server.url).chat(QUESTION, on_token=tokens.append)
    assert tokens == ["Revenue", " peaked"]
    assert "broke while qwen2.5-coder-32b-instruct was replying" in str(caught.value)
    assert "partial answer was discarded" in str(caught.value)


def test_an_error_event_in_a_stream_is_reported(openai_server: LoopbackOpenAI) -> None:
    openai_server.queue_replies("Revenue peaked in 2023.")
    openai_server.error_after_chunks = 1
    with pytest.raises(ModelUnavailable, match="failed while qwen2.5-coder-32b-instruct was replying: CUDA out of"):
        OpenAIChatModel(MODEL, openai_server.url).chat(QUESTION, on_token=lambda _: None)


def test_a_reply_cut_before_any_byte_is_a_clear_error(openai_server: LoopbackOpenAI) -> None:
    openai_server.queue_replies("never sent")
    openai_server.drop_after_chunks = 0
    with pytest.raises(ModelUnavailable, match="broke while"):
        OpenAIChatModel(MODEL, openai_server.url).chat(QUESTION)


# -- failures ---------------------------------------------------------------------------------------


def test_an_unreachable_server_is_named() -> None:
    url = closed_port_url()
    with pytest.raises(ModelUnavailable) as caught:
        OpenAIChatModel(MODEL, url).chat(QUESTION)
    message = str(caught.value)
    assert message.startswith(f"No model server answers at {url}: connection refused.")
    assert "switch to the embedded model" in message
    with pytest.raises(ModelUnavailable, match="No model server answers"):
        list_models(url)


def test_a_stalled_server_times_out(openai_server: LoopbackOpenAI) -> None:
    openai_server.delay_seconds = 5
    openai_server.queue_replies("late")
    with pytest.raises(ModelUnavailable, match="did not answer within 0.3 s"):
        OpenAIChatModel(MODEL, openai_server.url, timeout=0.3).chat(QUESTION)


def test_a_busy_server_that_does_not_list_its_models_is_told_apart(openai_server: LoopbackOpenAI) -> None:
    openai_server.list_delay_seconds = 3
    with pytest.raises(ModelUnavailable, match="did not list its models within 0.3 s; it may be busy"):
        list_models(openai_server.url, timeout=0.3)


def test_a_missing_model_lists_the_served_ones(openai_server: LoopbackOpenAI) -> None:
    with pytest.raises(ModelUnavailable) as caught:
        OpenAIChatModel("mistral-7b", openai_server.url).chat(QUESTION, schema=SCHEMA)
    assert "mistral-7b is not served" in str(caught.value)
    assert "qwen2.5-coder-32b-instruct, llama-3.1-8b-instruct" in str(caught.value)
    # The 404 is about the model, not the schema: no structured mode was given up for it.
    assert [r.get("response_format", {}).get("type") for r in openai_server.chat_requests] == ["json_schema"]


def test_a_prompt_larger_than_the_context_says_so_and_updates_the_declared_context() -> None:
    with serve_openai(context_tokens=40) as server:
        model = OpenAIChatModel(MODEL, server.url)
        with pytest.raises(ContextTooSmall) as caught:
            model.chat(QUESTION, schema=SCHEMA, max_tokens=64)
        assert caught.value.context_tokens == 40 and caught.value.user_fixable
        assert "do not fit the context of qwen2.5-coder-32b-instruct" in str(caught.value)
        assert "(it holds 40 tokens)" in str(caught.value) and "--max-model-len" in str(caught.value)
        assert model.capabilities.context_tokens == 40
        assert len(server.chat_requests) == 1  # not mistaken for a refused response_format


def test_a_server_error_is_reported_with_its_message(openai_server: LoopbackOpenAI) -> None:
    with pytest.raises(ModelUnavailable, match=r"failed \(500\): the loopback server has no scripted reply"):
        OpenAIChatModel(MODEL, openai_server.url).chat(QUESTION)


# -- the API key ------------------------------------------------------------------------------------


def test_the_key_goes_as_a_bearer_header_only_when_set() -> None:
    with serve_openai(api_key=KEY) as server:
        server.queue_replies("ok")
        assert OpenAIChatModel(MODEL, server.url, api_key=KEY).chat(QUESTION).text == "ok"
        assert server.requests[0].headers["Authorization"] == f"Bearer {KEY}"
    with serve_openai() as server:
        server.queue_replies("ok")
        OpenAIChatModel(MODEL, server.url).chat(QUESTION)
        assert "Authorization" not in server.requests[0].headers


def test_a_refused_key_is_never_shown_logged_or_repeated(caplog: pytest.LogCaptureFixture) -> None:
    wrong = "sk-wrong-key-7d2e91"
    caplog.set_level(logging.DEBUG)
    with serve_openai(api_key=KEY) as server:
        model = OpenAIChatModel(MODEL, server.url, api_key=wrong)
        messages: list[str] = []
        for call in (lambda: model.chat(QUESTION), lambda: model.chat(QUESTION, on_token=lambda _: None),
                     lambda: model.check()):
            with pytest.raises(ModelUnavailable) as caught:
                call()
            messages.append(str(caught.value))
            assert "refused the API key (401 Unauthorized)" in messages[-1]
            assert "FOLIO_OPENAI_API_KEY" in messages[-1]
        with pytest.raises(ModelUnavailable, match="asks for an API key") as caught:
            OpenAIChatModel(MODEL, server.url).chat(QUESTION)
        messages.append(str(caught.value))
    seen = "\n".join([*messages, caplog.text, repr(model), str(vars(model))])
    assert wrong not in seen and KEY not in seen
    assert "sk-" not in "\n".join(messages)


def test_a_key_echoed_in_any_server_error_is_blotted_out() -> None:
    with serve_openai(models=("other",)) as server:
        model = OpenAIChatModel(MODEL, server.url, api_key=KEY)
        assert model.redact(f"bad key {KEY} in header Bearer {KEY}") == "bad key *** in header Bearer ***"
        with pytest.raises(ModelUnavailable) as caught:
            model.chat(QUESTION)
        assert KEY not in str(caught.value)


# -- privacy ----------------------------------------------------------------------------------------


def test_proxy_variables_do_not_divert_requests(openai_server: LoopbackOpenAI, monkeypatch: pytest.MonkeyPatch
                                                ) -> None:
    proxy = closed_port_url().removesuffix("/v1")
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
        monkeypatch.setenv(name, proxy)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    openai_server.queue_replies("direct")
    assert OpenAIChatModel(MODEL, openai_server.url).chat(QUESTION).text == "direct"


# -- a real server ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_against_llama_cpp_server_on_the_small_model() -> None:
    """llama-cpp-python's own OpenAI-compatible server on the 0.5B model: the real wire format, end to end."""
    pytest.importorskip("fastapi", reason="llama_cpp.server needs `pip install 'llama-cpp-python[server]'`")
    pytest.importorskip("uvicorn", reason="llama_cpp.server needs `pip install 'llama-cpp-python[server]'`")
    from models.weights import SMALL, find_weights
    from tests.support.llama_server import serve_llama_cpp

    try:
        weights = find_weights(SMALL)
    except ModelUnavailable as error:
        pytest.skip(f"the 0.5B weights are not installed ({SMALL.install_command}): {error}")
    schema = {"type": "object", "properties": {
        "year": {"type": "integer"}, "unit": {"type": "string", "enum": ["dollars", "euros"]}},
        "required": ["year", "unit"]}
    with serve_llama_cpp(weights, alias="qwen2.5-coder-0.5b", n_ctx=1024) as url:
        assert list_models(url) == ["qwen2.5-coder-0.5b"]
        model = OpenAIChatModel("qwen2.5-coder-0.5b", url, timeout=120)
        model.check()
        assert model.capabilities.host_label == f"this computer (port {url.split(':')[2].split('/')[0]})"

        # Structured: this server refuses json_schema (a 500 naming response_format) and takes json_object.
        reply = model.chat([ChatMessage("user", "Revenue was highest in 2023, reported in dollars. "
                                                "Give the year and the unit.")], schema=schema, max_tokens=40)
        assert model.structured_output == "json_object"
        assert json.loads(reply.text) == {"year": 2023, "unit": "dollars"}
        assert reply.usage.prompt_tokens > 10 and reply.usage.completion_tokens > 5

        # Streamed: tokens arrive one by one over SSE and add up to the answer.
        tokens: list[str] = []
        streamed = model.chat([ChatMessage("user", "Name the three primary colours, comma separated.")],
                              max_tokens=20, on_token=tokens.append)
        assert len(tokens) >= 3 and "".join(tokens) == streamed.text
        assert "red" in streamed.text.lower() and "blue" in streamed.text.lower()
        assert streamed.usage.completion_tokens == len(tokens)  # this server sends no usage in streams

        # A prompt larger than the context: the server's own error, in Folio's words.
        with pytest.raises(ContextTooSmall) as caught:
            model.chat([ChatMessage("user", "budget " * 1500)], max_tokens=8)
        assert caught.value.context_tokens == 1024 and model.capabilities.context_tokens == 1024


def test_prompt_tokens_a_server_served_from_its_cache_are_counted() -> None:
    from models.llm_openai import _usage

    reported = {"prompt_tokens": 1200, "completion_tokens": 9, "prompt_tokens_details": {"cached_tokens": 1150}}
    usage = _usage(reported)
    assert (usage.prompt_tokens, usage.completion_tokens, usage.reused_tokens) == (1200, 9, 1150)
    assert _usage({"prompt_tokens": 30, "completion_tokens": 2}).reused_tokens == 0  # a server that does not say
    assert _usage({"prompt_tokens": 30, "prompt_tokens_details": None}).reused_tokens == 0
