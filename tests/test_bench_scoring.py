"""The TAT-QA bench's scorer (tests/bench/bench_tatqa.py) scores what Folio answered as TAT-QA predictions are: a
text answer is the one span it is, however many "and"s its words hold; several figures or labels are several."""

from __future__ import annotations

import pytest

from tests.bench.bench_tatqa import prediction_of, tatqa_score

pytestmark = pytest.mark.unit


def test_a_text_answer_is_one_span_and_a_list_is_several() -> None:
    gold = {"answer": ["audit fees and tax compliance fees"], "answer_type": "span", "scale": ""}
    assert tatqa_score(gold, prediction_of("audit fees and tax compliance fees", [], "text"))[0] == 1.0
    assert tatqa_score(gold, prediction_of("audit fees and tax compliance fees", [], "row_labels"))[0] == 0.0
    several = {"answer": ["Lease", "Loans"], "answer_type": "multi-span", "scale": ""}
    assert tatqa_score(several, prediction_of("Lease and Loans", [], "row_labels"))[0] == 1.0
    assert tatqa_score(several, prediction_of("Lease and Loans", ["Lease", "Loans"], "text"))[0] == 1.0
