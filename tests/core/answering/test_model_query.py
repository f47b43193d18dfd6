"""The query plan a model fills where code planned none (core.answering.model_query): its choices are checked
against the table's real columns and values and against the question before anything runs, a value the model
spells loosely is the column's real one, a filter or threshold the question does not state is left out, a
ranking is a ranking, and the plan runs through the same compiler, checks and citations as code's own. The
model here is scripted (the loop's control flow); bench_tables.py measures the real one."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from core.answering import Answerer, model_query, table_query
from core.answering.operations import load_table_view
from core.answering.query_step import distinct_values
from core.answering.reading import read
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from tests.conftest import HashEmbedder
from tests.core.answering.test_answering_library import ScriptedChat
from tests.core.answering.test_table_cells import brands  # noqa: F401 (the fixture)
from tests.core.answering.test_table_query import Register, register  # noqa: F401 (the fixture)

pytestmark = pytest.mark.unit


def _plan(register: Register, question: str, reply: dict[str, Any]) -> tuple[Any, Any]:  # noqa: F811
    runner = SqlRunner(register.library.path)
    info = next(t for t in register.library.tables())
    view = load_table_view(register.library, info)
    distinct = distinct_values(runner.run, view)
    reading = read(question)
    try:
        planned = model_query.from_model(reply, view, reading, distinct)
        return planned, table_query.execute(planned, reading, runner.run)
    finally:
        runner.close()


def _reply(**chosen: Any) -> dict[str, Any]:
    return {"operation": "sum", "target": "", "filters": [], "group": "", "limit": 1, "descending": True,
            "threshold": {"column": "", "above": True, "value": 0}} | chosen


def test_a_loosely_spelt_value_is_the_column_s_own_and_an_unasked_filter_is_left_out(register: Register) -> None:  # noqa: F811
    question = "How many employees did the Kestrel Foods notices affect?"
    planned, answered = _plan(register, question, _reply(
        target="employees_affected",
        filters=[{"column": "company", "value": "kestrel foods"}, {"column": "city", "value": "Toledo"}]))
    assert [(c.column.name, c.values) for c in planned.conditions] == [("company", ("Kestrel Foods Inc.",))]
    kept = [r for r in register.rows if r[0] == "Kestrel Foods Inc."]
    assert answered.value == f"{sum(r[3] for r in kept):,}"
    assert len(answered.cells) == len(kept)  # every row the filter kept is cited


def test_a_value_the_column_does_not_hold_goes_back_with_the_values_it_does(register: Register) -> None:  # noqa: F811
    with pytest.raises(ValueError, match="not a value of company.*Kestrel|not a value of company.*Harlan"):
        _plan(register, "How many employees did Osprey Mills lay off?", _reply(
            target="employees_affected", filters=[{"column": "company", "value": "Osprey Mills"}]))


def test_a_model_plan_that_leaves_the_question_unread_goes_back(register: Register) -> None:  # noqa: F811
    # a count of every notice is no answer to how long a notice must run; the plan goes back for a repair
    with pytest.raises(ValueError, match="unread"):
        _plan(register, "How many weeks of warning must a closing plant give its workers?", _reply(operation="count"))
    _planned, answered = _plan(register, "How many notices are listed?", _reply(operation="count"))
    assert answered.value == str(len(register.rows))


def test_a_largest_figure_asked_by_which_is_a_ranking_that_names_its_row(register: Register) -> None:  # noqa: F811
    totals: Counter[str] = Counter()
    for _, city, _, employees in register.rows:
        totals[city] += employees
    planned, answered = _plan(register, "Which city had the most employees affected?", _reply(
        operation="max", target="employees_affected", group="city"))
    assert planned.operation == "top" and answered.value == totals.most_common(1)[0][0]


def test_the_direction_of_a_ranking_is_the_question_s_not_the_model_s(register: Register) -> None:  # noqa: F811
    totals: Counter[str] = Counter()
    for _, city, _, employees in register.rows:
        totals[city] += employees
    planned, answered = _plan(register, "Which city had the fewest employees affected?", _reply(
        operation="top", target="employees_affected", group="city", descending=True))
    assert not planned.descending and answered.value == min(totals, key=lambda c: (totals[c], c))


def test_the_loop_asks_for_a_plan_only_where_code_planned_none_and_runs_it(register: Register) -> None:  # noqa: F811
    totals: Counter[str] = Counter()
    for company, _, _, employees in register.rows:
        totals[company] += employees
    asked_for: list[str] = []

    def model(messages: Any, schema: dict[str, Any] | None) -> Any:
        properties = (schema or {}).get("properties", {})
        if "filters" in properties:
            asked_for.append("plan")
            assert "employees_affected" in properties["target"]["enum"]
            # the plan is asked over its table's description alone: no retrieved tables or passages before it
            assert len(messages) == 1 and messages[0].content.startswith(model_query.TASK), messages
            return _reply(operation="top", target="employees_affected", group="company")
        raise AssertionError(f"no other model call expected: {sorted(properties)}")

    chat = ScriptedChat(fallback=model)
    runner = SqlRunner(register.library.path)
    try:
        answerer = Answerer(register.library, Retriever(register.library.conn, HashEmbedder()), runner, chat)
        answer = answerer.answer("Which firm laid off the largest workforce across its notices?")
    finally:
        runner.close()
    assert asked_for == ["plan"]
    assert answer.value == totals.most_common(1)[0][0], answer.text
    assert f"{totals.most_common(1)[0][1]:,}" in answer.text
    cited = next(c for c in answer.citations if c.sql)
    assert len(cited.cells) == sum(1 for r in register.rows if r[0] == answer.value)


def test_a_model_s_column_of_another_year_is_the_column_of_the_year_asked(brands: Any) -> None:  # noqa: F811
    runner = SqlRunner(brands.path)
    view = load_table_view(brands, next(iter(brands.tables())))
    distinct = distinct_values(runner.run, view)
    reading = read("What was the share in volume of Brackett in 2022?")
    try:
        column_2021 = next(c.name for c in view.data_columns if "2021" in c.header)
        planned = model_query.from_model(_reply(operation="value", target=column_2021,
                                                filters=[{"column": view.label_column.name, "value": "Brackett"}]),
                                         view, reading, distinct)
        assert "2022" in planned.target.header
        assert table_query.execute(planned, reading, runner.run).value.rstrip("%") in ("7.0", "7")
    finally:
        runner.close()
