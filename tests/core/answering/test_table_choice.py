"""Choosing the table a question is about: its labels outweigh the rank of its chunks; words every
candidate shares, and years, decide nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.answering import Answerer
from core.answering import operations as ops
from core.answering.prompts import Context
from core.answering.reading import read
from core.answering.run_state import Run
from core.answering.table_choice import rank_tables
from core.library.store import DocumentWriter, Library
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from models.types import Chunk, ColumnSchema
from tests.core.answering.test_answering_library import ScriptedChat

pytestmark = pytest.mark.unit

TABLES = {
    "budget": ("Budget by department", [("Roads", 120.0, 110.0), ("Parks", 80.0, 75.0), ("Total", 200.0, 185.0)]),
    "staffing": ("Staff employed", [("Gardeners", 42.0, 38.0), ("Librarians", 12.0, 13.0), ("Total", 54.0, 51.0)]),
    "lease_a": ("", [("Non-current lease liabilities", 5.0, 4.0), ("Total net lease liabilities", 3.0, 2.0)]),
    "lease_b": ("", [("Net lease liability before discounting", 9.0, 8.0), ("Net lease liability", 7.0, 6.0),
                     ("Lease liabilities, total", 7.0, 6.0)]),
}


@pytest.fixture
def library(tmp_path: Path, hash_embedder) -> Library:
    library = Library(tmp_path / "lib.sqlite3")
    writer = DocumentWriter(library.conn, hash_embedder)
    library.conn.execute("BEGIN IMMEDIATE")
    doc = writer.add_document("a" * 64, Path("report.pdf"), "Report", 1, 100)
    writer.add_page(doc, 1, 595, 842, "", False, [])
    columns = [ColumnSchema("item", "TEXT", "Item"), ColumnSchema("y2019", "REAL", "2019"), ColumnSchema("y2018", "REAL", "2018")]
    for name, (caption, rows) in TABLES.items():
        writer.add_table(
            doc, name, page=1, last_page=1, bbox=(0, 0, 100, 100), caption=caption, heading="", unit="",
            header_rows=1, extractor="test", columns=columns, rows=rows, row_indices=list(range(1, len(rows) + 1)),
            cells=[], schema_json={"table_name": name},
        )
    library.conn.execute("COMMIT")
    return library


def _chunks(library: Library, order: list[str]) -> list[Chunk]:
    """Retrieval results that rank the tables' chunks in ``order`` (two chunks each for the first)."""
    ids = {name: library.table(name).id for name in order}  # type: ignore[union-attr]
    out = [Chunk(i, 1, "report.pdf", "table", 1, f"rows of {name}", table_id=ids[name])
           for i, name in enumerate([order[0], *order], start=1)]
    return out


def _rank(library: Library, question: str, order: list[str]) -> list[str]:
    def load(table_id: int) -> ops.TableView | None:
        info = library.table(table_id)
        return ops.load_table_view(library, info) if info else None

    return [v.name for v in rank_tables(question, _chunks(library, order), load)]


def test_labels_outweigh_chunk_rank(library: Library) -> None:
    assert _rank(library, "How many gardeners were employed in 2019?", ["budget", "staffing"]) == ["staffing", "budget"]
    assert _rank(library, "What was spent on parks?", ["staffing", "budget"]) == ["budget", "staffing"]


def test_shared_words_and_years_leave_the_retrieval_order(library: Library) -> None:
    # "total" is a row of both tables and 2019 a column of both: neither tells them apart.
    assert _rank(library, "What was the total in 2019?", ["staffing", "budget"]) == ["staffing", "budget"]
    assert _rank(library, "What was the total in 2019?", ["budget", "staffing"]) == ["budget", "staffing"]


def test_only_tables_behind_the_chunks_are_candidates(library: Library) -> None:
    assert _rank(library, "How many gardeners?", ["budget"]) == ["budget"]
    assert rank_tables("How many gardeners?", [Chunk(1, 1, "report.pdf", "text", 1, "prose")], lambda _: None) == []


def test_a_row_label_quoted_whole_decides_between_tables_with_the_same_words(library: Library) -> None:
    question = "What was the percent change in the Total net lease liabilities?"
    assert _rank(library, question, ["lease_b", "lease_a"]) == ["lease_a", "lease_b"]
    assert _rank(library, question, ["lease_a", "lease_b"]) == ["lease_a", "lease_b"]


def test_a_query_plan_is_asked_over_the_document_routed_first(tmp_path: Path, hash_embedder) -> None:
    # two surveys print the same symptoms; the second table names the question's words more, but routing (by what
    # each document is about) put the first document first: the model's plan is asked over its table, while code's
    # own queries keep the tables' rank
    library = Library(tmp_path / "lib.sqlite3")
    writer = DocumentWriter(library.conn, hash_embedder)
    columns = [ColumnSchema("symptom", "TEXT", "Symptom"), ColumnSchema("never", "REAL", "Never (%)")]
    tables = {"pupils": ("Symptoms of pupils", [("Headache", 31.0), ("Backache", 44.0)]),
              "students": ("Symptoms students never have", [("Headache", 12.0), ("Backache", 20.0)])}
    ids = {}
    library.conn.execute("BEGIN IMMEDIATE")
    for number, (name, (caption, rows)) in enumerate(tables.items(), start=1):
        doc = writer.add_document(str(number) * 64, Path(f"{name}.pdf"), name, 1, 100)
        writer.add_page(doc, 1, 595, 842, "", False, [])
        writer.add_table(doc, name, page=1, last_page=1, bbox=(0, 0, 100, 100), caption=caption, heading="", unit="",
                         header_rows=1, extractor="test", columns=columns, rows=rows, row_indices=[1, 2], cells=[],
                         schema_json={"table_name": name})
        ids[name] = (doc, library.table(name).id)  # type: ignore[union-attr]
    library.conn.execute("COMMIT")
    question = "Which symptoms do students never have?"
    chunks = [Chunk(i, ids[name][0], f"{name}.pdf", "table", 1, f"rows of {name}", table_id=ids[name][1])
              for i, name in enumerate(["students", "pupils"], start=1)]
    answerer = Answerer(library, Retriever(library.conn, hash_embedder), SqlRunner(library.path), ScriptedChat())

    def planned_over(first_document: int | None) -> str:
        run = Run(question, Context(question), first_document=first_document)
        answerer._add_to_context(run, question, chunks)
        assert [view.name for view in run.likeliest] == ["students", "pupils"]  # by the tables' words and rank
        chosen = answerer._plannable_table(run, read(question))
        assert chosen is not None
        return chosen[0].name

    assert planned_over(None) == "students"
    assert planned_over(ids["pupils"][0]) == "pupils"
    assert planned_over(ids["students"][0]) == "students"


def _library_of(tmp_path: Path, hash_embedder, tables: list[tuple[str, str, list[ColumnSchema], list[tuple]]]
                ) -> Library:
    """A library of one document holding ``tables`` (name, caption, columns, rows), all on its one page."""
    library = Library(tmp_path / "lib.sqlite3")
    writer = DocumentWriter(library.conn, hash_embedder)
    library.conn.execute("BEGIN IMMEDIATE")
    doc = writer.add_document("b" * 64, Path("paper.pdf"), "Paper", 1, 100)
    writer.add_page(doc, 1, 595, 842, "", False, [])
    for name, caption, columns, rows in tables:
        writer.add_table(doc, name, page=1, last_page=1, bbox=(0, 0, 100, 100), caption=caption, heading="", unit="",
                         header_rows=1, extractor="test", columns=columns, rows=rows,
                         row_indices=list(range(1, len(rows) + 1)), cells=[], schema_json={"table_name": name})
    library.conn.execute("COMMIT")
    return library


def test_the_header_over_the_row_labels_names_the_table_too(tmp_path: Path, hash_embedder) -> None:
    # two tables of the same rows and figures; only one heads its labels "Band": a question about a band ranks it
    # first, whatever the order of their chunks
    rows = [("(0, 10]", 12.0, 17.0), ("(10, 20]", 41.0, 35.0)]
    library = _library_of(tmp_path, hash_embedder, [
        (name, "", [ColumnSchema("label", "TEXT", label), ColumnSchema("first", "REAL", "Count (North site)"),
                    ColumnSchema("second", "REAL", "Count (South site)")], rows)
        for name, label in (("printed", "Band"), ("console", "Item"))])
    question = "South site visits in band (10, 20]?"
    assert _rank(library, question, ["console", "printed"]) == ["printed", "console"]


def test_a_table_named_by_its_number_comes_first(tmp_path: Path, hash_embedder) -> None:
    # "in Table 4": the table so numbered, though the other one's chunk ranks first and its words name more of the
    # question; without a number said, words and rank decide
    columns = [ColumnSchema("depot", "TEXT", "Depot"), ColumnSchema("cost", "REAL", "Repair cost")]
    rows = [("Harbour", 9.0), ("Airport", 2.0)]
    library = _library_of(tmp_path, hash_embedder, [
        ("fourth", "Table 4: Fleet by depot.", columns, rows),
        ("fifth", "Table 5: Highest repair cost of the depots compared.", columns, rows)])
    assert _rank(library, "which depots had the highest repair cost in Table 4", ["fifth", "fourth"]) == \
        ["fourth", "fifth"]
    assert _rank(library, "which depots had the highest repair cost", ["fifth", "fourth"]) == ["fifth", "fourth"]
