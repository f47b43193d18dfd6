"""The words of a page as table extraction reads them, and how a cell's words become clean cell text.

Every extractor's cells are re-read from these words (never from the extractor's own text), so the
text does not depend on which extractor won and pymupdf 2.x's garbling of thousands separators
(``'1200\\n,'`` for ``1,200``) never reaches a table. Superscript footnote markers are recognised from
the font (smaller and raised above the line's baseline), not guessed from trailing digits.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise

import pymupdf

from core.reports.words import CONTROL_CHARACTERS, CONTROL_DASHES, plain_letters

# Unicode spaces (thin, em, no-break...) and the replacement character pymupdf emits for glyphs
# without a Unicode mapping (dot leaders in many government PDFs).
_ODD_SPACES = re.compile(r"[\u00a0\u2000-\u200b\u202f\u205f\u3000]")
_LEADER_DOTS = re.compile(r"\s*(?:[.\u2024\u2026\u00b7_]\s*){4,}")
_BEFORE_DECIMALS = re.compile(r"^[(\-−$€£]?\d{1,3}(?:,\d{3})*\.$|^[(\-−$€£]?\d+\.$")
_DECIMALS = re.compile(r"^\d+\)?%?$")
_FOOTNOTE_MARKER = re.compile(r"^[(\[]?(?:\d{1,2}|[a-zA-Z]|[*\u2020\u2021\u00a7\u00b6#]{1,3})[)\]]?,?$")

SUPERSCRIPT_FLAG = 1  # pymupdf span flag bit set by MuPDF for superscripted text
# Words closer than this share of their height belong to one phrase (a word space is about 0.25).
PHRASE_GAP = 0.8
NUMBER_GAP = 0.3


@dataclass(frozen=True)
class Word:
    """One word on the page, in the coordinates table extraction works in (top-left origin, points)."""

    x0: float
    y0: float
    x1: float
    y1: float
    text: str
    line: tuple[int, int] = (-1, -1)  # pymupdf's block and line number: words of one text line share it
    order: int = 0  # position in its line, in reading order
    vertical: bool = False  # its line runs up or down (a rotated column header)

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def box(self) -> tuple[float, float, float, float]:
        return (self.x0, self.y0, self.x1, self.y1)

    @property
    def rect(self) -> pymupdf.Rect:
        return pymupdf.Rect(self.x0, self.y0, self.x1, self.y1)

    def centre_in(self, box: pymupdf.Rect) -> bool:
        """``box.contains(Point(cx, cy))``, without building pymupdf objects for every word and box."""
        return point_in(box, self.cx, self.cy)


def point_in(box: pymupdf.Rect, x: float, y: float) -> bool:
    """Exactly ``box.contains(pymupdf.Point(x, y))``, at a fraction of its cost.

    MuPDF tests ``x0 <= x < x1 and y0 <= y < y1`` in single precision. Unless the point lies within
    rounding distance of an edge, double precision gives the same answer; only then is MuPDF asked.
    """
    x0, y0, x1, y1 = box.x0, box.y0, box.x1, box.y1
    eps = 1e-6 * (1.0 + abs(x) + abs(y) + abs(x0) + abs(y0) + abs(x1) + abs(y1))
    if x < x0 - eps or x >= x1 + eps or y < y0 - eps or y >= y1 + eps:
        return False
    if x0 + eps <= x < x1 - eps and y0 + eps <= y < y1 - eps:
        return True
    return bool(box.contains(pymupdf.Point(x, y)))


def clean_word_text(text: str) -> str:
    """Normalise one word: odd Unicode spaces become spaces, ligatures are spelt out ("ﬁ": "fi"), unmapped glyphs
    and control characters go."""
    text = plain_letters(_ODD_SPACES.sub(" ", text))
    return "".join(ch for ch in text if ch != "\ufffd" and unicodedata.category(ch) != "Cc").strip()


def _is_dots(text: str) -> bool:
    return bool(text) and all(ch in ".\u2024\u2026\u00b7_" for ch in text)


def drop_leaders(words: Sequence[Word]) -> list[Word]:
    """Remove dot leaders (``Total . . . . . 12``): dot-only words in a run, or of four dots or more.

    A lone ``.`` or ``...`` stays: some tables print those for "not available".
    """
    keep = [True] * len(words)
    for i, word in enumerate(words):
        if not _is_dots(word.text):
            continue
        if len(word.text) >= 4:
            keep[i] = False
            continue
        for j in (i - 1, i + 1):
            if 0 <= j < len(words) and _is_dots(words[j].text):
                other = words[j]
                same_line = abs(other.cy - word.cy) < 0.5 * word.height
                close = max(other.x0 - word.x1, word.x0 - other.x1) < 1.5 * word.height
                if same_line and close:
                    keep[i] = False
    return [w for w, k in zip(words, keep) if k]


def read_words(page: pymupdf.Page) -> list[Word]:
    """Every word on the page with visible text, in reading order as pymupdf gives it, without dot leaders."""
    words: list[Word] = []
    for x0, y0, x1, y1, raw, block, line, order in page.get_text("words"):
        text = clean_word_text(raw)
        if text:
            words.append(Word(x0, y0, x1, y1, text, (block, line), order))
    return mark_vertical(join_split_decimals(drop_leaders(settle_tall_signs(join_at_control_characters(page, words)))))


def settle_tall_signs(words: list[Word]) -> list[Word]:
    """A sign of one or two characters (no letter or digit) drawn much taller than the page's text (a radical "√" set
    as a check mark, a bullet, a large bracket) stands on its line's baseline and reaches up into the line above:
    its box is cut to the text's height from its bottom, so that it is read on its own line, not the one above."""
    if len(words) < 5:
        return words
    usual = statistics.median(w.height for w in words)
    return [replace(w, y0=w.y1 - usual) if len(w.text) <= 2 and w.height > 1.5 * usual and
            not any(ch.isalnum() for ch in w.text) else w for w in words]


def join_at_control_characters(page: pymupdf.Page, words: list[Word]) -> list[Word]:
    """Put back the dashes and ligatures a TeX font printed as control characters, where pymupdf ends a word (see
    ``words.CONTROL_CHARACTERS``): "50" and "54" around 0x15 are the range "50–54"; "e" and "ect" around 0x1B are
    "effect"; 0x1C before "rst" is "first". A dash joins two words only; a ligature joins the words it touches."""
    text = page.get_text("text")
    if not any(code in text for code in CONTROL_CHARACTERS):
        return words
    marks = [(pymupdf.Rect(char["bbox"]), char["c"])
             for block in page.get_text("rawdict").get("blocks", []) for line in block.get("lines", ())
             for span in line["spans"] for char in span["chars"] if char["c"] in CONTROL_CHARACTERS]
    out = list(words)
    for box, code in marks:
        mid = (box.y0 + box.y1) / 2
        on_line = [w for w in out if w.y0 <= mid <= w.y1]
        left = next((w for w in on_line if abs(w.x1 - box.x0) < 0.5), None)
        right = next((w for w in on_line if abs(w.x0 - box.x1) < 0.5), None)
        if code in CONTROL_DASHES:
            touches = left is not None and right is not None
        else:  # a ligature after a letter, or before a lower-case one
            touches = (left is not None and left.text[-1:].isalpha()) or (right is not None and right.text[:1].islower())
        if left is right or not touches:
            continue
        parts = [w for w in (left, right) if w is not None]
        joined = Word(min([box.x0] + [w.x0 for w in parts]), min([box.y0] + [w.y0 for w in parts]),
                      max([box.x1] + [w.x1 for w in parts]), max([box.y1] + [w.y1 for w in parts]),
                      (left.text if left else "") + CONTROL_CHARACTERS[code] + (right.text if right else ""),
                      parts[0].line, parts[0].order)
        out = [joined if w is parts[0] else w for w in out if not (len(parts) == 2 and w is parts[1])]
    return out


def join_split_decimals(words: Sequence[Word]) -> list[Word]:
    """Glue a figure cut at its decimal point back together: some PDFs print bold figures with a zero-width
    point and a space after it (``11,062. 6``), which pymupdf reads as two words. The pieces must be one
    text line of pymupdf's and closer than NUMBER_GAP. These words are read for tables only, where a
    figure ending a sentence just before a bare number does not occur."""
    out: list[Word] = []
    for word in words:
        if out:
            left = out[-1]
            height = min(left.height, word.height)
            if (_BEFORE_DECIMALS.match(left.text) and _DECIMALS.match(word.text) and left.line == word.line
                    and abs(left.cy - word.cy) < 0.3 * height and 0 <= word.x0 - left.x1 < NUMBER_GAP * height):
                out[-1] = replace(left, x1=word.x1, y0=min(left.y0, word.y0), y1=max(left.y1, word.y1),
                                  text=left.text + word.text)
                continue
        out.append(word)
    return out


def mark_vertical(words: Sequence[Word]) -> list[Word]:
    """Flag the words of text lines that run up or down (in the words' current coordinates)."""
    extent: dict[tuple[int, int], list[float]] = {}
    count: Counter[tuple[int, int]] = Counter()
    for w in words:
        box = extent.setdefault(w.line, [w.x0, w.y0, w.x1, w.y1])
        box[:] = [min(box[0], w.x0), min(box[1], w.y0), max(box[2], w.x1), max(box[3], w.y1)]
        count[w.line] += 1
    out = []
    for w in words:
        x0, y0, x1, y1 = extent[w.line]
        if count[w.line] >= 2:
            vertical = (y1 - y0) > (x1 - x0)
        else:
            vertical = len(w.text) >= 2 and w.height > 1.5 * (w.x1 - w.x0)
        out.append(replace(w, vertical=vertical) if vertical != w.vertical else w)
    return out


def superscript_boxes(page: pymupdf.Page, clip: pymupdf.Rect) -> list[tuple[pymupdf.Rect, str]]:
    """Boxes and text of footnote markers set as superscripts inside ``clip`` (unrotated coordinates).

    A span counts only when it is clearly separate from the text it annotates: shaped like a marker
    (``1``, ``a``, ``*``, ``(2)``), smaller than the text it follows immediately, and raised above that
    text's baseline (or flagged superscript by MuPDF). Text may run in any direction on the page.
    """
    spans = [
        (span, line["dir"])
        for block in page.get_text("dict", clip=clip).get("blocks", [])
        for line in block.get("lines", [])
        for span in line.get("spans", [])
        if span.get("text", "").strip()
    ]
    found: list[tuple[pymupdf.Rect, str]] = []
    for marker, (dx, dy) in spans:
        text = clean_word_text(marker["text"])
        if not _FOOTNOTE_MARKER.match(text):
            continue
        up_x, up_y = dy, -dx  # "up" for this writing direction

        def along(point: tuple[float, float]) -> float:
            return point[0] * dx + point[1] * dy  # noqa: B023

        box = pymupdf.Rect(marker["bbox"])
        start = min(along(p) for p in (box.tl, box.br, box.tr, box.bl))
        for host, _ in spans:
            if host is marker or marker["size"] > 0.85 * host["size"]:
                continue
            host_box = pymupdf.Rect(host["bbox"])
            end = max(along(p) for p in (host_box.tl, host_box.br, host_box.tr, host_box.bl))
            if not -0.25 * host["size"] <= start - end <= 0.6 * host["size"]:
                continue
            rise = (marker["origin"][0] - host["origin"][0]) * up_x + (marker["origin"][1] - host["origin"][1]) * up_y
            raised = 0.15 * host["size"] < rise < host["size"]
            if raised or (marker["flags"] & SUPERSCRIPT_FLAG and rise >= 0):
                found.append((box, text))
                break
    return found


def strip_superscripts(words: Sequence[Word], markers: Sequence[tuple[pymupdf.Rect, str]]) -> list[Word]:
    """Drop footnote markers from ``words``: whole marker words, or a marker glued to a word's end."""
    if not markers:
        return list(words)
    out: list[Word] = []
    for word in words:
        rect = word.rect
        kept: Word | None = word
        for box, text in markers:
            if not rect.intersects(box):
                continue
            inside = abs(rect & box) / max(abs(rect), 1e-6)
            if inside >= 0.7:
                kept = None
                break
            if word.text.endswith(text) and len(word.text) > len(text) and box.x0 >= rect.x0 + 0.3 * rect.width:
                trimmed = word.text[: -len(text)].rstrip()
                kept = replace(word, x1=min(word.x1, box.x0), text=trimmed) if trimmed else None
                break
        if kept is not None:
            out.append(kept)
    return out


def group_lines(words: Iterable[Word]) -> list[list[Word]]:
    """Words grouped into visual lines (top to bottom), each line sorted left to right."""
    lines: list[list[Word]] = []
    band = (0.0, 0.0)  # vertical extent of the current line's first word: lines must not chain together
    for word in sorted(words, key=lambda w: (w.cy, w.x0)):
        if lines:
            top, bottom = band
            overlap = min(bottom, word.y1) - max(top, word.y0)
            if overlap >= 0.5 * min(word.height, bottom - top):
                lines[-1].append(word)
                continue
        lines.append([word])
        band = (word.y0, word.y1)
    return [sorted(line, key=lambda w: w.x0) for line in lines]


def phrases(words: Iterable[Word]) -> list[list[Word]]:
    """Words grouped into phrases: runs on one line separated by no more than a word space."""
    words = list(words)
    out: list[list[Word]] = [[w] for w in words if w.vertical]
    for line in group_lines(w for w in words if not w.vertical):
        out.append([line[0]])
        for left, right in pairwise(line):
            gap = right.x0 - left.x1
            height = min(left.height, right.height)
            # Two figures side by side are two cells unless set a bare space apart ("1 234").
            limit = NUMBER_GAP if _is_figure(left.text) and _is_figure(right.text) else PHRASE_GAP
            if gap > limit * height:
                out.append([right])
            else:
                out[-1].append(right)
    return out


def _is_figure(text: str) -> bool:
    return any(ch.isdigit() for ch in text) and not any(ch.isalpha() for ch in text)


def joined_phrase(phrase: Sequence[Word]) -> Word:
    """One phrase's words as one ``Word``: their box, their text joined with spaces."""
    if len(phrase) == 1:
        return phrase[0]
    return replace(
        phrase[0],
        x0=min(w.x0 for w in phrase), y0=min(w.y0 for w in phrase), x1=max(w.x1 for w in phrase),
        y1=max(w.y1 for w in phrase), text=" ".join(w.text for w in phrase),
    )


def join_cell_lines(lines: Sequence[str]) -> str:
    """Join the lines of one cell with spaces; a line ending in a hyphen or dash runs on without one."""
    text = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if text and text[-1] in "-\u2010\u2011\u2013" and len(text) > 1 and text[-2].isalnum():
            text += line
        elif text:
            text += " " + line
        else:
            text = line
    return text


def clean_cell_text(text: str) -> str:
    """Collapse whitespace and drop dot leaders (``Defense ........``) from a cell's text.

    A cell that is nothing but dots (``...`` for "not available") keeps them: that is its value.
    """
    text = " ".join(plain_letters(_ODD_SPACES.sub(" ", text)).split())
    without_leaders = " ".join(_LEADER_DOTS.sub(" ", text).split())
    return without_leaders or text


def cell_text(words: Sequence[Word]) -> str:
    """The clean text of the words that fall in one cell, line by line."""
    if not words:
        return ""
    if sum(1 for w in words if w.vertical) > len(words) / 2:
        # Rotated text (a column header set sideways): pymupdf's own line and word order is the reading order.
        by_line: dict[tuple[int, int], list[Word]] = {}
        for w in sorted(words, key=lambda w: (w.line, w.order)):
            by_line.setdefault(w.line, []).append(w)
        lines = [" ".join(w.text for w in line) for line in by_line.values()]
    else:
        lines = [" ".join(w.text for w in line) for line in group_lines(words)]
    return clean_cell_text(join_cell_lines(lines))
