"""Prompt templates and the context block every step of the loop shares.

Templates live in ``resources/prompts/*.txt`` (loaded with ``importlib.resources``; ``$name`` fields).
Every call of one question starts with the same system message and the same context block (tables,
text, question, steps so far) and only its last lines differ, so llama.cpp reuses the evaluated
prefix; new passages are appended to the context, never inserted, for the same reason. Prompt
sizes are counted with the model's tokenizer when it has one and kept under a budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from string import Template

from core.answering.citations import snippet
from core.answering.operations import TableView
from models.protocols import ChatModel
from models.types import ChatMessage, Chunk, Step

CONTEXT_TOKEN_BUDGET = 900
TEXT_CHUNK_CHARS = 450


@cache
def template(name: str) -> Template:
    text = resources.files("resources").joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")
    return Template(text.strip())


def render(name: str, **values: object) -> str:
    return template(name).substitute({k: str(v) for k, v in values.items()})


def token_counter(chat: ChatModel) -> Callable[[str], int]:
    """The model's own tokenizer when it exposes ``count_tokens``, else about four characters a token."""
    count = getattr(chat, "count_tokens", None)
    if callable(count):
        return lambda text: int(count(text))
    return lambda text: max(1, len(text) // 4)


def table_block(view: TableView, *, with_types: bool = False, question: str = "") -> str:
    info = view.info
    unit = f"; unit: {info.unit or view.page_scale}" if info.unit or view.page_scale else ""
    title = info.caption or info.heading
    head = f"Table {info.name} ({info.document}, page {info.page}{unit})" + (f": {title}" if title else "")
    lines = [head]
    units = [f"{c.name} in {c.unit}" for c in view.data_columns if c.unit and c.unit != info.unit]
    if units:
        lines.append("Column units: " + ", ".join(units))
    if with_types:
        lines.append("Columns: " + ", ".join(
            f"{c.name} {c.type}" + (f" (header: {c.header})" if c.header and c.header != c.name else "")
            for c in info.schema.columns))
    lines.append(view.markdown(question=question))
    return "\n".join(lines)


def text_block(index: int, chunk: Chunk) -> str:
    return f"[{index}] {chunk.document} p.{chunk.page}: {snippet(chunk.text, TEXT_CHUNK_CHARS)}"


@dataclass
class Context:
    """What the model sees of the library for one question: linked tables and retrieved passages."""

    question: str
    tables: list[TableView] = field(default_factory=list)
    texts: list[Chunk] = field(default_factory=list)
    with_types: bool = False

    def block(self, steps: Sequence[Step] = ()) -> str:
        parts = []
        if self.tables:
            parts.append("TABLES\n" + "\n\n".join(table_block(t, with_types=self.with_types, question=self.question)
                                                   for t in self.tables))
        if self.texts:
            parts.append("TEXT\n" + "\n".join(text_block(i + 1, c) for i, c in enumerate(self.texts)))
        if not parts:
            parts.append("(Nothing relevant was found in the library.)")
        parts.append(f"QUESTION: {self.question}")
        if steps:
            parts.append("STEPS DONE\n" + "\n".join(
                f"{i + 1}. {s.subquery} -> {s.intermediate_answer or 'no answer'}" for i, s in enumerate(steps)))
        return "\n\n".join(parts)


def messages(context: Context, steps: Sequence[Step], task: str) -> list[ChatMessage]:
    """The shared prefix (system, context, steps) followed by this call's task."""
    return [
        ChatMessage("system", render("system")),
        ChatMessage("user", context.block(steps) + "\n\n" + task),
    ]


def naive_messages(question: str, chunks: Sequence[Chunk]) -> list[ChatMessage]:
    passages = "\n\n".join(f"[{i + 1}] {c.document} p.{c.page}:\n{c.text}" for i, c in enumerate(chunks))
    return [
        ChatMessage("system", render("naive")),
        ChatMessage("user", f"{passages or '(no passages found)'}\n\nQuestion: {question}\nAnswer:"),
    ]
