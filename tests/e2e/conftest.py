"""Shared fixtures of the end-to-end tests: the real embedded model, loaded once per test module, and a
question asked of a library through a real answerer (ONNX embedder, read-only SQL runner)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from core.answering import Answerer
from core.library.store import Library
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from models.embedding import MiniLMEmbedder
from models.errors import ModelUnavailable
from models.types import Answer
from models.weights import find_weights


@pytest.fixture(scope="module")
def chat() -> Iterator[object]:
    """The embedded 1.5B model (skips the module's tests when its weights are not installed)."""
    try:
        find_weights()
    except ModelUnavailable as exc:
        pytest.skip(f"embedded model weights are not installed: {exc}")
    from models.llm_embedded import EmbeddedChatModel

    yield EmbeddedChatModel()


def ask(library: Library, chat: object, question: str) -> Answer:
    """``question`` answered over ``library`` by the real answerer and ``chat``."""
    runner = SqlRunner(library.path)
    try:
        answerer = Answerer(library, Retriever(library.conn, MiniLMEmbedder()), runner, chat)  # type: ignore[arg-type]
        return answerer.answer(question)
    finally:
        runner.close()
