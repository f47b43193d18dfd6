"""Repairs for structure errors extractors typically make, and for what borderless detection misses.

Applied to every candidate before it is judged:

- Stacked rows: a table ruled only around its columns (no line between body rows) comes out of
  pymupdf and camelot lattice as one row whose cells each hold a column of values. When two or more
  cells of a row hold several lines that line up with each other, and at least one of them is all
  numbers, the row is split into one row per line (``split_stacked_rows``); a merged cell running
  down several rows whose lines sit one per row is split the same way (``unmerge_aligned_spans``), and
  one running across the columns of a row of figures whose words stand in those columns is split by
  column (``unmerge_spread_rows``: a ruling line that stops short).
- Slivers: cell borders drawn a point apart add a thin column or row that holds no text of its own
  (``drop_slivers``).
- Wrapped labels: camelot stream puts each text line in its own row, so a row label wrapped onto a
  second line becomes a row of its own with nothing else in it; it is joined back
  (``join_wrapped_labels``).

And to borderless candidates and chosen tables:

- ``drop_prose_columns``: the neighbouring text column of a two-column page, read into the table.
- ``extend_upwards``: header lines camelot stream left above the table.
- ``stack_side_by_side``: one table printed as several blocks side by side under a repeated header, read as
  one table of all the blocks' rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

import pymupdf

from core.ingest.extraction.grid import DraftCell, DraftTable
from core.ingest.extraction.page_text import PHRASE_GAP, Word, cell_text, group_lines, joined_phrase, phrases
from core.ingest.extraction.values import TITLE_START, UNITS_LINE, is_value

# A gap this many times the page's word space parts two column headers set on one line.
WIDE_SPACE = 1.5


def _line_centres(words: list[Word]) -> list[tuple[float, float, float]]:
    """Each text line of a cell as (centre, top, bottom)."""
    out = []
    for line in group_lines(words):
        top = min(w.y0 for w in line)
        bottom = max(w.y1 for w in line)
        out.append(((top + bottom) / 2, top, bottom))
    return out


def _stack_bounds(table: DraftTable, r: int) -> list[float] | None:
    """The y positions to split row ``r`` at, if its cells hold aligned stacks of lines."""
    row = table.cells[r]
    if any(cell.span[0] != cell.span[2] for cell in row):
        return None
    stacks = []
    numeric_stack = False
    for c, cell in enumerate(row):
        if table.is_merged_copy(r, c) or not cell.words:
            continue
        lines = group_lines(cell.words)
        if len(lines) >= 2:
            stacks.append(_line_centres(cell.words))
            if all(is_value(" ".join(w.text for w in line)) for line in lines):
                numeric_stack = True
    if len(stacks) < 2 or not numeric_stack:
        return None
    reference = max(stacks, key=len)
    height = min(bottom - top for _, top, bottom in reference)
    # Every stack's lines must sit on lines of the longest stack.
    for stack in stacks:
        for centre, _, _ in stack:
            if min(abs(centre - other) for other, _, _ in reference) > 0.6 * height:
                return None
    bounds = [row[0].rect.y0]
    for (_, _, bottom), (_, top, _) in pairwise(reference):
        bounds.append((bottom + top) / 2)
    bounds.append(row[0].rect.y1)
    return bounds


def split_stacked_rows(table: DraftTable) -> bool:
    """Split rows whose cells hold aligned stacks of values into one row per line. True if any was split."""
    changed = False
    new_rows: list[list[DraftCell]] = []
    for r, row in enumerate(table.cells):
        bounds = _stack_bounds(table, r)
        if bounds is None:
            new_rows.append(row)
            continue
        changed = True
        pieces: list[list[DraftCell]] = []
        for i in range(len(bounds) - 1):
            top, bottom = bounds[i], bounds[i + 1]
            piece: list[DraftCell] = []
            for c, cell in enumerate(row):
                rect = pymupdf.Rect(cell.rect.x0, top, cell.rect.x1, bottom)
                if table.is_merged_copy(r, c):
                    anchor = piece[cell.span[1]]
                    piece.append(DraftCell("", anchor.rect, anchor.span))
                    continue
                words = [w for w in cell.words if top <= w.cy < bottom or (i == len(bounds) - 2 and w.cy >= top)]
                piece.append(DraftCell(cell_text(words), rect, (0, c, 0, cell.span[3]), words))
            pieces.append(piece)
        new_rows.extend(pieces)
    if changed:
        table.cells = new_rows
        _reset_spans(table)
    return changed


def _reset_spans(table: DraftTable) -> None:
    """Give every position a span object shared with its merged neighbours, in current row numbers."""
    for r, row in enumerate(table.cells):
        groups: dict[tuple[int, int], tuple[int, int, int, int]] = {}
        for c, cell in enumerate(row):
            r0, c0, r1, c1 = cell.span
            if r0 == r1:  # single-row spans can be renumbered locally
                key = (c0, c1)
                cell.span = groups.setdefault(key, (r, c0, r, c1))
    table._renumber()


def join_wrapped_labels(table: DraftTable) -> None:
    """Join a row holding only a continuation of the row label above it onto that row (stream tables)."""
    r = 1
    while r < table.n_rows:
        row, above = table.cells[r], table.cells[r - 1]
        filled = [c for c, cell in enumerate(row) if cell.text]
        above_values = [c for c, cell in enumerate(above) if c > 0 and cell.text and is_value(cell.text)]
        if filled == [0] and above[0].text and above_values and not above[0].text.endswith(":"):
            lower = row[0].words
            upper = above[0].words
            if lower and upper:
                gap = min(w.y0 for w in lower) - max(w.y1 for w in upper)
                height = min(w.height for w in upper)
                indented = min(w.x0 for w in lower) >= min(w.x0 for w in upper) - 1
                if gap < 0.35 * height and indented and row[0].text[:1].islower():
                    above[0].words = upper + lower
                    above[0].text = cell_text(above[0].words)
                    above[0].rect = above[0].rect | row[0].rect
                    table.drop_rows([r])
                    continue
        r += 1


def _column_at(x: float, lefts: list[float], rights: list[float]) -> int:
    """The column holding ``x``, or the nearest one."""
    def distance(c: int) -> float:
        return 0.0 if lefts[c] <= x <= rights[c] else min(abs(x - lefts[c]), abs(x - rights[c]))

    return min(range(len(lefts)), key=distance)


def word_space(words: Sequence[Word]) -> float:
    """The page's usual gap between two words of one phrase (the median; a monospaced font sets them wide)."""
    gaps = sorted(
        right.x0 - left.x1 for line in group_lines(words) for left, right in pairwise(line)
        if 0 <= right.x0 - left.x1 <= PHRASE_GAP * min(left.height, right.height)
    )
    return gaps[len(gaps) // 2] if gaps else 0.0


def _split_at_columns(piece: list[Word], lefts: list[float], rights: list[float], word_space: float,
                      starts: set[str]) -> list[list[Word]]:
    """A phrase cut into the column headers it holds. Headers stacked over narrow columns ("Weight" | "Controls")
    may be set closer than the gap that parts phrases, yet wider than the page's word spaces: the phrase is cut
    where two words in different columns stand half as far apart again as ``word_space`` (a spanning
    "Postnatal Day 1" has word spaces only), or where the next column's header starts with the word that
    starts the line's headers (``starts``: "Day 14 Day 20" set a word space apart)."""
    parts: list[list[Word]] = [[piece[0]]]
    for left, right in pairwise(piece):
        wide = right.x0 - left.x1 > WIDE_SPACE * word_space or right.text in starts
        if wide and _column_at(left.cx, lefts, rights) != _column_at(right.cx, lefts, rights):
            parts.append([right])
        else:
            parts[-1].append(right)
    return parts


def phrases_at_columns(page_phrases: Sequence[list[Word]], x_edges: Sequence[float], space: float) -> list[Word]:
    """The page's phrases (``page_phrases``, each as its words) for a borderless grid with column boundaries
    ``x_edges``, each as one ``Word``, the unit borderless columns are made of; a phrase
    over two figure columns is cut where ``_split_at_columns`` cuts header lines: the headers of narrow columns set a
    little more than a word space apart ("Under 18 years" | "18 years and over", each over two lines) are two cells,
    not one phrase read into the column its middle falls in. A title over many columns and a row label run past its
    column's edge stay whole."""
    lefts, rights = list(x_edges[:-1]), list(x_edges[1:])
    out: list[Word] = []
    for phrase in page_phrases:
        columns = {_column_at(w.cx, lefts, rights) for w in phrase}
        pieces = _split_at_columns(phrase, lefts, rights, space, set()) if len(columns) == 2 and 0 not in columns \
            else [phrase]
        out.extend(joined_phrase(piece) for piece in pieces)
    return out


_BODY_LINES = 30
"""How many lines of a table's body above its first row ``extend_upwards`` looks at besides its header lines."""


def extend_upwards(table: DraftTable, words: list[Word], taken: list[pymupdf.Rect], max_rows: int = 6) -> None:
    """Add the header lines camelot stream left above a table (it starts tables at their first aligned row).

    A line is taken when it sits tight above the table, stays within its width (a line of several pieces may
    overhang it by a word's height: a header over the last column set wider than its figures), and its pieces
    of text (words closer than a word space, cut at the table's column boundaries) fall on the table's columns;
    a piece reaching over several columns becomes a cell spanning them. A title line ("Table 3: ...") or a
    line wider than the table stops the search. Lines of the body itself (one piece a column, half of them or more
    values) that the extractor left above its first row are taken however many there are, until the first header
    line; ``max_rows`` counts header lines.
    """
    if not table.cells:
        return
    n_cols = table.n_cols
    lefts = [min(row[c].rect.x0 for row in table.cells) for c in range(n_cols)]
    rights = [max(row[c].rect.x1 for row in table.cells if row[c].span[1] == row[c].span[3]) if any(
        row[c].span[1] == row[c].span[3] for row in table.cells) else lefts[c] for c in range(n_cols)]
    left, right = lefts[0], max(rights)
    box = table.text_rect()
    heights = [w.height for row in table.cells for cell in row for w in cell.words]
    line_height = sorted(heights)[len(heights) // 2] if heights else 10.0
    top = box.y0
    pool = [
        w for w in words
        if w.cy < top and w.cy > top - (max_rows + 1 + _BODY_LINES) * 2.5 * line_height
        and not any(w.centre_in(t) for t in taken)
    ]
    lines = sorted(group_lines(pool), key=lambda ln: -max(w.y1 for w in ln))
    space = word_space(words)
    added = 0
    for line in lines:
        bottom = max(w.y1 for w in line)
        if bottom > top + 0.5 * line_height:  # stacked header lines may be set closer than a line apart
            continue
        found = phrases(line)
        starts = {phrase[0].text for phrase in found}
        pieces = [part for phrase in found for part in _split_at_columns(phrase, lefts, rights, space, starts)]
        # Header lines sit tight above the body; a rule with padding may separate a line of short labels.
        short_labels = len(pieces) >= 2 and all(len(p) <= 4 for p in pieces)
        if top - bottom > (2.5 if short_labels else 1.2) * line_height or added == max_rows:
            break
        body_line = (not added and len(pieces) >= 2 and all(_column_at(p[0].cx, lefts, rights) == _column_at(
            p[-1].cx, lefts, rights) for p in pieces) and 2 * sum(is_value(cell_text(p)) for p in pieces) >= len(pieces))
        if any(len(p) >= 5 for p in pieces):
            break
        overhang = 3 if len(pieces) < 2 else max(3, line_height)
        if min(w.x0 for w in line) < left - overhang or max(w.x1 for w in line) > right + overhang:
            break

        placed: dict[int, tuple[int, list[Word]]] = {}
        clash = False
        for piece in pieces:
            first, last = _column_at(piece[0].cx, lefts, rights), _column_at(piece[-1].cx, lefts, rights)
            if any(first <= end and c <= last for c, (end, _) in placed.items()):
                clash = True
                break
            placed[first] = (last, piece)
        texts = [" ".join(w.text for w in piece) for piece in pieces]
        title_like = any(TITLE_START.match(t) or UNITS_LINE.match(t) for t in texts)
        from_stub = any(start == 0 and end > 0 for start, (end, _) in placed.items())
        if clash or title_like or from_stub or (len(pieces) == 1 and list(placed) == [0]):
            break
        row: list[DraftCell] = []
        line_top = min(w.y0 for w in line)
        spans: dict[int, tuple[int, int, int, int]] = {}
        for c in range(n_cols):
            owner = next(((start, end, piece) for start, (end, piece) in placed.items() if start <= c <= end), None)
            if owner is None:
                row.append(DraftCell("", pymupdf.Rect(lefts[c], line_top, rights[c], bottom), (0, c, 0, c)))
                continue
            start, end, piece = owner
            span = spans.setdefault(start, (0, start, 0, end))
            rect = pymupdf.Rect(lefts[start], line_top, rights[end], bottom)
            row.append(DraftCell(cell_text(piece) if c == start else "", rect, span, list(piece) if c == start else []))
        table.cells.insert(0, row)
        table.header_rows = 0
        _reset_spans(table)
        top = line_top
        if not body_line:
            added += 1


def spread_centred_labels(table: DraftTable, header_rows: int) -> None:
    """Give a row label set between the rows it names (a label centred over two rows, as a typesetter's multi-row
    cell prints it) to those rows, and drop its line. Such a label fills only the first column, its line lies between
    two rows of figures with an empty first column, halfway (less than two lines apart: it took no line of its own, as
    a heading does; a label printed a little off its own row's line is no such label), and it names as many rows above
    it as below it that no other label took: "Urban" centred between its "Men" and "Women" rows."""
    heights = sorted(w.height for row in table.cells for cell in row for w in cell.words)
    if not heights or table.n_rows < header_rows + 3:
        return
    line = heights[len(heights) // 2]

    def centre(r: int) -> float | None:
        ys = [w.cy for cell in table.cells[r] for w in cell.words]
        return sum(ys) / len(ys) if ys else None

    def label_only(r: int) -> bool:
        row = table.cells[r]
        return bool(row[0].text) and row[0].span[3] == 0 and not any(cell.text for cell in row[1:])

    def member(r: int) -> bool:
        return not table.cells[r][0].text and any(is_value(cell.text) for cell in table.cells[r][1:])

    found = []
    for r in range(header_rows + 1, table.n_rows - 1):
        if not (label_only(r) and member(r - 1) and member(r + 1)):
            continue
        above, below, here = centre(r - 1), centre(r + 1), centre(r)
        if above is not None and below is not None and here is not None and above < here < below \
                and below - above < 1.8 * line and abs((here - above) - (below - here)) <= 0.3 * (below - above):
            found.append(r)

    def run(r: int, step: int) -> int:
        n = 0
        while 0 <= r + step * (n + 1) < table.n_rows and member(r + step * (n + 1)):
            n += 1
        return n

    labels: list[tuple[int, list[int]]] = []
    for i, r in enumerate(found):
        # the rows between two labels are shared half and half; the first label's rows above and the last one's
        # below run to the first row that is no member
        up = (r - found[i - 1] - 1) // 2 if i else run(r, -1)
        down = (found[i + 1] - r - 1) // 2 if i + 1 < len(found) else run(r, 1)
        k = max(1, min(up, down))
        labels.append((r, list(range(r - k, r)) + list(range(r + 1, r + k + 1))))
    for r, rows in labels:
        label = table.cells[r][0]
        for q in rows:
            cell = table.cells[q][0]
            cell.text, cell.words = label.text, list(label.words)
    if labels:
        table.drop_rows([r for r, _ in labels])


def stack_side_by_side(table: DraftTable, header_rows: int) -> DraftTable:
    """A table printed as blocks side by side under one repeated header ("station | depth | flow" twice, a
    register set in two columns to save space) read as one table: the blocks' rows one under the other, the first
    block's first, each cell where it was printed. Blocks under headers that differ (a group heading over each) are
    no such table, and neither is one a merged cell runs across: ``table`` is returned as it is."""
    if header_rows < 1:
        return table
    header = [" ".join(table.cells[r][c].text.lower() for r in range(header_rows)).strip() for c in range(table.n_cols)]
    for width in range(2, table.n_cols // 2 + 1):
        if table.n_cols % width:
            continue
        blocks = [header[i: i + width] for i in range(0, table.n_cols, width)]
        if all(block == blocks[0] for block in blocks) and sum(1 for h in blocks[0] if h) >= 2:
            rows: list[list[DraftCell]] = []
            for i in range(0, table.n_cols, width):
                cells = [list(row[i: i + width]) for row in table.cells]
                if any(cell.span[1] < i or cell.span[3] >= i + width for row in cells for cell in row):
                    return table  # a merged cell crosses the blocks: one table after all
                body = [row for row in cells[header_rows:] if any(cell.text for cell in row)]
                while body and not body[-1][0].text and not any(is_value(cell.text) for cell in body[-1]):
                    body.pop()  # a note under the blocks, cut at their edges ("Source: ...", the rest of its line)
                rows.extend((cells[:header_rows] if i == 0 else []) + body)
            stacked = DraftTable(table.extractor, rows, header_rows, score=table.score, confirmed_by=table.confirmed_by)
            stacked._renumber()
            return stacked
    return table


def drop_prose_columns(table: DraftTable) -> None:
    """Drop edge columns of running text: the neighbouring column of a two-column page layout.

    Such a column holds the lines of a paragraph: long, and many of them carry on a sentence from
    the line before (they start in lower case). Long row labels start afresh on every row.
    """
    for edge in (table.n_cols - 1, 0):
        if table.n_cols < 3:
            return
        texts = [row[edge].text for row in table.cells if row[edge].text]
        sentences = [t for t in texts if len(t.split()) >= 6 and not is_value(t)]
        carried_on = sum(1 for t in texts[1:] if t[:1].islower())
        if len(sentences) >= 3 and len(sentences) >= 0.6 * len(texts) and carried_on >= 0.3 * (len(texts) - 1):
            table.drop_cols([edge])


def drop_slivers(table: DraftTable) -> None:
    """Remove columns and rows that hold no text of their own, only parts of wider merged cells.

    Cell borders drawn a point apart make pymupdf and lattice add a thin column (or row) that every
    merged cell crosses and no cell's text sits in. Its merged cells simply lose that position.
    """
    for axis in ("col", "row"):
        index = 0
        while index < (table.n_cols if axis == "col" else table.n_rows):
            if _is_sliver(table, index, axis):
                _drop_position(table, index, axis)
            else:
                index += 1


def _is_sliver(table: DraftTable, index: int, axis: str) -> bool:
    cells = [row[index] for row in table.cells] if axis == "col" else table.cells[index]
    own = 0
    for cell in cells:
        r0, c0, r1, c1 = cell.span
        wide = (c1 > c0) if axis == "col" else (r1 > r0)
        if cell.text and not wide:
            return False
        own += 1 if wide else 0
    return own > 0 and len(cells) > 1


def _drop_position(table: DraftTable, index: int, axis: str) -> None:
    """Drop one column or row; a merged cell anchored there hands its text to its next position."""
    positions = range(table.n_rows) if axis == "col" else range(table.n_cols)
    for other in positions:
        r, c = (other, index) if axis == "col" else (index, other)
        cell = table.cells[r][c]
        r0, c0, _, _ = cell.span
        if (r0, c0) == (r, c) and cell.text:
            heir = table.cells[r][c + 1] if axis == "col" else table.cells[r + 1][c]
            heir.text, heir.words = cell.text, cell.words
    if axis == "col":
        table.drop_cols([index])
    else:
        table.drop_rows([index])


def unmerge_aligned_spans(table: DraftTable) -> None:
    """Undo a merged cell that runs down several rows when its lines sit one per row, like the rows beside it.

    A column drawn without lines between its body rows comes out as one tall merged cell holding a
    column of figures. When each of its text lines falls in a different row of the table and most are
    figures, or they are the labels of rows of figures one each (``_labels_of_rows``), every line goes back to
    the row it sits in.
    """
    row_edges = [table.row_rect(r) for r in range(table.n_rows)]
    for r in range(table.n_rows):
        for c in range(table.n_cols):
            cell = table.cells[r][c]
            r0, c0, r1, c1 = cell.span
            if (r0, c0) != (r, c) or r1 == r0 or not cell.words:
                continue
            lines = group_lines(cell.words)
            if len(lines) < 2:
                continue
            rows_of = []
            for line in lines:
                centre = sum(w.cy for w in line) / len(line)
                hit = next((i for i in range(r0, r1 + 1) if row_edges[i].y0 <= centre < row_edges[i].y1), None)
                rows_of.append(hit)
            figures = sum(1 for line in lines if any(ch.isdigit() for w in line for ch in w.text))
            if None in rows_of or len(set(rows_of)) != len(rows_of):
                continue
            if figures * 2 < len(lines) and not _labels_of_rows(table, rows_of, r0, r1, c0, c1):
                continue
            for i in range(r0, r1 + 1):
                for k in range(c0, c1 + 1):
                    target = table.cells[i][k]
                    span = (i, c0, i, c1)
                    target.span = span if k == c0 else table.cells[i][c0].span
                    target.rect = pymupdf.Rect(cell.rect.x0, row_edges[i].y0, cell.rect.x1, row_edges[i].y1)
                    target.text, target.words = "", []
            for line, row_index in zip(lines, rows_of):
                anchor = table.cells[row_index or 0][c0]
                anchor.words = list(line)
                anchor.text = cell_text(line)
    table._renumber()


def _labels_of_rows(table: DraftTable, rows_of: list[int | None], r0: int, r1: int, c0: int, c1: int) -> bool:
    """A merged cell of text lines is the labels of the rows it runs down (a label column printed as one block,
    "Salaries", "Fringe Benefits", ... beside a row of figures each) where every row it spans, three at least, holds
    exactly one of its lines and a figure in a column of its own."""
    spanned = range(r0, r1 + 1)
    if len(spanned) < 3 or sorted(i for i in rows_of if i is not None) != list(spanned):
        return False
    return all(any(is_value(table.cells[i][k].text) and table.cells[i][k].span[1] == k
                   for k in range(table.n_cols) if not c0 <= k <= c1 and table.cells[i][k].text)
               for i in spanned)


def unmerge_spread_rows(table: DraftTable) -> None:
    """Undo a merged cell that runs across columns in a row of figures, where its words stand in those columns.

    A ruling line that stops short (or ends a row early) makes lattice extractors merge a body row's first
    cells: "30 Sundargarh" read as one cell over the serial-number and district columns, or a totals row's
    label put in the serial column. When most rows of figures hold those columns apart, and each word of the
    merged cell lies inside one column's span, every word goes back to the column it stands in. A label that
    straddles a column boundary (a heading spread across the row on purpose) stays merged, and so does one
    whose words all stand in one column, unless the merge put it in a column of numbers.
    """
    figure_rows = [r for r in range(table.n_rows) if any(is_value(cell.text) for cell in table.cells[r])]
    for r in figure_rows:
        c = 0
        while c < table.n_cols:
            cell = table.cells[r][c]
            r0, c0, r1, c1 = cell.span
            c = c1 + 1
            if r0 != r1 or c1 == c0 or (r0, c0) != (r, c0) or not cell.words:
                continue
            apart = [other for other in figure_rows
                     if all(table.cells[other][k].span[1] == table.cells[other][k].span[3] == k for k in range(c0, c1 + 1))]
            if len(apart) * 2 < len(figure_rows):
                continue  # the columns are merged in most rows: a layout, not a slip
            spans = [(min(table.cells[o][k].rect.x0 for o in apart), max(table.cells[o][k].rect.x1 for o in apart))
                     for k in range(c0, c1 + 1)]
            columns_of = [next((k for k, (x0, x1) in enumerate(spans) if x0 - 1 <= w.x0 and w.x1 <= x1 + 1), None)
                          for w in cell.words]
            numbered = sum(is_value(table.cells[o][c0].text) for o in apart) * 2 > len(apart)
            if None in columns_of or len(set(columns_of)) < 2 and (columns_of[0] == 0 or not numbered):
                # a word across a boundary, or the words of one column: moved only out of a column of numbers
                # (a totals row's label in the serial-number column), else a label spread on purpose
                continue
            words, box = list(cell.words), pymupdf.Rect(cell.rect)
            for k in range(c0, c1 + 1):
                target = table.cells[r][k]
                x0, x1 = spans[k - c0]
                target.span = (r, k, r, k)
                target.rect = pymupdf.Rect(x0, box.y0, x1, box.y1)
                target.words = [w for w, at in zip(words, columns_of) if at == k - c0]
                target.text = cell_text(target.words)
    table._renumber()
