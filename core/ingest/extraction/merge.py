"""Judging candidate tables and keeping the best one per table region.

Every candidate (from pymupdf, camelot lattice or camelot stream) has been re-read from the same page
words, so they are compared on the same text. A candidate scores well when its cells are filled, its
columns hold consistent values (numeric columns especially), it holds no running text (a phrase
running over column boundaries: a paragraph or a title, not a table row), and when another extractor
found the same cells. Candidates are accepted best first; one that overlaps an accepted
table loses the overlapping rows, and what is left must still pass on its own.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise

import pymupdf

from core.ingest.extraction.grid import DraftCell, DraftTable
from core.ingest.extraction.headers import count_header_rows
from core.ingest.extraction.page_text import Word, group_lines, phrases
from core.ingest.extraction.refine import drop_prose_columns
from core.ingest.extraction.values import is_figure, is_null_marker, is_value

# Extractors that follow ruling lines are exact where they apply; stream infers columns from text.
EXTRACTOR_PRIOR = {"pymupdf": 0.1, "camelot-lattice": 0.1, "camelot-stream": 0.0}
MIN_SCORE = 0.45
CLEAN_SCORE = 0.75


@dataclass(frozen=True)
class Quality:
    """Why a candidate scored what it did (kept for debugging and tests)."""

    fill: float
    prose_rows: float
    value_columns: int
    single_rows: float
    crowded_cells: int
    agreement: float
    score: float

    @property
    def clean(self) -> bool:
        """Good enough that no other extractor needs to be asked."""
        return self.score >= CLEAN_SCORE and self.fill >= 0.6 and not self.prose_rows and not self.crowded_cells


def crossing_phrases(table: DraftTable, r: int) -> list[list[Word]]:
    """Phrases of row ``r`` that run over a column boundary (outside a merged cell). Cells that start with the same
    word ("Day 14" | "Day 20", headers of a repeated group set a word space apart) are never one phrase."""
    row = table.cells[r]
    cells = [cell for c, cell in enumerate(row) if not table.is_merged_copy(r, c) and cell.words]
    words = [w for cell in cells for w in cell.words]
    heads = Counter(cell.words[0].text for cell in cells)
    repeated = {id(cell.words[0]) for cell in cells if heads[cell.words[0].text] >= 2}
    out = []
    for phrase in (part for whole in phrases(words) for part in _cut_before(whole, repeated)):
        x0, x1 = min(w.x0 for w in phrase), max(w.x1 for w in phrase)
        touched = {
            cell.span for cell in row
            if min(x1, cell.rect.x1) - max(x0, cell.rect.x0) > min(3.0, 0.25 * (cell.rect.x1 - cell.rect.x0))
        }
        if len(touched) > 1 and not all(is_value(w.text) for w in phrase):
            out.append(phrase)
    return out


def _cut_before(phrase: list[Word], marks: set[int]) -> list[list[Word]]:
    """``phrase`` cut before each of its words whose id is in ``marks``."""
    parts: list[list[Word]] = []
    for w in phrase:
        if not parts or id(w) in marks:
            parts.append([w])
        else:
            parts[-1].append(w)
    return parts


def prose_rows(table: DraftTable, side_by_side: bool = False) -> list[int]:
    """Rows that read as running text: a long phrase over column boundaries, or one long sentence alone.

    With ``side_by_side`` (for borderless tables, where no ruling line vouches for a long cell), rows
    whose every cell is a sentence also count (the lines of a two-column page layout, which borderless
    detection reads as a table of two text columns), and so do rows without values that hold a
    sentence-long cell.
    """
    rows = []
    for r, row in enumerate(table.cells):
        crossing = crossing_phrases(table, r)
        filled = [cell.text for c, cell in enumerate(row) if cell.text and not table.is_merged_copy(r, c)]
        if (
            any(len(p) >= 5 for p in crossing)
            or (len(filled) == 1 and len(filled[0].split()) >= 8)
            or (side_by_side and any(len(t.split()) >= 12 for t in filled) and not any(is_value(t) for t in filled))
            or (side_by_side and len(filled) >= 2 and all(len(t.split()) >= 6 and not is_value(t) for t in filled))
        ):
            rows.append(r)
    return rows


def crowded_cells(table: DraftTable) -> int:
    """Cells holding several values side by side, set apart by wide gaps: columns the grid missed."""
    count = 0
    for r, row in enumerate(table.cells):
        for c, cell in enumerate(row):
            if len(cell.words) < 2 or table.is_merged_copy(r, c):
                continue
            for line in group_lines(cell.words):
                values = 0
                for a, b in pairwise(line):
                    if b.x0 - a.x1 > 1.0 * min(a.height, b.height) and is_value(a.text) and is_value(b.text):
                        values += 1
                if values:
                    count += 1
                    break
    return count


def _nonempty(row: Sequence[DraftCell]) -> int:
    return sum(1 for cell in row if cell.text)


def value_columns(table: DraftTable) -> int:
    """Columns (beyond the first) whose filled body cells are mostly figures or missing-value marks."""
    count = 0
    body = table.header_rows or count_header_rows(table)
    for c in range(1, table.n_cols):
        texts = [table.cells[r][c].text for r in range(body, table.n_rows) if table.cells[r][c].text]
        mostly_figures = len(texts) >= 2 and sum(1 for t in texts if is_figure(t)) >= 0.6 * len(texts)
        if mostly_figures and (any(any(ch.isdigit() for ch in t) for t in texts) or all(is_null_marker(t) for t in texts)):
            count += 1
    return count


_BULLET = re.compile(r"^([\u2022\u25aa\u25ab\u25e6\u25cf\u25cb\u25a0\u25a1\u27a2\u25ba\u2023\u2043\u2219\u00b7o\-\u2013*]|\d{1,2}[.)]|[a-z][.)]|\([a-z0-9]{1,3}\))$", re.IGNORECASE)


def is_list(table: DraftTable) -> bool:
    """A bulleted or numbered list laid out as two columns: markers on the left, sentences on the right."""
    for c in range(table.n_cols - 1):
        markers = [row[c].text for row in table.cells if row[c].text]
        if len(markers) >= 2 and all(_BULLET.match(t) for t in markers):
            following = [row[c + 1].text for row in table.cells if row[c + 1].text]
            if following and sum(1 for t in following if len(t.split()) >= 4) >= 0.5 * len(following):
                return True
    return False


def axis_columns(table: DraftTable) -> int:
    """Columns of evenly spaced numbers with little beside them: the tick labels of a chart."""
    count = 0
    for c in range(table.n_cols):
        numbers = []
        for row in table.cells:
            text = row[c].text.replace(",", "")
            try:
                numbers.append(float(text))
            except ValueError:
                continue
        if len(numbers) >= 4:
            steps = {round(b - a, 6) for a, b in pairwise(numbers)}
            if len(steps) == 1 and 0 not in steps:
                count += 1
    return count


def quality(table: DraftTable, agreement: float = 0.0) -> Quality:
    rows, cols = table.n_rows, table.n_cols
    if rows < 2 or cols < 2 or is_list(table):
        return Quality(0, 1, 0, 1, 0, agreement, 0.0)
    total = rows * cols
    filled = sum(_nonempty(row) for row in table.cells) / total
    prose = len(prose_rows(table)) / rows
    values = value_columns(table)
    single = sum(1 for row in table.cells if _nonempty(row) <= 1) / rows
    long_cells = sum(1 for row in table.cells for cell in row if len(cell.text) > 120)
    crowded = crowded_cells(table)
    score = (
        0.35 * min(1.0, filled / 0.8)
        + 0.25 * (1 - min(1.0, 3 * prose))
        + 0.2 * min(1.0, values / 2)
        + 0.1 * (1 - single)
        + 0.1 * agreement
        + EXTRACTOR_PRIOR.get(table.extractor, 0.0)
        + 0.05 * min(1.0, (rows - 2) / 8)  # more rows of the same shape: more evidence of a table
        - 0.05 * long_cells
        - 0.4 * min(1.0, 3 * crowded / max(1, rows * cols * filled))
    )
    if cols == 2 and values == 0:
        score -= 0.15  # two columns of words are usually a list or a form, not a table
    if values == 0 and table.extractor.endswith("stream"):
        score -= 0.25  # without ruling lines or figures, aligned words are most often a page layout
    if filled < 0.6 and axis_columns(table):
        score -= 0.5  # the scale of a chart
    return Quality(filled, prose, values, single, crowded, agreement, score)


def agreement(table: DraftTable, others: Iterable[DraftTable]) -> float:
    """Share of this table's filled cells that another extractor's overlapping table has at the same place."""
    mine = _cell_set(table)
    if not mine:
        return 0.0
    mine_box = table.rect
    best = 0.0
    for other in others:
        if other is table or other.extractor == table.extractor:
            continue
        if not mine_box.intersects(other.rect):
            continue
        theirs = _cell_set(other)
        best = max(best, len(mine & theirs) / max(len(mine), len(theirs)))
    return best


def _cell_set(table: DraftTable) -> set[tuple[int, str]]:
    """Filled cells keyed by text and rounded position, so different grids can be compared."""
    out = set()
    for r, row in enumerate(table.cells):
        for c, cell in enumerate(row):
            if cell.text and cell.words and not table.is_merged_copy(r, c):
                out.add((round(min(w.y0 for w in cell.words) / 4), cell.text))
    return out


def split_rows(table: DraftTable, breaks: Iterable[int]) -> list[DraftTable]:
    """The runs of rows between the ``breaks`` rows, each as its own table (empty columns dropped)."""
    doomed = set(breaks)
    parts: list[DraftTable] = []
    run: list[int] = []
    for r in range(table.n_rows + 1):
        if r < table.n_rows and r not in doomed:
            run.append(r)
            continue
        if run:
            part = DraftTable(table.extractor, [list(table.cells[i]) for i in run])
            part.caption = table.caption if run[0] == 0 else ""
            part._renumber()
            drop_empty(part)
            parts.append(part)
        run = []
    return parts


def drop_empty(table: DraftTable) -> None:
    """Remove rows and columns without any text."""
    table.drop_rows([r for r, row in enumerate(table.cells) if not any(cell.text for cell in row)])
    if table.cells:
        table.drop_cols([c for c in range(table.n_cols) if not any(row[c].text for row in table.cells)])


def overlap(a: pymupdf.Rect, b: pymupdf.Rect) -> float:
    """Intersection over the smaller box."""
    inter = a & b
    if inter.is_empty:
        return 0.0
    return abs(inter) / max(min(abs(a), abs(b)), 1e-6)


def _prose_breaks(table: DraftTable) -> list[int]:
    """Prose rows to cut a borderless table at: those at its top or bottom, and runs of two or more.

    A single long line between rows of figures is a section label ("Child feeding practices (%)"),
    not a paragraph, and stays.
    """
    prose = set(prose_rows(table, side_by_side=True))
    breaks = []
    for r in sorted(prose):
        at_edge = all(i in prose for i in range(r)) or all(i in prose for i in range(r + 1, table.n_rows))
        in_run = (r - 1) in prose or (r + 1) in prose
        if at_edge or in_run:
            breaks.append(r)
    return breaks


def split_prose(candidates: Sequence[DraftTable]) -> list[DraftTable]:
    """Stream candidates cut at rows of running text, which only borderless detection takes in."""
    out: list[DraftTable] = []
    for table in candidates:
        if not table.extractor.endswith("stream"):
            out.append(table)
            continue
        drop_prose_columns(table)
        drop_empty(table)
        breaks = _prose_breaks(table)
        if not breaks:
            out.append(table)
            continue
        out.extend(part for part in split_rows(table, breaks) if part.n_rows >= 2 and part.n_cols >= 2)
    return out


def select(candidates: Sequence[DraftTable]) -> list[DraftTable]:
    """Best candidates first; a candidate overlapping an accepted table keeps only its other rows."""
    candidates = split_prose(candidates)
    for table in candidates:
        table.score = quality(table, agreement(table, candidates)).score
    pending = sorted(candidates, key=lambda t: -t.score)
    accepted: list[DraftTable] = []
    while pending:
        table = pending.pop(0)
        if table.score < MIN_SCORE:
            continue
        taken = [a.text_rect() for a in accepted]
        clash = [r for r in range(table.n_rows)
                 if any(overlap(table.row_rect(r), box) > 0.3 for box in taken) or _words_taken(table, r, taken)]
        if not clash:
            accepted.append(table)
            continue
        for part in split_rows(table, clash):
            if part.n_rows >= 2 and part.n_cols >= 2 and not any(overlap(part.text_rect(), box) > 0.3 for box in taken):
                part.score = quality(part).score
                pending.append(part)
        pending.sort(key=lambda t: -t.score)
    return sorted(accepted, key=lambda t: (t.rect.y0, t.rect.x0))


def _words_taken(table: DraftTable, r: int, taken: Sequence[pymupdf.Rect]) -> bool:
    """Whether most of row ``r``'s filled cells stand inside tables already accepted: a word is printed in one table
    only. (A ruled outline drawn round a table and a chart beside it reads the table's rows again, with a wide cell of
    the chart's labels; its rows' boxes cover the table too little to clash by their area.)"""
    cells = [cell for cell in table.cells[r] if cell.words]
    inside = sum(1 for cell in cells
                 if all(any(box.contains(pymupdf.Point(w.cx, w.cy)) for box in taken) for w in cell.words))
    return 2 * inside > len(cells)


def median_row_height(table: DraftTable) -> float:
    heights = [w.height for row in table.cells for cell in row for w in cell.words]
    return statistics.median(heights) if heights else 10.0
