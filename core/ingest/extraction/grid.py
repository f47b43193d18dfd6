"""The shape every extractor's result is brought to, and how text is read into it.

A ``TableGrid`` is what an extractor found: row and column boundaries on the page plus the merged
(spanning) cells, with the extractor's own text kept only for comparison. ``read_grid`` turns it into
a ``DraftTable`` whose every cell is re-read from the page's words, so candidates from different
extractors are compared on the same text. Coordinates are those of the upright page view the grid was
found on (``page_view``; points, origin top-left).
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import pymupdf

from core.ingest.extraction.page_text import Word, cell_text

Span = tuple[int, int, int, int]
"""A merged cell: first row, first column, last row, last column (inclusive)."""


@dataclass
class TableGrid:
    """One table as an extractor saw it: ``x_edges``/``y_edges`` ascending, ``n+1`` edges for ``n`` columns/rows."""

    extractor: str
    x_edges: list[float]
    y_edges: list[float]
    spans: list[Span] = field(default_factory=list)
    native_text: list[list[str]] | None = None

    @property
    def n_rows(self) -> int:
        return max(0, len(self.y_edges) - 1)

    @property
    def n_cols(self) -> int:
        return max(0, len(self.x_edges) - 1)

    @property
    def rect(self) -> pymupdf.Rect:
        return pymupdf.Rect(self.x_edges[0], self.y_edges[0], self.x_edges[-1], self.y_edges[-1])

    def anchors(self) -> dict[tuple[int, int], Span]:
        """For every position covered by a merged cell, the span it belongs to."""
        covered: dict[tuple[int, int], Span] = {}
        for span in self.spans:
            r0, c0, r1, c1 = span
            for r in range(r0, r1 + 1):
                for c in range(c0, c1 + 1):
                    covered.setdefault((r, c), span)
        return covered


@dataclass
class DraftCell:
    """One position of a table being cleaned up. Positions of one merged cell share ``rect`` and ``span``."""

    text: str
    rect: pymupdf.Rect
    span: Span
    words: list[Word] = field(default_factory=list)


@dataclass
class DraftTable:
    """A table being cleaned up: ``cells[r][c]`` for every row and column, header rows first."""

    extractor: str
    cells: list[list[DraftCell]]
    header_rows: int = 0
    caption: str = ""
    score: float = 0.0
    confirmed_by: list[str] = field(default_factory=list)

    @property
    def n_rows(self) -> int:
        return len(self.cells)

    @property
    def n_cols(self) -> int:
        return len(self.cells[0]) if self.cells else 0

    @property
    def texts(self) -> list[list[str]]:
        return [[cell.text for cell in row] for row in self.cells]

    @property
    def rect(self) -> pymupdf.Rect:
        return bounds(cell.rect for row in self.cells for cell in row)

    def text_rect(self) -> pymupdf.Rect:
        """The box around the words actually in the table (tighter than its ruled outline)."""
        box = bounds(word.box for row in self.cells for cell in row for word in cell.words)
        return box if not box.is_empty else self.rect

    def row_rect(self, r: int) -> pymupdf.Rect:
        single = [cell.rect for cell in self.cells[r] if cell.span[0] == cell.span[2]]
        return bounds(single or [cell.rect for cell in self.cells[r]])

    def is_merged_copy(self, r: int, c: int) -> bool:
        """True where (r, c) is covered by a merged cell whose text sits in another position."""
        r0, c0, _, _ = self.cells[r][c].span
        return (r0, c0) != (r, c)

    def drop_rows(self, rows: Sequence[int]) -> None:
        doomed = set(rows)
        self.cells = [row for r, row in enumerate(self.cells) if r not in doomed]
        self.header_rows = max(0, self.header_rows - sum(1 for r in doomed if r < self.header_rows))
        self._renumber()

    def drop_cols(self, cols: Sequence[int]) -> None:
        doomed = set(cols)
        self.cells = [[cell for c, cell in enumerate(row) if c not in doomed] for row in self.cells]
        self._renumber()

    def _renumber(self) -> None:
        """Recompute span coordinates after rows or columns were removed."""
        positions: dict[int, list[tuple[int, int]]] = {}
        for r, row in enumerate(self.cells):
            for c, cell in enumerate(row):
                positions.setdefault(id(cell.span), []).append((r, c))
        fixed: dict[int, Span] = {}
        for key, where in positions.items():
            rows = [r for r, _ in where]
            cols = [c for _, c in where]
            fixed[key] = (min(rows), min(cols), max(rows), max(cols))
        for row in self.cells:
            for cell in row:
                cell.span = fixed[id(cell.span)]
        # Positions that share a span object must keep sharing one object so later renumbering works.
        shared: dict[Span, Span] = {}
        for row in self.cells:
            for cell in row:
                cell.span = shared.setdefault(cell.span, cell.span)


def bounds(boxes: Iterable[pymupdf.Rect | tuple[float, float, float, float]]) -> pymupdf.Rect:
    """The box around ``boxes`` (computed on plain numbers: pymupdf's own union is slow in bulk)."""
    x0 = y0 = float("inf")
    x1 = y1 = float("-inf")
    for b in boxes:
        bx0, by0, bx1, by1 = (b.x0, b.y0, b.x1, b.y1) if isinstance(b, pymupdf.Rect) else b
        x0, y0 = min(x0, bx0), min(y0, by0)
        x1, y1 = max(x1, bx1), max(y1, by1)
    if x0 == float("inf"):
        return pymupdf.Rect()
    return pymupdf.Rect(x0, y0, x1, y1)


def _index(edges: Sequence[float], value: float) -> int | None:
    """Which interval of ``edges`` holds ``value`` (None if outside)."""
    if value < edges[0] or value > edges[-1]:
        return None
    return min(max(bisect.bisect_right(edges, value) - 1, 0), len(edges) - 2)


def read_grid(grid: TableGrid, words: Sequence[Word]) -> DraftTable | None:
    """Fill ``grid`` with the page's words (each word goes where its centre falls)."""
    n_rows, n_cols = grid.n_rows, grid.n_cols
    if n_rows < 1 or n_cols < 1:
        return None
    covered = grid.anchors()
    spans = {(r, c): covered.get((r, c), (r, c, r, c)) for r in range(n_rows) for c in range(n_cols)}
    bucket: dict[Span, list[Word]] = {}
    for word in words:
        r = _index(grid.y_edges, word.cy)
        c = _index(grid.x_edges, word.cx)
        if r is None or c is None:
            continue
        bucket.setdefault(spans[(r, c)], []).append(word)
    shared: dict[Span, Span] = {}
    cells: list[list[DraftCell]] = []
    for r in range(n_rows):
        row: list[DraftCell] = []
        for c in range(n_cols):
            span = shared.setdefault(spans[(r, c)], spans[(r, c)])
            r0, c0, r1, c1 = span
            rect = pymupdf.Rect(grid.x_edges[c0], grid.y_edges[r0], grid.x_edges[c1 + 1], grid.y_edges[r1 + 1])
            in_cell = bucket.get(span, []) if (r, c) == (r0, c0) else []
            row.append(DraftCell(cell_text(in_cell), rect, span, list(in_cell)))
        cells.append(row)
    return DraftTable(grid.extractor, cells)


def edges_from_intervals(intervals: Sequence[tuple[float, float]]) -> list[float]:
    """Boundaries for consecutive intervals (gaps split in the middle)."""
    edges = [intervals[0][0]]
    for (_, end), (start, _) in pairwise(intervals):
        edges.append((end + start) / 2 if start > end else end)
    edges.append(intervals[-1][1])
    return edges


def nearest_edge(edges: Sequence[float], value: float) -> int:
    return min(range(len(edges)), key=lambda i: abs(edges[i] - value))
