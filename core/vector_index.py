"""Exact cosine nearest-neighbour search over a library's embeddings, held in memory.

The vectors live in the library's sqlite-vec table (``embedding_vectors``), which stays the one
source of truth. Searching them there costs a full scan per query, and the sqlite-vec wheel on PyPI
is built without SIMD: 24 ms at 50,000 x 384 here. The same exact search as one matrix product in
numpy (BLAS) takes about 1.5 ms, so the index copies the vectors into a float32 matrix once
(1.5 KB per vector: 77 MB at 50,000 chunks) and reloads it only when the library's embeddings
change. A trigger-maintained counter (``library_counters``, migration 3) tells when that is, with
one indexed read per query. When the only change is vectors added (a document ingested), only they are
read and appended; a removal reloads the whole matrix.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.db import Connection
from core.migrations import EMBEDDING_DIMENSION


@dataclass(frozen=True)
class _Snapshot:
    generation: int
    ids: np.ndarray  # int64 embedding ids, one per matrix row
    matrix: np.ndarray  # float32, (len(ids), EMBEDDING_DIMENSION), rows unit length


_EMPTY = _Snapshot(-1, np.zeros(0, dtype=np.int64), np.zeros((0, EMBEDDING_DIMENSION), dtype=np.float32))


def embeddings_generation(conn: Connection) -> int:
    """A number that changes whenever an embedding is added or removed."""
    row = conn.execute("SELECT value FROM library_counters WHERE name = 'embeddings'").fetchone()
    return int(row[0]) if row else 0


class VectorIndex:
    """Nearest embeddings to a query vector, exact, by cosine similarity. Safe to share between threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snapshot = _EMPTY

    def __len__(self) -> int:
        return len(self._snapshot.ids)

    def nearest(self, conn: Connection, query: np.ndarray, k: int,
                among: Sequence[int] | None = None) -> list[tuple[int, float]]:
        """The ``k`` embedding ids most similar to ``query`` with their cosine similarity, best first
        (ties broken by id so results are stable); only ids in ``among`` when it is given (a search
        inside some documents compares only their vectors, however large the library)."""
        snapshot = self._current(conn)
        if k <= 0 or not len(snapshot.ids):
            return []
        vector = np.asarray(query, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(vector))
        if norm == 0.0:
            return []
        if among is not None:
            # The snapshot's ids are sorted (read in rowid order): find each wanted id by bisection.
            wanted = np.unique(np.asarray(list(among), dtype=np.int64))
            rows = np.searchsorted(snapshot.ids, wanted)
            inside = rows < len(snapshot.ids)
            rows, wanted = rows[inside], wanted[inside]
            rows = rows[snapshot.ids[rows] == wanted]
            if not len(rows):
                return []
            scores = snapshot.matrix[rows] @ (vector / norm)
            ids = snapshot.ids[rows]
        else:
            scores = snapshot.matrix @ (vector / norm)
            ids = snapshot.ids
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        order = sorted(top.tolist(), key=lambda i: (-float(scores[i]), int(ids[i])))
        return [(int(ids[i]), float(scores[i])) for i in order]

    def _current(self, conn: Connection) -> _Snapshot:
        generation = embeddings_generation(conn)
        snapshot = self._snapshot
        if snapshot.generation == generation:
            return snapshot
        with self._lock:
            if self._snapshot.generation != generation:
                self._snapshot = self._extended(conn, self._snapshot) or self._load(conn)
            return self._snapshot

    @staticmethod
    def _extended(conn: Connection, snapshot: _Snapshot) -> _Snapshot | None:
        """The snapshot with the vectors added since it was taken, read alone, or None when anything else
        changed (a removal, a reused id): then the whole index is read again. Adding a document to a large
        library thus reads that document's vectors, not the library's.

        Every insert or delete bumps the counter once; when the counter moved by exactly the number of rows
        now above the snapshot's last id, every change was an insert above it: nothing was removed."""
        if not len(snapshot.ids):
            return None
        own_transaction = not conn.in_transaction
        if own_transaction:
            conn.execute("BEGIN")
        try:
            generation = embeddings_generation(conn)
            # The new ids come from the plain table; the vectors by rowid, one lookup each (sqlite-vec scans
            # its whole table for a rowid range).
            added = conn.execute("SELECT id FROM embeddings WHERE id > ? ORDER BY id", (int(snapshot.ids[-1]),))
            rows = [row for (vector_id,) in added.fetchall() if (row := conn.execute(
                "SELECT rowid, embedding FROM embedding_vectors WHERE rowid = ?", (vector_id,)).fetchone()) is not None]
        finally:
            if own_transaction:
                conn.execute("COMMIT")
        if generation - snapshot.generation != len(rows):
            return None
        ids, matrix = _matrix(rows)
        return _Snapshot(generation, np.concatenate([snapshot.ids, ids]), _appended(snapshot.matrix, matrix))

    @staticmethod
    def _load(conn: Connection) -> _Snapshot:
        # One read transaction, so the counter and the vectors are of the same moment.
        own_transaction = not conn.in_transaction
        if own_transaction:
            conn.execute("BEGIN")
        try:
            generation = embeddings_generation(conn)
            rows = conn.execute("SELECT rowid, embedding FROM embedding_vectors ORDER BY rowid").fetchall()
        finally:
            if own_transaction:
                conn.execute("COMMIT")
        return _Snapshot(generation, *_matrix(rows))


def _appended(matrix: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``matrix`` with ``rows`` below it. The matrix is a view into a larger buffer: rows are written into the
    free space after it (readers of the older snapshot see only their own rows), and the buffer grows by a
    quarter when full, so adding a document does not copy a large library's matrix."""
    size, extra = len(matrix), len(rows)
    buffer = matrix.base if isinstance(matrix.base, np.ndarray) and matrix.base.ndim == 2 else None
    if buffer is None or len(buffer) < size + extra or not np.shares_memory(buffer[:1], matrix[:1]):
        buffer = np.empty((_capacity(size + extra), EMBEDDING_DIMENSION), dtype=np.float32)
        buffer[:size] = matrix
    buffer[size:size + extra] = rows
    return buffer[:size + extra]


def _matrix(rows: list[tuple[int, bytes]]) -> tuple[np.ndarray, np.ndarray]:
    """(ids, unit-length float32 matrix) from (rowid, vector blob) rows."""
    if not rows:
        return _EMPTY.ids, _EMPTY.matrix
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    raw = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), EMBEDDING_DIMENSION)
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    # Rows for later additions are reserved now, untouched (the system backs them only when written): a
    # document added to a large library is written in place, not into a fresh copy of the whole matrix.
    buffer = np.empty((_capacity(len(rows)), EMBEDDING_DIMENSION), dtype=np.float32)
    np.divide(raw, np.where(norms == 0.0, 1.0, norms), out=buffer[: len(rows)])
    return ids, buffer[: len(rows)]


def _capacity(rows: int) -> int:
    return int(rows * 1.25) + 4096
