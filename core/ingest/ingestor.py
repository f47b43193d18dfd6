"""Ingestion: one PDF in, one complete document in the library, or nothing at all.

For each file: hash it (identical content is stored once), open and check it, then inside ONE
transaction read every page (text, blocks, tables), stitch tables that continue across pages, type
each table into a real SQL table with its cell map, cut chunks, embed what is not yet embedded, and
commit. A failure, a cancellation or a killed process rolls the whole document back.

A page without a text layer is read by OCR first (``core.ingest.ocr``: an invisible text layer on a copy of the
page, then the same reading as any page). A spreadsheet or CSV file (``core.ingest.spreadsheets``) is one
document whose pages are its sheets; its table regions are stored exactly as PDF tables are.

Three things run side by side: the pages' tables are found in worker processes for long documents
(``core.ingest.page_pool``, kept for the whole ``ingest_paths`` call), chunks are embedded on worker threads,
and this thread goes through the pages in order, reports each and writes everything to SQLite.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.errors import Cancelled, CorruptPdf, NoTextLayer, UserError
from core.ingest.chunking import overlap_ratio, table_pieces, text_pieces
from core.ingest.extraction import TableExtractor, stitch_tables
from core.ingest.ocr import ScannedPageReader, ocr_unavailable_reason
from core.ingest.page_pool import PagePool, PooledPages, PoolFailed
from core.ingest.pdf_reader import open_pdf, read_page
from core.ingest.spreadsheets import (
    CELL_HEIGHT,
    CELL_WIDTH,
    MAX_INDEXED_ROWS,
    SHEET_SUFFIXES,
    Workbook,
    open_workbook,
)
from core.jobs import JobContext
from core.library.store import DocumentWriter, Library
from core.reports.document_title import document_title
from core.reports.table_naming import table_name
from core.reports.table_typing import type_table
from models.protocols import Embedder
from models.types import BBox, ExtractedTable, ProgressEvent, TextBlock

# Texts per embedding job, and jobs run side by side. The embedder runs each call on one core (see
# models.embedding), so two jobs use both cores once the pages are read, and share them with the page
# extraction before that.
EMBED_BATCH = 32
EMBED_THREADS = 2
HASH_BLOCK = 1 << 20


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


# Worker processes for table extraction (core.ingest.page_pool), where there are cores to spare for them. On two
# cores this thread and the embedding threads keep both busy already, and the workers' start-up and
# messages only add work (measured on the 200-page benchmark: 10.4-10.6 pages/s with two workers,
# 10.8-10.9 without).
POOL_WORKERS = 2 if usable_cores() >= 4 else 0
# The length from which a document is worth starting them: each takes about a second to start (Python,
# pymupdf, camelot), and a page takes 20-40 ms to extract. With a fast embedder on two cores the pool
# broke even at about 80 pages; with more cores it pays back sooner.
POOL_MIN_PAGES = 60


@dataclass(frozen=True)
class IngestResult:
    path: Path
    status: str  # "added" | "skipped" | "failed" | "cancelled"
    message: str = ""
    document_id: int | None = None
    pages: int = 0
    chunks: int = 0
    tables: int = 0
    ocr_pages: tuple[int, ...] = field(default_factory=tuple)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


# What a folder is searched for: PDFs, and the spreadsheets that come with them (core.ingest.spreadsheets).
INGESTED_SUFFIXES = frozenset({".pdf"}) | SHEET_SUFFIXES


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files as given, folders searched recursively for PDFs and spreadsheets, in a stable order, without repeats."""
    seen: set[Path] = set()
    out: list[Path] = []
    for path in paths:
        candidates = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in INGESTED_SUFFIXES) if path.is_dir() else [path]
        for candidate in candidates:
            key = candidate.resolve()
            if key not in seen:
                seen.add(key)
                out.append(candidate)
    return out


def _counted(*counts: tuple[int, str]) -> str:
    """ "1 page, 12 chunks, 3 tables": counts with their words, singular where one."""
    return ", ".join(f"{n:,} {word}{'' if n == 1 else 's'}" for n, word in counts)


def _heading_above(blocks: Sequence[TextBlock], box: BBox) -> str:
    """A table's heading when the extractor found no caption: the sentence right above it that
    introduces it ("The following table presents revenues by region (in thousands):"), else the
    nearest short line above."""
    above = sorted((b for b in blocks if b.bbox[3] <= box[1] + 2 and overlap_ratio(b.bbox, box) < 0.5),
                   key=lambda b: -b.bbox[3])
    if above and above[0].text.rstrip().endswith(":") and len(above[0].text.split()) <= 45:
        return above[0].text.strip()
    for block in above[:3]:
        if 0 < len(block.text.split()) <= 14:
            return block.text
    return ""


def _context_above(blocks: Sequence[TextBlock], box: BBox) -> str:
    above = [b for b in blocks if b.bbox[3] <= box[1] + 2]
    return " ".join(b.text for b in sorted(above, key=lambda b: -b.bbox[3])[:2])


class Ingestor:
    """Adds PDFs to a library. Not thread-safe: one per worker, with its own ``Library``."""

    def __init__(
        self,
        library: Library,
        embedder: Embedder,
        extractor_factory: Callable[..., TableExtractor] = TableExtractor,
        *,
        pool_workers: int = POOL_WORKERS,
        pool_min_pages: int = POOL_MIN_PAGES,
        ocr: bool = True,
    ) -> None:
        self.library = library
        self.embedder = embedder
        self.extractor_factory = extractor_factory
        self.pool_workers = pool_workers
        self.pool_min_pages = pool_min_pages
        # Scanned pages are read by OCR (core.ingest.ocr) when the engine is installed; else they are only listed.
        self.ocr = ocr and not ocr_unavailable_reason()
        self._pool: PagePool | None = None
        self._in_batch = False  # inside ingest_paths, which owns the pool

    def ingest_paths(
        self,
        paths: Iterable[Path],
        ctx: JobContext | None = None,
        passwords: dict[Path, str] | None = None,
        on_result: Callable[[IngestResult], None] | None = None,
    ) -> list[IngestResult]:
        """Ingest every file; a bad file is reported and the rest go on. Cancelling stops the batch."""
        ctx = ctx or JobContext()
        results: list[IngestResult] = []
        files = expand_paths(paths)
        self._in_batch = True
        finished = False
        try:
            for path in files:
                try:
                    result = self.ingest_file(path, ctx, password=(passwords or {}).get(path))
                except Cancelled:
                    result = IngestResult(path, "cancelled", "Cancelled; nothing from this file was kept.")
                except UserError as exc:
                    result = IngestResult(path, "failed", str(exc))
                except Exception as exc:  # noqa: BLE001 - a bug, but the batch must go on and the user must hear of it
                    result = IngestResult(path, "failed", f"{path.name}: unexpected error while reading ({type(exc).__name__}: {exc}).")
                results.append(result)
                if result.status == "cancelled":
                    self._stop_pool(now=True)  # before anything else: the workers may be mid-page
                if on_result:
                    on_result(result)
                if result.status == "cancelled":
                    break
            finished = True
        finally:
            self._in_batch = False
            self._stop_pool(now=not finished)
        return results

    def _stop_pool(self, now: bool) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            if now:
                pool.terminate()
            else:
                pool.close()

    def _pooled_pages(self, path: Path, password: str | None, pages: int) -> PooledPages | None:
        """The pool's reader for this document: when it is long enough to be worth starting the workers,
        or they are running already (an earlier document of the batch started them)."""
        if not self._in_batch or self.pool_workers < 1 or self.extractor_factory is not TableExtractor:
            return None
        if pages < self.pool_min_pages and not (self._pool is not None and self._pool.running):
            return None
        if self._pool is None:
            self._pool = PagePool(self.pool_workers)
        if self._pool.broken:
            return None
        return self._pool.document(path, password, pages)

    def ingest_file(self, path: Path, ctx: JobContext | None = None, password: str | None = None) -> IngestResult:
        ctx = ctx or JobContext()
        path = Path(path)
        name = path.name
        ctx.report(ProgressEvent("hashing", f"Reading {name}", 0, None, name))
        if not path.is_file():
            raise UserError(f"{path} does not exist or is not a file.")
        sha = file_sha256(path)
        existing = self.library.document_by_hash(sha)
        if existing is not None:
            return IngestResult(path, "skipped", f"{name} is already in the library as {existing.file_name}.",
                                existing.id, existing.page_count, existing.chunk_count, existing.table_count)
        if path.suffix.lower() in SHEET_SUFFIXES:
            book = open_workbook(path)
            try:
                return self._ingest_workbook(path, book, sha, ctx)
            finally:
                book.close()
        doc = open_pdf(path, password)
        try:
            return self._ingest_open(path, doc, sha, ctx, password)
        finally:
            doc.close()

    def _ingest_open(self, path: Path, doc, sha: str, ctx: JobContext, password: str | None) -> IngestResult:  # type: ignore[no-untyped-def]
        name = path.name
        pages = doc.page_count
        conn = self.library.conn
        writer = DocumentWriter(conn, self.embedder)
        pooled = self._pooled_pages(path, password, pages)
        extractor: TableExtractor | None = None

        def page_tables(number: int, wanted: bool) -> list[ExtractedTable]:
            """Page ``number``'s tables (from the pool, or found here). The pool hands every page back,
            in order, so one not ``wanted`` (no text) is still taken from it, then dropped."""
            nonlocal pooled, extractor
            if pooled is not None:
                try:
                    tables = pooled.tables(number, ctx.check)
                    return tables if wanted else []
                except PoolFailed:
                    pooled = None
            if not wanted:
                return []
            if extractor is None:
                extractor = self.extractor_factory(path, doc, password)
            return extractor.page_tables(number)

        scanned: ScannedPageReader | None = None
        embedding: _BackgroundEmbedder | None = None
        if not self.library.claim_content(sha):
            return IngestResult(path, "skipped", f"{name} is already being added to the library by another Folio process.")
        conn.execute("BEGIN IMMEDIATE")
        try:
            if (present := self.library.document_by_hash(sha)) is not None:  # added by another process meanwhile
                conn.execute("ROLLBACK")
                return IngestResult(path, "skipped", f"{name} is already in the library as {present.file_name}.",
                                    present.id, present.page_count, present.chunk_count, present.table_count)
            title = document_title(doc, path)
            document_id = writer.add_document(sha, path, title, pages, os.path.getsize(path))
            embedding = _BackgroundEmbedder(writer, self.embedder, document_id)
            found: list[ExtractedTable] = []
            blocks_by_page: dict[int, tuple[TextBlock, ...]] = {}
            ocr_pages: list[int] = []
            damaged_pages: list[int] = []  # gave nothing while MuPDF reported errors
            chunk_count = 0
            for number in range(1, pages + 1):
                ctx.check()
                ctx.report(ProgressEvent("pages", f"Page {number} of {pages}", number - 1, pages, name))
                page = read_page(doc, number, path)
                if page.damage:
                    damaged_pages.append(number)
                read_by_ocr: list[ExtractedTable] | None = None
                if page.needs_ocr and self.ocr:
                    ctx.report(ProgressEvent("ocr", f"Page {number} of {pages}: reading the scan (OCR)", number - 1,
                                             pages, name))
                    scanned = scanned or ScannedPageReader(self.extractor_factory)
                    page, read_by_ocr, _lines = scanned.read(doc, path, number, password, ctx.check)
                writer.add_page(document_id, number, page.width, page.height, page.text, page.needs_ocr, page.blocks)
                tables = page_tables(number, wanted=bool(page.blocks) and not page.needs_ocr and read_by_ocr is None)
                if page.needs_ocr or read_by_ocr is not None:
                    ocr_pages.append(number)
                if page.needs_ocr:
                    continue
                if read_by_ocr is not None:
                    tables = read_by_ocr
                found.extend(tables)
                # Keep only short lines above tables for headings and scale hints; pages are not kept whole.
                if tables:
                    blocks_by_page[number] = page.blocks
                for piece in text_pieces(page.blocks, [t.bbox for t in tables]):
                    writer.add_chunk(document_id, "text", number, piece.text, piece.boxes)
                    chunk_count += 1
                embedding.schedule()
            if len(ocr_pages) == pages and not self.ocr:
                raise NoTextLayer(
                    f"{name} has no text layer on any page (it looks scanned). It needs OCR before Folio can read it "
                    f"({ocr_unavailable_reason() or 'OCR is turned off'})."
                )
            if len(ocr_pages) == pages and chunk_count == 0:
                raise NoTextLayer(f"{name} looks scanned, and OCR found no text on any of its {pages} page(s).")
            ctx.report(ProgressEvent("tables", "Typing tables", 0, None, name))
            table_count = 0
            taken = writer.taken_table_names()
            tables_on_page: dict[int, int] = {}
            for table in stitch_tables(found):
                ctx.check()
                index = tables_on_page.get(table.page, 0)
                tables_on_page[table.page] = index + 1
                chunk_count += self._store_table(writer, document_id, title, table, blocks_by_page.get(table.page, ()),
                                                 index, taken)
                table_count += 1
            if chunk_count == 0 and table_count == 0 and not ocr_pages:
                raise CorruptPdf(f"{name}: no text, table or image could be read from any of its {pages} page(s); "
                                 "the file is " + ("damaged." if damaged_pages else "damaged or blank."))
            embedding.finish(ctx, name)
            if scanned is not None:
                scanned.close()
                scanned = None
            status, note = "ready", ""
            if ocr_pages:
                listed = ", ".join(str(p) for p in ocr_pages[:10]) + (" ..." if len(ocr_pages) > 10 else "")
                if self.ocr:
                    note = f"{len(ocr_pages)} page(s) read by OCR: {listed}"
                else:
                    status = "partial"
                    note = f"{len(ocr_pages)} page(s) have no text layer and need OCR: {listed}"
            if damaged_pages:
                listed = ", ".join(str(p) for p in damaged_pages[:10]) + (" ..." if len(damaged_pages) > 10 else "")
                status = "partial"
                note = "; ".join(filter(None, [f"{len(damaged_pages)} page(s) could not be read (damaged): {listed}", note]))
            writer.finish_document(document_id, status, note)
            conn.execute("COMMIT")
        except BaseException:
            if scanned is not None:
                scanned.terminate()  # before the rollback: a cancel must not wait for a page being read
            conn.execute("ROLLBACK")
            raise
        finally:
            self.library.release_content(sha)
            if embedding is not None:
                embedding.close()
            close = getattr(extractor, "close", None)  # a factory's extractor may have none
            if close is not None:
                close()
        ctx.report(ProgressEvent("done", f"Added {name}", pages, pages, name))
        summary = f"{name}: " + _counted((pages, "page"), (chunk_count, "chunk"), (table_count, "table")) + "."
        message = note if status == "partial" else f"{summary[:-1]} ({note})." if note else summary
        return IngestResult(path, "added", message,
                            document_id, pages, chunk_count, table_count, tuple(ocr_pages))

    def _ingest_workbook(self, path: Path, book: Workbook, sha: str, ctx: JobContext) -> IngestResult:
        """A spreadsheet or CSV file as one document: each sheet a page (labelled with its name, boxes in
        cell positions), each table region a typed SQL table, the rest text chunks; one transaction."""
        name = path.name
        sheets = len(book.sheet_names)
        conn = self.library.conn
        writer = DocumentWriter(conn, self.embedder)
        embedding: _BackgroundEmbedder | None = None
        conn.execute("BEGIN IMMEDIATE")
        try:
            title = path.stem.replace("_", " ").replace("-", " ").strip() or name
            document_id = writer.add_document(sha, path, title, sheets, os.path.getsize(path), kind="sheet")
            embedding = _BackgroundEmbedder(writer, self.embedder, document_id)
            chunk_count = table_count = 0
            taken = writer.taken_table_names()
            not_indexed: list[str] = []
            for number, sheet_name in enumerate(book.sheet_names, start=1):
                ctx.check()
                ctx.report(ProgressEvent("sheets", f"Sheet {number} of {sheets}: {sheet_name}", number - 1, sheets, name))
                sheet = book.read_sheet(number, sheet_name, ctx.check)
                writer.add_page(document_id, number, sheet.columns * CELL_WIDTH, sheet.rows * CELL_HEIGHT, sheet.text,
                                False, sheet.blocks, label=sheet_name)
                for piece in text_pieces(sheet.blocks, [t.bbox for t in sheet.tables]):
                    writer.add_chunk(document_id, "text", number, piece.text, piece.boxes)
                    chunk_count += 1
                for index, table in enumerate(sheet.tables):
                    ctx.check()
                    chunk_count += self._store_table(writer, document_id, title, table, sheet.blocks, index, taken,
                                                     indexed_rows=MAX_INDEXED_ROWS)
                    table_count += 1
                    if table.n_rows > MAX_INDEXED_ROWS:
                        not_indexed.append(sheet_name)
                embedding.schedule()
            if chunk_count == 0:
                raise UserError(f"{name} holds no data: {'its sheet is' if sheets == 1 else 'every sheet is'} empty.")
            embedding.finish(ctx, name)
            note = ""
            if not_indexed:
                note = (f"rows after the first {MAX_INDEXED_ROWS:,} of large tables (sheet {', '.join(not_indexed)}) "
                        "are in their SQL tables but not in the search index")
            writer.finish_document(document_id, "ready", note)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        finally:
            if embedding is not None:
                embedding.close()
        ctx.report(ProgressEvent("done", f"Added {name}", sheets, sheets, name))
        summary = f"{name}: " + _counted((sheets, "sheet"), (chunk_count, "chunk"), (table_count, "table"))
        return IngestResult(path, "added", f"{summary} ({note})." if note else f"{summary}.", document_id, sheets,
                            chunk_count, table_count)

    def _store_table(self, writer: DocumentWriter, document_id: int, title: str, table: ExtractedTable,
                     blocks: Sequence[TextBlock], index_on_page: int, taken: set[str],
                     indexed_rows: int | None = None) -> int:
        heading = _heading_above(blocks, table.bbox)
        context = " ".join(filter(None, [table.caption, heading, _context_above(blocks, table.bbox)]))
        typed = type_table(table, context)
        name = table_name(title, table.caption or heading, table.page, index_on_page, taken)
        taken.add(name)
        width = len(typed.columns)

        def cell_rows() -> Iterator[tuple[int, int, bool, int, BBox | None, str]]:
            # A generator: a 100,000-row spreadsheet's cell map is written without being held whole.
            for r, row in enumerate(table.rows):
                for c in range(width):
                    ref = table.cells[r][c] if r < len(table.cells) and c < len(table.cells[r]) else None
                    text = row[c] if c < len(row) else ""
                    yield (r, c, r < typed.header_rows, ref.page if ref else table.page, ref.bbox if ref else None, text)

        cells = cell_rows()
        caption = table.caption
        schema = {
            "table_name": name,
            "caption": caption or heading,
            "unit": typed.unit,
            "columns": [[col.name, col.type, list(col.examples)] for col in typed.columns],
        }
        table_id = writer.add_table(
            document_id, name, page=table.page, last_page=max(table.pages or (table.page,)), bbox=table.bbox,
            caption=caption, heading=heading, unit=typed.unit, header_rows=typed.header_rows,
            extractor=table.extractor, columns=typed.columns, rows=typed.rows, row_indices=typed.row_indices,
            cells=cells, schema_json=schema,
        )
        body = [(index, list(table.rows[index])) for index in typed.row_indices[:indexed_rows]]
        title_line = " ".join(filter(None, [caption or heading, f"(unit: {typed.unit})" if typed.unit else ""]))
        pieces = table_pieces(name, title_line, [c.name for c in typed.columns], [c.header for c in typed.columns], body)
        for piece in pieces:
            boxes, page = self._row_boxes(table, piece.rows)
            writer.add_chunk(document_id, "table", page, piece.text, boxes, table_id, piece.first_row, piece.last_row)
        return len(pieces)

    @staticmethod
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

class _BackgroundEmbedder:
    """Embeds chunks on worker threads while the caller goes on reading pages.

    ONNX Runtime releases the GIL, so embedding page N's chunks overlaps with extracting page N+1's
    tables. Only the caller's thread touches SQLite: it schedules what is missing and writes the
    vectors that are ready, in the order they were scheduled (so the rows do not depend on which
    thread finished first).
    """

    def __init__(self, writer: DocumentWriter, embedder: Embedder, document_id: int,
                 threads: int = EMBED_THREADS) -> None:
        self.writer = writer
        self.embedder = embedder
        self.document_id = document_id
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="embed")
        self._pending: list[tuple[list[str], Future[np.ndarray]]] = []
        self._scheduled: set[str] = set()
        self._after_chunk = 0  # chunks up to this id are all scheduled (or were embedded before)
        self.total = 0

    def schedule(self, minimum: int = EMBED_BATCH) -> None:
        """Queue this document's unembedded chunks once at least ``minimum`` of them wait."""
        self.write_ready()
        last_chunk = self.writer.last_chunk_id(self.document_id)
        missing = [(h, t) for h, t in self.writer.missing_embeddings(self.document_id, self._after_chunk)
                   if h not in self._scheduled]
        if not missing or len(missing) < minimum:
            return
        self._after_chunk = last_chunk
        jobs = -(-len(missing) // EMBED_BATCH)
        size = -(-len(missing) // jobs)  # equal jobs, so the last one does not run alone for long
        for start in range(0, len(missing), size):
            batch = missing[start : start + size]
            hashes = [digest for digest, _ in batch]
            self._scheduled.update(hashes)
            self._pending.append((hashes, self._pool.submit(self.embedder.embed, [text for _, text in batch])))
            self.total += len(batch)

    def write_ready(self) -> None:
        while self._pending and self._pending[0][1].done():
            hashes, future = self._pending.pop(0)
            self.writer.add_embeddings(hashes, future.result())

    def finish(self, ctx: JobContext, name: str) -> None:
        self.schedule(minimum=1)
        while self._pending:
            ctx.check()
            done = self.total - sum(len(h) for h, _ in self._pending)
            ctx.report(ProgressEvent("embedding", f"Embedding chunks ({done} of {self.total})", done, self.total, name))
            hashes, future = self._pending.pop(0)
            self.writer.add_embeddings(hashes, future.result())

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
