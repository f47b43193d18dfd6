"""The query plan a small model fills where code's reading of the question planned none (``table_query``).

A question over a register or a statistics table in words the grammar does not read ("which outlet sold the
fewest units in the spring", "how many cases were reported from abroad") still asks for one of a few
aggregates over the table's rows. The model is shown the table's columns (their printed headers, types and a
few real values) and fills a ``QueryPlan`` under a JSON schema whose enums are the table's real columns and the
operations code compiles: it chooses, it never writes SQL or a figure. Its choices are then checked against the
table and the question before anything runs:

- a filter's value must be one of the column's real values (matched loosely: case, spacing, a value named by
  all its distinctive words); a filter on a value the question does not name, or a threshold on a figure it
  does not print, is the model's own addition and is left out;
- the operation must have what it needs (a figure column to add up, a column to rank or list by, a row to
  read a cell from).

A reply that fails a check raises ``ValueError`` naming what was wrong, which the loop records on the step
(``loop.QUERY_PLAN_REPAIRS``: it is not sent back, as a 1.5B model repeats itself). A plan that passes is
compiled and executed by ``table_query`` like code's own, with the same checks of its result and the same
wording and citations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Sequence
from difflib import SequenceMatcher
from typing import Any

from core.answering import measures as m
from core.answering import table_query
from core.answering.binding import stems
from core.answering.operations import TableView
from core.answering.operations import words as ops_words
from core.answering.reading import THRESHOLD_KINDS, VERSUS_KINDS, QuestionReading, topic_of
from core.reports.values import find_periods
from models.types import ColumnSchema

Distinct = Callable[[ColumnSchema], list[Any]]

OPERATIONS = ("value", "count", "sum", "average", "max", "min", "top", "list", "share")
MAX_FILTERS = 3
SHOWN_VALUES = 8
"""Real values shown for each text column (the model chooses filters among the column's values, all of them); the
plan is asked with this description alone, not the table's rows."""
SHOWN_CHARS = 240
SHOWN_FIGURES = 3
"""Figures shown for each figure column: what it holds, in its format."""
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")
_FIGURE = re.compile(r"(?<![\w.,/\u2013-])\d[\d,]*(?:\.\d+)?(?![\w/\u2013-])")
"""A figure the question prints, not a number of a range or a code ("aged 25-64", "ISCED 0-2", "EU-15")."""

TASK = (
    "Plan a query over the TABLE that answers the QUESTION. operation: value = one row's figure; count = how many "
    "rows; sum, average, max, min = of the target column over the rows kept; top = the groups with the largest "
    "(descending) or smallest target, limit = how many; list = the groups' names; share = the kept rows' part of the "
    "target's total, in %. target: the figure column the question asks about. filters: the rows the question names "
    "(a column and one of its values, as written in the table). group: the column whose values the answer names "
    "(or the month or year of a date column). threshold: a figure the target must be above or below, as written in "
    "the question. Reply with JSON.")


def plannable(view: TableView, distinct: Distinct) -> bool:
    """A plan needs a text column (what a filter or a group names) and a figure column; a table without one
    leaves the schema an empty choice, which no grammar can constrain."""
    text, numbers, _dated = _columns(view, distinct)
    return bool(text) and bool(numbers)


FINANCIAL_DOC_TYPES = frozenset({"10-K", "10-Q", "8-K", "20-F", "annual report", "interim report", "earnings release",
                                 "budget", "financial statements", ""})
"""Documents whose tables over periods are statements or budgets, read line by line by the loop's operations (a
document of unknown kind is taken for one)."""


def offered_tables(views: Sequence[TableView], reading: QuestionReading, doc_types: dict[int, str]) -> list[TableView]:
    """The tables a plan may be asked over: a statement's lines over periods are read by the loop's operations
    instead, unless the question asks over rows in so many words; a table of periods in a document of another kind
    (``doc_types`` by document id: a statistics release's states by decade, a report's districts by year) is
    offered like any other."""
    return [v for v in views if not (v.info.periods and reading.query is None and
                                     doc_types.get(v.info.document_id, "") in FINANCIAL_DOC_TYPES)]


def plannable_table(views: Sequence[TableView], question: str, reader: Callable[[TableView], Distinct]
                    ) -> tuple[TableView, Distinct] | None:
    """The first of ``views`` (likeliest first) a plan can be filled over (``plannable``) that names something the
    question asks about (``about_the_table``), with its reader of distinct values; None where none is."""
    for view in views:
        distinct = reader(view)
        if plannable(view, distinct) and about_the_table(question, view, distinct):
            return view, distinct
    return None


def about_the_table(question: str, view: TableView, distinct: Distinct) -> bool:
    """Whether the table names something the question asks about (in its title, headers or text values): "how
    many gardeners were employed" over a budget by department is not a question of its rows."""
    asked = {w for w in topic_of(question) if w not in ("many", "much", "number", "total")}
    if not asked:
        return False
    info = view.info
    said = ops_words(" ".join([info.caption, info.heading, *(f"{c.header} {c.name}" for c in info.schema.columns)]))
    for column in info.schema.columns:
        if column.type.upper() == "TEXT" and not column.name.startswith("_"):
            said |= ops_words(" ".join(str(v) for v in distinct(column)[: table_query.MAX_DISTINCT] if v))
    return bool(asked & said)


def schema(view: TableView, distinct: Distinct, reading: QuestionReading | None = None) -> dict[str, Any]:
    """The plan's JSON schema: its enums are the table's real columns. Given the question's ``reading``, a ranking's
    limit and order are asked only of a question that ranks, and a threshold only of one that states a figure (a
    year is none): each field the reply need not write is some twenty tokens the small model does not generate,
    and a filler it cannot get wrong."""
    text, numbers, dated = _columns(view, distinct)
    groups = [c.name for c in text] + [f"{unit} of {c.name}" for c in dated for unit in ("month", "year")]
    fields: dict[str, Any] = {
        "type": "object",
        "properties": {
            "operation": {"type": "string", "enum": list(OPERATIONS)},
            "target": {"type": "string", "enum": [c.name for c in numbers] + [""]},
            "filters": {"type": "array", "maxItems": MAX_FILTERS, "items": {
                "type": "object",
                "properties": {"column": {"type": "string", "enum": [c.name for c in text]},
                               "value": {"type": "string", "maxLength": 80}},
                "required": ["column", "value"]}},
            "group": {"type": "string", "enum": [*groups, ""]},
            "limit": {"type": "integer", "minimum": 1, "maximum": 10},
            "descending": {"type": "boolean"},
            "threshold": {"type": "object", "properties": {
                "column": {"type": "string", "enum": [c.name for c in numbers] + [""]},
                "above": {"type": "boolean"}, "value": {"type": "number"}},
                "required": ["column", "above", "value"]},
        },
        "required": ["operation", "target", "filters", "group", "limit", "descending", "threshold"],
    }
    if reading is None:
        return fields
    unasked: set[str] = set()
    if not ranks(reading):
        unasked |= {"limit", "descending"}
    if not _states_a_figure(reading.text):
        unasked.add("threshold")
    fields["properties"] = {k: v for k, v in fields["properties"].items() if k not in unasked}
    fields["required"] = [k for k in fields["required"] if k not in unasked]
    return fields


_RANKS = re.compile(r"\b(?:most|least|fewest|highest|lowest|largest|smallest|biggest|greatest|top|bottom|rank\w*|"
                    r"first|last|best|worst|leading|maximum|minimum|max|min|fastest|slowest|quickest|heaviest|"
                    r"lightest|oldest|youngest|richest|poorest|busiest)\b", re.IGNORECASE)


_TWO_FIGURES = frozenset({m.DIFFERENCE, m.CHANGE, m.PERCENT_CHANGE, m.GAP})
"""The measures of two figures (a difference, a change between periods): never one cell's value."""

_WHICH = re.compile(r"\s*(?:in\s+|at\s+|for\s+)?(?:which|what)\b", re.IGNORECASE)


def ranks(reading: QuestionReading) -> bool:
    """Whether the question ranks rows ("which three districts had the most cases", "the smallest sample")."""
    return bool(reading.query is not None and reading.query.operation == "top" or
                reading.criterion.kind in ("max", "min") or _RANKS.search(reading.text))


def _states_a_figure(text: str) -> bool:
    """Whether the question prints a figure other than a year ("more than 500 employees", "20% or more")."""
    return any(not re.fullmatch(r"(?:19|20)\d\d", n) for n in _FIGURE.findall(text))


def task(view: TableView, question: str, distinct: Distinct) -> str:
    """The table described by its columns (header, type, a few real values), then the question."""
    info = view.info
    lines = [f"TABLE: {info.caption or info.heading or info.name} ({len(view.rows)} rows)"]
    for column in info.schema.columns:
        if column.name.startswith("_"):
            continue
        shown_values = SHOWN_VALUES if column.type.upper() == "TEXT" else SHOWN_FIGURES
        values = [v for v in distinct(column) if v not in (None, "")][:shown_values]
        if not values:
            continue  # an empty column: nothing to choose there
        shown = ", ".join(str(v) for v in values[:1])
        for value in values[1:]:  # long labels: as many as a line of SHOWN_CHARS holds, the first always
            if len(shown) + len(str(value)) > SHOWN_CHARS:
                break
            shown = f"{shown}, {value}"
        header = f" ({column.header})" if column.header and column.header != column.name else ""
        lines.append(f"- {column.name}{header}: {column.type.lower()}; e.g. {shown}")
    return "\n".join([TASK, *lines, f"QUESTION: {question}"])


def from_model(reply: dict[str, Any], view: TableView, reading: QuestionReading,
               distinct: Distinct, document: str = "") -> table_query.QueryPlan:
    """The model's plan, checked against the table and the question (and the title of the ``document`` the table is
    in); ValueError says what is wrong."""
    text, numbers, dated = _columns(view, distinct)
    by_name = {c.name: c for c in (*text, *numbers)}
    operation = str(reply.get("operation", ""))
    if operation not in OPERATIONS:
        raise ValueError(f"operation {operation!r} is none of {', '.join(OPERATIONS)}.")
    target = by_name.get(str(reply.get("target") or ""))
    if target is not None and target not in numbers:
        raise ValueError(f"target {target.name!r} is no figure column.")
    if target is not None:
        # of columns that differ by their year only, the year the question asks (the model's may be another)
        of_year = table_query.of_the_year_asked(target, numbers, reading)
        if of_year is None:
            raise ValueError(f"target {target.name!r} is of another year than the question asks.")
        target = of_year
    # "the fourth quarter of 2009" names a row "Q4 2009" as the table prints it
    asked = stems(reading.text) | {f"q{p.quarter}" for p in reading.periods if p.quarter}
    whole = table_query.column_named_whole(numbers, asked)
    if whole is not None and (target is None or not stems(target.header) <= asked):
        # "Greece's correlation in Q4 2009" over columns Portugal, Greece, Spain: the column the question names by
        # its whole header, not another the model chose
        target = whole
    if operation == "value" and reading.measure is not None and reading.measure.op in _TWO_FIGURES:
        # "how far did X fall from 2003 to 2008", "the difference between A and B": one cell answers none of it
        raise ValueError("the question asks how two figures differ, and a value plan reads one: choose its two cells.")
    if operation == "value" and reading.criterion.kind in ("max", "min") and _RANKS.search(reading.text) and \
            (re.search(r"\bwhich\b", reading.text, re.IGNORECASE) or int(reply.get("limit") or 1) > 1):
        # "of the agency's programmes, which one receives the largest grant", "name the three that employed the most":
        # the rows ranked first, named, not the figure of the row the model filtered on (the heading the ranked rows
        # stand under)
        operation = "top"
    filters, headed = _filters_naming_columns(reply.get("filters") or (), numbers, text, distinct, reading)
    if headed is not None:
        # "in how many quarters was Spain's index under 0.2" filtered on a value "Spain" where Spain heads a figure
        # column (a 1.5B model takes a column for a value): that column is the figure asked
        target = headed
    # a filter on a value the question does not name is the model's own addition: left out, not run
    of_rows = asked - stems(target.header) if target is not None else asked  # the target's words name its column
    bare = table_query.heading_values(view)
    # the rows under a heading the question names ("which eating or screen habits": those under "Daily
    # habits"), whatever heading the model made up for them (a 1.5B model writes "Screen habits")
    under = table_query.heading_asked(view, reading) if operation != "value" else None
    # the words that describe the table as a whole (its title, the lines introducing it, its document's title): a
    # filter the model makes of them ("NNMB rural survey") names no row
    described = stems(f"{view.info.caption} {view.info.heading} {view.introduced} {document}")
    conditions = tuple(c for f in filters if (c := _condition_or_heading(f, under, by_name, text, distinct, of_rows,
                                                                         reading.text, bare, described)))
    share_asked = (reading.percent or table_query.percent_asked(reading)) and not reading.several
    conditions, versus = _one_filter_a_column(conditions, operation, share_asked)
    if versus is not None:
        operation = "share"
    group, group_of = _group(str(reply.get("group") or ""), text, dated, distinct)
    limit = max(1, min(10, int(reply.get("limit") or 1)))
    descending = bool(reply.get("descending", True))
    wanted = reading.query.operation if reading.query is not None else ""
    if wanted == "list" and target is not None and _RANKS.search(reading.text) and \
            reading.criterion.kind in THRESHOLD_KINDS and not table_query.question_thresholds(view, reading, target):
        # "which lender is owed the most over 10 years": the bound read is the header of the column ranked
        wanted = "top"
    if (operation == "sum" or operation == "count" and target is not None and
        reading.criterion.kind not in THRESHOLD_KINDS) and \
            table_query.AVERAGE_ASKED.search(reading.text) and \
            not re.search(r"\b(?:total|in\s+all|altogether|combined)\b", reading.text, re.IGNORECASE):
        # "on average, what percentage ...", "on average, how many cases did a region report": the model's sum (or its
        # count of the rows, with the figure column that counts them) is the average asked for
        operation = "average"
    if operation == "top" and group is None:
        group = view.label_column
    if operation in ("max", "min") and (group is not None or wanted == "top"):
        # "which country had the most": the group with the largest figure, named, not the figure alone
        operation, descending, limit = "top", operation == "max", 1 if wanted != "top" else limit
        group = group or view.label_column
    if operation == "value" and target is not None and not conditions and reading.criterion.kind in ("max", "min") \
            and _WHICH.match(reading.text) and _RANKS.search(reading.text):
        # "which state grew fastest": a ranking the grammar did not read as one, planned as a lookup of a row the
        # question does not name (a filter left out above): the row ranked first by the model's figure
        operation, group, limit = "top", group or view.label_column, 1
        descending = reading.criterion.kind == "max"
    if wanted == "top" and operation in ("value", "sum", "count") and (target is not None or operation == "count"):
        # "which depot handled the largest tonnage" answered with one row's figure: the question ranks, by the figure
        # (or the rows' count) the model chose, the rows of its group
        operation, group = "top", group or view.label_column
    if wanted == "list" and operation == "count":
        # "in which districts were a fifth or more of the cases imported": the rows kept, named, not how many
        operation, group = "list", group or view.label_column
    if wanted == "list" and operation not in ("list", "top"):
        raise ValueError("the question asks which rows: use operation list with a group (and a threshold or filters).")
    if wanted == "top" and operation != "top":
        raise ValueError("the question asks which rows rank first: use operation top with a group and a target.")
    if wanted == "top" and reading.query is not None and reading.query.limit > 1:
        limit = reading.query.limit  # "which three": the question's own count
    if operation == "top" and reading.criterion.kind in ("max", "min"):
        descending = reading.criterion.kind == "max"  # "the smallest sample": the question's word, not the model's
    ranked = group.name if operation in ("top", "list") and group is not None else ""
    if ranked:
        # the rows ranked or listed are the group's values: a filter on that column would keep only the one named
        conditions = tuple(c for c in conditions if c.column.name != ranked or c.under)
    # the rows the question names in so many words (every distinctive word of a value), on columns the model left
    # unfiltered: "female students of the Humanities cluster" keeps the female rows though the model named the
    # cluster alone (a 1.5B model often leaves out a second filter)
    filtered = {c.column.name for c in conditions}
    for named in table_query.rows_named(reading, view, text, distinct, target, {ranked} - {""}):
        if versus is not None and named.column.name == versus[0].column.name:
            continue  # the two sides of the share are that column's rows
        if named.column.name not in filtered:
            conditions += (named,)
        elif named.within:
            # "members aged 40 to 64 who were cyclists": the row under the parent the model kept (a 1.5B model
            # keeps the parent, or every row of the child's label), as the question's words name it
            conditions = (*(c for c in conditions if c.column.name != named.column.name), named)
    conditions = _without_borrowed_words(conditions, of_rows)
    if operation in ("average", "max", "min", "top", "list", "count"):
        # "how much did a district produce on average" kept to the state's totals row (the question names the state),
        # "how many EU-15 countries" to the row "Total EU-15": the rows the figures are of are those the totals row
        # adds up (the rows above it, back to the totals before it)
        conditions = tuple(b for c in conditions if (b := _added_up(c, view)) is not None)
    if under is not None and not any(c.under or c.column.name == under.column.name and not ranked for c in conditions):
        conditions += (under,)
    thresholds = () if table_query.bands_kept(reading, conditions) else \
        _threshold(reply.get("threshold") or {}, by_name, numbers, view, reading, target, headed)
    if operation == "count" and target is not None and not thresholds and \
            table_query.names_column(reading.text, target, numbers, view):
        # "how many black males aged 60 to 69": a count of what a figure column the question names holds, the
        # figure itself (added up over the rows kept), not a count of the rows (a 1.5B model reads "how many" so);
        # a count has no group (the model fills one all the same)
        operation, group, group_of = "sum", None, {}
        if table_query.named_twice(conditions, view) and not re.search(r"\b(?:total|in\s+all|together|combined)\b",
                                                                        reading.text, re.IGNORECASE):
            # "how many in Humanities" where Humanities heads a row of each of two stacked tables: the figure of
            # one of them is asked, which the question does not say (code's plan declines it too)
            raise ValueError("the rows named are printed in two tables of one layout; filter on what tells them apart.")
    amounts = [c for c in numbers if not table_query.is_percent(view, c)]
    if operation == "count" and not thresholds and conditions and _keeps_one_row(conditions, view) and \
            (target is not None and target in amounts or len(amounts) == 1):
        # "how many of the items were multiple choice" kept to the one "Multiple choice" row of a column of numbers of
        # items: that row's number (of the one column of numbers, where the model chose its percentage), not a count
        # of the one row
        operation, group, group_of = "sum", None, {}
        target = target if target in amounts else amounts[0]
    counted = reading.query.target if reading.query is not None else ""
    if operation == "count" and target is not None and not thresholds and counted and \
            not table_query.names_the_rows(counted, view):
        # "how many workers did the notice affect": the register's rows are notices, not workers; the figure the
        # model chose is what counts them (a count of the one row named would be 1)
        operation, group, group_of = "sum", None, {}
    of_whole: ColumnSchema | None = None
    across: tuple[ColumnSchema, ...] = ()
    asked_bases = table_query.base_forms(asked)
    if operation in ("value", "sum") and target is not None and conditions and not thresholds and share_asked and \
            not table_query.is_percent(view, target) and \
            not all(view.cell_scale(row, target.name) == "%" for row in table_query.kept_rows(conditions, view)) and \
            not any(table_query.is_percent(view, c) and table_query.base_forms(stems(c.header)) & asked_bases
                    for c in numbers):
        # "what share of the enquiries were about air travel" planned as the row's count: the kept rows' part of the
        # whole the question names (the column's total, or the row's own total across its columns); where the
        # question names a column of percentages ("what share of its cases did X import" beside "Imported (%)"),
        # the share is printed there, and the model's plan is left to fail
        operation = "share"
        parent = _parent_asked(view, reading, conditions)
        if parent is not None:
            # "roads take what percentage of the transport ministry's funds": the roads row over the ministry's,
            # the row it is printed under
            conditions, versus = tuple(c for c in conditions if c is not parent[0]), parent
        else:
            of_whole, across = table_query.whole_asked(view, reading, target, conditions, numbers)
    if operation in ("sum", "average", "max", "min", "share", "value") and target is None:
        raise ValueError(f"{operation} needs a target: one of {', '.join(c.name for c in numbers)}.")
    if operation in ("top", "list") and group is None:
        raise ValueError(f"{operation} needs a group: the column whose values the answer names.")
    if operation == "value" and not conditions and versus is None and reading.operation in ("average", "sum") and \
            target is not None:
        # "avg outlay per state" planned as one cell of no row: the average (or the total) the question asks, of the
        # model's column over the rows (its totals aside, as code's plans keep them)
        operation = str(reading.operation)
    if operation == "value" and not conditions and (only := table_query.only_row(view)) is not None:
        conditions = (only,)  # a table of one row ("Turnover Ffr. m." under Butter, Margarine): the cell is in it
    if operation in ("value", "share") and not conditions and versus is None:
        raise ValueError(f"{operation} needs a filter naming the row the question asks about.")
    if operation == "list" and target is not None and not conditions and not thresholds:
        raise ValueError("list names the rows a filter or a threshold keeps; this plan keeps every row.")
    conditions = tuple(table_query.in_the_period_asked(c, view, reading) for c in conditions)
    noun = _noun(reading) if operation == "count" else (group.header or group.name if group else "")
    planned = table_query.QueryPlan(view, operation, target, conditions, group, group_of, limit, descending, noun,
                                    thresholds, whole=of_whole, columns=across, versus=versus)
    unread = table_query.ignored_column(planned, reading, document)
    if unread is not None:
        # the model's plan, like code's, must read what the question names: "how many days of notice" is no count
        # of a register's rows
        raise ValueError(f"the plan leaves part of the question unread (column {unread.name} or the rows it names).")
    of_kind = table_query.of_the_kind_asked(planned, reading, text, distinct)
    if of_kind is None:
        raise ValueError("each item prints a count row and a percentage row, and the question asks neither.")
    return of_kind


def _without_borrowed_words(conditions: Sequence[table_query.Condition], asked: set[str]
                            ) -> tuple[table_query.Condition, ...]:
    """The conditions less those whose value the question names only by words another condition's value (of another
    column) says too, with more of the question's: "turnout on the harbour parking question" names the question "Should
    parking on the harbour front be limited?", not the polling station "Harbour Hall" as well."""
    # (a word of the column's header names the column, not the row: "polling stations" over "Harbour Fire Station")
    named = [stems(" ".join(str(v) for v in c.values)) - stems(c.column.header or c.column.name) & asked
             for c in conditions]
    return tuple(c for c, words in zip(conditions, named, strict=True)
                 if not words or not any(other.column.name != c.column.name and words < more
                                         for other, more in zip(conditions, named, strict=True)))


def _added_up(condition: table_query.Condition, view: TableView) -> table_query.Condition | None:
    """A condition keeping one totals row (labelled so, or found so at extraction) as the rows that total adds up:
    those printed above it, back to the totals row before it (None where there are none); any other condition as it
    is."""
    kept = table_query.kept_rows((condition,), view)
    totals = table_query.total_rows(view)
    if len(kept) != 1 or kept[0] not in totals:
        return condition
    start = max((row for row in totals if row < kept[0]), default=min(view.values, default=0) - 1)
    at = view.column_position(condition.column.name)
    block = [row for row in sorted(view.values) if start < row < kept[0] and row not in totals and
             at < len(view.values[row]) and view.values[row][at] not in (None, "")]
    if not block:
        return None
    values = tuple(dict.fromkeys(view.values[row][at] for row in block))
    return table_query.Condition(condition.column, values, condition.said, rows=tuple(block))


def _one_filter_a_column(conditions: Sequence[table_query.Condition], operation: str, share_asked: bool
                         ) -> tuple[tuple[table_query.Condition, ...], tuple[table_query.Condition,
                                                                             table_query.Condition] | None]:
    """The model's filters with at most one a column: two values of one column kept together keep no row (a row
    has one label), so a 1.5B model means either row: for a share, one row's figure over the other's ("what share
    of the options outstanding were exercised": Exercised over Outstanding, returned as the two sides); for a sum, a
    count or a ranking, the rows of either value ("the sales of Leeds and York"). A lookup keeps both (and reads
    several rows, which it reports)."""
    by_column: dict[str, list[table_query.Condition]] = {}
    for condition in conditions:
        by_column.setdefault(condition.column.name, []).append(condition)
    kept: list[table_query.Condition] = []
    versus = None
    for same in by_column.values():
        if len(same) < 2 or any(c.rows or c.within for c in same):
            kept.extend(same)
        elif share_asked and len(same) == 2 and operation in ("value", "sum", "share") and versus is None:
            versus = (same[0], same[1])
        elif operation in ("sum", "count", "average", "max", "min", "top", "list", "share"):
            values = tuple(dict.fromkeys(v for c in same for v in c.values))
            kept.append(table_query.Condition(same[0].column, values, " and ".join(c.said for c in same)))
        else:
            kept.extend(same)
    return tuple(kept), versus


def _parent_asked(view: TableView, reading: QuestionReading, conditions: Sequence[table_query.Condition]
                  ) -> tuple[table_query.Condition, table_query.Condition] | None:
    """For a share of the one row kept under a parent row ("Department of Roads" under "Ministry of Transport"),
    where the words after "share of" name the parent before the row, as the whole ("roads take what percentage of
    the transport ministry's funds"): (the row, the parent's row) as the part and the whole; None else."""
    after = table_query.words_after_share_of(reading)
    nested = [c for c in conditions if c.within and len(c.rows) == 1]
    if after is None or len(nested) != 1:
        return None
    child = nested[0]
    above = [r.row for r in view.rows if r.label == child.within and r.row < child.rows[0]]
    if not above:
        return None
    parent_words = stems(child.within) - stems(" ".join(str(v) for v in child.values))
    child_words = stems(" ".join(str(v) for v in child.values)) - parent_words
    if not parent_words or table_query.first_said(after, parent_words) >= table_query.first_said(after, child_words):
        return None
    parent = table_query.Condition(child.column, (child.within,), child.within, rows=(above[-1],))
    return child, parent


def _keeps_one_row(conditions: Sequence[table_query.Condition], view: TableView) -> bool:
    """Whether the conditions keep exactly one row of the table."""
    return len(table_query.kept_rows(conditions, view)) == 1


def _columns(view: TableView, distinct: Distinct
             ) -> tuple[list[ColumnSchema], list[ColumnSchema], list[ColumnSchema]]:
    """The table's text columns, figure columns and the text columns that hold dates."""
    text, numbers = table_query.columns_of(view, distinct)  # "3212 (50.6%)": figures, read before the bracket
    # a text column with no value (a header's stray word printed over nothing) is nothing to filter or group by
    text = [c for c in text if any(v not in (None, "") for v in distinct(c))]
    dated = [c for c in text if table_query.dates_of(distinct(c))]
    return text, numbers, dated


def _condition(chosen: Any, by_name: dict[str, ColumnSchema], text: Sequence[ColumnSchema], distinct: Distinct,
               asked: set[str], asked_text: str, bare: Collection[Any] = ()) -> table_query.Condition | None:
    if not isinstance(chosen, dict):
        raise ValueError("a filter is an object with a column and a value.")  # noqa: TRY004 (a reply refused)
    column = by_name.get(str(chosen.get("column", "")))
    if column is None or column not in text:
        raise ValueError(f"filter column {chosen.get('column')!r} is no text column of the table.")
    said = str(chosen.get("value", "")).strip()
    values = [v for v in distinct(column) if v not in (None, "")]
    # a row is kept for its figures: a heading printed as a row of its own ("Awareness of X and Y (%)") is never
    # the value meant where a row with figures holds the model's words as well
    found = _real_value(said, values) or _real_value(said, [v for v in values if v not in bare]) or \
        _named_among(said, [v for v in values if v not in bare], asked)
    if found is None and find_periods(said) and "".join(said.split()) in "".join(asked_text.split()) and \
            not any(find_periods(str(v)) for v in values):
        return None  # "2007" on a column of countries: the period the question names, which the table is of
    if found is None and (bands := table_query.bands_within(values, said)):
        return table_query.Condition(column, bands, said)  # "60 and over" over bands "60-69", "70-79", "80+"
    if found is None and (holding := _holding_the_words(said, values, asked)):
        return table_query.Condition(column, holding, said)  # "Hispanic" over "M Hispanic", "F Hispanic", "M White"
    if found is None:
        shown = ", ".join(str(v) for v in _closest(said, values, SHOWN_VALUES))
        raise ValueError(f"{said!r} is not a value of {column.name} (its values nearest to it: {shown}).")
    if not _singled_out(found, values, asked):
        return None
    return table_query.Condition(column, (found,), said)


def _condition_or_heading(chosen: Any, under: table_query.Condition | None, by_name: dict[str, ColumnSchema],
                          text: Sequence[ColumnSchema], distinct: Distinct, asked: set[str], asked_text: str,
                          bare: Collection[Any], described: Collection[str] = ()) -> table_query.Condition | None:
    """The model's filter (``_condition``); where it names no value of the label column and the question names a
    heading of it (``under``), none: the heading's rows are kept instead. A filter whose words all describe the table
    (``described``: its title, the lines introducing it) and name no value is none either."""
    try:
        return _condition(chosen, by_name, text, distinct, asked, asked_text, bare)
    except ValueError:
        if under is not None and isinstance(chosen, dict) and chosen.get("column") == under.column.name:
            return None
        said = stems(str(chosen.get("value", ""))) - table_query.LEGAL_WORDS if isinstance(chosen, dict) else set()
        if said and said <= set(described):
            return None
        raise


def _singled_out(found: Any, values: Sequence[Any], asked: set[str]) -> bool:
    """Whether the question's words name the row ``found``: all of its words, or those of its words the question
    says and no other value of the column holds all of ("flu" for "Awareness of flu and measles"). A word
    several values share does not name one of them: "feelings" is no filter on "Feeling low and down" beside "Feeling
    nervous", and "total costs", the column read, no filter on a "Total costs" row."""
    own = stems(str(found)) - table_query.LEGAL_WORDS
    named = own & asked
    if not named:
        return False
    return named == own or not any(named <= stems(str(v)) for v in values if v != found)


def _said_words(said: str) -> set[str]:
    """The words of what the model said that name something (no legal form: "Inc.", "Co.")."""
    return stems(said) - table_query.LEGAL_WORDS


def _holding(words: set[str], values: Sequence[Any]) -> list[Any]:
    """The values holding every one of ``words`` ([] where there are none to hold)."""
    return [v for v in values if words and words <= stems(str(v))]


def _named_among(said: str, values: Sequence[Any], asked: set[str]) -> Any | None:
    """Of the values holding every word the model said ("measles" in three rows), the one the question's words name
    most of ("have heard of measles": "Women who have heard of measles"), if one names more than the others."""
    words = _said_words(said)
    ranked = sorted(((len(stems(str(v)) & asked), v) for v in _holding(words, values)), key=lambda pair: -pair[0])
    if len(ranked) >= 2 and ranked[0][0] > max(ranked[1][0], len(words)):
        return ranked[0][1]
    return None


def _holding_the_words(said: str, values: Sequence[Any], asked: set[str]) -> tuple[Any, ...]:
    """Every value holding all the words the model said, where the question says them too and more than one value
    holds them: "closures" over "Plant closure", "Store closure", "Layoff" keeps both closures' rows."""
    words = _said_words(said)
    holding = _holding(words, values) if words <= asked else []
    return tuple(holding) if len(holding) > 1 else ()


def _closest(said: str, values: Sequence[Any], count: int) -> list[Any]:
    """The ``count`` values nearest to what the model said (shared words first, then spelling), in the column's
    order: what an error names, rather than the column's first values, which may be none of the ones meant."""
    words = stems(said)
    folded = said.casefold()
    scored = sorted(range(len(values)), key=lambda i: (-len(words & stems(str(values[i]))),
                                                       -SequenceMatcher(None, folded, str(values[i]).casefold()).ratio()))
    return [values[i] for i in sorted(scored[:count])]


def _real_value(said: str, values: Sequence[Any]) -> Any | None:
    """The column's real value the model means: the same text up to case and spacing, a value all of whose
    distinctive words it says, the one value that holds all of its words, else the closest spelling (at least 0.85
    alike)."""
    folded = " ".join(said.casefold().split())
    for value in values:
        if " ".join(str(value).casefold().split()) == folded:
            return value
    words = _said_words(said)
    named = [v for v in values if (own := stems(str(v)) - table_query.LEGAL_WORDS) and own <= words]
    if len(named) == 1:
        return named[0]
    within = _holding(words, values)
    if len(within) == 1:
        return within[0]  # "RTI/STI" for the one value "Awareness of RTI/STI and HIV/AIDS (%)"
    close = [(SequenceMatcher(None, folded, str(v).casefold()).ratio(), i, v) for i, v in enumerate(values)]
    best = max(close, default=None, key=lambda item: (item[0], -item[1]))
    return best[2] if best is not None and best[0] >= 0.85 else None


def _group(chosen: str, text: Sequence[ColumnSchema], dated: Sequence[ColumnSchema],
           distinct: Distinct) -> tuple[ColumnSchema | None, dict[Any, str]]:
    if not chosen:
        return None, {}
    unit, _, name = chosen.partition(" of ")
    column = next((c for c in dated if c.name == name), None) if unit in ("month", "year") and name else None
    if column is not None:
        return column, {v: table_query.date_label(d, unit) for v, d in table_query.dates_of(distinct(column)).items()}
    column = next((c for c in text if c.name == chosen), None)
    if column is None:
        raise ValueError(f"group {chosen!r} is no text column of the table.")
    return column, {}


def _threshold(chosen: Any, by_name: dict[str, ColumnSchema], numbers: Sequence[ColumnSchema], view: TableView,
               reading: QuestionReading, target: ColumnSchema | None, headed: ColumnSchema | None = None
               ) -> tuple[table_query.Threshold, ...]:
    rule = reading.criterion
    if rule.kind in VERSUS_KINDS:
        # "fewer girls than boys": each row's two figures compared, whatever figure the model wrote
        compared = table_query.compared_columns(view, reading, numbers,
                                                table_query.title_words(view))
        if compared is None:
            raise ValueError("the question compares two figures of each row, and no two columns are its sides.")
        return (compared,)
    column = headed  # a figure column a filter named by its header is the one the bound is of
    if column is None and isinstance(chosen, dict) and chosen.get("column"):
        column = by_name.get(str(chosen["column"]))
        if column is None or column not in numbers:
            raise ValueError(f"threshold column {chosen.get('column')!r} is no figure column.")
    bounded = column or target
    if rule.kind in THRESHOLD_KINDS and bounded is not None:
        # "more than 3%", "20 million or more": the question's own bound and direction (code reads them), over the
        # column the model chose, else its target (a 1.5B model writes 0.03 for 3%, "below" for "at least", or
        # leaves the threshold out); a bound said as no percentage ("fewer than 10 of the attacks") over a column
        # of percentages the question does not name is of the table's one column of counts
        if table_query.is_percent(view, bounded) and not stems(bounded.header) & stems(reading.text) and \
                (counts := table_query.only_count(view, numbers, reading)):
            bounded = counts
        return table_query.question_thresholds(view, reading, bounded)
    if column is None or not isinstance(chosen, dict):
        return ()
    value = float(chosen.get("value", 0))
    printed = {float(n.replace(",", "")) for n in _FIGURE.findall(reading.text)}
    if value not in printed:
        return ()  # a threshold the question does not state (the model's filler): none
    scaled = table_query.scaled_threshold(view, column, value, rule.scale if rule.threshold == value else "")
    said = f"{'above' if chosen.get('above', True) else 'below'} {value:,g}"
    return (table_query.Threshold(column, bool(chosen.get("above", True)), scaled, said),)


def _filters_naming_columns(filters: Sequence[Any], numbers: Sequence[ColumnSchema], text: Sequence[ColumnSchema],
                            distinct: Distinct, reading: QuestionReading) -> tuple[list[Any], ColumnSchema | None]:
    """The model's filters without those whose value is no value of any text column but names a figure column by
    its header ("France" over columns France, Spain, Greece; "Occasionally" over Never, Occasionally, Frequently) or
    the rows' own noun ("cost categories" for the rows of a Cost category column); and the one figure column so
    named, if any."""
    kept, headed = [], []
    query = reading.query
    rows_noun = stems(f"{query.group} {' '.join(query.target.split()[:1])}") if query is not None else set()
    bound = reading.criterion.threshold if reading.criterion.kind in THRESHOLD_KINDS else None
    for chosen in filters:
        said = str(chosen.get("value", "")) if isinstance(chosen, dict) else ""
        if bound is not None and _NUMBER.fullmatch(said.strip()) and float(said.replace(",", "")) == bound:
            continue  # "more than 100 enquiries" with 100 written as a filter's value: the bound, which code reads
        words = stems(said) - table_query.LEGAL_WORDS
        if not words or any(_real_value(said, [v for v in distinct(c) if v not in (None, "")]) is not None for c in text):
            kept.append(chosen)
            continue
        named = [c for c in numbers if (header := stems(c.header) - table_query.LEGAL_WORDS) and header <= words] or \
            [c for c in numbers if words <= stems(c.header)]  # "college" for "Literacy status: College"
        if len(named) == 1:
            headed.append(named[0])
        elif not words <= rows_noun | stems("category type kind item row"):
            kept.append(chosen)  # (the error names the values nearest to it)
    return kept, headed[0] if len({c.name for c in headed}) == 1 else None


def _noun(reading: QuestionReading) -> str:
    query = reading.query
    if query is not None and (query.target or query.group):
        return query.target or query.group
    return "rows"
