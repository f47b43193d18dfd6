"""Building realistic report PDFs with pymupdf: flowing prose, headings and tables over pages.

Owns the PDFs that tests, benchmarks and the shipped sample are made of. ``build_report`` lays out
given blocks (paragraphs, headings, tables) and returns where every table row and cell landed, so
extraction can be checked against the truth; ``build_generated_report`` writes a deterministic
synthetic annual report of a requested length. Only base-14 Helvetica is used (no font files).

Tables look like report tables: ruled ones get cell borders, borderless ones no lines at all;
numbers are right-aligned; an upper header cell followed by empty cells spans them ("Years ended
December 31," over the years); a table too long for the page continues on the next one under a
repeated header.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

import pymupdf

from core.reports.values import is_null_text, parse_number

BBox = tuple[float, float, float, float]

PAGE_A4 = (595.0, 842.0)
MARGIN_X = 60.0
MARGIN_TOP = 64.0
MARGIN_BOTTOM = 60.0
BODY_SIZE = 10.0
BODY_LEADING = 13.5
TABLE_SIZE = 9.0
CELL_PAD_X = 4.0
CELL_PAD_Y = 3.0
GRAY = (0.35, 0.35, 0.35)
HEADER_FILL = (0.9, 0.9, 0.9)


@dataclass
class TableSpec:
    """A table to draw. ``header`` holds one or more header rows; ``col_widths`` are relative weights."""

    caption: str
    header: list[list[str]]
    rows: list[list[str]]
    ruled: bool = True
    col_widths: list[float] | None = None

    @property
    def n_cols(self) -> int:
        return max((len(r) for r in [*self.header, *self.rows]), default=0)


@dataclass
class Heading:
    text: str
    level: int = 1


@dataclass
class Section:
    """A heading, its paragraphs, then its tables; or, to interleave, ``blocks`` in order after them."""

    heading: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[TableSpec] = field(default_factory=list)
    blocks: list[str | TableSpec] = field(default_factory=list)

    def to_blocks(self) -> list[str | TableSpec | Heading]:
        return [Heading(self.heading), *self.paragraphs, *self.tables, *self.blocks]


@dataclass
class PageBreak:
    """What follows starts on a new page (results printed one table per page)."""


Block = str | TableSpec | Heading | Section | PageBreak


@dataclass(frozen=True)
class PlacedRow:
    """One drawn table row. ``index`` counts in ``spec.header`` for header rows, in ``spec.rows`` else."""

    index: int
    page: int
    bbox: BBox
    cells: tuple[BBox, ...]
    is_header: bool = False
    repeated: bool = False  # a header row drawn again on a continuation page
    spans: tuple[int, ...] = ()
    """Per cell: 1, or the number of columns a header cell spans (its box covers them all), or 0 for a
    cell covered by a span to its left (its box is its own column, and it holds no text)."""


@dataclass(frozen=True)
class PlacedTable:
    spec: TableSpec
    caption_page: int
    caption_bbox: BBox
    rows: tuple[PlacedRow, ...]

    @property
    def pages(self) -> tuple[int, ...]:
        return tuple(sorted({r.page for r in self.rows}))

    @property
    def body_rows(self) -> tuple[PlacedRow, ...]:
        return tuple(r for r in self.rows if not r.is_header)

    def bbox_on(self, page: int) -> BBox:
        """The box the table's rows cover on one page (caption excluded)."""
        boxes = [r.bbox for r in self.rows if r.page == page]
        if not boxes:
            raise ValueError(f"table does not reach page {page}")
        return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
                max(b[3] for b in boxes))


@dataclass(frozen=True)
class PlacedText:
    """A run of text as drawn: kind is title, heading, paragraph, caption, running_header or page_number."""

    kind: str
    text: str
    page: int
    bbox: BBox


@dataclass(frozen=True)
class BuildResult:
    path: Path
    page_count: int
    tables: tuple[PlacedTable, ...]
    texts: tuple[PlacedText, ...]
    seconds: float = 0.0


class _Metrics:
    """Text widths from a per-character table: pymupdf's ``Font.text_length`` walks every character
    through the binding, far too slow for hundreds of pages."""

    def __init__(self, font: pymupdf.Font) -> None:
        self.font = font
        self.ascender: float = font.ascender
        self.descender: float = font.descender
        self._advance: dict[str, float] = {}

    def text_length(self, text: str, size: float) -> float:
        advance = self._advance
        total = 0.0
        for char in text:
            width = advance.get(char)
            if width is None:
                width = advance[char] = self.font.text_length(char, 1.0)
            total += width
        return total * size


def _merge_lines(lines: list[tuple[float, float, float, float]]) -> list[tuple[float, float, float, float]]:
    """Join touching collinear segments (the row-by-row borders of a grid) so fewer lines are drawn."""
    merged: list[tuple[float, float, float, float]] = []
    vertical = sorted((l for l in lines if l[0] == l[2]), key=lambda l: (l[0], l[1]))
    horizontal = sorted((l for l in lines if l[1] == l[3]), key=lambda l: (l[1], l[0]))
    for x0, y0, x1, y1 in vertical:
        last = merged[-1] if merged else None
        if last is not None and last[0] == last[2] == x0 and last[1] <= y0 <= last[3] + 0.01:
            merged[-1] = (x0, last[1], x0, max(last[3], y1))
        else:
            merged.append((x0, y0, x1, y1))
    for x0, y0, x1, y1 in horizontal:
        last = merged[-1] if merged else None
        if last is not None and last[1] == last[3] == y0 and last[0] <= x0 <= last[2] + 0.01:
            merged[-1] = (last[0], y0, max(last[2], x1), y0)
        else:
            merged.append((x0, y0, x1, y1))
    return merged


def _indent(text: str) -> float:
    """Leading spaces in a cell indent its text (as sub-items are in reports); they are not drawn."""
    return 4.0 * (len(text) - len(text.lstrip(" ")))


@lru_cache(maxsize=8192)
def _is_number(text: str) -> bool:
    return parse_number(text) is not None


@lru_cache(maxsize=8192)
def _is_numeric_cell(text: str) -> bool:
    """A number or a dash: cells that are right-aligned in number columns."""
    return _is_number(text) or bool(text.strip()) and is_null_text(text)


class _Layout:
    """Flows blocks down pages; one TextWriter and one set of lines per page, written when it ends."""

    def __init__(self, page_size: tuple[float, float], running_header: str | None, page_numbers: bool) -> None:
        self.doc = pymupdf.open()
        self.width, self.height = page_size
        self.left = MARGIN_X
        self.right = self.width - MARGIN_X
        self.bottom = self.height - MARGIN_BOTTOM
        self.running_header = running_header
        self.page_numbers = page_numbers
        self.regular = _Metrics(pymupdf.Font("helv"))
        self.bold = _Metrics(pymupdf.Font("hebo"))
        self.page: pymupdf.Page | None = None
        self.writer: pymupdf.TextWriter | None = None
        self.gray_writer: pymupdf.TextWriter | None = None
        self.lines: list[tuple[float, float, float, float]] = []
        self.fills: list[BBox] = []
        self.y = MARGIN_TOP
        self.tables: list[PlacedTable] = []
        self.texts: list[PlacedText] = []

    # -- pages ----------------------------------------------------------------------------------

    @property
    def page_count(self) -> int:
        return self.doc.page_count

    @property
    def remaining(self) -> float:
        return self.bottom - self.y

    def new_page(self) -> None:
        self._flush_page()
        self.page = self.doc.new_page(width=self.width, height=self.height)
        self.writer = pymupdf.TextWriter(self.page.rect)
        self.gray_writer = pymupdf.TextWriter(self.page.rect)
        self.y = MARGIN_TOP
        number = self.doc.page_count
        if self.running_header:
            self._text(self.running_header, self.left, 34.0, self.regular, 8.0, "running_header", gray=True)
        if self.page_numbers:
            label = f"Page {number}"
            x = (self.width - self.regular.text_length(label, 8.0)) / 2
            self._text(label, x, self.height - 30.0, self.regular, 8.0, "page_number", gray=True)

    def _flush_page(self) -> None:
        if self.page is None or self.writer is None or self.gray_writer is None:
            return
        if self.fills or self.lines:
            shape = self.page.new_shape()
            for rect in self.fills:
                shape.draw_rect(pymupdf.Rect(rect))
            if self.fills:
                shape.finish(color=None, fill=HEADER_FILL, width=0)
            for x0, y0, x1, y1 in _merge_lines(self.lines):
                shape.draw_line((x0, y0), (x1, y1))
            if self.lines:
                shape.finish(color=(0, 0, 0), width=0.5)
            shape.commit()
        self.writer.write_text(self.page)
        self.gray_writer.write_text(self.page, color=GRAY)
        self.fills, self.lines = [], []

    def ensure(self, height: float) -> None:
        """Start a new page unless ``height`` points still fit on this one."""
        if self.page is None or self.y + height > self.bottom:
            self.new_page()

    def save(self, path: Path, title: str) -> int:
        """Write the PDF and close it; return its page count."""
        self._flush_page()
        if self.doc.page_count == 0:
            self.new_page()
            self._flush_page()
        pages = self.doc.page_count
        self.doc.set_metadata({"title": title, "producer": "Folio report builder", "creator": "Folio"})
        path.parent.mkdir(parents=True, exist_ok=True)
        self.doc.save(path, garbage=3, deflate=True)
        self.doc.close()
        return pages

    # -- text -----------------------------------------------------------------------------------

    def _text(self, text: str, x: float, baseline: float, font: _Metrics, size: float, kind: str | None,
              *, gray: bool = False) -> BBox:
        writer = self.gray_writer if gray else self.writer
        assert writer is not None and self.page is not None
        writer.append((x, baseline), text, font=font.font, fontsize=size)
        box = (x, baseline - font.ascender * size, x + font.text_length(text, size), baseline - font.descender * size)
        if kind is not None:
            self.texts.append(PlacedText(kind, text, self.doc.page_count, box))
        return box

    def wrap(self, text: str, font: _Metrics, size: float, width: float) -> list[str]:
        lines: list[str] = []
        for paragraph_line in text.split("\n"):
            current = ""
            for word in paragraph_line.split():
                candidate = f"{current} {word}" if current else word
                if current and font.text_length(candidate, size) > width:
                    lines.append(current)
                    current = word
                else:
                    current = candidate
            lines.append(current)
        return lines

    def title(self, text: str) -> None:
        self.ensure(40)
        for line in self.wrap(text, self.bold, 18.0, self.right - self.left):
            self._text(line, self.left, self.y + 18.0, self.bold, 18.0, "title")
            self.y += 24.0
        self.y += 10.0

    def heading(self, heading: Heading) -> None:
        size = 13.0 if heading.level <= 1 else 11.0
        lines = self.wrap(heading.text, self.bold, size, self.right - self.left)
        # Keep a heading with the start of what follows it.
        self.ensure(10.0 + len(lines) * size * 1.3 + 3 * BODY_LEADING)
        if self.y > MARGIN_TOP:
            self.y += 10.0
        for line in lines:
            self._text(line, self.left, self.y + size, self.bold, size, "heading")
            self.y += size * 1.3
        self.y += 4.0

    def paragraph_height(self, text: str) -> float:
        return len(self.wrap(text, self.regular, BODY_SIZE, self.right - self.left)) * BODY_LEADING + 6.0

    def paragraph(self, text: str) -> None:
        lines = self.wrap(text, self.regular, BODY_SIZE, self.right - self.left)
        self.ensure(min(2, len(lines)) * BODY_LEADING)
        fragment: list[str] = []
        top = self.y
        for line in lines:
            if self.y + BODY_LEADING > self.bottom:
                self._record_paragraph(fragment, top)
                self.new_page()
                fragment, top = [], self.y
            self._text(line, self.left, self.y + BODY_SIZE, self.regular, BODY_SIZE, None)
            fragment.append(line)
            self.y += BODY_LEADING
        self._record_paragraph(fragment, top)
        self.y += 6.0

    def _record_paragraph(self, lines: list[str], top: float) -> None:
        if lines:
            box = (self.left, top, self.right, top + len(lines) * BODY_LEADING)
            self.texts.append(PlacedText("paragraph", " ".join(lines), self.doc.page_count, box))

    # -- tables ---------------------------------------------------------------------------------

    def table(self, spec: TableSpec) -> PlacedTable:
        grid = _TableGrid(spec, self)
        caption_lines = self.wrap(spec.caption, self.bold, 9.5, self.right - self.left) if spec.caption else []
        first_rows = sum(grid.row_heights(True)) + sum(grid.row_heights(False)[:2])
        whole = self.table_height(spec)
        if whole > self.remaining and whole <= self.bottom - MARGIN_TOP:
            self.new_page()  # a table that fits on a page is moved whole, not split
        self.ensure(len(caption_lines) * 12.0 + 6.0 + first_rows)
        self.y += 4.0
        caption_page = self.page_count
        caption_top = self.y
        for line in caption_lines:
            self._text(line, self.left, self.y + 9.5, self.bold, 9.5, "caption")
            self.y += 12.0
        caption_box = (self.left, caption_top, self.right, self.y)
        self.y += 3.0
        placed: list[PlacedRow] = []
        placed += grid.draw_header(repeated=False)
        body_heights = grid.row_heights(False)
        for index, height in enumerate(body_heights):
            if self.y + height > self.bottom:
                self.new_page()
                if spec.caption:
                    self._text(f"{spec.caption} (continued)", self.left, self.y + 9.5, self.bold, 9.5, "caption")
                    self.y += 15.0
                placed += grid.draw_header(repeated=True)
            placed.append(grid.draw_row(index, height))
        self.y += 10.0
        table = PlacedTable(spec, caption_page, caption_box, tuple(placed))
        self.tables.append(table)
        return table

    def table_height(self, spec: TableSpec) -> float:
        """Height the table takes if it fits on one page (caption and spacing included)."""
        grid = _TableGrid(spec, self)
        caption = len(self.wrap(spec.caption, self.bold, 9.5, self.right - self.left)) * 12.0 if spec.caption else 0
        return 4.0 + caption + 3.0 + sum(grid.row_heights(True)) + sum(grid.row_heights(False)) + 10.0


class _TableGrid:
    """Column widths, spans, wrapping and drawing of one table."""

    def __init__(self, spec: TableSpec, layout: _Layout) -> None:
        self.spec = spec
        self.layout = layout
        n = spec.n_cols
        self.header = [list(r) + [""] * (n - len(r)) for r in spec.header]
        self.rows = [list(r) + [""] * (n - len(r)) for r in spec.rows]
        self.numeric = [
            sum(_is_numeric_cell(r[c]) for r in self.rows if r[c].strip()) * 2 > sum(1 for r in self.rows if r[c].strip())
            for c in range(n)
        ]
        self.size = TABLE_SIZE
        self.leading = TABLE_SIZE * 1.25
        self.x = self._column_edges(n)
        self.spans = [self._spans(r, last=i == len(self.header) - 1) for i, r in enumerate(self.header)]
        self._heights: dict[bool, list[float]] = {}

    def _column_edges(self, n: int) -> list[float]:
        layout = self.layout
        available = layout.right - layout.left
        if self.spec.col_widths:
            weights = list(self.spec.col_widths) + [1.0] * (n - len(self.spec.col_widths))
        else:
            natural = []
            for c in range(n):
                texts = [(r[c], layout.bold) for r in self.header[-1:]] + [(r[c], layout.regular) for r in self.rows]
                widest = max((font.text_length(t, self.size) for t, font in texts if t), default=20.0)
                natural.append(widest + 2 * CELL_PAD_X + 6.0)
            numbers = [max(w, 56.0) for c, w in enumerate(natural) if c > 0]
            label = min(max(natural[0], available * 0.3), available - sum(numbers)) if n > 1 else available
            label = max(label, available * 0.22)
            weights = [label, *numbers]
            if sum(weights) < available and n > 1:  # widen the label column to the text width
                weights[0] += available - sum(weights)
        total = sum(weights)
        edges = [layout.left]
        for w in weights:
            edges.append(edges[-1] + w / total * available)
        return edges

    def _spans(self, row: list[str], *, last: bool) -> list[int]:
        """Span length per cell: an upper-header text followed by blanks spans them (not column 0)."""
        spans = [1] * len(row)
        if last:
            return spans
        c = 1
        while c < len(row):
            if row[c]:
                end = c + 1
                while end < len(row) and not row[end]:
                    end += 1
                spans[c] = end - c
                for covered in range(c + 1, end):
                    spans[covered] = 0
                c = end
            else:
                c += 1
        return spans

    def _cell_lines(self, text: str, col: int, span: int, font: _Metrics) -> list[str]:
        width = self.x[col + max(span, 1)] - self.x[col] - 2 * CELL_PAD_X - _indent(text)
        if self.numeric[col] and col > 0 and span == 1 and _is_number(text):
            return [text]
        return self.layout.wrap(text, font, self.size, width) if text else [""]

    def row_heights(self, header: bool) -> list[float]:
        if header not in self._heights:
            heights = []
            source = self.header if header else self.rows
            for i, row in enumerate(source):
                spans = self.spans[i] if header else [1] * len(row)
                font = self.layout.bold if header else self._body_font(row)
                lines = max(len(self._cell_lines(t, c, spans[c], font)) for c, t in enumerate(row) if spans[c])
                heights.append(lines * self.leading + 2 * CELL_PAD_Y)
            self._heights[header] = heights
        return self._heights[header]

    def _body_font(self, row: list[str]) -> _Metrics:
        return self.layout.bold if row and row[0].strip().lower().startswith("total") else self.layout.regular

    def draw_header(self, *, repeated: bool) -> list[PlacedRow]:
        return [self._draw(i, self.header[i], h, header=True, repeated=repeated)
                for i, h in enumerate(self.row_heights(True))]

    def draw_row(self, index: int, height: float) -> PlacedRow:
        return self._draw(index, self.rows[index], height, header=False, repeated=False)

    def _draw(self, index: int, row: list[str], height: float, *, header: bool, repeated: bool) -> PlacedRow:
        layout = self.layout
        top, bottom = layout.y, layout.y + height
        spans = self.spans[index] if header else [1] * len(row)
        font = layout.bold if header else self._body_font(row)
        cells: list[BBox] = []
        for c, text in enumerate(row):
            span = spans[c]
            x0, x1 = self.x[c], self.x[c + max(span, 1)]
            cells.append((x0, top, x1, bottom))
            if not span or not text:
                continue
            lines = self._cell_lines(text, c, span, font)
            for n, line in enumerate(lines):
                baseline = top + CELL_PAD_Y + n * self.leading + self.size
                width = font.text_length(line, self.size)
                if span > 1:
                    x = (x0 + x1 - width) / 2
                elif c > 0 and self.numeric[c]:
                    x = x1 - CELL_PAD_X - width
                else:
                    x = x0 + CELL_PAD_X + _indent(text)
                layout._text(line, x, baseline, font, self.size, None)
        if self.spec.ruled:
            if header:
                layout.fills.append((self.x[0], top, self.x[-1], bottom))
            layout.lines.append((self.x[0], top, self.x[-1], top))
            layout.lines.append((self.x[0], bottom, self.x[-1], bottom))
            for c in range(len(self.x)):
                inside_span = 0 < c < len(row) and spans[c] == 0
                if not inside_span:
                    layout.lines.append((self.x[c], top, self.x[c], bottom))
        layout.y = bottom
        box = (self.x[0], top, self.x[-1], bottom)
        return PlacedRow(index, layout.page_count, box, tuple(cells), is_header=header, repeated=repeated,
                         spans=tuple(spans))


def build_report(
    path: Path,
    title: str,
    blocks: Sequence[Block],
    *,
    page_size: tuple[float, float] = PAGE_A4,
    running_header: str | None = None,
    page_numbers: bool = True,
) -> BuildResult:
    """Write a report PDF: the title, then the blocks flowed down as many pages as they need."""
    started = time.perf_counter()
    layout = _Layout(page_size, running_header, page_numbers)
    layout.new_page()
    if title:
        layout.title(title)
    for block in blocks:
        _add(layout, block)
    page_count = layout.save(Path(path), title)
    return BuildResult(Path(path), page_count, tuple(layout.tables), tuple(layout.texts),
                       time.perf_counter() - started)


def _add(layout: _Layout, block: Block) -> None:
    if isinstance(block, Section):
        for inner in block.to_blocks():
            _add(layout, inner)
    elif isinstance(block, Heading):
        layout.heading(block)
    elif isinstance(block, TableSpec):
        layout.table(block)
    elif isinstance(block, PageBreak):
        layout.new_page()
    else:
        layout.paragraph(block)


# --------------------------------------------------------------------------------------------------
# A synthetic annual report
# --------------------------------------------------------------------------------------------------

_COMPANIES = ("Harbourline Holdings", "Crestmoor Utilities", "Alderbank Group", "Pinefield Logistics",
              "Meridian Water Trust", "Kestrel Rail Services", "Oakhurst Foods", "Bluegate Energy")
_SEGMENTS = ("Retail", "Wholesale", "Infrastructure", "Digital services", "Logistics", "Consulting",
             "Energy", "Healthcare", "Property", "Water", "Transport", "Agriculture")
_REGIONS = ("North", "South", "East", "West", "Central", "Coastal", "Highlands", "Metropolitan",
            "Riverside", "Lakeside")
_COST_LINES = ("Staff costs", "Materials and supplies", "Contracted services", "Depreciation",
               "Energy and utilities", "Information technology", "Property costs", "Insurance",
               "Professional fees", "Travel and training")
_INDICATORS = ("Customer satisfaction", "On-time delivery", "Staff turnover", "Budget variance",
               "Complaints resolved within 10 days", "Renewable share of energy", "Digital transactions",
               "Safety incidents per 100 staff", "Invoices paid within 30 days", "Occupancy rate")
_TOWNS = ("Ashford", "Brampton", "Carlow", "Dunmore", "Elmstead", "Fairhaven", "Glenrock", "Hillcrest",
          "Ivybridge", "Jarrow", "Kingsbury", "Longford", "Marston", "Newbury", "Oakley", "Penrith",
          "Quarry Bank", "Redhill", "Stanton", "Thornbury", "Upton", "Westbury", "Yarmouth", "Zeal")
_TOPICS = ("Operating review", "Financial review", "Regional performance", "Workforce", "Sustainability",
           "Capital programme", "Risk management", "Governance", "Customers and service", "Outlook")


def _money(value: float, *, decimals: int = 0, dollar: bool = False) -> str:
    text = f"{abs(value):,.{decimals}f}"
    if dollar:
        text = f"${text}"
    return f"({text})" if value < 0 else text


def _pct(value: float) -> str:
    return f"({abs(value):.1f}%)" if value < 0 else f"{value:.1f}%"


class _ReportWriter:
    """Makes up sections of an annual report, with numbers that add up, from one random generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.company = self.rng.choice(_COMPANIES)
        self.year = 2018 + self.rng.randrange(7)
        self.table_number = 0
        self.section_number = 0

    def numbered(self, table: TableSpec) -> TableSpec:
        """The table with its caption numbered in order of appearance ("Table 7: ...")."""
        self.table_number += 1
        return replace(table, caption=f"Table {self.table_number}: {table.caption}")

    def short_table(self) -> TableSpec:
        maker = self.rng.choice((self.segment_table, self.income_table, self.indicator_table,
                                 self.headcount_table))
        return maker()

    def blocks(self) -> Iterator[Block]:
        """Sections without end: a heading, paragraphs, tables, now and then a long register."""
        while True:
            yield self.section_heading()
            for _ in range(self.rng.randint(1, 3)):
                yield self.paragraph()
                if self.rng.random() < 0.6:
                    yield self.short_table()
            if self.rng.random() < 0.15:
                yield self.paragraph(2)
                yield self.register_table(self.rng.randint(30, 70))

    def sentences(self) -> list[str]:
        """One candidate sentence per template, with fresh names and numbers."""
        rng = self.rng
        segment, region, town = rng.choice(_SEGMENTS), rng.choice(_REGIONS), rng.choice(_TOWNS)
        return [
            (f"{segment} revenue in the {region} region rose {rng.uniform(1, 15):.1f}% as contracts signed in "
             f"{self.year - 1} came into service."),
            (f"Operating costs were held to {rng.randint(2, 9)}.{rng.randint(0, 9)}% growth despite higher "
             "energy prices and wage settlements."),
            (f"The board approved capital spending of ${rng.randint(5, 95)}.{rng.randint(0, 9)} million for "
             f"{self.year + 1}, mostly on network renewal in the {region} region."),
            (f"Headcount in {segment.lower()} ended the year at {rng.randint(40, 900):,}, after "
             f"{rng.randint(3, 60)} vacancies were filled."),
            (f"Customer satisfaction reached {rng.uniform(70, 95):.1f}%, against a target of "
             f"{rng.randint(75, 90)}%."),
            "Amounts in the tables are stated in thousands of dollars unless a caption says otherwise.",
            f"The {town} depot completed its refurbishment {rng.randint(1, 8)} weeks ahead of schedule.",
            (f"Net debt fell to ${rng.randint(20, 400):,} million, and interest cover improved to "
             f"{rng.uniform(2, 9):.1f} times."),
            f"{segment} margins narrowed by {rng.randint(10, 90)} basis points as input prices rose.",
            "Management continues to review the portfolio for assets that no longer fit the strategy.",
            (f"In {town}, the new customer centre handled {rng.randint(2, 90):,},{rng.randint(100, 999)} "
             f"enquiries in its first year."),
            (f"The {segment.lower()} order book stood at ${rng.randint(20, 900)} million at year end, "
             f"{rng.choice(('up', 'down'))} from ${rng.randint(20, 900)} million a year earlier."),
            (f"Lost-time injuries fell to {rng.randint(2, 40)}, the lowest figure since "
             f"{self.year - rng.randint(5, 15)}."),
            (f"Energy use per unit of output fell {rng.uniform(1, 9):.1f}%, helped by the "
             f"{region} solar array commissioned in {self.year}."),
            "The audit committee met six times during the year and reviewed the internal control framework.",
            (f"We expect {segment.lower()} demand to remain firm in {self.year + 1}, although pricing will "
             "stay competitive."),
        ]

    def paragraph(self, sentences: int | None = None) -> str:
        count = sentences if sentences is not None else self.rng.randint(3, 7)
        return " ".join(self.rng.sample(self.sentences(), count))

    def segment_table(self) -> TableSpec:
        rng = self.rng
        segments = rng.sample(_SEGMENTS, rng.randint(4, 8))
        rows, now_total, before_total = [], 0, 0
        for name in segments:
            before = rng.randint(2_000, 250_000)
            now = int(before * rng.uniform(0.8, 1.3))
            now_total, before_total = now_total + now, before_total + before
            rows.append([name, _money(now), _money(before), _pct((now - before) / before * 100)])
        rows.append(["Total", _money(now_total), _money(before_total),
                     _pct((now_total - before_total) / before_total * 100)])
        return TableSpec("Revenue by segment ($ thousands)",
                         [["Segment", str(self.year), str(self.year - 1), "% change"]], rows, ruled=True)

    def income_table(self) -> TableSpec:
        rng = self.rng
        years = [self.year, self.year - 1, self.year - 2]
        revenue = [rng.randint(200, 5_000) for _ in years]
        rows = [["Revenue", *[_money(v, dollar=True) for v in revenue]], ["Operating expenses:", "", "", ""]]
        totals = [0, 0, 0]
        for line in rng.sample(_COST_LINES, rng.randint(3, 6)):
            values = [-int(v * rng.uniform(0.03, 0.2)) for v in revenue]
            totals = [t + v for t, v in zip(totals, values)]
            rows.append([f"  {line}", *[_money(v) for v in values]])
        rows.append(["Total operating expenses", *[_money(v) for v in totals]])
        rows.append(["Operating profit", *[_money(r + t, dollar=True) for r, t in zip(revenue, totals)]])
        header = [["", "Years ended December 31,", "", ""], ["", *[str(y) for y in years]]]
        return TableSpec("Summary income statement (in millions)", header, rows, ruled=False)

    def indicator_table(self) -> TableSpec:
        rng = self.rng
        rows = []
        for name in rng.sample(_INDICATORS, rng.randint(4, 7)):
            target = rng.randint(60, 98)
            rows.append([name, f"{target}%", _pct(rng.uniform(50, 99)), _pct(rng.uniform(50, 99))])
        header = [["Indicator", "Target", str(self.year), str(self.year - 1)]]
        return TableSpec("Performance indicators (%)", header, rows, ruled=rng.random() < 0.5)

    def headcount_table(self) -> TableSpec:
        rng = self.rng
        rows, totals = [], [0, 0]
        for region in rng.sample(_REGIONS, rng.randint(4, 7)):
            values = [rng.randint(20, 1_500), rng.randint(20, 1_500)]
            totals = [t + v for t, v in zip(totals, values)]
            rows.append([region, *[f"{v:,}" for v in values], f"{values[0] - values[1]:+,}"])
        rows.append(["Total", *[f"{v:,}" for v in totals], f"{totals[0] - totals[1]:+,}"])
        header = [["Region", f"{self.year} staff", f"{self.year - 1} staff", "Change"]]
        return TableSpec("Staff by region (full-time equivalent)", header, rows, ruled=False)

    def register_table(self, rows: int) -> TableSpec:
        """A long schedule that runs over pages."""
        rng = self.rng
        body = []
        for number in range(1, rows + 1):
            town = rng.choice(_TOWNS)
            cost = rng.randint(50, 9_000)
            spent = int(cost * rng.uniform(0.1, 1.1))
            body.append([f"{town} {rng.choice(('depot', 'station', 'office', 'works', 'yard'))} #{number}",
                         rng.choice(_REGIONS), _money(cost), _money(spent), _money(cost - spent)])
        header = [["Project", "Region", "Budget", "Spent to date", "Remaining"]]
        return TableSpec("Capital projects register ($ thousands)", header, body, ruled=True,
                         col_widths=[3.0, 1.6, 1.2, 1.4, 1.3])

    def section_heading(self) -> Heading:
        self.section_number += 1
        topic = _TOPICS[(self.section_number - 1) % len(_TOPICS)]
        return Heading(f"{self.section_number}. {topic}")


def build_generated_report(path: Path, pages: int, seed: int = 0) -> BuildResult:
    """A synthetic annual report of exactly ``pages`` pages mixing prose and tables, the same for a seed.

    Tables are ruled and borderless, with thousands separators, negatives in parentheses,
    percentages, multi-row headers and captions that state a scale; long registers run over pages.
    """
    if pages < 1:
        raise ValueError("pages must be at least 1")
    started = time.perf_counter()
    writer = _ReportWriter(seed)
    title = f"{writer.company} Annual Report {writer.year}"
    layout = _Layout(PAGE_A4, f"{writer.company} \u2014 Annual Report {writer.year}", True)
    layout.new_page()
    layout.title(title)
    for block in writer.blocks():
        if layout.page_count >= pages:
            break
        if isinstance(block, TableSpec) and len(block.rows) > 20 and pages - layout.page_count < 3:
            continue  # a long register would run past the last page
        _add(layout, writer.numbered(block) if isinstance(block, TableSpec) else block)
    # The last page takes only what fits on it, so the document has exactly ``pages`` pages.
    while layout.page_count == pages:
        if writer.rng.random() < 0.3:
            table = writer.short_table()
            if layout.table_height(table) <= layout.remaining:
                layout.table(writer.numbered(table))
                continue
        text = writer.paragraph(writer.rng.randint(1, 4))
        if layout.paragraph_height(text) > layout.remaining:
            text = writer.paragraph(1)
            if layout.paragraph_height(text) > layout.remaining:
                break
        layout.paragraph(text)
    page_count = layout.save(Path(path), title)
    return BuildResult(Path(path), page_count, tuple(layout.tables), tuple(layout.texts),
                       time.perf_counter() - started)
