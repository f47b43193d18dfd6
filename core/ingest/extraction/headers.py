"""Header rows: how many there are, and a full header path for every column.

Header rows are the text rows above the first body row, a body row being one with a value outside the
first column (a number that is not a year, or a missing-value mark), or whose cells there are mostly
figures (short entries with a number, such as "63 (18.5%)"); a row of codes of letters and digits over a row of
plain values ("A25.34" over "22") heads them. A row of years under a
spanning "Years ended December 31" is a header row. Section labels just above the body ("Outlays:",
text in the first column only) belong to the body. A header cell that spans several columns (merged
in a ruled table, or centred over its columns in a borderless one) is repeated across its span so
every column has a complete header path. A header a borderless reader cut apart from its figures (a column
with a header and nothing under it beside one with figures and no header) joins them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

import pymupdf

from core.ingest.extraction.grid import DraftCell, DraftTable, bounds
from core.ingest.extraction.page_text import Word, join_cell_lines
from core.ingest.extraction.values import is_figure, is_value, is_year

MAX_HEADER_ROWS = 5
# How far off its columns' middle a centred header may stand, in columns (the sides are read from right-aligned
# figures, a little off the cells' own).
CENTRED = 0.15
_DAY_FRAGMENT = re.compile(r"^\s*(?:[1-9]|[12]\d|3[01]),?\s*$")
_MONTH_END = re.compile(r"\b(?:january|february|march|april|may|june|july|august|september|october|november|"
                        r"december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s*$", re.IGNORECASE)


def count_header_rows(table: DraftTable, limit: int | None = MAX_HEADER_ROWS) -> int:
    texts = table.texts
    def is_body(r: int) -> bool:
        row = texts[r]
        above = texts[r - 1] if r else [""] * len(row)
        # "31" under "Year Ended December" is the day of a date a header split over two lines, not a figure; not in
        # a row a year or a number labels ("1955" with 5 under "Jan": months across, years down)
        dated = bool(row[0]) and (is_year(row[0]) or is_value(row[0]))
        filled = [text for c, text in enumerate(row[1:], 1) if text and not (
            not dated and _DAY_FRAGMENT.match(text) and c < len(above) and _MONTH_END.search(above[c]))]
        figures = sum(1 for text in filled if is_figure(text))
        below = texts[r + 1] if r + 1 < len(texts) else []
        if _codes_over_values(row, below) or r and _unlabelled_numbers(row, below) or _numbered_columns(row, below):
            return False
        return any(is_value(text) for text in filled) or (bool(filled) and figures * 2 >= len(filled))

    first_body = next((r for r in range(len(texts)) if is_body(r)), None)
    if first_body is None:
        # A table of words: its first row names the columns if every column has a name there.
        return 1 if len(texts) >= 2 and sum(1 for t in texts[0] if t) >= max(2, len(texts[0]) - 1) else 0
    header = 0
    for r in range(first_body):
        if any(texts[r][1:]):
            header = r + 1
    if limit is not None and header > limit:
        return 1
    return header


_CODE = re.compile(r"^[A-Za-z]{1,3}[\s._-]?\d[\d.\-_]*$")
"""A column's code of letters and digits ("A25.34", "Q3", "X 1", "T-12"): a name, though it holds a number."""


_RANGE = re.compile(r"^\d[\d.,]*\s?[\u2013\u2014-]\s?\d[\d.,]*$|^\d[\d.,]*\s?\+$")
"""A band of numbers ("50\u201354", "90+"): a group of ages, sizes or incomes heading a column."""


_SMALL_WHOLE = re.compile(r"^\d{1,4}$")


def _unlabelled_numbers(row: Sequence[str], below: Sequence[str]) -> bool:
    """A row of whole numbers with no label, under a header row and over labelled rows: the last line of the header
    ("No. of groups" over "2", "5", "25"), not a row of figures, which would have a label as the rows under it do."""
    filled = [c for c in range(1, len(row)) if row[c]]
    return not row[0] and bool(below) and bool(below[0]) and len(filled) >= 2 and \
        all(_SMALL_WHOLE.match(row[c]) for c in filled) and any(is_value(t) for t in below[1:])


def _numbered_columns(row: Sequence[str], below: Sequence[str]) -> bool:
    """A row numbering its columns 1, 2, 3, ... (judges, rating categories, weeks), the other cells words, over a row
    of values: the numbers name the columns ("Temperature | Contact | 1 | 2 | 3 | 4 | 5" under "Rating")."""
    numbered = [c for c in range(len(row)) if _SMALL_WHOLE.match(row[c])]
    if len(numbered) < 3 or any(row[c] and c not in numbered and is_value(row[c]) for c in range(len(row))):
        return False
    first = int(row[numbered[0]])
    return first in (0, 1) and [int(row[c]) for c in numbered] == list(range(first, first + len(numbered))) and \
        not any(row[c] for c in range(numbered[0], numbered[-1]) if c not in numbered) and \
        sum(1 for c in numbered if c < len(below) and is_value(below[c])) * 2 >= len(numbered)


def _codes_over_values(row: Sequence[str], below: Sequence[str]) -> bool:
    """A row of codes ("A25.34", "A35.44": age groups named as a program names them) or of bands ("50-54", "55-59",
    "90+") over a row of plain values in the same columns: the codes head the columns."""
    filled = [c for c in range(1, len(row)) if row[c]]
    return len(filled) >= 2 and (all(_CODE.match(row[c]) for c in filled) or all(_RANGE.match(row[c]) for c in filled)) \
        and all(c < len(below) and is_value(below[c]) for c in filled)


def _reach(neighbour: DraftCell, share: float) -> float:
    """How far a header's text must reach into a neighbouring column to span it: 2 points, or ``share`` of its width."""
    return max(2.0, share * (neighbour.rect.x1 - neighbour.rect.x0))


def _cell_edges(table: DraftTable) -> list[float] | None:
    """Where a borderless table's columns of figures part, read from the body's text (the extractor's own column
    boundaries follow its widest text, often a header): halfway between neighbouring columns' text, and half such a
    gap beyond the first and last. None where a column has no text in the body."""
    extents = []
    for c in range(1, table.n_cols):
        words = [w for row in table.cells[table.header_rows:] if row[c].span[1] == row[c].span[3] for w in row[c].words]
        if not words:
            return None
        extents.append((min(w.x0 for w in words), max(w.x1 for w in words)))
    if len(extents) < 2:
        return None
    gaps = [(b[0] - a[1]) / 2 for a, b in pairwise(extents)]
    half = max(0.0, sum(gaps) / len(gaps))
    inner = [(a[1] + b[0]) / 2 for a, b in pairwise(extents)]
    return [float("nan"), extents[0][0] - half, *inner, extents[-1][1] + half]


def _centred_run(c: int, middle: float, edges: list[float], free: list[bool]) -> tuple[int, int]:
    """The columns a header placed in column ``c`` is centred over: of the runs of columns around ``c`` that are
    ``free`` for it (``edges[k]``, ``edges[k + 1]``: column k's sides), the widest whose middle is about as near the
    text's as the nearest's ("Domestic" over its two periods, whichever of them the extractor put it in; a heading
    over three columns is as well centred over the middle one alone)."""
    lefts = [c]
    while lefts[-1] - 1 > 0 and free[lefts[-1] - 1]:
        lefts.append(lefts[-1] - 1)
    rights = [c]
    while rights[-1] + 1 < len(free) and free[rights[-1] + 1]:
        rights.append(rights[-1] + 1)
    runs = [(left, right) for left in lefts for right in rights]

    def off(run: tuple[int, int]) -> float:
        return abs((edges[run[0]] + edges[run[1] + 1]) / 2 - middle)

    pitch = (edges[-1] - edges[1]) / (len(edges) - 2)
    best = min(off(run) for run in runs)
    return max((run for run in runs if off(run) <= best + CENTRED * pitch), key=lambda run: (run[1] - run[0], -off(run)))


def _widen_centred_headers(table: DraftTable, verticals: Sequence[pymupdf.Rect] = ()) -> None:
    """Give a borderless table's centred spanning header cells the columns below them.

    A header cell with empty neighbours, over columns that are labelled in a lower header row, spans the run of
    them it is centred over (its columns' sides read from the body's figures, ``_cell_edges``; where a column has
    none, symmetrically as far as both sides stay empty); a cell whose own text reaches over empty neighbours
    spans those too.
    """
    rows = table.header_rows
    edges = _cell_edges(table)
    for r in range(rows - 1):
        row = table.cells[r]
        claimed = {c for c, cell in enumerate(row) if cell.text}
        for c in sorted(claimed):
            cell = row[c]
            if cell.span[1] != cell.span[3] or table.is_merged_copy(r, c):
                continue
            labelled_below = [any(table.cells[rr][k].text for rr in range(r + 1, rows)) for k in range(table.n_cols)]
            # A header over a group of columns has its own column's label under it too; a column's header that
            # ends on the lowest header line (set over more lines than its neighbours') does not: it spans a
            # neighbour only where its text reaches well into it (a line set a little wider than a narrow column
            # does not).
            stacked = not labelled_below[c]
            share = 0.4 if stacked else 0.0
            left = right = c
            text_box = bounds(w.box for w in cell.words)
            if text_box.is_empty:
                text_box = cell.rect
            # Columns the text itself reaches over.
            while (right + 1 < table.n_cols and not row[right + 1].text and (right + 1) not in claimed
                   and row[right + 1].rect.x0 < text_box.x1 - _reach(row[right + 1], share)):
                right += 1
            while (left - 1 > 0 and not row[left - 1].text and (left - 1) not in claimed
                   and row[left - 1].rect.x1 > text_box.x0 + _reach(row[left - 1], share)):
                left -= 1
            free = [k > 0 and labelled_below[k] and not row[k].text and k not in claimed for k in range(table.n_cols)]
            ruled = ruled_group(table, cell, verticals) if c > 0 else None
            if ruled:  # (the only text between its rules)
                left, right = ruled
            elif not stacked and (left, right) == (c, c) and c > 0 and edges is not None:
                left, right = _centred_run(c, (text_box.x0 + text_box.x1) / 2, edges, free)
            elif not stacked:
                # Symmetric widening over labelled columns for a centred header.
                while left - 1 > 0 and right + 1 < table.n_cols and free[left - 1] and free[right + 1]:
                    left -= 1
                    right += 1
            if (left, right) != (c, c):
                span = (r, left, r, right)
                rect = row[left].rect | row[right].rect
                for k in range(left, right + 1):
                    row[k].span = span
                    row[k].rect = rect
                row[left].text, row[left].words = cell.text, cell.words
                if left != c:
                    cell.text, cell.words = "", []
                claimed.update(range(left, right + 1))


def _reaches_over(cell: DraftCell, left: DraftCell | None, right: DraftCell | None) -> bool:
    """Whether ``cell``'s text reaches well into a neighbouring column: a header spanning several columns."""
    x0 = min(w.x0 for w in cell.words)
    x1 = max(w.x1 for w in cell.words)

    def covers(other: DraftCell | None) -> bool:
        if other is None:
            return False
        width = max(other.rect.x1 - other.rect.x0, 1e-6)
        return (min(x1, other.rect.x1) - max(x0, other.rect.x0)) > 0.4 * width

    return covers(left) or covers(right)


def ruled_group(table: DraftTable, cell: DraftCell, verticals: Sequence[pymupdf.Rect]) -> tuple[int, int] | None:
    """The columns a header cell heads when vertical rules drawn across its line part it from its neighbours
    (statistical tables draw a rule between groups of columns: "Total" | "Male" | "Female", each over "Total",
    "Under 18 years", "18 years and over"): the value columns between the nearest rule on each side, if more
    than one and the cell is the only text among them on its row. The table's edge stands for a missing rule
    only beside another heading on the same line (the last of three groups)."""
    if not cell.words or not verticals:
        return None
    x0, x1 = min(w.x0 for w in cell.words), max(w.x1 for w in cell.words)
    cy = (min(w.y0 for w in cell.words) + max(w.y1 for w in cell.words)) / 2
    box = table.rect
    # Rules inside the table only: a frame or a margin rule beside it parts no columns.
    crossing = [v for v in verticals if v.y0 - 1 <= cy <= v.y1 + 1 and box.x0 + 2 < v.x0 and v.x1 < box.x1 - 2]
    lefts = [v.x1 for v in crossing if v.x1 <= x0 + 0.5]
    rights = [v.x0 for v in crossing if v.x0 >= x1 - 0.5]
    if not lefts and not rights:
        return None
    left, right = max(lefts, default=box.x0), min(rights, default=box.x1)
    row = next((line for line in table.cells if any(other is cell for other in line)), None)
    if row is None:
        return None
    inside = [k for k in range(1, table.n_cols) if left <= (row[k].rect.x0 + row[k].rect.x1) / 2 <= right]
    if len(inside) < 2 or any(row[k].text and row[k] is not cell for k in inside):
        return None
    if not (lefts and rights) and not any(row[k].text for k in range(1, table.n_cols) if k not in inside):
        return None  # ruled on one side only, and no other group heading on its line: the rule parts other columns
    return inside[0], inside[-1]


def _heads_a_group(table: DraftTable, upper: DraftCell, r: int, c: int,
                   verticals: Sequence[pymupdf.Rect] = ()) -> bool:
    """Whether ``upper`` (a header cell above row ``r``) labels a group: a neighbouring column is empty
    on its line but labelled on line ``r``, and ``upper`` stands towards that label, off the middle of its own
    column's label on line ``r`` ("Revenue" over "Medical & Public Health" | "Family Welfare"), or is wider
    than its own column's labels on both sides while both neighbours are labelled (centred over three columns).
    A header set over its own label's middle with one neighbour starting a label beside it is that column's:
    headers of narrow columns stacked over five lines and four."""
    if ruled_group(table, upper, verticals):
        return True
    upper_row = next(i for i in range(r) if table.cells[i][c] is upper)
    own = table.cells[r][c].words

    def middle(words: list[Word]) -> float:
        return (min(w.x0 for w in words) + max(w.x1 for w in words)) / 2

    sides = [table.cells[r][k].words for k in (c - 1, c + 1)
             if 0 < k < table.n_cols and table.cells[r][k].words and not table.cells[upper_row][k].text]
    if not sides:
        return False
    # The labels under it in its own column, down to the last header row.
    stack = [w for rr in range(r, table.header_rows) for w in table.cells[rr][c].words]
    if not own or not stack:
        return True
    margin = 0.5 * min(w.height for w in upper.words)
    if (len(sides) == 2 and min(w.x0 for w in upper.words) < min(w.x0 for w in stack) - margin
            and max(w.x1 for w in upper.words) > max(w.x1 for w in stack) + margin):
        return True  # wider than its column's labels on both sides: a header centred over three columns
    return any(abs(middle(upper.words) - middle(own)) > 0.25 * abs(middle(below) - middle(own)) for below in sides)


def stack_header_lines(table: DraftTable, verticals: Sequence[pymupdf.Rect] = ()) -> None:
    """Join the lines of each header cell into one cell.

    Camelot stream gives every text line a row, so a header cell written on three lines ("Medical &" /
    "Public" / "Health") arrives as three header rows, interleaved with the lines of its neighbours;
    ruled extractors sometimes split a header cell the same way at a border drawn in a neighbour.
    Down each column, a header line set tight under the previous one (less than half a line apart)
    is joined to it unless either reaches over several columns or the upper heads a group (``verticals``: the
    page's vertical rules, which may part groups of columns); the row labels'
    header is set beside the others (``_raise_stub``); header rows left empty are dropped.
    """
    rows = table.header_rows
    ruled = not table.extractor.endswith("stream")
    for c in range(table.n_cols):
        previous: DraftCell | None = None
        for r in range(rows):
            cell = table.cells[r][c]
            if not cell.text or table.is_merged_copy(r, c) or not cell.words:
                continue
            if ruled and previous is not None and not any(table.cells[r][k].span[0] < r for k in range(table.n_cols)):
                # A ruling line runs right across between these rows: they are rows, not lines of one cell.
                previous = cell
                continue
            left = table.cells[r][c - 1] if c > 0 else None
            right = table.cells[r][c + 1] if c + 1 < table.n_cols else None
            if (previous is not None and cell.span[1] == cell.span[3] and previous.span[1] == previous.span[3]
                    and not _reaches_over(previous, left, right)
                    and not _heads_a_group(table, previous, r, c, verticals)):
                gap = min(w.y0 for w in cell.words) - max(w.y1 for w in previous.words)
                if gap < 0.5 * min(w.height for w in previous.words):
                    previous.words = previous.words + cell.words
                    previous.text = join_cell_lines([previous.text, cell.text])
                    cell.text, cell.words = "", []
                    continue
            previous = cell
    _raise_stub(table)
    empty = [r for r in range(rows) if not any(cell.text for cell in table.cells[r])]
    table.drop_rows(empty)


def _raise_stub(table: DraftTable) -> None:
    """Set the row labels' header on the lowest header row that names other columns, when it stands alone below it:
    joined into one cell, the other columns' stacked headers start higher than the row labels' header, and a row
    with text in the first column only, just above the body, reads as a section label."""
    named = [r for r in range(table.header_rows) if any(cell.text for cell in table.cells[r][1:])]
    if not named:
        return
    last = named[-1]
    stub = next((r for r in range(last + 1, table.header_rows) if table.cells[r][0].text), None)
    if stub is None or table.cells[last][0].text or table.is_merged_copy(stub, 0) or table.cells[stub][0].span[3] > 0:
        return
    upper, lower = table.cells[last][0], table.cells[stub][0]
    upper.text, upper.words, upper.rect = lower.text, lower.words, upper.rect | lower.rect
    lower.text, lower.words = "", []


def _join_shifted_headers(table: DraftTable) -> None:
    """A header set off its column joins it: a borderless reader may cut a column's header (a left-aligned "January")
    apart from its figures (right-aligned under the next cut), leaving a column with a header and nothing under it
    beside one with figures and no header. The header moves onto the figures (the one such neighbour) and the empty
    column goes. The row labels' column is never either."""
    if table.header_rows == 0 or table.n_rows <= table.header_rows:
        return
    c = 1
    while c < table.n_cols:
        if _headed_empty(table, c) and \
                len(sides := [n for n in (c - 1, c + 1) if 0 < n < table.n_cols and _figures_unheaded(table, n)]) == 1:
            for r in range(table.header_rows):
                moved, onto = table.cells[r][c], table.cells[r][sides[0]]
                if moved.text:
                    onto.text, onto.words = moved.text, moved.words
            table.drop_cols([c])
            continue
        c += 1


def _headed_empty(table: DraftTable, c: int) -> bool:
    """Column ``c`` has a header of its own (no merged one) and nothing under it."""
    header = [table.cells[r][c] for r in range(table.header_rows)]
    return any(cell.text for cell in header) and all(cell.span[1] == cell.span[3] == c for cell in header) and \
        not any(table.cells[r][c].text for r in range(table.header_rows, table.n_rows))


def _figures_unheaded(table: DraftTable, c: int) -> bool:
    """Column ``c`` has no header (none of its own, none merged over it) and figures under it, two at least."""
    if any(table.cells[r][c].text or table.cells[r][c].span[1] != table.cells[r][c].span[3]
           for r in range(table.header_rows)):
        return False
    body = [table.cells[r][c].text for r in range(table.header_rows, table.n_rows) if table.cells[r][c].text]
    return len(body) >= 2 and sum(1 for text in body if is_value(text)) * 2 >= len(body)


def fill_spanning_headers(table: DraftTable) -> None:
    """Repeat a merged header cell's text across all the columns it covers.

    Only along its own row: a header cell that also spans header rows downwards is already on every
    column's header path once.
    """
    for r in range(table.header_rows):
        for c in range(table.n_cols):
            r0, c0, _, _ = table.cells[r][c].span
            if r0 == r and c0 != c and not table.cells[r][c].text:
                table.cells[r][c].text = table.cells[r0][c0].text


def fill_row_spans(table: DraftTable) -> None:
    """Repeat a body cell merged over several rows (a row label such as a plan type) in each of them."""
    for r in range(table.header_rows, table.n_rows):
        for c in range(table.n_cols):
            r0, c0, r1, _ = table.cells[r][c].span
            if r1 > r0 and (r0, c0) != (r, c) and c == c0 and not table.cells[r][c].text and r0 >= table.header_rows:
                table.cells[r][c].text = table.cells[r0][c0].text


def settle_headers(table: DraftTable, verticals: Sequence[pymupdf.Rect] = ()) -> None:
    """Set ``header_rows`` and fill spanning header (and row-label) cells; ``verticals`` are the page's vertical
    rules (a borderless table may draw them between groups of columns)."""
    table.header_rows = count_header_rows(table, limit=None)
    stack_header_lines(table, verticals)
    table.header_rows = count_header_rows(table)
    if table.extractor.endswith("stream"):
        _join_shifted_headers(table)
        _widen_centred_headers(table, verticals)
    fill_spanning_headers(table)
    fill_row_spans(table)
