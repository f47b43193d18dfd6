"""Questions over the rows of one table as a query plan that code compiles into one read-only SQL statement.

Most tables people drop are not statements: a register of notices (one row per case: a name, a date, a place,
a count), a statistics table (regions by years), a vote tally, a price list. A question over such a table asks
for an aggregate of a column over the rows a filter keeps, perhaps by group: "how many employees were affected
by the notices Acme filed" (a sum over the rows naming Acme), "which month had the most layoffs" (a sum by
month, the largest first), "how many notices were filed in Ohio" (a count), "the top 3 counties by population".

``plan`` turns a question's reading (``core.answering.reading.TableQuery``) and one table into a ``QueryPlan``:
the operation, the column it reads (the target, matched to the question's words by its header), the conditions
(the column values the question names, found among the column's real distinct values, never typed by anyone),
the grouping (a column the question names, or the month or year of a date column) and the order and limit.
``compile_sql`` makes it one statement; ``execute`` runs it, checks the result is an answer (no empty result,
no count of one for "how many in total", no figure that is only the first row) and words it for what was asked:
"Acme Corp: 6 rows, 78 Employees Affected in all"; "December 2015 had the most Employees Affected: 1,234". Every
row a condition kept is cited.

Statistics tables print their figures in a few more shapes, read here too: a row's figure in the column of the year
asked ("market share (1997)"), or its change between two year columns; items that are the table's columns, added
across one row ("cheese, yoghurt and cream"); counts printed with their shares ("3212 (50.6%)"), read
before the bracket; summary statistics by variable (Mean, Std. Dev., Min, Max), the statistic asked read from its
column; rows that are years ("in which year were the most burglaries reported").
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from itertools import groupby, pairwise, permutations
from typing import Any

from core.answering import measures as m
from core.answering import vocabulary
from core.answering.binding import stems
from core.answering.operations import CELL_DECIMALS, TableView, amount, format_number, is_number
from core.answering.reading import (
    ACROSS_ROWS,
    ALL_OR_NONE,
    BOUND_WORDS,
    ROW_NOUN,
    SUPERLATIVE_MEASURES,
    THRESHOLD_KINDS,
    VERSUS,
    VERSUS_KINDS,
    QuestionReading,
    TableQuery,
    asks_fall,
    count_said,
)
from core.answering.vocabulary import ENTITY_KINDS, SAME_MEANING, TOTAL_AFTER, same_kind_nouns, same_meaning
from core.library.db import quote_identifier, quote_text
from core.reports.document_metadata import span_end
from core.reports.table_facts import without_legend
from core.reports.table_naming import PARENT_COLUMN, SECTION_COLUMN
from core.reports.values import SCALE_FACTORS, find_periods
from core.reports.values import parse_day as parse_date
from core.search.retrieval import STOPWORDS
from core.sql.runner import SqlResult
from models.types import ColumnSchema

RunSql = Callable[[str], SqlResult]

BOUND_DECIMALS = 6
"""A bound of the question is shown with up to this many decimals (its own, trailing zeros dropped)."""
MAX_DISTINCT = 2000
"""Distinct values of a column read to match the question's words against (a register's names, places)."""
MAX_CITED_ROWS = 200
MAX_LISTED = 25
_TOTAL_ROW = re.compile(r"^\s*(?:grand\s+|sub-?\s*)?totals?\b|^\s*all\b(?!\s+others?\b)|^\s*overall\b|^\s*pooled\b|\btotals?\s*:?\s*$", re.IGNORECASE)
LEGAL_WORDS = frozenset({"inc", "incorporated", "corp", "corporation", "co", "company", "plc", "ltd", "limited", "llc", "lp",
                    "the", "of", "and", "&", "de", "sa", "ag", "nv", "group", "holdings"})
_DATE_WORDS = {"month": "month", "months": "month", "year": "year", "years": "year", "day": "day", "date": "day",
               "quarter": "quarter", "quarters": "quarter"}
_WORDS = re.compile(r"[a-z0-9]+(?:[.'][a-z0-9]+)*")
_SEVERAL = re.compile(r"\b(?:combined|together|altogether|sum\s+of|aggregate)\b", re.IGNORECASE)
_ACROSS_SEVERAL = re.compile(r"\b(?:across|over|among|in)\s+(?:all\s+)?(?:the\s+|these\s+|those\s+)?(?:\d{1,2}|two|three|four|"
                             r"five|six|seven|eight|nine|ten)\s+(?:[\w-]+\s+){0,2}[a-z-]+s\b", re.IGNORECASE)
"""Several things said with their number ("across the four quarters"): a total over them is no one figure."""
_MORE_THAN = re.compile(r"\bhow\s+(?:many|much)\s+(?:more|fewer|less)\b.*\bthan\b", re.IGNORECASE)
_VERBS = frozenset({"per", "was", "were", "is", "are", "did", "had", "has", "have", "came", "come", "made", "went",
                    "got", "been", "be"})
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "eleven": 11, "twelve": 12, "no": 0, "none": 0, "zero": 0}
"""Numbers a question writes as words ("exactly two reclassifications"), which a row label prints as figures."""
_NUMBER_WORD = re.compile(rf"\b(?:{'|'.join(w for w in _NUMBER_WORDS if w not in ('no', 'none'))})\b", re.IGNORECASE)
_ASKING = frozenset({"what", "how", "many", "much", "which", "who", "whom", "when", "where", "through", "from", "per",
                     "there", "exactly"})
"""Words that ask, or bound a span, and name nothing a plan must read."""
_LISTING = frozenset({"list", "listed", "there", "shown", "show", "given", "named", "table", "reported", "included",
                      "contain", "contains", "hold", "holds", "cover", "covered"})
"""Words that ask how many rows a table has, and no more ("how many programs are listed")."""
_COUNTING = frozenset({"number", "total", "amount", "average", "mean", "count"})
"""Words that say how a figure is taken ("the number of cattle"), which no header need print."""
_UNIT_WORDS = {"ha": "hectares", "t": "tonnes", "kg": "kilograms", "km": "kilometres", "km2": "square kilometres",
               "%": "percent", "pct": "percent", "no": "number", "no.": "number", "yrs": "years", "hrs": "hours",
               "mn": "million", "bn": "billion", "m": "million", "000": "thousand", "'000": "thousand"}
"""Units printed short in a header's parentheses ("Area (ha)"), in the words a question uses for them."""
_NONE = re.compile(r"\b(?P<none>no|zero|nil|any)\s+(?P<w>[a-z][\w&' -]*?)(?=\s+(?:in|for|during|at|on|"
                   r"as\s+of)\s+(?:fy\s*)?(?:19|20)\d\d|\s*[?.]|\s*$)", re.IGNORECASE)
""""kept no reserve for road repairs": the rows whose figure in that column is empty or zero; "kept any reserve
for road repairs": those whose figure is not."""


@dataclass(frozen=True)
class Condition:
    """Rows kept where ``column`` holds one of ``values`` (its real values), which the question names as ``said``."""

    column: ColumnSchema
    values: tuple[Any, ...]
    said: str
    dated: bool = False
    """The values are the column's dates in the periods the question names (``said``: "2015")."""
    under: bool = False
    """The values are the rows printed under the heading ``said`` ("Processes of comprehension")."""
    rows: tuple[int, ...] = ()
    """Where set, only these rows (``_row``) of those holding the values: the one "Cyclists" row printed under
    "Aged 40 to 64", which ``within`` names (``nested_row``)."""
    within: str = ""
    totalled: bool = False
    """The values are the rows a totals row adds up, or those listed after it (``said``: "counted in Nordic Total")."""

    def sql(self) -> str:
        """The condition as a predicate of one SQL statement."""
        kept = f"{quote_identifier(self.column.name)} IN ({', '.join(_literal(v) for v in self.values)})"
        return f"{kept} AND _row IN ({', '.join(map(str, self.rows))})" if self.rows else kept


@dataclass(frozen=True)
class Threshold:
    """Rows kept where ``column`` is above or below ``value`` (in the column's own scale)."""

    column: ColumnSchema
    above: bool
    value: float
    said: str
    inclusive: bool = False
    """"at least 20%", "20% or more": the threshold itself is kept."""
    equal: bool = False
    """"had a budget of zero", "a weight of 15%": only rows holding that figure are kept."""
    than: ColumnSchema | None = None
    """"fewer girls than boys": the row's figure in this other column is the bound (``value`` unused)."""

    def columns(self) -> tuple[ColumnSchema, ...]:
        """The columns the threshold reads."""
        return (self.column,) if self.than is None else (self.column, self.than)


@dataclass(frozen=True)
class Missing:
    """Rows kept where ``column`` holds no figure or zero ("no reserve for road repairs"); with ``present``, where it
    holds one other than zero ("any reserve for road repairs")."""

    column: ColumnSchema
    said: str
    present: bool = False


@dataclass(frozen=True)
class QueryPlan:
    """An aggregate over one table's rows, ready to compile."""

    view: TableView
    operation: str
    """"value" (one row's cell), "count", "sum", "average", "max", "min", "top" (the groups or rows ranked), "list"
    or "share"."""
    target: ColumnSchema | None
    conditions: tuple[Condition, ...] = ()
    group: ColumnSchema | None = None
    group_of: dict[Any, str] = field(default_factory=dict)
    """For a date column grouped by month or year: each raw value -> its group ("August 2015")."""
    limit: int = 1
    descending: bool = True
    noun: str = ""
    """What a row is, in the question's words ("notices"), for the answer's sentence."""
    thresholds: tuple[Threshold, ...] = ()
    change: tuple[ColumnSchema, ColumnSchema] | None = None
    """For "which grew the most from A to B": the (older, newer) period columns; rows ranked by newer less older."""
    percent: bool = False
    """The change ranked in percent of the older figure."""
    missing: tuple[Missing, ...] = ()
    whole: ColumnSchema | None = None
    """For a share within one row ("what share of A's total outlay was capital spending"): the column of the whole,
    ``target`` that of the part."""
    per_row: bool = False
    """For "which company's notice affected the most": the rows ranked one by one, each named by its group."""
    columns: tuple[ColumnSchema, ...] = ()
    """For a "sum" across columns ("the combined sales of cheese, yoghurt and cream" over a row of
    Cheese, Yoghurt, Cream): every column added, ``target`` the first."""
    versus: tuple[Condition, Condition] | None = None
    """For a "difference" of two rows' figures in one column ("how many more yes votes than no votes"): the rows
    of the first figure and of the second; for one of two columns over the same rows (``target`` less ``whole``),
    None."""
    counted: bool = False
    """For a "sum" of a column of counts that answers "how many": each figure's size, as a table of movements prints
    the things that left as negatives ("(235,514)" exercised)."""

    def describe(self) -> str:
        where = "; ".join(f"{c.column.header or c.column.name} = {', '.join(map(str, c.values[:3]))}"
                          for c in self.conditions)
        what = self.target.header or self.target.name if self.target else "rows"
        by = f" by {self.group.header or self.group.name}" if self.group else ""
        return f"{self.operation} of {what}{by}" + (f" where {where}" if where else "")


@dataclass(frozen=True)
class QueryAnswer:
    """A query plan's result, in words, with the cells it read."""

    plan: QueryPlan
    result: SqlResult
    value: str
    parts: tuple[str, ...]
    sentence: str
    cells: tuple[tuple[int, str], ...]
    cell_names: dict[tuple[int, str], str]


class NoAnswer(ValueError):
    """The plan ran but its result is no answer to the question (empty, or absurd for what was asked)."""


# -- planning ----------------------------------------------------------------------------------------------------


def plan(view: TableView, reading: QuestionReading, distinct: Callable[[ColumnSchema], list[Any]]) -> QueryPlan | None:
    """The query a reading asks of one table, or None when the table cannot answer it that way. ``distinct`` gives
    a column's distinct values (read from the library)."""
    query = reading.query or _query_of(reading)
    text_columns, numbers = columns_of(view, distinct)
    asked = asked_words(reading)
    title = title_words(view)
    if asks_difference(reading):
        # "how many more tonnes of oats than of rye": a difference of two figures (of the kind asked, where
        # each item prints a count and a percentage)
        difference = _difference(view, reading, text_columns, numbers, title, distinct)
        return of_the_kind_asked(difference, reading, text_columns, distinct) if difference is not None else None
    if reading.query is None and reading.measure is not None and reading.measure.op in (m.CHANGE, m.PERCENT_CHANGE):
        return _change_of_a_row(view, reading, text_columns, asked, distinct)
    if reading.query is None and reading.measure is not None and reading.measure.op == m.DIFFERENCE and \
            (versus := _difference_of_rows(view, reading, text_columns, numbers, title, distinct)) is not None:
        return versus
    if query is None or _of_another_year(view, reading, distinct):
        return None
    target_words = _with_acronyms(query.target, view.info.schema.columns)
    asked |= _tokens(_with_acronyms(reading.text, view.info.schema.columns))
    if target_words and re.search(rf"\btotal\s+{re.escape(target_words.split()[0])}\b", reading.text, re.IGNORECASE):
        target_words = f"total {target_words}"  # "the largest total public health outlay": a Total column, if any
    if target_words and query.operation == "top" and "total" not in _tokens(target_words) and \
            _total_said_after(query.target, reading.text):
        target_words = f"total {target_words}"  # "which county paid the most for school transport overall": its Total column
    # a column the question tells apart by its number ("4 pools") first, then by its words
    numbered = _numbered_as_said(numbers, reading.text) if target_words else []
    target = ((_best_column(target_words, numbered, title) if numbered else None)
              or (numbered[0] if len(numbered) == 1 else None)
              or _best_column(target_words, numbers, title) or _distinctive_column(target_words, numbers, title, reading)
              or _named_by_own_words(target_words, numbers) or _spelled_by_initials(query.target, numbers, view)) \
        if target_words else None
    if target is None and target_words and re.search(r"\bhow\s+many\b|\bnumber\s+of\b", reading.text, re.IGNORECASE):
        # "how many items" over "All items Number", "New items Number": the column of numbers of them
        target = _best_column(f"{target_words} number", numbers, title)
    if target_words and re.search(r"\btotal\b", reading.text, re.IGNORECASE) and \
            (target is None or not _tokens(_header(target)) & (_tokens(target_words) | same_meaning(_tokens(target_words)))):
        # "the total budget of the parks service" where no header says budget (the header read names only
        # "total"): the table's total column ("Total Plan & Non-Plan"), the grand one where several are ("Plan
        # Total", "Non-Plan Total")
        target = _grand_total_column(numbers)
    if target is None and target_words and _tokens(target_words) <= title and query.operation not in ("how_many", "count"):
        # "the most confirmed cases" over a table of "confirmed cases by country": what the title counts is its
        # column of counts or totals ("Total (n)"), where the other figures are shares of it ("how many notices" over
        # a register of notices counts its rows)
        target = only_count(view, numbers, reading) or _grand_total_column(numbers) or _best_column("total", numbers)
    dated = query.group.lower() in _DATE_WORDS  # "which month", "which year": the dates of the rows, nothing else
    group = _group_column(query.group, text_columns, view) if query.group and not dated else None
    labels = [c for c in text_columns if c.name not in (SECTION_COLUMN, PARENT_COLUMN)]
    if group is None and not dated and query.group and query.operation in ("top", "list") and target is not None and \
            view.label_column is not None and [c.name for c in labels] == [view.label_column.name] and \
            (len(title & asked - {"table"}) >= 2 or reading.criterion.kind in THRESHOLD_KINDS or
             query.operation == "top" and _kin_of_header(query.group, view.label_column)):
        # "which two species have the lowest wildlife criteria" over "Wildlife criteria for ..." whose one text column
        # is headed "Organism": the rows of the table the question names by its title; "which gadgets had more than 20%
        # in the last month" over rows headed "Substance": the rows past the bound, whatever noun names them; "which
        # feeling did the most say they have sometimes" over rows headed "How often do you feel this way": the rows
        # ranked, where the header says the noun's word
        group = view.label_column
    group_of: dict[Any, str] = {}
    if dated:
        group, group_of = _date_group(_DATE_WORDS[query.group.lower()], text_columns, distinct)
        if group is None and _DATE_WORDS[query.group.lower()] == "year":
            # "in which year were the most burglaries reported" over rows of years (a column of 2005, 2006, ...)
            group = _year_column(numbers, distinct)
            numbers = [c for c in numbers if c is not group]
            target = target if target is not group else None
        if group is None:
            return None  # "which year" over a table with no dates in its rows: its columns are the years
    if target is None and query.operation not in ("count", "how_many", "top", "list"):
        # "Finland's mean growth in 1996 and 2000" over columns Finland, EU-15 and EU-25 (rows of years); "the mean
        # rate across the regions in Q4 2009" over a column of each quarter
        target = column_named_whole(numbers, asked) or column_of_the_period(numbers, reading)
    ranged = _column_of_the_range(numbers, reading.text)
    if ranged is not None and (target is None or not _holds_the_range(target, reading.text)):
        target = ranged  # "women aged 35 to 44" over columns A25.34, A35.44, ...: the column of that span
    fits, target = _in_the_unit_asked(view, reading, query.operation, target, target_words, numbers, title)
    if not fits:
        return None  # a percentage asked where the column the words name holds amounts, or a count of percentages
    if target is not None:
        target = of_the_year_asked(target, numbers, reading)
        if target is None:
            return None  # the column the words name prints another year than the one asked, and none prints it
    # the words the target column's header took; the rest of the target's words may name rows ("barley production
    # in Zuidmeer": the Barley Production column, the Zuidmeer row)
    used = _tokens(query.group) | (_tokens(_header(target)) if target else set())
    compared = compared_columns(view, reading, numbers, title) if query.operation in ("list", "count") else None
    if reading.criterion.kind in VERSUS_KINDS and compared is None:
        return None  # "more yes votes than no votes" where no two columns are the sides compared
    if compared is not None:
        used |= set().union(*(_tokens(_header(c)) for c in compared.columns()))
    printed = {str(v).strip().lower() for c in text_columns for v in distinct(c)[:MAX_DISTINCT] if v not in (None, "")}
    missing = _missing(reading, numbers, title, printed)
    used |= set().union(*(_tokens(m.said) for m in missing))
    # a count's noun ("how many demands") names what is counted, not a column whose values the question cannot name
    exclude = {group.name} if group is not None and query.operation != "count" else set()
    conditions = _conditions(asked - used, reading, text_columns, distinct, exclude=exclude, view=view)
    if group is not None and view.label_column is not None and group.name == view.label_column.name and exclude:
        # "which methods had ... with m = 10" where the methods' column prints their "m = 10" rows under them too:
        # the rows kept are the "m = 10" ones, named by the headings they stand under
        fuller = _conditions(asked - used, reading, text_columns, distinct, exclude=set(), view=view)
        if (heads := _heads_of_repeated_rows(view, fuller)) is not None:
            group, conditions = heads, fuller
    year_column = _year_column(numbers, distinct) if reading.years and not dated else None
    if year_column is not None and year_column not in (target, group) and \
            not any(c.column.name == year_column.name for c in conditions):
        # "the average number of fires from 2012 to 2014" over rows of years: the rows of the years asked, not all
        years_printed = [v for v in distinct(year_column) if v not in (None, "")]
        years_asked = set(_span_asked(reading.measure) or reading.years)  # a span asked is every year of it
        years_kept = tuple(v for v in years_printed if v in years_asked)
        if not years_kept:
            return None
        if len(years_kept) < len(years_printed) or None in distinct(year_column) or "" in distinct(year_column):
            # (a row with no year, "2006" lost or an average row, is none of the years asked)
            conditions = [*conditions, Condition(year_column, years_kept, ", ".join(map(str, sorted(years_kept))))]
    if _range_asked(reading.text) and any(_range_of(r.label) for r in view.rows) and \
            not any(_range_of(v) for c in conditions for v in c.values):
        return None  # "aged 20 to 35" over age groups none of which it covers exactly: not every row either
    operation = _operation(query, target, group, reading)
    statistic = _statistic_column(reading.text, numbers)
    if statistic is not None and target in (None, statistic) and len(conditions) == 1 and \
            len(conditions[0].values) == 1 and group is None:
        # "the maximum number of children" over summary statistics (Mean, Min, Max of each variable): the Max cell
        # of the row named, not a ranking
        operation, target = "value", statistic
    if operation is None:
        return None
    if operation == "count" and target is None:
        # "how many franchisees were there in Germany": a column counts them ("number of franchisees 1994"), of the
        # row named, not the rows
        # (not where the rows are what is counted, past a bound: "how many departments had running costs above
        # 50,000" over rows headed "Department" counts them, whatever figure column says "costs")
        rows_counted = reading.criterion.kind in THRESHOLD_KINDS and names_the_rows(query.group, view, True)
        counted = _distinctive_column(query.group, numbers, title, reading) if query.group and not rows_counted \
            else None
        if counted is None and conditions and _names_rows_once(conditions, view) and \
                not (rows_counted and not bands_kept(reading, conditions)):
            # "how many students aged 18-19 were enrolled" over enrolment by age group: counting the rows named
            # would give 1; the figure that counts them is the table's column of counts (of the year asked) (not
            # for the rows past a bound: "how many of the items under X were above 50%" counts them)
            counted = _only_number(numbers, reading) or only_count(view, numbers, reading)
        if counted is None and conditions and _label_printed_again(conditions, view):
            # "how many awards lapsed" over a roll-forward printing "Lapsed" once a year: counting the printings of
            # a label answers nothing; the table's column of counts ("Number of units") counts them
            counted = _count_column(view, numbers)
        if counted is not None and conditions:
            target, operation = counted, "sum"
        elif query.group and not rows_counted and \
                (headed := _best_column(query.group, numbers, whole_header=True)) is not None and not is_percent(view, headed):
            # "how many pupils are there" over a Pupils column: the column counts them, the rows are something else
            target, operation = headed, "sum"
    if operation == "sum" and query.operation in ("how_many", "lookup") and named_twice(conditions, view) and \
            not re.search(r"\b(?:total|in\s+all)\b", reading.text, re.IGNORECASE) and not _SEVERAL.search(reading.text):
        # "how many in Humanities" where Humanities heads a row of each of two stacked tables: which one? The words
        # the column read took may also name one of the stacked tables ("female students" over a "Female students"
        # column printed once for the female and the male tables, each titled in a column of its own)
        fuller = _conditions(asked, reading, text_columns, distinct, exclude=exclude, view=view)
        if named_twice(fuller, view) or len(fuller) <= len(conditions):
            return None
        conditions = fuller
    if operation == "value":
        target = target or _only_number(measures(view, numbers, reading), reading)
        only = only_row(view)
        if not conditions and only is not None and _tokens(only.said) & _tokens(reading.text):
            # a table of one row ("Turnover in FFr. millions" under "Roast coffee", "Instant coffee") that the
            # question names by a word of it: the row is the one asked
            conditions = [only]
        if target is None or not conditions:
            return None  # a cell is found by its row (a value the question names) and its column
    across = _columns_named(reading, [c for c in numbers if not is_percent(view, c)]) \
        if operation in ("sum", "count") and _SEVERAL.search(reading.text) else []
    if operation == "average" and target is None:
        # "the average Medicare outlays from 2014 to 2016": one row's figures averaged across its years' columns
        across = _period_columns(view, numbers, reading)
    if operation in ("average", "sum") and not across and conditions and (columns_said := _ACROSS_N.search(reading.text)) \
            and _count_said(columns_said.group("n")) == len(numbers) != len(view.rows):
        # "the mean score across the four regions in the spring survey" over four region columns: the row's
        # figures across them
        across = list(numbers)
    if len(across) >= 2:
        # the items are the table's columns: one row's figures added (or averaged) across them
        only = only_row(view)
        if not conditions and only is not None:
            conditions = [only]
        if not conditions:
            return None
        planned = QueryPlan(view, "average" if operation == "average" else "sum", across[0], tuple(conditions),
                            columns=tuple(across))
        return planned if ignored_column(planned, reading) is None else None
    if operation == "share" and reading.measure is not None and reading.measure.op == m.SHARE:
        # one row's figure over another's, else one column's over the columns of the whole
        shared = _share_of_a_row(view, reading, text_columns, numbers, target, asked - used, distinct) or \
            _share_across_columns(view, reading, numbers, title, conditions)
        if shared is not None:
            return shared
    if operation == "share" and target is None and conditions and reading.measure is not None and \
            reading.measure.op == m.SHARE and len(shared_of := reading.measure.leaves()) == 2 and \
            (of_words := shared_of[1].words.split()) and _PLURAL.fullmatch(of_words[-1]) and \
            not view.info.periods and names_the_rows(of_words[-1], view) and \
            _best_column(shared_of[1].words, numbers, title) is None and not _names_rows_once(conditions, view):
        # "what share of the notices were layoffs": a share of the rows (43 of 96), not of a figure column, where
        # the whole is things counted ("notices", a plural) that the rows are, over a table of no periods
        of_rows = QueryPlan(view, "share", None, tuple(conditions), noun=shared_of[1].words)
        return of_rows if ignored_column(of_rows, reading) is None else None
    if operation == "share" and target is None:
        # "what share of the cases were in Spain" over columns of percentages and one of counts: the counts, as
        # percentages add up to nothing
        amounts = [c for c in numbers if not is_percent(view, c)]
        target = amounts[0] if len(amounts) == 1 and len(numbers) > 1 else None
    if operation in ("sum", "average", "max", "min", "share") and target is None:
        target = _only_number(measures(view, numbers, reading), reading)
        if target is None:
            return None
    if operation == "share" and target is not None and is_percent(view, target) and bands_kept(reading, conditions) \
            and len(amounts := [c for c in numbers if not is_percent(view, c)]) == 1:
        # "what share of the population was under 20" over age bands: the bands' part of the amounts' total, not a
        # sum of printed shares (rounded) of a column the span's words ("20+ years") happened to name
        target = amounts[0]
    if operation in ("share", "average") and target is not None and conditions and \
            (is_percent(view, target) if operation == "share" else bool(_AVERAGE_HEADER.search(_header(target)))
             and all(len(c.values) == 1 for c in conditions)):  # (the average of several rows' averages is asked)
        operation = "value"  # the share or the average the table prints for the row named: read, not recomputed
    whole: ColumnSchema | None = None
    whole_columns: tuple[ColumnSchema, ...] = ()
    if operation == "share" and reading.measure is not None and reading.measure.op == m.SHARE:
        if not conditions:
            return None  # a share of what: no row the question names
        span = _tokens(_span_said(reading.text)) if bands_kept(reading, conditions) else set()
        # (a part said as the span of bands kept, "under 20 years old", names rows, not a column)
        leaves = [_best_column(leaf.words, numbers, title) for leaf in reading.measure.leaves()
                  if not _tokens(leaf.words) <= span]
        found = [c for c in leaves if c is not None]
        if len(found) == 2 and found[0].name != found[1].name:
            target, whole = found  # two columns of the rows named: which is the whole, their figures say
        elif target is not None and not is_percent(view, target):
            # "what percentage of the female students are quite healthy": the female row's own total (over Very,
            # Quite and Unhealthy) where the row is named first; "what share of the quite healthy are female":
            # the column's total
            try:
                whole, whole_columns = whole_asked(view, reading, target, conditions, numbers)
            except ValueError:
                return None
    change = _change_columns(view, reading) if operation == "top" and _GROWTH.search(reading.text) else None
    if change is not None:
        target = change[1]
    if operation == "top" and target is None:
        # ("the three largest age groups" over a total and its proportions: the one column of amounts)
        target = _only_number(measures(view, numbers, reading), reading) or column_of_the_period(numbers, reading) or \
            (_only_number([c for c in numbers if not is_percent(view, c)], reading)
             if not _SHARE_ASKED.search(reading.text) else None)
    if operation == "top" and target is None and group is not None and \
            len(distinct(group)) >= sum(1 for r in view.rows if not _TOTAL_ROW.search(r.label)):
        return None  # ranking one-row groups by how many rows they have ranks nothing
    heads = _heads_of_repeated_rows(view, conditions) if group is None and not dated and query.group and \
        (operation in ("list", "count") or operation == "top" and target is not None) else None
    if heads is not None:
        # "which methods had an error over 0.25 with m = 10" over methods each printed over its own "m = 10" row:
        # the rows kept repeat one label under several headings, which name (and count) what is asked
        group = heads
    if operation in ("top", "list") and group is None:
        return None  # no column holds what the question ranks or lists ("which currency": the columns' headers)
    if operation == "top" and change is None and group is not None and \
            len([v for v in distinct(group) if v not in (None, "")]) < 2:
        return None  # one label over every row (cells read merged): there is nothing to rank
    noun = (query.target or query.group) if operation == "count" else query.group
    if operation == "count" and heads is None and \
            not names_the_rows(noun, view, reading.criterion.kind in (*THRESHOLD_KINDS, *VERSUS_KINDS)):
        return None  # "how many gardeners": the table's rows are no gardeners
    if operation in ("list", "count", "sum", "average", "top", "max", "min") and \
            (members := members_of_a_total(view, reading, conditions)) is not None:
        conditions = [c for c in conditions if not _keeps_a_total(c, view)] + [members]
    if reading.query is None and not _accounts_for(reading, view, target, conditions, whole):
        return None  # "the total spending on highways and green spaces" over a table naming neither
    percents = [c for c in numbers if is_percent(view, c)]
    # a threshold in % ("more than 60% of participants female") is over a column of percentages, whatever other
    # column the rest of the words name ("Number of participants")
    candidates = percents if reading.criterion.kind in THRESHOLD_KINDS and reading.criterion.scale == "%" and \
        percents else numbers
    # (a header's "Total" is named by the question's: "had total spending above 50,000" reads "Total spending, all
    # funds", not "Indirect spending")
    unread = " ".join(w for w in _WORDS.findall(reading.text.lower()) if _tokens(w) & (asked - used) or w == "total")
    of_things = _best_column(reading.criterion.counted, candidates, title) if reading.criterion.counted else None
    measured = target or of_things or _best_column(unread, candidates, title, whole_header=True) or \
        _named_by_own_words(" ".join(sorted(asked - used)), candidates) or \
        (_named_whole(reading.text, percents, _PERCENT_HEADER) if reading.criterion.scale == "%" else None) or \
        (_signed_column(reading.text, numbers) if reading.criterion.kind in _SIGNS else None) or \
        _only_number(candidates, reading) or only_count(view, numbers, reading)
    if measured is None and query.group and (after := re.search(rf"\b{re.escape(query.group)}\b(?P<rest>.+)$",
                                                                 reading.text, re.IGNORECASE)):
        # "how many expense lines had net expenses above $5,000": the noun of the rows took "expenses"; the words
        # said after it name the column the bound is of
        measured = _best_column(after.group("rest"), candidates, title, whole_header=True)
    if reading.criterion.kind in (*THRESHOLD_KINDS, *_SIGNS) and measured is None:
        return None  # "more than 10,000 cases" with no column of cases: every row would be kept
    # "residents under 20" over age bands names the bands kept ("Under 10 years", "10 - 19 years"), no figure bound
    thresholds = (compared,) if compared is not None else () if bands_kept(reading, conditions) else \
        question_thresholds(view, reading, measured)
    if not thresholds and measured is not None and reading.criterion.kind in _SIGNS and operation in ("list", "count"):
        # "the districts that had a deficit" over a Surplus/Deficit column: the rows whose figure is below zero
        positive = reading.criterion.kind == "positive"
        thresholds = (Threshold(measured, positive, 0.0, "above zero" if positive else "below zero"),)
    if operation in ("list", "count") and not thresholds and measured is not None and is_percent(view, measured) and \
            (all_or_none := ALL_OR_NONE.search(reading.text)) is not None:
        # "which countries had all of their cases of unknown origin", "in how many was none of it imported": the
        # rows whose share is the whole (100%) or nothing (0%)
        value = 0.0 if all_or_none.group("none") else 100.0
        thresholds = (Threshold(measured, True, value, f"= {value:g}%", equal=True),)
    if operation == "list" and not conditions and not thresholds and query.group and \
            not _PLURAL.search(query.group.split()[-1]):
        return None  # "which company filed the notice": one row asked, and the question names none of them
    if operation == "list" and target is not None and not conditions and not thresholds and not missing:
        return None  # the rows of a figure column with nothing to keep some by: every row, which answers nothing
    row_noun = _ranked_row(reading.text, query.group, view) if operation == "top" and target is not None and \
        group is not None and change is None else ""
    conditions = [in_the_period_asked(c, view, reading) for c in conditions]
    planned = QueryPlan(view, operation, target, tuple(conditions), group, group_of, max(1, query.limit),
                        query.descending, row_noun or noun, thresholds, change, change is not None and reading.percent,
                        missing, whole, bool(row_noun), columns=whole_columns,
                        counted=operation == "sum" and query.operation in ("how_many", "count") and target is not None
                        and bool(_tokens(_header(target)) & _COUNT_HEADERS))
    if ignored_column(planned, reading) is not None:
        return None  # the question names a column the plan does not read, or says more than it keeps
    rows_said = ACROSS_ROWS.search(reading.text)
    number_said = rows_said.group("n") or rows_said.group("n2") or rows_said.group("n3") if rows_said else None
    if number_said and _count_said(number_said) != \
            sum(1 for r in view.rows if not _TOTAL_ROW.search(r.label) and r.row not in view.info.total_rows):
        return None  # "over the six species listed" where the table lists another number of rows
    label = view.label_column
    of_kind = of_the_kind_asked(planned, reading, text_columns, distinct)
    if of_kind is None:
        return None
    planned = of_kind
    headings = sections(view)
    if label is not None and headings and planned.operation in (*_OVER_ROWS, "share"):
        # "which services come under the Highways Directorate", "how many are listed under it": the rows under
        # the heading the question names, not the heading's own row
        beneath = {str(heading): rows for heading, rows in headings}
        planned = replace(planned, conditions=tuple(_under_heading(c, label, beneath) for c in planned.conditions))
    if label is not None and len(headings) >= 2 and planned.operation in _OVER_ROWS and \
            not any(c.column.name == label.name for c in planned.conditions):
        # rows under headings of their own ("Purposes of reading", "Processes of comprehension"): ranked or added
        # under the heading the question names, never across headings; the rows past a threshold are listed or
        # counted whatever heading they stand under (a heading has no figure to pass it), unless the question names
        # one ("which daily habits did more than half report": those under "Daily habits (%)")
        under = heading_asked(view, reading)
        if under is not None:
            planned = replace(planned, conditions=(*planned.conditions, under))
        elif not (planned.thresholds and planned.operation in ("list", "count")):
            return None
    if planned.operation in ("sum", "count") and AVERAGE_ASKED.search(reading.text):
        return None  # "on average, how many employees did a notice affect": no total and no count is an average
    if reading.frame == "share_rows":
        # "what share of the boats have two masts": the rows a bound keeps, over all the rows
        if planned.operation != "count" or not planned.thresholds:
            return None
        planned = replace(planned, operation="share", target=None)
    return planned


_OVER_ROWS = ("top", "list", "sum", "count", "average", "max", "min")
_ACROSS_N = re.compile(rf"\b(?:across|over|among|for)\s+(?:all\s+)?(?:the\s+|these\s+)?"
                       rf"(?P<n>\d{{1,2}}|{'|'.join(w for w in _NUMBER_WORDS if w not in ('no', 'none', 'zero', 'one'))})"
                       r"\s+[a-z-]+s\b", re.IGNORECASE)
"""Items said with their number ("across the five countries"): where the table has that many figure columns and
not that many rows, its columns."""
_SIGNS = ("negative", "positive")
"""Criteria that keep the rows whose figure is below or above zero ("had a deficit", "made a profit")."""


def _kin_of_header(noun: str, column: ColumnSchema) -> bool:
    """A word of ``noun`` and one of the column's header begin alike, four letters at least ("feeling" and "How
    often do you feel this way")."""
    said = {w.lower() for w in _WORDS.findall(noun) if len(w) >= 4}
    printed = {w.lower() for w in _WORDS.findall(_header(column)) if len(w) >= 4}
    return any(a.startswith(b) or b.startswith(a) for a in said for b in printed)


def heading_values(view: TableView, column: ColumnSchema | None = None) -> set[Any]:
    """The values of ``column`` (the label column where none is given) on rows whose figure cells are all empty:
    headings printed as rows of their own over the rows beneath them."""
    column = column or view.label_column
    if column is None:
        return set()
    at = view.column_position(column.name)
    positions = _row_positions(view)
    return {values[at] for values in view.values.values() if all(values[p] in (None, "") for p in positions)}


def _row_positions(view: TableView) -> list[int]:
    """The positions of the columns a row's own cells fill: its data columns but a key column of titles (tables of
    one layout joined, each row keeping the title of the one it came from), which a heading's row holds too."""
    return [view.column_position(c.name) for c in view.data_columns if not _is_key_column(view, c)]


def _is_key_column(view: TableView, column: ColumnSchema) -> bool:
    """A text column every row fills with a value it shares with the rows next to it, in runs of two rows or more,
    of half as many values as rows at most: "Fixed dose, low noise" over the first twelve rows, "Fixed dose, high
    noise" over the next (the titles of tables of one layout joined as one)."""
    if column.type.upper() != "TEXT":
        return False
    at = view.column_position(column.name)
    printed = [view.values[r.row][at] if r.row in view.values else None for r in view.rows]
    if len(printed) < 4 or any(v in (None, "") for v in printed):
        return False
    runs = [len(list(run)) for _, run in groupby(printed)]
    return min(runs) >= 2 and len(runs) * 2 <= len(printed)


_ROWS_NOUN = re.compile(r"^\s*(?:(?:in|for|of|at|from)\s+)?(?:which|list|name)\b(?:[\s,]+[\w'-]+){0,6}?\s+"
                        r"(?P<noun>[a-z-]+[^s\W]s)\s+(?:were|was|are|is|had|have|did|do|[a-z]{2,}ed)\b", re.IGNORECASE)
"""The plural a question lists rows by ("which eating, walking or screen habits did most pupils have": habits)."""


def heading_asked(view: TableView, reading: QuestionReading) -> Condition | None:
    """The rows under the one heading (a row of its own with no figures) the question names: by all its words, by
    most of them ("the child feeding indicators" for "Child feeding practices"), or by the plural it lists the rows
    by, where one heading ends in that noun ("which eating or screen habits" for "Daily habits"); None where
    the table has fewer than two headings or the question names none of them, or several alike."""
    label = view.label_column
    headings = sections(view)
    if label is None or len(headings) < 2:
        return None
    asked = asked_words(reading)
    named = [(heading, rows) for heading, rows in headings if (words := _heading_words(heading)) and words <= asked] \
        or _heading_named_in_part(headings, asked)
    noun = _ROWS_NOUN.match(reading.text)
    if not named and noun is not None:
        head = base_forms(_tokens(noun.group("noun")))
        named = [(heading, rows) for heading, rows in headings
                 if (printed := _WORDS.findall(_without_asides(heading).lower())) and
                 base_forms(_tokens(printed[-1])) == head]
    if len(named) != 1:
        return None
    heading, rows = named[0]
    return Condition(label, rows, heading, under=True)


def _heading_named_in_part(headings: Sequence[tuple[str, tuple[Any, ...]]], asked: set[str]
                           ) -> list[tuple[str, tuple[Any, ...]]]:
    """The one heading the question names by most of its words, two at least and half of them ("the child feeding
    indicators" for "Child feeding practices"), where no other names as many; [] else."""
    scored = sorted(((len(words & asked), heading, rows) for heading, rows in headings
                     if len(words := _heading_words(heading)) and len(words & asked) >= 2 and
                     len(words & asked) * 2 >= len(words)), key=lambda item: -item[0])
    if not scored or len(scored) > 1 and scored[1][0] == scored[0][0]:
        return []
    return [(scored[0][1], scored[0][2])]


def _heading_words(heading: str) -> set[str]:
    """A heading's words, its asides in brackets aside ("Personal habits (age 15 and above) (%)": personal habits)."""
    return _tokens(_without_asides(heading)) or _tokens(heading)


def _without_asides(heading: str) -> str:
    """A heading without its asides in brackets ("(age 15 and above)", "(%)")."""
    return re.sub(r"\([^()]*\)", " ", heading)


def _under_heading(condition: Condition, label: ColumnSchema, beneath: dict[str, tuple[Any, ...]]) -> Condition:
    """A condition naming one heading of the label column, as the rows printed under it; else the condition."""
    named = [str(v) for v in condition.values if str(v) in beneath]
    if condition.column.name != label.name or len(named) != 1:
        return condition
    return replace(condition, values=beneath[named[0]], said=named[0], under=True)


_PERCENT_KIND = re.compile(r"%|\b(?:percent(?:age)?s?|shares?|proportions?|pct)\b", re.IGNORECASE)
_COUNT_KIND = re.compile(r"^\s*(?:counts?|numbers?|n|no\.?|frequency|frequencies|cases|persons|people|respondents)\s*$",
                         re.IGNORECASE)


def of_the_kind_asked(planned: QueryPlan, reading: QuestionReading, text_columns: Sequence[ColumnSchema],
                       distinct: Callable[[ColumnSchema], list[Any]]) -> QueryPlan | None:
    """A plan over a table whose items each print a "Count" row and a "Percentage" row (a column says which): kept to
    the kind the question asks (a share, or how many), never the two ranked, added or taken from each other; the
    plan as it is over other tables; None where the words ask no kind the table prints."""
    kinds = _kinds_column(planned.view, text_columns)
    if kinds is None or planned.operation not in (*_OVER_ROWS, "difference") or \
            any(c.column.name == kinds.name for c in planned.conditions):
        return planned
    wanted = _PERCENT_KIND if asks_percent(reading) or _PERCENT_WORDS.search(reading.text) else _COUNT_KIND
    chosen = [v for v in distinct(kinds) if v not in (None, "") and wanted.search(str(v))]
    if len(chosen) != 1 or planned.target is None and not planned.thresholds:
        return None  # no kind the words ask, or a ranking by how many rows each item has (one of each kind)
    kept = Condition(kinds, (chosen[0],), str(chosen[0]))
    return replace(planned, view=planned.view if wanted is _PERCENT_KIND else _counted(planned.view),
                   conditions=(*planned.conditions, kept))


def _counted(view: TableView) -> TableView:
    """The view with no column typed as percentages, for rows that count (a "Count" kind) in columns typed by their
    other rows' percentages."""
    columns = tuple(replace(c, unit="") if view.column_scale(c.name) == "%" else c for c in view.info.schema.columns)
    return replace(view, info=replace(view.info, schema=replace(view.info.schema, columns=columns)))


def _kinds_column(view: TableView, text_columns: Sequence[ColumnSchema]) -> ColumnSchema | None:
    """A text column that says what kind of figure each row prints (Count, Percentage), beside a label printed once
    for each kind in a run of rows (the label's Count row, then its Percentage row). None where no column does (a
    table per page read as one repeats its labels in blocks, not in runs)."""
    label = view.label_column
    if label is None:
        return None
    at = view.column_position(label.name)
    ordered = [view.values[r.row] for r in sorted(view.rows, key=lambda r: r.row)
               if r.row in view.values and not _TOTAL_ROW.search(r.label)]
    for column in text_columns:
        if column.name == label.name or column.name in (SECTION_COLUMN, PARENT_COLUMN):
            continue
        position = view.column_position(column.name)
        kinds = {values[position] for values in ordered}
        size = len(kinds)
        if not 2 <= size <= 4 or None in kinds or "" in kinds or len(ordered) < 2 * size or len(ordered) % size or \
                not any(_PERCENT_KIND.search(str(k)) or _COUNT_KIND.search(str(k)) for k in kinds):
            continue  # (places listed under each of several questions are rows, not kinds of figure)
        runs = [ordered[i: i + size] for i in range(0, len(ordered), size)]
        if all(len({values[at] for values in run}) == 1 and {values[position] for values in run} == kinds
               for run in runs):
            return column
    return None


def _count_said(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_WORDS.get(word.lower(), 0)


def sections(view: TableView) -> list[tuple[str, tuple[Any, ...]]]:
    """The headings printed as rows of their own (a label, no figure) over the rows beneath them, each with the
    label values of those rows; totals rows belong to none. Where no heading row is bare, the headings that print
    the totals of the rows beneath them (``_subtotal_sections``)."""
    label = view.label_column
    if label is None or not view.data_columns:
        return []
    at = view.column_position(label.name)
    positions = _row_positions(view)
    return (_bare_sections(view, at, positions) or _subtotal_sections(view, at, positions)
            or _nested_subtotals(view, at, positions))


_SUBTOTAL_TOLERANCE = 0.011
_SUBTOTAL_SHARE = 0.0005
"""How far a heading's figure may be from the sum of the rows beneath it: a cent (figures printed to two decimals),
or 0.05% of it (each figure rounded to the unit printed)."""


def _rows_with_figures(view: TableView, positions: Sequence[int]
                       ) -> tuple[list[tuple[Any, ...]], Callable[[tuple[Any, ...]], list[float | None]]]:
    """The table's rows but its totals, and how to read a row's figures at ``positions`` (None where a cell holds
    none): what the subtotal readings below add up."""
    rows = [view.values[r.row] for r in view.rows if r.row in view.values and not _TOTAL_ROW.search(r.label)
            and r.row not in view.info.total_rows]

    def figures(values: tuple[Any, ...]) -> list[float | None]:
        return [float(values[p]) if is_number(values[p]) else None for p in positions]
    return rows, figures


def _subtotal_sections(view: TableView, at: int, positions: Sequence[int]) -> list[tuple[str, tuple[Any, ...]]]:
    """A budget's ministries over their departments: the table read as heading rows each followed by the rows whose
    figures add up to the heading's, column by column, until the next heading; [] unless every row (totals aside)
    falls into such a group, there are two groups or more, and one of them holds two rows or more. ``at`` is the
    label's position in a row's values, ``positions`` the figure columns'."""
    rows, figures = _rows_with_figures(view, positions)
    groups: list[tuple[str, tuple[Any, ...]]] = []
    start = 0
    while start < len(rows):
        heading = figures(rows[start])
        if not any(v for v in heading if v is not None):
            return []
        sums = [0.0] * len(positions)
        end = None
        for below in range(start + 1, len(rows)):
            sums = [s + (v or 0.0) for s, v in zip(sums, figures(rows[below]), strict=True)]
            if all(abs((h or 0.0) - s) <= max(_SUBTOTAL_TOLERANCE, _SUBTOTAL_SHARE * abs(h or 0.0))
                   for h, s in zip(heading, sums, strict=True)):
                end = below
                break
        if end is None:
            return []
        groups.append((str(rows[start][at]), tuple(rows[r][at] for r in range(start + 1, end + 1))))
        start = end + 1
    return groups if len(groups) >= 2 and any(len(rows_) >= 2 for _, rows_ in groups) else []


def _nested_subtotals(view: TableView, at: int, positions: Sequence[int]) -> list[tuple[str, tuple[Any, ...]]]:
    """Statistics tables whose categories stand among their parts ("Violent crime" over "Robbery", "Aggravated
    assault", ... beside "Fraud" and "Vandalism" on their own): each row whose figures, in two figure columns or
    more and in all of them but one at most (a misprint), are the sums of the two or more rows right below it, with
    those rows; [] unless two such rows are found. Rows without figures (a label wrapped onto the next line) add
    nothing."""
    rows, figures = _rows_with_figures(view, positions)
    groups: list[tuple[str, tuple[Any, ...]]] = []
    start = 0
    while start < len(rows):
        heading = figures(rows[start])
        filled = [i for i, v in enumerate(heading) if v]
        # each figure rounded to the unit printed (a dash for a figure too small to print): half a unit off per row
        half_unit = 0.05 if any((heading[i] or 0.0) % 1 for i in filled) else 0.5
        end = None
        if len(filled) >= 2:
            sums = [0.0] * len(positions)
            parts = 0
            for below in range(start + 1, len(rows)):
                below_figures = figures(rows[below])
                parts += any(v is not None for v in below_figures)
                sums = [t + (v or 0.0) for t, v in zip(sums, below_figures, strict=True)]
                if any(sums[i] > (heading[i] or 0.0) * (1 + _SUBTOTAL_SHARE) + 0.5 * (below - start + 1)
                       for i in filled):
                    break
                slack = half_unit * (below - start + 1)
                agree = sum(abs((heading[i] or 0.0) - sums[i]) <= max(slack, _SUBTOTAL_SHARE * abs(heading[i] or 0.0))
                            for i in filled)
                if parts >= 2 and agree >= max(2, len(filled) - 1):  # one column may be misprinted
                    end = below
                    break
        if end is None:
            start += 1
            continue
        groups.append((str(rows[start][at]), tuple(rows[r][at] for r in range(start + 1, end + 1)
                                                   if any(v is not None for v in figures(rows[r])))))
        start = end + 1
    return groups if len(groups) >= 2 else []


def _bare_sections(view: TableView, at: int, positions: Sequence[int]) -> list[tuple[str, tuple[Any, ...]]]:
    """The headings printed as rows of their own, with no figure (``at``, ``positions`` as for the subtotals)."""
    groups: list[tuple[str, list[Any]]] = []
    joined: str = ""
    for row, after in zip(view.rows, [*view.rows[1:], None], strict=True):
        values = view.values.get(row.row)
        if values is None or _TOTAL_ROW.search(row.label):
            continue
        bare = row.labelled and all(values[p] in (None, "") for p in positions)
        # "Cash and cash" / "equivalents" (not a symbol's row under its heading: "Ridge" / "m = 10")
        wrapped = after is not None and re.match(r"[a-z]{2}", after.label) is not None
        if bare and wrapped and after is not None and (after_values := view.values.get(after.row)) is not None and \
                all(after_values[p] in (None, "") for p in positions):
            joined = row.label  # a bare heading run on to the next bare row ("Treatment of fevers (based on the" /
            continue            # "reference period) (%)"): one heading, said whole
        if bare and not wrapped:
            groups.append((f"{joined} {row.label}" if joined else row.label, []))
        elif groups:
            groups[-1][1].append(values[at])
        joined = ""
    return [(heading, tuple(rows)) for heading, rows in groups if rows]


def _headings_above(view: TableView, conditions: Sequence[Condition]) -> list[str]:
    """The headings printed as rows of their own (a label, no figure) above the rows the conditions on the label
    column keep: what those rows are part of ("Spending:" over "Services:" over "Library")."""
    label = view.label_column
    kept = {str(v) for c in conditions if label is not None and c.column.name == label.name for v in c.values}
    if not kept:
        return []
    positions = [view.column_position(c.name) for c in view.data_columns]
    headings: list[str] = []
    for row in view.rows:
        values = view.values.get(row.row)
        if values is None:
            continue
        if row.label in kept:
            return headings
        if row.labelled and not _TOTAL_ROW.search(row.label) and all(values[p] in (None, "") for p in positions):
            headings.append(row.label)
    return []


def ignored_column(planned: QueryPlan, reading: QuestionReading, document: str = "") -> ColumnSchema | None:
    """What a plan (code's or the model's) leaves of the question unread (``_ignored_column``), or None. Words of the
    table's title and heading, and of its ``document``'s title, name what every row is of ("the thresholds of the
    E-PRTR" in a document so titled), not rows or columns to read."""
    view = planned.view
    asked = asked_words(reading)
    if (across := ACROSS_ROWS.search(reading.text)) is not None and not planned.conditions:
        asked -= _tokens(across.group(0))  # "over the six species listed": every row, which the plan reads
    if reading.query is not None and planned.target is not None and (head := _head_noun(reading.query.target)) and \
            _tokens(_header(planned.target)) & (_tokens(reading.query.target) - _tokens(head)):
        asked -= _tokens(head)  # "the most yes votes" over a Yes column: what its figures count, no other column
    if not planned.conditions:  # "across the countries": every row too
        asked -= _tokens(" ".join(_over_every_row(reading, view)))
    if planned.thresholds:  # "more than 95%": the comparison the threshold reads, not a "More than a year" column
        asked -= _tokens(" ".join(m.group(0) for m in _COMPARISON.finditer(reading.text)))
    if any(is_percent(view, c) for c in (planned.target, *(c for t in planned.thresholds for c in t.columns())) if c is not None):
        # "more than 60% of participants were female", "what percentage of course participants were women": what the
        # percentages are of is said, not another column to read
        asked -= set().union(*(_tokens(f"{m.group(1)} {m.group(2) or ''}") for m in _PERCENT_OF.finditer(reading.text)))
    return _ignored_column(planned, asked - (title_words(view) | _tokens(document)),
                           view.data_columns)


def _head_noun(phrase: str) -> str:
    """The last word of a noun phrase before its first preposition ("votes" of "yes votes on question 1")."""
    words = re.split(r"\s+(?:on|in|of|for|at|by|from|during|under|over|with)\s+", phrase.strip(), maxsplit=1)[0].split()
    return words[-1] if len(words) >= 2 else ""


def unbound(planned: QueryPlan, reading: QuestionReading, document: str = "") -> tuple[str, ...]:
    """The content words of the question (``QuestionReading.content``) that code's plan binds to nothing: not to
    the table (its title, heading or unit, the lines introducing it, its ``document``'s title), a column it
    reads, a row or value it keeps, the rows' noun, or a word of how a figure is asked (an operation, a count, a share, a unit, a linking verb). A
    plan that leaves one answers another question ("the districts with a shortfall" listed without any shortfall
    read). A word of the title that also names rows of the table the plan keeps none of is not bound by the title
    ("the yes votes on the parking question" over a tally whose title lists every question, summed over all of
    them). () where every word is bound."""
    view = planned.view
    read = [planned.target, planned.whole, planned.group, view.label_column, *(c for t in planned.thresholds for c in t.columns()),
            *(m.column for m in planned.missing), *(planned.change or ()), *planned.columns,
            *(c.column for c in (*planned.conditions, *(planned.versus or ())))]
    said = [_header(c) for c in read if c is not None] + [planned.noun, reading.issuer, *reading.noise]
    said += ["any" for m in planned.missing if m.present]  # "any reserve": rows with a figure there
    said += [" ".join(_rejoined(c.header)) for c in read if c is not None]  # "deficit" binds a "Defi cit" column
    said += [f"{v} {c.said} {c.within}" for c in (*planned.conditions, *(planned.versus or ())) for v in c.values]
    said += _headings_above(view, planned.conditions)  # "library spending": the Library row under "Spending:"
    totals_only = bool(planned.conditions) and all(c.rows and set(c.rows) <= set(total_rows(view))
                                                   for c in planned.conditions)
    if not planned.conditions or totals_only:  # every row is read, its totals among them (or the totals row alone)
        said += [r.label for r in view.rows if _TOTAL_ROW.search(r.label) or r.row in view.info.total_rows]
        sides = reading.measure.leaves() if reading.measure is not None and reading.measure.op == m.SHARE else ()
        # "what share of total obligations falls due within a year": the whole the table's totals add up
        said += [side.words for side in sides if planned.operation == "share" and
                 re.match(r"\s*(?:the\s+)?(?:total|all)\b", side.words, re.IGNORECASE)]
    if planned.noun and (of := re.search(rf"\b{re.escape(planned.noun)}\s+(?:for|of)\s+([\w-]+)", reading.text,
                                         re.IGNORECASE)):
        said.append(of.group(1))  # "how many demands for grants": the noun said whole
    if (across := ACROSS_ROWS.search(reading.text)) is not None:
        said.append(across.group(0))  # "over the six species listed": every row
    if not planned.conditions and planned.operation in ("sum", "average", "max", "min", "top"):
        said += _over_every_row(reading, view)  # "across the countries": every row
    said += _acronyms(reading.text, [c for c in read if c is not None]).values()  # "technical assistance": a TA column
    headed = {c.header.strip().lower() for c in read if c is not None}  # "rooms" for an R column among Co, Cl, R, S
    said += [word for short, word in _initials_spelled(_WORDS.findall(reading.text.lower()), view.info.schema.columns,
                                                       {}).items() if short in headed]
    if planned.target is not None and printed_as_money(view, planned.target):  # "donate": the sums of money read
        said += [found.group(0) for found in _MONEY_ASKED.finditer(reading.text)]
    if planned.operation == "top" and reading.query is not None:
        # "the heaviest cars": ranked by the weight read; "the coldest June minimum" over a table of temperatures:
        # by the June column of them
        measured = _tokens(f"{view.info.caption} {_header(planned.target)}")
        said += [word for word, (measure_word, _) in SUPERLATIVE_MEASURES.items()
                 if measure_word == reading.query.target or _tokens(measure_word) & measured]
    bound = _kin(_tokens(" ".join(said)))
    kept = {c.column.name for c in (*planned.conditions, *(planned.versus or ()))}
    of_rows: set[str] = set()
    for position, column in enumerate(view.info.schema.columns):
        values = [v for row in view.values.values() if isinstance(v := row[position], str)]
        if column.name not in kept and values:
            of_rows |= _tokens(" ".join(values)) - _common_words(values)
    # a word of the table's title or of its document's names it, unless it names rows the plan keeps none of
    titled = _kin(_tokens(f"{view.info.caption} {view.info.heading} {view.info.unit} {document} {view.introduced}")) - \
        (of_rows - bound)
    if planned.operation == "list" and not (planned.conditions or planned.thresholds or planned.missing):
        titled = set()  # every row listed answers "which districts are there", not "which had a rice deficit"
    headers = _kin(_tokens(" ".join(c.header for c in view.info.schema.columns)))
    figures = {c.name for c in _figure_columns(view)}
    if planned.change is not None and figures and figures <= {p.column for p in view.info.periods}:
        # a change between two periods of a table of figures by period only ("Budget by department", 2019 and 2018):
        # the table measures one thing, which the question may name in its own words ("spending"), unless they name
        # rows
        titled |= set().union(*(stems(w) for w in reading.content)) - of_rows
    measure = reading.measure
    if planned.operation == "share" and measure is not None and measure.op == m.SHARE and len(measure.parts) == 2:
        # "what share of the hospital's staff do two units make up" over a table of the staff by
        # unit: the whole is the column's total, and its words that name nothing the table prints (no header, no
        # value) say what the table counts
        titled |= _kin(_tokens(measure.parts[1].said)) - of_rows - headers
    names = {w.lower() for w in re.findall(r"(?<=[\w,?] )[A-Z][\w-]*|^[A-Z]{2,}[\w-]*", reading.text)}
    left = []
    for word in reading.content:
        folded = stems(word)
        if not folded or folded & (bound | titled | _HOW_ASKED) or word in _NUMBER_WORDS or _ORDINAL.fullmatch(word) or \
                any(len(w) >= 5 and (w.startswith(word[:len(w)]) or word.startswith(w)) for w in bound | titled) or \
                _gerund_of(word, bound | titled) or _initials(word, " ".join(said + [view.info.caption, view.info.heading])):
            continue
        if folded & headers & _tokens(" ".join(w for kind in vocabulary.ENTITY_KINDS for w in kind)):
            continue  # "employers" over a register with a Company column: the kind of row, not a filter
        if vocabulary.verb_base(word) != word or word in names and not folded & (of_rows - bound):
            continue  # a verb said in the past ("budgeted") links; a name the rows do not print scopes the document
        if folded <= _SOURCE_NOUNS and re.search(rf"(?:\b[A-Z][\w-]*|\d)(?:'s)?\s+{re.escape(word)}\b", reading.text):
            continue  # "Eastvale's EHS-2 survey", "the 2011 census": the source a name says, not something read
        left.append(word)
    printed = " ".join([view.info.caption, view.info.heading, view.introduced, document, *said,
                        *(c.header for c in view.info.schema.columns)])
    left += _other_codes(reading.text, printed)
    header = _tokens(_header(planned.target)) if planned.target is not None else set()
    counted = _tokens(reading.query.target) if reading.query is not None else set()
    if len({frozenset(stems(word)) for word in left}) == 1 and header & _COUNT_HEADERS and \
            (header - _COUNT_HEADERS <= _tokens(reading.text) or not _tokens(left[0]) & counted):
        # "how many visits were in band 3" over a Count column: the one word left names what it counts (a header
        # that says it counts something else, "Number of Shares", leaves "how many deaths" unread)
        return ()
    return tuple(left)


_COUNT_HEADERS = frozenset({"frequency", "freq", "count", "number", "n"})
"""Headers of columns of counts, which do not name the things counted."""


def words_named(planned: QueryPlan, reading: QuestionReading) -> int:
    """How many of the question's content words the plan's table names itself: its title, the headers of the columns
    it reads, the values its conditions keep (a word and a printed one alike in their first five letters count:
    "discriminated", "discrimination")."""
    view = planned.view
    read = [planned.target, planned.whole, planned.group, *(c for t in planned.thresholds for c in t.columns()), *planned.columns,
            *(c.column for c in (*planned.conditions, *(planned.versus or ())))]
    printed = _tokens(" ".join([view.info.caption, view.info.heading, *(_header(c) for c in read if c is not None),
                                *(str(v) for c in planned.conditions for v in c.values)]))
    prefixes = {w[:5] for w in printed if len(w) >= 5}
    return sum(1 for word in reading.content
               if _tokens(word) & printed or len(word) >= 5 and word.lower()[:5] in prefixes)


def _gerund_of(word: str, said: set[str]) -> bool:
    """``word`` is a verb in -ing whose stem a bound word holds ("experiencing" of a title's "experienced")."""
    stem = word.lower().removesuffix("ing")
    return stem != word.lower() and len(stem) >= 5 and any(w.startswith(stem) for w in said)


def _initials(word: str, text: str) -> bool:
    """``word`` is the initials of words said in ``text`` ("UTs" for Union Territories), plural or not."""
    short = word.lower().removesuffix("s")
    initials = "".join(w[0] for w in re.findall(r"[A-Za-z]+", text)).lower()
    return len(short) >= 2 and short in initials


def _kin(words: set[str]) -> set[str]:
    """``words`` with the other words of the same meaning or for the same kind of row, and the units their short
    forms stand for ("ha": hectares)."""
    out = set(words) | same_meaning(words) | _tokens(" ".join(_UNIT_WORDS[w] for w in _UNIT_WORDS if w in words))
    for kind in vocabulary.ENTITY_KINDS:
        if out & _tokens(" ".join(kind)):
            out |= _tokens(" ".join(kind))
    return out


_ORDINAL = re.compile(r"first|second|third|fourth|fifth|\d+(?:st|nd|rd|th)", re.IGNORECASE)
_HOW_ASKED = stems(" ".join([
    *_COUNTING, *_VERBS, *_ASKING, *_LISTING, *vocabulary.COUNT_ASKED, *vocabulary.TOTAL_AFTER, *vocabulary.TOTAL_ASKED,
    *vocabulary.SHARE_WORDS, *vocabulary.PART_OF_VERBS, *vocabulary.EXTREME_VERBS, *vocabulary.SIZE_ASKED,
    *vocabulary.RECEIVED_VERBS, *vocabulary.LINKING_VERBS, *vocabulary.COUNTED_PEOPLE, *vocabulary.UNIT_NOUNS,
    *vocabulary.AGE_WORDS, *_UNIT_WORDS.values(), "name", "among", "they", "them", "it", "who", "whose", "often",
    "frequently", "commonly",
    # the parts of a table a question names its rows by ("in the housing section")
    "section", "sections", "heading", "subheading",
    # how the answer is rounded ("2 decimals", "to the nearest whole number")
    "decimal", "decimals", "place", "places", "round", "rounded", "nearest", "whole", "integer",
    # the linking verbs in -ing ("pupils using them": "use"; "voting", "living", "getting")
    *(verb[:-1] + "ing" if verb.endswith("e") else verb + verb[-1] + "ing" if re.fullmatch(r"[^aeiou]*[aeiou][^aeiouwy]", verb)
      else verb + "ing" for verb in vocabulary.LINKING_VERBS)]))
"""Words that say how a figure is asked (counted, added, shared, ranked, in which unit, by which verb), which no table
prints."""



_COMPARISON = re.compile(r"\b(?:" + BOUND_WORDS + r")\b", re.IGNORECASE)
_PERCENT_OF = re.compile(r"(?:\d\s*%|\b(?:per\s*cent|percent(?:age)?|share|proportion))\s+of\s+(?:the\s+|all\s+|their\s+)?"
                         r"([\w-]+)(?:(?:\s+[\w-]+){0,4}?\s+([\w-]+)\s+(?:were|was|are|is|who|that|had|have)\b)?",
                         re.IGNORECASE)


def _ignored_column(planned: QueryPlan, said: set[str], columns: Sequence[ColumnSchema]) -> ColumnSchema | None:
    """A data column the question names by a word no part of the plan took (not the columns read, the group,
    the values kept, the table's title), which the plan leaves unread: "how many countries had all their cases of
    unknown origin" counted without the Unknown (%) column, "how many programs had a budget of zero" counting every
    program, "how many female students in the sample" counting the one row instead of reading its Sample figure.
    Such a plan answers another question; None when every column the words name is read."""
    read = [planned.target, planned.whole, *(c for t in planned.thresholds for c in t.columns()), *(m.column for m in planned.missing),
            *(planned.change or ()), *planned.columns]
    names = {c.name for c in read if c is not None} | {c.column.name for c in planned.conditions}
    names |= {c.name for c in (planned.group, planned.view.label_column) if c is not None}
    taken = set().union(*(_header_tokens(_header(c)) for c in read if c is not None))
    taken |= _tokens(_header(planned.group)) | _tokens(planned.noun)
    taken |= set().union(*(_tokens(str(v)) for c in planned.conditions for v in (*c.values, c.within)))
    label = planned.view.label_column
    taken |= _tokens(_header(label)) if label is not None else set()  # "per state" over a States column
    left = {w for w in said - taken - _COUNTING - _VERBS - _ASKING - _REPORTED if not w.isdigit() and w not in _NUMBER_WORDS}
    for column in columns:
        if column.name not in names and _tokens(column.header) & left:
            return column
    if planned.operation in ("count", "sum", "average") and not (planned.conditions or planned.thresholds or
                                                              planned.missing):
        # a count of every row answers "how many programs are there", not "how many programs had a budget of zero";
        # a sum of every row is not that of the "exactly two" the question names
        rest = left - _tokens(" ".join(column.header for column in columns)) - _LISTING - _HOW_ASKED - _tokens(
            "each every all against per")  # ("the average percentage of each": how it is asked, no row)
        if len(rest) > (0 if planned.operation == "count" else 1):  # a word of the rows' own ("French retailers")
            return planned.view.label_column or columns[0] if columns else None
    return None


_MORE_PARTS = re.compile(r"\bhow\s+(?:many|much)\s+(?P<more>more|fewer|less)\s+(?P<first>.+?)\s+than\s+(?P<second>.+?)\s*[?.]?\s*$",
                         re.IGNORECASE)


def _difference(view: TableView, reading: QuestionReading, text_columns: Sequence[ColumnSchema],
                numbers: Sequence[ColumnSchema], title: set[str],
                distinct: Callable[[ColumnSchema], list[Any]]) -> QueryPlan | None:
    """"how many more hectares were sown with barley than with wheat in Oostland": the first figure less the
    second, each a column the sides name (with the unit asked) over the rows the rest names; or, where the sides
    name rows ("more yes votes than no votes"), one column's figure in the first rows less the second's."""
    said = _MORE_PARTS.search(reading.text)
    if said is None:
        return None
    # the second side ends where the question goes on about both ("... than no votes were cast at Harbour Hall")
    second_said = re.split(r"\s+(?:were|was|are|is|did|do|does|had|have|has|got|at|in|for|on|during|from|by)\b",
                           said.group("second"), maxsplit=1, flags=re.IGNORECASE)[0]
    first, second = _tokens(said.group("first")) - _VERBS, _tokens(second_said) - _VERBS
    shared = first & second  # "votes" in "yes votes than no votes": what both sides measure
    only_first, only_second = first - shared, second - shared
    unit = _tokens(said.group("first").split()[0]) if said.group("first").split() else set()
    columns = [_best_column(" ".join(sorted(side | unit | shared)), numbers, title) for side in (only_first, only_second)]
    if columns[0] is not None and columns[1] is not None and only_second:
        # "more black females than males": the second side says only what differs; of the columns its words name,
        # the one that shares the most of the first's header ("Non-Hispanic black Male", not "... white Male")
        first_header = _header_tokens(_header(columns[0]))
        fitting = [c for c in numbers if c is not columns[0] and only_second <= _header_tokens(_header(c))]
        if fitting:
            columns[1] = max(fitting, key=lambda c: (len(_header_tokens(_header(c)) & first_header),
                                                     -numbers.index(c)))
    rest = _tokens(reading.text) - first - second
    more = said.group("more").lower() == "more"
    if columns[0] is not None and columns[1] is not None and columns[0].name != columns[1].name:
        # "more female than male students reported back pain": the words of a side no header took ("back pain")
        # name the rows both figures are of
        headed = _header_tokens(f"{_header(columns[0])} {_header(columns[1])}")
        rest |= (first | second) - headed - unit - shared
        conditions = _conditions(rest, reading, text_columns, distinct, exclude=set())
        return QueryPlan(view, "difference", columns[0], tuple(conditions), whole=columns[1], descending=more)
    return _rows_versus(view, reading, (only_first, only_second), shared | unit, rest, text_columns, numbers, title,
                        distinct, more)


def _rows_versus(view: TableView, reading: QuestionReading, sides_said: tuple[set[str], set[str]], measured: set[str],
                 rest: set[str], text_columns: Sequence[ColumnSchema], numbers: Sequence[ColumnSchema], title: set[str],
                 distinct: Callable[[ColumnSchema], list[Any]], more: bool = True) -> QueryPlan | None:
    """The figure of the rows one side names less that of the rows the other names ("yes votes" less "no votes",
    "in Ashland" less "in Salem"), both of one text column, in the column the words both sides share name (else the
    only one, or the year asked's), over the rows the ``rest`` of the words name."""
    sides = [_conditions(side, reading, text_columns, distinct, exclude=set()) for side in sides_said]
    if not all(len(side) == 1 for side in sides) or sides[0][0].column.name != sides[1][0].column.name:
        return None
    target = _best_column(" ".join(sorted(measured)), numbers, title) or _only_number(numbers, reading)
    if target is None:
        return None
    conditions = _conditions(rest, reading, text_columns, distinct, exclude={sides[0][0].column.name})
    return QueryPlan(view, "difference", target, tuple(conditions), versus=(sides[0][0], sides[1][0]), descending=more)


def _difference_of_rows(view: TableView, reading: QuestionReading, text_columns: Sequence[ColumnSchema],
                        numbers: Sequence[ColumnSchema], title: set[str],
                        distinct: Callable[[ColumnSchema], list[Any]]) -> QueryPlan | None:
    """"By how much did the employees affected in Ashland exceed those in Salem": a difference of two measures
    that differ only by the rows they name, read as those rows' figures, one less the other."""
    assert reading.measure is not None
    leaves = reading.measure.leaves()
    if len(leaves) != 2:
        return None
    first, second = _tokens(leaves[0].words), _tokens(leaves[1].words)
    shared = first & second
    if not shared or not first - shared or not second - shared:
        return None
    return _rows_versus(view, reading, (first - shared, second - shared), shared, _tokens(reading.text) - first - second,
                        text_columns, numbers, title, distinct)


def _share_of_a_row(view: TableView, reading: QuestionReading, text_columns: Sequence[ColumnSchema],
                    numbers: Sequence[ColumnSchema], target: ColumnSchema | None, asked: set[str],
                    distinct: Callable[[ColumnSchema], list[Any]]) -> QueryPlan | None:
    """"What share of total income in 2026 came from business rates": one row's figure over another's,
    each row named whole by its own side of the share, in one column of amounts (the one the words name, else the
    only one or the one of the year asked), over the rows the rest of the question names. None where the sides do
    not name one row each of the same column."""
    assert reading.measure is not None
    leaves = reading.measure.leaves()
    if len(leaves) != 2:
        return None
    part_words = _tokens(leaves[0].words)
    whole_words = _tokens(leaves[1].words) - part_words
    labels = [c for c in text_columns if c.name not in (SECTION_COLUMN, PARENT_COLUMN)]
    sides = [_conditions(words, reading, labels, distinct, exclude=set()) for words in (part_words, whole_words)]
    if not all(len(side) == 1 and len(side[0].values) == 1 for side in sides) or \
            sides[0][0].column.name != sides[1][0].column.name or sides[0][0].values == sides[1][0].values:
        return None
    named = sides[0][0].column.name
    headed = _best_column(leaves[1].words, numbers)
    if headed is not None and len(_tokens(_header(headed)) & whole_words) > \
            len(_tokens(" ".join(map(str, sides[1][0].values))) & whole_words):
        return None  # "the blue LED total" is the Blue LED column's total, not the "Blue water" row a word names
    if re.search(r"\btotal\b", leaves[1].words, re.IGNORECASE):
        # "total receipts" is the "Total receipts" row, not the "Receipts:" heading over the rows it adds up
        totals = [v for v in distinct(sides[1][0].column) if isinstance(v, str) and _TOTAL_ROW.search(v)
                  and _tokens(v) == whole_words]
        if len(totals) == 1:
            sides[1] = [replace(sides[1][0], values=(totals[0],))]
    years = {str(p.year) for p in reading.periods if p.year}
    of_year = [c for c in numbers if years and set(YEAR_PRINTED.findall(c.header or c.name)) == years]
    column = target or (of_year[0] if len(of_year) == 1 else _only_number(numbers, reading))
    if column is None or is_percent(view, column):
        return None  # the figures of a column of percentages are no parts of a whole
    rest = _conditions(asked - part_words - whole_words, reading, text_columns, distinct, exclude={named})
    return QueryPlan(view, "share", column, tuple(rest), versus=(sides[0][0], sides[1][0]))


def _share_across_columns(view: TableView, reading: QuestionReading, numbers: Sequence[ColumnSchema],
                          title: set[str], conditions: Sequence[Condition]) -> QueryPlan | None:
    """"What share of the sales of cheese, yoghurt and cream came from yoghurt", "what share of all commitments is
    payable within a year": the part a column (of amounts), the whole the columns the whole's
    words list, added (two or more, the part among them), or the one column they name ("Total"); over the rows the
    question names, else the table's one row, else every row but its totals (whose figures add up to the totals')."""
    assert reading.measure is not None
    leaves = reading.measure.leaves()
    amounts = [c for c in numbers if not is_percent(view, c)]
    if len(leaves) != 2 or len(amounts) < 2:
        return None
    part = _best_column(leaves[0].words, amounts, title)
    if part is None:
        return None
    listed = _columns_named(leaves[1].words, amounts)
    whole_columns: tuple[ColumnSchema, ...] = tuple(listed) if len(listed) >= 2 and part in listed else ()
    sharing = _columns_sharing(leaves[1].words, amounts)
    if not whole_columns and len(sharing) >= 2 and part in sharing and \
            not any(_TOTAL_WORD.search(c.header or c.name) for c in sharing):
        # "what percentage of Kelby's boats are motor boats" over Sailing boats, Motor boats: every column the whole's
        # words name, added, not the first of them
        whole_columns = tuple(sharing)
    whole = None if whole_columns else _best_column(leaves[1].words, amounts, title) or \
        _everything_column(leaves[1].words, amounts, title)
    if not whole_columns and (whole is None or whole.name == part.name):
        return None
    kept = tuple(conditions) or ((only,) if (only := only_row(view)) is not None else ())
    if not kept and not any(_TOTAL_ROW.search(r.label) for r in view.rows) and not view.info.total_rows:
        return None  # no row named and no totals the rows add up to: the share of which row?
    totals = total_rows(view)
    if not kept and len(totals) == 1 and view.label_column is not None and \
            (label := next((r.label for r in view.rows if r.row == totals[0]), "")):
        # the totals row the table prints, not its rows added up (headings over their parts would count twice)
        kept = (Condition(view.label_column, (view.values[totals[0]][view.column_position(view.label_column.name)],),
                          label, rows=(totals[0],)),)
    return QueryPlan(view, "share", part, kept, whole=whole, columns=whole_columns)


_SHARE_ASKED = re.compile(r"%|\bper\s?cent(?:age)?s?\b|\bshares?\b|\bproportions?\b|\brates?\b", re.IGNORECASE)
"""Words that ask for a share ("the highest share of domestic cases"): never the column of amounts it is of."""
_ALL_OF = re.compile(r"^\s*(?:all|every|the\s+whole|total)\b", re.IGNORECASE)


def _everything_column(words: str, amounts: Sequence[ColumnSchema], title: set[str]) -> ColumnSchema | None:
    """The whole of a share said as all of what the table counts ("all persons detained" over "Detentions by sex and age"
    headed Total | Male | Female, each over its age groups): the one column headed "Total" alone, where the words say
    "all" and name nothing but the table's subject."""
    said = _tokens(" ".join(vocabulary.verb_base(w) for w in words.split()))  # "persons detained": what detentions count
    if not _ALL_OF.match(words) or said - title - _FUNCTION_WORDS - _COUNTING - _VERBS - \
            _tokens(" ".join(vocabulary.COUNTED_PEOPLE)) - {"all", "every", "whole"}:
        return None
    alone = [c for c in amounts if re.fullmatch(r"\s*total\s*", c.header, re.IGNORECASE)]
    return alone[0] if len(alone) == 1 else None


_TOTAL_WORD = re.compile(r"\btotals?\b", re.IGNORECASE)
_SHARE_OF = re.compile(r"\b(?:per\s*cent(?:age)?|percent(?:age)?|share|proportion|fraction)\s+of\b|%\s+of\b",
                       re.IGNORECASE)


def words_after_share_of(reading: QuestionReading) -> list[set[str]] | None:
    """The question's words after its "share of" ("percentage of", "% of"), each as its stems, in order; None where
    it says none: what they name first is the whole of the share."""
    said = _SHARE_OF.search(reading.text)
    return None if said is None else [stems(w) for w in re.findall(r"[\w'’-]+", reading.text[said.end():])]


def first_said(after: Sequence[set[str]], words: set[str]) -> int:
    """Where the first of ``after`` (``words_after_share_of``) naming one of ``words`` is; its length if none does."""
    return next((i for i, w in enumerate(after) if w & words), len(after))


def whole_asked(view: TableView, reading: QuestionReading, target: ColumnSchema,
                 conditions: Sequence[Condition], numbers: Sequence[ColumnSchema]
                 ) -> tuple[ColumnSchema | None, tuple[ColumnSchema, ...]]:
    """The whole of a share of the rows kept, as the words after "share of" name it first: the rows' own total
    across the columns of the target's group ("what share of the women answered Agree": the women's row, over
    Agree, Neutral, Disagree; a "Total" column of the group where one is printed), returned as (the one whole
    column, or the columns added); else the column's total over the table's rows ("what share of the visits were
    to the north wing": (None, ()))."""
    after = words_after_share_of(reading)
    if after is None:
        return None, ()
    siblings = column_group(target, [c for c in numbers if not is_percent(view, c)])
    others = set().union(*(stems(c.header or c.name) for c in siblings if c.name != target.name))
    column_words = stems(target.header or target.name) - others
    row_words = set().union(*(stems(" ".join(str(v) for v in c.values)) for c in conditions)) - column_words

    row_at, column_at = first_said(after, row_words), first_said(after, column_words)
    if (row_at >= column_at) if column_at < len(after) else row_at > 1:
        # (the column named first; or, where the words name no column, the row named after the whole: "what
        # percentage of the households sampled lived in the west", not "what percentage of the transport ministry's funds")
        if bands_kept(reading, conditions) and not total_rows(view):
            # (a table of age bands by single year printed over two pages: its rows may be only part of the whole)
            raise ValueError("the share asked is of the column's total, which the table does not print.")
        return None, ()
    if len(siblings) < 2:
        raise ValueError("the share asked is of the rows' own total, and no group of columns beside the target "
                         "prints its parts.")
    totals = [c for c in siblings if _TOTAL_WORD.search(c.header or c.name)]
    if len(totals) == 1 and totals[0].name != target.name:
        return totals[0], ()
    return None, tuple(c for c in siblings if c not in totals)


def column_group(target: ColumnSchema, amounts: Sequence[ColumnSchema]) -> list[ColumnSchema]:
    """The columns printed under one group heading with the target ("How healthy are you? Very / Quite /
    Unhealthy"): those whose headers begin with the same two words or more as the target's; the target alone
    where none does."""
    def opening(column: ColumnSchema) -> list[str]:
        return (column.header or column.name).casefold().split()

    own = opening(target)

    def shared(column: ColumnSchema) -> int:
        return next((i for i, (a, b) in enumerate(zip(own, opening(column), strict=False)) if a != b),
                    min(len(own), len(opening(column))))

    group = [c for c in amounts if c.name != target.name and shared(c) >= 2 and shared(c) < len(opening(c))]
    return [target, *group] if group else [target]


def _change_of_a_row(view: TableView, reading: QuestionReading, text_columns: Sequence[ColumnSchema], asked: set[str],
                     distinct: Callable[[ColumnSchema], list[Any]]) -> QueryPlan | None:
    """"by how much did polytechnic participants grow from 2000 to 2004", "by how many points did brand X's share
    fall between 1996 and 1997" over a table whose rows are items and whose columns are years: the row the question
    names, its figure in the newer year's column less the older's (in percent of the older for a percentage
    change; the older less the newer where the question asks how much it fell). The rest of the measure's words
    must be the table's (its title, the years' headers)."""
    columns = _change_columns(view, reading) or _change_columns_named(view, reading)
    if columns is None:
        percent = reading.measure is not None and reading.measure.op == m.PERCENT_CHANGE
        return None if percent else _change_down_a_column(view, reading, asked)
    older, newer = columns
    used = _tokens(f"{_header(older)} {_header(newer)}")
    conditions = _conditions(asked - used, reading, text_columns, distinct, exclude=set())
    if len(conditions) == 1 and conditions[0].column == view.label_column:
        # a heading the question names with its row ("use of public clinics for antenatal check-ups") holds no figure
        position = view.column_position(newer.name)
        figured = {values[view.column_position(conditions[0].column.name)] for values in view.values.values()
                   if is_number(values[position])}
        kept = tuple(v for v in conditions[0].values if v in figured)
        conditions = [replace(conditions[0], values=kept)] if kept else conditions
    if len(conditions) != 1 or len(conditions[0].values) != 1:
        return None
    percent = reading.measure is not None and reading.measure.op == m.PERCENT_CHANGE
    if not _accounts_for(reading, view, newer, conditions, older):
        return None
    fell = not percent and asks_fall(reading)
    first, second = (older, newer) if fell else (newer, older)
    return QueryPlan(view, "change", first, tuple(conditions), whole=second, percent=percent, descending=not fell)


def _change_down_a_column(view: TableView, reading: QuestionReading, asked: set[str]) -> QueryPlan | None:
    """"by how much did Arland's index rise from Q4 2020 to Q1 2021" over a table whose rows are periods and
    whose columns are items: the column the question names, its figure in the newer period's row less the older's
    (the older less the newer where it asks how much it fell). Each period must label exactly one row."""
    label = view.label_column
    periods = sorted({(p.year, p.quarter, p.month): p for p in reading.periods}.values(),
                     key=lambda p: (p.year, p.quarter, p.month))
    if label is None or len(periods) != 2:
        return None
    at = view.column_position(label.name)
    sides = []
    for period in periods:
        rows = [(row, values[at]) for row, values in view.values.items() if at < len(values) and
                [(p.year, p.quarter, p.month) for p in find_periods(str(values[at] or ""))] ==
                [(period.year, period.quarter, period.month)]]
        if len(rows) != 1:
            return None
        sides.append(Condition(label, (rows[0][1],), period.said, rows=(rows[0][0],)))
    numbers = _figure_columns(view)
    said = asked - set().union(*(_tokens(p.said) for p in periods)) - title_words(view)
    column = _best_column(" ".join(sorted(said)), numbers)
    if column is None:
        return None
    older, newer = sides
    first, second = (older, newer) if asks_fall(reading) else (newer, older)
    return QueryPlan(view, "difference", column, versus=(first, second))


def _figure_columns(view: TableView) -> list[ColumnSchema]:
    """The table's data columns typed as figures (integer or real), as stored."""
    return [c for c in view.data_columns if c.type.upper() in ("INTEGER", "REAL")]


_BETWEEN_COLUMNS = re.compile(r"\b(?:between|from)\s+(?:the\s+)?(?P<a>[\w-]*\d[\w-]*)\s+(?:and|to)\s+(?:the\s+)?"
                              r"(?P<b>[\w-]*\d[\w-]*)\b", re.IGNORECASE)
"""A change between two rounds named by a code with a number ("between EHS-2 and EHS-3", "from Wave2 to Wave4")."""


def _change_columns_named(view: TableView, reading: QuestionReading) -> tuple[ColumnSchema, ColumnSchema] | None:
    """The (older, newer) figure columns whose headers print the two rounds a change is asked between, as said
    ("EHS-2 (2015) Total", "EHS-3 (2020) Total"); of a round's columns the one the question's other words name
    ("rural"), else its total; None unless each round is one column."""
    said = _BETWEEN_COLUMNS.search(reading.text)
    if said is None or said.group("a").lower() == said.group("b").lower() or find_periods(said.group(0)):
        return None
    numbers = _figure_columns(view)
    asked = _tokens(reading.text)
    found = []
    for code in (said.group("a"), said.group("b")):
        printing = [c for c in numbers if re.search(rf"(?<![\w-]){re.escape(code)}(?![\w-])", _header(c), re.IGNORECASE)]
        qualified = [c for c in printing if _tokens(_header(c)) - _tokens(code) & asked]
        totals = [c for c in printing if re.search(r"\btotal\b", _header(c), re.IGNORECASE)]
        chosen = printing if len(printing) == 1 else qualified if len(qualified) == 1 else totals
        if len(chosen) != 1:
            return None
        found.append(chosen[0])
    return found[0], found[1]


def _ranked_row(text: str, group: str, view: TableView) -> str:
    """"which company's notice affected the most employees": the row ranked ("notice", what the table's rows are),
    named by its group (the company), not the group's total over its rows; "" when the question ranks groups."""
    last = group.split()[-1] if group.split() else ""
    said = re.search(rf"\b{re.escape(last)}(?:'s|\u2019s|s'|s\u2019)\s+(?P<n>[\w-]+)", text, re.IGNORECASE) if last else None
    return said.group("n") if said is not None and names_the_rows(said.group("n"), view) else ""


_PERCENT_WORDS = re.compile(r"\b(?:percent(?:age)?|share|proportion)\b|%", re.IGNORECASE)
_PLURAL = re.compile(r"[a-z-]{3,}[^s\W]s", re.IGNORECASE)
AVERAGE_ASKED = re.compile(r"\b(?:on\s+average|average|mean)\b", re.IGNORECASE)
_AVERAGE_HEADER = re.compile(r"\b(?:average|mean|avg|per\s+(?:capita|head|person|household|holding))\b", re.IGNORECASE)
_AMOUNT_OPERATIONS = ("lookup", "sum", "average", "max", "min", "share")


def is_percent(view: TableView, column: ColumnSchema) -> bool:
    """A column of percentages: typed so, or headed so ("Imported (%)", "Market share", "Turnout rate"); not a
    column of rates its figures show are per some other base ("Death rate" of 103.1 and 176.5 per 100,000)."""
    position = view.column_position(column.name)
    if view.column_scale(column.name) == "%":
        # (a table "in per cent" may still print a column of counts: whole numbers all past a hundred, "n" of 2,400)
        figures = [v for row in view.values.values() if isinstance(v := row[position], (int, float))]
        return column.unit == "%" or column.type.upper() != "INTEGER" or not figures or min(figures) <= 100
    said = _PERCENT_HEADER.search(column.header)
    if said is None or not _RATE_HEADER.fullmatch(said.group(0)) or _PERCENT_HEADER.search(column.header, said.end()):
        return said is not None
    return all(not isinstance(v := row[position], (int, float)) or abs(v) <= 100 for row in view.values.values())


_RATE_HEADER = re.compile(r"rates?|ratios?", re.IGNORECASE)


_PERCENT_HEADER = re.compile(r"%|\b(?:percent(?:age)?s?|(?<!number of )shares?(?!\s+(?:in\s+(?:thousands|millions)|"
                             r"purchased|repurchased|outstanding|issued|granted))|proportions?|rates?|ratios?|pct)\b",
                             re.IGNORECASE)
"""A header of percentages ("Market share", "Imported (%)"); not one of a number of shares ("Number of Shares",
"Shares in thousands")."""


def asks_difference(reading: QuestionReading) -> bool:
    """"how many more X than Y": a difference of two figures."""
    return bool(_MORE_THAN.search(reading.text))


def percent_cell(view: TableView, row: int, name: str) -> bool:
    """A cell holding a percentage: printed so, or in a column headed so ("Imported (%)", "Share"); a count in a
    column typed percent because most of its cells are ("81" under "Total" above "100%") is none."""
    column = view.info.schema.columns[view.column_position(name)]
    return view.cell_scale(row, name) == "%" or bool(_PERCENT_HEADER.search(column.header))


def percent_asked(reading: QuestionReading) -> bool:
    """A share or percentage asked as a figure of its own ("what percentage of the firms"), not a change in percent
    ("by what percentage did X grow"), which a difference of amounts answers."""
    return asks_percent(reading) and not _CHANGE_ASKED.search(reading.text)


def asks_percent(reading: QuestionReading) -> bool:
    """The question wants a percentage: "what percentage of", "what share of", "in %"."""
    return reading.percent or (reading.measure is not None and reading.measure.op == m.SHARE) or \
        bool(_PERCENT_WORDS.search(reading.text))


_INCLUSIVE = re.compile(r"\b(?:at\s+least|at\s+most|no\s+(?:less|more|fewer)\s+than|not\s+(?:less|more|fewer)\s+than)\b|"
                        r"\bor\s+(?:more|less|fewer|above|over|below|under|higher|lower)\b", re.IGNORECASE)


def _in_the_unit_asked(view: TableView, reading: QuestionReading, operation: str, target: ColumnSchema | None,
                       words: str, numbers: Sequence[ColumnSchema], title: set[str]
                       ) -> tuple[bool, ColumnSchema | None]:
    """The target column in the unit the question asks (whether any fits, and which): a percentage asked ("what
    share of the cases were imported") reads a percent column the words name, never an amount beside it; an amount
    asked ("how many cases") reads a column of amounts, never a percentage; "the average X" reads the column of
    averages the table prints ("Average household size") rather than averaging another."""
    if not words:
        return True, target
    percents = [c for c in numbers if is_percent(view, c)]
    amounts = [c for c in numbers if c not in percents]
    if operation in _AMOUNT_OPERATIONS and percent_asked(reading):
        if target is not None and target in percents:
            return True, target  # the words chose a column of percentages already (by a number said, a range)
        named = _best_column(words, percents, title) or _named_whole(f"{words} {reading.text}", percents, _PERCENT_HEADER)
        if named is not None:
            return True, named
        if target is not None and target in amounts and operation != "share":
            return False, None  # "what percentage of X" answered with X's amount would be no percentage
        return True, target
    if operation in ("how_many", "count", "sum") and target is not None and target in percents:
        named = _best_column(words, amounts, title)
        return named is not None, named
    if operation == "average" and not (target is not None and _AVERAGE_HEADER.search(_header(target))):
        averages = [c for c in numbers if _AVERAGE_HEADER.search(_header(c))]
        printed = _best_column(words, averages, title) or _named_whole(f"{words} {reading.text}", averages,
                                                                       _AVERAGE_HEADER)
        return True, printed or target
    return True, target


def _named_whole(words: str, columns: Sequence[ColumnSchema], kind: re.Pattern[str]) -> ColumnSchema | None:
    """The column whose printed header the words name whole, its unit and the ``kind`` of figure it holds aside
    ("Imported (%)" in "what share of the cases were imported", "Average age (years)" in "the average age"); the one
    naming the most where several are; None when none or a tie."""
    wanted = _tokens(words)
    scored = []
    for column in columns:
        have = _tokens(kind.sub(" ", re.sub(r"\([^()]*\)|%", " ", column.header)))
        if have and have <= wanted:
            scored.append((len(have), column))
    if not scored:
        return None
    best = max(n for n, _ in scored)
    found = [c for n, c in scored if n == best]
    return found[0] if len(found) == 1 else None


_CHANGE_ASKED = re.compile(r"\b(?:change|increase|decrease|growth|grew|rose|fell|points?)\b", re.IGNORECASE)


def _missing(reading: QuestionReading, numbers: Sequence[ColumnSchema], title: set[str],
             printed: set[str]) -> tuple[Missing, ...]:
    """"no reserve for road repairs": the figure column named after "no", to keep the rows without one (after
    "any", those with one).
    Where "No" is a value the table prints (a vote tally's options, ``printed``) or heads a figure column, "no
    votes" names that row or column."""
    found = []
    headers = {c.header.strip().lower() for c in numbers}
    for said in _NONE.finditer(reading.text):
        if said.group(0).split()[0].lower() in printed | headers:
            continue  # (or a figure column headed "No": the no votes)
        column = _best_column(said.group("w"), numbers, title)
        if column is not None:
            found.append(Missing(column, said.group("w"), said.group("none").lower() == "any"))
    return tuple(found)


_GROWTH = re.compile(r"\b(?:grew|grow|grown|growth|rose|risen|rise|increased?|decreased?|declined?|fell|fallen|dropped|"
                     r"changed?|change)\b", re.IGNORECASE)


def _change_columns(view: TableView, reading: QuestionReading) -> tuple[ColumnSchema, ColumnSchema] | None:
    """The (older, newer) columns of the two periods a ranking by change names ("from 2018 to 2019")."""
    years = sorted(set(reading.years))
    if len(years) != 2:
        return None
    found = []
    for year in years:
        columns = _the_count_of_several(_of_year(view, [c for c in view.data_columns if c.type.upper() != "TEXT"], year),
                                        reading)
        if len(columns) != 1:
            return None
        found.append(columns[0])
    return found[0], found[1]


_OVER_THE_ROWS = re.compile(rf"\b(?:across|among|over|of(?=\s+(?:all|the|these)\b))\s+(?:all\s+)?(?:the\s+|these\s+)?(?:[a-z]+\s+)?"
                            rf"{ROW_NOUN}\b(?!\s+of\b)",
                            re.IGNORECASE)
""""across the countries", "over all the districts", "of the states": the rows an average or a total runs
over, said by a noun for a kind of row, no name of its measure."""


def _over_every_row(reading: QuestionReading, view: TableView) -> list[str]:
    """The phrases that say an average or a total runs over every row ("across the countries"), not over the rows
    of a heading, a label or a caption the table prints ("across the heavy metals" over a table with a Heavy metals
    section: which of its rows are, its headings may not say)."""
    printed = _tokens(" ".join([view.info.caption, *(heading for heading, _ in sections(view)), *(r.label for r in view.rows)]))
    found = [over.group(0) for over in _OVER_THE_ROWS.finditer(reading.text)
             if not (_tokens(over.group(0)) - _tokens("across among over all the these")) & printed]
    # "across all the grounds" over rows whose label column is headed "Ground": the kind of row, whatever the noun;
    # "over the five clay plots" over five rows headed "Plot", each a clay one: as many as the table's rows, of a kind
    # it prints
    label = _tokens(_header(view.label_column)) if view.label_column is not None else set()
    rows = len(view.rows) - len(total_rows(view))
    return found + [over.group(0) for over in _ACROSS_THE_PLURAL.finditer(reading.text)
                    if label and _tokens(over.group("noun")) <= label and over.group(0) not in found
                    and (not over.group("count") or count_said(over.group("count")) == rows)
                    and (not over.group("kind") or _tokens(over.group("kind")) <= printed)]


_ROW_COUNT_WORDS = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "twelve")
_ACROSS_THE_PLURAL = re.compile(r"\b(?:across|among|over)\s+(?:all\s+)?(?:the\s+|these\s+)?"
                                rf"(?:(?P<count>\d+|{'|'.join(_ROW_COUNT_WORDS)})\s+)?(?:(?P<kind>[a-z-]+)\s+)??"
                                r"(?P<noun>[a-z-]+s)\b", re.IGNORECASE)


def _accounts_for(reading: QuestionReading, view: TableView, target: ColumnSchema | None,
                  conditions: Sequence[Condition], whole: ColumnSchema | None = None) -> bool:
    """A measure the grammar read as lines (no query asked in so many words) is a query over this table only where
    the table names every word of it: the target's header, the values kept, the table's title."""
    if reading.measure is None:
        return False
    # (a verb said in the past links: "the households surveyed", "the cases reported")
    leaves = reading.measure.leaves()
    # "what percentage of the complaints were about noise": the whole is all the column counts (its total), which the
    # table need not name in the question's words; the part is the rows named (the side whose words the rows kept
    # print)
    free: set[str] = set()
    if reading.measure.op == m.SHARE and len(leaves) == 2 and conditions and whole is None:
        kept = set().union(*(_tokens(str(v)) for c in conditions for v in c.values))
        naming = [bool(_tokens(leaf.words) & kept) for leaf in leaves]
        if naming.count(True) == 1:
            free = _tokens(leaves[naming.index(False)].words)
    words = [w for leaf in leaves for w in leaf.words.split() if vocabulary.verb_base(w) == w]
    said = _tokens(" ".join(words)) - _VERBS - _COUNTING - _ASKING - _FUNCTION_WORDS
    said -= _tokens(" ".join(_over_every_row(reading, view)))
    if bands_kept(reading, conditions) or target is not None and _holds_the_range(target, reading.text):
        said -= _tokens(_span_said(reading.text))  # "under 20 years old": the bands kept; "aged 35 to 44": A35.44
    if target is not None and is_percent(view, target):
        said -= _tokens(" ".join(vocabulary.SHARE_WORDS))  # "the renting percentage": a column of percentages
    if target is not None and printed_as_money(view, target):
        # "how much did Lorenzo donate", "the average donation" over a column of sums of money: the money asked, in
        # the table's own words
        money = _tokens(" ".join(found.group(0) for found in _MONEY_ASKED.finditer(reading.text)))
        if said and said <= money:
            return True
        said -= money
    info = view.info
    label = _header(view.label_column) if view.label_column is not None else ""
    named = _tokens(f"{info.caption} {info.heading} {_header(target)} {_header(whole)} {label}").union(
        *(_tokens(str(v)) for c in conditions for v in (*c.values, c.within)),
        *(_tokens(c.said) for c in conditions if c.values and all(map(_is_yes_or_no, c.values)) or c.totalled))
    read = [c for c in (target, whole, view.label_column) if c is not None]
    named |= set().union(*(_tokens(spelled) for spelled in _acronyms(reading.text, read).values()))
    named |= {initials.replace(".", "").lower() for initials in _INITIALS.findall(f"{info.caption} {_header(target)}")}
    named |= _tokens(" ".join(_headings_above(view, conditions)))  # "government services for antenatal care"
    named |= _tokens(introducing_sentences(view))  # they say what the rows are, as a title does
    # one word in four may be the question's own ("capital spending" for a Capital column)
    return bool(said) and len(said - named - free) <= len(said) // 4


_INTRODUCING = re.compile(r":\s*$|\b(?:following|below|as\s+follows|as\s+under|(?:this|the)\s+table|(?:are|is)\s+"
                          r"(?:given|shown|listed|set\s+out))\b", re.IGNORECASE)


def introducing_sentences(view: TableView) -> str:
    """The sentences of the lines over a table that introduce it ("Following are the weights to be used when ...",
    "... are given below:") or name it by its number ("... (see Table 2)"), not the prose that happens to precede
    it."""
    number = re.search(r"\btable\s+([\w.-]*\d[\w-]*(?:\.\d+)*)", view.info.caption, re.IGNORECASE)
    own = re.compile(rf"\btable\s+{re.escape(number.group(1))}(?![\w.]*\d)", re.IGNORECASE) if number else None
    # (a caption printed over the table is a line of its own, not a sentence of the prose next to it)
    captioned = re.match(r"\s*(?:table|figure|chart)\s", view.info.caption, re.IGNORECASE)
    text = view.introduced.replace(view.info.caption, ". ") if captioned else view.introduced
    sentences = re.split(r"(?<=[.!?])\s+|\s+(?=(?:table|figure|chart)\s+[\w.-]*\d[\w.-]*\s*[:.\u2013-])", text,
                         flags=re.IGNORECASE)
    return " ".join(s for s in sentences if _INTRODUCING.search(s) or own is not None and own.search(s) and
                    not re.match(r"\s*(?:table|figure|chart)\s", s, re.IGNORECASE))


_SOURCE_NOUNS = stems("survey study report census release sample questionnaire poll bulletin paper document")
"""Nouns that, after a name, name the source asked about ("the EHS-2 survey"), no figure or row of it."""
_INITIALS = re.compile(r"\b(?:[A-Za-z]\.){2,}(?![A-Za-z])")
"""Initials written with stops ("U.S."): the question's "US"."""
_REPORTED = frozenset({"they", "them", "he", "she", "we", "you", "said", "say", "says"})
"""Pronouns, and the verb reporting what a survey's respondents said ("what share of the pupils said they never
..."): no table prints them."""
_FUNCTION_WORDS = STOPWORDS | {"each", "every", "all", "any", "both", "against", "per"} | _REPORTED
"""Words that name nothing a table prints ("the share of pupils who never used each substance")."""
_COUNTED = r"(?:numbers?|no\.|count|frequency|proportion|share|percentage)"
_NUMBER_OF = re.compile(rf"\b{_COUNTED}(?:\s+and\s+(?:the\s+)?{_COUNTED})?\s+of\s+(?:the\s+)?(?:[\w-]+\s+){{0,2}}[\w-]+",
                        re.IGNORECASE)
"""Words saying the figures count something ("Number of participants", "the frequency and the proportion of
respondents"): the rows are something else."""


def names_the_rows(noun: str, view: TableView, past_threshold: bool = False) -> bool:
    """The noun counted is what the table's rows are: its title or a column's header names it ("notices" in a
    "Register of layoff notices", "departments" over a "Department" column); or, for the rows past a threshold ("in
    how many member states did X reach 20%"), the rows of an unheaded stub, which nothing names."""
    info = view.info
    said = " ".join([info.caption, info.heading, *(c.header or c.name for c in info.schema.columns)])
    # "Number of member states where ...", a "Number of participants" column: the figures count them, the rows are
    # something else
    said = _NUMBER_OF.sub(" ", said)
    if _tokens(noun) & _tokens(said):
        return True
    label = view.label_column
    texts = [c for c in info.schema.columns if c.type.upper() == "TEXT" and not c.name.startswith("_")
             and c.name not in (SECTION_COLUMN, PARENT_COLUMN)]
    if not past_threshold or label is None or len(texts) != 1:
        return False
    # (or of a stub whose head names what it lists otherwise, "Perceived discrimination" over "Age", "Religion", where
    # no value names what is counted either: "for how many cases did more than 5% sometimes see it")
    values = _tokens(" ".join(str(r.label) for r in view.rows))
    return not label.header.strip() or not _tokens(noun) & values


def _bound_printed_in(column: ColumnSchema, threshold: float, text: str) -> bool:
    """The bound the question says is the column's own heading ("girls under 18" over a "Female Under 18 years"
    column, "aged 65 and over"): the figure and a word beside it in the question are both in the header."""
    number = format_number(threshold)
    header = column.header or column.name.replace("_", " ")
    if not re.search(rf"(?<![\d.,]){re.escape(number)}(?![\d.,]*\d)", header):
        return False
    beside = re.search(rf"((?:[a-z]+\s+){{0,2}}){re.escape(number)}((?:\s+[a-z]+){{0,2}})", text.lower())
    near = set(re.findall(r"[a-z]+", f"{beside.group(1)} {beside.group(2)}")) if beside else set()
    return bool(near & set(re.findall(r"[a-z]+", header.lower())) - STOPWORDS - {"and", "or"})


def question_thresholds(view: TableView, reading: QuestionReading, column: ColumnSchema | None) -> tuple[Threshold, ...]:
    """"more than 100 million", "at least 50": a condition on the figure column the question reads, the figure
    put in the column's scale."""
    rule = reading.criterion
    if rule.kind not in THRESHOLD_KINDS or column is None or _bound_printed_in(column, rule.threshold, reading.text):
        return ()
    value = scaled_threshold(view, column, rule.threshold, rule.scale)
    if rule.kind == "equal":
        said = f"equal to {_bound(rule.threshold)}{'%' if rule.scale == '%' else ' ' + rule.scale if rule.scale else ''}"
        return (Threshold(column, False, value, said, True, equal=True),)
    inclusive = bool(_INCLUSIVE.search(reading.text))
    word = ("at least" if inclusive else "above") if rule.kind == "above" else ("at most" if inclusive else "below")
    said = f"{word} {_bound(rule.threshold)} {rule.scale}".strip()
    return (Threshold(column, rule.kind == "above", value, said, inclusive),)


def _bound(threshold: float) -> str:
    """A bound as the question said it, every decimal kept ("above 0.005", not the "0.01" of a computed figure)."""
    return format_number(threshold, BOUND_DECIMALS)


def asked_words(reading: QuestionReading) -> set[str]:
    """The question's words, with its numbers said in words as figures ("two" is also 2)."""
    return _tokens(reading.text) | {str(_NUMBER_WORDS[w]) for w in _WORDS.findall(reading.text.lower())
                                    if w in _NUMBER_WORDS}


def title_words(view: TableView) -> set[str]:
    """The words of the table's title and heading: they describe every column, so they name none (a legend's words
    in the caption name the columns they explain: "S (Students)")."""
    return _tokens(f"{without_legend(view.info.caption)} {view.info.heading}")


def compared_columns(view: TableView, reading: QuestionReading, numbers: Sequence[ColumnSchema],
                     title: set[str]) -> Threshold | None:
    """"Which complaints did fewer girls than boys report", "in how many regions was the rate lower in 2020
    than in 2019": the rows whose figure in one column is above (below) their figure in another, each column
    named by its side of the comparison (by its header's words, or by the one year its header prints). None where a
    side names no one column, both name the same, or one holds percentages and the other amounts."""
    said = VERSUS.search(reading.text) if reading.criterion.kind in VERSUS_KINDS else None
    if said is None:
        return None
    sides: list[ColumnSchema] = []
    for words in (said.group("first"), said.group("second")):
        codes = _codes(words)  # "in DLHS-3": the columns of that survey's code, whatever else they say
        pool = [c for c in numbers if codes <= _codes(c.header or c.name)] if codes else list(numbers)
        years = set(YEAR_PRINTED.findall(words))
        of_year = [c for c in pool if years and set(YEAR_PRINTED.findall(c.header or c.name)) == years]
        if years and of_year:
            column = of_year[0] if len(of_year) == 1 else None
        else:  # "more nurses than doctors on the wards in 2019" over columns that print no year: the year is the table's
            column = _best_column(YEAR_PRINTED.sub(" ", words), pool, title)
        if column is None:
            return None
        sides.append(column)
    first, second = sides
    if first.name == second.name or is_percent(view, first) != is_percent(view, second):
        return None
    above = reading.criterion.kind == VERSUS_KINDS[0]
    return Threshold(first, above, 0.0, f"{'above' if above else 'below'} {second.header or second.name}", than=second)


_CODE = re.compile(r"\b([A-Z][A-Za-z]{1,5})[-\u2013](\d{1,4})\b")
"""A name of letters and a number ("ITC-2002", "DLHS-3", "EU-27"): a survey, an edition, a group."""


def _other_codes(question: str, printed: str) -> list[str]:
    """The codes the question says ("ITC-2002") where the table prints the same letters with another number only
    ("ITC-2007"): the table is another edition's, whatever else it binds."""
    seen: dict[str, set[str]] = {}
    for letters, number in _CODE.findall(printed):
        seen.setdefault(letters.lower(), set()).add(number)
    return [f"{letters}-{number}" for letters, number in _CODE.findall(question)
            if letters.lower() in seen and number not in seen[letters.lower()]]


def _codes(text: str) -> set[str]:
    """Codes of letters and a number ("DLHS-3", "EU-27", "Q4"), which word stems cut to their letters."""
    return {re.sub(r"[\s-]", "", c).lower() for c in re.findall(r"\b[A-Za-z]{1,6}-?\d{1,2}\b(?![.,]\d)", text)}


def scaled_threshold(view: TableView, column: ColumnSchema, value: float, scale: str) -> float:
    """A figure the question states in ``scale`` ("100 million") in the scale the column is printed in."""
    printed = view.column_scale(column.name)
    if scale in SCALE_FACTORS and scale and printed in SCALE_FACTORS and printed:
        return value * SCALE_FACTORS[scale] / SCALE_FACTORS[printed]
    if scale in SCALE_FACTORS and scale and not printed:
        return value * SCALE_FACTORS[scale]
    return value


def _query_of(reading: QuestionReading) -> TableQuery | None:
    """A query a reading implies where the grammar read a line: "the total employees affected in Ohio" over a
    register is a sum of a column over the rows naming Ohio."""
    if reading.measure is None or reading.kind not in ("lookup", "computed"):
        return None
    if reading.measure.op == m.SHARE:
        # "what share of all X came from Y", "what share of A's total X was Z": the rows or columns decide which
        return TableQuery("share", _clean(" ".join(leaf.words for leaf in reading.measure.leaves())), "", 1, True,
                          reading.text)
    words = reading.measure.said or reading.measure.words
    operation = {"sum": "sum", "average": "average"}.get(reading.operation or "", "")
    if not operation and re.search(r"\b(?:total|sum|combined|altogether|in all)\b", reading.text, re.IGNORECASE):
        operation = "sum"
    if not operation:
        operation = "lookup"
    return TableQuery(operation, _clean(words), "", 1, True, reading.text)


def _clean(text: str) -> str:
    return " ".join(w for w in _WORDS.findall(text.lower()) if w not in ("the", "a", "an", "total", "number", "of", "average",
                                                                         "mean", "combined", "sum", "overall"))


def _tokens(text: str) -> set[str]:
    return stems(text)


def _header_tokens(text: str) -> set[str]:
    """A header's words, "Total" among them (a column of totals is named by it, unlike a line)."""
    return _tokens(text) | ({"total"} if re.search(r"\btotal\b", text, re.IGNORECASE) else set())


def _rejoined(text: str) -> set[str]:
    """Words a narrow column's header broke over two lines, joined again ("Defi cit": deficit; "per cent": percent):
    they may match a question's word, and are never counted as the header's own."""
    return _tokens(" ".join(a + b for a, b in re.findall(r"(?<![\w-])([A-Za-z]{2,})\s+(?=([a-z]{2,4})\b)", text)))


def _header(column: ColumnSchema | None) -> str:
    if column is None:
        return ""
    units = [_UNIT_WORDS.get(u.lower(), "") for u in re.findall(r"\(\s*([^()\s]{1,6})\s*\)", column.header)]
    return " ".join([column.header, column.name.replace("_", " "), *units])


_TOTAL_SAID_LAST = re.compile(rf"\b(?:{'|'.join(re.escape(w).replace(chr(92) + ' ', chr(92) + 's+') for w in TOTAL_AFTER)}|overall)"
                              r"\b", re.IGNORECASE)
"""A total asked after what it totals ("which state spent the most on health in total", "... overall")."""


def _span_asked(measure: m.Measure | None) -> tuple[int, ...]:
    """The years the measure runs over, outermost first ("the average of X from 2012 to 2014": 2012, 2013, 2014)."""
    if measure is None:
        return ()
    return measure.periods or next((span for part in measure.parts if (span := _span_asked(part))), ())


def _total_said_after(target: str, text: str) -> bool:
    """A total is asked after what it totals ("which county spent the most on libraries in total", "overall")."""
    last = re.search(rf"\b{re.escape(target.split()[-1])}\b", text, re.IGNORECASE) if target.split() else None
    return bool(_TOTAL_SAID_LAST.search(text[last.end() if last else 0:]))


_HEADER_NUMBER = re.compile(r"(?<![\d.,])\d+(?![\d.,]*\d)")


def _numbered_as_said(columns: Sequence[ColumnSchema], text: str) -> list[ColumnSchema]:
    """The columns whose header numbers what the question numbers, next to a word of the header: "with 4 pools" or
    "the 8-pool run" over "Pools 4" and "Pools 8" (the figures of one group of columns told apart by a number only);
    empty where the question numbers none of them so."""
    said = text.lower()
    out = []
    for column in columns:
        header = column.header.lower()
        own = _tokens(_HEADER_NUMBER.sub(" ", header)) - STOPWORDS
        for number in set(_HEADER_NUMBER.findall(header)):
            near = re.findall(rf"(?<![\d.,]){number}[\s-]+([a-z]+)", said) + \
                re.findall(rf"([a-z]+)[\s-]+{number}(?![\d.,]*\d)", said)
            if any(_tokens(word) & own for word in near):
                out.append(column)
                break
    return out


def _best_column(words: str, columns: Sequence[ColumnSchema], title: set[str] | frozenset[str] = frozenset(),
                 whole_header: bool = False, synonyms: bool = False) -> ColumnSchema | None:
    """The column whose header names the most of ``words`` (at least half of the header's own words, or of the words
    when fewer). Words of the table's ``title`` describe every column, so they choose none while other words do
    ("total public health outlay" over a public health outlay table: its Total column). With ``whole_header`` (the
    words are the whole question) at least half of the header must be named."""
    wanted = base_forms(_header_tokens(words))
    if not wanted:
        return None
    scored = []
    title = base_forms(title)
    for index, column in enumerate(columns):
        have = base_forms(_header_tokens(_header(column)))
        shared = wanted & (have | base_forms(_rejoined(column.header)))
        enough = len(have) if whole_header else min(len(have), len(wanted))
        if shared and len(shared) * 2 >= enough:
            scored.append((len(shared - title), len(shared), _run_in_order(words, _header(column)),
                           len(shared) / len(have), -index, column))
    if not scored and not synonyms and (others := same_meaning(wanted)):
        # "how many workers" over an "Employees affected" column: another word for what is counted or measured
        return _best_column(" ".join(sorted((wanted - _MEANT) | others)), columns, title, whole_header, synonyms=True)
    return max(scored, key=lambda s: s[:5])[5] if scored else None


def _run_in_order(words: str, header: str) -> int:
    """The most words ``words`` and ``header`` say one after another in the same order ("total costs" in "Total
    Costs All Funds": 2; in "Total Direct Costs": 1)."""
    said = [base_forms(_header_tokens(w)) for w in _WORDS.findall(words.lower())]
    printed = [base_forms(_header_tokens(w)) for w in _WORDS.findall(header.lower())]
    best = 0
    for i in range(len(said)):
        for j in range(len(printed)):
            n = 0
            while i + n < len(said) and j + n < len(printed) and said[i + n] and said[i + n] & printed[j + n]:
                n += 1
            best = max(best, n)
    return best


_MEANT = {word for kind in SAME_MEANING for word in kind}


def base_forms(words: set[str] | frozenset[str]) -> set[str]:
    """Words with a verb said in the past as its base ("suffered" as "suffer"): a column "Suffered from" is named by
    "how many pupils suffer from it"."""
    return {vocabulary.verb_base(w) for w in words}


def names_column(text: str, column: ColumnSchema, columns: Sequence[ColumnSchema], view: TableView) -> bool:
    """Whether ``text`` names ``column`` by its header, more than any other of ``columns`` (the table's title words
    aside, which describe every column)."""
    title = title_words(view)
    return _best_column(_with_acronyms(text, columns), columns, title, whole_header=True) is column


def _acronyms(text: str, columns: Sequence[ColumnSchema]) -> dict[str, str]:
    """The acronyms the table's headers print ("Signed TA (EURm)") that ``text`` spells out ("signed technical
    assistance"), each with the words that spell it: a header's word in capitals of two to five letters, the initials
    of as many consecutive words of the text."""
    words = _WORDS.findall(text.lower())
    initials = "".join(w[0] for w in words)
    found = {}
    for acronym in sorted({a for c in columns for a in _ACRONYM.findall(c.header)}):
        at = initials.find(acronym.lower())
        while at >= 0:
            if all(len(w) > 2 for w in words[at:at + len(acronym)]):
                found[acronym] = " ".join(words[at:at + len(acronym)])
                break
            at = initials.find(acronym.lower(), at + 1)
    shortened = {a.lower() for c in columns for a in _ABBREVIATED.findall(c.header)}
    # a header of two to four consonants ("hp", "cyl", "wt", "qty"): a word cut short with no stop ("Men", "Yes" are words)
    shortened |= {c.header.strip().lower() for c in columns
                  if _BARE_SHORT.fullmatch(c.header.strip()) and not set(c.header.lower()) & set("aeiou")}
    for short in sorted(shortened):
        # "Std. Dev." spelt "standard deviation", "Avg." spelt "average", "hp" spelt "horsepower": a word of the text
        # with the same first letter that holds the abbreviation's letters in order, and is longer by two letters at least
        # (never a word that names nothing: "what" spells no "wt")
        whole = next((w for w in words if w[0] == short[0] and len(w) >= len(short) + 2 and _letters_in_order(short, w)
                      and w not in _FUNCTION_WORDS), None)
        if whole is not None:
            found[short] = whole
    found.update(_initials_spelled(words, columns, found))
    return found


def _spelled_by_initials(words: str, numbers: Sequence[ColumnSchema], view: TableView) -> ColumnSchema | None:
    """The figure column headed by the first letter(s) of one of ``words`` ("rooms" for R), in a table headed so
    (``_initials_spelled``)."""
    spelled = _initials_spelled(_WORDS.findall(words.lower()), view.info.schema.columns, {})
    found = [c for c in numbers if c.header.strip().lower() in spelled]
    return found[0] if len(found) == 1 else None


_INITIALS_HEADER = re.compile(r"[A-Z][a-z]{0,2}")
ABBREVIATED_HEADERS = 3
"""A table with at least this many headers of one capital and at most two letters after it ("E", "R", "Co", "Cl")
names its columns by their first letters."""


def _initials_spelled(words: Sequence[str], columns: Sequence[ColumnSchema], found: Mapping[str, str]) -> dict[str, str]:
    """In a table whose columns are headed by their first letters ("Inst. | Co | Cl | R | S": courses, classes, rooms,
    students), the headers a word of ``words`` begins with ("rooms" for R, "classes" for Cl rather than C): the
    longest header each word begins with, where only that word of the question begins so."""
    short = {c.header.strip() for c in columns if _INITIALS_HEADER.fullmatch(c.header.strip())}
    if len(short) < ABBREVIATED_HEADERS:
        return {}
    content = [w for w in words if len(w) >= 4 and w not in _FUNCTION_WORDS and w not in found.values()]
    spelled: dict[str, str] = {}
    for word in content:
        heads = [h for h in short if word.startswith(h.lower())]
        if heads:
            head = max(heads, key=len)
            if sum(w.startswith(head.lower()) for w in content) == 1 and head.lower() not in found:
                spelled[head.lower()] = word
    return spelled


def _letters_in_order(short: str, word: str) -> bool:
    letters = iter(word)
    return all(letter in letters for letter in short)


def _with_acronyms(text: str, columns: Sequence[ColumnSchema]) -> str:
    """``text`` with the acronyms of the headers it spells out added (``_acronyms``)."""
    found = _acronyms(text, columns)
    return f"{text} {' '.join(found)}" if found else text


_ACRONYM = re.compile(r"\b[A-Z]{2,5}\b")
_BARE_SHORT = re.compile(r"[A-Za-z]{2,4}")
_ABBREVIATED = re.compile(r"\b([A-Za-z]{2,5})\.")
"""A header's word cut short and marked so ("Std. Dev.", "Avg. price", "Pop.")."""


def _of_another_year(view: TableView, reading: QuestionReading, distinct: Callable[[ColumnSchema], list[Any]]) -> bool:
    """A table whose title prints its year (or span of years), of which the question asks another, and which prints
    the year asked nowhere else (no column of it, no row or date of it): "how many attended in 2003" is not read
    off "Participation in 2004"."""
    asked = {p.year for p in reading.periods if p.year}
    if not asked:
        return False
    info = view.info
    title = f"{info.caption} {info.heading}"
    printed = {int(y) for y in YEAR_PRINTED.findall(title)}
    for first, last in _YEAR_SPAN.findall(title):  # "2001 to 2005", "2012-13"
        printed |= set(range(int(first), span_end(first, last) + 1))
    if not printed or printed & asked:
        return False
    cells = " ".join(c.header for c in info.schema.columns)
    cells += " " + " ".join(str(v) for c in info.schema.columns if c.type.upper() == "TEXT" and not c.name.startswith("_")
                            for v in distinct(c)[:MAX_DISTINCT] if v not in (None, ""))
    return not {int(y) for y in YEAR_PRINTED.findall(cells)} & asked


_YEAR_SPAN = re.compile(r"\b((?:19|20)\d{2})\s*(?:-|\u2013|/|to|through|until)\s*((?:19|20)\d{2}|\d{2})\b", re.IGNORECASE)


def of_the_year_asked(target: ColumnSchema, numbers: Sequence[ColumnSchema],
                       reading: QuestionReading) -> ColumnSchema | None:
    """The column of the year the question asks, among those whose headers say the same words as ``target``'s
    ("market share (1996)", "market share (1997)": which one, the question's year says, not the order of the
    columns); ``target`` when the question names no year or its header prints none; None when it prints another
    year and no column of the same words prints the year asked."""
    asked = {str(p.year) for p in reading.periods if p.year}
    printed = _years_printed(target.header)
    if not asked or not printed or printed & asked:
        return target
    words = _tokens(YEAR_PRINTED.sub(" ", target.header))
    for column in numbers:
        if _years_printed(column.header) & asked and _tokens(YEAR_PRINTED.sub(" ", column.header)) == words:
            return column
    return None


def _years_printed(header: str) -> set[str]:
    """The years a header prints, as printed and as the period parser reads them ("2012-13" is 2012 and FY2013,
    the year a question saying "2012-13" asks)."""
    return set(YEAR_PRINTED.findall(header)) | {str(p.year) for p in find_periods(header) if p.year}


YEAR_PRINTED = re.compile(r"\b(?:19|20)\d{2}\b")
"""A year a title or a header prints ("Market share (1997)", "Table 6: ... in 2004")."""


def _named_by_own_words(words: str, columns: Sequence[ColumnSchema]) -> ColumnSchema | None:
    """The one column whose own header words (those the other columns' headers do not all share: "Never" under a
    heading "Frequency of substance abuse" printed over every column) the words all name; None when none or
    several."""
    if len(columns) < 2:
        return None
    headers = [_tokens(YEAR_PRINTED.sub(" ", c.header)) for c in columns]
    shared = set.intersection(*headers)
    wanted = _tokens(words)
    named = [c for c, have in zip(columns, headers, strict=True) if (own := have - shared) and own <= wanted]
    return named[0] if len(named) == 1 else None


def _distinctive_column(words: str, columns: Sequence[ColumnSchema], title: set[str],
                        reading: QuestionReading) -> ColumnSchema | None:
    """Where no header names enough of the words: the column whose header names every word the table's title does
    not already say (a unit word aside), of the year asked where several do ("the hypermarket share of grocery
    turnover in 1996" over "Grocery turnover by store type": its "hypermarkets 1996" column)."""
    wanted = _header_tokens(words) - title - {"share", "percent", "percentage", "proportion"}
    if not wanted:
        return None
    years = {str(p.year) for p in reading.periods}
    scored = []
    for index, column in enumerate(columns):
        have = {w for w in _header_tokens(_header(column)) if not re.fullmatch(r"[a-z]?\d{4}", w)}
        if have and wanted <= have:
            of_year = any(re.search(rf"\b{y}\b", column.header) for y in years)
            scored.append((of_year, len(wanted) / len(have), -index, column))
    return max(scored, key=lambda s: s[:3])[3] if scored else None


def _group_column(noun: str, columns: Sequence[ColumnSchema], view: TableView) -> ColumnSchema | None:
    found = _best_column(noun, columns)
    if found is not None:
        return found
    for other in same_kind_nouns(noun):
        # "which employers" over a Company column: another name for the same kind of row
        found = _best_column(other, columns)
        if found is not None:
            return found
    if noun.lower().strip() in ("name", "names"):
        # "which name obtained licence 2019-118" ("who obtained"): the one column of who the rows are (Company, Employer,
        # Applicant name), the entity nouns the vocabulary knows
        who = [c for c in columns if _tokens(c.header) & _WHO_COLUMN]
        if len(who) == 1:
            return who[0]
    label = view.label_column
    if label is not None and (_tokens(noun) & title_words(view)):
        return label
    if label is not None and _tokens(noun) and any(_tokens(noun) <= _tokens(heading) for heading, _ in sections(view)):
        return label  # "which skill": the rows under a heading "Skills tested"
    if label is not None and not label.header.strip() and \
            len([c for c in columns if c.name not in (SECTION_COLUMN, PARENT_COLUMN)]) == 1:
        return label  # "which member states": the rows of a table whose only text column is an unheaded stub
    return None


_WHO_COLUMN = stems(" ".join([*ENTITY_KINDS[0], *ENTITY_KINDS[3], "name", "applicant", "recipient", "candidate",
                                "owner", "holder", "grantee", "contractor", "supplier", "vendor", "winner"]))
"""Words of a header whose column says who each row is (a company, a person, an applicant)."""


def _date_group(unit: str, columns: Sequence[ColumnSchema],
                distinct: Callable[[ColumnSchema], list[Any]]) -> tuple[ColumnSchema | None, dict[Any, str]]:
    """A text column of dates, with each value's month ("August 2015") or year ("2015")."""
    for column in columns:
        values = distinct(column)
        parsed = {v: parse_date(str(v)) for v in values if v not in (None, "")}
        dated = {v: d for v, d in parsed.items() if d is not None}
        if values and len(dated) >= max(2, 0.8 * len(parsed)):
            return column, {v: date_label(d, unit) for v, d in dated.items()}
    return None, {}


def _year_column(numbers: Sequence[ColumnSchema], distinct: Callable[[ColumnSchema], list[Any]]) -> ColumnSchema | None:
    """A column of whole numbers that are all years (2005, 2006, ...): the rows' years."""
    for column in numbers:
        values = [v for v in distinct(column) if v not in (None, "")]
        if column.type.upper() == "INTEGER" and len(values) >= 2 and \
                all(isinstance(v, int) and 1800 <= v <= 2100 for v in values):
            return column
    return None


def date_label(day: date, unit: str) -> str:
    """A date's group: its year ("2015"), quarter ("Q3 2015"), day (ISO) or month ("August 2015")."""
    if unit == "year":
        return str(day.year)
    if unit == "quarter":
        return f"Q{(day.month - 1) // 3 + 1} {day.year}"
    if unit == "day":
        return day.isoformat()
    return day.strftime("%B %Y")


def dates_of(values: Sequence[Any]) -> dict[Any, date]:
    """A column's values read as dates, when at least four in five of them are (else empty: no date column)."""
    filled = [v for v in values if v not in (None, "")]
    dated = {v: d for v in filled if (d := parse_date(str(v))) is not None}
    return dated if dated and len(dated) >= 0.8 * len(filled) else {}


_YES = frozenset({"yes", "y"})
_NO = frozenset({"no", "n"})


def _is_yes_or_no(value: Any) -> bool:
    return str(value).strip().lower() in _YES | _NO


def _yes_or_no_asked(column: ColumnSchema, values: Sequence[Any], text: str) -> Condition | None:
    """The rows of a Yes/No column the question keeps by naming its header with or without a negation: "with
    impact" keeps "Impact" = Yes, "without impact" and "no impact" keep No; None where the column holds other values
    or the question names it both ways or not at all."""
    if not all(map(_is_yes_or_no, values)):
        return None
    said = {str(v).strip().lower(): v for v in values}
    yes, no = [said[k] for k in said if k in _YES], [said[k] for k in said if k in _NO]
    if not yes or not no:
        return None
    words = [w for w in _WORDS.findall(column.header.lower()) if w not in STOPWORDS]
    if not words:
        return None
    header = r"\s+".join(map(re.escape, words))
    negated = re.search(rf"\b(?:without|no|not|non)[\s-]+(?:\w+\s+)?{header}\b", text, re.IGNORECASE)
    plain = re.search(rf"\b(?:with|has|have|having|had)\s+(?:\w+\s+)?{header}\b|\b{header}\s+(?:is\s+|was\s+)?"
                      rf"(?:present|yes)\b", text, re.IGNORECASE)
    if bool(negated) == bool(plain):
        return None
    return Condition(column, tuple(no if negated else yes), (negated or plain).group(0))  # type: ignore[union-attr]


def _conditions(asked: set[str], reading: QuestionReading, columns: Sequence[ColumnSchema],
                distinct: Callable[[ColumnSchema], list[Any]], exclude: set[str],
                view: TableView | None = None) -> list[Condition]:
    """The values of the table's text columns the question names: every distinctive word of a value (legal forms
    aside) is in the question, and the value names at least one word the question uses for nothing else. Dates
    named by the question's periods keep the rows of those periods. Given the ``view``, two labels named one
    after the other name one row, the second printed under the first (``nested_row``)."""
    found: list[Condition] = []
    dated_conditions: list[Condition] = []
    covered = False
    years = {p.year for p in reading.periods}
    months = {(p.year, p.month) for p in reading.periods if p.month}
    for column in columns:
        values = [v for v in distinct(column) if v not in (None, "")]
        if not values or len(values) > MAX_DISTINCT:
            continue
        dated = dates_of(values)
        if column.name in exclude:
            # the dates grouped by ("which month"): of the year asked, every row is, and no other date filters
            covered = covered or bool(years) and bool(dated) and all(d.year in years for d in dated.values())
            continue
        if dated:
            if months:
                kept = tuple(v for v, d in dated.items() if (d.year, d.month) in months)
            elif years:
                kept = tuple(v for v, d in dated.items() if d.year in years)
            else:
                continue
            covered = covered or len(kept) == len(dated)  # "in 2015" of a register of 2015: every row
            if kept and len(kept) < len(dated):
                dated_conditions.append(Condition(column, kept, " and ".join(p.said for p in reading.periods), True))
            continue
        polar = _yes_or_no_asked(column, values, reading.text)
        if polar is not None:
            found.append(polar)
            continue
        matched = []
        common = _common_words(values)
        for value in values:
            count = _names_value(str(value), _tokens(str(value)) - LEGAL_WORDS - common - STOPWORDS, asked, common,
                                 reading.text)
            if not count and _UNIT_ASIDE.search(str(value)):  # "Household income (Euro/month)": its unit aside
                plain = _UNIT_ASIDE.sub(" ", str(value))
                count = _names_value(plain, _tokens(plain) - LEGAL_WORDS - common - STOPWORDS, asked, common, reading.text)
            if count:
                matched.append((count, value))
        matched = matched or _named_by_shared_words(values, common, asked)
        # "the Social Sciences cluster" names "Social Sciences", not also "Sciences" (a value of common words only)
        # (unless the question prints it whole and not the longer value: "Lasso" beside "Lasso (CV)")
        matched = [(n, v) for n, v in matched if _tokens(str(v)) - LEGAL_WORDS - common - STOPWORDS
                   or not any(_tokens(str(v)) < _tokens(str(o)) and (not _label_quoted(str(v), reading.text) or
                                                                     _label_quoted(str(o), reading.text))
                              for _, o in matched)]
        # "stock options granted in fiscal 2017-2019" names the Granted row, not also the rows "Outstanding at
        # September 30, 2017" and "... 2019" that only the years name (the years are the periods asked)
        # (a label the question prints whole is named, numbers and all: "Lasso when m = 40" names the "m = 40" row)
        by_words = [(n, v) for n, v in matched if any(not w.isdigit() for w in _tokens(str(v)) & asked)
                    or _label_quoted(str(v), reading.text)]
        if by_words and len(by_words) < len(matched):
            matched = by_words
        span = _range_asked(reading.text)
        if not matched or span and all(_range_of(v) not in (None, span) for _, v in matched):
            # "aged 60 to 79" over rows "60 - 69 years", "70 - 79 years" (not the one "79 years" row its end names);
            # "60 and over" over "60-69", "70-79", "80+"
            spanned = bands_within(values, reading.text)
            if spanned:
                found.append(Condition(column, spanned, " ".join(str(v) for v in spanned)))
            continue
        # (the values named by every word: "Aged 40 to 64", not "Aged 4 to 6" by its words but the numbers)
        whole = [v for n, v in matched if n == len(_tokens(str(v)) - LEGAL_WORDS - common)]
        nested = nested_row(whole, view, column, reading.text) if view is not None else None
        if nested is not None:
            found.append(nested)
            continue
        best = max(n for n, _ in matched)
        kept = tuple(v for n, v in matched if n == best)
        quoted = tuple(v for v in kept if _label_quoted(str(v), reading.text))
        if quoted and len(quoted) < len(kept) and \
                all(any(_tokens(str(q)) <= _tokens(str(v)) for q in quoted) for v in kept):
            kept = quoted  # "Lasso" as the question prints it, not also "Lasso (CV)", its variant
        headings = heading_values(view, column) if view is not None else set()
        if len(kept) == 1 and kept[0] in headings and view is not None:
            # "the error of Lasso when m = 40": the heading named by most words, and the row under it named whole
            kept = (*kept, *(v for v in whole if v not in kept and _stands_under(view, column, v, kept[0])))
        # "the heron and the grey seal": every value named by all of its words, not only the longest (a value
        # whose words another named value holds aside)
        full = [v for n, v in matched if n and n == len(_tokens(str(v)) - LEGAL_WORDS - common - STOPWORDS)
                and view is not None and v not in headings]  # (a heading's row has no figure)
        full = [v for v in full if not any(_tokens(str(v)) < _tokens(str(o)) for o in full)]
        if len(full) > len(kept) and set(kept) <= set(full):
            kept = tuple(full)
        if len(kept) > 1 and (members := tuple(v for v in kept if not _TOTAL_ROW.search(str(v)))):
            kept = members  # "the EU's cases in Spain": Spain, not also the "EU Total" row that holds it
        kept = of_the_periods_said(kept, reading) or kept
        if len(kept) <= 5:
            found.append(Condition(column, kept, " ".join(sorted(_tokens(str(kept[0])) - LEGAL_WORDS))))
    if dated_conditions and not covered:
        # several date columns ("Date received", "Effective date"): the one the question's words name, else the first
        named = [c for c in dated_conditions if _tokens(_header(c.column)) & asked - {"date"}]
        found.append((named or dated_conditions)[0])
    label = view.label_column if view is not None else None
    if label is not None and any(c.column.name == label.name and c.rows for c in found):
        # the heading and parent columns extraction derived from the label column name its rows again: the one row
        # the label's condition keeps (``nested_row``) is the row asked, theirs would only repeat the words (or keep
        # none, where they were misread)
        labels = {str(v).strip(" :").casefold() for v in distinct(label) if v not in (None, "")}
        found = [c for c in found if c.column.name not in (SECTION_COLUMN, PARENT_COLUMN)
                 or not {str(v).strip(" :").casefold() for v in c.values} <= labels]
    under = next((c for c in found if c.column.name == PARENT_COLUMN), None)
    if label is not None and under is not None:
        # "Lasso when m = 40" over method headings each over its "m = ..." rows: Lasso is the heading the row stands
        # under (the parent's condition), the label's condition the row itself
        found = [replace(c, values=rest, said=" ".join(sorted(_tokens(str(rest[0])) - LEGAL_WORDS)))
                 if c.column.name == label.name and not c.rows and
                 (rest := tuple(v for v in c.values if v not in under.values)) else c for c in found]
    return found


def _periods_of(text: str) -> set[tuple[int, int, int]]:
    return {(p.year, p.quarter, p.month) for p in find_periods(text)}


def _periods_said(reading: QuestionReading) -> set[tuple[int, int, int]]:
    return {(p.year, p.quarter, p.month) for p in reading.periods}


def of_the_periods_said(values: Sequence[Any], reading: QuestionReading) -> tuple[Any, ...]:
    """Of several values the question's words name, those that print exactly the periods it names: "in Q4 2009" is
    the "Q4 2009" row, not also "Q1 2009 – Q4 2009", which ends with it; () when none or all do."""
    said = _periods_said(reading)
    if len(values) < 2 or not said:
        return ()
    exact = tuple(v for v in values if _periods_of(str(v)) == said)
    return exact if len(exact) < len(values) else ()


def _column_of_the_range(numbers: Sequence[ColumnSchema], text: str) -> ColumnSchema | None:
    """The one figure column whose header prints exactly the span the question asks ("aged 35 to 44", "45-54" over
    "A35.44", "45-54 years"), else None."""
    found = [c for c in numbers if _holds_the_range(c, text)]
    return found[0] if len(found) == 1 else None


def _holds_the_range(column: ColumnSchema, text: str) -> bool:
    """The column's header prints the span the question asks, its two numbers one after the other ("EU-25 15-24")."""
    asked = _RANGE_ASKED.search(text)
    printed = re.findall(r"\d+", column.header)
    return asked is not None and any(pair == (asked.group(1), asked.group(2)) for pair in pairwise(printed))


def column_of_the_period(numbers: Sequence[ColumnSchema], reading: QuestionReading) -> ColumnSchema | None:
    """The one figure column whose header prints exactly the period the question names ("Q4 2009" over columns
    "Q4 2009", "Q1 2009 – Q4 2009" and "Q1 2010"), where it names one; else None."""
    said = _periods_said(reading)
    if len(said) != 1:
        return None
    exact = [c for c in numbers if _periods_of(_header(c)) == said]
    return exact[0] if len(exact) == 1 else None


_COORDINATING = frozenset({"and", "or", "nor", "than", "versus", "vs", "compared", "plus", "against", "both", "either",
                           ","})
"""Words between two labels a question names that make them two rows ("in Spain and France", "Spain than France"),
not one row under the other."""


def nested_row(values: Sequence[Any], view: TableView, column: ColumnSchema, text: str) -> Condition | None:
    """The one row several labels of ``column`` name together, as an outline prints it: "members aged 40 to 64
    who were cyclists" over rows "Aged 40 to 64", ..., "Cyclists" (a label printed under other age groups too)
    is the "Cyclists" row under "Aged 40 to 64", not the parent row and not
    every row so labelled. ``values`` are the labels the question names by every word; a label within another's
    words is none ("Severe" beside "Severe disability"). The labels are read as a chain, the first printed once
    and each next one the first of its label below the last, inside the first's section (which ends at the next
    row that begins with the same word, "Aged 65 and over" after "Aged 40 to 64"); None unless exactly one
    order of two to four labels chains so and no two of them are coordinated in the question ("in Spain and
    France", "Spain than France")."""
    label = view.label_column
    # (a totals row is under no row: "the EU's cases in Spain" names Spain's row, and "the Medicare outlays" the
    # Medicare row under "Outlays:", whatever "Total outlays" shares their words)
    if label is None or column.name != label.name:
        return None
    at = view.column_position(column.name)
    # (a row found to be the totals at extraction, "STATE" under its districts, is none either)
    totals = {str(values[at]) for row, values in view.values.items() if row in view.info.total_rows and at < len(values)}
    named = [v for v in dict.fromkeys(str(v) for v in values) if not _TOTAL_ROW.search(v) and v not in totals]
    named = [v for v in named if not any(_tokens(v) < _tokens(other) for other in named)]
    if not 2 <= len(named) <= 4:
        return None
    # every row the table prints, its headings with no figure among them ("Outlays:" over "Medicare")
    printed = [(row, str(values[at])) for row, values in sorted(view.values.items()) if at < len(values)]
    chains = []
    for order in permutations(named):
        parents = [row for row, value in printed if value == order[0]]
        if len(parents) != 1:
            continue
        first_word = order[0].split()[0].casefold() if order[0].split() else ""
        ends = [row for row, value in printed if row > parents[0] and value not in order and
                value.split()[:1] and value.split()[0].casefold() == first_word]
        section_end = min(ends, default=None)
        rows = [parents[0]]
        for child in order[1:]:
            below = [row for row, value in printed if value == child and row > rows[-1] and
                     (section_end is None or row < section_end)]
            if not below:
                break
            rows.append(below[0])
        if len(rows) == len(order):
            chains.append((order, rows[-1]))
    if len(chains) > 1:
        # "aged 40 to 64, walkers, who walked daily": of several chains, the one in the question's order
        chains = [(order, row) for order, row in chains if _said_in_order(text, order)]
    if len(chains) != 1:
        return None
    order, row = chains[0]
    if any(_coordinated(text, _tokens(a) - _tokens(b), _tokens(b) - _tokens(a)) for a, b in pairwise(order)):
        return None
    kept = next(v for v in values if str(v) == order[-1])
    return Condition(column, (kept,), order[-1], rows=(row,), within=" > ".join(order[:-1]))


def _said_in_order(text: str, labels: Sequence[str]) -> bool:
    """Whether the question says the labels' own words (those no other of them has) in the order given."""
    words = [_tokens(w) for w in re.findall(r"[\w'%]+", text.lower())]
    firsts = []
    for label in labels:
        own = _tokens(label) - set().union(*(_tokens(other) for other in labels if other != label))
        at = [i for i, w in enumerate(words) if w & own]
        if not at:
            return False
        firsts.append(min(at))
    return firsts == sorted(firsts)


def _coordinated(text: str, first: set[str], second: set[str]) -> bool:
    """Whether the question's words of two labels are apart, or joined by a coordinating word (``_COORDINATING``);
    True where either cannot be placed or the two are interleaved."""
    words = re.findall(r"[\w'%]+|,", text.lower())
    spans = []
    for own in (first, second):
        at = [i for i, w in enumerate(words) if _tokens(w) & own]
        if not at:
            return True
        spans.append((min(at), max(at)))
    (_, a1), (b0, _) = sorted(spans)
    if b0 <= a1:
        return True
    return any(w in _COORDINATING for w in words[a1 + 1:b0])


_RANGE_ASKED = re.compile(r"(?<![\d.,$])(\d{1,3})\s*(?:to|-|\u2013|through)\s*(\d{1,3})(?![\d.,%])", re.IGNORECASE)
_OPEN_ABOVE = r"(?:\+|(?:and|or)\s+(?:over|older|above|more))"
_OPEN_ASKED = re.compile(rf"(?<![\d.,$])(\d{{1,3}})(?:\s*(?:years?|yrs?))?\s*{_OPEN_ABOVE}(?!\s*than)", re.IGNORECASE)
_UNDER_ASKED = re.compile(r"\b(?:under|below|younger\s+than)\s+(?:the\s+age\s+of\s+)?(\d{1,3})(?![\d.,%])", re.IGNORECASE)
_RANGE_LABEL = re.compile(rf"^\s*(?:(?P<under>under|below|less\s+than)\s+)?(?P<lo>\d{{1,3}})"
                          rf"(?:\s*(?:-|\u2013|to)\s*(?P<hi>\d{{1,3}}))?(?:\s+(?:years?|yrs?))?\s*(?P<open>{_OPEN_ABOVE})?"
                          rf"(?:\s+[a-z]+)?\s*$", re.IGNORECASE)
_OPEN_END = 999
"""The upper end of an open band ("80+", "65 and over")."""


def _range_of(value: Any) -> tuple[int, int] | None:
    """The numbers a label spans ("60 - 69 years": 60 to 69; "61 years": 61 to 61; "80+" or "80 years and over":
    80 on; "under 5": 0 to 4), or None."""
    label = _RANGE_LABEL.match(str(value))
    if label is None:
        return None
    low = int(label.group("lo"))
    if label.group("under"):
        return (0, low - 1) if not label.group("hi") and not label.group("open") else None
    if label.group("open"):
        return (low, _OPEN_END) if not label.group("hi") else None
    return low, int(label.group("hi")) if label.group("hi") else low


def _range_asked(text: str) -> tuple[int, int | None] | None:
    """The span of ages (or other bands) a question asks: "aged 60 to 79" (60, 79); "60 and over", "65 or older",
    "80+" (60, None: to the last band); "under 5", "younger than 18" (None, 4) as (lowest, 4) once the bands
    are known; None where it asks none."""
    closed = _RANGE_ASKED.search(text)
    if closed is not None:
        return int(closed.group(1)), int(closed.group(2))
    above = _OPEN_ASKED.search(text)
    if above is not None:
        return int(above.group(1)), None
    under = _UNDER_ASKED.search(text)
    if under is not None:
        return -1, int(under.group(1)) - 1
    return None


def _span_said(text: str) -> str:
    """The words that ask a span of bands ("under 20 years old", "aged 65 and over"), or ""."""
    for pattern in (_RANGE_ASKED, _OPEN_ASKED, _UNDER_ASKED):
        found = pattern.search(text)
        if found is not None:
            after = re.match(r"(?:\s+(?:years?|yrs?))?(?:\s+(?:old|of\s+age))?", text[found.end():], re.IGNORECASE)
            before = re.search(r"\b(?:aged|ages?)\s+$", text[:found.start()], re.IGNORECASE)
            return text[before.start() if before else found.start():found.end() + (after.end() if after else 0)]
    return ""


def bands_kept(reading: QuestionReading, conditions: Sequence[Condition]) -> bool:
    """The question's span ("under 20", "65 and over") is read as bands a condition keeps."""
    return _range_asked(reading.text) is not None and \
        any(c.values and all(_range_of(v) is not None for v in c.values) for c in conditions)


def bands_within(values: Sequence[Any], text: str) -> tuple[Any, ...]:
    """The values that are bands ("60 - 69 years", "80+") or numbers ("61 years") lying within a span the text asks
    ("aged 60 to 79", "60 and over", "under 5"), where together they cover it exactly, from its first number to
    its last (an open span: to the last band; "under 5": from the first), one band alone too ("80 or older" over
    "80+"); () else."""
    asked = _range_asked(text)
    if asked is None:
        return ()
    low, high = asked
    spans = []
    for value in values:
        found = _range_of(value)
        if found is not None and (low < 0 or low <= found[0]) and (high is None or found[1] <= high):
            spans.append((*found, value))
    spans.sort(key=lambda span: span[0])
    joined = all(b[0] == a[1] + 1 for a, b in pairwise(spans))
    if not spans or not joined or low >= 0 and spans[0][0] != low or high is not None and spans[-1][1] != high:
        return ()
    if low < 0 and any((r := _range_of(v)) is not None and r[0] < spans[0][0] for v in values):
        return ()  # "under 5" where a band below the ones kept is printed: they do not start at the bottom
    return tuple(value for _, _, value in spans)


def rows_named(reading: QuestionReading, view: TableView, columns: Sequence[ColumnSchema],
               distinct: Callable[[ColumnSchema], list[Any]], target: ColumnSchema | None,
               exclude: set[str]) -> list[Condition]:
    """The rows the question names by values of ``columns`` (``_conditions``), the words of the ``target``'s
    header aside (they name the column read, not rows): what any plan over the table must keep."""
    asked = _tokens(_with_acronyms(reading.text, view.info.schema.columns)) | {
        str(_NUMBER_WORDS[w]) for w in _WORDS.findall(reading.text.lower()) if w in _NUMBER_WORDS}
    return _conditions(asked - _tokens(_header(target)), reading, columns, distinct, exclude, view)


def _common_words(values: Sequence[Any]) -> set[str]:
    """Words more than half of a column's values print ("Polling station" in "Polling station 3: Eastgate
    School"), and those words cut short: they say what the column holds, not which row, so a question need not
    repeat them."""
    if len(values) < 2:
        return set()
    counts: dict[str, int] = {}
    for value in values:
        for word in _tokens(str(value)):
            counts[word] = counts.get(word, 0) + 1
    common = {w for w, n in counts.items() if n * 2 > len(values)}
    # (a shared word cut short where a cell ran out of room, "Populat" for "Population", is that word)
    return common | {w for w in counts if len(w) >= 4 and any(c != w and c.startswith(w) for c in common)}


def in_the_period_asked(condition: Condition, view: TableView, reading: QuestionReading) -> Condition:
    """A condition keeping a label printed once a period ("Granted" in a roll-forward of stock options, between the
    balances "Outstanding at March 31, 2020" and "... 2021"), kept to the row of the one year the question asks:
    the row after the balance dated the year before and up to the balance dated that year. The condition as it was
    where the table prints no such balances or the year names no one row."""
    years = set(reading.years)
    kept = kept_rows([condition], view)
    if len(years) != 1 or len(kept) < 2 or condition.rows:
        return condition
    (year,) = years
    dated = [(r.row, {p.year for p in find_periods(r.label) if p.year}) for r in view.rows]
    ends = [row for row, found in dated if found == {year}]
    starts = [row for row, found in dated if found == {year - 1}]
    if len(ends) != 1 or len(starts) != 1 or starts[0] >= ends[0]:
        return condition
    inside = [row for row in kept if starts[0] < row < ends[0]]
    return replace(condition, rows=tuple(inside)) if len(inside) == 1 else condition


def kept_rows(conditions: Sequence[Condition], view: TableView) -> list[int]:
    """The ``_row`` of every row the conditions keep, read from the view (no query)."""
    return [row for row, values in view.values.items()
            if all(values[view.column_position(c.column.name)] in c.values and (not c.rows or row in c.rows)
                   for c in conditions)]


def _printed(view: TableView, column: ColumnSchema) -> dict[int, str]:
    """Each row's text in ``column``, by ``_row``."""
    at = view.column_position(column.name)
    return {row: str(values[at]) for row, values in view.values.items() if at < len(values)}


def _stands_under(view: TableView, column: ColumnSchema, value: Any, heading: Any) -> bool:
    """Whether a row printing ``value`` in ``column`` stands under a row printing ``heading`` there (its parent line,
    ``TableInfo.parent_of``)."""
    printed = _printed(view, column)
    return any(label == str(value) and (parent := view.info.parent_of(row)) is not None and
               printed.get(parent) == str(heading) for row, label in printed.items())


def _heads_of_repeated_rows(view: TableView, conditions: Sequence[Condition]) -> ColumnSchema | None:
    """The ``parent`` column where the question keeps rows by a label printed under several headings ("m = 10"
    under each method of a results table), so the kept rows are told apart by their headings alone; else None."""
    parent = next((c for c in view.info.schema.columns if c.name == PARENT_COLUMN), None)
    label = view.label_column
    named = [c for c in conditions if label is not None and c.column.name == label.name and not c.rows]
    if parent is None or label is None or len(named) != 1:
        return None
    kept = kept_rows(conditions, view)
    printed = _printed(view, label)
    heads = [printed.get(head) if (head := view.info.parent_of(row)) is not None else None for row in kept]
    return parent if len(kept) >= 2 and None not in heads and len(set(heads)) == len(kept) else None


def _named_by_shared_words(values: Sequence[Any], common: set[str], asked: set[str]) -> list[tuple[int, Any]]:
    """Where the question names no value of a column outright, the one value printed only in words most of the
    column's values share that it names by two of them or more, leaving out only such shared words: "under a fixed
    dose with low noise" names "Fixed dose, low noise scenario" beside "Fixed dose, high noise scenario" and "Low
    noise, late start scenario" (each with a word of its own unsaid). [] where none is or several are named so."""
    if any(_tokens(str(value)) - common - LEGAL_WORDS - STOPWORDS & asked for value in values):
        return []  # a word of another value's own is said ("high"): that value is meant, if not named whole
    named = []
    for value in values:
        whole = _tokens(str(value)) - LEGAL_WORDS - STOPWORDS
        said = whole & asked
        if whole and whole <= common and len(said) >= 2:
            named.append((len(said), value))
    best = max((n for n, _ in named), default=0)
    top = [(n, v) for n, v in named if n == best]
    return top if len(top) == 1 else []


def _label_quoted(value: str, text: str) -> bool:
    """Whether the question prints a label whole, letters or signs and not only its figures ("m = 40", "Q3 (p < 0.05)"),
    as the table prints it but for case and spacing."""
    said = " ".join(value.split()).casefold()
    return bool(re.search(r"[^\d\s.,]", said)) and \
        re.search(rf"(?<!\w){re.escape(said)}(?!\w)", " ".join(text.split()).casefold()) is not None


def _names_value(value: str, words: set[str], asked: set[str], common: set[str], text: str) -> int:
    """How many of a value's distinctive ``words`` the question names when it names the value (else 0): every
    word (or, of a long value, a third and three at least); or every word that is no number ("at Eastgate School" for "3: Eastgate School"); or its number after
    a word the column's values share ("at station 12" for "Polling station 12: Eastgate School")."""
    if not words and not re.search(r"\d", value):
        # a value made only of the words most values print ("Sciences" beside "Social Sciences", "Civil Sciences"):
        # named by all of them, where the question says them (and no longer value it is part of is named)
        whole = _tokens(value) - LEGAL_WORDS - STOPWORDS
        return len(whole) if whole and whole <= asked else 0
    if len(words) > 6:
        # a long value (a ballot question, a title) named by three of its distinctive words or more, a third of them
        # at least: "the covered market hall question" for "Should the town build a covered market hall on ...?"
        named = words & asked
        if len(named) >= 3 and len(named) * 3 >= len(words):
            return len(named)
    elif words and words <= asked:
        return len(words)
    names = {w for w in words if not w.isdigit()}
    if names and names <= asked and len(words) <= 6:
        return len(names)
    numbers = set(re.findall(r"(?<![\d.,])\d+(?![\d.,]\d)", value))
    shared = "|".join(map(re.escape, sorted(common)))
    if len(numbers) == 1 and shared:
        number = next(iter(numbers))
        # "at station 12" for "Polling station 12: ..."; "exactly two reclassifications" for "2 reclassifications"
        text = _NUMBER_WORD.sub(lambda w: str(_NUMBER_WORDS[w.group(0).lower()]), text)
        if re.search(rf"\b(?:{shared})s?\s+(?:no\.?\s*|#\s*)?{number}\b|\b{number}\s+(?:{shared})", text, re.IGNORECASE):
            return 1
    return 0


def _operation(query: TableQuery, target: ColumnSchema | None, group: ColumnSchema | None,
               reading: QuestionReading) -> str | None:
    op = query.operation
    if op == "how_many":
        return "sum" if target is not None else "count"
    if op == "lookup":
        return "value"
    if op == "top":
        return "top"
    if op in ("count", "sum", "average", "max", "min", "list", "share"):
        return op
    return None


def only_count(view: TableView, numbers: Sequence[ColumnSchema], reading: QuestionReading) -> ColumnSchema | None:
    """For a threshold that is no percentage ("more than 10,000 cases") over a table whose other figures are
    percentages ("Domestic (%)", "Imported (%)", "Total (n)"): its only column of counts."""
    if reading.criterion.scale == "%" or reading.percent:
        return None
    counts = [c for c in numbers if view.column_scale(c.name) != "percent" and "%" not in c.header]
    return counts[0] if len(counts) == 1 else None


_GROUP_TOTAL = re.compile(r"^\s*(?P<a>[\w.-]+(?:\s+[\w.-]+)?)\s+totals?\s*$", re.IGNORECASE)
"""A totals row named by the group it adds up ("Nordic Total", "Europe total"; not "Total revenue", a line's total)."""


def members_of_a_total(view: TableView, reading: QuestionReading, conditions: Sequence[Condition]) -> Condition | None:
    """"Which Nordic countries ..." over countries printed above a "Nordic Total" row, and others below it: the rows
    that total adds up (those between it and the totals row above it); "the countries printed below the Nordic
    total": the rows after it (up to the next totals row). None where the question names no such group, or already keeps
    rows by their labels."""
    label = view.label_column
    if label is None or any(c.column.name == label.name and not _keeps_a_total(c, view) for c in conditions):
        return None
    rows = sorted(view.rows, key=lambda r: r.row)
    totals = [r for r in rows if _TOTAL_ROW.search(r.label) or r.row in view.info.total_rows]
    asked = _tokens(reading.text)
    for total in totals:
        named = _GROUP_TOTAL.match(total.label)
        group = named.group("a") if named else ""
        if not group or not _tokens(group) or not _tokens(group) <= asked or _tokens(group) & {"grand", "sub", "all"}:
            continue
        said_group = re.escape(group)
        # (the words that say the rows after it: "non-Nordic", "below the Nordic total", read by the condition made)
        phrases = [m.group(0) for m in re.finditer(
            rf"\bnon[\s-]*{said_group}\b|\b(?:under|below|after)\s+(?:the\s+)?{said_group}\s+totals?\b|"
            rf"\b(?:outside|not\s+in)\s+(?:the\s+)?{said_group}\b", reading.text, re.IGNORECASE)]
        after = bool(phrases)
        if not after and not re.search(rf"\b{said_group}\b", reading.text, re.IGNORECASE):
            continue
        bounds = [r.row for r in totals]
        if after:
            end = min((b for b in bounds if b > total.row), default=max(r.row for r in rows) + 1)
            kept = [r for r in rows if total.row < r.row < end]
        else:
            start = max((b for b in bounds if b < total.row), default=0)
            kept = [r for r in rows if start < r.row < total.row]
        if not kept:
            return None
        position = view.column_position(label.name)
        values = tuple(dict.fromkeys(view.values[r.row][position] for r in kept))
        said = f"listed after {total.label}" if after else f"counted in {total.label}"
        return Condition(label, values, said, rows=tuple(r.row for r in kept), within=" ".join(phrases), totalled=True)
    return None


def _keeps_a_total(condition: Condition, view: TableView) -> bool:
    """Whether a condition keeps a totals row only ("EU Total" named by "the EU"): the group's total, not its rows."""
    return bool(condition.rows) and set(condition.rows) <= set(total_rows(view)) or \
        all(_TOTAL_ROW.search(str(v)) for v in condition.values)


def _label_key(value: Any) -> str:
    """A label as it is compared with its repeats: spacing and case aside."""
    return " ".join(str(value).split()).lower()


def _labels_counted(plan: QueryPlan, kept: Sequence[int]) -> int:
    """How many of the label column's things the rows kept are, where the rows are counted as those things ("how
    many of the investigations" over an Investigations column): a label printed on rows one after another (a cell
    over several rows, copied down each) is one; else the number of rows kept."""
    view, label = plan.view, plan.view.label_column
    if label is None or not plan.noun or not _tokens(plan.noun) & _header_tokens(_header(label)):
        return len(kept)
    position = view.column_position(label.name)
    printed = {r: _label_key(view.values[r][position]) for r in kept if r in view.values}
    return sum(1 for r in sorted(kept) if not (r - 1 in printed and printed.get(r) == printed[r - 1] and printed[r]))


def _label_printed_again(conditions: Sequence[Condition], view: TableView) -> bool:
    """Whether the conditions keep rows by one label of the table's label column that it prints on several rows
    (a line of a roll-forward printed once a period: "Granted", "Granted", ...)."""
    label = view.label_column
    if label is None or not conditions or not all(c.column.name == label.name and len(c.values) == 1 and not c.dated
                                                  for c in conditions):
        return False
    position = view.column_position(label.name)
    rows_of: dict[str, list[int]] = {}
    for row, values in sorted(view.values.items()):
        rows_of.setdefault(_label_key(values[position]), []).append(row)
    # (a label over consecutive rows is one cell's, copied down the rows it spans, not a line printed again)
    return all(len(rows := rows_of.get(_label_key(c.values[0]), [])) > 1 and
               all(b - a > 1 for a, b in pairwise(rows)) for c in conditions)


def _count_column(view: TableView, numbers: Sequence[ColumnSchema]) -> ColumnSchema | None:
    """The one figure column whose header says it counts ("Number of Shares", "Count", "N"), or None."""
    counts = [c for c in numbers if _tokens(_header(c)) & _COUNT_HEADERS and not is_percent(view, c)]
    return counts[0] if len(counts) == 1 else None


def _names_rows_once(conditions: Sequence[Condition], view: TableView) -> bool:
    """Whether the conditions keep rows by the table's label column, where every row has a label of its own (age
    groups, programmes, countries): such rows are what the figures are about, so counting them counts the names."""
    label = view.label_column
    labels = [r.label for r in view.rows if r.label]
    return label is not None and all(c.column.name == label.name and not c.dated for c in conditions) and \
        bool(labels) and len(labels) == len(set(labels))


_STATISTICS = (
    (re.compile(r"\b(?:maximum|max|highest|largest)\b", re.IGNORECASE), re.compile(r"max(?:imum)?\.?", re.IGNORECASE)),
    (re.compile(r"\b(?:minimum|min|lowest|smallest)\b", re.IGNORECASE), re.compile(r"min(?:imum)?\.?", re.IGNORECASE)),
    (AVERAGE_ASKED, re.compile(r"mean|average|avg\.?", re.IGNORECASE)),
    (re.compile(r"\bmedian\b", re.IGNORECASE), re.compile(r"median", re.IGNORECASE)),
    (re.compile(r"\bstandard\s+deviation\b", re.IGNORECASE), re.compile(r"std\.?\s*dev\.?|standard\s+deviation|s\.?d\.?",
                                                                    re.IGNORECASE)),
)
_UNIT_ASIDE = re.compile(r"\s*\([^()]*\)\s*$")


def _statistic_column(text: str, numbers: Sequence[ColumnSchema]) -> ColumnSchema | None:
    """In a table of summary statistics (columns headed Mean, Std. Dev., Min, Max), the one column whose whole header
    is the statistic the question asks ("the maximum number of children": Max); None where the question asks none
    or no header is only that."""
    for asked, header in _STATISTICS:
        if asked.search(text):
            found = [c for c in numbers if header.fullmatch(c.header.strip())]
            if len(found) == 1:
                return found[0]
    return None


_ORDINALS = {"first": "1st", "second": "2nd", "third": "3rd", "fourth": "4th", "fifth": "5th"}
_ORDINAL = re.compile(rf"\b(?:{'|'.join(_ORDINALS)})\b", re.IGNORECASE)


def _columns_sharing(words: str, columns: Sequence[ColumnSchema]) -> list[ColumnSchema]:
    """The columns whose headers each hold every one of ``words`` ("boats" over Sailing boats, Motor boats)."""
    said = _tokens(words)
    return [c for c in columns if said and said <= _header_tokens(_header(c))]


def _columns_named(reading: QuestionReading | str, numbers: Sequence[ColumnSchema]) -> list[ColumnSchema]:
    """The figure columns the question (or a phrase of it) names each by its whole header (units and years aside,
    and the heading every column is printed under: "Course year" over "1st year", "2nd year"), in the table's order:
    "cheese, yoghurt and cream" over Cheese, Yoghurt, Cream; "first and second year
    students" over Course year 1st year, Course year 2nd year."""
    text = reading if isinstance(reading, str) else reading.text
    asked = _tokens(_ORDINAL.sub(lambda g: _ORDINALS[g.group(0).lower()], text))
    words = {c.name: _tokens(YEAR_PRINTED.sub(" ", re.sub(r"\([^()]*\)", " ", c.header))) for c in numbers}
    shared = set.intersection(*words.values()) if len(words) >= 2 else set()
    named = [c for c in numbers if words[c.name] - shared and words[c.name] - shared <= asked]
    # each names an item of its own ("butter", "margarine"), not only what they all are ("turnover")
    return [c for c in named if words[c.name] - set().union(*(words[o.name] for o in named if o is not c))]


def only_row(view: TableView) -> Condition | None:
    """The condition keeping a table's one row (its totals rows aside), by its label; None where it has several."""
    rows = [r for r in view.rows if not _TOTAL_ROW.search(r.label)]
    if view.label_column is None or len(rows) != 1:
        return None
    return Condition(view.label_column, (rows[0].label,), rows[0].label)


def named_twice(conditions: Sequence[Condition], view: TableView) -> bool:
    """Whether the only conditions keep rows by labels each printed on more than one row of two tables of one layout
    read as one ("Humanities" in the women's and in the men's, each table with its total), so that the rows kept
    are not one figure's."""
    label = view.label_column
    if label is None or not conditions or any(c.column.name != label.name for c in conditions):
        return False
    labels = [_REPEAT_MARK.sub("", r.label) for r in view.rows]  # "Humanities (#2)": the second row so labelled
    # two tables, each with its totals row (a register repeats its names too, but has one total at most)
    stacked = sum(1 for label in labels if _TOTAL_ROW.search(label)) >= 2
    return stacked and all(labels.count(str(v)) > 1 for c in conditions for v in c.values)


_REPEAT_MARK = re.compile(r"\s*\(#\d+\)$")


def _printed_whole(view: TableView, column: ColumnSchema, whole: Any) -> float | None:
    """The figure the table prints for ``whole`` (equal to rounding) in ``column`` on a grand total's row: one
    labelled "Total" alone, or one with no label that sums the rest (``unlabelled_totals``); None where none does."""
    if not is_number(whole) or not whole:
        return None
    grand = [r.row for r in view.rows if re.fullmatch(r"\s*(?:grand\s+)?total\s*:?\s*", r.label, re.IGNORECASE)]
    for row in (*grand, *unlabelled_totals(view, column, total_rows(view))):
        value = _cell_figure(view, row, column)
        if value is not None and abs(value - float(whole)) <= max(1.0, abs(float(whole)) * 0.0005):
            return value
    return None


_SUMMARY_ROW = re.compile(r"^\s*(?:max(?:imum)?|min(?:imum)?|avg|average|mean|median|std\.?(?:\s*dev\.?)?|"
                          r"standard\s+deviation|s\.?d\.?|sum)\s*\.?\s*$", re.IGNORECASE)
"""A row of a statistic over the rows above it ("Avg", "Max", "Mean"), printed below a list of items."""


def total_rows(view: TableView) -> list[int]:
    """The rows of totals: labelled so ("Total", "Subtotal, ...", "All ages") or found so at extraction; and the
    rows of statistics a list of items ends with ("Avg", "Max" under the instances of a benchmark), which are no
    item either."""
    rows = sorted(view.rows, key=lambda r: r.row)
    trailing: set[int] = set()
    for r in reversed(rows):
        if not _SUMMARY_ROW.match(r.label):
            break
        trailing.add(r.row)
    if len(rows) - len(trailing) < 2:
        trailing = set()  # a table of statistics: its rows are what is asked
    return sorted({r.row for r in view.rows if _TOTAL_ROW.search(r.label)} | set(view.info.total_rows) | trailing)


def _cell_figure(view: TableView, row: int, column: ColumnSchema) -> float | None:
    values = view.values.get(row, ())
    at = view.column_position(column.name)
    value: Any = values[at] if 0 <= at < len(values) else None
    return float(value) if is_number(value) else None


def unlabelled_totals(view: TableView, column: ColumnSchema | None, totals: Sequence[int]) -> list[int]:
    """The rows that print no label and, in ``column``, the sum of the table's other rows: the grand total a
    table prints last with no word beside it, or the sum of its "Total ..." rows (``totals``). Counted as a row,
    it would double what a sum or a share's whole adds up."""
    if column is None or view.label_column is None:
        return []
    def figure(row: int) -> float | None:
        return _cell_figure(view, row, column)
    found = []
    for candidate in (r for r in view.rows if not r.labelled and r.row not in totals):
        printed = figure(candidate.row)
        if printed is None or not printed:
            continue
        rest = [f for r in view.rows if r.row != candidate.row and r.row not in totals and (f := figure(r.row)) is not None]
        named = [f for r in totals if (f := figure(r)) is not None]
        if any(part and abs(sum(part) - printed) <= max(1.0, abs(printed) * 0.0005) for part in (rest, named)):
            found.append(candidate.row)
    return found


_SIGN_WORDS = re.compile(r"\b(?:deficits?|surplus(?:es)?|loss(?:es)?|profits?|gains?)\b", re.IGNORECASE)


def _signed_column(text: str, numbers: Sequence[ColumnSchema]) -> ColumnSchema | None:
    """The one column whose header names the side of zero the question asks ("ran a surplus" over "Surplus/Deficit",
    "Profit/(loss)"), its header read with words a narrow column broke joined again."""
    said = _tokens(" ".join(_SIGN_WORDS.findall(text)))
    named = [c for c in numbers if said & (_header_tokens(c.header) | _rejoined(c.header))]
    return named[0] if said and len(named) == 1 else None


def column_named_whole(numbers: Sequence[ColumnSchema], asked: set[str]) -> ColumnSchema | None:
    """The one figure column the question names by its whole header, a header that prints no year (a country's
    column, "Finland", over rows of years); None where none or several are."""
    named = [c for c in numbers if (said := _tokens(c.header)) and said <= asked and not YEAR_PRINTED.search(c.header)]
    return named[0] if len(named) == 1 else None


def _only_number(numbers: Sequence[ColumnSchema], reading: QuestionReading) -> ColumnSchema | None:
    """The figure column a question means when it names none: the only one, or the one of the year asked."""
    if len(numbers) == 1:
        return numbers[0]
    years = {str(p.year) for p in reading.periods}
    of_year = _the_count_of_several([c for c in numbers if years and any(y in _header(c) for y in years)], reading)
    if len(of_year) > 1:
        # "growth in 2001-2011" over decades "1991-2001" and "2001-2011": the column that prints every year said
        of_year = [c for c in of_year if all(y in _header(c) for y in years)]
    return of_year[0] if len(of_year) == 1 else None


_MONEY_PRINTED = re.compile(r"[$\u20ac\u00a3\u00a5]|\b(?:USD|EUR|GBP|R\$)\b")
_MONEY_ASKED = re.compile(r"\bhow\s+much\b|\b(?:amount|money|sum)\b|\b(?:cost|price|paid|pay|spent|spend|donat\w*|gave|give|given|"
                          r"raised|earned|received|owed|charged)\b", re.IGNORECASE)


def measures(view: TableView, numbers: Sequence[ColumnSchema], reading: QuestionReading) -> list[ColumnSchema]:
    """The figure columns a question that names none may mean: where it asks about money ("how much did X give",
    "the average donation") and one column prints its figures as money ("$ 10.000,00") among columns of other
    figures (registration numbers, counts), that one; else all of them."""
    if len(numbers) < 2 or not _MONEY_ASKED.search(reading.text):
        return list(numbers)
    priced = [c for c in numbers if printed_as_money(view, c)]
    return priced if len(priced) == 1 else list(numbers)


def printed_as_money(view: TableView, column: ColumnSchema) -> bool:
    """Whether the column's header or most of its cells print a currency ("$ 10.000,00", "Amount (EUR)")."""
    at = view.column_position(column.name)
    printed = [p for row in view.values if (p := view.printed.get((row, at), "")).strip()]
    return bool(_MONEY_PRINTED.search(column.header)) or \
        bool(printed) and sum(bool(_MONEY_PRINTED.search(p)) for p in printed) * 2 > len(printed)


def _grand_total_column(numbers: Sequence[ColumnSchema]) -> ColumnSchema | None:
    """The table's grand total column: the last headed "Total ..." ("Total Plan & Non-Plan" after "Plan Total" and
    "Non-Plan Total"), else the one header saying total; None where none is."""
    leading = [c for c in numbers if re.match(r"\s*total\b", c.header, re.IGNORECASE)]
    anywhere = [c for c in numbers if re.search(r"\btotal\b", c.header, re.IGNORECASE)]
    return leading[-1] if leading else anywhere[0] if len(anywhere) == 1 else None


def _period_columns(view: TableView, numbers: Sequence[ColumnSchema], reading: QuestionReading) -> list[ColumnSchema]:
    """The one figure column of each year an average over periods names (every year of a span: "from 2014 to
    2016"), in the years' order; [] unless every year has one."""
    measure = reading.measure
    years = sorted(set(measure.periods if measure is not None and measure.op == m.AVERAGE and measure.periods
                       else reading.years))
    found = []
    for year in years:
        figures = [c for c in numbers if not is_percent(view, c) or asks_percent(reading)]
        columns = _the_count_of_several(_of_year(view, figures, year), reading)
        if len(columns) != 1:
            return []
        found.append(columns[0])
    return found if len({c.name for c in found}) == len(found) else []


def _of_year(view: TableView, columns: Sequence[ColumnSchema], year: int) -> list[ColumnSchema]:
    """The columns of one year: the period extraction found in them, or the year their header prints."""
    return [c for c in columns if any(p.column == c.name and p.period.fiscal_year == year for p in view.info.periods)
            or re.search(rf"\b{year}\b", _header(c))]


def _the_count_of_several(columns: list[ColumnSchema], reading: QuestionReading) -> list[ColumnSchema]:
    """Of several columns of one year ("2010 Number", "2010 Margin of error", "2010 Percent"), the one that counts
    where the question asks no percentage; else the columns as given."""
    if len(columns) < 2 or asks_percent(reading):
        return columns
    counting = [c for c in columns if _COUNT_KIND.match(re.sub(r"\b(?:19|20)\d\d\b", " ", c.header).strip())]
    if len(counting) == 1:
        return counting
    figures = [c for c in columns if not _PERCENT_KIND.search(c.header) and not _SPREAD.search(c.header)]
    return figures if len(figures) == 1 else columns


_SPREAD = re.compile(r"\b(?:errors?|margins?|moe|ci|confidence|interval|standard\s+deviation|sd|se|s\.e\.)\b",
                     re.IGNORECASE)
"""A column printing how far a figure may be off (a margin of error, a standard error), not a figure."""


# -- compiling and running ---------------------------------------------------------------------------------------


def _literal(value: Any) -> str:
    return repr(value) if is_number(value) else quote_text(str(value))


def _bound_sql(threshold: Threshold) -> str:
    """The SQL test of one bound on a row's figure."""
    if threshold.equal:
        return f"{figure_sql(threshold.column)} = {threshold.value!r}"
    return (f"{figure_sql(threshold.column)} {'>' if threshold.above else '<'}{'=' if threshold.inclusive else ''} "
            f"{figure_sql(threshold.than) if threshold.than is not None else repr(threshold.value)}")


def _where(plan: QueryPlan) -> str:
    parts = [c.sql() for c in plan.conditions]
    parts += [_bound_sql(t) for t in plan.thresholds]
    parts += [f"({quote_identifier(m.column.name)} IS NOT NULL AND {quote_identifier(m.column.name)} <> 0)" if m.present
              else f"({quote_identifier(m.column.name)} IS NULL OR {quote_identifier(m.column.name)} = 0)"
              for m in plan.missing]
    label = plan.view.label_column
    if label is None or not any(c.column.name == label.name for c in (*plan.conditions, *(plan.versus or ()))):
        # rows named by their labels are kept whatever they are (a "Total receipts" a share is taken of)
        totals = total_rows(plan.view)
        totals += unlabelled_totals(plan.view, plan.target, totals)
        if totals:
            parts.append(f"_row NOT IN ({', '.join(str(r) for r in sorted(totals))})")
    return " WHERE " + " AND ".join(parts) if parts else ""



def columns_of(view: TableView, distinct: Callable[[ColumnSchema], list[Any]]
               ) -> tuple[list[ColumnSchema], list[ColumnSchema]]:
    """A table's text columns (what conditions and groups name) and its figure columns, those of figures printed
    with their shares among them (``leading_figure_columns``): what a plan, code's or the model's, chooses among."""
    numbers = [c for c in view.data_columns if c.type.upper() != "TEXT"] + leading_figure_columns(view, distinct)
    text = [c for c in view.info.schema.columns if c.type.upper() == "TEXT" and not c.name.startswith("_")
            and c not in numbers]
    return text, numbers


def leading_figure_columns(view: TableView, distinct: Callable[[ColumnSchema], list[Any]]) -> list[ColumnSchema]:
    """Text columns every value of which is a figure with its share in brackets ("3212 (50.6%)", "101(20.4%)"), as
    statistics tables print counts: the figure is read (``figure_sql``), the cell cited as printed."""
    found = []
    for column in view.data_columns:
        if column.type.upper() != "TEXT":
            continue
        values = [str(v) for v in distinct(column)[:MAX_DISTINCT] if v not in (None, "")]
        shared = sum(bool(_FIGURE_AND_SHARE.fullmatch(v)) for v in values)
        # a totals row prints its figure alone ("340"): the others print their shares
        if shared >= 2 and shared * 3 >= len(values) * 2 and \
                all(_FIGURE_AND_SHARE.fullmatch(v) or _PLAIN_FIGURE.fullmatch(v) for v in values):
            found.append(column)
    return found


_PLAIN_FIGURE = re.compile(r"\s*-?\d[\d,]*(?:\.\d+)?\s*")
_FIGURE_AND_SHARE = re.compile(r"\s*-?\d[\d,]*(?:\.\d+)?\s*\(\s*-?\d[\d.,]*\s*%?\s*\)\s*")


def figure_sql(column: ColumnSchema) -> str:
    """The SQL of a column's figures: the column itself, or for a text column of figures with their shares in
    brackets (``leading_figure_columns``) the figure before the bracket."""
    name = quote_identifier(column.name)
    if column.type.upper() != "TEXT":
        return name
    return (f"CAST(REPLACE(TRIM(CASE WHEN INSTR({name}, '(') > 0 THEN SUBSTR({name}, 1, INSTR({name}, '(') - 1) "
            f"ELSE {name} END), ',', '') AS REAL)")


def _group_expression(plan: QueryPlan) -> str:
    assert plan.group is not None
    column = quote_identifier(plan.group.name)
    if not plan.group_of:
        return column
    cases = " ".join(f"WHEN {_literal(raw)} THEN {_literal(label)}" for raw, label in plan.group_of.items())
    return f"CASE {column} {cases} END"


def _added_sql(columns: Sequence[ColumnSchema]) -> str:
    """One row's figures of ``columns`` added (an empty cell adds nothing)."""
    return " + ".join(f"COALESCE({figure_sql(c)}, 0)" for c in columns)


def compile_sql(plan: QueryPlan) -> str:
    """The plan as one SQLite statement."""
    table = plan.view.from_sql
    where = _where(plan)
    target = figure_sql(plan.target) if plan.target is not None else None
    order = "DESC" if plan.descending else "ASC"
    if plan.operation == "count":
        return f"SELECT COUNT(*) AS count FROM {table}{where}"
    if plan.operation == "value":
        return f"SELECT {target} AS value, _row FROM {table}{where} ORDER BY _row LIMIT 2"
    if plan.operation == "sum" and plan.columns:
        return f"SELECT SUM({_added_sql(plan.columns)}) AS value, COUNT(*) AS rows FROM {table}{where}"
    if plan.operation == "average" and plan.columns:  # one row's figures, each there (an empty cell: no average)
        added = " + ".join(figure_sql(c) for c in plan.columns)
        return f"SELECT ({added}) * 1.0 / {len(plan.columns)} AS value, COUNT(*) AS rows FROM {table}{where}"
    if plan.operation in ("sum", "average", "max", "min"):
        function = {"sum": "SUM", "average": "AVG", "max": "MAX", "min": "MIN"}[plan.operation]
        if plan.counted and plan.operation == "sum":
            return f"SELECT ABS(SUM({target})) AS value, COUNT({target}) AS rows FROM {table}{where}"
        return f"SELECT {function}({target}) AS value, COUNT({target}) AS rows FROM {table}{where}"
    if plan.operation in ("difference", "share") and plan.versus is not None:
        a, b = (c.sql() for c in plan.versus)
        return (f"SELECT SUM(CASE WHEN {a} THEN {target} END) AS first, SUM(CASE WHEN {b} THEN {target} END) AS second, "
                f"COUNT(*) AS rows FROM {table}{where}")
    if plan.operation == "share" and plan.columns:
        return f"SELECT SUM({target}) AS first, SUM({_added_sql(plan.columns)}) AS second, COUNT(*) AS rows FROM {table}{where}"
    if plan.operation in ("share", "difference", "change") and plan.whole is not None:
        return (f"SELECT SUM({target}) AS first, SUM({figure_sql(plan.whole)}) AS second, COUNT(*) AS rows "
                f"FROM {table}{where}")
    if plan.operation == "share" and plan.thresholds:  # the rows past a bound among those the conditions keep
        past = f"SUM(CASE WHEN {' AND '.join(_bound_sql(t) for t in plan.thresholds)} THEN 1 END)"
        return (f"SELECT {past} * 100.0 / COUNT(*) AS share, {past} AS part, COUNT(*) AS whole "
                f"FROM {table}{_where(replace(plan, thresholds=()))}")
    if plan.operation == "share":
        kept = " AND ".join(c.sql() for c in plan.conditions) or "1"
        everything = _where(QueryPlan(plan.view, plan.operation, plan.target))
        each = target or "1"  # no target: a share of the rows themselves
        total = f"SUM({target})" if target else "COUNT(*)"
        totals = total_rows(plan.view)
        if target and len(totals) == 1:
            # the whole is the total the table prints, not its rows added up: rows under several headings (by sex,
            # by race) each add up to it
            total = f"(SELECT {target} FROM {table} WHERE _row = {totals[0]})"
        return (f"SELECT SUM(CASE WHEN {kept} THEN {each} END) * 100.0 / {total} AS share, "
                f"SUM(CASE WHEN {kept} THEN {each} END) AS part, {total} AS whole FROM {table}{everything}")
    # (the groups named "_group", not "item": GROUP BY resolves a name to the table's own column first, and a label
    # column is often called "item" where the group is another column)
    group = _group_expression(plan)
    if plan.operation == "list":
        return f"SELECT {group} AS _group, MIN(_row) AS first FROM {table}{where} GROUP BY _group ORDER BY first"
    # top: groups ranked by their total, or rows by their value when each group is one row
    if plan.change is not None:
        older, newer = (figure_sql(c) for c in plan.change)
        value = f"({newer} - {older}) * 100.0 / NULLIF({older}, 0)" if plan.percent else f"{newer} - {older}"
        both = f"{newer} IS NOT NULL AND {older} IS NOT NULL"
        return (f"SELECT {group} AS _group, {value} AS value, {older} AS older, {newer} AS newer FROM {table}"
                f"{where + ' AND ' if where else ' WHERE '}{both} ORDER BY value {order}, _group LIMIT {plan.limit}")
    if target is not None and plan.per_row:
        return (f"SELECT {group} AS _group, {target} AS value, _row AS first FROM {table}"
                f"{where + ' AND ' if where else ' WHERE '}{target} IS NOT NULL ORDER BY value {order}, _row "
                f"LIMIT {plan.limit}")
    if target is None:
        return (f"SELECT {group} AS _group, COUNT(*) AS value FROM {table}{where} GROUP BY _group "
                f"ORDER BY value {order}, _group LIMIT {plan.limit}")
    return (f"SELECT {group} AS _group, SUM({target}) AS value, COUNT(*) AS rows FROM {table}{where} "
            f"AND {target} IS NOT NULL GROUP BY _group ORDER BY value {order}, _group LIMIT {plan.limit}"
            if where else
            f"SELECT {group} AS _group, SUM({target}) AS value, COUNT(*) AS rows FROM {table} WHERE {target} IS NOT NULL "
            f"GROUP BY _group ORDER BY value {order}, _group LIMIT {plan.limit}")


def _tied(sql: str, plan: QueryPlan, run_sql: RunSql) -> bool:
    """The last of the ``plan.limit`` groups or rows a ranking keeps has the same value as the first it leaves out
    ("which currency had the least" over rows each counted once): the order between them says nothing."""
    head, limit = sql.rsplit(" LIMIT ", 1)
    if not limit.strip().isdigit():
        return False
    ranked = run_sql(f"{head} LIMIT {plan.limit + 1}").rows
    return len(ranked) > plan.limit and ranked[plan.limit - 1][1] is not None and \
        ranked[plan.limit - 1][1] == ranked[plan.limit][1]


def _one_figure(plan: QueryPlan, run_sql: RunSql) -> bool:
    """Whether every row the plan keeps holds the same figure in its target ("the prevalence assumed for blood
    pressure" over its rows for men and for women, 10 each): one figure, which the question asks, whichever row."""
    assert plan.target is not None
    target = figure_sql(plan.target)
    where = _where(plan)
    result = run_sql(f"SELECT COUNT(DISTINCT {target}), COUNT({target}), COUNT(*) FROM "
                     f"{plan.view.from_sql}{where}")
    distinct, filled, kept = result.rows[0]
    return distinct == 1 and filled == kept


def rows_kept(plan: QueryPlan, run_sql: RunSql) -> list[int]:
    """The ``_row`` of every row the plan's conditions keep (what a sum or a count read)."""
    result = run_sql(f"SELECT _row FROM {plan.view.from_sql}{_where(plan)} ORDER BY _row "
                     f"LIMIT {MAX_CITED_ROWS}")
    return [int(r[0]) for r in result.rows]


def execute(plan: QueryPlan, reading: QuestionReading, run_sql: RunSql) -> QueryAnswer:
    """Run the plan and word its result; raises NoAnswer where the result is none."""
    sql = compile_sql(plan)
    result = run_sql(sql)
    rows = result.rows
    if not rows or all(v is None for v in rows[0]):
        raise NoAnswer(f"{plan.describe()}: no row matched.")
    view = plan.view
    if plan.operation == "value" and len(rows) > 1 and not _one_figure(plan, run_sql):
        # several rows named ("the budgets of Parks, Roads and Libraries"): figures each, which the answer types
        # compose; a total is asked in so many words
        raise NoAnswer(f"{plan.describe()}: the question names several rows, not one cell.")
    kept = rows_kept(plan, run_sql)
    target = plan.target
    where = where_words(plan)
    noun = plan.noun or "rows"
    title = view.info.caption or view.info.heading or view.name
    if plan.operation == "count":
        count = int(rows[0][0])
        if count == 0:
            raise NoAnswer(f"{plan.describe()}: no row matched.")
        if _counts_rows_named(plan, run_sql):
            # "how many demands are listed under the Ministry of Defence": the rows named are counted, not what they hold
            raise NoAnswer(f"{plan.describe()}: the rows named count themselves.")
        label_column = view.label_column
        cells = tuple((r, label_column.name) for r in kept) if label_column else ()
        runs = _labels_counted(plan, kept)
        one = vocabulary.singular(noun.split()[-1]) if noun.strip() else "label"
        spanning = f" ({count:,} rows: each {one} printed over consecutive rows counted once)" if runs < count else ""
        count = min(count, runs)
        sentence = f"{count:,} {noun} in {title}{where}{spanning}"
        return QueryAnswer(plan, result, f"{count:,}", (f"{count:,}",), sentence, cells, {})
    if plan.operation == "value":
        assert target is not None
        value, row = rows[0]
        if value is None:
            raise NoAnswer(f"{plan.describe()}: the row holds no figure in that column.")
        shown = _figure(view, target, value, reading, cell=True, row=int(row))
        header = target.header or target.name.replace("_", " ")
        named = _rows_said(plan, dated=False)
        sentence = f"{named + ': ' if named else ''}{header} {shown} ({title}{where if not named else ''})"
        return QueryAnswer(plan, result, shown, (shown,), sentence, ((int(row), target.name),), {})
    if plan.operation in ("sum", "average", "max", "min"):
        assert target is not None
        value, counted = rows[0][0], int(rows[0][1] or 0)
        if value is None or not counted:
            raise NoAnswer(f"{plan.describe()}: no figure in the rows kept.")
        if plan.columns:
            return _across_answer(plan, result, value, kept, reading, title)
        if plan.operation == "average" and counted == 1 and len(set(reading.years)) >= 2:
            raise NoAnswer(f"{plan.describe()}: an average over several years asked is no one row's figure of one.")
        if plan.operation == "sum" and counted == 1 and not plan.conditions and len(view.rows) > 1:
            raise NoAnswer(f"{plan.describe()}: the sum of one figure over the whole table is no total.")
        if plan.operation == "sum" and counted == 1 and (_SEVERAL.search(reading.text) or _ACROSS_SEVERAL.search(reading.text)):
            # ("across the four quarters, how many vans did Leeds sell in total": a figure of each, not one)
            raise NoAnswer(f"{plan.describe()}: a combined figure of one row is no total of several.")
        if plan.operation == "sum" and counted == 1:
            row = kept[0] if kept else None
            header = target.header or target.name.replace("_", " ")
            shown = _figure(view, target, value, reading, cell=True, row=row)
            named = _rows_said(plan, dated=False)
            sentence = f"{named + ': ' if named else ''}{header} {shown} ({title}{where if not named else ''})"
            return QueryAnswer(plan, result, shown, (shown,), sentence,
                               ((row, target.name),) if row is not None else (), {})
        shown = _figure(view, target, value, reading)
        header = target.header or target.name.replace("_", " ")
        what = {"sum": "in all", "average": "on average", "max": "at most", "min": "at least"}[plan.operation]
        sentence = f"{header}: {shown} {what}, over {counted:,} {'row' if counted == 1 else noun}{where} of {title}"
        cells = tuple((r, target.name) for r in kept)
        return QueryAnswer(plan, result, shown, (shown,), sentence, cells, {})
    if plan.operation == "difference":
        return _difference_answer(plan, result, kept, where, title, run_sql)
    if plan.operation == "change":
        return _change_answer(plan, result, kept, title, asked_decimals(reading))
    if plan.operation == "share" and plan.versus is not None:
        return _share_of_a_row_answer(plan, result, where, title, run_sql, asked_decimals(reading))
    if plan.operation == "share" and plan.columns:
        assert target is not None
        part, whole, _ = rows[0]
        if part is None or whole is None or part < 0 or whole <= 0 or part > whole:
            raise NoAnswer(f"{plan.describe()}: no part of a positive whole to compare.")
        shown = f"{format_number(part * 100.0 / whole, asked_decimals(reading))}%"
        added = " + ".join(c.header or c.name for c in plan.columns)
        sentence = (f"{shown}: {target.header or target.name} {format_number(part)} of {added} "
                    f"{format_number(whole)}{where} ({title})")
        cells = tuple((r, c.name) for r in kept for c in plan.columns)
        return QueryAnswer(plan, result, shown, (shown,), sentence, cells, {})
    if plan.operation == "share" and plan.whole is not None:
        assert target is not None
        first, second, _ = rows[0]
        if first is None or second is None or first <= 0 or second <= 0:
            raise NoAnswer(f"{plan.describe()}: no two positive figures to compare.")
        (part, part_column), (whole, whole_column) = sorted([(first, target), (second, plan.whole)],
                                                             key=lambda item: item[0])
        shown = f"{format_number(part * 100.0 / whole, asked_decimals(reading))}%"
        scale = view.column_scale(whole_column.name)
        sentence = (f"{shown}: {part_column.header or part_column.name} {amount(view, part, scale)} of "
                    f"{whole_column.header or whole_column.name} {amount(view, whole, scale)}{where} ({title})")
        cells = tuple((r, c.name) for r in kept for c in (part_column, whole_column))
        return QueryAnswer(plan, result, shown, (shown,), sentence, cells, {})
    if plan.operation == "share":
        share, part, whole = rows[0]
        if target is None:  # a share of the rows: "44.79% of the notices: 43 of 96 where Type Layoff"
            if share is None or not part:
                raise NoAnswer(f"{plan.describe()}: no row kept.")
            shown = f"{format_number(share, asked_decimals(reading))}%"
            sentence = f"{shown} of the {plan.noun}: {int(part):,} of {int(whole):,}{where} ({title})"
            cells = tuple((r, c.column.name) for r in kept for c in plan.conditions) + \
                tuple((r, c.name) for r in kept for t in plan.thresholds for c in t.columns())
            return QueryAnswer(plan, result, shown, (shown,), sentence, cells, {})
        if share is None:
            raise NoAnswer(f"{plan.describe()}: nothing to share.")
        printed = _printed_whole(view, target, whole)
        if printed is not None and printed != whole:
            share, whole = float(part) * 100.0 / printed, printed  # the grand total printed, not its sum to rounding
        if len({f.section for f in view.info.row_facts if f.section}) > 1 and printed is None:
            # rows under several headings ("Profit ($M)", "Basic earnings per share (cents)"): no one whole, unless
            # the table prints one ("Coastal", "Inland" over one grand total of sales)
            raise NoAnswer(f"{plan.describe()}: the table's rows stand under several headings, so its column has no "
                           f"one whole.")
        shown = f"{format_number(share, asked_decimals(reading))}%"
        header = target.header or target.name
        sentence = (f"{shown} of all {header}: {format_number(part)} of {format_number(whole)}{where} ({title})")
        return QueryAnswer(plan, result, shown, (shown,), sentence, tuple((r, target.name) for r in kept), {})
    items = [str(r[0]) for r in rows if r[0] not in (None, "")]
    if not items:
        raise NoAnswer(f"{plan.describe()}: no row matched.")
    group_name = plan.group.name if plan.group else ""
    if plan.operation == "list":
        more = f" and {len(items) - MAX_LISTED} more" if len(items) > MAX_LISTED else ""
        sentence = f"{_listing(items[:MAX_LISTED])}{more}{where} ({title})"
        # each row listed by its label, and by the figure a bound kept it for ("above 6%": its 6.1)
        compared = [group_name, *dict.fromkeys(c.name for t in plan.thresholds for c in t.columns())]
        return QueryAnswer(plan, result, "; ".join(items), tuple(items), sentence,
                           tuple((r, name) for r in kept for name in compared), {})
    # top
    if _tied(sql, plan, run_sql):
        raise NoAnswer(f"{plan.describe()}: the {plan.limit} ranked first and the next tie, so none is the one asked.")
    figures = [(str(r[0]), r[1]) for r in rows if r[0] not in (None, "")]
    if plan.change is None and not plan.per_row and figures and _one_label(plan, figures[0][0], kept, run_sql):
        raise NoAnswer(f"{plan.describe()}: every row kept bears one label, {figures[0][0][:60]!r}, so nothing is "
                       "ranked (its labels were read as one cell).")
    header = (target.header or target.name.replace("_", " ")) if target is not None else f"{noun}"
    scale = view.column_scale(target.name) if target is not None else ""
    word = "most" if plan.descending else "least"
    if plan.change is not None:
        older_column, newer_column = plan.change
        compared = run_sql(f"SELECT COUNT(*) FROM {view.from_sql}{_where(plan)}").rows[0][0]
        item, value, older_value, newer_value = rows[0]
        scale = view.column_scale(newer_column.name)
        span = f"from {older_column.header or older_column.name} to {newer_column.header or newer_column.name}"
        moved = "grew the most" if plan.descending else "grew the least"
        change = f"{'+' if value >= 0 else ''}{format_number(value, asked_decimals(reading))}%" if plan.percent else \
            ("+" if value >= 0 else "-") + amount(view, abs(value), scale)
        sentence = (f"{item} {moved} {span}: {change}, from {amount(view, older_value, scale)} to "
                    f"{amount(view, newer_value, scale)} (ranked by {'percent change' if plan.percent else 'amount'} over "
                    f"{compared} rows{where}; {title})")
        cells = tuple((r, c.name) for r in _group_rows(plan, str(item), run_sql) for c in plan.change)
        return QueryAnswer(plan, result, str(item), (str(item),), sentence, cells, {})
    periodic = target is not None and (any(p.column == target.name for p in view.info.periods)
                                       or bool(re.fullmatch(r"(?:FY\s?)?\d{4}(?:[/-]\d{2,4})?", header.strip())))
    measured = f"in {header}" if periodic else f"{header}"
    if plan.per_row:
        assert target is not None
        placed = [(str(r[0]), r[1], int(r[2])) for r in rows if r[0] not in (None, "")]
        shown = "; ".join(f"{item} ({amount(view, value, scale)})" for item, value, _ in placed)
        sentence = (f"{placed[0][0]}'s {noun} had the {word} {header}: {amount(view, placed[0][1], scale)}{where} ({title})"
                    if plan.limit == 1 else f"The {plan.limit} with the {word} {header}: {shown}{where} ({title})")
        names = tuple(item for item, _, _ in placed)
        return QueryAnswer(plan, result, "; ".join(names), names, sentence,
                           tuple((row, target.name) for _, _, row in placed), {})
    if plan.limit == 1:
        item, value = figures[0]
        sentence = (f"{item} had the {word}{'' if periodic else ' ' + header}: {amount(view, value, scale)}"
                    f"{' ' + measured if periodic else ''}{where} ({title})")
        return QueryAnswer(plan, result, item, (item,), sentence, _group_cells(plan, item, kept, run_sql), {})
    listed = "; ".join(f"{item} ({amount(view, value, scale)})" for item, value in figures)
    sentence = f"The {plan.limit} with the {word} {measured}: {listed}{where} ({title})"
    names = tuple(item for item, _ in figures)
    return QueryAnswer(plan, result, "; ".join(names), names, sentence,
                       tuple(c for item in names for c in _group_cells(plan, item, kept, run_sql)), {})


def _counts_rows_named(plan: QueryPlan, run_sql: RunSql) -> bool:
    """A count kept only by values of a column that names every row once (a budget's demands, a list of
    departments): it would count the names the question says, not the rows it asks about."""
    if not plan.conditions or plan.thresholds or plan.missing or any(c.under for c in plan.conditions):
        return False  # (the rows under a heading are kept by the heading, which counts them)
    columns = {c.column.name for c in plan.conditions}
    if len(columns) != 1:
        return False
    name = quote_identifier(next(iter(columns)))
    distinct, filled = run_sql(f"SELECT COUNT(DISTINCT {name}), COUNT({name}) FROM {plan.view.from_sql}").rows[0]
    return bool(filled) and distinct == filled


def _figure(view: TableView, column: ColumnSchema, value: Any, reading: QuestionReading, cell: bool = False,
            row: int | None = None) -> str:
    """A figure of ``column`` as the answer shows it: in the column's scale and the table's currency; but "how many
    staff" of a column with no unit of its own, in a table stated in a currency ("in crores of rupees"), is a count,
    which neither the currency nor the money's scale speaks for. ``cell``: one cell read as it is, with all its
    printed decimals; a computed figure is shown to two, or to three significant digits where it is below one (a
    mean correlation of 0.242, not 0.24). ``row``: the one row the figure is of, whose label or heading may state
    its unit ("Awareness of X (%)" over rows of a column with none)."""
    decimals = CELL_DECIMALS if cell else reading.decimals if reading.decimals is not None else _computed_decimals(value)
    if view.currency and not column.unit and re.search(r"\bhow\s+many\b", reading.text, re.IGNORECASE):
        return format_number(value, decimals)
    scale = view.cell_scale(row, column.name) if row is not None else view.column_scale(column.name)
    return amount(view, value, scale, decimals)


def asked_decimals(reading: QuestionReading) -> int:
    """The decimals a computed percentage is shown to: as many as the question asks ("one decimal"), else two."""
    return reading.decimals if reading.decimals is not None else 2


def _computed_decimals(value: Any) -> int:
    """Two decimals, or as many as three significant digits of a figure below one need (0.0312: four)."""
    if not is_number(value) or not 0 < abs(float(value)) < 1:
        return 2
    return max(2, 2 - math.floor(math.log10(abs(float(value)))))


def _difference_answer(plan: QueryPlan, result: SqlResult, kept: Sequence[int], where: str, title: str,
                       run_sql: RunSql) -> QueryAnswer:
    """The first figure less the second, both shown, every cell read cited."""
    view, target = plan.view, plan.target
    assert target is not None
    first, second, _ = result.rows[0]
    if first is None or second is None:
        raise NoAnswer(f"{plan.describe()}: one of the two figures is missing.")
    if plan.versus is not None:
        names = [", ".join(str(v) for v in c.values) + " " for c in plan.versus]
        columns = [target, target]
        cells = tuple((r, target.name) for side in plan.versus
                      for r in rows_kept(QueryPlan(view, "difference", target, (*plan.conditions, side)), run_sql))
    else:
        assert plan.whole is not None
        names = ["", ""]
        columns = [target, plan.whole]
        cells = tuple((r, c.name) for r in kept for c in columns)
    gap = first - second
    shown = amount(view, abs(gap), view.column_scale(target.name))
    # "how many fewer A than B" is answered by how many fewer: 36, where A is 36 below B (and -36 were A above it)
    value = shown if (gap >= 0) == plan.descending else f"-{shown}"
    sides = [f"{n}{c.header or c.name} {amount(view, v, view.column_scale(c.name))}"
             for n, c, v in zip(names, columns, (first, second), strict=True)]
    word = "more" if gap >= 0 else "fewer"
    sentence = f"{shown} {word}: {sides[0]} less {sides[1]}{where} ({title})"
    return QueryAnswer(plan, result, value, (value,), sentence, cells, {})


def _share_of_a_row_answer(plan: QueryPlan, result: SqlResult, where: str, title: str, run_sql: RunSql,
                           decimals: int = 2) -> QueryAnswer:
    """One row's figure as a percentage of another's: "25.38%: Business rates 3,420 of Total income
    13,475 in 2026", both cells cited; where either figure is not positive, there is no share."""
    view, target, versus = plan.view, plan.target, plan.versus
    assert target is not None and versus is not None
    first, second, _ = result.rows[0]
    if first is None or second is None or first <= 0 or second <= 0:
        raise NoAnswer(f"{plan.describe()}: no two positive figures to compare.")
    rows = [rows_kept(QueryPlan(view, "share", target, (*plan.conditions, side)), run_sql) for side in versus]
    if any(len(side_rows) != 1 for side_rows in rows):
        raise NoAnswer(f"{plan.describe()}: each side names several rows, not one figure.")
    named = [", ".join(str(v) for v in side.values) for side in versus]
    # which row is the whole, the figures say (the part is the smaller), as for a share of two columns
    (part, part_name, part_rows), (whole, whole_name, whole_rows) = sorted(
        [(first, named[0], rows[0]), (second, named[1], rows[1])], key=lambda side: side[0])
    shown = f"{format_number(part * 100.0 / whole, decimals)}%"
    sentence = (f"{shown}: {part_name} {format_number(part)} of {whole_name} {format_number(whole)} in "
                f"{target.header or target.name}{where} ({title})")
    cells = ((part_rows[0], target.name), (whole_rows[0], target.name))
    return QueryAnswer(plan, result, shown, (shown,), sentence, cells, {})


def _across_answer(plan: QueryPlan, result: SqlResult, value: Any, kept: Sequence[int], reading: QuestionReading,
                   title: str) -> QueryAnswer:
    """The figures of the row kept added (or averaged) across the columns named: "8,249: Butter 6,028 + Margarine
    1,385 + ..."."""
    view = plan.view
    if len(kept) != 1:
        raise NoAnswer(f"{plan.describe()}: the columns are added for one row, and {len(kept)} were kept.")
    (row,) = kept
    position = {c.name: view.column_position(c.name) for c in plan.columns}
    parts = [f"{c.header or c.name} {_figure(view, c, view.values[row][position[c.name]], reading)}"
             for c in plan.columns]
    shown = _figure(view, plan.columns[0], value, reading)
    named = _rows_said(plan)
    if plan.operation == "average":
        sentence = f"{shown} on average: ({' + '.join(parts)}) / {len(parts)} ({named}; {title})"
    else:
        sentence = f"{shown} in all: {' + '.join(parts)} ({named}; {title})"
    return QueryAnswer(plan, result, shown, (shown,), sentence, tuple((row, c.name) for c in plan.columns), {})


def _change_answer(plan: QueryPlan, result: SqlResult, kept: Sequence[int], title: str, decimals: int = 2) -> QueryAnswer:
    """A row's change between two period columns: "Polytechnics: up 1,556 from 20,527 (2000) to 22,083 (2004)"."""
    view, first_column, second_column = plan.view, plan.target, plan.whole
    assert first_column is not None and second_column is not None
    first, second, _ = result.rows[0]
    if first is None or second is None or len(kept) != 1:
        raise NoAnswer(f"{plan.describe()}: the row's two figures are not both printed.")
    older, newer = (first, second) if not plan.descending else (second, first)
    older_column, newer_column = (first_column, second_column) if not plan.descending else (second_column, first_column)
    scale = view.column_scale(first_column.name)
    if plan.percent:
        if not older:
            raise NoAnswer(f"{plan.describe()}: no change in percent of zero.")
        change = (newer - older) * 100.0 / abs(older)
        shown = f"{format_number(change, decimals)}%"
    else:
        gap = first - second
        if is_percent(view, first_column):  # a change of a percentage is in points, not a percent of anything
            shown = f"{format_number(gap)} percentage points"
        else:
            shown = amount(view, abs(gap), scale) if gap >= 0 else f"-{amount(view, abs(gap), scale)}"
    direction = "fell" if newer < older else "rose" if newer > older else "was unchanged"
    named = _rows_said(plan)
    sentence = (f"{named}: {shown} ({direction} from {amount(view, older, scale)} in "
                f"{older_column.header or older_column.name} to {amount(view, newer, scale)} in "
                f"{newer_column.header or newer_column.name}; {title})")
    cells = tuple((r, c.name) for r in kept for c in (older_column, newer_column))
    return QueryAnswer(plan, result, shown, (shown,), sentence, cells, {})


def _one_label(plan: QueryPlan, item: str, kept: Sequence[int], run_sql: RunSql) -> bool:
    """The rows ranked by their labels all bear the one label ranked first: the rows are not told apart (an
    extraction that read every row's label into one cell), so the "largest" group is all of them."""
    label = plan.view.label_column
    return plan.group is not None and label is not None and plan.group.name == label.name and len(kept) > 1 and \
        len(_group_rows(plan, item, run_sql, kept)) >= len(kept)


def _group_rows(plan: QueryPlan, item: str, run_sql: RunSql, kept: Sequence[int] = ()) -> list[int]:
    """The ``_row`` of the rows of one group (what its figure adds up), among ``kept`` when given."""
    if plan.group is None:
        return []
    raws = [raw for raw, label in plan.group_of.items() if label == item] if plan.group_of else [item]
    if not raws:
        return []
    result = run_sql(f"SELECT _row FROM {plan.view.from_sql} WHERE {quote_identifier(plan.group.name)} "
                     f"IN ({', '.join(_literal(v) for v in raws)}) ORDER BY _row LIMIT {MAX_CITED_ROWS}")
    return [int(r[0]) for r in result.rows if not kept or int(r[0]) in set(kept)]


def _group_cells(plan: QueryPlan, item: str, kept: Sequence[int], run_sql: RunSql) -> tuple[tuple[int, str], ...]:
    """The cells of the rows of one group (what its figure adds up)."""
    column = plan.target.name if plan.target is not None else plan.group.name if plan.group else ""
    return tuple((r, column) for r in _group_rows(plan, item, run_sql, kept))


def _rows_said(plan: QueryPlan, dated: bool = True) -> str:
    """The values the plan's conditions keep, as an answer names its rows ("Daily (under Aged 40 to 64 > Walkers)");
    the conditions on dates left out unless ``dated``."""
    return ", ".join(f"{v} (under {c.within})" if c.within else str(v)
                     for c in plan.conditions if dated or not c.dated for v in c.values)


def where_words(plan: QueryPlan) -> str:
    """What the plan's conditions keep, in words (" where Company Kestrel Foods Inc."); "" where it keeps every row."""
    if not plan.conditions and not plan.thresholds and not plan.missing:
        return ""
    parts = [f"{t.column.header or t.column.name.replace('_', ' ')} {t.said}" for t in plan.thresholds]
    parts += [f"{'some' if m.present else 'no'} {m.column.header or m.column.name.replace('_', ' ')}"
              for m in plan.missing]
    headings = {c.said.strip(" :").casefold() for c in plan.conditions if c.under}
    for condition in plan.conditions:
        header = condition.column.header or condition.column.name.replace("_", " ")
        if condition.column.name in (SECTION_COLUMN, PARENT_COLUMN) and \
                {str(v).strip(" :").casefold() for v in condition.values} <= headings:
            continue  # the heading the rows are under, said once ("the rows under Americas")
        if condition.dated:
            parts.append(f"{header} in {condition.said}")
            continue
        if condition.under:
            parts.append(f"the rows under {condition.said}")
            continue
        if condition.totalled:
            parts.append(f"{header} {condition.said}")
            continue
        values = [str(v) for v in condition.values]
        shown = _listing(values[:3]) + (f" and {len(values) - 3} more" if len(values) > 3 else "")
        parts.append(f"{header} {shown}" + (f" under {condition.within}" if condition.within else ""))
    return " where " + " and ".join(parts)


def _listing(parts: Sequence[str]) -> str:
    parts = list(parts)
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
