"""A question over a table's rows answered by a query plan (``table_query``) as one step of the answering loop:
the plan for each likely table in turn, its statement run read-only, the rows it kept cited, and its result in
words. No model call: code reads the question's reading and the table's real values."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from core.answering import citations as cite
from core.answering import table_query
from core.answering.across import across, measures_across
from core.answering.answer_types import COLUMN_HEADERS, ROW_LABELS
from core.answering.compose import misses_the_heading
from core.answering.operations import TableView
from core.answering.reading import QuestionReading
from core.errors import UserError
from core.library.db import quote_identifier
from core.library.store import Library
from core.reports.table_naming import table_label, tables_said
from core.reports.values import find_periods
from core.sql.runner import SqlResult
from models.types import Citation, ColumnSchema, Step


def distinct_values(run_sql: Callable[[str], SqlResult], view: TableView) -> Callable[[ColumnSchema], list[Any]]:
    """A reader of a column's distinct values (read once a column, at most ``table_query.MAX_DISTINCT + 1``)."""
    seen: dict[str, list[Any]] = {}

    def read(column: ColumnSchema) -> list[Any]:
        if column.name not in seen:
            result = run_sql(f"SELECT DISTINCT {quote_identifier(column.name)} FROM {view.from_sql} "
                             f"LIMIT {table_query.MAX_DISTINCT + 1}")
            seen[column.name] = [r[0] for r in result.rows]
        return seen[column.name]
    return read


def _of_the_year_asked(views: Sequence[TableView], reading: QuestionReading) -> list[TableView]:
    """The likeliest tables, those whose title names another year than the one asked (and not it) after the
    rest: "own brand shares in 1996" is read from the 1996 table before the 1993 one of the same layout."""
    years = {str(p.year) for p in reading.periods}
    if not years:
        return list(views)

    def other_year(view: TableView) -> bool:
        said = set(table_query.YEAR_PRINTED.findall(f"{view.info.caption} {view.info.heading}"))
        return bool(said) and not (said & years)
    return sorted(views, key=other_year)  # stable: the likeliest first within each




def _numbered_as_said(views: Sequence[TableView], reading: QuestionReading) -> list[TableView]:
    """The tables the question names by number ("in Table 4"), where any of them is among ``views``; else those that
    number themselves otherwise are left out (Table 1 does not answer for Table 2)."""
    said = tables_said(reading.text)
    if not said:
        return list(views)
    named = [view for view in views if table_label(view.info.caption) in said]
    return named or [view for view in views if not table_label(view.info.caption)]


def answer_by_query(reading: QuestionReading, views: Sequence[TableView], library: Library,
                    run_sql: Callable[[str], SqlResult], names: cite.SourceNames, chunk_ids: Sequence[int],
                    failures: list[str]) -> tuple[Step, Citation, table_query.QueryAnswer] | None:
    """The table whose query plan gives an answer, of the likeliest tables: where several do, the one whose own
    words (title, headers read, values kept) name most of the question's ("students never discriminated against"
    over a table of discrimination, not one of feelings that also has a Never column), the likelier first among
    equals. Returns the step, the citation of the rows it read and the answer; None when no table answers (each
    plan that ran and failed is noted in ``failures``). A table whose items are its columns (countries across,
    quarters down; fitted models across, their measures down) is read turned (``across``, ``measures_across``) only
    where no table answers as printed."""
    likeliest = _of_the_year_asked(_numbered_as_said(views, reading), reading)
    for turned in (False, True):  # the tables as printed first; turned only where none of them answers
        candidates = [t for view in likeliest if (t := across(view) or measures_across(view, reading.text)) is not None] \
            if turned else likeliest
        answers = [a for view in candidates if (a := _answer_from(view, reading, run_sql, names, failures)) is not None]
        if answers:
            _, best = max(enumerate(answers), key=lambda pair: (table_query.words_named(pair[1].plan, reading), -pair[0]))
            step, citation = step_of(reading, best, library, names, chunk_ids)
            return step, citation, best
    return None


def _answer_from(view: TableView, reading: QuestionReading, run_sql: Callable[[str], SqlResult],
                 names: cite.SourceNames, failures: list[str]) -> table_query.QueryAnswer | None:
    """The answer of the query plan the reading asks of one table, or None (why noted in ``failures``)."""
    if reading.kind == ROW_LABELS and \
            misses_the_heading(view, reading.text, [heading for heading, _ in table_query.sections(view)]):
        return None  # "the items under deferred tax liabilities": not a table without that heading
    try:
        planned = table_query.plan(view, reading, distinct_values(run_sql, view))
        if planned is None or _lists_rows_for_periods(planned, reading):
            return None
        left = table_query.unbound(planned, reading, names.document(view.info.document_id))
        if left:
            failures.append(f"Query over {names.table(view.info)}: it reads nothing the words "
                            f"{', '.join(map(repr, left))} name")
            return None
        return in_the_unit_asked(table_query.execute(planned, reading, run_sql), reading)
    except (table_query.NoAnswer, UserError, ValueError) as exc:
        failures.append(f"Query over {names.table(view.info)}: {exc}")
        return None


_PERCENT_COLUMN = re.compile(r"%|\bper\s?cent(?:age)?s?\b|\bshare\b|\bproportions?\b|\brates?\b", re.IGNORECASE)


def in_the_unit_asked(answered: table_query.QueryAnswer, reading: QuestionReading) -> table_query.QueryAnswer:
    """A plan's answer in the unit the question asks, else ``NoAnswer``: "what percentage of the shares were
    forfeited" or "what share of the ministry's budget goes to X" is not answered by an amount or a count."""
    plan = answered.plan
    amount = plan.operation in ("value", "sum", "average", "max", "min")  # a count or a ranking answers otherwise
    # a column of percentages printed without "%" ("Market share", "Rate"), not one of shares held ("Shares")
    of_percents = plan.target is not None and (plan.view.column_scale(plan.target.name) == "%" or
                                               bool(_PERCENT_COLUMN.search(plan.target.header)))
    if (reading.percent or amount and table_query.percent_asked(reading)) and not reading.several and \
            "%" not in answered.value and not of_percents:
        raise table_query.NoAnswer(f"{answered.value} is no percentage, and a percentage is asked")
    return answered


def _lists_rows_for_periods(planned: table_query.QueryPlan, reading: QuestionReading) -> bool:
    """"Which years does the table show": a plan listing the table's row labels answers another question, where
    those are items, not periods (a table of repurchases by month lists periods)."""
    view, label = planned.view, planned.view.label_column
    by_label = planned.group is None or label is not None and planned.group.name == label.name
    dated = sum(1 for r in view.rows if find_periods(r.label)) * 2 >= len(view.rows) > 0
    return reading.kind == COLUMN_HEADERS and planned.operation in ("list", "top") and not planned.group_of \
        and by_label and not dated


def step_of(reading: QuestionReading, answered: table_query.QueryAnswer, library: Library, names: cite.SourceNames,
            chunk_ids: Sequence[int]) -> tuple[Step, Citation]:
    """The loop's step for a query plan's answer, and the citation of every cell it read."""
    view, result = answered.plan.view, answered.result
    cells = cite.cells_for(library, view.stored_info, view.stored_cells(answered.cells))
    cell_names = {stored: answered.cell_names[cell] for cell, stored in zip(
        answered.cell_names, view.stored_cells(list(answered.cell_names)), strict=True)}
    citation = cite.sql_citation(view.stored_info, result.sql, result.columns, result.rows, cells, names, cell_names)
    step = Step(subquery=f"{reading.text} [{answered.plan.describe()}]", chunk_ids=tuple(chunk_ids), sql=result.sql,
                sql_columns=result.columns, sql_result=result.rows, intermediate_answer=answered.sentence)
    return step, citation
