"""Finding the tables on a page: which extractors run where, and turning the winners into ``ExtractedTable``s.

Extractors cost very different amounts, so each runs only where it can help:

- a page without ruling lines and without columns of figures is prose: no extractor runs (a few ms
  for reading its words and drawings);
- on a page whose vector ruling lines form a grid, camelot lattice runs first, reading those lines
  directly (``engine="vector"``, about 30-40 ms; rendering the page as lattice does by default costs
  300-500 ms and finds no more on such pages); pymupdf ``find_tables`` (40-60 ms) runs only when
  lattice's tables are missing or not clean, or leave ruled areas uncovered;
- camelot stream runs when columns of figures are left outside the clean ruled tables.

The candidates are re-read from the page's words, repaired (``refine``), judged and chosen
(``merge``); the chosen ones are trimmed (``cleanup``), get their header rows (``headers``) and are
mapped back to the page's coordinates.
"""

from __future__ import annotations

import copy
import logging
import re
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import pairwise
from pathlib import Path
from typing import Self

import pymupdf

from core.ingest.extraction.camelot_tables import CamelotReader
from core.ingest.extraction.cleanup import (
    caption_below,
    caption_below_wins,
    drop_running_head,
    find_caption,
    find_caption_below,
    is_numbered_title,
    trim_edges,
)
from core.ingest.extraction.contents import is_contents
from core.ingest.extraction.grid import DraftTable, TableGrid, bounds, read_grid
from core.ingest.extraction.headers import count_header_rows, settle_headers
from core.ingest.extraction.ledger import read_ledgers
from core.ingest.extraction.merge import agreement, drop_empty, quality, select
from core.ingest.extraction.page_text import Word, cell_text, group_lines, strip_superscripts
from core.ingest.extraction.page_view import PageView, Rulings, open_view
from core.ingest.extraction.pymupdf_tables import find_pymupdf_grids
from core.ingest.extraction.refine import (
    drop_slivers,
    extend_upwards,
    join_wrapped_labels,
    phrases_at_columns,
    split_stacked_rows,
    spread_centred_labels,
    stack_side_by_side,
    unmerge_aligned_spans,
    unmerge_spread_rows,
    word_space,
)
from core.ingest.extraction.stitch import stitch_tables
from core.ingest.extraction.values import TITLE_START, is_figure
from core.reports.values import YEAR
from models.types import BBox, CellRef, ExtractedTable

log = logging.getLogger(__name__)

MIN_WORDS = 4
_CURRENCY_SIGN = re.compile(r"[$\u20ac\u00a3\u00a5]")
_LONE_CURRENCY = re.compile(r"^(?:[$\u20ac\u00a3\u00a5]|.*\s[$\u20ac\u00a3\u00a5])$")  # "$" or "12,901 $"
# The two extractors of ruled tables, in the order they are asked; the second only when the first's
# result is missing or not clean. Lattice (vector engine) goes first because it is the cheaper one and,
# on the ICDAR 2013 benchmark, the more accurate.
RULED_ORDER = ("lattice", "pymupdf")
# Camelot lattice reads the ruling lines from the PDF's vector graphics instead of rendering the page.
# Lattice only runs where the page's vector drawings form a grid, so rendering finds no line the vector
# engine misses (measured on ICDAR 2013: cell F1 0.562 alone against 0.571 rendered, 9 times faster).
LATTICE_ENGINE = "vector"
# Columns of numbers: lines with at least two numbers set apart, right edges aligned down the page.
MIN_VALUE_LINES = 3
# How far above a statement its header may print figures (periods, dates), in word heights.
HEADER_REACH = 3.0
_FIGURE_KEY = re.compile(r"[\s$\u20ac\u00a3\u00a5]")


def _bbox(rect: pymupdf.Rect) -> BBox:
    return (float(rect.x0), float(rect.y0), float(rect.x1), float(rect.y1))


def native_table(grid: TableGrid, view: PageView) -> ExtractedTable | None:
    """An extractor's table with its own cell text, untouched (the benchmark's single-extractor baseline)."""
    if grid.native_text is None or grid.n_rows < 1 or grid.n_cols < 1:
        return None
    rows = [[" ".join(str(t or "").split()) for t in row[: grid.n_cols]] for row in grid.native_text[: grid.n_rows]]
    rows = [row + [""] * (grid.n_cols - len(row)) for row in rows]
    anchors = grid.anchors()
    cells = []
    for r in range(len(rows)):
        refs = []
        for c in range(grid.n_cols):
            r0, c0, r1, c1 = anchors.get((r, c), (r, c, r, c))
            rect = pymupdf.Rect(grid.x_edges[c0], grid.y_edges[r0], grid.x_edges[c1 + 1], grid.y_edges[r1 + 1])
            refs.append(CellRef(r, c, view.number, _bbox(view.map_rect(rect))))
        cells.append(tuple(refs))
    return ExtractedTable(
        page=view.number,
        bbox=_bbox(view.map_rect(grid.rect)),
        rows=tuple(tuple(row) for row in rows),
        header_rows=0,
        cells=tuple(cells),
        extractor=grid.extractor,
        pages=(view.number,),
    )


class FigureLayout:
    """A page's lines cut into pieces at gaps wider than a word space, found once per page: whether the page
    has figures set out in columns is asked of it several times (may it hold ledgers; are figures left
    outside its statements; outside its clean ruled tables), each time leaving other boxes out."""

    def __init__(self, words: Sequence[Word]) -> None:
        self.lines: list[list[list[Word]]] = []
        for line in group_lines(words):
            pieces: list[list[Word]] = [[line[0]]]
            for left, right in pairwise(line):
                if right.x0 - left.x1 > 0.8 * min(left.height, right.height):
                    pieces.append([right])
                else:
                    pieces[-1].append(right)
            if sum(1 for p in pieces if _is_figure_piece(p)) >= 2:  # the only lines that can count
                self.lines.append(pieces)

    def held_by(self, table: ExtractedTable, rect: pymupdf.Rect, reach: float) -> bool:
        """Whether ``table`` (read from the words inside ``rect``) holds every figure printed in ``rect`` or up to
        ``reach`` above it: in a cell of its own (compared as text, spaces and currency signs aside), or, for a
        figure of a heading ("Level 1", "Dec. 31,"), within one of its header cells."""
        area = pymupdf.Rect(rect.x0 - 1, rect.y0 - reach, rect.x1 + 1, rect.y1 + 1)
        printed = Counter(
            _FIGURE_KEY.sub("", " ".join(w.text for w in piece))
            for pieces in self.lines for piece in pieces
            if _is_figure_piece(piece) and any(area.contains(pymupdf.Point(w.cx, w.cy)) for w in piece)
        )
        held = Counter(_FIGURE_KEY.sub("", cell) for row in table.rows for cell in row if cell)
        headers = "\n".join(_FIGURE_KEY.sub("", cell) for row in table.rows[: table.header_rows] for cell in row)
        return all(figure in headers for figure in printed - held)

    def has_value_columns(self, outside: Sequence[pymupdf.Rect] = ()) -> bool:
        """Whether the page has figures set out in columns, outside the ``outside`` boxes.

        A short piece with a digit is a figure. It takes three lines with two figures each, and two columns
        where such figures line up (left or right edges), to call it columns of figures rather than prose
        that mentions numbers.
        """
        edges: Counter[tuple[str, int]] = Counter()
        value_lines = 0
        for pieces in self.lines:
            if outside:
                pieces = [kept for p in pieces if (kept := [w for w in p if not any(w.centre_in(b) for b in outside)])]
            figures = [p for p in pieces if _is_figure_piece(p)]
            if len(figures) >= 2:
                value_lines += 1
                edges.update({("right", round(p[-1].x1 / 4)) for p in figures})
                edges.update({("left", round(p[0].x0 / 4)) for p in figures})
        if value_lines < MIN_VALUE_LINES:
            return False
        aligned = {
            edge for (side, edge), n in edges.items()
            if n + edges.get((side, edge + 1), 0) >= MIN_VALUE_LINES
        }
        return len(aligned) >= 2


def _is_figure_piece(piece: Sequence[Word]) -> bool:
    return len(piece) <= 4 and any(ch.isdigit() for w in piece for ch in w.text)


def has_value_columns(words: Sequence[Word], outside: Sequence[pymupdf.Rect] = ()) -> bool:
    """Whether the page has figures set out in columns (outside the ``outside`` boxes); see ``FigureLayout``."""
    return FigureLayout(words).has_value_columns(outside)


class TableExtractor:
    """Finds tables page by page in one open document. Not thread-safe: one per worker. ``close`` it
    when the document is done (camelot keeps the file open between pages)."""

    def __init__(self, pdf_path: Path, doc: pymupdf.Document, password: str | None = None) -> None:
        self.pdf_path = Path(pdf_path)
        self.doc = doc
        self.password = password
        self.camelot = CamelotReader()

    def close(self) -> None:
        self.camelot.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def page_tables(self, page_number: int) -> list[ExtractedTable]:
        """Tables found on one page, best result per table region."""
        if not 1 <= page_number <= self.doc.page_count:
            return []
        try:
            view = open_view(self.doc, self.pdf_path, page_number, self.password)
        except Exception as exc:  # noqa: BLE001 - an unreadable page has no tables; the rest of the document still does
            log.warning("%s page %d: cannot read page (%s)", self.pdf_path.name, page_number, exc)
            return []
        try:
            figures = FigureLayout(view.words)
            may_hold_ledgers = len(view.words) >= MIN_WORDS and figures.has_value_columns()
            ledgers = read_ledgers(view.words, view.number, view.map_rect) if may_hold_ledgers else []
            statements = [(table, rect) for table, rect in ledgers if _has_currency(table)]
            # Where every figure of the page is in ledgers printing currency signs, and each holds every figure printed
            # within it and in the lines just above it (its header), the page is a statement read whole: the generic
            # extractors (half a second a page on filings) are not asked. Where a ledger lost a figure (a sparse
            # column taken into the labels, its last row or its header left out), the borderless extractor reads the
            # page too and ``prefer_ledgers`` keeps the better reading (TAT-QA held out: cell F1 0.959 with
            # statements trusted unchecked, 0.971 checked). On a page with ruling lines drawn as a grid, a ledger with one
            # column cut in two (left-aligned figures in drawn cells), or printed in a ruled grid (``_drawn_as_grid``), is
            # not trusted alone: lattice reads the drawn columns (read by ledgers alone, two stacked ruled tables printing
            # "$" were run together by stream). A filing's statement with lines around some of its parts stays alone.
            verticals = view.rulings.vertical if view.rulings.has_grid else ()

            def in_grid(ledger: ExtractedTable) -> bool:
                return _drawn_as_grid(ledger, verticals, view.view_rect)

            alone = (bool(statements) and not any(_split_column(t) or in_grid(t) for t, _ in statements if verticals)
                     and not figures.has_value_columns([rect for _, rect in statements]))
            whole = alone and all(figures.held_by(table, rect, HEADER_REACH * statistics.median(w.height for w in view.words))
                                  for table, rect in statements)
            drafts = [] if whole else self._choose(view, figures, may_hold_ledgers, ruled_too=not alone)
            others = [d.text_rect() for d in drafts]
            edges = [self._trim(draft, view, [o for o in others if o != draft.text_rect()]) for draft in drafts]
            # titles are looked for around the tables as trimmed: a title read into the top of the table under it
            # stands outside that table now
            kept = [(draft, title, units) for draft, (title, units) in zip(drafts, edges, strict=True)
                    if draft.n_rows >= 2 and draft.n_cols >= 2]
            bodies = [draft.text_rect() for draft, _, _ in kept]
            tables: list[ExtractedTable] = []
            for draft, title, units in kept:
                box = draft.text_rect()
                tables.extend(self._finish(draft, view, title, units, [b for b in bodies if b != box]))
            tables = prefer_ledgers(tables, [t for t, _ in ledgers], in_grid)
            # A table of contents is laid out like a table but holds no data: its text stays prose.
            return sorted((t for t in tables if not is_contents(t)), key=lambda t: (t.bbox[1], t.bbox[0]))
        except Exception:  # odd pages must never stop ingestion; the page simply yields no table
            log.warning("%s page %d: table extraction failed", self.pdf_path.name, page_number, exc_info=True)
            return []
        finally:
            view.close()

    # --------------------------------------------------------------------------------- candidates
    def _read(self, grids: Sequence[TableGrid], view: PageView) -> list[DraftTable]:
        """Fill each grid with the page's text: words for ruled grids; whole phrases for borderless ones,
        whose column boundaries are inferred and may fall between two words of one cell."""
        drafts = []
        space = word_space(view.words) if any(g.extractor.endswith("stream") for g in grids) else 0.0
        for grid in grids:
            stream = grid.extractor.endswith("stream")
            units = phrases_at_columns(view.phrases, grid.x_edges, space) if stream else view.words
            draft = read_grid(grid, units)
            if draft is None:
                continue
            unmerge_aligned_spans(draft)
            unmerge_spread_rows(draft)
            split_stacked_rows(draft)
            drop_slivers(draft)
            if grid.extractor.endswith("stream"):
                join_wrapped_labels(draft)
            drop_empty(draft)
            if draft.n_rows >= 2 and draft.n_cols >= 2:
                drafts.append(draft)
        return drafts

    def _choose(self, view: PageView, figures: FigureLayout, any_figures: bool, *, ruled_too: bool = True) -> list[DraftTable]:
        """The best candidate tables of the page; ``any_figures`` says whether it has columns of figures at all;
        without ``ruled_too``, only the borderless extractor is asked."""
        words = view.words
        if len(words) < MIN_WORDS:
            return []
        page = view.page
        candidates: list[DraftTable] = []
        rulings = view.rulings
        if ruled_too and rulings.has_grid:
            first, second = RULED_ORDER
            ruled = self._read(self._ruled(first, view), view)
            candidates.extend(ruled)
            if self._second_opinion_helps(ruled, rulings):
                candidates.extend(self._read(self._ruled(second, view), view))
        covered = [d.text_rect() for d in candidates if quality(d, agreement(d, candidates)).clean]
        if figures.has_value_columns(covered) if covered else any_figures:
            candidates.extend(
                self._read(self.camelot.grids(view.source, view.source_page, page, "stream", view.password), view)
            )
        if not candidates:
            return []
        for candidate in list(candidates):
            # judged without the running head read into its top row: a page's head over a table lowers the whole
            # table's score below a piece of it that another candidate holds, and the table is cut in two
            drop_running_head(candidate, page)
            # and judged with and without a numbered caption under its rows and what follows it: the prose after a
            # caption (references, the next section) would sink a table of a few rows below the score of a table at
            # all, while the rows after a caption may be the next table's
            caption = caption_below(candidate)
            if caption is not None:  # (a caption stands at row 2 or lower: two rows at least are left)
                trimmed = copy.deepcopy(candidate)
                trimmed.drop_rows(list(range(caption, trimmed.n_rows)))
                candidates.append(trimmed)
        chosen = select(candidates)
        for draft in chosen:
            draft.confirmed_by = sorted(
                {c.extractor for c in candidates if c.extractor != draft.extractor and agreement(draft, [c]) >= 0.8}
            )
        return chosen

    def _ruled(self, extractor: str, view: PageView) -> list[TableGrid]:
        if extractor == "pymupdf":
            return find_pymupdf_grids(view.page)
        return self.camelot.grids(
            view.source, view.source_page, view.page, "lattice", view.password, engine=LATTICE_ENGINE
        )

    @staticmethod
    def _second_opinion_helps(ruled: Sequence[DraftTable], rulings: Rulings) -> bool:
        """Ask the other ruled-table extractor unless the first one's tables are clean and cover every ruled area."""
        if not ruled or not all(quality(d).clean for d in ruled):
            return True
        boxes = [d.rect + (-3, -3, 3, 3) for d in ruled]
        loose = [
            v for v in rulings.vertical
            if not any(b.x0 <= v.x0 and v.x1 <= b.x1 and b.y0 <= v.y0 and v.y1 <= b.y1 for b in boxes)
        ]
        return len(loose) >= 2

    # ------------------------------------------------------------------------------------ results
    def _trim(self, draft: DraftTable, view: PageView, others: Sequence[pymupdf.Rect]) -> tuple[str, str]:
        """Strip footnote markers, read back the rows a borderless reader missed above, and trim the edges; return
        the title and units lines taken off the top."""
        self._strip_markers(draft, view)
        if draft.extractor.endswith("stream"):
            extend_upwards(draft, view.words, list(others))
        return trim_edges(draft, view.page)

    def _finish(self, draft: DraftTable, view: PageView, title: str, units: str,
                others: Sequence[pymupdf.Rect]) -> list[ExtractedTable]:
        """Settle the caption (``title`` and ``units`` were taken off the trimmed table's top), stack side-by-side
        blocks into one table, settle headers, and map back to page coordinates."""
        if not TITLE_START.match(title):
            # no title in the table's top rows, or only the last line of one ("suicides." under "Table 2.3: Mortality
            # rates ... from male"): the title standing above
            box = draft.text_rect()
            above = pymupdf.Rect(view.page.rect.x0, max(view.page.rect.y0, box.y0 - 80), view.page.rect.x1, box.y0)
            found = find_caption(draft, view.words, others, view.superscripts(above))
            if not title or is_numbered_title(found) and title in found:
                title = found
        if not TITLE_START.match(title):
            # no numbered title above (a line of prose, or nothing): a "Table 3: ..." set under the table is its title
            title = find_caption_below(draft, view.words, view.page.rect, others) or title
        else:
            # the numbered title above is the one under the table above, where this table has its own under it
            title = caption_below_wins(draft, view.words, view.page.rect, others) or title
        caption = title
        if units and units not in caption:
            caption = f"{caption} {units}".strip()
        spread_centred_labels(draft, count_header_rows(draft))
        table = stack_side_by_side(draft, count_header_rows(draft))
        drop_empty(table)
        if table.n_rows < 2 or table.n_cols < 2:
            return []
        settle_headers(table, view.rulings.vertical)
        table.caption = caption
        return [self._to_table(table, view)]

    @staticmethod
    def _to_table(draft: DraftTable, view: PageView) -> ExtractedTable:
        rows = tuple(tuple(cell.text for cell in row) for row in draft.cells)
        cells = []
        for r, row in enumerate(draft.cells):
            refs = []
            for c, cell in enumerate(row):
                box = bounds([cell.rect] + [word.box for word in cell.words])
                refs.append(CellRef(r, c, view.number, _bbox(view.map_rect(box))))
            cells.append(tuple(refs))
        bbox = bounds(ref.bbox for row in cells for ref in row)
        names = [draft.extractor] + draft.confirmed_by
        return ExtractedTable(
            page=view.number,
            bbox=_bbox(bbox),
            rows=rows,
            header_rows=draft.header_rows,
            cells=tuple(cells),
            caption=draft.caption,
            extractor="+".join(names),
            pages=(view.number,),
            score=round(draft.score, 3),
        )

    @staticmethod
    def _strip_markers(draft: DraftTable, view: PageView) -> None:
        """Remove superscript footnote markers from the cells' text."""
        markers = view.superscripts(draft.rect)
        if not markers:
            return
        for row in draft.cells:
            for cell in row:
                if cell.words:
                    kept = strip_superscripts(cell.words, markers)
                    if len(kept) != len(cell.words) or any(a.text != b.text for a, b in zip(kept, cell.words)):
                        cell.words = kept
                        cell.text = cell_text(kept)


def _area(box: BBox) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def _overlap(a: BBox, b: BBox) -> float:
    return _area((max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])))


def _figure_rows(table: ExtractedTable) -> int:
    return sum(1 for row in table.rows[table.header_rows:] if any(is_figure(c) for c in row[1:]))


def _figure_cells(table: ExtractedTable) -> int:
    return sum(1 for row in table.rows[table.header_rows:] for cell in row[1:] if is_figure(cell))


def _figure_columns(table: ExtractedTable) -> int:
    body = table.rows[table.header_rows:]
    return sum(1 for c in range(1, table.n_cols) if any(c < len(row) and is_figure(row[c]) for row in body))


def _has_currency(table: ExtractedTable) -> bool:
    return any(_CURRENCY_SIGN.search(cell) for row in table.rows[table.header_rows:] for cell in row[1:])


def _has_period_header(table: ExtractedTable) -> bool:
    """Its columns are headed by periods ("2020 2019 2018"): a statement, even without currency signs."""
    header = [cell for row in table.rows[: table.header_rows] for cell in row[1:]]
    return sum(1 for cell in header if YEAR.search(cell)) >= 2


def _split_column(table: ExtractedTable) -> bool:
    """Two neighbouring columns that are one column cut in two: each filled in some rows, never both in one row
    (a period's figures read as two columns where its "$" signs shift some of them)."""
    body = table.rows[table.header_rows:]
    filled = [[c < len(row) and bool(row[c].strip()) for row in body] for c in range(table.n_cols)]
    return any(sum(left) >= 2 and sum(right) >= 2 and not any(a and b for a, b in zip(left, right, strict=True))
               for left, right in pairwise(filled[1:]))


def _drawn_as_grid(table: ExtractedTable, verticals: Sequence[pymupdf.Rect],
                   to_view: Callable[[BBox], pymupdf.Rect]) -> bool:
    """Whether the ledger is printed in a ruled grid: a drawn vertical rule parts its row labels from its figures and,
    where it has several columns of figures, another runs between two of them, each crossing at least half its rows
    of figures. Its other columns may lie within one drawn cell (a figure and its share in brackets, thousands set
    apart by a space): the grid's lines, not the ledger's gaps, say where its columns are. A filing's statement
    drawn with lines around some of its parts, or with shaded cells parted by white lines, has no rule between
    its labels and its figures. ``verticals`` are in the page view's coordinates, the table's boxes in the page's:
    ``to_view`` takes them there (a landscape table on a rotated page)."""
    if not verticals:
        return False
    rows = [r for r in range(table.header_rows, table.n_rows) if any(is_figure(cell) for cell in table.rows[r][1:])]
    columns = [c for c in range(1, table.n_cols) if any(is_figure(table.rows[r][c]) for r in rows)]

    def span(c: int, filled: Callable[[str], bool]) -> tuple[float, float] | None:
        boxes = [to_view(ref.bbox) for r in rows if filled(table.rows[r][c]) and (ref := table.cells[r][c]) is not None]
        return (min(b.x0 for b in boxes), max(b.x1 for b in boxes)) if boxes else None

    middles = [(box.y0 + box.y1) / 2 for r in rows if (ref := table.cells[r][0]) is not None and (box := to_view(ref.bbox))]
    if not columns or not middles:
        return False

    def ruled(left: tuple[float, float] | None, right: tuple[float, float] | None) -> bool:
        if left is None or right is None:
            return False
        rules = [v for v in verticals if left[1] - 1 <= (v.x0 + v.x1) / 2 <= right[0] + 1]
        return sum(1 for y in middles if any(v.y0 - 1 <= y <= v.y1 + 1 for v in rules)) * 2 >= len(rows)

    if not ruled(span(0, lambda text: bool(text.strip())), span(columns[0], is_figure)):
        return False  # checked first: the rule filings lack
    return len(columns) == 1 or any(ruled(left, right) for left, right in pairwise(span(c, is_figure) for c in columns))


def _is_ruled(table: ExtractedTable) -> bool:
    """Read along drawn ruling lines (lattice or find_tables), not from gaps between words."""
    return table.extractor.split("+")[0] in ("camelot-lattice", "pymupdf")


def _reads_worse(generic: Sequence[ExtractedTable], ledger: ExtractedTable, drawn: bool = False) -> bool:
    """Whether generic extractors' tables are a broken reading of a statement the ledger reader read
    whole: a currency sign in a cell of its own (a "$" column, or rows shifted by one), one period's
    figures split over two columns beside currency signs (more figure columns than the ledger's, two of them one
    column cut in two: a table that simply has more figure columns than the ledger read keeps them), or most of
    its rows missing; or, for a statement (a ledger printing currency signs), fewer of its figures than the
    ledger read (the generic extractor stopped short of its last lines). One table read along drawn ruling lines that holds
    at least as many figures as the ledger is broken only by a lone currency cell: its columns are drawn, where the
    ledger's are inferred from gaps; so are ruled tables, however many, reading a ledger printed in a ruled grid
    (``drawn``)."""
    if any(_LONE_CURRENCY.match(cell) for table in generic for row in table.rows[table.header_rows:] for cell in row):
        return True
    if drawn and all(_is_ruled(t) for t in generic):
        return False
    if len(generic) == 1 and _is_ruled(generic[0]) and _figure_cells(generic[0]) >= _figure_cells(ledger):
        return False  # one ruled table holding the ledger's figures: its columns are drawn, not inferred from gaps
    for table in generic:
        if _has_currency(table) and _figure_columns(table) > _figure_columns(ledger) and _split_column(table):
            return True
    if _has_currency(ledger) and sum(_figure_cells(t) for t in generic) <= _figure_cells(ledger):
        return True
    return sum(_figure_rows(t) for t in generic) * 3 < _figure_rows(ledger) * 2


def prefer_ledgers(generic: list[ExtractedTable], ledgers: list[ExtractedTable],
                   in_grid: Callable[[ExtractedTable], bool] = lambda ledger: False) -> list[ExtractedTable]:
    """The page's tables: each ledger replaces the generic tables it overlaps when they read it worse
    (see ``_reads_worse``; ``in_grid`` says which ledgers are printed in a ruled grid); where no generic table was found, a ledger that prints currency signs or heads its columns with periods
    (a statement) stands alone."""
    kept = list(generic)
    chosen: list[ExtractedTable] = []
    for ledger in ledgers:
        overlapping = [t for t in kept if _overlap(t.bbox, ledger.bbox) > 0.3 * min(_area(t.bbox), _area(ledger.bbox))]
        if (overlapping and _reads_worse(overlapping, ledger, in_grid(ledger))
                or not overlapping and (_has_currency(ledger) or _has_period_header(ledger))):
            chosen.append(ledger)
            kept = [t for t in kept if t not in overlapping]
    return kept + chosen


def extract_tables(pdf_path: Path, password: str | None = None) -> list[ExtractedTable]:
    """Whole document: open, every page, stitch. Used by ``folio tables --json``."""
    path = Path(pdf_path)
    doc = pymupdf.open(str(path))
    try:
        if doc.needs_pass and not doc.authenticate(password or ""):
            return []
        found: list[ExtractedTable] = []
        with TableExtractor(path, doc, password) as extractor:
            for number in range(1, doc.page_count + 1):
                found.extend(extractor.page_tables(number))
        return stitch_tables(found)
    finally:
        doc.close()
