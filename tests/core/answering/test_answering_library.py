"""A small real report for the answering tests: a PDF drawn with pymupdf (a ruled table and paragraphs),
stored in a library the way ingestion stores it (typed SQL table, cell map with the drawn boxes, text
and Markdown table chunks, embeddings), plus a scripted chat model. The tests here check the builder
itself: the cell map points at the boxes where the numbers are printed.

Other answering tests import ``build_report_library`` and ``ScriptedChat`` from this module.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pymupdf
import pytest

from core.ingest.chunking import table_pieces, text_pieces
from core.ingest.pdf_reader import open_pdf, read_page
from core.library.store import DocumentWriter, Library
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from models.protocols import Embedder
from models.types import BBox, ChatMessage, ChatReply, ColumnSchema, Usage

pytestmark = pytest.mark.unit

TABLE_NAME = "budget_by_department"
HEADER = ("Department", "2019", "2018")
BODY = (
    ("Roads", "120.5", "110.0"),
    ("Parks", "80.0", "75.5"),
    ("Schools", "300.25", "280.0"),
    ("Libraries", "", "12.0"),
    ("Total", "500.75", "477.5"),
)
PARAGRAPHS = (
    ("The city council reviewed departmental spending for the fiscal year 2019. Road maintenance grew because "
     "of the harsh winter, while park spending rose with the opening of two new playgrounds."),
    ("The council expects school spending to remain the largest item. Library funding for 2019 was moved to "
     "the culture budget and is therefore not shown for 2019."),
)
NOTES = "Staffing notes: the parks department employed 42 gardeners in 2019, up from 38 in 2018."


@dataclass(frozen=True)
class ReportFixture:
    pdf: Path
    library: Library
    retriever: Retriever
    runner: SqlRunner
    cell_boxes: dict[tuple[int, int], BBox]
    """(row index as found, column) -> the box the cell was drawn in, on page 1."""


def draw_report(path: Path) -> dict[tuple[int, int], BBox]:
    """A two-page report: paragraphs and a ruled budget table on page 1, staffing notes on page 2."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((56, 60), "City Budget Report 2019", fontsize=16)
    y = 90.0
    for paragraph in PARAGRAPHS:
        rect = pymupdf.Rect(56, y, 540, y + 50)
        page.insert_textbox(rect, paragraph, fontsize=10)
        y += 60
    page.insert_text((56, y + 10), "Table 1: Budget by department (in millions)", fontsize=11)
    top = y + 24
    widths = (160.0, 90.0, 90.0)
    row_height = 20.0
    boxes: dict[tuple[int, int], BBox] = {}
    for r, row in enumerate((HEADER, *BODY)):
        x = 56.0
        for c, text in enumerate(row):
            rect = pymupdf.Rect(x, top + r * row_height, x + widths[c], top + (r + 1) * row_height)
            page.draw_rect(rect, color=(0, 0, 0), width=0.5)
            if text:
                page.insert_text((rect.x0 + 4, rect.y1 - 6), text, fontsize=10)
            boxes[(r, c)] = (rect.x0, rect.y0, rect.x1, rect.y1)
            x += widths[c]
    second = doc.new_page(width=595, height=842)
    second.insert_textbox(pymupdf.Rect(56, 60, 540, 120), NOTES, fontsize=10)
    doc.save(path)
    doc.close()
    return boxes


def _number(text: str) -> float | None:
    return float(text) if text else None


def build_report_library(directory: Path, embedder: Embedder) -> ReportFixture:
    """Draw the report and store it as ingestion would (one transaction)."""
    directory.mkdir(parents=True, exist_ok=True)
    pdf = directory / "budget_report.pdf"
    boxes = draw_report(pdf)
    library = Library(directory / "library.sqlite3")
    writer = DocumentWriter(library.conn, embedder)
    doc = open_pdf(pdf)
    library.conn.execute("BEGIN IMMEDIATE")
    document_id = writer.add_document("0" * 64, pdf, "City Budget Report 2019", doc.page_count, pdf.stat().st_size)
    table_box: BBox = (boxes[(0, 0)][0], boxes[(0, 0)][1], boxes[(len(BODY), 2)][2], boxes[(len(BODY), 2)][3])
    for number in range(1, doc.page_count + 1):
        page = read_page(doc, number, pdf)
        writer.add_page(document_id, number, page.width, page.height, page.text, page.needs_ocr, page.blocks)
        for piece in text_pieces(page.blocks, [table_box] if number == 1 else []):
            writer.add_chunk(document_id, "text", number, piece.text, piece.boxes)
    doc.close()
    columns = (
        ColumnSchema("department", "TEXT", "Department", "", ("Roads", "Parks", "Schools")),
        ColumnSchema("y2019", "REAL", "2019", "million", ("120.5", "80.0", "300.25")),
        ColumnSchema("y2018", "REAL", "2018", "million", ("110.0", "75.5", "280.0")),
    )
    rows = [(label, _number(a), _number(b)) for label, a, b in BODY]
    cells = [
        (r, c, r == 0, 1, boxes[(r, c)], text)
        for r, row in enumerate((HEADER, *BODY))
        for c, text in enumerate(row)
    ]
    table_id = writer.add_table(
        document_id, TABLE_NAME, page=1, last_page=1, bbox=table_box, caption="Table 1: Budget by department",
        heading="", unit="million", header_rows=1, extractor="test", columns=columns, rows=rows,
        row_indices=list(range(1, len(BODY) + 1)), cells=cells, schema_json={"table_name": TABLE_NAME},
    )
    body = [(i + 1, list(row)) for i, row in enumerate(BODY)]
    for piece in table_pieces(TABLE_NAME, "Budget by department (unit: million)", [c.name for c in columns],
                              [c.header for c in columns], body):
        row_boxes = [(boxes[(r, 0)][0], boxes[(r, 0)][1], boxes[(r, 2)][2], boxes[(r, 2)][3]) for r in piece.rows]
        writer.add_chunk(document_id, "table", 1, piece.text, row_boxes, table_id, piece.first_row, piece.last_row)
    missing = writer.missing_embeddings(document_id)
    writer.add_embeddings([h for h, _ in missing], embedder.embed([t for _, t in missing]))
    writer.finish_document(document_id, "ready", "")
    library.conn.execute("COMMIT")
    retriever = Retriever(library.conn, embedder)
    runner = SqlRunner(library.path)
    return ReportFixture(pdf, library, retriever, runner, boxes)


@dataclass
class ScriptedChat:
    """A ChatModel that returns queued replies (texts, dicts as JSON, or exceptions) and records every call."""

    replies: list[Any] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    name: str = "scripted"
    fallback: Callable[[Sequence[ChatMessage], dict[str, Any] | None], str] | None = None

    def queue(self, *replies: Any) -> None:
        self.replies.extend(replies)

    def chat(self, messages: Sequence[ChatMessage], *, schema: dict[str, Any] | None = None, max_tokens: int = 512,
             on_token: Callable[[str], None] | None = None) -> ChatReply:
        self.calls.append({"messages": list(messages), "schema": schema, "max_tokens": max_tokens})
        if self.replies:
            reply = self.replies.pop(0)
        elif self.fallback is not None:
            reply = self.fallback(messages, schema)
        else:
            raise AssertionError(f"unexpected chat call #{len(self.calls)}: {messages[-1].content[-300:]}")
        if isinstance(reply, BaseException):
            raise reply
        text = reply if isinstance(reply, str) else json.dumps(reply)
        if on_token is not None:
            for word in text.split(" "):
                on_token(word + " ")
        prompt_tokens = sum(len(m.content.split()) for m in messages)
        return ChatReply(text, Usage(1, prompt_tokens, len(text.split()), 0.01))

    def prompt(self, index: int) -> str:
        return "\n".join(m.content for m in self.calls[index]["messages"])


@pytest.fixture
def report(tmp_path: Path, hash_embedder: Embedder) -> ReportFixture:
    fixture = build_report_library(tmp_path / "lib", hash_embedder)
    yield fixture
    fixture.runner.close()
    fixture.library.close()


def test_cell_map_points_at_the_printed_numbers(report: ReportFixture) -> None:
    info = report.library.table(TABLE_NAME)
    assert info is not None
    cells = report.library.cells(info.id, [1], [1])  # Roads, 2019
    assert [(c.column, c.text, c.page) for c in cells] == [("y2019", "120.5", 1)]
    page = pymupdf.open(report.pdf)[0]
    assert page.get_text(clip=pymupdf.Rect(cells[0].bbox)).strip() == "120.5"


def test_library_holds_typed_rows_text_and_table_chunks(report: ReportFixture) -> None:
    assert report.runner.run(f"SELECT SUM(y2019) FROM {TABLE_NAME} WHERE department <> 'Total'").rows == ((500.75,),)
    kinds = {c.kind for c in report.retriever.search("budget roads 2019 spending", k=10)}
    assert kinds == {"text", "table"}
