"""Tables found by pymupdf's ``Page.find_tables`` (ruled tables), as ``TableGrid``s.

Only the structure is taken from pymupdf: its cell text is kept as ``native_text`` for comparison,
because pymupdf 2.x splits numbers with thousands separators (``'1200\\n,'`` for ``1,200``).
pymupdf 2.x also offers an ML layout gate (``use_layout``) that costs about a second per page; it is
turned off so the result depends only on the page's ruling lines.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Sequence
from functools import cache
from typing import Any

import pymupdf

from core.ingest.extraction.grid import TableGrid, nearest_edge

log = logging.getLogger(__name__)

EDGE_TOLERANCE = 1.5  # points: cell borders closer than this are the same grid line


@cache
def _supports(option: str) -> bool:
    try:
        return option in inspect.signature(pymupdf.table.find_tables).parameters
    except (AttributeError, TypeError, ValueError):
        return False


def _cluster(values: Sequence[float], tolerance: float = EDGE_TOLERANCE) -> list[float]:
    """Sorted values with near-duplicates merged into their mean."""
    groups: list[list[float]] = []
    for value in sorted(values):
        if groups and value - groups[-1][-1] <= tolerance:
            groups[-1].append(value)
        else:
            groups.append([value])
    return [sum(g) / len(g) for g in groups]


def grid_from_pymupdf(table: Any, extractor: str = "pymupdf") -> TableGrid | None:
    """Convert one ``pymupdf.table.Table`` into a ``TableGrid`` with its merged cells."""
    boxes = [tuple(cell) for cell in table.cells if cell is not None]
    if not boxes:
        return None
    x_edges = _cluster([b[0] for b in boxes] + [b[2] for b in boxes])
    y_edges = _cluster([b[1] for b in boxes] + [b[3] for b in boxes])
    if len(x_edges) < 2 or len(y_edges) < 2:
        return None
    spans = []
    for x0, y0, x1, y1 in boxes:
        c0, c1 = nearest_edge(x_edges, x0), nearest_edge(x_edges, x1) - 1
        r0, r1 = nearest_edge(y_edges, y0), nearest_edge(y_edges, y1) - 1
        if c1 < c0 or r1 < r0:
            continue
        if (r0, c0) != (r1, c1):
            spans.append((r0, c0, r1, c1))
    try:
        native = [[(text or "") for text in row] for row in table.extract()]
    except Exception:  # noqa: BLE001 - pymupdf's own text is only used for comparison
        native = None
    return TableGrid(extractor, x_edges, y_edges, spans, native)


def find_pymupdf_grids(page: pymupdf.Page, **options: Any) -> list[TableGrid]:
    """Run ``page.find_tables`` (ruling lines by default) and return its tables as grids."""
    if _supports("use_layout"):
        options.setdefault("use_layout", False)
    try:
        found = page.find_tables(**options)
    except Exception as exc:  # noqa: BLE001 - odd pages (broken paths, huge pages) must not stop extraction
        log.debug("pymupdf find_tables failed on page %s: %s", page.number, exc)
        return []
    grids = []
    for table in found.tables:
        grid = grid_from_pymupdf(table)
        if grid is not None:
            grids.append(grid)
    return grids
