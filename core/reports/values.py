"""Reading report values: numbers as reports print them, "no value" marks, years, scales, currencies, units.

One module for every reader of report values (table extraction telling figures from words, table typing,
answering): a null mark, a year, a scale word is defined here once. It knows nothing of tables.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date as _date
from datetime import datetime as _datetime
from typing import Any

YEAR_DIGITS = r"(?:1[89]|20)\d\d"
"""A four-digit year from 1800 to 2099, as a pattern fragment."""
YEAR = re.compile(rf"(?<![\d.,])({YEAR_DIGITS})(?:\s?[/\-\u2013]\s?(\d{{2}}|{YEAR_DIGITS}))?(?![\d.,])")
"""A year or a span of years in text ("2019", "2019-20", "2019/2020"): group 1 the year, group 2 the span's end."""
YEAR_WORD = re.compile(rf"(?<!\d)({YEAR_DIGITS})(?!\d)")
"""A bare year standing apart from other digits ("FY2018", "in 2019")."""
NULL_WORDS = frozenset({"n/a", "na", "n.a.", "n.a", "nm", "n.m.", "n.m", "not applicable", "none", "nil", "x",
                        "\u2020"})
"""Words and marks that print "no value" in a cell (besides dashes, dots and blanks)."""

# --------------------------------------------------------------------------------------------------
# Numbers in report notation
# --------------------------------------------------------------------------------------------------

SPACES = re.compile(r"[\s\u00a0\u2007\u2009\u200a\u202f]+")
_MINUS = "-\u2212\u2013\u2014\u2012\ufe63\uff0d"
_NULL_MARKS = re.compile(r"[\s\-\u2212\u2013\u2014\u2012.\u2026%*()]*")
_FOOTNOTE = re.compile(
    r"(?<=[\d%).])\s*(?:\((?:[a-z]{1,2}|\d{1,2}|[*\u2020\u2021]{1,3})\)|\[\w{1,2}\]|[*\u2020\u2021\u00a7\u00b9\u00b2\u00b3\u2070-\u2079]+)$",
    re.IGNORECASE,
)
_CURRENCIES: tuple[tuple[str, str], ...] = (
    # (pattern, symbol recorded in units); longest first so "US$" wins over "$".
    (r"U\.?S\.?\s?\$|US\s?\$|A\$|C\$|NZ\$|HK\$|S\$|R\$|\$|USD|AUD|CAD|dollars?", "$"),
    (r"\u20ac|EUR|euros?", "\u20ac"),
    (r"\u00a3|GBP|pounds?", "\u00a3"),
    (r"\u00a5|JPY|yen", "\u00a5"),
    (r"\u20b9|INR|Rs\.?", "\u20b9"),
    (r"CHF", "CHF"),
    (r"RMB|CNY", "RMB"),
)
_CURRENCY_PREFIX = [(re.compile(rf"^(?:{p})\s*", re.IGNORECASE), sym) for p, sym in _CURRENCIES]
_CURRENCY_SUFFIX = [(re.compile(rf"\s*(?:{p})$", re.IGNORECASE), sym) for p, sym in _CURRENCIES]
_SCALE_WORD_SUFFIX = re.compile(r"\s*(millions?|mn|mm|billions?|bn|thousands?)$", re.IGNORECASE)
_SCALE_LETTER_SUFFIX = re.compile(r"\s?([mkb])$", re.IGNORECASE)  # "€3.2m": only after a currency sign
_PERCENT_SUFFIX = re.compile(r"\s*(?:%|per\s?cent|percent|pct)$", re.IGNORECASE)
_NUMBER = re.compile(
    r"(?P<comma>\d{1,3}(?:,\d{3})+(?:\.\d+)?)"
    r"|(?P<space>\d{1,3}(?: \d{3})+(?:[.,]\d+)?)"
    r"|(?P<euro>\d{1,3}(?:\.\d{3})+,\d+|\d{1,3}(?:\.\d{3}){2,})"
    r"|(?P<plain>\d+(?:\.\d+)?|\.\d+)"
    r"|(?P<dcomma>\d+,\d{1,2})"
)
_SCALE_WORDS = {"m": "million", "mn": "million", "mm": "million", "million": "million", "millions": "million",
                "b": "billion", "bn": "billion", "billion": "billion", "billions": "billion",
                "k": "thousand", "thousand": "thousand", "thousands": "thousand"}
SCALE_FACTORS = {"": 1.0, "thousand": 1e3, "million": 1e6, "billion": 1e9}
_DIGIT = re.compile(r"\d")
_PLAIN = re.compile(r"(-?)(\d+(?:\.\d+)?)")
_LEADING_ZERO = re.compile(r"0\d")
_EXACT_WHOLE = 2**53
"""From here on a float no longer holds every whole number: a longer run of digits is read inexactly."""


@dataclass(frozen=True)
class ParsedNumber:
    """A number read from report notation, with what the notation said about it."""

    value: float
    has_decimals: bool
    percent: bool = False
    currency: str = ""
    scale: str = ""
    leading_zero: bool = False
    inexact: bool = False
    """A whole number with more digits than a float holds ("412,413,414,417,421,423,428", a 19-digit account
    number): no figure a report prints, but codes or references run together, and ``value`` is not what is
    printed."""


def is_null_text(text: str) -> bool:
    """True for cells that mean "no value": blank, dashes, ellipses, "n/a", "nm"."""
    if _DIGIT.search(text):  # no mark of "no value" holds a digit (the common case, asked of every cell)
        return False
    collapsed = SPACES.sub(" ", text).strip().strip("$\u20ac\u00a3\u00a5\u20b9").strip()
    return bool(_NULL_MARKS.fullmatch(collapsed)) or collapsed.lower() in NULL_WORDS


_NIL_DASH = re.compile(r"[\-\u2212\u2013\u2014\u2012]+")


def is_nil_text(text: str) -> bool:
    """True for a cell printing only a dash ("—", "$ –"): in a report's table a nil amount, zero, where a blank, "n/a"
    or "NM" prints no value at all."""
    collapsed = SPACES.sub("", text).strip("$\u20ac\u00a3\u00a5\u20b9")
    return bool(_NIL_DASH.fullmatch(collapsed))


def parse_report_number(text: str) -> ParsedNumber | None:
    """Read a number as reports print it, keeping its sign, percent, currency and scale suffix."""
    if (plain := _PLAIN.fullmatch(text)) is not None:  # "1234", "-12.5": what spreadsheets hold, read at once
        digits = plain.group(2)
        value = float(digits)
        return ParsedNumber(value=-value if plain.group(1) else value, has_decimals="." in digits,
                            leading_zero=bool(_LEADING_ZERO.match(digits)), inexact=_inexact(digits, value))
    if not _DIGIT.search(text):
        return None
    s = SPACES.sub(" ", text).strip()
    if not s or is_null_text(s):
        return None
    while (marker := _FOOTNOTE.search(s)) is not None:
        s = s[: marker.start()].rstrip()
    negative = percent = False
    currency = scale = ""
    for _ in range(8):  # peel the wrappers, whatever their order: signs, currency, brackets, %, scale
        before = s
        if s.startswith("+"):
            s = s[1:].lstrip()
        elif s[:1] and s[0] in _MINUS:
            negative, s = True, s[1:].lstrip()
        elif len(s) > 1 and s[-1] in _MINUS:
            negative, s = True, s[:-1].rstrip()
        elif s.startswith("(") and s.endswith(")"):
            negative, s = True, s[1:-1].strip()
        elif (found := _match_currency(s)) is not None:
            currency, s = found
        elif (m := _PERCENT_SUFFIX.search(s)) is not None and m.start() > 0:
            percent, s = True, s[: m.start()]
        elif (m := _scale_suffix(s, after_currency=bool(currency))) is not None:
            scale, s = _SCALE_WORDS[m.group(1).lower()], s[: m.start()]
        if s == before:
            break
    m = _NUMBER.fullmatch(s)
    if m is None:
        return None
    kind = m.lastgroup
    if kind == "comma":
        digits = s.replace(",", "")
    elif kind == "space":
        digits = s.replace(" ", "").replace(",", ".")
    elif kind == "euro":
        digits = s.replace(".", "").replace(",", ".")
    elif kind == "dcomma":
        digits = s.replace(",", ".")
    else:
        digits = s
    value = float(digits)
    return ParsedNumber(
        value=-value if negative else value,
        has_decimals="." in digits,
        percent=percent,
        currency=currency,
        scale=scale,
        leading_zero=bool(_LEADING_ZERO.match(digits)),
        inexact=_inexact(digits, value),
    )


def _inexact(digits: str, value: float) -> bool:
    """Whether a float misreads these digits: a whole number past 2**53 that it cannot hold exactly (or at all)."""
    if value < _EXACT_WHOLE or "." in digits:
        return False
    significant = digits.lstrip("0")
    return len(significant) > 309 or math.isinf(value) or int(significant) != int(value)


def _match_currency(s: str) -> tuple[str, str] | None:
    """A currency sign or code before or after the number: its symbol and the text without it."""
    for pattern, symbol in (*_CURRENCY_PREFIX, *_CURRENCY_SUFFIX):
        m = pattern.search(s)
        if m is not None and m.group(0).strip() and len(m.group(0)) < len(s):
            return symbol, (s[m.end():] if m.start() == 0 else s[: m.start()]).strip()
    return None


def _scale_suffix(s: str, *, after_currency: bool) -> re.Match[str] | None:
    m = _SCALE_WORD_SUFFIX.search(s)
    if m is None and after_currency:
        m = _SCALE_LETTER_SUFFIX.search(s)
    return m if m is not None and m.start() > 0 else None


def parse_number(text: str) -> float | None:
    """The value of a cell in report notation, or None when it holds no number.

    "1,234" -> 1234; "$ 1,452.4" -> 1452.4; "(1,234)" -> -1234; "−5" -> -5; "12.5%" -> 12.5;
    "€3.2m" -> 3.2 (the scale belongs to the unit); "1 234" -> 1234; "—", "n/a", "..." -> None;
    "1,234(a)" -> 1234; "Q3 2019" -> None.
    """
    parsed = parse_report_number(text)
    return None if parsed is None else parsed.value


# --------------------------------------------------------------------------------------------------
# Units and scales
# --------------------------------------------------------------------------------------------------

_LOOSE_SCALES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("billion", re.compile(r"\bbillions?\b|\bbn\b|(?:[$\u20ac\u00a3\u00a5]|\b(?:usd|eur|gbp))\s?b\b", re.IGNORECASE)),
    ("million", re.compile(r"\bmillions?\b|\bmn\b|\bmm\b|(?:[$\u20ac\u00a3\u00a5]|\b(?:usd|eur|gbp))\s?m\b", re.IGNORECASE)),
    ("thousand", re.compile(r"\bthousands?\b|['\u2019\u2018]000s?\b|\$\s?000s?\b|\b000s\b|\bin\s+000s?\b|"
                            r"(?:[$\u20ac\u00a3\u00a5]|\b(?:usd|eur|gbp))\s?k\b", re.IGNORECASE)),
    ("percent", re.compile(r"%|\bper\s?cent\b|\bpercent(?:age)?\b|\bpct\b", re.IGNORECASE)),
)
_UNIT_PHRASE = re.compile(
    r"\((?P<inner>[^()]{1,48})\)"
    r"|\b(?:amounts?\s+|figures\s+|expressed\s+|stated\s+)?in\s+(?:[^\s.,;()]+\s+){0,3}?"
    r"(?:millions|thousands|billions|per\s?cent|percent)\b"
    r"(?:\s+of\s+(?:u\.?s\.?\s+)?(?:dollars|euros|pounds))?"
    r"|['\u2019\u2018]000s?\b",
    re.IGNORECASE,
)
SHORT_TEXT_WORDS = 6


def _unit_phrases(text: str) -> list[str]:
    """The parts of a text that may state a unit: all of a short label, only unit phrases of prose."""
    text = SPACES.sub(" ", text).strip()
    if len(text.split()) <= SHORT_TEXT_WORDS:
        return [text] if text else []
    phrases = []
    for m in _UNIT_PHRASE.finditer(text):
        inner = m.group("inner")
        if inner is None:
            phrases.append(m.group(0))
        elif is_unit_only(inner) or len(inner.split()) <= 4:
            phrases.append(inner)
        else:  # "($ in millions, except share and per share data)": the unit phrase inside a longer bracket
            phrases.extend(f.group(0) for f in _UNIT_PHRASE.finditer(inner) if f.group("inner") is None)
    return phrases


def _loose_scale(text: str) -> str:
    for scale, pattern in _LOOSE_SCALES:
        if pattern.search(text):
            return scale
    return ""


def _loose_currency(text: str) -> str:
    for pattern, symbol in _CURRENCY_WORDS:
        if pattern.search(text):
            return symbol
    return ""


_CURRENCY_WORDS = [
    # (not a "$" between two parts of a name, as program code prints a field: "fit$coef", "data$age")
    (re.compile(r"(?-i:(?<![a-z0-9_)\]])\$|\$(?![A-Za-z_.]))|\b(?:USD|AUD|CAD)(?:m|mn|bn|k)?\b|\bdollars?\b", re.IGNORECASE), "$"),
    (re.compile(r"\u20ac|\bEUR(?:m|mn|bn|k)?\b|\beuros?\b", re.IGNORECASE), "\u20ac"),
    (re.compile(r"\u00a3|\bGBP(?:m|mn|bn|k)?\b|\bpounds? sterling\b", re.IGNORECASE), "\u00a3"),
    (re.compile(r"\u00a5|\bJPY\b|\byen\b", re.IGNORECASE), "\u00a5"),
    (re.compile(r"\u20b9|\bINR\b|\b(?-i:Rs)\b\.?|\brupees?\b", re.IGNORECASE), "\u20b9"),
    (re.compile(r"\bCHF\b"), "CHF"),
    (re.compile(r"\b(?:RMB|CNY)", re.IGNORECASE), "RMB"),
]


def detect_scale(text: str) -> str:
    """The scale a label or caption states: "million", "thousand", "billion", "percent" or "".

    Short texts (headers, unit rows) are read whole: "€m", "$'000", "% change". In longer texts
    (captions, paragraphs) only unit phrases count, "(in millions)", "in € billions", "($ in
    thousands)", so a sentence mentioning "5%" or "$3 million" does not set a scale.
    """
    for phrase in _unit_phrases(text):
        if scale := _loose_scale(phrase):
            return scale
    return ""


def detect_currency(text: str) -> str:
    """The currency a label or caption states ("$", "€", "£", "¥", "₹", "CHF") or ""; same rules as scale."""
    for phrase in _unit_phrases(text):
        if currency := _loose_currency(phrase):
            return currency
    return ""


def detect_unit(text: str) -> str:
    """Currency and scale together, as units are recorded: "$ million", "€ thousand", "percent", "million"."""
    for phrase in _unit_phrases(text):
        scale = _loose_scale(phrase)
        currency = _loose_currency(phrase)
        if scale or currency:
            return unit_text(currency, scale)
    return ""


def unit_text(currency: str, scale: str) -> str:
    """A unit as recorded: "$ million", "percent", "thousand"."""
    if scale == "percent":
        return "percent"
    return " ".join(part for part in (currency, scale) if part)


_UNIT_TOKENS = re.compile(
    r"U\.?S\.?\s?\$|[A-Z]{1,2}\$|[$\u20ac\u00a3\u00a5\u20b9%]|['\u2019\u2018]?000(?:['\u2019]?s)?\b"
    r"|\b(?:usd|eur|gbp|aud|cad|chf|rmb|cny)(?:m|mn|bn|k)\b|\b(?:rmb|cny)"
    r"|\b(?:usd|eur|gbp|jpy|inr|chf|aud|cad|dollars?|euros?|pounds?|sterling|in|of|millions?|thousands?|"
    r"billions?|mn|bn|mm|m|k|b|per\s?cent|percent(?:ages?)?|pct|amounts?|except|(?:shares?\s+and\s+)?per[\s-]share(?: data| amounts)?"
    r"|figures|expressed|for|all)\b",
    re.IGNORECASE,
)


def is_unit_only(text: str) -> bool:
    """True when a text states nothing but a unit: "€m", "$'000", "%", "(in millions)", "U.S. $ in thousands"."""
    if not re.search(r"[$\u20ac\u00a3\u00a5\u20b9%]|000|\b(?:millions?|thousands?|billions?|m|bn|mn|percent|"
                     r"per\s?cent|(?:usd|eur|gbp)(?:m|mn|bn|k)?)\b", text, re.IGNORECASE):
        return False
    residue = _UNIT_TOKENS.sub(" ", text)
    return not re.search(r"[^\W_]", residue)


def strip_units(text: str) -> str:
    """A header with its unit wording removed: "Revenue ($ millions)" -> "Revenue", "2019 €m" -> "2019"."""
    if is_unit_only(text):
        return ""
    text = re.sub(r"\(([^()]*)\)", lambda m: " " if is_unit_only(m.group(1)) else m.group(0), text)
    text = re.sub(r"\b(?:in|amounts? in)\s+(?:[$\u20ac\u00a3]\s*)?(?:millions|thousands|billions)\b", " ", text,
                  flags=re.IGNORECASE)
    words = [w for w in text.split() if not is_unit_only(w)]
    return " ".join(words).strip(" ,;:-\u2013")


# --------------------------------------------------------------------------------------------------
# A table's stated scale and currency
# --------------------------------------------------------------------------------------------------

STATED_SCALES = ("thousand", "million", "billion", "crore", "lakh")
"""Scales a table's figures can be stated in ("percent" is a kind of figure, not a scale)."""
_INDIAN_SCALE = re.compile(r"\b(crores?|lakhs?|lacs?)\b", re.IGNORECASE)
_CURRENCY_SCALE = re.compile(r"(?:[$\u20ac\u00a3\u00a5]|\bUS\$)\s?(m|mn|bn|b|k|'000|\u2019000|000(?:['\u2019]?s)?)(?![\w'])",
                             re.IGNORECASE)
_CURRENCY_SCALE_WORDS = {"m": "million", "mn": "million", "bn": "billion", "b": "billion", "k": "thousand"}
_RUPEES = re.compile(r"\bRs\.?(?!\w)|\brupees?\b|\u20b9|\bINR\b", re.IGNORECASE)


def scale_stated_in(text: str) -> str:
    """The scale a text states for figures: a unit phrase ("(In millions, except per share data)"), a
    currency suffix ("\u00a3m", "$'000") or an Indian scale word ("Rs. in crore"); one of ``STATED_SCALES`` or ""."""
    scale = detect_scale(text)
    if scale in STATED_SCALES:
        return scale
    indian = _INDIAN_SCALE.search(text)
    if indian is not None:
        return "lakh" if indian.group(1).lower().startswith("la") else "crore"
    match = _CURRENCY_SCALE.search(text)
    if match is None:
        return ""
    return _CURRENCY_SCALE_WORDS.get(match.group(1).lower(), "thousand")


def currency_stated_in(text: str) -> str:
    """The currency a text states, as a symbol ("$", "\u20ac", "\u20b9" for rupees, "CHF") or ""."""
    if _RUPEES.search(text):
        return "\u20b9"
    return detect_currency(text)


# --------------------------------------------------------------------------------------------------
# Periods: what a column header or a question says about a fiscal period
# --------------------------------------------------------------------------------------------------

_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december")
_MONTH_DAY = re.compile(r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})\b",
                        re.IGNORECASE)
_FISCAL_YEAR = re.compile(rf"\bFY\s?'?(\d{{2}}|{YEAR_DIGITS})\b|\bfiscal(?:\s+year)?\s+({YEAR_DIGITS})\b"
                          rf"|\b({YEAR_DIGITS})\s+fiscal\s+year\b", re.IGNORECASE)
_QUARTER_CODE = re.compile(r"\bQ([1-4])\b|\b([1-4])Q\b", re.IGNORECASE)
_QUARTER_WORDS = re.compile(r"\b(first|second|third|fourth)\s+(?:fiscal\s+)?quarter\b", re.IGNORECASE)
_DURATION = re.compile(r"\b(three|six|nine|twelve|3|6|9|12)[\s-]+months?\b|\b(quarter)s?\s+end(?:ed|ing)\b"
                       r"|\b(?:fiscal\s+)?years?\s+end(?:ed|ing)\b|\bfiscal\s+years?\b|\bfor\s+the\s+years?\b",
                       re.IGNORECASE)
_DURATION_MONTHS = {"three": 3, "3": 3, "six": 6, "6": 6, "nine": 9, "9": 9, "twelve": 12, "12": 12, "quarter": 3}
_COMPARISON = re.compile(r"\b(?:over|vs\.?|versus|compared|change|growth)\b|%|\bpercent\b", re.IGNORECASE)


@dataclass(frozen=True)
class Period:
    """A fiscal period a column holds: its fiscal year (the year it ends in), the day it ends when printed
    (ISO date), its quarter when it is one, and its length in months when printed (0 for a balance at a
    date, or unknown)."""

    fiscal_year: int
    end_date: str = ""
    quarter: int = 0
    months: int = 0

    @property
    def label(self) -> str:
        """How a person names it: "FY2018", "Q2 2023"."""
        return f"Q{self.quarter} {self.fiscal_year}" if self.quarter else f"FY{self.fiscal_year}"


def _full_year(digits: str) -> int:
    return int(digits) if len(digits) == 4 else 2000 + int(digits)


def _quarter(text: str) -> int:
    if (code := _QUARTER_CODE.search(text)) is not None:
        return int(code.group(1) or code.group(2))
    if (spelled := _QUARTER_WORDS.search(text)) is not None:
        return ("first", "second", "third", "fourth").index(spelled.group(1).lower()) + 1
    return 0


def read_period(header: str, context: str = "") -> Period | None:
    """The period a column header names ("2018", "FY2019", "December 31, 2018", "Three Months Ended June 30,
    2023", "2019/20"), with ``context`` (the table's caption and upper headers: "Years ended December 31")
    filling in the day and length the header leaves out. None for a header that names no single period
    (no year, two years compared, a change)."""
    text = SPACES.sub(" ", header).strip()
    fiscal = _FISCAL_YEAR.search(text)
    spans = YEAR.findall(text)
    years = {int(first) if not end else _span_end(first, end) for first, end in spans}
    if fiscal is not None:
        years = {_full_year(next(g for g in fiscal.groups() if g))}
    if len(years) != 1 or _COMPARISON.search(text):
        return None
    year = years.pop()
    both = f"{text} {SPACES.sub(' ', context)}"
    end_date = ""
    day = _MONTH_DAY.search(text) or _MONTH_DAY.search(context)
    if day is not None and 1 <= int(day.group(2)) <= 31:
        month = next(i for i, name in enumerate(_MONTH_NAMES, start=1) if name.startswith(day.group(1).lower()[:3]))
        end_date = f"{year:04d}-{month:02d}-{int(day.group(2)):02d}"
    months = 0
    if (duration := _DURATION.search(text) or _DURATION.search(context)) is not None:
        months = _DURATION_MONTHS.get((duration.group(1) or duration.group(2) or "").lower(), 12)
    elif fiscal is not None:
        months = 12
    quarter = _quarter(text) or (_quarter(both) if months == 3 else 0)
    if quarter and not months:
        months = 3
    return Period(year, end_date, quarter, months)


def _span_end(first: str, end: str) -> int:
    """"2019-20" ends in 2020, "2019/2020" too."""
    return int(end) if len(end) == 4 else int(first[:2] + end)


@dataclass(frozen=True)
class AskedPeriod:
    """A period a question names: a fiscal year, and a quarter when it names one."""

    fiscal_year: int
    quarter: int = 0

    def matches(self, period: Period) -> bool:
        return period.fiscal_year == self.fiscal_year and (not self.quarter or period.quarter == self.quarter)


def asked_periods(text: str) -> list[AskedPeriod]:
    """The periods a question names, in order: "FY2018", "FY18", "fiscal 2018", "fiscal year 2018", "2018",
    "Q2 2023", "second quarter of FY2023"."""
    found: list[tuple[int, int]] = []  # (position, year)
    taken: list[tuple[int, int]] = []
    for m in _FISCAL_YEAR.finditer(text):
        found.append((m.start(), _full_year(next(g for g in m.groups() if g))))
        taken.append(m.span())
    for m in YEAR_WORD.finditer(text):
        if not any(a <= m.start() < b for a, b in taken):
            found.append((m.start(), int(m.group(1))))
    quarter = _quarter(text)
    out: list[AskedPeriod] = []
    for _, year in sorted(found):
        asked = AskedPeriod(year, quarter)
        if asked not in out:
            out.append(asked)
    return out


_MONTH = (r"(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|"
          r"jun|jul|aug|sep|sept|oct|nov|dec)\b\.?")
"""A month as written: its whole name, or its three-letter abbreviation ("Mar" is March; "margin" is no month)."""
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})\s+{_MONTH},?\s+({YEAR_DIGITS})\b", re.IGNORECASE)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+(?:(\d{{1,2}}),?\s+)?({YEAR_DIGITS})\b", re.IGNORECASE)
_QUARTER_OF_YEAR = re.compile(
    rf"\b(?:Q([1-4])|([1-4])Q|(first|second|third|fourth)\s+(?:fiscal\s+)?quarter)(?:\s+of)?\s*(?:fiscal\s+(?:year\s+)?|FY\s?'?)?"
    rf"(\d{{2}}|{YEAR_DIGITS})?\b", re.IGNORECASE)
_YEAR_THEN_QUARTER = re.compile(rf"\b(?:fiscal\s+(?:year\s+)?|FY\s?'?)?(\d{{2}}|{YEAR_DIGITS})\s+(first|second|third|fourth|"
                                rf"Q[1-4])(?:\s+(?:fiscal\s+)?quarter)?\b", re.IGNORECASE)
_SHORT_FISCAL = re.compile(r"\bF(?:Y)?\s?'?(\d{2})\b(?!\s*(?:%|percent|months?|days?|weeks?))", re.IGNORECASE)
_FISCAL_SPAN = re.compile(rf"\b({YEAR_DIGITS})(?:\s?[/\u2013-]\s?(\d{{2}})|\s?/\s?({YEAR_DIGITS}))\b(?![\d/])")
"""A fiscal year printed as a span: "2019-20", "2019/20"; with two full years only a slash ("2018/2019"), since
"2017-2019" is a range of years."""


@dataclass(frozen=True)
class PeriodMention:
    """A period a text names, where it names it: "FY19" at 12-16 is fiscal 2019. ``year`` is the (fiscal)
    year it ends in; ``month`` and ``day`` are given when the text names a date ("December 31, 2018", "August
    2015"); ``quarter`` when it names one ("Q2 2023", "second quarter of fiscal 2024")."""

    start: int
    end: int
    year: int
    quarter: int = 0
    month: int = 0
    day: int = 0
    fiscal: bool = False
    said: str = ""

    @property
    def asked(self) -> AskedPeriod:
        return AskedPeriod(self.year, self.quarter)

    @property
    def label(self) -> str:
        """The period as Folio says it: "FY2019", "Q2 2023", "December 31, 2018"."""
        if self.quarter:
            return f"Q{self.quarter} {self.year}"
        if self.month and self.day:
            return f"{_MONTH_NAMES[self.month - 1].capitalize()} {self.day}, {self.year}"
        if self.month:
            return f"{_MONTH_NAMES[self.month - 1].capitalize()} {self.year}"
        return f"FY{self.year}" if self.fiscal else str(self.year)


def _month_number(name: str) -> int:
    return next(i for i, month in enumerate(_MONTH_NAMES, start=1) if month.startswith(name.lower()[:3]))


def find_periods(text: str) -> list[PeriodMention]:
    """Every period a text names, in order, each once where it is said: fiscal years in any of the ways people
    write them ("FY2019", "FY19", "F19", "FY '19", "fiscal 2019", "fiscal year 2019", "2019 fiscal year"), a
    fiscal year printed as a span ("2019-20", "2019/20", "2019/2020": it ends in 2020), dates ("December 31, 2018", "31
    March 2020", "August 2015"), quarters ("Q2 2023", "2Q23", "the second quarter of fiscal 2024") and bare
    years. A span of two full years ("2017-2019") is two mentions: a range is for the reader of the
    question to see."""
    found: list[PeriodMention] = []
    # "notice 2015-071", "the ITC-2019 instances": identifiers, no period
    codes = [m.span() for pattern in (_CODE_WITH_YEAR, _NAME_WITH_YEAR) for m in pattern.finditer(text)]

    def free(start: int, end: int) -> bool:
        return all(end <= m.start or start >= m.end for m in found) and all(end <= a or start >= b for a, b in codes)

    def add(match: re.Match[str], year: int, **kw: Any) -> None:
        if free(*match.span()):
            found.append(PeriodMention(match.start(), match.end(), year, said=match.group(0), **kw))

    for m in _QUARTER_OF_YEAR.finditer(text):
        if m.group(4):
            number = int(m.group(1) or m.group(2) or 0) or ("first", "second", "third", "fourth").index(
                m.group(3).lower()) + 1
            add(m, _full_year(m.group(4)), quarter=number, fiscal="f" in m.group(0).lower()[2:])
    for m in _YEAR_THEN_QUARTER.finditer(text):  # "the fiscal 2019 second quarter", "2023 Q2"
        said_quarter = m.group(2).lower()
        if said_quarter.startswith("q") or "quarter" in m.group(0).lower():
            number = int(said_quarter[1]) if said_quarter.startswith("q") else \
                ("first", "second", "third", "fourth").index(said_quarter) + 1
            add(m, _full_year(m.group(1)), quarter=number, fiscal=bool(re.match(r"(?i)fiscal|fy", m.group(0))))
    for m in _DAY_MONTH_YEAR.finditer(text):
        if 1 <= int(m.group(1)) <= 31:
            add(m, int(m.group(3)), month=_month_number(m.group(2)), day=int(m.group(1)))
    for m in _MONTH_DAY_YEAR.finditer(text):
        day = int(m.group(2)) if m.group(2) else 0
        if day <= 31:
            add(m, int(m.group(3)), month=_month_number(m.group(1)), day=day)
    for m in _FISCAL_YEAR.finditer(text):
        add(m, _full_year(next(g for g in m.groups() if g)), fiscal=True)
    for m in _SHORT_FISCAL.finditer(text):
        add(m, _full_year(m.group(1)), fiscal=True)
    for m in _FISCAL_SPAN.finditer(text):
        first, last = int(m.group(1)), _span_end(m.group(1), m.group(2) or m.group(3))
        if last == first + 1:
            add(m, last, fiscal=True)
    for m in YEAR_WORD.finditer(text):
        add(m, int(m.group(1)))
    found.sort(key=lambda m: m.start)
    return found


_CODE_WITH_YEAR = re.compile(r"(?<![\w-])(?:19|20)\d{2}[-/](?:\d{3}|0\d{3,}|\d{5,})(?![\w-])")
"""A case or notice number that begins with its year ("2015-071", "2019/0042"): no fiscal year, no date."""


_NAME_WITH_YEAR = re.compile(r"(?<![\w-])(?!(?:FY|CY|Q[1-4]|H[12])-)[A-Z]{2,6}-(?:19|20)\d{2}(?![\w-])")
"""A name an acronym and a year make ("ITC-2019", "SMC-2020": a benchmark, a conference): no period (a fiscal
"FY-2019" is one)."""


_NUMERIC_DATE = re.compile(r"^\s*(\d{1,4})[/.\-](\d{1,2})[/.\-](\d{2,4})\s*$")


def parse_day(text: str) -> _date | None:
    """A day as registers and releases print it: "2015-08-15", "8/15/2015", "15.08.2015", "08/15/15", "August 15,
    2015", "15 Aug 2015", "Aug. 15 2015"; None for anything else. A day-first or month-first order is read from the
    numbers where they tell (a first number above 12 is a day); otherwise month first, as US registers print it."""
    cleaned = " ".join(text.replace(",", " ").split())
    match = _NUMERIC_DATE.match(cleaned)
    if match is not None:
        a, b, c = (int(g) for g in match.groups())
        if len(match.group(1)) == 4:
            year, month, day = a, b, c
        else:
            year = c + 2000 if c < 100 else c
            month, day = (b, a) if a > 12 or match.group(0).count(".") == 2 else (a, b)
        try:
            return _date(year, month, day)
        except ValueError:
            return None
    words = cleaned.replace(".", " ")
    for layout in ("%B %d %Y", "%b %d %Y", "%d %B %Y", "%d %b %Y"):
        try:
            return _datetime.strptime(" ".join(words.split()), layout).date()
        except ValueError:
            continue
    if words[:4].lower() == "sept":
        return parse_day("Sep" + words[4:])
    return None
