"""A document staged for the library: everything ingestion read from one file (its pages, its tables typed and
named, its chunks and their vectors), held in memory while the file is read, then written in ONE short
transaction (``write_staged``).

Reading a 10-K takes a minute or two; writing what was read takes a second or two. Holding the library's write
lock only for that second lets another Folio process, or the window's next file, add its own document meanwhile,
and a crash, a kill or a cancel while the file is read leaves nothing behind, as before.

What depends on the library is decided twice: a table's name and which chunks need a vector are chosen from
what the library holds while the file is read, and looked at again under the write lock, where a name another
process took meanwhile is chosen anew (its chunks re-cut and embedded then) and a vector another process stored
meanwhile is not stored twice.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from core.ingest.chunking import overlap_ratio, table_pieces, text_pieces
from core.jobs import JobContext
from core.library.db import Connection, busy_error, write_transaction
from core.library.store import DocumentWriter, Library, content_hash, embedding_text
from core.reports.table_facts import with_legend
from core.reports.table_naming import table_name
from core.reports.table_typing import TypedTable, type_table
from models.protocols import Embedder
from models.types import NOT_TURNED, BBox, Document, ExtractedTable, ProgressEvent, TextBlock, Upright

# Texts per embedding job, and jobs run side by side. The embedder runs each call on one core (see
# models.embedding), so two jobs use both cores once the pages are read, and share them with the page
# extraction before that.
EMBED_BATCH = 32
EMBED_THREADS = 2
# How long a document waits for another process's write to end before it gives up (checking for a cancel and
# saying that it waits all along); SQLite's own wait inside one attempt is kept short so a cancel is heard.
LOCK_WAIT_SECONDS = 600.0
LOCK_ATTEMPT_MS = 500


@dataclass(frozen=True)
class StagedPage:
    number: int
    width: float
    height: float
    text: str
    needs_ocr: bool
    blocks: tuple[TextBlock, ...]
    label: str = ""


@dataclass(frozen=True)
class StagedChunk:
    kind: str  # "text" | "table"
    page: int
    text: str
    boxes: tuple[BBox, ...]
    first_row: int | None = None
    last_row: int | None = None
    embedded: bool = True
    """Whether it gets a vector (rows far down a long table are found by their words only)."""

    @property
    def content_hash(self) -> str:
        return content_hash(self.text)


@dataclass
class StagedTable:
    """A table as it will be stored: found, typed, headed and named; ``chunks`` are its Markdown row runs."""

    table: ExtractedTable
    typed: TypedTable
    heading: str
    index_on_page: int
    name: str
    indexed_rows: int | None
    embedded_rows: int | None = None
    chunks: list[StagedChunk] = field(default_factory=list)

    @property
    def title(self) -> str:
        return self.table.caption or self.heading


@dataclass
class StagedDocument:
    """One file's content, ready to be written. ``pages`` and ``chunks`` (its text chunks) in page order."""

    sha256: str
    path: Path
    title: str
    page_count: int
    size_bytes: int
    kind: str = "pdf"
    pages: list[StagedPage] = field(default_factory=list)
    chunks: list[StagedChunk] = field(default_factory=list)
    tables: list[StagedTable] = field(default_factory=list)
    status: str = "ready"
    note: str = ""

    def add_page(self, page: StagedPage) -> None:
        self.pages.append(page)

    def add_text(self, blocks: Sequence[TextBlock], table_boxes: Sequence[BBox]) -> list[StagedChunk]:
        """Cut a page's prose (the blocks outside its tables) into text chunks; return them."""
        added = [StagedChunk("text", piece.page, piece.text, piece.boxes) for piece in text_pieces(blocks, table_boxes)]
        self.chunks.extend(added)
        return added

    def add_table(self, table: ExtractedTable, blocks: Sequence[TextBlock], index_on_page: int, taken: set[str],
                  indexed_rows: int | None = None, embedded_rows: int | None = None,
                  upright: Upright = NOT_TURNED) -> StagedTable:
        """Type ``table`` (reading its scale and periods from its caption and the lines above it in ``blocks``, above
        as the page is displayed: ``upright``, see ``PageContent``), name it (a name not in ``taken``, which gets it)
        and cut its chunks: of its first ``indexed_rows`` body rows (all by default), the first ``embedded_rows``
        embedded."""
        heading = heading_above(blocks, table.bbox, upright)
        context = " ".join(filter(None, [table.caption, heading, _context_above(blocks, table.bbox, upright)]))
        typed = type_table(table, context)
        # headers a legend explains, in the caption or the prose of the page, read with their meaning ("Dec (distance
        # from Ecuador in km)"): in the schema the model reads and in the chunks a question finds
        typed = replace(typed, columns=with_legend(typed.columns, table.caption, " ".join(b.text for b in blocks)))
        name = table_name(self.title, table.caption or heading, table.page, index_on_page, taken)
        taken.add(name)
        staged = StagedTable(table, typed, heading, index_on_page, name, indexed_rows, embedded_rows)
        staged.chunks = table_chunks(staged)
        self.tables.append(staged)
        return staged

    @property
    def table_chunk_count(self) -> int:
        return sum(len(t.chunks) for t in self.tables)

    def all_chunks(self) -> Iterator[StagedChunk]:
        yield from self.chunks
        for table in self.tables:
            yield from table.chunks


def _turned(box: BBox, upright: Upright) -> BBox:
    """``box`` on the page as displayed (``upright``: see ``PageContent``)."""
    if upright == NOT_TURNED:
        return box
    a, b, c, d, e, f = upright
    xs = [a * x + c * y + e for x in (box[0], box[2]) for y in (box[1], box[3])]
    ys = [b * x + d * y + f for x in (box[0], box[2]) for y in (box[1], box[3])]
    return (min(xs), min(ys), max(xs), max(ys))


def _blocks_above(blocks: Sequence[TextBlock], box: BBox, upright: Upright) -> list[tuple[BBox, TextBlock]]:
    """The blocks above ``box`` on the page as displayed, nearest first, with their displayed boxes."""
    box = _turned(box, upright)
    turned = [(_turned(b.bbox, upright), b) for b in blocks]
    return sorted(((t, b) for t, b in turned if t[3] <= box[1] + 2), key=lambda tb: -tb[0][3])


def heading_above(blocks: Sequence[TextBlock], box: BBox, upright: Upright = NOT_TURNED) -> str:
    """A table's heading when the extractor found no caption: the sentence right above it that
    introduces it ("The following table presents revenues by region (in thousands):"), else the
    nearest short line above; above as the page is displayed (``upright``: a page turned by its /Rotate
    entry prints its tables' headings to their left or right in page coordinates)."""
    table = _turned(box, upright)
    above = [b for t, b in _blocks_above(blocks, box, upright) if overlap_ratio(t, table) < 0.5]
    if above and above[0].text.rstrip().endswith(":") and len(above[0].text.split()) <= 45:
        return above[0].text.strip()
    for block in above[:3]:
        if 0 < len(block.text.split()) <= 14:
            return block.text
    return ""


def _context_above(blocks: Sequence[TextBlock], box: BBox, upright: Upright = NOT_TURNED) -> str:
    return " ".join(b.text for _, b in _blocks_above(blocks, box, upright)[:2])


def table_chunks(staged: StagedTable) -> list[StagedChunk]:
    """A table's Markdown row runs under its name and title (the first ``indexed_rows`` body rows only)."""
    table, typed = staged.table, staged.typed
    body = [(index, list(table.rows[index])) for index in typed.row_indices[:staged.indexed_rows]]
    title_line = " ".join(filter(None, [staged.title, f"(unit: {typed.unit})" if typed.unit else ""]))
    pieces = table_pieces(staged.name, title_line, [c.name for c in typed.columns], [c.header for c in typed.columns],
                          body)
    rows = typed.row_indices
    embedded_before = rows[staged.embedded_rows] if staged.embedded_rows is not None and staged.embedded_rows < len(rows) \
        else None
    chunks = []
    for piece in pieces:
        boxes, page = _row_boxes(table, piece.rows)
        embedded = embedded_before is None or piece.first_row < embedded_before
        chunks.append(StagedChunk("table", page, piece.text, tuple(boxes), piece.first_row, piece.last_row, embedded))
    return chunks


def _row_boxes(table: ExtractedTable, rows: Sequence[int]) -> tuple[list[BBox], int]:
    """One box per row of the chunk (the union of its cells), on the chunk's first page."""
    boxes: list[BBox] = []
    first_page = table.page
    for index in rows:
        refs = [ref for ref in (table.cells[index] if index < len(table.cells) else ()) if ref is not None]
        if not refs:
            continue
        if not boxes:
            first_page = refs[0].page
        refs = [ref for ref in refs if ref.page == first_page]
        if refs:
            boxes.append((min(r.bbox[0] for r in refs), min(r.bbox[1] for r in refs),
                          max(r.bbox[2] for r in refs), max(r.bbox[3] for r in refs)))
    return (boxes or [table.bbox]), first_page


class ChunkEmbedder:
    """Embeds staged chunks on worker threads while the caller goes on reading pages.

    ONNX Runtime releases the GIL, so embedding page N's chunks overlaps with extracting page N+1's tables.
    Content the library already has a vector for, or that this document repeats, is embedded once. Only the
    caller's thread touches SQLite (to ask which contents are new).
    """

    def __init__(self, library: Library, embedder: Embedder, threads: int = EMBED_THREADS) -> None:
        self.library = library
        self.embedder = embedder
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="embed")
        self._waiting: dict[str, str] = {}  # content hash -> what to embed, not yet sent
        self._pending: list[tuple[list[str], Future[np.ndarray]]] = []
        self._seen: set[str] = set()
        self.vectors: dict[str, np.ndarray] = {}
        self.total = 0

    def add(self, chunks: Sequence[StagedChunk], minimum: int = EMBED_BATCH) -> None:
        """Queue what these chunks need embedded; send it to the threads once ``minimum`` texts wait."""
        new = {}
        for chunk in chunks:
            digest = chunk.content_hash
            if chunk.embedded and digest not in self._seen:
                self._seen.add(digest)
                new[digest] = embedding_text(chunk.kind, chunk.text)
        for digest in self.library.embedded_hashes(list(new)):
            del new[digest]
        self._waiting.update(new)
        if self._waiting and len(self._waiting) >= minimum:
            self._send()

    def _send(self) -> None:
        waiting = list(self._waiting.items())
        self._waiting.clear()
        jobs = -(-len(waiting) // EMBED_BATCH)
        size = -(-len(waiting) // jobs)  # equal jobs, so the last one does not run alone for long
        for start in range(0, len(waiting), size):
            batch = waiting[start : start + size]
            self._pending.append(([d for d, _ in batch], self._pool.submit(self.embedder.embed, [t for _, t in batch])))
            self.total += len(batch)

    def _take(self) -> None:
        hashes, future = self._pending.pop(0)
        self.vectors.update(zip(hashes, future.result(), strict=True))

    def finish(self, ctx: JobContext, name: str) -> None:
        """Embed what is left and wait for every vector, reporting progress once per batch sent (so the same
        document reports the same steps however fast the threads were)."""
        if self._waiting:
            self._send()
        while self._pending:
            ctx.check()
            done = self.total - sum(len(h) for h, _ in self._pending)
            ctx.report(ProgressEvent("embedding", f"Embedding chunks ({done} of {self.total})", done, self.total, name))
            self._take()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


@dataclass(frozen=True)
class Written:
    document_id: int | None
    """None when the same content was added by another process meanwhile (``present`` then names it)."""
    present: Document | None = None


def write_staged(library: Library, staged: StagedDocument, embedder: Embedder, vectors: dict[str, np.ndarray],
                 ctx: JobContext, name: str) -> Written:
    """Write a staged document in one transaction: all of it, or (on any failure, a cancel or a kill) nothing.

    Waits for another process's write to end (saying so), names again any table whose name was taken
    meanwhile, and turns a failure to write (disk full, read-only, locked) into a ``LibraryError`` saying what
    to do."""
    writer = DocumentWriter(library.conn, embedder)
    with write_transaction(library.conn, f"{name} was not added", begin=lambda conn: _begin(conn, ctx, name)):
        if (present := library.document_by_hash(staged.sha256)) is not None:  # added by another process meanwhile
            return Written(None, present)
        ctx.report(ProgressEvent("writing", "Writing to the library", 0, None, name))
        document_id = writer.add_document(staged.sha256, staged.path, staged.title, staged.page_count,
                                          staged.size_bytes, kind=staged.kind)
        for page in staged.pages:
            writer.add_page(document_id, page.number, page.width, page.height, page.text, page.needs_ocr,
                            page.blocks, label=page.label)
        for chunk in staged.chunks:
            writer.add_chunk(document_id, chunk.kind, chunk.page, chunk.text, chunk.boxes)
        taken = library.taken_table_names()
        for table in staged.tables:
            ctx.check()
            if table.name.lower() in {t.lower() for t in taken}:  # another document took it meanwhile
                table.name = table_name(staged.title, table.title, table.table.page, table.index_on_page, taken)
                table.chunks = table_chunks(table)
            taken.add(table.name)
            table_id = _write_table(writer, document_id, table)
            for chunk in table.chunks:
                writer.add_chunk(document_id, chunk.kind, chunk.page, chunk.text, chunk.boxes, table_id,
                                 chunk.first_row, chunk.last_row)
        _write_vectors(library, writer, staged, embedder, vectors)
        writer.finish_document(document_id, staged.status, staged.note)
    return Written(document_id)


def _begin(conn: Connection, ctx: JobContext, name: str) -> None:
    """Take the write lock, waiting (cancellably, and saying so) while another process writes."""
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    (timeout_ms,) = conn.execute("PRAGMA busy_timeout").fetchone()
    conn.execute(f"PRAGMA busy_timeout = {LOCK_ATTEMPT_MS}")
    try:
        said = False
        while True:
            try:
                conn.execute("BEGIN IMMEDIATE")
                return
            except Exception as exc:
                if not busy_error(exc) or time.monotonic() >= deadline:
                    raise
            ctx.check()
            if not said:
                ctx.report(ProgressEvent("waiting", "Waiting for another Folio process to finish writing", 0, None,
                                         name))
                said = True
    finally:
        conn.execute(f"PRAGMA busy_timeout = {int(timeout_ms)}")


@dataclass(frozen=True)
class _CellMap:
    """A table's cell map as the store writes it: (row, column, is header, page, box, text) for every cell, made row
    by row each time it is read, so a 100,000-row spreadsheet's is written without being held whole."""

    table: ExtractedTable
    header_rows: int
    width: int

    def __iter__(self) -> Iterator[tuple[int, int, bool, int, BBox | None, str]]:
        table = self.table
        cells, known = table.cells, len(table.cells)
        for r, row in enumerate(table.rows):
            refs = cells[r] if r < known else ()
            header = r < self.header_rows
            for c in range(self.width):
                ref = refs[c] if c < len(refs) else None
                text = row[c] if c < len(row) else ""
                yield (r, c, header, ref.page if ref else table.page, ref.bbox if ref else None, text)


def _write_table(writer: DocumentWriter, document_id: int, staged: StagedTable) -> int:
    table, typed = staged.table, staged.typed
    schema = {
        "table_name": staged.name,
        "caption": staged.title,
        "unit": typed.unit,
        "columns": [[col.name, col.type, list(col.examples)] for col in typed.columns],
    }
    return writer.add_table(
        document_id, staged.name, page=table.page, last_page=max(table.pages or (table.page,)), bbox=table.bbox,
        caption=table.caption, heading=staged.heading, unit=typed.unit, header_rows=typed.header_rows,
        extractor=table.extractor, columns=typed.columns, rows=typed.rows, row_indices=typed.row_indices,
        cells=_CellMap(table, typed.header_rows, len(typed.columns)), schema_json=schema,
    )


def _write_vectors(library: Library, writer: DocumentWriter, staged: StagedDocument, embedder: Embedder,
                   vectors: dict[str, np.ndarray]) -> None:
    """Store a vector for every content of the document the library has none for: those embedded while the file
    was read, and (rarely) those of chunks re-cut under the lock."""
    wanted: dict[str, str] = {}
    for chunk in staged.all_chunks():
        if chunk.embedded:
            wanted.setdefault(chunk.content_hash, embedding_text(chunk.kind, chunk.text))
    stored = set(library.embedded_hashes(list(wanted)))
    missing = [d for d in wanted if d not in stored]
    late = [d for d in missing if d not in vectors]
    if late:
        vectors = {**vectors, **dict(zip(late, embedder.embed([wanted[d] for d in late]), strict=True))}
    for start in range(0, len(missing), 512):
        batch = missing[start : start + 512]
        writer.add_embeddings(batch, np.stack([vectors[d] for d in batch]))


