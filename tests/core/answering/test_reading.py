"""The question read once: kinds from the asking clause's frame, measures composed from parts (never cut to a part
a rule knows), periods in the ways people write them, what is asked around the question, and what the grammar
could not read said out loud. Questions here are invented; benchmark questions live in tests/bench/."""

from __future__ import annotations

import pytest

from core.answering import answer_types as kinds
from core.answering import measures as m
from core.answering.metrics import plans_of
from core.answering.reading import better, from_model, read
from core.answering.vocabulary import verb_base

pytestmark = pytest.mark.unit


def tree(question: str, issuers: tuple[str, ...] = ()) -> str:
    reading = read(question, issuers)
    assert reading.measure is not None, reading.describe()
    return reading.measure.describe()


@pytest.mark.parametrize(("question", "described"), [
    # a modifier composes with a catalogue measure: never the measure alone
    ("What was the EBITDA % margin of Acme in fiscal 2021?",
     "share(named(ebitda 2021), line(revenue 2021)) 2021"),
    ("what's the 2022 d&a margin", "share(line(d&a 2022), line(revenue 2022)) 2022"),
    # two catalogue measures in a ratio, each defined in its own right
    ("What is net debt to EBITDA for FY23?", "ratio(named(net debt 2023), named(ebitda 2023)) 2023"),
    ("FCF conversion in 2020?", "named(free cash flow conversion 2020)"),
    # an average over periods of a share
    ("What was capex as a % of sales, 3-year average, through fiscal 2021?",
     "average(share(line(capex), line(sales))) 2021 over 3 years"),
    # a turnover ratio said in days
    ("What is the inventory turnover in days for 2021?", "days(named(inventory turnover 2021)) 2021"),
    ("By how much did operating income change between FY21 and FY22?",
     "change(line(operating income)) 2021-2022"),
    # the unit asked before the measure is the answer's, not part of the measure's name
    ("How many days was the cash conversion cycle in 2020?", "named(cash conversion cycle 2020)"),
    # a change asked as a percentage with the sign, or with a phrasal verb
    ("By what % did net deferred tax liabilities change from 2020 to 2021?",
     "percent_change(line(net deferred tax liabilities)) 2020-2021"),
    ("How much did adjusted segment profit go up from 2020 to 2021?", "change(line(adjusted segment profit)) 2020-2021"),
    # "how many X were Y": the line a statement of changes prints as "X Y"
    ("How many warrants were exercised in 2021?", "line(warrants exercised 2021)"),
    # figures of several periods said around the line
    ("Deferred state tax: the 2020 and 2021 figures", "line(Deferred state tax 2020-2021)"),
    ("Give the 2020 and 2021 values of deferred state tax", "line(deferred state tax 2020-2021)"),
    ("deferred state tax in 2020 and in 2021?", "line(deferred state tax 2020-2021)"),
    # what to compute said after the line, or before the question
    ("Foreign discount rate: % change from 2020 to 2021?", "percent_change(line(Foreign discount rate)) 2020-2021"),
    ("Segment revenue: average over 2020 and 2021?", "average(line(Segment revenue)) 2020-2021"),
    ("On average, how much were restructuring charges in 2020 and 2021?",
     "average(line(restructuring charges)) 2020-2021"),
    # the whole, then the part it was
    ("What share of total revenue in 2021 was service revenue?",
     "share(line(service revenue 2021), line(total revenue 2021))"),
    ("What percentage of revenue was R&D in 2021?", "share(line(R&D 2021), line(revenue 2021)) 2021"),
    # a margin that is a share's whole or part is its amount: a percentage has no share
    ("What share of the 2021 gross margin went to marketing?", "share(line(marketing 2021), named(gross profit 2021))"),
    ("How much of 2021 net sales was spent on freight, as a percentage?",
     "share(line(freight 2021), line(net sales 2021))"),
    # "over the three years" is every period its table prints, not a divisor
    ("Average dividend income over the three fiscal years?", "average(line(dividend income)) over 3 years"),
])
def test_measures_are_composed_from_their_parts(question: str, described: str) -> None:
    assert tree(question) == described


@pytest.mark.parametrize(("question", "formula"), [
    ("What was the 2021 return on assets, using year-end total assets?", "net_income_2021 / total_assets_2021 * 100"),
    ("Inventory turnover for 2020 based on ending inventories", "cost_of_goods_sold_2020 / inventories_2020"),
    ("What was the 2021 return on assets?", "net_income_2021 / (avg(total_assets_2020, total_assets_2021)) * 100"),
    # an amount to what a ratio is taken of; a return on something, defined by the question, in percent
    ("Northwind's long-term debt to equity at the end of 2021?", "long_term_debt_2021 / equity_2021"),
    ("What was the 2021 return on sales (net earnings over net sales)?", "(net_earnings_2021 / net_sales_2021) * 100"),
    ("The effective income tax rate in 2021?", "income_tax_expense_2021 / income_before_income_taxes_2021 * 100"),
])
def test_measures_compile_to_what_their_words_define(question: str, formula: str) -> None:
    """A textbook measure that averages a balance over the year (ROA, turnover) takes the closing balance where
    the question says so, and averages it otherwise; "X to equity" is a ratio; a return is said in percent."""
    (plan,) = plans_of(read(question))
    assert plan.formula == formula


def test_a_composed_measure_compiles_with_every_part_for_its_period() -> None:
    (plan,) = plans_of(read("What is the 3-year average capex as a % of revenue through FY2021?"))
    assert plan.formula == ("avg(capex_2019 / revenue_2019 * 100, capex_2020 / revenue_2020 * 100, "
                            "capex_2021 / revenue_2021 * 100)")
    (plan,) = plans_of(read("What was the EBITDA margin in 2020?"))
    assert plan.formula == "(operating_income_2020 + depreciation_and_amortization_2020) / revenue_2020 * 100"
    assert plan.percent and [p.lower() for p in plan.printed] == ["ebitda margin"]


@pytest.mark.parametrize(("question", "years", "labels"), [
    ("What was revenue in FY19?", [2019], ["FY2019"]),
    ("capex for fiscal 2018 vs fiscal 2017", [2018, 2017], ["FY2018", "FY2017"]),
    ("How much cash was there at December 31, 2020?", [2020], ["December 31, 2020"]),
    ("What were sales in Q2 2023?", [2023], ["Q2 2023"]),
    ("What is the 2024-25 budget for parks?", [2025], ["FY2025"]),
    # a fiscal year written with both years in full, split by a slash, ends in the later one; a dash is a range
    ("How much did freight income change in 2020/2021 from 2019/2020?", [2021, 2020], ["FY2021", "FY2020"]),
    ("What were fees over 2019-2021?", [2019, 2021], ["2019", "2021"]),
])
def test_periods_are_read_as_people_write_them(question: str, years: list[int], labels: list[str]) -> None:
    reading = read(question)
    assert reading.years == years and [p.label for p in reading.periods] == labels


def test_what_is_said_around_the_question_fixes_fields_only() -> None:
    reading = read("Imagine you are a credit analyst. Looking only at the balance sheet: what was the current ratio "
                   "at the end of fiscal 2022? Give the answer rounded to two decimal places.")
    assert reading.statements == frozenset({"balance_sheet"}) and reading.decimals == 2
    assert reading.measure is not None and reading.measure.op == m.NAMED and reading.years == [2022]
    assert reading.complete and any("credit analyst" in n for n in reading.noise)
    reading = read("How much did the company spend on capital expenditure in 2019 (answer in USD billions)?")
    assert reading.scale == "billion" and reading.measure is not None and reading.measure.words == "capital expenditure"


def test_a_definition_the_question_gives_is_the_measure() -> None:
    reading = read("What was staff cost per employee in 2022? Define staff cost per employee as total staff costs "
                   "divided by average headcount.")
    assert reading.measure is not None and reading.measure.op == m.DEFINED
    (plan,) = plans_of(reading)
    assert plan.formula == "total_staff_costs_2022 / avg(headcount_2021, headcount_2022)" and plan.source == "defined"


@pytest.mark.parametrize("question", ["Was total segment revenue bigger in 2020 or in 2021?",
                                      "Were deferred tax assets higher in 2021 or 2020?"])
def test_a_choice_between_two_periods_is_which_period_not_yes_or_no(question: str) -> None:
    reading = read(question)
    assert reading.kind == kinds.COLUMN_HEADERS and reading.years in ([2020, 2021], [2021, 2020])
    assert reading.measure is not None and " or" not in reading.measure.words and reading.complete


@pytest.mark.parametrize("question", ["What was the return on assets in FY2021, using average total assets?",
                                      "Return on equity in 2021 (average equity)?"])
def test_how_to_compute_said_after_the_measure_is_a_note_not_part_of_its_name(question: str) -> None:
    reading = read(question)
    assert reading.measure is not None and reading.measure.op == m.NAMED and reading.complete
    assert any("average" in note for note in reading.notes)


def test_a_definition_the_grammar_cannot_compile_falls_back_to_the_catalogue_s_and_says_so() -> None:
    reading = read("What was the cash conversion cycle in fiscal 2021: DIO + DSO - DPO, each on the average of the "
                   "two year-end balances, times 365?")
    assert reading.measure is not None and reading.measure.op == m.DEFINED
    (plan,) = plans_of(reading)
    assert plan.source == "named" and "usual definition" in plan.measure
    assert {q.words for q in plan.quantities} >= {"inventories", "accounts receivable", "accounts payable"}


def test_what_the_grammar_cannot_compose_is_said_not_dropped() -> None:
    reading = read("What is the ratio the widgets bear against the gadgets backlog in 2021?")
    assert reading.doubts and not reading.complete  # "ratio ... bear against" stays a line of doubtful words
    assert "unsure" in reading.describe()


@pytest.mark.parametrize(("question", "kind", "several"), [
    ("For which years does the table give the dividend per share?", kinds.COLUMN_HEADERS, True),
    ("In which year was the headcount lowest?", kinds.COLUMN_HEADERS, False),
    ("What were the respective headcounts in 2021 and 2022?", kinds.FIGURES, True),
    ("Why did freight costs go up?", kinds.TEXT, False),
    ("What were the reasons for the rise in freight costs in 2022?", kinds.TEXT, False),
    ("What would cause the headcount to drop by about 40 in 2023?", kinds.TEXT, False),
    ("What was the effect of the strike on freight costs in 2022?", kinds.LOOKUP, False),
    ("Did the headcount fall in 2022?", kinds.YES_NO, False),
    ("How many years did the headcount exceed 500?", kinds.COUNT, False),
    ("Which region had the highest sales in 2022?", kinds.ROW_LABELS, False),
    ("What are the segments listed in the table?", kinds.ROW_LABELS, True),
    ("What was the headcount in 2022?", kinds.LOOKUP, False),
    ("What was the change in headcount from 2021 to 2022?", kinds.COMPUTED, False),
])
def test_the_frame_of_the_asking_clause_gives_the_answer_kind(question: str, kind: str, several: bool) -> None:
    reading = read(question)
    assert (reading.kind, reading.several) == (kind, several), reading.describe()


def test_an_issuer_the_library_knows_is_set_aside_from_the_measure() -> None:
    reading = read("What was capex for Northwind Traders in FY2020?", issuers=("northwind traders", "northwind"))
    assert reading.issuer == "northwind traders" and reading.measure is not None
    assert reading.measure.words == "capex" and reading.complete


def test_an_issuer_s_name_said_as_a_common_noun_is_no_issuer() -> None:
    """"per harbour" beside a library holding the "Harbour Office"'s bulletin: the word is the unit of an average, not
    the body that published it; "Harbour's" is still the issuer."""
    reading = read("What is the average number of boats per harbour?", issuers=("harbour office", "harbour"))
    assert reading.issuer == "" and reading.measure is not None and "harbour" in reading.measure.said
    assert read("How many boats did each harbour count?", issuers=("harbour",)).issuer == ""
    assert read("What were Harbour's total receipts in 2023?", issuers=("harbour office", "harbour")).issuer == "harbour"


def test_the_second_side_of_a_comparison_said_as_one_is_the_first_side_s_measure() -> None:
    """"the urban poverty rate than the rural one": the rural poverty rate, not a line called "rural one"."""
    reading = read("How much higher was the urban poverty rate than the rural one in 2015?")
    assert reading.measure is not None
    assert [p.words for p in reading.measure.parts] == ["urban poverty rate", "rural poverty rate"]
    assert all(p.periods == (2015,) for p in reading.measure.parts)


def test_a_region_a_report_breaks_its_figures_into_is_no_issuer() -> None:
    """"... for APAC" after a closing "for" reads like a ticker, but it is a region of the report's segments: it stays
    in the measure; a ticker ("MMM") is still an issuer."""
    reading = read("What were the net revenues in 2021 for APAC?")
    assert reading.issuer == "" and reading.measure is not None and reading.measure.words == "net revenues for APAC"
    assert read("What was the revenue in 2021 for MMM?").issuer == "MMM"


@pytest.mark.parametrize(("question", "operation", "target", "group", "limit"), [
    ("How many notices were filed in Dayton?", "how_many", "notices", "", 1),
    ("top 3 harbours for yachts, 1 May 2024", "top", "yachts", "harbours", 3),
    ("How many workers in total did Kestrel Foods lay off?", "how_many", "workers", "", 1),
    ("Which month had the most layoffs?", "top", "layoffs", "month", 1),
    ("What are the top 3 counties by population in 2010?", "top", "population", "counties", 3),
    ("Which candidate received the fewest votes?", "top", "votes", "candidate", 1),
])
def test_questions_over_a_table_s_rows_read_as_a_query(question: str, operation: str, target: str, group: str,
                                                        limit: int) -> None:
    query = read(question).query
    assert query is not None
    assert (query.operation, query.target, query.group, query.limit) == (operation, target, group, limit)


def test_the_model_reading_is_checked_against_the_question_and_the_better_reading_wins() -> None:
    question = "What is the widget backlog coverage of bookings in 2021?"
    rules = read(question)
    assert not rules.complete
    reply = {"answer": "figure", "operation": "ratio", "items": ["widget backlog", "bookings"], "periods": ["2021"]}
    model = from_model(reply, question)
    assert model is not None and model.measure is not None
    assert model.measure.describe() == "ratio(line(widget backlog 2021), line(bookings 2021)) 2021"
    assert better(rules, model) is model
    # an item the question does not say, or a year it does not name, is no reading of it
    assert from_model({**reply, "items": ["revenue", "bookings"]}, question) is None
    assert from_model({**reply, "periods": ["2019"]}, question) is None


@pytest.mark.parametrize(("question", "formula"), [
    ("By what percent did the 2020 and 2021 freight cost change?", "growth(freight_cost_2021, freight_cost_2020)"),
    ("What is the change in the firm's 2016 and 2017 rental income?", "(rental_income_2017) - (rental_income_2016)"),
    ("What was the average 2020 and 2021 backlog?", "avg(backlog_2020, backlog_2021)"),
])
def test_years_said_with_the_line_are_the_years_a_change_spans(question: str, formula: str) -> None:
    (plan,) = plans_of(read(question))
    assert plan.formula == formula


def test_a_definition_may_divide_one_percent_change_by_another() -> None:
    question = "What was the firm's operating leverage in 2022, defined as the % change in EBIT over the % change in sales vs 2021?"
    (plan,) = plans_of(read(question))
    assert plan.formula == "growth(ebit_2022, ebit_2021) / growth(sales_2022, sales_2021)"


def test_a_line_asked_in_several_periods_as_figures_is_one_lookup_a_period() -> None:
    plans = plans_of(read("What are the respective cash-settled awards in 2019 and 2018?"))
    assert [p.formula for p in plans] == ["cash_settled_awards_2019", "cash_settled_awards_2018"]
    assert all(p.quantities[0].words == "cash-settled awards" for p in plans)
    # "the respective values of the firm's X", "the respective amounts of X": the line is X
    for question in ("What are the respective values of the firm's landing fees in 2020 and 2021?",
                     "What are the respective amounts of landing fees in 2020 and 2021?"):
        plans = plans_of(read(question))
        assert [p.formula for p in plans] == ["landing_fees_2020", "landing_fees_2021"], question


@pytest.mark.parametrize(("question", "formula"), [
    ("What was the Snacks segment EBITDA margin in 2022?",
     "(snacks_operating_income_2022 + snacks_depreciation_and_amortization_2022) / snacks_revenue_2022 * 100"),
    ("What was the operating margin of the Asia region in 2021?",
     "asia_operating_income_2021 / asia_revenue_2021 * 100"),
])
def test_a_margin_of_a_part_of_the_company_reads_every_line_of_that_part(question: str, formula: str) -> None:
    """A segment's margin is the segment's measure over the segment's revenue, never the company's revenue; each
    line is bound only where a label names the part whole."""
    (plan,) = plans_of(read(question))
    assert plan.formula == formula
    assert all(q.whole for q in plan.quantities)


@pytest.mark.parametrize(("question", "formula"), [
    ("By how much did the (loss)/profit after tax move between 2020 and 2021?",
     "(loss_profit_after_tax_2021) - (loss_profit_after_tax_2020)"),
    ("What was the income/(expense) from hedging in 2021?", "income_expense_from_hedging_2021"),
    ("What was the debt/equity ratio in 2021?", "debt_2021 / equity_2021"),
    ("What was the number of TB/HIV patients treated in 2021?", "tb_hiv_patients_treated_2021"),
    ("What was the EBIT/EBITDA in 2021?", "ebit_2021 / (operating_income_2021 + depreciation_and_amortization_2021)"),
])
def test_a_slash_in_a_signed_line_name_is_no_ratio(question: str, formula: str) -> None:
    (plan,) = plans_of(read(question))
    assert plan.formula == formula


@pytest.mark.parametrize(("question", "described"), [
    # "y/y" after a verb of change: the change from the year before, which the verb already says
    ("By what % did Northwind's marketing expense grow y/y in FY2019?", "percent_change(line(marketing expense)) 2019"),
    ("What was the YoY change in Northwind's net income in 2020?", "percent_change(line(net income)) 2020"),
    # the verb before "how much"
    ("Northwind's net income fell how much in fiscal 2020, in %?", "percent_change(line(net income)) 2020"),
    ("Net income rose how much in 2021?", "change(line(Net income)) 2021"),
    # "did X rise or fall ..., and by how much": the change, whose sign says which
    ("Did Northwind's revenue rise or fall in FY21 vs FY20, and by how much in $m?", "change(line(revenue)) 2020-2021"),
    # "how much more did A spend on X than on Y": how much more X was than Y
    ("How much more did Northwind spend on advertising than on rent in 2019?",
     "difference(line(advertising 2019), line(rent 2019))"),
])
def test_frames_people_type_are_read_as_the_grammar_reads_them(question: str, described: str) -> None:
    assert tree(question, ("Northwind",)) == described


def test_a_scale_said_after_a_comma_or_as_a_symbol_is_the_scale_not_a_line() -> None:
    reading = read("Northwind FCF in 2020, $ millions?", ("Northwind",))
    assert reading.scale == "million" and reading.measure is not None
    assert reading.measure.describe() == "named(free cash flow 2020)"
    assert read("Northwind sales in $bn for 2021").scale == "billion"
    assert read("What was the change in revenue in $m from 2020 to 2021?").scale == "million"


def test_a_definition_the_question_gives_of_a_catalogue_measure_replaces_the_textbook_one() -> None:
    # "ROA (net earnings / total assets)": ending assets as asked, not the textbook's average
    plans = plans_of(read("Northwind ROA 2021 (net earnings / total assets)?", ("Northwind",)))
    assert len(plans) == 1
    assert plans[0].formula == "(net_earnings_2021 / total_assets_2021) * 100" and plans[0].percent
    payout = plans_of(read("Northwind dividend payout ratio for 2020 (dividends per share / diluted EPS)?",
                           ("Northwind",)))
    assert payout[0].formula == "(dividends_per_share_2020 / diluted_eps_2020) * 100"


def test_returns_and_payout_ratios_are_said_in_percent() -> None:
    for question in ("What was the return on equity in 2021?", "ROA for FY2020?", "payout ratio in 2019?"):
        plans = plans_of(read(question))
        assert len(plans) == 1 and plans[0].percent, question
        assert plans[0].formula.endswith("* 100"), plans[0].formula
    # a ratio the textbooks say as a ratio stays one
    assert not plans_of(read("What was the current ratio in 2021?"))[0].percent


def test_a_bracket_after_a_year_says_how_and_nested_brackets_define_whole() -> None:
    # a bracket after a period is never part of a line's name
    assert tree("Northwind marketing as % of sales in 2020 (advertising and promotion)?", ("Northwind",)) == \
        "share(line(marketing 2020), line(sales 2020)) 2020"
    # a definition in brackets with brackets inside it is the whole definition, of the measure named before it
    reading = read("Northwind cash ratio at FY2021 year end ((cash + marketable securities) / current liabilities), 2 dp",
                   ("Northwind",))
    plans = plans_of(reading)
    assert len(plans) == 1
    assert plans[0].formula == "(cash_2021 + marketable_securities_2021) / current_liabilities_2021"


def test_a_margin_moved_in_basis_points_is_its_change_in_points_times_100() -> None:
    reading = read("Northwind's gross margin compression in 2020 vs 2019, in bps?", ("Northwind",))
    assert reading.basis_points and reading.measure is not None
    assert reading.measure.describe() == "change(share(named(gross profit), line(revenue))) 2019-2020"
    plan = plans_of(reading)[0]
    assert plan.formula.endswith(" * 100") and not plan.percent and plan.measure.endswith("in basis points")
    # in percentage points: the change of the margins as they are
    points = plans_of(read("By how many percentage points did the gross margin change from 2019 to 2020?"))[0]
    assert not points.formula.endswith(") * 100")
    # an amount's change asked in bps is no change of a percentage: not multiplied
    assert not plans_of(read("What was the change in revenue from 2019 to 2020 in bps?"))[0].formula.endswith(") * 100")


@pytest.mark.parametrize(("question", "described"), [
    ("What % of Northwind's 2022 net sales came from services?", "share(line(services 2022), line(net sales 2022))"),
    ("What share of revenues did Northwind spend on R&D in fiscal 2021?",
     "share(line(R&D 2021), line(revenues 2021)) 2021"),
    ("What share of Northwind's 2021 sales did marketing take?", "share(line(marketing 2021), line(sales 2021))"),
    ("Did Northwind's total assets go up or down in 2019 vs 2018, and by how much ($m)?",
     "change(line(total assets)) 2018-2019"),
    ("how much did Northwind pay in dividends in FY19? answer in $ millions", "line(dividends 2019)"),
    ("Northwind dividend payout FY22 (dividends paid / net earnings)", "defined(payout ratio 2022)"),
    ("Northwind's FY21 freight costs, what % of sales?", "share(line(freight costs 2021), line(sales 2021)) 2021"),
    ("Northwind fiscal 2020: what % of net income was paid out as dividends?",
     "share(line(dividends), line(net income))"),
    ("Northwind fiscal 2020: what % of net income was returned to shareholders as dividends?",
     "share(line(dividends), line(net income))"),
    ("What % of revenue did Northwind keep as gross profit on average over 2019, 2020 and 2021?",
     "average(share(named(gross profit), line(revenue))) 2019-2020-2021"),
])
def test_more_frames_people_type(question: str, described: str) -> None:
    assert tree(question, ("Northwind",)) == described


def test_a_date_after_a_measure_is_not_part_of_the_name_its_bracket_defines() -> None:
    plans = plans_of(read("Northwind debt-to-equity at June 30, 2021 (long-term debt / shareholders' equity)",
                          ("Northwind",)))
    assert plans[0].formula == "long_term_debt_2021 / shareholders_equity_2021"


def test_a_definition_naming_a_printed_measure_reads_the_printed_line_first() -> None:
    (plan,) = plans_of(read("What was Northwind's opex in 2022 (SG&A plus R&D), $m?", ("Northwind",)))
    assert plan.formula == "selling_general_and_administrative_expen_2022 + r_d_2022"
    # where the report prints no SG&A line, the textbook's parts of it
    assert [a.formula for a in plan.alternatives] == [
        "(sales_and_marketing_expenses_2022 + general_and_administrative_expenses_2022) + r_d_2022"]
    # a label's ", net" in a definition is no operand; the date after the name is no part of it
    (debt,) = plans_of(read("Northwind debt to equity at end of 2021 (long-term debt, net / total equity)", ("Northwind",)))
    assert debt.formula == "long_term_debt_2021 / total_equity_2021"


def test_growth_asked_with_a_bare_percent_sign_and_a_share_that_went_to_a_line() -> None:
    assert tree("Northwind revenue growth y/y in fiscal 2022, %?", ("Northwind",)) == \
        "percent_change(line(revenue)) 2022"
    assert tree("What share of Northwind's FY19 net sales went to cost of sales?", ("Northwind",)) == \
        "share(line(cost of sales 2019), line(net sales 2019))"
    # a measure said in percent, its definition given after the issuer's name
    plans = plans_of(read("Unknownco dividend payout ratio for fiscal 2019 (dividends per share / diluted EPS)?"))
    assert plans[0].percent and plans[0].formula == "(dividends_per_share_2019 / diluted_eps_2019) * 100"


def test_symbols_abbreviations_and_the_definition_no_other_uses() -> None:
    assert tree("Northwind cash + short-term investments at FY17 year end, in $ thousands", ("Northwind",)) == \
        "sum(line(cash 2017), line(short-term investments 2017)) 2017"
    assert tree("Northwind total liabilities to total assets at end of 2020, %", ("Northwind",)) == \
        "ratio(named(total liabilities 2020), line(total assets 2020)) 2020"
    assert tree("What portion of Northwind's 2018 total assets was intangible assets, net?", ("Northwind",)) == \
        "share(line(intangible assets, net 2018), line(total assets 2018))"
    # the margin the bracket defines, over the EBIT the "where" clause defines; said in percent
    (plan,) = plans_of(read("Northwind operating margin FY21 (EBIT / revenues), where EBIT = income before taxes + "
                            "net interest expense", ("Northwind",)))
    assert plan.formula == "((income_before_taxes_2021 + net_interest_expense_2021) / revenues_2021) * 100"
    (incl,) = plans_of(read("Northwind FCF conversion FY20 (free cash flow / net earnings incl. minority interests)",
                            ("Northwind",)))
    assert "net_earnings_including_minority_inter" in incl.formula


def test_a_name_defined_after_a_comma_is_a_part_of_the_measure() -> None:
    (plan,) = plans_of(read("Northwind debt/equity at the end of FY20, with debt = notes payable + long-term debt",
                            ("Northwind",)))
    assert plan.formula == "(notes_payable_2020 + long_term_debt_2020) / equity_2020"


def test_a_year_on_year_change_asked_in_an_amount_is_an_amount() -> None:
    assert tree("What was the y/y change in Northwind's R&D spend in 2022, in $m?", ("Northwind",)) == \
        "change(line(R&D spend)) 2022"
    assert tree("What was the year-over-year change in Northwind's R&D spend in 2022?", ("Northwind",)) == \
        "percent_change(line(R&D spend)) 2022"
    # a measure the question defines is computed as defined, not looked up under its name
    (plan,) = plans_of(read("Northwind total debt at end of 2021 (current maturities + long-term debt, net), $m",
                            ("Northwind",)))
    assert plan.printed == () and plan.formula == "current_maturities_2021 + long_term_debt_2021"


@pytest.mark.parametrize(("question", "formula"), [
    ("What was the change in the assumed rate of wage increase from 2020 to 2021?",
     "(assumed_rate_of_wage_increase_2021) - (assumed_rate_of_wage_increase_2020)"),
    ("What was the average rate of pension increase over 2020 and 2021?",
     "avg(rate_of_pension_increase_2020, rate_of_pension_increase_2021)"),
    # a line followed by "increase" is still the change in that line
    ("What was the freight cost increase from 2020 to 2021?", "(freight_cost_2021) - (freight_cost_2020)"),
])
def test_a_rate_of_increase_is_a_line_not_a_change_in_a_rate(question: str, formula: str) -> None:
    """Pension notes print assumptions such as "Rate of salary increase": a line of its own, never a change of
    "rate of salary" nested in the change asked."""
    (plan,) = plans_of(read(question))
    assert plan.formula == formula


@pytest.mark.parametrize("verb", ["made up of", "comprised of", "composed of"])
def test_the_share_of_a_whole_said_as_what_it_is_made_of(verb: str) -> None:
    assert tree(f"What percentage of the total fleet cost is {verb} fuel in 2021?") == \
        "share(line(fuel 2021), line(total fleet cost 2021)) 2021"


@pytest.mark.parametrize(("question", "formula"), [
    ("Tell me the global increase/(decrease) of cargo flights between 2020 and 2021.",
     "(global_cargo_flights_2021) - (global_cargo_flights_2020)"),
    ("What was the domestic change in ticket sales from 2020 to 2021?",
     "(domestic_ticket_sales_2021) - (domestic_ticket_sales_2020)"),
])
def test_a_change_said_of_a_part_of_the_business_keeps_the_part_in_the_line(question: str, formula: str) -> None:
    """"The global change in X" is the change in X under the table's global heading, not a ratio or a lookup."""
    (plan,) = plans_of(read(question))
    assert plan.formula == formula


@pytest.mark.parametrize("question", ["In how many of the years shown were landing fees above $2.5 million?",
                                      "How many of the quarters in the table had landing fees above $2.5 million?",
                                      "How many years did landing fees exceed $2.5 million?"])
def test_a_count_of_the_periods_shown_past_a_threshold(question: str) -> None:
    reading = read(question)
    assert reading.kind == kinds.COUNT and reading.measure is not None
    assert reading.measure.describe() == "line(landing fees)"
    assert (reading.criterion.kind, reading.criterion.threshold, reading.criterion.scale) == ("above", 2.5, "million")


@pytest.mark.parametrize(("question", "criterion"), [
    ("How many lakes take in at least 30 kg of mercury a year?", ("above", 30.0, "")),
    ("Which ports handled 5k containers or more in 2020?", ("above", 5.0, "thousand")),
    ("Which lakes receive 300 litres a day or more of runoff?", ("above", 300.0, "")),
    ("Which wards had a turnout of 45% or above?", ("above", 45.0, "%")),
    ("How many clinics had 3 or fewer nurses?", ("below", 3.0, "")),
    ("which gauges have a peak reading bigger than 4", ("above", 4.0, "")),  # "peak" is no ranking beside a bound
])
def test_a_threshold_s_scale_is_glued_to_its_figure_and_a_threshold_may_follow_it(
        question: str, criterion: tuple[str, float, str]) -> None:
    """"30 kg" is no 30 thousand ("k" of a unit word is no scale); "300 litres a day or more" is a threshold said
    after its figure."""
    reading = read(question)
    assert (reading.criterion.kind, reading.criterion.threshold, reading.criterion.scale) == criterion


def test_a_span_of_time_compared_is_no_comparison_of_two_columns() -> None:
    assert read("Which three towns had the most visitors who stayed more than a week?").criterion.kind == "max"
    assert read("which wards had more yes votes than no votes").criterion.kind == "above_another"
    assert read("Was the Roads budget higher in 2019 than in 2018?").criterion.kind == "max"  # yes or no, of one row


def test_an_age_group_and_a_bound_are_no_threshold_and_no_ranking_of_the_least() -> None:
    assert read("How many women aged 60 and over lived in the district?").criterion.kind != "above"
    reading = read("Which complaint did the most pupils have at least every week?")
    assert reading.query is not None and reading.query.descending and reading.criterion.kind == "max"


@pytest.mark.parametrize(("question", "described"), [
    ("By how much was the yield of plot B below the control plot in week 6?",
     "difference(line(control plot in week 6), line(yield of plot B))"),
    ("By how much was spending above budget in 2019?", "difference(line(spending 2019), line(budget 2019)); 2019"),
])
def test_by_how_much_one_figure_was_below_or_above_another_is_their_difference(question: str, described: str) -> None:
    assert described in read(question).describe()


def test_the_place_asked_in_a_ranking() -> None:
    """"The second largest" asks for the second place; a plain superlative, or "second" that ranks nothing, the first."""
    assert read("Which region had the second largest harvest in 2020?").rank == 2
    assert read("Which port handled the 3rd-busiest traffic?").rank == 3
    assert read("Which region had the largest harvest in 2020?").rank == 1
    assert read("What was the harvest in the second half of 2020?").rank == 1


@pytest.mark.parametrize("said", ["is projected to come from", "will come from", "is expected to come from", "comes from"])
def test_a_share_said_in_the_future_or_present_reads_as_the_part_of_the_whole(said: str) -> None:
    # the year after the whole is the whole's and the part's, not a third thing the whole is "in"
    assert tree(f"What share of total fares in 2031 {said} season tickets?") == \
        "share(line(season tickets 2031), line(total fares 2031))"


def test_a_part_said_as_where_it_was_is_the_place_not_the_preposition() -> None:
    assert tree("What percentage of parcels in 2024 was in the northern depot?") == \
        "share(line(northern depot 2024), line(parcels 2024))"


@pytest.mark.parametrize(("question", "described"), [
    ("How much toll revenue is projected for 2031?", "line(toll revenue 2031)"),
    ("How many hectares of barley are expected to be sown in 2027?", "line(hectares of barley sown 2027)"),
    ("What are ferry fares on average per year from 2021 to 2023?", "average(line(ferry fares)) 2021-2022-2023"),
    ("What was the projected benefit obligation in 2020?", "line(projected benefit obligation 2020)"),
])
def test_what_a_projection_or_an_average_says_of_a_line_is_not_its_name(question: str, described: str) -> None:
    assert tree(question) == described


@pytest.mark.parametrize(("question", "kind", "figure", "scale"), [
    ("Which depots had a backlog of zero?", "equal", 0.0, ""),
    ("Which routes of the night network had a delay rate of 4.5% in 2024?", "equal", 4.5, "%"),
    ("How many stations had exactly 3 lifts?", "equal", 3.0, ""),
    ("Which depots had a backlog of 10 or more?", "above", 10.0, ""),
    ("which rivers, lakes or canals had more than 20 spills", "above", 20.0, ""),  # the rows listed with commas
    ("Which bus, tram or ferry lines were used by more than half of commuters?", "above", 50.0, "%"),
])
def test_a_figure_said_exactly_is_a_criterion_of_its_own(question: str, kind: str, figure: float, scale: str) -> None:
    reading = read(question)
    assert (reading.criterion.kind, reading.criterion.threshold, reading.criterion.scale) == (kind, figure, scale)
    if question.lower().startswith("which"):
        assert reading.query is not None and reading.query.operation == "list", reading.describe()


def test_the_second_side_said_as_that_in_another_place_is_the_first_measure_there() -> None:
    assert tree("By how much did the parcels delivered in Leeds exceed those in York?") == \
        "difference(line(parcels delivered in Leeds), line(parcels delivered in York))"
    assert tree("How much higher was ridership in 2022 than that in 2021?") == \
        "gap(line(ridership 2022), line(ridership 2021)) 2022-2021"


def test_and_or_inside_a_line_is_no_ratio() -> None:
    reading = read("What is the change in the losses on disposal and/or early repayment of hedges from 2020 to 2021?")
    assert reading.measure is not None and reading.measure.op == m.CHANGE
    assert reading.measure.parts[0].op == m.LINE and "and/or" in reading.measure.parts[0].words


def test_a_span_of_years_said_beside_the_years_is_no_word_of_the_line() -> None:
    reading = read("What was the average dredging cost across the 3 year period from 2019 to 2021?")
    assert reading.measure is not None and reading.measure.op == m.AVERAGE
    assert reading.measure.parts[0].words == "dredging cost", reading.describe()
    assert [p.formula for p in plans_of(reading)] == ["avg(dredging_cost_2019, dredging_cost_2020, dredging_cost_2021)"]


def test_a_measure_the_catalogue_names_is_no_output_turned_into_a_noun() -> None:
    """"How much wheat did a province produce" asks for its wheat production; "how much free cash flow did a company
    generate" asks for the free cash flow itself, not a line "free cash flow generation"."""
    assert "production" in read("How much wheat did Zuidmeer produce in 2023?").describe()
    generated = read("How much FCF did Acme generate in fiscal 2021?")
    assert "named(free cash flow" in generated.describe() and "generation" not in generated.describe()


def test_a_bracket_after_an_operator_is_an_operand_of_the_definition() -> None:
    plan = plans_of(read("Northwind FY'21 days of stock: 365 * average stock (2020, 2021) / (freight costs + "
                         "packaging costs). Round to 2 decimals.", ("Northwind",)))[0]
    assert plan.formula == "365 * avg(stock_2020, stock_2021) / (freight_costs_2021 + packaging_costs_2021)", plan


def test_definitions_said_after_semicolons_feed_the_measure_they_define() -> None:
    reading = read("Northwind Shipping Group FY'21 cycle time in days = DOS + DOR; DOS = avg stock / freight costs x "
                   "365, DOR = avg receivables / fares x 365", ("Northwind",))
    names = dict(reading.definitions)
    assert names.get("dos") == "avg stock / freight costs x 365" and names.get("dor") == "avg receivables / fares x 365"
    plan = plans_of(reading)[0]
    assert {q.words for q in plan.quantities} == {"stock", "freight costs", "receivables", "fares"}, plan


def test_a_symbol_set_to_a_number_is_a_setting_not_a_definition() -> None:
    for question in ("What is the error of the second method when k = 20?",
                     "At a sample size of 50, what was the bias when m = 10 for the skewed errors?"):
        reading = read(question)
        assert not reading.definitions and reading.measure is not None and reading.measure.op == "line", reading
    assert dict(read("Give the ratio for 2020, where R = revenue / staff.").definitions) == {"r": "revenue / staff"}


def test_a_definition_said_with_divides_is_read_and_a_days_measure_stays_in_days() -> None:
    reading = read("How many days was Northwind's cash conversion cycle in 2021? Take DIO plus DSO minus DPO, where "
                   "DPO divides average payables by freight costs plus the change in inventories.", ("Northwind",))
    assert dict(reading.definitions)["dpo"] == "average payables / (freight costs plus the change in inventories)"
    (plan,) = plans_of(reading)
    assert "365 * (avg(payables_2020, payables_2021) / (freight_costs_2021 + (inventories_2021 - inventories_2020)))" \
        in plan.formula, plan.formula


def test_a_definition_adding_a_line_the_usual_one_lacks_gets_no_usual_stand_in() -> None:
    reading = read("What was the cash conversion cycle in fiscal 2021: DIO + DSO - DPO, each on the average of the "
                   "two year-end balances (payables over costs plus the change in stock), times 365?")
    assert plans_of(reading) == []


@pytest.mark.parametrize(("question", "described"), [
    ("How much cash did Northwind generate from operations after capex during fiscal 2021?",
     "difference(line(cash from operations 2021), line(capex 2021)) 2021"),
    ("How much revenue did Northwind bring in from freight in 2020?", "line(revenue from freight 2020)"),
])
def test_what_a_company_made_from_something_and_what_is_left_after_an_outlay(question: str, described: str) -> None:
    assert tree(question, ("Northwind",)) == described


@pytest.mark.parametrize(("question", "described"), [
    ("Northwind (NASDAQ: NWND) FY'21 freight costs, in USD millions", "line(freight costs 2021)"),
    ("Northwind 3-year average gross margin (FY2019A-FY2021A), in %",
     "average(share(named(gross profit), line(revenue))) 2019-2020-2021 over 3 years"),
    ("For the fleet plan, I need Northwind's net fixed assets at 12/31/2021. Report in $ millions.",
     "line(net fixed assets 2021)"),
    ("Northwind: annualized growth of fares, fiscal 2019 to fiscal 2021 (compounded), one decimal %",
     "cagr(line(fares)) 2019-2021"),
    ("From Northwind's balance sheet, what were its spare parts worth at the end of fiscal 2021?",
     "line(spare parts 2021)"),
])
def test_typed_forms_of_tickers_years_dates_requests_and_growth(question: str, described: str) -> None:
    assert tree(question, ("Northwind",)) == described


def test_a_definition_given_as_an_instruction_after_the_question_is_how_to_compute_it() -> None:
    plan = plans_of(read("How hard did Northwind work its fleet in 2021? Give fares divided by average total assets "
                         "(2020 and 2021 year-ends), 2 dp.", ("Northwind",)))[0]
    assert plan.formula == "fares_2021 / avg(total_assets_2020, total_assets_2021)", plan


def test_a_catalogue_measure_of_a_segment_takes_every_line_for_that_segment() -> None:
    (plan,) = plans_of(read("Northwind Freight segment days inventory outstanding for 2021?", ("Northwind",)))
    assert {(q.words, q.year, q.whole) for q in plan.quantities} == {
        ("Freight inventories", 2020, True), ("Freight inventories", 2021, True),
        ("Freight cost of goods sold", 2021, True)}, plan


@pytest.mark.parametrize(("question", "name"), [
    ("What were Northwind's days of inventory on hand in 2021?", "days inventory outstanding"),
    ("Northwind days payables for FY2021?", "days payable outstanding"),
    ("Northwind days sales in receivables, 2021?", "days sales outstanding"),
])
def test_days_measures_by_the_other_names_people_type(question: str, name: str) -> None:
    reading = read(question, ("Northwind",))
    assert reading.measure is not None and reading.measure.op == m.NAMED and reading.measure.words == name


def test_year_end_balances_said_with_the_other_line_and_the_days_in_brackets() -> None:
    (plan,) = plans_of(read("Northwind days of inventory on hand in fiscal 2021 using year-end inventories and "
                            "cost of sales (x365)?", ("Northwind",)))
    assert plan.formula == "365 * inventories_2021 / cost_of_goods_sold_2021", plan
    other = read("Northwind days of inventory on hand in fiscal 2021 using year-end inventories and freight costs?",
                 ("Northwind",))
    assert all("cost_of_goods_sold" not in p.formula for p in plans_of(other))  # another line named: not dropped


@pytest.mark.parametrize(("question", "formula"), [
    ("What is the ratio of freight costs in 2021 to freight costs in 2020?", "freight_costs_2021 / freight_costs_2020"),
    ("What were freight costs in 2021 as a percentage of freight costs in 2020?",
     "freight_costs_2021 / freight_costs_2020 * 100"),
    ("What is the ratio of fuel costs in 2021 to net sales in 2020?", "fuel_costs_2021 / net_sales_2020"),
    ("What is the ratio of fuel costs to net sales in 2021?", "fuel_costs_2021 / net_sales_2021"),
    ("What is the difference between net sales in 2021 and fuel costs in 2020?", "net_sales_2021 - fuel_costs_2020"),
    ("What is net sales in 2021 less fuel costs in 2020?", "net_sales_2021 - fuel_costs_2020"),
    # one line named in each of two years: the difference between its two figures, never a figure less itself
    ("How much more were net sales in 2021 than net sales in 2020?", "abs((net_sales_2021) - (net_sales_2020))"),
    ("What is the difference between net sales in 2021 and net sales in 2020?",
     "abs((net_sales_2021) - (net_sales_2020))"),
    # the second side said as its year alone: the first side's line in that year, not a line named "in"
    ("How much higher were net sales in 2021 than in 2020?", "abs((net_sales_2021) - (net_sales_2020))"),
    ("How much lower were net sales in fiscal 2020 than in fiscal 2021?", "abs((net_sales_2021) - (net_sales_2020))"),
])
def test_a_year_said_at_the_end_is_the_last_part_s_where_the_first_names_its_own(question: str, formula: str) -> None:
    """"X in 2021 to X in 2020": the year said last belongs to the last part, not to the whole measure (where the first
    part's year would overrule it and the ratio divide a figure by itself)."""
    assert [plan.formula for plan in plans_of(read(question))] == [formula]


@pytest.mark.parametrize(("question", "formula"), [
    ("What is the ratio of freight costs in 2021 to 2020?", "freight_costs_2021 / freight_costs_2020"),
    ("What is the ratio of the harbour fees in fiscal 2020 to fiscal 2021?", "harbour_fees_2020 / harbour_fees_2021"),
    ("What is the ratio of tools, moulds, and dies in 2021 to 2020?",
     "tools_moulds_and_dies_2021 / tools_moulds_and_dies_2020"),
    ("What is the ratio of freight costs in 2021 and 2020?", "freight_costs_2021 / freight_costs_2020"),
])
def test_the_ratio_of_one_line_in_two_years_said_once(question: str, formula: str) -> None:
    """"The ratio of X in 2021 to 2020": the line is said once, the year said first over the year said last (before, the
    years were read as the line's and the phrase as a line named "ratio of X", or "tools, moulds and dies" split at its
    "and" into two lines)."""
    assert [plan.formula for plan in plans_of(read(question))] == [formula]


@pytest.mark.parametrize(("question", "formula"), [
    ("What was the difference in the freight costs in 2021 between Oceania and Africa?",
     "freight_costs_for_oceania_2021 - freight_costs_for_africa_2021"),
    ("What was the difference in harbour fees between the north quay and the south quay in 2020?",
     "harbour_fees_for_north_quay_2020 - harbour_fees_for_south_quay_2020"),
])
def test_the_difference_in_one_line_between_two_of_its_items(question: str, formula: str) -> None:
    """"The difference in X in 2021 between A and B": X for A less X for B (before, "X in between A and B" was read as
    one line, whose change over no period no table printed)."""
    assert [plan.formula for plan in plans_of(read(question))] == [formula]


@pytest.mark.parametrize(("question", "kind"), [
    ("Which county had the highest share of adults with lower incomes?", "max"),  # "lower" is part of a name
    ("Which school had the fewest pupils in more than one class?", "min"),
    ("Which district's output fell the most?", "min"),  # a fall ranked by its size: the verb says the direction
    ("Which region had the largest decrease in visitors?", "min"),
])
def test_a_superlative_says_the_direction_over_a_comparative_in_a_name(question: str, kind: str) -> None:
    assert read(question).criterion.kind == kind


@pytest.mark.parametrize(("question", "target", "kind", "threshold"), [
    ("Which ponds are shallower than 2?", "depth", "below", 2.0),
    ("Which hikers were older than 60?", "age", "above", 60.0),
    ("List the parcels heavier than 15", "weight", "above", 15.0),
    ("Which stations are nearer than 40 to the coast?", "distance", "below", 40.0),
])
def test_a_comparative_with_a_bound_reads_the_measure_it_compares(question: str, target: str, kind: str,
                                                                  threshold: float) -> None:
    reading = read(question)
    assert reading.query is not None and reading.query.target.startswith(target), reading.describe()
    assert (reading.criterion.kind, reading.criterion.threshold) == (kind, threshold)


def test_words_in_eed_are_no_verbs_in_the_past() -> None:
    assert [verb_base(w) for w in ("speed", "exceed", "agreed", "needed", "seeded")] == \
        ["speed", "exceed", "agree", "need", "seed"]


def test_on_average_what_the_rows_got_is_an_average_of_it() -> None:
    reading = read("On average, what score did the teams get?")
    assert reading.measure is not None and reading.measure.op == "average", reading.describe()
    assert reading.measure.parts and "score" in reading.measure.parts[0].words, reading.describe()


def test_a_top_n_that_scopes_a_named_row_is_no_ranking() -> None:
    """"X's turnover among the top 20 grocers": one row's figure, the ranking only says which table."""
    reading = read("What was Halvorsen's turnover among the region's top 20 grocers?")
    assert reading.kind == "lookup" and reading.query is None, reading
    assert read("What were the top 3 grocers by sales?").query.operation == "top"


def test_a_line_that_yields_a_figure_is_the_line_asked() -> None:
    """"how much did the fuel levy bring in": the levy is the line; "how much did Acme raise" is Acme's."""
    leaves = read("How much did the fuel levy bring in in 2016?").measure.leaves()
    assert [leaf.words for leaf in leaves] == ["fuel levy"]
    assert read("How much did port fees yield in 2019?").measure.leaves()[0].words == "port fees"
    assert read("How much did the agency raise in 2019?").measure.leaves()[0].words != "agency"


def test_an_average_per_year_over_a_span_of_years_is_every_year_of_it() -> None:
    """An average "from 2005 to 2018", "in Table B-2": every year of a fourteen-year span, the table said for its
    choice only."""
    measure = read("How much did the tobacco excise bring in, on average, from 2005 to 2018 in Table B-2?").measure
    assert measure.op == "average", measure
    assert [leaf.words for leaf in measure.leaves()] == ["tobacco excise"], measure
    years = set(measure.periods) | {y for leaf in measure.leaves() for y in leaf.periods}
    assert years == set(range(2005, 2019)), measure


def test_a_product_written_with_x_between_spaces_is_kept_in_a_definition() -> None:
    """"365 x mean trade payables": a product (only a multiple's "4x" or "4.1x" drops its x)."""
    reading = read("Harlow's DPO for 2021, with DPO = 365 x mean trade payables (2020, 2021) / 2021 cost of sales",
                   ("Harlow",))
    assert dict(reading.definitions)["dpo"].startswith("365 x mean"), reading.definitions
