"""A library made by the embedder of an older Folio (the float MiniLM graph) is never searched with today's int8
embedder's vectors: search refuses it, re-embedding makes its vectors again (with progress, cancellable, going on
where it stopped), and ingestion and answering re-embed it first. Real PDFs, real SQLite + sqlite-vec, both real
ONNX embedders."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from core.errors import Cancelled
from core.ingest.ingestor import Ingestor
from core.jobs import JobContext
from core.library import reembedding
from core.library.reembedding import OutdatedEmbeddings, outdated_embeddings, reembed
from core.library.store import Library, embedding_text
from core.search.retrieval import Retriever
from models.embedding import MiniLMEmbedder
from models.types import ProgressEvent
from tests.support.embedders import FloatMiniLMEmbedder

pytestmark = pytest.mark.unit

OLD_FILES = ("population_growth.pdf", "district_health.pdf")


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture(scope="module")
def old_library_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A library ingested for real by the embedder Folio used before the int8 one, under that embedder's name."""
    from tests.conftest import SAMPLES

    if not SAMPLES.is_dir():
        pytest.skip(f"sample PDFs not found at {SAMPLES}")
    path = tmp_path_factory.mktemp("old") / "library.sqlite3"
    with Library(path) as library:
        results = Ingestor(library, FloatMiniLMEmbedder()).ingest_paths([SAMPLES / name for name in OLD_FILES])
        assert [r.status for r in results] == ["added", "added"]
    return path


@pytest.fixture
def old_library(old_library_file: Path, tmp_path: Path) -> Library:
    copy = tmp_path / "library.sqlite3"
    shutil.copy(old_library_file, copy)
    with Library(copy) as library:
        yield library


def _models(library: Library) -> set[str]:
    return {r[0] for r in library.conn.execute("SELECT DISTINCT model FROM embeddings")}


def test_search_refuses_an_old_library_then_reembedding_makes_every_vector_again(
        old_library: Library, embedder: MiniLMEmbedder) -> None:
    count = old_library.counts()["embeddings"]
    assert count >= 8 and _models(old_library) == {FloatMiniLMEmbedder.name}
    retriever = Retriever(old_library.conn, embedder)
    with pytest.raises(OutdatedEmbeddings, match="another embedder"):
        retriever.search("population growth rate")
    with pytest.raises(OutdatedEmbeddings):
        retriever.vector("population growth rate")

    events: list[ProgressEvent] = []
    assert reembed(old_library, embedder, JobContext(events.append)) == count
    assert _models(old_library) == {embedder.name} and old_library.counts()["embeddings"] == count
    assert outdated_embeddings(old_library.conn, embedder.name) == 0
    assert events[0].done == 0 and events[0].total == count and events[-1].done == count

    # Each vector is today's embedder's vector of its chunk's text, and sqlite-vec holds one per embedding.
    rows = old_library.conn.execute(
        "SELECT MIN(c.kind), MIN(c.text), v.embedding FROM embeddings e JOIN chunks c ON c.content_hash = e.content_hash "
        "JOIN embedding_vectors v ON v.rowid = e.id GROUP BY e.id").fetchall()
    assert len(rows) == count
    stored = np.vstack([np.frombuffer(r[2], dtype=np.float32) for r in rows])
    made = embedder.embed([embedding_text(kind, text) for kind, text, _ in rows])
    assert np.allclose(stored, made, atol=1e-5)

    found = Retriever(old_library.conn, embedder).search("population growth", k=5)
    assert found and any("population" in c.text.lower() for c in found)
    assert reembed(old_library, embedder) == 0  # nothing left: no work the second time


def test_cancelling_keeps_the_batches_done_and_the_next_run_goes_on(
        old_library: Library, embedder: MiniLMEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reembedding, "BATCH", 2)
    count = old_library.counts()["embeddings"]

    def stop_after_two_batches(event: ProgressEvent) -> None:
        if event.done >= 4:
            ctx.token.cancel()

    ctx = JobContext(stop_after_two_batches)
    with pytest.raises(Cancelled):
        reembed(old_library, embedder, ctx)
    assert outdated_embeddings(old_library.conn, embedder.name) == count - 4
    with pytest.raises(OutdatedEmbeddings):  # half done is still two vector spaces
        Retriever(old_library.conn, embedder).search("district health")
    assert reembed(old_library, embedder) == count - 4
    assert _models(old_library) == {embedder.name} and old_library.counts()["embeddings"] == count


def test_ingesting_into_an_old_library_reembeds_it_first(old_library: Library, embedder: MiniLMEmbedder) -> None:
    from tests.conftest import SAMPLES

    (result,) = Ingestor(old_library, embedder).ingest_paths([SAMPLES / "agstat.pdf"])
    assert result.status == "added"
    assert _models(old_library) == {embedder.name}


def test_answering_from_an_old_library_reembeds_it_and_answers(old_library: Library, embedder: MiniLMEmbedder) -> None:
    from core.answering import Answerer
    from core.sql.runner import SqlRunner
    from tests.core.answering.test_answering_library import ScriptedChat

    chat = ScriptedChat(fallback=lambda messages, schema: "{}")
    runner = SqlRunner(old_library.path)
    try:
        answer = Answerer(old_library, Retriever(old_library.conn, embedder), runner, chat).answer(
            "What was the population growth rate?")
    finally:
        runner.close()
    assert _models(old_library) == {embedder.name}
    assert answer.citations and {c.document for c in answer.citations} <= {"population_growth.pdf",
                                                                           "district_health.pdf"}
