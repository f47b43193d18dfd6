"""A computed measure, end to end: plan, connected tables, bound cells, one SQL statement, the words.

The answering loop hands over a plan its reading's measure compiles to (``metrics.plans_of``: "the FY2020
working capital ratio", "the 3 year average net profit margin"). This module gathers the connected tables
(the statements of the documents the question's search reached, plus the tables search finds for each
quantity), binds each quantity to a cell (``binding``), compiles the formula over those cells into one
read-only statement run by the SQL runner (``formula``), and says what was computed, from which cells,
in which unit: "Working capital ratio, FY2020 = 7,806.1 / 11,322.3 = 0.69; 7,806.1: Total current
assets, May 31, 2020 (Consolidated Balance Sheets) ...". Every figure in the sentence is a cell or the
SQL result; the model only picks between close candidate rows when the words cannot.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import zip_longest

from core.answering import formula
from core.answering.binding import Chooser, bind, covers, fit, stems
from core.answering.metrics import Plan
from core.answering.operations import TableView, amount, count, format_number, in_scale, is_number
from core.answering.vocabulary import STATEMENTS, is_statement, report_words
from core.library.store import Library
from core.sql.runner import SqlResult, SqlRunner
from models.types import Chunk

MAX_DOCUMENTS = 2
TABLES_PER_QUANTITY = 6
EXTRA_TABLES = 6
"""Tables per quantity from documents beyond the two the question's passages came from."""


@dataclass(frozen=True)
class Computation:
    """A measure computed over bound cells: the plan, the cells, the SQL and its result, in words."""

    plan: Plan
    cells: dict[str, formula.BoundCell]
    sql: str
    result: SqlResult
    value: float
    shown: str
    """The result as the answer states it ("0.69", "10.3%", "$3,215.4 million")."""
    sentence: str
    views: dict[int, TableView]
    """Table id -> view, for the tables the cells are in."""
    read: str = ""
    """What was read, table by table: "Balance Sheets: Total current assets (2020), ...; Statements of ..."."""


def connected_views(wanted: Sequence[str], retrieved: Sequence[Chunk], library: Library,
                    search: Callable[[str, Sequence[int]], Sequence[Chunk]],
                    load_view: Callable[[int], TableView | None]) -> list[TableView]:
    """The tables a computation may read: the statements of the documents search reached first, and the
    tables search finds for each of the ``wanted`` quantities' words in those documents."""
    documents = list(dict.fromkeys(c.document_id for c in retrieved))[:MAX_DOCUMENTS]
    table_ids: list[int] = []
    for document_id in documents:
        for info in library.tables(document_id):
            if any(is_statement(kind, info.title) for kind in STATEMENTS):
                table_ids.append(info.id)
    for words in dict.fromkeys(wanted):
        table_ids.extend(_tables_found(words, lambda query: search(query, documents))[:TABLES_PER_QUANTITY])
    views = [load_view(table_id) for table_id in dict.fromkeys(table_ids)]
    return [v for v in views if v is not None]


def tables_beyond(wanted: Sequence[str], known: Sequence[TableView], search: Callable[[str], Sequence[Chunk]],
                  load_view: Callable[[int], TableView | None]) -> list[TableView]:
    """The tables search finds for each of the ``wanted`` quantities' words beyond the documents the question's
    passages came from (``search`` looks wherever the question may be answered from), not already ``known``:
    tried when no row of the connected tables names a quantity, since the passages ranked first may come from a
    document that only mentions the line another document's table prints."""
    seen = {view.info.id for view in known}
    table_ids = [t for words in dict.fromkeys(wanted) for t in _tables_found(words, search)[:EXTRA_TABLES]]
    views = [load_view(table_id) for table_id in dict.fromkeys(table_ids) if table_id not in seen]
    return [v for v in views if v is not None]


def _tables_found(words: str, search: Callable[[str], Sequence[Chunk]]) -> list[int]:
    """The tables, best first, that search finds for a quantity's words, and for them with the words reports print
    for them, taken in turn (the report words find "Net sales" for revenue, but may drown a rare word asked)."""
    queries = dict.fromkeys([words.strip(), f"{words} {report_words(words)}".strip()])
    found = [[c.table_id for c in search(query) if c.kind == "table" and c.table_id is not None] for query in queries]
    merged = [table for row in zip_longest(*found) for table in row if table is not None]
    return list(dict.fromkeys(merged))


PRINTED_FIT = 0.75
"""A row fitting a measure's name this well prints the measure itself ("Free cash flow", "Gross margin")."""


def printed_measure(plan: Plan, views: Sequence[TableView]) -> bool:
    """Whether a report prints the measure a plan would compute as a line of its own (a company's "Adjusted
    EBITDA", "Free cash flow", "Gross margin (%)"): its own figure, defined its own way, is the one to give."""
    for name in plan.printed:
        words = name.lower().split()
        head = stems(words[-1]) if words else set()  # "margin", "ratio", "flow": the label must name the measure
        if any(covers(name, row.label) and fit(name, row.label) >= PRINTED_FIT and head <= stems(row.label)
               and any(is_number(v) for v in view.values.get(row.row, ())) for view in views for row in view.rows):
            return True
    return False


def prints_the_measure(lookup: Plan, done: Computation) -> bool:
    """Whether the line a printed measure's lookup (``metrics.printed_plan``) bound prints that measure itself,
    as ``printed_measure`` judges a label, and in its unit: not "Net UTB that would impact the effective tax rate",
    nor an income statement's "Gross margin" amount for a margin asked in %."""
    percent = any(p.percent for p in lookup.alternatives)
    return all(fit(lookup.subject, c.label) >= PRINTED_FIT and not (percent and c.scale != "%")
               for c in done.cells.values())


def compute(plan: Plan, views: Sequence[TableView], question: str, runner: SqlRunner,
            choose: Chooser | None = None, exclude: frozenset[tuple[int, int]] = frozenset()) -> Computation:
    """Bind, compile, run and word a plan; raises LookupError (no row for a quantity) or FormulaError."""
    return evaluate(plan, bind(plan, views, question, choose, exclude), views, question, runner)


def evaluate(plan: Plan, cells: dict[str, formula.BoundCell], views: Sequence[TableView], question: str,
             runner: SqlRunner) -> Computation:
    """Compile, run and word a formula over bound cells (from ``bind``, or chosen by the model); raises
    FormulaError (outside the grammar, a name not bound, no number) or UserError (the SQL runner's)."""
    unprinted = [q for q in plan.quantities if q.optional and q.name not in cells]
    text = formula.without(plan.formula, [q.name for q in unprinted]) if unprinted else plan.formula
    tree = formula.parse(text, list(cells))
    named = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    cells = {name: cell for name, cell in cells.items() if name in named}  # a value chosen but not used is not cited
    sql = formula.to_sql(tree, cells)
    result = runner.run(sql)
    value = formula.result_of(result.rows)
    by_id = {v.info.id: v for v in views}
    used = {c.table_id: by_id[c.table_id] for c in cells.values()}
    shown, restated = _shown(plan, tree, cells, used, value, question)
    figures = {name: _figure(cell) for name, cell in cells.items()}
    computed = formula.filled(tree, {name: figure.split(" (printed")[0] for name, figure in figures.items()})
    measure = _as_asked(plan.measure, question) if plan.measure else "The result"
    sources = "; ".join(f"{figures[name]}: {cell.label}, {cell.period}"
                        + (" (an amount printed in brackets, read without its sign)" if cell.absolute else "")
                        + f" ({_title(used[cell.table_id])})"
                        for name, cell in cells.items())
    if isinstance(tree, ast.Name):  # a lookup: one cell, said as the page prints it
        (cell,) = cells.values()
        paid = " (an amount printed in brackets, read without its sign)" if cell.absolute else ""
        read = f"{_title(used[cell.table_id])}: {cell.label} ({cell.period})"
        return Computation(plan, cells, sql, result, value, shown,
                           f"{cell.label}, {cell.period}: {shown}{restated}{paid} ({_title(used[cell.table_id])})",
                           used, read)
    sentence = f"{measure} = {computed.replace('avg(', 'average(')} = {shown}{restated}"
    if unprinted:
        sentence += f" (no {', '.join(dict.fromkeys(q.words for q in unprinted))} printed)"
    by_table: dict[int, list[str]] = {}
    for cell in cells.values():
        by_table.setdefault(cell.table_id, []).append(f"{cell.label} ({cell.period})")
    read = "; ".join(f"{_title(used[table_id])}: {', '.join(dict.fromkeys(parts))}" for table_id, parts in by_table.items())
    return Computation(plan, cells, sql, result, value, shown, f"{sentence}. From {sources}", used, read)


def _as_asked(name: str, question: str) -> str:
    """A measure's name spelled as the question spells it ("FCF", "EBITDA margin"), its first letter a capital."""
    said = re.search(rf"(?<!\w){re.escape(name)}(?!\w)", question, re.IGNORECASE)
    spelled = said.group(0) if said else name
    return spelled[0].upper() + spelled[1:]


def _figure(cell: formula.BoundCell) -> str:
    """A value as the computation uses it; one restated from another scale also as the page prints it."""
    text = format_number(cell.value)
    if cell.scale == "%":
        return f"{text}%"
    return f"{text} (printed {format_number(cell.value / cell.factor)})" if cell.factor != 1.0 else text


def _title(view: TableView) -> str:
    info = view.info
    return " ".join((info.caption or info.heading or info.name).split())


def _shown(plan: Plan, tree: ast.expr, cells: dict[str, formula.BoundCell], views: dict[int, TableView],
           value: float, question: str) -> tuple[str, str]:
    """The result with its unit: a percent, an amount in the cells' scale and currency, or a bare ratio;
    and the amount restated in the scale the question asks for ("" when none)."""
    if plan.percent:
        return (f"{_rounded(value, plan.decimals)}%" if plan.decimals is not None else f"{format_number(value)}%"), ""
    if dimension(tree) == 1 and plan.counted and isinstance(tree, ast.Name):
        (cell,) = cells.values()  # "how many stores were sold": 42, not "$42 thousand"
        return count(views[cell.table_id], value, cell.scale), ""
    if dimension(tree) == 1:
        scales = {c.scale for c in cells.values()}
        scale = scales.pop() if len(scales) == 1 else ""
        view = next(iter(views.values()))
        return amount(view, value, scale) if plan.decimals is None else _rounded(value, plan.decimals), \
            in_scale(view, value, scale, plan.scale)
    return _rounded(value, plan.decimals if plan.decimals is not None else 2), ""


def _rounded(value: float, decimals: int) -> str:
    text = f"{value:,.{decimals}f}" if decimals > 0 else f"{round(value):,}"
    return text if decimals > 0 else text.split(".")[0]


def dimension(tree: ast.expr) -> int | None:
    """The power of money a formula's result carries: 1 for an amount (a difference, an average of
    amounts), 0 for a ratio or a count of days, None when the parts do not agree (amount + ratio)."""
    if isinstance(tree, ast.Constant):
        return 0
    if isinstance(tree, ast.Name):
        return 1
    if isinstance(tree, ast.UnaryOp):
        return dimension(tree.operand)
    if isinstance(tree, ast.BinOp):
        left, right = dimension(tree.left), dimension(tree.right)
        if left is None or right is None:
            return None
        if isinstance(tree.op, (ast.Add, ast.Sub)):
            return left if left == right else None
        return left + right if isinstance(tree.op, ast.Mult) else left - right
    if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name):
        if tree.func.id in ("growth", "cagr"):
            return 0
        if tree.func.id == "round":
            return dimension(tree.args[0])
        parts = {dimension(a) for a in tree.args}
        return parts.pop() if len(parts) == 1 else None
    return None
