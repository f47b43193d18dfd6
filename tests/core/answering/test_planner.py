"""The planner's decisions: which computations come first, then ask / answer / stop, without a model."""

from __future__ import annotations

import pytest

from core.answering import planner as planning
from core.answering.metrics import plans_of
from core.answering.reading import read as analyse

pytestmark = pytest.mark.unit


@pytest.mark.parametrize(("question", "expected"), [
    # a measure the question names: code binds it by its definition, else the answer type (no model-made formula)
    ("What is the FY2020 working capital ratio?", (planning.FORMULA, planning.COMPOSE)),
    # a plain shape over a line: code binds it, else a row of a table whose columns are the years, else the loop looks
    # it up (no model-made formula)
    ("What was the change in revenue from 2018 to 2019?", (planning.FORMULA, planning.QUERY, planning.COMPOSE)),
    # lines the question names: code binds them; where two statements are named, else the model composes one
    (("Taking figures from the balance sheet and from the cash flow statement, what is the ratio of capex to total "
      "assets in 2021?"),
     (planning.FORMULA, planning.MODEL_FORMULA, planning.COMPOSE)),
    ("What is the ratio of capex to total assets in 2019?", (planning.FORMULA, planning.COMPOSE)),
    # no formula, but two statements named: the model composes one
    (("Taking figures from the balance sheet and from the cash flow statement, how does capex compare with total "
      "assets in 2021?"),
     (planning.MODEL_FORMULA, planning.COMPOSE)),
    ("In which year was revenue highest?", (planning.COMPOSE, planning.QUERY)),
    # a place past the first in a ranking: no plan of code ranks it, and the top is not it
    ("Which region had the second largest harvest in 2020?", ()),
    ("In which year was the third-highest rainfall recorded?", ()),
])
def test_computations_come_in_order(question: str, expected: tuple[str, ...]) -> None:
    assert planning.computations(analyse(question), plans_of(analyse(question))) == expected


def test_arithmetic_over_a_table_asks_the_question_itself_first_without_the_model() -> None:
    calls: list[bool] = []
    planner = planning.Planner(analyse("What is the sum of roads and parks in 2019?"), 5,
                               lambda must_ask: calls.append(must_ask) or ("answer", "200"))
    assert planner.next(steps_taken=0, has_tables=True) == planning.Decision(planning.ASK,
                                                                             "What is the sum of roads and parks in 2019?")
    assert calls == []
    # after a step, the model decides; it may answer now
    assert planner.next(steps_taken=1, has_tables=True) == planning.Decision(planning.ANSWER, "200")
    assert calls == [False]


def test_the_model_may_not_answer_before_sql_when_arithmetic_is_asked() -> None:
    question = "What is the sum of roads and parks in 2019?"
    planner = planning.Planner(analyse(question), 5, lambda must_ask: ("answer", "about 200"))
    planner.iterations = 1  # the forced first ask was used (say its step failed before SQL ran)
    assert planner.next(steps_taken=0, has_tables=True).action == planning.ASK  # never an answer without SQL


def test_a_repeated_sub_question_stops_and_the_limit_stops() -> None:
    planner = planning.Planner(analyse("Why did costs rise?"), 3, lambda must_ask: ("ask", "costs in 2019"))
    assert planner.next(0, True) == planning.Decision(planning.ASK, "costs in 2019")
    assert planner.next(1, True) == planning.Decision(planning.STOP)  # the same again: going round in circles
    limited = planning.Planner(analyse("Why did costs rise?"), 1, lambda must_ask: ("ask", "costs"))
    assert limited.next(0, True).action == planning.ASK
    assert limited.next(1, True) == planning.Decision(planning.STOP)
    nothing = planning.Planner(analyse("Why did costs rise?"), 0, lambda must_ask: ("ask", "costs"))
    assert nothing.next(0, True) == planning.Decision(planning.STOP)


def test_a_step_that_tried_the_question_itself_ends_the_loop() -> None:
    planner = planning.Planner(analyse("What was the total budget for roads in 2019?"), 5, lambda _: ("ask", ""))
    assert planner.done_after("total budget for roads in 2019", answered=True)
    assert not planner.done_after("total budget for roads in 2019", answered=False)
    assert not planner.done_after("parks 2019", answered=True)


def test_a_text_answer_asks_the_question_itself_first() -> None:
    question = "What do trade payables with no discount offered comprise of?"
    planner = planning.Planner(analyse(question), 5, lambda must_ask: ("ask", "trade payables"), from_text=True)
    assert planner.next(steps_taken=0, has_tables=True) == planning.Decision(planning.ASK, question)
    assert planner.done_after(question, answered=True)  # its passage answer ends the loop
