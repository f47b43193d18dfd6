"""Answer types (issue 13): the type decided once per question, and the answer composed to it.

Wording rules are checked on invented questions in TAT-QA's shapes; composition runs the real loop over the drawn budget
report (``test_answering_library``) with a scripted model that is called only where the type needs it: a
header, the respective figures, labels, counts and a title come from SQL and the table's labels alone."""

from __future__ import annotations

import pytest

from core.answering import Answerer, text_facts
from core.answering import answer_types as types
from core.answering.reading import read
from core.sql.runner import SqlResult
from models.types import Chunk
from tests.core.answering.test_answering_library import ReportFixture, ScriptedChat, report  # noqa: F401

pytestmark = pytest.mark.unit


def make(report: ReportFixture, chat: ScriptedChat) -> Answerer:  # noqa: F811
    return Answerer(report.library, report.retriever, report.runner, chat)  # type: ignore[arg-type]


@pytest.mark.parametrize(("question", "kind", "several"), [
    ("In which year is the diluted average shares outstanding the highest?", types.COLUMN_HEADERS, False),
    ("In which year was the weighted average number of shares largest?", types.COLUMN_HEADERS, False),
    ("Which years does the table provide figures for the accrued lease obligations?", types.COLUMN_HEADERS, True),
    ("Which years did the figure for Miscellaneous exceed $8 million?", types.COLUMN_HEADERS, True),
    ("What are the respective number of shares outstanding in 2019 and 2018?", types.FIGURES, True),
    ("What was the gross unearned premium amount in 2021 and 2020 respectively?", types.FIGURES, True),
    ("What are the types of past due but not impaired receivables?", types.ROW_LABELS, True),
    ("Which regions are shown in the table of total segment sales?", types.ROW_LABELS, True),
    ("Which item is the greatest in the total lease cost?", types.ROW_LABELS, False),
    ("What data does the table contain?", types.TITLE, False),
    ("How are the expenses recognized for RSUs with performance criteria?", types.TEXT, False),
    ("What caused the decrease in freight costs in 2021?", types.TEXT, False),
    ("How many types of marketable securities are there?", types.COUNT, False),
    ("How many years did royalty income exceed $2,300 thousand?", types.COUNT, False),
    ("What was the percentage change in total payroll between 2020 and 2021?", types.COMPUTED, False),
    ("What was the special dividend per unit in 2021?", types.LOOKUP, False),
    ("What is the Total assets for 2019?", types.LOOKUP, False),  # "total" names the row, no sum asked
    ("Is the discount rate higher in 2019?", types.YES_NO, False),
    ("When did the Company finish an on-market share consolidation of 12,405,300 preference shares?", types.TEXT, False),
    ("When was revenue highest?", types.COLUMN_HEADERS, False),
    ("What is excluded from the Adjusted (non-GAAP) freight expense?", types.TEXT, False),
    ("Are there any requirements to meet to become entitled to the retention bonus?", types.TEXT, False),
    ("Was there a material inventory write-down in 2021, 2020 and 2019?", types.TEXT, False),
])
def test_wording_decides_the_type(question: str, kind: str, several: bool) -> None:
    decided = types.of_reading(read(question))
    assert (decided.kind, decided.several) == (kind, several), read(question).describe()
    assert decided.decided_by == "wording"


def test_tables_decide_when_the_wording_does_not() -> None:
    question = "Talespin equity ownership of the company"
    assert not read(question).settled
    # No table label names the subject: the text answers it.
    assert types.of_reading(read(question), [{"revenue", "cost"}]).kind == types.TEXT
    # A year and a subject the labels name: a lookup in the table.
    assert types.of_reading(read("Talespin equity ownership in 2019"), [{"talespin", "equity", "ownership"}]).kind \
        == types.LOOKUP
    # A measure to compute is computed, whatever the tables hold.
    assert types.of_reading(read("What was the change in talespin equity from 2018 to 2019?"), []).kind \
        == types.COMPUTED


def test_header_answer_is_the_year_sql_selected_with_the_values_as_support(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    answer = make(report, chat).answer("In which year was the Roads budget higher?")
    assert chat.calls == []  # wording, SQL and the table's headers decide it
    assert (answer.value, answer.parts, answer.answer_type) == ("2019", ("2019",), types.COLUMN_HEADERS)
    assert "120.5" in answer.text and "110" in answer.text and "p. 1" in answer.text
    (step,) = answer.steps
    assert step.sql is not None and "_row = 1" in step.sql and step.answer_type == types.COLUMN_HEADERS
    (cited,) = [c for c in answer.citations if c.sql]
    assert {(c.column, c.text) for c in cited.cells} == {("y2019", "120.5"), ("y2018", "110.0")}


def test_header_answer_with_a_threshold_and_the_lower_year(report: ReportFixture) -> None:  # noqa: F811
    answer = make(report, ScriptedChat()).answer("In which year was the Schools budget less than 290 million?")
    assert answer.value == "2018"
    answer = make(report, ScriptedChat()).answer("In which year was the Parks budget lowest?")
    assert answer.value == "2018"


def test_years_the_table_covers(report: ReportFixture) -> None:  # noqa: F811
    answer = make(report, ScriptedChat()).answer("Which years does the table provide budget information for?")
    assert answer.parts == ("2019", "2018") and answer.value == "2019 and 2018"


def test_yes_no_comparisons_answer_yes_or_no_with_both_figures(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    answer = make(report, chat).answer("Was the Roads budget higher in 2019 than in 2018?")
    assert chat.calls == []
    assert (answer.value, answer.parts, answer.answer_type) == ("Yes", ("Yes",), types.YES_NO)
    assert "120.5 million in 2019 against 110 million in 2018" in answer.text
    assert {(c.column, c.text) for c in next(c for c in answer.citations if c.sql).cells} == {
        ("y2019", "120.5"), ("y2018", "110.0")}
    # One year named: compared with the year before it in the table.
    answer = make(report, ScriptedChat()).answer("Did the Parks budget decrease in 2019?")
    assert answer.value == "No" and "80 million in 2019 against 75.5 million in 2018" in answer.text


def test_respective_figures_in_the_order_asked_never_their_difference(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    answer = make(report, chat).answer("What are the respective Roads budgets in 2018 and 2019?")
    assert chat.calls == []
    assert answer.parts == ("110 million", "120.5 million") and answer.answer_type == types.FIGURES
    assert "10.5" not in answer.text  # no difference taken
    answer = make(report, ScriptedChat()).answer("What are the respective budgets of Schools and Parks in 2019?")
    assert answer.parts == ("300.25 million", "80 million")


def test_respective_figures_the_code_cannot_place_are_chosen_by_the_model_as_a_lookup(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue({"operation": "lookup", "cells": [{"row": "Total", "column": "y2019"},
                                                 {"row": "Total", "column": "y2018"}]})
    answer = make(report, chat).answer("What were the respective budget totals?")
    assert chat.calls[0]["schema"]["properties"]["operation"]["enum"] == ["lookup"]
    assert answer.parts == ("500.75 million", "477.5 million")


def test_label_answers_list_the_rows_without_the_total(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    answer = make(report, chat).answer("What are the departments shown in the table?")
    assert chat.calls == []
    assert answer.parts == ("Roads", "Parks", "Schools", "Libraries") and answer.answer_type == types.ROW_LABELS


def test_items_under_a_heading_come_only_from_a_table_that_prints_that_heading() -> None:
    """"The components under deferred tax liabilities": a table printing that heading lists the rows beneath it;
    a table of other things (the current and deferred parts of a tax charge) lists nothing, for code or a query."""
    from core.answering.compose import item_rows, misses_the_heading
    from tests.core.answering.test_formulas import _view

    columns = [("y2021", "2021", 2021), ("y2020", "2020", 2020)]
    charge = _view([("Current: Federal", "", (41.0, 38.0)), ("Current: State", "", (9.0, 7.0)),
                    ("Deferred: Federal", "", (-4.0, 3.0))], columns)
    balances = _view([("Deferred tax assets", "", (None, None)), ("Accrued rebates", "Deferred tax assets", (18.0, 15.0)),
                      ("Leases", "Deferred tax assets", (22.0, 25.0)),
                      ("Deferred tax liabilities", "", (None, None)),
                      ("Software development", "Deferred tax liabilities", (-31.0, -27.0)),
                      ("Prepaid costs", "Deferred tax liabilities", (-6.0, -5.0)),
                      ("Total deferred tax liabilities", "Deferred tax liabilities", (-37.0, -32.0))], columns, table_id=2)
    question = "Which items are listed under deferred tax liabilities in the table?"
    assert misses_the_heading(charge, question) and item_rows(charge, question) == []
    assert not misses_the_heading(balances, question)
    assert [r.label for r in item_rows(balances, question)] == ["Software development", "Prepaid costs"]
    # a question naming no heading lists any table's items
    assert not misses_the_heading(charge, "What are the components of the tax charge?")


def test_a_label_printed_again_with_figures_of_its_own_is_a_row_of_its_own() -> None:
    """"Not Hispanic" printed under two groups, each with its own rate, is two rows of a count, each named by the
    group above it; a row printed twice with the same figures is counted once."""
    from core.answering.compose import item_rows, labels
    from tests.core.answering.test_formulas import _view

    view = _view([("White alone", "", (17.4,)), ("Not Hispanic", "", (17.6,)), ("Asian alone", "", (14.5,)),
                  ("Not Hispanic (#2)", "", (14.4,)), ("Two or more races", "", (22.0,)),
                  ("Two or more races (#2)", "", (22.0,))], [("y2010", "2010", 2010)])
    question = "How many lines give a rate below 18 in 2010?"
    assert [r.label for r in item_rows(view, question)] == ["White alone", "Not Hispanic", "Asian alone",
                                                            "Not Hispanic (#2)", "Two or more races"]

    def run(sql: str) -> SqlResult:
        return SqlResult(sql, ("_row", "item"), (), False, 0.0)

    composed = labels(view, read(question), types.AnswerType(types.COUNT, "wording"), run)
    assert composed is not None and composed.value == "4", composed
    assert "Not Hispanic (White alone)" in composed.sentence and "Not Hispanic (Asian alone)" in composed.sentence
    # "yes", "no", "yes (#2)": values of a category no row above tells apart; a count of the labels counts nothing asked
    category = _view([("yes", "", (1.5,)), ("no", "", (2.0,)), ("yes (#2)", "", (3.1,)), ("no (#2)", "", (0.4,))],
                     [("y2010", "2010", 2010)])
    assert labels(category, read("What number of days appear in the table?"), types.AnswerType(types.COUNT, "wording"), run) is None


def test_a_question_for_the_years_is_not_answered_with_a_list_of_the_table_s_items() -> None:
    """"Which years are shown?" over a table of items: a query listing the row labels answers another question;
    over a table whose rows are periods ("April 2021", "May 2021"), listing or ranking them is the answer."""
    from core.answering.query_step import _lists_rows_for_periods
    from core.answering.table_query import QueryPlan
    from tests.core.answering.test_formulas import _view

    columns = [("y2021", "2021", 2021), ("y2020", "2020", 2020)]
    items = _view([("Freight", "", (5.0, 4.0)), ("Fuel", "", (3.0, 2.0))], columns)
    months = _view([("April 1 - April 30, 2021", "", (12.0, None)), ("May 1 - May 31, 2021", "", (9.0, None))], columns)
    years = read("Which financial years are covered by the table?")
    assert years.kind == types.COLUMN_HEADERS
    assert _lists_rows_for_periods(QueryPlan(items, "list", None, group=items.label_column), years)
    assert not _lists_rows_for_periods(QueryPlan(months, "top", None, group=months.label_column), years)
    assert not _lists_rows_for_periods(QueryPlan(items, "list", None, group=items.label_column),
                                       read("Which items are shown in the table?"))


def test_counts_of_rows_and_of_periods(report: ReportFixture) -> None:  # noqa: F811
    answer = make(report, ScriptedChat()).answer("How many departments are there in the budget?")
    assert (answer.value, answer.answer_type) == ("4", types.COUNT)
    answer = make(report, ScriptedChat()).answer("How many years did the Roads budget exceed 115 million?")
    assert answer.value == "1"
    answer = make(report, ScriptedChat()).answer("How many years did the Roads budget exceed 900 million?")
    assert answer.value == "0"  # no year meets it: a count of none, said as such


def test_title_answer(report: ReportFixture) -> None:  # noqa: F811
    answer = make(report, ScriptedChat()).answer("What does the table show?")
    assert answer.value == "Table 1: Budget by department" and answer.answer_type == types.TITLE


def test_a_title_asked_of_no_table_in_particular_is_not_composed_from_whichever_ranks_first() -> None:
    """Two tables in reach and "what does the table show?": code cannot tell which is meant, so it composes no
    title (the model's turn); a question naming what the table is about, or one table in reach, gets one."""
    from core.answering.compose import compose, names_no_table
    from tests.core.answering.test_formulas import _view

    columns = [("y2021", "2021", 2021), ("y2020", "2020", 2020)]
    freight = _view([("Road", "", (5.0, 4.0)), ("Rail", "", (3.0, 2.0))], columns, caption="Freight costs by mode")
    staff = _view([("Drivers", "", (50.0, 48.0))], columns, caption="Staff by role", table_id=2)
    wanted = types.AnswerType(types.TITLE, "wording")
    bare = read("What does the table show?")
    assert compose([freight, staff], bare, wanted, lambda sql: None) is None  # type: ignore[arg-type,return-value]
    assert compose([freight, staff], read("What does this table represent?"), wanted,
                   lambda sql: None) is None  # type: ignore[arg-type,return-value]
    one = compose([staff], bare, wanted, lambda sql: None)  # type: ignore[arg-type,return-value]
    assert one is not None and one.value == "Staff by role"
    about = compose([freight, staff], read("What does the table show about freight costs?"), wanted,
                    lambda sql: None)  # type: ignore[arg-type,return-value]
    assert about is not None and about.value == "Freight costs by mode"
    periods = types.AnswerType(types.COLUMN_HEADERS, "wording", several=True)
    assert compose([freight, staff], read("What were the periods included in this table?"), periods,
                   lambda sql: None) is None  # type: ignore[arg-type,return-value]
    assert names_no_table(read("Which years does the table cover?"), periods)
    assert not names_no_table(read("In which years were rail freight costs above 2.5?"), periods)
    # how a table holds its periods ("highlighted", "the fiscal years displayed") says nothing of what it is about
    assert names_no_table(read("Which periods are featured in the table?"), periods)
    assert names_no_table(read("Which fiscal years are displayed in the table?"), periods)
    assert not names_no_table(read("Which fiscal years of freight costs are displayed?"), periods)


def test_the_periods_a_table_includes_are_its_column_headers() -> None:
    assert read("What were the periods included in this table?").kind == types.COLUMN_HEADERS
    assert read("What were the quarters presented?").kind == types.COLUMN_HEADERS
    assert read("What are the years of service required?").kind != types.COLUMN_HEADERS


def test_text_answer_runs_no_sql_and_cites_the_passage(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    question = "What caused the rise in park spending?"
    chat.queue({"answer": "the opening of two new playgrounds"})
    answer = make(report, chat).answer(question)
    assert len(chat.calls) == 1  # the question itself, put to the passages
    assert answer.answer_type == types.TEXT and answer.text == "the opening of two new playgrounds"
    assert all(s.sql is None for s in answer.steps)
    assert not any("operation" in (c["schema"] or {}).get("properties", {}) for c in chat.calls)
    assert any(c.kind == "text" and c.page == 1 for c in answer.citations)


def _passage(text: str) -> Chunk:
    return Chunk(1, 1, "report.pdf", "text", 3, text)


def test_a_figure_a_passage_states_outright() -> None:
    passages = [_passage("Our top ten customers accounted for 51.3% of total operating revenues in 2019, "
                         "compared with 47.0% in 2018.")]
    found = text_facts.stated_figure("Top ten customers account for what percentage of total operating "
                                     "revenues in 2019?", passages)
    assert found is not None and found.figure == "51.3%" and found.chunk.page == 3
    assert text_facts.states_share(found, "Top ten customers account for what percentage of total operating "
                                          "revenues in 2019?")
    # The year must be stated, and most of the subject named.
    assert text_facts.stated_figure("What percentage of operating revenues did top ten customers have in 2017?",
                                    passages) is None
    assert text_facts.stated_figure("What were the pension and benefit charges in 2019?", passages) is None
    assert text_facts.same_figure("51.3%", "51.30%") and not text_facts.same_figure("51.3%", "2,986.24%")


def test_a_day_of_a_date_followed_by_a_comma_is_no_figure_even_before_a_unit_word() -> None:
    """A table flattened into a passage: "Year Ended June 30, Percent Change ... Freight costs $1,310 4% 2%" states
    no 30%; the figures are those printed after the label."""
    passages = [_passage("Year Ended June 30, Percent Change (Dollars in millions) 2021 Actual Constant 2020 "
                         "Freight costs $1,310 4% 2% $1,262")]
    found = text_facts.stated_figure("Freight costs: by what percent did they move, as reported and at constant "
                                     "currency?", passages)
    assert found is None or found.figure != "30, Percent"
    assert "30, Percent" not in text_facts._figures(passages[0].text)


def test_of_several_figures_in_a_clause_the_one_stated_for_the_year_asked_is_taken() -> None:
    passages = [_passage("Our research and development staff grew by 119 employees, from 1,501 "
                         "employees at June 30, 2018 to 1,620 employees at June 30, 2019.")]
    asked = "How many employees are in the research and development staff at Fiscal year {}?"
    found = text_facts.stated_figure(asked.format(2019), passages)
    assert found is not None and found.figure == "1,620"
    found = text_facts.stated_figure(asked.format(2018), passages)
    assert found is not None and found.figure == "1,501"


def test_of_several_figures_in_a_clause_the_one_its_words_name_is_taken_and_a_tie_is_none() -> None:
    passages = [_passage("Among the members surveyed, 41.5% had visited the archive at some point in their "
                         "membership and 12.2% had borrowed a book in the last year.")]
    found = text_facts.stated_figure("What percentage of members had borrowed a book in the last year?", passages)
    assert found is not None and found.figure == "12.2%"  # not the 41.5% the clause opens with
    found = text_facts.stated_figure("What percentage of members had visited the archive?", passages)
    assert found is not None and found.figure == "41.5%"
    tied = [_passage("Of the members surveyed, 30% were over 60 and 25% were under 30.")]
    assert text_facts.stated_figure("What percentage of the members were surveyed?", tied) is None


def test_a_footnote_s_number_and_a_piece_of_a_space_grouped_figure_are_no_figures() -> None:
    """A footnote's number printed flat after the words it notes ("(Park et al., 2009):17") states nothing, and
    "150 000" is one figure, never "150" or "000"."""
    passages = [_passage("The adjustments most often allowed by districts in 2011 were these (Park et al., 2009):17 "
                         "audio versions of the tests (31 districts) and extra time (44 districts).")]
    assert "17" not in text_facts._figures(passages[0].text)
    found = text_facts.stated_figure("How many districts allowed audio versions of the tests in 2011?", passages)
    assert found is not None and found.figure == "31"
    assert not {"150", "000", "14"} & set(text_facts._figures("noted in the annex.14 The threshold is 150 000 kg"))


def test_a_bound_that_says_of_whom_is_no_figure_stated() -> None:
    """"smoking among adults of \u226530 years in the valley was 12%": the 30 after the sign bounds who, the 12% is said."""
    passages = [_passage("A survey found that the prevalence of smoking among the adults of \u226530 years in the "
                         "valley of Orne was 12% in the last census.")]
    found = text_facts.stated_figure("How common was smoking among adults in the valley of Orne?",
                                     passages)
    assert found is not None and found.figure == "12%", found


def test_a_table_figure_that_disagrees_with_the_passage_is_flagged() -> None:
    passages = [_passage("Pension and benefit charges were $126 million in 2019, compared with $118 million in 2018.")]
    question = "What was the pension and benefit charges in 2019?"
    # The figure came from another table, whose row names little of the subject: the passage's is given.
    fixed = text_facts.reconcile(question, types.LOOKUP, "Net income, 2019: 24,459 thousand", "24,459 thousand",
                                 "unchecked", "Net income, 2019: 24,459 thousand", passages)
    assert fixed is not None and (fixed.value, fixed.status) == ("$126 million", "conflict")
    assert "24,459 thousand" in fixed.text and fixed.stated.chunk.page == 3
    # A row naming the whole subject keeps its figure, flagged with what the text says.
    fixed = text_facts.reconcile(question, types.LOOKUP, "Pension and benefit charges, 2019: 130", "130",
                                 "unchecked", "Pension and benefit charges, 2019: 130", passages)
    assert fixed is not None and (fixed.value, fixed.status) == ("130", "conflict") and "$126 million" in fixed.text
    # The same figure, a text answer, or a computed figure: nothing to change.
    assert text_facts.reconcile(question, types.LOOKUP, "126 million", "126 million", "unchecked", "", passages) is None
    assert text_facts.reconcile(question, types.LOOKUP, "about 126", "about 126", "text", "", passages) is None
    assert text_facts.reconcile(question, types.COMPUTED, "8", "8", "unchecked", "", passages) is None


def test_a_row_is_named_with_its_section_heading() -> None:
    """"The deferred income tax liabilities from amortization" is the "Amortization" line under "Deferred
    income tax liabilities", not "Net deferred income tax liabilities" (which shares four words but not the
    item); a total named in full still wins over a bare "Total" under the same heading."""
    from core.answering.compose import match_row
    from tests.core.answering.test_formulas import _view

    view = _view([("Amortization", "Deferred income tax liabilities", (173.0, 227.0)),
                  ("Prepaid expenses", "Deferred income tax liabilities", (425.0, 675.0)),
                  ("Total", "Deferred income tax liabilities", (598.0, 902.0)),
                  ("Net deferred income tax liabilities", "", (9000.0, 9100.0)),
                  ("Amortization", "Deferred income tax assets", (-50.0, -60.0))],
                 [("y2019", "2019", 2019), ("y2018", "2018", 2018)])
    found = match_row(view, "How much were the deferred income tax liabilities from amortization in 2018 and 2019?")
    assert found is not None and (found.label, found.row) == ("Amortization", 1)
    total = match_row(view, "What were the net deferred income tax liabilities in 2019?")
    assert total is not None and total.label == "Net deferred income tax liabilities"


def test_a_figure_the_question_prints_is_not_its_answer() -> None:
    passages = [_passage("Under the 2022 mortality assumptions a retired woman aged 60 is expected to live 31.4 "
                         "more years.")]
    found = text_facts.stated_figure("Under the 2022 mortality assumptions, how many more years is a retired woman "
                                     "aged 60 expected to live?", passages)
    assert found is not None and found.figure == "31.4", found


def test_a_figure_asked_in_the_text_s_words_is_the_figure_the_text_states() -> None:
    passages = [_passage("Estimates are provisional and based on the spring crop survey of 1,250 farms in the county.")]
    fixed = text_facts.reconcile("How many farms did the spring crop survey cover?", "text", "", "", "refused", "",
                                 passages)
    assert fixed is not None and fixed.value == "1,250" and fixed.status == "text"
    # a passage answer the model already gave stands
    assert text_facts.reconcile("How many farms did the spring crop survey cover?", "text", "It covered 1,250 farms.",
                                "1,250", "text", "", passages) is None


def test_a_change_a_passage_states_answers_the_change_asked_when_no_table_gives_it() -> None:
    passages = [_passage("Ferry fuel costs rose $3.4 million compared to 2020, while the harbour levy was unchanged. "
                         "An increase of $0.7 million in dredging provisions in the current fiscal year reflects "
                         "silting. The change in the pier lease was recognised as part of other costs, which were "
                         "about 14 years old.")]
    fixed = text_facts.reconcile("What was the increase in ferry fuel costs from 2020?", types.COMPUTED, "", "",
                                 "refused", "", passages)
    assert fixed is not None and fixed.value == "$3.4 million"  # "rose" says the increase asked
    fixed = text_facts.reconcile("What was the increase in dredging provisions in the current fiscal year?",
                                 types.COMPUTED, "", "", "refused", "", passages)
    assert fixed is not None and fixed.value == "$0.7 million"
    # A figure that is not what the change word says, or a fall where a rise is asked, answers nothing.
    assert text_facts.reconcile("What is the change in the pier lease recognised as?", types.COMPUTED, "", "",
                                "refused", "", passages) is None
    assert text_facts.reconcile("What was the decrease in ferry fuel costs from 2020?", types.COMPUTED, "", "",
                                "refused", "", passages) is None


def test_a_written_answer_is_given_in_the_passage_s_own_words() -> None:
    passages = [_passage("Grounds fees are comprised of fees for mowing the playing fields and for pruning the "
                         "orchards. Members are required to hold a season pass to book a court.")]
    # the frame echoing the question is dropped where the rest is printed as it stands
    assert text_facts.quoted_span("What do the grounds fees comprise of?", "grounds fees are comprised of fees for "
                                  "mowing the playing fields and for pruning the orchards.", passages) == \
        "fees for mowing the playing fields and for pruning the orchards"
    assert text_facts.quoted_span("Is there a requirement to book a court?", "Yes, members are required to hold a "
                                  "season pass to book a court.", passages) == \
        "Members are required to hold a season pass to book a court"
    # a paraphrase the passage does not print stays as written
    assert text_facts.quoted_span("What do the grounds fees comprise of?", "Mowing and pruning.", passages) == \
        "Mowing and pruning."


def test_a_text_answer_s_value_is_the_span_the_passage_prints(report: ReportFixture) -> None:  # noqa: F811
    chat = ScriptedChat()
    chat.queue({"answer": "Yes, the opening of two new playgrounds."})
    answer = make(report, chat).answer("What caused the rise in park spending?")
    assert answer.answer_type == types.TEXT and answer.value == "the opening of two new playgrounds"


def test_words_saying_how_a_question_asks_name_no_row() -> None:
    """"In which year was the amount of X larger" names X: a label that shares only the asking words with it
    ("Payables: amounts settled within one year") is no row it names, though it shares more words than X's own
    label does; a label that prints an asking word beside the words asked ("Profit for the year") is still named."""
    from core.answering.compose import match_row
    from tests.core.answering.test_formulas import _view

    view = _view([("Goodwill", "", (850.0, 840.0)),
                  ("Payables: amounts settled within one year", "", (-120.0, -95.0)),
                  ("Profit for the year", "", (64.0, 71.0))],
                 [("y2019", "2019", 2019), ("y2018", "2018", 2018)])
    found = match_row(view, "In which year was the amount of Goodwill larger?")
    assert found is not None and found.label == "Goodwill"
    found = match_row(view, "In which year was the profit for the year higher?")
    assert found is not None and found.label == "Profit for the year"
    assert match_row(view, "In which year was the amount higher?") is None


def test_periods_of_a_row_that_lacks_a_name_the_question_writes_are_not_composed() -> None:
    """"How many years did freight costs to APAC exceed 4?" over a table of freight costs by mode, whose nearest row is
    "Freight costs": that row is no APAC figure, so code composes no count; a table whose row (or title) holds the name
    answers."""
    from core.answering.compose import compose
    from core.sql.runner import SqlResult
    from tests.core.answering.test_formulas import _view

    columns = [("y2021", "2021", 2021), ("y2020", "2020", 2020)]
    modes = _view([("Freight costs", "", (9.0, 3.0)), ("Fuel", "", (3.0, 2.0))], columns, caption="Freight costs by mode")
    regions = _view([("APAC", "", (5.0, 4.5)), ("EMEA", "", (2.0, 1.0))], columns,
                    caption="Freight costs by region", table_id=2)

    def run_sql(sql: str) -> SqlResult:
        figures = {1: (9.0, 3.0), 2: (5.0, 4.5)}[2 if '"t2"' in sql else 1]
        return SqlResult(sql, ("y2021", "y2020"), (figures,), False, 0.0)

    counted = types.AnswerType(types.COUNT, "wording")
    asked = read("How many years did freight costs to APAC exceed 4?")
    assert compose([modes], asked, counted, run_sql) is None
    found = compose([modes, regions], asked, counted, run_sql)
    assert found is not None and found.value == "2" and found.view.info.id == 2
    plain = compose([modes], read("How many years did freight costs exceed 4?"), counted, run_sql)
    assert plain is not None and plain.value == "1"


def test_a_figure_the_text_states_outright_overrides_a_model_s_other_reading_of_it() -> None:
    # the model answered from the passages it was shown with another figure (a small model miscounts, or reads
    # another clause); a passage shown or retrieved that states the figure for the question's subject is given, quoted
    shown = [_passage("The survey team visited the district twice in 2021.")]
    retrieved = [_passage("The depot keeps a register of the 27 ferries that served the coastal routes last winter.")]
    question = "How many ferries served the coastal routes last winter?"
    fixed = text_facts.reconcile(question, types.LOOKUP, "2", "2", "text", "", shown, retrieved)
    assert fixed is not None and (fixed.value, fixed.status) == ("27", "text") and "27 ferries" in fixed.text
    # the same figure, or nothing stated outright: the model's answer stands
    assert text_facts.reconcile(question, types.LOOKUP, "27", "27", "text", "", shown, retrieved) is None
    assert text_facts.reconcile(question, types.LOOKUP, "2", "2", "text", "", shown) is None
