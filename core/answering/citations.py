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

import sqlglot
import sqlglot.errors
from sqlglot import exp

from core.errors import UserError
from core.library.sheet_cells import cell_range
from core.library.store import Library, TableInfo
from core.sql.runner import SqlRunner
from models.types import BBox, CellEvidence, Chunk, Citation

SNIPPET_CHARS = 240
TITLE_CHARS = 70
MAX_FREE_SQL_ROWS = 50



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
    """The linked tables a statement reads, in the order it names them (parsed, not pattern-matched)."""
    tree = _parse(sql)
    if tree is None:
        return []
    by_name = {t.name.lower(): t for t in tables}
    named = [by_name[t.name.lower()] for t in tree.find_all(exp.Table) if t.name.lower() in by_name]
    return list({t.id: t for t in named}.values())


def _parse(sql: str) -> exp.Expr | None:
    try:
        return sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.SqlglotError:
        return None


def cells_read(library: Library, runner: SqlRunner, sql: str,
               tables: Sequence[TableInfo]) -> list[tuple[TableInfo, list[CellEvidence]]]:
    """The cells a free SQL statement read, table by table, joins included: the statement is parsed
    (sqlglot), its FROM, JOINs and WHERE are re-run selecting each table's ``_row`` instead of its
    results (aggregates, grouping, ordering and limits dropped: an aggregate reads every row its WHERE
    keeps), and the cells are those rows in the columns the statement names for that table. A
    statement this cannot rewrite (set operations, sub-queries as sources) cites no cells."""
    tree = _parse(sql)
    if not isinstance(tree, exp.Select) or tree.find(exp.Union, exp.Intersect, exp.Except) is not None:
        return []
    by_name = {t.name.lower(): t for t in tables}
    sources: dict[str, TableInfo] = {}
    for table in tree.find_all(exp.Table):
        info = by_name.get(table.name.lower())
        if info is not None:
            sources[table.alias_or_name.lower()] = info
    if not sources:
        return []
    columns: dict[str, set[str]] = {alias: set() for alias in sources}
    for column in tree.find_all(exp.Column):
        qualifier = column.table.lower()
        owners = [qualifier] if qualifier in sources else [
            alias for alias, info in sources.items() if any(c.name.lower() == column.name.lower()
                                                           for c in info.schema.columns)] if not qualifier else []
        if len(owners) == 1:
            columns[owners[0]].add(column.name.lower())
    rows = _rows_per_source(runner, tree, list(sources))
    out = []
    for alias, info in sources.items():
        positions = [i for i, c in enumerate(info.schema.columns) if c.name.lower() in columns[alias]]
        if positions and rows.get(alias):
            out.append((info, library.cells(info.id, rows[alias], positions)))
    return out


def _rows_per_source(runner: SqlRunner, tree: exp.Select, aliases: Sequence[str]) -> dict[str, list[int]]:
    """``_row``s of each source that take part in the statement's FROM / JOIN / WHERE."""
    probe = tree.copy()
    for key in ("group", "order", "limit", "offset", "having", "distinct", "qualify", "windows"):
        probe.set(key, None)
    probe.set("expressions", [exp.column("_row", table=alias).as_(f"r{i}") for i, alias in enumerate(aliases)])
    try:
        result = runner.run(probe.sql(dialect="sqlite"))
    except UserError:
        return {}
    found: dict[str, list[int]] = {alias: [] for alias in aliases}
    for row in result.rows[:MAX_FREE_SQL_ROWS]:
        for alias, value in zip(aliases, row):
            if isinstance(value, int) and value not in found[alias]:
                found[alias].append(value)
    return found


def free_sql_cells(library: Library, runner: SqlRunner, sql: str, info: TableInfo) -> list[CellEvidence]:
    """Cells a free SQL statement read from ``info`` (see ``cells_read``)."""
    return next((cells for table, cells in cells_read(library, runner, sql, [info]) if table.id == info.id), [])


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
