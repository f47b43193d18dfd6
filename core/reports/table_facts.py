"""Facts about a stored table, found once when it is stored and kept beside it: the scale and currency its
figures are stated in, each row's place in the statement (its depth, its parent line, its section, whether
it is a total), and the period each figure column holds; and the legend a caption or the page's prose gives for
headers printed as short names ("Symbol definition: E (Exams), S (Students)"), read into those columns' headers when
the table is staged for storing (``core.ingest.staging``).

Answering reads them from ``core.library.store.TableInfo`` instead of working them out for every question. They
are computed from what the library stores (the typed table, its cell map with each label's box, the page's
text blocks), so the same code fills them at ingestion and for libraries written before they existed
(``core.library.migrations.m006_table_facts``).

Where a row stands under a line that is not its section heading (a line with figures, or a deeper level of
indentation), the SQL table also gets a ``parent`` column naming that line, so a query can ask for the rows
under it; elsewhere the ``section`` column already names every row's parent.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.reports.values import (
    STATED_SCALES,
    AskedPeriod,
    Period,
    asked_periods,
    currency_stated_in,
    read_period,
    scale_stated_in,
)
from models.types import ColumnSchema

_CLOSING = re.compile(r"^(?:total|net|less|gross)\b", re.IGNORECASE)
_TOTAL = re.compile(r"^(?:totals?|sub-?totals?|net)\b", re.IGNORECASE)
_GENERIC = frozenset(
    ["total", "net", "cash", "the", "of", "and", "in", "from", "to", "for", "by", "used", "provided", "activities",
     "liabilities", "assets", "less", "other"]
)
INDENT_STEP = 1.5
"""Points of indentation below which two labels stand at the same level."""
CENTRED = 60.0
"""A heading set this far right of the labels' left edge is centred over the statement: its top level."""


def is_closing_label(label: str) -> bool:
    """A label that closes a group of lines above it: "Total ...", "Net ...", "Less ...", "Gross ..."."""
    return bool(_CLOSING.match(label))


def heading_words(text: str) -> set[str]:
    """The words that tell one heading from another ("investing" in "Cash flows from investing activities"),
    by which a total line names the heading it closes."""
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in _GENERIC and len(w) > 2}


def closed_heading(label: str, headings: Sequence[str]) -> int | None:
    """Which of the open ``headings`` (outermost first) a total line closes: the one sharing most of its
    distinctive words ("Total stockholders' equity" closes "Stockholders' equity:", not "Liabilities and
    stockholders' equity"; "Net cash used in investing activities" closes "Cash flows from investing activities",
    not a sub-heading inside it naming more), the innermost among equals. None when ``label`` is not a total
    line or names none of them."""
    if not is_closing_label(label):
        return None
    words = heading_words(label)
    best, best_score = None, 0.0
    for position, heading in enumerate(headings):
        theirs = heading_words(heading)
        shared = len(words & theirs)
        score = shared / len(words | theirs) if shared else 0.0
        if score and score >= best_score:
            best, best_score = position, score
    return best


@dataclass(frozen=True)
class RowFacts:
    """A body row's place in its table: ``row`` is its ``_row``; ``parent_row`` the ``_row`` of the line it
    stands under (None at the top); ``depth`` how many lines it stands under (0 at the top)."""

    row: int
    depth: int = 0
    parent_row: int | None = None
    is_total: bool = False
    section: str = ""


@dataclass(frozen=True)
class ColumnPeriod:
    """The period a figure column holds, by the column's SQL name."""

    column: str
    period: Period


@dataclass(frozen=True)
class TableFacts:
    stated_scale: str = ""
    currency: str = ""
    rows: tuple[RowFacts, ...] = ()
    periods: tuple[ColumnPeriod, ...] = ()


def period_columns(periods: Sequence[ColumnPeriod], asked: str | Sequence[AskedPeriod]) -> tuple[str, ...]:
    """The columns holding a period a question names ("FY2018", "fiscal 2018", "2018", "Q2 2023"), in the
    order the question names the periods."""
    wanted = asked_periods(asked) if isinstance(asked, str) else list(asked)
    out: list[str] = []
    for period in wanted:
        out.extend(p.column for p in periods if period.matches(p.period) and p.column not in out)
    return tuple(out)


# --------------------------------------------------------------------------------------------------
# Computing (the library reads a stored table and hands its rows here: core.library.facts)
# --------------------------------------------------------------------------------------------------


@dataclass
class StoredRow:
    row: int
    label: str
    values: tuple[Any, ...]  # the figure columns' values
    x0: float | None
    section: str
    page: int = 0

    @property
    def heading(self) -> bool:
        return bool(self.label) and all(v is None or v == "" for v in self.values)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def facts_of(rows: list[StoredRow], texts: Sequence[str], units: Sequence[str],
             period_headers: Sequence[tuple[str, str]], context: str) -> TableFacts:
    """A table's facts from what was read of it: its rows, the texts around it that may state its scale or
    currency (caption, headers, lines above), its units, and each figure column's (name, header)."""
    scale = next((s for u in units if u and (s := scale_stated_in(u)) in STATED_SCALES), "")
    scale = scale or next((s for t in texts if t and (s := scale_stated_in(t))), "")
    currency = next((c for t in [*units, *texts] if t and (c := currency_stated_in(t))), "")
    periods = []
    for name, header in period_headers:
        period = read_period(header, context) if header else read_period(name.replace("_", " "), context)
        if period is not None:
            periods.append(ColumnPeriod(name, period))
    return TableFacts(scale, currency, _row_facts(rows), tuple(periods))


def _row_facts(rows: list[StoredRow]) -> tuple[RowFacts, ...]:
    if not rows:
        return ()
    parents = _flat_groups(rows) or _indented_parents(rows)
    totals = _totals(rows)
    depths: list[int] = []
    for p in parents:  # parents come first
        depths.append(0 if p is None else depths[p] + 1)
    return tuple(
        RowFacts(row.row, depths[i], rows[p].row if p is not None else None, totals[i], row.section)
        for i, (row, p) in enumerate(zip(rows, parents, strict=True))
    )


def _indented_parents(rows: list[StoredRow]) -> list[int | None]:
    """Each row's parent (its index in ``rows``) as a statement prints it: the line above it set less deep, the
    heading a total line closes, the statement's own section heading (``StoredRow.section``)."""
    placed = [r.x0 for r in rows if r.x0 is not None]
    label_left = min(placed) if placed else 0.0

    def indent(row: StoredRow) -> float:
        x = row.x0 if row.x0 is not None else label_left
        return label_left - 100 if row.heading and x > label_left + CENTRED else x

    parents: list[int | None] = []
    stack: list[int] = []  # indices of the open lines, outermost first
    last_heading: dict[str, int] = {}  # a heading's label (without its colon) -> the index of its latest row
    for i, row in enumerate(rows):
        x = indent(row)
        closed = _closed_heading(row, rows, stack)
        if closed is not None:  # "Total current assets" ends "Current assets" and stands in it
            parent: int | None = stack[closed]
            del stack[closed:]
        else:
            while stack and indent(rows[stack[-1]]) >= x - INDENT_STEP:
                stack.pop()
            if _TOTAL.match(row.label):  # a total set deeper than the lines it adds up stands beside them
                while stack and not rows[stack[-1]].heading:
                    stack.pop()
            parent = stack[-1] if stack else None
        if row.section:
            # The statement's own section (see extraction.ledger) wins over indentation, unless the row stands
            # under a line with figures inside that section.
            heading = last_heading.get(row.section)
            if heading is not None and (parent is None or parent < heading or rows[parent].heading and parent != heading):
                parent = heading
        parents.append(parent)
        stack.append(i)
        if row.heading:
            last_heading[row.label.rstrip(":")] = i
    return parents


def _flat_groups(rows: list[StoredRow]) -> list[int | None]:
    """Each row's parent (its index in ``rows``) where the rows are groups under headings set flush with them: the
    body opens with a heading (a label without figures), every heading has rows with figures after it, and on each
    page every label starts at one x (a ruled table's cells, a paper's results table with the method named over its
    "m = 10" rows), so no indentation says what stands under what. A heading is the parent of the rows after it up
    to the next heading; a total line stands in it and closes it. [] where the rows are not so (a statement's
    sections say it instead, and indentation where it is printed)."""
    if len(rows) < 3 or not rows[0].heading or any(row.section for row in rows):
        return []
    starts: dict[int, list[float]] = {}
    for row in rows:
        if row.x0 is not None:
            starts.setdefault(row.page, []).append(row.x0)
    if not starts or any(max(xs) - min(xs) > INDENT_STEP for xs in starts.values()):
        return []
    headings = [i for i, row in enumerate(rows) if row.heading]
    if len(headings) < 2 or any(i + 1 == len(rows) or rows[i + 1].heading for i in headings):
        return []
    parents: list[int | None] = []
    group: int | None = None
    for i, row in enumerate(rows):
        if row.heading:
            group = i
            parents.append(None)
            continue
        parents.append(group)
        if _TOTAL.match(row.label):
            group = None
    return parents


def _closed_heading(row: StoredRow, rows: list[StoredRow], stack: list[int]) -> int | None:
    """Position in ``stack`` of the open heading a total line closes, if it is one."""
    if row.heading or not is_closing_label(row.label):
        return None
    headings = [position for position, index in enumerate(stack) if rows[index].heading]
    found = closed_heading(row.label, [rows[stack[p]].label for p in headings])
    return headings[found] if found is not None else None


def _totals(rows: list[StoredRow]) -> list[bool]:
    """Which rows are totals: labelled so ("Total ...", "Net ..." below other lines with figures), or, labelled or
    not, the sum of the labelled lines above since the last total, in every column where they print a figure.

    The lines since the last total are kept as running sums per column (``_Addends``), so a table of 100,000 rows
    without a total costs one pass, not one pass per row."""
    out: list[bool] = []
    since = _Addends()
    figures_above = False
    section = None
    for row in rows:
        if row.section != section:
            section, figures_above = row.section, False
        total = False
        if not row.heading:
            named = bool(_TOTAL.match(row.label)) and (figures_above or row.label.lower().startswith(("total", "sub")))
            total = named or since.summed_by(row.values)
            figures_above = True
        out.append(total)
        if total:
            since = _Addends()
        elif row.label and not row.heading:  # only labelled items add up to a total; a blank row may hold years
            since.add(row.values)
    return out


def _decimals(value: Any) -> int:
    """The decimals a figure is printed with, as far as its number says (0.17: 2; 3597.0: 0)."""
    text = repr(float(value))
    if "e" in text or "." not in text:
        return 0
    return len(text.split(".")[1].rstrip("0"))


class _Addends:
    """The figures of the lines since the last total, per column: their sum and how many there are (added in
    order, so each sum equals ``sum()`` over the same figures)."""

    def __init__(self) -> None:
        self.sums: dict[int, Any] = {}
        self.counts: dict[int, int] = {}

    def add(self, values: tuple[Any, ...]) -> None:
        for p, value in enumerate(values):
            if _is_number(value):
                self.sums[p] = self.sums.get(p, 0) + value
                self.counts[p] = self.counts.get(p, 0) + 1

    def summed_by(self, values: tuple[Any, ...]) -> bool:
        """Each of the row's figures is the sum of the figures above it, to the rounding reports use, and at least
        one column has two or more addends."""
        matched = False
        for p, value in enumerate(values):
            if not _is_number(value):
                continue
            count = self.counts.get(p, 0)
            # half a unit of the figure's last printed digit for each addend rounded so (a unit at least), or half a
            # percent: rates of 0.17 and 0.05 are no sum of figures a unit apart
            unit = 10.0 ** -_decimals(value)
            if count < 2 or abs(self.sums[p] - value) > max(unit, 0.5 * unit * count, 0.005 * abs(value)):
                return False
            matched = True
        return matched


_LEGEND_ENTRY = re.compile(
    r"(?<![\w#])(?P<short>[A-Z#][A-Za-z#]{0,5})\s*"
    r"(?:\((?P<paren>[A-Za-z][^()]{1,48})\)|[:=]\s*(?P<said>[a-z][^,;:=()]{1,48}?)(?=\s*[,;.]|\s*$))")
"""One entry of a legend: a short header with its meaning in brackets ("E (Exams)", "PpD (Periods per Day)") or
after a colon or an equals sign ("#Inst: number of instances", "S = students")."""
_MEANING_FIRST = re.compile(r"(?P<meaning>(?:[A-Za-z'\u2019-]+\s+){0,3}[A-Za-z'\u2019-]+)\s*\((?P<short>[A-Z][A-Za-z]{0,4})\)")
"""A meaning with its short name after it in brackets ("the number of species (N)")."""
_LEADING_FUNCTION_WORDS = re.compile(r"^(?:(?:the|a|an|of|and|or|is|are|as|to|with|by|how|where|which)\s+)+",
                                     re.IGNORECASE)


def header_legend(text: str, shorts: Collection[str] = ()) -> dict[str, str]:
    """The meanings a caption or the prose about a table gives to short headers ("Symbol definition: E (Exams), S
    (Students)", "AR (area of island in thousands of square km)"): short header -> its meaning. For the ``shorts``
    given, a meaning said first counts too ("the number of species (N)")."""
    legend: dict[str, str] = {}
    for entry in _LEGEND_ENTRY.finditer(text):
        meaning = " ".join((entry.group("paren") or entry.group("said")).split())
        if is_abbreviation(entry.group("short")) and meaning.lower() != entry.group("short").lower():
            legend.setdefault(entry.group("short"), meaning)
    for entry in _MEANING_FIRST.finditer(text):
        meaning = _LEADING_FUNCTION_WORDS.sub("", " ".join(entry.group("meaning").split()))
        if entry.group("short") in shorts and meaning and entry.group("short") not in legend:
            legend[entry.group("short")] = meaning
    return legend


def is_abbreviation(word: str) -> bool:
    """A short name, not a word: in capitals ("AR", "DNI"), with a capital inside ("PpD", "CoS"), a count ("#Inst")
    or of three letters at most ("Co", "Dec"); "Total" or "Asset" is a word, whatever a bracket after it says."""
    letters = word.lstrip("#")
    return bool(letters) and (word.startswith("#") or letters.isupper() or any(ch.isupper() for ch in letters[1:])
                              or len(letters) <= 3)


def without_legend(caption: str) -> str:
    """The caption with its legend's entries taken out: what the table is about, not what its headers mean."""
    return _LEGEND_ENTRY.sub(" ", caption) if header_legend(caption) else caption


_SHORT_HEADER = re.compile(r"#?[A-Z][A-Za-z]{0,4}\.?")
"""A header that is a short name of its column ("N", "AR", "Dec", "DNI", "#Inst")."""


def with_legend(columns: Sequence[ColumnSchema], caption: str, prose: str = "") -> tuple[ColumnSchema, ...]:
    """The columns, each header whose words the caption's legend explains followed by their meaning ("S active"
    under "S (Students)": "S active (Students)"), so a question's words and a reader's eye find it; a header that is
    only a short name may be explained by the ``prose`` about the table too ("Dec (distance from Ecuador in km)")."""
    legend = header_legend(caption) if caption else {}
    shorts = {c.header.strip().rstrip(".") for c in columns if _SHORT_HEADER.fullmatch(c.header.strip())}
    if prose and shorts - set(legend):
        legend |= {short: meaning for short, meaning in header_legend(prose, shorts).items()
                   if short in shorts and short not in legend}
    if not legend:
        return tuple(columns)
    explained = []
    for column in columns:
        words = [word if word in legend else word.rstrip(".:") for word in column.header.split()]
        meanings = [legend[word] for word in words if word in legend]
        if meanings:
            column = replace(column, header=f"{column.header} ({'; '.join(meanings)})")
        explained.append(column)
    return tuple(explained)
