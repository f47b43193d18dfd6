"""What a computed figure must be before it is said: checks that catch a binding to the wrong line.

A measure has a kind, and its kind bounds its figure: a margin or a share of a whole is a percentage between -100
and 100; a turnover, a payout or a coverage ratio, a number of days outstanding is positive. A quantity belongs to
a statement (capital expenditure to the cash flows, inventories to the balance sheet, revenue to the income
statement): where the document prints that statement, a value read from another one is suspect. The operands of one
figure come from one document and are stated in one currency. Each check names
what failed, so the step records it and the next candidate (or the loop) is tried; an answer no check failed is
still marked unchecked until a passage confirms it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.answering import measures as m
from core.answering.computation import Computation
from core.answering.operations import TableView
from core.answering.vocabulary import STATEMENTS, home_statement, is_statement

_POSITIVE_WORDS = ("turnover", "payout", "coverage", "outstanding", "days", "current ratio", "quick ratio", "cash ratio")


@dataclass(frozen=True)
class Problem:
    """What a check found, and the rows ((table id, row)) that are the likely cause: set aside for the next try."""

    said: str
    rows: frozenset[tuple[int, int]]


def problems(done: Computation, views: Sequence[TableView]) -> list[Problem]:
    """What is wrong with a computed figure (empty: nothing found)."""
    found: list[Problem] = []
    tree = done.plan.tree
    value = done.value
    every = frozenset((c.table_id, c.row) for c in done.cells.values())
    if tree is not None:
        if is_share(tree) and abs(value) > 100:
            # the whole is the likelier mistake (a segment's revenue for the company's): its rows go first
            whole = _whole_names(tree, done)
            rows = frozenset((c.table_id, c.row) for n, c in done.cells.items() if n in whole) or every
            found.append(Problem(f"{done.plan.measure or 'the share'} came out at {value:,.1f}%, which no share of a "
                                 f"whole can be", rows))
        name = (done.plan.measure or "").lower()
        if (tree.op in (m.NAMED, m.DEFINED, m.DAYS) and any(w in name for w in _POSITIVE_WORDS)) and value <= 0:
            found.append(Problem(f"{done.plan.measure} came out at {value:,.2f}; it cannot be zero or negative", every))
    found.extend(_one_cell_for_two_periods(done))
    found.extend(_two_documents(done, views))
    found.extend(_two_currencies(done, views))
    found.extend(_wrong_statement(done, views))
    found.extend(_not_the_amounts(done, views))
    return found


# Tables whose lines are not the company's own amounts, and the words of a quantity that asks for them all the same.
_NOT_THE_AMOUNTS: tuple[tuple[re.Pattern[str], re.Pattern[str], str], ...] = (
    # the valuation allowance is a deferred tax table's own line (an allowance against its assets), as a tax is
    (re.compile(r"\bdeferred\s+(?:income\s+)?tax(?:es)?\b", re.IGNORECASE),
     re.compile(r"\btax(?:es|ation)?\b|\bvaluation\s+allowances?\b", re.IGNORECASE),
     "a table of deferred tax effects, not of the amounts themselves"),
    (re.compile(r"\bjoint\s+ventures?\b|\bequity[\s-]+method\s+investees?\b|\bunconsolidated\s+(?:affiliates|entities|"
                r"subsidiaries)\b", re.IGNORECASE),
     re.compile(r"\bjoint\s+ventures?\b|\binvestees?\b|\baffiliates?\b|\bunconsolidated\b", re.IGNORECASE),
     "a table of other entities' figures (joint ventures, investees), not the company's own"),
    (re.compile(r"\b(?:summari[sz]ed\s+|selected\s+)?quarterly\s+(?:financial\s+)?(?:data|results|information|"
                r"financial\s+data)\b", re.IGNORECASE), re.compile(r"\bquarter|\bq[1-4]\b", re.IGNORECASE),
     "a table of quarterly figures, not the year's"),
)


def _not_the_amounts(done: Computation, views: Sequence[TableView]) -> list[Problem]:
    """A value read from a table whose lines are not the company's own amounts, for a measure that does not ask
    for them (neither the quantity nor another line of the measure names that kind of table): a table of deferred tax assets and liabilities ("Capitalized research and development expenditures"
    is a tax effect), the combined figures of joint ventures ("Gross margin" of the ventures)."""
    by_id = {v.info.id: v for v in views}
    # a measure one of whose lines is such a table's own ("... over gross deferred tax assets") asks for its lines
    measure = " ".join([done.plan.measure or "", *(q.words for q in done.plan.quantities)])
    out = []
    for cell in done.cells.values():
        quantity = next((q for q in done.plan.quantities if q.name == cell.name), None)
        view = by_id.get(cell.table_id)
        if quantity is None or view is None:
            continue
        title = view.info.title
        for table, asked, said in _NOT_THE_AMOUNTS:
            if table.search(title) and not asked.search(quantity.words) and not table.search(measure):
                out.append(Problem(f"{quantity.words} was read from {view.info.caption or view.name}, {said}",
                                   frozenset({(cell.table_id, cell.row)})))
                break
    return out


def _two_documents(done: Computation, views: Sequence[TableView]) -> list[Problem]:
    """Operands of one figure read from tables of two documents ("debt" from one report's notes, "total assets" from
    another's balance sheet): one measure of one company is not computed across reports. The cells of the documents
    that hold fewer of them are set aside (all of them where two hold as many)."""
    document = {v.info.id: v.info.document_id for v in views}
    held: dict[int, set[tuple[int, int]]] = {}
    for cell in done.cells.values():
        held.setdefault(document.get(cell.table_id, -1), set()).add((cell.table_id, cell.row))
    if len(held) < 2:
        return []
    most = max(len(rows) for rows in held.values())
    kept = [d for d, rows in held.items() if len(rows) == most]
    aside = frozenset().union(*(rows for d, rows in held.items() if len(kept) > 1 or d not in kept))
    return [Problem(f"{done.plan.measure or 'the figure'} read its values from {len(held)} documents", aside)]


def _two_currencies(done: Computation, views: Sequence[TableView]) -> list[Problem]:
    """Operands of one figure read from tables stating two currencies ("net debt" in £m, "total assets" in US$'000):
    no figure adds, divides or compares pounds and dollars, so one of them is the wrong line. The cells in the
    currency fewer of them are stated in are set aside (all of them where two hold as many). A table stating no
    currency is left out of the count."""
    currency = {v.info.id: v.currency for v in views}
    held: dict[str, set[tuple[int, int]]] = {}
    for cell in done.cells.values():
        if stated := currency.get(cell.table_id, ""):
            held.setdefault(stated, set()).add((cell.table_id, cell.row))
    if len(held) < 2:
        return []
    most = max(len(rows) for rows in held.values())
    kept = [c for c, rows in held.items() if len(rows) == most]
    aside = frozenset().union(*(rows for c, rows in held.items() if len(kept) > 1 or c not in kept))
    return [Problem(f"{done.plan.measure or 'the figure'} read its values in {len(held)} currencies "
                    f"({', '.join(sorted(held))})", aside)]


def _one_cell_for_two_periods(done: Computation) -> list[Problem]:
    """A line asked in two periods whose two figures are one cell: a change of 0 or an average of one figure
    says nothing about the periods asked (the table prints one of them only, or its columns were misread)."""
    seen: dict[tuple[str, int, int, str], int] = {}
    for quantity in done.plan.quantities:
        cell = done.cells.get(quantity.name)
        if cell is None or quantity.year is None:
            continue
        where = (quantity.words.lower(), cell.table_id, cell.row, cell.column)
        if seen.setdefault(where, quantity.year) != quantity.year:
            return [Problem(f"{quantity.words} of {seen[where]} and of {quantity.year} were read from one cell",
                            frozenset({(cell.table_id, cell.row)}))]
    return []


def _whole_names(tree: m.Measure, done: Computation) -> set[str]:
    """The quantity names of a share's whole (its second part), for the plan's quantities."""
    share = tree if tree.op == m.SHARE else tree.parts[0]
    whole_words = {leaf.words.lower() for leaf in share.parts[1].leaves()} if len(share.parts) > 1 else set()
    return {q.name for q in done.plan.quantities if q.words.lower() in whole_words}


def is_share(tree: m.Measure) -> bool:
    """A share of a whole (a margin, "X as a % of Y"), or an average of such shares."""
    if tree.op == m.SHARE:
        # one line in a year as a % of itself in another (140% of last year's) is a ratio of periods, no share
        return not (len(tree.parts) == 2 and tree.parts[0].words and tree.parts[0].words == tree.parts[1].words)
    return tree.op in (m.AVERAGE,) and bool(tree.parts) and is_share(tree.parts[0])


def _wrong_statement(done: Computation, views: Sequence[TableView]) -> list[Problem]:
    """A value read from a statement that is not where its line is reported, while the same document prints that
    statement: "capital expenditure" read from a balance sheet note where the cash flow statement is there."""
    out = []
    by_id = {v.info.id: v for v in views}
    for cell in done.cells.values():
        quantity = next((q for q in done.plan.quantities if q.name == cell.name), None)
        home = home_statement(quantity.words) if quantity is not None else None
        view = by_id.get(cell.table_id)
        if home is None or view is None:
            continue
        title = view.info.title
        if is_statement(home, title) or not any(is_statement(kind, title) for kind in STATEMENTS):
            continue  # in its own statement, or in a note (a note may give the detail a statement lacks)
        printed_there = any(v.info.document_id == view.info.document_id and
                            is_statement(home, v.info.title) for v in views)
        if printed_there:
            out.append(Problem(f"{quantity.words if quantity else cell.name} was read from {view.info.caption or view.name}, "
                               f"not from the {home.replace('_', ' ')} statement the document prints",
                               frozenset({(cell.table_id, cell.row)})))
    return out
