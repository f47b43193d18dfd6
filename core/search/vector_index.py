"""Cosine nearest-neighbour search over a library's embeddings, held in memory: exact for a small
library or a search inside some documents, a binary coarse pass then an exact re-rank for a large one.

The vectors live in the library's sqlite-vec table (``embedding_vectors``), which stays the one
source of truth. Searching them there costs a full scan per query, and the sqlite-vec wheel on PyPI
is built without SIMD: 24 ms at 50,000 x 384 here. The same exact search as one matrix product in
numpy (BLAS) takes about 1.5 ms, so the index copies the vectors into a float32 matrix (1.5 KB per
vector). At 500,000 vectors that product still reads 0.77 GB per query (60-100 ms on a quiet machine,
400 ms on a busy one), so above ``exact_up_to`` rows the index first compares 48-byte sign codes (one
bit per dimension; Hamming distance, 24 MB at 500,000: 7 ms) and re-ranks the closest rows exactly:
``candidates`` of them, or one in ``share`` of the rows compared when that is more. Sign codes see
angles coarsely; re-ranking a share rather than a fixed number keeps the recall as the library grows.
``bench_scale.py`` prints the recall@10 against exact search on the same library.

Reading 500,000 vectors out of sqlite-vec takes a minute, so a large library's index is kept in a
cache file beside the library (``cache``: the float32 matrix as a ``.npy`` opened memory-mapped, ids
and codes in a ``.npz``); opening it costs one read of the codes. The cache is only a copy: it is
checked against the library (row ids, the embeddings counter, one vector) and rewritten when it lags.

A trigger-maintained counter (``library_counters``, migration 3) tells when the library's embeddings
changed, with one indexed read per query. Vectors added above the index's last id are then read alone
and appended (when the counter moved by exactly their number, nothing else is read: adding a document to
a 500,000-vector library costs the next search milliseconds); otherwise the ids present are compared with
the index's and removed ones are masked; anything else (a reused id) reads everything again.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from core.library.db import Connection
from core.library.migrations import EMBEDDING_DIMENSION

EXACT_UP_TO = 50_000
"""Up to this many vectors compared, every one is compared exactly (a few ms)."""
CANDIDATES = 1000
"""Rows re-ranked exactly after the coarse pass, at least (and at least four per result asked)."""
SHARE = 25
"""One row in this many of those compared is re-ranked exactly, when that is more than ``CANDIDATES``."""
CACHE_FROM = 20_000
"""Libraries with at least this many vectors keep a cache file (smaller ones read sqlite-vec in < 1 s)."""
_CODE_WORDS = EMBEDDING_DIMENSION // 64
_FAR = np.uint16(EMBEDDING_DIMENSION + 1)


@dataclass(frozen=True)
class VectorSnapshot:
    """The vectors of a library at one moment (the counter value ``generation``), ready to search."""

    generation: int
    ids: np.ndarray  # int64 embedding ids, ascending, one per row (a removed vector's row stays, dead)
    main: np.ndarray  # float32 unit rows 0..len(main)-1 (a read-only memory map when read from the cache)
    tail: np.ndarray  # float32 unit rows after them: a view into a buffer with room for later additions
    codes: np.ndarray  # uint64 (6, rows): the sign bits of each row, one array per 64 dimensions
    dead: np.ndarray  # bool per row: the vector was removed from the library
    removed: int  # number of dead rows
    unsaved: int  # changes since the cache file was written (or since loading, without a cache)

    @property
    def live(self) -> int:
        return len(self.ids) - self.removed

    def rows(self, indices: np.ndarray) -> np.ndarray:
        """The float32 rows at these row numbers."""
        split = len(self.main)
        if not len(self.tail):
            return np.asarray(self.main[indices])
        out = np.empty((len(indices), EMBEDDING_DIMENSION), dtype=np.float32)
        inside = indices < split
        out[inside] = self.main[indices[inside]]
        out[~inside] = self.tail[indices[~inside] - split]
        return out

    def scores(self, vector: np.ndarray) -> np.ndarray:
        """Cosine similarity of every row with the unit ``vector``."""
        parts = [np.asarray(self.main @ vector)]
        if len(self.tail):
            parts.append(self.tail @ vector)
        return np.concatenate(parts) if len(parts) > 1 else parts[0]


def _empty(generation: int = -1) -> VectorSnapshot:
    matrix = np.zeros((0, EMBEDDING_DIMENSION), dtype=np.float32)
    return VectorSnapshot(generation, np.zeros(0, dtype=np.int64), matrix, matrix, np.zeros((_CODE_WORDS, 0), dtype=np.uint64),
                          np.zeros(0, dtype=bool), 0, 0)


def embeddings_generation(conn: Connection) -> int:
    """A number that changes whenever an embedding is added or removed."""
    row = conn.execute("SELECT value FROM library_counters WHERE name = 'embeddings'").fetchone()
    return int(row[0]) if row else 0


def sign_codes(matrix: np.ndarray) -> np.ndarray:
    """One bit per dimension (positive or not), packed into six uint64 per row and stored
    column by column (shape (6, rows)): the Hamming distance is then six passes over contiguous arrays."""
    out = np.empty((_CODE_WORDS, len(matrix)), dtype=np.uint64)
    for start in range(0, len(matrix), 65_536):
        block = np.asarray(matrix[start:start + 65_536])
        out[:, start:start + len(block)] = np.packbits(block > 0, axis=1).view(np.uint64).T
    return out


class VectorIndex:
    """Nearest embeddings to a query vector by cosine similarity. Safe to share between threads.

    ``cache``: where to keep the cache files of a large library (``<cache>.npy`` and ``<cache>-index.npz``);
    None keeps nothing on disk. ``exact_up_to``, ``candidates``, ``share`` and ``cache_from`` default to the module's
    constants (tests lower them to run the large-library paths on small libraries)."""

    def __init__(self, cache: Path | None = None, *, exact_up_to: int = EXACT_UP_TO, candidates: int = CANDIDATES,
                 share: int = SHARE, cache_from: int = CACHE_FROM) -> None:
        self._lock = threading.Lock()
        self._snapshot = _empty()
        self.cache = cache
        self.exact_up_to = exact_up_to
        self.candidates = candidates
        self.share = share
        self.cache_from = cache_from
        self.full_loads = 0  # times every vector was read from sqlite-vec (benchmarks and tests print it)

    def __len__(self) -> int:
        return self._snapshot.live

    def load(self, conn: Connection) -> int:
        """Bring the index up to date with the library now (a warm-up before the first question); returns
        the number of vectors."""
        return self._current(conn).live

    def nearest(self, conn: Connection, query: np.ndarray, k: int,
                among: Sequence[int] | None = None, *, exact: bool = False) -> list[tuple[int, float]]:
        """The ``k`` embedding ids most similar to ``query`` with their cosine similarity, best first
        (ties broken by id so results are stable); only ids in ``among`` when it is given (a search
        inside some documents compares only their vectors, however large the library). ``exact``
        compares every vector even in a large library (benchmarks measure the coarse pass's recall)."""
        return self.search(self.current(conn), query, k, among, exact=exact)

    def current(self, conn: Connection) -> VectorSnapshot:
        """The vectors as they are in the library now (read with ``conn``), for ``search``: a snapshot that
        later changes to the library do not alter, so it can be searched on another thread."""
        return self._current(conn)

    def search(self, snapshot: VectorSnapshot, query: np.ndarray, k: int, among: Sequence[int] | None = None, *,
               exact: bool = False) -> list[tuple[int, float]]:
        """``nearest`` within a snapshot from ``current``; touches no connection."""
        if k <= 0 or not snapshot.live:
            return []
        vector = np.asarray(query, dtype=np.float32).reshape(-1)
        norm = float(np.linalg.norm(vector))
        if norm == 0.0:
            return []
        vector = vector / norm
        rows: np.ndarray | None = None
        if among is not None:
            # The snapshot's ids are sorted: find each wanted id by bisection.
            wanted = np.unique(np.asarray(list(among), dtype=np.int64))
            found = np.searchsorted(snapshot.ids, wanted)
            inside = found < len(snapshot.ids)
            found, wanted = found[inside], wanted[inside]
            found = found[snapshot.ids[found] == wanted]
            rows = found[~snapshot.dead[found]]
            if not len(rows):
                return []
        compared = len(rows) if rows is not None else len(snapshot.ids)
        pool = max(self.candidates, 4 * k, compared // self.share if self.share else 0)
        if exact or compared <= max(self.exact_up_to, pool):
            if rows is None:
                scores = snapshot.scores(vector)
                rows = np.arange(len(scores))
                if snapshot.removed:
                    scores[snapshot.dead] = -np.inf
            else:
                scores = snapshot.rows(rows) @ vector
        else:
            rows = self._coarse(snapshot, vector, rows, pool)
            scores = snapshot.rows(rows) @ vector
        live = np.isfinite(scores)
        rows, scores = rows[live], scores[live]
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        ids = snapshot.ids[rows[top]]
        order = sorted(range(len(top)), key=lambda i: (-float(scores[top[i]]), int(ids[i])))
        return [(int(ids[i]), float(scores[top[i]])) for i in order]

    @staticmethod
    def _coarse(snapshot: VectorSnapshot, vector: np.ndarray, rows: np.ndarray | None, pool: int) -> np.ndarray:
        """The ``pool`` rows (of ``rows``, or of all) whose sign codes are nearest the query's in Hamming distance."""
        code = np.packbits(vector > 0).view(np.uint64)
        codes = snapshot.codes if rows is None else snapshot.codes[:, rows]
        distance = np.bitwise_count(codes[0] ^ code[0]).astype(np.uint16)
        word = np.empty(codes.shape[1], dtype=np.uint64)
        for n in range(1, _CODE_WORDS):
            np.bitwise_xor(codes[n], code[n], out=word)
            distance += np.bitwise_count(word)
        if rows is None and snapshot.removed:
            distance[snapshot.dead] = _FAR
        nearest = np.sort(np.argpartition(distance, pool - 1)[:pool])  # in row order: the re-rank reads forward
        return nearest if rows is None else rows[nearest]

    def _current(self, conn: Connection) -> VectorSnapshot:
        generation = embeddings_generation(conn)
        snapshot = self._snapshot
        if snapshot.generation == generation:
            return snapshot
        with self._lock:
            if self._snapshot.generation != generation:
                self._snapshot = self._refreshed(conn, self._snapshot)
            return self._snapshot

    def _refreshed(self, conn: Connection, snapshot: VectorSnapshot) -> VectorSnapshot:
        if snapshot.generation < 0 and self.cache is not None:
            snapshot = _read_cache(self.cache) or snapshot
        # One read transaction, so the counter, the ids and the vectors are of the same moment.
        own_transaction = not conn.in_transaction
        if own_transaction:
            conn.execute("BEGIN")
        try:
            updated = self._updated(conn, snapshot)
            if updated is None:
                self.full_loads += 1
                updated = self._load(conn)
        finally:
            if own_transaction:
                conn.execute("COMMIT")
        # A full load leaves every vector unsaved; additions are rewritten once they are a tenth of the library.
        if self.cache is not None and updated.live >= self.cache_from and updated.unsaved >= max(min(2_000, updated.live), updated.live // 10):
            updated = _write_cache(self.cache, updated)
        return updated

    @staticmethod
    def _updated(conn: Connection, snapshot: VectorSnapshot) -> VectorSnapshot | None:
        """The snapshot brought up to date by reading only what changed, or None when the whole index must
        be read again (a reused id, an unknown cache, most of the library new).

        Every insert or delete bumps the counter once; when it moved by exactly the number of rows removed
        plus the number above the snapshot's last id, nothing else happened."""
        if snapshot.generation < 0 or not len(snapshot.ids):
            return None
        generation = embeddings_generation(conn)
        last = int(snapshot.ids[-1])
        added = np.fromiter((r[0] for r in conn.execute("SELECT id FROM embeddings WHERE id > ? ORDER BY id", (last,))),
                            dtype=np.int64)
        if generation - snapshot.generation == len(added):
            # Only additions above the last id (a document ingested): the library's other ids need no reading.
            dead, removed, total = snapshot.dead, snapshot.removed, snapshot.live + len(added)
        else:
            present = np.fromiter((r[0] for r in conn.execute("SELECT id FROM embeddings WHERE id <= ? ORDER BY id",
                                                               (last,))), dtype=np.int64)
            if not np.isin(present, snapshot.ids, assume_unique=True).all():
                return None
            dead = snapshot.dead | ~np.isin(snapshot.ids, present, assume_unique=True)
            removed, total = int(dead.sum()), len(present) + len(added)
            if generation - snapshot.generation != removed - snapshot.removed + len(added):
                return None
        if len(added) > max(2_000, total // 5):
            return None  # reading them one by one would take longer than reading everything
        if not removed < len(snapshot.ids) and not len(added):
            return _empty(generation)
        # The vectors by rowid, one lookup each (sqlite-vec scans its whole table for a rowid range).
        vectors = [row for vector_id in added.tolist() if (row := conn.execute(
            "SELECT rowid, embedding FROM embedding_vectors WHERE rowid = ?", (vector_id,)).fetchone()) is not None]
        if len(vectors) != len(added) or not _same_as_stored(conn, snapshot, dead):
            return None
        ids, matrix = _matrix(vectors)
        tail = _appended(snapshot.tail, matrix)
        return VectorSnapshot(generation, np.concatenate([snapshot.ids, ids]), snapshot.main, tail,
                         np.concatenate([snapshot.codes, sign_codes(matrix)], axis=1),
                         np.concatenate([dead, np.zeros(len(ids), dtype=bool)]), removed,
                         snapshot.unsaved + len(added) + removed - snapshot.removed)

    @staticmethod
    def _load(conn: Connection) -> VectorSnapshot:
        generation = embeddings_generation(conn)
        rows = conn.execute("SELECT rowid, embedding FROM embedding_vectors ORDER BY rowid").fetchall()
        ids, matrix = _matrix(rows)
        if not len(ids):
            return _empty(generation)
        return VectorSnapshot(generation, ids, matrix, _empty().tail, sign_codes(matrix),
                         np.zeros(len(ids), dtype=bool), 0, len(ids))


def _same_as_stored(conn: Connection, snapshot: VectorSnapshot, dead: np.ndarray) -> bool:
    """Whether the index's newest live vector is the library's (a cache file beside a replaced library is not)."""
    alive = np.flatnonzero(~dead)
    if not len(alive):
        return True
    row = int(alive[-1])
    stored = conn.execute("SELECT embedding FROM embedding_vectors WHERE rowid = ?", (int(snapshot.ids[row]),)).fetchone()
    if stored is None:
        return False
    vector = np.frombuffer(stored[0], dtype=np.float32)
    norm = float(np.linalg.norm(vector))
    return norm > 0 and bool(np.allclose(snapshot.rows(np.array([row]))[0], vector / norm, atol=1e-5))


def _appended(matrix: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``matrix`` with ``rows`` below it. The matrix is a view into a larger buffer: rows are written into the
    free space after it (readers of the older snapshot see only their own rows), and the buffer grows by a
    quarter when full, so adding a document does not copy what was added before."""
    size, extra = len(matrix), len(rows)
    buffer = matrix.base if isinstance(matrix.base, np.ndarray) and matrix.base.ndim == 2 else None
    if buffer is None or len(buffer) < size + extra or not np.shares_memory(buffer[:1], matrix[:1]):
        buffer = np.empty((int((size + extra) * 1.25) + 4096, EMBEDDING_DIMENSION), dtype=np.float32)
        buffer[:size] = matrix
    buffer[size:size + extra] = rows
    return buffer[:size + extra]


def _matrix(rows: list[tuple[int, bytes]]) -> tuple[np.ndarray, np.ndarray]:
    """(ids, unit-length float32 matrix) from (rowid, vector blob) rows."""
    if not rows:
        return _empty().ids, _empty().main
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    raw = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), EMBEDDING_DIMENSION)
    norms = np.linalg.norm(raw, axis=1, keepdims=True)
    return ids, raw / np.where(norms == 0.0, 1.0, norms)


def _cache_files(cache: Path) -> tuple[Path, Path]:
    return cache.with_name(cache.name + ".npy"), cache.with_name(cache.name + "-index.npz")


def _read_cache(cache: Path) -> VectorSnapshot | None:
    """The snapshot kept in the cache files, its matrix memory-mapped, or None when there is none usable."""
    matrix_file, index_file = _cache_files(cache)
    try:
        with np.load(index_file, allow_pickle=False) as index:
            stat = matrix_file.stat()
            if int(index["matrix_size"]) != stat.st_size or int(index["matrix_mtime"]) != stat.st_mtime_ns:
                return None
            ids, codes, generation = index["ids"], index["codes"], int(index["generation"])
        main = np.load(matrix_file, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError, KeyError):
        return None
    if main.shape != (len(ids), EMBEDDING_DIMENSION) or codes.shape != (_CODE_WORDS, len(ids)) or not len(ids):
        return None
    return VectorSnapshot(generation, ids, main, _empty().tail, codes, np.zeros(len(ids), dtype=bool), 0, 0)


def _write_cache(cache: Path, snapshot: VectorSnapshot) -> VectorSnapshot:
    """Write the live rows and their codes to the cache files and return the snapshot read from
    them; on a write error (a read-only folder, a full disk) the snapshot as it was."""
    matrix_file, index_file = _cache_files(cache)
    alive = np.flatnonzero(~snapshot.dead)
    suffix = f".{os.getpid()}-{threading.get_ident()}.tmp"
    matrix_tmp, index_tmp = matrix_file.with_name(matrix_file.name + suffix), index_file.with_name(index_file.name + suffix)
    try:
        written = np.lib.format.open_memmap(matrix_tmp, mode="w+", dtype=np.float32,
                                            shape=(len(alive), EMBEDDING_DIMENSION))
        for start in range(0, len(alive), 65_536):
            block = snapshot.rows(alive[start:start + 65_536])
            written[start:start + len(block)] = block
        codes = sign_codes(written)
        written.flush()
        del written
        stat = matrix_tmp.stat()
        with open(index_tmp, "wb") as out:
            np.savez(out, ids=snapshot.ids[alive], codes=codes,
                     generation=np.int64(snapshot.generation), matrix_size=np.int64(stat.st_size),
                     matrix_mtime=np.int64(stat.st_mtime_ns))
        os.replace(matrix_tmp, matrix_file)
        os.replace(index_tmp, index_file)
    except OSError:
        for leftover in (matrix_tmp, index_tmp):
            leftover.unlink(missing_ok=True)
        return replace(snapshot, unsaved=0)
    return _read_cache(cache) or replace(snapshot, unsaved=0)
