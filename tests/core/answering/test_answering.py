"""The TableRAG loop's control flow, driven by a scripted chat model over a real (drawn) report:
decomposition -> SQL -> answer; bounded repairs with the error fed back; text fallback; the five-
iteration limit; conflicts; citations with the cells' real pages and boxes; the naive baseline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.answering import Answerer
from core.errors import Cancelled
from core.jobs import JobContext
from models.errors import ModelUnavailable
from models.protocols import Embedder
from models.types import Step
from tests.core.answering.test_answering_library import TABLE_NAME, ReportFixture, ScriptedChat, report  # noqa: F401

pytestmark = pytest.mark.unit

DIFFERENCE_QUESTION = "What was the change in Roads spending from 2018 to 2019?"


def make(report: ReportFixture, chat: ScriptedChat, **options: object) -> Answerer:  # noqa: F811
    return Answerer(report.library, report.retriever, report.runner, chat, **options)  # type: ignore[arg-type]


def ask(text: str) -> dict[str, str]:
    return {"action": "ask", "text": text}


SQL_OK = {"source": "sql", "text_answer": "", "conflict": False}


def test_arithmetic_question_goes_to_compiled_sql_with_cell_citations(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue(
        # no decomposition call: arithmetic over a table must start with SQL, on the question itself
        # older year first on purpose: a change is newer minus older, whatever order the model gives
        {"operation": "difference", "cells": [{"row": "Roads", "column": "y2018"}, {"row": "Roads", "column": "y2019"}]},
        SQL_OK,
    )
    steps: list[Step] = []
    streamed: list[str] = []
    answer = make(report, chat).answer(DIFFERENCE_QUESTION, on_step=steps.append, on_token=streamed.append)

    # The answer is a sentence made in code: operation, labelled operands, scale, source.
    assert answer.text == ("Roads rose by 10.5 million, from 110 million (2018) to 120.5 million (2019); "
                           "source: City Budget Report 2019, p. 1, Table 1.")
    assert answer.value == "10.5 million" and answer.status == "unchecked"  # no passage states the figure
    assert "".join(streamed) == answer.text
    assert answer.usage.calls == 2 == len(chat.calls)
    # Where the calls and their prompt tokens went, by kind of call.
    assert [(kind, calls) for kind, calls, _ in answer.task_usage] == [("Operation choice", 1), ("Check against the text", 1)]
    assert sum(tokens for _, _, tokens in answer.task_usage) == answer.usage.prompt_tokens
    assert "cells" in chat.calls[0]["schema"]["properties"]
    assert [s.subquery for s in steps] == [DIFFERENCE_QUESTION] == [s.subquery for s in answer.steps]
    step = answer.steps[0]
    assert step.sql is not None and "v1 - v2" in step.sql and TABLE_NAME in step.sql
    assert step.sql_result == ((10.5,),)
    assert step.sql_error is None

    # The operation step was constrained to the table's real row labels and column names.
    schema = chat.calls[0]["schema"]
    cell = schema["properties"]["cells"]["items"]["properties"]
    assert set(cell["row"]["enum"]) == {"Roads", "Parks", "Schools", "Libraries", "Total"}
    assert set(cell["column"]["enum"]) == {"y2019", "y2018"}
    assert "Hint: the sub-question looks like a difference" in chat.prompt(0)

    # Every call shares the system message and the context block (a stable prefix for the KV cache).
    prefixes = {c["messages"][0].content for c in chat.calls}
    assert len(prefixes) == 1
    bodies = [c["messages"][1].content for c in chat.calls]
    shared = bodies[0].split("QUESTION:")[0]
    assert all(b.startswith(shared) for b in bodies) and "| Roads | 120.5 | 110 |" in shared

    table_citations = [c for c in answer.citations if c.kind == "table" and c.sql]
    assert len(table_citations) == 1
    citation = table_citations[0]
    assert citation.document == "budget_report.pdf" and citation.page == 1
    assert citation.result == ((10.5,),)
    by_column = {c.column: c for c in citation.cells}
    assert set(by_column) == {"y2019", "y2018"}
    assert by_column["y2019"].text == "120.5" and by_column["y2019"].bbox == report.cell_boxes[(1, 1)]
    assert by_column["y2018"].text == "110.0" and by_column["y2018"].bbox == report.cell_boxes[(1, 2)]
    assert all(c.page == 1 and c.row == 1 for c in citation.cells)


def test_structured_choice_errors_get_two_repairs_then_text_fallback(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    bad = [{"operation": "sum", "cells": [{"row": "Bridges", "column": column} for column in columns]}
           for columns in (["y2019"], ["y2018"], ["y2019", "y2018"])]  # three replies, each naming no real row
    chat.queue(ask("What was the spending on roads and bridges in 2019?"), *bad, {"answer": "not reported"})
    answer = make(report, chat).answer("What was the spending on roads and bridges in 2019?")

    assert len(chat.calls) == 5  # decompose, 1 + 2 repairs, text answer
    assert "There is no row labelled 'Bridges'" not in chat.prompt(1)
    assert "There is no row labelled 'Bridges'" in chat.prompt(2)
    assert chat.prompt(3).count("There is no row labelled 'Bridges'") == 2
    assert "SQL could not answer it" in chat.prompt(4)
    step = answer.steps[0]
    assert step.sql_error is not None and "Bridges" in step.sql_error
    # Every failed attempt is on the step, not only the last one.
    assert step.failures[-3:] == ("Operation choice: There is no row labelled 'Bridges'.",) * 3
    assert "No table row" in step.failures[0]  # the code's own lookup, tried first, named no row either
    # Neither SQL nor the text answered: a refusal naming the closest table and passages, no figure.
    assert answer.status == "refused" and answer.value == ""
    assert answer.text.startswith("The library does not seem to hold the answer")
    assert "The closest I found, in City Budget Report 2019: Table 1: Budget by department (p. 1); " in answer.text
    assert answer.citations and all(not c.sql for c in answer.citations)


def test_a_model_reply_that_fails_is_shown_on_the_step_not_swallowed(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue({"operation": "difference", "cells": [{"row": "Roads", "column": "y2019"},
                                                     {"row": "Roads", "column": "y2018"}]},
               "I am not sure the text says anything about it.")  # the cross-check reply is not JSON
    answer = make(report, chat).answer(DIFFERENCE_QUESTION)

    assert answer.value == "10.5 million"  # the figure stands: SQL computed it
    failures = answer.steps[0].failures
    # The formula code tried first ("roads spending" is no label: the row is "Roads"), then the bad reply.
    assert len(failures) == 2 and "No table row" in failures[0]
    assert failures[1].startswith("Check against the text: The model replied without JSON")


def test_a_repair_answered_with_the_same_reply_is_given_up_at_once(report: ReportFixture) -> None:  # noqa: F811
    # a small model at temperature 0 repeats a reply the error did not move it from: a third call would spend the
    # question's time on the same reply, so the text answers after the first repeat
    chat = ScriptedChat()
    bad = {"operation": "sum", "cells": [{"row": "Bridges", "column": "y2019"}]}
    chat.queue(ask("What was the spending on roads and bridges in 2019?"), bad, bad, {"answer": "not reported"})
    answer = make(report, chat).answer("What was the spending on roads and bridges in 2019?")

    assert len(chat.calls) == 4  # decompose, the choice, its repair (the same reply), text answer
    assert "SQL could not answer it" in chat.prompt(3)
    assert answer.steps[0].failures[-2:] == ("Operation choice: There is no row labelled 'Bridges'.",
                                             "Operation choice: the same reply again after the repair; given up")
    assert answer.status == "refused"


def test_free_sql_error_is_fed_back_and_repaired(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    question = "What was the total 2019 spending on road maintenance and new playgrounds?"  # labels say neither: SQL
    chat.queue(
        {"sql": f"SELECT SUM(amount_2019) FROM {TABLE_NAME} WHERE department IN ('Roads', 'Parks')"},
        {"sql": f"SELECT SUM(y2019) FROM {TABLE_NAME} WHERE department IN ('Roads', 'Parks')"},
        SQL_OK,
    )
    answer = make(report, chat, sql_style="free").answer(question)

    assert "no such column: amount_2019" in chat.prompt(1) and "no such column" not in chat.prompt(0)
    assert "y2019 REAL" in chat.prompt(0)  # free style sees the column types
    assert answer.value == "200.5 million"
    assert answer.text.startswith("Roads, 2019 and Parks, 2019 add up to 200.5 million")
    citation = next(c for c in answer.citations if c.sql)
    assert citation.label == "City Budget Report 2019, p. 1, Table 1: Budget by department"
    # The rows the statement read, found by re-running its WHERE, and the columns it names.
    assert {(c.row, c.column) for c in citation.cells} == {
        (1, "department"), (1, "y2019"), (2, "department"), (2, "y2019")}
    assert all(c.bbox == report.cell_boxes[(c.row, 0 if c.column == "department" else 1)] for c in citation.cells)


def test_empty_sql_result_falls_back_to_text(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    question = "How much did libraries get in 2019?"
    empty = {"operation": "lookup", "cells": [{"row": "Libraries", "column": "y2019"}]}
    chat.queue(ask(question), empty, empty, {"answer": "moved to the culture budget"})
    answer = make(report, chat).answer(question)

    assert len(chat.calls) == 4  # the repair answered with the same reply: the text answers next
    assert "empty" in chat.prompt(2)
    assert "Libraries has numbers in: y2018." in chat.prompt(2)  # the repair says which cell is filled
    step = answer.steps[0]
    assert step.sql_result == ((4, "Libraries", None),) and "empty" in (step.sql_error or "")
    assert answer.text == "moved to the culture budget" and answer.status == "text"
    assert any(c.kind == "text" and c.page == 1 and c.bbox for c in answer.citations)
    assert not any(c.sql for c in answer.citations)


def test_loop_stops_after_five_iterations(report: ReportFixture) -> None:  # noqa: F811
    subqueries = [f"Which department is listed in row {n}{n}?" for n in range(1, 8)]

    def reply(messages: object, schema: dict | None) -> dict:  # type: ignore[type-arg]
        props = (schema or {}).get("properties", {})
        if "items" in props:  # the model reads the question the grammar could not: a line, as the grammar did
            return {"answer": "figure", "operation": "lookup", "items": ["school plans"], "periods": []}
        if "action" in props:
            return ask(subqueries.pop(0))
        if "operation" in props:
            return {"operation": "lookup", "cells": [{"row": "Parks", "column": "y2019"}]}
        return SQL_OK

    chat = ScriptedChat(fallback=reply)
    answer = make(report, chat).answer("Compare every department with the council's school plans")
    assert len(answer.steps) == 5
    # 1 reading of the question ("compare every department with ..." is no measure the grammar composes),
    # then 5 x (decompose, operation, check)
    assert len(chat.calls) == 16
    assert "items" in chat.calls[0]["schema"]["properties"]
    assert answer.value == "80 million"  # the last intermediate answer when no final one came
    assert answer.text.startswith("Parks, 2019: 80 million; source: City Budget Report 2019, p. 1")


READ_AS_PASSAGE = {"answer": "figure", "operation": "lookup", "items": ["park spending"], "periods": []}
"""The model's reading of a question the grammar leaves words of: a line, the same as the grammar's."""


def test_direct_answer_and_step_answers_by_the_decomposer(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue(
        READ_AS_PASSAGE,
        ask("How much did parks get in 2019?"),
        {"operation": "lookup", "cells": [{"row": "Parks", "column": "y2019"}]},
        SQL_OK,
        ask("How much did parks get in 2018?"),
        {"operation": "lookup", "cells": [{"row": "Parks", "column": "y2018"}]},
        SQL_OK,
        {"action": "answer", "text": "80 million in 2019 and 75.5 million in 2018"},
    )
    answer = make(report, chat).answer("Tell me about park spending over the years and what explains it.")
    assert [s.intermediate_answer for s in answer.steps] == ["80 million", "75.5 million"]
    assert answer.text == "80 million in 2019 and 75.5 million in 2018"
    assert "STEPS DONE\n1. How much did parks get in 2019? -> 80 million" in chat.prompt(7)
    assert len([c for c in answer.citations if c.sql]) == 2
    assert answer.answer_type == "lookup" and {s.answer_type for s in answer.steps} == {"lookup"}


def test_a_bare_figure_the_model_reads_off_a_table_gets_its_cell_s_unit(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue(
        READ_AS_PASSAGE,
        ask("How much did parks get in 2019?"),
        {"operation": "lookup", "cells": [{"row": "Parks", "column": "y2019"}]},
        SQL_OK,
        {"action": "answer", "text": "80"},  # the figure alone, as small models often write it
    )
    answer = make(report, chat).answer("Tell me about park spending over the years and what explains it.")
    assert answer.text == answer.value == "80 million"


def test_conflict_between_sql_and_text_is_flagged(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    question = "How much did schools get in 2019?"
    # 38 is a figure a passage holds (the gardeners of 2018): the text really says something else.
    chat.queue(ask(question), {"operation": "lookup", "cells": [{"row": "Schools", "column": "y2019"}]},
               {"source": "sql", "text_answer": "38 million", "conflict": True})
    answer = make(report, chat).answer(question)
    assert answer.value == "300.25 million" and answer.status == "conflict"
    assert "38 million" in answer.steps[0].conflict
    assert answer.to_json()["steps"][0]["conflict"] and answer.to_json()["status"] == "conflict"
    assert any(c.sql for c in answer.citations) and any(c.kind == "text" for c in answer.citations)


def test_a_conflict_with_a_figure_no_passage_holds_is_not_one(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    question = "How much did schools get in 2019?"
    chat.queue(ask(question), {"operation": "lookup", "cells": [{"row": "Schools", "column": "y2019"}]},
               {"source": "sql", "text_answer": "310 million", "conflict": True})
    answer = make(report, chat).answer(question)
    assert answer.value == "300.25 million" and answer.status == "unchecked" and not answer.steps[0].conflict


def test_a_text_answer_whose_figures_a_passage_holds_is_given(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    question = "How many gardeners were employed in 2019?"
    chat.queue({"answer": "42 gardeners"})
    answer = make(report, chat).answer(question)
    assert answer.text == "42 gardeners" and answer.status == "text"
    (passage,) = [c for c in answer.citations if c.kind == "text" and c.page == 2]
    assert passage.label == "City Budget Report 2019, p. 2"


def test_a_text_answer_with_a_figure_no_passage_holds_is_refused(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    question = "How many gardeners were employed in 2019?"
    chat.queue({"answer": "1000000000"})
    answer = make(report, chat).answer(question)
    # The model's figure is in no passage: not given. The passage that states the figure answers instead.
    assert answer.status == "text" and "1000000000" not in answer.text and answer.value == "42"
    assert "\u201cthe parks department employed 42 gardeners in 2019" in answer.text


def test_a_question_whose_subject_the_library_mostly_does_not_name_is_refused(report: ReportFixture) -> None:  # noqa: F811
    """"Spent" is in the report, defence and the armed forces are not: no model call, no figure."""
    chat = ScriptedChat()
    answer = make(report, chat).answer("What was spent on defence and the armed forces in 2019?")
    assert chat.calls == [] and answer.status == "refused"


def test_a_computed_figure_the_text_copies_from_a_cell_is_refused(report: ReportFixture) -> None:  # noqa: F811
    """A difference no passage states: a text answer giving a figure only a table cell holds (120.5, the
    2019 value) is a copy, not the change asked for."""
    chat = ScriptedChat()
    chat.queue({"operation": "none", "cells": []}, {"answer": "120.5 million"})
    answer = make(report, chat, max_iterations=1).answer(DIFFERENCE_QUESTION)
    assert answer.status == "refused" and "120.5" not in answer.text


def test_an_empty_library_is_answered_without_a_model_call(tmp_path: Path, hash_embedder: Embedder) -> None:
    from core.library.store import Library
    from core.search.retrieval import Retriever
    from core.sql.runner import SqlRunner

    library = Library.in_directory(tmp_path)
    runner = SqlRunner(library.path)
    try:
        chat = ScriptedChat()
        events: list[str] = []
        answer = Answerer(library, Retriever(library, hash_embedder), runner, chat).answer(  # type: ignore[arg-type]
            "What was the total budget in 2024?", JobContext(lambda e: events.append(e.stage)))
        assert chat.calls == [] and answer.status == "refused" and answer.text.startswith("Add a PDF first")
        assert events == ["done"]
    finally:
        runner.close()
        library.close()


def test_stages_are_reported_in_order(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue({"operation": "difference", "cells": [{"row": "Roads", "column": "y2019"},
                                                     {"row": "Roads", "column": "y2018"}]}, SQL_OK)
    events: list[tuple[str, str]] = []
    make(report, chat).answer(DIFFERENCE_QUESTION, JobContext(lambda e: events.append((e.stage, e.message))))
    stages = [stage for stage, _ in events if stage != "step"]
    assert stages == ["searching", "reading", "computing", "reading", "checking", "writing", "done"]
    assert ("reading", "Reading Table 1: Budget by department") in events


def test_stop_during_a_model_call_ends_the_call(report: ReportFixture) -> None:  # noqa: F811
    """The loop checks for a stop on every token the model generates, not only between steps."""
    ctx = JobContext()
    chat = ScriptedChat()

    def reply(messages: object, schema: dict | None) -> str:  # type: ignore[type-arg]
        ctx.token.cancel()  # the person presses Stop while the model is writing
        return json.dumps({"operation": "lookup", "cells": [{"row": "Roads", "column": "y2019"}]})

    chat.fallback = reply
    with pytest.raises(Cancelled):
        make(report, chat).answer(DIFFERENCE_QUESTION, ctx)
    assert len(chat.calls) == 1


def test_decomposer_may_not_answer_arithmetic_before_a_step(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue({"operation": "none", "cells": []}, {"answer": "unknown"})
    answer = make(report, chat, max_iterations=1).answer(DIFFERENCE_QUESTION)
    assert [c["schema"]["required"] for c in chat.calls] == [["operation", "cells"], ["answer"]]
    assert answer.steps[0].subquery == DIFFERENCE_QUESTION and answer.steps[0].sql is None


def test_model_failure_and_cancellation_propagate(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue(ModelUnavailable("Ollama is not reachable"))
    with pytest.raises(ModelUnavailable):
        make(report, chat).answer(DIFFERENCE_QUESTION)
    ctx = JobContext()
    ctx.token.cancel()
    with pytest.raises(Cancelled):
        make(report, ScriptedChat()).answer(DIFFERENCE_QUESTION, ctx)


def test_naive_mode_is_one_call_over_markdown_chunks(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue("10.5 million")
    tokens: list[str] = []
    answer = make(report, chat, mode="naive").answer(DIFFERENCE_QUESTION, on_token=tokens.append)
    assert answer.text == "10.5 million" and answer.mode == "naive" and answer.status == "text"
    assert len(chat.calls) == 1 and chat.calls[0]["schema"] is None
    assert f"Table {TABLE_NAME}" in chat.prompt(0) and "| Roads |" in chat.prompt(0)
    assert "".join(tokens).strip() == "10.5 million"
    table_citation = next(c for c in answer.citations if c.kind == "table")
    assert table_citation.table == TABLE_NAME and table_citation.page == 1 and not table_citation.cells
    assert answer.usage.calls == 1 and answer.usage.prompt_tokens > 0


def test_options_are_checked(report: ReportFixture) -> None:  # noqa: F811
    with pytest.raises(ValueError, match="mode"):
        make(report, ScriptedChat(), mode="magic")
    with pytest.raises(ValueError, match="sql_style"):
        make(report, ScriptedChat(), sql_style="yolo")
    assert make(report, ScriptedChat(), max_iterations=9).max_iterations == 5


def test_text_only_question_skips_the_table(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue({"answer": "the parks department"})
    answer = make(report, chat).answer("Who employed the gardeners?")
    # The linked table names no gardeners, so no operation step is asked for: one call, the passage answer.
    assert len(chat.calls) == 1 and "words from the text" in (answer.steps[0].sql_error or "")
    assert answer.text == "the parks department"
    assert any(c.kind == "text" and c.page == 2 for c in answer.citations)


def test_arithmetic_on_a_table_that_names_nothing_asked_falls_back_to_text(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    answer = make(report, chat).answer("What is the average statutory surplus within allocation of retained profits?")
    # Nothing retrieved names a surplus, an allocation or profits: refused without a model call.
    assert chat.calls == [] and answer.status == "refused"
    # The only step shows what code tried: no table prints the line for two periods to average.
    assert [s.sql for s in answer.steps] == [None] and "no table prints it" in answer.steps[0].failures[0]
    assert answer.text.startswith("The library does not seem to hold the answer") and answer.citations


def test_without_a_final_answer_the_step_nearest_the_question_answers(report: ReportFixture) -> None:  # noqa: F811
    """A side step taken on the way (a difference) must not replace the answer to the question asked."""
    chat = ScriptedChat()
    chat.queue(
        ask("How much did parks get in 2019?"),
        {"operation": "lookup", "cells": [{"row": "Parks", "column": "y2019"}]},
        SQL_OK,
        ask("What was the change in Roads spending from 2018 to 2019?"),
        {"operation": "difference", "cells": [{"row": "Roads", "column": "y2019"}, {"row": "Roads", "column": "y2018"}]},
        SQL_OK,
        ask("How much did parks get in 2019?"),  # asked again: the loop stops with what it has
    )
    answer = make(report, chat).answer("How much money did parks get from the council in 2019?")
    assert [s.intermediate_answer for s in answer.steps] == ["80 million", "10.5 million"]
    assert answer.value == "80 million"


def test_ranking_question_is_held_to_a_ranking_over_the_rows(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()  # no reply queued: the query plan ranks the rows, no model call
    answer = make(report, chat).answer("Which department's spending grew the most from 2018 to 2019?")
    assert chat.calls == []
    assert answer.value == "Schools"  # a row-label answer: the label, the change stays in the sentence
    assert answer.text.startswith("Schools grew the most from 2018 to 2019: +20.25 million, from 280 million to "
                                  "300.25 million (ranked by amount over 4 rows"), answer.text
    (citation,) = [c for c in answer.citations if c.sql]
    assert {(c.column, c.text) for c in citation.cells} == {("y2019", "300.25"), ("y2018", "280.0")}


def test_explanation_question_is_answered_from_the_text_even_when_a_table_shares_its_words(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue({"answer": "because of the harsh winter"})
    answer = make(report, chat).answer("Why did road spending grow in 2019?")
    # The budget table has a Roads row and a 2019 column, but "why" is the text's to answer: no SQL.
    assert len(chat.calls) == 1 and answer.steps[0].sql is None
    assert "explanation" in (answer.steps[0].sql_error or "")
    assert answer.text == "because of the harsh winter"
    assert any(c.kind == "text" and c.page == 1 for c in answer.citations)


def test_an_explanation_the_text_does_not_give_is_refused_without_sql(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue({"answer": "not stated"})
    answer = make(report, chat).answer("Why did road spending grow in 2019?")
    # The question itself was put to the passages, which do not answer it: no sub-questions, no SQL.
    assert len(chat.calls) == 1 and answer.steps[0].sql is None
    assert answer.status == "refused" and answer.value == ""


@pytest.mark.parametrize(("question", "explanation"), [
    ("How is the salary growth rate for overseas plans determined?", True),
    ("Why did sales decrease by 9% from 2020 to 2021?", True),
    ("What does order intake represent?", True),
    ("How often does the board revisit the impairment assumptions?", True),
    ("How much did revenue grow from 2018 to 2019?", False),
    ("How many employees were there in 2019?", False),
    ("How did revenue change from 2018 to 2019?", False),
    ("What is the 2021 average employee savings plans?", False),
    ("What was the total revenue in 2019?", False),
])
def test_explanation_questions_are_told_from_questions_for_figures(question: str, explanation: bool) -> None:
    from core.answering.reading import read

    assert read(question).explains is explanation


def test_a_question_answers_within_its_time_budget_with_what_was_found(report: ReportFixture) -> None:  # noqa: F811
    """A slow model (each call takes 1.5 s here) meets a 5-second budget: no call starts with less time left than
    one needs (4 s), the answer comes within the budget, says where it stopped, and the stop is on the steps."""
    import time

    def slow(messages: object, schema: dict | None) -> dict:  # type: ignore[type-arg]
        time.sleep(1.5)
        props = (schema or {}).get("properties", {})
        if "items" in props:
            return {"answer": "figure", "operation": "lookup", "items": ["school plans"], "periods": []}
        if "action" in props:
            return ask("How much did schools get in 2019?")
        if "operation" in props:
            return {"operation": "lookup", "cells": [{"row": "Schools", "column": "y2019"}]}
        return SQL_OK

    chat = ScriptedChat(fallback=slow)
    answerer = Answerer(report.library, report.retriever, report.runner, chat, time_budget=5.0)  # type: ignore[arg-type]
    started = time.perf_counter()
    answer = answerer.answer("Compare every department with the council's school plans")
    assert time.perf_counter() - started < 5.0
    assert len(chat.calls) <= 1  # after the reading (1.5 s) less than a call's worth was left for the next
    assert "Stopped at the 5-second limit" in answer.text
    assert any("Time: stopped" in f for s in answer.steps for f in s.failures)


def test_a_share_outside_0_to_100_goes_back_to_the_model(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue(
        # the whole first: 500.75 / 80 = 625.94%, which no share of a whole can be; the repair names why
        {"operation": "percentage", "cells": [{"row": "Total", "column": "y2019"}, {"row": "Parks", "column": "y2019"}]},
        {"operation": "percentage", "cells": [{"row": "Parks", "column": "y2019"}, {"row": "Total", "column": "y2019"}]},
        SQL_OK,
    )
    chat.fallback = lambda *_: SQL_OK
    # (words no table prints, "upkeep": code reads no plan, and the model chooses the cells)
    answer = make(report, chat).answer("What share of the budget's 2019 spending went on parks upkeep?")
    assert "15.98" in answer.value, answer.text
    repairs = [c for c in chat.calls if "cannot be 625.94%" in c["messages"][-1].content]
    assert len(repairs) == 1


def test_a_call_stopped_at_the_time_limit_is_counted_with_its_seconds(report: ReportFixture) -> None:  # noqa: F811
    """A model still generating when the question's time is up is stopped; the call it was is counted (calls,
    generated tokens, seconds), not lost from the answer's usage; the answer still comes within the limit."""
    import time

    from models.types import ChatReply

    class Streaming:
        name = "streaming"

        def chat(self, messages: Any, schema: Any = None, max_tokens: int = 256, on_token: Any = None,
                 **_: Any) -> ChatReply:
            for _ in range(200):  # 20 s of tokens, far past the budget
                time.sleep(0.1)
                if on_token is not None:
                    on_token("x")
            raise AssertionError("the time limit never stopped the call")

    answerer = Answerer(report.library, report.retriever, report.runner, Streaming(), time_budget=6.0)  # type: ignore[arg-type]
    started = time.perf_counter()
    answer = answerer.answer("Compare every department with the council's school plans")
    assert time.perf_counter() - started < 6.0  # stopped early enough to word the answer within the limit
    assert "Stopped at the 6-second limit" in answer.text
    assert answer.usage.calls == 1 and answer.usage.completion_tokens >= 10 and answer.usage.seconds >= 4.0
    assert [calls for _task, calls, _tokens in answer.task_usage] == [1]


def test_a_figure_alone_is_no_answer_to_why(report: ReportFixture) -> None:  # noqa: F811
    """"Why" or "how" is answered in words; a model that answers one with a bare figure gives no answer."""
    chat = ScriptedChat()
    chat.queue({"answer": "4.00%"})
    answer = make(report, chat).answer("Why did road spending grow in 2019?")
    assert answer.status == "refused" and "4.00" not in answer.value
    chat = ScriptedChat()
    chat.queue({"answer": "on an annual basis"})
    assert make(report, chat).answer("Why did road spending grow in 2019?").text == "on an annual basis"


def test_a_percentage_asked_is_not_answered_with_a_ratio_or_an_amount_of_the_cells_chosen(
        report: ReportFixture) -> None:  # noqa: F811
    # the plan's own check (an amount where a percentage is asked goes back) holds for the cells the model chooses
    question = "What proportion of the 2019 spending was spent on parks upkeep?"  # "upkeep": code reads no plan
    cells = [{"row": "Parks", "column": "y2019"}, {"row": "Total", "column": "y2019"}]
    chosen: list[str] = []

    def model(_messages: Any, schema: dict[str, Any] | None) -> Any:
        properties = (schema or {}).get("properties", {})
        if "cells" in properties:
            chosen.append("ratio" if not chosen else "percentage")
            return {"operation": chosen[-1], "cells": cells}
        return SQL_OK if "source" in properties else {"answer": "not reported"}

    answer = make(report, ScriptedChat(fallback=model)).answer(question)
    assert chosen == ["ratio", "percentage"]
    assert any("a percentage is asked, and this gives none" in f for s in answer.steps for f in s.failures)
    assert answer.value == "15.98%", answer.text
