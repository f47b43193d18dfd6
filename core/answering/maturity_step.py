"""Figures of a maturity table read for the ranges of time a question asks (``core.answering.maturities``).

"The crane leases due within 5 years" are the crane row's "Less than 1 year", "1-3 years" and "3-5 years" cells
added up; "the hull loans due in 3 years or less as a share of the total" is that sum over the row's "Total"
cell; "the crane leases and dock rentals between 1 and 3 years" are two figures, a row each;
"the charters under a year and from two to four years" are two figures, a range each. ``figures`` finds the
table, the rows and the columns; the formula step computes and cites them. A question whose line no row of a
maturity table names whole, or whose range no columns tile, gets nothing here.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.answering import maturities
from core.answering.binding import covers, fit
from core.answering.formula import BoundCell
from core.answering.measures import LINE, SHARE
from core.answering.operations import TableView, column_title, header_words, is_number
from core.answering.reading import QuestionReading

_SHARE_WORDS = re.compile(r"^\s*(?:the\s+)?(?:proportion|percentage|share|portion|fraction|ratio)\s+of\s+(?:the\s+)?",
                          re.IGNORECASE)
_TOTAL_WORD = re.compile(r"^\s*(?:the\s+)?total\s+", re.IGNORECASE)
_BARE_TOTAL = re.compile(r"^\s*totals?\s*:?\s*$", re.IGNORECASE)
_MIN_FIT = 0.5


@dataclass(frozen=True)
class Figure:
    """One figure asked: the cells added up (empty cells of the range left out), and for a share the row's total."""

    name: str
    cells: tuple[BoundCell, ...]
    total: BoundCell | None = None


def figures(asked: QuestionReading, views: Sequence[TableView]) -> tuple[list[Figure], bool] | None:
    """The figures a question asks of a maturity table, in the order asked, and whether each is a share of its row's
    total; None where no table among ``views`` (best first) has a row naming the line whole and columns tiling
    every range asked."""
    within = asked.within
    if not asked.horizons or within is None or within.measure is None:
        return None
    measure = within.measure
    share = measure.op == SHARE
    if share:
        lines = [measure.parts[0].words] if measure.parts and measure.parts[0].op == LINE else []
        if len(measure.parts) != 2 or measure.parts[1].op != LINE or not _same_line(measure.parts[1].words, lines[0]):
            return None  # "as a share of the total X": X's own total, not another line's
    elif measure.op == LINE:
        words = measure.words
        if _SHARE_WORDS.match(words):  # "the proportion of the hull loans due in 3 years or less"
            share, words = True, _SHARE_WORDS.sub("", words)
        lines = _lines(words, within.several or within.kind == "figures")
    else:
        return None
    if not lines or len(lines) > 1 and len(asked.horizons) > 1:
        return None  # several lines each over several ranges: not one list of figures
    for view in views:
        spans = maturities.columns(view.info.schema.columns)
        if not spans:
            continue
        total = maturities.total_column(view.info.schema.columns) if share else None
        if share and total is None:
            continue
        ranges = [maturities.covering(span, spans) for span in asked.horizons]
        if any(r is None for r in ranges):
            continue
        rows = [_row_of_part(view, line, lines) for line in lines]
        if len(lines) == 1 and rows[0] is None and len(split := _lines(lines[0], True)) > 1 and len(asked.horizons) == 1:
            lines, rows = split, [_row_of_part(view, line, split) for line in split]  # "the leases and rentals"
        if any(r is None for r in rows):
            continue
        found: list[Figure] = []
        for row, line in zip(rows, lines):
            for columns in ranges:
                assert row is not None and columns is not None
                figure = _figure(view, row, columns, line, total)
                if figure is None:
                    return None
                found.append(figure)
        return found, share
    return None


def _same_line(total_words: str, words: str) -> bool:
    """"the total crane leases" is the crane leases' own total."""
    return header_words(_TOTAL_WORD.sub("", total_words)) == header_words(_TOTAL_WORD.sub("", words))


def _lines(words: str, several: bool) -> list[str]:
    """The lines asked: "crane and tug charters" asked as several figures is the crane charters and the tug
    charters."""
    parts = re.split(r"\s*,\s*(?:and\s+)?|\s+and\s+", words) if several else [words]
    return [p.strip() for p in parts if p.strip()]


def _row_of_part(view: TableView, words: str, lines: Sequence[str]) -> int | None:
    """The row of one of several lines said together: as said ("crane leases"), else with the noun the last one
    ends in ("crane" of "crane and tug charters")."""
    found = _row(view, words)
    tail = lines[-1].split()[-1]
    if found is None and words.split()[-1] != tail:
        found = _row(view, f"{words} {tail}")
    return found


def _row(view: TableView, words: str) -> int | None:
    """The row naming the line whole (the words without "total", which the ranges' sum makes), the best fit first;
    a bare "Total" row where the table's title names the line ("total contractual obligations")."""
    words = re.sub(r"^\s*(?:of\s+)?(?:the\s+|its\s+|our\s+)?", "", words)  # "how much of the hull loans"
    plain = _TOTAL_WORD.sub("", words)
    scored = [(fit(plain, choice.label), choice.row) for choice in view.rows
              if not _BARE_TOTAL.match(choice.label) and (covers(plain, choice.label) or covers(words, choice.label))]
    scored = [s for s in scored if s[0] >= _MIN_FIT]
    if not scored:  # "the loan payments" of a row "Hull loans" under columns "Payments due by period"
        headers = " ".join(dict.fromkeys(c.header for c in view.data_columns))
        scored = [(fit(plain, f"{choice.label} {headers}"), choice.row) for choice in view.rows
                  if not _BARE_TOTAL.match(choice.label) and covers(plain, f"{choice.label} {headers}")
                  and fit(plain, choice.label) >= _MIN_FIT]
    if scored:
        best = max(s[0] for s in scored)
        tops = [row for score, row in scored if score == best]
        return tops[0] if len(tops) == 1 else None
    title = " ".join(f"{view.info.caption} {view.info.heading} {view.info.schema.columns[0].header}".split())
    if plain.strip() and re.search(rf"\b{re.escape(plain.strip())}", title, re.IGNORECASE):
        totals = [choice.row for choice in view.rows if _BARE_TOTAL.match(choice.label)]
        return totals[-1] if totals else None
    return None


def _figure(view: TableView, row: int, columns: Sequence[str], line: str, total: str | None) -> Figure | None:
    """The cells of ``row`` in ``columns`` (an empty one is nothing due in that range, unless all are empty and
    the row prints no figure in its other ranges either)."""
    values = view.values.get(row, ())
    label = view.labels.get(row, line)
    cells: list[BoundCell] = []
    for column in columns:
        position = view.column_position(column)
        value = values[position] if position < len(values) else None
        if isinstance(value, (int, float)) and is_number(value):
            cells.append(_cell(view, row, column, float(value), label, len(cells)))
    if not cells and not any(is_number(v) for v in values):
        return None
    total_cell = None
    if total is not None:
        position = view.column_position(total)
        value = values[position] if position < len(values) else None
        if not isinstance(value, (int, float)) or not is_number(value) or not value:
            return None
        total_cell = _cell(view, row, total, float(value), label, -1)
    return Figure(line, tuple(cells), total_cell)


def _cell(view: TableView, row: int, column: str, value: float, label: str, index: int) -> BoundCell:
    name = "total" if index < 0 else f"range_{index + 1}"
    return BoundCell(name, view.name, view.info.id, row, column, value, label, column_title(view, column),
                     view.cell_scale(row, column))
