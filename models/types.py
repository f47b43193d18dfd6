"""Plain values shared by every layer: documents, pages, chunks, tables, cells, citations, answers.

Every value is a frozen dataclass so it can cross threads and layers without being changed on the way.
Coordinates are PDF points in pymupdf's page space (origin top-left, y grows downwards), pages are
1-based everywhere a person or the JSON output sees them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

BBox = tuple[float, float, float, float]
"""x0, y0, x1, y1 in PDF points, origin at the top-left of the page."""


@dataclass(frozen=True)
class ProgressEvent:
    """One step of a long job: which stage, how far, and on which document."""

    stage: str
    message: str = ""
    done: int = 0
    total: int | None = None
    document: str | None = None

    @property
    def fraction(self) -> float | None:
        if not self.total:
            return None
        return min(1.0, self.done / self.total)


@dataclass(frozen=True)
class Document:
    id: int
    sha256: str
    file_name: str
    path: str
    title: str
    page_count: int
    status: str
    added_at: str
    table_count: int = 0
    chunk_count: int = 0
    note: str = ""
    kind: str = "pdf"
    """'pdf', or 'sheet' for a spreadsheet or CSV file (its pages are sheets, its boxes cell positions)."""


@dataclass(frozen=True)
class TextBlock:
    """A block of text as laid out on a page."""

    page: int
    bbox: BBox
    text: str


Upright = tuple[float, float, float, float, float, float]
"""Maps boxes in page coordinates (as on an unrotated page) to the page as displayed: (a, b, c, d, e, f) with
x' = a x + c y + e, y' = b x + d y + f. Not the identity on a page turned by its /Rotate entry."""
NOT_TURNED: Upright = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


@dataclass(frozen=True)
class PageContent:
    """What ingestion reads from one page."""

    number: int
    width: float
    height: float
    text: str
    blocks: tuple[TextBlock, ...]
    needs_ocr: bool = False
    damage: str = ""  # what MuPDF reported while reading a page that gave nothing (a damaged page)
    upright: Upright = NOT_TURNED


@dataclass(frozen=True)
class CellRef:
    """Where one table cell sits on its page."""

    row: int
    col: int
    page: int
    bbox: BBox


@dataclass(frozen=True)
class ExtractedTable:
    """A table as found on one or more pages, before it is typed and stored.

    ``rows`` holds the cell text of every row, header rows first; ``cells[r][c]`` gives the cell's page
    and box (None where the extractor could not place it).
    """

    page: int
    bbox: BBox
    rows: tuple[tuple[str, ...], ...]
    header_rows: int
    cells: tuple[tuple[CellRef | None, ...], ...] = ()
    caption: str = ""
    extractor: str = ""
    pages: tuple[int, ...] = ()
    score: float = 0.0

    @property
    def n_rows(self) -> int:
        return len(self.rows)

    @property
    def n_cols(self) -> int:
        return max((len(r) for r in self.rows), default=0)

    def to_json(self) -> dict[str, Any]:
        return {
            "page": self.page,
            "bbox": [round(v, 2) for v in self.bbox],
            "rows": [list(r) for r in self.rows],
            "header_rows": self.header_rows,
        }


@dataclass(frozen=True)
class ColumnSchema:
    name: str
    type: str
    header: str = ""
    unit: str = ""
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableSchema:
    """What the reasoning loop sees of a stored table (TableRAG's schema description)."""

    table_id: int
    name: str
    document: str
    page: int
    columns: tuple[ColumnSchema, ...]
    caption: str = ""
    unit: str = ""
    row_count: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "table_name": self.name,
            "document": self.document,
            "page": self.page,
            "caption": self.caption,
            "unit": self.unit,
            "row_count": self.row_count,
            "columns": [[c.name, c.type, list(c.examples)] + ([c.unit] if c.unit else []) for c in self.columns],
        }


@dataclass(frozen=True)
class Chunk:
    """A unit of retrieval: a passage of text, or rows of a table rendered as Markdown."""

    id: int
    document_id: int
    document: str
    kind: Literal["text", "table"]
    page: int
    text: str
    boxes: tuple[BBox, ...] = ()
    table_id: int | None = None
    score: float = 0.0
    sheet: str = ""
    """For a spreadsheet's chunk: the sheet's name (``page`` is its number, ``boxes`` cell positions)."""


@dataclass(frozen=True)
class CellEvidence:
    """A table cell an SQL result was computed from."""

    table: str
    row: int
    column: str
    text: str
    page: int
    bbox: BBox
    sheet: str = ""
    """For a spreadsheet's cell: the sheet's name; ``cell`` is its A1 reference."""
    cell: str = ""


@dataclass(frozen=True)
class Citation:
    """Where part of an answer came from. Built from provenance, never from text the model quoted."""

    kind: Literal["text", "table"]
    document: str
    document_id: int
    page: int
    bbox: BBox | None
    snippet: str
    boxes: tuple[BBox, ...] = ()
    table: str | None = None
    sql: str | None = None
    columns: tuple[str, ...] = ()
    result: tuple[tuple[Any, ...], ...] = ()
    cells: tuple[CellEvidence, ...] = ()
    sheet: str = ""
    """For a spreadsheet: the sheet cited ("sheet, cell range" instead of page and box)."""
    cell_range: str = ""

    @property
    def place(self) -> str:
        """Where in the document, as a person reads it: "p.3", or "sheet Budget, B3:D7"."""
        if self.sheet:
            return f"sheet {self.sheet}" + (f", {self.cell_range}" if self.cell_range else "")
        return f"p.{self.page}"
    label: str = ""
    """The source as people name it: "Budget 2014-15, p. 1, Table 3: Demands for grants"."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "document": self.document,
            "page": self.page,
            "bbox": list(self.bbox) if self.bbox else None,
            "snippet": self.snippet,
        }
        if self.sheet:
            out["sheet"] = self.sheet
            out["cell_range"] = self.cell_range
        if self.label:
            out["label"] = self.label
        if self.kind == "table":
            out["table"] = self.table
            out["sql"] = self.sql
            out["columns"] = list(self.columns)
            out["result"] = [list(r) for r in self.result]
            out["cells"] = [
                {"table": c.table, "row": c.row, "column": c.column, "text": c.text, "page": c.page,
                 "bbox": list(c.bbox), **({"sheet": c.sheet, "cell": c.cell} if c.sheet else {})}
                for c in self.cells
            ]
        return out


@dataclass(frozen=True)
class Usage:
    """What one or more LLM calls cost."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    reused_tokens: int = 0
    """Of ``prompt_tokens``, how many the backend did not evaluate again because its KV cache already held
    them (a prefix shared with the previous call); 0 where a backend cannot tell."""

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.calls + other.calls,
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.seconds + other.seconds,
            self.reused_tokens + other.reused_tokens,
        )


@dataclass(frozen=True)
class ChatMessage:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass(frozen=True)
class ChatReply:
    text: str
    usage: Usage


@dataclass(frozen=True)
class Step:
    """One iteration of the reasoning loop, kept so it can be shown and tested."""

    subquery: str
    chunk_ids: tuple[int, ...] = ()
    sql: str | None = None
    sql_columns: tuple[str, ...] = ()
    sql_result: tuple[tuple[Any, ...], ...] = ()
    sql_error: str | None = None
    intermediate_answer: str = ""
    conflict: str = ""
    """Set when the SQL result and the retrieved text disagree: what the text says instead."""
    answer_type: str = ""
    """The kind of answer the question wants (``core.answering.answer_types``), decided once per question."""
    failures: tuple[str, ...] = ()
    """What failed on the way to this step, in order, each with its error: a model reply outside the lists
    (repaired or given up), a statement SQLite refused, a model call that gave no usable JSON."""

    def to_json(self) -> dict[str, Any]:
        return {
            "subquery": self.subquery,
            "answer_type": self.answer_type,
            "failures": list(self.failures),
            "retrieved_chunk_ids": list(self.chunk_ids),
            "sql": self.sql,
            "sql_columns": list(self.sql_columns),
            "sql_result": [list(r) for r in self.sql_result],
            "sql_error": self.sql_error,
            "intermediate_answer": self.intermediate_answer,
            "conflict": self.conflict,
        }


ANSWER_STATUSES = ("checked", "unchecked", "conflict", "refused")
"""``checked``: a passage states the figure SQL computed; ``unchecked``: no passage could confirm it (or
the text alone answered); ``conflict``: the table and the text disagree; ``refused``: the library does
not hold the answer, and the text says so instead of giving a figure."""


@dataclass(frozen=True)
class Alternative:
    """Another document a question matched that its answer did not use: the question can be asked there."""

    document_id: int
    name: str


@dataclass(frozen=True)
class Answer:
    question: str
    text: str
    citations: tuple[Citation, ...] = ()
    steps: tuple[Step, ...] = ()
    usage: Usage = field(default_factory=Usage)
    mode: str = "tablerag"
    model: str = ""
    status: str = "unchecked"
    """One of ``ANSWER_STATUSES``."""
    value: str = ""
    """The bare result the sentence in ``text`` states ("1,911 crore"), for scoring and export."""
    answer_type: str = ""
    """The kind of answer the question wants ("lookup", "column_headers", ...; see
    ``core.answering.answer_types``); "" where none was decided (the naive baseline)."""
    parts: tuple[str, ...] = ()
    """The answer's spans when it has several (each figure, label or header, in order)."""
    alternatives: tuple[Alternative, ...] = ()
    """The other documents the question matched when routing chose among equals (core.search.routing): each is
    one click away in the window ("Ask in ...")."""
    task_usage: tuple[tuple[str, int, int], ...] = ()
    """Model use by kind of call ("Planning", "Operation choice", "Check against the text", ...): (kind,
    calls, prompt tokens), so where the tokens go can be measured."""
    read_as: str = ""
    """The question as understood, when that differs from ``question``: a follow-up written out in full
    against the conversation before it ("and in 2017?" -> "What was Boeing's R&D expense in 2017?")."""

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "read_as": self.read_as,
            "answer": self.text,
            "value": self.value,
            "status": self.status,
            "answer_type": self.answer_type,
            "parts": list(self.parts),
            "alternatives": [{"document_id": a.document_id, "name": a.name} for a in self.alternatives],
            "mode": self.mode,
            "model": self.model,
            "citations": [c.to_json() for c in self.citations],
            "steps": [s.to_json() for s in self.steps],
            "llm_calls": self.usage.calls,
            "prompt_tokens": self.usage.prompt_tokens,
            "completion_tokens": self.usage.completion_tokens,
            "reused_tokens": self.usage.reused_tokens,
            "seconds": round(self.usage.seconds, 3),
            "task_usage": [list(t) for t in self.task_usage],
        }
