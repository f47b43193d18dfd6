"""The library: one SQLite file holding documents, pages, text blocks, chunks, embeddings, the
extracted tables as real typed SQL tables, and the map from every table cell to its place on a page.

``Library`` is the read side used by the CLI, retrieval and the app; ``DocumentWriter`` is the write
side used by ingestion, always inside one transaction per document (see ``core.ingest.ingestor``).
"""

from __future__ import annotations

import hashlib
import json
import math
import numbers
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO, Self

try:
    import fcntl
except ImportError:  # Windows: two processes adding the same file meet at the transaction instead
    fcntl = None  # type: ignore[assignment]

import numpy as np

from core.errors import LibraryError
from core.library.db import (
    Connection,
    InterfaceError,
    connect,
    inserted_id,
    quote_identifier,
    write_transaction,
)
from core.library.facts import load_facts, load_metadata, refresh_facts, refresh_metadata, store_metadata
from core.library.migrations import migrate
from core.library.sheet_cells import cell_range
from core.reports.document_metadata import TABLE_NAME as METADATA_TABLE
from core.reports.document_metadata import DocumentMetadata, edited_metadata
from core.reports.table_facts import ColumnPeriod, RowFacts, period_columns
from core.reports.table_typing import SQL_INTEGERS
from models.protocols import Embedder
from models.types import (
    BBox,
    CellEvidence,
    Chunk,
    ColumnSchema,
    Document,
    TableSchema,
    TextBlock,
)

LIBRARY_FILE_NAME = "library.sqlite3"


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _boxes_json(boxes: Sequence[BBox]) -> str:
    return json.dumps([[round(v, 2) for v in box] for box in boxes])


def _boxes_from_json(text: str) -> tuple[BBox, ...]:
    return tuple(tuple(box) for box in json.loads(text or "[]"))  # type: ignore[misc]


def _shown(text: str) -> str:
    """Text as people read it: bytes of a file name that are not UTF-8 shown as \ufffd (SQLite text is UTF-8)."""
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _stored_path(path: Path) -> str | bytes:
    """A document's path as stored: its text, or, when the file system's name is not UTF-8, its bytes (a BLOB),
    so the file can be opened again (``Library._document`` turns them back into the same path)."""
    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(text)
    return text


def load_chunks(conn: Connection, ids: Sequence[int]) -> list[Chunk]:
    """The chunks with these ids, in the order given (missing ids are skipped)."""
    if not ids:
        return []
    rows = conn.execute(
        "SELECT c.id, c.document_id, d.file_name, c.kind, c.page, c.text, c.boxes, c.table_id, "
        "CASE WHEN d.kind = 'sheet' THEN (SELECT p.label FROM pages p WHERE p.document_id = c.document_id "
        "AND p.number = c.page) ELSE '' END "
        "FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id IN (" + ",".join("?" * len(ids)) + ")",
        list(ids),
    ).fetchall()
    by_id = {r[0]: Chunk(r[0], r[1], r[2], r[3], r[4], r[5], _boxes_from_json(r[6]), r[7], sheet=r[8] or "")
             for r in rows}
    return [by_id[i] for i in ids if i in by_id]


@dataclass(frozen=True)
class TableInfo:
    """A stored table as the library lists it."""

    id: int
    document_id: int
    document: str
    name: str
    page: int
    last_page: int
    bbox: BBox
    caption: str
    heading: str
    unit: str
    header_rows: int
    row_count: int
    extractor: str
    schema: TableSchema
    stated_scale: str = ""
    """The scale its figures are stated in ("thousand", "million", "billion", "crore", "lakh") or "" (core.reports.table_facts)."""
    currency: str = ""
    """The currency of its figures as a symbol ("$", "\u20ac", "\u20b9") or ""."""
    row_facts: tuple[RowFacts, ...] = ()
    """Each body row's depth, parent line, section and whether it is a total, in ``_row`` order."""
    periods: tuple[ColumnPeriod, ...] = ()
    """The period each figure column holds (column name -> fiscal year, end date, quarter, months)."""

    @property
    def title(self) -> str:
        """Everything that names the table: caption and heading (else its SQL name) and the printed header of its
        first text column, where a statement's title lands when the page prints it as the head of the label column
        ("CONSOLIDATED STATEMENTS OF CASH FLOWS" over "Net income", a caption of only the company's name)."""
        label = next((c.header for c in self.schema.columns if c.type == "TEXT"), "")
        # the SQL name is made of the caption or heading: said again, it would only repeat them
        named = (self.caption, self.heading) if self.caption or self.heading else (self.name,)
        return " ".join(part for part in (*named, label) if part)

    @property
    def total_rows(self) -> tuple[int, ...]:
        """The ``_row`` of every total or subtotal line."""
        return tuple(f.row for f in self.row_facts if f.is_total)

    def parent_of(self, row: int) -> int | None:
        """The ``_row`` of the line a row stands under, or None."""
        return next((f.parent_row for f in self.row_facts if f.row == row), None)

    def period_columns(self, question: str) -> tuple[str, ...]:
        """The columns holding the periods a question names ("FY2018", "fiscal 2018", "2018", "Q2 2023")."""
        return period_columns(self.periods, question)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _insert_all(conn: Connection, sql: str, rows: Callable[[], Iterable[Sequence[Any]]]) -> None:
    """Insert ``rows()``; when SQLite cannot take a value of them, insert them again with every value mended
    (``storable``), so one bad value of a table never fails the whole document (before, a cell read as a
    21-digit integer rolled back a 15-page report)."""
    conn.execute("SAVEPOINT insert_all")
    try:
        conn.executemany(sql, rows())
    except (OverflowError, UnicodeEncodeError, InterfaceError):
        conn.execute("ROLLBACK TO insert_all")
        conn.executemany(sql, (tuple(map(storable, row)) for row in rows()))
    conn.execute("RELEASE insert_all")


def storable(value: Any) -> Any:
    """A value as SQLite can hold it: a whole number past its integers as REAL, text with lone surrogates (bytes
    of no character) with \ufffd in their place, numpy's numbers as Python ones, anything else as its text."""
    if value is None or isinstance(value, bytes):
        return value
    if isinstance(value, numbers.Integral):
        whole = int(value)
        if SQL_INTEGERS[0] <= whole <= SQL_INTEGERS[1]:
            return whole
        return float(whole) if whole.bit_length() < 1024 else math.copysign(math.inf, whole)
    if isinstance(value, numbers.Real):
        return float(value)
    return _LONE_SURROGATE.sub("\ufffd", value if isinstance(value, str) else str(value))


class Library:
    """A library file, opened (and migrated) on construction. One instance per thread."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._claims: dict[str, BinaryIO] = {}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.conn: Connection = connect(self.path)
            migrate(self.conn)
        except LibraryError:
            raise
        except Exception as exc:
            raise LibraryError(f"The library at {self.path} cannot be opened: {exc}") from exc

    @classmethod
    def in_directory(cls, directory: Path) -> Library:
        return cls(Path(directory) / LIBRARY_FILE_NAME)

    def close(self) -> None:
        for sha256 in list(self._claims):
            self.release_content(sha256)
        self.conn.close()

    # -- adding content, across processes ----------------------------------------------------------------

    def _claim_file(self, sha256: str) -> Path:
        return self.path.parent / ".adding" / f"{sha256}.lock"

    def claim_content(self, sha256: str) -> bool:
        """Mark the file with this content as being added by this process, so another process adding the
        same file at the same time learns it and stops (a locked file beside the library, released by
        ``release_content``, ``close``, or the end of the process). False when another process holds it."""
        if sha256 in self._claims or fcntl is None:
            return True
        path = self._claim_file(sha256)
        path.parent.mkdir(exist_ok=True)
        handle = path.open("a+b")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self._claims[sha256] = handle
        return True

    def release_content(self, sha256: str) -> None:
        handle = self._claims.pop(sha256, None)
        if handle is not None:
            # Removed while still locked: a process that opened it meanwhile gets a lock on the removed
            # file, and then finds the document committed (ingestion looks again inside its transaction).
            self._claim_file(sha256).unlink(missing_ok=True)
            handle.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- documents -------------------------------------------------------------------------------------

    def documents(self, where: str = "", params: Sequence[Any] = ()) -> list[Document]:
        """The library's documents (or those matching ``where``, an SQL condition on ``d``) in the order added."""
        rows = self.conn.execute(
            """
            SELECT d.id, d.sha256, d.file_name, d.path, d.title, d.page_count, d.status, d.added_at, d.note,
                   (SELECT COUNT(*) FROM extracted_tables t WHERE t.document_id = d.id),
                   (SELECT COUNT(*) FROM chunks c WHERE c.document_id = d.id), d.kind
            FROM documents d """ + (f"WHERE {where} " if where else "") + "ORDER BY d.added_at, d.id",
            tuple(params),
        ).fetchall()
        return [self._document(r) for r in rows]

    @staticmethod
    def _document(r: Sequence[Any]) -> Document:
        return Document(
            id=r[0], sha256=r[1], file_name=r[2], path=os.fsdecode(r[3]) if isinstance(r[3], bytes) else r[3],
            title=r[4], page_count=r[5], status=r[6], added_at=r[7], note=r[8], table_count=r[9], chunk_count=r[10],
            kind=r[11],
        )

    def document(self, document_id: int) -> Document | None:
        return next(iter(self.documents("d.id = ?", (document_id,))), None)

    def document_by_hash(self, sha256: str) -> Document | None:
        return next(iter(self.documents("d.sha256 = ?", (sha256,))), None)

    def embedded_hashes(self, hashes: Sequence[str]) -> list[str]:
        """Those of the content hashes ``hashes`` the library already holds a vector for."""
        found: list[str] = []
        for start in range(0, len(hashes), 500):
            batch = list(hashes[start : start + 500])
            found += [r[0] for r in self.conn.execute(
                "SELECT content_hash FROM embeddings WHERE content_hash IN (" + ",".join("?" * len(batch)) + ")", batch)]
        return found

    def taken_table_names(self) -> set[str]:
        """Every name in the file's schema; core.reports.table_naming.table_name also refuses the schema's own names."""
        return {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master")}

    def document_metadata(self, document_ids: Sequence[int] | None = None) -> dict[int, DocumentMetadata]:
        """What each document is (issuer, type, period, currency, scale), by document id."""
        return load_metadata(self.conn, document_ids)

    def set_document_metadata(self, document_id: int, changes: dict[str, object]) -> DocumentMetadata:
        """Store a person's corrections to a document's metadata (kept from then on); ValueError on a bad value."""
        with write_transaction(self.conn, "The document's details were not saved"):
            current = load_metadata(self.conn, [document_id]).get(document_id) or refresh_metadata(self.conn, document_id)
            if current is None:
                raise LibraryError("This document is no longer in the library.")
            updated = edited_metadata(current, changes)
            store_metadata(self.conn, document_id, updated)
        return updated

    def delete_document(self, document_id: int) -> None:
        """Remove a document, its data tables and every row that refers to it, in one transaction."""
        with write_transaction(self.conn, "The document was not removed"):
            for (name,) in self.conn.execute(
                "SELECT name FROM extracted_tables WHERE document_id = ?", (document_id,)
            ).fetchall():
                self.conn.execute(f"DROP TABLE IF EXISTS {quote_identifier(name)}")
            self.conn.execute("DELETE FROM documents WHERE id = ?", (document_id,))
            self._drop_unused_embeddings()

    def _drop_unused_embeddings(self) -> None:
        self.conn.execute(
            "DELETE FROM embedding_vectors WHERE rowid IN (SELECT e.id FROM embeddings e WHERE NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.content_hash = e.content_hash))"
        )
        self.conn.execute(
            "DELETE FROM embeddings WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.content_hash = embeddings.content_hash)"
        )

    # -- pages -----------------------------------------------------------------------------------------

    def page_size(self, document_id: int, page: int) -> tuple[float, float] | None:
        row = self.conn.execute(
            "SELECT width, height FROM pages WHERE document_id = ? AND number = ?", (document_id, page)
        ).fetchone()
        return (row[0], row[1]) if row else None

    def page_text(self, document_id: int, page: int) -> str:
        row = self.conn.execute(
            "SELECT text FROM pages WHERE document_id = ? AND number = ?", (document_id, page)
        ).fetchone()
        return row[0] if row else ""

    def page_label(self, document_id: int, page: int) -> str:
        """A spreadsheet page's sheet name ('' for a PDF page)."""
        row = self.conn.execute(
            "SELECT label FROM pages WHERE document_id = ? AND number = ?", (document_id, page)
        ).fetchone()
        return row[0] if row else ""

    def text_blocks(self, document_id: int, page: int) -> list[TextBlock]:
        rows = self.conn.execute(
            "SELECT page, x0, y0, x1, y1, text FROM text_blocks WHERE document_id = ? AND page = ? ORDER BY id",
            (document_id, page),
        ).fetchall()
        return [TextBlock(r[0], (r[1], r[2], r[3], r[4]), r[5]) for r in rows]

    # -- tables ----------------------------------------------------------------------------------------

    def tables(self, document_id: int | None = None) -> list[TableInfo]:
        sql = (
            "SELECT t.id, t.document_id, d.file_name, t.name, t.page, t.last_page, t.x0, t.y0, t.x1, t.y1, "
            "t.caption, t.heading, t.unit, t.header_rows, t.row_count, t.extractor "
            "FROM extracted_tables t JOIN documents d ON d.id = t.document_id"
        )
        params: tuple[Any, ...] = ()
        if document_id is not None:
            sql += " WHERE t.document_id = ?"
            params = (document_id,)
        rows = self.conn.execute(sql + " ORDER BY t.document_id, t.page, t.id", params).fetchall()
        return [self._table_info(r) for r in rows]

    def table_names(self) -> list[str]:
        """The names of the SQL tables extracted from the documents, and the documents' metadata table: all
        that questions' SQL may read."""
        return [*(r[0] for r in self.conn.execute("SELECT name FROM extracted_tables ORDER BY id")), METADATA_TABLE]

    def table(self, name_or_id: str | int) -> TableInfo | None:
        column = "t.id" if isinstance(name_or_id, int) else "t.name"
        row = self.conn.execute(
            "SELECT t.id, t.document_id, d.file_name, t.name, t.page, t.last_page, t.x0, t.y0, t.x1, t.y1, "
            "t.caption, t.heading, t.unit, t.header_rows, t.row_count, t.extractor "
            f"FROM extracted_tables t JOIN documents d ON d.id = t.document_id WHERE {column} = ?",
            (name_or_id,),
        ).fetchone()
        return self._table_info(row) if row else None

    def _table_info(self, r: Sequence[Any]) -> TableInfo:
        table_id = r[0]
        columns = tuple(
            ColumnSchema(name=c[0], type=c[1], header=c[2], unit=c[3], examples=tuple(json.loads(c[4])))
            for c in self.conn.execute(
                "SELECT name, type, header, unit, examples FROM table_columns WHERE table_id = ? ORDER BY position",
                (table_id,),
            )
        )
        schema = TableSchema(
            table_id=table_id, name=r[3], document=r[2], page=r[4], columns=columns, caption=r[10] or r[11],
            unit=r[12], row_count=r[14],
        )
        facts = load_facts(self.conn, table_id)
        return TableInfo(
            id=table_id, document_id=r[1], document=r[2], name=r[3], page=r[4], last_page=r[5],
            bbox=(r[6], r[7], r[8], r[9]), caption=r[10], heading=r[11], unit=r[12], header_rows=r[13],
            row_count=r[14], extractor=r[15], schema=schema, stated_scale=facts.stated_scale,
            currency=facts.currency, row_facts=facts.rows, periods=facts.periods,
        )

    def table_grid(self, table_id: int) -> list[list[str]]:
        """The table's cell text as found on the page, header rows first (for display)."""
        grid: dict[int, dict[int, str]] = {}
        for row, col, text in self.conn.execute(
            "SELECT row, col, text FROM table_cells WHERE table_id = ? ORDER BY row, col", (table_id,)
        ):
            grid.setdefault(row, {})[col] = text
        width = 1 + max((max(cols) for cols in grid.values()), default=-1)
        return [[grid[r].get(c, "") for c in range(width)] for r in sorted(grid)]

    def cells(self, table_id: int, rows: Iterable[int], columns: Iterable[int] | None = None) -> list[CellEvidence]:
        """Cells of the given table rows (``_row`` values), optionally limited to some column positions."""
        info = self.table(table_id)
        if info is None:
            return []
        names = [c.name for c in info.schema.columns]
        row_list = sorted(set(rows))
        if not row_list:
            return []
        sql = (
            "SELECT row, col, text, page, x0, y0, x1, y1 FROM table_cells WHERE table_id = ? AND row IN ("
            + ",".join("?" * len(row_list))
            + ")"
        )
        params: list[Any] = [table_id, *row_list]
        col_list = sorted(set(columns)) if columns is not None else None
        if col_list is not None:
            sql += " AND col IN (" + ",".join("?" * len(col_list)) + ")"
            params += col_list
        out = []
        document = self.document(info.document_id)
        sheets: dict[int, str] = {}
        for row, col, text, page, x0, y0, x1, y1 in self.conn.execute(sql + " ORDER BY row, col", params):
            if x0 is None:
                continue
            column = names[col] if col < len(names) else str(col)
            box = (x0, y0, x1, y1)
            if document is not None and document.kind == "sheet":
                sheet = sheets.setdefault(page, self.page_label(info.document_id, page))
                out.append(CellEvidence(info.name, row, column, text, page, box, sheet, cell_range([box])))
            else:
                out.append(CellEvidence(info.name, row, column, text, page, box))
        return out

    # -- chunks ----------------------------------------------------------------------------------------

    def chunks(self, ids: Sequence[int]) -> list[Chunk]:
        return load_chunks(self.conn, ids)

    def counts(self) -> dict[str, int]:
        one = self.conn.execute
        return {
            "documents": one("SELECT COUNT(*) FROM documents").fetchone()[0],
            "pages": one("SELECT COUNT(*) FROM pages").fetchone()[0],
            "chunks": one("SELECT COUNT(*) FROM chunks").fetchone()[0],
            "tables": one("SELECT COUNT(*) FROM extracted_tables").fetchone()[0],
            "embeddings": one("SELECT COUNT(*) FROM embeddings").fetchone()[0],
        }


class DocumentWriter:
    """Writes one document's rows. The caller owns the transaction (see ``core.ingest.ingestor``)."""

    def __init__(self, conn: Connection, embedder: Embedder) -> None:
        self.conn = conn
        self.embedder = embedder

    def add_document(self, sha256: str, path: Path, title: str, page_count: int, size_bytes: int,
                     kind: str = "pdf") -> int:
        cur = self.conn.execute(
            "INSERT INTO documents (sha256, file_name, path, title, page_count, status, size_bytes, added_at, kind) "
            "VALUES (?, ?, ?, ?, ?, 'ingesting', ?, ?, ?)",
            (sha256, _shown(path.name), _stored_path(path.resolve()), _shown(title), page_count, size_bytes, now_iso(),
             kind),
        )
        return inserted_id(cur)

    def finish_document(self, document_id: int, status: str, note: str) -> None:
        """Set the document's status, and read what it is (core.reports.document_metadata) from its stored pages and tables."""
        self.conn.execute("UPDATE documents SET status = ?, note = ? WHERE id = ?", (status, note, document_id))
        refresh_metadata(self.conn, document_id)

    def add_page(self, document_id: int, number: int, width: float, height: float, text: str,
                 needs_ocr: bool, blocks: Sequence[TextBlock], label: str = "") -> None:
        self.conn.execute(
            "INSERT INTO pages (document_id, number, width, height, text, needs_ocr, label) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (document_id, number, width, height, text, int(needs_ocr), label),
        )
        self.conn.executemany(
            "INSERT INTO text_blocks (document_id, page, x0, y0, x1, y1, text) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(document_id, b.page, *b.bbox, b.text) for b in blocks],
        )

    def add_table(
        self,
        document_id: int,
        name: str,
        *,
        page: int,
        last_page: int,
        bbox: BBox,
        caption: str,
        heading: str,
        unit: str,
        header_rows: int,
        extractor: str,
        columns: Sequence[ColumnSchema],
        rows: Sequence[Sequence[Any]],
        row_indices: Sequence[int],
        cells: Iterable[tuple[int, int, bool, int, BBox | None, str]],
        schema_json: dict[str, Any],
    ) -> int:
        """Create the real SQL table ``name`` and record its metadata, cell map and facts (core.reports.table_facts);
        return its id.

        ``cells`` are (row, col, is_header, page, bbox, text) for every cell of the table as found (iterated a
        second time when a value has to be mended, see ``_insert_all``: a list, or an object whose ``__iter__``
        starts again, never a generator). The page's text must be stored before (the scale is often stated in the
        lines above a table).
        """
        if iter(cells) is cells:
            raise TypeError("add_table needs cells it can read twice (a list, not a generator)")
        cur = self.conn.execute(
            "INSERT INTO extracted_tables (document_id, name, page, last_page, x0, y0, x1, y1, caption, heading, "
            "unit, header_rows, row_count, extractor, schema_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (document_id, name, page, last_page, *bbox, caption, heading, unit, header_rows, len(rows), extractor,
             json.dumps(schema_json)),
        )
        table_id = inserted_id(cur)
        self.conn.executemany(
            "INSERT INTO table_columns (table_id, position, name, header, type, unit, examples) VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(table_id, i, c.name, c.header, c.type, c.unit, json.dumps(list(c.examples))) for i, c in enumerate(columns)],
        )
        column_sql = ", ".join(f"{quote_identifier(c.name)} {c.type}" for c in columns)
        self.conn.execute(f"CREATE TABLE {quote_identifier(name)} (_row INTEGER PRIMARY KEY, {column_sql})")
        placeholders = ", ".join("?" * (len(columns) + 1))
        # Generators, not lists: a 100,000-row table's rows and cell map are written without a copy held whole.
        _insert_all(self.conn, f"INSERT INTO {quote_identifier(name)} VALUES ({placeholders})",
                    lambda: ((index, *values) for index, values in zip(row_indices, rows, strict=True)))
        _insert_all(
            self.conn,
            "INSERT INTO table_cells (table_id, row, col, is_header, page, x0, y0, x1, y1, text) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            lambda: (
                (table_id, r, c, int(is_header), p, *(box if box else (None, None, None, None)), text)
                for r, c, is_header, p, box, text in cells
            ),
        )
        refresh_facts(self.conn, table_id)  # needs the rows, the cell map and the page's text, all written by now
        return table_id

    def add_chunk(self, document_id: int, kind: str, page: int, text: str, boxes: Sequence[BBox],
                  table_id: int | None = None, first_row: int | None = None, last_row: int | None = None) -> int:
        cur = self.conn.execute(
            "INSERT INTO chunks (document_id, kind, page, text, content_hash, table_id, first_row, last_row, boxes) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (document_id, kind, page, text, content_hash(text), table_id, first_row, last_row, _boxes_json(boxes)),
        )
        return inserted_id(cur)

    def missing_embeddings(self, document_id: int, after_chunk: int = 0) -> list[tuple[str, str]]:
        """(content hash, what to embed) for this document's chunks (with ids above ``after_chunk``)
        whose content has no vector yet, once each."""
        rows = self.conn.execute(
            "SELECT content_hash, MIN(kind), MIN(text) FROM chunks c WHERE document_id = ? AND id > ? AND NOT EXISTS "
            "(SELECT 1 FROM embeddings e WHERE e.content_hash = c.content_hash) GROUP BY content_hash ORDER BY MIN(id)",
            (document_id, after_chunk),
        ).fetchall()
        return [(digest, embedding_text(kind, text)) for digest, kind, text in rows]

    def add_embeddings(self, hashes: Sequence[str], vectors: np.ndarray) -> None:
        for digest, vector in zip(hashes, vectors, strict=True):
            cur = self.conn.execute(
                "INSERT INTO embeddings (content_hash, model) VALUES (?, ?)", (digest, self.embedder.name)
            )
            self.conn.execute(
                "INSERT INTO embedding_vectors (rowid, embedding) VALUES (?, ?)",
                (inserted_id(cur), np.asarray(vector, dtype=np.float32).tobytes()),
            )


_NUMERIC_CELL = re.compile(r"^[\s$€£¥(+\-−–—.,%0-9)*]*$")


def embedding_text(kind: str, text: str) -> str:
    """What the embedder reads for a chunk: prose as is; for a table run, its structure only.

    A small sentence model learns nothing from pipes and figures, and they cost most of the tokens:
    a table chunk is embedded as its title, its column headers and its row labels (the words), while
    BM25 still indexes the full Markdown with every figure.
    """
    if kind != "table":
        return text
    lines = text.splitlines()
    if len(lines) < 2:
        return text
    title, header, body = lines[0], lines[1], lines[3:]

    def cells(line: str) -> list[str]:
        return [c.strip() for c in line.strip().strip("|").split("|")]

    labels = []
    for line in body:
        words = [c for c in cells(line) if c and not _NUMERIC_CELL.match(c)]
        if words:
            labels.append(" ".join(words))
    return f"{title}\nColumns: {', '.join(c for c in cells(header) if c)}\nRows: {'; '.join(labels)}"
