"""A library's vectors kept in one vector space: those made by another embedder than the one in use are made
again, and search refuses to compare vectors of two embedders.

Every vector records the embedder that made it (``embeddings.model``). When Folio's embedder changes (issue 24:
the float MiniLM graph became an int8 one, cosine 0.99 to it but not the same space), a library made before holds
vectors a query embedded today must not be compared with. ``reembed`` makes them again from their chunks' text, a
batch at a time: each batch in its own transaction (the old rows deleted and new ones added, so the vector index
sees the change through the embeddings counter), with progress, and a cancel between batches that keeps the
batches done; the next open goes on from there. Ingestion and answering run it before they touch vectors, and the
window runs it as a job when it opens a library.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from core.errors import LibraryError
from core.jobs import JobContext
from core.library.db import Connection, write_transaction
from core.library.store import DocumentWriter, Library, embedding_text
from models.protocols import Embedder
from models.types import ProgressEvent

BATCH = 256
"""Vectors made again per transaction (a few seconds of embedding on one core)."""
THREADS = 2
"""Embedding calls run side by side (the embedder runs each on one core, see models.embedding)."""


class OutdatedEmbeddings(LibraryError):
    """The library holds vectors of another embedder than the one searching it."""


def outdated_embeddings(conn: Connection, model: str) -> int:
    """How many of the library's vectors another embedder than ``model`` made."""
    return int(conn.execute("SELECT COUNT(*) FROM embeddings WHERE model < ? OR model > ?", (model, model)).fetchone()[0])


def check_embeddings(conn: Connection, model: str) -> None:
    """Raise ``OutdatedEmbeddings`` when some vectors were made by another embedder than ``model``."""
    row = conn.execute("SELECT model FROM embeddings WHERE model < ? OR model > ? LIMIT 1", (model, model)).fetchone()
    if row is not None:
        raise OutdatedEmbeddings(
            f"This library's search vectors were made by another embedder ({row[0]}, not {model}), and the two "
            "cannot be compared. Folio makes them again when it opens the library; open it again to finish."
        )


def reembed(library: Library, embedder: Embedder, ctx: JobContext | None = None) -> int:
    """Make again every vector another embedder made; return how many were made. Cancelling keeps the batches done."""
    ctx = ctx or JobContext()
    conn = library.conn
    total = outdated_embeddings(conn, embedder.name)
    if not total:
        return 0
    writer = DocumentWriter(conn, embedder)
    done = 0
    with ThreadPoolExecutor(THREADS, thread_name_prefix="folio-reembed") as pool:
        while True:
            ctx.check()
            ctx.report(ProgressEvent("embedding", f"Updating the search vectors for the new embedder: {done:,} of "
                                                  f"{total:,}", done, total))
            rows = conn.execute(
                "SELECT e.id, e.content_hash, MIN(c.kind), MIN(c.text) FROM embeddings e "
                "JOIN chunks c ON c.content_hash = e.content_hash WHERE e.model < ? OR e.model > ? "
                "GROUP BY e.id ORDER BY e.id LIMIT ?", (embedder.name, embedder.name, BATCH)).fetchall()
            if not rows:
                break
            texts = [embedding_text(kind, text) for _id, _digest, kind, text in rows]
            step = -(-len(texts) // THREADS)
            vectors = np.concatenate(list(pool.map(embedder.embed, [texts[i : i + step] for i in range(0, len(texts), step)])))
            ctx.check()
            with write_transaction(conn, "The search vectors were not updated"):
                _replace(conn, writer, [r[0] for r in rows], [r[1] for r in rows], vectors, embedder.name)
            done += len(rows)
        # Vectors whose chunks are all gone have no text to be made from: they are dropped, as a removal would.
        with write_transaction(conn, "The search vectors were not updated"):
            conn.execute("DELETE FROM embedding_vectors WHERE rowid IN (SELECT id FROM embeddings WHERE model < ? OR "
                         "model > ?)", (embedder.name, embedder.name))
            conn.execute("DELETE FROM embeddings WHERE model < ? OR model > ?", (embedder.name, embedder.name))
    ctx.report(ProgressEvent("embedding", f"Updated {done:,} search vectors for the new embedder", done, total))
    return done


def _replace(conn: Connection, writer: DocumentWriter, ids: Sequence[int], hashes: Sequence[str],
             vectors: np.ndarray, model: str) -> None:
    """Swap these embeddings' vectors for ``vectors`` (new rows), skipping any another process updated meanwhile."""
    still = {r[0] for r in conn.execute(
        "SELECT id FROM embeddings WHERE (model < ? OR model > ?) AND id IN (" + ",".join("?" * len(ids)) + ")",
        [model, model, *ids])}
    keep = [i for i, row_id in enumerate(ids) if row_id in still]
    marks = ",".join("?" * len(keep))
    conn.execute(f"DELETE FROM embedding_vectors WHERE rowid IN ({marks})", [ids[i] for i in keep])
    conn.execute(f"DELETE FROM embeddings WHERE id IN ({marks})", [ids[i] for i in keep])
    writer.add_embeddings([hashes[i] for i in keep], vectors[keep])
