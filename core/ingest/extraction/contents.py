"""Recognising tables of contents, indexes and exhibit lists: laid out like tables, but not data.

A contents page aligns titles beside page numbers, so table extraction finds a "table" there; as SQL
data it only misleads (a page number came back as the answer to an EBITDA question). Such a table has
one figure per row, a whole number that reads as a page number, rising down the rows; or a header or
caption that says so ("Page", "Table of Contents", "Index", "Exhibit").
"""

from __future__ import annotations

import re
from itertools import pairwise

from core.ingest.extraction.values import is_figure
from models.types import ExtractedTable

MIN_ENTRIES = 4
_PAGE_NUMBER = re.compile(r"^(?:[A-Z]-)?\d{1,4}$")
_CONTENTS_WORDS = re.compile(r"\b(?:table of contents|contents|index to|exhibit index|index of exhibits)\b", re.IGNORECASE)
_PAGE_HEADER = re.compile(r"^(?:beginning\s+)?page(?:\s+no\.?|\s+number)?s?$", re.IGNORECASE)


def _number(text: str) -> int | None:
    text = text.strip()
    if not _PAGE_NUMBER.match(text):
        return None
    return int(re.sub(r"^[A-Z]-", "", text))


def is_contents(table: ExtractedTable) -> bool:
    """Whether ``table`` is a table of contents (titles beside rising page numbers), not data."""
    header = [cell for row in table.rows[: table.header_rows] for cell in row if cell.strip()]
    says_pages = any(_PAGE_HEADER.match(cell.strip()) for cell in header)
    entries: list[int] = []
    figure_rows = 0
    for row in table.rows[table.header_rows:]:
        filled = [cell.strip() for cell in row if cell.strip()]
        figures = [cell for cell in filled if is_figure(cell)]
        if not figures:
            continue
        figure_rows += 1
        page = _number(filled[-1]) if len(figures) == 1 and filled[-1] == figures[0] and len(filled) >= 2 else None
        if page is not None:
            entries.append(page)
    if len(entries) < MIN_ENTRIES or len(entries) < 0.7 * figure_rows:
        return False
    rising = sum(a <= b for a, b in pairwise(entries)) / max(len(entries) - 1, 1)
    return rising >= 0.8 and (says_pages or rising >= 0.9 or bool(_CONTENTS_WORDS.search(table.caption)))
