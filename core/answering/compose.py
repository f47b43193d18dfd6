"""Answers composed to their type from a table: headers, several figures, labels, counts, titles.

The loop's operations answer with one figure. For the answer types that want something else
(``core.answering.answer_types``) this module reads the table itself and composes the answer:

- a column header ("In which year was X highest?"): the row the question names, read across the
  table's period columns by one SQL statement; the header of the cell the criterion selects (largest,
  smallest, negative, above or below a figure the question quotes, in the table's scale) is the answer,
  the values its support; "which years does the table cover" lists the period headers;
- several figures ("respective"): one row across the periods named, or several rows in one period,
  each figure with its label, in the order the question names them, never their difference; when code
  cannot tell the cells apart the model chooses them (a lookup only, through the schema's enums);
- row labels ("what are the types of X", "which countries are shown"): the table's item rows, totals
  left out, narrowed to those whose labels carry the noun the question asks for when some do;
- a count of rows or of periods meeting a criterion;
- a table's title or subject.

The row a question names must match its nouns (``match_row``: most of the label's words are in the
question, not merely one), and the period it names selects the column (``period_columns``).
Nothing here formats a figure the model typed: values come from SQL results, formatted in code.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.answering import answer_types as types
from core.answering import binding, text_facts
from core.answering import citations as cite
from core.answering import operations as ops
from core.answering.measures import LINE
from core.answering.reading import ALL_OR_NONE, THRESHOLD_KINDS, Criterion, QuestionReading, topic_of
from core.answering.table_choice import label_words
from core.library.db import quote_identifier
from core.library.store import Library
from core.reports.values import SCALE_FACTORS, YEAR_WORD
from core.reports.words import content_words
from core.search.retrieval import STOPWORDS
from core.sql.runner import SqlResult
from models.types import Citation, ColumnSchema, Step

RunSql = Callable[[str], SqlResult]
AskModel = Callable[[str, dict[str, Any]], dict[str, Any]]

_SCALE_SHORT = {"k": "thousand", "m": "million", "bn": "billion"}


@dataclass(frozen=True)
class Composed:
    """An answer composed from one table: the statement that read it, what it says, and the parts."""

    view: ops.TableView
    sql: str | None
    result: SqlResult | None
    value: str
    """The bare answer ("2017", "8,943 and 6,832", "Billed; Unbilled")."""
    parts: tuple[str, ...]
    """Each span of the answer, in order."""
    sentence: str
    """The answer in words, with its support, without the source."""
    cells: tuple[tuple[int, str], ...] = ()
    """(``_row``, column) of the cells the answer was read from."""
    cell_names: dict[tuple[int, str], str] = field(default_factory=dict)


# -- reading the question against a table ------------------------------------------------------------


def _tokens(text: str) -> set[str]:
    """Content words (search stopwords left out), with "total" kept (it names a row) and single digits ("Scope 1"
    and "Scope 2" differ by them)."""
    return content_words(text, STOPWORDS, single_digits=True)


def _has_values(view: ops.TableView, row: ops.RowChoice) -> bool:
    """A row holding at least one figure (not a section heading such as "Emissions from:")."""
    return any(ops.is_number(v) for v in view.values.get(row.row, ()))


def period_of(view: ops.TableView, column: ColumnSchema) -> str:
    """The one year a column is for ("Fiscal year 2018" -> "2018"; "2018/2019", the fiscal year ending in 2019, as
    the table's periods read it -> "2019"), else ""."""
    stored = [p.period.fiscal_year for p in view.info.periods if p.column == column.name and not p.period.quarter]
    if len(stored) == 1 and stored[0]:
        return str(stored[0])
    found = list(dict.fromkeys(YEAR_WORD.findall(f"{ops.column_title(view, column.name)}")))
    if not found:
        found = list(dict.fromkeys(YEAR_WORD.findall(column.name)))
    return found[0] if len(found) == 1 else ""


def period_columns(view: ops.TableView, question: str) -> list[tuple[str, ColumnSchema]]:
    """The numeric columns for a period, one per period in table order: where several columns are for
    the same year ("Domestic 2019", "International 2019"), the one whose header shares most words
    with the question (the first on a tie)."""
    asked = _tokens(question)
    best: dict[str, tuple[int, ColumnSchema]] = {}
    order: list[str] = []
    for column in view.data_columns:
        if column.type.upper() == "TEXT":
            continue
        year = period_of(view, column)
        if not year:
            continue
        score = len(asked & (_tokens(ops.column_title(view, column.name)) - {year}))
        if year not in best:
            order.append(year)
            best[year] = (score, column)
        elif score > best[year][0]:
            best[year] = (score, column)
    return [(year, best[year][1]) for year in order]


def match_row(view: ops.TableView, question: str) -> ops.RowChoice | None:
    """The row the question names, among rows holding figures: the label sharing most words with it,
    where those words are at least half of the label's, or two or more words no other label shares as
    many of (a label merely sharing a word is not named); a label read with its section heading counts the
    heading's words where the question names both whole; on a tie, the label the question covers most
    fully, then one named without its heading, then the shortest, then the first. None when no label qualifies."""
    asked = view.asked_words(question) | _tokens(question)
    sections = {f.row: f.section for f in view.info.row_facts}
    asked_stems, denied_asked = binding.stems(question), binding.denied(question)
    scored = []
    for index, row in enumerate(view.rows):
        if not _has_values(view, row) or asked_stems & (binding.denied(row.label) - denied_asked):
            continue  # "Dividends declared and not paid" is never the dividends paid
        label = _tokens(re.sub(r"\s*\(#\d+\)$", "", row.label))
        if not label:
            continue
        # Words saying how the question asks ("in which year was the amount of X higher") name no row: a label
        # sharing only those with it ("Creditors: amounts falling due within one year") is not named, and they
        # do not outnumber the words a label shares with what the question is about; they still count as
        # covered for a label that prints them ("Profit for the year").
        shared = len((asked - _ASKING_WORDS) & label)
        if not shared:
            continue
        named = label | _tokens(sections.get(row.row, ""))
        if named > label and named <= asked:
            # The label read with its section heading, named whole: "deferred income tax assets from
            # depreciation" is "Depreciation" under "Deferred income tax assets", not "Net deferred income
            # tax assets". On a tie a label naming the line alone wins (it is not "Total" under a heading).
            scored.append((len(named), 1.0, False, -len(label), -index, row))
        else:
            scored.append((shared, len(asked & label) / len(label), True, -len(label), -index, row))
    if not scored:
        return None
    best = max(scored, key=lambda item: item[:5])
    shared, covered = best[0], best[1]
    unique = sum(1 for item in scored if item[0] == shared) == 1
    return best[5] if covered >= 0.5 or (shared >= 2 and unique) else None


_HOW_WORDS = ops.words(
    "year years table respective respectively shown show provide information data less than more greater higher lower "
    "highest lowest largest smallest biggest greatest least most exceed exceeded exceeding above below under over "
    "negative positive thousand thousands million millions billion billions percent calculated listed there")
"""Words saying how a question asks (a criterion, a scale, "respective"), not what it is about."""
_ASKING_WORDS = frozenset(_tokens(
    "year years table respective respectively shown show provide information data less than more greater higher lower "
    "highest lowest largest smallest biggest greatest least most exceed exceeded exceeding above below under over "
    "amount amounts value values figure figures"))
"""Words saying how a question asks (its years, a criterion), or that it asks for a figure ("the amount of X"), in
the words ``match_row`` reads: they name no row."""
MIN_SUBJECT_COVERAGE = 0.5
"""Share of a question's subject words a table's labels, headers and title must name for code to answer
from it: "depreciation expense from continuing operations related to internal use software" is not
about an earnings-per-share table that has a "Continuing operations" row."""


_TABLE_VERBS = ops.words("include included includes cover covers covered present presented contain contains period "
                         "periods quarter quarters highlighted displayed featured reported disclosed given financial "
                         "fiscal")
"""Words saying what a table holds ("the years included", "the periods presented", "the financial years shown"), not
what it is about."""


def names_no_table(reading: QuestionReading, answer: types.AnswerType) -> bool:
    """A title or the periods asked of "the table" with no word of what it is about ("what does the table show?",
    "which periods does the table include?"): any table in reach would answer, so none is the one meant."""
    if answer.kind == types.TITLE:
        return not topic_of(reading.subject)
    return answer.kind == types.COLUMN_HEADERS and \
        not text_facts.subject_words(reading.text) - _GENERIC_NOUNS - _HOW_WORDS - _TABLE_VERBS


def subject_covered(view: ops.TableView, question: str) -> float:
    """Share of the question's subject words (no years, figures or asking words) the table names."""
    asked = text_facts.subject_words(question) - _GENERIC_NOUNS - _HOW_WORDS
    if not asked:
        return 1.0
    named = label_words(view) | view.asked_words(" ".join(r.label for r in view.rows))
    return len(asked & named) / len(asked)


def names_whole_row(view: ops.TableView, question: str) -> bool:
    """The question names every word of the label of the row ``match_row`` picks."""
    return whole_row_words(view, question) > 0


def whole_row_words(view: ops.TableView, question: str) -> int:
    """How many words of the row ``match_row`` picks the question names, where it names every one of them (0
    where it names only some): "Net earnings from continuing operations before minority interests" names more of a
    question about it than another table's "Continuing operations"."""
    row = match_row(view, question)
    if row is None:
        return 0
    label = _tokens(re.sub(r"\s*\(#\d+\)$", "", row.label))
    return len(label) if label and label <= view.asked_words(question) | _tokens(question) else 0


def _meets(value: float, rule: Criterion, table_scale: str) -> bool:
    threshold = rule.threshold
    if rule.scale in SCALE_FACTORS and rule.scale and table_scale in SCALE_FACTORS and table_scale:
        threshold = threshold * SCALE_FACTORS[rule.scale] / SCALE_FACTORS[table_scale]
    elif rule.scale and rule.scale != "%" and not table_scale:
        threshold = threshold * SCALE_FACTORS.get(rule.scale, 1.0)
        if value and abs(value) * 1000 < threshold:  # the table's figures are in a scale it does not state
            threshold = rule.threshold
    if rule.kind == "negative":
        return value < 0
    if rule.kind == "positive":
        return value > 0
    if rule.kind == "equal":
        return value == threshold
    if rule.kind == "above":
        return value > threshold
    if rule.kind == "below":
        return value < threshold
    return False


def _row_sql(view: ops.TableView, row: int, columns: Sequence[str]) -> str:
    label = [quote_identifier(view.label_column.name)] if view.label_column else []
    selected = ", ".join(["_row", *label, *(quote_identifier(c) for c in columns)])
    return f"SELECT {selected} FROM {quote_identifier(view.name)} WHERE _row = {row}"


def _figure(view: ops.TableView, row: int, column: str, value: Any) -> str:
    return ops.format_value(value, view.cell_scale(row, column))


def _listing(parts: Sequence[str]) -> str:
    """"A", "A and B", "A, B and C"; "" for none."""
    parts = list(parts)
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


# -- the types ---------------------------------------------------------------------------------------


def headers(view: ops.TableView, reading: QuestionReading, answer: types.AnswerType, run_sql: RunSql) -> Composed | None:
    """A column-header answer (or a count of periods): the periods the question's criterion selects in
    the row it names, or every period the table covers when it names no criterion."""
    question = reading.text
    periods = period_columns(view, question)
    if len(periods) < 2:
        return None
    rule = reading.criterion
    if rule.kind == "all":
        if answer.kind == types.COUNT:
            return None
        years = [year for year, _ in periods]
        titles = [ops.column_title(view, c.name) for _, c in periods]
        sentence = f"The table gives figures for {_listing(years)} (columns {_listing(titles)})"
        return Composed(view, None, None, ops.join_values(years), tuple(years), sentence)
    row = match_row(view, question)
    if row is None or _names_unheld(view, row, reading):
        return None
    names = [c.name for _, c in periods]
    result = run_sql(_row_sql(view, row.row, names))
    if not result.rows:
        return None
    values = dict(zip(result.columns, result.rows[0]))
    read: list[tuple[str, ColumnSchema, float]] = [(year, column, float(values[column.name])) for year, column in periods
                                                    if ops.is_number(values.get(column.name))]
    if len(read) < (2 if rule.kind in ("max", "min") else 1):
        return None
    if rule.kind in ("max", "min"):
        pick = max if rule.kind == "max" else min
        best = pick(v for _, _, v in read)
        chosen = [item for item in read if item[2] == best][:1]
    else:
        chosen = [item for item in read if _meets(item[2], rule, view.cell_scale(row.row, item[1].name))]
    support = "; ".join(f"{year}: {_figure(view, row.row, c.name, v)}" for year, c, v in read)
    cells = tuple((row.row, c.name) for _, c, _ in read)
    cell_names = {(row.row, c.name): f"{row.label}, {ops.column_title(view, c.name)}" for _, c, _ in read}
    if answer.kind == types.COUNT:
        count = str(len(chosen))
        sentence = f"{count} of {len(read)} periods ({_listing([y for y, _, _ in chosen]) or 'none'}) — {row.label}: {support}"
        return Composed(view, result.sql, result, count, (count,), sentence, cells, cell_names)
    if not chosen:
        return None
    years = [year for year, _, _ in chosen]
    what = {"max": "is highest", "min": "is lowest", "negative": "is negative", "positive": "is positive",
            "above": f"is above {ops.format_number(rule.threshold)}", "below": f"is below {ops.format_number(rule.threshold)}",
            "equal": f"is {ops.format_number(rule.threshold)}"}
    verb = what[rule.kind].replace("is ", "was ", 1) if len(years) == 1 else what[rule.kind].replace("is ", "are ", 1)
    sentence = f"{_listing(years)}: {row.label} {verb} there ({support})"
    return Composed(view, result.sql, result, ops.join_values(years), tuple(years), sentence, cells, cell_names)


def _names_unheld(view: ops.TableView, row: ops.RowChoice, reading: QuestionReading) -> bool:
    """A name the question's subject writes with a capital ("EMEA", "Product") that neither the row's label, its
    section's heading, the table's title nor its column headers hold: the row is another item than the one asked
    ("Net sales" for the net sales from EMEA), so the periods it passes a bound in are not the ones asked about."""
    named = {w for w in re.findall(r"\b[A-Z][\w&-]*", reading.subject) if w.lower() not in STOPWORDS}
    if not named:
        return False
    sections = {f.row: f.section for f in view.info.row_facts}
    held = text_facts.subject_words(" ".join([row.label, sections.get(row.row, ""), view.info.title,
                                               *(c.header for c in view.data_columns)]))
    return bool(text_facts.subject_words(" ".join(named)) - held - _HOW_WORDS)


def _position(question: str, text: str) -> int:
    """Where the question names ``text`` (a year, or a label's first word it carries); far on when nowhere."""
    lowered = question.lower()
    found = lowered.find(text.lower())
    if found >= 0:
        return found
    spots = [lowered.find(w) for w in _tokens(text) if lowered.find(w) >= 0]
    return min(spots) if spots else len(question) + 1


def _row_for_part(view: ops.TableView, part: str) -> ops.RowChoice | None:
    return match_row(view, part)


def figures(view: ops.TableView, reading: QuestionReading, run_sql: RunSql, ask_model: AskModel | None) -> Composed | None:
    """Several figures, each with its label, in the order asked: one row across the years named, or the
    rows named (split at "and") in the one period named; else the model picks the cells (lookup only)."""
    question = reading.text
    years = [str(y) for y in reading.years]
    spanned = reading.measure.periods if reading.measure is not None and reading.measure.op == LINE else ()
    ranged = len(spanned) > len(years) >= 2 and set(reading.years) <= set(spanned)
    if ranged:  # "for fiscal years 2019 to 2017, respectively": each year of the range, in the order said
        years = [str(y) for y in (spanned if reading.years[0] < reading.years[-1] else reversed(spanned))]
    periods = dict(period_columns(view, question))
    if ranged:  # of the range, the years the table prints
        years = [y for y in years if y in periods or int(y) in reading.years]
    cells: list[tuple[ops.RowChoice, ColumnSchema]] = []
    if len(years) >= 2 and all(y in periods for y in years):
        row = match_row(view, question)
        if row is not None:
            cells = [(row, periods[y]) for y in years]
    if not cells:
        subject = re.sub(r"^.*?\brespective(?:ly)?\b\s*(?:values?\s+of\s+|amounts?\s+of\s+)?", "", question,
                         flags=re.IGNORECASE)
        pieces = [p for p in re.split(r"\s+and\s+|,\s*", subject) if _tokens(p)]
        if len(pieces) >= 2:
            named = [_row_for_part(view, p) for p in pieces]
            found = [r for r in named if r is not None]
            column = periods.get(years[0]) if len(years) == 1 else None
            if column is None and len(view.data_columns) == 1:
                column = view.data_columns[0]
            if column is not None and len(found) >= 2 and len({r.row for r in found}) == len(found):
                cells = [(r, column) for r in found]
    if not cells and ask_model is not None:
        cells = _model_cells(view, question, ask_model)
    if len(cells) < 2:
        return None
    if len({c.name for _, c in cells}) > 1 and not ranged:
        cells.sort(key=lambda rc: _position(question, period_of(view, rc[1]) or ops.column_title(view, rc[1].name)))
    else:
        cells.sort(key=lambda rc: _position(question, rc[0].label))
    columns = list(dict.fromkeys(c.name for _, c in cells))
    rows = sorted({r.row for r, _ in cells})
    label = [quote_identifier(view.label_column.name)] if view.label_column else []
    sql = (f"SELECT {', '.join(['_row', *label, *(quote_identifier(c) for c in columns)])} FROM "
           f"{quote_identifier(view.name)} WHERE _row IN ({', '.join(map(str, rows))}) ORDER BY _row")
    result = run_sql(sql)
    by_row = {r[0]: dict(zip(result.columns, r)) for r in result.rows}
    parts, said = [], []
    one_row = len({r.row for r, _ in cells}) == 1
    for row, column in cells:
        value = by_row.get(row.row, {}).get(column.name)
        if not ops.is_number(value):
            return None
        scale = view.cell_scale(row.row, column.name)
        counted = reading.counts_things  # "how many stores were opened in 2019 and 2018": counts, not money
        figure = ops.count(view, value, scale) if counted else _figure(view, row.row, column.name, value)
        parts.append(figure)
        name = ops.column_title(view, column.name) if one_row else row.label
        said.append(f"{name}: {figure if counted else ops.amount(view, value, scale)}")
    lead = f"{cells[0][0].label}: " if one_row else (f"In {ops.column_title(view, cells[0][1].name)}, "
                                                      if len(columns) == 1 else "")
    sentence = lead + "; ".join(said)
    names = {(r.row, c.name): f"{r.label}, {ops.column_title(view, c.name)}" for r, c in cells}
    return Composed(view, result.sql, result, ops.join_values(parts), tuple(parts), sentence,
                    tuple((r.row, c.name) for r, c in cells), names)


def _model_cells(view: ops.TableView, question: str, ask_model: AskModel) -> list[tuple[ops.RowChoice, ColumnSchema]]:
    """The cells the model names for a lookup of several figures (it may choose nothing else)."""
    rows = view.row_choices(question)
    columns = view.column_choices(question)
    if not rows or not columns:
        return []
    task = (f"Which cells of table {view.name} hold the figures the question asks for? Name each cell by its "
            "row and column, in the order the question asks for them. Reply with JSON.")
    try:
        choice = ops.parse_choice(view, ask_model(task, ops.operation_schema(view, rows, columns, ["lookup"])), question)
    except ValueError:  # no JSON, unknown labels or no cells: code found no answer either
        return []
    by_row = {r.row: r for r in view.rows}
    by_column = {c.name: c for c in view.data_columns}
    return [(by_row[c.row], by_column[c.column]) for c in choice.cells][: ops.MAX_CELLS]


_PLURAL_NOUN = re.compile(r"\b(?:types?|kinds?|categories|category|classes|components?|items?|countries|regions?|"
                          r"segments?|sources?|groups?|scopes?|elements?)\s+(?:of\s+)?(?:the\s+)?(\w+)", re.IGNORECASE)


_GENERIC_NOUNS = frozenset({"type", "kind", "categorie", "category", "classe", "component", "item", "element",
                            "group", "line"})


def asked_noun(question: str) -> str:
    """The noun a label question lists ("what are the scopes of emissions" -> "scope"), "" when it is a
    generic one ("types", "items") or none."""
    match = re.search(r"\b(?:what|which)\s+(?:are|were)\s+(?:the\s+)?(?:\w+\s+){0,2}?(\w+?)s?\s+(?:of|in|for|that|shown|listed)\b"
                      r"|\b(?:what|which)\s+(\w+?)s?\s+(?:are|were|is|was)\b", question, re.IGNORECASE)
    noun = next((g for g in match.groups() if g), "").lower() if match else ""
    return "" if noun in _GENERIC_NOUNS or noun in STOPWORDS else noun


_UNDER = re.compile(r"\b(?:under|within|listed\s+under)\s+(?:the\s+)?(?P<h>.+?)(?:\s+(?:in|of)\s+the\s+table)?\s*\??$",
                    re.IGNORECASE)
"""A label question naming the heading its items stand under ("what are the components under current assets")."""


def misses_the_heading(view: ops.TableView, question: str, headings: Sequence[str] = ()) -> bool:
    """The question lists the items under a heading ("the components under deferred tax liabilities") that the table
    prints as no section, heading row (one without figures), label's marked section or one of ``headings`` (those
    the caller found, such as rows printing the totals of the rows beneath them): its rows are other things."""
    under = _UNDER.search(question)
    if under is not None and not question[:under.start()].strip() and "," in under.group("h"):
        return False  # "Under a fixed dose, which methods ...": the condition the question opens with, no heading
    heading = _tokens(under.group("h")) if under is not None else set()
    if not heading:
        return False
    titles = [f.section for f in view.info.row_facts] + [r.label for r in view.rows if not _has_values(view, r)] + \
        [m.group(1) for r in view.rows if (m := re.search(r"\[([^\]]+)\]$", r.label))] + list(headings)
    return not any(_tokens(t) and heading <= _tokens(t) for t in titles)


def item_rows(view: ops.TableView, question: str) -> list[ops.RowChoice]:
    """The rows a label question lists: the table's items holding figures, without totals, unlabelled
    rows or repeats ("(#2)": a row printed twice, or one no row above tells apart); narrowed to the rows
    of the section the question names ("types of finite-lived intangible assets": the rows marked
    "[Finite-Lived Intangible Assets]"), and to the labels carrying the noun it asks for ("scopes of
    emissions") when some but not all do."""
    ranked = set(ops.ranked_rows(view))
    asked = _tokens(question)
    heading = next((i for i, r in enumerate(view.rows) if not _has_values(view, r) and _tokens(r.label)
                    and _tokens(r.label) <= asked), None)
    if heading is None and misses_the_heading(view, question):
        return []  # "the items under deferred tax liabilities": a table with no such heading lists other things
    section = view.rows
    if heading is not None:  # "components under deferred tax assets": the rows below that heading, to the next
        below = []
        for r in view.rows[heading + 1:]:
            if not _has_values(view, r) or r.row not in ranked:
                break
            below.append(r)
        section = tuple(below) if len(below) >= 2 else view.rows
    named_apart = _told_apart(view)
    rows = [r for r in section if r.row in ranked and _has_values(view, r) and r.labelled
            and not _printed_again(view, r) and not _REPEAT.search(named_apart[r.row])
            and not re.search(r"\btotal\b", r.label, re.IGNORECASE)]
    sections = {m.group(1) for r in rows if (m := re.search(r"\[([^\]]+)\]$", r.label))}
    named = [sec for sec in sections if _tokens(sec) and _tokens(sec) <= asked]
    if len(named) == 1:
        rows = [r for r in rows if r.label.endswith(f"[{named[0]}]")]
    noun = asked_noun(question)
    carrying = [r for r in rows if noun and re.search(rf"\b{re.escape(noun)}", r.label, re.IGNORECASE)]
    if 2 <= len(carrying) < len(rows):
        rows = carrying
    return rows


_REPEAT = re.compile(r"\s*\(#\d+\)$")
"""The mark of a label printed again ("Net sales (#2)", ``operations.load_table_view``)."""


def _printed_again(view: ops.TableView, row: ops.RowChoice) -> bool:
    """Whether ``row`` repeats an earlier row: its label marked so ("Net sales (#2)") and its figures those of a row
    of the same label above. "Not Hispanic (#2)" under another heading, with figures of its own, is a row of its own."""
    plain = _REPEAT.sub("", row.label)
    if plain == row.label:
        return False
    figures = [v for v in view.values.get(row.row, ()) if ops.is_number(v)]
    return any(r.label == plain and [v for v in view.values.get(r.row, ()) if ops.is_number(v)] == figures
               for r in view.rows)


def _told_apart(view: ops.TableView) -> dict[int, str]:
    """Each row's label as an answer names it (by ``_row``): a label printed on several rows ("Not Hispanic (#3)") is
    told apart by the nearest row above it whose label is printed once ("Not Hispanic (Asian alone)"); a repeat with
    no such row above keeps its mark."""
    repeated = {_REPEAT.sub("", r.label) for r in view.rows if _REPEAT.search(r.label)}
    names: dict[int, str] = {}
    once = ""  # the label printed once nearest above
    for r in sorted(view.rows, key=lambda r: r.row):
        plain = _REPEAT.sub("", r.label)
        names[r.row] = f"{plain} ({once})" if plain in repeated and once else r.label
        if r.labelled and plain not in repeated:
            once = r.label
    return names


def shown_label(label: str, noun: str) -> str:
    """A row label as a label answer gives it: without the section it was marked with, and only the
    part naming the asked-for noun when the label carries it in brackets ("... (Scope 1)" -> "Scope 1")."""
    label = re.sub(r"\s*\[[^\]]+\]$", "", label)
    if noun:
        inner = re.search(rf"\(({re.escape(noun)}[^()]*)\)", label, re.IGNORECASE)
        if inner:
            return inner.group(1)
    return label


_PASSED = (*THRESHOLD_KINDS, "negative", "positive")
"""The criteria a count of rows meeting them reads figures for ("how many exceeded $50,000", "how many were negative")."""


def labels(view: ops.TableView, reading: QuestionReading, answer: types.AnswerType, run_sql: RunSql) -> Composed | None:
    """A list of row labels, or their count."""
    question = reading.text
    rows = item_rows(view, question)
    if len(rows) < (1 if answer.kind == types.COUNT else 2) or len(rows) > 12:
        return None
    label = quote_identifier(view.label_column.name) if view.label_column else "_row"
    result = run_sql(f"SELECT _row, {label} FROM {quote_identifier(view.name)} "
                     f"WHERE _row IN ({', '.join(str(r.row) for r in rows)}) ORDER BY _row")
    noun = asked_noun(question)
    named_apart = _told_apart(view)
    names = [shown_label(named_apart[r.row], noun) for r in rows]
    rule = reading.criterion
    years = [str(y) for y in reading.years]
    periods = dict(period_columns(view, question))
    if answer.kind == types.COUNT and rule.kind in _PASSED and len(years) == 1 \
            and years[0] in periods:  # "how many components exceeded $50,000 thousand in 2019"
        column = periods[years[0]]
        position = view.column_position(column.name)
        meeting = [(r, n) for r, n in zip(rows, names) if ops.is_number(view.values[r.row][position])
                   and _meets(float(view.values[r.row][position]), rule, view.cell_scale(r.row, column.name))]
        count = str(len(meeting))
        said = "equal to" if rule.kind == "equal" else rule.kind
        sentence = (f"{count} of the {len(rows)} rows {said} {ops.format_number(rule.threshold)} in "
                    f"{ops.column_title(view, column.name)}: {_listing([n for _, n in meeting]) or 'none'}")
        return Composed(view, result.sql, result, count, (count,), sentence,
                        tuple((r.row, column.name) for r, _ in meeting))
    if answer.kind == types.COUNT:
        if not _counts_the_rows(question, rows, view) or rule.kind in _PASSED:
            return None  # "how many were over 60%": a count of every row listed would leave the threshold unread
        if any(_REPEAT.search(named_apart[r.row]) and not _printed_again(view, r) for r in view.rows):
            return None  # "no", "yes", "no (#2)" ...: values of a category, not items to count
        count = str(len(names))
        return Composed(view, result.sql, result, count, (count,), f"{count} rows are listed: {_listing(names)}")
    if any(_tokens(r.label) and _tokens(r.label) <= _tokens(question) for r in rows):
        # "which company was granted permit 2021-015": the question names one of the rows, and asks of it
        return None
    if rule.kind in (*_PASSED, "min", "max") or reading.query is not None and reading.query.operation == "top" or \
            ALL_OR_NONE.search(question) or re.search(r"\b(?:any|no)\s+[a-z]", question, re.IGNORECASE):
        # "which courses were over 50%", "which had a deficit", "which three birds rank lowest ...": every row
        # listed would leave the threshold, the sign or the ranking unread ("that no tenant reported": the rows at
        # nothing; "which had any budget": the rows with one)
        return None
    if _names_another_column(view, reading):
        return None  # "which districts did A have inspections in" over rows labelled by operator: not these labels
    return Composed(view, result.sql, result, "; ".join(names), tuple(names), f"The table lists {_listing(names)}")


def _names_another_column(view: ops.TableView, reading: QuestionReading) -> bool:
    """The rows asked for are named by the header of a text column other than the label column ("which districts"
    over a register labelled by Operator, with a District column)."""
    group = binding.stems(reading.query.group) if reading.query is not None and reading.query.group else set()
    label = view.label_column
    if not group or label is None or group & binding.stems(label.header or label.name):
        return False
    return any(group & binding.stems(c.header) for c in view.info.schema.columns
               if c.type.upper() == "TEXT" and c.name != label.name and c.header)


_NUMBER_OF = re.compile(r"\b(?:numbers?|no\.)\s+of\b", re.IGNORECASE)


def _counts_the_rows(question: str, rows: Sequence[ops.RowChoice], view: ops.TableView) -> bool:
    """Whether "how many" asks how many rows are listed: not where the question names one of the rows (it asks for
    that row's figure: "how many visitors came to the museum") or a figure column by its whole header ("how many
    women aged 60 and over" over a Women column), nor where the rows are themselves numbers of what is counted
    ("Number of branches in the region", "Number of branches abroad")."""
    asked = _tokens(question)
    if any(_tokens(r.label) and _tokens(r.label) <= asked for r in rows):
        return False
    headers = [_tokens(c.header) - {"total"} for c in view.data_columns]
    if any(words and words <= asked for words in headers):
        return False
    return not any(_NUMBER_OF.search(r.label) for r in rows)


def yes_no(view: ops.TableView, reading: QuestionReading, run_sql: RunSql) -> Composed | None:
    """A yes/no comparison of one row between two periods: "Is the discount rate higher in 2019 than in
    2018?", "Did revenue increase in 2019?" (against the period before it in the table). The answer is
    "Yes" or "No" with both figures as support; None when the question compares nothing a table holds."""
    question = reading.text
    up, down = reading.criterion.kind == "max", reading.criterion.kind == "min"
    if up == down:
        return None
    row = match_row(view, question)
    periods = period_columns(view, question)
    if row is None or len(periods) < 2:
        return None
    by_year = dict(periods)
    named = [str(y) for y in reading.years if str(y) in by_year]
    if len(named) >= 2:
        first, second = named[0], named[1]
    elif len(named) == 1:
        earlier = [y for y, _ in periods if y < named[0]]
        if not earlier:
            return None
        first, second = named[0], max(earlier)  # "did it increase in 2019": against the year before it
    else:
        return None
    columns = [by_year[first].name, by_year[second].name]
    result = run_sql(_row_sql(view, row.row, columns))
    if not result.rows:
        return None
    values = dict(zip(result.columns, result.rows[0]))
    a, b = values.get(columns[0]), values.get(columns[1])
    if a is None or b is None or not (ops.is_number(a) and ops.is_number(b)):
        return None
    holds = float(a) > float(b) if up else float(a) < float(b)
    answer = "Yes" if holds else "No"
    shown = [_figure(view, row.row, c, v) for c, v in zip(columns, (a, b))]
    sentence = f"{answer}: {row.label} was {shown[0]} in {first} against {shown[1]} in {second}"
    names = {(row.row, c): f"{row.label}, {ops.column_title(view, c)}" for c in columns}
    return Composed(view, result.sql, result, answer, (answer,), sentence, tuple((row.row, c) for c in columns), names)


def title(view: ops.TableView) -> Composed | None:
    info = view.info
    name = " ".join((info.caption or info.heading).split()).rstrip(":")
    if not name:
        return None
    return Composed(view, None, None, name, (name,), f"The table shows {name}")


def compose(views: Sequence[ops.TableView], reading: QuestionReading, answer: types.AnswerType, run_sql: RunSql,
            ask_model: AskModel | None = None) -> Composed | None:
    """The answer composed from the first table (in the order given, likeliest first) that can give one
    of ``answer``'s type; None when the type is composed by the loop's operations or no table fits. A
    table with a row whose whole label the question names goes before one whose label it only partly names, and
    of two such, the one whose label names more of the question."""
    question = reading.text
    if len(views) > 1 and names_no_table(reading, answer):
        return None  # "what does the table show?" names nothing to tell the tables in reach apart
    views = sorted(views, key=lambda view: -whole_row_words(view, question))
    for view in views:
        if answer.kind != types.TITLE and subject_covered(view, question) < MIN_SUBJECT_COVERAGE:
            continue  # the table shares a word or two with the question but is about something else
        composed: Composed | None = None
        if answer.kind == types.COLUMN_HEADERS:
            composed = headers(view, reading, answer, run_sql)
        elif answer.kind == types.COUNT:
            composed = (headers(view, reading, answer, run_sql) if reading.frame == "count_periods"
                        else labels(view, reading, answer, run_sql))
        elif answer.kind == types.FIGURES:
            composed = figures(view, reading, run_sql, ask_model)
        elif answer.kind == types.ROW_LABELS and answer.several:
            composed = labels(view, reading, answer, run_sql)
        elif answer.kind == types.TITLE:
            composed = title(view)
        elif answer.kind == types.YES_NO:
            composed = yes_no(view, reading, run_sql)
        if composed is not None:
            return composed
    return None


_RANKED = re.compile(r"^(?P<label>.+?) \((?:change )?[^()]*\)$")


def label_of_ranking(value: str) -> str:
    """A ranking's value ("Corporate debt securities (1,234)") as the label alone."""
    match = _RANKED.match(value)
    return match.group("label") if match else value


def as_step(composed: Composed, question: str, chunk_ids: Sequence[int], library: Library,
            names: cite.SourceNames) -> tuple[Step, list[Citation], str]:
    """The composed answer as a loop step, its citations (the cells read, or the table when no cell is
    the answer's support) and its sentence with the source."""
    view = composed.view
    result = composed.result
    step = Step(subquery=question, chunk_ids=tuple(chunk_ids), sql=composed.sql,
                sql_columns=result.columns if result else (), sql_result=result.rows if result else (),
                intermediate_answer=composed.sentence)
    label = names.label(view.info.document_id, view.info.page, view.info, view.info.document)
    cells = cite.cells_for(library, view.info, composed.cells) if composed.cells else []
    if result is not None:
        citation = cite.sql_citation(view.info, result.sql, result.columns, result.rows, cells, names,
                                     composed.cell_names)
    else:
        citation = Citation(kind="table", document=view.info.document, document_id=view.info.document_id,
                            page=view.info.page, bbox=view.info.bbox, snippet=cite.snippet(view.markdown(6)),
                            table=view.name, label=label)
    source = f"; source: {cite.short_label(citation.label or label)}"
    return step, [citation], f"{composed.sentence[0].upper()}{composed.sentence[1:]}{source}."
