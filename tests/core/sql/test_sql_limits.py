"""The SQL runner's limits under hostile statements: huge values, wide rows, big results, writes dressed
as other statements, empty trailing statements; and what it must still read (the full-text index)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from core.errors import SqlError, SqlRefused
from core.library.db import connect
from core.library.migrations import migrate
from core.library.store import LIBRARY_FILE_NAME
from core.sql.runner import (
    HEAP_LIMIT_BYTES,
    MAX_VALUE_BYTES,
    SqlRunner,
    display_value,
    json_value,
    statement_name,
)

pytestmark = pytest.mark.unit

TEN_ROWS = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10)"


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / LIBRARY_FILE_NAME
    conn = connect(path)
    migrate(conn)
    conn.execute("INSERT INTO documents (id, sha256, file_name, path, title, page_count, status, size_bytes, added_at) "
                 "VALUES (1, 'x', 'report.pdf', '/home/someone/report.pdf', 'Report', 1, 'ready', 10, '2024-01-01')")
    for i, text in enumerate(["Roads spending rose in 2024", "Parks budget was cut", "Libraries stayed flat"], 1):
        conn.execute("INSERT INTO chunks (id, document_id, kind, page, text, content_hash) VALUES (?, 1, 'text', 1, ?, ?)",
                     (i, text, f"h{i}"))
    conn.close()
    return path


def test_a_huge_value_is_refused_at_once_with_the_limit_named(db_path: Path) -> None:
    runner = SqlRunner(db_path, timeout_seconds=10)
    assert runner.value_limit_set  # SQLITE_LIMIT_LENGTH, through setlimit or pysqlite3's C API
    for sql in ("SELECT zeroblob(100000000)", "SELECT zeroblob(1000000000)",
                # one step of the statement, which the progress handler could not interrupt
                "SELECT length(replace(hex(zeroblob(100000000)), '0', 'ab'))",
                "SELECT group_concat(hex(zeroblob(1000000))) FROM (" + TEN_ROWS + " SELECT i FROM n)"):
        started = time.monotonic()
        with pytest.raises(SqlError, match=f"over the {MAX_VALUE_BYTES >> 20} MB limit per value"):
            runner.run(sql)
        assert time.monotonic() - started < runner.timeout_seconds
    assert runner.run("SELECT length(zeroblob(1000000))").rows == ((1_000_000,),)


def test_a_wide_row_of_big_values_hits_the_memory_limit(db_path: Path) -> None:
    runner = SqlRunner(db_path)
    columns = ", ".join(["zeroblob(4000000)"] * 100)  # 400 MB in one row
    with pytest.raises(SqlError, match=f"more than the {HEAP_LIMIT_BYTES >> 20} MB of memory"):
        runner.run(f"SELECT {columns}")
    assert runner.run("SELECT 1").rows == ((1,),)  # the connection stays usable


def test_a_result_is_cut_at_its_byte_limit_and_says_so(db_path: Path) -> None:
    runner = SqlRunner(db_path, max_result_bytes=10_000)
    result = runner.run(f"{TEN_ROWS} SELECT i, zeroblob(3000) FROM n")
    assert [r[0] for r in result.rows] == [1, 2, 3] and result.truncated and result.limited_by == "bytes"
    with pytest.raises(SqlError, match="One row of the result holds"):
        runner.run("SELECT zeroblob(20000)")
    rows = SqlRunner(db_path, max_rows=4).run(f"{TEN_ROWS} SELECT i FROM n")
    assert rows.limited_by == "rows" and len(rows.rows) == 4


@pytest.mark.parametrize(
    ("sql", "named"),
    [
        ("DROP TABLE documents", "DROP TABLE"),
        ("CREATE TABLE x (a)", "CREATE TABLE"),
        ("CREATE INDEX i ON chunks(page)", "CREATE INDEX"),
        ("CREATE VIEW v AS SELECT 1", "CREATE VIEW"),
        ("VACUUM", "VACUUM"),
        ("VACUUM INTO '/tmp/folio-copy.sqlite3'", "VACUUM"),
        ("ALTER TABLE chunks ADD COLUMN z", "ALTER TABLE"),
        ("  -- a comment first\n/* and another */ DELETE FROM chunks", "DELETE"),
        ("WITH a AS (SELECT 1) DELETE FROM chunks", "DELETE"),
        ("WITH a AS (SELECT 1) UPDATE chunks SET page = 2", "UPDATE"),
        ("REPLACE INTO documents (id) VALUES (1)", "REPLACE"),
        ("ATTACH DATABASE ':memory:' AS other", "ATTACH"),
        ("PRAGMA main.journal_mode = DELETE", "PRAGMA journal_mode"),
        ("PRAGMA user_version = 7", "PRAGMA user_version"),
        ("BEGIN", "BEGIN"),
        ("REINDEX", "REINDEX"),
        ("ANALYZE", "ANALYZE"),
    ],
)
def test_refusals_name_the_statement_refused(db_path: Path, sql: str, named: str) -> None:
    with pytest.raises(SqlRefused) as refused:
        SqlRunner(db_path).run(sql)
    assert str(refused.value) == f"Only reading is allowed: {named} was refused."
    assert not Path("/tmp/folio-copy.sqlite3").exists()


def test_statement_names() -> None:
    assert statement_name("explain query plan drop view v") == "DROP VIEW"
    assert statement_name("CREATE VIRTUAL TABLE t USING fts5(x)") == "CREATE VIRTUAL TABLE"
    assert statement_name("SELECT 1") == statement_name("with x as (select 1) select * from x") == ""


def test_the_full_text_index_is_readable(db_path: Path) -> None:
    runner = SqlRunner(db_path)
    assert runner.run("SELECT count(*) FROM chunks_fts").rows == ((3,),)
    result = runner.run("SELECT rowid, highlight(chunks_fts, 0, '[', ']') FROM chunks_fts WHERE chunks_fts MATCH 'budget'")
    assert result.rows == ((2, "Parks [budget] was cut"),)
    assert runner.run("SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH 'spend*' ORDER BY rank").rows == ((1,),)
    with pytest.raises(SqlRefused, match="INSERT was refused"):
        runner.run("INSERT INTO chunks_fts (chunks_fts) VALUES ('rebuild')")


def test_empty_trailing_statements_are_dropped_and_a_second_statement_refused(db_path: Path) -> None:
    runner = SqlRunner(db_path)
    result = runner.run("SELECT 1;; ; \n")
    assert result.rows == ((1,),) and result.sql == "SELECT 1"
    with pytest.raises(SqlError, match="Only one statement can be run at a time"):
        runner.run("SELECT 1; DROP TABLE documents")
    with pytest.raises(SqlError, match="empty"):
        runner.run(" ;; ")
    with pytest.raises(ValueError, match="max_rows"):
        SqlRunner(db_path, max_rows=-1)


def test_blobs_render_as_size_and_hex_prefix() -> None:
    blob = bytes(range(40))
    assert json_value(blob) == {"blob_bytes": 40, "hex_prefix": blob[:16].hex()}
    assert display_value(blob) == f"<BLOB 40 bytes: {blob[:16].hex()}...>"
    assert display_value(b"\x01") == "<BLOB 1 bytes: 01>"
    assert json_value(float("inf")) == "inf" and json_value(None) is None and json_value("x") == "x"
