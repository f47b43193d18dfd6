"""Typing extracted tables: which rows are headers, what each column is called, its SQLite type and unit,
and the typed value of every body cell.

Owns the step between "a grid of cell texts" (``ExtractedTable``) and "a table a small LLM can query".
It does not store anything; the storage layer creates the SQL table from a ``TypedTable`` and keeps
every raw cell text beside it. Report values are read by ``core.reports.values``; table and identifier
names come from ``core.reports.table_naming``.

Columns of a ``TypedTable`` correspond one to one, by position, to the columns of the extracted table.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from core.reports.table_naming import (
    MAX_COLUMN_NAME,
    RESERVED_COLUMNS,
    SQL_KEYWORDS,
    shorten,
    snake_case,
)
from core.reports.values import (
    SCALE_FACTORS,
    SHORT_TEXT_WORDS,
    SPACES,
    YEAR,
    ParsedNumber,
    detect_currency,
    detect_scale,
    detect_unit,
    is_null_text,
    is_unit_only,
    parse_report_number,
    strip_units,
    unit_text,
)
from models.types import ColumnSchema, ExtractedTable

# --------------------------------------------------------------------------------------------------
# Typing a table
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TypedTable:
    """An extracted table made ready for SQL: named, typed columns and typed body rows."""

    columns: tuple[ColumnSchema, ...]
    rows: tuple[tuple[object, ...], ...]
    row_indices: tuple[int, ...]
    unit: str
    header_rows: int = 0
    """How many leading rows were read as headers (may exceed the extractor's count, see type_table)."""


SQL_INTEGERS = (-(2**63), 2**63 - 1)
"""The whole numbers an SQLite INTEGER holds."""
_YEAR = YEAR
_FY = re.compile(r"\bFY\s?'?(\d{2}|(?:19|20)\d{2})\b|\bfiscal\b|\bfinancial year\b", re.IGNORECASE)
_QUARTER = re.compile(r"\b(Q[1-4]|H[12])\b", re.IGNORECASE)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = re.compile(r"\b(" + "|".join(_MONTHS) + r")[a-z]*\.?\b", re.IGNORECASE)
_PERIOD_WORDS = re.compile(
    r"\b\d{1,2}(?:st|nd|rd|th)?\b|\b(?:as|of|at|and|for|the|ended|ending|end|year|years|period|to|"
    r"restated|actual|budget|estimated?|forecast|audited|unaudited)\b",
    re.IGNORECASE,
)
_PERIOD_PHRASE = re.compile(
    r"\b(?:years?|months?|quarters?|periods?)\s+ended\b|\bas\s+(?:of|at)\b|\bfor the\b|\bended\b|\bfiscal\b"
    r"|\b(?:19|20)\d{2}\b|" + _MONTH.pattern,
    re.IGNORECASE,
)
_PCT_WORDS = re.compile(r"\bpct\b|percent|\brate\b|\bratio\b|\bmargin\b|\byield\b|\bshare\b|\bgrowth\b", re.IGNORECASE)
_CONNECTOR_END = re.compile(r"(?:\b(?:of|and|to|for|in|at|on|the|from|by|per|with|or)|[/\-&])$", re.IGNORECASE)
_WRAP = r"[\s$\u20ac\u00a3%()+*\-\u2013\u2212]*"
_EUROPEAN_CELL = re.compile(rf"{_WRAP}(?:\d{{1,3}}(?:\.\d{{3}})+,\d+|\d{{1,3}}(?:\.\d{{3}}){{2,}}|\d+,\d{{1,2}}){_WRAP}")
"""A figure only the European convention reads: "27.715,5", "1.770.089", "601,1"."""
_ENGLISH_CELL = re.compile(rf"{_WRAP}(?:\d{{1,3}}(?:,\d{{3}})+\.\d+|\d{{1,3}}(?:,\d{{3}}){{2,}}|\d+\.(?:\d{{1,2}}|\d{{4,}})){_WRAP}")
"""A figure only the English convention reads: "27,715.5", "1,770,089", "12.5"."""
_DOT_THOUSANDS = re.compile(r"(?<![\d.,])(\d{1,3})((?:\.\d{3})+)(?![\d.,])")
_HEADER_FOOTNOTE = re.compile(r"(?<=[A-Za-z]{3})\d{1,2}\b|\((?:[a-z]|\d{1,2}|[ivx]{1,3})\)|[*\u2020\u2021]+")


def _clean(text: object) -> str:
    return SPACES.sub(" ", str(text or "")).strip()


def _despace_digits(text: str) -> str:
    """Letter-spaced years as some PDFs print them: "2 0 1 8" -> "2018"."""
    return re.sub(r"(?<!\d)(\d) (\d) (\d) (\d)(?!\d)", r"\1\2\3\4", text)


def _words(text: str) -> bool:
    return bool(re.search(r"[^\W_]", text))


def _year_cell(text: str) -> bool:
    """A header cell that is just a period: "2019", "FY2019", "2019/20", "30 June 2019", "2019 €m"."""
    text = _despace_digits(strip_units(_clean(text)))
    if not _YEAR.search(text) and not _FY.search(text):
        return False
    residue = _QUARTER.sub(" ", _MONTH.sub(" ", _YEAR.sub(" ", _FY.sub(" ", text))))
    return not _words(_PERIOD_WORDS.sub(" ", residue))


def _is_numberish(text: str) -> bool:
    """A cell holding a value (a number that is not a year-like header)."""
    return parse_report_number(text) is not None and not _year_cell(text)


def _header_continues(row: Sequence[str]) -> bool:
    """Whether a row just below the headers still belongs to them: a row of years, units or column
    labels ("2019 | 2018", "€m | €m", "Note | £m | £m", "For the year ended December 31: | 2019 | 2018")."""
    rest = [c for c in row[1:] if c]
    if not rest or any(_is_numberish(c) or is_null_text(c) and not is_unit_only(c) for c in rest):
        return False
    marks = sum(_year_cell(c) or is_unit_only(c) for c in rest)
    if not row[0] or is_unit_only(row[0]):
        return marks > 0 or len(rest) >= 2
    years = {c for c in rest if _year_cell(c)}
    if not years:
        return False
    # A label beside years ("For the year ended December 31:" | 2019 | 2018 | % change) is a header when
    # it reads as a period or a unit, or the years differ; a data row of years has one ("Founded | 1998").
    label = row[0]
    return bool(_PERIOD_PHRASE.search(label) or label.endswith(":") or detect_unit(label)) or len(years) >= 2


def _first_row_is_header(rows: Sequence[Sequence[str]]) -> bool:
    """With no header rows declared: does the first row name the columns below it? Only when it holds
    no values and some column below it holds numbers (an all-text first row might be data)."""
    if len(rows) < 2:
        return False
    first = rows[0]
    if not any(first) or any(_is_numberish(c) or is_null_text(c) for c in first if c):
        return False
    for col, head in enumerate(first):
        if not head:
            continue
        values = [r[col] for r in rows[1:] if col < len(r) and r[col] and not is_null_text(r[col])]
        if values and sum(_is_numberish(v) for v in values) * 2 >= len(values):
            return True
    return False


def infer_header_rows(rows: Sequence[Sequence[str]], declared: int = 0) -> int:
    """How many leading rows are headers: the declared count (or the first row, when it can only be a
    header), extended over rows of years, units or labels directly below (see ``_header_continues``)."""
    grid = [[_clean(c) for c in r] for r in rows]
    count = declared
    if count == 0 and (_first_row_is_header(grid) or len(grid) > 1 and _header_continues(grid[0])):
        count = 1
    while 0 < count < len(grid) - 1 and _header_continues(grid[count]):
        count += 1
    return count


@dataclass(frozen=True)
class _HeaderPart:
    text: str
    shared: bool  # spread over several columns: a group header such as "Years Ended September 30"


def _header_parts(header: list[list[str]], first_data_col: int) -> list[list[_HeaderPart]]:
    """Each column's header path, top to bottom, with group headers spread over the columns they span.

    A lone text over the data columns spans all of them (in the last header row only if it is a unit,
    and never when it reads as the first line of a wrapped label, "Balance at Beginning of"); in upper
    rows with several texts, each spans the empty cells to its right, within the group heading over it.
    """
    width = len(header[0]) if header else 0
    paths: list[list[_HeaderPart]] = [[] for _ in range(width)]
    data = range(first_data_col, width)
    above = [""] * width  # the group each column had in the row above, spread
    for number, row in enumerate(header):
        last = number == len(header) - 1
        texts = [c for c in data if row[c]]
        cells: list[_HeaderPart | None] = [_HeaderPart(t, False) if t else None for t in row]
        if len(texts) == 1 and len(data) > 1 and (
            is_unit_only(row[texts[0]]) or not last and not _CONNECTOR_END.search(row[texts[0]])
        ):
            for c in data:
                cells[c] = _HeaderPart(row[texts[0]], True)
        elif len(texts) > 1 and not last:
            current: _HeaderPart | None = None
            start = 0
            for c in data:
                if row[c]:
                    spreads = c + 1 < width and not row[c + 1] and c + 1 in data and above[c + 1] == above[c]
                    current, start = _HeaderPart(row[c], spreads), c
                    cells[c] = current
                elif current is not None and above[c] == above[start]:
                    cells[c] = current
                else:
                    current = None  # a text spreads within the group over it ("Male" | "Female"), not into the next
        for c, cell in enumerate(cells):
            if cell is not None and (not paths[c] or paths[c][-1].text != cell.text):
                paths[c].append(cell)
        above = [cell.text if cell is not None else above[c] for c, cell in enumerate(cells)]
    return paths


@dataclass
class _ColumnFacts:
    index: int
    kind: str               # INTEGER | REAL | TEXT
    values: list[object]
    examples: tuple[str, ...]
    currency: str = ""
    scale: str = ""         # thousand | million | billion | percent | ""
    parts: list[_HeaderPart] = field(default_factory=list)
    header_percent: bool = False
    bottom_blank: bool = True  # nothing in the last header row above this column

    @property
    def unit(self) -> str:
        return "" if self.kind == "TEXT" else unit_text(self.currency, self.scale)

    @property
    def header(self) -> str:
        return " ".join(p.text.rstrip(",:;") for p in self.parts)


def type_table(table: ExtractedTable, context: str = "") -> TypedTable:
    """Name and type the columns of an extracted table and convert its body cells to SQL values.

    ``context`` is text near the table (caption, heading, paragraph) searched for a table-wide scale
    such as "(in millions)". Header rows are ``table.header_rows``, extended over rows of years,
    units or labels directly below them; with none declared, the first row is taken as a header only
    when it cannot be data. Every body row is kept, section labels with empty numbers included.
    """
    width = table.n_cols
    grid = [[_clean(c) for c in row] + [""] * (width - len(row)) for row in table.rows]
    n_header = infer_header_rows(grid, min(table.header_rows, len(grid)))
    header = [list(row) for row in grid[:n_header]]
    body = _in_one_convention(grid[n_header:])

    table_unit = detect_unit(table.caption)
    # A unit over the row labels ("($ in millions)", "$ million") speaks for the whole table.
    for row in header:
        if row and row[0] and is_unit_only(row[0]):
            table_unit = table_unit or detect_unit(row[0])
            row[0] = ""
        elif row and len(row[0].split()) > SHORT_TEXT_WORDS:  # "All figures in USD '000, except ..."
            table_unit = table_unit or detect_unit(row[0])
    if not table_unit and context:
        table_unit = detect_unit(context)

    facts = [_type_column(c, [r[c] for r in body]) for c in range(width)]
    first_data_col = 1 if width > 1 and facts[0].kind == "TEXT" else 0
    for column, parts in zip(facts, _header_parts(header, first_data_col)):
        column.parts = parts
        column.bottom_blank = not header or not header[-1][column.index]
        _apply_header_units(column)
    names = _name_columns(facts)

    columns = tuple(
        ColumnSchema(name=name, type=column.kind, header=column.header, unit=column.unit,
                     examples=column.examples)
        for name, column in zip(names, facts)
    )
    rows = tuple(tuple(column.values[r] for column in facts) for r in range(len(body)))
    return TypedTable(
        columns=columns,
        rows=rows,
        row_indices=tuple(range(n_header, len(grid))),
        unit=table_unit,
        header_rows=n_header,
    )


def _in_one_convention(body: list[list[str]]) -> list[list[str]]:
    """A table printed in the European convention ("27.715,5", "1.770.089") reads its ambiguous figures the same
    way: "157.640" beside them is 157,640, not 157.64. Decided over the whole table, by the figures only one
    convention reads (two at least, and none that only the English one reads)."""
    european = english = 0
    for row in body:
        for cell in row:
            if _EUROPEAN_CELL.fullmatch(cell):
                european += 1
            elif _ENGLISH_CELL.fullmatch(cell):
                english += 1
    if european < 2 or english:
        return _dotted_thousands_by_column(body)
    return [[_DOT_THOUSANDS.sub(lambda m: m.group(1) + m.group(2).replace(".", ""), cell)
             if _EUROPEAN_CELL.fullmatch(cell) or _DOT_THOUSANDS.search(cell) and not _WORD.search(cell) else cell
             for cell in row] for row in body]


_WORD = re.compile(r"[A-Za-z]{2,}")
_DOTTED = re.compile(rf"{_WRAP}[1-9]\d{{0,2}}\.\d{{3}}{_WRAP}")
_SMALL_WHOLE = re.compile(rf"{_WRAP}\d{{1,3}}{_WRAP}")


def _dotted_thousands_by_column(body: list[list[str]]) -> list[list[str]]:
    """A column whose figures of a thousand or more print a dot every three digits and whose others are whole
    numbers below a thousand ("3.597", "1.847", "732", "556"): the dots part thousands, as no English column gives
    three decimals to its figures below ten and none to those above a hundred. Two of each kind at least."""
    width = max((len(row) for row in body), default=0)
    dotted_columns = set()
    for c in range(width):
        cells = [row[c].strip() for row in body if c < len(row) and row[c].strip() and not is_null_text(row[c])]
        dotted = [cell for cell in cells if _DOTTED.fullmatch(cell)]
        whole = [cell for cell in cells if _SMALL_WHOLE.fullmatch(cell)]
        if len(dotted) >= 2 and len(whole) >= 2 and len(dotted) + len(whole) == len(cells):
            dotted_columns.add(c)
    if not dotted_columns:
        return body
    return [[cell.replace(".", "") if c in dotted_columns and _DOTTED.fullmatch(cell.strip()) else cell
             for c, cell in enumerate(row)] for row in body]


_TIMES = re.compile(r"^\s*(?P<n>[-+]?\d[\d,]*(?:\.\d+)?)\s*[x\u00d7]\s*$", re.IGNORECASE)
"""A multiple as papers print it: "3.15x", "12 \u00d7" (a speedup, a ratio to a baseline)."""


def _type_column(index: int, cells: list[str]) -> _ColumnFacts:
    nulls = [is_null_text(c) for c in cells]
    multiples = [c for c, null in zip(cells, nulls, strict=True) if not null and c.strip()]
    if len(multiples) >= 2 and all(_TIMES.match(c) for c in multiples):
        # a column of multiples ("Speedup": "3.15x", "0.87x"): figures, read without the sign of times
        cells = [c if null or not c.strip() else _TIMES.sub(r"\g<n>", c) for c, null in zip(cells, nulls, strict=True)]
    # Read once per distinct text: a long column repeats its labels and codes ("North 12") row after row.
    read: dict[str, ParsedNumber | None] = {}
    parsed = [None if null else read[c] if c in read else read.setdefault(c, parse_report_number(c))
              for c, null in zip(cells, nulls, strict=True)]
    filled = len(cells) - sum(nulls)
    numbers = [p for p in parsed if p is not None]
    notes = filled - len(numbers)
    numeric = (
        bool(numbers)
        and notes <= max(1, filled // 5)
        and len(numbers) >= 2 * notes
        # Codes stay text: "007", and digits more than a float holds ("411,412,414" lists of codes, account numbers).
        and not any(p.leading_zero or p.inexact for p in numbers)
    )
    examples = _examples(cells, parsed, prefer_numbers=numeric)
    if not numeric:
        return _ColumnFacts(index, "TEXT", [c or None for c in cells], examples)

    # Change columns often print the sign on some rows only ("(13%)", "17", "45").
    percent = sum(p.percent for p in numbers) * 3 >= len(numbers)
    currencies = Counter(p.currency for p in numbers if p.currency)
    currency = currencies.most_common(1)[0][0] if currencies else ""
    scales = {p.scale for p in numbers}
    # Cells carrying their own scale ("€3.2m"): one shared scale becomes the unit; mixed ones ("€3.2m",
    # "€800k") are multiplied out so every value is in the same unit.
    mixed = len(scales) > 1
    shared_scale = "" if mixed else scales.pop()
    kind = "REAL" if percent or any(p.has_decimals for p in numbers) else "INTEGER"
    values: list[object] = []
    for p in parsed:
        if p is None:
            values.append(None)
            continue
        value = p.value * SCALE_FACTORS[p.scale] if mixed else p.value
        whole = kind == "INTEGER" and SQL_INTEGERS[0] <= value <= SQL_INTEGERS[1] and value == int(value)
        values.append(int(value) if whole else float(value))  # a whole figure past SQLite's integers is REAL
    if kind == "INTEGER" and any(isinstance(v, float) for v in values):
        kind = "REAL"
        values = [float(v) if isinstance(v, int) else v for v in values]
    return _ColumnFacts(index, kind, values, examples, currency, "percent" if percent else shared_scale)


def _examples(cells: list[str], parsed: list[ParsedNumber | None], *, prefer_numbers: bool) -> tuple[str, ...]:
    """Three of a column's distinct values, in order: numbers first where it holds numbers, values before "no
    value" marks. ``parsed`` is each cell read as a number (None for marks and words). Stops once it has them: a
    column of 100,000 rows is not sorted for three."""
    numbers: list[str] = []
    words: list[str] = []
    marks: list[str] = []
    seen: set[str] = set()
    for cell, number in zip(cells, parsed, strict=True):
        if not cell or cell in seen:
            continue
        seen.add(cell)
        if number is not None and prefer_numbers:
            numbers.append(cell)
            if len(numbers) == 3:
                break
        elif not is_null_text(cell):
            words.append(cell)
            if len(words) == 3 and not prefer_numbers:
                break
        elif len(marks) < 3:
            marks.append(cell)
    return tuple((numbers + words or marks)[:3])


def _apply_header_units(column: _ColumnFacts) -> None:
    """Fold what the header says about units into the column's (header-level scale and currency win)."""
    texts = [p.text for p in column.parts]
    scale = next((found for t in texts if (found := detect_scale(t))), "")
    currency = next((found for t in texts if (found := detect_currency(t))), "")
    column.header_percent = scale == "percent" or any("%" in t for t in texts)
    if column.header_percent:
        scale = "percent"
        if column.kind == "INTEGER":  # percentages are REAL, whatever a column of whole numbers suggests
            column.kind = "REAL"
            column.values = [float(v) if isinstance(v, int) else v for v in column.values]
    column.scale = scale or column.scale
    column.currency = currency or column.currency


def _name_text(text: str) -> str:
    """A header part reduced to what names the column: no units, footnote marks or asides in brackets."""
    text = strip_units(_HEADER_FOOTNOTE.sub(" ", _despace_digits(text)))
    without_asides = _clean(re.sub(r"\([^()]*\)", " ", text))
    return without_asides if _words(without_asides) else ""


def _naming_parts(column: _ColumnFacts) -> list[_HeaderPart]:
    parts = [_HeaderPart(_name_text(p.text), p.shared) for p in column.parts]
    return [p for p in parts if _words(p.text)]


def _own_text(parts: list[_HeaderPart]) -> str:
    """The most specific part of a header path: its bottom lines that belong to this column alone
    (a label wrapped over two header rows is read whole), or the bottom line."""
    own: list[str] = []
    for part in reversed(parts):
        if part.shared:
            break
        own.insert(0, part.text)
    return " ".join(own) if own else parts[-1].text


def _name_columns(facts: list[_ColumnFacts]) -> list[str]:
    """Short, unique, meaningful snake_case names, disambiguated by the upper header parts."""
    names = [_base_name(column, position) for position, column in enumerate(facts)]
    # Groups are settled in the order their names first appear (a set's order changes with the process's string
    # hashing, and a group renamed first could take a name another then had to avoid: the same table got other
    # column names in another run).
    for name in dict.fromkeys(names):
        group = [i for i, n in enumerate(names) if n == name]
        if len(group) > 1:
            renamed = _disambiguate(name, [facts[i] for i in group])
            if len(set(renamed)) == 1:
                renamed = _by_period_on_the_left(name, group, names)
            for i, new_name in zip(group, renamed):
                names[i] = new_name
    # "2019 | (blank) | 2018 | (blank)" over "$275,792 | 99% | ...": a percent column with no header of
    # its own beside a named value column is that column's share.
    for i, column in enumerate(facts):
        left = facts[i - 1] if i else None
        if (left is not None and column.bottom_blank and column.scale == "percent" and not left.bottom_blank
                and left.kind != "TEXT" and left.scale != "percent" and not names[i - 1].startswith("col_")
                and all(part.shared for part in column.parts)):
            names[i] = shorten(f"{names[i - 1]}_pct", MAX_COLUMN_NAME)
    # Long headers cut to the same name ("Total Number of Shares Purchased [as Part of ...]"): keep the
    # first words and add the words only this column has.
    for name in dict.fromkeys(names):
        group = [i for i, n in enumerate(names) if n == name]
        if len(group) > 1:
            for i in group[1:]:
                names[i] = _distinct_words_name(facts[i], [facts[j] for j in group if j != i]) or names[i]
    # "Frequency (Line 1) | Frequency (Line 2)": columns still named alike are told apart by the asides in brackets
    # that naming left out, where each has its own
    for name in dict.fromkeys(names):
        group = [i for i, n in enumerate(names) if n == name]
        if len(group) > 1:
            asides = [_aside_name(facts[i]) for i in group]
            if all(asides) and len(set(asides)) == len(asides):
                for i, aside in zip(group, asides):
                    names[i] = shorten(f"{name}_{aside}", MAX_COLUMN_NAME + 8)
    final: list[str] = []
    for name in names:
        candidate, number = name, 1
        while candidate in final:
            number += 1
            candidate = f"{name}_{number}"
        final.append(candidate)
    return final


def _aside_name(column: _ColumnFacts) -> str:
    """The words in brackets of a column's own header line, units and footnote marks left out ("Line 1" in
    "Frequency (Line 1)"), as a name; "" where there are none."""
    if not column.parts:
        return ""
    own = " ".join(p.text for p in column.parts if not p.shared) or column.parts[-1].text
    text = strip_units(_HEADER_FOOTNOTE.sub(" ", _despace_digits(own)))
    asides = " ".join(re.findall(r"\(([^()]*)\)", text))
    return shorten(snake_case(asides, digit_prefix="", fallback=""), MAX_COLUMN_NAME) \
        if re.search(r"[^\W\d_]", asides) else ""


def _by_period_on_the_left(name: str, group: list[int], names: list[str]) -> list[str]:
    """"2019 | % of total | 2018 | % of total": name each repeat after the period column to its left."""
    periods = []
    for i in group:
        left = next((n for n in reversed(names[:i]) if re.fullmatch(r"(?:f?y|q[1-4]_)\d{4}(?:_\d{2,4})?", n)), "")
        periods.append(left)
    if all(periods) and len(set(periods)) == len(periods):
        return [shorten(f"{name}_{period}", MAX_COLUMN_NAME) for period in periods]
    return [name] * len(group)


_STOP_WORDS = frozenset(["a", "an", "and", "as", "at", "be", "by", "for", "from", "in", "of", "on", "or", "per", "than", "that", "the", "to", "under", "which", "with", "yet"])


def _full_words(column: _ColumnFacts) -> list[str]:
    parts = _naming_parts(column)
    return _word_name(_own_text(parts), limit=200).split("_") if parts else []


def _distinct_words_name(column: _ColumnFacts, others: list[_ColumnFacts]) -> str:
    words = _full_words(column)
    seen = {w for other in others for w in _full_words(other)}
    extra = [w for w in words if w not in seen and w not in _STOP_WORDS]
    if not extra:
        return ""
    return shorten("_".join(words[:2] + extra), MAX_COLUMN_NAME + 8)


def _base_name(column: _ColumnFacts, position: int) -> str:
    parts = _naming_parts(column)
    if position == 0 and column.kind == "TEXT" and (
        not parts or _PERIOD_PHRASE.search(parts[-1].text) or parts[-1].text.endswith(":")
        or detect_unit(column.parts[-1].text)
    ):
        return "item"
    if not parts:
        if position == 0 and column.kind == "INTEGER" and all(
            v is None or isinstance(v, int) and 1900 <= v <= 2100 for v in column.values
        ):
            return "year"
        return f"col_{position + 1}"
    # Row labels are named by their bottom line; a title row above them ("Years Ended December 31") is not theirs.
    text = parts[-1].text if position == 0 and column.kind == "TEXT" else _own_text(parts)
    fiscal = any(_FY.search(p.text) for p in parts)
    name = _period_name(text, fiscal=fiscal) or _word_name(text)
    if column.header_percent and not _PCT_WORDS.search(name.replace("_", " ")):
        name = f"pct_{name}"
    return _safe_column_name(shorten(name, MAX_COLUMN_NAME))


def _period_name(text: str, *, fiscal: bool = False) -> str:
    """y2019, fy2019, q3_2019, y2019_20 (and y2018_restated) for a header naming a period, else ""."""
    year = _YEAR.search(text)
    fy = _FY.search(text)
    if year is None:
        if fy is None or fy.group(1) is None or _words(_PERIOD_WORDS.sub(" ", _FY.sub(" ", text))):
            return ""
        digits = fy.group(1)
        return f"fy{digits if len(digits) == 4 else '20' + digits}"
    years = _YEAR.findall(text)
    if len(years) == 2 and re.search(r"\b(?:over|vs\.?|versus|compared (?:to|with))\b", text, re.IGNORECASE):
        return f"y{years[0][0]}_vs_{years[1][0]}"
    quarter = _QUARTER.search(text)
    residue = _PERIOD_WORDS.sub(" ", _QUARTER.sub(" ", _MONTH.sub(" ", _YEAR.sub(" ", _FY.sub(" ", text)))))
    rest = _word_name(residue, fallback="")
    if rest.count("_") > 1:  # more than two other words: a label that mentions a year, not a period
        return ""
    period = year.group(1) + (f"_{year.group(2)}" if year.group(2) else "")
    if quarter:
        name = f"{quarter.group(1).lower()}_{period}"
    else:
        name = f"{'fy' if fy or fiscal else 'y'}{period}"
    return f"{name}_{rest}" if rest else name


def _word_name(text: str, fallback: str = "value", limit: int = MAX_COLUMN_NAME) -> str:
    """snake_case words, short: filler words go first when the name is too long."""
    name = snake_case(text, digit_prefix="n", fallback=fallback)
    if len(name) > limit:
        kept = [w for w in name.split("_") if w not in _STOP_WORDS]
        name = "_".join(kept) or name
    return shorten(name, limit)


def _safe_column_name(name: str) -> str:
    if name in RESERVED_COLUMNS:
        return f"{name.strip('_')}_col"
    if name in SQL_KEYWORDS:
        return f"{name}_value"
    return name


def _qualified(name: str, upper: str, fiscal: bool) -> str:
    """``name`` told apart by an upper header part: a period goes after it, anything else before it."""
    period = _period_name(upper, fiscal=fiscal)
    if period:
        return _safe_column_name(f"{shorten(name, MAX_COLUMN_NAME - len(period) - 1)}_{period}")
    room = max(MAX_COLUMN_NAME - len(name) - 1, 12)
    return _safe_column_name(shorten(f"{shorten(_word_name(upper), room)}_{name}", MAX_COLUMN_NAME + 8))


def _disambiguate(name: str, group: list[_ColumnFacts]) -> list[str]:
    """Rename columns sharing ``name`` by the nearest upper header part that tells them apart
    ("domestic_y2019", "net_sales_fy2018"), else by the month of a dated header ("jun_2019");
    what stays equal gets ``_2``, ``_3`` afterwards."""
    paths = [_naming_parts(c) for c in group]
    depth = max((len(p) for p in paths), default=0)
    fiscal = any(_FY.search(part.text) for path in paths for part in path)
    for level in range(2, depth + 1):
        uppers = [p[-level].text if len(p) >= level else "" for p in paths]
        present = [u for u in uppers if u]
        # Usable when the parts present differ; one column without a part there keeps the plain name.
        if not present or len(uppers) - len(present) > 1 or len(set(present)) < len(present):
            continue
        renamed = [_qualified(name, upper, fiscal) if upper else name for upper in uppers]
        if len(set(renamed)) == len(renamed):
            return renamed
    months = []
    for path in paths:
        m = _MONTH.search(path[-1].text) if path else None
        months.append(m.group(1).lower()[:3] if m else "")
    if all(months) and len(set(months)) == len(months):
        year_part = re.sub(r"^f?y(?=\d)", "", name)
        return [f"{month}_{year_part}" for month in months]
    return [name] * len(group)
