"""A footnote's number printed flat on a label's last word ("Bonus plans1") is no word of the line: the line asked
is found under it. A made-up remuneration table is drawn, ingested for real and asked with no model call."""

from __future__ import annotations

import pytest

from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library

pytestmark = pytest.mark.unit


def test_a_line_whose_label_carries_a_glued_footnote_number_is_found(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["(in millions)", "2021", "2020"], ["Fees and salaries", "7", "6"], ["Bonus plans1", "5", "2"],
            ["Pension contributions2", "", "1"], ["Total", "12", "9"]]
    library = drawn_library(tmp_path_factory.mktemp("pay"), "Directors' remuneration", rows, [40, 240, 330, 420])
    try:
        answer = ask_without_model(library, "What is the average bonus plans between 2020 and 2021?")
    finally:
        library.close()
    assert answer.value.startswith("3.5"), answer.text
