"""The answer in words, made in code from the SQL result and the table's labels and units: one sentence
per operation (difference, percent change, sum, average, ratio, ranking, lookup), with the operands
named, the scale and the currency; and the question wordings that choose the operation."""

from __future__ import annotations

from typing import Any

import pytest

from core.answering import operations as ops
from core.answering import table_query
from core.answering.reading import read
from core.library.store import TableInfo
from core.reports.values import currency_stated_in, scale_stated_in
from models.types import ColumnSchema, TableSchema

pytestmark = pytest.mark.unit

# Like budget.pdf's summary: figures in crores of rupees, budget years as columns.
ROWS = (("Culture", 2511.0, 2300.0), ("Coal", 600.0, 650.0), ("Defence", 106645.11, 92000.0), ("Total", 109756.11, 94950.0))


def view(currency: str = "rupees", scale: str = "crore", percent_row: bool = False) -> ops.TableView:
    columns = (
        ColumnSchema("ministry", "TEXT", "Ministry/Demand"),
        ColumnSchema("be_2014_15", "REAL", "2014-15"),
        ColumnSchema("be_2013_14", "REAL", "2013-14"),
    )
    info = TableInfo(1, 1, "budget.pdf", "budget_p1_demands", 1, 1, (0.0, 0.0, 1.0, 1.0), "Demands for grants", "",
                     "", 1, len(ROWS), "test", TableSchema(1, "budget_p1_demands", "budget.pdf", 1, columns))
    rows = tuple(ops.RowChoice(label, i + 1) for i, (label, *_rest) in enumerate(ROWS))
    values = {i + 1: row for i, row in enumerate(ROWS)}
    printed = {(1, 1): "55.5%"} if percent_row else {}
    return ops.TableView(info, columns[0], columns[1:], rows, values, scale, printed, currency)


def words(v: ops.TableView, operation: str, cells: list[tuple[str, str]], result: list[tuple[Any, ...]],
          question: str = "q") -> str:
    choice = ops.parse_choice(v, {"operation": operation, "cells": [{"row": r, "column": c} for r, c in cells]},
                              question)
    columns = ["_row", "ministry", *dict.fromkeys(c for _, c in cells)] if operation == "lookup" else [operation]
    return ops.describe_in_words(v, choice, columns, result)


@pytest.mark.parametrize(("operation", "cells", "result", "expected"), [
    ("difference", [("Culture", "be_2014_15"), ("Coal", "be_2014_15")], 1911.0,
     "In 2014-15, Culture (2,511) exceeds Coal (600) by 1,911 crore rupees"),
    # the model's order does not decide the wording: the larger figure exceeds the smaller
    ("difference", [("Coal", "be_2014_15"), ("Culture", "be_2014_15")], -1911.0,
     "In 2014-15, Culture (2,511) exceeds Coal (600) by 1,911 crore rupees"),
    ("difference", [("Culture", "be_2013_14"), ("Culture", "be_2014_15")], 211.0,
     "Culture rose by 211 crore rupees, from 2,300 crore rupees (2013-14) to 2,511 crore rupees (2014-15)"),
    ("difference", [("Coal", "be_2014_15"), ("Coal", "be_2013_14")], -50.0,
     "Coal fell by 50 crore rupees, from 650 crore rupees (2013-14) to 600 crore rupees (2014-15)"),
    ("percent_change", [("Culture", "be_2014_15"), ("Culture", "be_2013_14")], 9.17,
     "Culture rose 9.17% from 2,300 crore rupees (2013-14) to 2,511 crore rupees (2014-15)"),
    ("sum", [("Culture", "be_2014_15"), ("Coal", "be_2014_15")], 3111.0,
     "In 2014-15, Culture (2,511) and Coal (600) add up to 3,111 crore rupees"),
    ("average", [("Culture", "be_2014_15"), ("Coal", "be_2014_15")], 1555.5,
     "In 2014-15, the average of Culture (2,511) and Coal (600) is 1,555.5 crore rupees"),
    ("ratio", [("Culture", "be_2014_15"), ("Coal", "be_2014_15")], 4.185,
     "In 2014-15, the ratio of Culture (2,511) to Coal (600) is 4.18"),
    ("percentage", [("Coal", "be_2014_15"), ("Culture", "be_2014_15")], 23.89,
     "In 2014-15, Coal (600) is 23.89% of Culture (2,511)"),
    ("max", [("Culture", "be_2014_15"), ("Coal", "be_2014_15")], 2511.0,
     "In 2014-15, Culture is the largest, at 2,511 crore rupees"),
])
def test_each_operation_is_worded_with_its_operands_scale_and_currency(
        operation: str, cells: list[tuple[str, str]], result: float, expected: str) -> None:
    assert words(view(), operation, cells, [(result,)]) == expected


def test_a_lookup_names_the_row_and_the_column() -> None:
    v = view()
    assert words(v, "lookup", [("Defence", "be_2014_15")], [(3, "Defence", 106645.11)]) == \
        "Defence, 2014-15: 106,645.11 crore rupees"
    assert words(v, "lookup", [("Coal", "be_2014_15"), ("Coal", "be_2013_14")], [(2, "Coal", 600.0, 650.0)]) == \
        "Coal: 2014-15: 600 crore rupees; 2013-14: 650 crore rupees"


def test_a_ranking_names_the_rows_compared_and_says_how_it_ranked() -> None:
    v = view()
    one = words(v, "top_row", [("Culture", "be_2014_15")], [(3, "Defence", 106645.11)])
    assert one == ("Defence has the highest 2014-15: 106,645.11 crore rupees "
                   "(3 rows compared: Culture, Coal, Defence)")  # the Total row is not a contender
    growth = words(v, "top_row", [("Culture", "be_2014_15"), ("Culture", "be_2013_14")], [(3, "Defence", 14645.11)],
                   "Which ministry grew the most?")
    assert growth.startswith("Defence grew the most from 2013-14 to 2014-15: +14,645.11 crore rupees, "
                             "from 92,000 crore rupees to 106,645.11 crore rupees (ranked by amount;")


def test_a_ranking_by_percent_only_when_the_question_asks_for_one() -> None:
    v = view()
    cells = [{"row": "Culture", "column": "be_2014_15"}, {"row": "Culture", "column": "be_2013_14"}]
    by_amount = ops.parse_choice(v, {"operation": "top_row", "cells": cells}, "Which ministry grew the most?",
                                 read("Which ministry grew the most?").percent)
    by_percent = ops.parse_choice(v, {"operation": "top_row", "cells": cells}, "Which grew the most in percent?",
                                  read("Which grew the most in percent?").percent)
    assert not by_amount.percent and "* 100.0 /" not in ops.compile_sql(v, by_amount)
    assert by_percent.percent and "* 100.0 / NULLIF" in ops.compile_sql(v, by_percent)
    assert "(ranked by percent change;" in ops.describe_in_words(v, by_percent, [], [(3, "Defence", 15.92)])


def test_currency_symbols_go_before_the_figure_and_percent_cells_keep_their_sign() -> None:
    dollars = view(currency="$", scale="thousand")
    assert words(dollars, "sum", [("Culture", "be_2014_15"), ("Coal", "be_2014_15")], [(3111.0,)]) == \
        "In 2014-15, Culture (2,511) and Coal (600) add up to $3,111 thousand"
    assert ops.amount(dollars, -12.5, "million") == "-$12.5 million"
    bare = view(currency="", scale="")
    assert words(bare, "difference", [("Culture", "be_2014_15"), ("Coal", "be_2014_15")], [(1911.0,)]) == \
        "In 2014-15, Culture (2,511) exceeds Coal (600) by 1,911"
    percent = view(percent_row=True)
    assert words(percent, "lookup", [("Culture", "be_2014_15")], [(1, "Culture", 55.5)]) == "Culture, 2014-15: 55.5%"


@pytest.mark.parametrize(("question", "operation"), [
    ("How much larger is Culture than Coal?", "difference"),
    ("How much more licence revenue came from Europe as compared to Latin America in 2021?", "difference"),
    ("By how much does Defence exceed Culture?", "difference"),
    ("Culture exceeds Coal by how much?", "difference"),
    ("What is the difference between Culture and Coal in 2014-15?", "difference"),
    ("By how much did revenue grow from 2018 to 2019?", "difference"),
    ("How much did Hotels sales increase by in F19?", "difference"),
    ("By how much percent did revenue grow from 2018 to 2019?", "percent_change"),
    ("What is the percentage difference between list price and net price?", "percent_change"),
    ("Which department grew the most from 2023 to 2024?", "top_row"),
    ("What was the average difference between net income and adjusted net income?", "average"),
])
def test_the_question_wording_chooses_the_operation(question: str, operation: str) -> None:
    reading = read(question)
    assert reading.operation == operation, reading.describe()
    assert reading.compares == (operation == "difference")  # then only a difference may answer


def test_indian_scales_and_rupees_are_read_from_the_unit_line() -> None:
    assert scale_stated_in("(In crores of Rupees)") == "crore"
    assert scale_stated_in("Rs. in lakhs") == "lakh"
    assert currency_stated_in("(Rs. in crore)") == "\u20b9"


def test_a_figure_is_restated_in_the_scale_the_question_asks_for() -> None:
    assert read("What were Acme's net fixed assets at the end of FY2020? Answer in USD billions.").scale == "billion"
    assert read("What was the FY2021 research spending (in USD millions)?").scale == "million"
    assert read("How much did revenue grow?").scale == ""


def test_a_lookup_in_millions_asked_in_billions_says_both() -> None:
    v = view(currency="$", scale="million")
    choice = ops.parse_choice(v, {"operation": "lookup", "cells": [{"row": "Defence", "column": "be_2014_15"}]}, "q")
    text = ops.describe_in_words(v, choice, ["_row", "ministry", "be_2014_15"], [(3, "Defence", 106645.11)], "billion")
    assert text.endswith("$106,645.11 million ($106.65 billion)")


def test_a_change_asked_in_percents_is_a_percent_change() -> None:
    asked = ("What is Acme's year-over-year change in reported gross margin from FY2020 to FY2021 "
             "(in units of percents; round to two decimal places)?")
    assert read(asked).operation == "percent_change"
    assert read("How much did revenue change from 2018 to 2019?").operation == "difference"


def test_a_blank_column_falls_back_to_the_rows_totals_only_when_no_column_is_asked_for() -> None:
    columns = (ColumnSchema("ministry", "TEXT", "Ministry/Demand"), ColumnSchema("plan_capital", "REAL", "Plan Capital"),
               ColumnSchema("total", "REAL", "Total Plan & Non-Plan"))
    info = TableInfo(1, 1, "budget.pdf", "t", 1, 1, (0.0, 0.0, 1.0, 1.0), "", "", "", 1, 2, "test",
                     TableSchema(1, "t", "budget.pdf", 1, columns))
    v = ops.TableView(info, columns[0], columns[1:], (ops.RowChoice("Culture", 1), ops.RowChoice("Coal", 2)),
                      {1: ("Culture", 676.0, 2511.0), 2: ("Coal", None, 600.0)}, "crore", {}, "rupees")
    cells = [{"row": "Culture", "column": "plan_capital"}, {"row": "Coal", "column": "plan_capital"}]
    choice = ops.parse_choice(v, {"operation": "difference", "cells": cells}, "q")
    total = ops.filled_total_choice(v, choice, "How much larger is Culture than Coal?")
    assert total is not None and {c.column for c in total.cells} == {"total"}
    assert ops.describe_in_words(v, total, ["difference"], [(1911.0,)]) == \
        "In Total Plan & Non-Plan, Culture (2,511) exceeds Coal (600) by 1,911 crore rupees"
    assert ops.filled_total_choice(v, choice, "How much larger is Culture's plan capital than Coal's?") is None


def test_a_lookup_in_a_year_printed_in_two_columns_takes_the_one_the_question_names() -> None:
    columns = (ColumnSchema("item", "TEXT", ""), ColumnSchema("y2019_shares", "REAL", "2019 Number"),
               ColumnSchema("y2019_price", "REAL", "2019 Exercise price"))
    info = TableInfo(1, 1, "notes.pdf", "t", 1, 1, (0.0, 0.0, 1.0, 1.0), "Non-vested shares", "", "", 1, 2, "test",
                     TableSchema(1, "t", "notes.pdf", 1, columns))
    v = ops.TableView(info, columns[0], columns[1:], (ops.RowChoice("Options granted", 1), ops.RowChoice("Options forfeited", 2)),
                      {1: ("Options granted", 473550.0, 41.2), 2: ("Options forfeited", 12632.0, 50.49)}, "", {}, "")
    choice = ops.decided_lookup(v, read("What is the number of options forfeited in 2019?"))
    assert choice is not None and [(c.label, c.column) for c in choice.cells] == [("Options forfeited", "y2019_shares")]
    choice = ops.decided_lookup(v, read("What was the exercise price of options forfeited in 2019?"))
    assert choice is not None and [c.column for c in choice.cells] == ["y2019_price"]


def test_a_row_that_denies_what_is_asked_is_never_looked_up_for_it() -> None:
    """"Dividends declared and not paid" answers no question about dividends paid, by any of code's row matchers."""
    from core.answering import compose

    columns = (ColumnSchema("item", "TEXT", ""), ColumnSchema("y2021", "REAL", "2021"))
    info = TableInfo(1, 1, "r.pdf", "t", 1, 1, (0.0, 0.0, 1.0, 1.0), "Supplemental cash flow information", "", "", 1,
                     2, "test", TableSchema(1, "t", "r.pdf", 1, columns))
    rows = (ops.RowChoice("Interest expense", 1), ops.RowChoice("Dividends declared and not paid", 2))
    v = ops.TableView(info, columns[0], columns[1:], rows,
                      {1: ("Interest expense", 262.0), 2: ("Dividends declared and not paid", 438.0)}, "", {}, "")
    question = "What were the dividends paid in 2021?"
    assert ops.decided_lookup(v, read(question)) is None
    assert compose.match_row(v, question) is None
    assert compose.match_row(v, "What were the dividends declared and not paid in 2021?") == rows[1]


def test_a_per_share_figure_under_a_per_share_heading_takes_no_scale_of_its_table() -> None:
    """"Diluted" under "Earnings per common share:" in a statement in millions is $1.28, not $1.28 million."""
    import dataclasses

    from core.reports.table_facts import RowFacts

    columns = (ColumnSchema("item", "TEXT", ""), ColumnSchema("y2021", "REAL", "2021"))
    info = TableInfo(1, 1, "r.pdf", "t", 1, 1, (0.0, 0.0, 1.0, 1.0), "Statements of Income", "", "million", 1, 2,
                     "test", TableSchema(1, "t", "r.pdf", 1, columns))
    info = dataclasses.replace(info, row_facts=(RowFacts(1, 0, None, False, ""),
                                                RowFacts(2, 1, None, False, "Earnings per common share:")))
    v = ops.TableView(info, columns[0], columns[1:], (ops.RowChoice("Net income", 1), ops.RowChoice("Diluted", 2)),
                      {1: ("Net income", 1906.0), 2: ("Diluted", 1.28)}, "", {}, "$")
    assert v.cell_scale(1, "y2021") == "million" and v.cell_scale(2, "y2021") == ""


def test_a_statement_whose_scale_is_not_stated_says_so_and_one_figure_never_adds_up() -> None:
    """A balance sheet printed "(in thousands)" where that line was not read: a bare "$5,466,312" would pass for
    dollars, so the figure says the page states no scale. A sum of one cell is that cell, a count says what it
    counted: no "add up to" or "have a value" for one figure."""
    import dataclasses

    bare = view(currency="$", scale="")
    statement = dataclasses.replace(bare, info=dataclasses.replace(bare.info, caption="Consolidated Balance Sheets"))
    assert ops.amount(statement, 5466312, "") == "$5,466,312 (in the statement's own unit: the page states no scale)"
    assert ops.amount(bare, 5466312, "") == "$5,466,312"  # not a statement: no claim either way
    assert ops.amount(statement, 12.5, "") == "$12.5"  # small figures (per-share amounts) are what they say
    one = words(view(), "sum", [("Culture", "be_2014_15")], [(2511.0,)])
    assert "add up to" not in one and "2,511" in one
    counted = words(view(), "count", [("Culture", "be_2014_15"), ("Coal", "be_2014_15")], [(2,)])
    assert "have a value" not in counted and "2 cells hold a figure: Culture and Coal" in counted


def test_a_column_of_figures_per_share_is_in_units_whatever_the_table_s_scale() -> None:
    """A table in thousands with a column "Dividend per share (dollars) 2021" beside the totals: its figures are
    dollars a share, never thousands; the totals keep the table's scale."""
    columns = (ColumnSchema("item", "TEXT", ""), ColumnSchema("total_2021", "REAL", "Total paid 2021"),
               ColumnSchema("per_share_2021", "REAL", "Dividend per share (dollars) 2021"))
    info = TableInfo(1, 1, "r.pdf", "r_p1_dividends", 1, 1, (0.0, 0.0, 1.0, 1.0), "Dividends (in thousands)", "",
                     "", 1, 1, "test", TableSchema(1, "r_p1_dividends", "r.pdf", 1, columns))
    v = ops.TableView(info, columns[0], columns[1:], (ops.RowChoice("Ordinary dividends", 1),),
                      {1: ("Ordinary dividends", 51200.0, 0.64)}, "thousand", {}, "dollars")
    assert v.cell_scale(1, "per_share_2021") == "" and v.cell_scale(1, "total_2021") == "thousand"


def test_a_fall_asked_is_answered_with_the_amount_it_fell_by() -> None:
    """"By how many points did coverage fall": the newer figure less the older one is negative, and the sentence says
    "fell by 3.5"; the answer's figure is that 3.5. Asked as a change, the signed difference stays."""
    columns = (ColumnSchema("item", "TEXT", ""), ColumnSchema("round_2", "REAL", "Round 2"),
               ColumnSchema("round_1", "REAL", "Round 1"))
    info = TableInfo(1, 1, "survey.pdf", "t", 1, 1, (0.0, 0.0, 1.0, 1.0), "Key indicators (%)", "", "", 1, 1, "test",
                     TableSchema(1, "t", "survey.pdf", 1, columns))
    v = ops.TableView(info, columns[0], columns[1:], (ops.RowChoice("Clinic coverage", 1),),
                      {1: ("Clinic coverage", 40.5, 44.0)}, "", {}, "")
    cells = [{"row": "Clinic coverage", "column": "round_2"}, {"row": "Clinic coverage", "column": "round_1"}]
    choice = ops.parse_choice(v, {"operation": "difference", "cells": cells}, "q")
    fell = "By how many points did clinic coverage fall between round 1 and round 2?"
    assert ops.describe_result(v, choice, ["difference"], [(-3.5,)], table_query.asks_fall(read(fell))) == "3.5"
    changed = "What was the change in clinic coverage between round 1 and round 2?"
    assert ops.describe_result(v, choice, ["difference"], [(-3.5,)], table_query.asks_fall(read(changed))) == "-3.5"
    assert ops.describe_in_words(v, choice, ["difference"], [(-3.5,)]).startswith("Clinic coverage fell by 3.5")


def test_a_measure_the_question_defines_is_never_one_row_looked_up() -> None:
    """A definition that names a printed line ("... divided by rent payable ...") asks for what it computes, not
    for that line's figure."""
    columns = (ColumnSchema("item", "TEXT", ""), ColumnSchema("y2021", "REAL", "2021"))
    info = TableInfo(1, 1, "r.pdf", "t", 1, 1, (0.0, 0.0, 1.0, 1.0), "Balance sheet", "", "", 1, 2, "test",
                     TableSchema(1, "t", "r.pdf", 1, columns))
    rows = (ops.RowChoice("Change in notes payable", 1), ops.RowChoice("Fares receivable", 2))
    v = ops.TableView(info, columns[0], columns[1:], rows,
                      {1: ("Change in notes payable", 40.0), 2: ("Fares receivable", 75.0)}, "", {}, "")
    assert ops.decided_lookup(v, read("What were the fares receivable in 2021?")) is not None
    assert ops.decided_lookup(v, read("Northwind's rent cover in 2021, i.e. fares receivable divided by rent "
                                      "payable?")) is None
