"""EmbeddedChatModel with the REAL default model (Qwen2.5-Coder-1.5B, llama.cpp in-process).

The slow tests skip only when the weights are not installed (``python -m models.weights install``).
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from models.errors import ModelOutputError, ModelUnavailable
from models.llm_embedded import EmbeddedChatModel
from models.protocols import ChatModel
from models.types import ChatMessage
from models.weights import DEFAULT, find_weights


def installed_default_weights() -> Path:
    try:
        return find_weights(DEFAULT)
    except ModelUnavailable as error:
        pytest.skip(f"the default model's weights are not installed: {error}")


@pytest.fixture(scope="module")
def model() -> EmbeddedChatModel:
    installed_default_weights()
    chat_model = EmbeddedChatModel()
    chat_model.warm_up()
    return chat_model


VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["higher", "lower", "same"]},
        "difference": {"type": "integer"},
    },
    "required": ["verdict", "difference"],
}


@pytest.mark.unit
def test_missing_weights_raise_model_unavailable_on_first_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FOLIO_MODELS_DIR", str(tmp_path))
    model = EmbeddedChatModel()  # no heavy work, so no error yet
    assert isinstance(model, ChatModel) and not model.loaded
    assert model.name == "qwen2.5-coder-1.5b (embedded)"
    with pytest.raises(ModelUnavailable, match=r"not installed.*python -m models\.weights install"):
        model.chat([ChatMessage("user", "hi")])
    with pytest.raises(ModelUnavailable, match="does not exist"):
        EmbeddedChatModel(model_path=tmp_path / "absent.gguf").warm_up()


@pytest.mark.slow
def test_schema_constrains_the_reply_including_enums(model: EmbeddedChatModel) -> None:
    # The question invites an answer outside the enum; the grammar must not allow it.
    messages = [
        ChatMessage("system", "Reply in JSON."),
        ChatMessage("user", "Revenue was 120 in 2019 and 95 in 2020. Compare 2020 with 2019. "
                            "Set verdict to 'decreased' and difference to the change."),
    ]
    reply = model.chat(messages, schema=VERDICT_SCHEMA, max_tokens=48)

    parsed = json.loads(reply.text)
    assert set(parsed) == {"verdict", "difference"}
    assert parsed["verdict"] in {"higher", "lower", "same"}
    assert isinstance(parsed["difference"], int)
    assert reply.text.lstrip("{ \n").startswith('"verdict"')  # properties come in schema order


@pytest.mark.slow
def test_a_reply_cut_by_max_tokens_is_an_output_error(model: EmbeddedChatModel) -> None:
    schema = {"type": "object", "properties": {"summary": {"type": "string"}}, "required": ["summary"]}
    with pytest.raises(ModelOutputError, match="cut off at max_tokens=4"):
        model.chat([ChatMessage("user", "Summarise the history of Rome in detail.")], schema=schema, max_tokens=4)


@pytest.mark.slow
def test_streaming_calls_on_token_and_counts_like_a_plain_call(model: EmbeddedChatModel) -> None:
    messages = [ChatMessage("user", "List the first five prime numbers, separated by commas, nothing else.")]
    plain = model.chat(messages, max_tokens=32)
    tokens: list[str] = []
    streamed = model.chat(messages, max_tokens=32, on_token=tokens.append)

    assert len(tokens) > 3
    assert "".join(tokens) == streamed.text
    assert "2, 3, 5, 7" in streamed.text.replace(",  ", ", ")
    assert streamed.text == plain.text
    assert streamed.usage.prompt_tokens == plain.usage.prompt_tokens
    assert streamed.usage.completion_tokens == plain.usage.completion_tokens


@pytest.mark.slow
def test_usage_is_counted_by_llama_cpp(model: EmbeddedChatModel) -> None:
    question = "How many days are in a leap year? Answer with the number only."
    reply = model.chat([ChatMessage("user", question)], max_tokens=16)
    assert "366" in reply.text
    usage = reply.usage
    assert usage.calls == 1
    # The prompt is the question plus the chat template around it (and Qwen's default system prompt).
    assert model.count_tokens(question) + 10 < usage.prompt_tokens < model.count_tokens(question) + 60
    assert 1 <= usage.completion_tokens <= 16
    assert usage.seconds > 0
    with pytest.raises(ModelOutputError):
        model.chat([ChatMessage("user", question)], schema={"type": "string"}, max_tokens=1)


@pytest.mark.slow
def test_the_kv_cache_serves_a_shared_prefix_and_the_reused_tokens_are_counted(model: EmbeddedChatModel) -> None:
    instructions = ChatMessage("system", "You read tables from council budget reports and answer with one word. " * 8)
    context = ChatMessage("user", "Table 1: Parks 1,200 in 2023 and 1,350 in 2024; Roads 2,400 and 2,650. "
                                  "Which department spent more in 2024?")
    model.chat([ChatMessage("system", "Unrelated instructions about poetry."), ChatMessage("user", "Hi.")], max_tokens=2)

    first = model.chat([instructions, context], max_tokens=4)
    assert first.usage.reused_tokens < 10  # only the chat template's opening was in the cache

    # The same prompt again (the next call of the same question): all but the last token come from the cache.
    again = model.chat([instructions, context], max_tokens=4)
    assert again.usage.prompt_tokens == first.usage.prompt_tokens
    assert again.usage.reused_tokens == again.usage.prompt_tokens - 1
    assert again.text == first.text

    # The same instructions and context with another task at the end: the shared prefix is reused, the task is not.
    task = ChatMessage("user", "Now name the department that spent less in 2023, in one word.")
    follow = model.chat([instructions, context, task], max_tokens=4)
    shared = model.count_tokens(instructions.content) + model.count_tokens(context.content)
    assert shared < follow.usage.reused_tokens < follow.usage.prompt_tokens - model.count_tokens(task.content) + 5
    assert (follow.usage + again.usage).reused_tokens == follow.usage.reused_tokens + again.usage.reused_tokens


@pytest.mark.slow
def test_the_model_is_loaded_once_across_calls_and_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    installed_default_weights()
    import llama_cpp

    loads: list[int] = []

    class CountingLlama(llama_cpp.Llama):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            loads.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(llama_cpp, "Llama", CountingLlama)
    model = EmbeddedChatModel(n_ctx=1024)
    assert loads == []  # nothing heavy in __init__

    counts: list[int] = []
    threads = [threading.Thread(target=lambda: counts.append(model.count_tokens("total revenue 2019")))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    model.warm_up()
    first = model.chat([ChatMessage("user", "Say OK.")], max_tokens=4)
    second = model.chat([ChatMessage("user", "Say OK.")], max_tokens=4)

    assert loads == [1]
    assert len(set(counts)) == 1 and counts[0] > 0
    assert first.text and second.text
    assert model.load_seconds is not None and model.load_seconds > 0


def test_a_schema_offering_an_empty_choice_is_refused_before_llama_cpp_sees_it() -> None:
    # llama.cpp cannot parse the grammar of an empty enum and aborts the whole process: refused here instead
    from models.llm_embedded import _grammar_for, empty_choice

    schema = {"type": "object", "properties": {"filters": {"type": "array", "items": {
        "type": "object", "properties": {"column": {"type": "string", "enum": []}}}}}}
    assert empty_choice(schema) == "$.properties.filters.items.properties.column"
    assert empty_choice({"type": "string", "enum": ["a", ""]}) is None
    with pytest.raises(ModelOutputError, match="no choice at"):
        _grammar_for(json.dumps(schema))


def test_threads_are_the_cores_other_processes_leave_free(monkeypatch: pytest.MonkeyPatch) -> None:
    import models.llm_embedded as embedded

    monkeypatch.setattr(embedded, "busy_elsewhere", lambda interval=0.05: 0.9)
    assert embedded.threads_free(2) == 1  # one core kept busy by another process: one thread, not two
    monkeypatch.setattr(embedded, "busy_elsewhere", lambda interval=0.05: 0.2)
    assert embedded.threads_free(2) == 2
    monkeypatch.setattr(embedded, "busy_elsewhere", lambda interval=0.05: 7.0)
    assert embedded.threads_free(4) == 1  # never none


def test_a_core_kept_busy_by_another_process_is_measured() -> None:
    import subprocess
    import sys

    import models.llm_embedded as embedded

    if not Path("/proc/stat").exists():
        pytest.skip("/proc/stat is Linux's")
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.3)  # under way
        assert embedded.busy_elsewhere(0.3) >= 0.5
    finally:
        spinner.kill()
        spinner.wait()


@pytest.mark.slow
def test_an_enum_value_holding_quotes_is_offered_and_given_back_as_it_is(model: EmbeddedChatModel) -> None:
    # llama.cpp's grammar parser cannot hold a double quote inside an enum literal and aborted the process; the
    # value is offered in another spelling and the reply carries the real one
    labels = ['Accrued fees of the "Advisor" (note 4)', "Other payables", "Paths like C:\\data"]
    schema = {"type": "object", "properties": {"row": {"type": "string", "enum": labels}}, "required": ["row"]}
    reply = model.chat([ChatMessage("user", 'Which row names the "Advisor"? Reply with JSON.')], schema=schema,
                       max_tokens=40)
    assert json.loads(reply.text)["row"] in labels
