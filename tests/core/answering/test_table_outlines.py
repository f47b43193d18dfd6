"""Tables printed as outlines: a group's row ("Members aged 18 to 39") with the rows under it ("Walkers",
"Cyclists"), whose labels repeat under every group. A question naming a group and a row under it reads that one
row, by code's plan and by the model's (whose 1.5B reply often keeps the group's row alone); a question naming a
row under a group that prints none says nothing from another group's rows. The table is drawn as a ruled PDF
and ingested for real; the model is scripted (its control flow), bench_tables.py measures the real one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.answering import model_query, table_query
from core.answering.operations import load_table_view
from core.answering.query_step import distinct_values
from core.answering.reading import read
from core.library.store import Library
from core.reports.table_naming import PARENT_COLUMN, SECTION_COLUMN
from core.sql.runner import SqlRunner
from models.types import ColumnSchema
from tests.core.answering.test_table_query import ask_without_model
from tests.core.answering.test_table_units import drawn_library

pytestmark = pytest.mark.unit

# label, members 2022, members 2023, share 2023 (%)  (made up); "Walkers" and "Cyclists" repeat under each group
OUTLINE = [
    ("All members", 9_870, 10_415, 100.0),
    ("Walkers", 4_210, 4_388, 42.1),
    ("Cyclists", 2_950, 3_120, 30.0),
    ("Aged 18 to 39", 3_405, 3_712, 100.0),
    ("Walkers", 1_204, 1_333, 35.9),
    ("Cyclists", 1_377, 1_460, 39.3),
    ("Aged 40 to 64", 4_120, 4_301, 100.0),
    ("Walkers", 1_806, 1_849, 43.0),
    ("Cyclists", 1_090, 1_177, 27.4),
    ("Open water swimmers", 402, 431, 10.0),
    ("Aged 65 and over", 2_345, 2_402, 100.0),
    ("Walkers", 1_200, 1_206, 50.2),
    ("Cyclists", 483, 483, 20.1),
]


@pytest.fixture(scope="module")
def outline(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    header = [["Group", "2022 Members", "2023 Members", "2023 Percent"]]
    body = [[label, f"{a:,}", f"{b:,}", f"{p:.1f}"] for label, a, b, p in OUTLINE]
    library = drawn_library(tmp_path_factory.mktemp("outline"), "Table 3. Club members by age group and activity",
                            header + body, [60, 250, 350, 450, 550])
    yield library
    library.close()


def _figure(label: str, under: str, column: int) -> int:
    group = next(i for i, row in enumerate(OUTLINE) if row[0] == under)
    return int(next(row for row in OUTLINE[group + 1:] if row[0] == label)[column])


@pytest.mark.parametrize(("question", "label", "under", "column"), [
    ("How many members aged 40 to 64 were cyclists in 2023?", "Cyclists", "Aged 40 to 64", 2),
    ("How many walkers aged 65 and over did the club have in 2022?", "Walkers", "Aged 65 and over", 1),
    ("How many of the members aged 40 to 64 were open water swimmers in 2022?", "Open water swimmers",
     "Aged 40 to 64", 1),
])
def test_a_row_under_the_group_the_question_names(outline: Library, question: str, label: str, under: str,
                                                  column: int) -> None:
    answer = ask_without_model(outline, question)
    assert answer.value == f"{_figure(label, under, column):,}", answer.text
    assert f"under {under}" in answer.text  # the answer says which of the rows so labelled it read


def test_rows_joined_by_and_are_two_rows_not_one_under_the_other(outline: Library) -> None:
    rows = [r for r in OUTLINE if r[0] in ("Aged 18 to 39", "Aged 40 to 64")]
    answer = ask_without_model(outline, "How many members were aged 18 to 39 or aged 40 to 64 in 2023?")
    assert "under" not in answer.text
    if answer.value is not None:  # two groups added up, or no figure: never one group under the other
        assert answer.value == f"{sum(r[2] for r in rows):,}", answer.text


def test_a_row_the_group_does_not_print_takes_no_other_group_s_row(outline: Library) -> None:
    # "Open water swimmers" is printed under the 40 to 64 group only: none of its figure is the 18 to 39 group's
    answer = ask_without_model(outline, "How many members aged 18 to 39 were open water swimmers in 2023?")
    assert answer.value != "431" and "431" not in answer.text.split("(")[0], answer.text


def test_the_model_s_plan_on_the_group_s_row_reads_the_row_under_it(outline: Library) -> None:
    question = "How many members aged 18 to 39 were walkers in 2022?"
    reply: dict[str, Any] = {"operation": "count", "target": "y2022_members",
                             "filters": [{"column": "group_value", "value": "Aged 18 to 39"}], "group": "group_value",
                             "limit": 1, "descending": True, "threshold": {"column": "", "above": True, "value": 0}}
    runner = SqlRunner(outline.path)
    try:
        view = load_table_view(outline, next(iter(outline.tables())))
        distinct = distinct_values(runner.run, view)
        reading = read(question)
        planned = model_query.from_model(reply, view, reading, distinct)
        answered = table_query.execute(planned, reading, runner.run)
    finally:
        runner.close()
    assert answered.value == f"{_figure('Walkers', 'Aged 18 to 39', 1):,}", answered.sentence
    assert len(answered.cells) == 1


# region heading, then stores with 2023 and 2024 sales, each region's total, and a grand total printed unlabelled
SALES = {"Coastal:": None, "Harbour Street": (412, 455), "Pier Road": (388, 391), "Total Coastal": (800, 846),
         "Inland:": None, "Mill Lane": (297, 310), "Quarry Hill": (515, 560), "Total Inland": (812, 870),
         "": (1_612, 1_716)}


@pytest.fixture(scope="module")
def regions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    header = [["Store", "2024", "2023"]]
    body = [[label, *(("", "") if figures is None else (f"{figures[1]:,}", f"{figures[0]:,}"))]
            for label, figures in SALES.items()]
    library = drawn_library(tmp_path_factory.mktemp("regions"), "Note 4. Sales by region and store (in thousands)",
                            header + body, [60, 260, 360, 460])
    yield library
    library.close()


def test_a_region_s_share_is_of_the_grand_total_the_table_prints(regions: Library) -> None:
    answer = ask_without_model(regions, "What share of 2024 sales came from the Inland stores?")
    assert answer.value == f"{870 * 100 / 1_716:.1f}%", answer.text
    assert "1,716" in answer.text  # the whole is the total printed, not the total counted twice


def test_the_heading_rows_are_under_is_said_once(regions: Library) -> None:
    """Where extraction also wrote each row's section into a column of its own, the answer names the heading once
    ("the rows under Inland"), not again as the section's and the parent's values."""
    view = load_table_view(regions, next(iter(regions.tables())))
    label = view.label_column
    assert label is not None
    section, parent = (ColumnSchema(name, "TEXT", name.title()) for name in (SECTION_COLUMN, PARENT_COLUMN))
    planned = table_query.QueryPlan(view, "sum", view.data_columns[0], (
        table_query.Condition(label, ("Mill Lane", "Quarry Hill"), "Inland:", under=True),
        table_query.Condition(section, ("Inland",), "Inland"), table_query.Condition(parent, ("Inland",), "Inland")))
    assert table_query.where_words(planned) == " where the rows under Inland:"


def test_a_change_between_two_years_reads_each_year_s_counting_column(outline: Library) -> None:
    # 2023 prints two columns (Members, Percent): the count's change is asked, so Members
    answer = ask_without_model(outline, "By how much did open water swimmers rise from 2022 to 2023?")
    assert answer.value == "29", answer.text


def test_an_average_over_years_is_one_row_s_figures_across_its_year_columns(outline: Library) -> None:
    walkers = OUTLINE[4]  # the walkers aged 18 to 39
    answer = ask_without_model(outline, "On average, how many members aged 18 to 39 were walkers in 2022 and 2023?")
    assert answer.value == f"{(walkers[1] + walkers[2]) / 2:,.1f}", answer.text
    assert "/ 2" in answer.text  # the figures averaged are shown


# a heading printed with no figure over its lines, and a total whose words take the heading's
BUDGET = [("Outlays:", None), ("Roads", (310, 325, 341)), ("Harbours", (120, 118, 131)), ("Total outlays", (430, 443, 472)),
          ("Receipts:", None), ("Harbours", (95, 99, 104)), ("Tolls", (210, 222, 230)), ("Total receipts", (305, 321, 334))]


@pytest.fixture(scope="module")
def budget(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Library]:
    header = [["Category", "2021", "2022", "2023"]]
    body = [[label, *(("", "", "") if f is None else (str(f[0]), str(f[1]), str(f[2])))] for label, f in BUDGET]
    library = drawn_library(tmp_path_factory.mktemp("budget"), "Table 2. Port authority budget (in millions of dollars)",
                            header + body, [60, 250, 330, 410, 490])
    yield library
    library.close()


def test_a_line_under_a_heading_that_prints_no_figure(budget: Library) -> None:
    # "Harbours" is printed under Outlays and under Receipts; "harbour outlays" is the one under Outlays
    answer = ask_without_model(budget, "What were average harbour outlays from 2021 to 2023?")
    assert answer.value == "$123 million", answer.text


def test_the_largest_of_what_the_title_counts_is_ranked_by_the_grand_total(tmp_path: Path) -> None:
    """"Which office has the biggest budget" over a budget printing "Plan Total", "Non-Plan Total" and "Total Plan &
    Non-Plan": the grand total ranks them, not the first column that says total."""
    rows = [["Office", "Plan Total", "Non-Plan Total", "Total Plan & Non-Plan"],
            ["Records Office", "900", "100", "1000"], ["Survey Office", "", "1500", "1500"],
            ["Mint Office", "700", "", "700"]]
    library = drawn_library(tmp_path, "Budget 2031-32 of the offices (in lakhs)", rows, [40, 200, 300, 410, 540])
    try:
        answer = ask_without_model(library, "Which office has the biggest budget?")
    finally:
        library.close()
    assert answer.value == "Survey Office", answer.text


def test_a_year_printed_as_number_margin_and_percent_is_read_by_its_number(tmp_path: Path) -> None:
    """A census table prints each year as a number, its margin of error and a percent ("2021 No.", "2021 MOE",
    "2021 %"): "how many" and "by how much did it rise" read the years' number columns, not the margin beside them."""
    rows = [["Tenure", "2016 No.", "2016 MOE", "2016 %", "2021 No.", "2021 MOE", "2021 %"],
            ["All residents", "48,210", "310", "100.0", "50,940", "322", "100.0"],
            ["Renting their home", "17,905", "402", "37.1", "19,880", "415", "39.0"],
            ["Owning their home", "30,305", "388", "62.9", "31,060", "391", "61.0"]]
    library = drawn_library(tmp_path, "Table 1. Residents by tenure: 2016 and 2021", rows,
                            [30, 170, 230, 300, 360, 420, 490, 560], fontsize=9)
    try:
        answer = ask_without_model(library, "How many residents were renting their home in 2021?")
        assert answer.value == "19,880", answer.text
        answer = ask_without_model(library, "By how much did residents renting their home rise from 2016 to 2021?")
        assert answer.value == "1,975", answer.text
    finally:
        library.close()
