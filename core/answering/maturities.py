"""Periods of maturity: how far ahead a figure falls due, asked in words and printed as columns.

Contractual-obligation, lease and debt-maturity tables (and ageing tables of receivables) head their columns
with ranges of time rather than years: "Less than 1 year", "1-3 years", "3-5 years", "More than 5 years",
"Thereafter", "Total". A question names such a range in its own words: "between 2 to 4 years", "due within 3
years" (the ranges up to five years, added), "after five years", "three to six months of age". ``asked`` reads
those ranges out of a question (the rest is the line it asks about); ``columns`` reads a table's ranges from its
headers; ``covering`` says which columns make up a range asked: the one column printing it, or the columns
that tile it exactly. A range no columns tile is not answered from the table (the loop reads it instead).
Pure rules: nothing here reads the library.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from models.types import ColumnSchema


@dataclass(frozen=True)
class Span:
    """A range of time ahead, in months: ``low`` (exclusive of what falls before) to ``high`` (``math.inf``:
    open-ended, "more than 5 years")."""

    low: float
    high: float

    def within(self, other: Span) -> bool:
        return other.low <= self.low and self.high <= other.high


_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
            "ten": 10, "twelve": 12, "eighteen": 18, "thirty": 30, "sixty": 60, "ninety": 90}
_N = r"(?:\d+(?:\.\d+)?|" + "|".join(_NUMBERS) + ")"
_UNIT = r"(?P<unit>years?|yrs?|months?|days?)\b"
_MONTHS = {"y": 12.0, "m": 1.0, "d": 1.0 / 30}

_BETWEEN = re.compile(rf"\b(?:between\s+)?(?P<a>{_N})\s*(?:years?\s+|months?\s+)?(?:-|\u2013|to|and|through)\s*"
                      rf"(?P<b>{_N})\s+{_UNIT}", re.IGNORECASE)
_UP_TO = re.compile(rf"\b(?:within|in\s+less\s+than|less\s+than|fewer\s+than|under|up\s+to|no\s+more\s+than|"
                    rf"not\s+more\s+than|not\s+later\s+than|not\s+exceeding|(?:due|payable|maturing|expiring)\s+in|"
                    rf"(?:in|over|during)\s+the\s+(?:next|coming|first))\s+(?:the\s+next\s+|the\s+first\s+)?"
                    rf"(?P<b>{_N}|a|one)\s+{_UNIT}", re.IGNORECASE)
_OR_LESS = re.compile(rf"\b(?P<b>{_N})\s+{_UNIT}\s+or\s+(?:less|below|fewer|under|sooner|earlier)\b", re.IGNORECASE)
_BEYOND = re.compile(rf"\b(?:more\s+than|greater\s+than|after|beyond|later\s+than|in\s+excess\s+of|"
                     rf"exceeding)\s+(?P<a>{_N}|a|one)\s+{_UNIT}", re.IGNORECASE)
_OR_MORE = re.compile(rf"\b(?P<a>{_N})\s+{_UNIT}\s+(?:or\s+(?:more|longer|later|above|over)|and\s+(?:beyond|over|"
                      rf"thereafter|later))\b", re.IGNORECASE)
_THEREAFTER = re.compile(r"^\s*(?:thereafter|later\s+years|after\s+that|beyond)\s*$", re.IGNORECASE)
_TOTAL = re.compile(r"\btotals?\s*$", re.IGNORECASE)

_LEAD_IN = re.compile(r"(?:,?\s*(?:that|which)\b)?(?:\s*(?:are|is|were|was|will\s+be|falls?|fell|becomes?|came|comes?)\b)?"
                      r"(?:\s*(?:due|payable|maturing|expiring|falling\s+due|owed|of\s+age|aged?|old)\b)?"
                      r"(?:\s*(?:in|of|for|with)\b)?\s*$", re.IGNORECASE)
_TRAILING = re.compile(r"^\s*(?:of\s+age|old|from\s+now|ahead|away)\b", re.IGNORECASE)
_AND = re.compile(r"^\s*(?:,\s*)?(?:and|or)\s+(?:those\s+|the\s+ones\s+)?(?:that\s+are\s+)?(?:due\s+)?$", re.IGNORECASE)


def _number(text: str) -> float:
    word = text.lower()
    return float(_NUMBERS.get(word, 1 if word in ("a", "one") else 0)) if not word[0].isdigit() else float(word)


def _months(unit: str) -> float:
    return _MONTHS[unit.lower()[0]]


def _spans_in(text: str) -> list[tuple[int, int, Span]]:
    """Each range of time the text names: (start, end, span), in the order said, overlapping matches dropped."""
    found: list[tuple[int, int, Span]] = []
    for pattern, shape in ((_BETWEEN, "between"), (_OR_LESS, "up"), (_UP_TO, "up"), (_OR_MORE, "beyond"),
                           (_BEYOND, "beyond")):
        for match in pattern.finditer(text):
            if any(start < match.end() and match.start() < end for start, end, _ in found):
                continue
            months = _months(match.group("unit"))
            if shape == "between":
                low, high = _number(match.group("a")) * months, _number(match.group("b")) * months
                if not low < high:
                    continue
                span = Span(low, high)
            elif shape == "up":
                span = Span(0.0, _number(match.group("b")) * months)
            else:
                span = Span(_number(match.group("a")) * months, math.inf)
            found.append((match.start(), match.end(), span))
    return sorted(found, key=lambda f: f[0])


def asked(text: str) -> tuple[tuple[Span, ...], str]:
    """The ranges of time ahead a question asks about ("between 2 to 4 years", "due within 3 years", "less than
    a year and from two to four years"), and the question without them (the line asked about is what is left):
    ((), text) where it names none. A year range ("2019-2021") is no range of time ahead: only ranges said in
    years, months or days count."""
    found = _spans_in(text)
    if not found:
        return (), text
    kept: list[str] = []
    position = 0
    for index, (start, end, _span) in enumerate(found):
        before = text[position:start]
        if index and _AND.match(before):
            before = ""  # "under a year and from two to four years": one list of ranges
        else:
            before = _LEAD_IN.sub("", before)
        kept.append(before)
        position = end
        trailing = _TRAILING.match(text[position:])
        if trailing:
            position += trailing.end()
    kept.append(text[position:])
    rest = re.sub(r"\s+([?.,!])", r"\1", " ".join("".join(kept).split()))
    return tuple(span for _, _, span in found), rest


def columns(column_list: Sequence[ColumnSchema]) -> dict[str, Span]:
    """The columns a table heads with ranges of time ahead, by name, with their ranges; "Thereafter" starts where
    the columns before it end. Empty unless at least two columns are such ranges (a maturity table)."""
    spans: dict[str, Span] = {}
    reached = 0.0
    for column in column_list:
        header = " ".join((column.header or column.name.replace("_", " ")).split())
        tail = header.split(")")[-1] if ")" in header else header
        said = _spans_in(tail) or _spans_in(header)
        if said:
            span = said[-1][2]
            spans[column.name] = span
            reached = max(reached, span.high if span.high != math.inf else span.low)
        elif _THEREAFTER.match(tail) and reached:
            spans[column.name] = Span(reached, math.inf)
    return spans if len(spans) >= 2 else {}


def total_column(column_list: Sequence[ColumnSchema]) -> str | None:
    """The column a maturity table heads "Total" (every range together), if any."""
    return next((c.name for c in column_list if _TOTAL.search(" ".join((c.header or c.name).split()))), None)


def covering(span: Span, spans: dict[str, Span]) -> list[str] | None:
    """The columns that make up ``span``: the one column printing it, else the columns within it that tile it
    from its start to its end with no gap; None where the table's ranges do not add up to it (asked "within 2
    years" of columns "Less than 1 year" and "1-3 years")."""
    exact = [name for name, said in spans.items() if said == span]
    if exact:
        return exact[:1]
    inside = sorted(((said, name) for name, said in spans.items() if said.within(span)), key=lambda s: s[0].low)
    reached = span.low
    chosen: list[str] = []
    for said, name in inside:
        if said.low != reached:
            return None
        chosen.append(name)
        reached = said.high
    return chosen if chosen and reached == span.high else None
