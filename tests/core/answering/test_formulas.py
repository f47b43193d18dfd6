"""Computed measures across tables: the formula grammar and its sandbox, reading a question's formula in
words, binding quantities to cells of connected statements, and the loop answering with both cells cited.

The report is generated (an income statement, a balance sheet and a cash-flow statement over three years,
a department table and a budget table), ingested for real (extraction, typing, SQLite, FTS5, vectors from
a hash embedder), and asked through the real ``Answerer`` with a scripted chat model that fails the test
if the loop calls it where the words decide.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core.answering import Answerer, formula
from core.answering.binding import (
    MIN_FIT,
    Candidate,
    _apart,
    bind,
    candidates,
    cell_of,
    covers,
    fit,
    loosely_named,
    printed_years,
    printing_exactly,
    year_column,
    year_columns,
)
from core.answering.formula import BoundCell
from core.answering.metrics import over_periods, plan_for, plans_of, printed_plan
from core.answering.operations import RowChoice, TableView
from core.answering.reading import read
from core.errors import UserError
from core.ingest.ingestor import Ingestor
from core.library.store import Library, TableInfo
from core.reports.table_facts import ColumnPeriod, RowFacts
from core.reports.values import Period
from core.search.retrieval import Retriever
from core.sql.runner import SqlRunner
from models.types import ColumnSchema, TableSchema
from tests.conftest import HashEmbedder
from tests.core.answering.test_answering_library import ScriptedChat
from tests.support.statements import Figures, build_statements_report, multi_table_questions

pytestmark = pytest.mark.unit


def same_formula(plan: object, text: str) -> bool:
    """A plan's formula means ``text`` (the same tree, however parenthesised)."""
    import ast
    return plan is not None and ast.dump(formula.parse(plan.formula)) == ast.dump(formula.parse(text))  # type: ignore[attr-defined]


# -- the grammar --------------------------------------------------------------------------------------


def test_formula_grammar_accepts_arithmetic_and_named_functions() -> None:
    tree = formula.parse("365 * avg(ap_2019, ap_2020) / (cogs + inv_2020 - inv_2019)")
    assert formula.names_in(tree) == ["ap_2019", "ap_2020", "cogs", "inv_2020", "inv_2019"]
    assert formula.is_percent(formula.parse("growth(a, b)"))
    assert formula.is_percent(formula.parse("avg(a / b * 100, c / d * 100)"))
    assert not formula.is_percent(formula.parse("a / b"))


@pytest.mark.parametrize("text, message", [
    ("__import__('os').system('rm -rf /')", "Allowed functions"),
    ("a.b", "Attribute"),
    ("a ** 2", r"Only \+ - \* /"),
    ("open('x')", "Allowed functions"),
    ("'text'", "Only numbers"),
    ("[a, b]", "List"),
    ("a if b else c", "IfExp"),
    ("lambda: 1", "Lambda"),
    ("cagr(a, b)", "three values"),
    ("", "empty"),
    ("a +", "not arithmetic"),
])
def test_formula_grammar_refuses_everything_else(text: str, message: str) -> None:
    with pytest.raises(formula.FormulaError, match=message):
        formula.parse(text)


def test_a_formula_may_only_name_bound_values() -> None:
    with pytest.raises(formula.FormulaError, match="not one of the values: a, b"):
        formula.parse("a / c", ["a", "b"])


# -- reading the formula in a question -------------------------------------------------------------


def test_a_definition_in_the_question_becomes_the_formula() -> None:
    plan = plan_for("What is the FY2023 days payable outstanding (DPO)? DPO is defined as: 365 * (average trade "
                    "payables between FY2022 and FY2023) / (FY2023 cost of sales + change in stock between FY2022 "
                    "and FY2023). Round the result to two decimal places.")
    assert plan is not None and plan.source == "defined" and plan.decimals == 2
    assert plan.formula == ("365 * (avg(trade_payables_2022, trade_payables_2023)) / "
                            "(cost_of_sales_2023 + (stock_2023 - stock_2022))")
    assert {(q.words, q.year) for q in plan.quantities} == {
        ("trade payables", 2022), ("trade payables", 2023), ("cost of sales", 2023), ("stock", 2023),
        ("stock", 2022)}


def test_definitions_may_name_each_other() -> None:
    plan = plan_for("What is the FY2022 cash conversion cycle (CCC)? CCC is defined as: DSO + DIO - DPO. DSO is "
                    "defined as: 365 * (average trade receivables between FY2021 and FY2022) / (FY2022 net sales). "
                    "DIO is defined as: 365 * (average stock between FY2021 and FY2022) / (FY2022 cost of sales). "
                    "DPO is defined as: 365 * (average trade payables between FY2021 and FY2022) / (FY2022 cost of "
                    "sales).")
    assert plan is not None
    assert {q.words.lower() for q in plan.quantities} == {"stock", "cost of sales", "trade receivables", "net sales",
                                                          "trade payables"}
    assert plan.formula.count("365") == 3


def test_a_council_defines_its_own_measure() -> None:
    plan = plan_for("How much was spent per resident in 2023? Define spending per resident as total expenditure "
                    "divided by population.")
    assert plan is not None
    assert plan.formula == "total_expenditure_2023 / population_2023"


@pytest.mark.parametrize("question, formula_text", [
    ("What is the FY2020 working capital ratio?", "total_current_assets_2020 / total_current_liabilities_2020"),
    ("What was free cash flow in 2021?", "cash_from_operations_2021 - capital_expenditure_2021"),
    ("What is the 2 year revenue CAGR from FY2020 to FY2022?", "cagr(revenue_2022, revenue_2020, 2)"),
    ("What was the FY2020 - FY2022 3 year average net profit margin (in %)?",
     ("avg(net_income_2020 / revenue_2020 * 100, net_income_2021 / revenue_2021 * 100, "
     "net_income_2022 / revenue_2022 * 100)")),
    ("What is the year-over-year change in operating income from FY2015 to FY2016 in percent?",
     "growth(operating_income_2016, operating_income_2015)"),
    ("How much has the effective tax rate changed between FY2021 and FY2022?",
     ("(income_tax_expense_2022 / income_before_income_taxes_2022 * 100) - "
     "(income_tax_expense_2021 / income_before_income_taxes_2021 * 100)")),
    ("What was the change in the current ratio from 2020 to 2021?",
     ("(total_current_assets_2021 / total_current_liabilities_2021) - "
     "(total_current_assets_2020 / total_current_liabilities_2020)")),
])
def test_common_measures_and_shapes_read_as_formulas(question: str, formula_text: str) -> None:
    plan = plan_for(question)
    assert same_formula(plan, formula_text), plan


@pytest.mark.parametrize("question, formula_text", [
    ("What was the change in revenue from 2018 to 2019?", "(revenue_2019) - (revenue_2018)"),
    ("What was the change in the figure for Furniture in 2021 from 2020?", "(furniture_2021) - (furniture_2020)"),
    ("What is the percent change in the total non-current receivables from 2020 to 2021?",
     "growth(total_non_current_receivables_2021, total_non_current_receivables_2020)"),
    ("What was the increase / (decrease) in the state franchise tax from 2020 to 2021?",
     "(state_franchise_tax_2021) - (state_franchise_tax_2020)"),
    ("What was the average rental expense for 2020 and 2021?", "avg(rental_expense_2020, rental_expense_2021)"),
    ("How much was the average spending on parks from 2021 to 2023?",
     "avg(spending_on_parks_2021, spending_on_parks_2022, spending_on_parks_2023)"),
])
def test_a_change_or_average_of_any_printed_line_is_a_shape_plan(question: str, formula_text: str) -> None:
    plan = plan_for(question)
    assert same_formula(plan, formula_text) and plan.source == "line", plan


@pytest.mark.parametrize("question, formula_text", [
    # periods as reports print them
    ("What is the average Marketing, selling and distribution expense for December 31, 2020 and 2021?",
     "avg(marketing_selling_and_distribution_expen_2020, marketing_selling_and_distribution_expen_2021)"),
    ("What was the percentage change in net receivables from 2020 to 2021 year end?",
     "growth(net_receivables_2021, net_receivables_2020)"),
    ("How much is the change in disposals of tangible assets between 2020 year end and 2021 year end?",
     "(disposals_of_tangible_assets_2021) - (disposals_of_tangible_assets_2020)"),
    ("What is the average net income (loss) across 2019, 2020 and 2021?",
     "avg(net_income_loss_2019, net_income_loss_2020, net_income_loss_2021)"),
    ("What is the change in the balance of Total receivables between September 30, 2021 and 2020?",
     "(total_receivables_2021) - (total_receivables_2020)"),
    ("What was the average cost of services between 2019-2021?",
     "avg(cost_of_services_2019, cost_of_services_2020, cost_of_services_2021)"),
    ("What is the change in rent in 2021?", "(rent_2021) - (rent_2020)"),  # from the year before
    # the periods before the line, a line after "for", fiscal years in two digits
    ("How much is the change between 2020 and 2021 fair value adjustments of investment properties?",
     "(fair_value_adjustments_of_investment_pro_2021) - (fair_value_adjustments_of_investment_pro_2020)"),
    ("What is the change between indirect water usage (ML) in 2020 and 2021 year end?",
     "(indirect_water_usage_ml_2021) - (indirect_water_usage_ml_2020)"),
    # a difference between two years is a size; "from A to B" and a "net difference" keep their sign
    ("What is the nominal difference for ROFA between F21 and F20?", "abs((rofa_2021) - (rofa_2020))"),
    ("What was the difference in freight expenses in 2021 and 2020?",
     "abs((freight_expenses_2021) - (freight_expenses_2020))"),
    ("What is the difference in revenue from 2018 to 2019?", "(revenue_2019) - (revenue_2018)"),
    ("What was the net difference in licence fees between 2016 and 2018?", "(licence_fees_2018) - (licence_fees_2016)"),
    ("What was the change in Acme's goodwill from FY'20 to FY21?", "(goodwill_2021) - (goodwill_2020)"),
    # a year's average balance: between its opening and closing figures
    ("What is the 2021 average employee savings plans?",
     "avg(employee_savings_plans_2020, employee_savings_plans_2021)"),
    # a total over periods
    ("What is the company's total restructuring charge in 2020 and 2021?",
     "sum(restructuring_charge_2020, restructuring_charge_2021)"),
    ("What is the total loss from discontinued operations between 2019 to 2021?",
     ("sum(loss_from_discontinued_operations_2019, loss_from_discontinued_operations_2020, "
     "loss_from_discontinued_operations_2021)")),
])
def test_line_shapes_read_periods_as_reports_print_them(question: str, formula_text: str) -> None:
    plan = plan_for(question)
    assert same_formula(plan, formula_text) and plan.source == "line", plan


def test_a_change_over_a_span_of_years_reads_its_first_and_last_years_only() -> None:
    """"fell between 2011 and 2016": the table need not print 2012 to 2015 (a survey every few years); a fall asked
    is the amount it fell by, a rise the amount it rose by."""
    plan = plan_for("By how much did licence fees fall between 2011 and 2016?")
    assert plan is not None and same_formula(plan, "(licence_fees_2011) - (licence_fees_2016)")
    assert sorted(q.year for q in plan.quantities) == [2011, 2016] and plan.measure.startswith("fall in")
    plan = plan_for("By how much did licence fees grow between 2011 and 2016?")
    assert plan is not None and same_formula(plan, "(licence_fees_2016) - (licence_fees_2011)")


def test_a_change_asked_with_no_period_leaves_the_periods_to_the_line_s_table() -> None:
    plan = plan_for("What was the percentage change in closing cash?")
    assert plan is not None and plan.periods_open == "change" and plan.subject == "closing cash" and plan.percent
    concrete = over_periods(plan, [2019, 2018])
    assert concrete is not None and concrete.formula == "growth(closing_cash_2019, closing_cash_2018)"
    assert plan_for("How many components are there in the net change in cash balance?") is None
    assert plan_for("What is the difference between total net borrowings and current net borrowings?") is None
    plan = plan_for("What was the difference between the income of rented fleets and income in 2016?")
    assert same_formula(plan, "income_of_rented_fleets_2016 - income_2016"), plan  # two lines, one year


@pytest.mark.parametrize("question", [
    "What is revenue as a percentage of total assets?",  # a share of no year
    "What is the total proportion of the cost of services as a percentage of sales in 2020 and 2021?",  # two years
    "Why did the gross margin decrease in 2019?",  # an explanation
    "What are the respective working capital adjustments at June 30 and December 31, 2019?",
])
def test_questions_that_are_not_computed_measures_get_no_plan(question: str) -> None:
    assert plan_for(question) is None


@pytest.mark.parametrize("question", [
    "What is the FY2021 capital expenditure amount (in USD millions)?",
    "What was the company's Adjusted Non GAAP EBITDA for FY 2021?",  # the company's own measure: its own line
])
def test_a_line_in_one_period_is_a_lookup_plan_never_a_computation(question: str) -> None:
    plan = plan_for(question)
    assert plan is not None and plan.source == "lookup" and len(plan.quantities) == 1, plan


def test_a_qualifier_after_the_periods_stays_with_the_line() -> None:
    plan = plan_for("What was the change in revenue in 2019 over 2018 in Europe?")
    assert same_formula(plan, "(revenue_in_europe_2019) - (revenue_in_europe_2018)") and plan.in_own_words, plan


@pytest.mark.parametrize("question, formula_text", [
    ("What is revenue as a percentage of total assets in 2019?", "revenue_2019 / total_assets_2019 * 100"),
    ("What is the percentage of consulting fees in total fees in 2021?",
     "consulting_fees_2021 / total_fees_2021 * 100"),
    ("In 2021, what is the percentage constitution of restructuring provision among the total other liabilities?",
     "restructuring_provision_2021 / total_other_liabilities_2021 * 100"),
    ("What percentage of the total carrying value is made up of municipal bonds in 2020?",
     "municipal_bonds_2020 / total_carrying_value_2020 * 100"),
    ("What is the proportion of Acme\u2019s land, buildings, and machinery over total assets in 2020?",
     "land_buildings_and_machinery_2020 / total_assets_2020 * 100"),
    ("What is the ratio of the council's total current assets to total current liabilities as of March 31, 2023?",
     "total_current_assets_2023 / total_current_liabilities_2023"),
    ("What is the 2019 closing balance expressed as a percentage of the 2018 closing balance?",
     "closing_balance_2019 / closing_balance_2018 * 100"),
    ("What is the proportion, in percentage, of accrued bonuses over gross deferred tax liabilities in 2021?",
     "accrued_bonuses_2021 / gross_deferred_tax_liabilities_2021 * 100"),
])
def test_one_line_as_a_share_of_another_is_a_plan_over_lines_in_the_question_s_words(question: str,
                                                                                     formula_text: str) -> None:
    plan = plan_for(question)
    assert same_formula(plan, formula_text) and plan.source == "share" and plan.in_own_words, plan
    assert plan.percent == formula_text.endswith("* 100")


def test_a_part_said_with_and_may_be_a_sum_of_lines_but_one_word_pairs_are_one_line() -> None:
    plan = plan_for("What is the proportion, in percentage, of accrued bonuses and unpaid leave over gross "
                    "deferred tax liabilities in 2021?")
    assert plan is not None and plan.alternatives
    assert plan.formula == "accrued_bonuses_and_unpaid_leave_2021 / gross_deferred_tax_liabilities_2021 * 100"
    assert plan.alternatives[0].formula == "(accrued_bonuses_2021 + unpaid_leave_2021) / gross_deferred_tax_liabilities_2021 * 100"
    plan = plan_for("What is research and development as a percentage of revenue in 2019?")
    assert plan is not None and not plan.alternatives


def test_a_line_named_with_of_keeps_it_and_two_lines_never_share_a_row() -> None:
    plan = plan_for("What was the average proportion of cost of sales as a percentage of the total sales in "
                    "2020 and 2021?")
    assert same_formula(plan, "avg(cost_of_sales_2020 / total_sales_2020 * 100, "
                              "cost_of_sales_2021 / total_sales_2021 * 100)"), plan
    columns = (ColumnSchema("item", "TEXT", ""), ColumnSchema("y2019", "REAL", "2019"))
    info = TableInfo(1, 1, "r.pdf", "t", 1, 1, (0.0, 0.0, 1.0, 1.0), "Statements of Operations", "", "", 1, 2, "test",
                     TableSchema(1, "t", "r.pdf", 1, columns))
    view = TableView(info, columns[0], columns[1:], (RowChoice("Revenue", 1), RowChoice("Cost of revenue", 2)),
                     {1: ("Revenue", 100.0), 2: ("Cost of revenue", 43.0)})
    revenue, cost = Candidate(view, 1, "Revenue", 0.7), Candidate(view, 2, "Cost of revenue", 0.5)
    chosen = {"cost revenue": revenue, "revenue": revenue}  # both on "Revenue"
    _apart(chosen, {"cost revenue": [revenue, cost], "revenue": [revenue]})
    assert chosen["cost revenue"].label == "Cost of revenue" and chosen["revenue"].label == "Revenue"
    with pytest.raises(LookupError):  # no other row for either: a line as a share of itself is no answer
        _apart({"cost revenue": revenue, "revenue": revenue}, {"cost revenue": [revenue], "revenue": [revenue]})


def test_two_lines_told_apart_by_their_number_never_share_a_row() -> None:
    columns = (ColumnSchema("item", "TEXT", ""), ColumnSchema("y2021", "REAL", "2021"))
    info = TableInfo(1, 1, "r.pdf", "t", 1, 1, (0.0, 0.0, 1.0, 1.0), "Water use", "", "", 1, 2, "test",
                     TableSchema(1, "t", "r.pdf", 1, columns))
    view = TableView(info, columns[0], columns[1:], (RowChoice("Total water drawn (Zone 1 and 2)", 1),),
                     {1: ("Total water drawn (Zone 1 and 2)", 640.0)})
    total = Candidate(view, 1, "Total water drawn (Zone 1 and 2)", 0.8)
    # "zone 1" and "zone 2" are two lines: both on the one total line would add it to itself
    with pytest.raises(LookupError):
        _apart({"water drawn zone 1": total, "water drawn zone 2": total},
               {"water drawn zone 1": [total], "water drawn zone 2": [total]})
    chosen = {"water drawn zones": total, "water drawn zone": total}  # one line said two ways stays shared
    _apart(chosen, {"water drawn zones": [total], "water drawn zone": [total]})
    assert chosen["water drawn zones"] is total and chosen["water drawn zone"] is total


def test_row_labels_fit_the_words_reports_use() -> None:
    assert fit("COGS", "Cost of sales") == 1.0
    assert fit("inventory", "Inventories, net (Note 6)") == 1.0
    assert fit("net income", "Net earnings attributable to Best Buy Co., Inc. shareholders") > \
        fit("net income", "Net earnings attributable to redeemable and noncontrolling interests")
    assert fit("total current liabilities", "Total current liabilities") > fit("total current liabilities",
                                                                               "Other current liabilities")
    assert fit("net income", "Net income per share") < 0.5
    # A label that is the common name of another line item is not this one, whatever words it shares.
    assert fit("revenue", "Cost of sales") <= fit("revenue", "Net sales") / 2
    assert fit("revenue", "Cost of revenue") <= fit("revenue", "Total revenues") / 2
    assert fit("net income", "Operating income") <= fit("net income", "Net income") / 2
    assert fit("COGS", "Cost of sales") == 1.0 and fit("revenue", "Total revenues") == 1.0
    # A footnote's number printed flat on the last word is no part of the label; a numbered item keeps its number.
    assert fit("bonus plans", "Bonus plans1") == 1.0 and fit("pension contributions", "Pension contributions2") == 1.0
    assert fit("tier 1 capital", "Tier 1 capital") == 1.0 and fit("tier", "Tier1") < 1.0


def test_a_label_denying_or_taxing_otherwise_is_not_the_line_asked() -> None:
    """A label that says it is not what is asked ("... and not paid", "Non-..."), or an amount after tax where one
    before tax is asked, loses to the line that is; a label printing the asked item's report wording names it,
    whatever other item's name its words also hold ("income taxes" in an earnings-before-taxes line); what a net
    line is net of is no part of its name."""
    assert fit("dividends paid", "Cash dividends to shareholders") > fit("dividends paid", "Dividends approved and not paid")
    assert fit("operating income", "Non-operating income") < fit("operating income", "Operating income") / 2
    assert fit("pretax income", "Income before income taxes and equity in affiliates") > \
        fit("pretax income", "After-tax income of equity affiliates")
    assert fit("pre-tax profit", "Profit before taxation") > fit("pre-tax profit", "Profit net of tax from associates")
    assert fit("notes payable", "Notes payable") == 1.0  # "not" inside a word denies nothing
    assert fit("non-deductible expenses", "Non-deductible expenses") == 1.0  # denied as asked
    # "net of accumulated depreciation" says the line is net, and names no depreciation line
    assert fit("net PP&E", "Property, plant and equipment, net of accumulated depreciation of $41 and $38 (Note 4)") \
        == fit("net PP&E", "Property, plant and equipment, net") > fit("net PP&E", "Property, plant and equipment")


def test_total_liabilities_a_balance_sheet_does_not_print_are_what_liabilities_and_equity_leave() -> None:
    """A balance sheet printing no total of liabilities: neither its current liabilities' total, nor a note's heading
    summed over three of its lines, nor a note's total that a sentence says is "in our balance sheet" is that total;
    it is computed, total liabilities and equity less total equity."""
    sheet = _view([("Total current liabilities", "", (700.0,)), ("Long-term debt", "", (300.0,)),
                   ("Total equity", "", (400.0,)), ("Total liabilities and equity", "", (1500.0,))],
                  [("y2021", "2021", 2021)], caption="Consolidated Balance Sheets (in millions)")
    note = _view([("Liabilities", "", (None,)), ("Gift cards", "", (20.0,)), ("Deferred revenue", "", (30.0,)),
                  ("Accrued liabilities", "", (50.0,))], [("y2021", "2021", 2021)],
                 caption="Effect of the new revenue standard", table_id=2)
    insured = _view([("Workers' compensation", "", (80.0,)), ("Total", "", (129.0,))], [("y2021", "2021", 2021)],
                    caption="", table_id=3)
    insured = dataclasses.replace(insured, info=dataclasses.replace(
        insured.info, heading="Self-insured liabilities included in our Consolidated Balance Sheets were as follows:"))
    views = [dataclasses.replace(v, info=dataclasses.replace(v.info, document_id=1)) for v in (sheet, note, insured)]
    assert not candidates("total liabilities", [2021], views, "", whole=True)
    question = "What were total liabilities at the end of 2021?"
    (plan,) = plans_of(read(question))
    printed = printed_plan(plan)
    assert printed is not None and printed.formula == "total_liabilities_2021"  # the printed line looked for first
    with pytest.raises(LookupError):
        bind(printed, views, question)
    assert sorted(c.value for c in bind(plan, views, question).values()) == [400.0, 1500.0]


def test_a_label_ending_in_another_kind_of_amount_is_not_the_item_its_first_words_name() -> None:
    assert fit("research and development expense", "Research and development tax credit") < MIN_FIT
    assert fit("inventories", "Inventory reserves") < MIN_FIT
    assert fit("net income", "Net income (loss)") == fit("net income", "Net earnings (loss)") >= 0.8  # an alternative
    assert fit("income tax benefit", "Income tax benefit") == 1.0  # the kind asked


def test_which_figure_of_an_owners_line_it_is_stays_in_its_label() -> None:
    """"Earnings per share attributable to the owners — diluted" is diluted EPS, not the diluted share count."""
    assert covers("diluted EPS", "Earnings per share attributable to Acme common shareholders — diluted")
    assert fit("diluted EPS", "Earnings per share attributable to Acme common shareholders — diluted") > \
        fit("diluted EPS", "Weighted average Acme common shares outstanding — diluted")
    assert fit("net income", "Net income attributable to Acme") == 1.0


def test_a_label_sharing_only_a_generic_word_or_another_items_word_names_nothing() -> None:
    """A definition's parts bind only to lines that name them: G&A is no "Interest expense" (they share only
    "expense"), sales and marketing no "Total net sales"; "accounts receivable" is "Receivables, net"."""
    assert fit("general and administrative expenses", "Interest expense") == 0.0
    assert fit("sales and marketing expenses", "Total net sales") < MIN_FIT
    assert fit("net income", "Net income") == 1.0 and fit("total costs", "Total costs") == 1.0
    assert covers("accounts receivable", "Receivables, net") and fit("accounts receivable", "Receivables, net") >= MIN_FIT
    assert fit("SG&A", "Selling, general and administrative expenses") == 1.0
    # a part of SG&A is no SG&A, and a word every expense line prints covers no item's name
    assert fit("selling general and administrative expenses", "General and administrative") < MIN_FIT
    assert fit("selling general and administrative expenses", "Accrued expenses") == 0.0
    from core.answering.vocabulary import home_statement
    assert home_statement("deferred revenue") == "balance_sheet" and home_statement("revenue") == "income"


def test_a_line_read_with_its_heading_names_nothing_the_heading_does_not_explain() -> None:
    """"Cash used in investing activities" stored under the heading "Cash provided by operations" is no operating
    cash flow: a label is read with its heading only where the heading explains what the label adds."""
    view = _view([("Net income", "Cash provided by operations", (900.0,)),
                  ("Cash used in investing activities", "Cash provided by operations", (-300.0,))],
                 [("y2021", "2021", 2021)], caption="Consolidated statements of cash flows")
    assert not candidates("operating cash flow", [2021], [view], "", whole=True)


def test_a_documents_own_statement_goes_before_one_printed_again_in_its_notes() -> None:
    """A group's statements printed again in the notes (a guarantor group's, the parent company's), with the same
    lines: the figure is the document's own statement's, whatever search ranked first; retained earnings are a
    balance sheet's line, not an income statement's."""
    own = _view([("Operating income", "", (1508.0,)), ("Net income", "", (1058.0,))], [("y2023", "2023", 2023)],
                caption="Consolidated Statements of Income")
    again = _view([("Operating income", "", (532.0,)), ("Net income", "", (410.0,))], [("y2023", "2023", 2023)],
                  caption="Deed of Cross Guarantee Consolidated Statements of Income", table_id=2)
    again = dataclasses.replace(again, info=dataclasses.replace(again.info, page=105, document_id=1))
    (first, second) = candidates("operating income", [2023], [again, own], "", whole=True)
    assert (first.view.info.caption, second.view.info.caption) == (own.info.caption, again.info.caption)
    from core.answering.vocabulary import home_statement
    assert home_statement("retained earnings") == "balance_sheet" and home_statement("net earnings") == "income"


def test_a_statement_titled_over_its_label_column_is_known_for_one() -> None:
    """A cash-flow statement whose caption is only the company's name, its title printed as the head of the label
    column: money paid out there is read without its sign, as under any cash-flow statement."""
    view = _view([("Net income", "", (900.0,)), ("Additions to property and equipment", "", (-120.0,))],
                 [("y2021", "2021", 2021)], caption="ACME, INC.")
    label = ColumnSchema("item", "TEXT", "CONSOLIDATED STATEMENTS OF CASH FLOWS")
    schema = dataclasses.replace(view.info.schema, columns=(label, *view.info.schema.columns[1:]))
    titled = dataclasses.replace(view, info=dataclasses.replace(view.info, schema=schema), label_column=label)
    capex = Candidate(titled, 2, "Additions to property and equipment", 1.0)
    assert not cell_of("capex", dataclasses.replace(capex, view=view), "y2021", "").absolute
    cell = cell_of("capex", capex, "y2021", "")
    assert cell.value == 120.0 and cell.absolute


def test_a_line_named_in_the_question_must_be_named_whole_by_the_label() -> None:
    """A shape plan ("the change in X from A to B") binds X only to a label holding all of X's words."""
    assert covers("long-lived assets", "Total long-lived assets")
    assert covers("COGS", "Cost of sales")  # the words reports print for it count
    assert covers("other assets", "Other non-current assets")
    assert not covers("other assets", "Other")
    assert not covers("interest income", "Interest cost")
    assert not covers("net sales", "Net income")
    # "total X" is the line labelled a total, or one naming X and nothing more; a part of it is not.
    assert covers("total costs", "Total costs") and covers("total revenue", "Revenues")
    assert not covers("total costs", "Patent costs")
    assert covers("total net accounts receivable", "Total accounts receivable, net")  # ", net" names it net


def test_a_line_asked_alone_is_named_exactly_by_its_label_not_by_its_total() -> None:
    """"The deferred charges in 2021": a table printing "Deferred charges" names it exactly, one printing only "Total
    deferred charges" does not, whichever search ranked first ("the total deferred charges" is still the total)."""
    totals = _view([("Prepaid rent", "", (10.0,)), ("Total deferred charges", "", (90.0,))], [("y2021", "2021", 2021)],
                   table_id=1)
    lines = _view([("Deferred charges", "", (40.0,)), ("Other assets", "", (15.0,))], [("y2021", "2021", 2021)],
                  table_id=2)
    first = candidates("deferred charges", [2021], [totals, lines], "", whole=True)[0]
    assert (first.label, first.exact) == ("Deferred charges", True)
    total = candidates("total deferred charges", [2021], [totals, lines], "", whole=True)[0]
    assert (total.label, total.exact) == ("Total deferred charges", True)


def test_of_a_row_s_columns_the_one_whose_header_the_question_names_goes_first() -> None:
    """A line asked with no year over columns of two rounds and two areas: the round and the area the question names
    ("round-2 urban") choose the column, though the line's words fit every column alike."""
    view = _view([("Households with piped water", "", (61.0, 48.0, 55.0, 40.0)),
                  ("Households with a toilet", "", (70.0, 52.0, 66.0, 45.0))],
                 [("r3_total", "Round-3 (2019) Total", 2019), ("r3_urban", "Round-3 (2019) Urban", 2019),
                  ("r2_total", "Round-2 (2014) Total", 2014), ("r2_urban", "Round-2 (2014) Urban", 2014)])
    question = "Round-2 urban: share of households with piped water?"
    first = candidates("households with piped water", [], [view], question)[0]
    assert (first.label, first.column) == ("Households with piped water", "r2_urban")
    first = candidates("households with piped water", [], [view], question, whole=True)[0]
    assert (first.label, first.column) == ("Households with piped water", "r2_urban")


def test_a_line_is_named_by_its_label_its_section_and_its_table_s_title_together() -> None:
    """"Corporate tax receipts in the forecast": "Corporate income taxes" under "Receipts" in a table titled
    "Forecast by category": the section says receipts, the title says forecast, neither says both."""
    view = _view([("Corporate income taxes", "Receipts", (242.0, 460.0)), ("Excise taxes", "Receipts", (79.0, 96.0)),
                  ("Defense", "Outlays", (670.0, 716.0))], [("y2012", "2012", 2012), ("y2022", "2022", 2022)],
                 caption="Table 4. Forecast by category")
    found = candidates("corporate income tax receipts in the forecast", [2012, 2022], [view], "", whole=True)
    assert found and found[0].label == "Corporate income taxes"


def test_a_number_of_shares_is_no_column_of_percentages() -> None:
    """"Number of Shares" and "Shares in thousands" count shares of stock; "Market shares" are percentages."""
    from core.answering.table_query import is_percent

    view = _view([("Outstanding at June 30", "", (2806364.0, 2806.0, 12.5))],
                 [("number_of_shares", "Number of Shares", 2019), ("shares_k", "Shares in thousands", 2019),
                  ("market", "Market shares", 2019)])
    assert [is_percent(view, c) for c in view.data_columns] == [False, False, True]


def test_an_amount_after_taxes_is_no_amount_before_taxation() -> None:
    """"Profit after taxes" (or "after income taxes", "after taxation") is no profit before taxation, however many
    other words the two share; before, only "after tax" said so."""
    for label in ("Profit from continuing operations for the year after taxes",
                  "Earnings for the period after income taxes", "Profit for the period after taxation"):
        assert fit("(Loss)/profit before taxation", label) < MIN_FIT
    assert fit("(Loss)/profit before taxation", "Profit/(loss) before taxation") >= MIN_FIT


def test_a_label_s_net_or_gross_suffix_names_the_net_or_gross_cost_of_its_item() -> None:
    """"X, gross" is the gross cost (value, amount) of X, and "X, net" the net one: a question says the basis before
    the item ("the gross cost of tools and dies") where the label prints it after."""
    assert covers("gross cost of tools and dies", "Tools and dies, gross")
    assert covers("net value of tools and dies", "Tools and dies, net")
    assert fit("gross cost of tools and dies", "Tools and dies, gross") > fit("gross cost of tools and dies",
                                                                              "Tools and dies, net")
    assert not covers("gross cost of tools and dies", "Tools and dies, net")  # the other basis
    assert not covers("cost of tools and dies", "Tools and dies, gross")  # no basis asked, no cost printed


def _view(rows: list[tuple[str, str, tuple[float | None, ...]]], headers: list[tuple[str, str, int]],
          caption: str = "Notes to the financial statements", table_id: int = 1) -> TableView:
    """A table of (label, section, figures) rows under (column, header, fiscal year) columns."""
    columns = (ColumnSchema("item", "TEXT", ""), *(ColumnSchema(name, "REAL", header) for name, header, _ in headers))
    info = TableInfo(table_id, table_id, "r.pdf", f"t{table_id}", 1, 1, (0.0, 0.0, 1.0, 1.0), caption, "", "", 1,
                     len(rows), "test", TableSchema(table_id, f"t{table_id}", "r.pdf", 1, columns),
                     row_facts=tuple(RowFacts(i, 0, None, False, section) for i, (_, section, _) in enumerate(rows, 1)),
                     periods=tuple(ColumnPeriod(name, Period(year)) for name, _, year in headers))
    return TableView(info, columns[0], columns[1:], tuple(RowChoice(label, i) for i, (label, _, _) in enumerate(rows, 1)),
                     {i: (label, *figures) for i, (label, _, figures) in enumerate(rows, 1)})


def test_a_line_over_two_years_reads_one_group_of_columns() -> None:
    """Where a table prints the year's balance and, beside it, each year's net additions, a change over two
    years compares like with like: the group every year has."""
    view = _view([("Video service customers", "", (312555.0, -4697.0, -6760.0))],
                 [("y2019", "August 31, 2019", 2019), ("y2019_net", "Net additions (losses) August 31, 2019", 2019),
                  ("y2018_net", "Net additions (losses) August 31, 2018 (1)", 2018)])
    assert year_columns(view, [2018, 2019]) == ["y2018_net", "y2019_net"]
    assert year_columns(view, [2019]) == ["y2019"]


def test_a_quarter_s_column_is_never_the_year_s_figure() -> None:
    """A table of quarters (columns dated and three months long): a year asked has no column there, though the
    quarter's header prints the year; the day a question names still finds its quarter."""
    view = _view([("Revenue", "", (4210.0, 3980.0))], [("apr_2021", "April 24, 2021", 2021), ("jan_2021", "January 23, 2021", 2021)])
    view = dataclasses.replace(view, info=dataclasses.replace(view.info, periods=tuple(
        ColumnPeriod(name, Period(2021, end, 0, 3)) for name, end in (("apr_2021", "2021-04-24"), ("jan_2021", "2021-01-23")))))
    assert year_column(view, 2021, "What was revenue in 2021?") is None
    assert year_column(view, 2021, "What was revenue for the quarter ended January 23, 2021?") == "jan_2021"


def test_a_quarter_asked_is_never_read_in_the_year_s_column() -> None:
    """A table of a year's quarters and its total: "the third quarter of fiscal 2021" is that quarter's column; where
    no column is that quarter's, the year's total is no answer (the binding finds no column)."""
    view = _view([("Net sales", "", (510.0, 530.0, 2080.0))],
                 [("q2_2021", "Second Quarter 2021", 2021), ("q3_2021", "Third Quarter 2021", 2021),
                  ("fy2021", "Fiscal 2021 Total", 2021)])
    view = dataclasses.replace(view, info=dataclasses.replace(view.info, periods=(
        ColumnPeriod("q2_2021", Period(2021, "", 2, 3)), ColumnPeriod("q3_2021", Period(2021, "", 3, 3)),
        ColumnPeriod("fy2021", Period(2021, "", 0, 12)))))
    assert year_column(view, 2021, "What were net sales in the fiscal 2021 third quarter?") == "q3_2021"
    assert year_column(view, 2021, "What were net sales in Q2 2021?") == "q2_2021"
    assert year_column(view, 2021, "What were net sales in the fourth quarter of 2021?") is None
    assert year_column(view, 2021, "What were net sales in 2021?") == "fy2021"


def test_a_heading_row_without_figures_names_the_lines_beneath_it_where_ingestion_stored_no_section() -> None:
    """A table printing the same items under "Global (all markets)", then "Domestic only" (headings with no figures),
    with no sections stored: "global cargo flights" is the first block's line; a label fragment begun in lower case
    ("revenue" under "Total cost of") continues a label and heads nothing."""
    view = _view([("Global (all markets)", "", (None, None)), ("Cargo flights", "", (14.0, 11.0)),
                  ("Passenger flights", "", (40.0, 38.0)), ("Domestic only", "", (None, None)),
                  ("Cargo flights", "", (6.0, 5.0)), ("Total cost of", "", (70.0, 60.0)), ("revenue", "", (None, None)),
                  ("Total", "", (130.0, 114.0))],
                 [("y2021", "2021", 2021), ("y2020", "2020", 2020)])
    view = dataclasses.replace(view, info=dataclasses.replace(view.info, row_facts=()))
    assert view.headings == {2: "Global (all markets)", 3: "Global (all markets)", 5: "Domestic only",
                                  6: "Domestic only", 8: "Domestic only"}
    found = candidates("global cargo flights", [2020, 2021], [view], "", whole=True)
    assert (found[0].row, found[0].label) == (2, "Cargo flights")
    assert not candidates("total revenue", [2020, 2021], [view], "", whole=True)


def test_a_scale_note_excepting_percentages_does_not_make_a_column_a_percent() -> None:
    """"2020 Amount (In thousands, except percentages)" is the year's amount; "2020 % of revenue" beside it is not."""
    view = _view([("Licences", "", (6480.0, 9.0, 3545.0, 5.0))],
                 [("amount", "2021 Amount (In thousands, except", 0), ("pct_2021", "2021 % of revenue", 0),
                  ("percentages", "2020 Amount (In thousands, except percentages)", 0), ("pct_2020", "2020 % of revenue", 0)])
    view = dataclasses.replace(view, info=dataclasses.replace(view.info, periods=()))
    assert year_columns(view, [2020, 2021]) == ["percentages", "amount"]


def test_a_quarter_named_to_the_day_reads_that_date_s_column() -> None:
    """Quarterly columns where ingestion stored only the fiscal years' closing quarters as the years: "the quarters
    ended February 25, 2023 and November 26, 2022" are those dates' columns, not the year's closing quarter."""
    view = _view([("Net sales", "", (410.0, 395.0, 388.0, 402.0))],
                 [("aug_2023", "Quarter ended August 26, 2023", 2023), ("may_2023", "May 27, 2023", 0),
                  ("feb_2023", "February 25, 2023", 0), ("nov_2022", "November 26, 2022", 2022)])
    view = dataclasses.replace(view, info=dataclasses.replace(view.info, periods=tuple(
        p for p in view.info.periods if p.period.fiscal_year)))
    asked = "How did net sales change between the quarters ended February 25, 2023 and November 26, 2022?"
    assert year_columns(view, [2022, 2023], asked) == ["nov_2022", "feb_2023"]
    assert year_columns(view, [2022, 2023], "How did net sales change from 2022 to 2023?") == ["nov_2022", "aug_2023"]
    assert year_columns(view, [2023], "Net sales for the quarter ended 27 May 2023?") == ["may_2023"]


def test_a_line_bound_to_a_label_naming_more_is_looked_for_where_reports_print_it_exactly() -> None:
    """"Other assets" bound to "Other current assets" is named loosely; a report printing "Other assets (1)" prints
    it exactly (that table is meant), and two reports printing it leave the question which one it means."""
    question = "How much did other assets change from 2020 to 2021, in percent?"
    plan = plans_of(read(question))[0]
    columns = [("y2021", "2021", 2021), ("y2020", "2020", 2020)]
    working = _view([("Other current assets", "", (12.0, 10.0))], columns, table_id=1)
    first = _view([("Deferred tax assets", "", (5.0, 4.0)), ("Other assets (1)", "", (18.0, 9.5))], columns, table_id=2)
    second = _view([("Other assets", "", (7.0, 6.0))], columns, table_id=3)
    assert loosely_named(plan, bind(plan, [working], question), [working]) == ["other assets"]
    assert not loosely_named(plan, bind(plan, [first], question), [first])
    assert list(printing_exactly(plan, ["other assets"], [working, first], question)) == [2]
    assert sorted(printing_exactly(plan, ["other assets"], [first, second], question)) == [2, 3]
    total = _view([("Licences", "", (4.0, 3.0)), ("Total", "", (9.0, 8.0))], columns, caption="Other assets", table_id=4)
    total_plan = plans_of(read("What was the change in total other assets from 2020 to 2021?"))[0]
    assert not loosely_named(total_plan, bind(total_plan, [total], question), [total])  # a bare total: its title names it


def test_a_label_names_a_line_with_its_section_heading() -> None:
    """"Operating activities" under "Net cash (used in) provided by:" is the cash used in operating
    activities; "Other" under "Deferred tax liabilities:" names none of the asked words and is not them."""
    view = _view([("Operating activities", "Net cash (used in) provided by", (-618.0, -3908.0)),
                  ("Financing activities", "Net cash (used in) provided by", (1389.0, 1779.0)),
                  ("Other", "Deferred tax liabilities", (10.0, 14.0))],
                 [("y2019", "2019", 2019), ("y2018", "2018", 2018)])
    found = candidates("cash used operating activities", [2018, 2019], [view], "", whole=True)
    assert [c.label for c in found] == ["Operating activities"]
    assert not candidates("deferred tax liabilities", [2018, 2019], [view], "", whole=True)


def test_a_label_naming_the_line_exactly_goes_before_one_naming_more_in_a_table_ranked_higher() -> None:
    """Two tables print a line the question names whole: "Accrued charges and other" under "Deferred tax assets" in
    the table search ranked first, "Other" under the same heading in the next. The label that names the line and
    nothing more is the one asked about; and a change asked with no period reads the years that table prints."""
    wider = _view([("Accrued charges and other", "Deferred tax assets", (71.0, 68.0)),
                   ("Patents", "Deferred tax assets", (12.0, 11.0))],
                  [("y2021", "2021", 2021), ("y2020", "2020", 2020)])
    exact = _view([("Pension costs", "Deferred tax assets", (140.0, 133.0)),
                   ("Other", "Deferred tax assets", (47.0, 45.0)),
                   ("Other", "Deferred tax liabilities", (-9.0, -8.0))],
                  [("y2022", "2022", 2022), ("y2021", "2021", 2021)], table_id=2)
    found = candidates("other deferred tax assets", [2021], [wider, exact], "", whole=True)
    assert (found[0].view.info.id, found[0].label, found[0].exact) == (2, "Other", True)
    assert not any(c.exact for c in found[1:])  # "Accrued charges" is more than its heading and the line explain
    # "the total X" is named exactly by a label that says total, not by "X" in a table ranked higher
    net = _view([("Net deferred tax assets", "", (90.0, 80.0))], [("y2021", "2021", 2021), ("y2020", "2020", 2020)],
                table_id=3)
    totals = _view([("Total net deferred tax assets", "", (70.0, 75.0))], [("y2021", "2021", 2021), ("y2020", "2020", 2020)],
                   table_id=4)
    found = candidates("total net deferred tax assets", [2021], [net, totals], "", whole=True)
    assert [(c.view.info.id, c.exact) for c in found] == [(4, True), (3, False)]
    # no period asked: the years the table printing the line exactly (with its heading) prints, newest first
    assert printed_years("other deferred tax assets", [exact], "") == [2022, 2021]
    # a label that names the line only together with more words than it is no source of its years
    assert printed_years("other deferred tax assets", [wider], "") == []


def test_two_names_of_one_line_item_share_its_row_but_siblings_never_do() -> None:
    """A definition may call one line "COGS" in one place and "cost of goods sold" in another: one row. Lines that
    share only a head word are siblings: interest expense is never "Operating expenses"."""
    view = _view([("Net sales", "", (900.0,)), ("Cost of sales", "", (600.0,)), ("Operating expenses", "", (200.0,)),
                  ("Inventories", "", (80.0,))], [("y2021", "2021", 2021)])
    (plan,) = plans_of(read("What is the ratio in 2021? Define it as (COGS + inventories) divided by cost of goods sold."))
    cells = bind(plan, [view], "")
    assert {cells[q.name].label for q in plan.quantities if "cogs" in q.name or "cost" in q.name} == {"Cost of sales"}
    assert fit("interest expense", "Operating expenses") < MIN_FIT <= fit("interest expense", "Interest expense, net")
    assert fit("operating income", "Operating expenses") < MIN_FIT
    # a line item named by a common name is the label that names it, not one sharing a word with it
    assert fit("income tax expense", "Other expense (income), net") < MIN_FIT <= fit("income tax expense",
                                                                                   "Provision for income taxes")
    assert fit("operating income", "Income from operations") >= fit("operating income", "Operating income") - 0.01
    assert covers("diluted eps", "Earnings per share - diluted")  # EPS is what statements print in words
    # the debt due after a year is not its current portion
    assert fit("long-term debt", "Current portion of long-term debt") < fit("long-term debt",
                                                                           "Long-term debt, less current portion")


def cell_named(cells: dict[str, BoundCell], word: str) -> BoundCell:
    """The bound cell whose name begins with ``word``."""
    return next(c for name, c in cells.items() if name.startswith(word))


def test_a_line_printed_as_its_parts_is_their_sum_and_a_bracketed_cost_is_an_amount() -> None:
    """"Inventories" printed with no figure over its two parts (and no total) is their sum, every part's cell read by
    one SQL SUM; where the parts close with a total, that total is the line. An income statement that brackets its
    cost of sales gives the cost as an amount to a measure's formula."""
    balance = _view([("Current assets:", "", (None, None)), ("Cash", "Current assets", (410.0, 380.0)),
                     ("Inventories", "Current assets", (None, None)), ("Raw materials", "Inventories", (310.0, 295.0)),
                     ("Finished goods", "Inventories", (502.0, 488.0)), ("Prepaid expenses", "Current assets", (93.0, 90.0))],
                    [("y2021", "2021", 2021), ("y2020", "2020", 2020)], caption="Consolidated Balance Sheets")
    parents = {2: 1, 3: 1, 4: 3, 5: 3, 6: 1}
    facts = tuple(RowFacts(row, 1 if parent == 1 else 2, parent, False, "") for row, parent in parents.items())
    balance = dataclasses.replace(balance, info=dataclasses.replace(balance.info, row_facts=(RowFacts(1, 0, None, False, ""),
                                                                                            *facts)))
    income = _view([("Net sales", "", (5000.0, 4800.0)), ("Cost of sales", "", (-3650.0, -3500.0))],
                   [("y2021", "2021", 2021), ("y2020", "2020", 2020)], caption="Consolidated Statements of Income",
                   table_id=2)
    (plan,) = plans_of(read("What were the days inventory outstanding in 2021?"))
    cells = bind(plan, [balance, income], plan.formula)
    inventories = cells["inventories_2021"]
    assert inventories.parts == (4, 5) and inventories.value == 812.0
    assert "SUM" in inventories.sql() and "Raw materials + Finished goods" in inventories.label
    # added to another line of its column, it is its parts that are added, never its heading's empty row
    cells_of = bind(plans_of(read("What is the ratio in 2021? Define it as (cash + inventories) divided by "
                                         "prepaid expenses."))[0], [balance], "")
    summed = formula.to_sql(formula.parse("(a + b) / c"), {"a": cell_named(cells_of, "cash"),
                                                          "b": cell_named(cells_of, "inventories"),
                                                          "c": cell_named(cells_of, "prepaid")})
    assert "_row IN (2, 4, 5)" in summed and "_row = 3" not in summed, summed
    assert cells["cost_of_goods_sold_2021"].value == 3650.0 and cells["cost_of_goods_sold_2021"].absolute
    closed = dataclasses.replace(balance.info, row_facts=(*balance.info.row_facts[:5], RowFacts(6, 2, 3, True, "")))
    assert not [c for c in candidates("inventories", [2021], [dataclasses.replace(balance, info=closed)], "") if c.parts]
    # a heading over an amount and its share of the total: no parts of one amount
    shares = _view([("Revenue", "", (None,)), ("Product", "Revenue", (39080.0,)), ("Percentage of revenue", "Revenue", (75.3,))],
                   [("y2021", "2021", 2021)])
    shares = dataclasses.replace(shares, info=dataclasses.replace(shares.info, row_facts=(
        RowFacts(1, 0, None, False, ""), RowFacts(2, 1, 1, False, ""), RowFacts(3, 1, 1, False, ""))))
    assert not [c for c in candidates("revenue", [2021], [shares], "") if c.parts]


def test_a_line_named_a_and_b_printed_as_two_lines_of_one_table_is_their_sum() -> None:
    """A cash flow statement printing "Depreciation" and "Amortization of intangibles" apart gives EBITDA's
    depreciation and amortization as their sum; a line listing more items ("Amortization, impairment and other")
    is no part of it."""
    cash = _view([("Net income", "", (500.0,)), ("Depreciation", "", (140.0,)),
                  ("Amortization of intangibles", "", (12.0,)), ("Operating income", "", (700.0,))],
                 [("y2021", "2021", 2021)], caption="Consolidated Statements of Cash Flows")
    (plan,) = plans_of(read("What was EBITDA in 2021?"))
    cells = bind(plan, [cash], "")
    (amortized,) = [c for name, c in cells.items() if "depreciation" in name]
    assert amortized.parts == (2, 3) and amortized.value == 152.0 and "Depreciation + Amortization" in amortized.label
    listed = _view([("Depreciation", "", (140.0,)), ("Amortization, impairment and other", "", (30.0,)),
                    ("Operating income", "", (700.0,))], [("y2021", "2021", 2021)],
                   caption="Consolidated Statements of Cash Flows")
    with pytest.raises(LookupError):
        bind(plan, [listed], "")


def test_a_balance_at_a_date_is_the_closing_line_and_the_table_ranked_first_wins() -> None:
    rollforward = _view([("Goodwill, beginning of the year", "", (1769.4, 1710.3)),
                         ("Goodwill, end of the year", "", (2450.8, 1620.2))],
                        [("y2019", "January 31, 2019", 2019), ("y2018", "January 31, 2018", 2018)], table_id=1)
    found = candidates("goodwill", [2018, 2019], [rollforward], "", whole=True)
    assert found[0].label == "Goodwill, end of the year"
    # Another report prints "Expected volatility" too: the table search ranked first for the question is the one.
    ours = _view([("Expected volatility", "", (28.7, 27.1))], [("y2018", "2018", 2018), ("y2017", "2017", 2017)],
                 table_id=2)
    theirs = _view([("Expected volatility", "", (40.0, 38.1)), ("Dividend yield", "", (1.0, 1.0))] * 20,
                   [("y2018", "2018", 2018), ("y2017", "2017", 2017)], table_id=3)
    assert candidates("expected volatility", [2017, 2018], [ours, theirs], "", whole=True)[0].view is ours
    assert candidates("expected volatility", [2017, 2018], [theirs, ours], "", whole=True)[0].view is theirs


# -- bound cells, one SQL statement, both tables cited --------------------------------------------


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Library, Figures]]:
    directory = tmp_path_factory.mktemp("statements")
    pdf = directory / "annual_report.pdf"
    _, figures = build_statements_report(pdf, seed=3)
    library = Library(directory / "library.sqlite3")
    result = Ingestor(library, HashEmbedder()).ingest_file(pdf)
    assert result.status == "added", result
    yield library, figures
    library.close()


def _answerer(library: Library, chat: ScriptedChat) -> tuple[Answerer, SqlRunner]:
    runner = SqlRunner(library.path)
    return Answerer(library, Retriever(library.conn, HashEmbedder()), runner, chat), runner


def test_the_statements_are_separate_tables(report: tuple[Library, Figures]) -> None:
    library, _ = report
    captions = [t.caption for t in library.tables()]
    assert any("Income" in c for c in captions), captions
    assert any("Balance Sheet" in c for c in captions), captions
    assert any("Cash Flows" in c for c in captions), captions


def test_a_ratio_across_two_statements_is_exact_and_cites_both_cells(report: tuple[Library, Figures]) -> None:
    library, figures = report
    question = multi_table_questions(figures)[0]  # operating cash flow ratio: cash flows over balance sheet
    chat = ScriptedChat()  # no reply queued: any model call fails the test
    answerer, runner = _answerer(library, chat)
    try:
        answer = answerer.answer(question.text)
    finally:
        runner.close()
    expected = f"{question.answer:.2f}"
    assert answer.value == expected, answer.text
    year = figures.years[0]
    cash, liabilities = figures.lines["operating cash"][year], figures.lines["total current liabilities"][year]
    assert f"{cash:,.0f} / {liabilities:,.0f} = {expected}" in answer.text
    cited = [c for c in answer.citations if c.sql]
    assert {c.table for c in cited} == {c.table for c in cited if c.cells} and len(cited) == 2
    texts = {cell.text.replace(",", "") for c in cited for cell in c.cells}
    assert {f"{cash:.0f}", f"{liabilities:.0f}"} <= texts
    assert all(c.sql == cited[0].sql for c in cited) and "SELECT" in (cited[0].sql or "")
    assert answer.steps[0].sql_result == ((pytest.approx(question.answer),),)
    used = answer.steps[0].intermediate_answer
    assert "Balance Sheet" in used and "Total current liabilities" in used and "Cash Flows" in used, used
    assert chat.calls == []


def test_a_change_in_a_printed_line_is_computed_by_code_and_an_unprinted_one_goes_to_the_loop(
        report: tuple[Library, Figures]) -> None:
    library, figures = report
    new, old = figures.years[0], figures.years[1]
    chat = ScriptedChat()  # no reply queued: the first answer must call no model
    answerer, runner = _answerer(library, chat)
    try:
        answer = answerer.answer(f"What was the percent change in total assets from {old} to {new}?")
        assert chat.calls == []
        change = (figures.lines["total assets"][new] - figures.lines["total assets"][old]) \
            / figures.lines["total assets"][old] * 100
        assert answer.value == f"{round(change, 2):g}%", answer.text
        # No label holds "revenue spending": no formula step is made up, the loop's own steps go on.
        chat.fallback = lambda _messages, _schema: {"action": "answer", "text": "not reported"}
        answer = answerer.answer(f"What was the change in revenue spending from {old} to {new}?")
        assert "No table row" in answer.steps[0].failures[0]  # noted on the loop's step, not a step of its own
        # Where nothing relevant is found and no step is taken, what was tried is still shown.
        answer = answerer.answer(f"What was the change in marketing spend from {old} to {new}?")
        assert answer.status == "refused" and "No table row" in answer.steps[0].failures[0]
    finally:
        runner.close()
    assert all("formula" not in (c["schema"] or {}).get("properties", {}) for c in chat.calls)


def test_a_share_of_two_printed_lines_is_computed_by_code_with_both_cells_cited(
        report: tuple[Library, Figures]) -> None:
    library, figures = report
    year = figures.years[0]
    chat = ScriptedChat()  # no reply queued: any model call fails the test
    answerer, runner = _answerer(library, chat)
    try:
        share = answerer.answer(f"What were total current assets as a percentage of total assets in {year}?")
        ratio = answerer.answer(f"What is the ratio of total liabilities to total assets in {year}?")
    finally:
        runner.close()
    assets, current, liabilities = (figures.lines[k][year] for k in ("total assets", "total current assets",
                                                                      "total liabilities"))
    assert share.value == f"{round(current / assets * 100, 2):g}%", share.text
    assert ratio.value == f"{liabilities / assets:.2f}", ratio.text
    cells = {cell.text.replace(",", "") for c in share.citations if c.sql for cell in c.cells}
    assert {f"{current:.0f}", f"{assets:.0f}"} <= cells
    assert chat.calls == []


def test_two_lines_said_with_and_over_a_third_are_summed_when_no_line_is_named_by_the_whole_phrase(
        report: tuple[Library, Figures]) -> None:
    """"Cost of sales and operating expenses as a percentage of revenue": no label names the whole phrase, so
    its two lines are summed over revenue, every cell cited; no model call."""
    library, figures = report
    year = figures.years[0]
    chat = ScriptedChat()
    answerer, runner = _answerer(library, chat)
    try:
        share = answerer.answer(f"What were cost of sales and operating expenses as a percentage of revenue in {year}?")
    finally:
        runner.close()
    cost, expenses, revenue = (figures.lines[k][year] for k in ("cost of sales", "operating expenses", "revenue"))
    assert share.value == f"{round((cost + expenses) / revenue * 100, 2):g}%", share.text
    cells = {cell.text.replace(",", "").strip("()") for c in share.citations if c.sql for cell in c.cells}
    assert {f"{abs(cost):.0f}", f"{abs(expenses):.0f}", f"{revenue:.0f}"} <= cells
    assert chat.calls == []


def test_a_change_with_no_period_is_between_the_newest_two_its_table_prints(report: tuple[Library, Figures]) -> None:
    library, figures = report
    new, old = figures.years[0], figures.years[1]
    chat = ScriptedChat()  # no reply queued: any model call fails the test
    answerer, runner = _answerer(library, chat)
    try:
        answer = answerer.answer("What was the change in total equity?")
        total = answerer.answer(f"What were total current liabilities in {new} and {old} combined?")
    finally:
        runner.close()
    change = figures.lines["equity"][new] - figures.lines["equity"][old]
    assert f"{change:,.0f}".lstrip("-") in answer.value and (change < 0) == answer.value.startswith("-"), answer.text
    combined = figures.lines["total current liabilities"][new] + figures.lines["total current liabilities"][old]
    assert f"{combined:,.0f}" in total.value, total.text
    assert chat.calls == []


def test_an_outflow_is_read_as_the_amount_paid(report: tuple[Library, Figures]) -> None:
    library, figures = report
    question = next(q for q in multi_table_questions(figures) if "free cash flow" in q.text)
    answerer, runner = _answerer(library, ScriptedChat())
    try:
        answer = answerer.answer(question.text)
    finally:
        runner.close()
    assert f"{question.answer:,.0f}" in answer.text
    assert "printed in brackets, read without its sign" in answer.text


def test_a_join_on_a_shared_department(report: tuple[Library, Figures]) -> None:
    library, figures = report
    question = multi_table_questions(figures)[-1]
    answerer, runner = _answerer(library, ScriptedChat())
    try:
        answer = answerer.answer(question.text)
    finally:
        runner.close()
    assert f"{question.answer:,.0f}" in answer.text
    assert {c.table for c in answer.citations if c.sql and c.cells} and \
        len({c.table for c in answer.citations if c.sql}) == 2


def test_close_candidates_go_to_the_model_constrained_to_them(report: tuple[Library, Figures]) -> None:
    library, figures = report
    year = figures.years[0]
    # "income" fits "Net income" and "Income tax" alike: the model chooses, among those rows only.
    question = f"What is the income ratio in {year}? Define it as income divided by revenue."
    chat = ScriptedChat()
    chat.fallback = lambda _messages, schema: {
        key: next(o for o in spec["enum"] if o.startswith("Net income"))
        for key, spec in (schema or {}).get("properties", {}).items()}
    answerer, runner = _answerer(library, chat)
    try:
        answer = answerer.answer(question)
    finally:
        runner.close()
    assert len(chat.calls) == 1
    (options,) = chat.calls[0]["schema"]["properties"].values()
    assert {o.split(" \u2014 ")[0] for o in options["enum"]} >= {"Net income", "Income tax"}
    expected = figures.lines["net income"][year] / figures.lines["revenue"][year]
    assert answer.value == f"{expected:.2f}", answer.text


def test_a_defined_measure_with_a_line_no_row_holds_says_which_and_asks_the_model_for_no_stand_in(
        report: tuple[Library, Figures]) -> None:
    library, figures = report
    # the report prints operating income but no interest expense
    question = f"What was the interest coverage in {figures.years[0]}?"
    chat = ScriptedChat()  # any call fails the test: neither a formula of the model's nor the loop's steps
    answerer, runner = _answerer(library, chat)
    try:
        answer = answerer.answer(question)
    finally:
        runner.close()
    assert chat.calls == []
    assert answer.steps and answer.steps[0].sql_error and "No table row" in answer.steps[0].sql_error
    assert answer.status == "refused" and not answer.value
    assert "I could not compute interest coverage" in answer.text and "interest expense" in answer.text, answer.text


def test_the_sandbox_runs_a_formula_read_only_over_its_cells(report: tuple[Library, Figures]) -> None:
    library, _ = report
    table = library.tables()[0]
    cell = formula.BoundCell("a", table.name, table.id, 1, table.schema.columns[1].name, 1.0, "x", "y")
    zero = formula.BoundCell("z", table.name, table.id, 10_000, table.schema.columns[1].name, 0.0, "x", "y")
    runner = SqlRunner(library.path)
    try:
        sql = formula.to_sql(formula.parse("a / z"), {"a": cell, "z": zero})
        with pytest.raises(formula.FormulaError, match="missing or it divides by zero"):
            formula.result_of(runner.run(sql).rows)
        with pytest.raises(UserError):
            runner.run(f"DELETE FROM {table.name}; {sql}")
    finally:
        runner.close()


def test_lines_of_one_column_added_up_are_one_sum_and_a_missing_line_is_no_zero(report: tuple[Library, Figures]) -> None:
    library, _ = report
    table = library.tables()[0]
    column = table.schema.columns[1].name
    runner = SqlRunner(library.path)
    try:
        rows = runner.run(f'SELECT _row, "{column}" FROM {table.name} WHERE "{column}" IS NOT NULL ORDER BY _row LIMIT 2').rows
        cells = {name: formula.BoundCell(name, table.name, table.id, row, column, float(value), "x", "y")
                 for name, (row, value) in zip(("a", "b"), rows)}
        sql = formula.to_sql(formula.parse("a + b"), cells)
        assert "SUM(" in sql and "_row IN" in sql  # one sum over the rows read, as a person writes it
        assert formula.result_of(runner.run(sql).rows) == pytest.approx(sum(float(v) for _, v in rows))
        cells["gone"] = formula.BoundCell("gone", table.name, table.id, 10_000, column, 0.0, "x", "y")
        with pytest.raises(formula.FormulaError):
            formula.result_of(runner.run(formula.to_sql(formula.parse("a + gone"), cells)).rows)
        apart = formula.to_sql(formula.parse("a - b"), cells)
        assert "SUM(" not in apart
    finally:
        runner.close()


def test_free_sql_joining_two_tables_cites_the_cells_of_both(report: tuple[Library, Figures]) -> None:
    library, figures = report
    spending = next(t for t in library.tables() if "spending" in t.name)
    budget = next(t for t in library.tables() if "budget" in t.name)
    department = "Housing"
    sql = (f'SELECT s.spending - b.budget FROM "{spending.name}" AS s JOIN "{budget.name}" AS b '
           f"ON s.department = b.department WHERE s.department = '{department}'")

    def reply(_messages: object, schema: dict[str, object] | None) -> dict[str, object]:
        properties = (schema or {}).get("properties", {})
        assert isinstance(properties, dict)
        if "sql" in properties:
            return {"sql": sql}
        if "source" in properties:
            return {"source": "sql", "text_answer": "", "conflict": False}
        return {"action": "ask", "text": "By how much did Housing spending exceed its budget?"}

    chat = ScriptedChat()
    chat.fallback = reply
    runner = SqlRunner(library.path)
    try:
        answerer = Answerer(library, Retriever(library.conn, HashEmbedder()), runner, chat, sql_style="free")
        answer = answerer.answer("By how much did Housing spending exceed its budget?")
    finally:
        runner.close()
    expected = figures.spending[department] - figures.budget[department]
    assert f"{expected:,.0f}" in answer.text, answer.text
    cited = {c.table: c for c in answer.citations if c.sql}
    assert set(cited) == {spending.name, budget.name}
    assert [cell.text.replace(",", "") for cell in cited[spending.name].cells if cell.column == "spending"] == \
        [f"{figures.spending[department]:.0f}"]
    assert [cell.text.replace(",", "") for cell in cited[budget.name].cells if cell.column == "budget"] == \
        [f"{figures.budget[department]:.0f}"]


def test_the_model_composes_a_formula_from_listed_cells_and_repairs_a_bad_one(report: tuple[Library, Figures]) -> None:
    library, figures = report
    year = figures.years[0]
    question = (f"Taking figures from the balance sheet and from the cash flow statement, what ratio do purchases "
                f"of property, plant and equipment bear to total assets in {year}?")
    reading = read(question)
    assert reading.doubts, reading.describe()  # the grammar cannot compose it: no line names it, the model composes it

    def cell(options: list[str], label: str) -> str:
        return next(o for o in options if o.startswith(f"{label}, ") and str(year) in o.split(" \u2014 ")[0])

    def reply(_messages: object, schema: dict[str, object] | None) -> dict[str, object]:
        properties = (schema or {}).get("properties", {})
        assert isinstance(properties, dict) and "formula" in properties
        options = properties["values"]["items"]["properties"]["cell"]["enum"]
        values = [{"name": "a", "cell": cell(options, "Purchases of property, plant and equipment")},
                  {"name": "b", "cell": cell(options, "Total assets")}]
        unused.extend(o for o in options if o not in {v["cell"] for v in values})
        values.append({"name": "d", "cell": unused[0]})  # chosen, never used by the formula
        # The first formula names a value it did not choose; the repair gets the error and fixes it.
        return {"values": values, "formula": "a / c" if len(chat.calls) == 1 else "a / b"}

    unused: list[str] = []
    chat = ScriptedChat()
    chat.fallback = reply
    answerer, runner = _answerer(library, chat)
    try:
        answer = answerer.answer(question)
    finally:
        runner.close()
    assert len(chat.calls) == 2
    assert "not one of the values: a, b, d" in chat.prompt(1)
    assert unused[0].split(",")[0] not in answer.text  # a value chosen but not used is neither shown nor cited
    expected = abs(figures.lines["capex"][year]) / figures.lines["total assets"][year]
    assert answer.value == f"{expected:.2f}", answer.text
    # The failed formula is recorded on the step that computed the figure, with its error.
    # The grammar's own reading was tried first and failed to bind; that is on the step too.
    assert answer.steps[0].failures[-1] == "Formula: The formula names 'c', which is not one of the values: a, b, d."
    assert "No table row" in answer.steps[0].failures[0]
    assert answer.steps[0].sql and not answer.steps[0].sql_error
    assert len({c.table for c in answer.citations if c.sql and c.cells}) == 2


def test_a_measure_is_looked_up_only_where_a_line_names_it(report: tuple[Library, Figures]) -> None:
    from core.answering.computation import printed_measure
    from core.answering.operations import load_table_view

    library, figures = report
    views = [load_table_view(library, t) for t in library.tables()]
    margin = plan_for(f"What is the {figures.years[0]} net profit margin?")
    assert margin is not None and not printed_measure(margin, views)  # "Net income" is not the margin
    # A report's "Gross margin (%)" line is the gross profit margin asked as "the gross margin": looked up.
    gross = plan_for("What is the gross margin for F19?")
    printed = _view([("Sales", "", (8657.0, 8244.0)), ("Gross margin (%)", "", (22.9, 23.1))],
                    [("f19", "F19", 2019), ("f18", "F18", 2018)])
    assert gross is not None and printed_measure(gross, [printed])
    assert not printed_measure(gross, [_view([("Gross profit", "", (1.0, 2.0))], [("f19", "F19", 2019)])])


def test_a_period_column_printed_without_a_scale_takes_its_sibling_periods_scale() -> None:
    """"(in millions)" printed under "January 3, 2020" only: the 2018 column beside it holds the same lines in
    millions too, so a change across the two is in millions. A column that is no period takes nothing."""
    import dataclasses

    view = _view([("Pre-contract costs", "", (6.0, 41.0))],
                 [("y2020", "January 3, 2020 (in millions)", 2020), ("y2018", "December 28, 2018", 2018)])
    columns = tuple(dataclasses.replace(c, unit="million") if c.name == "y2020" else c for c in view.info.schema.columns)
    info = dataclasses.replace(view.info, schema=dataclasses.replace(view.info.schema, columns=columns))
    view = dataclasses.replace(view, info=info, data_columns=columns[1:])
    assert view.column_scale("y2018") == "million"
    unperiodic = dataclasses.replace(info, periods=tuple(p for p in info.periods if p.column == "y2020"))
    assert dataclasses.replace(view, info=unperiodic).column_scale("y2018") == ""


def test_a_row_label_s_own_unit_overrides_the_table_s() -> None:
    """Under "$ MILLION", "ROFE (%)" holds percentages and "Sales per square metre ($)" dollars; other lines
    keep the table's scale."""
    import dataclasses

    view = _view([("Sales", "", (8657.0, 8244.0)), ("ROFE (%)", "", (15.2, 17.1)),
                  ("Sales per square metre ($)", "", (18675.0, 18094.0))],
                 [("f19", "F19", 2019), ("f18", "F18", 2018)])
    view = dataclasses.replace(view, page_scale="million")
    assert [view.cell_scale(row, "f19") for row in (1, 2, 3)] == ["million", "%", ""]


def test_a_heading_row_s_unit_holds_for_the_rows_beneath_it() -> None:
    """A statistics table of indicators groups its rows under headings with no figures: "Water supply (%)" makes
    the figures below it percentages up to the next heading, a heading wrapped onto a second line ("visits in
    the last year) (%)") too; under a heading stating no unit the table's scale holds again."""
    view = _view([("Water supply (%)", "", (None, None)), ("Homes with piped water", "", (61.5, 58.0)),
                  ("Clinic use (based on the", "", (None, None)), ("visits in the last year) (%)", "", (None, None)),
                  ("Visits with a nurse present", "", (44.1, 40.2)), ("Staff", "", (None, None)),
                  ("Nurses employed", "", (812.0, 790.0))],
                 [("y2021", "2021", 2021), ("y2020", "2020", 2020)])
    view = dataclasses.replace(view, info=dataclasses.replace(view.info, row_facts=()), page_scale="thousand")
    assert [view.cell_scale(row, "y2021") for row in (2, 5, 7)] == ["%", "%", "thousand"]


def test_another_documents_statement_does_not_push_aside_this_documents_note() -> None:
    """A note of one report prints "Total inventories"; another report's balance sheet prints "Inventory".
    The note, ranked first for the question, is the source: the preference for primary statements holds
    within a document, not across reports."""
    note = _view([("Raw materials", "", (100.0, 90.0)), ("Total inventories", "", (289928.0, 240056.0))],
                 [("y2019", "October 31, 2019", 2019), ("y2018", "October 31, 2018", 2018)],
                 caption="Notes to the financial statements", table_id=1)
    other = _view([("Inventory", "", (7144.0, 6609.0)), ("Total assets", "", (9.0, 8.0))],
                  [("y2019", "2019", 2019), ("y2018", "2018", 2018)], caption="Consolidated Balance Sheets", table_id=2)
    found = candidates("total inventories", [2018, 2019], [note, other], "", whole=True)
    assert (found[0].view.info.id, found[0].label) == (1, "Total inventories")


def test_a_measure_the_report_prints_is_not_recomposed_by_the_model(tmp_path: Path) -> None:
    """"The gross margin for F19" where the report prints "Gross margin (%)": the report's own figure is the
    answer, so the model is never asked to compose a formula for it (it computed 40.18 from other cells)."""
    import pymupdf

    from models.errors import ModelOutputError
    from tests.core.ingest.test_extraction import _draw_borderless, _prose

    doc = pymupdf.open()
    page = doc.new_page()
    bottom = _prose(page, 80, 3)
    _draw_borderless(page, [["$ million", "F19", "F18"], ["Sales", "8,657", "8,244"], ["Gross profit", "1,982", "1,904"],
                            ["Gross margin (%)", "22.9", "23.1"], ["Funds employed", "3,185", "3,214"]],
                     [64, 400, 500], bottom + 30)
    doc.save(tmp_path / "results.pdf")
    doc.close()
    library = Library(tmp_path / "library.sqlite3")
    try:
        assert Ingestor(library, HashEmbedder()).ingest_file(tmp_path / "results.pdf").status == "added"

        def refuse(messages: Any, schema: Any) -> str:  # every model call fails, as an unusable reply would
            raise ModelOutputError("scripted refusal")

        chat = ScriptedChat(fallback=refuse)
        answerer, runner = _answerer(library, chat)
        try:
            answer = answerer.answer("What is the gross margin for F19?")
        finally:
            runner.close()
        asked_for_formula = [c for c in chat.calls if c["schema"] and "formula" in c["schema"].get("properties", {})]
        assert not asked_for_formula and "22.9" in answer.value, answer.text  # the printed line, looked up by code
    finally:
        library.close()


def test_the_model_reads_a_question_the_grammar_cannot_and_code_computes_its_reading(
        report: tuple[Library, Figures]) -> None:
    """A measure in words the grammar does not compose ("coverage of"): one short, schema-constrained call reads
    it as a share of two lines in the question's words, which code binds and computes; no other call."""
    library, figures = report
    year = figures.years[0]
    question = f"What is the total current assets coverage of total assets in {year}?"
    assert not read(question).complete
    chat = ScriptedChat()
    chat.queue({"answer": "figure", "operation": "share", "items": ["total current assets", "total assets"],
                "periods": [str(year)]})
    answerer, runner = _answerer(library, chat)
    try:
        answer = answerer.answer(question)
    finally:
        runner.close()
    assert len(chat.calls) == 1 and "items" in chat.calls[0]["schema"]["properties"]
    current, assets = figures.lines["total current assets"][year], figures.lines["total assets"][year]
    assert answer.value == f"{round(current / assets * 100, 2):g}%", answer.text


def test_capital_expenditure_is_named_by_an_act_and_its_object() -> None:
    # A purchase of something else, or the asset's balance, prints words of capex but is not capex.
    for label in ("Purchases of property, plant and equipment (PP&E)", "Capital expenditures",
                  "Additions to property and equipment", "Purchases of land, buildings, and equipment"):
        assert covers("capex", label) and fit("capex", label) > 0.6, label
    for label in ("Purchases of treasury stock", "Property, plant and equipment", "Payments of dividends"):
        assert fit("capital expenditure", label) == 0.0, label


def test_the_bare_total_of_a_table_of_another_item_is_not_the_line_asked() -> None:
    """"Total" at the foot of a "Cost of revenue" table is total cost of revenue: it names revenue in its title
    but is not total revenue; at the foot of a "Revenue" table it is."""
    cost = _view([("Products", "", (300.0,)), ("Services", "", (200.0,)), ("Total", "", (500.0,))],
                 [("y2019", "2019", 2019)], caption="Cost of Revenue", table_id=1)
    revenue = _view([("Products", "", (900.0,)), ("Services", "", (600.0,)), ("Total", "", (1500.0,))],
                    [("y2019", "2019", 2019)], caption="Revenue by type", table_id=2)
    question = "What was total revenue in 2019?"
    assert candidates("total revenue", [2019], [cost], question, whole=True) == []
    (best, *_rest) = candidates("total revenue", [2019], [cost, revenue], question, whole=True)
    assert (best.view.info.id, best.label) == (2, "Total")


def test_total_debt_adds_short_term_borrowings_only_where_printed() -> None:
    """Total debt is short-term borrowings, the current portion of long-term debt and long-term debt; a report
    that prints no short-term borrowings leaves that term out, and short-term investments are never it."""
    from core.answering import formula

    question = "What was total debt at the end of 2021?"
    (plan,) = plans_of(read(question))
    with_notes = _view([("Short-term investments", "", (50.0,)), ("Notes payable", "", (800.0,)),
                        ("Current portion of long-term debt", "", (1600.0,)), ("Long-term debt", "", (9100.0,))],
                       [("y2021", "2021", 2021)], caption="Consolidated Balance Sheets")
    cells = bind(plan, [with_notes], question)
    assert sorted(c.label for c in cells.values()) == ["Current portion of long-term debt", "Long-term debt",
                                                       "Notes payable"]
    without_notes = _view([("Short-term investments", "", (50.0,)), ("Current maturities of long-term debt", "", (6.0,)),
                           ("Long-term debt, net", "", (11670.0,))], [("y2021", "2021", 2021)],
                          caption="Consolidated Balance Sheets")
    cells = bind(plan, [without_notes], question)
    assert sorted(c.label for c in cells.values()) == ["Current maturities of long-term debt", "Long-term debt, net"]
    missing = [q.name for q in plan.quantities if q.name not in cells]
    assert formula.without(plan.formula, missing) == " + ".join(
        q.name for q in plan.quantities if q.name in cells)


def test_a_ratio_asked_in_percent_is_said_as_a_percentage() -> None:
    (plan,) = plans_of(read("What was the debt-to-capital ratio at the end of 2021, in %?"))
    assert plan.percent and plan.formula.endswith("* 100")
    (plan,) = plans_of(read("What was the debt-to-capital ratio at the end of 2021?"))
    assert not plan.percent


def test_gross_profit_is_the_gross_margin_line_in_currency_not_in_percent() -> None:
    assert covers("gross profit", "Gross margin") and fit("gross profit", "Gross margin") == 1.0
    assert fit("gross profit", "Gross margin (%)") <= fit("gross profit", "Gross margin") / 2
    assert fit("gross margin", "Gross margin (%)") == 1.0  # a margin asked may be the printed percentage


def test_a_part_of_a_measure_is_not_the_measure_printed() -> None:
    """"Total current assets" is a part of working capital, not a line printing it; "Other operating activities"
    is one line among the operating cash flows, not the cash from operations."""
    assert fit("working capital", "Total current assets") == 0.0 and fit("working capital", "Working capital") == 1.0
    assert fit("cash from operations", "Other operating activities") < 0.5 < \
        fit("cash from operations", "Net cash provided by operating activities")


def test_a_table_of_rates_has_one_column_a_year_headed_in_percent() -> None:
    """Assumptions printed as "2019 %" and "2018 %" are the years' columns; beside an amount, a year's "%"
    column is its share and the amount is the year's."""
    rates = _view([("Discount rate", "", (2.9, 3.8))], [("pct_y2019", "2019 %", 0), ("pct_y2018", "2018 %", 0)])
    rates = dataclasses.replace(rates, info=dataclasses.replace(rates.info, periods=()))
    assert year_columns(rates, [2018, 2019]) == ["pct_y2018", "pct_y2019"]
    both = _view([("Revenue", "", (500.0, 40.0))], [("y2019", "2019", 0), ("pct_y2019", "2019 %", 0)])
    both = dataclasses.replace(both, info=dataclasses.replace(both.info, periods=()))
    assert year_columns(both, [2019]) == ["y2019"]


def test_a_movement_of_the_year_is_not_the_balance_asked() -> None:
    """"Changes in working capital" and "(Increase) decrease in inventories" are the year's movements: a balance
    asked is their line only where a change is asked."""
    from core.answering.computation import PRINTED_FIT

    assert fit("working capital", "Changes in working capital") < PRINTED_FIT <= fit("working capital", "Working capital")
    assert fit("inventories", "(Increase) decrease in inventories") < fit("inventories", "Inventories") / 2
    assert fit("change in inventories", "Changes in inventories") == 1.0


def test_a_column_of_a_fiscal_year_spanning_two_calendar_years_is_that_fiscal_year() -> None:
    from core.answering import compose

    view = _view([("Continuing operations", "", (1605.0, 1493.0))],
                 [("y2017_2018", "2017/2018", 2018), ("y2018_2019", "2018/2019", 2019)], table_id=1)
    longer = _view([("Profit for the period from continuing operations", "", (359.0, 411.0))],
                   [("y2017_2018", "2017/2018", 2018), ("y2018_2019", "2018/2019", 2019)], table_id=2)
    assert [year for year, _ in compose.period_columns(view, "")] == ["2018", "2019"]
    question = "In which year was the profit for the period from continuing operations higher?"
    assert compose.whole_row_words(longer, question) > compose.whole_row_words(view, question) > 0


def test_depreciation_alone_is_not_depreciation_and_amortization() -> None:
    """A report printing "Depreciation" and the amortization of intangibles on lines of their own prints no
    D&A line: neither part is it (a figure for EBITDA from one of them would be too low)."""
    assert fit("depreciation and amortization", "Depreciation") < MIN_FIT <= fit(
        "depreciation and amortization", "Depreciation, depletion and amortization")
    assert fit("D&A", "Depreciation") == 0.0 and fit("D&A", "Depreciation and amortization") == 1.0
    assert fit("depreciation", "Depreciation") == 1.0


def test_a_measure_is_named_as_the_question_spells_it() -> None:
    from core.answering.computation import _as_asked

    assert _as_asked("fcf", "What was Acme's FCF in 2020?") == "FCF"
    assert _as_asked("ebitda margin", "What was the EBITDA margin in 2021?") == "EBITDA margin"
    assert _as_asked("free cash flow", "What was Acme's FCF in 2020?") == "Free cash flow"


def test_a_measure_a_report_prints_only_in_another_unit_or_in_passing_is_computed_by_its_definition(
        tmp_path: Path) -> None:
    """An income statement prints "Gross margin" as an amount and a tax note mentions "the effective tax rate" beside
    a figure in millions: neither is the percentage asked, so code computes each by its definition, citing its
    lines, with no model call."""
    from tests.support.report_builder import Section, TableSpec, build_report

    pdf = tmp_path / "statements.pdf"
    header = [["", "2021", "2020"]]
    income = TableSpec("Consolidated Statements of Income (in millions)", header, [
        ["Net sales", "5,000", "4,600"], ["Cost of sales", "(3,200)", "(3,000)"], ["Gross margin", "1,800", "1,600"],
        ["Operating income", "900", "760"], ["Income before income taxes", "800", "700"],
        ["Provision for income taxes", "(176)", "(150)"], ["Net income", "624", "550"]], ruled=False)
    note = TableSpec("Unrecognized tax benefits (in millions)", header, [
        ["Gross UTB balance", "310", "290"], ["Net UTB that would impact the effective tax rate", "245", "230"]],
        ruled=False)
    build_report(pdf, "Example Corp Annual Report 2021", [Section("Statements of income", tables=[income]),
                                                          Section("Income taxes", tables=[note])])
    library = Library(tmp_path / "library.sqlite3")
    assert Ingestor(library, HashEmbedder()).ingest_file(pdf).status == "added"
    chat = ScriptedChat()
    answerer, runner = _answerer(library, chat)
    try:
        margin = answerer.answer("What was the gross margin in 2021?")
        rate = answerer.answer("What was the effective tax rate in 2021?")
    finally:
        runner.close()
        library.close()
    assert margin.value == "36%" and "1,800 / 5,000" in margin.text, margin.text
    assert rate.value == "22%" and "176 / 800" in rate.text and "UTB" not in rate.text, rate.text
    assert chat.calls == []


def test_common_names_of_lines_people_type_meet_the_labels_reports_print() -> None:
    # "sales" alone is revenue; cost of sales and sales and marketing are other lines
    assert covers("sales", "Revenue") and fit("sales", "Revenue") == 1.0
    assert fit("sales", "Cost of sales") < fit("sales", "Revenue") / 2
    assert fit("sales", "Sales and marketing") < fit("sales", "Revenue")
    assert not covers("cost of sales", "Revenue")
    # share buybacks are purchases of the company's own stock, never of property nor the treasury stock balance
    assert covers("share buybacks", "Repurchases of common shares")
    assert fit("share buybacks", "Treasury stock, at cost") == 0.0
    assert fit("stock buyback", "Purchases of property and equipment") == 0.0
    # "R&D expense": the item by its common name; the label need not print "expense"
    assert covers("R&D expense", "Research and development")
    assert not covers("R&D expense", "Total operating expenses")
    # EPS is a per-share figure: the per-share label, not a total that shares a word
    assert fit("diluted EPS", "Earnings per share - diluted") > fit("diluted EPS", "Retained earnings")


def test_what_a_label_says_is_deducted_is_not_part_of_its_name() -> None:
    label = "Accounts receivable, net of allowances for doubtful accounts of $1,204 and $998, respectively"
    assert covers("receivables", label) and fit("receivables", label) > MIN_FIT
    assert fit("allowances for doubtful accounts", label) < fit("receivables", label)


def test_a_total_asked_is_bound_to_that_total_only() -> None:
    assert fit("total liabilities", "Accrued liabilities") < MIN_FIT
    assert fit("total liabilities", "Total liabilities and shareholders' equity") < MIN_FIT
    assert fit("total equity", "Total liabilities and equity") < fit("total equity", "Total shareholders' equity")
    assert fit("total revenue", "Revenues") == 1.0 and fit("total liabilities", "Total liabilities") == 1.0
    # abbreviations people type
    assert covers("S&M spend", "Sales and marketing")
    assert covers("pretax earnings from continuing ops", "Earnings from continuing operations before income taxes")


def test_abbreviations_of_debt_and_expense_lines() -> None:
    assert covers("current LTD", "Current portion of long-term debt")
    assert fit("current LTD", "Total current assets") < MIN_FIT and fit("current LTD", "Long-term debt") < MIN_FIT
    assert covers("LTD", "Long-term debt")
    assert covers("G&A", "General and administrative")


def test_cash_and_short_term_investments_are_balances() -> None:
    from core.answering.vocabulary import home_statement
    assert home_statement("cash") == "balance_sheet" and home_statement("short-term investments") == "balance_sheet"
    assert home_statement("purchases of short-term investments") == "cash_flows"
    assert home_statement("cash paid for interest") != "balance_sheet"


def test_eps_is_read_only_from_a_per_share_line() -> None:
    assert fit("EPS", "Earnings before interest and taxes") < MIN_FIT
    assert fit("EPS", "Diluted earnings per share") > MIN_FIT


def test_a_sum_said_before_as_a_share_of_is_the_part_whole() -> None:
    plan = plan_for("Orchard Co: ticket income plus grant income as a share of total income in 2021 (%)")
    assert plan is not None
    tree = formula.parse(plan.formula)
    values = {"ticket_income_2021": 30.0, "grant_income_2021": 10.0, "total_income_2021": 200.0}
    assert eval(compile(ast.Expression(tree), "<f>", "eval"), {}, values) == pytest.approx(20.0), plan.formula


def test_a_definition_given_for_a_part_of_the_company_takes_each_line_of_that_part() -> None:
    plan = plan_for("What was the Harbour division DSO in 2022 (receivables / turnover x 365)?")
    assert plan is not None
    assert [q.words.lower() for q in plan.quantities] == ["harbour receivables", "harbour turnover"], plan
    assert all(q.whole for q in plan.quantities)


def test_a_number_of_shares_is_never_a_figure_per_share() -> None:
    count = "diluted weighted average shares"
    assert fit(count, "Weighted average diluted common shares") > fit(count, "Diluted earnings per common share")
    assert fit(count, "Diluted earnings per common share") < MIN_FIT
    assert fit("diluted earnings per share", "Diluted earnings per common share") >= MIN_FIT


def test_a_line_less_what_it_excludes_is_read_before_the_operators_around_it() -> None:
    plan = plan_for("Orchard Co core working capital in 2021: current assets excluding cash, minus current "
                    "liabilities excluding short-term loans")
    assert plan is not None
    assert same_formula(plan, "(current_assets_2021 - cash_2021) - (current_liabilities_2021 - short_term_loans_2021)"), plan


def test_a_definition_that_lost_its_first_operand_is_no_formula() -> None:
    from core.answering.metrics import _expression
    with pytest.raises(ValueError):
        _expression("minus current liabilities", 2021, {})


def test_cash_flow_from_operations_is_the_operating_cash_flow_line_not_a_cash_balance() -> None:
    from core.answering.vocabulary import home_statement
    for said in ("cash flow from operations", "cash flows from operating activities", "cash generated by operations"):
        assert fit(said, "Net cash provided by operating activities") > fit(said, "Cash and cash equivalents"), said
        assert home_statement(said) == "cash_flows", said


def test_a_line_printed_as_a_deduction_is_its_amount_in_a_formula() -> None:
    view = _view([("Vessels", "", (900.0,)), ("Less: Accumulated depreciation", "", (-350.0,))],
                 [("y2021", "2021", 2021)], caption="Consolidated Balance Sheets")
    deduction = Candidate(view, 2, "Less: Accumulated depreciation", 1.0)
    cell = cell_of("accumulated_depreciation", deduction, "y2021", "")
    assert cell.value == 350.0 and cell.absolute
    assert cell_of("accumulated_depreciation", deduction, "y2021", "", as_printed=True).value == -350.0


def test_a_label_of_an_item_reported_in_another_statement_does_not_name_the_line() -> None:
    """Retained earnings (a balance) share the report word "earnings" with net income (a flow of the year), and
    deferred revenue shares "revenue" with revenue: neither names the line; the line's own label still does."""
    assert fit("net income", "Retained earnings") < MIN_FIT
    assert fit("revenue", "Deferred revenue") < fit("revenue", "Revenue from services")
    assert fit("net income", "Net income (loss)") > 0.6
    balance = _view([("Retained earnings", "", (1227.0, 1372.3)), ("Total equity", "", (2900.0, 3100.0))],
                    [("y2019", "2019", 2019), ("y2018", "2018", 2018)], caption="Company balance sheet", table_id=1)
    income = _view([("Net sales", "", (5563.7, 5875.0)), ("Net income (loss)", "", (542.0, -762.3))],
                   [("y2019", "2019", 2019), ("y2018", "2018", 2018)], caption="Selected financial data", table_id=2)
    question = "By how much did net income move from 2018 to 2019?"
    (best, *_rest) = candidates("net income", [2018, 2019], [balance, income], question, whole=True)
    assert (best.view.info.id, best.label) == (2, "Net income (loss)")


def test_a_line_printed_in_per_cent_is_no_amount_where_another_table_prints_the_amount() -> None:
    """A table of costs as shares of revenue ("Cost of sales 41%") and the statement printing the amounts: the
    cost of sales asked is the amount, whichever table search ranked first; a line asked as a rate still reads the
    per cents, and with no amount printed anywhere the per cents still bind."""
    shares = _view([("Cost of sales", "", (41.0, 44.0)), ("Selling expenses", "", (12.0, 13.0))],
                   [("y2021", "2021", 2021), ("y2020", "2020", 2020)], caption="Costs as a share of revenue", table_id=1)
    shares = dataclasses.replace(shares, printed={(1, 1): "41%", (1, 2): "44%", (2, 1): "12%", (2, 2): "13%"})
    amounts = _view([("Cost of sales", "", (2210.0, 2390.0)), ("Selling expenses", "", (650.0, 700.0))],
                    [("y2021", "2021", 2021), ("y2020", "2020", 2020)], caption="Statements of operations", table_id=2)
    question = "What was the cost of sales in 2021 and 2020, respectively?"
    (best, *_rest) = candidates("cost of sales", [2021, 2020], [shares, amounts], question, whole=True)
    assert best.view.info.id == 2
    (best, *_rest) = candidates("cost of sales", [2021, 2020], [shares], question, whole=True)
    assert best.view.info.id == 1
    (rate, *_rest) = candidates("cost of sales rate", [2021], [shares], "What was the cost of sales rate in 2021?")
    assert rate.score >= fit("cost of sales rate", "Cost of sales")


def test_a_dash_is_a_nil_amount_in_a_line_asked_over_periods() -> None:
    """"Restructuring charges (140) —": the line rose from nothing, so its change reads the dash as zero (and the SQL
    reads the cell as zero); a blank or "n/a" is no figure, and a dash alone is no figure of a year looked up."""
    view = _view([("Restructuring charges", "", (-140.0, None)), ("Litigation reserve", "", (75.0, None)),
                  ("Royalty income", "", (None, None))],
                 [("y2021", "2021", 2021), ("y2020", "2020", 2020)], caption="Other charges", table_id=1)
    view = dataclasses.replace(view, printed={(1, 1): "(140)", (1, 2): "\u2014", (2, 1): "75", (2, 2): "n/a",
                                              (3, 1): "$ \u2013", (3, 2): "\u2014"})
    question = "What was the change in restructuring charges from 2020 to 2021?"
    (best, *_rest) = candidates("restructuring charges", [2020, 2021], [view], question, whole=True)
    assert best.label == "Restructuring charges"
    before = cell_of("restructuring_charges_2020", best, "y2020", "")
    assert (before.value, before.nil) == (0.0, True) and "coalesce(" in before.sql()
    after = cell_of("restructuring_charges_2021", best, "y2021", "")
    assert (after.value, after.nil) == (-140.0, False) and "coalesce(" not in after.sql()
    assert candidates("litigation reserve", [2020, 2021], [view], question, whole=True) == []  # "n/a": no figure
    assert candidates("royalty income", [2020, 2021], [view], question, whole=True) == []  # no figure in any year
    assert candidates("restructuring charges", [2020], [view], "What were restructuring charges in 2020?") == []
