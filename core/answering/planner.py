"""What the answering loop does next: compute, ask, answer or stop. Decided here; done by the loop.

The ``Answerer`` (``core.answering.loop``) runs steps and assembles the answer; every choice of what to do
next is a function of this module, over the question read once (``core.answering.reading``), the plans its
measure compiles to (``core.answering.metrics``) and what the run has found so far:

- ``computations``: before any sub-question, the computations worth trying, in order: the formula the
  reading's measure compiles to (``metrics.plans_of``) bound to cells by code; the model composing a formula over the
  connected tables' cells (only where the question defines or names a measure code could not bind, or says
  it spans two statements); the answer composed to its type (a header, several figures, labels). The first
  that gives an answer ends the planning: the loop has nothing left to ask.
- ``Planner.next``: then, at most ``limit`` times: ask the question itself first when it wants arithmetic
  over a table (a small model rewording it loses its years or rows) or words from the text (one passage
  answer, not a chain of reworded sub-questions); otherwise the model's decomposition
  says ask (a sub-question) or answer (from what was read); a sub-question asked before means the model is
  going round in circles, so the loop stops.
- ``Planner.done_after``: a step that tried the question itself (near enough) ends the loop, its finding
  final.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from core.answering import operations as ops
from core.answering.measures import CHANGE, DIFFERENCE, LINE, PERCENT_CHANGE, SHARE
from core.answering.metrics import Plan
from core.answering.reading import THRESHOLD_KINDS, QuestionReading

FORMULA = "formula"
"""Compute the formula the question's wording gives, its values bound to cells by code."""
MODEL_FORMULA = "model formula"
"""The model composes a formula over values it picks from the connected tables' cells."""
QUERY = "query"
"""A question over a table's rows (a count, a sum by condition, a ranking of groups): a query plan code compiles."""
MATURITY = "maturity"
"""Figures of a maturity table for the ranges of time asked ("due within 3 years"), by its columns' ranges."""
COMPOSE = "compose"
"""Decide the answer type and compose a header, several figures, labels, a count or a title."""

ASK, ANSWER, STOP = "ask", "answer", "stop"
_NEAR_ENOUGH = 0.8
"""Share of the question's words a sub-question must hold to count as the question itself."""


def computations(asked: QuestionReading, plans: Sequence[Plan]) -> tuple[str, ...]:
    """The computations to try before any sub-question, in order; the loop stops at the first that answers.
    The model composes a formula only where the question says its figures span statements and code could not
    bind a formula the question defines or names."""
    if asked.rank > 1:
        # "the second highest": no plan of code ranks past the first, and the top is no answer to it
        return ()
    if asked.horizons:
        # "the crane leases due within 3 years": the ranges a maturity table prints as columns first; where no
        # table's columns make them up, the question read whole goes on as any other
        within = replace(asked, horizons=())
        return (MATURITY, *computations(within, plans))
    composed = (MODEL_FORMULA, COMPOSE) if spans_statements(asked) else (COMPOSE,)
    if asked.query is not None and asked.query.operation != "lookup":
        # "in which year": the periods a statement prints as columns first, the dates of a register's rows after;
        # "what are the types of X": the table's items first (sections, the noun asked), a column's values after
        later = asked.kind == "column_headers" or asked.query.operation == "list" and \
            asked.criterion.kind not in THRESHOLD_KINDS  # "which of them had less than 15%": the rows past it
        composed = (*composed, QUERY) if later else (QUERY, *composed)
    elif asked.operation in ("sum", "average") or asked.measure is not None and asked.measure.op == SHARE:
        # "the total spending on roads and parks in 2019": where no line is named so, a sum over the rows named;
        # "what share of the cases were imported": a percent column of the row named, or a share of rows
        composed = (QUERY, *composed)
    if plans:
        # A measure the question names or defines is computed by its definition or not at all: where a line of
        # it binds to no row, the answer says which (``gives_up``), never a formula the model makes up.
        computed = (FORMULA, *composed)
        if QUERY not in computed and asked.measure is not None and asked.measure.op in (LINE, SHARE, CHANGE,
                                                                                          PERCENT_CHANGE):
            # a line no statement prints under that name may be a cell found by its row and its column (a region's
            # harvest: the region's row, the harvest column), or a share of rows ("what share came from the north")
            computed = (computed[0], QUERY, *computed[1:])
        return computed
    if QUERY not in composed and asked.measure is not None and asked.measure.op == LINE and \
            not spans_statements(asked):
        # a figure no statement's line names ("the market share of brand X in 1997"): a cell found by its row and
        # its column, before the answer is composed from whatever the table holds
        return (QUERY, *composed)
    if asked.measure is not None and asked.measure.op == DIFFERENCE and not spans_statements(asked):
        # "by how much did the employees affected in Ashland exceed those in Salem": two rows' figures of one
        # table (a register's sums), where no line is named so
        return (*composed, QUERY)
    return composed


def gives_up(plans: Sequence[Plan], missing: str) -> bool:
    """A measure the question names or defines, a line of which binds to no row (``missing`` says which): the
    answer says so, and the loop's steps do not look for a stand-in figure the definition does not name."""
    return bool(missing) and any(not plan.in_own_words for plan in plans)


def spans_statements(asked: QuestionReading) -> bool:
    """Arithmetic that the question says needs two statements ("... using the balance sheet and the cash
    flow statement, what is ..."): one table per step cannot answer it."""
    return len(asked.statements) >= 2 and (asked.computed or not asked.complete)


def needs_table_arithmetic(asked: QuestionReading, steps_taken: int, has_tables: bool) -> bool:
    """Arithmetic over a table (by the question's reading), or a figure from a statement the question names
    ("... shown in the cash flow statement"), with no step taken yet: SQL must come before any answer."""
    return (steps_taken == 0 and has_tables and not asked.explains
            and (asked.operation in ops.COMPUTING or bool(asked.statements)))


def covers_question(subquery: str, question: str) -> bool:
    """The sub-question is the question itself (near enough), so its answer is the final one."""
    asked, sub = ops.words(question), ops.words(subquery)
    return bool(asked) and len(asked & sub) >= _NEAR_ENOUGH * len(asked)


@dataclass(frozen=True)
class Decision:
    """What the loop does next: ask ``text`` (a sub-question), answer with ``text``, or stop."""

    action: str
    text: str = ""


Decompose = Callable[[bool], tuple[str, str]]
"""The model's decomposition: given whether it must ask, ("ask" | "answer", text)."""


@dataclass
class Planner:
    """The loop's next move, one call per iteration, at most ``limit`` of them."""

    asked: QuestionReading
    limit: int
    decompose: Decompose
    asked_before: set[str] = field(default_factory=set)
    iterations: int = 0
    from_text: bool = False
    """The answer is words from the text (its type, decided before), or the model's query plan over the table's rows
    failed (none of its cells will be chosen, ``Run.unplanned_table``): the question itself is asked first."""

    def next(self, steps_taken: int, has_tables: bool) -> Decision:
        """Ask, answer or stop; asks the model (``decompose``) unless the question must be asked as it is."""
        if self.iterations >= self.limit:
            return Decision(STOP)
        self.iterations += 1
        must_ask = needs_table_arithmetic(self.asked, steps_taken, has_tables)
        if (must_ask or self.from_text) and self.iterations == 1:
            # The only sub-question a forced first step can usefully ask is the question itself;
            # a small model rewording it loses the years or the rows, so it is not asked to.
            action, text = ASK, self.asked.text
        else:
            action, text = self.decompose(must_ask)
        if action == ANSWER and text and not must_ask:
            return Decision(ANSWER, text)
        subquery = text or self.asked.text
        key = " ".join(sorted(ops.words(subquery)))
        if key in self.asked_before and steps_taken:
            return Decision(STOP)  # the model is going round in circles: stop with what was found
        self.asked_before.add(key)
        return Decision(ASK, subquery)

    def done_after(self, subquery: str, answered: bool) -> bool:
        """The step just taken tried the question itself and found something (or learnt that neither SQL
        nor the text has it): the loop ends there."""
        return answered and covers_question(subquery, self.asked.text)
