"""Structured table operations: what a small model is allowed to write instead of free SQL.

The model picks an OPERATION (difference, percent change, sum, ...) and the CELLS it needs, named by
the table's real row labels and column names; JSON Schema enums make anything else impossible to
write. This module owns the view of a stored table those enums come from (``TableView``), the cheap
deterministic help (row labels pre-filtered by overlap with the question, operation hints from
obvious words, later year first in a change), the compilation of a choice into one SQLite statement
(the arithmetic runs in SQL, so the evidence is the statement plus the cells it read), and the
formatting of a result with the table's scale and unit ("12.6 million", "4.55%").
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from core.answering import measures as m
from core.answering.vocabulary import denied_words, is_statement, report_words
from core.library.db import quote_identifier
from core.library.facts import lines_above
from core.library.store import Library, TableInfo
from core.reports.table_naming import PARENT_COLUMN, SECTION_COLUMN
from core.reports.values import SCALE_FACTORS, STATED_SCALES, YEAR_WORD, currency_stated_in, scale_stated_in
from core.reports.words import content_words
from core.search.retrieval import STOPWORDS
from models.types import ColumnSchema

if TYPE_CHECKING:
    from core.answering.reading import QuestionReading

MAX_ROW_CHOICES = 14
MAX_COLUMN_CHOICES = 10
MAX_CELLS = 8
SHOWN_ROWS = 12
"""Rows of a long table the prompt shows for a question (``TableView.markdown``)."""

_YEAR = YEAR_WORD
# Words that name no particular row or column, on top of the search stopwords.
_STOP = STOPWORDS | {"between", "during", "year", "years", "total", "value", "amount"}
_SCALE_WORDS = STATED_SCALES
_CURRENCY_NAMES = {"\u20b9": "rupees", "RMB": "yuan", "CHF": "francs", "\u00a5": "yen"}
"""Currencies written after the figure as a word; the others ($, \u20ac, \u00a3) go before it as a symbol."""

def words(text: str) -> set[str]:
    """Content words of a text (``core.reports.words``), without words that name no particular row or column."""
    return content_words(text, _STOP)


def scale_of(unit: str) -> str:
    """The scale word a unit carries ("$ million" -> "million"), "%" for percents, else ""."""
    lowered = unit.lower()
    if "percent" in lowered or "%" in lowered:
        return "%"
    return next((word for word in _SCALE_WORDS if word in lowered), "")


CELL_DECIMALS = 6
"""A cell read as it is printed keeps its own decimals (a density of 1.289 g/cm² is no 1.29): up to six."""


def format_number(value: float, decimals: int = 2) -> str:
    """At most ``decimals`` decimals (two: a computed figure), no trailing zeros, thousands separated as reports
    print them (185,980)."""
    rounded = round(float(value), decimals)
    if rounded == int(rounded):
        return f"{int(rounded):,}"
    return f"{rounded:,.{decimals}f}".rstrip("0").rstrip(".")


def format_value(value: Any, scale: str) -> str:
    """A result with its scale: 12.6 + "million" -> "12.6 million"; 4.5 + "%" -> "4.5%"."""
    if not is_number(value):
        return "" if value is None else str(value)
    text = format_number(value)
    if scale == "%":
        return text + "%"
    return f"{text} {scale}" if scale else text


@dataclass(frozen=True)
class RowChoice:
    """A body row the model may name: its label as shown (made unique) and its ``_row``."""

    label: str
    row: int
    labelled: bool = True
    """False where the row prints no label and ``label`` describes it (``unlabelled_row``)."""


_PER_UNIT = re.compile(r"\bper\s+(?:basic\s+|diluted\s+|common\s+|ordinary\s+)*(?:share|unit|ads)\b|\bearnings\s+per\b|"
                       r"\beps\b", re.IGNORECASE)
"""A line stated per share: reports print it in units, whatever scale the rest of the table is in."""
_UNIT_SAID = r"\((?:(?P<percent>%|per\s?cent|in\s+%)|(?:US)?[$\u20ac\u00a3\u00a5])\)"
_LABEL_UNIT = re.compile(_UNIT_SAID + r"(?:\s*\(#\d+\))?\s*$", re.IGNORECASE)
"""A unit a row label ends with, in brackets: "(%)", "(percent)", or a bare currency sign ("($)": units)."""
_HEADING_UNIT = re.compile(_UNIT_SAID, re.IGNORECASE)
"""A unit a heading row states for the rows under it, anywhere in its words: "Birth Weight (%) (age below 36
months)"."""


@dataclass(frozen=True)
class TableView:
    """A stored table as the operation step sees it: label column, data columns and body rows."""

    info: TableInfo
    label_column: ColumnSchema | None
    data_columns: tuple[ColumnSchema, ...]
    rows: tuple[RowChoice, ...]
    values: dict[int, tuple[Any, ...]]
    """``_row`` -> the row's values, in schema column order."""
    page_scale: str = ""
    """A scale stated just above the table ("in millions") when the table itself states none."""
    printed: dict[tuple[int, int], str] = field(default_factory=dict)
    """(``_row``, column position) -> the cell's text as printed, for per-cell units ("13.1%")."""
    currency: str = ""
    """The currency the table states ("$", "rupees"), for answers in words; "" when none is stated."""
    source: str = ""
    """What a statement reads the view from, where it is no stored table as stored: a sub-select over it (a
    table turned so its columns are its rows, ``core.answering.across``); "" for the stored table."""
    origin: dict[tuple[int, str], tuple[int, str]] = field(default_factory=dict)
    """(``_row``, column name) of a cell of a view read from ``source`` -> the stored cell it is (for citations)."""
    stored: TableInfo | None = None
    """The stored table a view read from ``source`` reads (its cells are cited); None: ``info`` is."""
    introduced: str = ""
    """The lines nearest above the table (``lines_above``, ``INTRODUCING_LINES``: "Livestock numbers are those of the
    census of 1 December"): words a question may name the table by besides its title."""

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def from_sql(self) -> str:
        """The view as a statement's FROM names it."""
        return self.source or quote_identifier(self.info.name)

    @property
    def stored_info(self) -> TableInfo:
        """The stored table whose cells the view's figures are."""
        return self.stored or self.info

    def stored_cells(self, cells: Sequence[tuple[int, str]]) -> list[tuple[int, str]]:
        """(``_row``, column name) cells of this view as the stored table's cells."""
        return [self.origin.get(cell, cell) for cell in cells]

    def column_position(self, name: str) -> int:
        return next(i for i, c in enumerate(self.info.schema.columns) if c.name == name)

    def column_scale(self, name: str) -> str:
        column = next(c for c in self.info.schema.columns if c.name == name)
        return scale_of(column.unit) or self.page_scale or self._period_sibling_scale(name) or self._table_scale(name)

    def _table_scale(self, name: str) -> str:
        """The table's unit, for a column that states none, unless it is another column's own: "n | %" over counts
        and their shares is a table "in percent" only by its % column."""
        table = scale_of(self.info.unit)
        if table and any(scale_of(c.unit) == table for c in self.info.schema.columns if c.name != name):
            return ""
        return table

    def _period_sibling_scale(self, name: str) -> str:
        """A period column printed without a scale takes the one its other period columns state, when they
        agree: "(in millions)" printed under "January 3, 2020" only is as true of "December 28, 2018" beside it
        (the same lines in another period). Columns that are no periods ("Employees") take nothing."""
        periods = {p.column for p in self.info.periods}
        if name not in periods:
            return ""
        scales = {scale_of(c.unit) for c in self.info.schema.columns if c.name in periods and c.name != name}
        scales.discard("")
        found = next(iter(scales)) if len(scales) == 1 else ""
        return found if found in _SCALE_WORDS else ""

    def cell_scale(self, row: int, name: str) -> str:
        """The scale of one cell: a printed "%" wins; a column typed as percent only because most of its
        cells are ("$120.7" above "13.1%") gives its other cells the table's scale."""
        position = self.column_position(name)
        column = self.info.schema.columns[position]
        text = self.printed.get((row, position), "")
        if "%" in re.sub(r"(?<=\S)\s*\([^()]*\)", "", text):  # (a share printed after the figure, "962 (41.2%)", aside)
            return "%"
        label_unit = self._label_unit(row)
        if label_unit is not None:
            return label_unit
        if (_PER_UNIT.search(self.labels.get(row, "")) or _PER_UNIT.search(self.sections.get(row, ""))
                or _PER_UNIT.search(column.header)) and "%" not in text:
            # "Dividends declared per common share" in a table "in millions, except per share data" ("Diluted"
            # under "Earnings per common share:" too); a column "Cash dividend per share 2019" beside columns of
            # totals in thousands
            return ""
        scale = self.column_scale(name)
        header_says_percent = "%" in column.header or "percent" in column.header.lower()
        if scale == "%" and not header_says_percent and re.search(r"\d", text):
            other = self.page_scale or scale_of(self.info.unit)
            return "" if other == "%" else other
        return scale

    @cached_property
    def sections(self) -> dict[int, str]:
        """``_row`` -> the heading its row stands under ("" where none was stored)."""
        return {fact.row: fact.section for fact in self.info.row_facts if fact.section}

    @cached_property
    def labels(self) -> dict[int, str]:
        """``_row`` -> the row's label, read once per view (``cell_scale`` asks it for every cell it scales)."""
        return {choice.row: choice.label for choice in self.rows}

    def _label_unit(self, row: int) -> str | None:
        """The unit a row's label states for its own figures, overriding the table's: "ROFE (%)" and "Gross
        margin (%)" are percentages and "Sales per square metre ($)" is in dollars, in a table "$ MILLION"
        heads; where the label states none, the heading the row stands under may ("Awareness (%)"); else None."""
        match = _LABEL_UNIT.search(self.labels.get(row, "")) or _HEADING_UNIT.search(self.headings.get(row, ""))
        if match is None:
            return None
        return "%" if match.group("percent") else ""

    @cached_property
    def headings(self) -> dict[int, str]:
        """``_row`` -> the heading its row stands under: as stored at ingestion; where none was stored, the label of
        the nearest row above it that holds no figure ("Global (India and International)" over "Hindi films"),
        with the lines it wraps onto ("reference period) (%)" under "Treatment of diseases (based on the"); a
        fragment of a wrapped line label ("revenue" under "Total cost of", which holds figures) heads nothing."""
        stored = {row: section for row, section in self.sections.items() if section}
        if stored:
            return stored
        found: dict[int, str] = {}
        heading, under_heading = "", False
        for choice in self.rows:
            if not any(is_number(v) for v in self.values.get(choice.row, ())[1:]):
                label = re.sub(r"\s*\(#\d+\)$", "", choice.label).rstrip(":")
                if choice.label[:1].isupper():  # a line begun in lower case continues the label above it
                    heading, under_heading = label, True
                elif under_heading:
                    heading = f"{heading} {label}"
            else:
                under_heading = False
                if heading:
                    found[choice.row] = heading
        return found

    def asked_words(self, question: str) -> set[str]:
        """The question's words, with the report's wording for line items it names that these rows'
        labels do not print themselves ("capex": "purchases of property, plant and equipment")."""
        printed = set().union(*(words(r.label) for r in self.rows))
        return words(f"{question} {report_words(question, lambda name: words(name) <= printed)}")

    def row_choices(self, question: str, limit: int = MAX_ROW_CHOICES) -> list[RowChoice]:
        """Rows worth offering: all of a short table, else those sharing most words with the question."""
        if len(self.rows) <= limit:
            return list(self.rows)
        asked = self.asked_words(question)
        scored = [(len(asked & words(r.label)), -i, r) for i, r in enumerate(self.rows)]
        best = sorted(scored, key=lambda t: (t[0], t[1]), reverse=True)[:limit]
        return [r for _, _, r in sorted(best, key=lambda t: -t[1])]

    def column_choices(self, question: str, limit: int = MAX_COLUMN_CHOICES) -> list[ColumnSchema]:
        if len(self.data_columns) <= limit:
            return list(self.data_columns)
        asked = words(question)
        scored = [(len(asked & words(f"{c.name} {c.header}")), -i, c) for i, c in enumerate(self.data_columns)]
        best = sorted(scored, key=lambda t: (t[0], t[1]), reverse=True)[:limit]
        return [c for _, _, c in sorted(best, key=lambda t: -t[1])]

    def markdown(self, max_rows: int = 25, question: str = "") -> str:
        """The table as the prompt shows it: real column names over typed values, label first. Given the
        ``question``, a table longer than ``SHOWN_ROWS`` shows only the rows whose labels share most words
        with it (in table order): the model reads fewer tokens, and every row is still offered in the
        choices of an operation step."""
        columns = [c for c in ((self.label_column,) if self.label_column else ()) + self.data_columns]
        positions = [self.column_position(c.name) for c in columns]
        lines = ["| " + " | ".join(c.name for c in columns) + " |"]
        rows = self.rows
        if question and len(rows) > SHOWN_ROWS:
            rows = tuple(self.row_choices(question, SHOWN_ROWS))
            max_rows = len(rows)
        for choice in rows[:max_rows]:
            values = self.values[choice.row]
            cells = [choice.label if self.label_column is not None and p == positions[0] else _cell(values[p])
                     for p in positions]
            lines.append("| " + " | ".join(cells) + " |")
        if len(self.rows) > max_rows:
            lines.append(f"| ... {len(self.rows) - max_rows} {'other' if question else 'more'} rows |")
        return "\n".join(lines)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return format_number(value) if abs(value) < 1e15 else str(value)
    return " ".join(str(value).split())


def _unit_texts(library: Library, info: TableInfo, above: Sequence[str] | None = None) -> list[str]:
    """Where a table states its units: caption, heading, header cells, column headers, and the lines just
    above it (``above``, read here where not given: reports often say it in the sentence that introduces the
    table)."""
    header = [" ".join(row) for row in library.table_grid(info.id)[: info.header_rows]]
    texts = [info.caption, info.heading, *header, *(c.header for c in info.schema.columns)]
    if above is None:
        above = lines_above(library.conn, info.document_id, info.page, info.bbox[1])
    return [t for t in [*texts, *above] if t]


def stated_scale(library: Library, info: TableInfo, texts: Sequence[str] | None = None) -> str:
    """The scale a table's caption, header cells or the lines just above it state ("(in millions)",
    "£m", "$'000", "(Rs. in crore)"), for tables whose columns and unit carry none: reports often say it
    in the sentence that introduces the table, and a currency suffix in a header is easy to miss."""
    if any(scale_of(unit) in _SCALE_WORDS for unit in (info.unit, *(c.unit for c in info.schema.columns))):
        return ""
    texts = _unit_texts(library, info) if texts is None else texts
    return next((scale for text in texts if text and (scale := scale_stated_in(text))), "")


def stated_currency(library: Library, info: TableInfo, texts: Sequence[str] | None = None) -> str:
    """The currency of a table's figures as a symbol ("$", "\u20ac") or a word ("rupees"), or ""."""
    texts = _unit_texts(library, info) if texts is None else texts
    for text in [info.unit, *(c.unit for c in info.schema.columns), *texts]:
        if text and (currency := currency_stated_in(text)):
            return _CURRENCY_NAMES.get(currency, currency)
    return ""


INTRODUCING_LINES = 4
"""The lines nearest above a table that introduce it (its caption, the sentence before it): more reach into the prose
of the page, whose words name other things."""


def load_table_view(library: Library, info: TableInfo) -> TableView:
    """Read a stored table's body rows and pick its label column (the first TEXT column)."""
    conn = library.conn
    columns = info.schema.columns
    label = next((c for c in columns if c.type.upper() == "TEXT"), None)
    # A statement's section column says where a row stands; it is no value to compute with.
    section = next((c for c in columns if c.name == SECTION_COLUMN and c is not label and c.type.upper() == "TEXT"), None)
    # Likewise the parent line a statement's row stands under (stored where indentation says more than sections).
    data = tuple(c for c in columns if c is not label and c is not section and c.name != PARENT_COLUMN)
    names = ", ".join(quote_identifier(c.name) for c in columns)
    rows = conn.execute(f"SELECT _row, {names} FROM {quote_identifier(info.name)} ORDER BY _row").fetchall()
    values = {int(r[0]): tuple(r[1:]) for r in rows}
    label_position = columns.index(label) if label is not None else None
    choices: list[RowChoice] = []
    seen: dict[str, int] = {}
    data_positions = [columns.index(c) for c in data]
    since_total: list[tuple[Any, ...]] = []
    repeated = Counter(" ".join(str(r[1 + label_position]).split()) for r in rows
                       if label_position is not None and r[1 + label_position] not in (None, ""))
    for r in rows:
        raw = r[1 + label_position] if label_position is not None else None
        if raw not in (None, ""):
            text = " ".join(str(raw).split())
        elif _is_sum_of(tuple(r[1:]), since_total, data_positions):
            text = "Total"
        else:
            text = unlabelled_row(len(choices) + 1, tuple(r[1:]), columns, label)
        if text.lower().startswith("total"):
            since_total = []
        elif raw not in (None, "") or label is None:
            # only labelled items add up to a total (a blank row may hold years), unless no row has a label (rows of
            # years typed as numbers, whose "Total" row kept no word)
            since_total.append(tuple(r[1:]))
        where = r[1 + columns.index(section)] if section is not None else None
        if where and repeated[text] > 1:  # "Other - net [Cash flows from investing activities]"
            text = f"{text} [{' '.join(str(where).split())}]"
        seen[text] = seen.get(text, 0) + 1
        shown = text if seen[text] == 1 else f"{text} (#{seen[text]})"
        choices.append(RowChoice(shown, int(r[0]), raw not in (None, "") or text == "Total"))
    printed = {(int(r), int(c)): str(t) for r, c, t in conn.execute(
        "SELECT row, col, text FROM table_cells WHERE table_id = ?", (info.id,))}
    above = lines_above(conn, info.document_id, info.page, info.bbox[1])
    introduced = " ".join(above[:INTRODUCING_LINES])
    if info.row_facts or info.periods:  # facts stored at ingestion: the scale and currency are read there
        scale = "" if any(scale_of(unit) in _SCALE_WORDS for unit in (info.unit, *(c.unit for c in columns))) \
            else info.stated_scale
        currency = _CURRENCY_NAMES.get(info.currency, info.currency)
        return TableView(info, label, data, tuple(choices), values, scale, printed, currency, introduced=introduced)
    texts = _unit_texts(library, info, above)
    return TableView(info, label, data, tuple(choices), values, stated_scale(library, info, texts), printed,
                     stated_currency(library, info, texts), introduced=introduced)


_KEY_HEADER = re.compile(r"\b(?:year|date|month|quarter|period|day|week|no|number|id|code|ref(?:erence)?)\b\.?$",
                         re.IGNORECASE)


def unlabelled_row(position: int, values: Sequence[Any], columns: Sequence[ColumnSchema],
                   label: ColumnSchema | None) -> str:
    """A row that prints no label, in words a person understands (never "Row 3"): by a column that names rows
    ("Year 2015", "No. 2015-068") where one holds a value in it, else by its place and its first figures ("the 3rd
    row (Votes 243, Share 50.1)")."""
    filled = [(c, v) for c, v in zip(columns, values, strict=False) if c is not label and v not in (None, "")
              and not c.name.startswith("_")]
    for column, value in filled:
        if _KEY_HEADER.search(column.header or column.name.replace("_", " ")):
            return f"{column.header or column.name.replace('_', ' ')} {_plain(value)}"
    shown = ", ".join(f"{c.header or c.name.replace('_', ' ')} {_plain(v)}" for c, v in filled[:2])
    return f"the {_ordinal(position)} row" + (f" ({shown})" if shown else "")


def _plain(value: Any) -> str:
    if is_number(value) and float(value).is_integer() and 1800 <= float(value) <= 2100:
        return str(int(float(value)))  # a year, as printed
    return format_number(value) if is_number(value) else " ".join(str(value).split())


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _is_sum_of(row: tuple[Any, ...], above: Sequence[tuple[Any, ...]], positions: Sequence[int]) -> bool:
    """An unlabeled row is a total when each of its figures is the sum of the labelled figures above it
    (since the last total), to the rounding reports use, in every column where it has one and at least one
    column has two or more addends. Reports often leave the label of the total line blank."""
    matched = False
    for p in positions:
        value = row[p]
        if not is_number(value):
            continue
        addends = [a[p] for a in above if is_number(a[p])]
        if len(addends) < 2 or abs(sum(addends) - value) > max(1.0, 0.005 * abs(value)):
            return False
        matched = True
    return matched


def is_number(value: Any) -> bool:
    """A numeric SQL value (bool, which Python counts as int, is not)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# -- the model's choice ------------------------------------------------------------------------------


def operation_schema(view: TableView, rows: Sequence[RowChoice], columns: Sequence[ColumnSchema],
                     operations: Sequence[str] | None = None) -> dict[str, Any]:
    """JSON Schema for one operation step: the enums are the table's real labels and column names
    (and the operations allowed, all by default)."""
    return {
        "type": "object",
        "properties": {
            "operation": {"type": "string", "enum": list(operations or OPERATIONS)},
            "cells": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "row": {"type": "string", "enum": [r.label for r in rows]},
                        "column": {"type": "string", "enum": [c.name for c in columns]},
                    },
                    "required": ["row", "column"],
                },
                "maxItems": MAX_CELLS,
            },
        },
        "required": ["operation", "cells"],
    }


@dataclass(frozen=True)
class CellChoice:
    row: int
    label: str
    column: str


@dataclass(frozen=True)
class OperationChoice:
    """A parsed, validated choice: an operation over cells of one table."""

    operation: str
    cells: tuple[CellChoice, ...]
    percent: bool = False
    """A ranking of a change by percent rather than by amount (only when the question asks for one)."""


MIN_DECIDED_OVERLAP = 2
"""Words a row label must share with a question for code to pick it without the model (see decided_lookup)."""
class InvalidChoice(ValueError):
    """The model's choice names no cells, unknown ones, or too few for the operation."""


_TOTAL_LABEL = re.compile(r"^\s*(grand\s+|sub-?\s*)?totals?\b|^\s*(?:all\b(?!\s+others?\b)|overall\b)", re.IGNORECASE)
"""A totals row's label ("Total", "All regions", "Overall"); "All other offences" is a row of its own."""


def parse_choice(view: TableView, data: dict[str, Any], question: str, percent: bool = False) -> OperationChoice:
    """Validate the model's JSON against the table and apply the deterministic fixes."""
    operation = str(data.get("operation", ""))
    if operation not in OPERATIONS:
        raise InvalidChoice(f"Unknown operation {operation!r}.")
    if operation == "none":
        return OperationChoice("none", ())
    by_label = {r.label: r.row for r in view.rows}
    known_columns = {c.name for c in view.data_columns}
    cells: list[CellChoice] = []
    for item in data.get("cells") or []:
        label, column = str(item.get("row", "")), str(item.get("column", ""))
        if label not in by_label:
            raise InvalidChoice(f"There is no row labelled {label!r}.")
        if column not in known_columns:
            raise InvalidChoice(f"There is no column named {column!r}.")
        cell = CellChoice(by_label[label], label, column)
        if cell not in cells:
            cells.append(cell)
    if not cells:
        raise InvalidChoice("No cells were chosen.")
    if OPERATIONS[operation].operands == "two" and len(cells) != 2:
        raise InvalidChoice(f"{operation} needs exactly two cells, {len(cells)} were chosen.")
    if operation in RANKINGS:
        # A ranking reads whole columns: keep one cell per column, at most two (a change between them).
        by_column = {c.column: c for c in reversed(cells)}
        cells = [by_column[c] for c in dict.fromkeys(c.column for c in cells)][:2]
        if len(cells) == 2:
            cells = _newer_first(cells, question)
    if operation in ("difference", "percent_change"):
        cells = _newer_first(cells, question)
    if operation == "count" and len(cells) == 1:
        # "how many students were enrolled" answered by counting the one cell that says how many: 1 is never the
        # answer; the cell's figure is
        operation = "lookup"
    elif operation == "count" and _counts_its_column(view, cells, question):
        # "how many robberies were reported from 2005 through 2008" over a Robbery column's yearly cells: the cells
        # count what is asked, so they are added up (a count of the cells says how many years)
        operation = "sum"
    return OperationChoice(operation, tuple(cells), operation in RANKINGS and len(cells) == 2 and percent)


_HOW_MANY = re.compile(r"\bhow\s+many\s+([a-z][\w-]*)", re.IGNORECASE)


def _counts_its_column(view: TableView, cells: Sequence[CellChoice], question: str) -> bool:
    """Whether the cells chosen for a count are of one column whose header names what the question's "how many X"
    counts, and X names none of their rows: the cells' figures are then the count asked, not things to count."""
    asked = _HOW_MANY.search(question)
    columns = {cell.column for cell in cells}
    if asked is None or len(columns) != 1:
        return False
    counted = words(asked.group(1))
    return bool(counted) and counted <= words(column_title(view, next(iter(columns)))) and \
        not any(counted <= words(c.label) for c in cells)


def decided_lookup(view: TableView, reading: QuestionReading) -> OperationChoice | None:
    """A lookup code can decide without the model: the question's reading points to no operation, it names one
    year that exactly one value column is for, and one row's label shares more of the question's words (with the
    words reports use for the names it uses) than any other row, or as many and a larger share of its own words.
    Else None: the model chooses."""
    question = reading.text
    if reading.operation is not None or len(reading.years) != 1:
        return None
    measure = reading.measure
    if measure is not None and (measure.parts or measure.op == m.DEFINED
                                or measure.op == m.NAMED and measure.words not in m.PRINTED_FIRST):
        return None  # a measure computed from lines (a ratio, a definition the question gives) is no one row's figure
    year = str(reading.years[0])
    columns = [c for c in view.data_columns if year in c.name and c.type.upper() != "TEXT"]
    if len(columns) > 1:  # "2019 Number" and "2019 $M": the one the question names ("the number of shares")
        said = header_words(question)
        columns = [c for c in columns if (header_words(c.header) - {year}) & said]
    if len(columns) != 1:
        return None
    asked = view.asked_words(question)

    def named(row: RowChoice) -> tuple[int, float]:
        """Words the label shares with the question, then the share of the label's words the question names
        ("Total current assets" over "Prepaid expenses and other current assets" for "total current assets")."""
        label = words(row.label)
        return len(asked & label), len(asked & label) / max(1, len(label))
    position = view.column_position(columns[0].name)
    denied_asked = words(" ".join(denied_words(question)))
    filled = [r for r in view.rows if r.row in view.values and is_number(view.values[r.row][position])
              and not asked & (words(" ".join(denied_words(r.label))) - denied_asked)]  # "... and not paid"
    scored = sorted(((named(r), r) for r in filled), key=lambda item: item[0], reverse=True)  # headings hold none
    if not scored or scored[0][0][0] < MIN_DECIDED_OVERLAP or len(scored) > 1 and scored[1][0] >= scored[0][0]:
        return None
    row = scored[0][1]
    return OperationChoice("lookup", (CellChoice(row.row, row.label, columns[0].name),))


def header_words(text: str) -> set[str]:
    """A header's or question's words and unit marks ("$m", "%", "number"), lower case."""
    return set(re.findall(r"\$\s?[a-z]+|[a-z0-9]+|%", text.lower().replace("$ ", "$"))) - _HEADER_STOP


_HEADER_STOP = frozenset({"the", "of", "in", "for", "and", "to", "a", "an", "at", "as", "on", "by", "year", "years",
                          "ended", "fiscal", "total"})


def _year(text: str) -> int | None:
    found = _YEAR.findall(text)
    return int(found[-1]) if found else None


def _newer_first(cells: list[CellChoice], question: str) -> list[CellChoice]:
    """A change is newer minus older: order two cells whose columns (or rows) name different years."""
    first, second = cells
    years = (_year(first.column), _year(second.column))
    if None in years or years[0] == years[1]:
        years = (_year(first.label), _year(second.label))
    if None in years or years[0] == years[1]:
        return cells
    return [first, second] if years[0] > years[1] else [second, first]  # type: ignore[operator]


# -- compilation to SQL ------------------------------------------------------------------------------


def compile_sql(view: TableView, choice: OperationChoice) -> str:
    """One SQLite statement computing the operation from the chosen cells (the operation's own ``sql``)."""
    sql = OPERATIONS[choice.operation].sql
    if sql is None:
        raise InvalidChoice(f"{choice.operation} is not computed by SQL.")
    return sql(view, choice)


def _cells_sql(view: TableView, choice: OperationChoice) -> str:
    """The chosen cells themselves, with their row labels, by ``_row`` (a lookup)."""
    label = [quote_identifier(view.label_column.name)] if view.label_column else []
    columns = list(dict.fromkeys(c.column for c in choice.cells))
    rows = sorted({c.row for c in choice.cells})
    selected = ", ".join(["_row", *label] + [quote_identifier(c) for c in columns])
    return (f"SELECT {selected} FROM {quote_identifier(view.name)} WHERE _row IN ({', '.join(map(str, rows))}) "
            f"ORDER BY _row")


def _count_sql(view: TableView, choice: OperationChoice) -> str:
    rows = sorted({c.row for c in choice.cells})
    return f"SELECT COUNT(*) AS count FROM {quote_identifier(view.name)} WHERE _row IN ({', '.join(map(str, rows))})"


def _over_cells(expression: Callable[[list[str]], str]) -> Callable[[TableView, OperationChoice], str]:
    """SQL for an arithmetic operation: each chosen cell a scalar subquery by ``_row`` named v1, v2, ... (so
    the statement itself says which cells it read), and ``expression`` over those names."""
    def sql(view: TableView, choice: OperationChoice) -> str:
        table = quote_identifier(view.name)
        names = [f"v{i + 1}" for i in range(len(choice.cells))]
        values = ", ".join(f"(SELECT {quote_identifier(c.column)} FROM {table} WHERE _row = {c.row}) AS {n}"
                           for c, n in zip(choice.cells, names))
        return f"WITH v AS (SELECT {values}) SELECT {expression(names)} AS {choice.operation} FROM v"
    return sql


def ranked_rows(view: TableView) -> list[int]:
    """The body rows a ranking compares: every labelled row but totals and subtotals."""
    return [r.row for r in view.rows if not _TOTAL_LABEL.search(r.label)]


def _ranking_sql(view: TableView, choice: OperationChoice) -> str:
    """The row with the largest (top_row) or smallest (bottom_row) value of a column, or of the change
    between two columns; the statement lists the rows it compared."""
    table = quote_identifier(view.name)
    first, *rest = [quote_identifier(c.column) for c in choice.cells]
    value = f"{first} - {rest[0]}" if rest else first
    if rest and choice.percent:
        value = f"({first} - {rest[0]}) * 100.0 / NULLIF({rest[0]}, 0)"
    label = quote_identifier(view.label_column.name) if view.label_column else "_row"
    rows = ", ".join(map(str, ranked_rows(view))) or "NULL"
    order = "DESC" if choice.operation == "top_row" else "ASC"
    return (f"SELECT _row, {label} AS label, {value} AS value FROM {table} WHERE _row IN ({rows}) "
            f"AND ({value}) IS NOT NULL ORDER BY value {order}, _row LIMIT 1")


def filled_hint(view: TableView, choice: OperationChoice) -> str:
    """For a repair: which columns do hold numbers in the rows chosen ("Ministry of Culture has numbers
    in: plan_total, total_plan_and_non_plan"), so the next choice can name a filled cell."""
    hints = []
    for row in dict.fromkeys(c.row for c in choice.cells):
        values = view.values.get(row, ())
        filled = [c.name for c in view.data_columns if is_number(values[view.column_position(c.name)])]
        label = next((c.label for c in choice.cells if c.row == row),
                     next((r.label for r in view.rows if r.row == row), f"the row {row}"))
        hints.append(f" {label} has numbers in: {', '.join(filled)}." if filled else f" {label} has no numbers.")
    return "".join(hints)


_TOTAL_WORD = re.compile(r"\btotal\b", re.IGNORECASE)


def filled_total_choice(view: TableView, choice: OperationChoice, question: str) -> OperationChoice | None:
    """The same operation on the same rows in the table's total column, when the column chosen is empty
    for one of them and the question names no column: "How much larger is Culture than Coal?" over a
    budget whose Plan Capital is blank for Coal means the rows' totals. The rightmost column headed
    "total" that holds a number in every chosen row; None when there is no such column, or the cells span
    several columns (a change between years), or the question names a column."""
    if choice.operation in RANKINGS or len({c.column for c in choice.cells}) != 1:
        return None
    asked = words(question)
    if any(asked & words(f"{c.name.replace('_', ' ')} {c.header}") - {"total"} for c in view.data_columns):
        return None
    rows = list(dict.fromkeys(c.row for c in choice.cells))
    for column in reversed(view.data_columns):
        if not _TOTAL_WORD.search(f"{column.name.replace('_', ' ')} {column.header}"):
            continue
        position = view.column_position(column.name)
        if all(is_number(view.values.get(r, ())[position]) if r in view.values else False for r in rows):
            if column.name == choice.cells[0].column:
                return None
            return OperationChoice(choice.operation, tuple(CellChoice(c.row, c.label, column.name)
                                                           for c in choice.cells), choice.percent)
    return None


def cells_used(choice: OperationChoice, rows: Sequence[Sequence[Any]]) -> list[tuple[int, str]]:
    """(``_row``, column) of the cells a result came from: the chosen ones, or the winning row's for a ranking."""
    if choice.operation in RANKINGS:
        return [(int(rows[0][0]), c.column) for c in choice.cells] if rows else []
    return [(c.row, c.column) for c in choice.cells]


def result_scale(view: TableView, choice: OperationChoice) -> str:
    """The scale a result is stated in: the operation's own ("%" for percents, none for ratios and counts),
    else the chosen cells' common scale."""
    scale = OPERATIONS[choice.operation].scale
    if scale != "cells":
        return scale
    scales = {view.cell_scale(c.row, c.column) for c in choice.cells}
    return scales.pop() if len(scales) == 1 else ""


def describe_result(view: TableView, choice: OperationChoice, columns: Sequence[str],
                    rows: Sequence[Sequence[Any]], fall_asked: bool = False) -> str:
    """The SQL result in words, with scale: "-12.6 million", or "1,452.4 million and 44.1 million" for a lookup.
    Where the question asks how much a figure fell (``fall_asked``), a negative difference is the amount it fell
    by, stated positive as the sentence states it ("fell by 7.7")."""
    if choice.operation in RANKINGS:
        if not rows or rows[0][2] is None:
            return ""
        winner, label, value = rows[0]
        scale = "%" if choice.percent else view.cell_scale(int(winner), choice.cells[0].column)
        change = "change " if len(choice.cells) == 2 else ""
        return f"{row_label(view, int(winner), label)} ({change}{format_value(value, scale)})"
    if choice.operation != "lookup":
        value = rows[0][0] if rows and rows[0] else None
        if fall_asked and choice.operation == "difference" and isinstance(value, (int, float)) and value < 0:
            value = -value
        return format_value(value, result_scale(view, choice))
    by_row = {row[0]: row for row in rows}
    parts = []
    for cell in choice.cells:
        row = by_row.get(cell.row)
        if row is None or cell.column not in columns:
            continue
        parts.append(format_value(row[list(columns).index(cell.column)], view.cell_scale(cell.row, cell.column)))
    return join_values(parts)


def row_label(view: TableView, row: int, printed: Any) -> str:
    """A ranked row as the answer names it: its printed label, else its description (``unlabelled_row``); the
    SQL's label of a table without a label column is the row's number, which names nothing."""
    if view.label_column is None or printed in (None, ""):
        return next((r.label for r in view.rows if r.row == row), str(printed))
    return str(printed)


def join_values(parts: Sequence[str]) -> str:
    """Several figures in one answer, unambiguous although figures contain commas (1,164,000):
    "A and B", or "A; B; C"."""
    parts = [p for p in parts if p]
    return " and ".join(parts) if len(parts) == 2 else "; ".join(parts)


def sql_is_empty(rows: Sequence[Sequence[Any]]) -> bool:
    """No rows, or only NULLs: nothing to answer from."""
    return not rows or all(all(v is None for v in row) for row in rows)


# -- the answer in words -----------------------------------------------------------------------------
#
# Made here from the SQL result and the table's labels, never by the model: the operation, its operands
# with their row labels or column headers, and the result with its scale and currency.

MAX_NAMED_ROWS = 6


def is_cash_flow_statement(view: TableView) -> bool:
    """Whether the table is a statement of cash flows (where a negative figure is money paid out)."""
    return is_statement("cash_flows", view.info.title)


def column_title(view: TableView, name: str) -> str:
    """A column as the page heads it ("2014-15"), else its SQL name made readable."""
    column = next((c for c in view.info.schema.columns if c.name == name), None)
    header = " ".join((column.header if column else "").split())
    return header or name.replace("_", " ").strip()


def amount(view: TableView, value: Any, scale: str, decimals: int = 2) -> str:
    """A figure with its scale and the table's currency: "$4,000 thousand", "1,911 crore rupees", "4.5%". A statement
    whose scale the page does not state says so, rather than passing a figure printed in thousands for dollars.
    ``decimals``: ``CELL_DECIMALS`` for a cell read as printed, two for a computed figure."""
    if not is_number(value):
        return "" if value is None else str(value)
    text = format_number(value, decimals)
    if scale == "%":
        return text + "%"
    currency = view.currency
    note = " (in the statement's own unit: the page states no scale)" if (
        currency and not scale and abs(float(value)) >= 1000 and _unstated_scale(view)) else ""
    if currency and len(currency) == 1 and not currency.isalpha():  # a symbol goes before the figure
        sign, digits = ("-", text[1:]) if text.startswith("-") else ("", text)
        return f"{sign}{currency}{digits}" + (f" {scale}" if scale else "") + note
    return " ".join(part for part in (text, scale, currency) if part) + note


_MONEY_SCALE = re.compile(r"\b(?:dollars?|euros?|pounds?|rupees?|yen|yuan)\s+in\s+(?:thousands|millions|billions)\b|"
                          r"\bin\s+(?:thousands|millions|billions)\s+of\s+(?:[a-z.]+\s+)?(?:dollars|euros|pounds)\b|"
                          r"[$€£]\s*'?0{3}\b|[$€£]\s*(?:thousands?|millions?|billions?|m|k|bn)\b", re.IGNORECASE)


def count(view: TableView, value: Any, scale: str) -> str:
    """A count of things read from a table of money ("how many stores were sold"): no currency; the scale only
    where the table's note does not tie it to money ("(in millions)" is true of shares, "(dollars in thousands)" is
    not true of stores)."""
    text = format_number(value)
    info = view.info
    note = " ".join([info.caption, info.heading, *(c.header for c in info.schema.columns)])
    return f"{text} {scale}" if scale and scale != "%" and not _MONEY_SCALE.search(note) else text


def _unstated_scale(view: TableView) -> bool:
    """A financial statement whose figures carry no scale anywhere it could be stated (its caption, units, columns,
    the lines above it): reports print statements in thousands or millions, so a bare figure is not in units."""
    info = view.info
    if view.page_scale or info.stated_scale or scale_of(info.unit) or any(scale_of(c.unit) for c in info.schema.columns):
        return False
    return any(is_statement(kind, info.title) for kind in ("balance_sheet", "income", "cash_flows"))


def _operand(view: TableView, cell: CellChoice) -> Any:
    return view.values.get(cell.row, ())[view.column_position(cell.column)] if cell.row in view.values else None


def _bare(view: TableView, cell: CellChoice, value: Any) -> str:
    """An operand's figure as the page prints it, without the unit the result carries."""
    if not is_number(value):
        return "" if value is None else str(value)
    return format_number(value) + ("%" if view.cell_scale(cell.row, cell.column) == "%" else "")


def _names(view: TableView, cells: Sequence[CellChoice]) -> list[str]:
    """What tells the cells apart: the column when they share a row, the row when they share a column."""
    rows = {c.row for c in cells}
    columns = {c.column for c in cells}
    if len(rows) == 1 and len(columns) > 1:
        return [column_title(view, c.column) for c in cells]
    if len(columns) == 1 and len(rows) > 1:
        return [c.label for c in cells]
    return [f"{c.label}, {column_title(view, c.column)}" for c in cells]


def _listing(parts: Sequence[str]) -> str:
    parts = list(parts)
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _compared(view: TableView) -> str:
    labels = [r.label for r in view.rows if r.row in set(ranked_rows(view))]
    shown = ", ".join(labels[:MAX_NAMED_ROWS])
    more = f" and {len(labels) - MAX_NAMED_ROWS} more" if len(labels) > MAX_NAMED_ROWS else ""
    return f"{len(labels)} rows compared: {shown}{more}"


def in_scale(view: TableView, value: Any, scale: str, wanted: str) -> str:
    """``value`` (in ``scale``) restated in the scale the question asked for, as "" when it needs no restating:
    1,577 million asked in billions -> " ($1.58 billion)"."""
    if not wanted or not scale or wanted == scale or scale not in SCALE_FACTORS or not is_number(value):
        return ""
    converted = float(value) * SCALE_FACTORS[scale] / SCALE_FACTORS[wanted]
    return f" ({amount(view, converted, wanted)})"


def describe_in_words(view: TableView, choice: OperationChoice, columns: Sequence[str],
                      rows: Sequence[Sequence[Any]], wanted: str = "") -> str:
    """The result as a sentence without its final full stop: what was computed, from which labelled
    figures, with scale and currency ("In Total, Culture (2,511) exceeds Coal (600) by 1,911 crore
    rupees"). Figures of several rows in one column are compared in that column, which is named first; a
    figure whose scale differs from the one the question asked for (``wanted``) is restated in it."""
    sentence = _words(view, choice, columns, rows, wanted)
    cells = choice.cells
    if (sentence and choice.operation not in RANKINGS and choice.operation != "lookup"
            and len({c.column for c in cells}) == 1 and len({c.row for c in cells}) > 1):
        if sentence.startswith("The "):
            sentence = "t" + sentence[1:]
        return f"In {column_title(view, cells[0].column)}, {sentence}"
    return sentence


def _words(view: TableView, choice: OperationChoice, columns: Sequence[str], rows: Sequence[Sequence[Any]],
           wanted: str = "") -> str:
    operation, cells = choice.operation, list(choice.cells)
    if operation in RANKINGS:
        return _ranking_words(view, choice, rows)
    if operation == "lookup":
        by_row = {row[0]: row for row in rows}
        names = _names(view, cells) if len(cells) > 1 else [f"{cells[0].label}, {column_title(view, cells[0].column)}"]
        parts = []
        for cell, name in zip(cells, names):
            row = by_row.get(cell.row)
            if row is not None and cell.column in columns:
                value = row[list(columns).index(cell.column)]
                scale = view.cell_scale(cell.row, cell.column)
                if is_number(value) and float(value) < 0 and is_cash_flow_statement(view):
                    # A cash-flow statement prints money going out in brackets: say it as an outflow.
                    spent = -float(value)
                    parts.append(f"{name}: an outflow of {amount(view, spent, scale)}{in_scale(view, spent, scale, wanted)}"
                                 f" (printed as ({format_number(spent)}))")
                    continue
                parts.append(f"{name}: {amount(view, value, scale)}{in_scale(view, value, scale, wanted)}")
        if len(parts) > 1 and len({c.row for c in cells}) == 1 and len(names) == len(parts):
            return f"{cells[0].label}: " + "; ".join(parts)
        return "; ".join(parts)
    raw: Any = rows[0][0] if rows and rows[0] else None
    if not is_number(raw):
        return ""
    result = float(raw)
    words_of = OPERATIONS[operation].words
    told = Operands(view, tuple(cells), tuple(_operand(view, c) for c in cells), tuple(_names(view, cells)), result,
                    result_scale(view, choice), wanted)
    return words_of(told) if words_of is not None else amount(view, result, told.scale) + told.restated


@dataclass(frozen=True)
class Operands:
    """What an operation's sentence is made of: the cells chosen, their figures and names, the result."""

    view: TableView
    cells: tuple[CellChoice, ...]
    values: tuple[Any, ...]
    names: tuple[str, ...]
    result: float
    scale: str
    wanted: str = ""
    """The scale the question asked for; a result in another scale is restated in it."""

    @property
    def shown(self) -> list[str]:
        """Each operand as "name (figure)"."""
        return [f"{n} ({_bare(self.view, c, v)})" for n, c, v in zip(self.names, self.cells, self.values)]

    @property
    def total(self) -> str:
        """The result with its scale and currency, restated in the scale asked for where that differs."""
        return amount(self.view, self.result, self.scale) + self.restated

    @property
    def restated(self) -> str:
        return in_scale(self.view, self.result, self.scale, self.wanted)


def _percent_change_words(o: Operands) -> str:
    view, cells, values, names, result = o.view, o.cells, o.values, o.names, o.result
    if len({c.row for c in cells}) == 1 and len(cells) == 2:
        verb = "rose" if result > 0 else "fell" if result < 0 else "was unchanged,"
        change = f" {format_number(abs(result))}%" if result else ""
        return (f"{cells[0].label} {verb}{change} from {amount(view, values[1], view.cell_scale(cells[1].row, cells[1].column))}"
                f" ({names[1]}) to {amount(view, values[0], view.cell_scale(cells[0].row, cells[0].column))} ({names[0]})")
    direction = "higher" if result >= 0 else "lower"
    return f"{o.shown[0]} is {format_number(abs(result))}% {direction} than {o.shown[1]}"


def _extreme_words(word: str) -> Callable[[Operands], str]:
    def words_of(o: Operands) -> str:
        if len(o.cells) == 1:
            return f"{o.names[0]}: {amount(o.view, o.result, o.scale)}"
        winner = next((n for n, v in zip(o.names, o.values) if is_number(v) and abs(float(v) - o.result) < 1e-9),
                      o.names[0])
        return f"{winner} is the {word}, at {amount(o.view, o.result, o.scale)}"
    return words_of


def _difference_words(o: Operands) -> str:
    view, cells, values, names, result, scale = o.view, o.cells, o.values, o.names, o.result, o.scale
    if len(cells) != 2:
        return amount(view, result, scale)
    (first, second), (a, b) = cells, values
    if first.row == second.row and first.column != second.column:  # one row over time: a change
        older = amount(view, b, view.cell_scale(second.row, second.column))
        newer = amount(view, a, view.cell_scale(first.row, first.column))
        if result == 0:
            return f"{first.label} was unchanged at {newer} from {names[1]} to {names[0]}"
        verb = "rose" if result > 0 else "fell"
        return (f"{first.label} {verb} by {amount(view, abs(result), scale)}, from {older} ({names[1]}) "
                f"to {newer} ({names[0]})")
    left, right = f"{names[0]} ({_bare(view, first, a)})", f"{names[1]} ({_bare(view, second, b)})"
    if result == 0:
        return f"{left} and {right} are equal"
    if result < 0:
        left, right = right, left
    return f"{left} exceeds {right} by {amount(view, abs(result), scale)}"


def _ranking_words(view: TableView, choice: OperationChoice, rows: Sequence[Sequence[Any]]) -> str:
    if not rows or rows[0][2] is None:
        return ""
    winner, label, value = rows[0]
    label = row_label(view, int(winner), label)
    cells = list(choice.cells)
    top = choice.operation == "top_row"
    compared = _compared(view)
    if len(cells) == 1:
        scale = view.cell_scale(int(winner), cells[0].column)
        word = "highest" if top else "lowest"
        return (f"{label} has the {word} {column_title(view, cells[0].column)}: "
                f"{amount(view, value, scale)} ({compared})")
    newer, older = cells
    position = {c.name: i for i, c in enumerate(view.info.schema.columns)}
    before = view.values.get(int(winner), ())
    start = before[position[older.column]] if before else None
    end = before[position[newer.column]] if before else None
    scale = view.cell_scale(int(winner), newer.column)
    span = f"from {column_title(view, older.column)} to {column_title(view, newer.column)}"
    most = "the most" if top else "the least"
    if choice.percent:
        change = f"{'+' if value >= 0 else ''}{format_number(value)}%"
        how = "percent change"
    else:
        change = ("+" if value >= 0 else "-") + amount(view, abs(value), scale)
        how = "amount"
    return (f"{label} grew {most} {span}: {change}, from {amount(view, start, scale)} to "
            f"{amount(view, end, scale)} (ranked by {how}; {compared})")


# -- the operations, one record each -----------------------------------------------------------------


@dataclass(frozen=True)
class Operation:
    """Everything about one operation the model may choose, in one place."""

    name: str
    meaning: str
    """What the model is told it does."""
    operands: str
    """"cells": one or more cells; "two": exactly two (first, second); "columns": one or two whole columns,
    every body row compared (a ranking)."""
    sql: Callable[[TableView, OperationChoice], str] | None
    """The one SQLite statement computing it from the chosen cells (None: "none", nothing to compute)."""
    scale: str
    """The result's scale: "cells" (the chosen cells' own), "%" or "" (a plain number)."""
    words: Callable[[Operands], str] | None = None
    """The result as a sentence from its operands (lookups and rankings have their own, reading rows)."""
    computes: bool = False
    """Arithmetic over a table: when the question asks for it, SQL runs before any answer from the text."""
    new_figure: bool = False
    """Its result is a figure no single cell holds (a difference, a ratio): a passage stating it is a
    confirmation, a cell that happens to hold it is not."""


OPERATIONS: dict[str, Operation] = {op.name: op for op in (
    Operation("lookup", "the cells' values", "cells", _cells_sql, "cells"),
    Operation("difference", "first minus second (change, increase)", "two", _over_cells(lambda v: "v1 - v2"), "cells",
              _difference_words, computes=True, new_figure=True),
    Operation("percent_change", "(first - second) / second * 100", "two",
              _over_cells(lambda v: "(v1 - v2) * 100.0 / v2"), "%", _percent_change_words, computes=True, new_figure=True),
    Operation("sum", "total of the cells", "cells", _over_cells(" + ".join), "cells",
              lambda o: f"{_listing(o.shown)} add up to {o.total}" if len(o.cells) > 1 else f"{o.names[0]}: {o.total}",
              computes=True, new_figure=True),
    Operation("average", "mean of the cells", "cells",
              _over_cells(lambda v: "(" + " + ".join(v) + f") / {float(len(v))}"), "cells",
              lambda o: f"The average of {_listing(o.shown)} is {o.total}", computes=True, new_figure=True),
    Operation("ratio", "first / second", "two", _over_cells(lambda v: "v1 * 1.0 / v2"), "",
              lambda o: f"The ratio of {o.shown[0]} to {o.shown[1]} is {format_number(o.result)}", computes=True,
              new_figure=True),
    Operation("percentage", "first as % of second", "two", _over_cells(lambda v: "v1 * 100.0 / v2"), "%",
              lambda o: f"{o.shown[0]} is {format_number(o.result)}% of {o.shown[1]}", computes=True,
              new_figure=True),
    Operation("product", "cells multiplied", "cells", _over_cells(" * ".join), "",
              lambda o: " \u00d7 ".join(o.shown) + f" = {format_number(o.result)}", new_figure=True),
    Operation("max", "largest cell", "cells", _over_cells(lambda v: f"MAX({', '.join(v)})" if len(v) > 1 else "v1"),
              "cells", _extreme_words("largest")),
    Operation("min", "smallest cell", "cells", _over_cells(lambda v: f"MIN({', '.join(v)})" if len(v) > 1 else "v1"),
              "cells", _extreme_words("smallest")),
    Operation("top_row", "which row is highest: name one column (its largest value), or two columns (the row that "
              "grew most, first minus second)", "columns", _ranking_sql, "cells", computes=True),
    Operation("bottom_row", "which row is lowest: one column (its smallest value), or two columns (the row that grew "
              "least)", "columns", _ranking_sql, "cells", computes=True),
    Operation("count", "number of cells", "cells", _count_sql, "",
              lambda o: f"{format_number(o.result)} {'cell holds' if o.result == 1 else 'cells hold'} a figure: "
                        f"{_listing(o.names)}", computes=True),
    Operation("none", "the table cannot answer; use the text", "cells", None, ""),
)}
"""The operations the model may choose, in the order shown to it."""

RANKINGS = frozenset(name for name, op in OPERATIONS.items() if op.operands == "columns")
COMPUTING = frozenset(name for name, op in OPERATIONS.items() if op.computes)
"""Operations whose hint in a question makes SQL come first (``Answerer``: a table step before any text answer)."""
NEW_FIGURES = frozenset(name for name, op in OPERATIONS.items() if op.new_figure)
