"""A table whose items are its columns, read turned a quarter: one row an item, one column a period.

Statistics tables often print the things compared across the top and the periods down the side: countries in
the columns and quarters in the rows ("Norway, Sweden, Finland" over "Q1 2021 ... Q1 2022"), regions over
months, groups over years. A question over the items ("which regions had a jobless rate above 6% in the last
quarter", "how many regions grew faster than 2% in 2015", "the two groups with the highest rate in 2019") asks
over the table's columns, and a query plan (``core.answering.table_query``) reads rows. ``across`` gives that
table as a view whose rows are its figure columns and whose figure columns are its rows, so the plans that read a
register or a table of regions by years read it too.

The turned table is no copy: its statement reads the stored table's cells (``TableView.source``, one SELECT per
item over the stored rows), so every figure an answer gives is still computed by SQL from the cells printed on
the page, and ``TableView.origin`` takes each cell the answer read back to the stored cell it came from, for the
citation.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from core.answering.binding import stems
from core.answering.operations import RowChoice, TableView, is_number
from core.library.db import quote_identifier, quote_text
from core.reports.values import find_periods
from models.types import ColumnSchema

ITEM_COLUMN = "item"
"""The turned table's label column: the headers of the stored table's figure columns."""
MIN_ITEMS = 3
"""Fewer columns are no list of things compared (a year and its change, a count and its share)."""
MAX_PERIODS = 60


def across(view: TableView) -> TableView | None:
    """The table turned, where its rows are periods (each body row's label names a year, a quarter or a month, or
    a column of years typed as numbers runs down its side) and its figure columns are things compared (at least
    three, none of them a period); else None."""
    if not view.rows or len(view.rows) > MAX_PERIODS or view.info.periods:
        return None
    axis = _periods_down(view)
    if axis is None:
        return None
    periods, years = axis
    figures = [c for c in view.data_columns if c.type.upper() in ("REAL", "INTEGER") and c is not years]
    others = [c for c in view.data_columns if c is not years and c not in figures]
    if len(figures) < MIN_ITEMS or others or any(find_periods(c.header or c.name) for c in figures):
        return None  # periods across the top: its rows are the items already
    return _turned(view, [replace(r, label=label) for r, label in periods], figures)


def measures_across(view: TableView, question: str) -> TableView | None:
    """The table turned, where its rows are measures of the things its columns compare (a results table of a paper:
    fitted models or methods across the top, their errors and numbers of parameters down the side) and the question
    names one of those measures (one only) by a row's whole label ("which method has the smallest error") and none of the columns
    by a word of its own: read turned, each figure column is an item and each measure a column to rank, count or
    list the items by. None where the rows are periods (``across``), no row's label is named whole, a column is
    named (the question picks a column of items down the side: "women" of a Women column), a column is of words or
    a period, or fewer than three columns are compared."""
    if not view.rows or len(view.rows) > MAX_PERIODS or view.info.periods or view.label_column is None:
        return None
    figures = [c for c in view.data_columns if c.type.upper() in ("REAL", "INTEGER")]
    if len(figures) < MIN_ITEMS or len(figures) != len(view.data_columns) or \
            any(find_periods(c.header or c.name) for c in figures):
        return None
    labelled = [r for r in view.rows if r.labelled and not _TOTAL.match(r.label)]
    if len(labelled) < 2 or any(find_periods(r.label) for r in labelled):
        return None
    asked = stems(question)
    named = [r for r in labelled if (words := stems(r.label) - _COUNTED) and words <= asked]
    if len({r.label for r in named}) != 1:
        return None  # none named, or several ("more nurses than doctors"): the rows are what the question compares
    headers = [stems(c.header or c.name) for c in figures]
    shared = set.intersection(*headers)
    if any((words - shared) & asked for words in headers):
        return None  # "how many of the retired men voted by post": a column is named, the rows are the items
    return _turned(view, labelled, figures)


_TOTAL = re.compile(r"^\s*(?:grand\s+|sub-?)?totals?\b", re.IGNORECASE)
_COUNTED = frozenset({"no", "number", "nr", "num"})
"""Words of a label that say its figure counts what the rest names ("No. parameters" is named by "parameters")."""


def _turned(view: TableView, labelled: list[RowChoice], figures: list[ColumnSchema]) -> TableView:
    """``view`` with its ``figures`` as rows (each labelled by its header) and the ``labelled`` rows as figure columns
    (each headed by its label), read by one SELECT per figure column over the stored rows."""
    names = _column_names([r.label for r in labelled])
    kinds = [_type_of([view.values[r.row][view.column_position(c.name)] for c in figures]) for r in labelled]
    units = {c.unit for c in figures}
    unit = units.pop() if len(units) == 1 else ""
    turned = (ColumnSchema(ITEM_COLUMN, "TEXT", ""),  # (the label column's header names the periods)
              *(ColumnSchema(name, kind, r.label, unit) for name, kind, r in zip(names, kinds, labelled, strict=True)))
    selects = []
    origin: dict[tuple[int, str], tuple[int, str]] = {}
    values: dict[int, tuple[Any, ...]] = {}
    printed: dict[tuple[int, int], str] = {}
    for item, column in enumerate(figures, start=1):
        cells = ", ".join(f"MAX(CASE WHEN _row = {r.row} THEN {quote_identifier(column.name)} END) AS "
                          f"{quote_identifier(name)}" for name, r in zip(names, labelled, strict=True))
        selects.append(f"SELECT {item} AS _row, {quote_text(column.header or column.name)} AS {ITEM_COLUMN}, {cells} "
                       f"FROM {quote_identifier(view.name)}")
        at = view.column_position(column.name)
        values[item] = (column.header or column.name, *(view.values[r.row][at] for r in labelled))
        origin[(item, ITEM_COLUMN)] = (max(view.info.header_rows - 1, 0), column.name)  # its header cell
        for position, (name, r) in enumerate(zip(names, labelled, strict=True), start=1):
            origin[(item, name)] = (r.row, column.name)
            if (r.row, at) in view.printed:
                printed[(item, position)] = view.printed[(r.row, at)]
    schema = replace(view.info.schema, columns=turned, row_count=len(figures))
    info = replace(view.info, schema=schema, row_facts=(), periods=(), row_count=len(figures))
    rows = tuple(replace(view.rows[0], label=str(values[i][0]), row=i, labelled=True) for i in values)
    return TableView(info, turned[0], turned[1:], rows, values, view.page_scale, printed, view.currency,
                     source=f"({' UNION ALL '.join(selects)})", origin=origin, stored=view.info)


def _periods_down(view: TableView) -> tuple[list[tuple[Any, str]], ColumnSchema | None] | None:
    """The rows as periods, each with its label ("Q1 2010", "2015"), and the column of years that labels them where
    the years are figures of their own (None where the label column does); None where the rows are no periods."""
    labelled = [r for r in view.rows if r.labelled]
    if view.label_column is not None and len(labelled) >= 2 and all(find_periods(r.label) for r in labelled):
        return [(r, r.label) for r in labelled], None
    if view.label_column is not None and labelled:
        return None  # rows labelled by something else (places, groups): the items already
    first = next((c for c in view.data_columns if c.type.upper() == "INTEGER"), None)
    if first is None or view.data_columns.index(first) != 0:
        return None
    at = view.column_position(first.name)
    years = [(r, view.values[r.row][at]) for r in view.rows]
    if len(years) < 2 or not all(isinstance(y, int) and 1800 <= y <= 2100 for _, y in years) or \
            len({y for _, y in years}) != len(years):
        return None
    return [(r, str(y)) for r, y in years], first


def _column_names(labels: list[str]) -> list[str]:
    """SQL names for the periods that become columns, each unique ("q1_2010")."""
    names: list[str] = []
    for text in labels:
        base = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_") or "period"
        base = base if base[0].isalpha() else f"p_{base}"
        name, n = base, 2
        while name in names or name in (ITEM_COLUMN, "_row"):
            name, n = f"{base}_{n}", n + 1
        names.append(name)
    return names


def _type_of(values: list[Any]) -> str:
    filled = [v for v in values if v is not None and v != ""]
    if filled and all(isinstance(v, int) for v in filled):
        return "INTEGER"
    return "REAL" if all(is_number(v) for v in filled) else "TEXT"
