"""Ingestion: one PDF in, one complete document in the library, or nothing at all.

For each file: hash it (identical content is stored once), open and check it, read every page (text, blocks,
tables), stitch tables that continue across pages, type each table, cut chunks and embed what is not yet
embedded, all into a staged document held in memory (``core.ingest.staging``); then write it in ONE short
transaction. The library's write lock is held for that write only (a second or two for a 10-K), so another
process adding another file waits seconds, not the length of a read. A failure, a cancellation or a killed
process leaves nothing of the document in the library.

A page without a text layer is read by OCR first (``core.ingest.ocr``: an invisible text layer on a copy of the
page, then the same reading as any page). A spreadsheet or CSV file (``core.ingest.spreadsheets``) is one
document whose pages are its sheets; its table regions are stored exactly as PDF tables are.

Three things run side by side: the pages' tables are found in worker processes for long documents
(``core.ingest.page_pool``, kept for the whole ``ingest_paths`` call), chunks are embedded on worker threads,
and this thread goes through the pages in order, reports each, and at the end writes everything to SQLite.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from core.errors import Cancelled, CorruptPdf, NoTextLayer, UserError
from core.ingest.extraction import TableExtractor, stitch_tables
from core.ingest.file_names import display_name, readable_path
from core.ingest.ocr import ScannedPageReader, ocr_unavailable_reason
from core.ingest.page_pool import PagePool, PooledPages, PoolFailed
from core.ingest.pdf_reader import open_pdf, read_page
from core.ingest.spreadsheets import (
    CELL_HEIGHT,
    CELL_WIDTH,
    MAX_EMBEDDED_ROWS,
    MAX_INDEXED_ROWS,
    SHEET_SUFFIXES,
    Workbook,
    open_workbook,
)
from core.ingest.staging import ChunkEmbedder, StagedDocument, StagedPage, heading_above, write_staged
from core.jobs import JobContext
from core.library.db import library_write_error
from core.library.reembedding import reembed
from core.library.store import Library
from core.reports.document_title import document_title
from models.protocols import Embedder
from models.types import NOT_TURNED, Document, ExtractedTable, ProgressEvent, TextBlock, Upright

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
            try:
                key = candidate.resolve()
            except (OSError, RuntimeError):  # a link that loops: kept as named, and refused when it is read
                key = candidate.absolute()
            if key not in seen:
                seen.add(key)
                out.append(candidate)
    return out


def _counted(*counts: tuple[int, str]) -> str:
    """ "1 page, 12 chunks, 3 tables": counts with their words, singular where one."""
    return ", ".join(f"{n:,} {word}{'' if n == 1 else 's'}" for n, word in counts)


def _check_file(path: Path, name: str) -> None:
    """Refuse, with its reason, a path that is not a readable file."""
    if path.is_file():
        return
    if path.is_symlink():
        try:
            path.resolve(strict=True)
        except (OSError, RuntimeError):
            raise UserError(f"{name} is a link that leads nowhere (it points to itself, in a loop, or to a file "
                            "that is gone). Add the file it should point to instead.") from None
    raise UserError(f"{path} does not exist or is not a file.")


@dataclass
class _Read:
    """What reading a file gave: the staged document, its chunks' vectors, the pages read by OCR."""

    staged: StagedDocument
    vectors: dict[str, np.ndarray]
    ocr_pages: tuple[int, ...] = ()


class Ingestor:
    """Adds PDFs and spreadsheets to a library. Not thread-safe: one per worker, with its own ``Library``."""

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
        """Ingest every file; a bad file is reported and the rest go on. Cancelling stops the batch. Vectors another
        embedder made are made again first (core.library.reembedding), so the library keeps one vector space."""
        ctx = ctx or JobContext()
        reembed(self.library, self.embedder, ctx)
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
                except Exception as exc:  # noqa: BLE001 - the batch must go on and the user must hear of it
                    result = IngestResult(path, "failed", self._failure(path, exc))
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

    def _failure(self, path: Path, exc: Exception) -> str:
        """What a person reads when adding a file failed for a reason no reader foresaw: what failed (a full disk, a
        read-only folder, a lock) and what to do, or, for a fault in Folio itself, that it is one."""
        name = display_name(path)
        known = library_write_error(exc, self.library.path, f"{name} was not added")
        if known is not None:
            return str(known)
        return (f"{name}: unexpected error while reading it ({type(exc).__name__}: {exc}). Nothing from it was "
                "kept. This is a fault in Folio: please report it.")

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
        """Read ``path`` whole, without the library's write lock, then write it in one short transaction."""
        ctx = ctx or JobContext()
        path = Path(path)
        name = display_name(path)
        ctx.report(ProgressEvent("hashing", f"Reading {name}", 0, None, name))
        _check_file(path, name)
        try:
            sha = file_sha256(path)
        except OSError as exc:
            raise UserError(f"{name} cannot be read ({exc.strerror or exc}).") from exc
        existing = self.library.document_by_hash(sha)
        if existing is not None:
            return self._skipped(path, existing)
        if not self.library.claim_content(sha):
            return IngestResult(path, "skipped", f"{name} is already being added to the library by another Folio process.")
        try:
            # Readers are given a name they can open (core.ingest.pdf_reader.readable_path); the library keeps the path.
            with readable_path(path) as readable:
                if path.suffix.lower() in SHEET_SUFFIXES:
                    read = self._read_workbook(path, readable, sha, ctx)
                else:
                    read = self._read_pdf(path, readable, sha, ctx, password)
            written = write_staged(self.library, read.staged, self.embedder, read.vectors, ctx, name)
        finally:
            self.library.release_content(sha)
        if written.present is not None:
            return self._skipped(path, written.present)
        staged = read.staged
        ctx.report(ProgressEvent("done", f"Added {name}", staged.page_count, staged.page_count, name))
        unit = "sheet" if staged.kind == "sheet" else "page"
        chunks = len(staged.chunks) + staged.table_chunk_count
        summary = f"{name}: " + _counted((staged.page_count, unit), (chunks, "chunk"), (len(staged.tables), "table"))
        note = staged.note
        message = note if staged.status == "partial" else f"{summary} ({note})." if note else f"{summary}."
        return IngestResult(path, "added", message, written.document_id, staged.page_count, chunks,
                            len(staged.tables), read.ocr_pages)

    @staticmethod
    def _skipped(path: Path, present: Document) -> IngestResult:
        return IngestResult(path, "skipped", f"{display_name(path)} is already in the library as {present.file_name}.",
                            present.id, present.page_count, present.chunk_count, present.table_count)

    def _read_pdf(self, path: Path, readable: Path, sha: str, ctx: JobContext, password: str | None) -> _Read:
        doc = open_pdf(readable, password)
        try:
            return self._read_open_pdf(path, readable, doc, sha, ctx, password)
        finally:
            doc.close()

    def _read_open_pdf(self, path: Path, readable: Path, doc, sha: str, ctx: JobContext,  # type: ignore[no-untyped-def]
                       password: str | None) -> _Read:
        name = readable.name
        pages = doc.page_count
        pooled = self._pooled_pages(readable, password, pages)
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
                extractor = self.extractor_factory(readable, doc, password)
            return extractor.page_tables(number)

        staged = StagedDocument(sha, path, document_title(doc, readable), pages, os.path.getsize(path))
        embedding = ChunkEmbedder(self.library, self.embedder)
        scanned: ScannedPageReader | None = None
        try:
            found: list[ExtractedTable] = []
            blocks_by_page: dict[int, tuple[TextBlock, ...]] = {}
            uprights: dict[int, Upright] = {}  # how each page with tables is turned for display
            ocr_pages: list[int] = []
            damaged_pages: list[int] = []  # gave nothing while MuPDF reported errors
            for number in range(1, pages + 1):
                ctx.check()
                ctx.report(ProgressEvent("pages", f"Page {number} of {pages}", number - 1, pages, name))
                page = read_page(doc, number, readable)
                if page.damage:
                    damaged_pages.append(number)
                read_by_ocr: list[ExtractedTable] | None = None
                if page.needs_ocr and self.ocr:
                    ctx.report(ProgressEvent("ocr", f"Page {number} of {pages}: reading the scan (OCR)", number - 1,
                                             pages, name))
                    scanned = scanned or ScannedPageReader(self.extractor_factory)
                    page, read_by_ocr, _lines = scanned.read(doc, readable, number, password, ctx.check)
                staged.add_page(StagedPage(number, page.width, page.height, page.text, page.needs_ocr, page.blocks))
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
                    uprights[number] = page.upright
                embedding.add(staged.add_text(page.blocks, [t.bbox for t in tables]))
            if len(ocr_pages) == pages and not self.ocr:
                raise NoTextLayer(
                    f"{name} has no text layer on any page (it looks scanned). It needs OCR before Folio can read it "
                    f"({ocr_unavailable_reason() or 'OCR is turned off'})."
                )
            ctx.report(ProgressEvent("tables", "Typing tables", 0, None, name))
            taken = self.library.taken_table_names()
            tables_on_page: dict[int, int] = {}
            def title_of(table: ExtractedTable) -> str:  # a family's members are told apart by their titles
                return table.caption or heading_above(blocks_by_page.get(table.page, ()), table.bbox,
                                                      uprights.get(table.page, NOT_TURNED))

            for table in stitch_tables(found, title_of):
                ctx.check()
                index = tables_on_page.get(table.page, 0)
                tables_on_page[table.page] = index + 1
                embedding.add(staged.add_table(table, blocks_by_page.get(table.page, ()), index, taken,
                                               upright=uprights.get(table.page, NOT_TURNED)).chunks)
            if not staged.chunks and not staged.tables:
                # A scan whose text is all table is read (its tables are its content); one with nothing is not.
                if len(ocr_pages) == pages:
                    raise NoTextLayer(f"{name} looks scanned, and OCR found no text on any of its {pages} page(s).")
                if not ocr_pages:
                    raise CorruptPdf(f"{name}: no text, table or image could be read from any of its {pages} page(s); "
                                     "the file is " + ("damaged." if damaged_pages else "damaged or blank."))
            embedding.finish(ctx, name)
            if scanned is not None:
                scanned.close()
                scanned = None
            staged.status, staged.note = _status(ocr_pages, damaged_pages, self.ocr)
            return _Read(staged, embedding.vectors, tuple(ocr_pages))
        except BaseException:
            if scanned is not None:
                scanned.terminate()  # a cancel must not wait for a page being read
            raise
        finally:
            embedding.close()
            close = getattr(extractor, "close", None)  # a factory's extractor may have none
            if close is not None:
                close()

    def _read_workbook(self, path: Path, readable: Path, sha: str, ctx: JobContext) -> _Read:
        """A spreadsheet or CSV file as one document: each sheet a page (labelled with its name, boxes in
        cell positions), each table region a typed SQL table, the rest text chunks."""
        book = open_workbook(readable)
        try:
            return self._read_open_workbook(path, book, sha, ctx)
        finally:
            book.close()

    def _read_open_workbook(self, path: Path, book: Workbook, sha: str, ctx: JobContext) -> _Read:
        name = book.name
        sheets = len(book.sheet_names)
        title = Path(name).stem.replace("_", " ").replace("-", " ").strip() or name
        staged = StagedDocument(sha, path, title, sheets, os.path.getsize(path), kind="sheet")
        embedding = ChunkEmbedder(self.library, self.embedder)
        try:
            taken = self.library.taken_table_names()
            not_indexed: list[str] = []
            for number, sheet_name in enumerate(book.sheet_names, start=1):
                ctx.check()
                ctx.report(ProgressEvent("sheets", f"Sheet {number} of {sheets}: {sheet_name}", number - 1, sheets, name))
                sheet = book.read_sheet(number, sheet_name, ctx.check)
                staged.add_page(StagedPage(number, sheet.columns * CELL_WIDTH, sheet.rows * CELL_HEIGHT, sheet.text,
                                           False, sheet.blocks, label=sheet_name))
                embedding.add(staged.add_text(sheet.blocks, [t.bbox for t in sheet.tables]))
                for index, table in enumerate(sheet.tables):
                    ctx.check()
                    embedding.add(staged.add_table(table, sheet.blocks, index, taken, indexed_rows=MAX_INDEXED_ROWS,
                                                   embedded_rows=MAX_EMBEDDED_ROWS).chunks)
                    if table.n_rows > MAX_INDEXED_ROWS:
                        not_indexed.append(sheet_name)
            if not staged.chunks and not staged.tables:
                raise UserError(f"{name} holds no data: {'its sheet is' if sheets == 1 else 'every sheet is'} empty.")
            embedding.finish(ctx, name)
            notes = [*book.notes]
            if not_indexed:
                notes.append(f"rows after the first {MAX_INDEXED_ROWS:,} of large tables (sheet {', '.join(not_indexed)}) "
                             "are in their SQL tables but not in the search index")
            staged.note = "; ".join(notes)
            return _Read(staged, embedding.vectors)
        finally:
            embedding.close()


def _status(ocr_pages: list[int], damaged_pages: list[int], ocr: bool) -> tuple[str, str]:
    """A PDF's status and note: pages read by OCR (or left without text when OCR is off), damaged pages."""
    status, note = "ready", ""
    if ocr_pages:
        listed = ", ".join(str(p) for p in ocr_pages[:10]) + (" ..." if len(ocr_pages) > 10 else "")
        if ocr:
            note = f"{len(ocr_pages)} page(s) read by OCR: {listed}"
        else:
            status = "partial"
            note = f"{len(ocr_pages)} page(s) have no text layer and need OCR: {listed}"
    if damaged_pages:
        listed = ", ".join(str(p) for p in damaged_pages[:10]) + (" ..." if len(damaged_pages) > 10 else "")
        status = "partial"
        note = "; ".join(filter(None, [f"{len(damaged_pages)} page(s) could not be read (damaged): {listed}", note]))
    return status, note
