"""Reading ledgers: a column of row labels beside columns of figures, as financial statements print them.

Balance sheets, income and cash-flow statements, budgets and statistical tables in real reports are
mostly borderless: a label on the left (indented to show its place in a hierarchy), figures right-
aligned in period columns, a currency sign printed apart on the first and total rows, period headers
over two or three lines ("Years ended December 31" over "2018 2017 2016"), and section headings
inside the table ("Cash flows from investing activities", "Current assets:"). A generic borderless
extractor cuts such a table at its section headings, makes a column of each "$" and shifts the rows
that carry one. This reader works from the page's words instead:

- each line's trailing run of figures is split off its label; a currency sign joins the figure to
  its right, wherever it is printed;
- figure columns are the right edges that many lines share; a trailing "figure" that is on no such
  edge belongs to the label ("Notes due 2026", "(Note 16)");
- a ledger is a run of lines with figures in those columns, with label-only lines between them
  (section headings, wrapped labels) and no wide prose;
- its header lines are the lines just above it with text over the figure columns (periods, units);
  its caption is the short lines above those (the statement's title);
- a label wrapped over two lines is joined; label-only lines that remain are section headings, and
  every row records the innermost heading it stands under in a ``Section`` column.

The result is an ordinary ``ExtractedTable`` (header rows, body rows, a box per cell), typed and stored
like any other table.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

import pymupdf

from core.ingest.extraction.page_text import Word
from core.ingest.extraction.values import UNITS_LINE, is_page_number, is_scale_mark
from core.reports.table_facts import closed_heading
from models.types import BBox, CellRef, ExtractedTable

SECTION_HEADER = "Section"
MIN_VALUE_LINES = 3       # a ledger has at least this many lines with figures
MIN_COLUMN_SUPPORT = 2    # a figure column is a right edge shared by this many lines
EDGE_TOLERANCE = 4.5      # points between right edges of one column (")" of negatives hangs out)
MAX_HEADER_LINES = 5
MAX_CAPTION_LINES = 4
MAX_GAP_LINES = 3.2       # a vertical gap of more than this many line heights ends a ledger

_CURRENCY = re.compile(r"^(?:US\$|C\$|A\$|[$\u20ac\u00a3\u00a5\u20b9]|USD|EUR|GBP|Rs\.?)$", re.IGNORECASE)
_FIGURE = re.compile(
    r"""^[(\[]?[-+\u2212\u2013]?(?:US\$|[$\u20ac\u00a3\u00a5\u20b9])?\s?[(]?
        (?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?
        \s?(?:%|pts?|x|bps)?[)\]]?%?[*\u2020\u2021]?$""",
    re.VERBOSE | re.IGNORECASE,
)
_DASH = re.compile(r"^(?:[$\u20ac\u00a3]?[\u2014\u2013\u2212\-]{1,2}%?|n/?a|nm|n\.m\.|nil|\*)$", re.IGNORECASE)
_LEADERS = re.compile(r"(?:\s?[.\u2024\u2026\u00b7_]){3,}\s*$|^\s*(?:[.\u2024\u2026\u00b7_]\s?){3,}")
_LABEL_NOTE = re.compile(r"\s*(?:\((?:\d{1,2}|[a-z])\)|\*{1,3}|[\u2020\u2021]+)$")
_NOISE_LINE = re.compile(r"^(?:table of contents|index to financial statements|\d{1,3})$", re.IGNORECASE)
_PROSE_END = re.compile(r"\b(?:see accompanying|the accompanying notes|see notes to)\b", re.IGNORECASE)


@dataclass
class _Token:
    """A figure on a line: its words (a currency sign printed apart included) and its right edge."""

    words: list[Word]

    @property
    def text(self) -> str:
        parts = [w.text for w in self.words]
        if len(parts) > 1 and _CURRENCY.match(parts[0]):
            return parts[0] + "".join(parts[1:])
        return "".join(parts)

    @property
    def x0(self) -> float:
        return min(w.x0 for w in self.words if not _CURRENCY.match(w.text)) if self.figure_words else self.words[0].x0

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def figure_words(self) -> list[Word]:
        return [w for w in self.words if not _CURRENCY.match(w.text)]


@dataclass
class _Line:
    words: list[Word]
    label: list[Word] = field(default_factory=list)
    tokens: list[_Token] = field(default_factory=list)

    @property
    def y0(self) -> float:
        return min(w.y0 for w in self.words)

    @property
    def y1(self) -> float:
        return max(w.y1 for w in self.words)

    @property
    def x0(self) -> float:
        return min(w.x0 for w in self.words)

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def height(self) -> float:
        return max(w.height for w in self.words)

    @property
    def label_text(self) -> str:
        return _clean_label(" ".join(w.text for w in self.label))

    @property
    def label_x0(self) -> float:
        return min(w.x0 for w in self.label) if self.label else self.x0


@dataclass
class _Column:
    right: float
    left: float
    support: int = 0


@dataclass
class _Row:
    label: str
    label_words: list[Word]
    indent: float
    values: list[_Token | None]
    y0: float
    y1: float
    heading: bool = False
    section: str = ""
    section_words: list[Word] = field(default_factory=list)


def _clean_label(text: str) -> str:
    text = _LEADERS.sub("", " ".join(text.split())).strip()
    text = _LABEL_NOTE.sub("", text).strip()
    return text.rstrip(" .").strip() if text.endswith("..") else text


def _strip_leaders(word: Word) -> Word | None:
    """A word without glued dot leaders ("equivalents........"); None when nothing else is left."""
    text = _LEADERS.sub("", word.text)
    if text == word.text:
        return word
    if not text.strip():
        return None
    # Leaders trail the word: keep its left part, narrowed in proportion to the characters kept.
    keep = len(text) / max(len(word.text), 1)
    return Word(word.x0, word.y0, word.x0 + (word.x1 - word.x0) * keep, word.y1, text, word.line, word.order, word.vertical)


def _is_figure(text: str) -> bool:
    if text.count("(") != text.count(")") or is_scale_mark(text):  # "16)" of "(Note 16)"; a unit "US$000"
        return False
    return bool(_FIGURE.match(text) or _DASH.match(text))


def _group_lines(words: Sequence[Word]) -> list[_Line]:
    """Words into lines by baseline, left to right."""
    lines: list[_Line] = []
    for word in sorted(words, key=lambda w: (w.y1, w.x0)):
        if lines:
            line = lines[-1]
            bottom = sorted(w.y1 for w in line.words)[len(line.words) // 2]
            if abs(word.y1 - bottom) <= 0.35 * max(word.height, 1.0):
                line.words.append(word)
                continue
        lines.append(_Line([word]))
    for line in lines:
        line.words.sort(key=lambda w: w.x0)
    return lines


def _split_figures(line: _Line) -> None:
    """The line's trailing figures (each with the currency sign printed before it) and its label."""
    words = line.words
    end = len(words)
    tokens: list[_Token] = []
    while end > 0:
        word = words[end - 1]
        if _is_figure(word.text) or word.text in {"%", ")"} and end > 1 and _is_figure(words[end - 2].text):
            start = end - 1
            if word.text in {"%", ")"}:
                start -= 1
            if start > 0 and _CURRENCY.match(words[start - 1].text):
                start -= 1
            tokens.insert(0, _Token(list(words[start:end])))
            end = start
            continue
        if _CURRENCY.match(word.text) and tokens:  # "$ —" or a sign set far from its figure
            tokens[0].words.insert(0, word)
            end -= 1
            continue
        break
    label = list(words[:end])
    # A number set a word space after the label is part of it ("District 1", "Notes due 2026").
    while tokens and label and not _CURRENCY.match(tokens[0].words[0].text) \
            and tokens[0].words[0].x0 - label[-1].x1 < 0.5 * max(label[-1].height, 1.0):
        label.extend(tokens.pop(0).words)
    line.label = label
    line.tokens = tokens


def _find_columns(lines: Sequence[_Line]) -> list[_Column]:
    """Right edges shared by the figures of several lines, left to right."""
    edges = sorted((t.x1, t.x0) for line in lines for t in line.tokens)
    clusters: list[list[tuple[float, float]]] = []
    for right, left in edges:
        if clusters and right - clusters[-1][-1][0] <= EDGE_TOLERANCE:
            clusters[-1].append((right, left))
        else:
            clusters.append([(right, left)])
    columns = []
    for cluster in clusters:
        rights = sorted(r for r, _ in cluster)
        # Count lines, not tokens: one line never has two figures in one column.
        columns.append(_Column(right=rights[len(rights) // 2], left=min(left for _, left in cluster), support=len(cluster)))
    return [c for c in columns if c.support >= MIN_COLUMN_SUPPORT]


def _column_of(token: _Token, columns: Sequence[_Column]) -> int | None:
    for index, column in enumerate(columns):
        if abs(token.x1 - column.right) <= EDGE_TOLERANCE + 1:
            return index
    # A centred dash or a short figure under a wide column: inside the column's span.
    for index, column in enumerate(columns):
        if column.left - 2 <= (token.x0 + token.x1) / 2 <= column.right + 2 and len(token.text) <= 3:
            return index
    return None


def _place(line: _Line, columns: Sequence[_Column]) -> list[_Token | None] | None:
    """The line's figures by column; figures off every column go back to the label. None when the
    line has no figure in a column."""
    placed: list[_Token | None] = [None] * len(columns)
    kept = 0
    for position in range(len(line.tokens) - 1, -1, -1):
        token = line.tokens[position]
        index = _column_of(token, columns)
        if index is None or any(p is not None for p in placed[: index + 1]):
            # Everything from here leftwards is label text ("Notes due 2026", "(Note 16)").
            line.label = line.label + [w for t in line.tokens[: position + 1] for w in t.words]
            line.label.sort(key=lambda w: w.x0)
            line.tokens = line.tokens[position + 1:]
            break
        placed[index] = token
        kept += 1
    return placed if kept else None


def _is_prose(line: _Line, value_left: float) -> bool:
    """A line of running text crossing into the figure columns (a paragraph, a footnote)."""
    return bool(line.label) and max(w.x1 for w in line.label) > value_left + 4 and len(line.label) >= 6


def read_ledgers(words: Sequence[Word], page_number: int,
                 map_rect: Callable[[pymupdf.Rect], pymupdf.Rect] | None = None) -> list[tuple[ExtractedTable, pymupdf.Rect]]:
    """The ledgers on a page (see the module docstring), top to bottom, each with its box in the words'
    coordinates (the table itself reports page coordinates, through ``map_rect``)."""
    cleaned = [w2 for w in words if not w.vertical and (w2 := _strip_leaders(w)) is not None]
    lines = [ln for ln in _group_lines(cleaned) if not _NOISE_LINE.match(" ".join(w.text for w in ln.words))]
    for line in lines:
        _split_figures(line)
    candidates = [ln for ln in lines if ln.tokens]
    if len(candidates) < MIN_VALUE_LINES:
        return []
    columns = _find_columns(candidates)
    if not columns:
        return []
    tables: list[tuple[ExtractedTable, pymupdf.Rect]] = []
    for block in _blocks(lines, columns):
        built = _build(block, lines, page_number, map_rect)
        if built is not None:
            tables.append(built)
    return tables


@dataclass
class _Block:
    """One ledger's lines: [first, last] indices into the page's lines, and its own columns."""

    first: int
    last: int
    columns: list[_Column]
    placed: dict[int, list[_Token | None]]


def _blocks(lines: list[_Line], page_columns: list[_Column]) -> list[_Block]:
    """Runs of lines with figures in the page's columns, cut at wide gaps and prose."""
    placed_lines: dict[int, list[_Token | None]] = {}
    for index, line in enumerate(lines):
        if line.tokens and not _all_years(line):  # a row of years heads the columns below it
            placed = _place(_copy(line), page_columns)
            if placed is not None:
                placed_lines[index] = placed
    blocks: list[_Block] = []
    current: list[int] = []
    value_left = min(c.left for c in page_columns)
    for index in sorted(placed_lines):
        if current:
            previous = lines[current[-1]]
            line = lines[index]
            between = lines[current[-1] + 1:index]
            height = max(previous.height, line.height, 6.0)
            gap = line.y0 - previous.y1
            prose = [ln for ln in between if _is_prose(ln, value_left) or _PROSE_END.search(ln.label_text)]
            # A row of years between figures heads another statement printed below the first.
            headed = any(ln.tokens and _all_years(ln) for ln in between)
            if gap > MAX_GAP_LINES * height * (1 + len(between)) or prose or len(between) > 6 or headed:
                blocks.append(_block_from(current, lines, page_columns))
                current = []
        current.append(index)
    if current:
        blocks.append(_block_from(current, lines, page_columns))
    return [b for b in blocks if len(b.placed) >= MIN_VALUE_LINES]


def _copy(line: _Line) -> _Line:
    return _Line(list(line.words), list(line.label), [_Token(list(t.words)) for t in line.tokens])


def _block_from(indices: list[int], lines: list[_Line], page_columns: list[_Column]) -> _Block:
    """A block's own columns (those its lines use) and each value line's figures placed in them."""
    own = _find_columns([lines[i] for i in indices])
    if own:  # a "column" a few lines share beside columns most lines fill is label text ("Shares outstanding: 576,575,168")
        strongest = max(c.support for c in own)
        own = [c for c in own if c.support >= max(MIN_COLUMN_SUPPORT, 0.2 * strongest)]
    columns = own or page_columns
    placed: dict[int, list[_Token | None]] = {}
    for index in indices:
        line = lines[index]
        result = _place(line, columns) if not _all_years(line) else None
        if result is not None:
            placed[index] = result
    # Drop columns no line of this block fills (an edge of a neighbouring block).
    used = [c for c in range(len(columns)) if sum(1 for p in placed.values() if p[c] is not None) >= MIN_COLUMN_SUPPORT]
    columns = [columns[c] for c in used]
    placed = {i: [p[c] for c in used] for i, p in placed.items() if any(p[c] is not None for c in used)}
    first = min(placed) if placed else indices[0]
    last = max(placed) if placed else indices[-1]
    return _Block(first, last, columns, placed)


def _header_lines(block: _Block, lines: list[_Line]) -> tuple[list[int], int]:
    """Indices of the header lines above the block (over its figure columns), and where its body starts."""
    value_left = min(c.left for c in block.columns) - 6
    header: list[int] = []
    index = block.first - 1
    # Label-only lines right above the first figures are body (section headings), unless they are units.
    body_start = block.first
    while index >= 0 and block.first - index <= MAX_HEADER_LINES + 4:
        line = lines[index]
        below = lines[index + 1]
        # Header lines sit close together; a title above them stands apart.
        if below.y0 - line.y1 > (1.2 if header else MAX_GAP_LINES) * max(line.height, 6.0):
            break
        over = [w for w in line.words if w.x1 > value_left]
        if over and any(ph[0].x0 < value_left - 50 and ph[-1].x1 > value_left + 10 and not _on_column_edge(ph, block.columns)
                        for ph in _phrases(line.words)):
            break  # a title centred on the page, across labels and figures: the caption starts here
        label_side = [ph for ph in _phrases(line.words) if ph[-1].x1 <= value_left]
        if over and header and any(not UNITS_LINE.match(" ".join(w.text for w in ph)) for ph in label_side):
            break  # above the bottom header line, text over the labels is the title ("Statements of Income | Corning ...")
        if over:
            if line.tokens and _place(_copy(line), block.columns) is not None and not _all_years(line):
                break  # figures of another table just above
            header.insert(0, index)
        elif not header:
            if _is_prose(line, value_left) or len(line.label_text.split()) > 14:
                break
            body_start = index
        else:
            break
        index -= 1
        if len(header) >= MAX_HEADER_LINES:
            break
    return header, body_start if not header else max(header) + 1


def _on_column_edge(phrase: Sequence[Word], columns: Sequence[_Column]) -> bool:
    """A phrase ending on a figure column's right edge heads that column, however far left it reaches
    ("December 31, 2019" right-aligned over "1,396"); a centred title ends on no column edge."""
    return any(abs(phrase[-1].x1 - column.right) <= EDGE_TOLERANCE for column in columns)


def _all_years(line: _Line) -> bool:
    return all(re.fullmatch(r"(?:19|20)\d\d", t.text.strip("$")) for t in line.tokens)


def _caption(block_top: int, lines: list[_Line], columns: list[_Column]) -> tuple[str, list[int]]:
    """The short lines right above the header: the statement's title, its entity, its period."""
    picked: list[int] = []
    index = block_top - 1
    while index >= 0 and len(picked) < MAX_CAPTION_LINES:
        line = lines[index]
        below = lines[block_top] if not picked else lines[picked[0]]
        text = " ".join(w.text for w in line.words)
        placed = _place(_copy(line), columns) if line.tokens else None
        figures = sum(1 for p in placed or () if p is not None)
        if below.y0 - line.y1 > 3.5 * max(line.height, 6.0) or len(text.split()) > 10 or figures >= 2:
            break
        if not is_page_number(text):
            picked.insert(0, index)
        index -= 1
    return " ".join(" ".join(w.text for w in lines[i].words) for i in picked), picked


def _header_rows(indices: list[int], lines: list[_Line], columns: list[_Column]) -> tuple[list[list[str]], str, list[list[list[Word]]]]:
    """Header lines as grid rows: the text over each figure column (a phrase over several columns sits in
    the first of them, as a spanning header), and any units printed over the labels."""
    rows: list[list[str]] = []
    boxes: list[list[list[Word]]] = []
    units: list[str] = []
    bounds = _column_bounds(columns)
    for index in indices:
        line = lines[index]
        phrases = _phrases(line.words)
        row = [""] * (len(columns) + 1)
        row_words: list[list[Word]] = [[] for _ in range(len(columns) + 1)]
        for phrase in phrases:
            x0, x1 = phrase[0].x0, phrase[-1].x1
            text = " ".join(w.text for w in phrase)
            spanned = [c for c, (left, right) in enumerate(bounds) if min(x1, right) - max(x0, left) > 0]
            if not spanned or (x0 + x1) / 2 < bounds[0][0]:  # begins over the labels: "(Dollars in millions)"
                if UNITS_LINE.match(text.strip()) or text.strip().startswith("("):
                    units.append(text)
                else:
                    row[0] = f"{row[0]} {text}".strip()
                    row_words[0].extend(phrase)
                continue
            target = spanned[0] + 1
            row[target] = f"{row[target]} {text}".strip()
            row_words[target].extend(phrase)
        rows.append(row)
        boxes.append(row_words)
    return rows, " ".join(units), boxes


def _column_bounds(columns: list[_Column]) -> list[tuple[float, float]]:
    """Each figure column's horizontal reach for header text: from halfway to its left neighbour to its right edge."""
    bounds = []
    for index, column in enumerate(columns):
        left = column.left - 40 if index == 0 else (columns[index - 1].right + column.left) / 2
        right = column.right + 2 if index == len(columns) - 1 else min(column.right + 8, columns[index + 1].left - 2)
        bounds.append((left, right))
    return bounds


def _phrases(words: Sequence[Word]) -> list[list[Word]]:
    phrases: list[list[Word]] = []
    for word in sorted(words, key=lambda w: w.x0):
        if phrases and word.x0 - phrases[-1][-1].x1 <= 0.6 * max(word.height, 1.0):
            phrases[-1].append(word)
        else:
            phrases.append([word])
    return phrases


def _body_rows(first: int, block: _Block, lines: list[_Line]) -> list[_Row]:
    """Body lines as rows: wrapped labels joined, a label set on its own line above its figures joined to them."""
    rows: list[_Row] = []
    for index in range(first, block.last + 1):
        line = lines[index]
        values = block.placed.get(index)
        label_words = list(line.label) if values is not None else list(line.words)
        label = _clean_label(" ".join(w.text for w in label_words))
        if not label and values is None:
            continue
        if rows and _continues(rows[-1], label, label_words, values):
            previous = rows[-1]
            previous.label = f"{previous.label} {label}".strip()
            previous.label_words.extend(label_words)
            previous.y1 = line.y1
            if values is not None:
                previous.values = values
                previous.heading = False
            continue
        indent = min(w.x0 for w in label_words) if label_words else line.x0
        rows.append(_Row(label, label_words, indent, values or [None] * len(block.columns), line.y0, line.y1,
                         heading=values is None))
    return rows


def _continues(previous: _Row, label: str, words: list[Word], values: list[_Token | None] | None) -> bool:
    """Whether a line carries on the row above it: figures without a label under a label without figures,
    or words that cannot start a row (lower case, a digit) after a label without figures."""
    if not previous.heading:
        return False
    if not label:
        return values is not None
    first = label[0]
    close = words and words[0].y0 - previous.y1 < 0.8 * max(w.height for w in words)
    wraps = first.islower() or previous.label.endswith((",", ";", " and", " of", " to", " in", " for", " by", " the", "-"))
    return bool(close and wraps)


def _assign_sections(rows: list[_Row], label_left: float) -> None:
    """Every row's innermost heading, kept as a stack by indentation: a heading closes headings as deep
    as itself; a "Total ..."/"Net ..." row naming a heading closes it; a row set further left than a
    heading has left it, and so has a row set as far left as a heading whose lines are indented under it
    ("Inventories, net" over two indented lines, then "Prepaid expenses" back at its level)."""
    stack: list[_Row] = []
    # the headings (by id) whose first line is set deeper than themselves: an item printed over its parts, which
    # stands among the lines of a heading at its own level ("Current assets:") instead of closing it
    indented = {id(row) for row, after in pairwise(rows)
                if row.heading and _depth(after, label_left) > _depth(row, label_left) + 1.5}
    for row in rows:
        depth = _depth(row, label_left)
        if row.heading:
            while stack and _depth(stack[-1], label_left) >= depth - 1.5 and not (
                    id(row) in indented and id(stack[-1]) not in indented
                    and _depth(stack[-1], label_left) <= depth + 1.5):
                stack.pop()
            if stack:
                row.section, row.section_words = stack[-1].label.rstrip(":"), stack[-1].label_words
            stack.append(row)
            continue
        while stack and (depth < _depth(stack[-1], label_left) - 1.5 or
                         id(stack[-1]) in indented and depth <= _depth(stack[-1], label_left) + 1.5
                         and _closed_heading(row, stack) is None):
            stack.pop()
        closed = _closed_heading(row, stack)
        if closed is not None:  # "Total current assets" ends "Current assets" and stands in it
            row.section, row.section_words = stack[closed].label.rstrip(":"), stack[closed].label_words
            del stack[closed:]
        elif stack:
            row.section, row.section_words = stack[-1].label.rstrip(":"), stack[-1].label_words


def _closed_heading(row: _Row, stack: list[_Row]) -> int | None:
    """The open heading a total line names ("Net cash used in investing activities" closes "Cash flows from
    investing activities"), if the line is a total (see ``core.reports.table_facts.closed_heading``)."""
    return closed_heading(row.label, [heading.label for heading in stack])


def _depth(row: _Row, label_left: float) -> float:
    """A row's place in the hierarchy: its indent; a heading centred over the page stands at the top."""
    return row.indent if row.indent < label_left + 60 else label_left - 100


def _box(words: Sequence[Word]) -> tuple[float, float, float, float] | None:
    if not words:
        return None
    return (min(w.x0 for w in words), min(w.y0 for w in words), max(w.x1 for w in words), max(w.y1 for w in words))


def _build(block: _Block, lines: list[_Line], page_number: int,
           map_rect: Callable[[pymupdf.Rect], pymupdf.Rect] | None) -> tuple[ExtractedTable, pymupdf.Rect] | None:
    columns = block.columns
    if not columns:
        return None
    value_left = min(c.left for c in columns) - 6
    header_indices, body_start = _header_lines(block, lines)
    caption_top = min(header_indices) if header_indices else body_start
    caption, _ = _caption(caption_top, lines, columns)
    header, units, header_words = _header_rows(header_indices, lines, columns)
    rows = _body_rows(body_start, block, lines)
    if sum(1 for r in rows if not r.heading) < MIN_VALUE_LINES:
        return None
    # Words in the figure columns that are not figures: a table with text columns, not a ledger.
    if any(w.x1 > value_left + 4 for r in rows for w in r.label_words):
        return None
    label_left = min(r.indent for r in rows)
    _assign_sections(rows, label_left)
    with_sections = any(r.section for r in rows)

    def mapped(box: tuple[float, float, float, float]) -> BBox:
        rect = pymupdf.Rect(box)
        if map_rect is not None:
            rect = map_rect(rect)
        return (float(rect.x0), float(rect.y0), float(rect.x1), float(rect.y1))

    width = len(columns) + 1 + (1 if with_sections else 0)
    grid: list[tuple[str, ...]] = []
    refs: list[tuple[CellRef | None, ...]] = []
    for r, (texts, words) in enumerate(zip(header, header_words)):
        header_row = list(texts) + ([SECTION_HEADER if r == len(header) - 1 else ""] if with_sections else [])
        if r == len(header) - 1 and units and not header_row[0]:
            header_row[0] = units
        grid.append(tuple(header_row))
        line = lines[header_indices[r]]
        spans = [(line.x0, value_left)] + [(col.left, col.right) for col in columns] + [(line.x0, value_left)]
        header_cells: list[CellRef | None] = []
        for c in range(width):
            box = _box(words[c]) if c < len(words) else None
            header_cells.append(CellRef(r, c, page_number, mapped(box or (spans[c][0], line.y0, spans[c][1], line.y1))))
        refs.append(tuple(header_cells))
    if not header:
        grid.append(tuple([units] + [""] * len(columns) + ([SECTION_HEADER] if with_sections else [])))
        top = lines[body_start]
        spans = [(top.x0, value_left)] + [(col.left, col.right) for col in columns] + [(top.x0, value_left)]
        refs.append(tuple(CellRef(0, c, page_number, mapped((spans[c][0], top.y0 - top.height, spans[c][1], top.y0)))
                          for c in range(width)))
    n_header = len(grid)
    for row in rows:
        r = len(grid)
        texts = [row.label] + [t.text if t is not None else "" for t in row.values]
        cells: list[CellRef | None] = [CellRef(r, 0, page_number, mapped(_box(row.label_words) or (row.indent, row.y0, value_left, row.y1)))]
        for c, token in enumerate(row.values):
            column = columns[c]
            box = _box(token.words) if token is not None else (column.left, row.y0, column.right, row.y1)
            cells.append(CellRef(r, c + 1, page_number, mapped(box or (column.left, row.y0, column.right, row.y1))))
        if with_sections:
            texts.append(row.section)
            section_box = _box(row.section_words) or _box(row.label_words) or (row.indent, row.y0, value_left, row.y1)
            cells.append(CellRef(r, width - 1, page_number, mapped(section_box)))
        grid.append(tuple(texts))
        refs.append(tuple(cells))
    boxes = [ref.bbox for row_refs in refs for ref in row_refs if ref is not None]
    bbox = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
    first_line = lines[min(header_indices) if header_indices else body_start]
    view_rect = pymupdf.Rect(min(ln.x0 for ln in lines[body_start: block.last + 1]), first_line.y0,
                             max(c.right for c in columns), lines[block.last].y1)
    table = ExtractedTable(
        page=page_number,
        bbox=bbox,
        rows=tuple(grid),
        header_rows=n_header,
        cells=tuple(refs),
        caption=" ".join(caption.split()),
        extractor="ledger",
        pages=(page_number,),
        score=1.0,
    )
    return table, view_rect
