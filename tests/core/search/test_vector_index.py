"""The in-memory vector index: exact (same answers as sqlite-vec's own KNN), and never stale after the
library's embeddings change, including when SQLite reuses a deleted row id."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from core.library.db import connect
from core.library.migrations import EMBEDDING_DIMENSION, MIGRATIONS, migrate
from core.library.store import DocumentWriter, Library
from core.search.retrieval import Retriever
from core.search.vector_index import VectorIndex, embeddings_generation

pytestmark = pytest.mark.unit


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    vectors = rng.standard_normal((n, EMBEDDING_DIMENSION)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def _add_chunks(library: Library, embedder, sha: str, texts: list[str], vectors: np.ndarray) -> int:
    writer = DocumentWriter(library.conn, embedder)
    library.conn.execute("BEGIN IMMEDIATE")
    doc = writer.add_document(sha, Path(f"{sha[:4]}.pdf"), "Report", 1, 100)
    for text in texts:
        writer.add_chunk(doc, "text", 1, text, [(0, 0, 10, 10)])
    hashes = [h for h, _ in writer.missing_embeddings(doc)]
    writer.add_embeddings(hashes, vectors[: len(hashes)])
    writer.finish_document(doc, "ready", "")
    library.conn.execute("COMMIT")
    return doc


def test_nearest_matches_sqlite_vec_knn(tmp_path: Path, hash_embedder) -> None:
    rng = np.random.default_rng(5)
    library = Library(tmp_path / "lib.sqlite3")
    _add_chunks(library, hash_embedder, "a" * 64, [f"passage {i}" for i in range(500)], _unit(rng, 500))
    index = VectorIndex()
    for query in _unit(rng, 10):
        expected = library.conn.execute(
            "SELECT rowid, distance FROM embedding_vectors WHERE embedding MATCH ? AND k = 20 ORDER BY distance",
            (query.tobytes(),),
        ).fetchall()
        got = index.nearest(library.conn, query, 20)
        assert [i for i, _ in got] == [i for i, _ in expected]
        assert [s for _, s in got] == pytest.approx([1.0 - d for _, d in expected], abs=1e-5)
    assert len(index) == 500


def test_index_follows_additions_deletions_and_reused_ids(tmp_path: Path, hash_embedder) -> None:
    rng = np.random.default_rng(9)
    library = Library(tmp_path / "lib.sqlite3")
    index = VectorIndex()
    first_vectors = _unit(rng, 3)
    first = _add_chunks(library, hash_embedder, "a" * 64, ["one", "two", "three"], first_vectors)
    assert index.nearest(library.conn, first_vectors[2], 1)[0][1] == pytest.approx(1.0)

    second_vectors = _unit(rng, 2)
    second = _add_chunks(library, hash_embedder, "b" * 64, ["four", "five"], second_vectors)
    best_id, similarity = index.nearest(library.conn, second_vectors[1], 1)[0]
    assert similarity == pytest.approx(1.0) and len(index) == 5

    # Deleting the newest document frees the highest ids; the next document gets the same ids with
    # other vectors. The index must serve the new vectors, not its copies of the old ones.
    library.delete_document(second)
    assert len(index.nearest(library.conn, second_vectors[1], 10)) == 3
    third_vectors = _unit(rng, 2)
    _add_chunks(library, hash_embedder, "c" * 64, ["six", "seven"], third_vectors)
    reused_id, similarity = index.nearest(library.conn, third_vectors[1], 1)[0]
    assert reused_id == best_id and similarity == pytest.approx(1.0)
    assert index.nearest(library.conn, second_vectors[1], 1)[0][1] < 0.5
    library.delete_document(first)
    assert len(index.nearest(library.conn, first_vectors[0], 10)) == 2


def test_retriever_filters_by_document_even_when_the_others_are_nearer(tmp_path: Path, hash_embedder) -> None:
    rng = np.random.default_rng(2)
    library = Library(tmp_path / "lib.sqlite3")
    near = _unit(rng, 1)[0]
    crowd = np.stack([near + 0.01 * v for v in _unit(rng, 200)])
    crowd /= np.linalg.norm(crowd, axis=1, keepdims=True)
    _add_chunks(library, hash_embedder, "a" * 64, [f"crowd {i}" for i in range(200)], crowd)
    far = _add_chunks(library, hash_embedder, "b" * 64, ["far away", "further"], _unit(rng, 2))

    class FixedEmbedder:
        name = hash_embedder.name  # the library's embedder, asked with a fixed query vector
        dimension = EMBEDDING_DIMENSION

        def embed(self, texts):
            return np.stack([near for _ in texts])

    retriever = Retriever(library.conn, FixedEmbedder())  # type: ignore[arg-type]
    found = retriever.vector("anything", k=5, document_ids=[far])
    chunk_docs = {cid: doc for cid, doc in library.conn.execute("SELECT id, document_id FROM chunks")}
    assert len(found) == 2 and {chunk_docs[c.chunk_id] for c in found} == {far}


def test_upgrading_a_library_counts_its_existing_embeddings(tmp_path: Path, hash_embedder) -> None:
    path = tmp_path / "lib.sqlite3"
    conn = connect(path)
    for number, migration in enumerate(MIGRATIONS[:2], start=1):  # a library written before migration 3
        migration(conn)
        conn.execute(f"PRAGMA user_version = {number}")
    conn.execute("INSERT INTO embeddings (content_hash, model) VALUES ('h1', 'm'), ('h2', 'm')")
    assert migrate(conn) == len(MIGRATIONS)
    before = embeddings_generation(conn)
    assert before == 2
    conn.execute("DELETE FROM embeddings WHERE content_hash = 'h2'")
    assert embeddings_generation(conn) == before + 1


def test_adding_a_document_reads_only_its_vectors(tmp_path: Path, hash_embedder) -> None:
    rng = np.random.default_rng(9)
    library = Library(tmp_path / "lib.sqlite3")
    _add_chunks(library, hash_embedder, "a" * 64, [f"first {i}" for i in range(300)], _unit(rng, 300))
    index = VectorIndex()
    query = _unit(rng, 1)[0]
    index.nearest(library.conn, query, 5)
    assert index.full_loads == 1
    added = _unit(rng, 50)
    _add_chunks(library, hash_embedder, "b" * 64, [f"second {i}" for i in range(50)], added)
    got = index.nearest(library.conn, added[7], 1)
    assert index.full_loads == 1 and len(index) == 350  # appended, not reloaded
    assert got[0][1] == pytest.approx(1.0, abs=1e-5)
    expected = library.conn.execute(
        "SELECT rowid FROM embedding_vectors WHERE embedding MATCH ? AND k = 10 ORDER BY distance", (query.tobytes(),)
    ).fetchall()
    assert [i for i, _ in index.nearest(library.conn, query, 10)] == [r[0] for r in expected]
    more = _unit(rng, 30)  # written into the room the first append left: the earlier rows stay as they were
    _add_chunks(library, hash_embedder, "c" * 64, [f"third {i}" for i in range(30)], more)
    assert index.nearest(library.conn, more[3], 1)[0][1] == pytest.approx(1.0, abs=1e-5)
    assert index.nearest(library.conn, added[7], 1)[0][1] == pytest.approx(1.0, abs=1e-5) and len(index) == 380
    assert index.full_loads == 1
    library.delete_document(library.documents()[0].id)  # a removal: its rows are masked, nothing is read again
    assert len(index.nearest(library.conn, query, 400)) == 80 and index.full_loads == 1 and len(index) == 80
    library.close()


def _clustered(rng: np.random.Generator, n: int, centres: int = 20) -> np.ndarray:
    """Vectors around a few topics plus a shared direction, as sentence embeddings of reports are."""
    topics = _unit(rng, centres) + 1.5 * _unit(rng, 1)
    vectors = topics[rng.integers(0, centres, n)] + 0.35 * _unit(rng, n)
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def test_coarse_pass_then_exact_rerank_finds_the_exact_neighbours(tmp_path: Path, hash_embedder) -> None:
    rng = np.random.default_rng(11)
    library = Library(tmp_path / "lib.sqlite3")
    vectors = _clustered(rng, 3000)
    _add_chunks(library, hash_embedder, "a" * 64, [f"passage {i}" for i in range(3000)], vectors)
    coarse = VectorIndex(exact_up_to=0, candidates=200, share=0)
    exact = VectorIndex()
    queries = vectors[rng.integers(0, 3000, 20)] + 0.05 * _unit(rng, 20)
    found = 0
    for query in queries:
        got = coarse.nearest(library.conn, query, 10)
        expected = exact.nearest(library.conn, query, 10)
        assert got[0] == pytest.approx(expected[0])  # the nearest one is always found, with its exact score
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
        found += len({i for i, _ in got} & {i for i, _ in expected})
        assert coarse.nearest(library.conn, query, 10, exact=True) == expected
    assert found / (10 * len(queries)) >= 0.95
    # A search inside some documents with more vectors than candidates also goes through the codes.
    among = list(range(1, 1500))
    got = coarse.nearest(library.conn, queries[0], 5, among=among)
    assert {i for i, _ in got} <= set(among) and got[0] == exact.nearest(library.conn, queries[0], 5, among=among)[0]
    library.close()


def test_a_large_library_keeps_its_index_in_a_cache_file(tmp_path: Path, hash_embedder) -> None:
    rng = np.random.default_rng(13)
    library = Library(tmp_path / "lib.sqlite3")
    vectors = _clustered(rng, 600)
    _add_chunks(library, hash_embedder, "a" * 64, [f"passage {i}" for i in range(600)], vectors)
    cache = tmp_path / "lib.sqlite3-vectors"
    first = VectorIndex(cache, exact_up_to=0, candidates=100, share=0, cache_from=100)
    query = vectors[7]
    expected = first.nearest(library.conn, query, 10)
    assert first.full_loads == 1 and (tmp_path / "lib.sqlite3-vectors.npy").exists()

    opened = VectorIndex(cache, exact_up_to=0, candidates=100, share=0, cache_from=100)  # the next process
    assert opened.nearest(library.conn, query, 10) == expected and opened.full_loads == 0

    added = _clustered(rng, 40)
    _add_chunks(library, hash_embedder, "b" * 64, [f"added {i}" for i in range(40)], added)
    library.delete_document(library.documents()[0].id)
    later = VectorIndex(cache, exact_up_to=0, candidates=100, share=0, cache_from=100)
    best, similarity = later.nearest(library.conn, added[3], 1)[0]
    assert similarity == pytest.approx(1.0, abs=1e-5) and len(later) == 40 and later.full_loads == 0
    assert opened.nearest(library.conn, added[3], 1)[0][0] == best and len(opened) == 40

    # A cache beside a library that was replaced by another with the same ids is not trusted.
    library.close()
    for name in ("lib.sqlite3", "lib.sqlite3-wal", "lib.sqlite3-shm"):
        (tmp_path / name).unlink(missing_ok=True)
    other = Library(tmp_path / "lib.sqlite3")
    fresh = _clustered(rng, 600)
    _add_chunks(other, hash_embedder, "c" * 64, [f"other {i}" for i in range(600)], fresh)
    replaced = VectorIndex(cache, exact_up_to=0, candidates=100, share=0, cache_from=100)
    assert replaced.nearest(other.conn, fresh[5], 1)[0][1] == pytest.approx(1.0, abs=1e-5)
    other.close()
