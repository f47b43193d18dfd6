"""The library file: migrations, the real sqlite-vec index, FTS5, hybrid retrieval, deletion."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from core.errors import LibraryError
from core.library.db import connect
from core.library.migrations import MIGRATIONS
from core.library.store import DocumentWriter, Library
from core.search.retrieval import Retriever, fts_query
from models.types import ColumnSchema, TextBlock

pytestmark = pytest.mark.unit


def _add_document(library: Library, embedder, sha: str = "a" * 64) -> int:
    writer = DocumentWriter(library.conn, embedder)
    library.conn.execute("BEGIN IMMEDIATE")
    doc_id = writer.add_document(sha, Path("report.pdf"), "Annual report", 2, 1000)
    writer.add_page(doc_id, 1, 595, 842, "Revenue grew strongly.", False, [TextBlock(1, (50, 50, 300, 70), "Revenue grew strongly.")])
    writer.add_page(doc_id, 2, 595, 842, "", False, [])
    columns = [ColumnSchema("item", "TEXT", "Item"), ColumnSchema("y2024", "REAL", "2024", "$ thousand")]
    table_id = writer.add_table(
        doc_id, "annual_report_p2_budget", page=2, last_page=2, bbox=(50, 100, 400, 200), caption="Budget",
        heading="", unit="$ thousand", header_rows=1, extractor="test", columns=columns,
        rows=[("Roads", 120.5), ("Parks", 80.0)], row_indices=[1, 2],
        cells=[(0, 0, True, 2, (50, 100, 200, 120), "Item"), (0, 1, True, 2, (200, 100, 400, 120), "2024"),
               (1, 0, False, 2, (50, 120, 200, 140), "Roads"), (1, 1, False, 2, (200, 120, 400, 140), "120.5"),
               (2, 0, False, 2, (50, 140, 200, 160), "Parks"), (2, 1, False, 2, (200, 140, 400, 160), "80.0")],
        schema_json={"table_name": "annual_report_p2_budget"},
    )
    writer.add_chunk(doc_id, "text", 1, "Revenue grew strongly in the north.", [(50, 50, 300, 70)])
    writer.add_chunk(doc_id, "table", 2, "Table annual_report_p2_budget: Budget\n| item | y2024 |\n| Roads | 120.5 |", [(50, 120, 400, 140)], table_id, 1, 1)
    writer.add_chunk(doc_id, "table", 2, "Table annual_report_p2_budget: Budget\n| item | y2024 |\n| Parks | 80.0 |", [(50, 140, 400, 160)], table_id, 2, 2)
    missing = writer.missing_embeddings(doc_id)
    writer.add_embeddings([h for h, _ in missing], embedder.embed([t for _, t in missing]))
    writer.finish_document(doc_id, "ready", "")
    library.conn.execute("COMMIT")
    return doc_id


def test_migrations_are_numbered_and_idempotent(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite3"
    Library(path).close()
    Library(path).close()
    assert connect(path).execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)


def _open_and_close(path: str) -> str:
    try:
        Library(Path(path)).close()
    except LibraryError as exc:
        return str(exc)
    return "opened"


def test_processes_opening_a_new_library_at_once_all_open_it(tmp_path: Path) -> None:
    """Several `folio ingest` processes started together on a new library: SQLite refuses the switch to WAL
    at once ("database is locked") when two processes make it together; every one must still open it."""
    paths = [str(tmp_path / f"library-{i}" / "library.sqlite3") for i in range(40) for _ in range(4)]
    with ProcessPoolExecutor(4) as pool:
        outcomes = list(pool.map(_open_and_close, paths))
    assert [o for o in outcomes if o != "opened"] == []


def test_newer_library_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "lib.sqlite3"
    Library(path).close()
    conn = connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.close()
    with pytest.raises(LibraryError, match="newer version"):
        Library(path)


def test_tables_are_real_sql_tables_with_cell_map(tmp_path: Path, hash_embedder) -> None:
    library = Library(tmp_path / "lib.sqlite3")
    doc_id = _add_document(library, hash_embedder)
    assert library.conn.execute("SELECT SUM(y2024) FROM annual_report_p2_budget").fetchone()[0] == pytest.approx(200.5)
    info = library.table("annual_report_p2_budget")
    assert info is not None and info.schema.columns[1].unit == "$ thousand"
    cells = library.cells(info.id, [1], [1])
    assert [(c.text, c.page, c.bbox) for c in cells] == [("120.5", 2, (200, 120, 400, 140))]
    assert library.table_grid(info.id) == [["Item", "2024"], ["Roads", "120.5"], ["Parks", "80.0"]]
    assert library.documents()[0].table_count == 1 and library.documents()[0].id == doc_id


def test_a_value_sqlite_cannot_take_is_stored_as_what_it_can_be_not_failing_the_document(tmp_path: Path,
                                                                                         hash_embedder) -> None:
    """An integer past 64 bits, text with a lone surrogate, numpy's integer: each would fail the insert (or, for
    numpy's, be stored as 8 bytes) and, with it, the whole document."""
    library = Library(tmp_path / "lib.sqlite3")
    writer = DocumentWriter(library.conn, hash_embedder)
    library.conn.execute("BEGIN IMMEDIATE")
    doc_id = writer.add_document("b" * 64, Path("odd.pdf"), "Odd", 1, 10)
    writer.add_page(doc_id, 1, 595, 842, "", False, [])
    columns = [ColumnSchema("item", "TEXT", "Item"), ColumnSchema("amount", "INTEGER", "Amount")]
    cells = [(1, 0, False, 1, None, "Far"), (1, 1, False, 1, None, "a\udcffb")]
    with pytest.raises(TypeError, match="read twice"):
        writer.add_table(doc_id, "odd", page=1, last_page=1, bbox=(0, 0, 1, 1), caption="", heading="", unit="",
                         header_rows=0, extractor="test", columns=columns, rows=[], row_indices=[],
                         cells=iter(cells), schema_json={})
    writer.add_table(doc_id, "odd_p1", page=1, last_page=1, bbox=(0, 0, 1, 1), caption="", heading="", unit="",
                     header_rows=0, extractor="test", columns=columns,
                     rows=[("Far", 2**70), ("Odd\udcffname", np.int64(7)), ("Plain", 12)], row_indices=[1, 2, 3],
                     cells=cells, schema_json={})
    writer.finish_document(doc_id, "ready", "")
    library.conn.execute("COMMIT")
    assert library.conn.execute("SELECT item, amount, typeof(amount) FROM odd_p1 ORDER BY _row").fetchall() == [
        ("Far", float(2**70), "real"), ("Odd\ufffdname", 7, "integer"), ("Plain", 12, "integer")]
    assert library.conn.execute("SELECT text FROM table_cells ORDER BY col").fetchall() == [("Far",), ("a\ufffdb",)]
    library.close()


def test_hybrid_search_uses_fts5_and_sqlite_vec(tmp_path: Path, hash_embedder) -> None:
    library = Library(tmp_path / "lib.sqlite3")
    _add_document(library, hash_embedder)
    retriever = Retriever(library.conn, hash_embedder)
    assert [c.page for c in library.chunks([1])] == [1]
    bm25 = retriever.bm25("parks budget")
    vector = retriever.vector("Parks 80.0")
    assert bm25 and vector
    top = retriever.search("How much for parks?", k=2)
    assert top[0].kind == "table" and "Parks" in top[0].text and top[0].table_id is not None
    # sqlite-vec's KNN agrees with brute force over the stored vectors.
    rows = library.conn.execute("SELECT rowid, embedding FROM embedding_vectors").fetchall()
    query = hash_embedder.embed(["Parks 80.0"])[0]
    brute = max(rows, key=lambda r: float(np.frombuffer(r[1], dtype=np.float32) @ query))[0]
    hashes = dict(library.conn.execute("SELECT id, content_hash FROM embeddings").fetchall())
    best_chunk = library.conn.execute("SELECT id FROM chunks WHERE content_hash = ?", (hashes[brute],)).fetchone()[0]
    assert vector[0].chunk_id == best_chunk


def test_fts_query_is_safe_for_punctuation() -> None:
    assert fts_query('What is "net" income (loss) in 2019?') == '"net" OR "income" OR "loss" OR "2019"'
    assert fts_query("?? the of") == ""


def test_identical_content_is_embedded_once_and_deleting_cleans_up(tmp_path: Path, hash_embedder) -> None:
    library = Library(tmp_path / "lib.sqlite3")
    first = _add_document(library, hash_embedder, "a" * 64)
    library.conn.execute("BEGIN")
    library.conn.execute("UPDATE extracted_tables SET name = 'renamed' WHERE document_id = ?", (first,))
    library.conn.execute("ALTER TABLE annual_report_p2_budget RENAME TO renamed")
    library.conn.execute("COMMIT")
    second = _add_document(library, hash_embedder, "b" * 64)
    counts = library.counts()
    assert counts["chunks"] == 6 and counts["embeddings"] == 3
    library.delete_document(first)
    assert library.counts()["embeddings"] == 3  # still used by the second document
    library.delete_document(second)
    assert library.counts() == {"documents": 0, "pages": 0, "chunks": 0, "tables": 0, "embeddings": 0}
    assert library.conn.execute("SELECT COUNT(*) FROM embedding_vectors").fetchone()[0] == 0
    names = {r[0] for r in library.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "renamed" not in names and "annual_report_p2_budget" not in names
