"""Follow-up questions read against the conversation before them: what a question leaves out (issuer, period,
measure) comes from the earlier question by substitution into its words; what it names itself wins; a full
question, a remark and the first question of a conversation carry nothing. Companies here are invented."""

from __future__ import annotations

import pytest

from core.answering.followup import understood
from core.answering.reading import read

pytestmark = pytest.mark.unit

ISSUERS = ("northgate tools", "northgate", "alder systems", "alder", "harbour foods", "harbour")
EXPENSE = "What was Northgate's research and development expense in 2019?"


def follow(question: str, *earlier: str) -> str | None:
    return understood(read(question, ISSUERS), earlier, ISSUERS)


@pytest.mark.parametrize(("question", "written"), [
    # a period for the period
    ("and in 2018?", "What was Northgate's research and development expense in 2018?"),
    ("FY2017?", "What was Northgate's research and development expense in FY2017?"),
    ("and the year before?", "What was Northgate's research and development expense in 2018?"),
    # an issuer for the issuer, the measure and the period kept
    ("and for Alder?", "What was Alder's research and development expense in 2019?"),
    ("How about Harbour Foods?", "What was Harbour Foods's research and development expense in 2019?"),
    # a measure for the measure, the issuer ("its") and the period kept
    ("what about its net income?", "What was Northgate's net income in 2019?"),
    ("Operating cash flow?", "What was Northgate's operating cash flow in 2019?"),
    # a question of its own whose pronoun stands for what was asked before
    ("why did it fall?", "Why did Northgate's research and development expense fall in 2019?"),
    ("Why did that happen?", "Why did Northgate's research and development expense change in 2019?"),
    ("How much did it spend on marketing in 2018?", "How much did Northgate spend on marketing in 2018?"),
    ("And what was net income in 2018?", "What was Northgate's net income in 2018?"),
])
def test_a_follow_up_is_written_out_in_full(question: str, written: str) -> None:
    assert follow(question, "What was Alder's revenue in 2017?", EXPENSE) == written  # the most recent one counts


def test_the_operation_asked_before_carries_over_with_its_line() -> None:
    change = "What was the change in Alder's revenue from 2018 to 2019?"
    assert follow("and in 2020?", change) == "What was the change in Alder's revenue from 2019 to 2020?"
    assert follow("what about net income?", change) == "What was the change in Alder's net income from 2018 to 2019?"
    assert follow("and for Northgate?", change) == "What was the change in Northgate's revenue from 2018 to 2019?"
    margin = "What was Harbour's operating margin in FY2020?"
    assert follow("and FY2019?", margin) == "What was Harbour's operating margin in FY2019?"


def test_a_follow_up_of_a_comparison_compares_again() -> None:
    compared = "Compare Northgate's and Alder's net income in 2020"
    assert follow("and in 2019?", compared) == "Compare Northgate's and Alder's net income in 2019"
    assert follow("what about revenue?", compared) == "Compare Northgate's and Alder's revenue in 2020"
    assert follow("and for Harbour?", compared) == "What was Harbour's net income in 2020?"


def test_follow_ups_chain_through_the_questions_as_understood() -> None:
    first = follow("and in 2018?", EXPENSE)
    assert first is not None
    assert follow("and for Alder?", EXPENSE, first) == "What was Alder's research and development expense in 2018?"


@pytest.mark.parametrize("question", [
    "What was Alder's net income in 2018?",  # names everything itself
    "What was net income in 2018?",  # a question of its own: the library routes it as it stands
    "Thanks",  # a remark
    "What can you do?",  # nothing in it stands for the measure
    "and?",
])
def test_a_question_that_stands_alone_carries_nothing(question: str) -> None:
    assert follow(question, EXPENSE) is None


def test_the_first_question_of_a_conversation_carries_nothing() -> None:
    assert follow("and in 2018?") is None
    assert follow("what about its net income?") is None
