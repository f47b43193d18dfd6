"""Removing what is on a table's edge but not part of it, and finding the table's caption.

Camelot stream in particular takes whatever text lines up with the table: the page's running title,
the page number, the table's title line, and the notes under it. These are trimmed from the top and
bottom of the table: page furniture (a lone line in the page's top or bottom margin, or a page number
standing apart from the rows) is dropped, and so are the lines of text above a numbered title that was read into
the table, the end of a sentence begun above it and a line of code; title lines go to ``caption``; notes and
sources below the table are dropped. The caption is otherwise the title line just above the table (a line below
it, such as "Source: ...", never is), or, where nothing above reads as a numbered title, a numbered title printed
just under the table ("Table 3: Features of ...", as papers set them) with the lines that carry it on.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from typing import Any

import pymupdf

from core.ingest.extraction.grid import DraftTable
from core.ingest.extraction.merge import drop_empty, median_row_height, prose_rows
from core.ingest.extraction.page_text import Word, clean_cell_text, group_lines, strip_superscripts
from core.ingest.extraction.values import TITLE_START, UNITS_LINE, is_page_number, is_value

MARGIN_SHARE = 0.08  # top and bottom share of the page where running heads and folios live
_NOTE_START = re.compile(r"^(source|sources|note|notes|nb|n\.b\.|footnote|\*|\u2020|\u2021|[a-z\d]\)|\(\w\)|[\u00b9\u00b2\u00b3])", re.IGNORECASE)


def _filled(table: DraftTable, r: int) -> list[int]:
    return [c for c, cell in enumerate(table.cells[r]) if cell.text and not table.is_merged_copy(r, c)]


def _row_text(table: DraftTable, r: int) -> str:
    return clean_cell_text(" ".join(table.cells[r][c].text for c in _filled(table, r)))


def _is_lone_row(table: DraftTable, r: int, cut: set[int]) -> bool:
    """A row holding one piece of text: one filled cell, or running text spread over several cells."""
    filled = _filled(table, r)
    return len(filled) == 1 or (len(filled) > 1 and r in cut and not any(is_value(table.cells[r][c].text) for c in filled))


def _gap_after(table: DraftTable, r: int) -> float:
    """Vertical white space between row ``r``'s text and the next row's text."""
    this = [w.y1 for cell in table.cells[r] for w in cell.words]
    nxt = [w.y0 for cell in table.cells[r + 1] for w in cell.words] if r + 1 < table.n_rows else []
    if not this or not nxt:
        return 0.0
    return min(nxt) - max(this)


_HEAD_NEIGHBOURS = 2
"""A running head is printed in the top margin of at least one of this many pages before or after."""
_MARGINS: list[Any] = [None, {}]
"""The document last read and, per page number, the words in its top margin and the bottom of its first line: each
page is read once however many tables it and its neighbours hold (the document itself is held, so that no other one
is taken for it)."""


def _page_top(document: pymupdf.Document, number: int) -> tuple[frozenset[str], float]:
    if _MARGINS[0] is not document:
        _MARGINS[:] = [document, {}]
    pages: dict[int, tuple[frozenset[str], float]] = _MARGINS[1]
    if number not in pages:
        page = document[number]
        words = page.get_text("words")
        first = _first_line_bottom(words)
        band = max(page.rect.y0 + MARGIN_SHARE * page.rect.height, first)
        pages[number] = frozenset(w[4].lower() for w in words if w[3] <= band), first
    return pages[number]


def _margin_words(document: pymupdf.Document, number: int) -> frozenset[str]:
    return _page_top(document, number)[0]


def _first_line_bottom(words: Sequence[tuple[Any, ...]]) -> float:
    """The bottom of a page's first line of text (pymupdf word tuples): a running head set lower than the top margin
    band (a book's wide top margin) is still the page's first line."""
    if not words:
        return float("-inf")
    top = min(words, key=lambda w: w[1])
    return max(w[3] for w in words if w[1] < top[1] + 0.5 * (top[3] - top[1]))


def is_running_head(page: pymupdf.Page, text: str) -> bool:
    """Whether ``text`` (a line in the page's top margin) is printed in the top margin of a page near it too: the
    document's running head ("Educational Timetabling ... A PREPRINT"), not the title of one table."""
    words = {w.lower() for w in text.split() if len(w) > 2 and not w.isdigit()}
    if len(words) < 2 or page.parent is None:
        return False
    document = page.parent
    for number in range(page.number - _HEAD_NEIGHBOURS, page.number + _HEAD_NEIGHBOURS + 1):
        if number != page.number and 0 <= number < document.page_count and \
                len(words & _margin_words(document, number)) * 5 >= len(words) * 4:
            return True
    return False


def drop_running_head(table: DraftTable, page: pymupdf.Page, cut: set[int] | None = None) -> bool:
    """Drop the table's top row if it is the document's running head, and say whether it did. The head is printed in
    the top margin of pages near this one too, set apart from the table, and holds no figure: in pieces in the top
    margin band ("Educational Timetabling: ..." at the left, "A PREPRINT" at the right), or as one piece of text on the
    page's first line where a book's top margin is wider than the band (an author's name over a table)."""
    if table.n_rows < 2:
        return False
    text = _row_text(table, 0)
    box = table.row_rect(0)
    if _gap_after(table, 0) <= 1.2 * median_row_height(table) or \
            any(is_value(table.cells[0][c].text) for c in _filled(table, 0)):
        return False
    in_band = box.y1 <= page.rect.y0 + MARGIN_SHARE * page.rect.height
    words_bottom = max((w.y1 for cell in table.cells[0] for w in cell.words), default=box.y1)
    first_line = not in_band and page.parent is not None and \
        words_bottom <= _page_top(page.parent, page.number)[1] + 1 and \
        _is_lone_row(table, 0, set(prose_rows(table)) if cut is None else cut)
    if not (in_band or first_line) or not is_running_head(page, text):
        return False
    table.drop_rows([0])
    return True


def caption_below(table: DraftTable) -> int | None:
    """The row of a numbered caption set under the table's rows ("Table 4: ...") when none of the lines after it
    holds two figures: the caption and the text below it (a section's heading, references) read into the table;
    None where there is none."""
    cut = set(prose_rows(table))
    for r in range(2, table.n_rows):
        if _is_lone_row(table, r, cut) and is_numbered_title(_row_text(table, r)):
            later = range(r + 1, table.n_rows)
            if not any(sum(1 for c in _filled(table, q) if is_value(table.cells[q][c].text)) >= 2 for q in later):
                return r
            return None
    return None


def _drop_from_caption_below(table: DraftTable) -> None:
    """Drop the caption under the table's rows and every line after it (``caption_below``)."""
    r = caption_below(table)
    if r is not None:
        table.drop_rows(list(range(r, table.n_rows)))


def trim_edges(table: DraftTable, page: pymupdf.Page) -> tuple[str, str]:
    """Drop page furniture and notes at the table's edges on ``page``; return the title and units lines taken off its
    top."""
    drop_empty(table)
    if table.n_rows == 0:
        return "", ""
    line = median_row_height(table)
    page_rect = page.rect
    top_band = page_rect.y0 + MARGIN_SHARE * page_rect.height
    bottom_band = page_rect.y1 - MARGIN_SHARE * page_rect.height
    titles: list[str] = []
    units: list[str] = []
    sections: list[str] = []
    _drop_from_caption_below(table)
    changed = True
    while changed and table.n_rows >= 2:
        changed = False
        cut = set(prose_rows(table))
        # Top edge.
        above = _lines_above_title(table, cut)
        if above:  # the end of the paragraph over the table's numbered title, read into the table with it
            table.drop_rows(list(range(above)))
            changed = True
            continue
        text = _row_text(table, 0)
        box = table.row_rect(0)
        lone = _is_lone_row(table, 0, cut)
        apart = _gap_after(table, 0) > 1.2 * line
        if lone and (box.y1 <= top_band or apart) and (is_page_number(text) or (box.y1 <= top_band and apart)):
            table.drop_rows([0])
            changed = True
            continue
        if drop_running_head(table, page, cut):
            changed = True
            continue
        if lone and not titles and _SENTENCE_END.match(text) and not TITLE_START.match(text):
            # the last words of the paragraph above the title ("... over the whole period levels."), not a title's
            # first line (a title's second line may end so, once its first is taken)
            table.drop_rows([0])
            changed = True
            continue
        if lone and is_code(text) and not TITLE_START.match(text):
            # a line of code over the table: no title and no header, whatever columns it reaches over
            table.drop_rows([0])
            changed = True
            continue
        if lone and (TITLE_START.match(text) or 0 in cut or _filled(table, 0) == [0]):
            titles.append(text)
            table.drop_rows([0])
            changed = True
            continue
        if is_numbered_title(text) and not any(is_value(table.cells[0][c].text) for c in _filled(table, 0)):
            # a numbered caption of two lines cut at the columns ("Table 1:" and its last line at the left, the rest
            # spread over the others): read in its lines' order
            words = [w for c in _filled(table, 0) for w in table.cells[0][c].words]
            titles.append(clean_cell_text(" ".join(w.text for ln in group_lines(words) for w in ln)) or text)
            table.drop_rows([0])
            changed = True
            continue
        if lone and UNITS_LINE.match(text):
            units.append(text)
            table.drop_rows([0])
            changed = True
            continue
        if _SECTION_HEADING.match(text) and table.n_rows > 2 and \
                not any(is_value(table.cells[0][c].text) for c in _filled(table, 0)[1:]):
            # a numbered section heading over the table ("2.7 Time series"), its number in a column of its own: the
            # nearest one names the table where no title does
            sections.append(text)
            table.drop_rows([0])
            changed = True
            continue
        if lone and _SENTENCE_END.match(text):
            # the last words of a sentence ("were left out of the counts.", a caption's or a paragraph's end) over
            # the table: no header, whatever columns it reaches over
            table.drop_rows([0])
            changed = True
            continue
        # Bottom edge.
        last = table.n_rows - 1
        text = _row_text(table, last)
        box = table.row_rect(last)
        lone = _is_lone_row(table, last, cut)
        apart = _gap_after(table, last - 1) > 1.2 * line
        folio = is_page_number(text) and (box.y0 >= bottom_band or apart)
        if lone and (folio or box.y0 >= bottom_band or _NOTE_START.match(text) or last in cut):
            table.drop_rows([last])
            changed = True
            continue
    drop_empty(table)
    if not titles and sections:
        titles = sections[-1:]
    return clean_cell_text(" ".join(titles)), clean_cell_text(" ".join(units))


_TITLE_DEPTH = 3
"""How far down a table's top rows a numbered title may stand under lines of the text above it."""
_SENTENCE_END = re.compile(r"^[a-z][\w,;:'()\-]*(?:\s+\S+){2,}[.]$")
"""A line that ends a sentence begun above it: a lower-case start, three words or more, a full stop."""
_CODE_LINE = re.compile(r"[A-Za-z_]\w*(?:\.\w+)+\s*(?:=|<-|\()")
"""A line of program code: a dotted name assigned or called ("plot.options = defaults)", "df.fit(")."""
_CODE_CALL = re.compile(r"^(?:[a-z_][\w.]*\(.*\)|[a-z_][\w.]*\s*(?:<-|=)\s*\S.*|[a-z_]\w*(?:\.\w+)+)$")
"""A line that is a call, an assignment or a dotted name alone ("data(tli)", "fit <- lm(y ~ x)", "temp.table")."""


_SECTION_HEADING = re.compile(r"^\d{1,2}(?:\.\d{1,2}){0,3}\.?\s+[A-Z][a-z]+(?:\s+\S+){0,6}$")
"""A numbered section heading: "2 Gallery", "2.7 Time series", "3.1. Results by region"."""


def is_code(text: str) -> bool:
    """Whether a line is a line of program code (a software manual prints the code that makes a table over it)."""
    return bool(_CODE_LINE.search(text) or _CODE_CALL.match(text))


def _lines_above_title(table: DraftTable, cut: set[int]) -> int:
    """How many lone rows stand over a lone numbered title ("Table 6.1: ...") among the table's top rows: lines of
    the text above the title, taken into the table with it; 0 where the rows above a title are not all lone, or no
    title stands there."""
    for k in range(1, min(_TITLE_DEPTH, table.n_rows - 1) + 1):
        if not _is_lone_row(table, k - 1, cut):
            return 0
        if _is_lone_row(table, k, cut) and TITLE_START.match(_row_text(table, k)):
            return k
    return 0


def find_caption(
    table: DraftTable,
    words: Sequence[Word],
    others: Sequence[pymupdf.Rect] = (),
    markers: Sequence[tuple[pymupdf.Rect, str]] = (),
) -> str:
    """The title just above the table (``_nearest_title``), or where that is none of a title's lines, a numbered
    title set in a paragraph of up to six lines above it, wider than the table (``_numbered_title_above``)."""
    found = _nearest_title(table, words, others, markers)
    if TITLE_START.match(found):
        return found
    return _numbered_title_above(table, words, others, markers) or found


def _nearest_title(
    table: DraftTable,
    words: Sequence[Word],
    others: Sequence[pymupdf.Rect] = (),
    markers: Sequence[tuple[pymupdf.Rect, str]] = (),
) -> str:
    """The title line just above the table: the nearest line above, if it is close and short.

    A line starting with "Table ..." a little higher up wins over a nearer line that is not a title
    (such as a units line); text inside another table is never a caption; footnote ``markers`` are
    left out.
    """
    box = table.text_rect()
    line_height = median_row_height(table)
    window = pymupdf.Rect(box.x0 - 2 * line_height, box.y0 - 8 * line_height, box.x1 + 2 * line_height, box.y0 - 0.5)
    above = [
        w for w in words
        if w.centre_in(window) and not any(w.centre_in(o) for o in others)
    ]
    above = strip_superscripts(above, markers)
    if not above:
        return ""
    lines = group_lines(above)
    # Lines nearest the table first; a line is kept only while the gaps stay small.
    lines.sort(key=lambda ln: -max(w.y1 for w in ln))
    picked: list[list[Word]] = []
    gaps: list[float] = []
    previous_top = box.y0
    for ln in lines:
        bottom = max(w.y1 for w in ln)
        gaps.append(previous_top - bottom)
        picked.append(ln)
        previous_top = min(w.y0 for w in ln)
        if len(picked) == 4:
            break
    texts = [clean_cell_text(" ".join(w.text for w in ln)) for ln in picked]
    # A "Table ..." line up to a few lines up, with no wide gap on the way, is the title (with the
    # lines under it, such as units).
    for i, text in enumerate(texts):
        if max(gaps[: i + 1]) > 3 * line_height:
            break
        if TITLE_START.match(text):
            return " ".join(reversed(texts[: i + 1]))
    # Otherwise the nearest line, if it stands close: a title may stand a little apart from its table,
    # the lines of a title sit close together.
    keep = 0
    for i, gap in enumerate(gaps[:3]):
        if gap > (2.5 if i == 0 else 1.6) * line_height:
            break
        keep = i + 1
    picked, texts = picked[:keep], texts[:keep]

    def title_like(text: str) -> bool:
        return len(text) <= 150 and not _NOTE_START.match(text) and not text.endswith((".", ":", ";")) and \
            not is_code(text)

    if not texts or not (title_like(texts[0]) or UNITS_LINE.match(texts[0])):
        return ""
    # A title set on two lines: the line above, if it is close and also reads as a title.
    if len(picked) >= 2 and title_like(texts[1]) and len(texts[0]) + len(texts[1]) <= 160:
        gap = min(w.y0 for w in picked[0]) - max(w.y1 for w in picked[1])
        if gap < 0.8 * line_height:
            return f"{texts[1]} {texts[0]}"
    return texts[0]


TABLE_LABEL = r"(?i:table|tab\.)\s*(?P<label>[A-Z]{1,2}[-.]?\d+(?:\.\d+)*[a-z]?|\d+(?:\.\d+)*[a-z]?|[IVXL]+|[A-Z])"
"""A table's label after its word: "Table 3", "Table 2.3", "Table A-2", "TABLE IV", "Table B"."""
_NUMBERED_TITLE = re.compile(rf"^{TABLE_LABEL}\s*[:.\u2013\u2014-]")


def is_numbered_title(text: str) -> bool:
    """A numbered table title ("Table 3:", "TABLE IV.", "Tab. 2 -", "Table A-2."), not a running "Table of
    Contents"."""
    return bool(_NUMBERED_TITLE.match(text))


def _numbered_title_above(table: DraftTable, words: Sequence[Word], others: Sequence[pymupdf.Rect],
                          markers: Sequence[tuple[pymupdf.Rect, str]]) -> str:
    """A numbered title set just above the table in a paragraph of up to six close lines, read whole though it runs
    wider than the table ("Table 18.4: Smoking data. ... smoked / every day.")."""
    box = table.text_rect()
    line_height = median_row_height(table)
    band = pymupdf.Rect(-1e6, box.y0 - 12 * line_height, 1e6, box.y0 - 0.5)
    lines = _lines_over(strip_superscripts(_words_in(band, words, others), markers), box, 2 * line_height)
    lines.sort(key=lambda ln: -max(w.y1 for w in ln))
    previous_top = box.y0
    picked: list[str] = []
    for i, line in enumerate(lines[:6]):
        if previous_top - max(w.y1 for w in line) > (2.5 if i == 0 else 0.8) * line_height:
            return ""
        picked.append(clean_cell_text(" ".join(w.text for w in line)))
        previous_top = min(w.y0 for w in line)
        if is_numbered_title(picked[-1]):
            # (not the title set under another table just above: papers caption their tables below them)
            under = any(o.y1 <= previous_top and previous_top - o.y1 < 3 * line_height and o.x0 < box.x1 and box.x0 < o.x1
                        for o in others)
            return "" if under else " ".join(reversed(picked))
    return ""


_FIGURE_TITLE = re.compile(r"^(?:figure|fig\.)\s*\d+(?:\.\d+)*[a-z]?\s*[:.\u2013\u2014-]", re.IGNORECASE)
"""A figure's numbered title ("Figure 4. Timings of the runs ..."): papers that number every float as a figure
caption a table so, below it."""


def find_caption_below(table: DraftTable, words: Sequence[Word], page: pymupdf.Rect,
                       others: Sequence[pymupdf.Rect] = ()) -> str:
    """A numbered title printed just under the table ("Table 3: Features of the instances. Symbol definition: ...",
    or "Figure 4. ..." where a paper numbers every float as a figure), with the lines that carry it on (at most four,
    set close): papers caption their tables below. Not where another table starts right under the title (the title
    is that table's, set above it), unless that table has a numbered title under it too: then titles go below their
    tables on this page, and this one is the upper table's."""
    box = table.text_rect()
    line_height = median_row_height(table)
    title, last = _title_under(box, line_height, words, page, others)
    if title and any(o.y0 >= last and o.y0 - last < 3 * line_height and o.x0 < box.x1 and box.x0 < o.x1
                     and not _title_under(o, line_height, words, page, others)[0] for o in others):
        return ""
    return title


def caption_below_wins(table: DraftTable, words: Sequence[Word], page: pymupdf.Rect,
                       others: Sequence[pymupdf.Rect] = ()) -> str:
    """The numbered title under the table where the one above it is the title under the table above: two tables
    stacked with a numbered title under each ("Table 4: ..." between them belongs to the upper one). Empty where
    that is not so."""
    box = table.text_rect()
    line_height = median_row_height(table)
    below, _ = _title_under(box, line_height, words, page, others)
    if not below:
        return ""
    for other in others:
        if other.y1 <= box.y0 and other.x0 < box.x1 and box.x0 < other.x1:
            above, last = _title_under(other, line_height, words, page, [*(o for o in others if o != other), box])
            if above and 0 <= box.y0 - last < 4 * line_height:
                return below
    return ""


def _title_under(box: pymupdf.Rect, line_height: float, words: Sequence[Word], page: pymupdf.Rect,
                 others: Sequence[pymupdf.Rect]) -> tuple[str, float]:
    """The numbered title just under ``box`` with the lines that carry it on, and the bottom of its last line; empty
    where the first line under the box is no numbered title or stands too far down."""
    band = pymupdf.Rect(page.x0, box.y1 + 0.5, page.x1, box.y1 + 24 * line_height)
    # a title may run wider than its table: each line's run of words (no gutter between them) over the table
    lines = _lines_over(_words_in(band, words, others), box, 2 * line_height)
    # the table's notes may stand between it and its title ("1 Not significant at 5%.", "* Estimated."): a line
    # opening with a note's mark, and the lines carrying it on, up to twelve
    bottom = box.y1
    notes = 0
    while lines and notes < 12 and min(w.y0 for w in lines[0]) - bottom <= 2.5 * line_height and (
            _is_note_line(lines[0]) or (notes and min(w.y0 for w in lines[0]) - bottom <= 0.8 * line_height
                                        and not is_numbered_title(clean_cell_text(" ".join(w.text for w in lines[0]))))):
        bottom = max(w.y1 for w in lines.pop(0))
        notes += 1
    if not lines or min(w.y0 for w in lines[0]) - bottom > 2.5 * line_height:
        return "", box.y1
    texts = [clean_cell_text(" ".join(w.text for w in lines[0]))]
    if not (is_numbered_title(texts[0]) or _FIGURE_TITLE.match(texts[0])):
        return "", box.y1
    last = max(w.y1 for w in lines[0])
    for line in lines[1:4]:
        top = min(w.y0 for w in line)
        if top - last > 0.8 * line_height:
            break
        texts.append(clean_cell_text(" ".join(w.text for w in line)))
        last = max(w.y1 for w in line)
    return " ".join(texts), last


def _is_note_line(line: Sequence[Word]) -> bool:
    """Whether a line under a table is one of its notes: it opens with "Note", "Source", "*", "(a)", "1." and the
    like, or with a mark set small and raised (a footnote's number)."""
    text = clean_cell_text(" ".join(w.text for w in line))
    if _NOTE_START.match(text) or _NUMBERED_NOTE.match(text):
        return True
    first, rest = line[0], line[1:]
    return bool(rest) and len(first.text) <= 2 and first.height < 0.75 * statistics.median(w.height for w in rest)


_NUMBERED_NOTE = re.compile(r"^\(?\d{1,2}[.)]\s+\S")
"""A note numbered in the line ("1. More than ...", "(2) Only ..."): under a table and over its title, its notes."""


def _words_in(band: pymupdf.Rect, words: Sequence[Word], others: Sequence[pymupdf.Rect]) -> list[Word]:
    """The words in ``band``, none of another table."""
    return [w for w in words if w.centre_in(band) and not any(w.centre_in(o) for o in others)]


def _lines_over(words: Sequence[Word], box: pymupdf.Rect, gutter: float) -> list[list[Word]]:
    """The words' lines, each cut to its runs of words (parted by gaps wider than ``gutter``: the columns of a page set
    in two) that stand over ``box``, joined; lines with none left out."""
    over = [[w for run in _runs(line, gutter) if min(w.x0 for w in run) < box.x1 and box.x0 < max(w.x1 for w in run)
             for w in run] for line in group_lines(words)]
    return [line for line in over if line]


def _runs(line: Sequence[Word], gutter: float) -> list[list[Word]]:
    """A line's words in runs parted by gaps wider than ``gutter`` (the columns of a page set in two)."""
    runs: list[list[Word]] = []
    for word in line:
        if runs and word.x0 - runs[-1][-1].x1 <= gutter:
            runs[-1].append(word)
        else:
            runs.append([word])
    return runs
