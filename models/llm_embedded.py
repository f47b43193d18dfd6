"""The embedded chat backend: a GGUF model run in-process by llama-cpp-python (llama.cpp).

Owns loading the weights (lazily, once, under a lock), rendering the model's own chat template,
JSON-schema-constrained output through llama.cpp grammars, token streaming, usage counts, and the
KV cache between calls: llama-cpp-python keeps the tokens of the previous call and evaluates only
what follows their longest common prefix, so calls that share a long prefix (instructions, then the
question's context) pay for it once, across the calls of a question and across questions, for as long
as the model stays loaded (the window's life, or the warm process's behind ``folio ask``). Each call
counts the prompt tokens it did not evaluate again (``Usage.reused_tokens``) from what llama.cpp was
actually given to evaluate. llama-cpp-python's ``LlamaRAMCache`` is not used: each saved state copies
the logits buffer too (n_batch x vocabulary floats, ~300 MB for Qwen2.5), which its capacity does not count.
One ``Llama`` object is not thread-safe, so every use of it holds the lock.
"""

from __future__ import annotations

import functools
import json
import os
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from models.errors import ModelError, ModelOutputError, ModelUnavailable
from models.protocols import ChatCapabilities, TokenCallback
from models.types import ChatMessage, ChatReply, Usage
from models.weights import DEFAULT, SMALL, find_weights

if TYPE_CHECKING:
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter
    from llama_cpp.llama_grammar import LlamaGrammar

# Generation is bound by memory bandwidth: past a few threads more of them only compete.
_MAX_GENERATION_THREADS = 8


def _available_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def busy_elsewhere(interval: float = 0.05) -> float:
    """How many cores other processes keep busy now: the whole system's CPU time over ``interval`` less this
    process's own (Linux ``/proc/stat``; 0.0 where it cannot be read)."""
    def system_busy() -> int:
        with open("/proc/stat", encoding="ascii") as stat:
            ticks = [int(v) for v in stat.readline().split()[1:8]]
        return sum(ticks) - ticks[3] - ticks[4]  # all but idle and iowait

    try:
        clock = os.sysconf("SC_CLK_TCK")
        system, own, began = system_busy(), os.times(), time.monotonic()
        time.sleep(interval)
        system_after, own_after, spent = system_busy(), os.times(), time.monotonic() - began
    except (OSError, ValueError, IndexError, AttributeError):
        return 0.0
    mine = (own_after.user + own_after.system - own.user - own.system) / spent
    return max(0.0, (system_after - system) / clock / spent - mine)


def threads_free(cpus: int) -> int:
    """Threads for the next call: the cores not kept busy by other processes (at least one). llama.cpp's
    threads wait for each other at every step, so one that shares a busy core slows all of them several-fold."""
    return max(1, min(cpus, _MAX_GENERATION_THREADS, cpus - round(busy_elsewhere())))


def _model_key(path: Path | None) -> str:
    if path is None:
        return DEFAULT.key
    for spec in (DEFAULT, SMALL):
        if path.name == spec.file_name:
            return spec.key
    return path.stem


def empty_choice(schema: Any, path: str = "$") -> str | None:
    """Where a schema offers an empty choice (``"enum": []``), or None. llama.cpp turns such a schema into a
    grammar it cannot parse and aborts the whole process, so it is refused before it gets there."""
    if isinstance(schema, dict):
        if "enum" in schema and not schema["enum"]:
            return path
        for key, value in schema.items():
            if (found := empty_choice(value, f"{path}.{key}")) is not None:
                return found
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            if (found := empty_choice(value, f"{path}[{index}]")) is not None:
                return found
    return None


def grammar_safe(schema: Any) -> tuple[Any, dict[str, str]]:
    """The schema with each enum string llama.cpp's grammar cannot hold (one with a double quote or a backslash:
    its grammar parser fails on them and aborts the whole process) written with a typographic quote and a slash,
    and each written string -> the real one, to put back in the reply."""
    back: dict[str, str] = {}

    def safe(value: Any) -> Any:
        if isinstance(value, str) and ('"' in value or "\\" in value):
            written = value.replace('"', "\u201d").replace("\\", "/")
            back[written] = value
            return written
        return value

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: [safe(v) for v in value] if k == "enum" and isinstance(value, list) else walk(value)
                    for k, value in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node
    return walk(schema), back


def _written_back(text: str, back: dict[str, str]) -> str:
    """A reply's JSON with the strings ``grammar_safe`` rewrote put back as they really are."""
    try:
        data = json.loads(text)
    except ValueError:
        return text  # not JSON: the caller's check says so

    def restore(node: Any) -> Any:
        if isinstance(node, str):
            return back.get(node, node)
        if isinstance(node, dict):
            return {k: restore(v) for k, v in node.items()}
        if isinstance(node, list):
            return [restore(v) for v in node]
        return node
    return json.dumps(restore(data))


@functools.lru_cache(maxsize=64)
def _grammar_for(schema_json: str) -> LlamaGrammar:
    from llama_cpp.llama_grammar import LlamaGrammar

    if (where := empty_choice(json.loads(schema_json))) is not None:
        raise ModelOutputError(f"The JSON schema offers no choice at {where}; the model cannot be asked to choose.")
    # Built here rather than through response_format, which silently falls back to "any JSON"
    # when a schema cannot be converted: an unconstrained reply must be an error, not a surprise.
    try:
        return LlamaGrammar.from_json_schema(schema_json, verbose=False)
    except Exception as error:
        raise ModelError(f"The JSON schema cannot be turned into a llama.cpp grammar: {error}") from error


@contextmanager
def _without_extra_buffer_types() -> Iterator[None]:
    """Load with llama.cpp's extra CPU buffer types (AMX, repacked weights) turned off.

    llama.cpp built with AMX crashes in batched decoding on CPUs that advertise AMX without the
    kernel enabling it (seen in a Firecracker VM: segfault in llama_decode for any prompt of more than
    one token). ``Llama()`` exposes no switch for ``use_extra_bufts``, so its default is swapped for
    the duration of the load, under the model lock.
    """
    import llama_cpp.llama_cpp as bindings

    original = bindings.llama_model_default_params

    def defaults_without_extra_buffers() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    bindings.llama_model_default_params = defaults_without_extra_buffers
    try:
        yield
    finally:
        bindings.llama_model_default_params = original


def _built_with_amx() -> bool:
    import llama_cpp

    return b"AMX_INT8 = 1" in llama_cpp.llama_print_system_info()


class _SampledTokens:
    """A stopping criterion that never stops; counting its calls counts the tokens llama.cpp samples.

    llama-cpp-python calls it once per sampled token and once more after the loop, and the sampled
    tokens include the end-of-turn token when the reply ended by itself. Streaming responses carry no
    usage, so this is how a streamed call is counted; a test checks it against the non-streamed usage.
    """

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, input_ids: Any, logits: Any) -> bool:
        self.count += 1
        return False


class EmbeddedChatModel:
    """A ChatModel run in-process. Loads on first use or on ``warm_up()``; greedy decoding."""

    def __init__(self, model_path: Path | None = None, n_ctx: int = 8192, n_threads: int | None = None) -> None:
        self._model_path = model_path
        self._n_ctx = n_ctx
        self._n_threads = n_threads
        self._threads_now = 0
        """The threads llama.cpp was last set to use (0: as loaded)."""
        self._lock = threading.Lock()
        self._llama: Llama | None = None
        self._formatter: Jinja2ChatFormatter | None = None
        self._evaluated: list[int] = []
        """How many tokens each ``Llama.eval`` of the current call evaluated: the first is the prompt's part
        the KV cache did not hold; the rest are sampled tokens, one at a time."""
        self.load_seconds: float | None = None
        """How long loading took, once it happened."""

    @property
    def name(self) -> str:
        return f"{_model_key(self._model_path)} (embedded)"

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    @property
    def model_path(self) -> Path:
        """The GGUF file this model loads (the installed default unless one was given); raises
        ``ModelUnavailable`` when it is not installed."""
        return self._model_path or find_weights(DEFAULT)

    @property
    def capabilities(self) -> ChatCapabilities:
        # A 0.5-1.5B model writes wrong SQL too often: it picks operations and cells instead.
        return ChatCapabilities(supports_free_sql=False, context_tokens=self._n_ctx, host_label=None)

    @property
    def loaded(self) -> bool:
        return self._llama is not None

    def warm_up(self) -> None:
        """Load the model now (it is otherwise loaded by the first call)."""
        with self._lock:
            self._load_locked()

    def count_tokens(self, text: str) -> int:
        """How many tokens ``text`` costs in a prompt, by the model's own tokenizer."""
        with self._lock:
            llama = self._load_locked()
        # Tokenizing only reads the vocabulary, so it need not wait for a generation holding the lock.
        return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def chat(
        self,
        messages: Sequence[ChatMessage],
        *,
        schema: dict[str, Any] | None = None,
        max_tokens: int = 512,
        on_token: TokenCallback | None = None,
    ) -> ChatReply:
        # Not sort_keys: the grammar writes properties in schema order, and that order guides the model.
        safe_schema, written = grammar_safe(schema) if schema is not None else (None, {})
        grammar = _grammar_for(json.dumps(safe_schema)) if safe_schema is not None else None
        with self._lock:
            llama = self._load_locked()
            assert self._formatter is not None
            started = time.perf_counter()
            if self._n_threads is None:  # none asked for: as many as the cores other processes leave free
                threads = threads_free(_available_cpus())
                if threads != self._threads_now:
                    llama._ctx.set_n_threads(threads, threads)
                    self._threads_now = threads
            chat: list[Any] = [{"role": m.role, "content": m.content} for m in messages]
            formatted = self._formatter(messages=chat)
            prompt = llama.tokenize(
                formatted.prompt.encode("utf-8"), add_bos=not formatted.added_special, special=True
            )
            if len(prompt) >= self._n_ctx:
                raise ModelError(
                    f"The prompt has {len(prompt)} tokens but the model's context holds {self._n_ctx}; "
                    "shorten the prompt or raise n_ctx."
                )
            sampled = _SampledTokens()
            from llama_cpp import StoppingCriteriaList

            request: dict[str, Any] = {
                "max_tokens": max_tokens,
                "temperature": 0.0,
                # Grammar-bound JSON and SQL repeat keys and names legitimately; do not penalise that.
                "repeat_penalty": 1.0,
                "stop": formatted.stop,
                "stopping_criteria": StoppingCriteriaList([sampled]),
                "grammar": grammar,
            }
            self._evaluated.clear()
            try:
                if on_token is None:
                    completion: Any = llama.create_completion(prompt, stream=False, **request)
                    choice = completion["choices"][0]
                    text, finish_reason = choice["text"], choice["finish_reason"]
                    completion_tokens = completion["usage"]["completion_tokens"]
                else:
                    text, finish_reason = self._stream_locked(llama, prompt, request, on_token)
                    end_of_turn = 1 if finish_reason == "stop" else 0
                    completion_tokens = max(0, sampled.count - 1 - end_of_turn)
            except (RuntimeError, ValueError) as error:
                raise ModelError(f"llama.cpp failed while answering: {error}") from error
            seconds = time.perf_counter() - started
            reused = len(prompt) - self._evaluated[0] if self._evaluated else 0
        usage = Usage(calls=1, prompt_tokens=len(prompt), completion_tokens=completion_tokens, seconds=seconds,
                      reused_tokens=max(0, reused))
        if schema is not None:
            _check_json(text, finish_reason, max_tokens, usage)
            if written:
                text = _written_back(text, written)
        return ChatReply(text=text, usage=usage)

    def _stream_locked(
        self, llama: Llama, prompt: list[int], request: dict[str, Any], on_token: TokenCallback
    ) -> tuple[str, str | None]:
        parts: list[str] = []
        finish_reason: str | None = None
        stream: Any = llama.create_completion(prompt, stream=True, **request)
        try:
            for chunk in stream:
                choice = chunk["choices"][0]
                if choice["text"]:
                    parts.append(choice["text"])
                    on_token(choice["text"])
                finish_reason = choice["finish_reason"] or finish_reason
        finally:
            # A callback that raised (a cancelled question) leaves the generator suspended: finish it
            # while the lock is still held.
            stream.close()
        return "".join(parts), finish_reason

    def _load_locked(self) -> Llama:
        if self._llama is not None:
            return self._llama
        path = self.model_path
        if not path.is_file():
            raise ModelUnavailable(f"The model file {path} does not exist.")
        try:
            import llama_cpp
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter
        except ImportError as error:
            raise ModelUnavailable(
                f"The embedded model needs llama-cpp-python, which is not installed ({error}). "
                "Run the set-up again, or switch to Ollama."
            ) from error
        cpus = _available_cpus()
        started = time.perf_counter()
        options: dict[str, Any] = {
            "n_ctx": self._n_ctx,
            "n_threads": self._n_threads or min(cpus, _MAX_GENERATION_THREADS),
            "n_threads_batch": self._n_threads or cpus,
            "verbose": False,
        }
        try:
            if _built_with_amx():
                with _without_extra_buffer_types():
                    llama = llama_cpp.Llama(str(path), **options)
            else:
                llama = llama_cpp.Llama(str(path), **options)
        except (ValueError, RuntimeError) as error:
            raise ModelUnavailable(
                f"llama.cpp could not load {path} ({error}). The file may be damaged: reinstall it with "
                "`python -m models.weights install`, or switch to Ollama."
            ) from error
        template = llama.metadata.get("tokenizer.chat_template")
        if not template:
            raise ModelUnavailable(f"{path.name} carries no chat template; it is not a chat model.")
        eos = llama.token_eos()
        bos = llama.token_bos()
        self._formatter = Jinja2ChatFormatter(
            template=template,
            eos_token=llama.detokenize([eos], special=True).decode("utf-8") if eos != -1 else "",
            bos_token=llama.detokenize([bos], special=True).decode("utf-8") if bos != -1 else "",
            stop_token_ids=[eos],
        )
        self.load_seconds = time.perf_counter() - started
        self._count_evaluations(llama)
        self._llama = llama
        self._threads_now = 0
        return llama

    def _count_evaluations(self, llama: Llama) -> None:
        """Record the size of every batch llama.cpp evaluates. ``Llama.generate`` first evaluates what
        the KV cache lacks of the prompt (nothing at all when it holds the whole prompt), then each sampled
        token: so the first record tells how many prompt tokens were reused."""
        evaluate = llama.eval
        evaluated = self._evaluated

        def counted(tokens: Sequence[int]) -> None:
            evaluated.append(len(tokens))
            evaluate(tokens)

        llama.eval = counted  # type: ignore[method-assign]


def _check_json(text: str, finish_reason: str | None, max_tokens: int, usage: Usage) -> None:
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        if finish_reason == "length":
            raise ModelOutputError(
                f"The model's JSON was cut off at max_tokens={max_tokens}; allow more tokens.", usage
            ) from error
        raise ModelOutputError(f"The model's reply is not valid JSON despite the schema: {error}", usage) from error
