"""Checks before an answer: a share above 100% and a line read from the wrong statement are turned down, with the
rows that caused them set aside; a sound figure passes."""

from __future__ import annotations

import dataclasses

import pytest

from core.answering.binding import bind
from core.answering.checks import problems
from core.answering.computation import Computation
from core.answering.formula import BoundCell
from core.answering.metrics import plans_of
from core.answering.reading import read
from core.sql.runner import SqlResult
from tests.core.answering.test_formulas import _view

pytestmark = pytest.mark.unit


def _computed(question: str, views: list, value: float) -> Computation:  # type: ignore[type-arg]
    (plan,) = plans_of(read(question))
    cells = bind(plan, views, question)
    by_id = {v.info.id: v for v in views}
    return Computation(plan, cells, "SELECT 1", SqlResult("SELECT 1", ("v",), ((value,),), False, 0.0), value, str(value), "",
                       {c.table_id: by_id[c.table_id] for c in cells.values()})


def test_a_share_above_100_percent_is_turned_down_with_its_whole_set_aside() -> None:
    income = _view([("Net sales", "", (5000.0,)), ("Cost of sales", "", (3000.0,)), ("Gross profit", "", (2000.0,))],
                   [("y2021", "2021", 2021)], caption="Consolidated Statements of Income", table_id=1)
    done = _computed("What was the gross profit as a % of net sales in 2021?", [income], 140.0)
    (problem,) = problems(done, [income])
    assert "no share of a whole" in problem.said
    assert problem.rows == {(1, 1)}  # the whole (net sales) is the likelier mistake
    sound = _computed("What was the gross profit as a % of net sales in 2021?", [income], 40.0)
    assert problems(sound, [income]) == []


def test_a_line_read_from_another_statement_than_its_own_is_turned_down() -> None:
    """Inventories are a balance: read from the cash-flow statement's change in inventories while the balance
    sheet is there, the figure is the wrong one."""
    cash = _view([("Inventories", "", (-120.0,)), ("Net cash provided by operating activities", "", (900.0,))],
                 [("y2021", "2021", 2021)], caption="Consolidated Statements of Cash Flows", table_id=1)
    balance = _view([("Inventories", "", (1500.0,)), ("Total current assets", "", (4000.0,))],
                    [("y2021", "2021", 2021)], caption="Consolidated Balance Sheets", table_id=2)
    balance = dataclasses.replace(balance, info=dataclasses.replace(balance.info, document_id=1))  # one report
    (plan,) = plans_of(read("What were inventories in 2021?"))
    forced = bind(plan, [cash], "What were inventories in 2021?")  # only the cash flows offered: its line
    done = Computation(plan, forced, "", SqlResult("", (), (), False, 0.0), -120.0, "", "", {1: cash})
    (problem,) = problems(done, [cash, balance])
    assert "balance sheet" in problem.said and problem.rows == {(1, 1)}
    # Set aside, the next candidate is the balance sheet's line, which passes.
    cells = bind(plan, [cash, balance], "What were inventories in 2021?", exclude=frozenset({(1, 1)}))
    (cell,) = cells.values()
    assert (cell.table_id, cell.value) == (2, 1500.0)
    done = Computation(plan, cells, "", SqlResult("", (), (), False, 0.0), 1500.0, "", "", {2: balance})
    assert problems(done, [cash, balance]) == []


def test_a_line_of_two_periods_read_from_one_cell_is_turned_down() -> None:
    """A change over two years whose two figures are one cell (a table printing one of the years, or columns
    misread) is 0 and says nothing: turned down, its row set aside."""
    (plan,) = plans_of(read("What was the change in freight revenue from 2018 to 2019?"))
    one = BoundCell("x", "t1", 1, 4, "y2019", 730.0, "Freight revenue", "2019")
    cells = {q.name: dataclasses.replace(one, name=q.name) for q in plan.quantities}
    done = Computation(plan, cells, "", SqlResult("", (), (), False, 0.0), 0.0, "", "", {})
    (problem,) = problems(done, [])
    assert "one cell" in problem.said and problem.rows == {(1, 4)}
    apart = {**cells, plan.quantities[0].name: dataclasses.replace(one, name=plan.quantities[0].name, column="y2018")}
    assert problems(dataclasses.replace(done, cells=apart), []) == []


def test_a_line_as_a_percentage_of_itself_a_year_before_may_pass_100() -> None:
    """"2019 backlog as a % of 2018 backlog" is a ratio of periods, no share of a whole: 146% is a figure."""
    view = _view([("Backlog", "", (1466.5, 1000.0))], [("y2019", "2019", 2019), ("y2018", "2018", 2018)],
                 caption="Consolidated Statements of Income")
    question = "What is the 2019 backlog expressed as a percentage of the 2018 backlog?"
    done = _computed(question, [view], 146.65)
    assert done.plan.measure.startswith("backlog") and problems(done, [view]) == []


def test_a_line_read_from_a_table_of_deferred_tax_effects_is_turned_down() -> None:
    income = _view([("Revenues", "", (9000.0,)), ("Cost of sales", "", (5000.0,))], [("y2021", "2021", 2021)],
                   caption="Consolidated Statements of Income", table_id=1)
    taxes = _view([("Capitalized research and development expenditures", "", (120.0,)), ("Inventories", "", (40.0,))],
                  [("y2021", "2021", 2021)], caption="Deferred tax assets and liabilities comprise the following", table_id=2)
    done = _computed("What was R&D as a percentage of revenues in 2021?", [income, taxes], 1.33)
    assert any("deferred tax effects" in p.said and p.rows == {(2, 1)} for p in problems(done, [income, taxes]))
    # a quantity that names a tax may be read there
    asked = _computed("What was the deferred tax on inventories as a percentage of revenues in 2021?", [income, taxes], 0.4)
    assert not any("deferred tax effects" in p.said for p in problems(asked, [income, taxes]))
    # and so may every line of a measure whose other line is the table's own ("... over total deferred tax assets")
    totals = _view([("Inventories", "", (40.0,)), ("Warranty reserves", "", (25.0,)),
                    ("Total deferred tax assets", "", (400.0,))],
                   [("y2021", "2021", 2021)], caption="Deferred tax assets and liabilities comprise the following", table_id=3)
    share = _computed("What was inventories as a percentage of total deferred tax assets in 2021?", [totals], 10.0)
    assert set(share.cells) and not any("deferred tax effects" in p.said for p in problems(share, [totals]))


def test_the_valuation_allowance_is_a_deferred_tax_table_s_own_line() -> None:
    """The valuation allowance is held against deferred tax assets: a table of deferred tax effects is where it is
    printed, so it is read there (a line of another item's tax effect still is not)."""
    taxes = _view([("Tax credit carryforwards", "", (300.0, 250.0)), ("Valuation allowance", "", (-180.0, -150.0))],
                  [("y2021", "2021", 2021), ("y2020", "2020", 2020)],
                  caption="Deferred tax assets and liabilities comprise the following", table_id=2)
    done = _computed("By what percent did the valuation allowance change between 2020 and 2021?", [taxes], 20.0)
    assert set(done.cells) and not any("deferred tax effects" in p.said for p in problems(done, [taxes]))


def test_a_line_read_from_a_table_of_joint_ventures_figures_is_turned_down() -> None:
    income = _view([("Net sales", "", (9000.0,)), ("Cost of sales", "", (5000.0,)), ("Gross profit", "", (4000.0,))],
                   [("y2021", "2021", 2021)], caption="Consolidated Statements of Earnings", table_id=1)
    ventures = _view([("Net sales", "", (1500.0,)), ("Gross margin", "", (600.0,))], [("y2021", "2021", 2021)],
                     caption="Summary combined financial information for the joint ventures", table_id=2)
    done = _computed("What was the gross profit as a % of net sales in 2021?", [income, ventures], 40.0)
    assert not any("other entities" in p.said for p in problems(done, [income, ventures]))  # the statement's own lines
    chosen = dataclasses.replace(done, cells={n: dataclasses.replace(c, table_id=2) for n, c in done.cells.items()})
    assert any("other entities" in p.said for p in problems(chosen, [income, ventures]))


def test_a_line_read_from_a_table_of_quarterly_data_is_turned_down_for_a_year() -> None:
    income = _view([("Net sales", "", (9000.0,)), ("Cost of sales", "", (5000.0,))], [("y2021", "2021", 2021)],
                   caption="Consolidated Statements of Earnings", table_id=1)
    quarters = _view([("Net sales", "", (2300.0,)), ("Gross margin", "", (800.0,))], [("y2021", "2021", 2021)],
                     caption="Summarized quarterly data for fiscal 2021 follows", table_id=2)
    done = _computed("What was the gross profit as a % of net sales in 2021?", [income, quarters], 34.8)
    chosen = dataclasses.replace(done, cells={n: dataclasses.replace(c, table_id=2) for n, c in done.cells.items()})
    assert any("quarterly figures" in p.said for p in problems(chosen, [income, quarters]))


def test_a_figure_computed_across_two_reports_is_turned_down() -> None:
    """Debt read from one report's notes and total assets from another report's balance sheet make no ratio of one
    company: turned down, the rows of both set aside; both from one report, it passes."""
    notes = _view([("Convertible notes", "", (40.0,))], [("y2021", "2021", 2021)], caption="Borrowings", table_id=1)
    sheet = _view([("Total debt", "", (310.0,)), ("Total assets", "", (1200.0,))], [("y2021", "2021", 2021)],
                  caption="Consolidated Balance Sheets", table_id=2)
    question = "What was the ratio of debt to total assets in 2021?"
    (plan,) = plans_of(read(question))
    apart = {**bind(plan, [sheet], question)}
    debt = next(name for name in apart if "debt" in name)
    apart[debt] = dataclasses.replace(apart[debt], table_id=1, row=1, value=40.0)
    done = Computation(plan, apart, "", SqlResult("", (), (), False, 0.0), 40.0 / 1200.0, "", "", {1: notes, 2: sheet})
    (problem,) = [p for p in problems(done, [notes, sheet]) if "documents" in p.said]
    assert problem.rows == {(1, 1), (2, 2)}
    together = _computed(question, [sheet], 310.0 / 1200.0)
    assert not [p for p in problems(together, [sheet]) if "documents" in p.said]


def test_a_figure_computed_across_two_currencies_is_turned_down() -> None:
    """Borrowings read from a table in pounds and total assets from one in dollars, in one report, make no ratio:
    turned down, the rows of both set aside; a table stating no currency is no second currency."""
    notes = _view([("Borrowings", "", (95.0,))], [("y2021", "2021", 2021)], caption="Borrowings (£m)", table_id=1)
    sheet = _view([("Total debt", "", (310.0,)), ("Total assets", "", (1200.0,))], [("y2021", "2021", 2021)],
                  caption="Group balance sheet (US$'000)", table_id=2)
    notes = dataclasses.replace(notes, currency="£")
    sheet = dataclasses.replace(sheet, currency="$", info=dataclasses.replace(sheet.info, document_id=1))
    question = "What was the ratio of debt to total assets in 2021?"
    (plan,) = plans_of(read(question))
    apart = {**bind(plan, [sheet], question)}
    debt = next(name for name in apart if "debt" in name)
    apart[debt] = dataclasses.replace(apart[debt], table_id=1, row=1, value=95.0)
    done = Computation(plan, apart, "", SqlResult("", (), (), False, 0.0), 95.0 / 1200.0, "", "", {1: notes, 2: sheet})
    (problem,) = [p for p in problems(done, [notes, sheet]) if "currencies" in p.said]
    assert problem.rows == {(1, 1), (2, 2)}
    unstated = dataclasses.replace(notes, currency="")
    assert not [p for p in problems(done, [unstated, sheet]) if "currencies" in p.said]
    together = _computed(question, [sheet], 310.0 / 1200.0)
    assert not [p for p in problems(together, [sheet]) if "currencies" in p.said]
