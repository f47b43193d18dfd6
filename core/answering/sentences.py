"""Which sentences of a cited passage answer, and their boxes on the page.

A text chunk covers whole layout blocks, so its boxes light up a title, a footnote or a page number
along with the sentence that answers. This module reads the page's words with their line numbers
(pymupdf), drops the lines in the top and bottom margins that are short (running headers, footers,
page numbers) and lines that are only a number, rebuilds the chunk's sentences from its text lines,
scores them by the words and figures they share with the question and the answer, and returns the
best ones with one box per line they occupy. When the PDF cannot be opened (moved, or it needs a
password) the caller keeps the chunk's own boxes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from core.answering.operations import words
from core.reports.words import plain_letters
from models.types import BBox

MARGIN = 0.08
"""Top and bottom share of the page where short lines are running headers, footers or page numbers."""
MARGIN_LINE_WORDS = 8
MAX_SENTENCES = 2
MIN_SENTENCE_WORDS = 4
_SENTENCE_END = re.compile(r"[.!?][\"')\u201d\u2019]*$")
_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?")
_YEAR = re.compile(r"^(19|20)\d\d$")
_ONLY_NUMBER = re.compile(r"^[\W\d]*\d[\W\d]*$|^(page|p\.)\s*\d+(\s*of\s*\d+)?$", re.IGNORECASE)
_ABBREVIATION = re.compile(r"^(rs|no|nos|vs|e\.g|i\.e|etc|mr|mrs|dr|inc|ltd|co|fig|approx)\.$", re.IGNORECASE)


@dataclass(frozen=True)
class Sentence:
    text: str
    boxes: tuple[BBox, ...]
    """One box per text line the sentence occupies (a sentence may start mid-line)."""


@dataclass(frozen=True)
class _Word:
    box: BBox
    text: str
    line: tuple[int, int]


def _inside(box: BBox, regions: Sequence[BBox], pad: float = 1.5) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return any(r[0] - pad <= cx <= r[2] + pad and r[1] - pad <= cy <= r[3] + pad for r in regions)


def _lines(page: pymupdf.Page, regions: Sequence[BBox]) -> list[list[_Word]]:
    """The page's text lines inside ``regions``, in reading order, without margin furniture."""
    height = page.rect.height
    by_line: dict[tuple[int, int], list[_Word]] = {}
    for x0, y0, x1, y1, text, block, line, _number in page.get_text("words", sort=True):
        box = (float(x0), float(y0), float(x1), float(y1))
        if regions and not _inside(box, regions):
            continue
        by_line.setdefault((int(block), int(line)), []).append(_Word(box, plain_letters(str(text)), (int(block), int(line))))
    out = []
    for found in by_line.values():
        text = " ".join(w.text for w in found)
        top, bottom = min(w.box[1] for w in found), max(w.box[3] for w in found)
        in_margin = bottom <= height * MARGIN or top >= height * (1 - MARGIN)
        if (in_margin and len(found) < MARGIN_LINE_WORDS) or _ONLY_NUMBER.match(text.strip()):
            continue
        out.append(found)
    return out


def sentences(lines: Sequence[Sequence[_Word]]) -> list[Sentence]:
    """Sentences rebuilt from text lines: a sentence ends at ., ! or ? (not after "Rs." or "e.g.") and at
    the end of a layout block, so a title or a table caption stands alone."""
    out: list[Sentence] = []
    current: list[_Word] = []

    def close() -> None:
        if current:
            line_boxes: dict[tuple[int, int], list[BBox]] = {}
            for word in current:
                line_boxes.setdefault(word.line, []).append(word.box)
            boxes = tuple((min(b[0] for b in bs), min(b[1] for b in bs), max(b[2] for b in bs), max(b[3] for b in bs))
                          for bs in line_boxes.values())
            out.append(Sentence(" ".join(w.text for w in current), boxes))
            current.clear()

    previous_block: int | None = None
    for line in lines:
        block = line[0].line[0]
        if previous_block is not None and block != previous_block:
            close()
        previous_block = block
        for word in line:
            current.append(word)
            if _SENTENCE_END.search(word.text) and not _ABBREVIATION.match(word.text):
                close()
    close()
    return out


def _numbers(text: str) -> set[str]:
    """The figures in a text, years left out: every heading and running title has one."""
    return {n.replace(",", "") for n in _NUMBER.findall(text)} - {n for n in _NUMBER.findall(text) if _YEAR.match(n)}


def best_sentences(found: Sequence[Sentence], query: str, limit: int = MAX_SENTENCES) -> list[Sentence]:
    """The sentences sharing most of the query's words (figures count double), in page order; none when
    no sentence shares anything."""
    asked = {w for w in words(query) if not _YEAR.match(w)}
    figures = _numbers(query)
    scored = []
    for index, sentence in enumerate(found):
        if len(sentence.text.split()) < MIN_SENTENCE_WORDS:
            continue
        score = len(asked & words(sentence.text)) + 2 * len(figures & _numbers(sentence.text))
        if score:
            scored.append((score, index, sentence))
    if not scored:
        return []
    best = max(score for score, _, _ in scored)
    kept = sorted((item for item in scored if item[0] >= 0.6 * best), key=lambda item: (-item[0], item[1]))[:limit]
    return [sentence for _, _, sentence in sorted(kept, key=lambda item: item[1])]


def answering_sentences(path: Path, page: int, regions: Sequence[BBox], query: str,
                        password: str | None = None) -> list[Sentence] | None:
    """The sentences of the passage in ``regions`` on ``page`` that answer ``query`` (all its sentences,
    without the page furniture, when none shares a word with the query); None when the PDF cannot be
    read now."""
    try:
        document = pymupdf.open(path)
    except Exception:  # noqa: BLE001 (moved or damaged since it was added: keep the chunk's boxes)
        return None
    try:
        if document.needs_pass and not (password and document.authenticate(password)):
            return None
        if not 1 <= page <= document.page_count:
            return None
        lines = _lines(document.load_page(page - 1), regions)
    finally:
        document.close()
    found = sentences(lines)
    return best_sentences(found, query) or [s for s in found if len(s.text.split()) >= MIN_SENTENCE_WORDS] or found
