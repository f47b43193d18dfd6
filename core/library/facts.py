"""Reading and writing the facts kept beside stored tables and documents: a table's facts
(``core.reports.table_facts``: scale, currency, row hierarchy, column periods) and a document's metadata
(``core.reports.document_metadata``: issuer, type, period), computed from what the library stores.

The rules live in ``core.reports``; this module only reads the library's rows to hand them to those rules,
and stores what they return. Ingestion calls it as each table and document is written, and migrations call it
for libraries written before a fact existed. Every writer here leaves the transaction to its caller.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from itertools import pairwise
from typing import Any

from core.library.db import Connection, quote_identifier
from core.reports.document_metadata import TABLE_NAME, DocumentMetadata, read_metadata
from core.reports.table_facts import (
    ColumnPeriod,
    RowFacts,
    StoredRow,
    TableFacts,
    facts_of,
)
from core.reports.table_naming import PARENT_COLUMN, SECTION_COLUMN
from core.reports.values import Period, is_unit_only

# --------------------------------------------------------------------------------------------------
# A table's facts
# --------------------------------------------------------------------------------------------------


def compute_facts(conn: Connection, table_id: int) -> TableFacts:
    """The facts of a stored table, from its typed rows, cell map, columns and the text around it."""
    meta = conn.execute(
        "SELECT name, document_id, page, y0, y1, caption, heading, unit, header_rows FROM extracted_tables WHERE id = ?",
        (table_id,),
    ).fetchone()
    if meta is None:
        return TableFacts()
    name, document_id, page, top, bottom, caption, heading, unit, header_rows = meta
    columns = conn.execute(
        "SELECT position, name, type, header, unit FROM table_columns WHERE table_id = ? ORDER BY position", (table_id,)
    ).fetchall()
    label = next((c for c in columns if c[2].upper() == "TEXT"), None)
    section = next((c for c in columns if c[1] == SECTION_COLUMN and c is not label and c[2].upper() == "TEXT"), None)
    figures = [c for c in columns if c is not label and c is not section and c[1] != PARENT_COLUMN]
    numeric = [c for c in figures if c[2].upper() != "TEXT"]

    header_texts = [" ".join(t for (t,) in conn.execute(
        "SELECT text FROM table_cells WHERE table_id = ? AND row = ? ORDER BY col", (table_id, r))) for r in range(header_rows)]
    rows = _rows(conn, table_id, name, label, section, numeric)
    # A unit printed as a row of its own at the top of the body ("(In thousands)" under the years).
    unit_rows = [r.label for r in rows[:3] if r.heading and is_unit_only(r.label)]
    texts = [caption, heading, *header_texts, *(c[3] for c in columns), *unit_rows,
             *lines_above(conn, document_id, page, top), *unit_line_below(conn, document_id, page, bottom)]
    units = [unit, *(c[4] for c in numeric if c[4] != "percent")]
    # the head of the label column often says what every column holds ("Quarters Ended", "Years ended June 30")
    context = " ".join(filter(None, [caption, heading, label[3] if label is not None else ""]))
    return facts_of(rows, texts, units, [(c[1], c[3]) for c in numeric], context)


def lines_above(conn: Connection, document_id: int, page: int, top: float) -> list[str]:
    """The lines that introduce a table, nearest first: every line between it and the table above it on its page
    (or the page's top: a notes page's "(in thousands, except per share data)" heading), at least the three just
    above it; for a table at the top of its page, also the lines of the page before under its last table (reports
    often state the unit in the sentence that introduces a table, or in the heading of the notes it is part of)."""
    above_tables = [y1 for (y1,) in conn.execute(
        "SELECT y1 FROM extracted_tables WHERE document_id = ? AND page = ? AND y1 <= ?", (document_id, page, top + 2))]
    since = max(above_tables, default=0.0)
    lines = conn.execute(
        "SELECT text, y0 FROM text_blocks WHERE document_id = ? AND page = ? AND y1 <= ? ORDER BY y1 DESC",
        (document_id, page, top + 2)).fetchall()
    above = [t for i, (t, y0) in enumerate(lines) if i < 3 or y0 >= since - 2]
    if len(above) < 3 and page > 1:
        last = conn.execute("SELECT MAX(y1) FROM extracted_tables WHERE document_id = ? AND page = ?",
                            (document_id, page - 1)).fetchone()[0]
        previous = [t for i, (t, y0) in enumerate(conn.execute(
            "SELECT text, y0 FROM text_blocks WHERE document_id = ? AND page = ? ORDER BY y1 DESC", (document_id, page - 1)))
            if len(t.split()) > 2 and (i < 3 or last is None or y0 >= last - 2)]  # page numbers and running heads left out
        above += previous
    return above


UNIT_LINE_GAP = 24.0
"""Points between a table's bottom and a line under it that states its unit ("(in thousands)"): about a line."""


def unit_line_below(conn: Connection, document_id: int, page: int, bottom: float) -> list[str]:
    """The line just under a table when it states nothing but a unit ("(in thousands)", "Amounts in $ millions"),
    as some reports print it beneath the figures; none when a table starts right under that line (the unit
    heads that table then)."""
    line = conn.execute(
        "SELECT text, y1 FROM text_blocks WHERE document_id = ? AND page = ? AND y0 >= ? AND y0 <= ? ORDER BY y0 LIMIT 1",
        (document_id, page, bottom - 2, bottom + UNIT_LINE_GAP)).fetchone()
    if line is None or not is_unit_only(line[0]):
        return []
    below = conn.execute("SELECT 1 FROM extracted_tables WHERE document_id = ? AND page = ? AND y0 >= ? AND y0 <= ?",
                         (document_id, page, line[1] - 2, line[1] + UNIT_LINE_GAP)).fetchone()
    return [] if below else [line[0]]


def _rows(conn: Connection, table_id: int, name: str, label: Any, section: Any, numeric: Sequence[Any]) -> list[StoredRow]:
    wanted = [c[1] for c in (label, section) if c is not None] + [c[1] for c in numeric]
    if not wanted:
        return []
    try:
        data = conn.execute(
            f"SELECT _row, {', '.join(quote_identifier(n) for n in wanted)} FROM {quote_identifier(name)} ORDER BY _row"
        ).fetchall()
    except Exception:  # noqa: BLE001 - a library whose data table is gone keeps its other facts
        return []
    lefts: dict[int, float] = {}
    pages: dict[int, int] = {}
    if label is not None:
        placed = conn.execute("SELECT row, x0, y0, page FROM table_cells WHERE table_id = ? AND col = ? AND x0 IS NOT NULL "
                              "ORDER BY row", (table_id, label[0])).fetchall()
        lower = sum(1 for (_, _, above, _), (_, _, below, _) in pairwise(placed) if below > above + 0.5)
        if lower * 2 >= len(placed) - 1:  # else the rows run across the page (a table turned on it): no indentation
            lefts = {r: x0 for r, x0, _, _ in placed}
        pages = {r: page or 0 for r, _, _, page in placed}
    start = (label is not None) + (section is not None)
    rows = []
    for record in data:
        text = " ".join(str(record[1]).split()) if label is not None and record[1] not in (None, "") else ""
        where = str(record[2]) if section is not None and label is not None and record[2] else ""
        rows.append(StoredRow(int(record[0]), text, tuple(record[1 + start:]), lefts.get(int(record[0])), where,
                              pages.get(int(record[0]), 0)))
    return rows




def store_facts(conn: Connection, table_id: int, facts: TableFacts) -> None:
    """Record a table's facts (replacing any), and give its SQL table a ``parent`` column where the hierarchy
    says more than its ``section`` column. The caller owns the transaction."""
    conn.execute("UPDATE extracted_tables SET stated_scale = ?, currency = ? WHERE id = ?",
                 (facts.stated_scale, facts.currency, table_id))
    conn.execute("DELETE FROM table_row_facts WHERE table_id = ?", (table_id,))
    conn.executemany(
        "INSERT INTO table_row_facts (table_id, row, depth, parent_row, is_total, section) VALUES (?, ?, ?, ?, ?, ?)",
        [(table_id, f.row, f.depth, f.parent_row, int(f.is_total), f.section) for f in facts.rows],
    )
    conn.execute("DELETE FROM table_periods WHERE table_id = ?", (table_id,))
    conn.executemany(
        "INSERT INTO table_periods (table_id, column_name, fiscal_year, end_date, quarter, months) VALUES (?, ?, ?, ?, ?, ?)",
        [(table_id, p.column, p.period.fiscal_year, p.period.end_date, p.period.quarter, p.period.months)
         for p in facts.periods],
    )
    _add_parent_column(conn, table_id, facts.rows)


def _add_parent_column(conn: Connection, table_id: int, rows: Sequence[RowFacts]) -> None:
    """The ``parent`` column naming the line each row stands under, with its cells (the parent's label box), where a
    row stands under a line that is not its section heading; a column written before (facts computed again after
    an upgrade) is written over, its old values and cells cleared."""
    name, header_rows, first_page = conn.execute(
        "SELECT name, header_rows, page FROM extracted_tables WHERE id = ?", (table_id,)).fetchone()
    columns = conn.execute("SELECT position, name, type FROM table_columns WHERE table_id = ? ORDER BY position",
                           (table_id,)).fetchall()
    written = next((c[0] for c in columns if c[1] == PARENT_COLUMN), None)
    if written is not None:
        conn.execute(f"UPDATE {quote_identifier(name)} SET {quote_identifier(PARENT_COLUMN)} = NULL")
        conn.execute("DELETE FROM table_cells WHERE table_id = ? AND col = ? AND is_header = 0", (table_id, written))
    label = next((c[0] for c in columns if c[2].upper() == "TEXT" and c[1] != PARENT_COLUMN), None)
    if label is None:
        return
    labels: dict[int, tuple[str, int, Any, Any, Any, Any]] = {
        r: (t, p, x0, y0, x1, y1) for r, t, p, x0, y0, x1, y1 in conn.execute(
            "SELECT row, text, page, x0, y0, x1, y1 FROM table_cells WHERE table_id = ? AND col = ?", (table_id, label))}
    by_row = {f.row: f for f in rows}

    def said(row: int | None) -> str:
        return " ".join(labels[row][0].split()).rstrip(":") if row is not None and row in labels else ""

    parents = {f.row: said(f.parent_row) for f in rows if f.parent_row is not None}
    if not any(text and text != by_row[row].section for row, text in parents.items()):
        return  # the section column already names every row's parent
    examples = list(dict.fromkeys(t for t in parents.values() if t))[:3]
    if written is None:
        position = len(columns)
        conn.execute(f"ALTER TABLE {quote_identifier(name)} ADD COLUMN {quote_identifier(PARENT_COLUMN)} TEXT")
        conn.execute("INSERT INTO table_columns (table_id, position, name, header, type, unit, examples) "
                     "VALUES (?, ?, ?, 'Parent', 'TEXT', '', ?)", (table_id, position, PARENT_COLUMN, json.dumps(examples)))
    else:
        position = written
        conn.execute("UPDATE table_columns SET examples = ? WHERE table_id = ? AND position = ?",
                     (json.dumps(examples), table_id, position))
    conn.executemany(f"UPDATE {quote_identifier(name)} SET {quote_identifier(PARENT_COLUMN)} = ? WHERE _row = ?",
                     [(text, row) for row, text in parents.items() if text])
    cells = []
    if header_rows:
        cells.append((table_id, header_rows - 1, position, 1, first_page, None, None, None, None, "Parent"))
    for row, parent in ((f.row, f.parent_row) for f in rows if f.parent_row is not None and f.parent_row in labels):
        _, page, x0, y0, x1, y1 = labels[parent]
        cells.append((table_id, row, position, 0, page, x0, y0, x1, y1, said(parent)))
    conn.executemany("INSERT OR REPLACE INTO table_cells (table_id, row, col, is_header, page, x0, y0, x1, y1, text) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", cells)


def load_facts(conn: Connection, table_id: int) -> TableFacts:
    """A table's stored facts (empty ones for a table stored without them)."""
    meta = conn.execute("SELECT stated_scale, currency FROM extracted_tables WHERE id = ?", (table_id,)).fetchone()
    if meta is None:
        return TableFacts()
    rows = tuple(RowFacts(r, depth, parent, bool(total), section) for r, depth, parent, total, section in conn.execute(
        "SELECT row, depth, parent_row, is_total, section FROM table_row_facts WHERE table_id = ? ORDER BY row",
        (table_id,)))
    periods = tuple(ColumnPeriod(column, Period(year, end, quarter, months)) for column, year, end, quarter, months in
                    conn.execute("SELECT column_name, fiscal_year, end_date, quarter, months FROM table_periods "
                                 "WHERE table_id = ? ORDER BY rowid", (table_id,)))
    return TableFacts(meta[0], meta[1], rows, periods)


def refresh_facts(conn: Connection, table_id: int) -> TableFacts:
    """Compute and store a table's facts; return them."""
    facts = compute_facts(conn, table_id)
    store_facts(conn, table_id, facts)
    return facts


# --------------------------------------------------------------------------------------------------
# A document's metadata
# --------------------------------------------------------------------------------------------------


BODY_PAGES = 12
"""Pages read for a quarterly report's quarter (its statements come early)."""


def compute_metadata(conn: Connection, document_id: int) -> DocumentMetadata | None:
    """Read a stored document's metadata from its stored pages and tables (no file access)."""
    row = conn.execute("SELECT title, file_name FROM documents WHERE id = ?", (document_id,)).fetchone()
    if row is None:
        return None
    pages = [r[0] for r in conn.execute(
        "SELECT text FROM pages WHERE document_id = ? ORDER BY number LIMIT ?", (document_id, BODY_PAGES))]
    units = [r[0] for r in conn.execute(
        "SELECT unit FROM extracted_tables WHERE document_id = ? AND unit != '' "
        "UNION ALL SELECT c.unit FROM table_columns c JOIN extracted_tables t ON t.id = c.table_id "
        "WHERE t.document_id = ? AND c.unit != ''", (document_id, document_id))]
    headers = [r[0] for r in conn.execute(
        "SELECT group_concat(c.header, ' ') FROM table_columns c JOIN extracted_tables t ON t.id = c.table_id "
        "WHERE t.document_id = ? GROUP BY t.id", (document_id,)) if r[0]]
    return read_metadata(row[0], row[1], pages, units, headers, body="\n".join(pages))


_COLUMNS = ("issuer", "doc_type", "period", "fiscal_year", "quarter", "period_end", "currency", "scale", "edited",
            "summary", "ticker")


def store_metadata(conn: Connection, document_id: int, metadata: DocumentMetadata) -> None:
    """Write a document's row (the caller owns the transaction)."""
    values = asdict(metadata)
    conn.execute(
        f"INSERT OR REPLACE INTO {TABLE_NAME} (document_id, document, {', '.join(_COLUMNS)}) "
        f"SELECT id, file_name, {', '.join('?' * len(_COLUMNS))} FROM documents WHERE id = ?",
        (*[int(values[c]) if c == "edited" else values[c] for c in _COLUMNS], document_id),
    )


def refresh_metadata(conn: Connection, document_id: int) -> DocumentMetadata | None:
    """Compute and store a document's metadata unless a person has corrected it."""
    current = load_metadata(conn, [document_id]).get(document_id)
    if current is not None and current.edited:
        return current
    metadata = compute_metadata(conn, document_id)
    if metadata is not None:
        store_metadata(conn, document_id, metadata)
    return metadata


def load_metadata(conn: Connection, document_ids: Sequence[int] | None = None) -> dict[int, DocumentMetadata]:
    """Stored metadata by document id (every document's when ``document_ids`` is None)."""
    sql = f"SELECT document_id, {', '.join(_COLUMNS)} FROM {TABLE_NAME}"
    params: list[int] = []
    if document_ids is not None:
        if not document_ids:
            return {}
        sql += " WHERE document_id IN (" + ",".join("?" * len(document_ids)) + ")"
        params = list(document_ids)
    out = {}
    for r in conn.execute(sql, params):
        values = dict(zip(_COLUMNS, r[1:], strict=True))
        values["edited"] = bool(values["edited"])
        out[r[0]] = DocumentMetadata(**values)
    return out
