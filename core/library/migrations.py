"""The library's schema, as numbered migrations applied in order, each in its own transaction.

``PRAGMA user_version`` records how many have run. A library written by a newer Folio (a higher
version than we know) is refused rather than guessed at.
"""

from __future__ import annotations

from collections.abc import Callable

from core.errors import LibraryError
from core.library.db import Connection, sqlite3, write_transaction
from core.library.facts import refresh_facts

EMBEDDING_DIMENSION = 384


def run_script(conn: Connection, script: str) -> None:
    """Run several statements inside the caller's transaction (``executescript`` would commit it)."""
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            conn.execute(statement)
            statement = ""
    if statement.strip():
        raise ValueError(f"incomplete SQL statement: {statement!r}")


def m001_initial(conn: Connection) -> None:
    run_script(conn, 
        """
        CREATE TABLE documents (
            id INTEGER PRIMARY KEY,
            sha256 TEXT NOT NULL UNIQUE,
            file_name TEXT NOT NULL,
            path TEXT NOT NULL,
            title TEXT NOT NULL DEFAULT '',
            page_count INTEGER NOT NULL,
            status TEXT NOT NULL,
            note TEXT NOT NULL DEFAULT '',
            size_bytes INTEGER NOT NULL,
            added_at TEXT NOT NULL
        );
        CREATE TABLE pages (
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            number INTEGER NOT NULL,
            width REAL NOT NULL,
            height REAL NOT NULL,
            text TEXT NOT NULL,
            needs_ocr INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (document_id, number)
        );
        CREATE TABLE text_blocks (
            id INTEGER PRIMARY KEY,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            page INTEGER NOT NULL,
            x0 REAL NOT NULL, y0 REAL NOT NULL, x1 REAL NOT NULL, y1 REAL NOT NULL,
            text TEXT NOT NULL
        );
        CREATE INDEX text_blocks_page ON text_blocks(document_id, page);

        -- One row per extracted table; its data lives in a real SQL table called `name`.
        CREATE TABLE extracted_tables (
            id INTEGER PRIMARY KEY,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            name TEXT NOT NULL UNIQUE,
            page INTEGER NOT NULL,
            last_page INTEGER NOT NULL,
            x0 REAL NOT NULL, y0 REAL NOT NULL, x1 REAL NOT NULL, y1 REAL NOT NULL,
            caption TEXT NOT NULL DEFAULT '',
            heading TEXT NOT NULL DEFAULT '',
            unit TEXT NOT NULL DEFAULT '',
            header_rows INTEGER NOT NULL,
            row_count INTEGER NOT NULL,
            extractor TEXT NOT NULL DEFAULT '',
            schema_json TEXT NOT NULL
        );
        CREATE TABLE table_columns (
            table_id INTEGER NOT NULL REFERENCES extracted_tables(id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            name TEXT NOT NULL,
            header TEXT NOT NULL DEFAULT '',
            type TEXT NOT NULL,
            unit TEXT NOT NULL DEFAULT '',
            examples TEXT NOT NULL DEFAULT '[]',
            PRIMARY KEY (table_id, position)
        );
        -- Every cell of every table, header cells included: `row` is the row's index in the table as
        -- found (header rows first) and equals `_row` in the data table for body rows.
        CREATE TABLE table_cells (
            table_id INTEGER NOT NULL REFERENCES extracted_tables(id) ON DELETE CASCADE,
            row INTEGER NOT NULL,
            col INTEGER NOT NULL,
            is_header INTEGER NOT NULL,
            page INTEGER NOT NULL,
            x0 REAL, y0 REAL, x1 REAL, y1 REAL,
            text TEXT NOT NULL,
            PRIMARY KEY (table_id, row, col)
        ) WITHOUT ROWID;

        CREATE TABLE chunks (
            id INTEGER PRIMARY KEY,
            document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            kind TEXT NOT NULL CHECK (kind IN ('text', 'table')),
            page INTEGER NOT NULL,
            text TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            table_id INTEGER REFERENCES extracted_tables(id) ON DELETE CASCADE,
            first_row INTEGER,
            last_row INTEGER,
            boxes TEXT NOT NULL DEFAULT '[]'
        );
        CREATE INDEX chunks_document ON chunks(document_id);
        CREATE INDEX chunks_hash ON chunks(content_hash);
        CREATE INDEX chunks_table ON chunks(table_id);

        CREATE VIRTUAL TABLE chunks_fts USING fts5(
            text, content='chunks', content_rowid='id', tokenize='porter unicode61'
        );
        CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN
            INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text);
        END;
        CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN
            INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text);
        END;

        -- Vectors are keyed by content hash so identical content is embedded once.
        CREATE TABLE embeddings (
            id INTEGER PRIMARY KEY,
            content_hash TEXT NOT NULL UNIQUE,
            model TEXT NOT NULL
        );
        """
    )
    conn.execute(
        f"CREATE VIRTUAL TABLE embedding_vectors USING vec0(embedding float[{EMBEDDING_DIMENSION}] distance_metric=cosine)"
    )


def m002_conversations(conn: Connection) -> None:
    run_script(conn, 
        """
        CREATE TABLE conversations (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL
        );
        CREATE TABLE messages (
            id INTEGER PRIMARY KEY,
            conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
            content TEXT NOT NULL,
            answer_json TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX messages_conversation ON messages(conversation_id);
        """
    )


def m003_embedding_counter(conn: Connection) -> None:
    """A counter bumped by every insert into or delete from ``embeddings``, so a cached copy of the
    vectors (core.search.vector_index) knows in one read whether it is stale. Row ids alone cannot tell:
    SQLite reuses the highest id after it is deleted."""
    run_script(conn,
        """
        CREATE TABLE library_counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO library_counters (name, value) VALUES ('embeddings', (SELECT COUNT(*) FROM embeddings));
        CREATE TRIGGER embeddings_counter_insert AFTER INSERT ON embeddings BEGIN
            UPDATE library_counters SET value = value + 1 WHERE name = 'embeddings';
        END;
        CREATE TRIGGER embeddings_counter_delete AFTER DELETE ON embeddings BEGIN
            UPDATE library_counters SET value = value + 1 WHERE name = 'embeddings';
        END;
        """
    )


def m004_covering_hash_index(conn: Connection) -> None:
    """Vector search maps embeddings to chunks by content hash; with id and document in the index, that
    join never reads the chunks' rows (their text): 5.7 ms -> 0.3 ms for 60 hits at 50,000 chunks."""
    run_script(conn,
        """
        CREATE INDEX chunks_hash_cover ON chunks(content_hash, id, document_id);
        DROP INDEX chunks_hash;
        """
    )


def m005_spreadsheets(conn: Connection) -> None:
    """Spreadsheets beside PDFs: a document's kind ('pdf' or 'sheet'), and a page's label (a sheet's name;
    a sheet is stored as a page whose boxes are cell positions, see core.ingest.spreadsheets)."""
    run_script(conn,
        """
        ALTER TABLE documents ADD COLUMN kind TEXT NOT NULL DEFAULT 'pdf';
        ALTER TABLE pages ADD COLUMN label TEXT NOT NULL DEFAULT '';
        """
    )


def m006_table_facts(conn: Connection) -> None:
    """Facts about each table found once and stored (core.reports.table_facts): the scale and currency its figures are
    stated in, each row's depth, parent line, section and whether it is a total, each figure column's period.
    Tables stored before are given theirs here, from their stored rows, cell map and page text."""
    run_script(conn,
        """
        ALTER TABLE extracted_tables ADD COLUMN stated_scale TEXT NOT NULL DEFAULT '';
        ALTER TABLE extracted_tables ADD COLUMN currency TEXT NOT NULL DEFAULT '';
        -- One row per body row (``row`` is ``_row`` in the data table).
        CREATE TABLE table_row_facts (
            table_id INTEGER NOT NULL REFERENCES extracted_tables(id) ON DELETE CASCADE,
            row INTEGER NOT NULL,
            depth INTEGER NOT NULL,
            parent_row INTEGER,
            is_total INTEGER NOT NULL,
            section TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (table_id, row)
        ) WITHOUT ROWID;
        -- One row per figure column that holds one period, in column order.
        CREATE TABLE table_periods (
            table_id INTEGER NOT NULL REFERENCES extracted_tables(id) ON DELETE CASCADE,
            column_name TEXT NOT NULL,
            fiscal_year INTEGER NOT NULL,
            end_date TEXT NOT NULL DEFAULT '',
            quarter INTEGER NOT NULL DEFAULT 0,
            months INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX table_periods_table ON table_periods(table_id);
        """
    )
    for (table_id,) in conn.execute("SELECT id FROM extracted_tables ORDER BY id").fetchall():
        refresh_facts(conn, table_id)


def m007_document_metadata(conn: Connection) -> None:
    """What each document is (issuer, type, period, currency, scale; see core.reports.document_metadata), one row
    per document, readable by the questions' SQL."""
    run_script(conn,
        """
        CREATE TABLE document_metadata (
            document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
            document TEXT NOT NULL,
            issuer TEXT NOT NULL DEFAULT '',
            doc_type TEXT NOT NULL DEFAULT '',
            period TEXT NOT NULL DEFAULT '',
            fiscal_year INTEGER,
            quarter INTEGER,
            period_end TEXT NOT NULL DEFAULT '',
            currency TEXT NOT NULL DEFAULT '',
            scale TEXT NOT NULL DEFAULT '',
            edited INTEGER NOT NULL DEFAULT 0,
            summary TEXT NOT NULL DEFAULT ''
        );
        CREATE INDEX document_metadata_issuer ON document_metadata(issuer, fiscal_year);
        """
    )
    # filled for the documents already in the library by m009_tickers, once the table has all its columns


def m008_unit_rows(conn: Connection) -> None:
    """Tables that print their unit as a row of its own ("(In thousands)" under the years, no figures beside
    it) are given that scale (core.reports.table_facts reads it there since this version)."""
    _scales_read_again(conn)


def m010_scale_over_the_introduction(conn: Connection) -> None:
    """Tables whose scale a page states above the paragraphs introducing them ("NOTES ... (in thousands, except
    per share data)") are given it (core.library.facts.lines_above reads every line between a table and the one
    above it since this version)."""
    _scales_read_again(conn)


def _scales_read_again(conn: Connection) -> None:
    """The scale of every table that states none yet, read again; found ones are stored (and their currency where
    none was)."""
    from core.library.facts import compute_facts

    for (table_id,) in conn.execute("SELECT id FROM extracted_tables WHERE stated_scale = ''").fetchall():
        facts = compute_facts(conn, table_id)
        if facts.stated_scale:
            conn.execute("UPDATE extracted_tables SET stated_scale = ?, currency = CASE WHEN currency = '' THEN ? "
                         "ELSE currency END WHERE id = ?", (facts.stated_scale, facts.currency, table_id))


def m009_tickers(conn: Connection) -> None:
    """The trading symbol a filing registers ("GIS"); every document's metadata read again from its stored pages
    (a person's corrections are kept: their documents get no symbol until they set one)."""
    from core.library.facts import refresh_metadata

    if "ticker" not in {row[1] for row in conn.execute("PRAGMA table_info(document_metadata)")}:
        conn.execute("ALTER TABLE document_metadata ADD COLUMN ticker TEXT NOT NULL DEFAULT ''")
    for (document_id,) in conn.execute("SELECT id FROM documents ORDER BY id").fetchall():
        refresh_metadata(conn, document_id)


def m011_embedding_model_index(conn: Connection) -> None:
    """Every search asks whether some vectors were made by another embedder (core.library.reembedding): an index on
    the embedder's name answers that without reading every row."""
    conn.execute("CREATE INDEX IF NOT EXISTS embeddings_model ON embeddings(model)")


def m012_group_headings(conn: Connection) -> None:
    """Rows set flush under headings without figures (a results table's method over its "m = 10" rows, "Women" and
    "Men" over their age groups) stand under them (core.reports.table_facts reads such groups since this version):
    every table's facts computed again, its ``parent`` column written over."""
    for (table_id,) in conn.execute("SELECT id FROM extracted_tables ORDER BY id").fetchall():
        refresh_facts(conn, table_id)


MIGRATIONS: list[Callable[[Connection], None]] = [
    m001_initial, m002_conversations, m003_embedding_counter, m004_covering_hash_index, m005_spreadsheets,
    m006_table_facts,
    m007_document_metadata,
    m008_unit_rows,
    m009_tickers,
    m010_scale_over_the_introduction,
    m011_embedding_model_index,
    m012_group_headings,
]


def migrate(conn: Connection) -> int:
    """Bring the schema up to date; return the version now in force."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise LibraryError(
            f"This library was written by a newer version of Folio (schema {version}, "
            f"this version knows {len(MIGRATIONS)}). Update Folio to open it."
        )
    for number, migration in enumerate(MIGRATIONS[version:], start=version + 1):
        with write_transaction(conn, "The library was not brought up to date"):
            # Looked at again under the write lock: another process opening the library may have just run it.
            if conn.execute("PRAGMA user_version").fetchone()[0] < number:
                migration(conn)
                conn.execute(f"PRAGMA user_version = {number}")
    return len(MIGRATIONS)
