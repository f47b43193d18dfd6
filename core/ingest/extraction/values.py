"""What a cell's text looks like: a number, a year, a "no value" marker, a page number, or words.

Table extraction uses these shapes to tell header rows from body rows, tables from prose, and page
furniture from table rows. (Typing values for SQL is done later, when tables are stored.)
"""

from __future__ import annotations

import re

from core.reports.values import NULL_WORDS, YEAR_DIGITS

_NUMBER = re.compile(
    r"""^[(\[]?\s*[-+\u2212\u2013\u2014]?\s*      # opening bracket, sign
        [$\u20ac\u00a3\u00a5\u20b9]?\s*           # currency
        (\d{1,3}([,\u00a0 '\u202f]\d{3})+|\d+)?   # integer part, grouped or not
        ([.,]\d+)?                                # fraction
        \s*(%|\u2030|pp|p\.p\.|bn|m|k|x)?\s*       # unit suffix
        [)\]]?\s*[*\u2020\u2021]*$""",
    re.VERBOSE | re.IGNORECASE,
)
_YEAR = re.compile(rf"^(fy\s*)?({YEAR_DIGITS})([/\u2013\u2014-]\s*(\d\d|\d{{4}}))?[a-z*]?$", re.IGNORECASE)
_YEAR_IN_TEXT = re.compile(rf"(?<![\d,.])({YEAR_DIGITS})(?![\d,.])")
# A currency code or sign and/or an apostrophe before "000": a unit, never a value of 0.
_SCALE_MARK = re.compile(r"^\(?\s*(?=[a-z$\u20ac\u00a3\u00a5\u20b9'\u2019\u00b7])[a-z]{0,3}\s?[$\u20ac\u00a3\u00a5\u20b9\u00b7]?\s*['\u2019]?"
                         r"\s*000(?:['\u2019]?s)?\s*\)?$", re.IGNORECASE)
_NULL_MARKERS = {"-", "\u2013", "\u2014", "\u2212", "--", "..", "...", "\u2026", "*"} | NULL_WORDS
_PAGE_NUMBER = re.compile(
    r"^[-\u2013\u2014\s]*(page|p\.|seite|pag\.?)?\s*[ivxlc\d]{1,4}(\s*(of|/|de|von)\s*\d{1,4})?[-\u2013\u2014\s]*$",
    re.IGNORECASE,
)


def is_numeric(text: str) -> bool:
    """A number as tables print them: ``1,234``, ``(1,234)``, ``-12.5%``, ``$ 3.4``, ``12 345``."""
    text = text.strip()
    if not text or not any(ch.isdigit() for ch in text):
        return False
    return bool(_NUMBER.match(text))


def is_year(text: str) -> bool:
    """A year or a span of years as column headers print them: ``2012``, ``2013-2017``, ``FY 2011``."""
    return bool(_YEAR.match(text.strip()))


def is_null_marker(text: str) -> bool:
    """A placeholder for a missing value: a dash, dots, ``n/a``."""
    return text.strip().lower() in _NULL_MARKERS


def is_value(text: str) -> bool:
    """A body value: a number (not a year, nor a unit such as ``$000``) or a missing-value marker."""
    return (is_numeric(text) and not is_year(text) and not is_scale_mark(text)) or is_null_marker(text)


def is_scale_mark(text: str) -> bool:
    """A column's unit printed in thousands: ``US$000``, ``$'000``, ``RMB'000``, ``(£000s)``: it heads figures."""
    return bool(_SCALE_MARK.match(text.strip()))


def is_figure(text: str) -> bool:
    """A body entry with a number in it: a value, or a short figure such as ``63 (18.5%)``, ``$9,594 or less``.

    Years and spans of years are not figures: they head columns; nor are units in thousands (``US$000``).
    """
    text = text.strip()
    if is_value(text):
        return True
    if is_year(text.strip(" -\u2013\u2014")) or _YEAR_IN_TEXT.search(text) or is_scale_mark(text):
        return False  # "2013–", "DLHS-4 (2012-13)", "Q1 2009": labels of periods head columns
    words = text.split()
    digits = sum(ch.isdigit() for ch in text)
    letters = sum(ch.isalpha() for ch in text)
    wordy = sum(1 for w in words if sum(ch.isalpha() for ch in w) >= 2)
    return digits > 0 and len(words) <= 4 and (letters <= digits or (wordy <= 2 and digits >= 3))


def is_page_number(text: str) -> bool:
    """Text that reads as a page number: ``12``, ``- 12 -``, ``Page 3 of 10``, ``iv``."""
    return bool(_PAGE_NUMBER.match(text.strip()))


TITLE_START = re.compile(r"^(table|tab\.|exhibit|schedule|chart|figure|annex|appendix)\b\s*[\w.\-\u2013:]*", re.IGNORECASE)
"""How a table's title line starts: "Table 3:", "Exhibit 9", "Annex II"."""
UNITS_LINE = re.compile(r"^\(\s*(in|per|all|figures|amounts?|values?|units?)\b.*\)$|^(in|figures in|amounts in|all figures in)\s+\S+(\s+of\s+\S+)*$", re.IGNORECASE)
"""A line that gives the table's units: "(In crores of Rupees)", "(Per cent)", "in millions"."""
