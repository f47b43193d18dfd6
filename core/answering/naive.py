"""NaiveRAG, the baseline as the papers define it: tables flattened to Markdown chunks (the stored
table chunks are exactly that), top-k hybrid retrieval, ONE LLM call whose answer streams."""

from __future__ import annotations

import time
from collections.abc import Callable

from core.answering.citations import chunk_citation, dedupe
from core.answering.prompts import naive_messages
from core.jobs import JobContext
from core.search.retrieval import Retriever
from models.protocols import ChatModel
from models.types import Answer, ProgressEvent, Step, Usage

NAIVE_TOP_K = 5
NAIVE_MAX_TOKENS = 96


def naive_answer(question: str, retriever: Retriever, chat: ChatModel, *, ctx: JobContext | None = None,
                 on_token: Callable[[str], None] | None = None, on_step: Callable[[Step], None] | None = None,
                 top_k: int = NAIVE_TOP_K, table_names: Callable[[int], str | None] | None = None) -> Answer:
    """Answer in one call from the top-k chunks; every chunk shown is cited (tables by name)."""
    started = time.perf_counter()
    ctx = ctx or JobContext()
    ctx.check()
    ctx.report(ProgressEvent("retrieving", "Searching the library"))
    chunks = retriever.search(question, k=top_k, recall=30)
    ctx.check()
    ctx.report(ProgressEvent("answering", "Asking the model"))
    reply = chat.chat(naive_messages(question, chunks), max_tokens=NAIVE_MAX_TOKENS, on_token=on_token)
    text = reply.text.strip()
    step = Step(subquery=question, chunk_ids=tuple(c.id for c in chunks), intermediate_answer=text)
    if on_step is not None:
        on_step(step)
    usage = Usage(reply.usage.calls or 1, reply.usage.prompt_tokens, reply.usage.completion_tokens,
                  time.perf_counter() - started, reused_tokens=reply.usage.reused_tokens)
    citations = dedupe(
        chunk_citation(c, table=table_names(c.table_id) if table_names and c.table_id is not None else None)
        for c in chunks
    )
    return Answer(question, text, citations, (step,), usage, mode="naive", model=chat.name, status="text",
                  value=text)
