"""Comparisons read from the question (several issuers the library knows, or periods set against each other),
split into one question per figure, and combined in code: a difference and a ratio, a change between periods,
a ranking, figures in different scales brought to one, percentages compared in points, and a missing figure
said, never guessed. Companies here are invented."""

from __future__ import annotations

import pytest

from core.answering.comparison import ISSUER, PERIOD, combine, comparison_of
from core.answering.reading import read
from models.types import Answer, CellEvidence, Citation

pytestmark = pytest.mark.unit

GROUPS = (("northgate tools", "northgate"), ("alder systems", "alder"), ("harbour foods", "harbour"))
NAMES = tuple(name for group in GROUPS for name in group)


def compared(question: str):  # type: ignore[no-untyped-def]
    return comparison_of(read(question, NAMES), GROUPS)


@pytest.mark.parametrize(("question", "subjects", "measure", "when", "rank"), [
    ("Compare Northgate's and Alder's operating margin in 2021", ("Northgate", "Alder"), "operating margin",
     "in 2021", ""),
    ("Compare the net income of Alder and Northgate in 2020", ("Alder", "Northgate"), "net income", "in 2020", ""),
    ("How does Northgate's revenue in FY2019 compare with Alder's?", ("Northgate", "Alder"), "revenue", "in FY2019",
     ""),
    ("Which of Northgate, Alder and Harbour had the highest net income in 2020?", ("Northgate", "Alder", "Harbour"),
     "net income", "in 2020", "max"),
    ("Which company had the lower cost of sales in 2019, Harbour Foods or Alder?", ("Harbour Foods", "Alder"),
     "cost of sales", "in 2019", "min"),
])
def test_several_issuers_the_library_knows_are_a_comparison(question: str, subjects: tuple[str, ...], measure: str,
                                                            when: str, rank: str) -> None:
    found = compared(question)
    assert found is not None and found.by == ISSUER
    assert (found.subjects, found.measure, found.when, found.rank) == (subjects, measure, when, rank)
    assert found.questions()[0] == f"What was {subjects[0]}'s {measure} {when}?"


def test_periods_set_against_each_other_are_a_comparison() -> None:
    found = compared("What was Alder's revenue in 2018 vs 2020?")
    assert found is not None and found.by == PERIOD and found.owner == "Alder" and found.years == (2018, 2020)
    assert found.questions() == ["What was Alder's revenue in 2018?", "What was Alder's revenue in 2020?"]
    found = compared("What were Northgate's total assets in 2019 vs 2020?")
    assert found is not None and found.questions()[0] == "What was Northgate's total assets in 2019?"
    found = compared("Northgate gross profit FY2019 versus FY2020")
    assert found is not None and found.questions() == ["What was Northgate's gross profit in FY2019?",
                                                       "What was Northgate's gross profit in FY2020?"]


@pytest.mark.parametrize("question", [
    "What was Northgate's revenue in 2020?",  # one issuer, one period
    "What was the change in Alder's revenue from 2018 to 2020?",  # periods of a change, not set against each other
    "How much larger was Northgate's revenue in 2020 than in 2019?",
    "What were Northgate's charges against goodwill in 2019 and 2020?",  # periods not set against each other
    "What was the underlying change in Alder's sales in FY2020 vs FY2019?",  # one figure over both periods
    "Compare Acme's and Zenith's revenue in 2020",  # issuers the library does not know
    "Why did Northgate's revenue fall compared to Alder's?",  # asks for an explanation
])
def test_other_questions_are_no_comparison(question: str) -> None:
    assert compared(question) is None


def _answer(question: str, value: str, document_id: int, cell: str, status: str = "unchecked") -> Answer:
    cells = (CellEvidence(f"t{document_id}", 3, "y2020", cell, 1, (0.0, 0.0, 1.0, 1.0)),) if cell else ()
    citation = Citation("table", f"report{document_id}.pdf", document_id, 1, None, cell, table=f"t{document_id}",
                        sql="SELECT 1", cells=cells)
    return Answer(question, f"{value}.", (citation,) if cell else (), status=status, value=value)


def test_two_issuers_give_the_difference_and_ratio_with_each_source() -> None:
    comparison = compared("Compare Northgate's and Alder's net income in 2020")
    assert comparison is not None
    first, second = comparison.questions()
    answer = combine(comparison, [_answer(first, "$4,898 million", 1, "4,898"), _answer(second, "$2.7 billion", 2, "2.7")])
    # 4,898 million against 2,700 million: the scales are brought to one before anything is computed
    assert answer.value == "$2,198 million"
    assert answer.text.startswith("Northgate's net income in 2020 was $4,898 million, $2,198 million higher than "
                                  "Alder's ($2,700 million), 1.81 times as much.")
    assert "| Northgate | $4,898 million | [1] |" in answer.text and "| Alder | $2,700 million | [2] |" in answer.text
    assert "| Difference | +$2,198 million | |" in answer.text
    assert [c.document_id for c in answer.citations] == [1, 2]
    assert answer.steps[-1].intermediate_answer == "$4,898 million - $2,700 million = $2,198 million"


def test_percentages_are_compared_in_points_and_a_ranking_names_the_first() -> None:
    comparison = compared("Which of Northgate, Alder and Harbour had the highest operating margin in 2020?")
    assert comparison is not None
    answers = [_answer(q, v, i, v) for i, (q, v) in enumerate(zip(comparison.questions(), ("12.5%", "21.1%", "8%")), 1)]
    answer = combine(comparison, answers)
    assert answer.value == "Alder" and answer.answer_type == "row_labels"
    assert answer.text.startswith("Alder had the highest operating margin in 2020: 21.1%, ahead of Northgate (12.5%) "
                                  "and Harbour (8%).")
    two = compared("Compare Northgate's and Alder's operating margin in 2020")
    assert two is not None
    answer = combine(two, answers[:2])
    assert answer.value == "-8.6 percentage points" and "8.6 percentage points lower than Alder's" in answer.text


def test_a_change_between_periods_is_newer_less_older() -> None:
    comparison = compared("What was Alder's revenue in 2020 vs 2018?")
    assert comparison is not None
    newer, older = comparison.questions()
    answer = combine(comparison, [_answer(newer, "21,880 thousand", 2, "21,880"), _answer(older, "22,741 thousand", 2, "22,741")])
    assert answer.value == "-861 thousand"
    assert answer.text.startswith("Alder's revenue was 21,880 thousand in 2020 against 22,741 thousand in 2018: a change "
                                  "of -861 thousand (-3.8%) from 2018 to 2020.")


def test_a_missing_figure_is_said_and_nothing_is_computed() -> None:
    comparison = compared("Compare Northgate's and Alder's net income in 2020")
    assert comparison is not None
    first, second = comparison.questions()
    answer = combine(comparison, [_answer(first, "4,898 thousand", 1, "4,898"),
                                  _answer(second, "", 2, "", status="refused")])
    assert answer.value == "" and answer.status == "unchecked"
    assert answer.text.startswith("No comparison: no figure of net income was found for Alder. Found: Northgate "
                                  "(4,898 thousand).")
    assert "| Alder | not found | |" in answer.text
    refused = combine(comparison, [_answer(first, "", 1, "", "refused"), _answer(second, "", 2, "", "refused")])
    assert refused.status == "refused" and refused.value == ""
