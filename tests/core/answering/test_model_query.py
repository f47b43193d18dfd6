"""The query plan a model fills where code planned none (core.answering.model_query): its choices are checked
against the table's real columns and values and against the question before anything runs, a value the model
spells loosely is the column's real one, a filter or threshold the question does not state is left out, a
ranking is a ranking, and the plan runs through the same compiler, checks and citations as code's own. The
model here is scripted (the loop's control flow); bench_tables.py measures the real one."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from core.answering import Answerer, model_query, table_query
from core.answering.operations import load_table_view
from core.answering.query_step import distinct_values
from core.answering.reading import read
from core.library.store import Library
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from models.errors import ModelOutputError
from tests.conftest import HashEmbedder
from tests.core.answering.test_answering_library import ScriptedChat
from tests.core.answering.test_table_cells import brands  # noqa: F401 (the fixture)
from tests.core.answering.test_table_precision import _drawn
from tests.core.answering.test_table_query import CITIES, COMPANIES, Register, ask_without_model, register  # noqa: F401 (the fixture)
from tests.core.answering.test_table_units import drawn_library

pytestmark = pytest.mark.unit


def _plan(register: Register | Survey, question: str, reply: dict[str, Any]) -> tuple[Any, Any]:  # noqa: F811
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


def test_a_value_plan_answers_neither_a_difference_nor_a_which_question(register: Register) -> None:  # noqa: F811
    # "the difference between A and B": one cell is no difference; the model is asked for its two cells
    with pytest.raises(ValueError, match="two figures"):
        _plan(register, "What is the difference between the Toledo notices and the Akron ones in employees affected?",
              _reply(
            operation="value", target="employees_affected", filters=[{"column": "city", "value": "Toledo"}]))
    # "which one receives the largest": the row ranked first, named, not the figure of the rows filtered on
    question = "Of the Toledo notices, which one receives the largest number of employees?"
    planned, answered = _plan(register, question, _reply(
        operation="value", target="employees_affected", filters=[{"column": "city", "value": "Toledo"}]))
    totals: Counter[str] = Counter()
    for company, city, _, employees in register.rows:
        if city == "Toledo":
            totals[company] += employees
    assert planned.operation == "top" and answered.value == totals.most_common(1)[0][0], answered.sentence
    # "name the three ... that laid off the most": the model's value over its group, limited to three, ranks them
    planned, answered = _plan(register, "List the three notices (by date) that laid off the most staff.", _reply(
        operation="value", target="employees_affected", group="notice_date", limit=3))
    ranked = sorted(register.rows, key=lambda r: -r[3])[:3]
    assert planned.operation == "top" and planned.limit == 3, planned
    assert answered.value.count(";") == 2 and str(ranked[0][3]) in answered.sentence, answered.sentence


def test_a_ranking_asked_past_a_bound_that_heads_a_column_ranks_by_that_column(tmp_path_factory: pytest.TempPathFactory
                                                                              ) -> None:
    """"which lender is owed the most over 10 years": "over 10 years" is the column's header, not a bound on its
    figures; the model's value plans a ranking, and the totals row is not one of the rows ranked."""
    for survey in _survey(tmp_path_factory, "Table 5: Loans by when they fall due", [
            ["Lender", "Within 1 year", "Over 10 years"], ["Leases", "374", "118"], ["Debt", "660", "4470"],
            ["Purchases", "345", "366"], ["Total", "1379", "4954"]]):
        reply = _reply(operation="value", target="over_10_years", group="lender",
                       threshold={"column": "over_10_years", "above": True, "value": 10})
        planned, answered = _plan(survey, "Which lender is owed the most over 10 years?", reply)
        assert planned.operation == "top" and answered.value == "Debt", answered.sentence


def test_a_model_plan_that_leaves_the_question_unread_is_refused(register: Register) -> None:  # noqa: F811
    # a count of every notice is no answer to how long a notice must run; the plan is refused
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
    # one row's figure (or a sum) where the question ranks: the same ranking, by the figure chosen
    for operation in ("value", "sum"):
        planned, answered = _plan(register, "Which city had the most employees affected?", _reply(
            operation=operation, target="employees_affected", group="city"))
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
        answer = answerer.answer("Which outfit laid off the largest workforce across its notices?")
    finally:
        runner.close()
    assert asked_for == ["plan"]
    assert answer.value == totals.most_common(1)[0][0], answer.text
    assert f"{totals.most_common(1)[0][1]:,}" in answer.text
    cited = next(c for c in answer.citations if c.sql)
    assert len(cited.cells) == sum(1 for r in register.rows if r[0] == answer.value)


def _after_a_failed_plan(register: Register, question: str, text_reply: str,  # noqa: F811
                         plan_reply: Any = None) -> tuple[list[str], Any]:
    """The question answered where every plan the model gives names a company the register does not hold: the plan
    goes back, comes back the same and is given up. The calls the loop made after it, and its answer."""
    asked_for: list[str] = []
    bad_plan = _reply(operation="share", target="employees_affected",
                      filters=[{"column": "company", "value": "Osprey Mills"}])

    def model(messages: Any, schema: dict[str, Any] | None) -> Any:
        properties = (schema or {}).get("properties", {})
        if "filters" in properties:
            asked_for.append("plan")
            return bad_plan if plan_reply is None else plan_reply
        if "cells" in properties:  # the operation choice would count the one cell it picked as the rows asked for
            asked_for.append("cells")
            return {"operation": "count", "cells": [{"row": register.rows[0][0], "column": "employees_affected"}]}
        if "action" in properties:
            asked_for.append("decompose")
            return {"action": "ask", "text": question}
        if set(properties) == {"answer"}:
            asked_for.append("text")
            assert question in messages[-1].content
            return {"answer": text_reply}
        raise AssertionError(f"no other model call expected: {sorted(properties)}")

    chat = ScriptedChat(fallback=model)
    runner = SqlRunner(register.library.path)
    try:
        answerer = Answerer(register.library, Retriever(register.library.conn, HashEmbedder()), runner, chat)
        answer = answerer.answer(question)
    finally:
        runner.close()
    return asked_for, answer


def test_after_every_plan_failed_no_cell_of_its_table_is_chosen_and_the_text_is_asked_the_question(
        register: Register) -> None:  # noqa: F811
    asked_for, answer = _after_a_failed_plan(register, "What share of the employees affected worked in Akron glass plants?",
                                             "not stated")
    assert asked_for[:2] == ["plan", "text"], (asked_for, answer.text)  # not sent back (a 1.5B model repeats
    # itself), no cells chosen, no rewording first
    assert "cells" not in asked_for
    assert answer.status == "refused", answer.text
    assert any(s.sql_error.startswith("No query over the rows of") for s in answer.steps), answer.steps
    # the refusal says what was tried and why it was no answer
    assert "A query over the rows of" in answer.text and "'Osprey Mills' is not a value of company" in answer.text


def test_after_every_plan_failed_a_text_answer_vouched_for_by_that_table_alone_is_no_answer(
        register: Register) -> None:  # noqa: F811
    # a figure of one of the register's rows, which no passage prints: the model picked a cell after all
    # ("people", which no header names: "workers" is read as the register's Employees affected column)
    figure = next(n for _, _, _, n in register.rows if n >= 10)
    asked_for, answer = _after_a_failed_plan(register, "How many jobs did the Kestrel notice in Dayton cut?",
                                             f"{figure}")
    assert asked_for[-1] == "text" and answer.steps[-1].intermediate_answer == f"{figure}", asked_for
    assert answer.status == "refused", answer.text
    # nor is a value of the table's rows no passage says (a city named for a count)
    _asked_for, answer = _after_a_failed_plan(register, "How many jobs did the Kestrel notice in Dayton cut?",
                                              CITIES[2])
    assert answer.status == "refused", answer.text
    # nor several of them listed
    _asked_for, answer = _after_a_failed_plan(register, "How many jobs did the Kestrel notice in Dayton cut?",
                                              f"{CITIES[2]}, {CITIES[1]} and {CITIES[3]}")
    assert answer.status == "refused", answer.text
    # a small count no passage prints is no answer there either (elsewhere it may be written in words)
    _asked_for, answer = _after_a_failed_plan(register, "How many jobs did the Kestrel notice in Dayton cut?", "3")
    assert answer.status == "refused", answer.text


def test_a_plan_call_that_failed_is_no_plan_that_failed_its_checks(register: Register) -> None:  # noqa: F811
    # no reply to check (the model erred): nothing was learnt about the table, so its cells may still be chosen
    asked_for, _answer = _after_a_failed_plan(register, "What share of the employees affected worked in Akron glass plants?",
                                              "not stated", ModelOutputError("cut off"))
    assert "cells" in asked_for, asked_for


def test_how_many_more_of_one_than_another_is_no_plan_the_model_fills(register: Register) -> None:  # noqa: F811
    # no plan operation subtracts: the model's sum of one side (the first company's total) would read as the answer
    asked_for: list[str] = []

    def model(_messages: Any, schema: dict[str, Any] | None) -> Any:
        properties = (schema or {}).get("properties", {})
        if "filters" in properties:
            asked_for.append("plan")
            return _reply(target="employees_affected", filters=[{"column": "company", "value": COMPANIES[0]}])
        return {"action": "ask", "text": "", "operation": "none", "cells": [], "answer": "not stated"}

    runner = SqlRunner(register.library.path)
    try:
        answer = Answerer(register.library, Retriever(register.library.conn, HashEmbedder()), runner,
                          ScriptedChat(fallback=model)).answer(
            "How many more workers were hit by the Kestrel closures than by the Harlan ones?")
    finally:
        runner.close()
    assert asked_for == [], answer.text
    kestrel = sum(n for company, _, _, n in register.rows if company == COMPANIES[0])
    assert f"{kestrel:,}" not in answer.text


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


@dataclass
class Survey:
    library: Library
    rows: list[tuple[str, str, float, float, int]]  # investigation, group, prevalence (%), mean score, participants


@pytest.fixture(scope="module")
def survey(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    """A survey's sample design: an investigation over one or two groups, each with its prevalence, a mean score
    printed to three decimals and its participants; the groups of one investigation share its prevalence or not."""
    rng = random.Random(23)
    rows: list[tuple[str, str, float, float, int]] = []
    for investigation, groups, shared in (("Anthropometry", ("Men", "Women"), True), ("Blood pressure", ("Men",
                                          "Women"), True), ("Diet survey", ("Households",), True),
                                          ("Fasting glucose", ("Men", "Women"), False)):
        prevalence = float(rng.choice((5, 10, 15)))
        for group in groups:
            rows.append((investigation, group, prevalence if shared else float(rng.randint(2, 30)),
                         round(rng.uniform(0.5, 1.9), 3), rng.randint(300, 2400)))
    directory = tmp_path_factory.mktemp("survey")
    header = [["Investigation", "Group", "Prevalence (%)", "Mean score", "Participants"]]
    body = [[i, g, f"{p:g}", f"{m:.3f}", str(n)] for i, g, p, m, n in rows]
    table = header + body
    library = drawn_library(directory, "Sample design of the nutrition survey, by investigation", table, [60, 200, 300, 400, 480, 560],
                            name="survey.pdf", row_height=17, fontsize=12)
    yield Survey(library, rows)
    library.close()


def test_a_cell_read_keeps_every_decimal_it_is_printed_with(survey: Survey) -> None:
    _, _, _, score, _ = next(r for r in survey.rows if r[0] == "Diet survey")
    assert score != round(score, 2)  # three decimals printed, the third not 0
    _planned, answered = _plan(survey, "What was the mean score of the diet survey?", _reply(
        operation="value", target="mean_score", filters=[{"column": "investigation", "value": "Diet survey"}]))
    assert answered.value == f"{score:.3f}".rstrip("0")


def test_one_figure_every_row_named_holds_is_the_answer_and_differing_figures_are_none(survey: Survey) -> None:
    prevalence = next(r[2] for r in survey.rows if r[0] == "Blood pressure")
    _planned, answered = _plan(survey, "What prevalence was assumed for blood pressure?", _reply(
        operation="value", target="pct_prevalence", filters=[{"column": "investigation", "value": "Blood pressure"}]))
    assert answered.value.rstrip("%") == f"{prevalence:g}"
    assert len({r[2] for r in survey.rows if r[0] == "Fasting glucose"}) == 2
    with pytest.raises(ValueError, match="several rows"):  # men and women differ: which one is not said
        _plan(survey, "What prevalence was assumed for fasting glucose?", _reply(
            operation="value", target="pct_prevalence", filters=[{"column": "investigation", "value": "Fasting glucose"}]))


def test_how_many_of_a_figure_column_the_question_names_is_its_figure_not_a_count_of_rows(survey: Survey) -> None:
    kept = [r for r in survey.rows if r[0] == "Blood pressure"]
    planned, answered = _plan(survey, "How many participants did the blood pressure investigation have?", _reply(
        operation="count", target="participants", filters=[{"column": "investigation", "value": "Blood pressure"}],
        group="group_value"))  # a group filled in, as the model fills every field
    assert planned.operation == "sum" and answered.value == f"{sum(r[4] for r in kept):,}"
    # the figure column is the model's filler where the question names none of it: the rows are counted
    planned, answered = _plan(survey, "How many groups did the blood pressure investigation cover?", _reply(
        operation="count", target="participants", filters=[{"column": "investigation", "value": "Blood pressure"}]))
    assert planned.operation == "count" and answered.value == str(len(kept))


def test_a_band_the_model_names_as_an_open_range_is_the_groups_it_covers(tmp_path: Path) -> None:
    """The model filters on "65 and over" where the column prints bands "65-74", "75-84", "85+": the rows of
    those three bands are added up; "70 and over" starts inside a band and goes back."""
    bands = {"Under 18": 310, "18-64": 2_050, "65-74": 402, "75-84": 233, "85+": 95}
    table = [["Age band", "Patients"], *([band, f"{n:,}"] for band, n in bands.items())]
    library = drawn_library(tmp_path, "Patients registered by age band", table, [60, 240, 360], name="patients.pdf")
    try:
        question = "How many patients aged 65 and over were registered?"
        planned, answered = _plan(Register(library, []), question, _reply(
            target="patients", filters=[{"column": "age_band", "value": "65 and over"}]))
        assert planned.conditions[0].values == ("65-74", "75-84", "85+")
        assert answered.value == f"{402 + 233 + 95:,}"
        with pytest.raises(ValueError, match="not a value of age_band"):
            _plan(Register(library, []), "How many patients aged 70 and over were registered?", _reply(
                target="patients", filters=[{"column": "age_band", "value": "70 and over"}]))
    finally:
        library.close()


def test_a_value_not_in_the_column_goes_back_with_the_column_s_values_nearest_to_it() -> None:
    ages = ["2-11 months", "1-2", "3-5", "6-11", "12-19", "20-29", "30-39", "40-49", "50-59", "60-69", "70-79", "80+",
            "All"]
    nearest = model_query._closest("60 and over", ages, 3)
    assert "60-69" in nearest and len(nearest) == 3
    assert nearest == [a for a in ages if a in nearest]  # in the column's own order


def test_a_row_the_question_names_in_full_is_kept_where_the_model_left_its_column_unfiltered(survey: Survey) -> None:
    women = next(r for r in survey.rows if r[0] == "Blood pressure" and r[1] == "Women")
    planned, answered = _plan(survey, "How many participants did the blood pressure investigation have among women?",
                              _reply(operation="value", target="participants",
                                     filters=[{"column": "investigation", "value": "Blood pressure"}]))
    assert sorted((c.column.name, c.values) for c in planned.conditions) == [
        ("group_value", ("Women",)), ("investigation", ("Blood pressure",))]
    assert answered.value == f"{women[4]:,}"



def test_a_text_column_with_no_value_is_offered_neither_as_a_filter_nor_in_the_table_s_description(
        survey: Survey) -> None:
    runner = SqlRunner(survey.library.path)
    try:
        view = load_table_view(survey.library, next(iter(survey.library.tables())))
        read_values = distinct_values(runner.run, view)

        def distinct(column: Any) -> list[Any]:  # the Group column printed empty, as a stray header word's is
            return ["", None] if column.name == "group_value" else read_values(column)
        filters = model_query.schema(view, distinct)["properties"]["filters"]["items"]["properties"]["column"]["enum"]
        assert filters == ["investigation"]
        assert "group_value" not in model_query.task(view, "How many took part?", distinct)
        assert "group_value" in model_query.task(view, "How many took part?", read_values)
    finally:
        runner.close()


@pytest.fixture(scope="module")
def one_row(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, list[int]]]:
    rng = random.Random(31)
    figures = [rng.randint(500, 9000) for _ in range(3)]
    directory = tmp_path_factory.mktemp("one_row")
    table = [["Products", "Butter", "Margarine", "Low fat products"], ["Turnover (FFr. m.)", *map(str, figures)]]
    library = drawn_library(directory, "Table 4 - Turnover of spreads, 1997", table, [60, 220, 320, 420, 540],
                            name="spreads.pdf", row_height=17, fontsize=12)
    yield library, figures
    library.close()


def test_a_cell_of_a_table_of_one_row_needs_no_filter(one_row: tuple[Library, list[int]]) -> None:
    library, figures = one_row
    runner = SqlRunner(library.path)
    try:
        view = load_table_view(library, next(iter(library.tables())))
        distinct = distinct_values(runner.run, view)
        reading = read("How much did margarine sell for in 1997?")  # the row named by no word of it
        planned = model_query.from_model(_reply(operation="value", target="margarine"), view, reading, distinct)
        assert table_query.execute(planned, reading, runner.run).value.split()[0] == f"{figures[1]:,}"
    finally:
        runner.close()


@pytest.fixture(scope="module")
def stacked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    """Two tables of one layout read as one (women's, then men's students by cluster, each with its total)."""
    rng = random.Random(41)
    clusters = ("Sciences", "Humanities", "Social Sciences")
    body = []
    for _ in range(2):
        figures = [rng.randint(10, 200) for _ in clusters]
        body += [[c, str(n)] for c, n in zip(clusters, figures, strict=True)] + [["Total", str(sum(figures))]]
    directory = tmp_path_factory.mktemp("stacked")
    table = [["Faculty cluster", "Students"], *body]
    library = drawn_library(directory, "Students in the sample by faculty cluster", table, [60, 260, 400],
                            name="students.pdf", row_height=17, fontsize=12)
    yield library
    library.close()


def test_how_many_of_a_label_printed_in_each_of_two_stacked_tables_is_not_their_sum(stacked: Library) -> None:
    runner = SqlRunner(stacked.path)
    try:
        view = load_table_view(stacked, next(iter(stacked.tables())))
        distinct = distinct_values(runner.run, view)
        reply = _reply(operation="count", target="students", filters=[{"column": view.label_column.name,
                                                                        "value": "Humanities"}])
        with pytest.raises(ValueError, match="two tables"):
            model_query.from_model(reply, view, read("How many students of Humanities were in the sample?"), distinct)
        planned = model_query.from_model(reply, view, read("How many students of Humanities were there in all?"),
                                         distinct)
        assert planned.operation == "sum"
    finally:
        runner.close()


def test_a_ranking_of_rows_that_all_bear_one_label_names_none_of_them(tmp_path: Path) -> None:
    # every row's label read as one cell ("Wages Travel Rent Supplies" on each): the "largest" group is every row
    merged = "Wages Travel Rent Supplies Printing"
    table = [["Cost category", "Direct costs", "Indirect costs"],
             *([merged, f"{direct:,}", f"{indirect:,}"] for direct, indirect in ((94_000, 20_000), (352_000, 99_988),
                                                                                  (26_000, 14_000), (48_000, 11_000)))]
    library = drawn_library(tmp_path, "Allocation of costs by category", table, [60, 330, 440, 550], name="costs.pdf")
    try:
        survey = Survey(library, [])
        with pytest.raises(table_query.NoAnswer, match="one label"):
            _plan(survey, "In which cost category were direct costs highest?", _reply(
                operation="max", target="direct_costs", group="cost_category"))
    finally:
        library.close()


def test_a_count_in_a_column_of_percentages_is_no_percentage(tmp_path: Path) -> None:
    # most cells of "Total" print "%", so the column is typed percent; the counts between them are still counts
    table = [["Firms", "Banks", "Insurers", "Total"],
             ["Firms applying the option", "27", "16", "43"],
             ["Share of all firms applying", "33%", "20%", "53%"],
             ["Share of firms disclosing more", "10%", "4%", "14%"],
             ["Share of firms disclosing less", "6%", "2%", "8%"]]
    library = drawn_library(tmp_path, "Firms applying the option, by kind", table, [60, 280, 360, 440, 520],
                            name="firms.pdf")
    try:
        view = load_table_view(library, next(iter(library.tables())))
        rows = {r.label: r.row for r in view.rows}
        assert table_query.percent_cell(view, rows["Share of all firms applying"], "total")
        assert not table_query.percent_cell(view, rows["Firms applying the option"], "total")
    finally:
        library.close()


def test_a_plan_is_filled_over_the_likeliest_table_that_names_what_is_asked(register: Register,  # noqa: F811
                                                                             tmp_path: Path) -> None:
    """The likeliest table names nothing the question asks (a table of districts' cases for a question about layoff
    notices): the plan is filled over the next one, the register; a question neither names gets no plan."""
    table = [["District", "Cases (n)"], ["Ashvale", "412"], ["Corwick", "288"]]
    cases = drawn_library(tmp_path, "Cases by district", table, [60, 240, 360], name="cases.pdf")
    runners = [SqlRunner(cases.path), SqlRunner(register.library.path)]
    try:
        views = [load_table_view(lib, next(iter(lib.tables()))) for lib in (cases, register.library)]
        readers = {id(v): distinct_values(r.run, v) for v, r in zip(views, runners)}
        chosen = model_query.plannable_table(views, "How many employees did the notices of Kestrel Foods affect?",
                                             lambda v: readers[id(v)])
        assert chosen is not None and chosen[0] is views[1]
        assert model_query.plannable_table(views, "How many bridges were repaired?", lambda v: readers[id(v)]) is None
    finally:
        for runner in runners:
            runner.close()
        cases.close()


def test_a_count_of_what_the_rows_are_not_is_the_figure_that_counts_it(register: Register) -> None:  # noqa: F811
    """"How many workers did the Kestrel Foods notices in one city affect": the register's rows are notices, so a count
    of the rows kept (the model's reading of "how many") is no answer; the figure column chosen is added up. Code
    reads "workers" as the column of employees affected too."""
    company, city = next((c, t) for c, t, _, _ in register.rows if c == "Kestrel Foods Inc.")
    kept = [r for r in register.rows if r[0] == company and r[1] == city]
    question = f"How many workers did the Kestrel Foods notices in {city} affect?"
    planned, answered = _plan(register, question, _reply(
        operation="count", target="employees_affected", group="city",
        filters=[{"column": "company", "value": "Kestrel Foods"}, {"column": "city", "value": city}]))
    assert planned.operation == "sum" and answered.value == f"{sum(r[3] for r in kept):,}"
    assert ask_without_model(register.library, question).value == f"{sum(r[3] for r in kept):,}"


SHARES_IMPORTED = {"Ashvale": 12.5, "Brindlemoor": 20.0, "Corwick": 31.4, "Dunmore": 8.0, "Elmstead": 26.0}


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Register]:
    table = [["District", "Imported (%)", "Cases"], *([d, f"{p:.1f}", "100"] for d, p in SHARES_IMPORTED.items())]
    library = drawn_library(tmp_path_factory.mktemp("imported"), "Share of imported cases by district, 2021", table,
                            [60, 240, 360, 460], name="imported.pdf")
    yield Register(library, [])
    library.close()


def test_a_threshold_the_question_states_keeps_its_direction_and_bound_whatever_the_model_says(
        imported: Register) -> None:
    """"20% or more" where the model fills "above": false: the rows at 20% and over are counted (20 itself kept);
    and a plan answering a percentage question with an amount is no answer (it is refused)."""
    from core.answering.query_step import in_the_unit_asked

    question = "How many districts had 20% or more of their cases imported?"
    planned, answered = _plan(imported, question, _reply(
        operation="count", target="pct_imported", group="district",
        threshold={"column": "pct_imported", "above": False, "value": 20}))
    assert planned.thresholds[0].above and answered.value == "3"
    share = "What share of all cases did Corwick import?"
    _planned, answered = _plan(imported, share, _reply(
        operation="value", target="cases", filters=[{"column": "district", "value": "Corwick"}]))
    with pytest.raises(ValueError, match="no percentage"):
        in_the_unit_asked(answered, read(share))


def test_which_rows_asked_are_named_not_counted_and_a_year_is_no_filter_on_names(imported: Register) -> None:
    """"In which districts ...": the model's count of the rows past the threshold is their list; a filter on the
    year the question names, over a column of district names, is the table's year (its title), not a row."""
    question = "In which districts were 20% or more of the cases imported?"
    planned, answered = _plan(imported, question, _reply(
        operation="count", target="pct_imported", group="district",
        threshold={"column": "pct_imported", "above": True, "value": 20}))
    assert planned.operation == "list"
    assert all(name in answered.value for name in ("Brindlemoor", "Corwick", "Elmstead")), answered.value
    ranked = "Which two districts had the highest share of imported cases in 2021?"
    planned, answered = _plan(imported, ranked, _reply(
        operation="top", target="pct_imported", group="district", limit=2,
        filters=[{"column": "district", "value": "2021"}]))
    assert not planned.conditions and answered.value.split("; ") == ["Corwick", "Elmstead"], answered.value


@pytest.mark.parametrize(("question", "ranking", "threshold"), [
    ("How many employees did the Kestrel Foods notices affect in 2015?", False, False),
    ("Which city had the fewest notices?", True, False),
    ("How many notices affected more than 120 employees?", False, True),
])
def test_a_plan_asks_for_a_ranking_or_a_threshold_only_where_the_question_has_one(
        register: Register, question: str, ranking: bool, threshold: bool) -> None:  # noqa: F811
    runner = SqlRunner(register.library.path)
    try:
        view = load_table_view(register.library, next(iter(register.library.tables())))
        fields = model_query.schema(view, distinct_values(runner.run, view), read(question))
    finally:
        runner.close()
    assert {"limit", "descending"} <= set(fields["required"]) if ranking else \
        not {"limit", "descending"} & set(fields["properties"])
    assert ("threshold" in fields["required"]) is threshold
    assert {"operation", "target", "filters", "group"} <= set(fields["required"])


def test_a_table_of_periods_is_offered_to_the_plan_unless_its_document_is_a_financial_report(tmp_path: Path) -> None:
    # districts by year in a statistics release are rows a plan reads; a statement's lines over years are read by
    # the loop's operations, unless the question asks over rows in so many words
    rows = [["District", "2012-13", "2013-14"], ["Northfold", "3.4", "3.9"], ["Eastmere", "2.2", "2.0"],
            ["Southby", "4.1", "4.6"]]
    library = drawn_library(tmp_path, "Table 2: Rice production by district (lakh tonnes)", rows, [40, 200, 300, 400])
    try:
        info = library.tables()[0]
        assert info.periods, "the table's columns are periods"
        view = load_table_view(library, info)
        share = read("What share of the rice came from Eastmere in 2013-14?")
        assert share.query is None
        assert model_query.offered_tables([view], share, {info.document_id: "statistics release"}) == [view]
        assert model_query.offered_tables([view], share, {info.document_id: "10-K"}) == []
        ranking = read("Which district produced the most rice in 2013-14?")
        assert model_query.offered_tables([view], ranking, {info.document_id: "10-K"}) == [view]
    finally:
        library.close()


@pytest.fixture(scope="module")
def feelings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    """How often pupils say they feel a way (made up): a row a feeling, a column how often."""
    rows = [("Worried about exams", "Never", 12.5, 0.0, 0), ("Lonely at school", "Never", 48.0, 0.0, 0),
            ("Tired in the morning", "Never", 6.5, 0.0, 0), ("Bored in lessons", "Never", 21.0, 0.0, 0)]
    header = [["Feeling", "Never", "Sometimes", "Often"]]
    figures = {"Worried about exams": (12.5, 55.0, 32.5), "Lonely at school": (48.0, 41.0, 11.0),
               "Tired in the morning": (6.5, 38.0, 55.5), "Bored in lessons": (21.0, 54.0, 25.0)}
    body = [[name, *(f"{v:.1f}" for v in values)] for name, values in figures.items()]
    library = drawn_library(tmp_path_factory.mktemp("feelings"), "Table 4: How often pupils feel this way (%)",
                            header + body, [40, 220, 300, 380, 460])
    yield Survey(library, rows)
    library.close()


def test_the_question_s_bound_is_kept_whatever_figure_the_model_writes_for_it(feelings: Survey) -> None:
    # "more than 30%" written 0.3, and "below" for "more than": the question's bound and direction are code's
    reply = _reply(operation="list", target="often", group="feeling",
                   threshold={"column": "often", "above": False, "value": 0.3})
    _, answered = _plan(feelings, "Which feelings do more than 30% of pupils have often?", reply)
    assert set(answered.parts) == {"Worried about exams", "Tired in the morning"}, answered.sentence


def test_a_filter_on_a_value_that_is_a_column_s_header_reads_that_column(feelings: Survey) -> None:
    # a 1.5B model takes the column "Sometimes" for a value of the Feeling column
    reply = _reply(operation="count", target="never", filters=[{"column": "feeling", "value": "Sometimes"}],
                   group="feeling", threshold={"column": "never", "above": True, "value": 50})
    planned, answered = _plan(feelings, "For how many feelings did more than 50% of pupils say sometimes?", reply)
    assert planned.target is not None and planned.target.name == "sometimes"
    assert answered.value == "2", answered.sentence


def test_a_filter_on_the_rows_own_noun_is_no_filter_and_a_value_holding_the_model_s_words_is_the_value(
        feelings: Survey) -> None:
    reply = _reply(operation="count", target="often", filters=[{"column": "feeling", "value": "feelings"}],
                   group="feeling", threshold={"column": "often", "above": True, "value": 30})
    _, answered = _plan(feelings, "How many feelings did more than 30% of pupils have often?", reply)
    assert answered.value == "2", answered.sentence
    reply = _reply(operation="value", target="never", filters=[{"column": "feeling", "value": "lonely"}])
    _, answered = _plan(feelings, "What share of pupils never feel lonely?", reply)
    assert answered.value.startswith("48"), answered.sentence


def test_the_column_the_question_names_by_its_whole_header_is_the_target(feelings: Survey) -> None:
    reply = _reply(operation="value", target="never", filters=[{"column": "feeling", "value": "Tired in the morning"}])
    planned, answered = _plan(feelings, "What percentage of pupils are often tired in the morning?", reply)
    assert planned.target is not None and planned.target.name == "often"
    assert answered.value.startswith("55.5"), answered.sentence


def test_a_count_of_rows_from_the_text_needs_a_passage_stating_it_beside_what_it_counts() -> None:
    # after no plan over the rows passed its checks, "how many notices ..." answered "2" is no answer because "2"
    # is printed somewhere; a passage must say it of the notices
    from core.answering.run_state import _states_a_count

    asked = ("notices", "affected", "employees")
    assert _states_a_count(12.0, asked, ["The state received 12 WARN notices in the second quarter."])
    assert _states_a_count(3.0, asked, ["Notices filed by retailers: 3 in all."])
    assert not _states_a_count(2.0, asked, ["Table 2 lists the notices by city.", "Employees affected 2,450"])


@pytest.mark.parametrize(("question", "reply", "figure"), [
    ("Across all the feelings listed, what is the mean share of pupils who sometimes feel that way?",
     _reply(operation="average", target="sometimes", group="feeling"), (55.0 + 41.0 + 38.0 + 54.0) / 4),
    # the model's sum where the question asks an average, over every row "of the feelings listed"
    ("On average, what percentage of pupils often have each of the feelings listed?",
     _reply(operation="sum", target="often", group="feeling"), (32.5 + 11.0 + 55.5 + 25.0) / 4),
])
def test_an_average_over_every_row_the_question_names_by_its_kind(feelings: Survey, question: str,
                                                                   reply: dict[str, Any], figure: float) -> None:
    _, answered = _plan(feelings, question, reply)
    assert float(answered.value.rstrip("%")) == pytest.approx(figure, abs=0.006), answered.sentence


def test_a_model_plan_over_count_and_percentage_rows_reads_the_kind_asked(tmp_path: Path) -> None:
    # each difficulty prints a Count row and a Percentage row; the model's count past "90%" keeps every row of both
    table = [["Difficulty", "Figure", "Not at all", "Quite a lot"],
             ["Noise", "Count", "150", "20"], ["Noise", "Percentage", "88.2", "11.8"],
             ["Heat", "Count", "160", "10"], ["Heat", "Percentage", "94.1", "5.9"],
             ["Damp", "Count", "165", "5"], ["Damp", "Percentage", "97.1", "2.9"]]
    library = drawn_library(tmp_path, "Table 2: Difficulties tenants reported", table, [60, 200, 300, 400, 500],
                            name="difficulties.pdf")
    runner = SqlRunner(library.path)
    try:
        view = load_table_view(library, next(iter(library.tables())))
        distinct = distinct_values(runner.run, view)
        reading = read("For how many of the difficulties did over 90% of tenants say it bothered them not at all?")
        reply = _reply(operation="count", target="not_at_all", group="difficulty",
                       threshold={"column": "not_at_all", "above": True, "value": 90})
        planned = model_query.from_model(reply, view, reading, distinct)
        assert table_query.execute(planned, reading, runner.run).value == "2"  # Heat and Damp, of the Percentage rows
    finally:
        runner.close()
        library.close()


def test_so_many_things_named_with_the_most_is_a_ranking() -> None:
    asked = read("Name the 3 EU-12 towns with the most burglaries")
    assert asked.query is not None and (asked.query.operation, asked.query.limit) == ("top", 3), asked.query
    assert asked.query.group == "eu-12 towns" and asked.query.target == "burglaries", asked.query


def test_how_many_of_the_things_were_one_kind_is_that_row_s_number_not_a_count_of_it(tmp_path: Path) -> None:
    table = [["Item format", "Number of items", "Percent of items"], ["Total", "135", "100"],
             ["Multiple choice", "74", "55"], ["Constructed response", "61", "45"]]
    library = drawn_library(tmp_path, "Table A-4. Test items by format", table, [60, 240, 360, 480], name="items.pdf")
    runner = SqlRunner(library.path)
    try:
        view = load_table_view(library, next(iter(library.tables())))
        distinct = distinct_values(runner.run, view)
        reading = read("How many of the test items were multiple choice?")
        reply = _reply(operation="count", target="pct_of_items",
                       filters=[{"column": "item_format", "value": "Multiple choice"}])
        planned = model_query.from_model(reply, view, reading, distinct)
        assert table_query.execute(planned, reading, runner.run).value == "74"
    finally:
        runner.close()
        library.close()


def _survey(factory: pytest.TempPathFactory, caption: str, rows: list[list[str]],
            columns: list[float] | None = None) -> Iterator[Survey]:
    """A made-up table drawn, ingested (``_drawn``) and closed after the module's tests."""
    for library in _drawn(factory, caption, rows, columns):
        yield Survey(library, [])


@pytest.fixture(scope="module")
def symptoms(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    """How often pupils have a symptom (made up): values that share a word."""
    yield from _survey(tmp_path_factory, "Table 7: How often pupils have symptoms (%)", [
        ["Symptom", "Weekly", "Never"], ["Feeling low", "22.0", "35.0"], ["Feeling nervous", "30.0", "41.0"],
        ["Feeling dizzy", "8.0", "62.0"], ["Headache", "25.0", "20.0"], ["Back pain", "12.0", "28.0"]])


def test_a_word_several_values_hold_keeps_every_row_holding_it(symptoms: Survey) -> None:
    # "feeling" names no one row: it keeps the three "Feeling ..." rows (Back pain, 28, is not one of them)
    reply = _reply(operation="count", target="never", filters=[{"column": "symptom", "value": "Feeling"}],
                   threshold={"column": "never", "above": True, "value": 25})
    planned, answered = _plan(symptoms, "Of the feeling symptoms, how many did more than 25% of pupils never have?",
                              reply)
    assert [c.values for c in planned.conditions] == [("Feeling low", "Feeling nervous", "Feeling dizzy")]
    assert answered.value == "3", answered.sentence
    # a word the question does not say is no filter at all
    with pytest.raises(ValueError, match="not a value of symptom"):
        _plan(symptoms, "How many symptoms were never felt by over 25% of pupils?", reply)


@pytest.fixture(scope="module")
def clinic_costs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    """What a clinic's cost lines came to (made up): a totals row that prints the words of a column."""
    yield from _survey(tmp_path_factory, "Table 2: Clinic costs by category, 2023", [
        ["Cost category", "Total costs", "Federal share"], ["Salaries", "420000", "120000"],
        ["Office rent", "96000", "30000"], ["Travel", "150000", "20000"], ["Supplies", "38000", "9000"],
        ["Total costs", "704000", "179000"]])


def test_a_word_several_values_share_names_no_row_for_the_model_s_filter(symptoms: Survey) -> None:
    # "feelings" is said, but it singles out none of "Feeling low", "Feeling nervous", "Feeling dizzy"
    reply = _reply(operation="count", target="never", filters=[{"column": "symptom", "value": "Feeling low"}],
                   threshold={"column": "never", "above": True, "value": 30})
    planned, answered = _plan(symptoms, "How many feelings did more than 30 percent of pupils never have?", reply)
    assert planned.conditions == ()
    assert answered.value == "3", answered.sentence
    # a word only one value holds names it
    reply = _reply(operation="value", target="never", filters=[{"column": "symptom", "value": "Feeling dizzy"}])
    _, answered = _plan(symptoms, "What share of pupils never feel dizzy?", reply)
    assert answered.value.startswith("62"), answered.sentence


def test_the_words_of_the_column_read_are_no_filter_on_a_row_that_prints_them(clinic_costs: Survey) -> None:
    reply = _reply(operation="count", target="total_costs", group="cost_category",
                   filters=[{"column": "cost_category", "value": "Total costs"}],
                   threshold={"column": "total_costs", "above": True, "value": 90000})
    planned, answered = _plan(clinic_costs, "For how many lines of cost were total costs above $90,000?", reply)
    assert planned.conditions == ()
    assert answered.value == "3", answered.sentence


@pytest.fixture(scope="module")
def indicators(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    """A district's key indicators (made up): headings printed as rows, the unit said by the heading only."""
    rows = [["Indicator", "Total", "Rural"],
            ["Awareness of flu and measles (%)", "", ""], ["Women who have heard of measles", "91.5", "88.0"],
            ["Women who know where to get a measles jab", "62.0", "55.5"],
            ["Children vaccinated against measles", "84.0", "80.5"], ["Households (number)", "", ""],
            ["Households surveyed", "1,204", "860"]]
    yield from _survey(tmp_path_factory, "Table 1: Key indicators of the district", rows, [40, 300, 400, 500])


def test_a_value_the_model_shortens_is_the_row_the_question_names_and_its_heading_s_unit_is_kept(
        indicators: Survey) -> None:
    # "measles" is in three rows (and a heading): the one whose words the question says most of
    reply = _reply(operation="value", target="total", filters=[{"column": "indicator", "value": "measles"}])
    planned, answered = _plan(indicators, "Share of women who have heard of measles?", reply)
    assert [c.values for c in planned.conditions] == [("Women who have heard of measles",)]
    assert answered.value == "91.5%", answered.sentence  # a percentage, as the heading over the row says


@pytest.fixture(scope="module")
def ward_visits(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    """Visits to a hospital's wards (made up): counts by ward, the county's total printed last as a row of its own."""
    yield from _survey(tmp_path_factory, "Table 3: Visits by ward, 2022", [
        ["Ward", "Visits", "Staff"], ["Maternity", "1,200", "40"], ["Surgery", "2,600", "85"],
        ["Children", "800", "30"], ["Outpatients", "3,400", "45"], ["Westshire", "8,000", "200"]])


@pytest.fixture(scope="module")
def reading_habits(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    """How often pupils read for fun (made up): counts of pupils, the answers printed under one heading."""
    yield from _survey(tmp_path_factory, "Table 5: Pupils by how often they read for fun", [
        ["Pupils", "Reads for fun: daily", "Reads for fun: weekly", "Reads for fun: never"],
        ["Boys", "45", "90", "15"], ["Girls", "120", "60", "20"]], [40, 160, 280, 400, 520])


def test_a_share_planned_as_a_row_s_figure_is_the_row_s_part_of_the_whole_the_question_names(
        ward_visits: Survey, reading_habits: Survey) -> None:
    # the whole named first is the column's: the visits; the part, the row the question names after it
    reply = _reply(operation="value", target="visits", filters=[{"column": "ward", "value": "Surgery"}])
    planned, answered = _plan(ward_visits, "What share of the visits were to the surgery ward?", reply)
    assert planned.operation == "share"
    assert answered.value == "32.5%", answered.sentence  # 2,600 of the printed total 8,000
    # the whole named first is a row's (the boys): the row's own total across the answers printed beside the target
    reply = _reply(operation="sum", target="reads_for_fun_daily", filters=[{"column": "pupils", "value": "Boys"}])
    _, answered = _plan(reading_habits, "What percentage of the boys read for fun daily?", reply)
    assert answered.value == "30%", answered.sentence  # 45 of 45 + 90 + 15
    # a row's own total that no group of columns adds up to is no share code can take: declined, not the column's
    with pytest.raises(ValueError, match="own total"):
        _plan(ward_visits, "What share of the surgery ward's people were staff?",
              _reply(operation="value", target="staff", filters=[{"column": "ward", "value": "Surgery"}]))


def test_the_totals_row_a_question_names_is_neither_the_part_of_a_share_nor_a_row_averaged(
        ward_visits: Survey) -> None:
    library = ward_visits.library
    assert library.tables()[0].total_rows, "the county's row is found to be the totals at extraction"
    # "Westshire's visits" name the whole, "the children's ward" the part: the part is not taken for a row under it
    reply = _reply(operation="value", target="visits", filters=[{"column": "ward", "value": "Children"}])
    planned, answered = _plan(ward_visits, "What share of Westshire's visits went to the children's ward?", reply)
    assert [c.values for c in planned.conditions] == [("Children",)]
    assert answered.value == "10%", answered.sentence
    # an average over the wards kept to the county's totals row is one over the wards
    reply = _reply(operation="average", target="visits", filters=[{"column": "ward", "value": "Westshire"}])
    planned, answered = _plan(ward_visits, "How many visits did a Westshire ward have on average?", reply)
    assert [c.values for c in planned.conditions] == [("Maternity", "Surgery", "Children", "Outpatients")]
    assert answered.value == "2,000", answered.sentence


def test_two_values_of_one_column_are_either_row_or_for_a_share_the_part_and_the_whole(ward_visits: Survey) -> None:
    reply = _reply(operation="sum", target="visits", filters=[{"column": "ward", "value": "Maternity"},
                                                             {"column": "ward", "value": "Children"}])
    _, answered = _plan(ward_visits, "How many visits did the maternity and children's wards have together?", reply)
    assert answered.value == "2,000", answered.sentence
    reply = _reply(operation="sum", target="visits", filters=[{"column": "ward", "value": "Outpatients"},
                                                             {"column": "ward", "value": "Maternity"}])
    _, answered = _plan(ward_visits, "Maternity visits were what percentage of outpatient visits?", reply)
    assert answered.value.startswith("35.29"), answered.sentence  # 1,200 of 3,400


def test_on_average_how_many_counted_by_a_figure_column_is_its_average(ward_visits: Survey) -> None:
    reply = _reply(operation="count", target="staff", group="ward")
    planned, answered = _plan(ward_visits, "On average, how many staff did each ward have?", reply)
    assert planned.operation == "average"
    assert answered.value == "50", answered.sentence  # (40 + 85 + 30 + 45) / 4, the totals row aside


@pytest.fixture(scope="module")
def ballots(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    """Turnout at a town's polling places on two ballot questions (made up)."""
    yield from _survey(tmp_path_factory, "Table 2: Turnout by polling place", [
        ["Ballot question", "Polling place", "Turnout (%)"],
        ["Ferry timetable", "Ferry Road Hall", "38.0"], ["Ferry timetable", "Mill Lane School", "35.5"],
        ["Ferry timetable", "Church Street Library", "52.0"], ["Library hours", "Ferry Road Hall", "61.0"],
        ["Library hours", "Mill Lane School", "33.0"], ["Library hours", "Church Street Library", "58.0"]],
        [40, 180, 340, 460])


def test_a_word_that_names_one_filter_s_value_does_not_name_another_column_s_as_well(ballots: Survey) -> None:
    # "ferry" names the ballot question; the polling place "Ferry Road Hall" the model adds is not asked
    reply = _reply(operation="count", target="pct_turnout", group="polling_place",
                   filters=[{"column": "ballot_question", "value": "Ferry timetable"},
                            {"column": "polling_place", "value": "Ferry Road Hall"}],
                   threshold={"column": "pct_turnout", "above": False, "value": 40})
    planned, answered = _plan(ballots, "On the ferry timetable question, at how many polling places was turnout "
                                       "under 40%?", reply)
    assert [c.column.name for c in planned.conditions] == ["ballot_question"]
    assert answered.value == "2", answered.sentence


def test_a_filter_on_a_word_of_one_figure_column_s_header_reads_that_column(reading_habits: Survey) -> None:
    reply = _reply(operation="count", target="reads_for_fun_daily", filters=[{"column": "pupils", "value": "never"}],
                   group="pupils", threshold={"column": "reads_for_fun_daily", "above": True, "value": 16})
    planned, answered = _plan(reading_habits, "In how many groups did more than 16 pupils never read for fun?", reply)
    assert planned.target is not None and planned.target.name == "reads_for_fun_never"
    assert answered.value == "1", answered.sentence


@pytest.fixture(scope="module")
def fire_causes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    """What caused a county's fires (made up): a count and its percentage of the total."""
    yield from _survey(tmp_path_factory, "Table 9: Causes of house fires", [
        ["Cause", "Fires", "Share (%)"], ["Cooking", "52", "38.2"], ["Heaters", "31", "22.8"],
        ["Wiring", "21", "15.4"], ["Lightning", "11", "8.1"], ["Candles", "9", "6.6"], ["Smoking", "8", "5.9"],
        ["Other", "4", "2.9"], ["Total", "136", "100.0"]])


def test_a_bound_said_as_no_percentage_is_of_the_column_of_counts_not_the_percentages(fire_causes: Survey) -> None:
    reply = _reply(operation="list", target="share", group="cause",
                   threshold={"column": "share", "above": False, "value": 10})
    _, answered = _plan(fire_causes, "Which causes were behind fewer than 10 fires?", reply)
    assert list(answered.parts) == ["Candles", "Smoking", "Other"], answered.sentence
    _, answered = _plan(fire_causes, "Which causes were behind less than 10% of all fires?", reply)
    assert list(answered.parts) == ["Lightning", "Candles", "Smoking", "Other"], answered.sentence


@pytest.fixture(scope="module")
def market_levels(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    """A town's grocery chains (made up): their outlets and their share of the town's sales."""
    yield from _survey(tmp_path_factory, "Table 3: Grocery chains in the town", [
        ["Chain", "Outlets", "Share of sales (%)"], ["Arco", "45", "31.0"], ["Bellmart", "12", "24.5"],
        ["Cormo", "30", "8.0"], ["Dunn", "6", "2.5"]])


@pytest.fixture(scope="module")
def single_ages(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    """A town's people by age band (made up), no total printed."""
    yield from _survey(tmp_path_factory, "Table 1: Residents by age", [
        ["Age", "Residents"], ["0-4 years", "310"], ["5-9 years", "290"], ["10-14 years", "305"],
        ["15-19 years", "280"]])


def test_a_bound_over_percentages_the_question_names_stays_and_bands_without_a_printed_whole_are_no_share(
        market_levels: Survey, single_ages: Survey) -> None:
    reply = _reply(operation="list", target="outlets", group="chain",
                   threshold={"column": "share_of_sales", "above": True, "value": 20})
    _, answered = _plan(market_levels, "Which chains had a share of sales above 20?", reply)
    assert list(answered.parts) == ["Arco", "Bellmart"], answered.sentence
    # the bands' rows may be only part of a table printed over several pages: their share of no printed whole
    reply = _reply(operation="value", target="residents", filters=[{"column": "age", "value": "Under 10 years"}])
    with pytest.raises(ValueError, match="does not print"):
        _plan(single_ages, "What share of the residents were under 10 years old?", reply)


@pytest.fixture(scope="module")
def regions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    """Letters a ministry received by country (made up): two blocs, each closed by its total, then the rest."""
    yield from _survey(tmp_path_factory, "Table 6: Letters received by country", [
        ["Country", "Letters"], ["Arland", "150"], ["Borvia", "120"], ["Cestia", "90"], ["Total North", "360"],
        ["Dunmark", "130"], ["Estovia", "40"], ["Total South", "170"], ["Elsewhere", "210"]])


def test_a_bloc_named_by_its_totals_row_is_the_rows_it_adds_up_and_the_bound_is_no_filter(regions: Survey) -> None:
    reply = _reply(operation="count", target="letters", group="country",
                   filters=[{"column": "country", "value": "North"}, {"column": "country", "value": "100"}],
                   threshold={"column": "letters", "above": True, "value": 100})
    planned, answered = _plan(regions, "How many North countries sent more than 100 letters?", reply)
    assert [c.values for c in planned.conditions] == [("Arland", "Borvia", "Cestia")]
    assert answered.value == "2", answered.sentence


@pytest.fixture(scope="module")
def town_growth(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Survey]:
    """How fast a county's towns grew (made up), in per cent per decade, and the share of their adults by schooling."""
    yield from _survey(tmp_path_factory, "Table 4: Growth of the towns (%)", [
        ["Town", "2001-2011", "Schooling 0-2", "Schooling 3-4"], ["Ashby", "12.5", "31", "52"],
        ["Brill", "18.0", "12", "60"], ["Corfe", "6.5", "44", "40"], ["Dunster", "9.0", "27", "55"]],
        [40, 160, 260, 360, 460])


def test_which_row_ranks_first_by_a_superlative_the_grammar_did_not_read_is_a_ranking(town_growth: Survey) -> None:
    # a lookup of a town the question does not name (the model's filler) is the town ranked first
    reply = _reply(operation="value", target="y2001_2011", filters=[{"column": "town", "value": "Ashby"}],
                   group="town")
    planned, answered = _plan(town_growth, "Which town grew fastest between 2001 and 2011?", reply)
    assert planned.operation == "top"
    assert answered.parts[0].startswith("Brill"), answered.sentence
    # "0-2" in a code is no figure a bound is of: the model's "below 0" is no threshold
    reply = _reply(operation="max", target="schooling_0_2", group="town",
                   threshold={"column": "schooling_0_2", "above": False, "value": 0})
    planned, answered = _plan(town_growth, "Which town had the highest share of adults with at most lower "
                                           "schooling (level 0-2)?", reply)
    assert planned.thresholds == ()
    assert answered.parts[0].startswith("Corfe"), answered.sentence


def test_words_of_the_document_s_title_name_no_column_a_plan_leaves_unread(tmp_path: Path) -> None:
    # "the dredging programme" is what the document is about (its title), not the Dredging column: the model's sum
    # of every site's total volume reads all the question asks
    rows = [["Site", "Dredging (m3)", "Disposal (m3)", "Total volume (m3)"], ["North quay", "1,200", "300", "1,500"],
            ["Ferry berth", "800", "200", "1,000"], ["Marina", "400", "100", "500"]]
    with drawn_library(tmp_path, "Table 2: Volumes by site", rows, [40, 180, 300, 420, 540]) as library, \
            closing(SqlRunner(library.path)) as runner:
        view = load_table_view(library, library.tables()[0])
        distinct = distinct_values(runner.run, view)
        question = "What was the total volume moved by the harbour dredging programme?"
        reply = _reply(operation="sum", target="total_volume")
        with pytest.raises(ValueError, match="unread"):
            model_query.from_model(reply, view, read(question), distinct)
        planned = model_query.from_model(reply, view, read(question), distinct, "Harbour dredging programme 2024")
        assert table_query.execute(planned, read(question), runner.run).value == "3,000"


def test_a_quarter_said_in_words_names_the_row_printed_as_q_and_its_number(tmp_path: Path) -> None:
    rows = [["Period", "Oslo", "Bergen"], ["Q3 2009", "0.31", "0.12"], ["Q4 2009", "0.27", "0.18"],
            ["Q1 2009 - Q4 2009", "0.35", "0.22"]]
    with drawn_library(tmp_path, "Table 3: Price correlation by city", rows, [40, 200, 320, 440]) as library, \
            closing(SqlRunner(library.path)) as runner:
        view = load_table_view(library, library.tables()[0])
        question = read("Bergen's correlation for the fourth quarter of 2009 by itself?")
        reply = _reply(operation="value", target="bergen", filters=[{"column": "period", "value": "Q4 2009"}])
        planned = model_query.from_model(reply, view, question, distinct_values(runner.run, view))
        assert table_query.execute(planned, question, runner.run).value == "0.18"


def test_a_plan_over_rows_compared_with_their_other_figure_keeps_those_rows(tmp_path: Path) -> None:
    rows = [["Complaint", "Boys", "Girls"], ["Asthma", "41", "35"], ["Eczema", "18", "29"], ["Migraine", "12", "30"]]
    with drawn_library(tmp_path, "Table 6: Pupils reporting each complaint", rows, [40, 200, 320, 440]) as library, \
            closing(SqlRunner(library.path)) as runner:
        view = load_table_view(library, library.tables()[0])
        question = read("Which complaints were reported by more girls than boys?")
        reply = {"operation": "count", "target": "girls", "filters": [], "group": "complaint"}
        planned = model_query.from_model(reply, view, question, distinct_values(runner.run, view))
        assert list(table_query.execute(planned, question, runner.run).parts) == ["Eczema", "Migraine"]


def test_the_rows_under_the_heading_the_question_lists_by_whatever_filter_the_model_made_up(tmp_path: Path) -> None:
    rows = [["Indicator", "Total (%)"], ["Daily habits (%)", ""], ["Eats breakfast", "81"], ["Walks to school", "45"],
            ["Screen time over 2 hours", "62"], ["Sport and leisure (%)", ""], ["Plays sport", "70"],
            ["Visits library", "20"]]
    with drawn_library(tmp_path, "Table 4: Pupils' habits", rows, [40, 300, 420]) as library, \
            closing(SqlRunner(library.path)) as runner:
        view = load_table_view(library, library.tables()[0])
        question = read("which eating, walking or screen habits did over half of the pupils have?")
        reply = {"operation": "list", "target": "pct_total", "filters": [{"column": "indicator", "value": "Screen habits"}],
                 "group": "indicator", "threshold": {"column": "pct_total", "above": True, "value": 50}}
        planned = model_query.from_model(reply, view, question, distinct_values(runner.run, view))
        assert list(table_query.execute(planned, question, runner.run).parts) == ["Eats breakfast",
                                                                                   "Screen time over 2 hours"]


def test_a_filter_the_model_makes_of_the_table_s_own_title_names_no_row(tmp_path: Path) -> None:
    rows = [["Indicator", "Total (%)"], ["Daily habits (%)", ""], ["Eats breakfast", "81"], ["Walks to school", "45"],
            ["Screen time over 2 hours", "62"], ["Sport and leisure (%)", ""], ["Plays sport", "70"],
            ["Visits library", "20"]]
    with drawn_library(tmp_path, "Table 4: Pupils' habits in the Hill Street survey", rows, [40, 300, 420]) as library, \
            closing(SqlRunner(library.path)) as runner:
        view = load_table_view(library, library.tables()[0])
        distinct = distinct_values(runner.run, view)
        # a filter made of the words of the table's title names no row: left out, the row asked kept
        question = read("What share of pupils in the Hill Street survey walk to school?")
        reply = _reply(operation="value", target="pct_total", filters=[
            {"column": "indicator", "value": "Walks to school"}, {"column": "indicator", "value": "Hill Street survey"}])
        planned = model_query.from_model(reply, view, question, distinct)
        assert table_query.execute(planned, question, runner.run).value.startswith("45"), planned


def test_a_share_of_the_row_a_department_is_printed_under_is_of_that_row(tmp_path: Path) -> None:
    # "what percentage of the Ministry of Transport's funds": the ministry's row is the whole (the row the
    # department is printed under), not a part of the column's total
    rows = [["Ministry or department", "Budget"], ["Ministry of Transport", "500"], ["Department of Roads", "300"],
            ["Department of Rail", "200"], ["Ministry of Health", "400"]]
    with drawn_library(tmp_path, "Table 1: Budget by ministry", rows, [40, 300, 420]) as library, \
            closing(SqlRunner(library.path)) as runner:
        view = load_table_view(library, library.tables()[0])
        question = read("The Department of Roads takes what percentage of the Ministry of Transport's funds?")
        reply = _reply(operation="value", target="budget",
                       filters=[{"column": "ministry_or_department", "value": "Ministry of Transport"}])
        planned = model_query.from_model(reply, view, question, distinct_values(runner.run, view))
        assert table_query.execute(planned, question, runner.run).value == "60%"  # 300 of 500


def test_a_count_the_model_gives_from_the_text_is_one_a_passage_states_beside_what_it_counts() -> None:
    # whatever plan was tried: "2" (a figure printed somewhere, or the model's own counting) is no count of the
    # harbours; "12 harbours" stated is; and a list of rows asked is answered by no bare figure
    from core.answering.prompts import Context
    from core.answering.run_state import AnswererBase, Run

    def usable(question: str, passage: str, text: str) -> bool:
        run = Run(question, Context(question))
        run.read_passages = [passage]
        run.read = [passage]
        return AnswererBase._usable_text(AnswererBase.__new__(AnswererBase), run, text)

    stated = "The authority runs 12 harbours along the coast; 2 of its reports cover dredging."
    assert usable("How many harbours does the authority run?", stated, "12")
    assert usable("How many harbours does the authority run?", "It runs three harbours and a marina.", "3")
    assert not usable("How many harbours does the authority run?", "Table 2 lists the ports. Depth 2 m.", "2")
    assert not usable("Which harbours had more than 5 berths?", stated, "2")
    assert usable("Which harbours had more than 5 berths?", "Kelby and Arnmouth had more than 5 berths.", "Kelby, Arnmouth")


def test_a_value_of_no_row_for_an_average_asked_is_that_average(register: Register) -> None:  # noqa: F811
    """"avg employees affected per notice" planned as one cell of no row: the average the question asks."""
    planned, answered = _plan(register, "avg employees affected per notice?",
                              _reply(operation="value", target="employees_affected"))
    assert planned.operation == "average"
    mean = sum(r[3] for r in register.rows) / len(register.rows)
    assert answered.value.split()[0] == f"{mean:,.2f}".rstrip("0").rstrip("."), answered.sentence
