"""Where a spreadsheet cell sits, as the library stores it: a sheet is a "page" whose cell (row r, column c),
0-based, covers the box ``(c * CELL_WIDTH, r * CELL_HEIGHT, (c + 1) * CELL_WIDTH, (r + 1) * CELL_HEIGHT)``, so
chunks, cell maps and citations carry sheet positions in the fields that carry page boxes for a PDF, and
``cell_range`` turns boxes back into "B3:D7" for a person to read.
"""

from __future__ import annotations

from collections.abc import Sequence

from models.types import BBox

CELL_WIDTH = 64.0
CELL_HEIGHT = 16.0


def column_letters(col: int) -> str:
    """0 -> "A", 25 -> "Z", 26 -> "AA"."""
    letters = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def cell_name(row: int, col: int) -> str:
    """0-based (row, col) as an A1 reference."""
    return f"{column_letters(col)}{row + 1}"


def cell_box(row: int, col: int, rows: int = 1, cols: int = 1) -> BBox:
    return (col * CELL_WIDTH, row * CELL_HEIGHT, (col + cols) * CELL_WIDTH, (row + rows) * CELL_HEIGHT)


def box_cells(box: BBox) -> tuple[int, int, int, int]:
    """The cells a box covers: first row, first column, last row, last column (0-based, inclusive)."""
    x0, y0, x1, y1 = box
    first_row, first_col = round(y0 / CELL_HEIGHT), round(x0 / CELL_WIDTH)
    last_row = max(first_row, round(y1 / CELL_HEIGHT) - 1)
    last_col = max(first_col, round(x1 / CELL_WIDTH) - 1)
    return first_row, first_col, last_row, last_col


def cell_range(boxes: Sequence[BBox]) -> str:
    """The A1 range covering ``boxes`` (sheet boxes): "C4", or "B3:D7"."""
    if not boxes:
        return ""
    spans = [box_cells(b) for b in boxes]
    r0, c0 = min(s[0] for s in spans), min(s[1] for s in spans)
    r1, c1 = max(s[2] for s in spans), max(s[3] for s in spans)
    first, last = cell_name(r0, c0), cell_name(r1, c1)
    return first if first == last else f"{first}:{last}"
