"""Formulas over named report values, compiled to one read-only SQL statement (CRAFTQA's custom operations).

A formula is an arithmetic expression over names, each name bound to ONE stored cell ("cfo / cl",
"365 * avg(ap_2019, ap_2020) / (cogs_2020 + inv_2020 - inv_2019)"). The grammar is small: numbers,
names, ``+ - * /``, parentheses, unary minus and the functions ``avg sum min max abs round growth cagr``.
It is parsed with Python's own parser (``ast``, eval mode) and walked with a whitelist: nothing is ever
evaluated in Python. Each node becomes SQL and each name a scalar sub-query reading its cell, so the
computation runs in the SQL runner's sandbox (read-only, time-limited, data tables only) and the
evidence is the statement plus the cells it read. The same tree, with the figures put in place of the
names, shows the computation to the user ("(5,207 + 2,763) / 2 = 3,985").
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.library.db import quote_identifier

FUNCTIONS: dict[str, str] = {
    "avg": "the mean of its arguments",
    "sum": "the sum of its arguments",
    "min": "the smallest argument",
    "max": "the largest argument",
    "abs": "the absolute value",
    "round": "round(x, digits)",
    "growth": "growth(new, old): percent change from old to new",
    "cagr": "cagr(end, start, years): compound annual growth rate in percent",
}
MAX_NODES = 80
VALUE_NAMES = ("a", "b", "c", "d", "e", "f")
"""The names a model gives the values it chooses."""
_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


class FormulaError(ValueError):
    """A formula outside the grammar, naming a value not bound, or that cannot be computed."""


@dataclass(frozen=True)
class BoundCell:
    """A value a formula names: one stored cell, with what a person reads about it."""

    name: str
    table: str
    table_id: int
    row: int
    column: str
    value: float
    label: str
    """The row label as the page prints it ("Total current liabilities")."""
    period: str
    """The column as the page heads it ("2020", "May 31, 2019")."""
    scale: str = ""
    """The scale of the figure ("million", "%", "")."""
    absolute: bool = False
    """Read without its sign: an outflow a cash-flow statement prints in brackets, named as an amount paid."""
    factor: float = 1.0
    """Restates the cell in the computation's scale (0.001 for thousands read beside millions)."""
    parts: tuple[int, ...] = ()
    """The rows added up where the line is printed as its parts: a heading with no figure of its own over the
    lines that make it up ("Inventories, net" over "Raw materials" and "Finished goods"); () for one cell."""
    nil: bool = False
    """The cell prints a dash ("—"), a nil amount: read as zero (the stored cell holds no figure)."""

    @property
    def rows(self) -> tuple[int, ...]:
        """The rows whose cells the value is read from."""
        return self.parts or (self.row,)

    def sql(self) -> str:
        read = rows_sum(self.table, self.column, self.parts) if self.parts else \
            f"(SELECT {quote_identifier(self.column)} FROM {quote_identifier(self.table)} WHERE _row = {self.row})"
        read = f"abs({read})" if self.absolute else read
        read = f"coalesce({read}, 0)" if self.nil else read
        return f"({read} * {self.factor!r})" if self.factor != 1.0 else read


def parse(text: str, names: Sequence[str] | None = None) -> ast.expr:
    """The formula's tree, checked against the grammar (and, given ``names``, against the bound names)."""
    source = " ".join(text.replace("\u2212", "-").replace("\u00d7", "*").replace("\u00f7", "/").split())
    if not source:
        raise FormulaError("The formula is empty.")
    try:
        tree = ast.parse(source, mode="eval").body
    except SyntaxError as exc:
        raise FormulaError(f"The formula {source!r} is not arithmetic: {exc.msg}.") from None
    count = 0
    for node in ast.walk(tree):
        count += 1
        _check(node, names)
    if count > MAX_NODES:
        raise FormulaError("The formula is too long.")
    return tree


def without(text: str, names: Sequence[str]) -> str:
    """The formula with terms of a sum left out: the lines a definition adds only where a report prints them
    ("short-term borrowings" in total debt). A name left out anywhere but in a sum is an error."""
    gone = set(names)

    class _Drop(ast.NodeTransformer):
        def visit_BinOp(self, node: ast.BinOp) -> ast.expr:
            node = self.generic_visit(node)  # type: ignore[assignment]
            if isinstance(node.op, (ast.Add, ast.Sub)):
                if isinstance(node.right, ast.Name) and node.right.id in gone:
                    return node.left
                if isinstance(node.op, ast.Add) and isinstance(node.left, ast.Name) and node.left.id in gone:
                    return node.right
            return node

    tree = _Drop().visit(parse(text))
    if any(isinstance(node, ast.Name) and node.id in gone for node in ast.walk(tree)):
        raise FormulaError(f"The formula {text!r} needs {', '.join(sorted(gone))}.")
    return ast.unparse(tree)


def _check(node: ast.AST, names: Sequence[str] | None) -> None:
    if isinstance(node, ast.BinOp):
        if type(node.op) not in _OPERATORS:
            raise FormulaError("Only + - * / are allowed between values.")
    elif isinstance(node, ast.UnaryOp):
        if not isinstance(node.op, (ast.USub, ast.UAdd)):
            raise FormulaError("Only a minus sign may stand before a value.")
    elif isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
            raise FormulaError(f"Allowed functions: {', '.join(FUNCTIONS)}.")
        if not node.args:
            raise FormulaError(f"{node.func.id}() needs arguments.")
        if node.func.id == "growth" and len(node.args) != 2:
            raise FormulaError("growth(new, old) takes two values.")
        if node.func.id == "cagr" and len(node.args) != 3:
            raise FormulaError("cagr(end, start, years) takes three values.")
        if node.func.id == "abs" and len(node.args) != 1:
            raise FormulaError("abs() takes one value.")
        if node.func.id == "round" and len(node.args) not in (1, 2):
            raise FormulaError("round(x, digits) takes one or two values.")
    elif isinstance(node, ast.Name):
        if node.id in FUNCTIONS:
            return  # a call's function name, checked with its call
        if names is not None and node.id not in names:
            raise FormulaError(f"The formula names {node.id!r}, which is not one of the values: {', '.join(names)}.")
    elif isinstance(node, ast.Constant):
        if not isinstance(node.value, (int, float)) or isinstance(node.value, bool):
            raise FormulaError("Only numbers and value names may appear in a formula.")
    elif not isinstance(node, (ast.Load, ast.operator, ast.unaryop)):
        raise FormulaError(f"{type(node).__name__} is not allowed in a formula.")


def names_in(tree: ast.expr) -> list[str]:
    """The value names a formula uses, in order of first use (function names excluded)."""
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    found = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in called),
                   key=lambda n: n.col_offset)
    return list(dict.fromkeys(n.id for n in found))


def to_sql(tree: ast.expr, cells: Mapping[str, BoundCell]) -> str:
    """One SELECT computing the formula over its cells' sub-queries. Division by zero gives NULL."""
    return f"SELECT {_sql(tree, cells)} AS result"


def _sql(node: ast.expr, cells: Mapping[str, BoundCell]) -> str:
    if isinstance(node, ast.Constant):
        return repr(float(node.value)) if isinstance(node.value, float) else str(node.value)
    if isinstance(node, ast.Name):
        if node.id not in cells:
            raise FormulaError(f"{node.id!r} is not bound to a cell.")
        return cells[node.id].sql()
    if isinstance(node, ast.UnaryOp):
        return f"(-{_sql(node.operand, cells)})" if isinstance(node.op, ast.USub) else _sql(node.operand, cells)
    if isinstance(node, ast.BinOp):
        column_sum = _column_sum(node, cells)
        if column_sum:
            return column_sum
        left, right = _sql(node.left, cells), _sql(node.right, cells)
        if isinstance(node.op, ast.Div):
            return f"({left} * 1.0 / NULLIF({right}, 0))"
        return f"({left} {_OPERATORS[type(node.op)]} {right})"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        args = [_sql(a, cells) for a in node.args]
        name = node.func.id
        if name == "avg":
            return f"(({' + '.join(args)}) * 1.0 / {len(args)})"
        if name == "sum":
            return f"({' + '.join(args)})"
        if name in ("min", "max"):
            return f"{name}({', '.join(args)})" if len(args) > 1 else args[0]
        if name == "abs":
            return f"abs({args[0]})"
        if name == "round":
            return f"round({', '.join(args)})"
        if name == "growth":
            return f"(({args[0]} - {args[1]}) * 100.0 / NULLIF({args[1]}, 0))"
        if name == "cagr":
            return f"((pow({args[0]} * 1.0 / NULLIF({args[1]}, 0), 1.0 / NULLIF({args[2]}, 0)) - 1) * 100.0)"
    raise FormulaError(f"{ast.dump(node)[:60]} is not allowed in a formula.")


def _added(node: ast.expr) -> list[ast.expr]:
    """The terms of a chain of additions (``a + b + c``), else the node alone."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _added(node.left) + _added(node.right)
    return [node]


def _column_sum(node: ast.BinOp, cells: Mapping[str, BoundCell]) -> str:
    """Lines of one column of one table added up, as one SUM over their rows that a person reads at a glance;
    NULL unless every row holds a figure (a missing line is no zero). Empty where the terms are anything else."""
    terms = _added(node)
    bound = [cells.get(t.id) if isinstance(t, ast.Name) else None for t in terms]
    if len(terms) < 2 or any(c is None or c.absolute or c.factor != 1.0 for c in bound):
        return ""
    first = bound[0]
    assert first is not None
    rows = [row for c in bound if c is not None for row in c.rows]
    if len(set(rows)) != len(rows) or any(c is None or (c.table, c.column) != (first.table, first.column)
                                          for c in bound):
        return ""
    return rows_sum(first.table, first.column, rows)


def rows_sum(table: str, column: str, rows: Sequence[int]) -> str:
    """One column's figures in ``rows`` added up by SQL; NULL unless every row holds a figure (a missing line is no
    zero)."""
    quoted = quote_identifier(column)
    return (f"(SELECT SUM({quoted}) FROM {quote_identifier(table)} WHERE _row IN ({', '.join(map(str, rows))}) "
            f"HAVING COUNT({quoted}) = {len(rows)})")


def filled(tree: ast.expr, shown: Mapping[str, str]) -> str:
    """The formula as a person checks it, each name replaced by its figure: "(5,207 + 2,763) / 2"."""

    class _Fill(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            return ast.Name(id=shown.get(node.id, node.id), ctx=node.ctx)

    copy = ast.parse(ast.unparse(tree), mode="eval").body
    return ast.unparse(_Fill().visit(copy))


def is_percent(tree: ast.expr) -> bool:
    """The formula yields percents: it is growth or cagr, or it multiplies by 100 at the top."""
    node = tree
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("growth", "cagr"):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("avg", "sum", "min", "max",
                                                                                           "round"):
        return bool(node.args) and is_percent(node.args[0])
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        return any(isinstance(side, ast.Constant) and side.value == 100 for side in (node.left, node.right))
    return False


def result_of(rows: Sequence[Sequence[Any]]) -> float:
    """The one number a formula's SQL returned, or a FormulaError saying why there is none."""
    value = rows[0][0] if rows and rows[0] else None
    if value is None:
        raise FormulaError("The formula gives no number: a value is missing or it divides by zero.")
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise FormulaError("The formula did not give a number.")
    return float(value)
