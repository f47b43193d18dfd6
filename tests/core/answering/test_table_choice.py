"""Choosing the table a question is about: its labels outweigh the rank of its chunks; words every
candidate shares, and years every candidate holds, decide nothing; a table lacking a period asked goes after
one holding them all."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from core.answering import operations as ops
from core.answering.table_choice import rank_tables
from core.library.store import DocumentWriter, Library
from core.reports.table_facts import ColumnPeriod
from core.reports.values import Period
from models.types import Chunk, ColumnSchema
from tests.core.answering.test_formulas import _view

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


def _views(*views: ops.TableView) -> dict[int, ops.TableView]:
    return {v.info.id: v for v in views}


def _ranked(question: str, views: dict[int, ops.TableView], order: list[int]) -> list[int]:
    chunks = [Chunk(i, 1, "report.pdf", "table", 1, "rows", table_id=tid) for i, tid in enumerate(order, start=1)]
    return [v.info.id for v in rank_tables(question, chunks, views.get)]


def _dated(view: ops.TableView, ends: dict[str, str]) -> ops.TableView:
    periods = tuple(ColumnPeriod(name, Period(int(end[:4]), end, 0, 0)) for name, end in ends.items())
    return dataclasses.replace(view, info=dataclasses.replace(view.info, periods=periods))


def test_a_table_without_a_period_asked_goes_after_one_that_holds_them_all() -> None:
    """Two fleets' tables alike in their labels: the one that prints every year asked, or the day asked, first."""
    rows = [("Vessels owned", "", (41.0, 38.0)), ("Vessels chartered", "", (12.0, 9.0))]
    two_years = _view(rows, [("y2021", "2021", 2021), ("y2020", "2020", 2020)], caption="Fleet", table_id=1)
    three_years = _view([(label, "", (*figures, 30.0)) for label, _, figures in rows],
                        [("y2021", "2021", 2021), ("y2020", "2020", 2020), ("y2019", "2019", 2019)], caption="Fleet",
                        table_id=2)
    views = _views(two_years, three_years)
    assert _ranked("How many vessels were owned in 2021?", views, [1, 2]) == [1, 2]
    assert _ranked("By how much did the vessels owned change from 2019 to 2021?", views, [1, 2]) == [2, 1]
    june = _dated(two_years, {"y2021": "2021-06-30", "y2020": "2020-06-30"})
    december = _dated(_view(rows, [("y2021", "2021", 2021), ("y2020", "2020", 2020)], caption="Fleet", table_id=3),
                      {"y2021": "2021-12-31", "y2020": "2020-12-31"})
    assert _ranked("How many vessels were owned at December 31, 2021?", _views(june, december), [1, 3]) == [3, 1]


def test_a_table_search_ranks_far_above_the_others_outweighs_a_word_most_candidates_print() -> None:
    """Four tables alike but for one word of the question three of them print ("at sea"): the one the search ranked
    first, the others only after thirty other chunks, stays first; the word tells the three apart from nothing."""
    columns = [("y2021", "2021", 2021), ("y2020", "2020", 2020)]
    views = _views(_view([("Vessels owned", "", (41.0, 38.0))], columns, caption="Fleet", table_id=1),
                   *(_view([("Vessels owned at sea", "", (40.0, 37.0))], columns, caption="Fleet", table_id=tid)
                     for tid in (2, 3, 4)))
    chunks = [Chunk(1, 1, "report.pdf", "table", 1, "rows", table_id=1),
              *(Chunk(i, 1, "report.pdf", "text", 1, "prose") for i in range(2, 31)),
              *(Chunk(30 + tid, 1, "report.pdf", "table", 1, "rows", table_id=tid) for tid in (2, 3, 4))]
    ranked = [v.info.id for v in rank_tables("How many vessels were owned at sea in 2021?", chunks, views.get)]
    assert ranked == [1, 2, 3, 4]
