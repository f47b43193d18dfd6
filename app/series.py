"""Is an answer a series, and which? A pure reading of the SQL result an answer cites, so the window can draw a small
chart under the sentence: one line across periods (a row's figures in several period columns), several lines in one
period or a ranking (one figure column over several rows, drawn as bars), or several lines across periods. Each point
keeps the cell it was read from, so a click on it opens that cell on its page.

Nothing here draws (``ui.chart_view`` does) or reads the library: the column headers and the unit are handed in
(``app.controller.Controller.answer_chart`` reads them from the cited table).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from models.types import Answer, CellEvidence, Citation

MAX_SERIES = 6
"""Lines drawn at most (a result of more rows over several periods is a table, not a chart)."""
MAX_POINTS = 24
"""Points per line at most."""
_PERIOD = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)|\bQ[1-4]\b|\bFY\s?'?\d{2}\b", re.IGNORECASE)
_YEAR_NAME = re.compile(r"^(?:y|fy)_?((?:19|20)\d\d)$", re.IGNORECASE)


@dataclass(frozen=True)
class ChartPoint:
    label: str
    """Where it stands on the x axis: a period ("2019") or a row's label ("Parks")."""
    value: float
    citation: int
    """The 1-based number of the citation it comes from."""
    cell: CellEvidence | None = None
    """The table cell it was read from (None where the result does not say)."""
    caption: str = ""
    """The figure named by its line and column, as a person reads it: "Parks, 2024"."""


@dataclass(frozen=True)
class ChartSeries:
    name: str
    points: tuple[ChartPoint, ...]


@dataclass(frozen=True)
class Chart:
    """A series an answer cites: ``kind`` "line" (across periods) or "bar" (rows of one period, a ranking)."""

    kind: str
    series: tuple[ChartSeries, ...]
    unit: str = ""
    title: str = ""

    @property
    def labels(self) -> tuple[str, ...]:
        """The x axis, in order."""
        return tuple(dict.fromkeys(p.label for s in self.series for p in s.points))

    @property
    def points(self) -> tuple[ChartPoint, ...]:
        return tuple(p for s in self.series for p in s.points)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def column_label(name: str, headers: Mapping[str, str]) -> str:
    """A result column as a person reads it: its printed header, else "2019" for ``y2019``, else its words."""
    header = " ".join(str(headers.get(name, "")).split())
    if header:
        return header
    year = _YEAR_NAME.match(name)
    return year.group(1) if year else name.replace("_", " ")


def _cell_for(citation: Citation, row_key: int | None, column: str, position: int) -> CellEvidence | None:
    """The cited cell a result value was read from: by its ``_row`` and column, else the ``position``-th cited cell
    of that column when the column's cells line up one per result row."""
    in_column = [c for c in citation.cells if c.column == column]
    if row_key is not None:
        found = next((c for c in in_column if c.row == row_key), None)
        if found is not None:
            return found
    return in_column[position] if len(in_column) == len(citation.result) and position < len(in_column) else None


def citation_chart(citation: Citation, number: int, headers: Mapping[str, str] | None = None, unit: str = "",
                   title: str = "") -> Chart | None:
    """The chart a table citation's result makes, or None when it is not a series (one figure, text, too many)."""
    headers = headers or {}
    columns, rows = list(citation.columns), [list(r) for r in citation.result]
    if citation.kind != "table" or not columns or not rows or any(len(r) != len(columns) for r in rows):
        return None
    key = columns.index("_row") if "_row" in columns else None
    shown = [i for i, name in enumerate(columns) if not str(name).startswith("_")]
    figures = [i for i in shown if all(_number(r[i]) or r[i] is None for r in rows) and any(_number(r[i]) for r in rows)]
    # A column of years beside the figures labels the rows (free SQL: "SELECT year, revenue ...").
    years = [i for i in figures if len(rows) >= 2 and all(isinstance(r[i], int) and 1900 <= r[i] <= 2100 for r in rows)]
    figures = [i for i in figures if i not in years[:1]]
    labels = years[:1] + [i for i in shown if i not in figures and all(isinstance(r[i], str) for r in rows)]

    def row_name(row: list[Any], position: int) -> str:
        return " ".join(str(row[labels[0]]).split()) if labels else f"Row {position + 1}"

    def point(row: list[Any], position: int, column: int, label: str) -> ChartPoint | None:
        value = row[column]
        if not _number(value):
            return None
        row_key = int(row[key]) if key is not None and _number(row[key]) else None
        caption = f"{row_name(row, position)}, {column_label(columns[column], headers)}"
        return ChartPoint(label, float(value), number, _cell_for(citation, row_key, columns[column], position), caption)

    if len(figures) >= 2 and len(rows) <= MAX_SERIES:
        # Each row a line across its figure columns: periods when the headers name them.
        names = [column_label(columns[i], headers) for i in figures][:MAX_POINTS]
        series = []
        for position, row in enumerate(rows):
            points = tuple(p for i, name in zip(figures, names) if (p := point(row, position, i, name)) is not None)
            if points:
                series.append(ChartSeries(row_name(row, position), points))
        kind = "line" if all(_PERIOD.search(n) for n in names) else "bar"
        chart = Chart(kind, tuple(series), unit, title)
    elif len(figures) == 1 and 2 <= len(rows) <= MAX_POINTS and labels:
        # One figure over several rows: lines of one period, or a ranking.
        column = figures[0]
        points = tuple(p for position, row in enumerate(rows)
                       if (p := point(row, position, column, row_name(row, position))) is not None)
        kind = "line" if all(_PERIOD.search(p.label) for p in points) else "bar"
        chart = Chart(kind, (ChartSeries(column_label(columns[column], headers), points),), unit, title)
    else:
        return None
    if len(chart.points) < 2 or len(chart.labels) < 2:
        return None
    return _in_time_order(chart)


def _year(label: str) -> int | None:
    found = re.search(r"(?<!\d)((?:19|20)\d\d)(?!\d)", label)
    return int(found.group(1)) if found else None


def _in_time_order(chart: Chart) -> Chart:
    """A line across periods reads from the oldest to the newest, whichever way the report prints its columns
    ("2019 2018 2017"); quarters of one year keep the order printed."""
    if chart.kind != "line" or any(_year(label) is None for label in chart.labels):
        return chart
    order = {label: (_year(label), n) for n, label in enumerate(chart.labels)}
    return replace(chart, series=tuple(replace(s, points=tuple(sorted(s.points, key=lambda p: order[p.label])))
                                       for s in chart.series))


def answer_chart(answer: Answer, headers: Mapping[str, Mapping[str, str]] | None = None,
                 units: Mapping[str, str] | None = None) -> Chart | None:
    """The chart an answer's first table citation that holds a series makes, or None. ``headers`` and ``units`` give,
    by SQL table name, each column's printed header and the unit its figures are stated in."""
    if answer.status == "refused":
        return None
    for number, citation in enumerate(answer.citations, 1):
        table = citation.table or ""
        chart = citation_chart(citation, number, (headers or {}).get(table), (units or {}).get(table, ""),
                               citation.label or citation.document)
        if chart is not None:
            return chart
    return None


def point_citation(answer: Answer, point: ChartPoint) -> Citation:
    """The citation a chart's point comes from, narrowed to the point's own cell (so its page highlights it alone)."""
    citation = answer.citations[point.citation - 1]
    if point.cell is None:
        return citation
    return replace(citation, cells=(point.cell,), snippet=f"{point.caption}: {point.cell.text}")


def chart_values(chart: Chart) -> list[tuple[str, str, float]]:
    """(series, label, value) of every point, in order: what the chart draws, for tests and text alternatives."""
    return [(s.name, p.label, p.value) for s in chart.series for p in s.points]


def describe(chart: Chart, shown: Sequence[str] = ()) -> str:
    """A sentence for a chart's tooltip or alt text: "Parks, 2023 to 2024 ($ thousands)"."""
    names = ", ".join(shown or [s.name for s in chart.series][:3])
    span = f"{chart.labels[0]} to {chart.labels[-1]}" if chart.kind == "line" else f"{len(chart.labels)} lines"
    return f"{names}, {span}" + (f" ({chart.unit})" if chart.unit else "")
