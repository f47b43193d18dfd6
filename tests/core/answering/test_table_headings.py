"""Rows printed under headings of their own (a label, no figure): a question may name a row by the heading it stands
under ("library spending" for the Library row under "Spending:"), and a heading it names keeps its rows. Ruled
tables are drawn, ingested for real and asked with no model call."""

from __future__ import annotations

import pytest

from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library

pytestmark = pytest.mark.unit


def test_a_row_is_named_by_the_heading_it_stands_under(tmp_path_factory: pytest.TempPathFactory) -> None:
    rows = [["Item", "2024", "2025"],
            ["Spending:", "", ""], ["Services:", "", ""], ["Library", "412", "430"], ["Parks", "388", "395"],
            ["Roads", "1,020", "1,110"],
            ["Income:", "", ""], ["Council tax", "1,650", "1,720"], ["Parking fees", "140", "152"]]
    library = drawn_library(tmp_path_factory.mktemp("council"), "Table 3. Council budget (in thousands of pounds)",
                            rows, [40, 220, 320, 420])
    try:
        answer = ask_without_model(library, "What is the planned library spending for 2025?")
        assert answer.value == "430 thousand", answer.text
    finally:
        library.close()
