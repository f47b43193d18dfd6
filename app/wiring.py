"""Construction of the engine's objects: the one place libraries, embedders, ingestors, SQL runners
and chat models are built and connected. Everything else receives them ready-made.

The heavy parts (the extraction stack behind ``core.ingest.ingestor``: pymupdf, camelot, opencv, onnxruntime; the
ONNX embedder; retrieval) are imported when first built, not when this module is, so the window starts
without them (``tests/app/test_startup_imports.py``)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from app.paths import library_file
from core.library.store import Library
from models.protocols import ChatModel, Embedder

if TYPE_CHECKING:
    from core.answering import Answerer
    from core.ingest.ingestor import Ingestor
    from core.search.retrieval import Retriever
    from core.search.vector_index import VectorIndex
    from core.sql.runner import SqlRunner

_embedder: Embedder | None = None
_embedder_lock = threading.Lock()
_vector_indexes: dict[Path, VectorIndex] = {}
_vector_indexes_lock = threading.Lock()


def shared_embedder() -> Embedder:
    """One embedder for the process: the ONNX session is thread-safe and costly to load twice."""
    global _embedder
    with _embedder_lock:
        if _embedder is None:
            from models.embedding import MiniLMEmbedder

            _embedder = MiniLMEmbedder()
        return _embedder


def open_library(directory: Path) -> Library:
    return Library(library_file(directory))


def make_ingestor(library: Library, embedder: Embedder | None = None) -> Ingestor:
    from core.ingest.ingestor import Ingestor

    return Ingestor(library, embedder or shared_embedder())


def vector_index(library_path: Path) -> VectorIndex:
    """One in-memory vector index per library file for the process, so its vectors load once and
    every retriever on that library (one per question) shares them. A large library's index is kept in
    cache files beside it (``library.sqlite3-vectors.npy`` and ``-vectors-index.npz``), so the next
    process opens it in one read instead of reading every vector out of sqlite-vec."""
    from core.search.vector_index import VectorIndex

    key = Path(library_path).resolve()
    with _vector_indexes_lock:
        index = _vector_indexes.get(key)
        if index is None:
            index = _vector_indexes[key] = VectorIndex(key.with_name(key.name + "-vectors"))
        return index


def make_retriever(library: Library, embedder: Embedder | None = None) -> Retriever:
    """Hybrid search over ``library``. Close it when done."""
    from core.search.retrieval import Retriever

    return Retriever(library.conn, embedder or shared_embedder(), vector_index=vector_index(library.path))


def make_sql_runner(directory: Path, *, max_rows: int = 200, timeout_seconds: float = 10.0) -> SqlRunner:
    from core.sql.runner import SqlRunner

    return SqlRunner(library_file(directory), max_rows=max_rows, timeout_seconds=timeout_seconds)


@contextmanager
def answerer(directory: Path, library: Library, chat: ChatModel, *, mode: str = "tablerag", sql_style: str = "auto",
             embedder: Embedder | None = None) -> Iterator[Answerer]:
    """The question answerer over an open library, with its own retriever and read-only SQL runner, both
    closed when the block ends. The window and ``folio ask`` both build it here."""
    from core.answering import Answerer

    runner = make_sql_runner(directory)
    retriever = make_retriever(library, embedder)
    try:
        yield Answerer(library, retriever, runner, chat, mode=mode, sql_style=sql_style)
    finally:
        retriever.close()
        runner.close()
