"""Facts about a stored table, found once when it is stored and kept beside it: the scale and currency its
figures are stated in, each row's place in the statement (its depth, its parent line, its section, whether
it is a total), and the period each figure column holds.

Answering reads them from ``core.library.TableInfo`` instead of working them out for every question. They
are computed from what the library stores (the typed table, its cell map with each label's box, the page's
text blocks), so the same code fills them at ingestion and for libraries written before they existed
(``core.migrations.m006_table_facts``).

Where a row stands under a line that is not its section heading (a line with figures, or a deeper level of
indentation), the SQL table also gets a ``parent`` column naming that line, so a query can ask for the rows
under it; elsewhere the ``section`` column already names every row's parent.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.db import Connection, quote_identifier
from core.report_values import (
    STATED_SCALES,
    AskedPeriod,
    Period,
    asked_periods,
    currency_stated_in,
    is_unit_only,
    read_period,
    scale_stated_in,
)
from core.table_naming import PARENT_COLUMN, SECTION_COLUMN

_CLOSING = re.compile(r"^(?:total|net|less|gross)\b", re.IGNORECASE)
_TOTAL = re.compile(r"^(?:totals?|sub-?totals?|net)\b", re.IGNORECASE)
_GENERIC = frozenset(
    ["total", "net", "cash", "the", "of", "and", "in", "from", "to", "for", "by", "used", "provided", "activities",
     "liabilities", "assets", "less", "other"]
)
INDENT_STEP = 1.5
"""Points of indentation below which two labels stand at the same level."""
CENTRED = 60.0
"""A heading set this far right of the labels' left edge is centred over the statement: its top level."""


def is_closing_label(label: str) -> bool:
    """A label that closes a group of lines above it: "Total ...", "Net ...", "Less ...", "Gross ..."."""
    return bool(_CLOSING.match(label))


def heading_words(text: str) -> set[str]:
    """The words that tell one heading from another ("investing" in "Cash flows from investing activities"),
    by which a total line names the heading it closes."""
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in _GENERIC and len(w) > 2}


def closed_heading(label: str, headings: Sequence[str]) -> int | None:
    """Which of the open ``headings`` (outermost first) a total line closes: the one sharing most of its
    distinctive words ("Total stockholders' equity" closes "Stockholders' equity:", not "Liabilities and
    stockholders' equity"; "Net cash used in investing activities" closes "Cash flows from investing activities",
    not a sub-heading inside it naming more), the innermost among equals. None when ``label`` is not a total
    line or names none of them."""
    if not is_closing_label(label):
        return None
    words = heading_words(label)
    best, best_score = None, 0.0
    for position, heading in enumerate(headings):
        theirs = heading_words(heading)
        shared = len(words & theirs)
        score = shared / len(words | theirs) if shared else 0.0
        if score and score >= best_score:
            best, best_score = position, score
    return best


@dataclass(frozen=True)
class RowFacts:
    """A body row's place in its table: ``row`` is its ``_row``; ``parent_row`` the ``_row`` of the line it
    stands under (None at the top); ``depth`` how many lines it stands under (0 at the top)."""

    row: int
    depth: int = 0
    parent_row: int | None = None
    is_total: bool = False
    section: str = ""


@dataclass(frozen=True)
class ColumnPeriod:
    """The period a figure column holds, by the column's SQL name."""

    column: str
    period: Period


@dataclass(frozen=True)
class TableFacts:
    stated_scale: str = ""
    currency: str = ""
    rows: tuple[RowFacts, ...] = ()
    periods: tuple[ColumnPeriod, ...] = ()


def period_columns(periods: Sequence[ColumnPeriod], asked: str | Sequence[AskedPeriod]) -> tuple[str, ...]:
    """The columns holding a period a question names ("FY2018", "fiscal 2018", "2018", "Q2 2023"), in the
    order the question names the periods."""
    wanted = asked_periods(asked) if isinstance(asked, str) else list(asked)
    out: list[str] = []
    for period in wanted:
        out.extend(p.column for p in periods if period.matches(p.period) and p.column not in out)
    return tuple(out)


# --------------------------------------------------------------------------------------------------
# Computing
# --------------------------------------------------------------------------------------------------


@dataclass
class _Row:
    row: int
    label: str
    values: tuple[Any, ...]  # the figure columns' values
    x0: float | None
    section: str

    @property
    def heading(self) -> bool:
        return bool(self.label) and all(v is None or v == "" for v in self.values)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def compute_facts(conn: Connection, table_id: int) -> TableFacts:
    """The facts of a stored table, from its typed rows, cell map, columns and the text around it."""
    meta = conn.execute(
        "SELECT name, document_id, page, y0, caption, heading, unit, header_rows FROM extracted_tables WHERE id = ?",
        (table_id,),
    ).fetchone()
    if meta is None:
        return TableFacts()
    name, document_id, page, top, caption, heading, unit, header_rows = meta
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
             *_lines_above(conn, document_id, page, top)]
    units = [unit, *(c[4] for c in numeric if c[4] != "percent")]
    scale = next((s for u in units if u and (s := scale_stated_in(u)) in STATED_SCALES), "")
    scale = scale or next((s for t in texts if t and (s := scale_stated_in(t))), "")
    currency = next((c for t in [*units, *texts] if t and (c := currency_stated_in(t))), "")

    context = " ".join(filter(None, [caption, heading]))
    periods = []
    for column in numeric:
        period = read_period(column[3], context) if column[3] else read_period(column[1].replace("_", " "), context)
        if period is not None:
            periods.append(ColumnPeriod(column[1], period))

    return TableFacts(scale, currency, _row_facts(rows), tuple(periods))


def _lines_above(conn: Connection, document_id: int, page: int, top: float) -> list[str]:
    """The three lines just above a table; for a table at the top of its page, lines at the end of the page before
    (reports often state the unit in the sentence that introduces a table)."""
    above = [t for (t,) in conn.execute(
        "SELECT text FROM text_blocks WHERE document_id = ? AND page = ? AND y1 <= ? ORDER BY y1 DESC LIMIT 3",
        (document_id, page, top + 2))]
    if len(above) < 3 and page > 1:
        previous = [t for (t,) in conn.execute(
            "SELECT text FROM text_blocks WHERE document_id = ? AND page = ? ORDER BY y1 DESC", (document_id, page - 1))
            if len(t.split()) > 2]  # page numbers and running heads left out
        above += previous[:3]
    return above


def _rows(conn: Connection, table_id: int, name: str, label: Any, section: Any, numeric: Sequence[Any]) -> list[_Row]:
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
    if label is not None:
        lefts = {r: x0 for r, x0 in conn.execute(
            "SELECT row, x0 FROM table_cells WHERE table_id = ? AND col = ? AND x0 IS NOT NULL", (table_id, label[0]))}
    start = (label is not None) + (section is not None)
    rows = []
    for record in data:
        text = " ".join(str(record[1]).split()) if label is not None and record[1] not in (None, "") else ""
        where = str(record[2]) if section is not None and label is not None and record[2] else ""
        rows.append(_Row(int(record[0]), text, tuple(record[1 + start:]), lefts.get(int(record[0])), where))
    return rows


def _row_facts(rows: list[_Row]) -> tuple[RowFacts, ...]:
    if not rows:
        return ()
    placed = [r.x0 for r in rows if r.x0 is not None]
    label_left = min(placed) if placed else 0.0

    def indent(row: _Row) -> float:
        x = row.x0 if row.x0 is not None else label_left
        return label_left - 100 if row.heading and x > label_left + CENTRED else x

    parents: list[int | None] = []
    stack: list[int] = []  # indices of the open lines, outermost first
    for i, row in enumerate(rows):
        x = indent(row)
        closed = _closed_heading(row, rows, stack)
        if closed is not None:  # "Total current assets" ends "Current assets" and stands in it
            parent: int | None = stack[closed]
            del stack[closed:]
        else:
            while stack and indent(rows[stack[-1]]) >= x - INDENT_STEP:
                stack.pop()
            if _TOTAL.match(row.label):  # a total set deeper than the lines it adds up stands beside them
                while stack and not rows[stack[-1]].heading:
                    stack.pop()
            parent = stack[-1] if stack else None
        if row.section:
            # The statement's own section (see extraction.ledger) wins over indentation, unless the row stands
            # under a line with figures inside that section.
            heading = next((j for j in range(i - 1, -1, -1)
                            if rows[j].heading and rows[j].label.rstrip(":") == row.section), None)
            if heading is not None and (parent is None or parent < heading or rows[parent].heading and parent != heading):
                parent = heading
        parents.append(parent)
        stack.append(i)

    totals = _totals(rows)
    depths: list[int] = []
    for p in parents:  # parents come first
        depths.append(0 if p is None else depths[p] + 1)
    return tuple(
        RowFacts(row.row, depths[i], rows[p].row if p is not None else None, totals[i], row.section)
        for i, (row, p) in enumerate(zip(rows, parents, strict=True))
    )


def _closed_heading(row: _Row, rows: list[_Row], stack: list[int]) -> int | None:
    """Position in ``stack`` of the open heading a total line closes, if it is one."""
    if row.heading:
        return None
    headings = [position for position, index in enumerate(stack) if rows[index].heading]
    found = closed_heading(row.label, [rows[stack[p]].label for p in headings])
    return headings[found] if found is not None else None


def _totals(rows: list[_Row]) -> list[bool]:
    """Which rows are totals: labelled so ("Total ...", "Net ..." below other lines with figures), or, labelled or
    not, the sum of the labelled lines above since the last total, in every column where they print a figure."""
    out: list[bool] = []
    since: list[tuple[Any, ...]] = []
    figures_above = False
    section = None
    for row in rows:
        if row.section != section:
            section, figures_above = row.section, False
        total = False
        if not row.heading:
            named = bool(_TOTAL.match(row.label)) and (figures_above or row.label.lower().startswith(("total", "sub")))
            total = named or _is_sum_of(row.values, since)
            figures_above = True
        out.append(total)
        if total:
            since = []
        elif row.label and not row.heading:  # only labelled items add up to a total; a blank row may hold years
            since.append(row.values)
    return out


def _is_sum_of(values: tuple[Any, ...], above: Sequence[tuple[Any, ...]]) -> bool:
    """Each of the row's figures is the sum of the figures above it, to the rounding reports use, and at least one
    column has two or more addends."""
    matched = False
    for p, value in enumerate(values):
        if not _is_number(value):
            continue
        addends = [a[p] for a in above if _is_number(a[p])]
        if len(addends) < 2 or abs(sum(addends) - value) > max(1.0, 0.005 * abs(value)):
            return False
        matched = True
    return matched


# --------------------------------------------------------------------------------------------------
# Storing and reading
# --------------------------------------------------------------------------------------------------


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
    name, header_rows, first_page = conn.execute(
        "SELECT name, header_rows, page FROM extracted_tables WHERE id = ?", (table_id,)).fetchone()
    columns = conn.execute("SELECT position, name, type FROM table_columns WHERE table_id = ? ORDER BY position",
                           (table_id,)).fetchall()
    if any(c[1] == PARENT_COLUMN for c in columns):
        return
    label = next((c[0] for c in columns if c[2].upper() == "TEXT"), None)
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
    position = len(columns)
    conn.execute(f"ALTER TABLE {quote_identifier(name)} ADD COLUMN {quote_identifier(PARENT_COLUMN)} TEXT")
    conn.executemany(f"UPDATE {quote_identifier(name)} SET {quote_identifier(PARENT_COLUMN)} = ? WHERE _row = ?",
                     [(text, row) for row, text in parents.items() if text])
    examples = list(dict.fromkeys(t for t in parents.values() if t))[:3]
    conn.execute("INSERT INTO table_columns (table_id, position, name, header, type, unit, examples) "
                 "VALUES (?, ?, ?, 'Parent', 'TEXT', '', ?)", (table_id, position, PARENT_COLUMN, json.dumps(examples)))
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
