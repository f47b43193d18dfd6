"""Finding the chunks that answer a question: BM25 over FTS5, vector KNN over sqlite-vec, and a
weighted reciprocal-rank fusion of the two, with an optional reranking stage.

BM25 is weighted above the vector side because it retrieved report pages better in our measurements
(STACK.md); the weights are parameters so benchmarks can tune them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from core.library.db import Connection
from core.library.reembedding import check_embeddings
from core.library.store import load_chunks
from core.search.vector_index import VectorIndex, VectorSnapshot
from models.protocols import Embedder
from models.types import Chunk

RRF_K = 60
MAX_RANGE_QUERIES = 32
"""Up to this many documents, a search inside them reads each one's chunk-id range in the full-text index."""
_EMBEDDING_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="query-embedding")
_WORD = re.compile(r"[\w][\w.%-]*", re.UNICODE)
STOPWORDS = frozenset(
    ["a", "an", "and", "are", "as", "at", "be", "by", "did", "do", "does", "for", "from", "had", "has", "have", "how", "in", "is", "it", "its", "of", "on", "or", "the", "this", "that", "to", "was", "were", "what", "when", "where", "which", "who", "why", "with"]
)


class Reranker(Protocol):
    """Reorders fused candidates. No cross-encoder ships offline; this stage stays pluggable."""

    def rerank(self, query: str, chunks: Sequence[Chunk]) -> list[Chunk]: ...


def fts_query(text: str) -> str:
    """A safe FTS5 query: every meaningful word quoted, OR-ed, so punctuation never breaks the syntax."""
    words = [w.strip(".-%").lower() for w in _WORD.findall(text)]
    terms = [w for w in words if w and w not in STOPWORDS]
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in dict.fromkeys(terms))


@dataclass(frozen=True)
class Candidate:
    chunk_id: int
    score: float


class Retriever:
    """Hybrid search over one library.

    The vector side searches ``vector_index`` (an in-memory copy of the library's sqlite-vec vectors,
    see core.search.vector_index); share one index per library file between retrievers so it is loaded once.
    ``scope`` (set by ``limit_to``, from core.search.routing) keeps every search inside some documents.
    """

    def __init__(self, conn: Connection, embedder: Embedder, *, bm25_weight: float = 1.0,
                 vector_weight: float = 0.6, reranker: Reranker | None = None,
                 vector_index: VectorIndex | None = None) -> None:
        self.conn = conn
        self.embedder = embedder
        self.bm25_weight = bm25_weight
        self.vector_weight = vector_weight
        self.reranker = reranker
        self.vector_index = vector_index if vector_index is not None else VectorIndex()
        self.scope: tuple[int, ...] | None = None
        self.widens = False

    def limit_to(self, document_ids: Sequence[int] | None, widens: bool = False) -> None:
        """Search only these documents from now on (None: the whole library); a question's route sets it.
        ``widens``: a search asked ``wide`` may look in the whole library (a route chosen by what the question is
        about, not by an issuer it names, may have left out the document that prints the line asked)."""
        self.scope = tuple(document_ids) if document_ids is not None else None
        self.widens = widens

    def _scoped(self, document_ids: Sequence[int] | None, wide: bool = False) -> Sequence[int] | None:
        scope = None if wide and self.widens else self.scope
        if scope is None:
            return document_ids
        return scope if not document_ids else [i for i in document_ids if i in scope] or [-1]

    def close(self) -> None:
        """Nothing to release today; kept so callers need not know what a retriever holds."""

    def bm25(self, query: str, k: int = 30, document_ids: Sequence[int] | None = None,
             wide: bool = False) -> list[Candidate]:
        document_ids = self._scoped(document_ids, wide)
        match = fts_query(query)
        if not match:
            return []
        if not document_ids:
            rows = self.conn.execute("SELECT rowid, bm25(chunks_fts) AS s FROM chunks_fts WHERE chunks_fts MATCH ? "
                                     "ORDER BY s LIMIT ?", (match, k)).fetchall()
            return [Candidate(r[0], -r[1]) for r in rows]
        # Inside some documents: a document's chunks have neighbouring ids (it is added in one transaction), so
        # FTS5 reads only their id ranges. Joining on the document instead makes SQLite run the whole MATCH once
        # per chunk of the document: seconds for a large one in a large library.
        inside = ",".join("?" * len(document_ids))
        ranges = self.conn.execute(f"SELECT MIN(id), MAX(id) FROM chunks WHERE document_id IN ({inside}) "
                                   "GROUP BY document_id ORDER BY 1", list(document_ids)).fetchall()
        sql = (f"SELECT f.rowid, bm25(chunks_fts) AS s FROM chunks_fts f CROSS JOIN chunks c ON c.id = f.rowid "
               f"WHERE chunks_fts MATCH ? AND c.document_id IN ({inside})")
        found: list[tuple[int, float]] = []
        if len(ranges) <= MAX_RANGE_QUERIES:
            for low, high in ranges:
                found += self.conn.execute(sql + " AND f.rowid BETWEEN ? AND ? ORDER BY s LIMIT ?",
                                           [match, *document_ids, low, high, k]).fetchall()
        else:
            found = self.conn.execute(sql + " ORDER BY s LIMIT ?", [match, *document_ids, k]).fetchall()
        found.sort(key=lambda r: (r[1], r[0]))
        return [Candidate(r[0], -r[1]) for r in found[:k]]

    def vector(self, query: str, k: int = 30, document_ids: Sequence[int] | None = None) -> list[Candidate]:
        """The ``k`` chunks whose embeddings are nearest the query's (exact cosine similarity)."""
        return self._nearest_chunks(self._embed(query), k, self._scoped(document_ids))

    def _vectors(self) -> VectorSnapshot:
        """The library's vectors, once it is sure they are all the embedder's own (a query is never compared with
        vectors of another embedder: ``OutdatedEmbeddings`` until core.library.reembedding has made them again)."""
        check_embeddings(self.conn, self.embedder.name)
        return self.vector_index.current(self.conn)

    def _embed(self, query: str) -> np.ndarray:
        return np.asarray(self.embedder.embed([query])[0], dtype=np.float32)

    def _embed_and_search(self, vectors: VectorSnapshot, query: str, k: int,
                          among: list[int] | None) -> tuple[np.ndarray, list[tuple[int, float]]]:
        vector = self._embed(query)
        return vector, self.vector_index.search(vectors, vector, k, among)

    def _nearest_chunks(self, vector: np.ndarray, k: int, document_ids: Sequence[int] | None) -> list[Candidate]:
        allowed = set(document_ids) if document_ids else None
        vectors = self._vectors()
        among = self._embedding_ids(allowed)
        nearest = self.vector_index.search(vectors, vector, k * 2, among)
        return self._chunks_near(vectors, vector, k, allowed, nearest)

    def _embedding_ids(self, allowed: set[int] | None) -> list[int] | None:
        """The embeddings of these documents' chunks (None: the whole library). Inside some documents only
        their vectors are compared, however large the library."""
        if allowed is None:
            return None
        return [r[0] for r in self.conn.execute(
            "SELECT DISTINCT e.id FROM chunks c JOIN embeddings e ON e.content_hash = c.content_hash "
            "WHERE c.document_id IN (" + ",".join("?" * len(allowed)) + ")", sorted(allowed))]

    def _chunks_near(self, vectors: VectorSnapshot, vector: np.ndarray, k: int, allowed: set[int] | None,
                     nearest: list[tuple[int, float]]) -> list[Candidate]:
        """The chunks of the ``nearest`` embeddings (asked for 2k), up to ``k``."""
        if allowed is not None:
            # Each of the documents' vectors has at least one chunk in them, so 2k vectors give k chunks or
            # every one there is.
            return [c for c, document in self._chunks_for(nearest) if document in allowed][:k]
        # One vector can stand for several chunks with the same content: widen the search until k chunks
        # are found or every vector has been looked at.
        wanted = k * 2
        while True:
            out = self._chunks_for(nearest)
            if len(out) >= k or len(nearest) < wanted:
                return [candidate for candidate, _ in out[:k]]
            wanted *= 4
            nearest = self.vector_index.search(vectors, vector, wanted)

    def _chunks_for(self, nearest: list[tuple[int, float]]) -> list[tuple[Candidate, int]]:
        """(candidate, document id) for every chunk whose content has one of these embeddings, in the
        embeddings' order (then by chunk id)."""
        if not nearest:
            return []
        similarity = dict(nearest)
        rank = {embedding_id: i for i, (embedding_id, _) in enumerate(nearest)}
        rows = self.conn.execute(
            "SELECT e.id, c.id, c.document_id FROM embeddings e JOIN chunks c ON c.content_hash = e.content_hash "
            "WHERE e.id IN (" + ",".join("?" * len(nearest)) + ")",
            [embedding_id for embedding_id, _ in nearest],
        ).fetchall()
        rows.sort(key=lambda r: (rank[r[0]], r[1]))
        return [(Candidate(chunk_id, similarity[embedding_id]), document_id) for embedding_id, chunk_id, document_id in rows]

    def search(self, query: str, k: int = 5, recall: int = 30, document_ids: Sequence[int] | None = None,
               wide: bool = False) -> list[Chunk]:
        """Hybrid search: fuse BM25 and vector rankings (weighted RRF), rerank if a reranker is set. ``wide``:
        beyond the route's documents where the route allows it (``limit_to``)."""
        document_ids = self._scoped(document_ids, wide)
        fused: dict[int, float] = {}
        allowed = set(document_ids) if document_ids else None
        vectors = self._vectors()
        among = self._embedding_ids(allowed)
        # The query is embedded and its nearest vectors found on a worker thread while SQLite runs BM25
        # (onnxruntime, numpy and SQLite release the GIL); the worker touches no connection.
        near = _EMBEDDING_POOL.submit(self._embed_and_search, vectors, query, recall * 2, among)
        lexical = self.bm25(query, recall, document_ids, wide)
        vector, nearest = near.result()
        semantic = self._chunks_near(vectors, vector, recall, allowed, nearest)
        for weight, ranking in ((self.bm25_weight, lexical), (self.vector_weight, semantic)):
            for rank, candidate in enumerate(ranking):
                fused[candidate.chunk_id] = fused.get(candidate.chunk_id, 0.0) + weight / (RRF_K + rank + 1)
        ranked = sorted(fused, key=lambda cid: (-fused[cid], cid))[:recall]
        chunks = [replace(c, score=fused[c.id]) for c in load_chunks(self.conn, ranked)]
        if self.reranker is not None:
            chunks = self.reranker.rerank(query, chunks)
        return chunks[:k]
