"""What a document is: its issuer, its type, the period it covers, its currency and scale.

Read once, when a document is added (and for older libraries when migration 7 runs), from what the
document prints: a filing's cover ("AMCOR PLC ... FORM 10-Q ... For the quarterly period ended December
31, 2022"), any other report's title and first page ("Springfield City Council, Budget 2024-25"), and its
statements' units ("(in millions)"). PDF metadata alone is too often junk (core.reports.document_title).
Stored in ``document_metadata``, one row per document, which the questions' SQL may read; a person can
correct any field, and a corrected row is never recomputed.

The rules are for reports in general, not one kind: SEC filings, annual reports, budgets, statistics
releases, earnings releases. What cannot be read is left blank rather than guessed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields, replace
from datetime import date, datetime

from core.reports.document_title import PERIOD_ENDED, REPORT_DATE, registrant, sec_form
from core.reports.values import YEAR_DIGITS, detect_currency, detect_scale

FIRST_PAGES = 3
"""Pages whose text says what a document is (a cover, a contents page, the first words)."""
SUMMARY_CHARS = 600
EARLIEST_PERIOD = 1950
"""Years before this in a report's text are taken for counts, not for the period it covers."""
TABLE_NAME = "document_metadata"
"""The table questions' SQL may read (no file paths in it: only the file's name)."""
EDITABLE = ("issuer", "doc_type", "period", "fiscal_year", "quarter", "currency", "scale", "ticker")

DOC_TYPES = ("10-K", "10-Q", "8-K", "20-F", "annual report", "interim report", "earnings release", "budget",
             "statistics release", "financial statements", "report")


@dataclass(frozen=True)
class DocumentMetadata:
    """A document's issuer, type and period, as read from it or as a person corrected them."""

    issuer: str = ""
    doc_type: str = ""
    period: str = ""
    """The period as people name it: "FY2018", "Q2 FY2023", "2019-20"."""
    fiscal_year: int | None = None
    """The year the period ends in (a fiscal year is named by the year it ends)."""
    quarter: int | None = None
    period_end: str = ""
    """ISO date when the document prints one ("2018-12-31")."""
    currency: str = ""
    scale: str = ""
    edited: bool = False
    summary: str = ""
    """Title and opening words, for searching documents rather than passages."""
    ticker: str = ""
    """The trading symbol a filing's cover registers ("GIS"), which people use for the issuer's name."""

    def describe(self) -> str:
        """"3M COMPANY, 10-K, FY2018" (the parts known)."""
        return ", ".join(p for p in (self.issuer, self.doc_type, self.period) if p)


# --------------------------------------------------------------------------------------------------
# Periods
# --------------------------------------------------------------------------------------------------

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4}
_ORDINAL = r"(first|second|third|fourth|1st|2nd|3rd|4th)"
FISCAL_QUARTER = (
    re.compile(rf"\b{_ORDINAL}\s+(?:fiscal\s+)?quarter\s+(?:of\s+)?(?:fiscal\s+(?:year\s+)?|fy\s?)({YEAR_DIGITS})\b", re.IGNORECASE),
    re.compile(rf"\bfiscal\s+(?:year\s+)?({YEAR_DIGITS})\s+{_ORDINAL}\s+quarter\b", re.IGNORECASE),
    re.compile(rf"\bq([1-4])\s*(?:of\s+)?(?:fy|fiscal\s*)\s?'?({YEAR_DIGITS}|\d\d)\b", re.IGNORECASE),
    re.compile(rf"\b([1-4])q\s*(?:fy)?\s?'?({YEAR_DIGITS}|\d\d)\b", re.IGNORECASE),
)
CALENDAR_QUARTER = (
    re.compile(rf"\b{_ORDINAL}\s+quarter\s+(?:of\s+)?({YEAR_DIGITS})\b", re.IGNORECASE),
    re.compile(rf"\bq([1-4])\s*(?:of\s+)?'?({YEAR_DIGITS})\b", re.IGNORECASE),
)
_MONTHS_ENDED = re.compile(r"\b(three|six|nine|twelve)\s+months\s+ended\b", re.IGNORECASE)
YEAR_SPAN = re.compile(rf"(?<![\d.,])({YEAR_DIGITS})\s?[/\-\u2013]\s?(\d{{2}}|{YEAR_DIGITS})(?![\d.,])")
_YEAR = re.compile(rf"(?<![\d.,$])({YEAR_DIGITS})(?!\d|[.,]\d)")
_FISCAL_YEAR = re.compile(rf"\b(?:fiscal(?:\s+year)?|fy)\s?'?({YEAR_DIGITS})\b", re.IGNORECASE)
_YEAR_FIRST = re.compile(rf"(?:fy)?{YEAR_DIGITS}(?!\d)", re.IGNORECASE)
"""A file name's part that opens with a year ("2018", "2023Q4", "FY2019")."""


def quarter_number(token: str) -> int:
    return _ORDINALS.get(token.lower()) or int(token)


def _full_year(text: str) -> int:
    year = int(text)
    return year + 2000 if year < 100 else year


def parse_date(text: str) -> date | None:
    """"June 30, 2023", "Dec. 31 2018", "30 June 2023" as a date, or None."""
    cleaned = " ".join(text.replace(",", " ").replace(".", " ").split())
    for layout in ("%B %d %Y", "%b %d %Y", "%d %B %Y", "%d %b %Y", "%b %d %Y"):
        try:
            return datetime.strptime(cleaned, layout).date()
        except ValueError:
            continue
    if cleaned[:4].lower() == "sept":
        return parse_date("Sep" + cleaned[4:])
    return None


def span_end(start: str, end: str) -> int:
    """The year a span ends in: ("2019", "20") -> 2020; ("2019", "2020") -> 2020."""
    if len(end) == 2:
        return int(start[:2] + end) + (100 if int(end) < int(start[2:]) else 0)
    return int(end)


def _fiscal_quarter(text: str) -> tuple[int, int] | None:
    """The (quarter, fiscal year) a text says most often ("second quarter of fiscal 2024", "Q2 FY24")."""
    seen: Counter[tuple[int, int]] = Counter()
    for pattern in FISCAL_QUARTER:
        for m in pattern.finditer(text):
            a, b = m.group(1), m.group(2)
            quarter, year = (b, a) if a.isdigit() and len(a) == 4 else (a, b)
            seen[(quarter_number(quarter), _full_year(year))] += 1
    return seen.most_common(1)[0][0] if seen else None


def _quarter_from_months(text: str) -> int | None:
    """A quarterly report's quarter from its statements' columns: "six months ended" means the second."""
    spans = {m.group(1).lower() for m in _MONTHS_ENDED.finditer(text)}
    for words, quarter in (("nine", 3), ("six", 2)):
        if words in spans:
            return quarter
    return 1 if spans == {"three"} else None


_FISCAL_YEAR_END = re.compile(r"\bfiscal\s+year\s+end(?:ed|ing|s)?(?:\s+on)?:?\s+([A-Z][a-z]+\.?\s+\d{1,2}),?\s+(?:\d{4})?")


def _quarter_of_fiscal_year(end: date | None, text: str) -> tuple[int, int] | None:
    """A quarterly period's (quarter, fiscal year) from its end and the fiscal year end the report names
    ("the fiscal year ended June 30, 2022": a quarter ended December 31, 2022 is Q2 of fiscal 2023)."""
    if end is None:
        return None
    ends: Counter[tuple[int, int]] = Counter()
    for m in _FISCAL_YEAR_END.finditer(" ".join(text.split())):
        if (closing := parse_date(f"{m.group(1)} 2000")) is not None:
            ends[(closing.month, closing.day)] += 1
    if not ends:
        return None
    month, day = ends.most_common(1)[0][0]
    # Retail years end on a weekday near a month's end (January 28, February 3): a few days either way.
    closes_after = (end.month, end.day) > (month, day) and not (end.month == month and abs(end.day - day) <= 7)
    year = end.year + 1 if closes_after else end.year
    months = (end.year - (year - 1)) * 12 + end.month - month
    quarter = round(months / 3)
    return (quarter, year) if 1 <= quarter <= 4 else None


def _fiscal_year_named(text: str, end: date | None) -> int | None:
    """The fiscal year a quarterly report names most ("fiscal 2023"), if it fits its period's end; else
    the end's calendar year."""
    if end is None:
        return None
    named = Counter(int(m.group(1)) for m in _FISCAL_YEAR.finditer(text) if 0 <= int(m.group(1)) - end.year <= 1)
    return named.most_common(1)[0][0] if named else end.year


def _common_year(text: str) -> tuple[int, str] | None:
    """The year (or span) a text names most often, the latest on a tie: a cover's "Notes due 2027" is not its period."""
    found = Counter(y for m in re.finditer(r"\S+(?:\s?[/\-\u2013]\s?\d+)?", text) if (y := _latest_year(m.group(0))))
    if not found:
        return None
    return max(found.items(), key=lambda item: (item[1], item[0]))[0]


def _latest_year(text: str) -> tuple[int, str] | None:
    """The latest year or span a text names, with its printed form ("2019-20")."""
    found: list[tuple[int, str]] = []
    for m in YEAR_SPAN.finditer(text):
        end = span_end(m.group(1), m.group(2))
        if 0 < end - int(m.group(1)) <= 1:
            found.append((end, m.group(0).replace(" ", "")))
    spans = "".join(ch if not any(a <= i < b for a, b in ((m.start(), m.end()) for m in YEAR_SPAN.finditer(text)))
                    else " " for i, ch in enumerate(text))
    found += [(int(m.group(1)), m.group(1)) for m in _YEAR.finditer(spans)]
    found = [f for f in found if f[0] >= EARLIEST_PERIOD]  # "1825" in a report is a count, not its period
    return max(found) if found else None


def read_period(cover: str, title: str, body: str, headers: Sequence[str], file_name: str,
                form: str) -> tuple[str, int | None, int | None, str]:
    """(period label, fiscal year, quarter, ISO end date) from a document's cover, title, text and table headers."""
    flat = " ".join(cover.split())
    ended = PERIOD_ENDED.search(flat)
    end = parse_date(ended.group(2)) if ended is not None else None
    quarterly = form == "10-Q" or (ended is not None and ended.group(1).lower().startswith("quarter"))
    if quarterly:
        named = _fiscal_quarter(f"{title}\n{flat}\n{body}") or _quarter_of_fiscal_year(end, body)
        quarter = named[0] if named else _quarter_from_months(body)
        year = named[1] if named else _fiscal_year_named(body, end)
        label = " ".join(filter(None, [f"Q{quarter}" if quarter else "", f"FY{year}" if year else ""]))
        return label, year, quarter, end.isoformat() if end else ""
    if end is not None:
        return f"FY{end.year}", end.year, None, end.isoformat()
    if (reported := REPORT_DATE.search(flat)) is not None and (day := parse_date(reported.group(1))) is not None:
        return day.isoformat(), day.year, None, day.isoformat()  # a current report (8-K) is of its date
    for text in (title, flat[:1500]):
        if (named := _fiscal_quarter(text)) is not None:
            return f"Q{named[0]} FY{named[1]}", named[1], named[0], ""
        for pattern in CALENDAR_QUARTER:
            if (m := pattern.search(text)) is not None:
                return f"Q{quarter_number(m.group(1))} {m.group(2)}", int(m.group(2)), quarter_number(m.group(1)), ""
        if (fiscal := _FISCAL_YEAR.search(text)) is not None:
            return f"FY{fiscal.group(1)}", int(fiscal.group(1)), None, ""
        if (latest := _latest_year(text) if text is title else _common_year(text)) is not None:
            return latest[1], latest[0], None, ""
    # The statements' column headers: the latest year most of them show.
    latest_by_table = Counter(y for header in headers if (y := _latest_year(header)) is not None)
    if latest_by_table:
        common = max(latest_by_table.most_common(3))[0]
        return str(common[0]), common[0], None, ""
    if (latest := _latest_year(file_name.replace("_", " "))) is not None:
        return latest[1], latest[0], None, ""
    return "", None, None, ""


# --------------------------------------------------------------------------------------------------
# Type and issuer
# --------------------------------------------------------------------------------------------------

_TYPE_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("earnings release", re.compile(r"\b(?:reports?|announces?)\b[^.\n]{0,60}\bresults\b|\bearnings (?:release|report)\b"
                                    r"|\bexhibit 99\.1\b", re.IGNORECASE)),
    ("budget", re.compile(r"\bbudget\b", re.IGNORECASE)),
    ("statistics release", re.compile(r"\bstatistic(?:s|al)\b|\bcensus\b|\bbulletin\b|\bsurvey\b|\bindicators\b", re.IGNORECASE)),
    ("annual report", re.compile(r"\bannual (?:report|review)\b|\bintegrated report\b|\byear in review\b", re.IGNORECASE)),
    ("interim report", re.compile(r"\b(?:quarterly|interim|half[- ]year(?:ly)?)\s+(?:report|results|statements?)\b", re.IGNORECASE)),
    ("financial statements", re.compile(r"\bfinancial statements\b|\bstatement of accounts\b|\baccounts\b", re.IGNORECASE)),
)
_ORGANISATION = re.compile(
    r"\b(?:council|ministry|department|government|authority|agency|bureau|office|commission|board|trust|"
    r"foundation|charity|university|college|hospital|bank|inc|incorporated|corporation|corp|company|co|plc|ltd|"
    r"limited|llc|ag|sa|nv|se|group|holdings|institute|society|association|fund|municipality|county|"
    r"city of|state of|republic|federation|service)\b\.?",
    re.IGNORECASE,
)
_BOILERPLATE = re.compile(r"securities and exchange commission|identification no|commission file|washington,? d\.?c|"
                          r"table of contents|^\s*\(", re.IGNORECASE)
_RELEASE_SUBJECT = re.compile(r"^\s*([A-Z0-9][\w&.,'\u2019 -]{0,60}?)\s+(?:reports|announces|posts|delivers|publishes)\b")
_TITLE_STOP = re.compile(
    rf"\b(?:annual|budget|report|review|quarterly|interim|results|accounts|fiscal|fy|q[1-4]|[1-4]q|form|exhibit|"
    rf"statistical|bulletin|release|"
    rf"proxy|{_ORDINAL[1:-1]}|quarter|{YEAR_DIGITS})\b",
    re.IGNORECASE,
)


def read_doc_type(form: str, title: str, cover: str) -> str:
    if form:
        return form
    for text in (title, cover[:1500]):
        for doc_type, pattern in _TYPE_RULES:
            if pattern.search(text):
                return doc_type
    return "report"


def _before_stop_words(text: str) -> str:
    """A title's leading name: "Springfield City Council Budget 2024" -> "Springfield City Council"."""
    stop = _TITLE_STOP.search(text)
    name = text[: stop.start()] if stop is not None else text
    return " ".join(name.split()).strip(" ,;:-\u2013\u2014|")


def spelled_as_in(title: str, name: str) -> str:
    """``name`` as ``title`` begins with it when the two differ only in spaces ("MGM R ESORTS" read from a text layer
    that splits letter-spaced capitals, "MGM RESORTS" in the title read from the glyphs: core.reports.document_title)."""
    letters = "".join(name.split())
    count = 0
    for end, ch in enumerate(title):
        if not ch.isspace():
            if count >= len(letters) or ch != letters[count]:
                return name
            count += 1
        if count == len(letters):
            return title[: end + 1]
    return name


def read_issuer(title: str, cover: str, file_name: str) -> str:
    if name := registrant(cover):
        return spelled_as_in(title, name)
    lines = [" ".join(ln.split()) for ln in cover.splitlines() if ln.strip() and not _BOILERPLATE.search(ln)][:25]
    for line in lines[:3]:
        if (m := _RELEASE_SUBJECT.match(line)) is not None:
            return m.group(1).strip(" ,")
    stem = re.split(r"[_\s-]", file_name.rsplit(".", 1)[0])
    named_title = title if " ".join(title.lower().split()) != " ".join(stem).lower() else ""
    for text in (named_title, *lines[:8]):
        if _ORGANISATION.search(text) and len(text.split()) <= 14:
            name = _before_stop_words(text)
            if _ORGANISATION.search(name) and len(name.split()) >= 2 and sum(ch.isalpha() for ch in name) >= 3:
                return name
    if (name := _before_stop_words(named_title)) and len(name.split()) <= 5 and sum(ch.isalpha() for ch in name) >= 2:
        return name
    # "3M_2018_10K.pdf", "AMCOR_2023Q4_EARNINGS.pdf": a name, then the year; "eu-004.pdf" is a numbered file.
    if len(stem) > 1 and _YEAR_FIRST.match(stem[1]) and sum(ch.isalpha() for ch in stem[0]) >= 2:
        return stem[0]
    return ""


def read_currency_scale(units: Iterable[str], cover: str) -> tuple[str, str]:
    """The currency and scale most of the tables state, else the ones the first pages state."""
    currencies: Counter[str] = Counter()
    scales: Counter[str] = Counter()
    for unit in units:
        if currency := detect_currency(unit):
            currencies[currency] += 1
        if (scale := detect_scale(unit)) and scale != "percent":
            scales[scale] += 1
    currency = currencies.most_common(1)[0][0] if currencies else detect_currency(cover)
    scale = scales.most_common(1)[0][0] if scales else detect_scale(cover)
    return currency, ("" if scale == "percent" else scale)


_EXCHANGE = r"(?:The\s+)?(?:New\s+York\s+Stock\s+Exchange|NYSE(?:\s+American|\s+Arca)?|Nasdaq|NASDAQ|Chicago\s+Stock\s+Exchange)"
_TICKER = re.compile(rf"(?<![\w$.%/-])([A-Z]{{1,5}})\s+{_EXCHANGE}")


def read_ticker(cover: str) -> str:
    """The trading symbol of the first class of securities a filing's cover registers on an exchange ("Common
    Stock ... GIS New York Stock Exchange"), or "" where the cover lists none."""
    at = re.search(r"trading\s+symbol", cover, re.IGNORECASE)
    if at is None:
        return ""
    found = _TICKER.search(cover, at.end())
    return found.group(1) if found else ""


def read_metadata(title: str, file_name: str, pages: Sequence[str], units: Sequence[str], headers: Sequence[str],
                  body: str = "") -> DocumentMetadata:
    """A document's metadata from its title, first pages' text, tables' units and column headers.

    ``body`` is more of its text (for a quarterly report's "six months ended" or "second quarter of fiscal 2024")."""
    cover = "\n".join(pages[:FIRST_PAGES])
    form = sec_form("\n".join(pages[:2]))
    period, fiscal_year, quarter, period_end = read_period(cover, title, body or cover, headers, file_name, form)
    currency, scale = read_currency_scale(units, cover)
    opening = " ".join(cover.split())[:SUMMARY_CHARS]
    return DocumentMetadata(
        issuer=read_issuer(title, cover, file_name), doc_type=read_doc_type(form, title, cover), period=period,
        fiscal_year=fiscal_year, quarter=quarter, period_end=period_end, currency=currency, scale=scale,
        summary=f"{title}\n{opening}", ticker=read_ticker(cover),
    )


def edited_metadata(current: DocumentMetadata, changes: dict[str, object]) -> DocumentMetadata:
    """``current`` with a person's corrections: fields checked and typed; a bad value raises ValueError."""
    known = {f.name for f in fields(DocumentMetadata)}
    cleaned: dict[str, object] = {}
    for name, value in changes.items():
        if name not in EDITABLE or name not in known:
            raise ValueError(f"{name!r} is not a field a person can correct")
        text = " ".join(str(value if value is not None else "").split())
        if name in ("fiscal_year", "quarter"):
            if not text:
                cleaned[name] = None
                continue
            if not text.isdigit():
                raise ValueError(f"{name.replace('_', ' ')} must be a number, not {text!r}")
            number = int(text)
            if name == "quarter" and not 1 <= number <= 4:
                raise ValueError(f"quarter must be 1 to 4, not {number}")
            if name == "fiscal_year" and not 1800 <= number <= 2199:
                raise ValueError(f"fiscal year must be a four-digit year, not {number}")
            cleaned[name] = number
        elif name == "ticker":
            if text and not re.fullmatch(r"[A-Za-z][A-Za-z.]{0,5}", text):
                raise ValueError(f"a trading symbol is one to six letters, not {text!r}")
            cleaned[name] = text.upper()
        else:
            cleaned[name] = text
    if "period" in cleaned and "fiscal_year" not in cleaned:
        # A period typed as "FY2019" or "2019-20" sets the year routing compares.
        period = str(cleaned["period"])
        named = _fiscal_quarter(period)
        latest = _latest_year(period)
        cleaned["fiscal_year"] = named[1] if named else latest[0] if latest else None
        if named and "quarter" not in cleaned:
            cleaned["quarter"] = named[0]
    return replace(current, **cleaned, edited=True)  # type: ignore[arg-type]
