"""Citations built from provenance, never from text the model quoted.

Text citations come from the chunks an answer step actually read (document, page, boxes, snippet).
Table citations come from SQL: the statement, its result, and for every value it read the source
cell's page and box from the library's cell map. Compiled structured SQL knows its cells exactly;
for free SQL the rows it read are found by re-running its FROM/WHERE selecting ``_row``, and the
columns are those it names. Every citation carries a human label (``SourceNames``); a passage's
highlight is narrowed to the sentences that answer (``core.answering.sentences``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from core.errors import UserError
from core.library import Library, TableInfo
from core.spreadsheets import cell_range
from core.sql_runner import SqlRunner
from models.types import BBox, CellEvidence, Chunk, Citation

SNIPPET_CHARS = 240
TITLE_CHARS = 70
MAX_FREE_SQL_ROWS = 50

_KEYWORDS = "(?:WHERE|GROUP|ORDER|LIMIT|HAVING|WINDOW|UNION|INTERSECT|EXCEPT|JOIN|INNER|LEFT|CROSS|NATURAL)"
_TAIL = re.compile(r"\b(GROUP\s+BY|ORDER\s+BY|LIMIT|HAVING|WINDOW|UNION|INTERSECT|EXCEPT)\b", re.IGNORECASE)


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rsplit(" ", 1)[0] + "…"


def union_box(boxes: Iterable[BBox]) -> BBox | None:
    boxes = list(boxes)
    if not boxes:
        return None
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


_NUMBERED = re.compile(r"^\s*(table|exhibit|schedule|statement|annex(ure)?)\s+[\w.\-]+\b", re.IGNORECASE)


class SourceNames:
    """Sources as people name them: "Budget 2014-15, p. 1, Table 3: Demands for grants".

    The document is named by its title (the PDF's own, else its file name made readable); a table by
    its caption when that is numbered ("Table 3: ..."), else by its place among the document's tables
    and its caption or heading. One instance per question: lookups are cached.
    """

    def __init__(self, library: Library) -> None:
        self.library = library
        self._documents: dict[int, str] = {}
        self._sheets: set[int] = set()
        self._order: dict[int, list[int]] = {}

    def document(self, document_id: int, fallback: str = "") -> str:
        if document_id not in self._documents:
            document = self.library.document(document_id)
            if document is not None and document.kind == "sheet":
                self._sheets.add(document_id)
            title = " ".join((document.title if document else "").split()) or fallback
            if title and title == title.lower():
                title = title[0].upper() + title[1:]
            self._documents[document_id] = title or fallback or "document"
        return self._documents[document_id]

    def table(self, info: TableInfo) -> str:
        caption = " ".join((info.caption or info.heading).split())
        if len(caption) > TITLE_CHARS:
            caption = caption[: TITLE_CHARS - 1].rsplit(" ", 1)[0] + "\u2026"
        if caption and _NUMBERED.match(caption):
            return caption
        if info.document_id not in self._order:
            self._order[info.document_id] = [t.id for t in self.library.tables(info.document_id)]
        order = self._order[info.document_id]
        number = order.index(info.id) + 1 if info.id in order else 0
        name = f"Table {number}" if number else "Table"
        return f"{name}: {caption}" if caption else name

    def label(self, document_id: int, page: int, table: TableInfo | None = None, fallback: str = "",
              cells: str = "") -> str:
        """"Budget 2014-15, p. 1, Table 3: ..."; a spreadsheet's place is its sheet and the cells read
        ("annual data, sheet Budget, B4:C4, Table 1: ...")."""
        document = self.document(document_id, fallback)
        place = f"p. {page}"
        if document_id in self._sheets:
            place = f"sheet {self.library.page_label(document_id, page)}" + (f", {cells}" if cells else "")
        parts = [document, place]
        if table is not None:
            parts.append(self.table(table))
        return ", ".join(parts)


def short_label(label: str) -> str:
    """A label without the table's caption, for the answer sentence: "Budget 2014-15, p. 1, Table 3"."""
    return label.split(": ", 1)[0]


def chunk_citation(chunk: Chunk, table: str | None = None, label: str = "") -> Citation:
    """Cite a retrieved chunk: its page, the union of its boxes, and its text as the snippet."""
    return Citation(
        kind="table" if chunk.kind == "table" else "text",
        document=chunk.document,
        document_id=chunk.document_id,
        page=chunk.page,
        bbox=union_box(chunk.boxes),
        snippet=snippet(chunk.text),
        boxes=chunk.boxes,
        table=table,
        sheet=chunk.sheet,
        cell_range=cell_range(chunk.boxes) if chunk.sheet else "",
        label=label,
    )


def sql_citation(info: TableInfo, sql: str, columns: Sequence[str], rows: Sequence[Sequence[Any]],
                 cells: Sequence[CellEvidence], names: SourceNames | None = None,
                 cell_names: dict[tuple[int, str], str] | None = None) -> Citation:
    """Cite an SQL result: the statement, its rows, and the cells it read (on the table's first page).

    The snippet names each cell read by its row label and column header ("Culture, 2014-15: 2,511")
    when ``cell_names`` gives them, else it lists the result's rows."""
    pages = [c.page for c in cells]
    page = max(set(pages), key=pages.count) if pages else info.page
    boxes = tuple(c.bbox for c in cells if c.page == page)
    named = [f"{cell_names[(c.row, c.column)]}: {c.text}" for c in cells if cell_names and (c.row, c.column) in cell_names]
    if named:
        shown = "; ".join(named[:8])
    else:
        shown = "; ".join(", ".join("" if v is None else str(v) for v in row) for row in rows[:5])
        shown = f"{info.caption or info.heading or info.name}: {shown}"
    sheet_cells = cell_range(boxes) if any(c.sheet for c in cells) else ""
    label = names.label(info.document_id, page, info, info.document, sheet_cells) if names is not None else ""
    return Citation(
        kind="table",
        document=info.document,
        document_id=info.document_id,
        page=page,
        bbox=union_box(boxes) or info.bbox,
        snippet=snippet(shown),
        boxes=boxes,
        table=info.name,
        sql=sql,
        columns=tuple(columns),
        result=tuple(tuple(r) for r in rows),
        cells=tuple(cells),
        sheet=next((c.sheet for c in cells if c.page == page and c.sheet), ""),
        cell_range=sheet_cells,
        label=label,
    )


def cells_for(library: Library, info: TableInfo, cells: Iterable[tuple[int, str]]) -> list[CellEvidence]:
    """Evidence for exact (``_row``, column name) pairs, in the order given."""
    wanted = list(dict.fromkeys(cells))
    positions = {c.name: i for i, c in enumerate(info.schema.columns)}
    found = library.cells(info.id, [r for r, _ in wanted], [positions[c] for _, c in wanted if c in positions])
    by_key = {(e.row, e.column): e for e in found}
    return [by_key[key] for key in wanted if key in by_key]


def tables_named(sql: str, tables: Sequence[TableInfo]) -> list[TableInfo]:
    """The linked tables a statement mentions by name."""
    return [t for t in tables if re.search(rf'(?<![\w"]){re.escape(t.name)}(?![\w"])|"{re.escape(t.name)}"', sql)]


def columns_named(sql: str, info: TableInfo) -> list[str]:
    return [c.name for c in info.schema.columns
            if re.search(rf'(?<![\w]){re.escape(c.name)}(?![\w])', sql, re.IGNORECASE)]


def rows_read(runner: SqlRunner, sql: str, info: TableInfo) -> list[int]:
    """The ``_row``s a single-table statement reads: its FROM ... WHERE re-run selecting ``_row``.

    Aggregates, sorting and limits are dropped (an aggregate reads every row its WHERE keeps). A
    statement this cannot rewrite (joins, subqueries over other tables) gives no rows.
    """
    if re.search(r"\bJOIN\b|,\s*\"?\w+\"?\s+(?:WHERE|$)", sql, re.IGNORECASE):
        return []
    match = re.search(rf'\bFROM\s+("?){re.escape(info.name)}\1(\s+(?:AS\s+)?(?!{_KEYWORDS}\b)\w+)?', sql,
                      re.IGNORECASE)
    if match is None:
        return []
    tail = sql[match.end():]
    cut = _TAIL.search(tail)
    where = (tail[: cut.start()] if cut else tail).strip().rstrip(";")
    if where and not re.match(r"WHERE\b", where, re.IGNORECASE):
        return []
    alias = re.sub(r"^AS\s+", "", (match.group(2) or "").strip(), flags=re.IGNORECASE)
    source = f'"{info.name}"' + (f" AS {alias}" if alias else "")
    try:
        result = runner.run(f"SELECT _row FROM {source} {where}")
    except UserError:
        return []
    return [int(r[0]) for r in result.rows[:MAX_FREE_SQL_ROWS] if isinstance(r[0], int)]


def free_sql_cells(library: Library, runner: SqlRunner, sql: str, info: TableInfo) -> list[CellEvidence]:
    """Cells a free SQL statement read from ``info``: the rows it kept, the columns it names."""
    rows = rows_read(runner, sql, info)
    names = columns_named(sql, info)
    if not rows or not names:
        return []
    positions = [i for i, c in enumerate(info.schema.columns) if c.name in names]
    return library.cells(info.id, rows, positions)


def dedupe(citations: Iterable[Citation]) -> tuple[Citation, ...]:
    """Drop repeats (same kind, document, page, snippet and SQL), keeping first-seen order."""
    seen: set[tuple[Any, ...]] = set()
    out = []
    for c in citations:
        key = (c.kind, c.document_id, c.page, c.snippet, c.sql)
        if key not in seen:
            seen.add(key)
            out.append(c)
    return tuple(out)
